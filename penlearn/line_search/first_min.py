"""Exact first-minimum AUM line search in O(log) sorts, for monotone error functions.

The sequential line search of Fowler & Hocking (2024), "Efficient line search for
optimizing Area Under the ROC Curve in gradient descent" (Sections 3–4),
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

import math
from typing import NamedTuple

import numpy as np

from penlearn._checks import finite_vector
from penlearn._repr import compact_repr
from penlearn.line_search._anchor import Anchor, first_event, last_event, repair, sweep_from
from penlearn.line_search._common import aum_slope, gaps, sort_right
from penlearn.line_search._cutting import Cutting, Pred

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

    def __init__(self, anchor: Anchor, hi_p: np.ndarray):
        self.s = anchor.s
        self.a, self.d = anchor.a.copy(), anchor.d.copy()
        self.fp, self.fn = anchor.fp.copy(), anchor.fn.copy()
        self.fpg, self.fng, self.mg = gaps(self.fp, self.fn)
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

    def anchor(self) -> Anchor:
        return Anchor(self.s, self.a, self.d, self.fp, self.fn, self.aum, self.slope)


class _Search:
    """Bracketing of a predicate on (AUM, slope) that is monotone in the step size."""

    def __init__(self, a, d, fp, fn, kmax: int):
        self.n_sorts = 0
        self.n_local = 0
        self.kmax = kmax
        p = sort_right(a, d)  # order just after step 0
        self.n_sorts += 1
        a, d, fp, fn = a[p], d[p], fp[p], fn[p]
        _, _, m = gaps(fp, fn)
        aum, slope = aum_slope(a, d, m)
        self.zero = Anchor(0.0, a, d, fp, fn, aum, slope)
        self._last = False

    @property
    def last(self):
        """The last event (largest crossing step), computed once on demand."""
        if self._last is False:
            self.n_sorts += 1
            self._last = last_event(self.zero.a, self.zero.d)
        return self._last

    def evaluate(self, anchor: Anchor, s: float, near: bool = False):
        self.n_sorts += 1
        return anchor.evaluate(s, near)

    def bracket(self, lo: Anchor, pred, hi_s: float | None = None, guess: float | None = None):
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
        rf = Cutting(lo.s, (lo.aum, lo.slope), hi_s, hi_f, getattr(pred, "level", None))
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

    def settle(self, lo: Anchor, hi: float, pred):
        """Recompute AUM and slope at the anchor, repair rounding ties; back off if needed.

        Returns (anchor, hi): when pred already holds at the repaired anchor, the anchor
        moves down and hi becomes its old step.
        """
        lo = repair(_refresh(lo))
        k = 0
        while lo.s > 0 and pred(lo.aum, lo.slope):
            hi = min(hi, lo.s)
            width = max(hi - lo.s, 1e-9 * lo.s) * 4.0**k
            x = lo.s - width
            if x <= 0:
                return self.zero, hi
            p, aum, slope = self.evaluate(lo, x)
            lo = repair(lo.moved(x, p, aum, slope))
            k += 1
        return lo, hi


def _tiny(lo: float, hi: float) -> bool:
    """A bracket too narrow to split in floating point: its events form a cluster."""
    mid = lo + (hi - lo) / 2
    return not (lo < mid < hi) or hi - lo <= 1e-10 * hi


def _refresh(anchor: Anchor) -> Anchor:
    """The anchor with AUM and slope recomputed from scratch (no sort)."""
    _, _, m = gaps(anchor.fp, anchor.fn)
    aum, slope = aum_slope(anchor.a + anchor.d * anchor.s, anchor.d, m)
    return Anchor(anchor.s, anchor.a, anchor.d, anchor.fp, anchor.fn, aum, slope)


# --------------------------------------------------------------------------- public


# Long by design: the phases (L, R, the 1e-6 rule) of one exact rule, read top to bottom.
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
        Line b is T_b(s) = intercept[b] + s·slope[b] (Fowler & Hocking 2024, eq. 2); FP jumps by
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

    first = first_event(zero)
    if first is None:
        return done(0.0, zero.aum, "no_events")
    # slopes within rounding of 0 count as 0 (flat): |D| <= 1e-13 · Σ|slope_b·w_b|, a
    # bound of the float error of eq. 6 (Σ|w_b| <= 2 min(ΣΔFP, -ΣΔFN))
    tol = 1e-13 * 2 * float(np.abs(d).max()) * min(float(fp.sum()), float(-fn.sum()))
    ge0 = Pred(lambda aum, sl: sl, tol=tol)
    gt0 = Pred(lambda aum, sl: sl, strict=True, tol=tol)
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
            events, after = sweep_from(lo, hi, gt0, ge0, budget=budget)
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
        nxt = first_event(lo_R)
        if nxt is None:
            lo2, hi2 = lo_R, math.inf
        else:
            lo2, hi2 = srch.bracket(lo_R, gt0, guess=2 * nxt)
        if math.isfinite(hi2):
            lo2, hi2 = srch.settle(lo2, hi2, gt0)
            ev, _ = sweep_from(lo2, hi2, gt0)
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
        below = Pred(lambda aum, sl: AUM_ZERO - aum, strict=True)
        below.level = AUM_ZERO
        if zero.aum < AUM_ZERO:
            tau_lo, hi_t = zero, first
        else:
            tau_lo, hi_t = srch.bracket(zero, below, hi_s=L)
            tau_lo, hi_t = srch.settle(tau_lo, hi_t, below)
        ev, _ = sweep_from(tau_lo, hi_t, lambda aum, sl: aum < AUM_ZERO)
        n_events += len(ev)
        tau, aum_t = ev[-1][0], ev[-1][1]
        return done(tau, aum_t, "zero", n_events, bracket)
    return done((L + R) / 2, aum_L, reason, n_events, bracket)


FirstMinResult.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
