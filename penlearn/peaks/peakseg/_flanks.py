"""Segments of the bases no window covers, so that predicted segments span every
(sample, chromosome) of the coverage."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.peaks.peakseg.contigs import coverage_problems
from penlearn.peaks.peakseg.features import window_id

__all__ = ["uncovered_segments"]


def uncovered_segments(segs: pd.DataFrame, coverage: pd.DataFrame) -> pd.DataFrame:
    """Background segments of the coverage's bases that no window covers (the zero runs
    before the first read, after the last and between default windows), each with the
    mean coverage of its bases, so that segments span every (sample, chromosome)."""
    done = {(s, c): g for s, c, g in coverage_problems(segs)}
    rows = []
    for sid, chrom, g in coverage_problems(coverage):
        start, end = g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64)
        count = g["count"].to_numpy(float, copy=True)
        have = done.get((sid, chrom))
        a = have["chromStart"].to_numpy(np.int64) if have is not None else np.empty(0, int)
        b = have["chromEnd"].to_numpy(np.int64) if have is not None else np.empty(0, int)
        order = np.argsort(a, kind="stable")
        lo = np.r_[start.min(), b[order]]
        hi = np.r_[a[order], end.max()]
        keep = hi > lo
        # the coverage summed over the rows: in place of the counts (a chromosome's rows)
        count *= end - start
        total = np.cumsum(count, out=count)
        sums = _below(hi[keep], start, end, total) - _below(lo[keep], start, end, total)
        rows += [(sid, chrom, int(x), int(y), v / (y - x))
                 for x, y, v in zip(lo[keep], hi[keep], sums)]
    if not rows:
        return segs
    fill = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "mean"])
    fill["status"] = "background"
    fill["sequence_id"] = [window_id(s, c, a, b) for s, c, a, b in
                           fill[["sample_id", "chrom", "chromStart", "chromEnd"]].itertuples(
                               index=False)]
    fill["log_lambda"] = np.nan
    if "sample_id" not in segs.columns:
        fill = fill.drop(columns="sample_id")
    out = pd.concat([segs, fill[[c for c in segs.columns if c in fill.columns]]],
                    ignore_index=True)
    keys = [c for c in ("sample_id", "chrom") if c in out.columns]
    problem = out.groupby(keys, sort=False, dropna=False).ngroup()  # first-seen order
    order = np.lexsort((out["chromStart"].to_numpy(), problem.to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def _below(x: np.ndarray, start: np.ndarray, end: np.ndarray, total: np.ndarray
           ) -> np.ndarray:
    """The coverage summed over the bases below each of a few ``x`` (linear within rows,
    flat in gaps; ``total``: the cumulative sum of the rows' ``count · width``):
    ``np.interp(x, xp, fp)`` of ``xp = (start₀, end₀, start₁, …)`` and ``fp = (0,
    total₀, total₀, total₁, …)``, value for value, interpolated on the rows around each
    ``x`` only (those tables of a chromosome's 2·n points were ~200 MB at once for 2.6
    million rows; issue 55).

    Examples
    --------
    >>> s, e = np.array([0, 10, 30]), np.array([10, 20, 40])
    >>> _below(np.array([0, 5, 25, 40]), s, e, np.array([10.0, 30, 60])).tolist()
    [0.0, 5.0, 30.0, 60.0]
    """
    out = np.empty(len(x))
    row = np.searchsorted(start, x, side="right") - 1
    for k, (v, r) in enumerate(zip(x.tolist(), row.tolist())):
        r0, r1 = max(0, r - 1), min(len(start), r + 3)  # the rows on both sides of v
        before = np.r_[0.0 if r0 == 0 else total[r0 - 1], total[r0:r1]]
        xp = np.c_[start[r0:r1], end[r0:r1]].ravel()
        fp = np.c_[before[:-1], before[1:]].ravel()
        out[k] = np.interp(v, xp, fp)
    return out
