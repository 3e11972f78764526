"""Broad domains as one call: nearby peaks linked across gaps that are still enriched.

A broad mark (H3K36me3, H3K27me3, H3K9me3, H3K4me1: MACS3's ``--broad``) covers domains of
kilobases to hundreds of kilobases whose level varies inside: at a penalty low enough to
find the weaker domains, the PeakSeg model (Hocking et al. 2020, *JMLR*) splits a domain
wherever it dips, each dip a "background" segment between two peaks, because one more
peak costs λ while the dip's fit gains more, and the gain grows with the depth. A reader
of a broadPeak file wants the domain. :func:`link_peaks` joins the model's peaks across
such dips, as MACS3's broad mode links its strong regions through weaker enrichment
(Zhang et al. 2008, *Genome Biology* 9:R137; MACS3's ``--broad-cutoff``), with a rule on the
model's own segment means instead of a second cutoff:

two neighbouring calls ``A`` and ``B`` (peaks, or peaks already linked) are linked, with
the gap ``G`` between them, when the gap is nearer the calls than the background on a log
scale::

    log(G / bg) >= ratio * log(min(A, B) / bg)

where ``A``, ``B`` and ``G`` are mean coverages (each the bases-weighted mean of its
segments; with a control, the model's fold over it) and ``bg`` the lower of the two
background stretches outside ``A`` and ``B`` (the flanks of the pair, not of the gap), at
least the window's typical background (the bases-weighted median of its background
segments' means). Linking repeats until no pair qualifies, so a domain split into many
pieces becomes one call; then each linked call is checked against the *higher* of its own
two flanks (and the typical level): a gap inside that fails the rule there cuts the call,
at the lowest such gap, and each part is checked again against its own flanks. So a gap at
the background level (two domains, or a domain and a narrow peak beside it, separated by
true background) stays a gap whatever its width, a short zero-coverage dip beside a call
is no background against which anything looks enriched, and a dip that keeps at least
``(min(A, B) / bg)^ratio`` of the domain's enrichment is part of it. A linked call is kept
only while its mean stays strictly above both flanks (the reported-peak rule of
:mod:`penlearn.peaks.peakseg.calls`). Calls are linked within one model (sample, window)
only, never across a window's edge.

``penlearn callpeak --broad`` and ``penlearn peaks --broad`` report
:func:`predict_broad`'s segments: without a penalty given, two models of the coverage,
one at the shipped broad-mark level (the level the broad marks' labels want) and one at
the narrow-mark level (which finds the weaker domains), combined by
:func:`broad_segments` (the finer model's linked calls that overlap a broad-level call or
are at least :data:`MIN_DOMAIN` bases wide); with a penalty given, that model's calls
linked. The ratio, the finer level and the width were chosen on the simulated suite of
``benchmarks/sensitivity.py`` and the labeled coverage of ``benchmarks/broad.py``
(figures in ``benchmarks/RESULTS.md``, "sensitivity, --broad").

The finer level is that of the coverage *without its narrow peaks* (:func:`despiked`,
given ``penalty_of``, the command's zero-label penalty of a coverage table): the shipped
penalty grows with the coverage's spread (its ``log.sd`` feature), and narrow peaks a
few hundred bases wide every few kilobases (a narrow-peak-rich sample, or a broad mark
beside sharp ones) raise it by about one in log λ, so that weaker domains of fold 2–5
were left inside "background" segments that the linking cannot join (the suite's dense
cells, where the narrow mode found up to 7 more domains). The narrow bumps ``--broad``
does not report are not allowed to set the penalty of the domains it does: where
removing them lowers the level, the finer model is solved again there. A broad mark's
own coverage has no such bumps (``benchmarks/broad.py``: the level is unchanged).

``--broad``'s level shifts are told by the model's own means (:func:`drop_level_shifts`:
a linked call of 10 kb or more less than 1.5 times its lower flank, at least the
window's typical background, is background), not by the trim of the other modes
(:func:`~penlearn.peaks.formats.level_shifts.trim_level_shifts`; the commands call
:func:`~penlearn.peaks.peakseg.calls.peak_calls` with ``level_shifts`` =
:data:`TRIM_LEVEL_SHIFTS`): a domain is a long call by nature, and the trim's local
level cut or dropped true ones. With a control, that level is the control scaled by the
samples' total fragments, which a treatment rich in peaks inflates (1.75× in the
suite's dense cells), so that domains of fold 2–3 and 10 kb or more failed, while the
model's means are folds over the control's background; without one, the trim split
domains into their significant parts (the labeled H3K36me3 coverage: 70 calls where the
linking gives 44) and left a 66-base sliver beside a true domain as a false call. A
region whose background is raised by a few tens of percent over 100 kb–1 Mb (in the
treatment, and in a control too weakly for the control's model to follow it) is a
level shift by either rule. With a control, a call must also stand 1.5 times above the
control over its own bases, each sample over its typical level
(:func:`~penlearn.peaks.peakseg.broad_control.above_control`, applied by the commands
to the calls).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.level_shifts import SHIFT_MIN_FOLD, SHIFT_MIN_WIDTH
from penlearn.peaks.peakseg.calls import _sequence_starts, reported_segments
from penlearn.peaks.peakseg.evaluation import predict_peaks

__all__ = ["LINK_RATIO", "MIN_DOMAIN", "TRIM_LEVEL_SHIFTS", "broad_segments", "despiked",
           "drop_level_shifts", "link_peaks", "predict_broad"]

#: The share of the calls' log enrichment over the background a gap keeps to be linked
#: (``benchmarks/broad.py``).
LINK_RATIO = 0.5
#: The narrowest domain (bases) the finer model adds where the broad level calls nothing
#: (:func:`broad_segments`; ``benchmarks/broad.py``).
MIN_DOMAIN = 2_000
#: Whether ``--broad``'s calls are trimmed as level shifts by
#: :func:`~penlearn.peaks.peakseg.calls.peak_calls` (the commands' switch; module
#: docstring: no, :func:`drop_level_shifts` instead).
TRIM_LEVEL_SHIFTS = False


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The median of ``values``, each counted ``weights`` times (bases)."""
    order = np.argsort(values, kind="stable")
    c = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(c, 0.5 * c[-1])])


def _link_one(mean: np.ndarray, bases: np.ndarray, peak: np.ndarray, ratio: float
              ) -> list[list[int]]:
    """The linked calls of one model's reported runs (in order): ``[first run, last run]``
    of each call, linked by the module's rule until no pair qualifies."""
    n = len(mean)
    csum = np.r_[0.0, np.cumsum(mean * bases)]
    cbases = np.r_[0.0, np.cumsum(bases)]

    def level(a: int, b: int) -> float:  # the mean of runs a..b (inclusive); nan if none
        w = cbases[b + 1] - cbases[a] if b >= a else 0.0
        return float((csum[b + 1] - csum[a]) / w) if w > 0 else math.nan

    back = ~peak & (bases > 0)
    typical = _weighted_median(mean[back], bases[back]) if back.any() else 0.0
    calls = [[int(i), int(i)] for i in np.flatnonzero(peak)]
    changed = True
    while changed and len(calls) > 1:
        changed = False
        out = [calls[0]]
        for k in range(1, len(calls)):
            left, right = out[-1], calls[k]
            lo = level(out[-2][1] + 1 if len(out) > 1 else 0, left[0] - 1)
            hi = level(right[1] + 1, calls[k + 1][0] - 1 if k + 1 < len(calls) else n - 1)
            flanks = [x for x in (lo, hi) if not math.isnan(x)]
            bg = max(min(flanks), typical) if flanks else math.nan
            gap = level(left[1] + 1, right[0] - 1)
            low = min(level(*left), level(*right))
            merged = level(left[0], right[1])
            if _links(gap, low, bg, ratio) and all(merged > x for x in flanks):
                out[-1] = [left[0], right[1]]
                changed = True
            else:
                out.append(right)
        calls = out
    final: list[list[int]] = []
    for j, (a, b) in enumerate(calls):  # each call against its own two flanks
        lo = level(calls[j - 1][1] + 1 if j else 0, a - 1)
        hi = level(b + 1, calls[j + 1][0] - 1 if j + 1 < len(calls) else n - 1)
        final += _split(a, b, lo, hi, level, peak, ratio, typical)
    return final


def _links(gap: float, low: float, bg: float, ratio: float) -> bool:
    """The module's rule: ``log(gap / bg) >= ratio * log(low / bg)``, all above ``bg``."""
    return bool(bg > 0 and gap > bg and low > bg
                and math.log(gap / bg) >= ratio * math.log(low / bg))


def _split(a: int, b: int, lo: float, hi: float, level, peak: np.ndarray, ratio: float,
           typical: float) -> list[list[int]]:
    """A linked call (runs ``a..b``) checked against the higher of its flanks ``lo`` and
    ``hi``: every gap inside must pass the rule there, else the call is cut at its lowest
    failing gap and each part checked against its own flanks (that gap one of them)."""
    runs = [int(i) for i in np.flatnonzero(peak[a:b + 1]) + a]
    if len(runs) < 2:
        return [[a, b]]
    flanks = [x for x in (lo, hi) if not math.isnan(x)]
    bg = max(*flanks, typical) if flanks else math.nan
    worst, worst_level = -1, math.inf
    for k in range(len(runs) - 1):
        gap = level(runs[k] + 1, runs[k + 1] - 1)
        low = min(level(runs[k], runs[k]), level(runs[k + 1], runs[k + 1]))
        if not _links(gap, low, bg, ratio) and gap < worst_level:
            worst, worst_level = k, gap
    if worst < 0:
        return [[a, b]]
    cut = runs[worst]
    return (_split(a, cut, lo, worst_level, level, peak, ratio, typical)
            + _split(runs[worst + 1], b, worst_level, hi, level, peak, ratio, typical))


def link_peaks(segments: pd.DataFrame, *, ratio: float = LINK_RATIO) -> pd.DataFrame:
    """A model's segments with its peaks linked across enriched gaps (the module's rule).

    Parameters
    ----------
    segments : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, status, mean`` in genomic order per
        model, as for :func:`~penlearn.peaks.peakseg.calls.reported_segments` (e.g.
        ``predict_peaks(..., segments=True)``; ``sequence_id`` tells windows apart).
    ratio : float
        ``0 < ratio <= 1``: the share of the calls' log enrichment over the background a
        gap keeps to be linked (:data:`LINK_RATIO`; 1: only gaps as high as the lower
        call, i.e. none that the model kept).

    Returns
    -------
    DataFrame
        The reported segments (runs of equal mean joined), each linked call one
        ``peak`` row spanning its peaks and gaps, of their bases-weighted mean; the
        other columns from its first run.

    Examples
    --------
    A domain dipping to 6 inside (background 1) is one call; a gap at the background
    level keeps two calls apart:

    >>> seg = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 90, 10),
    ...                     "chromEnd": range(10, 100, 10),
    ...                     "status": ["background", "peak", "background", "peak",
    ...                                "background", "peak", "background", "peak",
    ...                                "background"],
    ...                     "mean": [1.0, 12, 6, 10, 1, 9, 1.1, 10, 1]})
    >>> link_peaks(seg).query("status == 'peak'")[["chromStart", "chromEnd", "mean"]
    ...                                           ].values.tolist()
    [[10.0, 40.0, 9.333333333333334], [50.0, 60.0, 9.0], [70.0, 80.0, 10.0]]
    """
    if isinstance(ratio, (bool, np.bool_)) or not isinstance(
            ratio, (int, float, np.integer, np.floating)) or not 0 < ratio <= 1:
        raise ValueError(f"ratio must be a number with 0 < ratio <= 1 (the share of the "
                         f"calls' log enrichment a linked gap keeps), got {ratio!r}")
    require_columns(segments, ["chrom", "chromStart", "chromEnd", "status", "mean"],
                    "segments")
    rep = reported_segments(segments)
    if not len(rep):
        return rep
    mean = rep["mean"].to_numpy(float)
    bases = (rep["chromEnd"] - rep["chromStart"]).to_numpy(float)
    peak = (rep["status"] == "peak").to_numpy().copy()
    starts = np.flatnonzero(_sequence_starts(rep))
    ends = np.r_[starts[1:], len(rep)]
    keep = np.ones(len(rep), bool)
    new_end = rep["chromEnd"].to_numpy().copy()
    new_mean = mean.copy()
    for a, b in zip(starts, ends):
        if peak[a:b].sum() < 2:
            continue
        for first, last in _link_one(mean[a:b], bases[a:b], peak[a:b], ratio):
            if last == first:
                continue
            first, last = a + first, a + last
            w = bases[first:last + 1]
            new_mean[first] = float((mean[first:last + 1] * w).sum() / w.sum())
            new_end[first] = new_end[last]
            keep[first + 1:last + 1] = False
            peak[first] = True
    out = rep.assign(chromEnd=new_end, mean=new_mean,
                     status=np.where(peak, "peak", "background"))[keep]
    if "last_row" in rep.columns:
        last_row = rep["last_row"].to_numpy()
        idx = np.flatnonzero(keep)
        nxt = np.r_[idx[1:], len(rep)] - 1
        out["last_row"] = last_row[nxt]
    return out.reset_index(drop=True)


def _overlapping(calls: pd.DataFrame, others: pd.DataFrame) -> np.ndarray:
    """Whether each of ``calls`` overlaps one of ``others`` (same sample and chromosome)."""
    keys = [c for c in ("sample_id", "chrom") if c in calls.columns and c in others.columns]
    out = np.zeros(len(calls), bool)
    by = {k if isinstance(k, tuple) else (k,): g for k, g in others.groupby(keys, sort=False,
                                                                           dropna=False)}
    for k, g in calls.groupby(keys, sort=False, dropna=False):
        o = by.get(k if isinstance(k, tuple) else (k,))
        if o is None:
            continue
        order = np.argsort(o["chromStart"].to_numpy(), kind="stable")
        s, e = o["chromStart"].to_numpy()[order], o["chromEnd"].to_numpy()[order]
        e = np.maximum.accumulate(e)
        # the last other starting before each call's end reaches past its start
        j = np.searchsorted(s, g["chromEnd"].to_numpy(), side="left") - 1
        hit = (j >= 0) & (e[np.maximum(j, 0)] > g["chromStart"].to_numpy())
        out[calls.index.get_indexer(g.index)] = hit
    return out


def broad_segments(broad: pd.DataFrame, finer: pd.DataFrame, *, ratio: float = LINK_RATIO,
                   min_width: int = MIN_DOMAIN) -> pd.DataFrame:
    """The segments ``--broad`` reports, from two models of the same coverage and windows.

    ``broad``: the model at the broad-mark level (the level the broad marks' labels
    want); ``finer``: the model at a lower penalty (the narrow-mark level), which finds
    the weaker domains, in pieces. Both are linked (:func:`link_peaks`); the reported
    calls are the finer model's linked calls that overlap a call of the broad-level model
    or are domains, at least ``min_width`` bases wide; its other calls (narrow bumps the
    broad level does not call) are background.

    Parameters
    ----------
    broad, finer : DataFrame
        Segments as for :func:`link_peaks` (e.g. ``predict_peaks(..., segments=True)``
        at the two penalties).
    ratio : float
        :func:`link_peaks`' ratio.
    min_width : int
        The narrowest call of the finer model kept without a broad-level call under it
        (:data:`MIN_DOMAIN`).

    Returns
    -------
    DataFrame
        The finer model's linked segments, the calls not kept turned background (runs
        joined again as :func:`~penlearn.peaks.peakseg.calls.reported_segments` does).

    Examples
    --------
    A weak 3 kb domain in pieces (means 3 and 2.8 over a background of 1) that the broad
    level misses is one call; the narrow bump at 6 kb is not kept:

    >>> seg = pd.DataFrame({"chrom": "chr1",
    ...                     "chromStart": [0, 1000, 2500, 2600, 4000, 6000, 6100],
    ...                     "chromEnd": [1000, 2500, 2600, 4000, 6000, 6100, 9000],
    ...                     "status": ["background", "peak", "background", "peak",
    ...                                "background", "peak", "background"],
    ...                     "mean": [1.0, 3, 2, 2.8, 1, 4, 1]})
    >>> flat = seg.assign(status="background", mean=1.0)
    >>> out = broad_segments(flat, seg)
    >>> out.loc[out["status"] == "peak", ["chromStart", "chromEnd"]].values.tolist()
    [[1000, 4000]]
    """
    if isinstance(min_width, (bool, np.bool_)) or not isinstance(
            min_width, (int, np.integer)) or min_width < 0:
        raise ValueError(f"min_width must be an integer >= 0 (bases), got {min_width!r}")
    coarse = link_peaks(broad, ratio=ratio)
    fine = link_peaks(finer, ratio=ratio)
    peak = (fine["status"] == "peak").to_numpy()
    calls = fine[peak]
    wide = (calls["chromEnd"] - calls["chromStart"]).to_numpy() >= min_width
    kept = wide | _overlapping(calls, coarse[coarse["status"] == "peak"])
    status = fine["status"].to_numpy().copy()
    status[np.flatnonzero(peak)[~kept]] = "background"
    return reported_segments(fine.assign(status=status))


def despiked(coverage: pd.DataFrame, segments: pd.DataFrame, *, ratio: float = LINK_RATIO,
             min_width: int = MIN_DOMAIN) -> pd.DataFrame:
    """``coverage`` without the narrow peaks of a model: the counts of the rows under each
    of its linked calls narrower than ``min_width`` bases (:func:`link_peaks`) lowered to
    at most the typical count of the sample's chromosome (the bases-weighted median).

    What ``--broad``'s finer level is set from (:func:`predict_broad`): the calls it does
    not report do not raise the penalty of those it does.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count`` (other columns kept).
    segments : DataFrame
        A model of it, as for :func:`link_peaks`.
    ratio, min_width
        As for :func:`broad_segments`.

    Returns
    -------
    DataFrame
        ``coverage`` (same rows and index) with lowered counts.

    Examples
    --------
    A 100-base spike to 30 on a coverage of 2 is lowered; the 3 kb domain is kept:

    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 4000, 4100, 8000, 11000],
    ...                     "chromEnd": [4000, 4100, 8000, 11000, 20000],
    ...                     "count": [2, 30, 2, 9, 2]})
    >>> seg = cov.assign(status=["background", "peak", "background", "peak",
    ...                          "background"]).rename(columns={"count": "mean"})
    >>> despiked(cov, seg)["count"].tolist()
    [2, 2, 2, 9, 2]
    """
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    linked = link_peaks(segments, ratio=ratio)
    spikes = linked[(linked["status"] == "peak").to_numpy()
                    & ((linked["chromEnd"] - linked["chromStart"]).to_numpy() < min_width)]
    count = coverage["count"].to_numpy().copy()
    if not len(spikes):
        return coverage.copy()
    keys = [c for c in ("sample_id", "chrom") if c in coverage.columns and c in
            spikes.columns]
    by = {k if isinstance(k, tuple) else (k,): g for k, g in spikes.groupby(
        keys, sort=False, dropna=False)}
    for k, rows in coverage.groupby(keys, sort=False, dropna=False).indices.items():
        sp = by.get(k if isinstance(k, tuple) else (k,))
        if sp is None:
            continue
        s = coverage["chromStart"].to_numpy()[rows]
        e = coverage["chromEnd"].to_numpy()[rows]
        typical = _weighted_median(count[rows].astype(float), (e - s).astype(float))
        a = np.searchsorted(e, sp["chromStart"].to_numpy(), side="right")
        b = np.searchsorted(s, sp["chromEnd"].to_numpy(), side="left")
        under = np.zeros(len(rows) + 1, np.int64)
        np.add.at(under, a, 1)
        np.add.at(under, b, -1)
        inside = rows[np.cumsum(under)[:-1] > 0]
        count[inside] = np.minimum(count[inside], typical).astype(count.dtype)
    return coverage.assign(count=count)


def predict_broad(coverage: pd.DataFrame, *, log_penalty, windows: pd.DataFrame | None = None,
                  finer: float | None = None, ratio: float = LINK_RATIO,
                  min_width: int = MIN_DOMAIN, penalty_of=None, **kwargs) -> pd.DataFrame:
    """The ``--broad`` segments of coverage: one solve linked, or two combined.

    Parameters
    ----------
    coverage, log_penalty, windows
        As for :func:`~penlearn.peaks.peakseg.evaluation.predict_peaks` (``log_penalty``:
        a number or a Series of log λ by window id): the broad-level model.
    finer : float, optional
        Added to every window's log λ for the finer model (e.g. the narrow-mark level
        minus the broad one, about −0.88 for the shipped model); the result is then
        :func:`broad_segments` of the two models. None: :func:`link_peaks` of the one
        model (a penalty the user gave).
    ratio, min_width
        As for :func:`broad_segments`.
    penalty_of : callable, optional
        With ``finer``: the penalty rule that gave ``log_penalty``, as a function of a
        coverage table (``chrom, chromStart, chromEnd, count`` and ``sample_id`` if
        ``coverage`` has it) returning log λ by window id. The finer model is then solved
        again where its narrow calls (narrower than ``min_width``) raised the penalty:
        log λ lowered by ``penalty_of(despiked) − penalty_of(coverage)`` where negative
        (:func:`despiked`; module docstring). None: the finer level as given.
    **kwargs
        ``predict_peaks``' other options (``executor``, ``progress``, ``tmpdir``,
        ``parts``, ``gaps``).

    Returns
    -------
    DataFrame
        Segments, as ``predict_peaks(..., segments=True)`` returns them.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 900, 100),
    ...                     "chromEnd": range(100, 1000, 100),
    ...                     "count": [1, 1, 20, 9, 18, 1, 1, 1, 1]})
    >>> segs = predict_broad(cov, log_penalty=5.0)
    >>> segs.loc[segs["status"] == "peak", ["chromStart", "chromEnd"]].values.tolist()
    [[200, 500]]
    """
    broad = predict_peaks(coverage, log_penalty=log_penalty, windows=windows, segments=True,
                          **kwargs)
    if finer is None:
        return drop_level_shifts(link_peaks(broad, ratio=ratio))
    if isinstance(finer, (bool, np.bool_)) or not isinstance(
            finer, (int, float, np.integer, np.floating)) or not math.isfinite(finer):
        raise ValueError(f"finer must be a finite number (added to log λ), got {finer!r}")
    if penalty_of is not None and not callable(penalty_of):
        raise TypeError(f"penalty_of must be a function of a coverage table (its log λ by "
                        f"window), got {type(penalty_of).__name__}")
    fine = predict_peaks(coverage, log_penalty=log_penalty + finer, windows=windows,
                         segments=True, **kwargs)
    if penalty_of is not None:
        cols = [c for c in ("sample_id", "chrom", "chromStart", "chromEnd", "count")
                if c in coverage.columns]
        plain = coverage[cols]
        lower = _lowering(penalty_of(despiked(plain, fine, ratio=ratio,
                                              min_width=min_width)), penalty_of(plain))
        if lower is not None:
            fine = predict_peaks(coverage, log_penalty=log_penalty + finer + lower,
                                 windows=windows, segments=True, **kwargs)
    return drop_level_shifts(broad_segments(broad, fine, ratio=ratio, min_width=min_width))


def drop_level_shifts(segments: pd.DataFrame, *, min_width: int = SHIFT_MIN_WIDTH,
                      min_fold: float = SHIFT_MIN_FOLD) -> pd.DataFrame:
    """Linked segments with their level shifts turned background: calls of ``min_width``
    bases or more whose mean is less than ``min_fold`` times the lower of their two
    flanks, at least the window's typical background (the bases-weighted median of its
    background segments' means). ``--broad``'s test (module docstring), with the
    constants of :func:`~penlearn.peaks.formats.level_shifts.trim_level_shifts`.

    Parameters
    ----------
    segments : DataFrame
        As :func:`link_peaks` returns them.
    min_width, min_fold
        The shortest call tested (bases) and the fold over its background it needs.

    Returns
    -------
    DataFrame
        The segments, each level shift background (runs joined again as
        :func:`~penlearn.peaks.peakseg.calls.reported_segments` does).

    Examples
    --------
    A 300 kb call 1.3 times its flanks is a level shift; a 20 kb domain at 3 is not:

    >>> seg = pd.DataFrame({"chrom": "chr1",
    ...                     "chromStart": [0, 500_000, 800_000, 900_000, 920_000],
    ...                     "chromEnd": [500_000, 800_000, 900_000, 920_000, 1_500_000],
    ...                     "status": ["background", "peak", "background", "peak",
    ...                                "background"], "mean": [1.0, 1.3, 1.0, 3.0, 1.0]})
    >>> out = drop_level_shifts(seg)
    >>> out.loc[out["status"] == "peak", ["chromStart", "chromEnd"]].values.tolist()
    [[900000, 920000]]
    """
    rep = reported_segments(segments)
    if not len(rep):
        return rep
    mean = rep["mean"].to_numpy(float)
    bases = (rep["chromEnd"] - rep["chromStart"]).to_numpy(float)
    peak = (rep["status"] == "peak").to_numpy()
    starts = np.flatnonzero(_sequence_starts(rep))
    shift = np.zeros(len(rep), bool)
    for a, b in zip(starts, np.r_[starts[1:], len(rep)]):
        back = ~peak[a:b] & (bases[a:b] > 0)
        typical = _weighted_median(mean[a:b][back], bases[a:b][back]) if back.any() else 0.0
        for i in np.flatnonzero(peak[a:b] & (bases[a:b] >= min_width)) + a:
            flanks = [mean[j] for j in (i - 1, i + 1) if a <= j < b]
            bg = max(min(flanks), typical) if flanks else typical
            shift[i] = mean[i] < min_fold * bg
    if not shift.any():
        return rep
    return reported_segments(rep.assign(status=np.where(peak & ~shift, "peak", "background")))


def _lowering(despiked_level, level):
    """``min(despiked_level - level, 0)`` (numbers or Series by window), or None where
    nothing is lowered."""
    diff = despiked_level - level
    if isinstance(diff, pd.Series):
        if diff.isna().any():
            raise ValueError("penalty_of gave log λ for other windows on the despiked "
                             "coverage than on the coverage")
        diff = diff.clip(upper=0.0)
        return diff if (diff < 0).any() else None
    diff = min(float(diff), 0.0)
    return diff if diff < 0 else None

