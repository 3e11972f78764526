"""numba kernels of the exact joint peak model (:mod:`penlearn.peaks.joint.solver`).

One window, S samples on a common grid of positions ``pos`` (0 = window start, ``pos[-1]``
= N bases); ``cy[s, i]`` is sample s's count summed over bases ``[0, pos[i])``. A peak
``[a, b)`` = ``[pos[i], pos[j])`` splits each sample into three segments; the Poisson loss
of a segment with W bases and count sum Y at its best mean Y / W is
``f(W, Y) = Y − Y log(Y / W)`` (0 when Y = 0), PeakSeg's loss without the log y! term
(Hocking et al. 2020, JMLR). The up-down constraint (inside mean >= both outside means,
non-strict as in PeakSeg) makes the best 3-segment loss of one sample the smallest loss
among the *feasible* ones of: the free 3-mean fit, the fit with segments 1-2 pooled, with
segments 2-3 pooled, and the flat fit (the constrained optimum is the free optimum of its
own active set, which is feasible, and every feasible pooled fit is a feasible model).
Its *decrease* is flat loss − that loss (>= 0). The best model with k units (samples,
or groups of samples that are up together) up at a given peak takes the k largest unit
decreases (Hocking & Bourque 2015, arXiv:1506.01286, define the model; the top-k form
of its optimum is ours).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def seg_loss(W, Y):
    """Best Poisson loss of one segment of W bases and count sum Y."""
    if Y <= 0.0:
        return 0.0
    return Y - Y * math.log(Y / W)


@numba.njit(cache=True)
def constrained_loss(W1, Y1, W2, Y2, W3, Y3):
    """Best loss of one sample with segments (W1, Y1), (W2, Y2), (W3, Y3), inside mean
    >= both outside means (non-strict)."""
    # m2 >= m1  <=>  Y2 W1 >= Y1 W2 (no division; exact on integer-valued floats)
    up1 = Y2 * W1 >= Y1 * W2
    up3 = Y2 * W3 >= Y3 * W2
    if up1 and up3:
        return seg_loss(W1, Y1) + seg_loss(W2, Y2) + seg_loss(W3, Y3)
    best = seg_loss(W1 + W2 + W3, Y1 + Y2 + Y3)
    # segments 1-2 pooled (one change down at b): feasible when pooled mean >= m3
    if (Y1 + Y2) * W3 >= Y3 * (W1 + W2):
        v = seg_loss(W1 + W2, Y1 + Y2) + seg_loss(W3, Y3)
        if v < best:
            best = v
    # segments 2-3 pooled (one change up at a): feasible when pooled mean >= m1
    if (Y2 + Y3) * W1 >= Y1 * (W2 + W3):
        v = seg_loss(W1, Y1) + seg_loss(W2 + W3, Y2 + Y3)
        if v < best:
            best = v
    return best


@numba.njit(cache=True)
def _sort_desc(x):
    """Insertion sort, largest first (units are few)."""
    n = x.shape[0]
    for p in range(1, n):
        v = x[p]
        q = p - 1
        while q >= 0 and x[q] < v:
            x[q + 1] = x[q]
            q -= 1
        x[q + 1] = v


@numba.njit(cache=True)
def record(dec, best, best_a, best_b, a, b):
    """Sort ``dec`` (in place); where its top-k sum beats ``best[k]``, keep it and [a, b)."""
    _sort_desc(dec)
    acc = 0.0
    for k in range(dec.shape[0]):
        acc += dec[k]
        if acc > best[k + 1]:
            best[k + 1] = acc
            best_a[k + 1] = a
            best_b[k + 1] = b


# ---------------------------------------------------------------------------------------
# Branch and bound over the grid (P: grid positions, 0 .. N; cell i = [P[i], P[i+1]) has
# count cnt[i, s] in sample s; cyT[i, s] the count sum over [0, P[i]); csat[i, s] the
# sum over the cells before P[i] of their own best (saturated) loss).


@numba.njit(cache=True)
def build_grid(P, st, en, c, off):
    """Counts per grid cell, cumulative counts and saturated losses of every sample.

    Sample s has rows ``off[s] .. off[s + 1] − 1`` of ``st, en, c`` (sorted, contiguous,
    spanning ``[0, P[-1])`` in positions relative to the window); returns ``cnt`` (G, S),
    ``cyT`` and ``csat`` (G + 1, S)."""
    G = P.shape[0] - 1
    S = off.shape[0] - 1
    cnt = np.empty((G, S))
    cyT = np.zeros((G + 1, S))
    csat = np.zeros((G + 1, S))
    r = off[:-1].copy()  # each sample's current row
    logc = np.empty(S)
    for s in range(S):
        logc[s] = math.log(c[r[s]]) if c[r[s]] > 0.0 else 0.0
    for i in range(G):  # grid-major: the arrays are written in memory order
        w = P[i + 1] - P[i]
        for s in range(S):
            if en[r[s]] <= P[i]:
                while en[r[s]] <= P[i]:
                    r[s] += 1
                logc[s] = math.log(c[r[s]]) if c[r[s]] > 0.0 else 0.0
            y = c[r[s]] * w
            cnt[i, s] = c[r[s]]
            cyT[i + 1, s] = cyT[i, s] + y
            csat[i + 1, s] = csat[i, s] + (y - y * logc[s] if y > 0.0 else 0.0)
    return cnt, cyT, csat


@numba.njit(cache=True)
def pair_decreases(a, b, N, ya, yb, tot, flat, unit, out):
    """``out[u]``: unit u's loss decrease for the peak [a, b) (count sums ya, yb before
    a, b)."""
    for u in range(out.shape[0]):
        out[u] = 0.0
    for s in range(tot.shape[0]):
        y1 = ya[s]
        y2 = yb[s] - y1
        y3 = tot[s] - yb[s]
        d = flat[s] - constrained_loss(a, y1, b - a, y2, N - b, y3)
        if d < 0.0:
            d = 0.0
        out[unit[s]] += d


@numba.njit(cache=True)
def _block_loss_bound(P, cyT, csat, tot, s, i0, i1, j0, j1, free_lb):
    """Lower bound of sample s's constrained loss over the peaks a = P[i0..i1],
    b = P[j0..j1] (``i1 <= j0``), given a lower bound ``free_lb`` of its free 3-mean loss.

    The constrained loss is the least loss among the feasible fits (free, pooled 1-2,
    pooled 2-3, flat). A fit that is feasible for no peak of the block is left out: its
    feasibility needs an inequality between segment means, and each mean's range over
    the block is bounded by the extreme count sums over the least / largest widths."""
    N = P[P.shape[0] - 1]
    A0, A1, B0, B1 = P[i0], P[i1], P[j0], P[j1]
    y_in = cyT[j1, s] - cyT[i0, s]  # the most counts a peak of the block can hold
    w_in = B0 - A1  # its fewest bases
    y_before = cyT[i0, s]  # the fewest counts before a, over at most A1 bases
    y_after = tot[s] - cyT[j1, s]  # the fewest counts after b, over at most N - B0 bases
    lb = seg_loss(N, tot[s])  # the flat fit: always feasible
    # free: m2 >= m1 and m2 >= m3 for some peak of the block
    if y_in * A1 >= y_before * w_in and y_in * (N - B0) >= y_after * w_in:
        lb = min(lb, free_lb)
    # pooled 1-2 (change at b): mean of [0, b) >= mean of [b, N) for some b
    if cyT[j1, s] * (N - B0) >= y_after * B0:
        lb = min(lb, seg_loss(B0, cyT[j0, s]) + csat[j1, s] - csat[j0, s]
                 + seg_loss(N - B1, tot[s] - cyT[j1, s]))
    # pooled 2-3 (change at a): mean of [a, N) >= mean of [0, a) for some a
    if (tot[s] - cyT[i0, s]) * A1 >= y_before * (N - A1):
        lb = min(lb, seg_loss(A0, cyT[i0, s]) + csat[i1, s] - csat[i0, s]
                 + seg_loss(N - A1, tot[s] - cyT[i1, s]))
    return lb


@numba.njit(cache=True)
def _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, out):
    """Upper bound of each unit's decrease over the peaks a = P[i0..i1], b = P[j0..j1].

    For any such peak each segment's loss is at least the sum of the losses of its parts
    fitted alone (splitting a segment never increases its best loss), and a part inside
    the zone where a (or b) can fall is at least its saturated loss: a lower bound of the
    free 3-mean loss; then the fits that the up-down constraint rules out for the whole
    block are left out (:func:`_block_loss_bound`)."""
    N = P[P.shape[0] - 1]
    for u in range(out.shape[0]):
        out[u] = 0.0
    for s in range(tot.shape[0]):
        if i1 <= j0:
            lb = (seg_loss(P[i0], cyT[i0, s])
                  + csat[i1, s] - csat[i0, s]
                  + seg_loss(P[j0] - P[i1], cyT[j0, s] - cyT[i1, s])
                  + csat[j1, s] - csat[j0, s]
                  + seg_loss(N - P[j1], tot[s] - cyT[j1, s]))
            lb = _block_loss_bound(P, cyT, csat, tot, s, i0, i1, j0, j1, lb)
        else:
            lb = (seg_loss(P[i0], cyT[i0, s]) + csat[j1, s] - csat[i0, s]
                  + seg_loss(N - P[j1], tot[s] - cyT[j1, s]))
        d = flat[s] - lb
        if d > 0.0:
            out[unit[s]] += d


@numba.njit(cache=True)
def _can_improve(ub, best, tol):
    """True when the top-k sum of the bounds ``ub`` (sorted in place) beats some best[k]."""
    _sort_desc(ub)
    acc = 0.0
    for k in range(ub.shape[0]):
        acc += ub[k]
        if acc > best[k + 1] + tol:
            return True
    return False


@numba.njit(cache=True)
def _eval_grid_pair(P, cyT, tot, flat, unit, i, j, dec, best, best_a, best_b):
    N = P[P.shape[0] - 1]
    pair_decreases(P[i], P[j], N, cyT[i], cyT[j], tot, flat, unit, dec)
    record(dec, best, best_a, best_b, P[i], P[j])


@numba.njit(cache=True)
def peak_decreases(P, cyT, cnt, tot, flat, unit, a, b, dec):
    """``dec[u]``: unit u's loss decrease for the peak [a, b) at any base positions."""
    N = P[P.shape[0] - 1]
    S = tot.shape[0]
    ya = np.empty(S)
    yb = np.empty(S)
    ia = np.searchsorted(P, a, side="right") - 1
    ib = np.searchsorted(P, b, side="right") - 1
    for s in range(S):
        ya[s] = cyT[ia, s] + (a - P[ia]) * cnt[ia, s]
        yb[s] = cyT[ib, s] + (b - P[ib]) * cnt[ib, s]
    pair_decreases(a, b, N, ya, yb, tot, flat, unit, dec)


@numba.njit(cache=True)
def eval_peak(P, cyT, cnt, tot, flat, unit, a, b, dec, best, best_a, best_b):
    """Evaluate the peak [a, b) at any base positions (e.g. a heuristic's peak)."""
    peak_decreases(P, cyT, cnt, tot, flat, unit, a, b, dec)
    record(dec, best, best_a, best_b, a, b)


@numba.njit(cache=True)
def _eval_cell(P, cyT, cnt, tot, flat, unit, g, y, dec, best, best_a, best_b):
    """The one-base peaks at both ends of cell g = [P[g], P[g + 1]) that are not
    between two grid points."""
    N = P[P.shape[0] - 1]
    S = tot.shape[0]
    if P[g] >= 1.0 and P[g] + 1.0 < P[g + 1]:  # [P[g], P[g] + 1)
        for s in range(S):
            y[s] = cyT[g, s] + cnt[g, s]
        pair_decreases(P[g], P[g] + 1.0, N, cyT[g], y, tot, flat, unit, dec)
        record(dec, best, best_a, best_b, P[g], P[g] + 1.0)
    if P[g + 1] <= N - 1.0 and P[g + 1] - 1.0 > P[g]:  # [P[g + 1] − 1, P[g + 1])
        for s in range(S):
            y[s] = cyT[g + 1, s] - cnt[g, s]
        pair_decreases(P[g + 1] - 1.0, P[g + 1], N, y, cyT[g + 1], tot, flat, unit, dec)
        record(dec, best, best_a, best_b, P[g + 1] - 1.0, P[g + 1])


@numba.njit(cache=True)
def _push(blocks, n, i0, i1, j0, j1, diag):
    if n == blocks.shape[0]:
        bigger = np.empty((2 * n, 5), dtype=np.int64)
        bigger[:n] = blocks
        blocks = bigger
    blocks[n, 0] = i0
    blocks[n, 1] = i1
    blocks[n, 2] = j0
    blocks[n, 3] = j1
    blocks[n, 4] = diag
    return blocks, n + 1


@numba.njit(cache=True)
def _unproven(blocks, lo, hi, P, cyT, csat, tot, flat, unit, best, tol, ub, proven):
    """Mark ``proven[k] = False`` for each k that some block ``lo .. hi − 1`` may improve."""
    for r in range(lo, hi):
        i0, i1, j0, j1 = blocks[r, 0], blocks[r, 1], blocks[r, 2], blocks[r, 3]
        if blocks[r, 4]:
            i1 = j1
            j0 = i0
        _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, ub)
        _sort_desc(ub)
        acc = 0.0
        for k in range(ub.shape[0]):
            acc += ub[k]
            if acc > best[k + 1] + tol:
                proven[k + 1] = False


@numba.njit(cache=True)
def branch_and_bound(P, cyT, cnt, csat, tot, flat, unit, best, best_a, best_b, leaf,
                     max_work, tol, proven):
    """Every candidate peak, by branch and bound; ``best`` holds the incumbent top-k sums
    (from a heuristic) and is improved in place.

    A block is either *diagonal*, ``[x0, x1]`` (stored as ``i0 = x0, j1 = x1``): every
    peak with both ends in ``[P[x0], P[x1]]`` (grid pairs and the one-base peaks of its
    cells), split into the diagonal blocks ``[x0, m]``, ``[m, x1]`` and the block
    ``[x0, m] × [m, x1]``; or a *rectangle* ``a ∈ P[i0..i1], b ∈ P[j0..j1]`` (``i1 <= j0``),
    split in four. Stops after ``max_work`` block bounds: ``proven[k]`` (all True on
    entry) is then set False for each k that a block left may improve. Returns (blocks
    bounded, peaks evaluated)."""
    G = P.shape[0] - 1
    S = tot.shape[0]
    n_units = best.shape[0] - 1
    ub = np.empty(n_units)
    dec = np.empty(n_units)
    y = np.empty(S)
    cur = np.empty((1, 5), dtype=np.int64)
    cur, n_cur = _push(cur, 0, 1, 1, G - 1, G - 1, 1)
    bounded = 0
    evaluated = 0
    while n_cur > 0:
        nxt = np.empty((max(4 * n_cur, 16), 5), dtype=np.int64)
        n_nxt = 0
        for r in range(n_cur):
            if bounded >= max_work:
                _unproven(cur, r, n_cur, P, cyT, csat, tot, flat, unit, best, tol, ub, proven)
                _unproven(nxt, 0, n_nxt, P, cyT, csat, tot, flat, unit, best, tol, ub,
                          proven)
                return bounded, evaluated
            i0, i1, j0, j1, diag = cur[r, 0], cur[r, 1], cur[r, 2], cur[r, 3], cur[r, 4]
            if diag:
                i1 = j1
                j0 = i0
            _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, ub)
            bounded += 1
            if not _can_improve(ub, best, tol):
                continue
            if diag and j1 - i0 <= 4:
                for i in range(i0, j1 + 1):
                    for j in range(i + 1, j1 + 1):
                        _eval_grid_pair(P, cyT, tot, flat, unit, i, j, dec, best, best_a,
                                        best_b)
                        evaluated += 1
                for g in range(i0, j1):
                    _eval_cell(P, cyT, cnt, tot, flat, unit, g, y, dec, best, best_a, best_b)
                    evaluated += 2
                continue
            if not diag and (i1 - i0 + 1) * (j1 - j0 + 1) <= leaf:
                for i in range(i0, i1 + 1):
                    for j in range(max(j0, i + 1), j1 + 1):
                        _eval_grid_pair(P, cyT, tot, flat, unit, i, j, dec, best, best_a,
                                        best_b)
                        evaluated += 1
                continue
            if diag:
                m = (i0 + j1) // 2
                nxt, n_nxt = _push(nxt, n_nxt, i0, 0, 0, m, 1)
                nxt, n_nxt = _push(nxt, n_nxt, m, 0, 0, j1, 1)
                nxt, n_nxt = _push(nxt, n_nxt, i0, m, m, j1, 0)
                continue
            # an incumbent from the middle of the block, then its four quarters
            im = (i0 + i1) // 2
            jm = (j0 + j1) // 2
            if jm > im:
                _eval_grid_pair(P, cyT, tot, flat, unit, im, jm, dec, best, best_a, best_b)
                evaluated += 1
            for x in range(2):
                ci0 = i0 if x == 0 else im + 1
                ci1 = im if x == 0 else i1
                if ci0 > ci1:
                    continue
                for z in range(2):
                    cj0 = j0 if z == 0 else jm + 1
                    cj1 = jm if z == 0 else j1
                    if cj0 <= cj1 and ci0 < cj1:  # at least one pair i < j
                        nxt, n_nxt = _push(nxt, n_nxt, ci0, ci1, cj0, cj1, 0)
        cur = nxt
        n_cur = n_nxt
    return bounded, evaluated


# ---------------------------------------------------------------------------------------
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
