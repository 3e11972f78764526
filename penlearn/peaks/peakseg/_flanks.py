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
        count = g["count"].to_numpy()
        if not (isinstance(count.dtype, np.dtype) and count.dtype.kind in "iuf"):
            count = g["count"].to_numpy(float)
        have = done.get((sid, chrom))
        a = have["chromStart"].to_numpy(np.int64) if have is not None else np.empty(0, int)
        b = have["chromEnd"].to_numpy(np.int64) if have is not None else np.empty(0, int)
        order = np.argsort(a, kind="stable")
        lo = np.r_[start.min(), b[order]]
        hi = np.r_[a[order], end.max()]
        keep = hi > lo
        # the coverage summed below both ends of each (the running sums at their rows
        # only: no cumulative sum of every row of the chromosome)
        k = int(keep.sum())
        below = _below(np.r_[hi[keep], lo[keep]], start, end, count=count)
        sums = below[:k] - below[k:]
        rows += [(sid, chrom, int(x), int(y), v / (y - x))
                 for x, y, v in zip(lo[keep], hi[keep], sums)]
    if not rows:
        return segs
    fill = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "mean"])
    fill["status"] = "background"
    fill["sequence_id"] = [window_id(s, c, a, b) for s, c, a, b in zip(
        fill["sample_id"].tolist(), fill["chrom"].tolist(), fill["chromStart"].tolist(),
        fill["chromEnd"].tolist())]
    fill["log_lambda"] = np.nan
    if "sample_id" not in segs.columns:
        fill = fill.drop(columns="sample_id")
    out = pd.concat([segs, fill[[c for c in segs.columns if c in fill.columns]]],
                    ignore_index=True)
    keys = [c for c in ("sample_id", "chrom") if c in out.columns]
    problem = out.groupby(keys, sort=False, dropna=False).ngroup()  # first-seen order
    order = np.lexsort((out["chromStart"].to_numpy(), problem.to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def _below(x: np.ndarray, start: np.ndarray, end: np.ndarray,
           total: np.ndarray | None = None, *, count: np.ndarray | None = None
           ) -> np.ndarray:
    """The coverage summed over the bases below each of a few ``x`` (linear within rows,
    flat in gaps; ``total``: the cumulative sum of the rows' ``count · width``, else
    its values at the rows needed from ``count``):
    ``np.interp(x, xp, fp)`` of ``xp = (start₀, end₀, start₁, …)`` and ``fp = (0,
    total₀, total₀, total₁, …)``, value for value, interpolated on the rows around each
    ``x`` only (those tables of a chromosome's 2·n points were ~200 MB at once for 2.6
    million rows; issue 55), every ``x`` at once (one interpolation per ``x`` was ~1 s
    of a genome's run).

    Examples
    --------
    >>> s, e = np.array([0, 10, 30]), np.array([10, 20, 40])
    >>> _below(np.array([0, 5, 25, 40]), s, e, np.array([10.0, 30, 60])).tolist()
    [0.0, 5.0, 30.0, 60.0]
    """
    x = np.asarray(x)
    # the last row starting at or before each x: x is in it, or in the gap after it
    row = np.searchsorted(start, x, side="right") - 1
    r = np.maximum(row, 0)
    lo, hi = start[r], end[r]
    if total is None:
        from penlearn.peaks.peakseg._contig_kernel import running_sums_at

        top, before = running_sums_at(start, end, count, r)
    else:
        top = total[r]
        before = np.where(r > 0, total[r - 1], 0.0)  # (the sum up to the row's start)
    xf = x.astype(float)
    # np.interp's steps, as its compiled loop takes them: the point's own value where x
    # is a point of the table, else slope · (x − left point) + left value (from the right
    # point where that is NaN, and the left value where both are and the values agree)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        slope = (top - before) / (hi.astype(float) - lo.astype(float))
        out = slope * (xf - lo.astype(float)) + before
        bad = np.isnan(out)
        if bad.any():
            again = slope * (xf - hi.astype(float)) + top
            out = np.where(bad, np.where(np.isnan(again) & (before == top), before, again),
                           out)
    out = np.where(x == lo, before, out)
    out = np.where(x >= hi, top, out)  # the row's end, the gap after it, or past the last
    return np.where(row < 0, 0.0, out)  # before the first row
