"""Exact first-minimum line search for any error functions: certified skips, then a sweep.

The sequential ``"first_min"`` rule of Fowler & Hocking (2024), "Efficient line search for
optimizing Area Under the ROC Curve in gradient descent" (Sections 3–4), walks every
intersection event of the threshold lines T_b(s) = a_b + s·d_b until AUM first increases.
With non-monotone error functions (peak labels) AUM is not convex in the step size, so the
first minimum cannot be bracketed by the sign of the slope at a few steps
(:mod:`.first_min`). This driver skips the events of a bracket (s, s2] only when it can
*prove* that the slope of AUM stays negative all through it, then sorts at s2 and goes on;
the last events before the first minimum are swept one by one by the kernel.

The bound (eq. 6 of the paper: the slope just after a step is Σ_b d_b·w_b over the lines
in order, w_b = m_below(b) − m_above(b), m = min(FP, FN) of a gap). With FP and FN the
totals below line b, e = FP − FN and (p, q) = (ΔFP_b, ΔFN_b),

    w_b = min(e, 0) − q − min(e + p − q, 0),

a monotone function of e alone. e changes only when another line j crosses b, by
±(p_j − q_j); a line that crosses b in (s, s2] is within (max d − min d)·(s2 − s) of it at
s. So over the bracket e stays in [e − M_b, e + M_b], M_b = Σ |p_j − q_j| over the lines j
in that window, and d_b·w_b is at most its larger value at the two ends. If the sum of
these maxima is below 0 (by a margin far above rounding), AUM decreases strictly through
the bracket: no event in it can stop the sequential rule (an increase; AUM < 1e-6 is
checked at s2), and its minimum so far is at s2.

The final sweep starts from the order just after the last skipped step with the kernel's
own first-min rule (:func:`.kernel.sweep`, mode 1), so the events it sees — their steps,
the multi-way clusters — are those of the full walk, and the chosen step is the same
midpoint of the same two events. The AUM values differ by rounding only (sums in another
order); when the rule hangs on that rounding (a slope within 1e-9 relative of 0, AUM near
1e-6) the caller reruns the full walk (:func:`first_min_skip` returns None).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from penlearn.line_search._anchor import Anchor, repair
from penlearn.line_search._common import FIRST_MIN_ZERO, aum_slope, gaps, sort_right
from penlearn.line_search.kernel import state_in_order, sweep

__all__ = ["SkipResult", "SlopeBound", "first_min_skip", "slope_bound"]

#: Certify a bracket only when the slope bound is below −margin·Σ|d_b|·max|w_b|.
CERT_MARGIN = 1e-9

#: Stop skipping when a bracket holding about this many adjacent crossings fails.
MIN_CROSSINGS = 256
#: Events the final sweep may take before the full walk (blocks engine) is run instead.
SWEEP_BUDGET = 200_000

#: Events swept one by one where the bound fails on the fewest crossings, before skipping
#: again.
CHUNK = 2_000

#: Search each class of equal slopes on its own side when there are at most this many.
MAX_CLASSES = 16


class SkipResult(NamedTuple):
    """Result of :func:`first_min_skip`: the step, AUM there, counters."""

    step_size: float
    aum: float
    n_sorts: int
    n_events: int
    skipped_to: float
    reason: str


def _w(e, p, q):
    """w_b = m_below − m_above as a function of e = FP − FN below the line."""
    return np.minimum(e, 0.0) - q - np.minimum(e + p - q, 0.0)


class SlopeBound:
    """Upper bounds of the AUM slope over brackets (s, s2] from one anchor at s.

    A line j crosses line b in (s, s2] only if it is below b at s and rises faster
    (d_j > d_b, within (d_j − d_b)·(s2 − s) of it), which moves e = FP − FN below b by
    −(p_j − q_j), or above b and rises slower, which moves it by +(p_j − q_j). With few
    distinct slopes (a tree's direction) each class of equal slopes is searched on its
    own side; otherwise one window of half-width (max d − min d)·(s2 − s), both signs.
    What does not depend on s2 (thresholds, gaps, per-class cumulative sums) is computed
    once per anchor.
    """

    def __init__(self, anchor: Anchor, classes: np.ndarray | None = None):
        a, d, fp, fn, s = anchor.a, anchor.d, anchor.fp, anchor.fn, anchor.s
        self.s, self.d, self.fp, self.fn = s, d, fp, fn
        t = a + d * s
        self.t = t
        fpg, fng, _ = gaps(fp, fn)
        self.e = fpg[:-1] - fng[:-1]
        delta = fp - fn  # e below b moves by -delta_j (j leaves) or +delta_j (j arrives)
        self.tmax = float(np.abs(t).max())
        self.dmax = float(np.abs(d).max())
        self.pad = 1e-12 * float(np.abs(delta).sum())
        self.scale = float(np.sum(np.abs(d) * np.maximum(np.abs(fp), np.abs(fn))))
        if classes is None:
            classes = np.unique(d)
        self.per_class = []
        if len(classes) <= MAX_CLASSES:
            for c in classes:
                idx = np.flatnonzero(d == c)
                if not len(idx):
                    continue
                pos = np.concatenate(([0.0], np.cumsum(np.maximum(delta[idx], 0.0))))
                neg = np.concatenate(([0.0], np.cumsum(np.minimum(delta[idx], 0.0))))
                f, g = np.flatnonzero(d < c), np.flatnonzero(d > c)
                self.per_class.append((c, np.maximum.accumulate(t[idx]), pos, neg, f, g,
                                       t[f], t[g], c - d[f], d[g] - c))
        else:
            u = np.abs(delta)
            self.u, self.U = u, np.concatenate(([0.0], np.cumsum(u)))
            self.ct = np.maximum.accumulate(t)
            self.span = float(d.max() - d.min())

    def __call__(self, s2: float) -> float:
        """The bound over (s, s2]."""
        dt = s2 - self.s
        slack = 1e-12 * (self.tmax + abs(s2) * self.dmax)  # rounding of t and the order
        up = np.zeros(len(self.t))  # largest increase of e, and largest decrease (<= 0)
        down = np.zeros(len(self.t))
        if self.per_class:
            for _, tc, pos, neg, f, g, tf, tg, rf, rg in self.per_class:
                # faster lines below b (d_b < c): they leave, e moves by -delta
                reach = rf * dt * (1 + 1e-9) + slack
                i0 = np.searchsorted(tc, tf - reach, side="left")
                i1 = np.searchsorted(tc, tf + slack, side="right")
                up[f] -= neg[i1] - neg[i0]
                down[f] -= pos[i1] - pos[i0]
                # slower lines above b (d_b > c): they arrive, e moves by +delta
                reach = rg * dt * (1 + 1e-9) + slack
                i0 = np.searchsorted(tc, tg - slack, side="left")
                i1 = np.searchsorted(tc, tg + reach, side="right")
                up[g] += pos[i1] - pos[i0]
                down[g] += neg[i1] - neg[i0]
        else:
            rel = self.span * dt * (1 + 1e-9) + slack
            i0 = np.searchsorted(self.ct, self.t - rel, side="left")
            i1 = np.searchsorted(self.ct, self.t + rel, side="right")
            up = np.maximum(self.U[i1] - self.U[i0] - self.u, 0.0)
            down = -up
        w1 = _w(self.e + down * (1 + 1e-9) - self.pad, self.fp, self.fn)
        w2 = _w(self.e + up * (1 + 1e-9) + self.pad, self.fp, self.fn)
        return float(np.sum(np.maximum(self.d * w1, self.d * w2)))


def slope_bound(anchor: Anchor, s2: float) -> tuple[float, float]:
    """Upper bound of the AUM slope over (anchor.s, s2] (:class:`SlopeBound`), and the
    scale of its rounding, Σ_b |d_b|·max(|ΔFP_b|, |ΔFN_b|).

    Examples
    --------
    >>> a = Anchor(0.0, np.array([0.0, 2.0]), np.array([1.0, -1.0]), np.array([1.0, 0.0]),
    ...            np.array([0.0, -1.0]), 2.0, -2.0)
    >>> round(slope_bound(a, 0.5)[0], 9), slope_bound(a, 2.0)[0]  # the lines cross at 1
    (-2.0, 0.0)
    """
    b = SlopeBound(anchor)
    return b(s2), b.scale


def first_min_skip(ic, sl, fp, fn, *, max_sorts: int = 200) -> SkipResult | None:
    """First-min step of the sequential rule, skipping certified brackets of events.

    Same step as ``line_search(..., stop="first_min", method="sequential")`` (the full
    walk) for any error functions; None when the choice hangs on rounding (the caller
    then runs the full walk). Inputs are the merged lines of
    :func:`~penlearn.line_search.kernel.prepare_lines`.

    Examples
    --------
    >>> r = first_min_skip(np.array([-1.0, 1.0]), np.array([1.0, -1.0]),
    ...                    np.array([1.0, 0.0]), np.array([0.0, -1.0]))
    >>> r.step_size, r.aum
    (1.0, 0.0)
    """
    a, d, fp, fn = (np.asarray(x, dtype=float) for x in (ic, sl, fp, fn))
    p = sort_right(a, d)
    a, d, fp, fn = a[p], d[p], fp[p], fn[p]
    _, _, m = gaps(fp, fn)
    aum0, slope0 = aum_slope(a, d, m)
    lo = Anchor(0.0, a, d, fp, fn, aum0, slope0)
    n_sorts, n_chunked = 1, 0
    width, sb = None, None
    classes = np.unique(d)
    tot = min(float(fp.sum()), float(-fn.sum()))
    tol = 1e-9 * float(np.abs(d).max()) * tot  # slopes this close to 0 are rounding noise
    while n_sorts < max_sorts and lo.aum > FIRST_MIN_ZERO and lo.slope < -tol:
        x = _crossings(lo)
        if not len(x):
            break
        k = min(MIN_CROSSINGS, len(x)) - 1
        floor = float(np.partition(x, k)[k]) - lo.s
        if width is None:
            width = floor
        width = max(width, floor)
        if sb is None or sb.s != lo.s:
            sb = SlopeBound(lo, classes)
        bound, scale = sb(lo.s + width), sb.scale
        unc = bound - lo.slope  # grows about linearly with the width
        nxt_width = width * 4 if unc <= 0 else width * min(4.0, max(0.125, -0.5 * lo.slope / unc))
        if not bound < -CERT_MARGIN * scale:
            if width <= floor:
                # the bound fails on a few crossings: sweep a chunk of events one by one
                nxt, k = _chunk(lo, tol)
                n_chunked += k
                if nxt is None:
                    break  # AUM stops decreasing within the chunk: the final sweep
                lo, width = nxt, None
                continue
            width = min(nxt_width, width / 2)
            continue
        s2 = lo.s + width
        pp, aum2, slope2 = lo.evaluate(s2)
        n_sorts += 1
        nxt = repair(lo.moved(s2, pp, aum2, slope2))
        if not (nxt.aum > FIRST_MIN_ZERO * (1 + 1e-6) and nxt.slope < 0):
            break  # cannot happen in exact arithmetic: sweep from lo
        lo = nxt
        width = nxt_width
    skipped = lo.s
    st, _ = state_in_order(lo.a, lo.d, lo.fp, lo.fn, lo.s, lo.aum, lo.slope)
    st.listify(st.order, st.FP, st.FN, st.M)  # many events: lists index faster
    rows, (reason, best, best_step, prev_step) = sweep(st, 1, SWEEP_BUDGET, None)
    if reason == "limit":
        return None  # the skips stopped far from the minimum: the blocks engine is faster
    steps, slopes = rows[0], rows[1]
    if not steps:
        if skipped > 0:
            return None  # AUM decreasing after the last event: impossible, leave it
        return SkipResult(0.0, lo.aum, n_sorts, 0, skipped, "exhausted")
    # fragile: a flat piece (slope within rounding of 0) or AUM at the 1e-6 level
    aums = lo.aum + np.cumsum(np.diff(np.concatenate(([lo.s], steps)))
                              * np.concatenate(([lo.slope], slopes[:-1])))
    # (the slope after the event that stopped the rule plays no part in it)
    deciding = np.asarray(slopes[:-1] if reason == "rule" else slopes)
    if (np.any(np.abs(deciding) <= tol) or abs(lo.slope) <= tol
            or np.any(np.abs(aums - FIRST_MIN_ZERO) <= 1e-12)):
        return None
    if skipped > 0 and not best_step > skipped:
        # no event after the skip lowered AUM (in exact arithmetic the first one does; an
        # anchor within rounding of an event can say otherwise): leave it to the walk
        return None
    step = (prev_step + best_step) / 2
    return SkipResult(float(step), float(best), n_sorts, n_chunked + len(steps), skipped,
                      reason)


def _chunk(lo: Anchor, tol: float):
    """Sweep up to :data:`CHUNK` events after ``lo`` with the kernel; the anchor after
    them when the slope of AUM stayed below −tol (and AUM above 1e-6) at every one, else
    None (the first minimum is near: the final sweep starts again from ``lo``)."""
    st, _ = state_in_order(lo.a, lo.d, lo.fp, lo.fn, lo.s, lo.aum, lo.slope)
    st.listify(st.order, st.FP, st.FN, st.M)

    def near(aum: float, slope: float) -> bool:
        return slope >= -tol or aum <= FIRST_MIN_ZERO * (1 + 1e-6)

    rows, (reason, *_) = sweep(st, 3, CHUNK, None, rule=near)
    if reason != "limit":
        return None, len(rows[0])
    o = np.asarray(st.order)
    after = Anchor(float(st.step), lo.a[o], lo.d[o], lo.fp[o], lo.fn[o], float(st.aum),
                   float(st.slope))
    return after, len(rows[0])


def _crossings(anchor: Anchor) -> np.ndarray:
    """Crossing steps after ``anchor.s`` of adjacent lines in the anchor's order."""
    a, d = anchor.a, anchor.d
    idx = np.flatnonzero(d[:-1] > d[1:])
    x = (a[idx + 1] - a[idx]) / (d[idx] - d[idx + 1])
    return x[x > anchor.s]
