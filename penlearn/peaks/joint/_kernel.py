"""numba kernels of the strict joint peak model (:mod:`penlearn.peaks.joint.solver`).

One window, S samples on a common grid of positions ``P`` (0 = window start, ``P[-1]``
= N bases); ``cyT[i, s]`` is sample s's count summed over bases ``[0, P[i])`` and
``cnt[i, s]`` its count at every base of cell ``[P[i], P[i + 1])``, so the count sum
before any base x of that cell is ``cyT[i, s] + (x − P[i]) cnt[i, s]``. A peak ``[a, b)``
(any bases ``1 <= a < b <= N − 1``) splits each sample into three segments; the Poisson
loss of a segment with W bases and count sum Y at its average Y / W is
``f(W, Y) = Y − Y log(Y / W)`` (0 when Y = 0), PeakSeg's loss without the log y! term
(Hocking et al. 2020, JMLR). A sample is *up* at ``[a, b)`` only when its three segment
averages are strictly up-down (inside > before and inside > after; PeakSegJoint's rule,
Hocking & Bourque 2015, arXiv:1506.01286): its loss is then the sum of the three
segments' losses and its *decrease* flat loss − that loss; where it is not up-down it
cannot be up (decrease −inf). A unit (a sample, or a group of samples up together) has
the sum of its samples' decreases. The best model with k units up at a peak takes the k
largest decreases, when at least k units can be up there.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: Relative slack of the branch and bound's feasibility tests (rounding of the products).
FEAS_SLACK = 1e-9


@numba.njit(cache=True)
def seg_loss(W, Y):
    """Best Poisson loss of one segment of W bases and count sum Y."""
    if Y <= 0.0:
        return 0.0
    return Y - Y * math.log(Y / W)


@numba.njit(cache=True)
def up_loss(W1, Y1, W2, Y2, W3, Y3):
    """Loss of one sample up with segments (W1, Y1), (W2, Y2), (W3, Y3): the sum of the
    three segments' losses when the averages are strictly up-down, else inf."""
    # m2 > m1  <=>  Y2 W1 > Y1 W2 (no division; exact on integer-valued floats)
    if Y2 * W1 > Y1 * W2 and Y2 * W3 > Y3 * W2:
        return seg_loss(W1, Y1) + seg_loss(W2, Y2) + seg_loss(W3, Y3)
    return np.inf


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
    """Sort ``dec`` (in place); where its top-k sum beats ``best[k]``, keep it and [a, b).
    A unit that cannot be up has decrease −inf, so a top-k sum with fewer than k units
    up is −inf and never kept."""
    _sort_desc(dec)
    acc = 0.0
    for k in range(dec.shape[0]):
        acc += dec[k]
        if acc > best[k + 1]:
            best[k + 1] = acc
            best_a[k + 1] = a
            best_b[k + 1] = b


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
    a, b); −inf when one of its samples is not strictly up-down there."""
    for u in range(out.shape[0]):
        out[u] = 0.0
    for s in range(tot.shape[0]):
        y1 = ya[s]
        y2 = yb[s] - y1
        y3 = tot[s] - yb[s]
        out[unit[s]] += flat[s] - up_loss(a, y1, b - a, y2, N - b, y3)


@numba.njit(cache=True)
def _sums_at(P, cyT, cnt, x, g, out):
    """``out[s]``: count sum of sample s before base x, x in cell g."""
    for s in range(out.shape[0]):
        out[s] = cyT[g, s] + (x - P[g]) * cnt[g, s]


@numba.njit(cache=True)
def peak_decreases(P, cyT, cnt, tot, flat, unit, a, b, dec):
    """``dec[u]``: unit u's loss decrease for the peak [a, b) at any base positions."""
    N = P[P.shape[0] - 1]
    S = tot.shape[0]
    ya = np.empty(S)
    yb = np.empty(S)
    ia = min(np.searchsorted(P, a, side="right") - 1, P.shape[0] - 2)
    ib = min(np.searchsorted(P, b, side="right") - 1, P.shape[0] - 2)
    _sums_at(P, cyT, cnt, a, ia, ya)
    _sums_at(P, cyT, cnt, b, ib, yb)
    pair_decreases(a, b, N, ya, yb, tot, flat, unit, dec)


@numba.njit(cache=True)
def eval_peak(P, cyT, cnt, tot, flat, unit, a, b, dec, best, best_a, best_b):
    """Evaluate the peak [a, b) at any base positions (e.g. a heuristic's peak)."""
    peak_decreases(P, cyT, cnt, tot, flat, unit, a, b, dec)
    record(dec, best, best_a, best_b, a, b)


# ---------------------------------------------------------------------------------------
# Branch and bound over every peak of bases. A block holds the peaks a ∈ [P[i0], P[i1]],
# b ∈ [P[j0], P[j1]] (every base in those ranges, not only grid points; i1 <= j0), or,
# *diagonal*, every peak with both ends in [P[x0], P[x1]] (stored i0 = x0, j1 = x1).
# csat[i, s] is the sum over the cells before P[i] of their own best (saturated) loss.


#: Blocks spanning at most this many grid cells get the exact extreme averages.
SCAN = 48


@numba.njit(cache=True)
def _scan_feasible(P, cyT, T, N, s, i0, i1, j0, j1):
    """Whether some a ∈ [P[i0], P[i1]] and b ∈ [P[j0], P[j1]] may give mean[0, b) >
    mean[0, a), and some mean[a, N) > mean[b, N) (each alone): inside a cell both
    averages are monotone in the position, so their extremes over a range are at grid
    points."""
    lo1 = np.inf  # least mean[0, a)
    hi2 = -np.inf  # largest mean[a, N)
    for i in range(i0, i1 + 1):
        lo1 = min(lo1, cyT[i, s] / P[i])
        hi2 = max(hi2, (T - cyT[i, s]) / (N - P[i]))
    hi1 = -np.inf  # largest mean[0, b)
    lo2 = np.inf  # least mean[b, N)
    for j in range(j0, j1 + 1):
        hi1 = max(hi1, cyT[j, s] / P[j])
        lo2 = min(lo2, (T - cyT[j, s]) / (N - P[j]))
    return (hi1 >= lo1 * (1.0 - FEAS_SLACK)), (hi2 >= lo2 * (1.0 - FEAS_SLACK))


@numba.njit(cache=True)
def _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, out):
    """Upper bound of each unit's decrease over every peak of the block a ∈ [P[i0],
    P[i1]], b ∈ [P[j0], P[j1]] (a diagonal block is passed as ``i1 = j1, j0 = i0``).

    A sample's up loss at any such peak is at least the sum of its segments' parts
    fitted alone (splitting a segment never increases its best loss), a part in the zone
    where a (or b) can fall at least its saturated loss. A sample that cannot be strictly
    up-down at any peak of the block gets −inf: up-down needs mean[0, b) > mean[0, a)
    (inside > before) and mean[a, N) > mean[b, N) (inside > after), and over the block
    mean[0, b) <= Y(B1) / B0, mean[0, a) >= Y(A0) / A1, mean[a, N) <= (T − Y(A0)) /
    (N − A1), mean[b, N) >= (T − Y(B1)) / (N − B0) (Y(x): count sum before x, T: total),
    tested with a relative slack :data:`FEAS_SLACK` for rounding."""
    N = P[P.shape[0] - 1]
    A0, A1, B0, B1 = P[i0], P[i1], P[j0], P[j1]
    for u in range(out.shape[0]):
        out[u] = 0.0
    for s in range(tot.shape[0]):
        T = tot[s]
        if i1 - i0 + j1 - j0 <= SCAN:  # the extreme averages themselves, at grid points
            c1, c2 = _scan_feasible(P, cyT, T, N, s, i0, i1, j0, j1)
        else:
            c1 = cyT[j1, s] * A1 >= cyT[i0, s] * B0 * (1.0 - FEAS_SLACK)
            c2 = ((T - cyT[i0, s]) * (N - B0)
                  >= (T - cyT[j1, s]) * (N - A1) * (1.0 - FEAS_SLACK))
        if not (c1 and c2):
            out[unit[s]] = -np.inf
            continue
        if i1 <= j0:
            lb = (seg_loss(A0, cyT[i0, s])
                  + csat[i1, s] - csat[i0, s]
                  + seg_loss(B0 - A1, cyT[j0, s] - cyT[i1, s])
                  + csat[j1, s] - csat[j0, s]
                  + seg_loss(N - B1, T - cyT[j1, s]))
        else:
            lb = (seg_loss(A0, cyT[i0, s]) + csat[j1, s] - csat[i0, s]
                  + seg_loss(N - B1, T - cyT[j1, s]))
        d = flat[s] - lb
        out[unit[s]] += d if d > 0.0 else 0.0


@numba.njit(cache=True)
def _least_improvable(ub, best, tol):
    """The least k whose top-k sum of the bounds ``ub`` (sorted in place) beats best[k]
    by more than ``tol``; 0 when there is none."""
    _sort_desc(ub)
    acc = 0.0
    for k in range(ub.shape[0]):
        acc += ub[k]
        if acc > best[k + 1] + tol:
            return k + 1
    return 0


@numba.njit(cache=True)
def _leaf(P, cyT, cnt, tot, flat, unit, i0, i1, j0, j1, kmin, dec, best, best_a, best_b):
    """Every peak of bases a ∈ [P[i0], P[i1]], b ∈ [P[j0], P[j1]], a < b, where at least
    ``kmin`` units are up-down (the block cannot improve fewer). Returns the number of
    peaks evaluated."""
    N = P[P.shape[0] - 1]
    S = tot.shape[0]
    nb = int(P[j1] - P[j0]) + 1
    yb = np.empty((nb, S))
    for g in range(j0, j1 + 1):  # count sums before every b of the range
        last = P[g + 1] - 1.0 if g < j1 else P[g]
        x = P[g]
        while x <= last:
            _sums_at(P, cyT, cnt, x, g, yb[int(x - P[j0])])
            x += 1.0
    ya = np.empty(S)
    down = np.zeros(dec.shape[0], dtype=np.int64)
    n = 0
    for g in range(i0, i1 + 1):
        last = P[g + 1] - 1.0 if g < i1 else P[g]
        a = P[g]
        while a <= last:
            _sums_at(P, cyT, cnt, a, g, ya)
            b = max(a + 1.0, P[j0])
            while b <= P[j1]:
                y = yb[int(b - P[j0])]
                if kmin > 1:  # units up-down at [a, b): products only, no logarithms
                    down[:] = 0
                    for s in range(S):
                        y2 = y[s] - ya[s]
                        if not (y2 * a > ya[s] * (b - a)
                                and y2 * (N - b) > (tot[s] - y[s]) * (b - a)):
                            down[unit[s]] = 1
                    if dec.shape[0] - down.sum() < kmin:
                        b += 1.0
                        continue
                pair_decreases(a, b, N, ya, y, tot, flat, unit, dec)
                record(dec, best, best_a, best_b, a, b)
                n += 1
                b += 1.0
            a += 1.0
    return n


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
    """Every peak of bases ``1 <= a < b <= N − 1``, by branch and bound; ``best`` holds
    the incumbent top-k sums (from a heuristic) and is improved in place.

    A diagonal block ``[x0, x1]`` is split into the diagonal blocks ``[x0, m]``,
    ``[m, x1]`` and the rectangle ``[x0, m] × [m, x1]``; a rectangle into halves of each
    grid range with more than one cell (halves share their middle grid point, so every
    base stays covered). A block whose bounds cannot beat any ``best[k]`` by more than
    ``tol`` is dropped; one with at most ``leaf`` peaks, or one cell per range, is
    searched base by base. Stops after ``max_work`` block bounds: ``proven[k]`` (all True
    on entry) is then set False for each k that a block left may improve. Returns
    (blocks bounded, peaks evaluated)."""
    G = P.shape[0] - 1
    n_units = best.shape[0] - 1
    ub = np.empty(n_units)
    dec = np.empty(n_units)
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
            kmin = _least_improvable(ub, best, tol)
            if kmin == 0:
                continue
            if diag:
                nx = P[j1] - P[i0] + 1.0
                if j1 - i0 <= 1 or nx * (nx - 1.0) <= 2.0 * leaf:
                    evaluated += _leaf(P, cyT, cnt, tot, flat, unit, i0, j1, i0, j1, kmin, dec,
                                       best, best_a, best_b)
                    continue
                m = (i0 + j1) // 2
                nxt, n_nxt = _push(nxt, n_nxt, i0, 0, 0, m, 1)
                nxt, n_nxt = _push(nxt, n_nxt, m, 0, 0, j1, 1)
                nxt, n_nxt = _push(nxt, n_nxt, i0, m, m, j1, 0)
                continue
            split_a = i1 - i0 >= 2
            split_b = j1 - j0 >= 2
            na = P[i1] - P[i0] + 1.0
            nb = P[j1] - P[j0] + 1.0
            if not (split_a or split_b) or na * nb <= leaf:
                evaluated += _leaf(P, cyT, cnt, tot, flat, unit, i0, i1, j0, j1, kmin, dec, best,
                                   best_a, best_b)
                continue
            im = (i0 + i1) // 2 if split_a else i1
            jm = (j0 + j1) // 2 if split_b else j1
            if P[jm] > P[im]:  # an incumbent from the middle of the block
                eval_peak(P, cyT, cnt, tot, flat, unit, P[im], P[jm], dec, best, best_a,
                          best_b)
                evaluated += 1
            for x in range(2 if split_a else 1):
                ci0 = i0 if x == 0 else im
                ci1 = (im if x == 0 else i1) if split_a else i1
                for z in range(2 if split_b else 1):
                    cj0 = j0 if z == 0 else jm
                    cj1 = (jm if z == 0 else j1) if split_b else j1
                    if P[cj1] > P[ci0]:  # at least one peak a < b
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
