"""Functional pruning kernels (numba) for exact segmentation over the segment mean.

Two exact solvers share one kernel:

* the pruned dynamic programme for the best segmentations with 1..K segments
  (pDPA; Rigaill 2015, "A pruned dynamic programming algorithm to recover the best
  segmentations with 1 to K_max change-points", Journal de la Société Française de
  Statistique), one layer k at a time;
* FPOP, the optimal partitioning for one penalty λ (Maidstone, Hocking, Rigaill &
  Fearnhead 2017, "On optimal multiple changepoint algorithms for large data",
  Statistics and Computing).

For a layer, the functional cost C_t(μ) is the best cost of y_1..y_t whose last segment
has mean μ:

    C_t(μ) = min(C_{t-1}(μ), c_{t-1}) + w_t ℓ(y_t, μ),     F(t) = min_μ C_t(μ),

with c_{t-1} = F_{k-1}(t-1) (segment neighbourhood, layer k) or F(t-1) + λ (FPOP). C_t is
stored as pieces sorted by μ over the data range (optimal means lie there); a piece is

    interval [lo, hi] of μ, coefficients (quadratic, linear, log, constant), start τ

with value quadratic·μ² + linear·μ + log·log(μ) + constant, where τ is the last change
of the segmentation it represents. The cost families (the per-datum coefficients of the
square and Poisson losses, a piece's value and minimiser, the roots of piece = c on
either side of the minimum) are those of :mod:`penlearn.changepoint._fp_pieces`, shared
with the peak model's kernel. The minimum with the constant c_{t-1} keeps a piece
where it is <= c (so an older start wins ties) and gives the rest to a new piece of start
t−1; a start without pieces is pruned for good. The pieces are a piece table of
``_fp_pieces`` (one piece a row: lo, hi, quadratic, linear, log, constant) with one more
column, the piece's minimum over its interval cached for the next step (``MINV``), plus
an int64 array of starts.

Ties (equal costs up to a rounding tolerance, 64 ulps of the magnitude of the terms):
the last change is the smallest start among the pieces whose minimum is within the
tolerance of F(t), and a piece whose minimum ties with c_{t-1} keeps that single point,
so tied segmentations resolve to the smallest last change, then recursively (what the
quadratic DP does for ties that are exact in floating point). Single tied points next to
each other are merged (the oldest kept), so constant runs of data keep O(1) pieces.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np

from penlearn._interrupt import deferred_interrupts
from penlearn._numba_cache import warm_kernels
from penlearn._warnings import caller_stacklevel
from penlearn.changepoint._fp_pieces import (
    HI,
    L2,
    LO,
    POISSON,
    A,
    B,
    C,
    Q,
    add_to_row,
    level_roots,
    loss_coefficients,
    row_argmin,
    row_value,
)

_EPS = np.finfo(float).eps
_TIE = 64.0 * _EPS  # relative tolerance for equal-cost ties (x the magnitude of the terms)
MINV = 6  # column after the shared ones: the piece's minimum over its interval
COLS = 7


@numba.njit(cache=True)
def _below(p, i, c, tol, v):
    """Interval [r1, r2] of μ in piece i where f(μ) <= c, or (1, 0) if empty.

    ``v`` is the piece's minimum over its interval (known from the previous step). A
    minimum within ``tol`` of c (a tangent tie, up to rounding) keeps only the single
    point where it is reached: in exact arithmetic the piece is then >= c everywhere, so
    it can matter only for the tie rule, and a sliver of width ~sqrt(rounding) would let
    tied starts pile up in constant runs of data.
    """
    if not v <= c + tol:
        return 1.0, 0.0
    m = row_argmin(p, i)
    if v >= c - tol:
        return m, m
    lo, hi = p[i, LO], p[i, HI]
    f_lo = row_value(p, i, lo)
    f_hi = row_value(p, i, hi)
    if f_lo <= c and f_hi <= c:
        return lo, hi  # convex: the whole piece
    return level_roots(p[i, Q], p[i, A], p[i, B], p[i, C], c, lo, m, hi, f_lo > c, f_hi > c)


@numba.njit(cache=True)
def _emit_const(q, qs, nq, lo, hi, c, start):
    """Append the constant piece c on [lo, hi] (merged with a constant just before it)."""
    if not lo < hi:
        return nq
    if nq > 0 and qs[nq - 1] == start and q[nq - 1, HI] == lo:
        q[nq - 1, HI] = hi
        return nq
    q[nq, LO], q[nq, HI] = lo, hi
    q[nq, Q], q[nq, A], q[nq, B], q[nq, C] = 0.0, 0.0, 0.0, c
    qs[nq] = start
    return nq + 1


@numba.njit(cache=True)
def _near_point(q, qs, nq, x, start, delta):
    """Index of a single-point piece just before x (at most a short constant between)."""
    j = nq - 1
    if j >= 0 and qs[j] == start and q[j, HI] == x and x - q[j, LO] <= delta:
        j -= 1  # skip the short stretch of the new constant
    if j >= 0 and q[j, LO] == q[j, HI] and x - q[j, HI] <= delta:
        return j
    return -1


@numba.njit(cache=True)
def _min_with_constant(p, ps, n_p, q, qs, c, tol, start, dom_lo, dom_hi):
    """q <- min(p, c) where c starts at ``start``; returns the piece count.

    A piece of p is kept wherever it is <= c, or, if its minimum is within ``tol`` of c,
    at that single point: the older start wins ties within rounding. Of single-point
    pieces next to each other (closer than 1e-9 of the domain) only the lowest (within
    tol: the oldest) is kept: each is dominated by c in exact arithmetic, so this only
    bounds the number of tied starts kept (constant runs of data would pile them up).
    """
    if n_p == 0:
        return _emit_const(q, qs, 0, dom_lo, dom_hi, c, start)
    delta = 1e-9 * (dom_hi - dom_lo)
    nq = 0
    for i in range(n_p):
        lo, hi = p[i, LO], p[i, HI]
        r1, r2 = _below(p, i, c, tol, p[i, MINV])
        if not r1 <= r2:
            nq = _emit_const(q, qs, nq, lo, hi, c, start)
            continue
        nq = _emit_const(q, qs, nq, lo, r1, c, start)
        if r1 == r2:
            j = _near_point(q, qs, nq, r1, start, delta)
            if j >= 0:
                v_old, v_new = row_value(q, j, q[j, LO]), row_value(p, i, r1)
                if not (v_new < v_old - tol or (v_new <= v_old + tol and ps[i] < qs[j])):
                    nq = _emit_const(q, qs, nq, r2, hi, c, start)
                    continue
                x_old = q[j, LO]
                nq = j  # the new single point replaces the old one (and the gap)
                nq = _emit_const(q, qs, nq, x_old, r1, c, start)
        for col in range(MINV):
            q[nq, col] = p[i, col]
        q[nq, LO], q[nq, HI] = r1, r2
        qs[nq] = ps[i]
        nq += 1
        nq = _emit_const(q, qs, nq, r2, hi, c, start)
    return nq


@numba.njit(cache=True)
def _add_and_min(q, qs, nq, y, w, loss, tol_scale):
    """Add w·ℓ(y, μ) to every piece; return (min value, start of the chosen piece)."""
    dq, da, db, dc = loss_coefficients(loss, y, w)
    best = np.inf
    for i in range(nq):
        add_to_row(q, i, dq, da, db, dc)
        v = row_value(q, i, row_argmin(q, i))
        q[i, MINV] = v
        if v < best:
            best = v
    tol = _TIE * (abs(best) + tol_scale)
    chosen = -1
    for i in range(nq):
        if q[i, MINV] <= best + tol and (chosen < 0 or qs[i] < chosen):
            chosen = qs[i]
    return best, chosen


@numba.njit(cache=True)
def _grow(p, ps, need):
    cap = p.shape[0]
    if need <= cap:
        return p, ps
    new_cap = max(need, 2 * cap)
    p2 = np.empty((new_cap, COLS))
    ps2 = np.empty(new_cap, dtype=np.int64)
    p2[:cap] = p
    ps2[:cap] = ps
    return p2, ps2


@numba.njit(cache=True)
def run_layer(y, w, term, prev, penalty, F, last, t0, t1, loss, dom_lo, dom_hi,
              p, ps, q, qs, n_p, run_scale):
    """Steps t = t0..t1-1 (1-based data index) of one layer; returns the new state.

    ``prev[t]`` is the cost of the best model of y_1..y_t with one segment fewer (inf if
    none), or, with ``penalty >= 0``, ``F`` itself is used: c = F(t-1) + penalty (and 0
    for t = 1). ``term[t-1]`` is the magnitude of datum t's cost terms, for the tie
    tolerance. ``F[t]`` and ``last[t]`` (the last change) are written for each step.
    """
    for t in range(t0, t1):
        if penalty >= 0.0:
            c = 0.0 if t == 1 else F[t - 1] + penalty
        else:
            c = prev[t - 1]
        if c < np.inf:
            need = 2 * n_p + 2
            p, ps = _grow(p, ps, need)
            q, qs = _grow(q, qs, need)
            tol = _TIE * (abs(c) + run_scale)
            n_p = _min_with_constant(p, ps, n_p, q, qs, c, tol, t - 1, dom_lo, dom_hi)
            p, ps, q, qs = q, qs, p, ps
        run_scale += term[t - 1]
        if n_p == 0:
            F[t] = np.inf
            last[t] = -1
            continue
        best, chosen = _add_and_min(p, ps, n_p, y[t - 1], w[t - 1], loss, run_scale)
        F[t] = best
        last[t] = chosen
    return p, ps, q, qs, n_p, run_scale


@numba.njit(cache=True)
def segment_costs(y, w, starts, ends, loss):
    """Exact cost of each segment y[starts[j]:ends[j]] (two passes for the square loss)."""
    out = np.empty(len(starts))
    for j in range(len(starts)):
        sw = 0.0
        swy = 0.0
        for i in range(starts[j], ends[j]):
            sw += w[i]
            swy += w[i] * y[i]
        if loss == L2:
            mean = swy / sw
            s = 0.0
            for i in range(starts[j], ends[j]):
                d = y[i] - mean
                s += w[i] * d * d
            out[j] = s
        elif swy > 0.0:
            out[j] = swy - swy * np.log(swy / sw)
        else:
            out[j] = 0.0
    return out


# ----------------------------------------------------------------------------- drivers

_CHUNK = 1 << 15  # steps per kernel call between progress reports


def _prepared(values: np.ndarray, weights: np.ndarray, loss: str):
    """Working data, the μ domain, per-datum term magnitudes and the scale.

    Square loss: the data are centred and scaled by powers of two into [-1, 1], so the
    costs neither underflow nor overflow whatever the data's magnitude; losses are
    multiplied back by ``scale``² (an exact power of two).
    """
    if loss == "l2":
        big = float(np.max(np.abs(values)))
        s1 = float(np.ldexp(1.0, np.frexp(big)[1] - 1)) if big > 0 else 1.0  # z in [-2, 2)
        z = values / s1
        lo, hi = float(z.min()), float(z.max())
        mid = 0.5 * (lo + hi)
        half = 0.5 * (hi - lo)
        s2 = float(np.ldexp(1.0, np.frexp(half)[1])) if half > 0 else 1.0
        y = (z - mid) / s2
        dom = (float(y.min()), float(y.max()))
        if dom[0] == dom[1]:
            dom = (dom[0] - 1.0, dom[1] + 1.0)
        term = weights * (y * y + 1.0)
        return y, dom, term, s1 * s2
    y = values
    lo, hi = float(y.min()), float(y.max())
    if hi == lo:
        dom = (lo / 2.0, 2.0 * lo) if lo > 0 else (0.0, 1.0)
    else:
        dom = (lo, hi)
    term = weights * (y * (1.0 + abs(np.log(max(dom[1], 1e-300)))) + dom[1] + 1.0)
    return y, dom, term, 1.0


def _new_state():
    cap = 64
    return (np.empty((cap, COLS)), np.empty(cap, dtype=np.int64),
            np.empty((cap, COLS)), np.empty(cap, dtype=np.int64), 0, 0.0)


def _run(y, w, term, prev, penalty, F, last, loss_code, dom, progress, weight_per_step):
    """One layer over the whole sequence, in chunks (progress after each chunk)."""
    n = len(y)
    p, ps, q, qs, n_p, run_scale = _new_state()
    for t0 in range(1, n + 1, _CHUNK):
        t1 = min(n + 1, t0 + _CHUNK)
        with deferred_interrupts():  # Ctrl-C handled between chunks, never inside one
            p, ps, q, qs, n_p, run_scale = run_layer(
                y, w, term, prev, penalty, F, last, t0, t1, loss_code, dom[0], dom[1],
                p, ps, q, qs, n_p, run_scale)
        if progress is not None:
            progress((t1 - t0) * weight_per_step)


def _costs(y, w, ends, loss_code):
    e = np.asarray(ends, dtype=np.int64)
    s = np.r_[0, e[:-1]].astype(np.int64)
    with deferred_interrupts():
        return segment_costs(y, w, s, e, loss_code)


def _unscaled(scaled: np.ndarray, scale: float) -> np.ndarray:
    """Losses in the data's units (x scale²); warn where they underflow (changes are exact).

    A loss too large for a float becomes inf (the caller raises a range error).
    """
    with np.errstate(over="ignore", under="ignore"):
        out = np.where(scaled != 0, scaled * scale * scale, 0.0)
    if np.any((scaled != 0) & (np.abs(out) < np.finfo(float).tiny)):
        warnings.warn(
            "the square losses of these tiny values underflow the float range (reported "
            "as 0 or subnormal); the changes are exact (they do not depend on the scale)",
            UserWarning, stacklevel=caller_stacklevel())
    return out


def pruned_models(values, weights, k_max: int, loss: str, progress=None):
    """Best models with 1..k_max segments: (losses (K,), list of K end arrays).

    ``progress(x)`` is called with the share of the data processed (x in data points;
    the K layers together count n points).
    """
    n = len(values)
    y, dom, term, scale = _prepared(values, weights, loss)
    code = L2 if loss == "l2" else POISSON
    idx = np.int32 if n < 2**31 - 1 else np.int64
    last = np.empty((k_max, n + 1), dtype=idx)
    prev = np.full(n + 1, np.inf)
    prev[0] = 0.0
    F = np.empty(n + 1)
    for k in range(k_max):
        F[0] = np.inf
        _run(y, weights, term, prev, -1.0, F, last[k], code, dom, progress, 1.0 / k_max)
        prev, F = F, prev
    ends = []
    for k in range(1, k_max + 1):
        e = np.empty(k, dtype=np.int64)
        t = n
        for kk in range(k, 0, -1):
            e[kk - 1] = t
            t = int(last[kk - 1, t])
        ends.append(e)
    losses = np.array([_costs(y, weights, e, code).sum() for e in ends])
    return _unscaled(losses, scale), ends


def pruned_penalized(values, weights, penalty: float, loss: str, progress=None):
    """The optimal model for one penalty λ (loss + λ·changes): (loss, ends)."""
    n = len(values)
    y, dom, term, scale = _prepared(values, weights, loss)
    code = L2 if loss == "l2" else POISSON
    with np.errstate(over="ignore", under="ignore"):
        lam = penalty / scale / scale  # inf where λ dwarfs every loss: one segment
    last = np.empty(n + 1, dtype=np.int64)
    F = np.empty(n + 1)
    F[0] = 0.0
    _run(y, weights, term, F, lam, F, last, code, dom, progress, 1.0)
    e = [n]
    t = n
    while last[t] > 0:
        t = int(last[t])
        e.append(t)
    ends = np.array(e[::-1], dtype=np.int64)
    total = _costs(y, weights, ends, code).sum()
    return float(_unscaled(np.array([total]), scale)[0]), ends


def warm(say: bool = True) -> bool:
    """Compile (or load) the kernels before a progress bar starts (see ``warm_kernels``)."""
    def run():
        y, w = np.array([0.0, 1.0, 5.0]), np.ones(3)
        pruned_models(y, w, 2, "l2")
        pruned_penalized(y, w, 1.0, "l2")

    return warm_kernels("segmentation", (run_layer, segment_costs), run, say)
