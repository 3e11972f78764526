"""Lines in their order just after a step, and the event-by-event sweep from there.

Used by the bracketing first-min search (:mod:`.first_min`): an :class:`Anchor` is the
lower end of a bracket; :func:`sweep_from` processes the few events left in a bracket one
by one with the updates of Fowler & Hocking (2024), eqs. 7-13.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from penlearn.line_search._common import aum_slope, gaps, sort_right
from penlearn.line_search.kernel import runs_of


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


def crossing(a_lo, d_lo, a_hi, d_hi):
    """Step where line (a_lo, d_lo), below, meets line (a_hi, d_hi) (sequential formula)."""
    return (a_hi - a_lo) / (d_lo - d_hi)


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


# Long by design: the hot event loop of the bracketing search (locals, inlined updates).
def sweep_from(anchor: Anchor, s_hi: float, stop, must=None, budget=None):
    """Process the events after ``anchor.s`` one by one (Fowler & Hocking 2024, eqs. 7–13).

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
    fpg, fng, m = gaps(anchor.fp, anchor.fn)

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
        sig = crossing(a[p], d[p], a[p + 1], d[p + 1])
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
            for b0, b1 in runs_of(group):
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
    state = Anchor(
        s_prev, *(np.asarray(x, dtype=float) for x in (a, d, fp, fn)), float(aum), float(slope)
    )
    return events, state


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
