"""The baseline heuristic of the joint peak solver (numba), apart from the exact search.

The bin-pyramid search (JointZoom of PeakSegJoint; Hocking & Bourque 2015,
arXiv:1506.01286) gives the branch and bound of :mod:`penlearn.peaks.joint._kernel` its
first incumbents, and is the baseline ``benchmarks/joint_peaks.py`` times it against.
It uses that module's peak evaluation, so its peaks are scored by the same rule
(strictly up-down samples only).
"""

from __future__ import annotations

import numba
import numpy as np

from penlearn.peaks.joint._kernel import _sort_desc, eval_peak, peak_decreases

# The baseline heuristic: a pyramid of bins, zooming in on one peak per k, after the
# JointZoom search of PeakSegJoint (Hocking & Bourque 2015, arXiv:1506.01286): search
# every pair of coarse bin boundaries, then for each k refine its best peak level by
# level, each end within one bin of the previous level's, until the resolution is a base.


@numba.njit(cache=True)
def _topk_sum(dec, k):
    _sort_desc(dec)
    acc = 0.0
    for q in range(k):
        acc += dec[q]
    return acc


@numba.njit(cache=True)
def heuristic(P, cyT, cnt, tot, flat, unit, bin_factor, coarse_bins, best, best_a, best_b):
    """Fill ``best`` (top-k sums, k = 1..) and their peaks by the bin-pyramid search."""
    N = P[P.shape[0] - 1]
    n_units = best.shape[0] - 1
    dec = np.empty(n_units)
    bpb = 1.0
    while N / (bpb * bin_factor) >= coarse_bins:
        bpb *= bin_factor
    M = int((N - 1.0) // bpb)
    for m1 in range(1, M + 1):
        for m2 in range(m1 + 1, M + 1):
            eval_peak(P, cyT, cnt, tot, flat, unit, m1 * bpb, m2 * bpb, dec, best, best_a,
                      best_b)
    if bpb == 1.0:
        return
    for k in range(1, n_units + 1):
        if not np.isfinite(best[k]):
            continue
        a = best_a[k]
        b = best_b[k]
        val = best[k]
        step = bpb
        while step > 1.0:
            fine = max(step // bin_factor, 1.0)
            ca = a
            cb = b
            n = int(step // fine)
            for p in range(-n, n + 1):
                a2 = ca + p * fine
                if a2 < 1.0:
                    continue
                for q in range(-n, n + 1):
                    b2 = cb + q * fine
                    if b2 <= a2 or b2 > N - 1.0:
                        continue
                    peak_decreases(P, cyT, cnt, tot, flat, unit, a2, b2, dec)
                    v = _topk_sum(dec, k)
                    if v > val:
                        val = v
                        a = a2
                        b = b2
            step = fine
        best[k] = val
        best_a[k] = a
        best_b[k] = b
