"""Brackets of events handled at once: the sweep with vectorised updates.

The sequential kernel (:mod:`.kernel`) walks the intersections of adjacent threshold lines
one at a time. This driver takes them a bracket (s_lo, s_hi] at a time: one sort at s_hi
gives the order there, and the lines that cross inside the bracket are exactly the
inversions between the two orders, all inside *blocks* (runs of positions that the
permutation maps onto themselves). Every inversion is one event, at the step where the
two lines meet (the kernel's formula). The FP/FN just below that point are those below the
lower line at s_lo, corrected by that line's earlier crossings in the bracket (an exclusive
cumulative sum per line), so each event's updates of Theorems 1-2 of Fowler & Hocking
(2024) (eqs. 10-18: AUM slope and AUC) are computed independently and vectorised; AUM and
the slope along the bracket are then the same sequential sums as in the kernel.

Exactness: a bracket is handed to the kernel itself whenever the shortcut could differ
from it: two events within the kernel's tie window (multi-way or near-ties), an event or
adjacent crossing within that window of the bracket's end, or a sort at s_hi that
disagrees with the crossing steps of adjacent lines. Brackets are chosen so that blocks
stay small (the work is quadratic in the block size): s_hi lies between the K-th and
(K+1)-th smallest crossings of adjacent lines at s_lo, and K adapts.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from penlearn.line_search._common import FIRST_MIN_ZERO, TIE_RTOL, gaps, sort_right
from penlearn.line_search.kernel import State, state_from_order, sweep

__all__ = ["BlocksResult", "sweep_blocks"]

#: Pairs (within blocks) examined per bracket, relative to the number of lines.
PAIR_BUDGET = 8

#: Initial bracket size: the K-th adjacent crossing, K = this fraction of the lines.
K_FRACTION = 0.25


class BlocksResult(NamedTuple):
    """Processed events of :func:`sweep_blocks` (arrays over events, row 0 = step 0)."""

    steps: np.ndarray
    aums: np.ndarray
    slopes: np.ndarray
    auc_after: np.ndarray
    reason: str
    brackets: int
    fallbacks: int


class _Sweep:
    """NumPy state between brackets: line order just after ``s_lo``, its gaps, totals."""

    def __init__(self, st: State):
        ic, sl, fpd, fnd, FP, FN, _ = st.np
        self.ic, self.sl, self.fpd, self.fnd = ic, sl, fpd, fnd
        self.order = np.arange(st.B)
        self.FP, self.FN = FP, FN
        self.s_lo = 0.0
        self.step, self.aum, self.slope, self.S = 0.0, st.aum, st.slope, st.auc_after
        self.base = st

    def adjacent_crossings(self) -> np.ndarray:
        o = self.order
        d_sl = self.sl[o[:-1]] - self.sl[o[1:]]
        cross = np.flatnonzero(d_sl > 0)
        return (self.ic[o[cross + 1]] - self.ic[o[cross]]) / d_sl[cross]


def _bracket(sw: _Sweep, s_hi: float, max_pairs: int):
    """Events in (s_lo, s_hi] as (steps, slope deltas, AUC deltas, order at s_hi).

    Returns ``"big"`` when the blocks hold more than ``max_pairs`` pairs and None when the
    kernel must handle the bracket (see the module docstring).
    """
    o = sw.order
    ic, sl, fpd, fnd = sw.ic, sw.sl, sw.fpd, sw.fnd
    a_ic, a_sl = ic[o], sl[o]
    p = sort_right(a_ic + a_sl * s_hi, a_sl, "stable")  # nearly sorted: adaptive sort
    n = len(p)
    # the order at s_hi must agree with the crossing steps of its adjacent lines, none
    # of which may come within the tie window after s_hi
    ic_h, sl_h = a_ic[p], a_sl[p]
    dsl = sl_h[:-1] - sl_h[1:]
    ahead = np.flatnonzero(dsl > 0)
    sig = (ic_h[ahead + 1] - ic_h[ahead]) / dsl[ahead]
    if len(sig) and sig.min() <= s_hi + 4 * s_hi * TIE_RTOL:
        return None
    end = np.maximum.accumulate(p) == np.arange(n)
    if end.all():
        e = np.zeros(0)
        return e, e, e, o
    start = np.empty(n, bool)
    start[0] = True
    start[1:] = end[:-1]
    bid = np.cumsum(start) - 1
    size = np.bincount(bid)
    first = np.flatnonzero(start)
    k = size[bid]
    slot = np.flatnonzero(k > 1)
    # all pairs (i, j), i < j, of each block: j runs from i + 1 to the block's last slot
    cnt = (first[bid[slot]] + k[slot] - 1) - slot
    total = int(cnt.sum())
    if total > max_pairs:
        return "big"
    i = np.repeat(slot, cnt)
    off = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt) + 1
    j = i + off
    pos_hi = np.empty(n, np.int64)
    pos_hi[p] = np.arange(n)
    inv = pos_hi[i] > pos_hi[j]
    i, j = i[inv], j[inv]
    la, lb = o[i], o[j]
    sla, slb = sl[la], sl[lb]
    if not np.all(sla > slb):
        return None
    x = (ic[lb] - ic[la]) / (sla - slb)
    if not (np.all(x > sw.s_lo) and np.all(x <= s_hi)):
        return None
    srt = np.argsort(x, kind="stable")
    xs = x[srt]
    if len(xs) > 1 and np.any(xs[1:] <= xs[:-1] + xs[:-1] * TIE_RTOL):
        return None  # a multi-way intersection or a near-tie: the kernel's exact cluster
    E = len(i)
    fa, na, fb, nb = fpd[la], fnd[la], fpd[lb], fnd[lb]
    # each line's gap below it, corrected by its earlier crossings in the bracket: the
    # entries (owner slot, FP change, FN change) in time order, grouped by owner
    i_t, j_t = i[srt], j[srt]
    key = np.concatenate((i_t, j_t)) * (2 * E) + np.concatenate((np.arange(E), np.arange(E)))
    by = np.argsort(key)
    ow = key[by] // (2 * E)
    d = np.empty((2 * E, 2))
    d[:E, 0], d[:E, 1] = fb[srt], nb[srt]
    d[E:, 0], d[E:, 1] = -fa[srt], -na[srt]
    d = d[by]
    c = np.cumsum(d, axis=0) - d
    g0 = np.empty(2 * E, bool)
    g0[0] = True
    g0[1:] = ow[1:] != ow[:-1]
    grp = np.maximum.accumulate(np.where(g0, np.arange(2 * E), 0))
    corr = np.empty((2 * E, 2))
    corr[by] = c - c[grp]
    # from here on, events in time order
    i, la, lb, sla, slb = i_t, la[srt], lb[srt], sla[srt], slb[srt]
    fa, na, fb, nb = fa[srt], na[srt], fb[srt], nb[srt]
    f0 = sw.FP[i] + corr[:E, 0]
    n0 = sw.FN[i] + corr[:E, 1]
    f2 = f0 + fa + fb
    n2 = n0 + na + nb
    m_old = np.minimum(f0 + fa, n0 + na)
    m_new = np.minimum(f0 + fb, n0 + nb)
    d_slope = (sla - slb) * (m_old + m_new - np.minimum(f0, n0) - np.minimum(f2, n2))
    d_s = (fb - fa) * (n2 - n0) - (nb - na) * (f2 - f0)
    return xs, d_slope, d_s, o[p]


def _kernel_bracket(sw: _Sweep, s_hi: float, limit):
    """The kernel's own sweep over (s_lo, s_hi] (ties, near-ties, rounding at the ends)."""
    st = state_from_order(sw.base, sw.order, sw.FP, sw.FN, sw.s_lo, sw.step, sw.aum,
                          sw.slope, sw.S)
    rows, _ = sweep(st, 0, limit, None, until=s_hi)
    steps, slopes, dss = (np.asarray(r, dtype=float) for r in rows[:3])
    sw.order = np.asarray(st.order)
    sw.FP, sw.FN = np.asarray(st.FP), np.asarray(st.FN)
    sw.s_lo = max(s_hi, st.step)
    return steps, slopes, dss


def _first_stop(mode: int, best: float, aums, afters, drop: float) -> int:
    """Index of the first event where the stopping rule holds, or -1 (rules of
    :func:`~penlearn.line_search.kernel.sweep`)."""
    if mode == 1:
        prevmin = np.minimum.accumulate(np.concatenate(([best], aums)))[:-1]
        hit = np.flatnonzero((aums > prevmin) | (aums < FIRST_MIN_ZERO))
        return int(hit[0]) if len(hit) else -1
    if mode == 2:
        from penlearn.line_search._common import AUC_TIE

        for k, v in enumerate(afters.tolist()):
            if v > best + AUC_TIE * abs(best):
                best = v
            elif best - v > drop:
                return k
    return -1


def sweep_blocks(st: State, mode: int, limit) -> BlocksResult:
    """Events in increasing step size, a bracket at a time, until the rule of ``mode``.

    ``mode`` and ``limit`` as in :func:`~penlearn.line_search.kernel.sweep` (0: ``limit``
    events; 1: first minimum of AUM; 2: first maximum of AUC after a step). Returns the
    processed events with row 0 (step 0) first; the last row is the stopping event.
    """
    sw = _Sweep(st)
    B = st.B
    K = max(4, int(B * K_FRACTION))
    steps_l, aums_l, slopes_l, afters_l = [np.zeros(1)], [np.array([sw.aum])], \
        [np.array([sw.slope])], [np.array([sw.S])]
    best = sw.aum if mode == 1 else sw.S
    drop = 1e-6 / st.scale
    n_ev, brackets, fallbacks = 0, 0, 0
    reason = "exhausted"
    max_pairs = PAIR_BUDGET * B + 64
    while n_ev < limit:
        xs = sw.adjacent_crossings()
        xs = xs[xs > sw.s_lo]
        if not len(xs):
            break
        if len(xs) > K:
            part = np.partition(xs, (K - 1, K))
            s_hi = part[K - 1] + (part[K] - part[K - 1]) / 2
        else:
            s_hi = 2 * xs.max() + 1.0
        brackets += 1
        got = _bracket(sw, s_hi, max_pairs)
        if isinstance(got, str):
            if K > 1:
                K = max(1, K // 2)
                continue
            got = None
        if got is None:
            fallbacks += 1
            ev, slopes_after, ds = _kernel_bracket(sw, s_hi, limit - n_ev)
        else:
            ev, d_slope, ds, sw.order = got
            slopes_after = np.cumsum(np.concatenate(([sw.slope], d_slope)))[1:]
            sw.FP, sw.FN, _ = gaps(sw.fpd[sw.order], sw.fnd[sw.order])
            sw.s_lo = s_hi
        if not len(ev):
            continue
        prev_slopes = np.concatenate(([sw.slope], slopes_after[:-1]))
        inc = prev_slopes * np.diff(np.concatenate(([sw.step], ev)))
        aums = np.cumsum(np.concatenate(([sw.aum], inc)))[1:]
        afters = np.cumsum(np.concatenate(([sw.S], ds)))[1:]
        stop = _first_stop(mode, best, aums, afters, drop) if mode else -1
        cut = len(ev)
        if stop >= 0:
            cut, reason = stop + 1, "rule"
        if n_ev + cut >= limit and mode == 0:
            cut, reason = int(limit - n_ev), "limit"
        for lst, arr in ((steps_l, ev), (aums_l, aums), (slopes_l, slopes_after),
                         (afters_l, afters)):
            lst.append(arr[:cut])
        n_ev += cut
        if reason != "exhausted":
            break
        sw.step, sw.aum, sw.slope, sw.S = float(ev[-1]), float(aums[-1]), \
            float(slopes_after[-1]), float(afters[-1])
        if mode == 1:
            best = min(best, float(aums.min()))
        elif mode == 2:
            best = _running_best(best, afters)
    if reason == "exhausted" and n_ev >= limit:
        reason = "limit"
    cat = [np.concatenate(x) for x in (steps_l, aums_l, slopes_l, afters_l)]
    return BlocksResult(*cat, reason, brackets, fallbacks)


def _running_best(best: float, afters: np.ndarray) -> float:
    from penlearn.line_search._common import AUC_TIE

    for v in afters.tolist():
        if v > best + AUC_TIE * abs(best):
            best = v
    return best


def choose_blocks(mode: int, r: BlocksResult) -> tuple[float, float]:
    """The step and its AUM chosen by the rule of ``mode`` from :func:`sweep_blocks`'s
    events (the kernel drivers' choice: midpoint of the first flat minimum of AUM, or the
    midpoint between the first maximum of AUC after a step and the stopping event)."""
    s, a = r.steps, r.aums
    n = len(s)
    if n == 1:
        return 0.0, float(a[0])
    if mode == 1:
        last = n - 1
        up = r.reason == "rule" and a[last] > a[:last].min()
        k = last if up else n
        best = a[:k].min()
        best_step = s[int(np.argmax(a[:k] == best))]
        prev = s[last - 1] if up else s[last]
        return float((prev + best_step) / 2), float(best)
    if mode == 2:
        from penlearn.line_search._common import AUC_TIE

        best, best_step = r.auc_after[0], 0.0
        for k in range(1, n):
            v = r.auc_after[k]
            if v > best + AUC_TIE * abs(best):
                best, best_step = v, s[k]
        step = (s[-1] + best_step) / 2
        q = int(np.searchsorted(s, step, side="right")) - 1
        return float(step), float(a[q] + r.slopes[q] * (step - s[q]))
    i = int(np.argmin(a))
    j = i
    while j + 1 < n and a[j + 1] == a[i]:
        j += 1
    return float((s[i] + s[j]) / 2), float(a[i])


def blocks_step(st: State, mode: int, limit) -> tuple[float, float, int, BlocksResult]:
    """Chosen step, its AUM and the number of events, by brackets (see the module doc)."""
    r = sweep_blocks(st, mode, limit)
    step, aum_at = choose_blocks(mode, r)
    if not math.isfinite(step):  # pragma: no cover - defensive
        raise ArithmeticError("non-finite step")
    return step, aum_at, len(r.steps) - 1, r
