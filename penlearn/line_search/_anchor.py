"""Lines in their order just after a step, and the event-by-event sweep from there.

Used by the bracketing first-min search (:mod:`.first_min`): an :class:`Anchor` is the
lower end of a bracket; :func:`sweep_from` processes the few events left in a bracket one
by one with the sweep kernel (:mod:`.kernel`), the one implementation of the updates of
Fowler & Hocking (2024), eqs. 7-13.
"""

from __future__ import annotations

import math

import numpy as np

from penlearn.line_search._common import aum_slope, gaps, sort_right
from penlearn.line_search.kernel import requeue, state_in_order, sweep


class Anchor:
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
        p = sort_right(t, self.d, "stable" if near else "quicksort")
        d, fp, fn = self.d[p], self.fp[p], self.fn[p]
        _, _, m = gaps(fp, fn)
        aum, slope = aum_slope(t[p], d, m)
        self._cache = (p, d, fp, fn)  # reused by moved()
        return p, aum, slope

    def moved(self, s: float, p: np.ndarray, aum: float, slope: float) -> Anchor:
        cache = self._cache
        if cache is not None and cache[0] is p:
            _, d, fp, fn = cache
        else:
            d, fp, fn = self.d[p], self.fp[p], self.fn[p]
        self._cache = None
        return Anchor(s, self.a[p], d, fp, fn, aum, slope)


# --------------------------------------------------------------------------- the sweep


def below(a_i, d_i, a_j, d_j, s):
    """Whether line i belongs below line j just after step ``s`` (vectorised).

    Decided like the event-by-event engine does: by comparing their crossing step,
    computed with the engine's formula, with ``s`` (lines that crossed at or before ``s``
    are ordered by slope, the others by the reverse).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        sig = (a_j - a_i) / (d_i - d_j)
    return np.where(d_i == d_j, a_i <= a_j, np.where(sig <= s, d_i < d_j, d_i > d_j))


def repair(anchor: Anchor) -> Anchor:
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
        bad = ~below(a[:-1], d[:-1], a[1:], d[1:], s)
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
            bad = ~below(a[:-1], d[:-1], a[1:], d[1:], s)
    if not changed:
        return anchor
    _, _, m = gaps(fp, fn)
    aum, slope = aum_slope(a + d * s, d, m)
    return Anchor(s, a, d, fp, fn, aum, slope)


def sweep_from(anchor: Anchor, s_hi: float, stop, must=None, budget=None):
    """Process the events after ``anchor.s`` with the sweep kernel (:func:`.kernel.sweep`).

    Returns a list of ``(step, aum_at_step, slope_after)``, one per event, up to the first
    event where ``stop(aum_at_step, slope_after)`` holds (or the last event), and the order
    after the last of them (an anchor). Events up to ``s_hi`` are queued first; if
    ``must(aum, slope)`` (default: ``stop``) has not held at any event by then (rounding
    near ``s_hi``), the sweep goes on past ``s_hi``. With ``budget``, gives up (returns
    ``None`` instead of the events) after that many events if ``must`` never held.
    Events, multi-way intersections and near-ties are the kernel's (Fowler & Hocking
    2024, Theorem 1, eq. 13), so the bracketing search ends exactly as the sequential one.
    """
    must = must or stop
    st, later = state_in_order(
        anchor.a, anchor.d, anchor.fp, anchor.fn, anchor.s, anchor.aum, anchor.slope, s_hi
    )
    seen = [0, False, False]  # events, must held, budget exhausted

    def rule(aum: float, slope: float) -> bool:
        seen[0] += 1
        if stop(aum, slope):
            return True
        seen[1] = seen[1] or must(aum, slope)
        seen[2] = budget is not None and not seen[1] and seen[0] >= budget
        return seen[2]

    steps, slopes = [], []
    until, limit = s_hi, 64
    while True:
        rows, (reason, *_) = sweep(st, 3, limit, None, until=until, rule=rule)
        steps += rows[0]
        slopes += rows[1]
        if reason == "limit":  # many events: Python lists index faster than NumPy arrays
            st.listify(np.asarray(st.order), np.asarray(st.FP), np.asarray(st.FN),
                       np.asarray(st.M))
            limit = math.inf
            continue
        if reason == "rule" or seen[1] or until == math.inf:
            break
        requeue(st, later)  # rounding near s_hi: go on past it
        until = math.inf
    if seen[2]:
        events = None
    else:
        events, aum, s_prev, sl_prev = [], anchor.aum, anchor.s, anchor.slope
        for x, sl in zip(steps, slopes):
            aum += sl_prev * (x - s_prev)  # the kernel's own accumulation of AUM
            events.append((x, aum, sl))
            s_prev, sl_prev = x, sl
    o = np.asarray(st.order)
    after = Anchor(st.step, anchor.a[o], anchor.d[o], anchor.fp[o], anchor.fn[o],
                   float(st.aum), float(st.slope))
    return events, after


def first_event(anchor: Anchor):
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


def last_event(a, d):
    """Largest positive crossing step (adjacent pairs in the order at +∞), or None."""
    p = np.lexsort((a, d))
    a, d = a[p], d[p]
    idx = np.flatnonzero(d[:-1] < d[1:])
    if not len(idx):
        return None
    sig = (a[idx + 1] - a[idx]) / (d[idx] - d[idx + 1])
    sig = sig[sig > 0]
    return float(sig.max()) if len(sig) else None
