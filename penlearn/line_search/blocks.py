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

from typing import NamedTuple

import numpy as np

from penlearn.line_search._common import (
    AUC_TIE,
    FIRST_MIN_ZERO,
    MAX_AUC_DROP,
    TIE_RTOL,
)
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
    auc_at: np.ndarray
    reason: str
    brackets: int
    fallbacks: int


class _Sweep:
    """NumPy state between brackets: line order just after ``s_lo``, its gaps, totals."""

    def __init__(self, st: State):
        ic, sl, fpd, fnd, FP, FN, _ = st.np
        self.ic, self.sl, self.fpd, self.fnd = ic, sl, fpd, fnd
        self.order = np.arange(st.B)
        self.ar = np.arange(st.B)
        self.diffs = np.column_stack((fpd, fnd))  # gathered in order for the gaps
        self.fn_tot = st.tw / 2
        self.FP, self.FN = FP, FN
        self.s_lo = 0.0
        self.step, self.aum, self.slope, self.S = 0.0, st.aum, st.slope, st.auc_after
        self.base = st
        # crossing steps of the adjacent pairs (None: recompute)
        self.xs = st.pushed if isinstance(st.pushed, np.ndarray) else None

    def set_gaps(self) -> None:
        """FP and FN of the gaps of the current order (FN from its total downwards)."""
        c = np.empty((len(self.order) + 1, 2))
        c[0] = 0.0
        np.cumsum(self.diffs[self.order], axis=0, out=c[1:])
        self.FP, self.FN = c[:, 0], self.fn_tot + c[:, 1]

    def adjacent_crossings(self) -> np.ndarray:
        if self.xs is not None:
            return self.xs
        o = self.order
        d_sl = self.sl[o[:-1]] - self.sl[o[1:]]
        cross = np.flatnonzero(d_sl > 0)
        return (self.ic[o[cross + 1]] - self.ic[o[cross]]) / d_sl[cross]


def order_at_end(sw: _Sweep, s_hi: float):
    """The order of the lines at a bracket's end ``s_hi`` and the blocks it makes.

    Returns ``(p, sig, start)``: ``p`` sorts the lines of ``sw.order`` at ``s_hi`` (an
    adaptive stable sort: they are nearly sorted); ``sig`` the crossing steps of the
    adjacent pairs there that still cross later; ``start`` marks the first slot of each
    block (a run of slots that ``p`` maps onto itself: lines cross only inside their
    block between the two ends). None when the sort disagrees with a crossing step or a
    crossing comes within the kernel's tie window after ``s_hi`` (the exact kernel must
    take the bracket).
    """
    o = sw.order
    got = sort_at(sw.ic[o], sw.sl[o], s_hi)
    if got is None:
        return None
    p, sig = got
    end = np.maximum.accumulate(p) == sw.ar
    start = np.empty(len(p), bool)
    start[0] = True
    start[1:] = end[:-1]
    return p, sig, start


def sort_at(a_ic: np.ndarray, a_sl: np.ndarray, s_hi: float):
    """The permutation sorting lines (intercepts ``a_ic``, slopes ``a_sl``, in their order
    just after the bracket's start) at ``s_hi``, and the crossing steps of the adjacent
    pairs there that still cross later; None when one of those comes within the kernel's
    tie window after ``s_hi`` (or before it: the sort disagrees with a crossing).

    Examples
    --------
    >>> sort_at(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 2.0)[0].tolist()
    [1, 0]
    >>> sort_at(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 1.0) is None  # they meet at 1
    True
    """
    p = np.argsort(a_ic + a_sl * s_hi, kind="stable")
    ic_h, sl_h = a_ic[p], a_sl[p]
    dsl = sl_h[:-1] - sl_h[1:]
    ahead = np.flatnonzero(dsl > 0)
    sig = (ic_h[ahead + 1] - ic_h[ahead]) / dsl[ahead]
    if len(sig) and sig.min() <= s_hi + 4 * s_hi * TIE_RTOL:
        return None
    return p, sig


def crossings_below(sw: _Sweep, i: np.ndarray, j: np.ndarray, s_hi: float):
    """The events of a bracket from its inversions, in time order, and the gap below each.

    ``i < j`` are slots (in ``sw.order``) of lines that cross inside (s_lo, s_hi]. Returns
    ``(x, sla, slb, fa, na, fb, nb, f0, n0)`` sorted by the crossing step ``x`` (the
    kernel's formula): the two lines' slopes and FP/FN jumps (a below before the event),
    and FP, FN on the gap just below the crossing: the gap below the lower line at s_lo,
    corrected by that line's earlier crossings in the bracket (an exclusive cumulative
    sum per line). None when a crossing is out of the bracket by rounding or two
    crossings fall within the tie window (the exact kernel must take the bracket).
    """
    o, ic, sl, fpd, fnd = sw.order, sw.ic, sw.sl, sw.fpd, sw.fnd
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
        return None
    E = len(i)
    i_t, j_t = i[srt], j[srt]
    la, lb, sla, slb = la[srt], lb[srt], sla[srt], slb[srt]
    fa, na, fb, nb = fpd[la], fnd[la], fpd[lb], fnd[lb]
    # entries (owner slot, FP change, FN change), event k at rows 2k (lower line) and
    # 2k + 1 (upper line): time order; a stable sort by owner groups them, time kept
    ow = np.empty(2 * E, np.int16 if len(o) < 2**15 else np.int64)  # int16: radix sort
    ow[0::2], ow[1::2] = i_t, j_t
    by = np.argsort(ow, kind="stable")
    ow = ow[by]
    d = np.empty((2 * E, 2))
    d[0::2, 0], d[0::2, 1] = fb, nb
    d[1::2, 0], d[1::2, 1] = -fa, -na
    d = d[by]
    c = np.cumsum(d, axis=0) - d
    g0 = np.empty(2 * E, bool)
    g0[0] = True
    g0[1:] = ow[1:] != ow[:-1]
    grp = np.maximum.accumulate(np.where(g0, np.arange(2 * E), 0))
    corr = np.empty((2 * E, 2))
    corr[by] = c - c[grp]
    f0 = sw.FP[i_t] + corr[0::2, 0]
    n0 = sw.FN[i_t] + corr[0::2, 1]
    return xs, sla, slb, fa, na, fb, nb, f0, n0


def _bracket(sw: _Sweep, s_hi: float, max_pairs: int):
    """Events in (s_lo, s_hi] as (steps, slope deltas, AUC deltas, order at s_hi).

    Returns ``"big"`` when the blocks hold more than ``max_pairs`` pairs and None when the
    kernel must handle the bracket (see the module docstring).
    """
    o = sw.order
    at_end = order_at_end(sw, s_hi)
    if at_end is None:
        return None
    p, sig, start = at_end
    n = len(p)
    if start.all():
        e = np.zeros(0)
        return e, e, e, o, sig
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
    pos_hi[p] = sw.ar
    inv = pos_hi[i] > pos_hi[j]
    i, j = i[inv], j[inv]
    ev = crossings_below(sw, i, j, s_hi)
    if ev is None:
        return None  # a multi-way intersection or a near-tie: the kernel's exact cluster
    xs, sla, slb, fa, na, fb, nb, f0, n0 = ev
    f2 = f0 + fa + fb
    n2 = n0 + na + nb
    m_old = np.minimum(f0 + fa, n0 + na)
    m_new = np.minimum(f0 + fb, n0 + nb)
    d_slope = (sla - slb) * (m_old + m_new - np.minimum(f0, n0) - np.minimum(f2, n2))
    d_s = (fb - fa) * (n2 - n0) - (nb - na) * (f2 - f0)
    return xs, d_slope, d_s, o[p], sig


def _kernel_bracket(sw: _Sweep, s_hi: float, limit):
    """The kernel's own sweep over (s_lo, s_hi] (ties, near-ties, rounding at the ends)."""
    st = state_from_order(sw.base, sw.order, sw.FP, sw.FN, sw.s_lo, sw.step, sw.aum,
                          sw.slope, sw.S)
    rows, _ = sweep(st, 0, limit, None, until=s_hi)
    steps, slopes, dss = (np.asarray(r, dtype=float) for r in rows[:3])
    at = 0.5 * dss  # AUC at a single swap: the mean of before and after (a diagonal)
    for k, (_, _, d_at) in rows[4].items():
        at[k] = d_at  # a cluster: its own diagonal through the block
    sw.order = np.asarray(st.order)
    sw.FP, sw.FN = np.asarray(st.FP), np.asarray(st.FN)
    sw.xs = None
    sw.s_lo = max(s_hi, st.step)
    return steps, slopes, dss, at


def _first_stop(mode: int, best: float, aums, afters, drop: float) -> int:
    """Index of the first event where the stopping rule holds, or -1 (rules of
    :func:`~penlearn.line_search.kernel.sweep`)."""
    if mode == 1:
        prevmin = np.minimum.accumulate(np.concatenate(([best], aums)))[:-1]
        hit = np.flatnonzero((aums > prevmin) | (aums < FIRST_MIN_ZERO))
        return int(hit[0]) if len(hit) else -1
    if mode == 2:
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
    ats_l = [np.array([st.auc])]
    best = sw.aum if mode == 1 else sw.S
    drop = MAX_AUC_DROP / st.scale
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
            ev, slopes_after, ds, at = _kernel_bracket(sw, s_hi, limit - n_ev)
        else:
            ev, d_slope, ds, sw.order, sw.xs = got
            at = 0.5 * ds
            slopes_after = np.cumsum(np.concatenate(([sw.slope], d_slope)))[1:]
            sw.set_gaps()
            sw.s_lo = s_hi
        if not len(ev):
            continue
        prev_slopes = np.concatenate(([sw.slope], slopes_after[:-1]))
        inc = prev_slopes * np.diff(np.concatenate(([sw.step], ev)))
        aums = np.cumsum(np.concatenate(([sw.aum], inc)))[1:]
        afters = np.cumsum(np.concatenate(([sw.S], ds)))[1:]
        ats = np.concatenate(([sw.S], afters[:-1])) + at
        stop = _first_stop(mode, best, aums, afters, drop) if mode else -1
        cut = len(ev)
        if stop >= 0:
            cut, reason = stop + 1, "rule"
        if n_ev + cut >= limit and mode == 0:
            cut, reason = int(limit - n_ev), "limit"
            xs = sw.adjacent_crossings()
            if cut == len(ev) and not np.any(xs > ev[-1]):
                reason = "exhausted"  # the limit is the last event
        for lst, arr in ((steps_l, ev), (aums_l, aums), (slopes_l, slopes_after),
                         (afters_l, afters), (ats_l, ats)):
            lst.append(arr[:cut])
        n_ev += cut
        if reason != "exhausted" or n_ev >= limit:
            break
        sw.step, sw.aum, sw.slope, sw.S = float(ev[-1]), float(aums[-1]), \
            float(slopes_after[-1]), float(afters[-1])
        if mode == 1:
            best = min(best, float(aums.min()))
        elif mode == 2:
            best = _running_best(best, afters)
    if limit == 0 and len(sw.adjacent_crossings()):
        reason = "limit"
    cat = [np.concatenate(x) for x in (steps_l, aums_l, slopes_l, afters_l, ats_l)]
    return BlocksResult(*cat, reason, brackets, fallbacks)


def _running_best(best: float, afters: np.ndarray) -> float:
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
    """Chosen step, its AUM and the number of events, by brackets (see the module doc).

    When the choice hangs on rounding noise (:func:`fragile`), the search is rerun by the
    sequential kernel from step 0, so the step is the kernel's to the last bit. For the
    count rules only the events up to the last candidate minimum are replayed: later
    events are above the minimum by more than the noise in both engines.
    """
    r = sweep_blocks(st, mode, limit)
    if not fragile(st, mode, r):
        step, aum_at = choose_blocks(mode, r)
        return step, aum_at, len(r.steps) - 1, r
    if mode:
        r = _sequential(st, mode, limit)
        step, aum_at = choose_blocks(mode, r)
        return step, aum_at, len(r.steps) - 1, r
    m = int(_near_min(r.aums)[-1])  # events to replay
    while True:
        pre = _sequential(st, 0, min(m + 1, limit))
        a = pre.aums
        i = int(np.argmin(a))
        if len(a) == len(r.aums) or a[-1] != a[i]:  # a flat minimum ends inside the replay
            break
        m *= 2
    step, aum_at = choose_blocks(0, pre)
    auc_at = pre.auc_at if len(pre.steps) == len(r.steps) else r.auc_at
    auc_after = pre.auc_after if len(pre.steps) == len(r.steps) else r.auc_after
    q = int(np.searchsorted(pre.steps, step, side="right")) - 1
    merged = r._replace(auc_at=auc_at.copy(), auc_after=auc_after.copy())
    merged.auc_at[q], merged.auc_after[q] = pre.auc_at[q], pre.auc_after[q]
    return step, aum_at, len(r.steps) - 1, merged


def _near_min(a: np.ndarray) -> np.ndarray:
    """Events whose AUM is within 1e-9 (relative) of the minimum: candidates of the
    count rules' choice that rounding could reorder (noise is ~1e-12 at that scale)."""
    lo = a.min()
    return np.flatnonzero(a <= lo + 1e-9 * max(abs(lo), 1e-300))


def fragile(st: State, mode: int, r: BlocksResult) -> bool:
    """Whether the stopping rule's choice could differ from the kernel's by rounding.

    The two engines sum the same terms in different orders, so values agree to a few ulps.
    A choice is fragile when it compares values that are equal in exact arithmetic: a
    slope within ``1e-9·max|slope|·min(ΣFP, ΣFN)`` of 0 before the first minimum (a flat
    piece of AUM, whose noisy sign decides the rule), AUM values within ``1e-9`` relative
    of the minimum at more than one event (count rules), AUM at the 1e-6 level, or AUC
    values at the tie margin or the drop threshold of ``"max_auc"``.
    """
    sl = st.np[1]
    if mode == 1:
        tot = min(1.0 / (st.scale * st.tw), st.tw / 2)  # min(ΣFP, ΣFN)
        tol = 1e-9 * float(np.abs(sl).max()) * tot
        if np.any(np.abs(r.slopes[:-1]) <= tol) or np.any(np.abs(r.slopes[-1:]) <= tol):
            return True
        return bool(np.any(np.abs(r.aums - FIRST_MIN_ZERO) <= 1e-12))
    if mode == 2:
        v = r.auc_after
        best = np.maximum.accumulate(v)
        prev = np.concatenate(([v[0]], best[:-1]))
        gap = np.abs(v - prev)
        near_tie = (gap > 0) & (gap <= 4 * AUC_TIE * np.abs(prev))
        drop = MAX_AUC_DROP / st.scale
        return bool(np.any(near_tie) or np.any(np.abs(prev - v - drop) <= 1e-9 * drop))
    return len(_near_min(r.aums)) > 1


def _sequential(st: State, mode: int, limit) -> BlocksResult:
    """The kernel's sequential sweep from step 0, as a :class:`BlocksResult`."""
    ic, sl, fpd, fnd = st.np[:4]
    fp_tot, fn_tot = 1.0 / (st.scale * st.tw), st.tw / 2
    seq = State(ic, sl, fpd, fnd, fp_tot, fn_tot)
    rows, (reason, *_) = sweep(seq, mode, limit, None)
    steps = np.concatenate(([0.0], np.asarray(rows[0], dtype=float)))
    slopes = np.concatenate(([st.slope], np.asarray(rows[1], dtype=float)))
    dss = np.asarray(rows[2], dtype=float)
    aums = np.cumsum(np.concatenate(([st.aum], slopes[:-1] * np.diff(steps))))
    afters = np.cumsum(np.concatenate(([st.auc_after], dss)))
    at = 0.5 * dss
    for k, (_, _, d_at) in rows[4].items():
        at[k] = d_at
    ats = np.concatenate(([st.auc], afters[:-1] + at))
    if reason == "limit" and not seq.heap:
        reason = "exhausted"
    return BlocksResult(steps, aums, slopes, afters, ats, reason, 0, 1)


def auc_at_step(st: State, r: BlocksResult, step: float) -> float:
    """AUC at ``step`` from the processed events: at an event, its diagonal value;
    between events, the AUC after the last event before it."""
    q = int(np.searchsorted(r.steps, step, side="right")) - 1
    S = r.auc_at[q] if r.steps[q] == step else r.auc_after[q]
    return float(S * st.scale)
