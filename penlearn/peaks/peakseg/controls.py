"""Control (input) samples: how a ChIP-seq control enters the PeakSeg peaks.

Two rules, chosen by ``rule=`` (``penlearn peaks --control-rule``):

* ``"background"`` (the default, chosen by measurement: ``benchmarks/control.py``, table in
  ``benchmarks/RESULTS.md``, reasons in ``docs/chipseq.md``) — the control is the
  background of the Poisson model. The control is segmented like any sample (its PeakSeg
  model at its penalty, as PeakSegPipeline segments its Input samples; solved on 1 kb
  bins, each change then moved to the best row edge near it, :func:`binned_segments`);
  on each of its
  segments ``b = max(1, min(c / c₀, t / t₀))``: the control's mean there over its level
  on most bases, at most the treatment's own rise on the same bases (the local λ of
  MACS3, Zhang et al. 2008, *Genome Biology* 9:R137, with the control's segments in
  place of its fixed 1 kb / 10 kb windows: sharp at a region's edges, flat where the
  control is flat). The treatment's counts are then modelled as Poisson of mean ``m · b``
  with ``m`` constant on each segment (:data:`~penlearn.peaks.peakseg.solver.BACKGROUND`):
  a region up in the control as much as in the treatment (amplified, open chromatin,
  "sticky") has no fold, and no peak; one up only in the control is no dip of the fold;
  each peak's mean is its fold over the control (:func:`control_background`).
* ``"filter"`` — PeakSegPipeline's rule (Hocking et al. 2017, *Bioinformatics* 33(4),
  "Optimizing ChIP-seq peak detectors using visual labels and supervised machine
  learning"; its ``n.Input`` column): the control is segmented like any sample, at the
  same penalty, and a treatment peak that overlaps a control peak is dropped, reported
  per peak (``control_up``).

Without a control nothing changes: the coverage has no ``background`` column and the
model is the one of the treatment alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.peakseg.contigs import one_problem
from penlearn.peaks.peakseg.solver import BACKGROUND, COVERAGE_COLUMNS

__all__ = ["CONTROL_BIN", "CONTROL_RULES", "binned_segments", "control_background", "control_mean",
           "control_of", "mark_control_peaks", "segment_levels", "typical_levels"]

CONTROL_RULES = ("background", "filter")
# The control's model is solved on bins of this many bases, then each change moved to the
# best row edge near it (:func:`binned_segments`): MACS3's smallest local background
# window; the background is a regional level. On the benchmarks' genomes the peaks found,
# false and sticky calls are those of the former two solves, whose segments were those of
# a solve on every row (benchmarks/RESULTS.md,
# "callpeak_genome, faster solves (issue 55)" and "callpeak control model, cheaper (issue
# 55, session 17)"; 2 kb bins called more sticky regions in benchmarks/control.py).
CONTROL_BIN = 1000


def control_of(treatments, controls) -> dict:
    """Each treatment's control: one control shared by all, or one per treatment in order.

    Examples
    --------
    >>> control_of(["t1", "t2"], ["c"])
    {'t1': 'c', 't2': 'c'}
    >>> control_of(["t1", "t2"], ["c1", "c2"])
    {'t1': 'c1', 't2': 'c2'}
    """
    treatments, controls = list(treatments), list(controls)
    if len(controls) == 1:
        return dict.fromkeys(treatments, controls[0])
    if len(controls) != len(treatments):
        raise ValueError(f"--control: give one control for all treatments or one per "
                         f"treatment ({len(treatments)}), got {len(controls)}")
    return dict(zip(treatments, controls))


def _chrom_lengths(treatment: pd.DataFrame, control: pd.DataFrame, sizes: dict | None
                   ) -> dict:
    ends = pd.concat([treatment[["chrom", "chromEnd"]], control[["chrom", "chromEnd"]]])
    last = ends.groupby("chrom", sort=False)["chromEnd"].max()
    return {str(c): int(sizes.get(str(c), e) if sizes else e) for c, e in last.items()}


def control_mean(control: pd.DataFrame, lengths: dict) -> float:
    """The control's genome-wide mean coverage ``λ_bg`` over chromosomes ``lengths``.

    Examples
    --------
    >>> c = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [10], "count": [3]})
    >>> control_mean(c, {"chr1": 30})
    1.0
    """
    area = float(((control["chromEnd"] - control["chromStart"]) * control["count"]).sum())
    if area <= 0:
        raise ValueError("the control has no reads: it cannot be a background")
    return area / float(sum(lengths.values()))


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The median of ``values`` each counted ``weights`` times (bases); nan if none."""
    keep = weights > 0
    if not keep.any():
        return float("nan")
    v, w = values[keep], weights[keep]
    o = np.argsort(v, kind="stable")
    c = np.cumsum(w[o])
    return float(v[o][np.searchsorted(c, 0.5 * c[-1])])


def _typical(level: np.ndarray, bases: np.ndarray, fallback: float) -> float:
    """The level of most bases (their median), else ``fallback`` when that is 0."""
    m = _weighted_median(level, bases)
    return m if m > 0 else fallback


def control_background(treatment: pd.DataFrame, control: pd.DataFrame,
                       segments: pd.DataFrame, *, chrom_sizes: dict | None = None,
                       levels: tuple[float, float] | None = None) -> pd.DataFrame:
    """One sample's treatment coverage with the control's ``background`` column.

    On each segment of the control's PeakSeg model, ``b = max(1, min(c / c₀, t / t₀))``:
    ``c`` the segment's control mean over ``c₀``, the control's level on most bases (the
    median of its segment means, by bases), and ``t`` the treatment's mean on the same
    bases over ``t₀``, its level on most bases alike. The control's level there is the
    background; the ``min`` keeps it from exceeding what the treatment itself shows, so a
    region up only in the control is no dip of the treatment's fold (whose flanks would
    be "peaks"), and a treatment equal to its control has a flat fold: no peak. The
    treatment's rows are kept as they are (cut more where the background changes, never
    merged), so a flat control gives the model of the treatment alone.

    Parameters
    ----------
    treatment, control : DataFrame
        ``chrom, chromStart, chromEnd, count`` of one sample each (bedGraph rows, sorted
        per chromosome; gaps are zero coverage).
    segments : DataFrame
        ``chrom, chromStart, chromEnd, mean``: the control's PeakSeg segments (its
        model at its penalty); b = 1 outside them.
    chrom_sizes : dict, optional
        Chromosome lengths, over which the control's genome-wide mean is taken: the
        typical levels when most bases have none (default: the last covered base of
        either).
    levels : (float, float), optional
        ``(c₀, t₀)`` given (:func:`typical_levels` of the whole genome) when the tables
        hold one chromosome of it at a time.

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, count, background``: every base of each
        chromosome of the treatment from its first covered base to its last (gaps filled
        with zero counts), the treatment's rows cut where the background changes.

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 200, 300],
    ...                   "chromEnd": [100, 200, 300, 400], "count": [2, 2, 8, 2]})
    >>> c = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 200, 300],
    ...                   "chromEnd": [100, 200, 300, 400], "count": [1, 1, 7, 1]})
    >>> seg = c.rename(columns={"count": "mean"})
    >>> control_background(t, c, seg)["background"].tolist()  # up 7x, the treatment 4x
    [1.0, 1.0, 4.0, 1.0]
    """
    for table, what in ((treatment, "treatment"), (control, "control")):
        require_columns(table, list(COVERAGE_COLUMNS), what)
    require_columns(segments, ["chrom", "chromStart", "chromEnd", "mean"], "control segments")
    parts = segment_levels(treatment, segments)
    if levels is None:
        lengths = _chrom_lengths(treatment, control, chrom_sizes)
        t_area = float(((treatment["chromEnd"] - treatment["chromStart"])
                        * treatment["count"]).sum())
        levels = typical_levels(parts, control_mean(control, lengths),
                                t_area / float(sum(lengths.values())))
    from penlearn.peaks.formats._pileup_kernel import row_cuts

    c0, t0 = levels
    out = []
    for chrom, t, gs, ge, gc, gt in parts:
        gb = np.maximum(np.minimum(gc / c0, gt / t0 if t0 > 0 else np.inf), 1.0)
        ts, te = t["chromStart"].to_numpy(np.int64), t["chromEnd"].to_numpy(np.int64)
        tc = t["count"].to_numpy(np.int64)
        lo, hi = ts[0], te[-1]  # the treatment's extent: its windows' ids stay the same
        # the rows' and the segments' bounds merged (each sorted), else sorted
        cuts = row_cuts(ts, te, gs, ge, lo, hi)
        if cuts is None:
            cuts = np.concatenate([ts, te, gs[(gs >= lo) & (gs <= hi)],
                                   ge[(ge >= lo) & (ge <= hi)]])
            cuts.sort()  # unique by a sort: (NumPy 2's hashing np.unique is slower here)
            cuts = cuts[np.r_[True, cuts[1:] != cuts[:-1]]]
        starts = cuts[:-1]
        name = pd.Categorical.from_codes(np.zeros(len(starts), np.int8), [chrom])  # 1 B a row
        # (copy=False: the fresh columns as they are, not stacked into one block: a
        # chromosome's rows copied once less, issue 55)
        out.append(pd.DataFrame({"chrom": name, "chromStart": starts, "chromEnd": cuts[1:],
                                 "count": _value_at(ts, te, tc, starts, 0),
                                 BACKGROUND: _value_at(gs, ge, gb, starts, 1.0)},
                                copy=False))
    return out[0] if len(out) == 1 else pd.concat(out, ignore_index=True)


def segment_levels(treatment: pd.DataFrame, segments: pd.DataFrame) -> list:
    """Per chromosome of the treatment: ``(chrom, rows, start, end, control mean,
    treatment mean)`` of each control segment (the treatment's mean over its bases).

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [10], "count": [2]})
    >>> s = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [10], "mean": [1.0]})
    >>> segment_levels(t, s)[0][5].tolist()
    [2.0]
    """
    by_chrom = dict(list(segments.groupby("chrom", sort=False)))
    parts = []
    if len(treatment) and one_problem(treatment[["chrom"]]):  # one chromosome: no copy
        groups = [(treatment["chrom"].iloc[0], treatment)]
    else:
        groups = treatment.groupby("chrom", sort=False, observed=True)
    for chrom, t in groups:
        g = by_chrom.get(chrom)
        if g is None:
            g = segments.iloc[:0]
        gs, ge = g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64)
        ts, te = t["chromStart"].to_numpy(np.int64), t["chromEnd"].to_numpy(np.int64)
        tc = t["count"].to_numpy(np.int64)
        # the treatment's mean on each control segment: its area summed over the bases
        area = np.r_[0, np.cumsum((te - ts) * tc)]
        parts.append((chrom, t, gs, ge, g["mean"].to_numpy(float),
                      (_area_below(ts, te, area, ge) - _area_below(ts, te, area, gs))
                      / np.maximum(ge - gs, 1)))
    return parts


def typical_levels(parts: list, control_fallback: float, treatment_fallback: float
                   ) -> tuple[float, float]:
    """``(c₀, t₀)`` of :func:`control_background`: the control's and the treatment's
    levels on most bases of the control's segments (``parts``: :func:`segment_levels`'
    rows of every chromosome), each its fallback (the genome-wide mean) when 0.

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [10], "count": [2]})
    >>> s = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [10], "mean": [1.0]})
    >>> typical_levels(segment_levels(t, s), 1.0, 1.0)
    (1.0, 2.0)
    """
    bases = np.concatenate([p[3] - p[2] for p in parts]) if parts else np.zeros(0)
    c_all = np.concatenate([p[4] for p in parts]) if parts else np.zeros(0)
    t_all = np.concatenate([p[5] for p in parts]) if parts else np.zeros(0)
    return (_typical(c_all, bases, control_fallback),
            _typical(t_all, bases, treatment_fallback))


def _area_below(start, end, area, x):
    """The coverage summed over the bases below each position ``x`` (rows sorted,
    ``area`` the cumulative sums of their coverage, 0 first)."""
    k = np.searchsorted(start, x, side="right") - 1
    kk = np.clip(k, 0, len(start) - 1)
    inside = np.clip(x - start[kk], 0, end[kk] - start[kk])
    per_base = (area[kk + 1] - area[kk]) / np.maximum(end[kk] - start[kk], 1)
    return np.where(k >= 0, area[kk] + inside * per_base, 0.0)


def _value_at(start, end, value, x, missing):
    """The value of the sorted rows holding each position ``x`` (``missing`` in gaps)."""
    if len(x) and not (x[1:] < x[:-1]).any():  # sorted (the cuts): one walk, compiled
        from penlearn.peaks.formats._pileup_kernel import values_at_sorted

        return values_at_sorted(start, end, value, x, missing)
    k = np.searchsorted(start, x, side="right") - 1
    kk = np.maximum(k, 0)
    inside = (k >= 0) & (x < end[kk]) if len(start) else np.zeros(len(x), bool)
    return np.where(inside, value[kk] if len(start) else missing, missing)


def mark_control_peaks(peaks: pd.DataFrame, control_peaks: pd.DataFrame) -> pd.DataFrame:
    """The treatment's peaks with ``control_up``: True where a control peak overlaps
    (PeakSegPipeline's rule; the caller drops those from the summary).

    Examples
    --------
    >>> p = pd.DataFrame({"chrom": "chr1", "chromStart": [10, 100], "chromEnd": [20, 200]})
    >>> c = pd.DataFrame({"chrom": "chr1", "chromStart": [150], "chromEnd": [400]})
    >>> mark_control_peaks(p, c)["control_up"].tolist()
    [False, True]
    """
    up = np.zeros(len(peaks), bool)
    for chrom, idx in peaks.groupby("chrom", sort=False).indices.items():
        g = control_peaks[control_peaks["chrom"] == chrom]
        if not len(g):
            continue
        cs = np.sort(g["chromStart"].to_numpy())
        ce = np.sort(g["chromEnd"].to_numpy())
        ps = peaks["chromStart"].to_numpy()[idx]
        pe = peaks["chromEnd"].to_numpy()[idx]
        # control peaks starting before the peak's end minus those ending at or before its start
        up[idx] = (np.searchsorted(cs, pe, side="left")
                   - np.searchsorted(ce, ps, side="right")) > 0
    return peaks.assign(control_up=up)


def binned_segments(coverage: pd.DataFrame, log_penalty, windows: pd.DataFrame | None,
                    width: int, near: int = 4, coarse: float = 1.0,
                    min_bins: int = 20, tmpdir=None, refine: str = "local") -> pd.DataFrame:
    """The PeakSeg segments of every (sample, window) of ``coverage`` as
    ``predict_peaks(coverage, log_penalty=..., windows=..., segments=True)`` gives them,
    solved on bins of ``width`` bases, each change then moved within ``near`` bins.

    A bin is one datum of the Poisson loss: its mean coverage at the weight of its
    bases. As the loss of a segment depends on its bases and its summed coverage only,
    the solve on the bins is the optimal model among those whose changes fall on the
    bins' edges (each window cut from its first base, the last bin shorter), at
    ``coarse`` times the penalty, on about ``1 / width`` of the bases (``width=1``:
    every base, the exact model). ``refine="local"`` (the default) then moves each
    change, first to last, to the row edge within ``near`` bins that gives its two
    neighbouring segments the least loss, their means refit and every change's
    direction kept (:func:`~penlearn.peaks.peakseg._refine.refine_changes`): one pass
    over the rows near the changes, no second solve; the loss never rises, but it is a
    local improvement, not the optimal model on the rows. ``refine="solve"`` solves
    again, at the penalty, with every row's edge within ``near`` bins of a change
    allowed besides the bins' edges (the optimal model among those; with
    ``coarse=0.5``, so that a short region a bin dilutes still gets changes near it,
    the model of sessions 14–16, twice the CPU). The control's model
    (:func:`control_background`): a regional level, whose changes a fragment's length
    blurs anyway. A window whose bins' model has segments of fewer than ``min_bins``
    bins on average (a low penalty: many short peaks, which bins could miss) is solved
    on every row instead (the exact model; ``tmpdir`` the solver's, as for
    :func:`~penlearn.peaks.peakseg.solver.peakseg`).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 600, 10),
    ...                     "chromEnd": range(10, 610, 10),
    ...                     "count": [1] * 23 + [9] * 20 + [1] * 17})
    >>> seg = binned_segments(cov, 2.0, None, 100)
    >>> seg[["chromStart", "chromEnd", "status", "mean"]].values.tolist()
    [[0, 230, 'background', 1.0], [230, 430, 'peak', 9.0], [430, 600, 'background', 1.0]]
    """
    import math

    from penlearn.peaks.peakseg._flanks import uncovered_segments
    from penlearn.peaks.peakseg.calls import reported_segments
    from penlearn.peaks.peakseg.evaluation import _windows_of, _with_ids
    from penlearn.peaks.peakseg.solver import _Data, _solve

    for value, what in ((width, "width"), (near, "near")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or value < (1 if what == "width" else 0):
            raise ValueError(f"{what} must be an integer >= {1 if what == 'width' else 0}"
                             f" (bins), got {value!r}")
    if refine not in ("local", "solve"):
        raise ValueError(f"refine must be 'local' or 'solve', got {refine!r}")
    out = []
    for name, sid, cov in _windows_of(coverage, windows):
        value = float(log_penalty.loc[name]) if isinstance(log_penalty, pd.Series) \
            else float(log_penalty)
        penalty = math.exp(min(value, 700.0))
        ts, te = cov["chromStart"].to_numpy(np.int64), cov["chromEnd"].to_numpy(np.int64)
        area = np.r_[0, np.cumsum((te - ts) * cov["count"].to_numpy(np.int64))]
        grid = np.r_[np.arange(ts[0], te[-1], width, dtype=np.int64), te[-1]]

        def solve(edges, penalty=penalty, ts=ts, te=te, area=area, cov=cov):
            sums = np.round(np.diff(_area_below(ts, te, area, edges)))
            bases = np.diff(edges).astype(float)
            return _solve(_Data(chrom=cov["chrom"].iloc[0], start=edges[:-1],
                                y=sums / bases, w=bases), penalty, tmpdir=tmpdir)
        model = solve(grid, penalty * coarse)
        changes = model.segments["chromStart"].to_numpy(np.int64)[1:]
        if len(model.segments) * min_bins > len(grid) - 1:
            model = solve(np.r_[ts, te[-1]])  # every row: the exact model
        elif refine == "local":
            segs = _refined(reported_segments(model.segments), ts, te, area, cov,
                            near * width)
            out.append(_with_ids(segs, value, name, sid))
            continue
        elif len(changes):  # (none at a lower penalty: none at this one either)
            # every row's edge within ``near`` bins of a change, besides the bins' edges
            lo = np.searchsorted(ts, changes - near * width, side="left")
            hi = np.searchsorted(ts, changes + near * width, side="right")
            fine = np.concatenate([ts[a:b] for a, b in zip(lo, hi)])
            model = solve(np.unique(np.r_[grid, fine]))
        segs = reported_segments(model.segments).drop(columns=["first_row", "last_row"])
        out.append(_with_ids(segs, value, name, sid))
    if not out:
        raise ValueError("coverage has no rows")
    return uncovered_segments(pd.concat(out, ignore_index=True), coverage)


def _refined(segs: pd.DataFrame, ts, te, area, cov, reach: int) -> pd.DataFrame:
    """A binned model's reported segments with their changes moved to the best row edge
    within ``reach`` bases (:func:`~penlearn.peaks.peakseg._refine.refine_changes`), the
    means those of the rows, reported again."""
    from penlearn.peaks.peakseg._refine import refine_changes
    from penlearn.peaks.peakseg.calls import reported_segments

    segs = segs.drop(columns=["first_row", "last_row"], errors="ignore")
    if len(segs) < 2:
        return segs.reset_index(drop=True)
    bounds = np.r_[segs["chromStart"].to_numpy(np.int64), segs["chromEnd"].iloc[-1]]
    up = np.diff(segs["mean"].to_numpy(float)) > 0
    counts = np.diff(area) / np.maximum(te - ts, 1)
    new = refine_changes(ts, te, counts, bounds, up, reach)
    sums = np.round(np.diff(_area_below(ts, te, area, new)))
    return reported_segments(pd.DataFrame({
        "chrom": segs["chrom"].to_numpy(), "chromStart": new[:-1], "chromEnd": new[1:],
        "status": segs["status"].to_numpy(), "mean": sums / np.diff(new)}))
