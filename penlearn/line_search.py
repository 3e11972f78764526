"""Exact AUM/AUC line search (Fowler & Hocking 2024) and the grid-search baseline.

Along a descent direction the predicted scores move linearly, ŷ(s) = scores + s·slopes, so
each breakpoint b becomes a *threshold line*

    T_b(s) = (v_b − scores[I_b]) + s·(−slopes[I_b])

(``papers/000``, Section 3.2, eq. 2). Between two consecutive intersections of these lines
their order is fixed, AUM(s) is linear and AUC(s) is constant. The sequential engine of this
module starts from one sort, then walks the intersections ("events") one at a time in
increasing step size, keeping only the intersections of *adjacent* lines in a binary heap,
and updates the FP/FN of the single gap that changes, the AUM slope (Theorem 1, eq. 13) and
the AUC at/after the event (Theorem 2, eqs. 16–18) in O(1) per swap: O((B + I) log B) time
and O(B) memory for B lines and I events (``papers/000``, Sections 4.1–4.4).

Ties are handled as one event: an event at computed step x covers every adjacent pair
whose computed intersection is at most x·(1 + :data:`TIE_RTOL`) (a few dozen units in the
last place); runs of such pairs form blocks of lines, each block is sorted *exactly*
(rational arithmetic on the float inputs) by the lines' values at the end of that window
and then by slope, a neighbour out of that order joins the block, and the AUM slope / AUC
of the block are recomputed from its gaps. So a k-line intersection is one event, and a
triple point whose computed step sizes differ in the last bit can never leave a wrong
order (the failure of the C++ reference documented in ``reference/aum/README.md``, "Edge
cases"): after every event the order is the exact sort of the lines just after it.

Count-limited searches (``stop="linear"``, ``"all"`` or an int) on many lines first run a
batched NumPy engine (:func:`_batch_sweep`): it takes, in increasing step size, the
longest run of pending single swaps that are at least 3 positions apart, tie-free, and
create no intersection before the run's end, and applies them with the same arithmetic as
the sequential engine (same results); the sequential engine takes over at the first tie.

``q_size`` follows the reference: the number of distinct step sizes still queued,
counting intersections queued earlier whose lines have since stopped being adjacent (they
stay queued until their step). It is computed afterwards from the log of queued steps.

Public functions
----------------
line_search          on :class:`~penlearn.breakpoints.Breakpoints`, scores and slopes
line_search_linear   for a linear model: scores = X·w, slopes = X·d
line_search_lines    on a raw table of lines (intercept, slope, fp_diff, fn_diff)
grid_search          AUM and AUC at a grid of step sizes (the baseline of ``papers/000``)
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from penlearn._checks import finite_vector
from penlearn.aum import aum as _aum
from penlearn.aum import check_scores
from penlearn.breakpoints import Breakpoints

__all__ = [
    "LineSearchResult",
    "grid_search",
    "line_search",
    "line_search_lines",
    "line_search_linear",
]

#: Relative tolerance under which two computed intersection step sizes are one event.
#: Each computed step size is within ~3 units of roundoff (u = 2**-53) of the exact
#: intersection of the float-valued lines, so intersections of k lines through one point
#: are computed within ~6u of each other; 2**-48 = 32u leaves a safe margin.
TIE_RTOL = 2.0**-48

#: Absolute tolerances of the reference's stopping rules (README of reference/aum).
FIRST_MIN_ZERO = 1e-6
MAX_AUC_DROP = 1e-6

#: A new maximum of AUC after a step must exceed the previous one by this relative margin,
#: so that rounding noise on a plateau of equal AUC values is not taken for an increase
#: (the reference takes a later event of such a plateau; see the tests).
AUC_TIE = 2.0**-46

PATH_COLUMNS = [
    "step_size",
    "aum",
    "aum_slope_after",
    "auc",
    "auc_after",
    "intersections",
    "intervals",
    "q_size",
]

_STOP_NAMES = ("first_min", "max_auc", "linear", "all")


@dataclass(frozen=True)
class LineSearchResult:
    """Result of an exact line search.

    Attributes
    ----------
    path : DataFrame
        One row for step size 0 and one per event (a step size at which adjacent threshold
        lines intersect): ``step_size``; ``aum`` at that step; ``aum_slope_after`` (dAUM/ds
        until the next event); ``auc`` exactly at the step (tied thresholds form one diagonal
        ROC segment); ``auc_after`` on the open interval after it; ``intersections`` (distinct
        points at this step); ``intervals`` (adjacent line pairs swapped, k − 1 for a k-line
        tie); ``q_size`` (distinct future step sizes in the queue after the event,
        including intersections of lines that are no longer adjacent, as in the
        reference). With
        ``validation=`` also ``validation_aum``, ``validation_auc`` and
        ``validation_auc_after`` at the same step sizes.
    step_size : float
        The chosen step size (see :func:`line_search`, ``stop``).
    aum, auc : float
        AUM and AUC at the chosen step size.
    stop : str or int
        The stopping rule used.
    method : str
        ``"sequential"`` (this module's event engine) or ``"bracket"`` (the sub-quadratic
        first-min search of :mod:`penlearn.first_min`, which gives no path beyond step 0).
    n_lines : int
        Number of distinct threshold lines (identical lines merged).
    exhausted : bool
        True when every intersection was processed (the queue emptied).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> r = line_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], stop="all")
    >>> r.step_size, r.aum, r.iterations, r.exhausted
    (10.0, 0.0, 1, True)
    """

    path: pd.DataFrame
    step_size: float
    aum: float
    auc: float
    stop: str | int = "all"
    method: str = "sequential"
    n_lines: int = 0
    exhausted: bool = False
    info: dict = field(default_factory=dict, repr=False)

    @property
    def iterations(self) -> int:
        """Number of events processed (rows of the path after row 0)."""
        return max(len(self.path) - 1, 0)

    def best_validation(self) -> pd.Series:
        """The path row with the largest ``validation_auc_after`` (first one on ties).

        Raises ValueError when the search was run without ``validation=``.
        """
        if "validation_auc_after" not in self.path:
            raise ValueError("this line search was run without validation=")
        return self.path.loc[self.path["validation_auc_after"].idxmax()]


# ---------------------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------------------


def _float_vector(x, name: str, n: int | None = None) -> np.ndarray:
    return finite_vector(x, name, n)


def _merge_lines(intercept, slope, fp_diff, fn_diff):
    """Sort lines by (intercept, slope) and merge identical ones by summing their diffs."""
    order = np.lexsort((slope, intercept))
    ic, sl = intercept[order], slope[order]
    fp, fn = fp_diff[order], fn_diff[order]
    if len(ic) > 1:
        new = np.empty(len(ic), bool)
        new[0] = True
        new[1:] = (ic[1:] != ic[:-1]) | (sl[1:] != sl[:-1])
        if not new.all():
            starts = np.flatnonzero(new)
            ic, sl = ic[starts], sl[starts]
            fp = np.add.reduceat(fp, starts)
            fn = np.add.reduceat(fn, starts)
    return ic, sl, fp, fn


def _check_totals(fp_diff, fn_diff, what: str = "") -> tuple[float, float]:
    fp_tot = float(np.sum(fp_diff))
    fn_tot = float(-np.sum(fn_diff))
    if not fp_tot > 0:
        raise ValueError(
            f"max FP should be positive: the total FP (sum of fp_diff{what}) is {fp_tot}; "
            "the ROC curve needs at least one possible false positive"
        )
    if not fn_tot > 0:
        raise ValueError(
            f"max FN should be positive: the total FN (-sum of fn_diff{what}) is {fn_tot}; "
            "the ROC curve needs at least one possible false negative"
        )
    return fp_tot, fn_tot


def _parse_stop(stop, n_lines: int, max_iterations) -> tuple[int, int | float]:
    """Return (mode, event limit): mode 0 = count, 1 = first min, 2 = max AUC."""
    if isinstance(stop, bool):
        raise TypeError("stop must be a string or an int, not a bool")
    if isinstance(stop, (int, np.integer)):
        if stop < 0:
            raise ValueError(f"stop as a number of events must be >= 0, got {stop}")
        mode, limit = 0, int(stop)
    elif isinstance(stop, str):
        if stop not in _STOP_NAMES:
            raise ValueError(f"stop must be one of {_STOP_NAMES} or an int, got {stop!r}")
        mode, limit = {
            "first_min": (1, math.inf),
            "max_auc": (2, math.inf),
            "linear": (0, n_lines),
            "all": (0, math.inf),
        }[stop]
    else:
        raise TypeError(f"stop must be a string or an int, got {type(stop).__name__}")
    if max_iterations is not None:
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)):
            raise TypeError("max_iterations must be an int or None")
        if max_iterations < 0:
            raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
        limit = min(limit, int(max_iterations))
    return mode, limit


# ---------------------------------------------------------------------------------------
# the kinetic state: sorted lines, gaps, queue
# ---------------------------------------------------------------------------------------


class _State:
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
    (``np``) are built, for :func:`_batch_sweep`, and ``heap`` is None.
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
        fp_cum = np.concatenate(([0.0], np.cumsum(fpd)))
        # FN on gap g: sum of -fn_diff over positions >= g (reverse cumulative sum)
        fn_cum = np.concatenate((-np.cumsum(fnd[::-1])[::-1], [0.0]))
        m = np.minimum(fp_cum, fn_cum)
        # eqs. 5-6 of papers/000: AUM and its slope at step 0
        self.aum = float(np.dot(m[1:-1], np.diff(ic)))
        self.slope = float(np.dot(m[1:-1], np.diff(sl)))
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


def _runs_of(ps: list[int]) -> list[list[int]]:
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


def _cluster(st: _State, xhi: float, pairs: list[int]):
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

    blocks = _runs_of(pairs)
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


def _sweep(st: _State, mode: int, limit, max_step, until=None):
    """Process events in increasing step size; return the rows (lists) and stop info.

    mode 0: stop after ``limit`` events; 1: first minimum of AUM; 2: first maximum of
    AUC after a step (the reference's rules, README of reference/aum). ``max_step``: stop
    after the first event at or past it. ``until``: process only events with step <=
    until (validation tracking).
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
    track = mode == 1 or until is not None
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
            n_i, n_v = _cluster(st, xhi, pairs)
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


#: Below this many lines the batched engine is not worth its NumPy overhead.
BATCH_MIN_LINES = 4096


def _batch_sweep(st: _State, limit):
    """Process leading single-swap events in vectorised batches (count-limited sweeps).

    Events are taken in increasing step size from a candidate pool (every adjacent pair
    whose intersection is below a threshold ``T``, refilled by ``argpartition``). A batch
    is the longest time-ordered prefix of candidates that (i) are at least 3 positions
    apart, so that their swaps touch disjoint gaps and every new neighbour pair is final;
    (ii) have no tie: no other intersection within the event's tie window; (iii) create
    no intersection at or before the batch's last event. Such a prefix is exactly what
    the sequential engine does one event at a time, with the same floating-point
    operations (Theorems 1-2 per swap, sequential cumulative sums), so the path is
    bit-identical. The first event that fails (a tie, a near-tie, or an intersection
    created inside the batch) ends the batched phase: the state is handed back to the
    sequential engine (valid queue entries only; the push log keeps ``q_size`` exact).

    Returns (records like :func:`_sweep`'s, done) where ``done`` is True when the limit
    was reached or no intersection is left.
    """
    B = st.B
    ic, sl, fpd, fnd, FP, FN, M = st.np
    LN = np.column_stack((ic, sl, fpd, fnd))  # one gather per line set
    G = np.column_stack((FP, FN, M))  # one gather per gap set
    order = np.arange(B)
    d_sl = sl[:-1] - sl[1:]
    xs = np.full(B - 1, np.inf)
    cross = np.flatnonzero(d_sl > 0)
    xs[cross] = (ic[cross + 1] - ic[cross]) / d_sl[cross]
    rt = TIE_RTOL
    K = max(256, 4 * math.isqrt(B))
    slope, S = st.slope, st.auc_after
    rec = {"steps": [], "slopes": [], "dss": [], "npush": []}
    pushes_all = []
    n_pushed = len(st.pushed)
    n_ev = 0
    cand = np.empty(0, np.int64)
    touched = np.zeros(B - 1, bool)
    T = -math.inf
    done = False
    inf = math.inf
    while True:
        if n_ev >= limit:
            done = True
            break
        v = xs[cand]
        keep = v < T
        cand, v = cand[keep], v[keep]
        if cand.size == 0 or not (v.min() + v.min() * rt < T):
            fin = np.flatnonzero(xs < inf)
            if fin.size == 0:
                done = True
                break
            if fin.size <= K:
                cand, T = fin, inf
            else:
                part = np.argpartition(xs[fin], K)
                T = float(xs[fin[part[K]]])
                cand = fin[part[:K]]
            v = xs[cand]
        o = np.argsort(v, kind="stable")
        ev, e = cand[o], v[o]
        xh = e + e * rt
        na = int(np.count_nonzero(xh < T))
        # (ii) ties: the next candidate inside this event's window, or this one inside the
        # previous event's window
        tie = np.zeros(len(e), bool)
        tie[:-1] = e[1:] <= xh[:-1]
        tie[1:] |= tie[:-1]
        L = min(na, limit - n_ev)
        bad = np.flatnonzero(tie[:L])
        if bad.size:
            L = int(bad[0])
        # (i) positions at least 3 apart (the later event of the first close pair ends it)
        if L > 1:
            P0 = ev[:L]
            byp = np.argsort(P0)
            sp = P0[byp]
            c1 = np.flatnonzero(sp[1:] - sp[:-1] <= 2)
            if c1.size:
                L = min(L, int(np.maximum(byp[c1], byp[c1 + 1]).min()))
            c2 = np.flatnonzero(sp[2:] - sp[:-2] <= 2)
            if c2.size:
                L = min(L, int(np.maximum(byp[c2], byp[c2 + 2]).min()))
        if L == 0:
            break
        P = ev[:L]
        a = order[P]
        b = order[P + 1]
        LA, LB = LN[a], LN[b]
        LC = LN[order[np.maximum(P - 1, 0)]]
        LD = LN[order[np.minimum(P + 2, B - 1)]]
        sla, slb, slc, sld = LA[:, 1], LB[:, 1], LC[:, 1], LD[:, 1]
        hasL = P >= 1
        crossL = hasL & (slc > slb)
        hasR = P + 2 < B
        crossR = hasR & (sla > sld)
        with np.errstate(divide="ignore", invalid="ignore"):
            yl = np.where(crossL, (LB[:, 0] - LC[:, 0]) / (slc - slb), inf)
            yr = np.where(crossR, (LD[:, 0] - LA[:, 0]) / (sla - sld), inf)
        # (iii) no new intersection at or before the end of the prefix
        pm = np.minimum.accumulate(np.minimum(yl, yr))
        ok = pm > xh[:L]
        if not ok.all():
            L = int(np.argmin(ok))
            if L == 0:
                break
            P, a, b, LA, LB, sla, slb = P[:L], a[:L], b[:L], LA[:L], LB[:L], sla[:L], slb[:L]
            crossL, crossR, yl, yr = crossL[:L], crossR[:L], yl[:L], yr[:L]
            hasL, hasR = hasL[:L], hasR[:L]
        g = P + 1
        f0, n0, m0 = G[P].T
        f2, n2, m2 = G[g + 1].T
        m1o = G[g, 2]
        fb, nb = LB[:, 2], LB[:, 3]
        f1 = f0 + fb
        n1 = n0 + nb
        m1 = np.where(f1 < n1, f1, n1)
        dslope = (sla - slb) * (m1o + m1 - m0 - m2)
        ds = (fb - LA[:, 2]) * (n2 - n0) - (nb - LA[:, 3]) * (f2 - f0)
        G[g] = np.column_stack((f1, n1, m1))
        order[P], order[g] = b, a
        xs[P] = inf
        xs[P[hasL] - 1] = yl[hasL]
        xs[g[hasR]] = yr[hasR]
        sl_run = np.cumsum(np.concatenate(([slope], dslope)))[1:]
        s_run = np.cumsum(np.concatenate(([S], ds)))
        slope, S = float(sl_run[-1]), float(s_run[-1])
        both = np.column_stack((crossL, crossR))
        ys = np.column_stack((yl, yr))[both]
        pushes_all.append(ys)
        rec["npush"].append(n_pushed + np.cumsum(both.sum(axis=1)))
        n_pushed += len(ys)
        rec["steps"].append(e[:L])
        rec["slopes"].append(sl_run)
        rec["dss"].append(ds)
        n_ev += L
        # next pool: the untouched rest (still sorted) and the new pairs below T
        touched[P] = True
        touched[P[hasL] - 1] = True
        touched[g[hasR]] = True
        rest = ev[L:]
        rest = rest[~touched[rest]]
        new = np.concatenate((P[hasL] - 1, g[hasR]))
        touched[new] = False
        touched[P] = False
        new = new[xs[new] < T]
        cand = np.concatenate((rest, new))
    if not done:
        # hand the state over to the sequential engine (valid queue entries only)
        st.listify(order, G[:, 0], G[:, 1], G[:, 2])
        fin = np.flatnonzero(xs < inf)
        st.heap = list(zip(xs[fin].tolist(), order[fin].tolist(), order[fin + 1].tolist()))
        heapq.heapify(st.heap)
    if done:
        st.log_extra.extend(pushes_all)
    else:
        st.pushed = np.concatenate([np.asarray(st.pushed, dtype=float), *pushes_all]).tolist()
    st.slope, st.auc_after = slope, S
    if n_ev:
        st.step = float(rec["steps"][-1][-1])
        last_ds = float(rec["dss"][-1][-1])
        st.auc = S - last_ds + 0.5 * last_ds
    cat = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in rec.items()}
    rows = (cat["steps"], cat["slopes"], cat["dss"], cat["npush"], {})
    return rows, done


# ---------------------------------------------------------------------------------------
# drivers
# ---------------------------------------------------------------------------------------


def _prepare_lines(intercept, slope, fp_diff, fn_diff, what: str = "", lazy: bool = False):
    ic = _float_vector(intercept, f"intercept{what}")
    n = len(ic)
    sl = _float_vector(slope, f"slope{what}", n)
    fp = _float_vector(fp_diff, f"fp_diff{what}", n)
    fn = _float_vector(fn_diff, f"fn_diff{what}", n)
    if n == 0:
        raise ValueError(f"no breakpoints{what}: the line search needs at least one line")
    fp_tot, fn_tot = _check_totals(fp, fn, what)
    ic, sl, fp, fn = _merge_lines(ic, sl, fp, fn)
    return _State(ic, sl, fp, fn, fp_tot, fn_tot, lazy=lazy), n


def _choose(mode, best, best_step, prev_step, steps, aums, slopes, aucs, afters):
    """Chosen step size, AUM and AUC from the processed events (the reference's rules)."""
    s = steps
    if len(s) == 1:
        return 0.0, float(aums[0]), float(aucs[0])
    if mode == 1:
        step = (prev_step + best_step) / 2
        aum_at = best
    elif mode == 2:
        step = (prev_step + best_step) / 2
        aum_at = None
    else:
        i = int(np.argmin(aums))
        j = i
        while j + 1 < len(aums) and aums[j + 1] == aums[i]:
            j += 1
        step = (s[i] + s[j]) / 2
        aum_at = float(aums[i])
    # the row in force at `step`: the last event at or before it
    r = int(np.searchsorted(s, step, side="right")) - 1
    auc = aucs[r] if s[r] == step else afters[r]
    if aum_at is None:
        aum_at = aums[r] + slopes[r] * (step - s[r])
    return float(step), float(aum_at), float(auc)


def _validation_columns(vst: _State, steps) -> dict:
    """AUM, AUC at and AUC after each step size of ``steps`` for a second set of lines."""
    v_aum, v_auc, v_after = [], [], []
    rtol = TIE_RTOL
    for s in steps.tolist():
        before = vst.step
        _sweep(vst, 0, math.inf, None, until=s + s * rtol)
        hit = vst.step != before and vst.step >= s - s * rtol
        v_aum.append(vst.aum + vst.slope * (s - vst.step))
        v_after.append(vst.auc_after)
        v_auc.append(vst.auc if (hit or s == 0.0) else vst.auc_after)
    k = vst.scale
    return {
        "validation_aum": np.array(v_aum),
        "validation_auc": np.array(v_auc) * k,
        "validation_auc_after": np.array(v_after) * k,
    }


def _queue_sizes(pushed, steps, npush) -> np.ndarray:
    """Distinct queued step sizes after each event (the reference's ``q.size``).

    The reference keeps intersections whose lines stopped being adjacent until their step
    is reached, so ``q_size`` after event k is the number of distinct step sizes queued by
    then that are beyond the event. Every step at or before an event was queued before it
    (new intersections always lie after the current event), hence
    q_size(k) = #{distinct steps first queued before k} − #{distinct steps <= event k}.
    """
    x = np.asarray(pushed, dtype=float)
    uniq, first = np.unique(x, return_index=True)
    first.sort()
    xhi = steps + steps * TIE_RTOL
    queued = np.searchsorted(first, npush, side="left")
    passed = np.searchsorted(uniq, xhi, side="right")
    return (queued - passed).astype(np.int64)


def _run(st: _State, n_input: int, stop, max_iterations, max_step, vst: _State | None):
    if max_step is not None:
        max_step = float(max_step)
        if not max_step > 0 or math.isnan(max_step):
            raise ValueError(f"max_step must be a positive number or None, got {max_step}")
    mode, limit = _parse_stop(stop, n_input, max_iterations)
    aum0, slope0, auc0, after0, push0 = st.aum, st.slope, st.auc, st.auc_after, len(st.pushed)
    if st.heap is None:
        rows_b, done = _batch_sweep(st, limit)
        n_b = len(rows_b[0])
        if done:
            rows = rows_b
            reason, best, best_step, prev_step = (
                "limit" if n_b >= limit else "exhausted",
                0.0,
                0.0,
                0.0,
            )
        else:
            rows_s, (reason, best, best_step, prev_step) = _sweep(st, 0, limit - n_b, None)
            rows = tuple(
                np.concatenate((x, np.asarray(y, dtype=x.dtype)))
                for x, y in zip(rows_b[:4], rows_s[:4])
            ) + ({k + n_b: v for k, v in rows_s[4].items()},)
    else:
        rows, (reason, best, best_step, prev_step) = _sweep(st, mode, limit, max_step)
    steps, slopes, dss, npush, special = rows
    steps = np.concatenate(([0.0], np.asarray(steps, dtype=float)))
    slopes = np.concatenate(([slope0], np.asarray(slopes, dtype=float)))
    # S after each event: the same sequential sums as in the sweep; S at an event: half
    # of the change for a single swap (the diagonal), computed by the block otherwise
    dss = np.asarray(dss, dtype=float)
    s_after = np.cumsum(np.concatenate(([after0], dss)))
    s_at = np.empty_like(s_after)
    s_at[0] = auc0
    s_at[1:] = s_after[:-1] + 0.5 * dss
    n = len(steps)
    inter = np.ones(n, np.int64)
    inter[0] = 0
    interv = inter.copy()
    for i, (a, b, d_at) in special.items():
        inter[i + 1] = a
        interv[i + 1] = b
        s_at[i + 1] = s_after[i] + d_at
    k = st.scale
    aucs = s_at * k
    afters = s_after * k
    npush = np.concatenate(([push0], np.asarray(npush, dtype=np.int64)))
    # AUM between events is linear: the same sequential sums as in the sweep
    inc = slopes[:-1] * np.diff(steps)
    aums = np.cumsum(np.concatenate(([aum0], inc)))
    path = pd.DataFrame(
        {
            "step_size": steps,
            "aum": aums,
            "aum_slope_after": slopes,
            "auc": aucs,
            "auc_after": afters,
            "intersections": inter,
            "intervals": interv,
            "q_size": _queue_sizes(
                np.concatenate([np.asarray(st.pushed, dtype=float), *st.log_extra]), steps, npush
            ),
        }
    )
    if vst is not None:
        for col, v in _validation_columns(vst, steps).items():
            path[col] = v
    if mode == 2:
        best *= k
    step, aum_at, auc_at = _choose(
        mode, best, best_step, prev_step, steps, aums, slopes, aucs, afters
    )
    return LineSearchResult(
        path=path,
        step_size=step,
        aum=aum_at,
        auc=auc_at,
        stop=stop,
        method="sequential",
        n_lines=st.B,
        exhausted=reason == "exhausted",
        info={"reason": reason},
    )


def line_search_lines(
    intercept,
    slope,
    fp_diff,
    fn_diff,
    *,
    stop="first_min",
    max_iterations=None,
    max_step=None,
    validation=None,
    method="auto",
):
    """Exact line search on a raw table of threshold lines T(s) = intercept + s·slope.

    This is the engine under :func:`line_search`; it takes the lines directly (the
    reference's ``aumLineSearch`` input). Lines need not be sorted; identical lines (equal
    intercept and slope) are merged by summing their diffs.

    Parameters
    ----------
    intercept, slope, fp_diff, fn_diff : array-like of shape (B,)
        Line b is ``T_b(s) = intercept[b] + s·slope[b]``; at that threshold FP jumps by
        ``fp_diff[b]`` and FN by ``fn_diff[b]`` (FP is 0 below every threshold, FN is 0
        above). ``sum(fp_diff)`` and ``-sum(fn_diff)`` must be positive.
    stop, max_iterations, max_step, method
        As in :func:`line_search`.
    validation : tuple (intercept, slope, fp_diff, fn_diff), optional
        Lines of a second set tracked at the same step sizes.

    Returns
    -------
    LineSearchResult

    Examples
    --------
    >>> r = line_search_lines([-1, 0, 1], [1, 0, -1], [0.5, 0, 0.5], [0, -0.5, -0.5],
    ...                       stop="all")
    >>> r.path[["step_size", "aum", "auc", "auc_after", "intervals"]].values.tolist()
    [[0.0, 1.0, 0.375, 0.375, 0.0], [1.0, 0.0, 0.5, 0.625, 2.0]]
    """
    ic = _float_vector(intercept, "intercept")
    lines = (ic, *(_float_vector(x, name, len(ic)) for x, name in
                   ((slope, "slope"), (fp_diff, "fp_diff"), (fn_diff, "fn_diff"))))  # fmt: skip
    vst = None
    if validation is not None:
        if not (isinstance(validation, (tuple, list)) and len(validation) == 4):
            raise TypeError("validation must be a tuple (intercept, slope, fp_diff, fn_diff)")
        vst, _ = _prepare_lines(*validation, what=" (validation)")
    return _dispatch(lines, vst, stop, max_iterations, max_step, method)


def breakpoint_lines(breakpoints: Breakpoints, scores, slopes=None, name: str = ""):
    """Threshold lines of breakpoints under scores ŷ(s) = scores + s·slopes.

    Returns ``intercept = v − scores[I]``, ``slope = −slopes[I]``, ``fp_diff``, ``fn_diff``
    (``papers/000`` eq. 2). ``slopes=None`` uses the descent direction of AUM: the negative
    mean of the left and right directional derivatives (:func:`penlearn.aum`).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> ic, sl, fp, fn = breakpoint_lines(breakpoints_from_labels([0, 1]), [10.0, -10.0])
    >>> ic.tolist(), sl.tolist()
    ([-10.0, 10.0], [1.0, -1.0])
    """
    if not isinstance(breakpoints, Breakpoints):
        raise TypeError(
            f"breakpoints{name} must be a penlearn.Breakpoints, got {type(breakpoints).__name__}"
        )
    if len(breakpoints) == 0:
        raise ValueError(f"breakpoints{name} is empty: the line search needs breakpoints")
    _check_totals(breakpoints.fp_diff, breakpoints.fn_diff, name)
    s = check_scores(scores, breakpoints.n_examples, f"scores{name}")
    if slopes is None:
        deriv = _aum(breakpoints, s).derivatives
        d = -(deriv[:, 0] + deriv[:, 1]) / 2
    else:
        d = check_scores(slopes, breakpoints.n_examples, f"slopes{name}")
    ex = breakpoints.example
    return breakpoints.value - s[ex], -d[ex], breakpoints.fp_diff, breakpoints.fn_diff


def line_search(
    breakpoints: Breakpoints,
    scores,
    slopes=None,
    *,
    stop="first_min",
    max_iterations=None,
    max_step=None,
    validation=None,
    method="auto",
) -> LineSearchResult:
    """Exact AUM/AUC line search along scores ŷ(s) = scores + s·slopes.

    Parameters
    ----------
    breakpoints : Breakpoints
        The error functions as (v, ΔFP, ΔFN, example) tuples.
    scores : array-like of shape (n_examples,)
        Scores at step 0 (score = −log λ for penalty learning).
    slopes : array-like of shape (n_examples,), optional
        Rate of change of each score with the step size. Default: the AUM descent
        direction, minus the mean of the left and right directional derivatives.
    stop : {"first_min", "max_auc", "linear", "all"} or int
        ``"first_min"``: events until AUM first increases (or falls below 1e-6, or the
        queue empties); the step is the midpoint of the first flat minimum.
        ``"max_auc"``: events until AUC after a step falls more than 1e-6 below its first
        maximum (or the queue empties); the step is the midpoint between the first
        maximum's event and the last event. ``"linear"``: B events (B = number of
        breakpoints); ``"all"``: every event (quadratic in the worst case); an int k: at
        most k events. For these the chosen step minimises AUM over the explored events
        (midpoint of a flat minimum).
    max_iterations : int, optional
        Cap on the number of events for any rule.
    max_step : float, optional
        Stop after the first event at or past this step size.
    validation : tuple (Breakpoints, scores, slopes), optional
        A second set whose AUM, AUC at the step and AUC after it are added to the path
        (``validation_aum``, ``validation_auc``, ``validation_auc_after``) at the same step
        sizes; see :meth:`LineSearchResult.best_validation`.
    method : {"auto", "sequential", "bracket"}
        ``"sequential"`` runs this module's event engine. ``"bracket"`` runs
        :func:`penlearn.first_min.first_min_monotone`, an exact first-min search in a few
        sorts for monotone error functions (all ΔFP ≥ 0, ΔFN ≤ 0); its path holds row 0
        only and ``info`` its counters. ``"auto"`` (default) takes ``"bracket"`` for
        ``stop="first_min"`` on monotone breakpoints without ``validation``, ``max_step``
        and ``max_iterations``, and ``"sequential"`` otherwise. ``result.method`` says
        which one ran.

    Returns
    -------
    LineSearchResult

    Notes
    -----
    Fowler & Hocking (2024), ``papers/000``, Sections 3–4. Differences from the R
    reference (``aum::aum_line_search``): ``path`` always holds every processed event
    (the reference returns one summary row for ``min.aum``/``max.auc`` and overwrites row 0
    when ``maxStepSize`` is set); an integer ``stop=k`` means k events (the reference's
    ``maxIterations=k`` returns k rows, i.e. k − 1 events); intersections whose computed
    step sizes agree within :data:`TIE_RTOL` are one event (the reference needs bit-equal
    step sizes); input lines need not be sorted and identical lines are merged. With
    ``max_step``, ``"max_auc"`` keeps its drop rule (the reference's ``maxStepSize`` instead
    reports the event of the largest AUC so far). A new maximum of AUC after a step must
    exceed the previous one by 2**-46 relative (:data:`AUC_TIE`), so rounding noise on a
    plateau does not move the first maximum (the reference takes the noisy later event).
    The chosen step of the count rules (``"linear"``, ``"all"``, int) is the first minimum
    of AUM over the explored events (midpoint of a flat minimum); the reference returns
    the path only.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> r = line_search(bp, [10.0, -10.0], stop="all")
    >>> r.path[["step_size", "aum", "auc_after"]].values.tolist()
    [[0.0, 20.0, 0.0], [10.0, 0.0, 1.0]]
    >>> line_search(bp, [10.0, -10.0]).step_size
    10.0
    """
    lines = breakpoint_lines(breakpoints, scores, slopes)
    vst = None
    if validation is not None:
        if not (isinstance(validation, (tuple, list)) and len(validation) in (2, 3)):
            raise TypeError("validation must be a tuple (breakpoints, scores, slopes)")
        vbp, vscores, *vslopes = validation
        vslopes = vslopes[0] if vslopes else None
        vst, _ = _prepare_lines(*breakpoint_lines(vbp, vscores, vslopes, " (validation)"))
    return _dispatch(lines, vst, stop, max_iterations, max_step, method)


def _dispatch(lines, vst, stop, max_iterations, max_step, method) -> LineSearchResult:
    """Run the bracketing first-min search or the sequential engine (see ``method``)."""
    if method not in ("auto", "sequential", "bracket"):
        raise ValueError(f"method must be 'auto', 'sequential' or 'bracket', got {method!r}")
    ic, sl, fp, fn = (np.asarray(x, dtype=float) for x in lines)
    simple = (
        isinstance(stop, str)
        and stop == "first_min"
        and vst is None
        and max_step is None
        and max_iterations is None
    )
    monotone = bool(np.all(fp >= 0) and np.all(fn <= 0))
    if method == "bracket" and not (simple and monotone):
        raise ValueError(
            "method='bracket' needs stop='first_min' without validation, max_step and "
            "max_iterations, on monotone error functions (fp_diff >= 0, fn_diff <= 0)"
        )
    if method == "bracket" or (method == "auto" and simple and monotone):
        bracket = _bracket_method()
        if bracket is not None:
            return _run_bracket(bracket, ic, sl, fp, fn)
        if method == "bracket":
            raise ValueError("method='bracket' needs penlearn.first_min, which is missing")
    mode, _ = _parse_stop(stop, len(ic), max_iterations)
    lazy = mode == 0 and max_step is None and len(ic) >= BATCH_MIN_LINES
    st, n = _prepare_lines(ic, sl, fp, fn, lazy=lazy)
    return _run(st, n, stop, max_iterations, max_step, vst)


def _bracket_method():
    """:func:`penlearn.first_min.first_min_monotone`, or None if that module is absent."""
    try:
        from penlearn.first_min import first_min_monotone
    except ImportError:  # pragma: no cover - the module ships with penlearn
        return None
    return first_min_monotone


def _run_bracket(bracket, ic, sl, fp, fn) -> LineSearchResult:
    """First-min step by the sub-quadratic bracketing search; path = row 0 only."""
    st, _ = _prepare_lines(ic, sl, fp, fn, lazy=True)  # row 0 only: no queue needed
    r = bracket(ic, sl, fp, fn)
    path = pd.DataFrame(
        {
            "step_size": [0.0],
            "aum": [st.aum],
            "aum_slope_after": [st.slope],
            "auc": [st.auc * st.scale],
            "auc_after": [st.auc_after * st.scale],
            "intersections": np.zeros(1, np.int64),
            "intervals": np.zeros(1, np.int64),
            "q_size": _queue_sizes(st.pushed, np.zeros(1), np.array([len(st.pushed)])),
        }
    )
    _, auc = _grid_values(*st.np[:4], np.array([r.step_size]))
    return LineSearchResult(
        path=path,
        step_size=float(r.step_size),
        aum=float(r.aum),
        auc=float(auc[0]),
        stop="first_min",
        method="bracket",
        n_lines=st.B,
        exhausted=False,
        info={
            "reason": r.reason,
            "n_sorts": r.n_sorts,
            "n_events": r.n_events,
            "events": r.n_events,  # events swept one by one inside the final bracket
        },
    )


def _linear_parts(X, weights, direction, breakpoints, name=""):
    try:
        Xa = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X{name} must be a numeric matrix") from exc
    if Xa.ndim != 2:
        raise ValueError(f"X{name} must be two-dimensional (n × p), got shape {Xa.shape}")
    if Xa.shape[0] != breakpoints.n_examples:
        raise ValueError(
            f"X{name} has {Xa.shape[0]} rows but the breakpoints have "
            f"n_examples={breakpoints.n_examples}"
        )
    if not np.all(np.isfinite(Xa)):
        raise ValueError(f"X{name} must be finite")
    w = _float_vector(weights, "weights", Xa.shape[1])
    return Xa, w


def line_search_linear(
    breakpoints: Breakpoints,
    X,
    weights,
    direction=None,
    *,
    stop="first_min",
    max_iterations=None,
    max_step=None,
    validation=None,
    method="auto",
) -> LineSearchResult:
    """Exact line search for a linear model: scores = X·w, slopes = X·d.

    Parameters
    ----------
    breakpoints : Breakpoints
    X : ndarray of shape (n_examples, p)
        Features (an intercept column, if any, is the caller's).
    weights : array-like of shape (p,)
    direction : array-like of shape (p,), optional
        Default: minus Xᵀ times the mean of the left and right directional derivatives of
        AUM with respect to the scores (the descent direction of ``papers/000``).
    validation : tuple (Breakpoints, X_validation), optional
        Track validation AUM/AUC at the same step sizes (scores X_v·w, slopes X_v·d).
    stop, max_iterations, max_step, method
        As in :func:`line_search`.

    Returns
    -------
    LineSearchResult
        ``info["direction"]`` holds the direction d used.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> X = np.array([[1.0], [-1.0]])
    >>> r = line_search_linear(breakpoints_from_labels([0, 1]), X, [10.0])
    >>> r.step_size
    5.0
    """
    if not isinstance(breakpoints, Breakpoints):
        raise TypeError(
            f"breakpoints must be a penlearn.Breakpoints, got {type(breakpoints).__name__}"
        )
    Xa, w = _linear_parts(X, weights, direction, breakpoints)
    scores = Xa @ w
    if direction is None:
        deriv = _aum(breakpoints, scores).derivatives
        d = -(Xa.T @ ((deriv[:, 0] + deriv[:, 1]) / 2))
    else:
        d = _float_vector(direction, "direction", Xa.shape[1])
    val = None
    if validation is not None:
        if not (isinstance(validation, (tuple, list)) and len(validation) == 2):
            raise TypeError("validation must be a tuple (breakpoints, X_validation)")
        vbp, vX = validation
        if not isinstance(vbp, Breakpoints):
            raise TypeError("validation[0] must be a penlearn.Breakpoints")
        vXa, _ = _linear_parts(vX, w, None, vbp, " (validation)")
        val = (vbp, vXa @ w, vXa @ d)
    res = line_search(
        breakpoints,
        scores,
        Xa @ d,
        stop=stop,
        max_iterations=max_iterations,
        max_step=max_step,
        validation=val,
        method=method,
    )
    res.info["direction"] = d
    return res


# ---------------------------------------------------------------------------------------
# grid search baseline
# ---------------------------------------------------------------------------------------


def grid_search(breakpoints: Breakpoints, scores, slopes=None, step_sizes=None) -> pd.DataFrame:
    """AUM and AUC at each of a grid of step sizes (vectorised): the baseline of ``papers/000``.

    Parameters
    ----------
    breakpoints : Breakpoints
    scores, slopes : array-like of shape (n_examples,)
        Scores move as ``scores + s·slopes``; ``slopes=None`` uses the AUM descent
        direction as in :func:`line_search`.
    step_sizes : array-like, optional
        Default ``10.0 ** np.arange(-9, 1)`` (1e-9 … 1).

    Returns
    -------
    DataFrame
        ``step_size, aum, auc`` (AUC with tied thresholds as one diagonal ROC segment).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> g = grid_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], [-1.0, 1.0],
    ...                 step_sizes=[0.0, 5.0, 10.0, 20.0])
    >>> g.values.tolist()
    [[0.0, 20.0, 0.0], [5.0, 10.0, 0.0], [10.0, 0.0, 0.5], [20.0, 0.0, 1.0]]
    """
    ic, sl, fp, fn = breakpoint_lines(breakpoints, scores, slopes)
    if step_sizes is None:
        step_sizes = 10.0 ** np.arange(-9, 1)
    s = _float_vector(np.atleast_1d(np.asarray(step_sizes, dtype=float)), "step_sizes")
    aum_v, auc_v = _grid_values(ic, sl, fp, fn, s)
    return pd.DataFrame({"step_size": s, "aum": aum_v, "auc": auc_v})


def _grid_values(ic, sl, fp, fn, s, chunk_elems: int = 4_000_000):
    """AUM and AUC of the lines at each step size in ``s`` (rows processed in chunks)."""
    fp_tot, fn_tot = _check_totals(fp, fn)
    B = len(ic)
    out_aum = np.empty(len(s))
    out_auc = np.empty(len(s))
    rows = max(1, chunk_elems // max(B, 1))
    for start in range(0, len(s), rows):
        ss = s[start : start + rows]
        T = ic[None, :] + ss[:, None] * sl[None, :]
        o = np.argsort(T, axis=1, kind="stable")
        Ts = np.take_along_axis(T, o, axis=1)
        fpc = np.zeros((len(ss), B + 1))
        np.cumsum(fp[o], axis=1, out=fpc[:, 1:])
        fnc = np.zeros((len(ss), B + 1))
        np.cumsum(fn[o][:, ::-1], axis=1, out=fnc[:, 1:])
        fnc = -fnc[:, ::-1]
        m = np.minimum(fpc, fnc)
        out_aum[start : start + rows] = np.sum(m[:, 1:-1] * np.diff(Ts, axis=1), axis=1)
        # ROC points on gaps between distinct thresholds; tied gaps take the previous point
        keep = np.ones((len(ss), B + 1), bool)
        keep[:, 1:-1] = Ts[:, 1:] != Ts[:, :-1]
        idx = np.where(keep, np.arange(B + 1)[None, :], 0)
        np.maximum.accumulate(idx, axis=1, out=idx)
        fpr = np.take_along_axis(fpc, idx, axis=1) / fp_tot
        tpr = 1.0 - np.take_along_axis(fnc, idx, axis=1) / fn_tot
        out_auc[start : start + rows] = (
            np.sum(np.diff(fpr, axis=1) * (tpr[:, 1:] + tpr[:, :-1]), axis=1) / 2
        )
    return out_aum, out_auc
