"""Exact first-minimum AUM line search in O(log) sorts, for monotone error functions.

The sequential line search of Fowler & Hocking (2024), "Efficient line search for
optimizing Area Under the ROC Curve in gradient descent" (``papers/000``, Sections 3–4),
walks the intersection events of the threshold lines T_b(s) = intercept_b + s·slope_b one
by one. Its ``"first_min"`` stopping rule (the reference's ``maxIterations="min.aum"``)
may need Θ(B²) events from a random start. When every error function is monotone
(every ΔFP ≥ 0 and every ΔFN ≤ 0), AUM(s) is convex in the step size s, so the first
minimum can be bracketed with a few evaluations of AUM and its slope at single step sizes
(one sort each, eqs. 5–6 of the paper) and then finished exactly by a short
event-by-event sweep (Theorem 1, eq. 13) over the few events left inside the bracket.

Semantics (those of the sequential rule, in exact arithmetic). Let 0 = σ_1 < σ_2 < … be
the events (distinct step sizes where adjacent lines cross), [L, R] the set of minimisers
of the convex AUM(s) (L and R are 0 or events; R may be +∞):

* the sequential rule stops at the first event with AUM > min, or AUM < 1e-6, or no more
  events, and returns ``(big + first_min_step) / 2`` with ``big`` the previous event if
  AUM > min, else this event;
* hence the step is (L + R)/2 (midpoint of a flat minimum; L itself when L = R; 0 for an
  ascent direction); when R = +∞ (AUM flat after the last event) R is replaced by the last
  event; when min AUM < 1e-6 the step is the first event τ with AUM(τ) < 1e-6 if τ ≤ L,
  and (0 + first event)/2 for a flat minimum starting at step 0.

Step sizes of events are computed with the sequential engine's formula
s = (intercept_j − intercept_i)/(slope_i − slope_j) for adjacent lines, so the returned
step is bit-identical to the event-by-event result in exact cases.

Algorithm. Each probe sorts the lines at one step size and gives AUM and its slope
(``O(B log B)``). An upward search from the tangent root A(0)/|A'(0)| finds an upper
end; then cubic interpolation of AUM (smooth regime: many events), and, once a probe
returns the same slope as the end it replaces (AUM linear up to the next kink), a
power-law model of the other side and tangent intersections, which land on the kink
exactly when one is left. When few lines still cross inside the bracket, probes sort only
those (blocks of the permutation between the two ends). The last few events are swept
one by one from the lower end with eqs. 7–13, which gives L, R, AUM and the 1e-6 rule
exactly; the sweep also repairs float near-ties of the sorted order (adjacent lines are
ordered by their crossing step, as the event engine orders them). Slopes within
1e-13·2·max|slope|·min(ΣΔFP, −ΣΔFN) of 0 count as 0 (flat). Memory is O(B).
"""

from __future__ import annotations

import heapq
import math
from typing import NamedTuple

import numpy as np

from penlearn._checks import finite_vector

#: AUM below this (absolute) stops the sequential first-min rule (reference semantics).
AUM_ZERO = 1e-6


class FirstMinResult(NamedTuple):
    """Result of :func:`first_min_monotone`.

    Attributes
    ----------
    step_size : float
        The step chosen by the first-min rule.
    aum : float
        AUM at the first minimum (the value the sequential rule reports).
    n_sorts : int
        Number of O(B log B) sorts (evaluations of AUM and its slope at one step size).
    n_events : int
        Number of intersection events handled one by one in the final sweep(s).
    reason : str
        ``"no_events"``, ``"ascent"`` (step 0), ``"min"`` (L = R), ``"flat"`` (midpoint of
        a flat minimum), ``"flat_to_last"`` (flat to +∞: midpoint with the last event) or
        ``"zero"`` (AUM < 1e-6 rule).
    bracket : tuple of float
        The last bracket (lo, hi] handed to the sweep (``(0, 0)`` when none was needed).
    method : str
        Always ``"bracket"``.

    Examples
    --------
    >>> res = first_min_monotone([0.0, 1.0], [1.0, -1.0], [1.0, 0.0], [0.0, -1.0])
    >>> res.step_size, res.aum, res.method
    (0.5, 0.0, 'bracket')
    """

    step_size: float
    aum: float
    n_sorts: int
    n_events: int
    reason: str
    bracket: tuple
    method: str = "bracket"


# --------------------------------------------------------------------------- helpers


def _as_vector(x, name: str, n: int | None = None) -> np.ndarray:
    return finite_vector(x, name, n, "the length of intercept")


def _gaps(fp: np.ndarray, fn: np.ndarray):
    """FP, FN and min(FP, FN) in the B+1 gaps around B sorted lines (gap g below line g)."""
    n = len(fp)
    fpg = np.empty(n + 1)
    fpg[0] = 0.0
    np.cumsum(fp, out=fpg[1:])
    fng = np.empty(n + 1)
    fng[n] = 0.0
    fng[:n] = -np.cumsum(fn[::-1])[::-1]
    return fpg, fng, np.minimum(fpg, fng)


def _sort_right(t: np.ndarray, d: np.ndarray, kind: str = "quicksort") -> np.ndarray:
    """Permutation sorting ``t``, ties broken by slope ``d`` (the order just after s)."""
    p = np.argsort(t, kind=kind)
    ts = t[p]
    if len(ts) > 1 and np.any(ts[1:] == ts[:-1]):
        p = np.lexsort((d, t))
    return p


def _aum_slope(t_sorted: np.ndarray, d_sorted: np.ndarray, m: np.ndarray):
    """AUM (eq. 5) and its slope (eq. 6) for lines already in order."""
    if len(t_sorted) < 2:
        return 0.0, 0.0
    w = m[:-1] - m[1:]  # weight of each line: AUM = Σ T_b w_b, slope = Σ slope_b w_b
    return float(np.dot(m[1:-1], np.diff(t_sorted))), float(np.dot(w, d_sorted))


class _Anchor:
    """Lines stored in their order just after step ``s`` (the lower end of a bracket)."""

    __slots__ = ("s", "a", "d", "fp", "fn", "aum", "slope", "_cache")

    def __init__(self, s, a, d, fp, fn, aum, slope):
        self.s, self.a, self.d, self.fp, self.fn = s, a, d, fp, fn
        self.aum, self.slope = aum, slope
        self._cache = None

    def evaluate(self, s: float, near: bool = False):
        """Order (as a permutation of the anchor order), AUM and slope just after ``s``.

        ``near``: the anchor order is almost sorted at ``s`` (use the adaptive sort).
        """
        t = self.a + self.d * s
        p = _sort_right(t, self.d, "stable" if near else "quicksort")
        d, fp, fn = self.d[p], self.fp[p], self.fn[p]
        _, _, m = _gaps(fp, fn)
        aum, slope = _aum_slope(t[p], d, m)
        self._cache = (p, d, fp, fn)  # reused by moved()
        return p, aum, slope

    def moved(self, s: float, p: np.ndarray, aum: float, slope: float) -> _Anchor:
        cache = self._cache
        if cache is not None and cache[0] is p:
            _, d, fp, fn = cache
        else:
            d, fp, fn = self.d[p], self.fp[p], self.fn[p]
        self._cache = None
        return _Anchor(s, self.a[p], d, fp, fn, aum, slope)


# --------------------------------------------------------------------------- the sweep


def _crossing(a_lo, d_lo, a_hi, d_hi):
    """Step where line (a_lo, d_lo), below, meets line (a_hi, d_hi) (sequential formula)."""
    return (a_hi - a_lo) / (d_lo - d_hi)


def _below(a_i, d_i, a_j, d_j, s):
    """Whether line i belongs below line j just after step ``s`` (vectorised).

    Decided like the event-by-event engine does: by comparing their crossing step,
    computed with the engine's formula, with ``s`` (lines that crossed at or before ``s``
    are ordered by slope, the others by the reverse).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        sig = (a_j - a_i) / (d_i - d_j)
    return np.where(d_i == d_j, a_i <= a_j, np.where(sig <= s, d_i < d_j, d_i > d_j))


def _repair(anchor: _Anchor) -> _Anchor:
    """Make the anchor's order agree with the crossing steps of adjacent lines.

    A float sort at a step within rounding of an intersection may put two lines in the
    order of the wrong side; this swaps such adjacent pairs (odd–even transposition
    passes) and recomputes AUM and slope at the anchor step. O(B) per pass, no sort.
    """
    a, d, fp, fn, s = anchor.a, anchor.d, anchor.fp, anchor.fn, anchor.s
    n = len(a)
    if n < 2:
        return anchor
    changed = False
    for _ in range(64):
        bad = ~_below(a[:-1], d[:-1], a[1:], d[1:], s)
        if not bad.any():
            break
        if not changed:
            a, d, fp, fn = a.copy(), d.copy(), fp.copy(), fn.copy()
            changed = True
        for parity in (0, 1):
            idx = np.flatnonzero(bad)
            idx = idx[idx % 2 == parity]
            if not len(idx):
                continue
            for arr in (a, d, fp, fn):
                arr[idx], arr[idx + 1] = arr[idx + 1], arr[idx].copy()
            bad = ~_below(a[:-1], d[:-1], a[1:], d[1:], s)
    if not changed:
        return anchor
    _, _, m = _gaps(fp, fn)
    aum, slope = _aum_slope(a + d * s, d, m)
    return _Anchor(s, a, d, fp, fn, aum, slope)


def _sweep(anchor: _Anchor, s_hi: float, stop, must=None, budget=None):
    """Process the events after ``anchor.s`` one by one (``papers/000`` eqs. 7–13).

    Returns a list of ``(step, aum_at_step, slope_after)``, one per event (distinct step
    size), up to the first event where ``stop(aum_at_step, slope_after)`` holds (or the
    last event), and the order after the last of them (an anchor). Events up to ``s_hi``
    are queued first; if ``must(aum, slope)`` (default: ``stop``) has not held at any
    event by then (rounding near ``s_hi``), the queue is refilled with every later event.
    Multi-way intersections (lines through one point, bit-identical step sizes) are
    handled as one reordering of the block of lines. With ``budget``, gives up (returns
    ``None`` instead of the events) after that many events if ``must`` never held.
    """
    n = len(anchor.a)
    must = must or stop
    met = False
    a, d, fp, fn = anchor.a.copy(), anchor.d.copy(), anchor.fp.copy(), anchor.fn.copy()
    ids = np.arange(n)
    fpg, fng, m = _gaps(anchor.fp, anchor.fn)

    def fill(cap, now):
        if n < 2:
            return [], cap
        aa, dd = np.asarray(a), np.asarray(d)
        idx = np.flatnonzero(dd[:-1] > dd[1:])
        if not len(idx):
            return [], cap
        sig = (aa[idx + 1] - aa[idx]) / (dd[idx] - dd[idx + 1])
        sig = np.maximum(sig, now)
        keep = sig <= cap
        idx, sig = idx[keep], sig[keep]
        frontier = cap
        if len(sig) > 256:  # queue the nearest crossings only; refill past the frontier
            frontier = float(np.partition(sig, 255)[255])
            keep = sig <= frontier
            idx, sig = idx[keep], sig[keep]
        h = list(zip(sig.tolist(), idx.tolist(), ids[idx].tolist(), ids[idx + 1].tolist()))
        heapq.heapify(h)
        return h, frontier

    def terms(b0, b1):
        tot = 0.0
        for g in range(max(b0, 1), min(b1 + 1, n - 1) + 1):
            tot += m[g] * (d[g] - d[g - 1])
        return tot

    def push(p, now):
        # adjacent pair at positions (p, p+1), p+1 above
        if p < 0 or p + 1 >= n or d[p] <= d[p + 1]:
            return
        sig = _crossing(a[p], d[p], a[p + 1], d[p + 1])
        if sig < now:  # should already have crossed (near-tie rounding): part of this event
            sig = now
        if sig <= s_hi:
            heapq.heappush(heap, (sig, p, ids[p], ids[p + 1]))

    events = []
    aum, slope, s_prev = anchor.aum, anchor.slope, anchor.s
    heap, frontier = fill(s_hi, anchor.s)
    lists = False
    while True:
        if frontier < s_hi and (not heap or heap[0][0] > frontier):
            heap, frontier = fill(s_hi, s_prev)
        if not heap:
            if math.isinf(s_hi) or met:
                break
            s_hi = math.inf
            heap, frontier = fill(s_hi, s_prev)
            if not heap:
                break
        if not lists and len(events) >= 64 and n <= 200_000:
            # many events: Python lists give faster scalar access than NumPy arrays
            a, d, fp, fn, fpg, fng, m = (x.tolist() for x in (a, d, fp, fn, fpg, fng, m))
            lists = True
        now = heap[0][0]
        touched = False
        while heap and heap[0][0] <= now:
            group = []
            while heap and heap[0][0] <= now:
                _, p, i, j = heapq.heappop(heap)
                if ids[p] == i and ids[p + 1] == j:
                    group.append(p)
            if not group:
                continue
            if not touched:
                aum += slope * (now - s_prev)
                s_prev = now
                touched = True
            group = sorted(set(group))
            runs = []
            start = prev = group[0]
            for p in group[1:]:
                if p == prev + 1:
                    prev = p
                    continue
                runs.append((start, prev + 1))
                start = prev = p
            runs.append((start, prev + 1))
            for b0, b1 in runs:
                old = terms(b0, b1)
                block = sorted(range(b0, b1 + 1), key=lambda q: d[q])
                a[b0 : b1 + 1] = [a[q] for q in block]
                fp[b0 : b1 + 1] = [fp[q] for q in block]
                fn[b0 : b1 + 1] = [fn[q] for q in block]
                ids[b0 : b1 + 1] = [ids[q] for q in block]
                d[b0 : b1 + 1] = [d[q] for q in block]
                for g in range(b0 + 1, b1 + 1):
                    fpg[g] = fpg[g - 1] + fp[g - 1]
                for g in range(b1, b0, -1):
                    fng[g] = fng[g + 1] - fn[g]
                for g in range(b0 + 1, b1 + 1):
                    m[g] = fpg[g] if fpg[g] < fng[g] else fng[g]
                slope += terms(b0, b1) - old
                push(b0 - 1, now)
                push(b1, now)
        if touched:
            events.append((now, aum, slope))
            if stop(aum, slope):
                break
            met = met or must(aum, slope)
            if budget is not None and not met and len(events) >= budget:
                events = None
                break
    state = _Anchor(
        s_prev, *(np.asarray(x, dtype=float) for x in (a, d, fp, fn)), float(aum), float(slope)
    )
    return events, state


# --------------------------------------------------------------------------- bracketing


def _blocks(r: np.ndarray):
    """Blocks of a permutation: ``r[k]`` = index (in the lo order) of the line at slot k.

    Lines only cross others of their own block between the two orders; a block is a run
    of slots that ``r`` maps onto itself. Returns (involved mask, block id) per slot.
    """
    m = len(r)
    end = np.maximum.accumulate(r) == np.arange(m)
    start = np.empty(m, bool)
    start[0] = True
    start[1:] = end[:-1]
    bid = np.cumsum(start) - 1
    size = np.bincount(bid)
    return size[bid] > 1, bid


class _Local:
    """The lines that still cross inside a bracket (lo, hi], in place in lo's order.

    Between lo and hi the order is lo's order with each block of involved lines permuted
    in place, so a probe only sorts the involved lines (``O(m log m)``, m ≪ B).
    """

    def __init__(self, anchor: _Anchor, hi_p: np.ndarray):
        self.s = anchor.s
        self.a, self.d = anchor.a.copy(), anchor.d.copy()
        self.fp, self.fn = anchor.fp.copy(), anchor.fn.copy()
        self.fpg, self.fng, self.mg = _gaps(self.fp, self.fn)
        self.aum, self.slope = anchor.aum, anchor.slope
        inv, bid = _blocks(hi_p)
        self.I = np.flatnonzero(inv)
        self.blk = bid[self.I]
        self.q = np.searchsorted(self.I, hi_p[self.I])  # hi order, as indices into I

    def _prune(self):
        if not len(self.I):
            return
        inv, bid = _blocks(self.q)
        keep = np.flatnonzero(inv)
        remap = np.cumsum(inv) - 1
        self.q = remap[self.q[keep]]
        self.I = self.I[keep]
        self.blk = bid[keep]

    def footrule(self) -> int:
        return int(np.abs(self.q - np.arange(len(self.q))).sum())

    def probe(self, x: float):
        """Sort the involved lines at x; returns the state needed to adopt it."""
        I = self.I
        aI, dI, fpI, fnI = self.a[I], self.d[I], self.fp[I], self.fn[I]
        t = aI + dI * x
        o = np.argsort(t)
        ts, bo = t[o], self.blk[o]
        if np.any(bo[1:] < bo[:-1]) or np.any(ts[1:] == ts[:-1]):
            o = np.lexsort((dI, t, self.blk))  # rounding across blocks, or ties
        an, dn, fpn, fnn = aI[o], dI[o], fpI[o], fnI[o]
        m = len(I)
        start = np.empty(m, bool)
        start[0] = True
        np.not_equal(self.blk[1:], self.blk[:-1], out=start[1:])
        bs = np.maximum.accumulate(np.where(start, np.arange(m), 0))
        cfp = np.cumsum(fpn) - fpn
        cfn = np.cumsum(fnn) - fnn
        fpb = self.fpg[I[bs]] + cfp - cfp[bs]
        fnb = self.fng[I[bs]] + cfn - cfn[bs]
        mb = np.minimum(fpb, fnb)
        ma = np.empty(m)
        ma[:-1] = mb[1:]
        end = np.empty(m, bool)
        end[-1] = True
        end[:-1] = start[1:]
        ma[end] = self.mg[I[end] + 1]
        wn = mb - ma
        wl = self.mg[I] - self.mg[I + 1]
        slope = self.slope + (np.dot(dn, wn) - np.dot(dI, wl))
        d_int = np.dot(an, wn) - np.dot(aI, wl)
        aum = self.aum + d_int + x * slope - self.s * self.slope
        return (o, an, dn, fpn, fnn, fpb, fnb, mb), aum, slope

    def adopt_hi(self, st):
        self.q = st[0].copy()
        self._prune()

    def adopt_lo(self, x, st, aum, slope):
        o, an, dn, fpn, fnn, fpb, fnb, mb = st
        I = self.I
        self.a[I], self.d[I], self.fp[I], self.fn[I] = an, dn, fpn, fnn
        self.fpg[I], self.fng[I], self.mg[I] = fpb, fnb, mb
        self.s, self.aum, self.slope = x, aum, slope
        oi = np.empty_like(o)
        oi[o] = np.arange(len(o))
        self.q = oi[self.q]
        self._prune()

    def anchor(self) -> _Anchor:
        return _Anchor(self.s, self.a, self.d, self.fp, self.fn, self.aum, self.slope)


class _Search:
    """Bracketing of a predicate on (AUM, slope) that is monotone in the step size."""

    def __init__(self, a, d, fp, fn, kmax: int):
        self.n_sorts = 0
        self.n_local = 0
        self.kmax = kmax
        p = _sort_right(a, d)  # order just after step 0
        self.n_sorts += 1
        a, d, fp, fn = a[p], d[p], fp[p], fn[p]
        _, _, m = _gaps(fp, fn)
        aum, slope = _aum_slope(a, d, m)
        self.zero = _Anchor(0.0, a, d, fp, fn, aum, slope)
        self._last = False

    @property
    def last(self):
        """The last event (largest crossing step), computed once on demand."""
        if self._last is False:
            self.n_sorts += 1
            self._last = _last_event(self.zero.a, self.zero.d)
        return self._last

    def evaluate(self, anchor: _Anchor, s: float, near: bool = False):
        self.n_sorts += 1
        return anchor.evaluate(s, near)

    def bracket(self, lo: _Anchor, pred, hi_s: float | None = None, guess: float | None = None):
        """Narrow (lo, hi] with pred false at lo and true at hi until few events remain.

        ``pred(aum, slope)`` must be monotone (false then true) in the step size.
        Returns (lo anchor, hi step). ``hi_s=None``: search upwards from ``guess``.
        Probes are full sorts while most lines still cross inside the bracket, then sorts
        of the crossing lines only.
        """
        if hi_s is None:
            x = guess if guess is not None and guess > lo.s else max(2 * lo.s, 1.0)
            for _ in range(8):
                p, aum, slope = self.evaluate(lo, x)
                if pred(aum, slope):
                    hi_s, hi_p, hi_f = x, p, (aum, slope)
                    break
                lo = lo.moved(x, p, aum, slope)
                x = 4 * x
            if hi_s is None:
                # beyond the last event the order is final: use it as the upper end
                if self.last is None or self.last <= lo.s:
                    return lo, math.inf
                p, aum, slope = self.evaluate(lo, self.last)
                if not pred(aum, slope):
                    return lo.moved(self.last, p, aum, slope), math.inf
                hi_s, hi_p, hi_f = self.last, p, (aum, slope)
        else:
            p, aum, slope = self.evaluate(lo, hi_s)
            hi_p, hi_f = p, (aum, slope)
        rf = _Cutting(lo.s, (lo.aum, lo.slope), hi_s, hi_f, getattr(pred, "level", None))
        n = len(lo.a)
        near = False
        # phase 1: full sorts while most lines are involved
        while True:
            foot = int(np.abs(hi_p - np.arange(n)).sum())
            if foot <= 2 * self.kmax or _tiny(lo.s, hi_s):
                return lo, hi_s
            if foot <= 4 * n:
                inv, _ = _blocks(hi_p)
                if int(inv.sum()) <= n // 4:
                    break
            near = foot < 2 * n
            x = rf.next()
            p, aum, slope = self.evaluate(lo, x, near)
            if pred(aum, slope):
                hi_s, hi_p = x, p
                rf.update(x, (aum, slope), True)
            else:
                inv = np.empty_like(p)
                inv[p] = np.arange(n)
                hi_p = inv[hi_p]
                lo = lo.moved(x, p, aum, slope)
                rf.update(x, (aum, slope), False)
                if rf.ready:
                    return lo, hi_s
        # phase 2: sort only the lines that cross inside the bracket
        loc = _Local(lo, hi_p)
        while len(loc.I) and loc.footrule() > 2 * self.kmax and not _tiny(loc.s, hi_s):
            x = rf.next()
            self.n_local += 1
            st, aum, slope = loc.probe(x)
            if pred(aum, slope):
                hi_s = x
                loc.adopt_hi(st)
                rf.update(x, (aum, slope), True)
            else:
                loc.adopt_lo(x, st, aum, slope)
                rf.update(x, (aum, slope), False)
                if rf.ready:
                    break
        return loc.anchor(), hi_s

    def settle(self, lo: _Anchor, hi: float, pred):
        """Recompute AUM and slope at the anchor, repair rounding ties; back off if needed.

        Returns (anchor, hi): when pred already holds at the repaired anchor, the anchor
        moves down and hi becomes its old step.
        """
        lo = _repair(_refresh(lo))
        k = 0
        while lo.s > 0 and pred(lo.aum, lo.slope):
            hi = min(hi, lo.s)
            width = max(hi - lo.s, 1e-9 * lo.s) * 4.0**k
            x = lo.s - width
            if x <= 0:
                return self.zero, hi
            p, aum, slope = self.evaluate(lo, x)
            lo = _repair(lo.moved(x, p, aum, slope))
            k += 1
        return lo, hi


def _tiny(lo: float, hi: float) -> bool:
    """A bracket too narrow to split in floating point: its events form a cluster."""
    mid = lo + (hi - lo) / 2
    return not (lo < mid < hi) or hi - lo <= 1e-10 * hi


def _refresh(anchor: _Anchor) -> _Anchor:
    """The anchor with AUM and slope recomputed from scratch (no sort)."""
    _, _, m = _gaps(anchor.fp, anchor.fn)
    aum, slope = _aum_slope(anchor.a + anchor.d * anchor.s, anchor.d, m)
    return _Anchor(anchor.s, anchor.a, anchor.d, anchor.fp, anchor.fn, aum, slope)


class _Cutting:
    """Next probe from AUM and slope at both ends of a bracket (convex piecewise-linear AUM).

    Smooth regime (the slope changes between any two probes): the minimiser of the cubic
    interpolating AUM and slope at both ends (Nocedal & Wright 2006, eq. 3.59). Staircase
    regime (a probe returns the slope of the end it replaces, up to rounding: AUM is
    exactly linear on that side up to the next slope change): the kink is where that
    line meets a quadratic model of the other side (slope and curvature from its last
    two probes), alternating with the plain tangent intersection, which is never before
    the first kink nor after the last one (cutting-plane step; exact with one kink left).
    For the level predicate AUM < c: Newton's step from lo (exact on a linear piece,
    never past the root of a convex decreasing AUM). Safeguards: log-bisection on wide
    brackets, bisection when the smooth steps stall, probes just inside an end when the
    estimate sits on it.
    """

    def __init__(self, lo, lo_v, hi, hi_v, level=None):
        self.lo, self.lo_v, self.hi, self.hi_v = lo, lo_v, hi, hi_v
        self.prev_lo = self.prev_hi = None  # the previous (step, (aum, slope)) of each end
        self.level = level
        self.slow = 0
        self.width = hi - lo
        self.stair = None  # "lo" / "hi": the end whose slope stayed the same
        self.model_step = False
        self.tangent_next = False
        self.tangent = None
        self.ready = False
        self.n_stair = 0

    def _kink(self) -> float:
        lo, hi = self.lo, self.hi
        (a0, d0), (a1, d1) = self.lo_v, self.hi_v
        beta = d1 - d0
        if self.tangent_next or self.stair is None:
            self.model_step = False
            self.tangent = (a1 - a0 + d0 * lo - d1 * hi) / (d0 - d1)
            return self.tangent
        self.model_step = True
        x = self._power_law()
        if x is not None:
            return x
        if self.stair == "lo" and self.prev_hi is not None:
            ph, (_, dph) = self.prev_hi
            c = (dph - d1) / (ph - hi)
            gamma = a1 - a0 - d0 * (hi - lo)
            disc = beta * beta - 2 * c * gamma
            if c > 0 and gamma >= 0:
                return hi - 2 * gamma / (beta + math.sqrt(max(disc, 0.0)))
        if self.stair == "hi" and self.prev_lo is not None:
            pl, (_, dpl) = self.prev_lo
            c = (d0 - dpl) / (lo - pl)
            gamma = a0 - a1 + d1 * (hi - lo)
            disc = beta * beta - 2 * c * gamma
            if c > 0 and gamma >= 0:
                return lo + 2 * gamma / (beta + math.sqrt(max(disc, 0.0)))
        return (a1 - a0 + d0 * lo - d1 * hi) / (d0 - d1)

    def _power_law(self):
        """Kink from a power law γ(u) = k·u^q of the gap between AUM and the stair line.

        u is the distance to the kink on the non-linear side; the last two probes there
        give q = Δx / Δ(γ/γ') and then u = q·γ/γ' (exact for a pure power law).
        """
        (a0, d0), (a1, d1) = self.lo_v, self.hi_v
        if self.stair == "lo" and self.prev_hi is not None:
            x1, x2 = self.hi, self.prev_hi[0]
            (b2, e2) = self.prev_hi[1]
            g1, g2 = d1 - d0, e2 - d0
            c1, c2 = a1 - a0 - d0 * (x1 - self.lo), b2 - a0 - d0 * (x2 - self.lo)
            sign = -1.0
        elif self.stair == "hi" and self.prev_lo is not None:
            x1, x2 = self.lo, self.prev_lo[0]
            (b2, e2) = self.prev_lo[1]
            g1, g2 = d1 - d0, d1 - e2
            c1, c2 = a0 - a1 + d1 * (self.hi - x1), b2 - a1 + d1 * (self.hi - x2)
            sign = 1.0
        else:
            return None
        if not (g1 > 0 and g2 > 0 and c1 > 0 and c2 > 0):
            return None
        den = c2 / g2 - c1 / g1
        if not den > 0:
            return None
        q = abs(x2 - x1) / den
        if not 1.0 < q <= 3.0:
            return None
        x = x1 + sign * q * c1 / g1
        return x if self.lo < x < self.hi else None

    def next(self) -> float:
        lo, hi = self.lo, self.hi
        self.tangent = None
        if lo > 0 and hi / lo > 8:
            return math.sqrt(lo * hi)
        mid = lo + (hi - lo) / 2
        (a0, d0), (a1, d1) = self.lo_v, self.hi_v
        if self.level is not None:
            x = lo + (self.level - a0) / d0 if d0 < 0 else mid
        elif self.stair is not None or not (d0 < 0 < d1):
            self.n_stair += 1
            if self.n_stair > 40 and self.n_stair % 2:
                return mid
            x = self._kink() if d1 > d0 else mid
        else:
            if self.slow >= 2:
                self.slow = 0
                return mid
            t1 = d0 + d1 - 3 * (a0 - a1) / (lo - hi)
            t2 = math.sqrt(t1 * t1 - d0 * d1)
            x = hi - (hi - lo) * (d1 + t2 - t1) / (d1 - d0 + 2 * t2)
        if not math.isfinite(x):
            return mid
        eps = 1e-9 * hi
        if x <= lo + eps:
            x = lo + min(eps, (hi - lo) / 2)
        elif x >= hi - eps:
            x = hi - min(eps, (hi - lo) / 2)
        return x if lo < x < hi else mid

    def update(self, x, v, is_hi: bool):
        old = self.hi_v if is_hi else self.lo_v
        same = abs(v[1] - old[1]) <= 1e-9 * max(abs(v[1]), abs(old[1]))
        if same:  # the same slope again (up to rounding): linear on that side
            self.stair = "hi" if is_hi else "lo"
        # a model step that overshot onto the linear side: take a tangent step next
        self.tangent_next = self.model_step and same
        # a tangent step that stayed on lo's line right at the predicted kink: the kink is
        # the next slope change after lo, a sweep from lo reaches it in a few events
        self.ready = (
            not is_hi and same and self.tangent is not None and x >= self.tangent - 1e-9 * x
        )
        self.model_step = False
        if is_hi:
            self.prev_hi = (self.hi, self.hi_v)
            self.hi, self.hi_v = x, v
        else:
            self.prev_lo = (self.lo, self.lo_v)
            self.lo, self.lo_v = x, v
        width = self.hi - self.lo
        self.slow = self.slow + 1 if width > self.width / 2 else 0
        self.width = width


class _Pred:
    """Predicate ``key(aum, slope) >= -tol`` (``> tol`` when ``strict``)."""

    level = None  # for "AUM < level" predicates: the level

    def __init__(self, key, strict=False, tol=0.0):
        self.key, self.strict, self.tol = key, strict, tol

    def __call__(self, aum, slope):
        v = self.key(aum, slope)
        return v > self.tol if self.strict else v >= -self.tol


def _first_event(anchor: _Anchor):
    """Smallest crossing step after ``anchor.s`` of adjacent lines (None if none)."""
    a, d = anchor.a, anchor.d
    if len(a) < 2:
        return None
    idx = np.flatnonzero(d[:-1] > d[1:])
    if not len(idx):
        return None
    sig = (a[idx + 1] - a[idx]) / (d[idx] - d[idx + 1])
    sig = sig[sig > anchor.s]
    return float(sig.min()) if len(sig) else None


def _last_event(a, d):
    """Largest positive crossing step (adjacent pairs in the order at +∞), or None."""
    p = np.lexsort((a, d))
    a, d = a[p], d[p]
    idx = np.flatnonzero(d[:-1] < d[1:])
    if not len(idx):
        return None
    sig = (a[idx + 1] - a[idx]) / (d[idx] - d[idx + 1])
    sig = sig[sig > 0]
    return float(sig.max()) if len(sig) else None


# --------------------------------------------------------------------------- public


def first_min_monotone(
    intercept, slope, fp_diff, fn_diff, *, kmax: int | None = None, check: bool = True
) -> FirstMinResult:
    """Exact first-minimum step of AUM along lines T_b(s) = intercept_b + s·slope_b.

    Same step size and AUM as the sequential engine's ``stop="first_min"`` (the reference
    ``maxIterations="min.aum"``), in O(log) sorts instead of O(B²) events, when every
    error function is monotone (all ``fp_diff >= 0`` and ``fn_diff <= 0``), so that AUM
    is convex in the step size. See the module docstring for the exact rule.

    Parameters
    ----------
    intercept, slope, fp_diff, fn_diff : array-like of shape (B,)
        Line b is T_b(s) = intercept[b] + s·slope[b] (``papers/000`` eq. 2); FP jumps by
        ``fp_diff[b]`` and FN by ``fn_diff[b]`` at that threshold.
    kmax : int, optional
        Stop bracketing when about this many events remain (default grows with B).
    check : bool
        Validate the inputs (finite, same length, monotone).

    Returns
    -------
    FirstMinResult
        ``step_size``, ``aum``, ``n_sorts``, ``n_events``, ``reason``, ``bracket``.

    Examples
    --------
    >>> r = first_min_monotone([-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [0.0, -1.0])
    >>> r.step_size, r.aum
    (1.0, 0.0)
    >>> first_min_monotone([0.0, 1.0], [-1.0, 1.0], [1.0, 0.0], [0.0, -1.0]).step_size
    0.0
    """
    a = _as_vector(intercept, "intercept")
    n = len(a)
    d = _as_vector(slope, "slope", n)
    fp = _as_vector(fp_diff, "fp_diff", n)
    fn = _as_vector(fn_diff, "fn_diff", n)
    if check:
        if n == 0:
            raise ValueError("intercept is empty: the line search needs at least one line")
        if np.any(fp < 0):
            raise ValueError("fp_diff must be >= 0 everywhere (monotone error functions)")
        if np.any(fn > 0):
            raise ValueError("fn_diff must be <= 0 everywhere (monotone error functions)")
    if kmax is None:
        kmax = max(32, n // 200)
    srch = _Search(a, d, fp, fn, kmax)
    zero = srch.zero

    def done(step, aum, reason, n_events=0, bracket=(0.0, 0.0)):
        return FirstMinResult(
            float(step),
            float(aum),
            srch.n_sorts,
            n_events,
            reason,
            (float(bracket[0]), float(bracket[1])),
        )

    first = _first_event(zero)
    if first is None:
        return done(0.0, zero.aum, "no_events")
    # slopes within rounding of 0 count as 0 (flat): |D| <= 1e-13 · Σ|slope_b·w_b|, a
    # bound of the float error of eq. 6 (Σ|w_b| <= 2 min(ΣΔFP, -ΣΔFN))
    tol = 1e-13 * 2 * float(np.abs(d).max()) * min(float(fp.sum()), float(-fn.sum()))
    ge0 = _Pred(lambda aum, sl: sl, tol=tol)
    gt0 = _Pred(lambda aum, sl: sl, strict=True, tol=tol)
    if gt0(zero.aum, zero.slope):
        return done(0.0, zero.aum, "ascent")
    n_events = 0
    bracket = (0.0, 0.0)
    # ---- L: first step where the slope after is >= 0; R: first where it is > 0
    reason = "min"
    if ge0(zero.aum, zero.slope):
        L, aum_L, R, lo_R = 0.0, zero.aum, None, zero
    else:
        lo, hi = srch.bracket(zero, ge0, guess=zero.aum / -zero.slope)
        for attempt in range(8):
            lo, hi = srch.settle(lo, hi, ge0)
            budget = 4 * kmax + 16 if attempt < 7 else None
            events, after = _sweep(lo, hi, gt0, ge0, budget=budget)
            bracket = (lo.s, hi)
            if events is not None:
                break
            # the slope change was further than expected: bracket again from there
            n_events += 4 * kmax + 16
            lo, hi = srch.bracket(after, ge0, hi_s=hi)
        n_events += len(events)
        iL = next(i for i, e in enumerate(events) if ge0(e[1], e[2]))
        L, aum_L = events[iL][0], events[iL][1]
        R = events[-1][0] if gt0(*events[-1][1:]) else None
        if R is not None and R != L:
            reason = "flat"
        lo_R = after
    if R is None:
        # a flat minimum that goes on past the bracket
        nxt = _first_event(lo_R)
        if nxt is None:
            lo2, hi2 = lo_R, math.inf
        else:
            lo2, hi2 = srch.bracket(lo_R, gt0, guess=2 * nxt)
        if math.isfinite(hi2):
            lo2, hi2 = srch.settle(lo2, hi2, gt0)
            ev, _ = _sweep(lo2, hi2, gt0)
            n_events += len(ev)
            bracket = (lo2.s, hi2)
            R = ev[-1][0]
            reason = "flat" if gt0(*ev[-1][1:]) else "flat_to_last"
        else:
            last = srch.last
            R = last if last is not None and last > L else L
            reason = "flat_to_last"
    # ---- the 1e-6 rule
    if aum_L < AUM_ZERO:
        if L == 0.0:
            step = min(first, R) / 2 if R > 0 else 0.0
            return done(step, aum_L, "zero", n_events, bracket)
        below = _Pred(lambda aum, sl: AUM_ZERO - aum, strict=True)
        below.level = AUM_ZERO
        if zero.aum < AUM_ZERO:
            tau_lo, hi_t = zero, first
        else:
            tau_lo, hi_t = srch.bracket(zero, below, hi_s=L)
            tau_lo, hi_t = srch.settle(tau_lo, hi_t, below)
        ev, _ = _sweep(tau_lo, hi_t, lambda aum, sl: aum < AUM_ZERO)
        n_events += len(ev)
        tau, aum_t = ev[-1][0], ev[-1][1]
        return done(tau, aum_t, "zero", n_events, bracket)
    return done((L + R) / 2, aum_L, reason, n_events, bracket)
