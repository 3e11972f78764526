"""The sweep kernel of the exact line search: sorted lines, their gaps, the event queue.

Fowler & Hocking (2024), "Efficient line search for optimizing Area Under the ROC Curve
in gradient descent", Sections 3-4. Along a descent direction each breakpoint b is a
threshold line T_b(s) = intercept_b + s·slope_b (eq. 2). Between two consecutive
intersections ("events") the order of the lines is fixed, AUM(s) is linear and AUC(s)
constant. This module holds the one implementation of that walk: the state after one
sort (:class:`State`), the O(1) update of one swap of adjacent lines (Theorem 1, eq. 13
for the AUM slope; Theorem 2, eqs. 16-18 for the AUC), the exact handling of a cluster
of intersections at one step (:func:`cluster`) and the event loop (:func:`sweep`), which
the drivers of :mod:`.search` run with their stopping rules.

Ties are one event: an event at computed step x covers every adjacent pair whose computed
intersection is at most x·(1 + ``TIE_RTOL``); runs of such pairs form blocks of lines,
each block is sorted *exactly* (rational arithmetic on the float inputs) by the lines'
values at the end of that window and then by slope, a neighbour out of that order joins
the block, and the AUM slope / AUC of the block are recomputed from its gaps. So a k-line
intersection is one event, and a triple point whose computed step sizes differ in the
last bit never leaves a wrong order (a failure of the C++ reference implementation).
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction

import numpy as np

from penlearn._checks import finite_vector
from penlearn.line_search._common import (
    AUC_TIE,
    FIRST_MIN_ZERO,
    MAX_AUC_DROP,
    TIE_RTOL,
    aum_slope,
    check_totals,
    gaps,
    merge_lines,
)


class State:
    """Mutable state of the sweep over one set of lines (plain Python lists for speed).

    Lines are numbered by their position at step 0 (sorted by intercept, then slope).
    ``order[p]`` is the line at position p and ``pos[line]`` its position. Gap g lies
    between positions g − 1 and g (gap 0 before every line, gap B after every line) and
    holds ``FP[g]``, ``FN[g]`` and ``M[g] = min(FP[g], FN[g])`` (in the units of the diffs).
    ``heap`` holds ``(step, left line, right line)`` of queued intersections; entries whose
    lines are no longer adjacent stay queued and are skipped when popped. ``pushed`` logs
    the step of every queued entry, from which ``q_size`` is computed afterwards. AUC is
    kept as S = Σ ΔFP·(2·FN_total − FN_left − FN_right) over the ROC segments, AUC =
    S·``scale`` (exact for integer counts). With ``lazy=True`` only the NumPy arrays
    (``np``) are built, for the batched drivers, and ``heap`` is None.
    """

    __slots__ = (
        "ic", "sl", "fpd", "fnd", "order", "pos", "FP", "FN", "M", "heap", "pushed", "np",
        "log_extra",
        "B", "tw", "scale", "step", "aum", "slope", "auc", "auc_after",
    )  # fmt: skip

    def __init__(self, ic, sl, fpd, fnd, fp_tot, fn_tot, lazy=False):
        B = len(ic)
        self.B = B
        # AUC is accumulated as S = sum over ROC segments of ΔFP·(2·FN_total − FN_l − FN_r),
        # so that AUC = S·scale: exact for integer counts, and one multiply per event saved
        self.tw = 2.0 * fn_tot
        self.scale = 1.0 / (2.0 * fp_tot * fn_tot)
        # FP on gap g: sum of fp_diff below it; FN: sum of -fn_diff above it
        fp_cum, fn_cum, m = gaps(fpd, fnd)
        self.aum, self.slope = aum_slope(ic, sl, m)  # eqs. 5-6 at step 0
        # eq. 4: AUC after step 0 (ties broken by slope), and exactly at 0 (tied
        # intercepts form one diagonal ROC segment)
        tw = self.tw
        self.auc_after = float(np.sum(np.diff(fp_cum) * (tw - fn_cum[1:] - fn_cum[:-1])))
        keep = np.ones(B + 1, bool)
        keep[1:-1] = ic[1:] != ic[:-1]
        fk, nk = fp_cum[keep], fn_cum[keep]
        self.auc = float(np.sum(np.diff(fk) * (tw - nk[1:] - nk[:-1])))
        # intersections of initially adjacent lines (sorted by intercept, then slope, so
        # only a larger slope on the left can cross, at a positive step size)
        d_sl = sl[:-1] - sl[1:]
        cross = np.flatnonzero(d_sl > 0)
        x = (ic[cross + 1] - ic[cross]) / d_sl[cross]
        self.pushed = x if lazy else x.tolist()
        self.log_extra: list[np.ndarray] = []  # later queued steps kept as arrays
        self.np = (ic, sl, fpd, fnd, fp_cum, fn_cum, m)
        self.step = 0.0
        self.heap = None  # lazy: the batched engine starts from the NumPy arrays
        if not lazy:
            self.listify(np.arange(B), fp_cum, fn_cum, m)
            self.heap = list(zip(self.pushed, cross.tolist(), (cross + 1).tolist()))
            heapq.heapify(self.heap)

    def listify(self, order, FP, FN, M):
        """The Python lists the sequential engine works on (line order and gaps)."""
        ic, sl, fpd, fnd = self.np[:4]
        self.ic, self.sl = ic.tolist(), sl.tolist()
        self.fpd, self.fnd = fpd.tolist(), fnd.tolist()
        self.order = order.tolist()
        pos = np.empty(len(order), np.int64)
        pos[order] = np.arange(len(order))
        self.pos = pos.tolist()
        self.FP, self.FN, self.M = FP.tolist(), FN.tolist(), M.tolist()


def runs_of(ps: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive pair positions, as [first line position, last]."""
    ps = sorted(set(ps))
    runs = []
    lo = hi = ps[0]
    for p in ps[1:]:
        if p == hi + 1:
            hi = p
        else:
            runs.append([lo, hi + 1])
            lo = hi = p
    runs.append([lo, hi + 1])
    return runs


# One exact reordering of a cluster (closure, then updates of every block): kept whole so
# that the blocks' invariants are visible in one place.
def cluster(st: State, xhi: float, pairs: list[int]):
    """Process every intersection at step ≈ x (computed steps up to ``xhi``) as one event.

    ``pairs`` holds positions p of adjacent pairs (p, p + 1) whose computed intersection is
    at most ``xhi``. Runs of consecutive pairs form blocks of lines. Each block is sorted
    *exactly* (rational arithmetic on the float inputs) by the value of the lines at
    ``xhi`` and then by slope, i.e. into the true order just after every intersection of
    the event; a neighbour that is out of that order joins the block (closure). So a
    k-line tie is one event and near-ties whose computed step sizes differ in the last bits
    can never leave a wrong order. Each block's gaps, its part of the AUM slope (eq. 6) and
    its ROC segments (eqs. 16-18, with one diagonal through the block) are recomputed.
    Returns (number of blocks = intersections, number of swapped gaps = intervals).
    """
    order, pos, ic, sl = st.order, st.pos, st.ic, st.sl
    FP, FN, M, fpd, fnd = st.FP, st.FN, st.M, st.fpd, st.fnd
    heap, pushed = st.heap, st.pushed
    tw, B = st.tw, st.B
    X = Fraction(xhi)
    keys: dict[int, tuple] = {}

    def key(j):
        k = keys.get(j)
        if k is None:
            k = keys[j] = (Fraction(ic[j]) + X * Fraction(sl[j]), sl[j])
        return k

    over: dict[int, int] = {}  # new line at each touched position

    def line_at(p):
        return over.get(p, order[p])

    blocks = runs_of(pairs)
    changed = True
    while changed:
        changed = False
        merged: list[list[int]] = []
        for blk in sorted(blocks):
            if merged and merged[-1][1] >= blk[0]:
                merged[-1][1] = max(merged[-1][1], blk[1])
            else:
                merged.append(blk)
        blocks = merged
        for blk in blocks:
            lo, hi = blk
            lines = sorted((line_at(p) for p in range(lo, hi + 1)), key=key)
            for p, j in zip(range(lo, hi + 1), lines):
                over[p] = j
            if lo > 0 and key(line_at(lo - 1)) > key(lines[0]):
                blk[0] = lo - 1
                changed = True
            if hi + 1 < B and key(lines[-1]) > key(line_at(hi + 1)):
                blk[1] = hi + 1
                changed = True
    d_slope = 0.0
    d_at = 0.0
    d_after = 0.0
    n_int = 0
    for lo, hi in blocks:
        n_int += hi - lo
        old_d = 0.0
        old_a = 0.0
        for p in range(lo, hi + 1):
            old_d += sl[order[p]] * (M[p] - M[p + 1])
            old_a += (FP[p + 1] - FP[p]) * (tw - FN[p + 1] - FN[p])
        for p in range(lo, hi + 1):
            j = over[p]
            order[p] = j
            pos[j] = p
        for g in range(lo + 1, hi + 1):
            j = order[g - 1]
            f = FP[g - 1] + fpd[j]
            n = FN[g - 1] + fnd[j]
            FP[g] = f
            FN[g] = n
            M[g] = f if f < n else n
        new_d = 0.0
        new_a = 0.0
        for p in range(lo, hi + 1):
            new_d += sl[order[p]] * (M[p] - M[p + 1])
            new_a += (FP[p + 1] - FP[p]) * (tw - FN[p + 1] - FN[p])
        diag = (FP[hi + 1] - FP[lo]) * (tw - FN[hi + 1] - FN[lo])
        d_slope += new_d - old_d
        d_at += diag - old_a
        d_after += new_a - old_a
    # queue the adjacent pairs of the blocks and at their ends that will still cross: they
    # are in order at xhi exactly, so they cross after it, even if rounding says otherwise
    after = math.nextafter(xhi, math.inf)
    todo = {p for lo, hi in blocks for p in range(lo - 1, hi + 1) if 0 <= p < B - 1}
    for p in sorted(todo):
        a = order[p]
        b = order[p + 1]
        if sl[a] > sl[b]:
            y = (ic[b] - ic[a]) / (sl[a] - sl[b])
            if y <= xhi:
                y = after
            pushed.append(y)
            heapq.heappush(heap, (y, a, b))
    st.slope += d_slope
    st.auc = st.auc_after + d_at
    st.auc_after += d_after
    return len(blocks), n_int


# Long by design: the hot event loop keeps every value in local variables and inlines the
# single-swap update; splitting it into functions costs ~30% per event in CPython.
def sweep(st: State, mode: int, limit, max_step, until=None, rule=None):
    """Process events in increasing step size; return the rows (lists) and stop info.

    mode 0: stop after ``limit`` events; 1: first minimum of AUM; 2: first maximum of
    AUC after a step (the rules of the R package aum's line search); 3: the first event
    where ``rule(aum_at_event, slope_after)`` is true (the bracketing search's
    predicates). ``max_step``: stop after the first event at or past it. ``until``:
    process only events with step <= until (validation tracking, brackets).
    """
    heap, pushed = st.heap, st.pushed
    order, pos, ic, sl = st.order, st.pos, st.ic, st.sl
    FP, FN, M, fpd, fnd = st.FP, st.FN, st.M, st.fpd, st.fnd
    B = st.B
    Bm1 = B - 1
    Bm2 = B - 2
    heappop, heappush = heapq.heappop, heapq.heappush
    push_log = pushed.append
    rtol = TIE_RTOL
    steps, slopes, dss, npush = [], [], [], []
    steps_append, slopes_append = steps.append, slopes.append
    dss_append, npush_append = dss.append, npush.append
    drop = MAX_AUC_DROP / st.scale
    multi = {}
    step, aum, slope, auc_after = st.step, st.aum, st.slope, st.auc_after
    n_ev = 0
    best = aum if mode == 1 else auc_after
    best_step = 0.0
    prev_step = step
    reason = "limit"
    max_step = math.inf if max_step is None else max_step
    # AUM is recomputed from the records afterwards; follow it here only when needed
    track = mode == 1 or mode == 3 or until is not None
    until = math.inf if until is None else until
    while n_ev < limit and heap:
        x, a, b = heappop(heap)
        p = pos[a]
        if p == Bm1 or order[p + 1] != b:
            continue  # stale: the lines are no longer adjacent
        if x > until:
            heappush(heap, (x, a, b))
            reason = "until"
            break
        xhi = x + x * rtol
        general = False
        while heap and heap[0][0] <= xhi:
            e = heap[0]
            if e[1] == a and e[2] == b:
                heappop(heap)  # the same pair queued twice
            else:
                general = True
                break
        sla = sl[a]
        slb = sl[b]
        if not general:
            # new neighbours after swapping a and b: (c, b) on the left, (a, d) on the right
            c = d = -1
            if p:
                c = order[p - 1]
                slc = sl[c]
                if slc > slb:
                    yc = (ic[b] - ic[c]) / (slc - slb)
                    if yc <= xhi:
                        general = True
                else:
                    c = -1
            if p < Bm2:
                d = order[p + 2]
                sld = sl[d]
                if sla > sld:
                    yd = (ic[d] - ic[a]) / (sla - sld)
                    if yd <= xhi:
                        general = True
                else:
                    d = -1
        if track:
            aum += slope * (x - step)
            step = x
        if general:
            st.slope, st.auc_after = slope, 0.0
            pairs = [p]
            while heap and heap[0][0] <= xhi:
                _, a2, b2 = heappop(heap)
                p2 = pos[a2]
                if p2 < Bm1 and order[p2 + 1] == b2:
                    pairs.append(p2)
            n_i, n_v = cluster(st, xhi, pairs)
            slope, ds = st.slope, st.auc_after
            multi[len(steps)] = (n_i, n_v, st.auc)
        else:
            # one swap of a (position p) and b (p + 1): only gap p + 1 changes (eqs. 10-12)
            order[p] = b
            order[p + 1] = a
            pos[b] = p
            pos[a] = p + 1
            g = p + 1
            f0 = FP[p]
            n0 = FN[p]
            f2 = FP[g + 1]
            n2 = FN[g + 1]
            m1o = M[g]
            fb = fpd[b]
            nb = fnd[b]
            f1 = f0 + fb
            n1 = n0 + nb
            m1 = f1 if f1 < n1 else n1
            FP[g] = f1
            FN[g] = n1
            M[g] = m1
            # Theorem 1 (eq. 13): AUM slope
            slope += (sla - slb) * (m1o + m1 - M[p] - M[g + 1])
            # Theorem 2 (eqs. 16-18): AUC at and after the event; segments are
            # (ΔFP)(TP_left + TP_right) with TP = 1 − FN/FN_total, halved and scaled below
            # the ROC point of gap g moves by (Δfp, Δfn); S is affine in it, and the
            # diagonal at the tie is the mean of before and after (half of ds)
            ds = (fb - fpd[a]) * (n2 - n0) - (nb - fnd[a]) * (f2 - f0)
            if c >= 0:
                push_log(yc)
                heappush(heap, (yc, c, b))
            if d >= 0:
                push_log(yd)
                heappush(heap, (yd, a, d))
        auc_after += ds
        steps_append(x)
        slopes_append(slope)
        dss_append(ds)
        npush_append(len(pushed))
        n_ev += 1
        if mode:
            prev_step = x
            if mode == 1:
                if aum < best:
                    best = aum
                    best_step = x
                elif aum > best:
                    prev_step = steps[-2] if n_ev > 1 else 0.0
                    reason = "rule"
                    break
                if aum < FIRST_MIN_ZERO:
                    reason = "rule"
                    break
            elif mode == 3:
                if rule(aum, slope):
                    reason = "rule"
                    break
            elif auc_after > best + AUC_TIE * abs(best):
                best = auc_after
                best_step = x
            elif best - auc_after > drop:
                reason = "rule"
                break
        if x >= max_step:
            reason = "max_step"
            break
    if reason == "limit" and not heap:
        reason = "exhausted"
    if n_ev:
        i = n_ev - 1
        ds = dss[i]
        st.auc = auc_after - ds + (multi[i][2] if i in multi else 0.5 * ds)
    if track:
        st.aum, st.step = aum, step
    st.slope, st.auc_after = slope, auc_after
    rows = (steps, slopes, dss, npush, multi)
    return rows, (reason, best, best_step, prev_step)



def prepare_lines(intercept, slope, fp_diff, fn_diff, what: str = "", lazy: bool = False):
    """Checked, merged lines as a :class:`State` at step 0, and the number of input lines."""
    ic = finite_vector(intercept, f"intercept{what}")
    n = len(ic)
    sl = finite_vector(slope, f"slope{what}", n)
    fp = finite_vector(fp_diff, f"fp_diff{what}", n)
    fn = finite_vector(fn_diff, f"fn_diff{what}", n)
    if n == 0:
        raise ValueError(f"no breakpoints{what}: the line search needs at least one line")
    fp_tot, fn_tot = check_totals(fp, fn, what)
    ic, sl, fp, fn = merge_lines(ic, sl, fp, fn)
    return State(ic, sl, fp, fn, fp_tot, fn_tot, lazy=lazy), n


def state_from_order(base: State, order: np.ndarray, FP, FN, s_lo: float, step: float,
                     aum: float, slope: float, auc_after: float) -> State:
    """A :class:`State` in the middle of a sweep: lines in ``order`` (valid just after
    ``s_lo``), gap values ``FP``/``FN``, the last event at ``step`` with its AUM, the AUM
    slope and the AUC accumulator after it. The queue holds the adjacent pairs that still
    cross (after ``s_lo``, even if rounding says otherwise). ``base`` gives the lines."""
    st = object.__new__(State)
    for name in ("B", "tw", "scale", "np"):
        setattr(st, name, getattr(base, name))
    st.listify(np.asarray(order), np.asarray(FP), np.asarray(FN),
               np.minimum(np.asarray(FP), np.asarray(FN)))
    ic, sl = base.np[0], base.np[1]
    o = np.asarray(order)
    d_sl = sl[o[:-1]] - sl[o[1:]]
    cross = np.flatnonzero(d_sl > 0)
    x = (ic[o[cross + 1]] - ic[o[cross]]) / d_sl[cross]
    x = np.maximum(x, math.nextafter(s_lo, math.inf))
    st.pushed = x.tolist()
    st.log_extra = []
    st.heap = list(zip(st.pushed, o[cross].tolist(), o[cross + 1].tolist()))
    heapq.heapify(st.heap)
    st.step, st.aum, st.slope, st.auc_after, st.auc = step, aum, slope, auc_after, auc_after
    return st


def state_in_order(a, d, fp, fn, s: float, aum: float, slope: float, cap: float = math.inf):
    """A :class:`State` over lines given in their order just after step ``s``.

    Line j is the line at position j (``a``, ``d``: intercepts and slopes; ``fp``, ``fn``:
    its jumps); ``aum`` and ``slope`` are AUM at ``s`` and its slope after it. Only the
    adjacent pairs crossing at or before ``cap`` are queued (a crossing computed before
    ``s`` by rounding counts as an event at ``s``); the others are returned (steps and
    left lines), to :func:`requeue` if the sweep must go past ``cap``. The AUC
    accumulators are left at 0 (the bracketing search follows AUM only).
    """
    st = object.__new__(State)
    B = len(a)
    fp_cum, fn_cum, m = gaps(fp, fn)
    st.B, st.tw, st.scale = B, 2.0 * float(fn_cum[0]), 1.0
    st.np = (a, d, fp, fn, fp_cum, fn_cum, m)
    # NumPy arrays, not lists: a bracket holds few events, and B may be 10^6 (the driver
    # calls State.listify once many events come)
    st.ic, st.sl, st.fpd, st.fnd = a, d, fp, fn
    st.order, st.pos = np.arange(B), np.arange(B)
    st.FP, st.FN, st.M = fp_cum, fn_cum, m
    idx = np.flatnonzero(d[:-1] > d[1:])
    x = np.maximum((a[idx + 1] - a[idx]) / (d[idx] - d[idx + 1]), s)
    near = x <= cap
    st.pushed = x[near].tolist()
    st.log_extra = []
    st.heap = list(zip(st.pushed, idx[near].tolist(), (idx[near] + 1).tolist()))
    heapq.heapify(st.heap)
    far = ~near
    later = (x[far], idx[far])
    st.step, st.aum, st.slope, st.auc_after, st.auc = s, aum, slope, 0.0, 0.0
    return st, later


def requeue(st: State, later: tuple) -> None:
    """Queue the crossings kept aside by :func:`state_in_order` (steps, left lines; the
    right line is the next one); pairs no longer adjacent are skipped when popped."""
    x, idx = later
    st.pushed += x.tolist()
    for e in zip(x.tolist(), idx.tolist(), (idx + 1).tolist()):
        heapq.heappush(st.heap, e)


def lines_state(ic: np.ndarray, sl: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> State:
    """:func:`prepare_lines` for lines known to be finite float arrays (no copies, no
    checks beyond the totals): the lazy :class:`State` of the vectorised drivers."""
    fp_tot, fn_tot = check_totals(fp, fn)
    return State(*merge_lines(ic, sl, fp, fn), fp_tot, fn_tot, lazy=True)
