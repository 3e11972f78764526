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
        count = g["count"].to_numpy(float)
        have = done.get((sid, chrom))
        a = have["chromStart"].to_numpy(np.int64) if have is not None else np.empty(0, int)
        b = have["chromEnd"].to_numpy(np.int64) if have is not None else np.empty(0, int)
        order = np.argsort(a, kind="stable")
        lo = np.r_[start.min(), b[order]]
        hi = np.r_[a[order], end.max()]
        # the coverage summed over the bases below x: linear within rows, flat in gaps
        total = np.r_[0.0, np.cumsum(count * (end - start))]
        xp, fp = np.c_[start, end].ravel(), np.c_[total[:-1], total[1:]].ravel()
        keep = hi > lo
        sums = np.interp(hi[keep], xp, fp) - np.interp(lo[keep], xp, fp)
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
