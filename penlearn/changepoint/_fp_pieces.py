"""The cost families of functional pruning: scalar primitives on one piece (numba).

Both functional-pruning solvers store a cost function of the last segment's mean ``m``
as pieces over intervals of ``m`` (the peak model's up-down recursion in
:mod:`penlearn.changepoint._fp_core` / ``_peakseg_kernel``, Hocking et al. 2020 JMLR and
Hocking et al. 2022 JSS; the pruned DP and FPOP of :mod:`penlearn.changepoint._fp_segment`,
Rigaill 2015 and Maidstone et al. 2017). In both, a piece is

    f(m) = q·m² + a·m + b·log m + c,

and everything they compute about one piece is here, on the coefficients ``(q, a, b, c)``:
its value, its minimiser, the roots of ``f(m) = level`` on either side of the minimum
(:func:`level_roots`), the roots of a difference of two pieces (:func:`diff_roots`), and
the one Newton iteration on ``log m`` (:func:`newton_log`) that those roots use where a
log term rules out a closed form (right of a convex piece's minimum, plain Newton on
``m`` converges monotonically and needs no ``exp``). Two families of per-datum losses
(weight ``w``, datum ``y``), whose sums give the pieces:

* ``L2`` (square loss ``w·(m − y)²``): ``(q, a, b, c) = (w, −2wy, 0, wy²)``; ``b = 0``, so
  ``log`` is never evaluated and ``m`` may be any real number;
* ``POISSON`` (``w·(m − y·log m)``, no ``log y!`` term): ``(0, w, −wy, 0)``; ``m ≥ 0``.

Both solvers keep a cost function as a piece table: a float64 array with one piece a row
and the columns ``LO, HI, Q, A, B, C`` (the interval ``[lo, hi]`` of ``m`` and the
coefficients), followed by each solver's own columns; :func:`row_value`,
:func:`row_argmin` and :func:`add_to_row` work on such a row.

The pieces of a cost function are convex (``q ≥ 0``, and ``a ≥ 0 ≥ b`` where ``b ≠ 0``),
which the minimiser and the one-sided roots rely on; a difference of two pieces need
not be convex (:func:`diff_roots` splits it into monotone parts). Compiled with
``numba.njit(cache=True)``; import this module lazily (:func:`diff_roots` and its
helper without reference counting, as :mod:`penlearn.changepoint._fp_core` says).
"""

from __future__ import annotations

import math

import numba
import numpy as np

L2 = 0
POISSON = 1
LO, HI, Q, A, B, C = range(6)  # the shared columns of a piece table
_MAX_ITER = 200
_STEP_TOL = 4.0 * np.finfo(float).eps  # Newton stops once a step is this small (relative)


@numba.njit(cache=True, inline="always")
def loss_coefficients(family, y, w):
    """Coefficients ``(q, a, b, c)`` of one datum's loss ``w·ℓ(y, m)`` in ``family``."""
    if family == L2:
        return w, -(2.0 * w * y), 0.0, w * y * y
    return 0.0, w, -(w * y), 0.0


@numba.njit(cache=True, inline="always")
def value_at(q, a, b, c, m, log_m):
    """``q·m² + a·m + b·log_m + c``, with ``log m`` given (branch-free: ``b·log_m`` must be
    finite, so pass ``log_m = 0`` where ``b = 0`` and ``m ≤ 0``)."""
    return (q * m + a) * m + b * log_m + c


@numba.njit(cache=True, inline="always")
def piece_value(q, a, b, c, m):
    """Value of the piece ``(q, a, b, c)`` at ``m``.

    With ``b = 0`` (the square loss, a line, a constant) ``log`` is not evaluated and any
    real ``m`` is valid. With ``b ≠ 0`` the piece is defined for ``m ≥ 0``: at ``m = 0``
    it is the limit ``−b·∞`` (``+∞`` for the Poisson family), and ``m < 0`` gives NaN.
    """
    if b == 0.0:
        return value_at(q, a, 0.0, c, m, 0.0)
    if m > 0.0:
        return value_at(q, a, b, c, m, math.log(m))
    if m == 0.0:
        return -b * np.inf
    return np.nan


@numba.njit(cache=True, inline="always")
def piece_vertex(q, a, b):
    """Unconstrained minimiser of a convex piece with a stationary point.

    ``2q·m² + a·m + b = 0``: ``−a / 2q`` (``b = 0``), ``−b / a`` (``q = 0``), else the
    positive root. A line or a constant has none (NaN; see :func:`piece_argmin`).
    """
    if b == 0.0:
        if q == 0.0:
            return np.nan
        return -a / (2.0 * q)
    if q == 0.0:
        if a == 0.0:
            return np.nan
        return -b / a
    disc = a * a - 8.0 * q * b
    if disc < 0.0:
        disc = 0.0
    return (-a + math.sqrt(disc)) / (4.0 * q)


@numba.njit(cache=True, inline="always")
def piece_argmin(q, a, b, lo, hi):
    """Minimiser over ``[lo, hi]`` of a convex piece (a constant piece returns ``lo``)."""
    if q == 0.0 and (a == 0.0 or b == 0.0):
        # a line, a constant or ``b·log m`` alone: the minimum is at an end
        return hi if (a if a != 0.0 else b) < 0.0 else lo
    return min(max(piece_vertex(q, a, b), lo), hi)


@numba.njit(cache=True, inline="always")
def row_value(P, i, m):
    """Value at ``m`` of the piece in row ``i`` of the piece table ``P``."""
    return piece_value(P[i, Q], P[i, A], P[i, B], P[i, C], m)


@numba.njit(cache=True, inline="always")
def row_argmin(P, i):
    """Minimiser of the piece in row ``i`` of ``P`` over its interval ``[LO, HI]``."""
    return piece_argmin(P[i, Q], P[i, A], P[i, B], P[i, LO], P[i, HI])


@numba.njit(cache=True, inline="always")
def add_to_row(P, i, q, a, b, c):
    """Add ``q·m² + a·m + b·log m + c`` (e.g. one datum's loss) to row ``i`` of ``P``."""
    P[i, Q] += q
    P[i, A] += a
    P[i, B] += b
    P[i, C] += c


@numba.njit(cache=True)
def newton_log(q, a, b, c, xl, xh, x, s_lo):
    """Root in ``[xl, xh]`` of ``g(x) = f(eˣ)``, monotone there, by Newton on ``x = log m``.

    ``f`` is the piece ``(q, a, b, c)``; ``s_lo`` is the sign (±1) of ``g`` at ``xl`` and
    ``g(xh)`` has the other sign; ``x`` is the starting point. The bracket shrinks with
    each iterate and a Newton step that leaves it is replaced by bisection, so the
    iteration cannot diverge; started at the end where ``g`` is convex and away from the
    root, Newton steps never leave the bracket and converge monotonically. Returns ``x``.
    """
    for _ in range(_MAX_ITER):
        e = math.exp(x)
        g = value_at(q, a, b, c, e, x)
        if g == 0.0:
            break
        if (g > 0.0) == (s_lo > 0.0):
            xl = x
        else:
            xh = x
        dg = (2.0 * q * e + a) * e + b
        xn = x - g / dg if dg != 0.0 else 0.5 * (xl + xh)
        if not (xl < xn < xh):
            xn = 0.5 * (xl + xh)
        step = abs(xn - x)
        if step == 0.0 or step <= _STEP_TOL * (1.0 + abs(x)) or xh - xl <= 4e-16 * max(1.0, abs(x)):
            x = xn
            break
        x = xn
    return x


@numba.njit(cache=True)
def _newton_right(q, a, b, c, m):
    """Root of a convex piece ``f`` right of its minimum, by Newton on ``m`` from ``m``.

    ``f(m) > 0`` and ``f`` rises there: the iterates decrease monotonically to the root.
    """
    for _ in range(_MAX_ITER):
        h = value_at(q, a, b, c, m, math.log(m))
        if h <= 0.0:
            break
        step = h / ((2.0 * q * m + a) + b / m)
        nxt = m - step
        if not nxt < m:
            break
        m = nxt
        if step <= _STEP_TOL * m:
            break
    return m


@numba.njit(cache=True, inline="always")
def level_roots(q, a, b, c, level, lo, m, hi, left, right):
    """Where a convex piece crosses ``level`` on either side of its minimiser ``m``.

    Returns ``(r1, r2)``: with ``left``, the root of ``f = level`` in ``[lo, m]`` (which
    requires ``f(lo) > level ≥ f(m)``), else ``lo``; with ``right``, the root in
    ``[m, hi]`` (``f(m) ≤ level < f(hi)``), else ``hi``. So ``[r1, r2]`` is where the piece
    is at most ``level``. Without a log term: closed forms (a line; the square loss around
    its vertex). A log piece, on the left: :func:`newton_log` started at
    ``max(log lo, −k/b)`` (``k = c − level``; below that point ``a·m + b·log m + k > 0``
    whenever ``q, a ≥ 0 > b``), where it converges monotonically; on the right: Newton on
    ``m`` from ``hi`` (:func:`_newton_right`), monotone too.
    """
    r1, r2 = lo, hi
    if b == 0.0:
        if q == 0.0:
            r = (level - c) / a
            r1 = r
            r2 = r
        else:
            m0 = piece_vertex(q, a, b)
            d = math.sqrt(max(level - value_at(q, a, b, c, m0, 0.0), 0.0) / q)
            r1 = m0 - d
            r2 = m0 + d
    else:
        k = c - level
        if left:
            x0 = -k / b
            if lo > 0.0:
                x0 = max(x0, math.log(lo))
            r1 = math.exp(newton_log(q, a, b, k, x0, math.log(m), x0, 1.0))
        if right:
            r2 = _newton_right(q, a, b, k, hi)
    r1 = max(lo, min(r1, m)) if left else lo
    r2 = min(hi, max(r2, m)) if right else hi
    return r1, r2


@numba.njit(cache=True)
def _root_monotone(q, a, b, c, lo, hi, s_lo, log_lo, log_hi):
    """Root in ``(lo, hi)`` of a difference ``d`` monotone there, ``s_lo`` its sign at ``lo``.

    :func:`newton_log` from the middle of the bracket in ``log m``; ``lo = 0`` is
    bracketed first by stepping ``log m`` down from ``log hi``.
    """
    xh = log_hi  # (math.log(hi), and of lo below: given, computed once by the caller)
    if lo > 0.0:
        xl = log_lo
    else:
        step = 1.0
        xl = xh - step
        while True:
            g = value_at(q, a, b, c, math.exp(xl), xl)
            if (g > 0.0 and s_lo > 0.0) or (g < 0.0 and s_lo < 0.0):
                break
            if g == 0.0:
                return math.exp(xl)
            xh = xl
            step *= 2.0
            xl = xh - step
            if xl < -745.0:
                return 0.0
    m = math.exp(newton_log(q, a, b, c, xl, xh, 0.5 * (xl + xh), s_lo))
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


@numba.njit(cache=True, inline="always")
def _log_of(m):
    """``math.log(m)`` where a piece's value needs it (``m > 0``), else 0 (unused)."""
    return math.log(m) if m > 0.0 else 0.0


@numba.njit(cache=True, inline="always")
def _value_log(q, a, b, c, m, log_m):
    """:func:`piece_value` with ``log m`` given (``_log_of(m)``): the same value."""
    if b == 0.0:
        return value_at(q, a, 0.0, c, m, 0.0)
    if m > 0.0:
        return value_at(q, a, b, c, m, log_m)
    if m == 0.0:
        return -b * np.inf
    return np.nan


@numba.njit(cache=True, _nrt=False)
def _root_between(q, a, b, c, left, right, v0, out, nr, last, log_left, log_right):
    """Root of a monotone part ``[left, right]`` (``v0 = d(left)``; the logs of its ends
    given); returns (d(right), nr)."""
    v1 = _value_log(q, a, b, c, right, log_right)
    s0 = _sign(v0)
    s1 = _sign(v1)
    if s0 != 0.0 and s1 != 0.0 and s0 != s1:
        out[nr] = _root_monotone(q, a, b, c, left, right, s0, log_left, log_right)
        nr += 1
    elif s1 == 0.0 and not last:
        out[nr] = right
        nr += 1
    return v1, nr


@numba.njit(cache=True, _nrt=False)
def diff_roots(q, a, b, c, lo, hi, out):
    """Roots of a difference of two pieces ``d(m) = q·m² + a·m + b·log m + c`` in ``(lo, hi)``.

    ``d`` has at most two stationary points (``2q·m² + a·m + b = 0``), so ``(lo, hi)``
    splits into at most three monotone parts, each holding at most one root. Writes the
    roots, increasing, to ``out`` and returns how many.
    """
    return diff_roots_logs(q, a, b, c, lo, hi, out, _log_of(lo), _log_of(hi))


@numba.njit(cache=True, _nrt=False)
def diff_roots_logs(q, a, b, c, lo, hi, out, log_lo, log_hi):
    """:func:`diff_roots` with ``_log_of(lo)``, ``_log_of(hi)`` given (each end's log once:
    a piece list's boundaries are the ends of two intervals); the same roots."""
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
    v0 = _value_log(q, a, b, c, lo, log_lo)
    left = lo
    log_left = log_lo
    if not np.isnan(s1):
        log_s1 = _log_of(s1)
        v0, nr = _root_between(q, a, b, c, left, s1, v0, out, nr, False, log_left, log_s1)
        left = s1
        log_left = log_s1
        if not np.isnan(s2):
            log_s2 = _log_of(s2)
            v0, nr = _root_between(q, a, b, c, left, s2, v0, out, nr, False, log_left,
                                   log_s2)
            left = s2
            log_left = log_s2
    v0, nr = _root_between(q, a, b, c, left, hi, v0, out, nr, True, log_left, log_hi)
    return nr
