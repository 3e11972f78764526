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

Where the branch and bound's time goes (``benchmarks/joint_peaks.py``). A block is
bounded first by the cheap bound (saturated zones where a and b fall: three logarithms
per sample); the cut bound (:func:`_cut_bound`, proved there) needs each range's best
single cut, a logarithm at every count change of every sample in the range, kept per
range of the search tree. On large ranges that is most of the cost and it seldom drops a
block the cheap bound keeps whose children the cheap bound would not soon drop (real
windows) or seldom (pure noise, blocks above about 2^17 peaks), so the adaptive mode skips
it on blocks of more than :data:`TIGHT_MAX` peaks and at block sizes where it seldom
drops one (:func:`_tight`); it reuses the cheap bound's per-sample terms rather than
recomputing them. The bounds only prune: which of them is computed changes the work,
never the result (tests force each mode, ``cut`` = 0, 1, 2). In a leaf, each sample's
loss before a (after b) is computed once per a (per b) and only for the samples that
are up-down at some evaluated peak; the up-down test (products) comes first.
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


@numba.njit(cache=True)
def _extremes(P, cyT, tot, x0, x1, node, memo, done, tmp):
    """(4, S): each sample's least and largest mean[0, x) (rows 0, 1) and mean[x, N)
    (rows 2, 3) over the bases x in [P[x0], P[x1]]: inside a cell both averages are
    monotone in x, so their extremes are at grid points. Kept in ``memo[node]`` for the
    ranges of the search tree with ids below ``len(memo)``."""
    if node < memo.shape[0] and done[node]:
        return memo[node]
    out = memo[node] if node < memo.shape[0] else tmp
    N = P[P.shape[0] - 1]
    for s in range(tot.shape[0]):
        out[0, s] = np.inf
        out[1, s] = -np.inf
        out[2, s] = np.inf
        out[3, s] = -np.inf
    for i in range(x0, x1 + 1):
        for s in range(tot.shape[0]):
            u = cyT[i, s] / P[i]
            v = (tot[s] - cyT[i, s]) / (N - P[i])
            out[0, s] = min(out[0, s], u)
            out[1, s] = max(out[1, s], u)
            out[2, s] = min(out[2, s], v)
            out[3, s] = max(out[3, s], v)
    if node < memo.shape[0]:
        done[node] = True
    return out


@numba.njit(cache=True)
def _cut_loss(P, cyT, tot, bidx, s, x0, x1, prefix):
    """Least loss of sample s over the prefix [0, P[x1]) (``prefix``) or the suffix
    [P[x0], N) in two parts, each fitted alone, cut at some base x in [P[x0], P[x1]].
    Between two grid points where the sample's count changes (``bidx``, sorted), both
    parts' (bases, count sum) are linear in x and the loss f is concave, so the least is
    at x0, x1 or one of those points."""
    best = np.inf
    r = np.searchsorted(bidx, x0, side="right")
    x = x0
    while True:
        if prefix:
            v = seg_loss(P[x], cyT[x, s]) + seg_loss(P[x1] - P[x], cyT[x1, s] - cyT[x, s])
        else:
            v = (seg_loss(P[x] - P[x0], cyT[x, s] - cyT[x0, s])
                 + seg_loss(P[P.shape[0] - 1] - P[x], tot[s] - cyT[x, s]))
        if v < best:
            best = v
        if x == x1:
            return best
        if r < bidx.shape[0] and bidx[r] < x1:
            x = bidx[r]
            r += 1
        else:
            x = x1


@numba.njit(cache=True)
def _cuts(P, cyT, tot, bidx, boff, x0, x1, node, prefix, memo, done, tmp):
    """Each sample's least loss of the prefix [0, P[x1]) cut once in [P[x0], P[x1]]
    (``prefix``), or of the suffix [P[x0], N) cut once there; kept in ``memo[node]`` for
    the blocks' ranges that are nodes of the search tree with ids below ``len(memo)``."""
    if node < memo.shape[0] and done[node]:
        return memo[node]
    out = memo[node] if node < memo.shape[0] else tmp
    for s in range(out.shape[0]):
        out[s] = _cut_loss(P, cyT, tot, bidx[boff[s]:boff[s + 1]], s, x0, x1, prefix)
    if node < memo.shape[0]:
        done[node] = True
    return out


@numba.njit(cache=True)
def _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, out, ida, idb, amemo, adone,
                 bmemo, bdone, tmpa, tmpb, emem, edone, tmpe, tmpf, lbs, mids):
    """Upper bound of each unit's decrease over every peak of the block a ∈ [P[i0],
    P[i1]], b ∈ [P[j0], P[j1]] (a diagonal block is passed as ``i1 = j1, j0 = i0``).

    A sample's up loss at any such peak is at least the sum of its segments' parts
    fitted alone (splitting a segment never increases its best loss), a part in the zone
    where a (or b) can fall at least its saturated loss. A sample that cannot be strictly
    up-down at any peak of the block gets −inf: up-down needs mean[0, b) > mean[0, a)
    (inside > before) and mean[a, N) > mean[b, N) (inside > after), and over the block
    each tested with the extreme averages over the block (:func:`_extremes`), with a
    relative slack :data:`FEAS_SLACK` for rounding. Each sample's lower bound of its
    loss goes to ``lbs`` (NaN: cannot be up) and, for a rectangle, the loss of [A1, B0)
    to ``mids``, for :func:`_cut_bound`."""
    N = P[P.shape[0] - 1]
    A0, A1, B0, B1 = P[i0], P[i1], P[j0], P[j1]
    for u in range(out.shape[0]):
        out[u] = 0.0
    if i1 <= j0:
        ea = _extremes(P, cyT, tot, i0, i1, ida, emem, edone, tmpe)
        eb = _extremes(P, cyT, tot, j0, j1, idb, emem, edone, tmpf)
    else:  # diagonal: both ends in [P[i0], P[j1]]
        ea = _extremes(P, cyT, tot, i0, j1, ida, emem, edone, tmpe)
        eb = ea
    for s in range(tot.shape[0]):
        c1 = eb[1, s] >= ea[0, s] * (1.0 - FEAS_SLACK)
        c2 = ea[3, s] >= eb[2, s] * (1.0 - FEAS_SLACK)
        if not (c1 and c2):
            out[unit[s]] = -np.inf
            lbs[s] = np.nan
            continue
        if i1 <= j0:
            mid = seg_loss(B0 - A1, cyT[j0, s] - cyT[i1, s])
            mids[s] = mid
            lb = (seg_loss(A0, cyT[i0, s]) + csat[i1, s] - csat[i0, s] + mid
                  + csat[j1, s] - csat[j0, s] + seg_loss(N - B1, tot[s] - cyT[j1, s]))
        else:
            lb = (seg_loss(A0, cyT[i0, s]) + csat[j1, s] - csat[i0, s]
                  + seg_loss(N - B1, tot[s] - cyT[j1, s]))
        lbs[s] = lb
        d = flat[s] - lb
        out[unit[s]] += d if d > 0.0 else 0.0


@numba.njit(cache=True)
def _cut_bound(P, cyT, bidx, boff, tot, flat, unit, i0, i1, j0, j1, out, ida, idb, amemo,
               adone, bmemo, bdone, tmpa, tmpb, emem, edone, tmpe, tmpf, lbs, mids):
    """:func:`_upper_bound` of a rectangle block (``i1 <= j0``, called just after it: its
    ``lbs`` and ``mids``) tightened by the cut bound: with the inside cut at A1 and B0,
    the loss is at least [f[0, a) + f[a, A1)] + f[A1, B0) + [f[B0, b) + f[b, N)], each
    bracket at least its least over a (over b) in the block (:func:`_cut_loss`, at the
    sample's own count changes, ``bidx[boff[s]:boff[s + 1]]``; kept per range of the
    search tree, ids ``ida``, ``idb``, by :func:`_cuts`): two fixed cuts instead of four
    and no saturated zones, so its slack does not grow with the block. Each sample's
    bound is the larger of the two."""
    if not (i1 > i0 + 1 or j1 > j0 + 1):
        return
    al = _cuts(P, cyT, tot, bidx, boff, i0, i1, ida, True, amemo, adone, tmpa)
    be = _cuts(P, cyT, tot, bidx, boff, j0, j1, idb, False, bmemo, bdone, tmpb)
    for u in range(out.shape[0]):
        out[u] = 0.0
    for s in range(tot.shape[0]):
        if lbs[s] != lbs[s]:
            out[unit[s]] = -np.inf
            continue
        d = flat[s] - max(lbs[s], al[s] + mids[s] + be[s])
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


#: In the adaptive mode the cut bound is skipped for blocks of more than
#: :data:`TIGHT_MAX` peaks, and for blocks of a size (a power of two of peaks) where,
#: after :data:`TIGHT_TRIES` tries, it dropped fewer than :data:`TIGHT_RATE` of them;
#: still tried once every :data:`TIGHT_EVERY` such blocks, so that its rate stays
#: measured.
TIGHT_TRIES = 64
TIGHT_RATE = 0.05
TIGHT_EVERY = 16
TIGHT_MAX = 2.0**17


@numba.njit(cache=True)
def _tight(P, cyT, csat, bidx, boff, tot, flat, unit, i0, i1, j0, j1, ub, ida, idb, memos,
           best, tol, kmin, tries, cut, size):
    """The least improvable k of a rectangle block of ``size`` peaks after the cut bound
    (``kmin`` as the cheap bound left it when skipped). ``cut`` 0: skipped; 2: computed;
    1 (adaptive): skipped, but for one block in :data:`TIGHT_EVERY`, on blocks of more
    than :data:`TIGHT_MAX` peaks and where it seldom drops a block of this size
    (``tries``: tried, dropped, skipped): on real coverage a block the cheap bound keeps
    is seldom dropped by it below some size, on pure noise often (the bounds only prune:
    exactness does not depend on this choice)."""
    if cut == 0 or cut == 1 and (size > TIGHT_MAX or tries[0] >= TIGHT_TRIES
                                 and tries[1] < TIGHT_RATE * tries[0]):
        tries[2] += 1
        if cut == 0 or tries[2] % TIGHT_EVERY:
            return kmin
    _cut_bound(P, cyT, bidx, boff, tot, flat, unit, i0, i1, j0, j1, ub, ida, idb, *memos)
    kmin = _least_improvable(ub, best, tol)
    tries[0] += 1
    if kmin == 0:
        tries[1] += 1
    return kmin


@numba.njit(cache=True)
def _leaf(P, cyT, cnt, tot, flat, unit, i0, i1, j0, j1, kmin, dec, best, best_a, best_b):
    """Every peak of bases a ∈ [P[i0], P[i1]], b ∈ [P[j0], P[j1]], a < b, where at least
    ``kmin`` units are up-down (the block cannot improve fewer). Each sample's loss before
    a (after b) is computed once per a (per b); at a peak, only the inside segment's, and
    only for the samples up-down there. Returns the number of peaks evaluated."""
    N = P[P.shape[0] - 1]
    S = tot.shape[0]
    nb = int(P[j1] - P[j0]) + 1
    yb = np.empty((nb, S))
    fb = np.full((nb, S), np.nan)  # loss of [b, N), on first use
    for g in range(j0, j1 + 1):  # count sums before every b of the range
        last = P[g + 1] - 1.0 if g < j1 else P[g]
        x = P[g]
        while x <= last:
            _sums_at(P, cyT, cnt, x, g, yb[int(x - P[j0])])
            x += 1.0
    ya = np.empty(S)
    fa = np.empty(S)  # loss of [0, a), on first use
    ok = np.empty(S, dtype=np.bool_)
    down = np.zeros(dec.shape[0], dtype=np.int64)
    n = 0
    for g in range(i0, i1 + 1):
        last = P[g + 1] - 1.0 if g < i1 else P[g]
        a = P[g]
        while a <= last:
            _sums_at(P, cyT, cnt, a, g, ya)
            fa[:] = np.nan
            b = max(a + 1.0, P[j0])
            while b <= P[j1]:
                r = int(b - P[j0])
                y = yb[r]
                down[:] = 0
                for s in range(S):  # up-down at [a, b): products only (as up_loss)
                    y2 = y[s] - ya[s]
                    ok[s] = y2 * a > ya[s] * (b - a) and y2 * (N - b) > (tot[s] - y[s]) * (b - a)
                    if not ok[s]:
                        down[unit[s]] = 1
                if dec.shape[0] - down.sum() < kmin:
                    b += 1.0
                    continue
                dec[:] = 0.0
                for s in range(S):  # as pair_decreases: flat − (f[0, a) + f[a, b) + f[b, N))
                    if ok[s]:
                        if fa[s] != fa[s]:
                            fa[s] = seg_loss(a, ya[s])
                        if fb[r, s] != fb[r, s]:
                            fb[r, s] = seg_loss(N - b, tot[s] - y[s])
                        dec[unit[s]] += flat[s] - (fa[s] + seg_loss(b - a, y[s] - ya[s])
                                                   + fb[r, s])
                    else:
                        dec[unit[s]] = -np.inf
                record(dec, best, best_a, best_b, a, b)
                n += 1
                b += 1.0
            a += 1.0
    return n


@numba.njit(cache=True)
def _push(blocks, n, i0, i1, j0, j1, diag, ida, idb):
    if n == blocks.shape[0]:
        bigger = np.empty((2 * n, 7), dtype=np.int64)
        bigger[:n] = blocks
        blocks = bigger
    blocks[n, 0] = i0
    blocks[n, 1] = i1
    blocks[n, 2] = j0
    blocks[n, 3] = j1
    blocks[n, 4] = diag
    blocks[n, 5] = ida
    blocks[n, 6] = idb
    return blocks, n + 1


@numba.njit(cache=True)
def _unproven(blocks, lo, hi, P, cyT, csat, bidx, boff, tot, flat, unit, best, tol, ub,
              proven, memos):
    """Mark ``proven[k] = False`` for each k that some block ``lo .. hi − 1`` may improve."""
    for r in range(lo, hi):
        i0, i1, j0, j1 = blocks[r, 0], blocks[r, 1], blocks[r, 2], blocks[r, 3]
        if blocks[r, 4]:
            i1 = j1
            j0 = i0
        _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, ub, blocks[r, 5],
                     blocks[r, 6], *memos)
        if not blocks[r, 4]:
            _cut_bound(P, cyT, bidx, boff, tot, flat, unit, i0, i1, j0, j1, ub, blocks[r, 5],
                       blocks[r, 6], *memos)
        _sort_desc(ub)
        acc = 0.0
        for k in range(ub.shape[0]):
            acc += ub[k]
            if acc > best[k + 1] + tol:
                proven[k + 1] = False


@numba.njit(cache=True)
def branch_and_bound(P, cyT, cnt, csat, bidx, boff, tot, flat, unit, best, best_a, best_b,
                     leaf, max_work, tol, proven, cut, tries):
    """Every peak of bases ``1 <= a < b <= N − 1``, by branch and bound; ``best`` holds
    the incumbent top-k sums (from a heuristic) and is improved in place.

    A diagonal block ``[x0, x1]`` is split into the diagonal blocks ``[x0, m]``,
    ``[m, x1]`` and the rectangle ``[x0, m] × [m, x1]``; a rectangle into halves of each
    grid range with more than one cell (halves share their middle grid point, so every
    base stays covered). A block whose bounds cannot beat any ``best[k]`` by more than
    ``tol`` is dropped; one with at most ``leaf`` peaks, or one cell per range, is
    searched base by base. Stops after ``max_work`` block bounds: ``proven[k]`` (all True
    on entry) is then set False for each k that a block left may improve. ``cut``: the
    cut bound never (0), adaptive (1), always (2) (:func:`_tight`); ``tries`` (64, 3)
    int64 receives its tries, drops and skips per block size (log2 of its peaks).
    Returns (blocks bounded, peaks evaluated)."""
    G = P.shape[0] - 1
    n_units = best.shape[0] - 1
    ub = np.empty(n_units)
    dec = np.empty(n_units)
    S = tot.shape[0]
    M = 16  # memo of the ranges with tree ids below M (at most about 2**21 values)
    while M < 4 * G and 12 * M * S <= 2**21:
        M *= 2
    memos = (np.empty((M, S)), np.zeros(M, dtype=np.bool_), np.empty((M, S)),
             np.zeros(M, dtype=np.bool_), np.empty(S), np.empty(S), np.empty((M, 4, S)),
             np.zeros(M, dtype=np.bool_), np.empty((4, S)), np.empty((4, S)), np.empty(S),
             np.empty(S))
    cur = np.empty((1, 7), dtype=np.int64)
    cur, n_cur = _push(cur, 0, 1, 1, G - 1, G - 1, 1, 1, 1)
    bounded = 0
    evaluated = 0
    while n_cur > 0:
        nxt = np.empty((max(4 * n_cur, 16), 7), dtype=np.int64)
        n_nxt = 0
        for r in range(n_cur):
            if bounded >= max_work:
                _unproven(cur, r, n_cur, P, cyT, csat, bidx, boff, tot, flat, unit, best,
                          tol, ub, proven, memos)
                _unproven(nxt, 0, n_nxt, P, cyT, csat, bidx, boff, tot, flat, unit, best,
                          tol, ub, proven, memos)
                return bounded, evaluated
            i0, i1, j0, j1, diag = cur[r, 0], cur[r, 1], cur[r, 2], cur[r, 3], cur[r, 4]
            ida, idb = cur[r, 5], cur[r, 6]
            if diag:
                i1 = j1
                j0 = i0
            _upper_bound(P, cyT, csat, tot, flat, unit, i0, i1, j0, j1, ub, ida, idb, *memos)
            bounded += 1
            kmin = _least_improvable(ub, best, tol)
            if kmin and not diag:  # the cheap bound does not drop it: the cut bound
                size = (P[i1] - P[i0] + 1.0) * (P[j1] - P[j0] + 1.0)
                kmin = _tight(P, cyT, csat, bidx, boff, tot, flat, unit, i0, i1, j0, j1,
                              ub, ida, idb, memos, best, tol, kmin, tries[int(np.log2(size))],
                              cut, size)
            if kmin == 0:
                continue
            if diag:
                nx = P[j1] - P[i0] + 1.0
                if j1 - i0 <= 1 or nx * (nx - 1.0) <= 2.0 * leaf:
                    evaluated += _leaf(P, cyT, cnt, tot, flat, unit, i0, j1, i0, j1, kmin, dec,
                                       best, best_a, best_b)
                    continue
                m = (i0 + j1) // 2
                nxt, n_nxt = _push(nxt, n_nxt, i0, 0, 0, m, 1, 2 * ida, 0)
                nxt, n_nxt = _push(nxt, n_nxt, m, 0, 0, j1, 1, 2 * ida + 1, 0)
                nxt, n_nxt = _push(nxt, n_nxt, i0, m, m, j1, 0, 2 * ida, 2 * ida + 1)
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
                cida = 2 * ida + x if split_a else ida
                for z in range(2 if split_b else 1):
                    cj0 = j0 if z == 0 else jm
                    cj1 = (jm if z == 0 else j1) if split_b else j1
                    cidb = 2 * idb + z if split_b else idb
                    if P[cj1] > P[ci0]:  # at least one peak a < b
                        nxt, n_nxt = _push(nxt, n_nxt, ci0, ci1, cj0, cj1, 0, cida, cidb)
        cur = nxt
        n_cur = n_nxt
    return bounded, evaluated


# ---------------------------------------------------------------------------------------
