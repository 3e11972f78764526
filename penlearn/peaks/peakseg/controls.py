"""Control (input) samples: how a ChIP-seq control enters the PeakSeg peaks.

Two rules, chosen by ``rule=`` (``penlearn peaks --control-rule``):

* ``"background"`` (the default, chosen by measurement: ``benchmarks/control.py``, table in
  ``benchmarks/RESULTS.md``, reasons in ``docs/chipseq.md``) — the control is the
  background of the Poisson model. The control is segmented like any sample (its PeakSeg
  model at its penalty, as PeakSegPipeline segments its Input samples); each base's
  expected coverage relative to the genome is ``b = max(1, mean / λ_bg)``, the mean of
  the control's segment there over the control's genome-wide mean ``λ_bg`` (the local λ
  of MACS3, Zhang et al. 2008, *Genome Biology* 9:R137, with the control's segments in
  place of its fixed 1 kb / 10 kb windows: sharp at a region's edges, flat where the
  control is flat, so no dips of ``b`` from the control's noise). The treatment's counts
  are then modelled as Poisson of mean ``m · b`` with ``m`` constant on each segment
  (:data:`~penlearn.peaks.peakseg.solver.BACKGROUND`): a region up in the control as
  much as in the treatment (amplified, open chromatin, "sticky") has no fold, and no
  peak; each peak's mean is its fold over the control.
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
from penlearn.peaks.peakseg.solver import BACKGROUND, COVERAGE_COLUMNS

__all__ = ["CONTROL_RULES", "control_background", "control_mean", "control_of",
           "mark_control_peaks"]

CONTROL_RULES = ("background", "filter")


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


def control_background(treatment: pd.DataFrame, control: pd.DataFrame,
                       segments: pd.DataFrame, *, chrom_sizes: dict | None = None,
                       mean: float | None = None) -> pd.DataFrame:
    """One sample's treatment coverage with the control's ``background`` column.

    Parameters
    ----------
    treatment, control : DataFrame
        ``chrom, chromStart, chromEnd, count`` of one sample each (bedGraph rows, sorted
        per chromosome; gaps are zero coverage).
    segments : DataFrame
        ``chrom, chromStart, chromEnd, mean``: the control's PeakSeg segments (its
        model at its penalty); ``b = max(1, mean / λ_bg)`` on each, 1 elsewhere.
    chrom_sizes : dict, optional
        Chromosome lengths, over which the control's genome-wide mean is taken (default:
        the last covered base of either).
    mean : float, optional
        The control's genome-wide mean ``λ_bg`` when the tables hold only part of the
        genome (one chromosome at a time: :func:`control_mean` of the whole control).

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, count, background``: every base of each
        chromosome of the treatment from its first covered base to its last (gaps filled
        with zero counts), cut where the treatment's count or the background changes.

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [300],
    ...                   "count": [2]})
    >>> c = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 200],
    ...                   "chromEnd": [100, 200, 300], "count": [1, 7, 1]})
    >>> seg = c.rename(columns={"count": "mean"})
    >>> control_background(t, c, seg)["background"].tolist()
    [1.0, 2.3333333333333335, 1.0]
    """
    for table, what in ((treatment, "treatment"), (control, "control")):
        require_columns(table, list(COVERAGE_COLUMNS), what)
    require_columns(segments, ["chrom", "chromStart", "chromEnd", "mean"], "control segments")
    lam_bg = mean if mean is not None else control_mean(
        control, _chrom_lengths(treatment, control, chrom_sizes))
    by_chrom = dict(list(segments.groupby("chrom", sort=False)))
    out = []
    for chrom, t in treatment.groupby("chrom", sort=False):
        g = by_chrom.get(chrom)
        if g is None:
            g = segments.iloc[:0]
        gs, ge = g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64)
        gb = np.maximum(g["mean"].to_numpy(float) / lam_bg, 1.0)
        ts, te = t["chromStart"].to_numpy(np.int64), t["chromEnd"].to_numpy(np.int64)
        tc = t["count"].to_numpy(np.int64)
        lo, hi = ts[0], te[-1]  # the treatment's extent: its windows' ids stay the same
        cuts = np.sort(np.concatenate([ts, te, gs, ge]))  # unique by a sort: (NumPy 2's
        cuts = cuts[np.r_[True, cuts[1:] != cuts[:-1]]]  # hashing np.unique is slower here)
        cuts = cuts[(cuts >= lo) & (cuts <= hi)]
        starts = cuts[:-1]
        count = _value_at(ts, te, tc, starts, 0)
        bg = _value_at(gs, ge, gb, starts, 1.0)
        # equal neighbours (count and background) merged: fewer rows, the same model
        same = np.r_[False, (count[1:] == count[:-1]) & (bg[1:] == bg[:-1])]
        first = np.flatnonzero(~same)
        out.append(pd.DataFrame({"chrom": chrom, "chromStart": starts[first],
                                 "chromEnd": np.r_[starts[first][1:], cuts[-1]],
                                 "count": count[first], BACKGROUND: bg[first]}))
    return pd.concat(out, ignore_index=True)


def _value_at(start, end, value, x, missing):
    """The value of the sorted rows holding each position ``x`` (``missing`` in gaps)."""
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
