"""The PeakSeg recursion by functional pruning, and its backward decoding (numba).

Up-down constrained Poisson segmentation (Hocking et al. 2020, "Constrained dynamic
programming and supervised penalty learning algorithms for peak detection in genomic
data", JMLR; Hocking et al. 2022, "Generalized functional pruning optimal partitioning
(GFPOP) for constrained changepoint detection in genomic data", JSS). With the loss of
datum t, ``ℓ_t(m) = w_t (m − y_t log m)``, the optimal costs of data 0..t whose last
segment is background (B) or peak (P), as functions of that segment's mean, are

    B_0 = ℓ_0,  P_0 = +∞,
    B_t = ℓ_t + min(B_{t−1}, P_{t−1}^≥),
    P_t = ℓ_t + min(P_{t−1}, B_{t−1}^≤ + λ),

where ``f^≤`` / ``f^≥`` are the min-less / min-more operators (a change up into a peak,
a change down out of it, both non-strict). On ties (costs within ``tie_tol`` relative)
the pointwise minima keep the new segment (the second argument), so among equal-cost
models the changes are placed as late as possible: models with active equality
constraints are then the same as those of the reference solver (PeakSegDisk), whose
ties would otherwise be decided by rounding noise. The optimum is ``min_m B_{N−1}(m)``. For the
decoding, each cost function is kept in compressed form (right ends of the pieces and
their ``PREV_I`` / ``PREV_MEAN``) and the segmentation is read backwards from the argmin.
"""

from __future__ import annotations

import numba
import numpy as np

from penlearn.changepoint._fp_core import (
    HI,
    LO,
    N_COLS,
    PREV_I,
    PREV_MEAN,
    C,
    find_piece,
    fn_add,
    fn_argmin,
    fn_min,
    min_less,
    min_more,
)
from penlearn.changepoint._fp_pieces import POISSON, loss_coefficients


@numba.njit(cache=True)
def _grow(F, rows):
    out = np.empty((rows, N_COLS))
    out[: F.shape[0]] = F
    return out


@numba.njit(cache=True)
def _grow1(x, size):
    out = np.empty(size, x.dtype)
    out[: x.shape[0]] = x
    return out


@numba.njit(cache=True)
def _store(F, n, his, prev_i, prev_mean, pos):
    """Append the decoding information of ``F`` (merged where it is the same) at ``pos``."""
    for i in range(n):
        pi = F[i, PREV_I]
        pm = F[i, PREV_MEAN]
        if pos > 0 and i > 0 and prev_i[pos - 1] == pi and (
            (np.isnan(pm) and np.isnan(prev_mean[pos - 1])) or pm == prev_mean[pos - 1]
        ):
            his[pos - 1] = F[i, HI]
            continue
        his[pos] = F[i, HI]
        prev_i[pos] = int(pi)
        prev_mean[pos] = pm
        pos += 1
    return pos


@numba.njit(cache=True)
def peakseg_solve(y, w, penalty, tie_tol=0.0):
    """Solve the penalised up-down Poisson problem on weighted data (min y < max y).

    Returns
    -------
    cost : float
        Optimal penalised cost (loss + penalty·peaks) as the recursion computed it.
    seg_start, seg_end : int64 arrays
        0-based first and last datum of each segment, in data order.
    seg_peak : bool array
        True for peak segments.
    seg_mean : float array
        The mean of each segment where the decoding read it.
    eq_prev : bool array
        True when the segment's mean equals the previous one (active equality).
    n_pieces_total, n_pieces_max : int
        Sum and maximum over t and both functions of the number of pieces.
    """
    n = y.shape[0]
    mlo = y.min()
    mhi = y.max()
    cap = 64
    Bf = np.empty((cap, N_COLS))
    Pf = np.empty((cap, N_COLS))
    T1 = np.empty((cap, N_COLS))
    T2 = np.empty((cap, N_COLS))
    roots = np.empty(3)
    scap = 1024
    s_hi = np.empty(scap)
    s_pi = np.empty(scap, np.int32)  # n < 2**31 data (checked by the caller)
    s_pm = np.empty(scap)
    # rows [off[2s, t], off[2s+1, t]) of the store: function s (0 = B, 1 = P) at t
    off = np.zeros((4, n), np.int64)
    pos = 0
    Bf[0, LO] = mlo
    Bf[0, HI] = mhi
    Bf[0, 2:] = 0.0
    Bf[0, PREV_I] = -1.0
    Bf[0, PREV_MEAN] = np.nan
    nb = 1
    q, a, b, c = loss_coefficients(POISSON, y[0], w[0])
    fn_add(Bf, nb, q, a, b, c)
    np_ = 0
    total = 1
    biggest = 1
    for t in range(n):
        if t > 0:
            need = 3 * (3 * nb + 3 * np_ + 2) + 8
            if need > cap:
                while cap < need:
                    cap *= 2
                Bf = _grow(Bf, cap)
                Pf = _grow(Pf, cap)
                T1 = np.empty((cap, N_COLS))
                T2 = np.empty((cap, N_COLS))
            # P_t = ℓ_t + min(P_{t-1}, B_{t-1}^≤ + λ)
            nl = min_less(Bf, nb, T1, float(t - 1))
            for i in range(nl):
                T1[i, C] += penalty
            if np_ > 0:
                nnp = fn_min(Pf, np_, T1, nl, T2, True, tie_tol, roots)
                # B_t = ℓ_t + min(B_{t-1}, P_{t-1}^≥); T1 and the old P are free now
                nm = min_more(Pf, np_, T1, float(t - 1))
                nnb = fn_min(Bf, nb, T1, nm, Pf, True, tie_tol, roots)
                Bf, Pf, T2 = Pf, T2, Bf
                np_ = nnp
                nb = nnb
            else:
                Pf, T1 = T1, Pf
                np_ = nl
            q, a, b, c = loss_coefficients(POISSON, y[t], w[t])
            fn_add(Bf, nb, q, a, b, c)
            fn_add(Pf, np_, q, a, b, c)
            total += nb + np_
            biggest = max(biggest, nb, np_)
        if pos + nb + np_ > scap:
            while pos + nb + np_ > scap:
                scap *= 2
            s_hi = _grow1(s_hi, scap)
            s_pi = _grow1(s_pi, scap)
            s_pm = _grow1(s_pm, scap)
        off[0, t] = pos
        pos = _store(Bf, nb, s_hi, s_pi, s_pm, pos)
        off[1, t] = pos
        off[2, t] = pos
        pos = _store(Pf, np_, s_hi, s_pi, s_pm, pos)
        off[3, t] = pos
    bi, m, cost = fn_argmin(Bf, nb)
    rs, re, rp, rm, req = _decode(Bf, bi, m, s_hi, s_pi, s_pm, off, n)
    return cost, rs, re, rp, rm, req, total, biggest


@numba.njit(cache=True)
def _decode(Bf, bi, m, s_hi, s_pi, s_pm, off, n):
    starts = np.empty(n, np.int64)
    ends = np.empty(n, np.int64)
    peak = np.empty(n, np.bool_)
    means = np.empty(n)
    eq = np.zeros(n, np.bool_)
    t = n - 1
    status = 0
    pi = int(Bf[bi, PREV_I])
    pm = Bf[bi, PREV_MEAN]
    k = 0
    while True:
        starts[k] = pi + 1
        ends[k] = t
        peak[k] = status == 1
        means[k] = m
        k += 1
        if pi < 0:
            break
        t = pi
        if np.isnan(pm):
            eq[k - 1] = True
        else:
            m = pm
        status = 1 - status
        row = find_piece(s_hi, off[2 * status, t], off[2 * status + 1, t], m)
        pi = int(s_pi[row])
        pm = s_pm[row]
    # reverse into data order; eq[k] refers to segment k and the one before it
    rs = starts[:k][::-1].copy()
    re = ends[:k][::-1].copy()
    rp = peak[:k][::-1].copy()
    rm = means[:k][::-1].copy()
    req = np.zeros(k, np.bool_)
    for j in range(k):
        # eq[j] (decode order) says segment j equals segment j+1 (the one before it)
        if eq[j]:
            req[k - 1 - j] = True
    return rs, re, rp, rm, req

