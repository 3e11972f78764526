"""Control (input) samples: how a ChIP-seq control enters the PeakSeg peaks.

Two rules, chosen by ``rule=`` (``penlearn peaks --control-rule``):

* ``"background"`` (the default, chosen by measurement: ``benchmarks/control.py``, table in
  ``benchmarks/RESULTS.md``, reasons in ``docs/chipseq.md``) — the control is the
  background of the Poisson model. Each base's expected coverage relative to the genome,
  ``b = max(1, λ_1k / λ_bg, λ_10k / λ_bg)``, is taken from the control as MACS3 takes its
  local λ (Zhang et al. 2008, *Genome Biology* 9:R137): the control's mean coverage in
  the 1 kb and 10 kb centred on the base against its genome-wide mean ``λ_bg``, never
  below 1. The treatment's counts are then modelled as Poisson of mean ``m · b`` with
  ``m`` constant on each segment (:data:`~penlearn.peaks.peakseg.solver.BACKGROUND`), so
  a region up in the control as much as in the treatment (amplified, open chromatin,
  "sticky") has no fold, and no peak; each peak's mean is its fold over the control.
  ``b`` is computed on 100 bp bins, rounded to 0.05 (fewer rows).
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

__all__ = ["CONTROL_RULES", "control_background", "control_of", "mark_control_peaks"]

CONTROL_RULES = ("background", "filter")
#: the local windows of the control (MACS3's --slocal, --llocal)
LOCAL_WINDOWS = (1000, 10000)
_BIN = 100
_STEP = 0.05


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


def _area(start: np.ndarray, end: np.ndarray, count: np.ndarray, x: np.ndarray
          ) -> np.ndarray:
    """∫₀ˣ coverage of sorted non-overlapping rows, at each ``x``."""
    full = np.r_[0.0, np.cumsum((end - start) * count.astype(float))]
    i = np.searchsorted(start, x, side="right") - 1  # last row starting at or before x
    ok = i >= 0
    j = np.where(ok, i, 0)
    part = np.clip(x - start[j], 0, end[j] - start[j]) * count[j].astype(float)
    return np.where(ok, full[j] + part, 0.0)


def _chrom_lengths(treatment: pd.DataFrame, control: pd.DataFrame, sizes: dict | None
                   ) -> dict:
    ends = pd.concat([treatment[["chrom", "chromEnd"]], control[["chrom", "chromEnd"]]])
    last = ends.groupby("chrom", sort=False)["chromEnd"].max()
    return {str(c): int(sizes.get(str(c), e) if sizes else e) for c, e in last.items()}


def control_background(treatment: pd.DataFrame, control: pd.DataFrame, *,
                       chrom_sizes: dict | None = None) -> pd.DataFrame:
    """One sample's treatment coverage with the control's ``background`` column.

    Parameters
    ----------
    treatment, control : DataFrame
        ``chrom, chromStart, chromEnd, count`` of one sample each (bedGraph rows, sorted
        per chromosome; gaps are zero coverage).
    chrom_sizes : dict, optional
        Chromosome lengths (default: the last covered base of either).

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, count, background``: every base of each
        chromosome of the treatment from 0 to its length (gaps filled with zero counts),
        cut where the treatment's count or the background changes.

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [30000],
    ...                   "count": [2]})
    >>> c = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 14000, 16000],
    ...                   "chromEnd": [14000, 16000, 30000], "count": [1, 21, 1]})
    >>> b = control_background(t, c)
    >>> float(b["background"].max()), float(b["background"].min())
    (9.0, 1.0)
    """
    for table, what in ((treatment, "treatment"), (control, "control")):
        require_columns(table, list(COVERAGE_COLUMNS), what)
    lengths = _chrom_lengths(treatment, control, chrom_sizes)
    c_groups = dict(list(control.groupby("chrom", sort=False)))
    area = sum(float(((g["chromEnd"] - g["chromStart"]) * g["count"]).sum())
               for g in c_groups.values())
    covered = [c for c in pd.unique(treatment["chrom"])]
    genome = float(sum(lengths[str(c)] for c in set(covered) | set(c_groups)))
    if area <= 0:
        raise ValueError("the control has no reads: it cannot be a background")
    lam_bg = area / genome
    out = []
    for chrom, t in treatment.groupby("chrom", sort=False):
        size = lengths[str(chrom)]
        edges = np.arange(0, size + _BIN, _BIN, dtype=np.int64)
        edges[-1] = size
        edges = np.unique(edges)
        mid = (edges[:-1] + edges[1:]) / 2
        b = np.ones(len(mid))
        g = c_groups.get(chrom)
        if g is not None:
            cs, ce = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
            cc = g["count"].to_numpy()
            for win in LOCAL_WINDOWS:
                lo, hi = np.maximum(mid - win / 2, 0), np.minimum(mid + win / 2, size)
                local = (_area(cs, ce, cc, hi) - _area(cs, ce, cc, lo)) / (hi - lo)
                b = np.maximum(b, local / lam_bg)
        b = np.maximum(np.round(b / _STEP) * _STEP, 1.0)
        change = np.r_[True, b[1:] != b[:-1]]
        b_start, b_val = edges[:-1][change], b[change]
        ts, te = t["chromStart"].to_numpy(np.int64), t["chromEnd"].to_numpy(np.int64)
        tc = t["count"].to_numpy(np.int64)
        cuts = np.unique(np.concatenate([[0, size], ts, te, b_start]))
        cuts = cuts[cuts <= size]
        starts, ends = cuts[:-1], cuts[1:]
        k = np.searchsorted(ts, starts, side="right") - 1
        inside = (k >= 0) & (starts < te[np.maximum(k, 0)])
        count = np.where(inside, tc[np.maximum(k, 0)], 0)
        bg = b_val[np.searchsorted(b_start, starts, side="right") - 1]
        # equal neighbours (count and background) merged: fewer rows, the same model
        same = np.r_[False, (count[1:] == count[:-1]) & (bg[1:] == bg[:-1])]
        first = np.flatnonzero(~same)
        out.append(pd.DataFrame({"chrom": chrom, "chromStart": starts[first],
                                 "chromEnd": np.r_[starts[first][1:], ends[-1]],
                                 "count": count[first], BACKGROUND: bg[first]}))
    return pd.concat(out, ignore_index=True)


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
