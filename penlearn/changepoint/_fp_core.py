"""Functional-pruning core of the peak model: piece lists as rows of a float array (numba).

A cost function of the mean ``m`` of the last segment is a list of pieces over
contiguous intervals ``[lo, hi]`` of ``m``. Each piece is a row of a piece table of
:mod:`penlearn.changepoint._fp_pieces` (columns ``LO, HI, Q, A, B, C``) with the three
columns below; its value is ``q·m² + a·m + b·log m + c``, and everything about one
piece (its value, minimiser, the roots of ``piece = level`` and of a difference of two
pieces, the per-datum loss coefficients) comes from the cost families of
:mod:`penlearn.changepoint._fp_pieces`, which the segmentation solvers
(:mod:`penlearn.changepoint._fp_segment`) share. Each piece also remembers how its model
was reached (for decoding the segmentation backwards):

* ``PREV_I``: the 0-based index of the last datum of the *previous* segment (−1 when
  the last segment started at the first datum);
* ``PREV_MEAN``: for a constant piece made by the min-less / min-more operators, the
  mean of the previous segment (where the running minimum was taken); NaN otherwise,
  which means that the previous segment has the same mean (an active equality
  constraint) or that there is no previous segment;
* ``LOG_HI``: ``log(HI)`` (0 where ``HI <= 0``: :func:`log_of`), kept with the row so
  that a right end's log is taken once, when the end is made, and not again by every
  operator that meets it (the same value: a quarter of the logs of a PeakSeg solve).

Operators on piece lists (Maidstone et al. 2017, "On optimal multiple changepoint
algorithms for large data", Statistics and Computing; Hocking et al. 2020, "Constrained
dynamic programming and supervised penalty learning algorithms for peak detection in
genomic data", JMLR): evaluation, argmin, adding a datum's loss or a constant, the
pointwise minimum of two functions (at the roots of the difference of two pieces), and
the min-less ``f≤(m) = min_{m' ≤ m} f(m')`` / min-more ``f≥(m) = min_{m' ≥ m} f(m')``
operators (a rising / falling part becomes a constant from the root of
``piece = running minimum`` on).

Pieces inside one function are convex in ``m`` (``q ≥ 0``, ``a ≥ 0``, ``b ≤ 0`` or a
constant), which the operators rely on. Everything here is compiled with
``numba.njit(cache=True)``; import this module lazily. The operators called for every
datum take arrays and allocate none: they are compiled without numba's reference
counting (``_nrt=False``), whose atomic increments and decrements on every array
argument of every call were about a fifth of a PeakSeg solve's time (issue 55; the same
arithmetic, bitwise the same models). A cached caller (``_kernel.forward_chunk``) holds
its callees' compiled code: after editing this module, touch the caller's module too.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from penlearn.changepoint._fp_pieces import (
    HI,
    LO,
    A,
    B,
    C,
    Q,
    _log_of,
    _value_log,
    add_to_row,
    diff_roots_logs,
    level_roots,
    piece_value,
    row_argmin,
    row_value,
    value_at,
)

PREV_I, PREV_MEAN, LOG_HI = 6, 7, 8  # the columns after the shared ones (see below)
N_COLS = 9
__all__ = [  # piece_value is re-exported: callers evaluate rows through this module
    "A", "B", "C", "HI", "LO", "LOG_HI", "N_COLS", "PREV_I", "PREV_MEAN", "Q", "find_piece",
    "fn_add", "fn_argmin", "fn_min", "log_of", "min_less", "min_more", "piece_value",
]
log_of = _log_of  # ``LOG_HI`` of a row is ``log_of(HI)``


@numba.njit(cache=True, _nrt=False, inline="always")
def _row_value_log(F, i, m, log_m):
    """:func:`row_value` with ``log_m = log_of(m)`` given: the same value."""
    return _value_log(F[i, Q], F[i, A], F[i, B], F[i, C], m, log_m)


@numba.njit(cache=True, _nrt=False)
def fn_argmin(F, n):
    """Index, minimiser and minimum of a piece list (the first piece on exact ties)."""
    best_i = -1
    best_m = np.nan
    best_v = np.inf
    for i in range(n):
        m = row_argmin(F, i)
        v = row_value(F, i, m)
        if v < best_v:
            best_i, best_m, best_v = i, m, v
    return best_i, best_m, best_v


@numba.njit(cache=True, _nrt=False)
def fn_add(F, n, q, a, b, c):
    """Add ``q·m² + a·m + b·log m + c`` to every piece (e.g. one datum's loss)."""
    for i in range(n):
        add_to_row(F, i, q, a, b, c)


@numba.njit(cache=True, _nrt=False, inline="always")
def _log_lo(F, i):
    """``log_of(F[i, LO])``: the previous row's ``LOG_HI`` where that row ends there."""
    lo = F[i, LO]
    if i > 0 and F[i - 1, HI] == lo:
        return F[i - 1, LOG_HI]
    return _log_of(lo)


@numba.njit(cache=True, _nrt=False, inline="always")
def _log_at(F, i, m, log_lo):
    """``log_of(m)`` for ``m`` in row ``i`` of ``F`` (``log_lo`` that of its ``LO``)."""
    if m == F[i, HI]:
        return F[i, LOG_HI]
    if m == F[i, LO]:
        return log_lo
    return _log_of(m)


@numba.njit(cache=True, _nrt=False)
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


@numba.njit(cache=True, _nrt=False)
def push_piece(out, k, F, i, lo, hi, log_hi):
    """Append row ``i`` of ``F`` restricted to ``[lo, hi]`` to ``out`` (``k`` rows so far;
    ``log_hi = log_of(hi)``).

    Merges it with the last row when that row is the same function and ends at ``lo``.
    Returns the new row count.
    """
    if hi <= lo:
        return k
    if k > 0 and out[k - 1, HI] == lo and _same(out, k - 1, F, i):
        out[k - 1, HI] = hi
        out[k - 1, LOG_HI] = log_hi
        return k
    for col in range(N_COLS):
        out[k, col] = F[i, col]
    out[k, LO] = lo
    out[k, HI] = hi
    out[k, LOG_HI] = log_hi
    return k + 1


@numba.njit(cache=True, _nrt=False)
def push_const(out, k, value, lo, hi, prev_i, prev_mean, log_hi):
    """Append a constant piece ``value`` on ``[lo, hi]``; returns the new row count."""
    if hi <= lo:
        return k
    out[k, LO] = lo
    out[k, HI] = hi
    out[k, LOG_HI] = log_hi
    out[k, Q] = 0.0
    out[k, A] = 0.0
    out[k, B] = 0.0
    out[k, C] = value
    out[k, PREV_I] = prev_i
    out[k, PREV_MEAN] = prev_mean
    return k + 1


@numba.njit(cache=True, _nrt=False)
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
    log_lo = _log_lo(F, 0)  # (the logs of the intervals' ends: the rows' LOG_HI)
    while i < nf and j < ng:
        if F[i, HI] <= G[j, HI]:
            hi = F[i, HI]
            log_hi = F[i, LOG_HI]
        else:
            hi = G[j, HI]
            log_hi = G[j, LOG_HI]
        if hi > lo:
            dq = F[i, Q] - G[j, Q]
            da = F[i, A] - G[j, A]
            db = F[i, B] - G[j, B]
            dc = F[i, C] - G[j, C]
            if dq == 0.0 and da == 0.0 and db == 0.0:
                nr = 0
            else:
                nr = diff_roots_logs(dq, da, db, dc, lo, hi, roots, log_lo, log_hi)
            left = lo
            for r in range(nr + 1):
                right = roots[r] if r < nr else hi
                if right > left:
                    log_right = _log_of(right) if r < nr else log_hi
                    if left == 0.0:
                        mid = 0.5 * right if right > 0.0 else 0.0
                    else:
                        mid = 0.5 * (left + right)
                    if mid == 0.0:
                        fv = row_value(F, i, mid)
                        gv = row_value(G, j, mid)
                    else:  # one log for both pieces
                        lm = math.log(mid)
                        fv = value_at(F[i, Q], F[i, A], F[i, B], F[i, C], mid, lm)
                        gv = value_at(G[j, Q], G[j, A], G[j, B], G[j, C], mid, lm)
                    tol = tie_tol * max(1.0, abs(fv)) if prefer_g else 0.0
                    if gv < fv or (prefer_g and gv <= fv + tol):
                        k = push_piece(out, k, G, j, left, right, log_right)
                    else:
                        k = push_piece(out, k, F, i, left, right, log_right)
                left = right
        lo = hi
        log_lo = log_hi
        if F[i, HI] <= hi:
            i += 1
        if G[j, HI] <= hi:
            j += 1
    return k


@numba.njit(cache=True, _nrt=False)
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
        log_lo = _log_lo(F, i)
        ms = row_argmin(F, i)
        if not const_mode:
            if ms >= hi:
                k = push_piece_rev(out, k, F, i, lo, hi, prev_i, F[i, LOG_HI])
            else:
                log_ms = _log_at(F, i, ms, log_lo)
                if ms > lo:
                    k = push_piece_rev(out, k, F, i, lo, ms, prev_i, log_ms)
                const_mode = True
                v = _row_value_log(F, i, ms, log_ms)
                cm = ms
                cstart = ms
        else:
            log_ms = _log_at(F, i, ms, log_lo)
            pmin = _row_value_log(F, i, ms, log_ms)
            if pmin < v:
                if _row_value_log(F, i, lo, log_lo) <= v:
                    r = lo
                    log_r = log_lo
                else:
                    r = level_roots(F[i, Q], F[i, A], F[i, B], F[i, C], v, lo, ms, hi,
                                    True, False)[0]
                    log_r = _log_at(F, i, r, log_lo)
                k = push_const(out, k, v, cstart, r, prev_i, cm, log_r)
                if ms >= hi:
                    k = push_piece_rev(out, k, F, i, r, hi, prev_i, F[i, LOG_HI])
                    const_mode = False
                else:
                    if ms > r:
                        k = push_piece_rev(out, k, F, i, r, ms, prev_i, log_ms)
                    v = pmin
                    cm = ms
                    cstart = ms
    if const_mode:
        k = push_const(out, k, v, cstart, F[n - 1, HI], prev_i, cm, F[n - 1, LOG_HI])
    return k


@numba.njit(cache=True, _nrt=False)
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
    log_cend = F[n - 1, LOG_HI]
    for i in range(n - 1, -1, -1):
        lo = F[i, LO]
        hi = F[i, HI]
        log_hi = F[i, LOG_HI]
        ms = row_argmin(F, i)
        if not const_mode:
            if ms <= lo:
                k = push_piece_rev(out, k, F, i, lo, hi, prev_i, log_hi)
            else:
                log_ms = _log_at(F, i, ms, _log_lo(F, i))
                if ms < hi:
                    k = push_piece_rev(out, k, F, i, ms, hi, prev_i, log_hi)
                const_mode = True
                v = _row_value_log(F, i, ms, log_ms)
                cm = ms
                cend = ms
                log_cend = log_ms
        else:
            log_ms = _log_at(F, i, ms, _log_lo(F, i))
            pmin = _row_value_log(F, i, ms, log_ms)
            if pmin < v:
                if _row_value_log(F, i, hi, log_hi) <= v:
                    r = hi
                    log_r = log_hi
                else:
                    r = level_roots(F[i, Q], F[i, A], F[i, B], F[i, C], v, lo, ms, hi,
                                    False, True)[1]
                    log_r = _log_at(F, i, r, _log_lo(F, i))
                k = push_const(out, k, v, r, cend, prev_i, cm, log_cend)
                if ms <= lo:
                    k = push_piece_rev(out, k, F, i, lo, r, prev_i, log_r)
                    const_mode = False
                else:
                    if ms < r:
                        k = push_piece_rev(out, k, F, i, ms, r, prev_i, log_r)
                    v = pmin
                    cm = ms
                    cend = ms
                    log_cend = log_ms
    if const_mode:
        k = push_const(out, k, v, F[0, LO], cend, prev_i, cm, log_cend)
    # rows were produced right to left
    for r in range(k // 2):
        for col in range(N_COLS):
            tmp = out[r, col]
            out[r, col] = out[k - 1 - r, col]
            out[k - 1 - r, col] = tmp
    return k


@numba.njit(cache=True, _nrt=False)
def push_piece_rev(out, k, F, i, lo, hi, prev_i, log_hi):
    """Append row ``i`` of ``F`` on ``[lo, hi]`` as a new model's piece (no merging)."""
    if hi <= lo:
        return k
    for col in range(N_COLS):
        out[k, col] = F[i, col]
    out[k, LO] = lo
    out[k, HI] = hi
    out[k, LOG_HI] = log_hi
    out[k, PREV_I] = prev_i
    out[k, PREV_MEAN] = np.nan
    return k + 1


@numba.njit(cache=True, _nrt=False)
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
