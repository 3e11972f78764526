"""Functional-pruning core: piecewise cost functions of a segment mean (numba kernels).

A cost function of the mean ``m`` of the last segment is a list of pieces over
contiguous intervals ``[lo, hi]`` of ``m``. Each piece is a row of a float64 array with
the columns below; its value is ``q·m² + a·m + b·log m + c``. The Poisson loss of one
datum ``y`` with weight ``w`` is ``w·m − w·y·log m`` (``a = w``, ``b = −w·y``); the square
loss ``w·(m − y)²`` would use ``q``, which is kept in every operation so that the same
core serves a Gaussian family later. Each piece also remembers how its model was reached
(for decoding the segmentation backwards):

* ``PREV_I``: the 0-based index of the last datum of the *previous* segment (−1 when
  the last segment started at the first datum);
* ``PREV_MEAN``: for a constant piece made by the min-less / min-more operators, the
  mean of the previous segment (where the running minimum was taken); NaN otherwise,
  which means that the previous segment has the same mean (an active equality
  constraint) or that there is no previous segment.

Operators (Maidstone et al. 2017, "On optimal multiple changepoint algorithms for large
data", Statistics and Computing; Hocking et al. 2020, "Constrained dynamic programming
and supervised penalty learning algorithms for peak detection in genomic data", JMLR):
evaluation, argmin, adding a datum's loss or a constant, the pointwise minimum of two
functions (roots of the difference of two pieces by a safeguarded Newton iteration on
``log m``), and the min-less ``f≤(m) = min_{m' ≤ m} f(m')`` / min-more
``f≥(m) = min_{m' ≥ m} f(m')`` operators.

Pieces inside one function are convex in ``m`` (``q ≥ 0``, ``a ≥ 0``, ``b ≤ 0`` or a
constant), which the operators rely on. Everything here is compiled with
``numba.njit(cache=True)``; import this module lazily.
"""

from __future__ import annotations

import math

import numba
import numpy as np

LO, HI, Q, A, B, C, PREV_I, PREV_MEAN = range(8)
N_COLS = 8
_MAX_ITER = 200


@numba.njit(cache=True)
def piece_value(q, a, b, c, m):
    """Value of ``q·m² + a·m + b·log m + c`` with ``0·log 0 = 0`` and ``b·log 0 = −b·∞``."""
    if m == 0.0:
        if b == 0.0:
            return c
        return -b * np.inf
    return (q * m + a) * m + b * math.log(m) + c


@numba.njit(cache=True)
def eval_piece(F, i, m):
    """Value of piece ``i`` of ``F`` at ``m``."""
    return piece_value(F[i, Q], F[i, A], F[i, B], F[i, C], m)


@numba.njit(cache=True)
def piece_argmin(q, a, b, lo, hi):
    """Minimiser over ``[lo, hi]`` of the convex ``q·m² + a·m + b·log m`` (+ constant).

    The stationary point solves ``2q·m² + a·m + b = 0``; constant pieces return ``lo``.
    """
    if q == 0.0:
        if a == 0.0:
            if b == 0.0:
                return lo
            return hi if b < 0.0 else lo
        m = -b / a
    else:
        disc = a * a - 8.0 * q * b
        if disc < 0.0:
            disc = 0.0
        m = (-a + math.sqrt(disc)) / (4.0 * q)
    if m < lo:
        return lo
    if m > hi:
        return hi
    return m


@numba.njit(cache=True)
def fn_argmin(F, n):
    """Index, minimiser and minimum of a piece list (the first piece on exact ties)."""
    best_i = -1
    best_m = np.nan
    best_v = np.inf
    for i in range(n):
        m = piece_argmin(F[i, Q], F[i, A], F[i, B], F[i, LO], F[i, HI])
        v = eval_piece(F, i, m)
        if v < best_v:
            best_i, best_m, best_v = i, m, v
    return best_i, best_m, best_v


@numba.njit(cache=True)
def fn_add(F, n, q, a, b, c):
    """Add ``q·m² + a·m + b·log m + c`` to every piece (e.g. one datum's loss)."""
    for i in range(n):
        F[i, Q] += q
        F[i, A] += a
        F[i, B] += b
        F[i, C] += c


@numba.njit(cache=True)
def _g(q, a, b, c, x):
    """The piece difference in log space: ``q·e^{2x} + a·e^x + b·x + c``."""
    e = math.exp(x)
    return (q * e + a) * e + b * x + c


@numba.njit(cache=True)
def root_monotone(q, a, b, c, lo, hi, s_lo):
    """Root in ``(lo, hi)`` of ``d(m) = q·m² + a·m + b·log m + c``, monotone there.

    ``s_lo`` is the sign (±1) of ``d`` at ``lo``; ``d(hi)`` has the other sign. Safeguarded
    Newton iteration on ``x = log m`` inside a shrinking bracket (bisection whenever the
    Newton step leaves it); ``lo = 0`` is bracketed by stepping ``x`` down.
    """
    xh = math.log(hi)
    if lo > 0.0:
        xl = math.log(lo)
    else:
        step = 1.0
        xl = xh - step
        while True:
            g = _g(q, a, b, c, xl)
            if (g > 0.0 and s_lo > 0.0) or (g < 0.0 and s_lo < 0.0):
                break
            if g == 0.0:
                return math.exp(xl)
            xh = xl
            step *= 2.0
            xl = xh - step
            if xl < -745.0:
                return 0.0
    x = 0.5 * (xl + xh)
    for _ in range(_MAX_ITER):
        g = _g(q, a, b, c, x)
        if g == 0.0:
            break
        if (g > 0.0) == (s_lo > 0.0):
            xl = x
        else:
            xh = x
        e = math.exp(x)
        dg = (2.0 * q * e + a) * e + b
        xn = x - g / dg if dg != 0.0 else 0.5 * (xl + xh)
        if not (xl < xn < xh):
            xn = 0.5 * (xl + xh)
        if xn == x or xh - xl <= 4e-16 * max(1.0, abs(x)):
            x = xn
            break
        x = xn
    m = math.exp(x)
    if m <= lo:
        m = lo
    if m >= hi:
        m = hi
    return m


@numba.njit(cache=True)
def _sign(v):
    if v > 0.0:
        return 1.0
    if v < 0.0:
        return -1.0
    return 0.0


@numba.njit(cache=True)
def _root_between(q, a, b, c, left, right, v0, out, nr, last):
    """Root of a monotone part ``[left, right]`` (``v0 = d(left)``); returns (d(right), nr)."""
    v1 = piece_value(q, a, b, c, right)
    s0 = _sign(v0)
    s1 = _sign(v1)
    if s0 != 0.0 and s1 != 0.0 and s0 != s1:
        out[nr] = root_monotone(q, a, b, c, left, right, s0)
        nr += 1
    elif s1 == 0.0 and not last:
        out[nr] = right
        nr += 1
    return v1, nr


@numba.njit(cache=True)
def diff_roots(q, a, b, c, lo, hi, out):
    """Roots of ``d(m) = q·m² + a·m + b·log m + c`` strictly inside ``(lo, hi)``.

    ``d`` has at most two stationary points (``2q·m² + a·m + b = 0``), so ``(lo, hi)``
    splits into at most three monotone parts, each holding at most one root. Writes the
    roots, increasing, to ``out`` and returns how many.
    """
    s1 = np.nan
    s2 = np.nan
    if q == 0.0:
        if a != 0.0 and b != 0.0:
            s1 = -b / a
    elif b == 0.0:
        s1 = -a / (2.0 * q)
    else:
        disc = a * a - 8.0 * q * b
        if disc > 0.0:
            r = math.sqrt(disc)
            s1 = (-a - r) / (4.0 * q)
            s2 = (-a + r) / (4.0 * q)
            if s1 > s2:
                s1, s2 = s2, s1
    if not (lo < s1 < hi):
        s1, s2 = s2, np.nan
    if not (lo < s1 < hi):
        s1 = np.nan
    if not (lo < s2 < hi) or s2 == s1:
        s2 = np.nan
    nr = 0
    v0 = piece_value(q, a, b, c, lo)
    left = lo
    if not np.isnan(s1):
        v0, nr = _root_between(q, a, b, c, left, s1, v0, out, nr, False)
        left = s1
        if not np.isnan(s2):
            v0, nr = _root_between(q, a, b, c, left, s2, v0, out, nr, False)
            left = s2
    v0, nr = _root_between(q, a, b, c, left, hi, v0, out, nr, True)
    return nr


@numba.njit(cache=True)
def _same(F, i, G, j):
    """Two rows describe the same function and the same decoding information."""
    if F[i, Q] != G[j, Q] or F[i, A] != G[j, A] or F[i, B] != G[j, B] or F[i, C] != G[j, C]:
        return False
    if F[i, PREV_I] != G[j, PREV_I]:
        return False
    pm1 = F[i, PREV_MEAN]
    pm2 = G[j, PREV_MEAN]
    if np.isnan(pm1) or np.isnan(pm2):
        return np.isnan(pm1) and np.isnan(pm2)
    return pm1 == pm2


@numba.njit(cache=True)
def push_piece(out, k, F, i, lo, hi):
    """Append row ``i`` of ``F`` restricted to ``[lo, hi]`` to ``out`` (``k`` rows so far).

    Merges it with the last row when that row is the same function and ends at ``lo``.
    Returns the new row count.
    """
    if hi <= lo:
        return k
    if k > 0 and out[k - 1, HI] == lo and _same(out, k - 1, F, i):
        out[k - 1, HI] = hi
        return k
    for col in range(N_COLS):
        out[k, col] = F[i, col]
    out[k, LO] = lo
    out[k, HI] = hi
    return k + 1


@numba.njit(cache=True)
def push_const(out, k, value, lo, hi, prev_i, prev_mean):
    """Append a constant piece ``value`` on ``[lo, hi]``; returns the new row count."""
    if hi <= lo:
        return k
    out[k, LO] = lo
    out[k, HI] = hi
    out[k, Q] = 0.0
    out[k, A] = 0.0
    out[k, B] = 0.0
    out[k, C] = value
    out[k, PREV_I] = prev_i
    out[k, PREV_MEAN] = prev_mean
    return k + 1


@numba.njit(cache=True)
def fn_min(F, nf, G, ng, out, prefer_g, tie_tol, roots):
    """Pointwise minimum of two piece lists on the same domain; returns the row count.

    On an exact tie the piece of ``G`` is kept if ``prefer_g``, else that of ``F``.
    Costs within ``tie_tol`` (relative) count as ties. ``out`` needs ``3·(nf + ng)``
    rows; ``roots`` is a work array of length 3.
    """
    i = 0
    j = 0
    k = 0
    lo = F[0, LO]
    while i < nf and j < ng:
        hi = min(F[i, HI], G[j, HI])
        if hi > lo:
            dq = F[i, Q] - G[j, Q]
            da = F[i, A] - G[j, A]
            db = F[i, B] - G[j, B]
            dc = F[i, C] - G[j, C]
            if dq == 0.0 and da == 0.0 and db == 0.0:
                nr = 0
            else:
                nr = diff_roots(dq, da, db, dc, lo, hi, roots)
            left = lo
            for r in range(nr + 1):
                right = roots[r] if r < nr else hi
                if right > left:
                    if left == 0.0:
                        mid = 0.5 * right if right > 0.0 else 0.0
                    else:
                        mid = 0.5 * (left + right)
                    if mid == 0.0:
                        fv = eval_piece(F, i, mid)
                        gv = eval_piece(G, j, mid)
                    else:
                        lm = math.log(mid)
                        fv = (F[i, Q] * mid + F[i, A]) * mid + F[i, B] * lm + F[i, C]
                        gv = (G[j, Q] * mid + G[j, A]) * mid + G[j, B] * lm + G[j, C]
                    tol = tie_tol * max(1.0, abs(fv)) if prefer_g else 0.0
                    if gv < fv or (prefer_g and gv <= fv + tol):
                        k = push_piece(out, k, G, j, left, right)
                    else:
                        k = push_piece(out, k, F, i, left, right)
                left = right
        lo = hi
        if F[i, HI] <= hi:
            i += 1
        if G[j, HI] <= hi:
            j += 1
    return k


@numba.njit(cache=True)
def min_less(F, n, out, prev_i):
    """``f≤(m) = min_{m' ≤ m} f(m')`` of a piece list; returns the row count.

    Rising parts become constant pieces at the running minimum, remembering the mean
    where it was taken (``PREV_MEAN``); every output row gets ``PREV_I = prev_i``.
    ``out`` needs ``2·n + 1`` rows.
    """
    k = 0
    const_mode = False
    v = np.inf
    cm = np.nan
    cstart = F[0, LO]
    for i in range(n):
        lo = F[i, LO]
        hi = F[i, HI]
        ms = piece_argmin(F[i, Q], F[i, A], F[i, B], lo, hi)
        if not const_mode:
            if ms >= hi:
                k = push_piece_rev(out, k, F, i, lo, hi, prev_i)
            else:
                if ms > lo:
                    k = push_piece_rev(out, k, F, i, lo, ms, prev_i)
                const_mode = True
                v = eval_piece(F, i, ms)
                cm = ms
                cstart = ms
        else:
            pmin = eval_piece(F, i, ms)
            if pmin < v:
                if eval_piece(F, i, lo) <= v:
                    r = lo
                else:
                    r = root_monotone(F[i, Q], F[i, A], F[i, B], F[i, C] - v, lo, ms, 1.0)
                k = push_const(out, k, v, cstart, r, prev_i, cm)
                if ms >= hi:
                    k = push_piece_rev(out, k, F, i, r, hi, prev_i)
                    const_mode = False
                else:
                    if ms > r:
                        k = push_piece_rev(out, k, F, i, r, ms, prev_i)
                    v = pmin
                    cm = ms
                    cstart = ms
    if const_mode:
        k = push_const(out, k, v, cstart, F[n - 1, HI], prev_i, cm)
    return k


@numba.njit(cache=True)
def min_more(F, n, out, prev_i):
    """``f≥(m) = min_{m' ≥ m} f(m')`` of a piece list; returns the row count.

    The mirror image of :func:`min_less` (pieces scanned from the right). ``out`` needs
    ``2·n + 1`` rows.
    """
    k = 0
    const_mode = False
    v = np.inf
    cm = np.nan
    cend = F[n - 1, HI]
    for i in range(n - 1, -1, -1):
        lo = F[i, LO]
        hi = F[i, HI]
        ms = piece_argmin(F[i, Q], F[i, A], F[i, B], lo, hi)
        if not const_mode:
            if ms <= lo:
                k = push_piece_rev(out, k, F, i, lo, hi, prev_i)
            else:
                if ms < hi:
                    k = push_piece_rev(out, k, F, i, ms, hi, prev_i)
                const_mode = True
                v = eval_piece(F, i, ms)
                cm = ms
                cend = ms
        else:
            pmin = eval_piece(F, i, ms)
            if pmin < v:
                if eval_piece(F, i, hi) <= v:
                    r = hi
                else:
                    r = root_monotone(F[i, Q], F[i, A], F[i, B], F[i, C] - v, ms, hi, -1.0)
                k = push_const(out, k, v, r, cend, prev_i, cm)
                if ms <= lo:
                    k = push_piece_rev(out, k, F, i, lo, r, prev_i)
                    const_mode = False
                else:
                    if ms < r:
                        k = push_piece_rev(out, k, F, i, ms, r, prev_i)
                    v = pmin
                    cm = ms
                    cend = ms
    if const_mode:
        k = push_const(out, k, v, F[0, LO], cend, prev_i, cm)
    # rows were produced right to left
    for r in range(k // 2):
        for col in range(N_COLS):
            tmp = out[r, col]
            out[r, col] = out[k - 1 - r, col]
            out[k - 1 - r, col] = tmp
    return k


@numba.njit(cache=True)
def push_piece_rev(out, k, F, i, lo, hi, prev_i):
    """Append row ``i`` of ``F`` on ``[lo, hi]`` as a new model's piece (no merging)."""
    if hi <= lo:
        return k
    for col in range(N_COLS):
        out[k, col] = F[i, col]
    out[k, LO] = lo
    out[k, HI] = hi
    out[k, PREV_I] = prev_i
    out[k, PREV_MEAN] = np.nan
    return k + 1


@numba.njit(cache=True)
def find_piece(his, start, stop, m):
    """First row in ``[start, stop)`` whose right end ``his[row] >= m`` (binary search)."""
    lo = start
    hi = stop - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if his[mid] >= m:
            hi = mid
        else:
            lo = mid + 1
    return lo
