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
ties would otherwise be decided by rounding noise. The optimum is ``min_m B_{N−1}(m)``.

For the decoding, each cost function is stored in compressed form (right ends of the
pieces and their ``PREV_I`` / ``PREV_MEAN``, equal neighbours merged) and the
segmentation is read backwards from the argmin. The kernels work in chunks so that
the stored functions need not stay in RAM: :func:`forward_chunk` fills fixed buffers
and returns when they are full, :func:`decode_chunk` continues the decoding through
one chunk at a time, last first; :mod:`penlearn.peaks.peakseg._store` drives them and
keeps the chunks in RAM or in temporary files.
"""

from __future__ import annotations

import numba
import numpy as np

from penlearn.changepoint._fp_core import (
    HI,
    LO,
    LOG_HI,
    N_COLS,
    PREV_I,
    PREV_MEAN,
    C,
    find_piece,
    fn_add,
    fn_argmin,
    fn_min,
    log_of,
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


@numba.njit(cache=True, _nrt=False)
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



@numba.njit(cache=True, _nrt=False, inline="always")
def _pick(i, F0, F1, F2, F3):
    """The work array of role index ``i`` (no reference counting: no cost)."""
    if i == 0:
        return F0
    if i == 1:
        return F1
    if i == 2:
        return F2
    return F3


@numba.njit(cache=True, _nrt=False)
def _forward_rows(y, w, penalty, tie_tol, st, F0, F1, F2, F3, roles, s_hi, s_pi, s_pm,
                  cnt, pos, k, roots, y_lo, y_hi):
    """The recursion of :func:`forward_chunk` on from datum ``st[0]`` while the four work
    arrays (of equal size) and the piece buffer hold the next datum and ``cnt`` has room.

    ``roles`` (int64, 4) says which of ``F0..F3`` holds B, P, T1, T2; the arrays change
    roles by swapping these indices, not the arrays (compiled without reference
    counting, whose atomic operations on every rebinding of an array were a tenth of
    the solve). Returns ``(pos, k, why)``: why 0 all data done or ``cnt`` full, 1 the
    piece buffer must be flushed or grown, 2 the work arrays must grow.
    """
    n = y.shape[0]
    t = st[0]
    nb = st[1]
    np_ = st[2]
    total = st[3]
    biggest = st[4]
    cap = F0.shape[0]
    why = 0
    while t < n and k < cnt.shape[0]:
        # rows any of B_t, P_t can have (fn_min gives at most 3·(nf + ng) rows)
        need = 3 * (3 * nb + 3 * np_ + 2) + 8
        if pos + need > s_hi.shape[0]:
            why = 1
            break
        Bf = _pick(roles[0], F0, F1, F2, F3)
        Pf = _pick(roles[1], F0, F1, F2, F3)
        if t == 0:
            Bf[0, LO] = y_lo  # (y.min(), y.max(): from the caller)
            Bf[0, HI] = y_hi
            for col in range(2, N_COLS):
                Bf[0, col] = 0.0
            Bf[0, PREV_I] = -1.0
            Bf[0, PREV_MEAN] = np.nan
            Bf[0, LOG_HI] = log_of(y_hi)
            nb = 1
            np_ = 0
            q, a, b, c = loss_coefficients(POISSON, y[0], w[0])
            fn_add(Bf, nb, q, a, b, c)
            total = 1
            biggest = 1
        else:
            if need > cap:
                why = 2
                break
            T1 = _pick(roles[2], F0, F1, F2, F3)
            T2 = _pick(roles[3], F0, F1, F2, F3)
            # P_t = ℓ_t + min(P_{t-1}, B_{t-1}^≤ + λ)
            nl = min_less(Bf, nb, T1, float(t - 1))
            for i in range(nl):
                T1[i, C] += penalty
            if np_ > 0:
                nnp = fn_min(Pf, np_, T1, nl, T2, True, tie_tol, roots)
                # B_t = ℓ_t + min(B_{t-1}, P_{t-1}^≥); T1 and the old P are free now
                nm = min_more(Pf, np_, T1, float(t - 1))
                nnb = fn_min(Bf, nb, T1, nm, Pf, True, tie_tol, roots)
                # Bf, Pf, T2 = Pf, T2, Bf
                rb = roles[0]
                roles[0] = roles[1]
                roles[1] = roles[3]
                roles[3] = rb
                np_ = nnp
                nb = nnb
            else:
                # Pf, T1 = T1, Pf
                rp = roles[1]
                roles[1] = roles[2]
                roles[2] = rp
                np_ = nl
            Bf = _pick(roles[0], F0, F1, F2, F3)
            Pf = _pick(roles[1], F0, F1, F2, F3)
            q, a, b, c = loss_coefficients(POISSON, y[t], w[t])
            fn_add(Bf, nb, q, a, b, c)
            fn_add(Pf, np_, q, a, b, c)
            total += nb + np_
            biggest = max(biggest, nb, np_)
        start = pos
        pos = _store(Bf, nb, s_hi, s_pi, s_pm, pos)
        cnt[k, 0] = pos - start
        start = pos
        pos = _store(Pf, np_, s_hi, s_pi, s_pm, pos)
        cnt[k, 1] = pos - start
        k += 1
        t += 1
    st[0] = t
    st[1] = nb
    st[2] = np_
    st[3] = total
    st[4] = biggest
    return pos, k, why


@numba.njit(cache=True, nogil=True)
def forward_chunk(y, w, penalty, tie_tol, st, Bf, Pf, T1, T2, s_hi, s_pi, s_pm, cnt):
    """Run the recursion on from datum ``st[0]``, storing each datum's decoding information.

    ``st`` is the int64 state ``[t, nb, np, total, biggest]`` (next datum, piece counts
    of B and P, sum and maximum of the piece counts), updated in place; ``Bf`` / ``Pf``
    hold B_{t−1} / P_{t−1}, ``T1`` / ``T2`` are work arrays of the same size. Datum t's
    stored pieces (B's, then P's) are appended to ``s_hi, s_pi, s_pm`` (from row 0)
    and their two counts to ``cnt[k]``. Returns when all data are done, when ``cnt`` is
    full, or when the piece buffer might not hold the next datum (the caller then
    flushes the buffers and calls again). Returns ``(Bf, Pf, T1, T2, s_hi, s_pi, s_pm,
    pos, k)``: the arrays (reallocated when they had to grow), rows used in the piece
    buffer and in ``cnt``. The data are run by :func:`_forward_rows`; here the arrays
    are allocated and grown.
    """
    roots = np.empty(3)
    roles = np.arange(4)
    y_lo = y.min() if st[0] == 0 else 0.0
    y_hi = y.max() if st[0] == 0 else 0.0
    F0, F1, F2, F3 = Bf, Pf, T1, T2
    pos = 0
    k = 0
    while True:
        pos, k, why = _forward_rows(y, w, penalty, tie_tol, st, F0, F1, F2, F3, roles,
                                    s_hi, s_pi, s_pm, cnt, pos, k, roots, y_lo, y_hi)
        if why == 0:
            break
        nb = st[1]
        np_ = st[2]
        need = 3 * (3 * nb + 3 * np_ + 2) + 8
        if why == 1:
            if pos > 0:
                break  # flush first
            size = s_hi.shape[0]
            while size < need:
                size *= 2
            s_hi = np.empty(size)
            s_pi = np.empty(size, np.int32)  # n < 2**31 data (checked by the caller)
            s_pm = np.empty(size)
        else:
            cap = F0.shape[0]
            while cap < need:
                cap *= 2
            # B and P keep their pieces; the two work arrays are fresh
            keep0 = roles[0] == 0 or roles[1] == 0
            keep1 = roles[0] == 1 or roles[1] == 1
            keep2 = roles[0] == 2 or roles[1] == 2
            keep3 = roles[0] == 3 or roles[1] == 3
            F0 = _grow(F0, cap) if keep0 else np.empty((cap, N_COLS))
            F1 = _grow(F1, cap) if keep1 else np.empty((cap, N_COLS))
            F2 = _grow(F2, cap) if keep2 else np.empty((cap, N_COLS))
            F3 = _grow(F3, cap) if keep3 else np.empty((cap, N_COLS))
    return (_pick(roles[0], F0, F1, F2, F3), _pick(roles[1], F0, F1, F2, F3),
            _pick(roles[2], F0, F1, F2, F3), _pick(roles[3], F0, F1, F2, F3),
            s_hi, s_pi, s_pm, pos, k)


@numba.njit(cache=True, nogil=True)
def decode_start(Bf, nb, n, st, stf):
    """Start the backward decoding at the argmin of B_{N−1}; returns the optimal cost.

    Fills the decoding state: ``st = [t, status, prev_i, segments, phase]`` (int64) and
    ``stf = [mean, prev_mean]`` (float), for :func:`decode_chunk`.
    """
    bi, m, cost = fn_argmin(Bf, nb)
    st[0] = n - 1
    st[1] = 0
    st[2] = int(Bf[bi, PREV_I])
    st[3] = 0
    st[4] = 0  # 0: record the current segment next; 1: look its start up; 2: done
    stf[0] = m
    stf[1] = Bf[bi, PREV_MEAN]
    return cost


@numba.njit(cache=True)
def _grow_out(starts, ends, peak, means, eq):
    size = 2 * starts.shape[0]
    s2 = np.empty(size, np.int64)
    e2 = np.empty(size, np.int64)
    p2 = np.empty(size, np.bool_)
    m2 = np.empty(size)
    q2 = np.zeros(size, np.bool_)
    k = starts.shape[0]
    s2[:k] = starts
    e2[:k] = ends
    p2[:k] = peak
    m2[:k] = means
    q2[:k] = eq
    return s2, e2, p2, m2, q2


@numba.njit(cache=True, nogil=True)
def decode_chunk(t_lo, cnt, s_hi, s_pi, s_pm, st, stf, starts, ends, peak, means, eq):
    """Continue the backward decoding through the stored data ``t_lo .. t_lo+len(cnt)−1``.

    ``cnt`` / ``s_*`` are one chunk of what :func:`forward_chunk` stored (chunks are
    visited last first). Segments are appended to the output arrays in decoding order
    (last segment first); ``eq[k]`` says that segment k has the same mean as segment
    k+1 (an active equality constraint). Returns the output arrays (reallocated when
    they had to grow); the state ``st`` / ``stf`` (see :func:`decode_start`) is updated
    in place, and ``st[4] == 2`` once the first segment has been reached.
    """
    t = st[0]
    status = st[1]
    pi = st[2]
    k = st[3]
    phase = st[4]
    m = stf[0]
    pm = stf[1]
    # start of each datum's pieces in the chunk
    cs = np.empty(cnt.shape[0] + 1, np.int64)
    cs[0] = 0
    for j in range(cnt.shape[0]):
        cs[j + 1] = cs[j] + cnt[j, 0] + cnt[j, 1]
    while phase != 2:
        if phase == 1:
            if t < t_lo:
                break  # in an earlier chunk
            j = t - t_lo
            lo = cs[j] + (cnt[j, 0] if status == 1 else 0)
            row = find_piece(s_hi, lo, lo + cnt[j, status], m)
            pi = int(s_pi[row])
            pm = s_pm[row]
            phase = 0
        if k == starts.shape[0]:
            starts, ends, peak, means, eq = _grow_out(starts, ends, peak, means, eq)
        starts[k] = pi + 1
        ends[k] = t
        peak[k] = status == 1
        means[k] = m
        k += 1
        if pi < 0:
            phase = 2
            break
        t = pi
        if np.isnan(pm):
            eq[k - 1] = True
        else:
            m = pm
        status = 1 - status
        phase = 1
    st[0] = t
    st[1] = status
    st[2] = pi
    st[3] = k
    st[4] = phase
    stf[0] = m
    stf[1] = pm
    return starts, ends, peak, means, eq
