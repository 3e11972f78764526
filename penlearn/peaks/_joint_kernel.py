"""numba kernels of the exact joint peak model (:mod:`penlearn.peaks.joint`).

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
def _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, out):
    """Upper bound of each unit's decrease over the peaks a = P[i0..i1], b = P[j0..j1].

    For any such peak each segment's loss is at least the sum of the losses of its parts
    fitted alone (splitting a segment never increases its best loss), and a part inside
    the zone where a (or b) can fall is at least its saturated loss: a lower bound of the
    free 3-mean loss, hence of the constrained one."""
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
def scan_adjacent(P, cyT, cnt, tot, flat, unit, best, best_a, best_b):
    """The one-base peaks next to a grid point that are not between two grid points."""
    N = P[P.shape[0] - 1]
    dec = np.empty(best.shape[0] - 1)
    for g in range(1, P.shape[0] - 1):
        if P[g] + 1.0 < P[g + 1] and P[g] + 1.0 <= N - 1.0:
            eval_peak(P, cyT, cnt, tot, flat, unit, P[g], P[g] + 1.0, dec, best, best_a,
                      best_b)
        if P[g] - 1.0 > P[g - 1] and P[g] - 1.0 >= 1.0:
            eval_peak(P, cyT, cnt, tot, flat, unit, P[g] - 1.0, P[g], dec, best, best_a,
                      best_b)


@numba.njit(cache=True)
def branch_and_bound(P, cyT, csat, tot, flat, unit, best, best_a, best_b, leaf, max_blocks,
                     tol):
    """Every peak between grid points 1 .. G − 1, by branch and bound; ``best`` holds the
    incumbent top-k sums (from a heuristic) and is improved in place. Returns
    (proven, blocks bounded, pairs evaluated): proven is False when the work list
    outgrew ``max_blocks`` (the incumbents are then the best found, not proven)."""
    G = P.shape[0] - 1
    n_units = best.shape[0] - 1
    ub = np.empty(n_units)
    dec = np.empty(n_units)
    cur = np.empty((1, 4), dtype=np.int64)
    cur[0, 0] = 1
    cur[0, 1] = G - 1
    cur[0, 2] = 1
    cur[0, 3] = G - 1
    n_cur = 1
    bounded = 0
    evaluated = 0
    while n_cur > 0:
        nxt = np.empty((4 * n_cur, 4), dtype=np.int64)
        n_nxt = 0
        for r in range(n_cur):
            i0, i1, j0, j1 = cur[r, 0], cur[r, 1], cur[r, 2], cur[r, 3]
            _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, ub)
            bounded += 1
            if not _can_improve(ub, best, tol):
                continue
            if (i1 - i0 + 1) * (j1 - j0 + 1) <= leaf:
                for i in range(i0, i1 + 1):
                    for j in range(max(j0, i + 1), j1 + 1):
                        _eval_grid_pair(P, cyT, tot, flat, unit, i, j, dec, best, best_a,
                                        best_b)
                        evaluated += 1
                continue
            # an incumbent from the middle of the block, then its children
            im = (i0 + i1) // 2
            jm = max((j0 + j1 + 1) // 2, im + 1)
            if jm <= j1:
                _eval_grid_pair(P, cyT, tot, flat, unit, im, jm, dec, best, best_a, best_b)
                evaluated += 1
            if i1 > i0:
                ia = (i0, im + 1)
                ib = (im, i1)
            else:
                ia = (i0, i0)
                ib = (i0, i0)
            jmid = (j0 + j1) // 2
            if j1 > j0:
                ja = (j0, jmid + 1)
                jb = (jmid, j1)
            else:
                ja = (j0, j0)
                jb = (j0, j0)
            for x in range(2):
                if i1 == i0 and x == 1:
                    break
                ci0 = ia[x]
                ci1 = ib[x]
                for y in range(2):
                    if j1 == j0 and y == 1:
                        break
                    cj0 = ja[y]
                    cj1 = jb[y]
                    if ci0 < cj1:  # at least one pair i < j
                        nxt[n_nxt, 0] = ci0
                        nxt[n_nxt, 1] = min(ci1, cj1 - 1)
                        nxt[n_nxt, 2] = max(cj0, ci0 + 1)
                        nxt[n_nxt, 3] = cj1
                        n_nxt += 1
        if n_nxt > max_blocks:
            return False, bounded, evaluated
        cur = nxt
        n_cur = n_nxt
    return True, bounded, evaluated
