"""First minimum of AUM on any error functions, by brackets that skip slope-neutral lines.

Fowler & Hocking (2024), "Efficient line search for optimizing Area Under the ROC Curve
in gradient descent": along a descent direction AUM(s) is linear between events, and a
swap of adjacent lines a (below) and b changes the AUM slope by
(slope_a − slope_b)·(m_old + m_new − m_below − m_above) (Theorem 1, eq. 13), with m =
min(FP, FN) on the four gaps around the swap. When min(FP, FN) is FP on all four gaps, or
FN on all four, that change is exactly 0: only swaps where FP − FN changes sign nearby
move the slope. On real data that is well under 1% of the events (issue 14).

This driver walks the events a bracket (s_lo, s_hi] at a time like :mod:`.blocks` (one
sort at s_hi; the lines that cross inside the bracket are the inversions between the two
orders, inside *blocks* of slots that the permutation maps onto themselves; a line only
crosses lines of its own block). During the bracket, FP − FN on a gap inside a block is
its value at the block's lower end plus the sum of ΔFP − ΔFN over the block's lines that
are below the gap at that moment, so it lies between the lower end's value plus the
negative and plus the positive parts of that sum. When that whole range is on one side
of 0 (with a margin for rounding), no event of the block can change the slope: the
block is *neutral* and its events are not enumerated. The other blocks are processed as
in :func:`penlearn.line_search.blocks.sweep_blocks` (their events are self-contained).
Neutral blocks can be large at no cost, so brackets grow while the processed pairs stay
few.

The first-min rule (stop at the first event where AUM rises above its running minimum)
then takes the first processed event after which the slope is positive: in exact
arithmetic AUM decreases strictly up to it and rises right after it, so the sequential
engine's step, (previous event + first minimum)/2, is that event. Whenever the answer
could hang on rounding or on an event that was not enumerated — a slope within the
tolerance of 0 (a flat piece), AUM near the 1e-6 rule, ties or near-ties in a processed
block, a bracket end within the tie window of a crossing, no positive slope before the
last event — :func:`first_min_critical` returns None and the caller runs the engine of
:mod:`.blocks` (exact against the kernel, with its own rounding guards).

Brackets: the first ends at the K-th smallest crossing of adjacent lines at step 0; each
next one is as wide, or ``GROWTH`` times wider after a bracket that examined few pairs,
and half as wide when its live blocks would hold more than ``PAIR_BUDGET``·B pairs.
"""

from __future__ import annotations

import numpy as np

from penlearn.line_search._common import FIRST_MIN_ZERO
from penlearn.line_search.blocks import _Sweep, crossings_below, order_at_end
from penlearn.line_search.kernel import State

__all__ = ["first_min_critical"]

#: Pairs (within processed blocks) examined per bracket, relative to the number of lines.
PAIR_BUDGET = 8

#: First bracket: up to the K-th smallest adjacent crossing at step 0, K = this fraction
#: of those crossings; later brackets are as wide, or GROWTH times wider.
K_FRACTION = 0.7

#: The minimum is decided here only if AUM's slopes on both sides of it, times its step,
#: exceed this fraction of AUM: the sequential engine sums AUM event by event, and
#: changes far below AUM's last bit could move its minimum to a nearby event.
RISE = 1e-9

#: A bracket that examined few pairs is followed by one this many times wider.
GROWTH = 1.25

#: Live blocks whose squared sizes sum to at most this compare all their pairs at once.
DENSE_PAIRS = 40_000

#: Relative margin (of ΣFP + ΣFN) by which a block's FP − FN must stay off 0 to be neutral.
NEUTRAL_MARGIN = 1e-9


# Long by design: one vectorised pass per bracket (order at s_hi, blocks, the neutral
# test, the pairs of the other blocks, their slope changes) sharing a dozen arrays.
def _critical_bracket(sw: _Sweep, s_hi: float, max_pairs: int, w: np.ndarray, eps: float):
    """Events of the non-neutral blocks in (s_lo, s_hi] as (steps, slope changes, order at
    s_hi, adjacent crossings at s_hi, pairs examined), in time order.

    ``w``: ΔFP − ΔFN per line. Returns ``"big"`` when the non-neutral blocks hold more
    than ``max_pairs`` pairs and None when the exact drivers must handle the bracket.
    """
    o = sw.order
    at_end = order_at_end(sw, s_hi)
    if at_end is None:
        return None  # the sort at s_hi disagrees with a crossing, or one is too close
    p, sig, start = at_end
    n = len(p)
    first = np.flatnonzero(start)
    size = np.diff(np.append(first, n))
    ws = w[o]
    d0 = sw.FP[first] - sw.FN[first]  # FP - FN on the gap below each block
    hi_d = d0 + np.add.reduceat(np.maximum(ws, 0.0), first)
    lo_d = d0 + np.add.reduceat(np.minimum(ws, 0.0), first)
    live = (size > 1) & (hi_d > -eps) & (lo_d < eps)
    if not live.any():
        e = np.zeros(0)
        return e, e, o[p], sig, 0
    i, j = _inversions(p, first, size, live, max_pairs)
    if i is None:
        return "big"
    total = len(i)
    ev = crossings_below(sw, i, j, s_hi)
    if ev is None:
        return None  # a multi-way intersection or a near-tie
    xs, sla, slb, fa, na, fb, nb, f0, n0 = ev
    m_old = np.minimum(f0 + fa, n0 + na)
    m_new = np.minimum(f0 + fb, n0 + nb)
    d_slope = (sla - slb) * (m_old + m_new - np.minimum(f0, n0)
                             - np.minimum(f0 + fa + fb, n0 + na + nb))
    return xs, d_slope, o[p], sig, total


def _inversions(p: np.ndarray, first: np.ndarray, size: np.ndarray, live: np.ndarray,
                max_pairs: int):
    """Inversions (i < j, the line at slot i ends above the line at slot j) inside the
    live blocks, as two arrays of slots; (None, None) beyond ``max_pairs`` candidates.

    ``p[k]``: the slot (lo order) of the line at position k at s_hi; ``first``, ``size``:
    first slot and size of each block; ``live``: the blocks to enumerate. Works on the
    slots of the live blocks only. Each block takes the smaller of two candidate sets:
    the slots j in (i, R_i] of each slot i, R_i the last slot whose line ends below i's,
    or the slots i in [L_j, j) of each slot j, L_j the first slot whose line ends above
    j's; so a line that travels far costs its travel, not the square of it.
    """
    blks = np.flatnonzero(live)
    lo, k = first[blks], size[blks]
    if len(blks) <= 4 and int((k * k).sum()) <= min(DENSE_PAIRS, 2 * max_pairs):
        return _dense(p, lo.tolist(), k.tolist())  # a few small blocks: all pairs at once
    m = int(k.sum())
    base = np.cumsum(k) - k  # compact index of each live block's first slot
    blk_of = np.repeat(np.arange(len(blks)), k)
    slot = lo[blk_of] + (np.arange(m) - base[blk_of])  # the live slots, in order
    q = p[slot]  # lines (lo slots) at the live positions: blocks map onto themselves
    pos = np.empty(m, np.int64)  # compact position of each live slot's line at s_hi
    pos[q - lo[blk_of] + base[blk_of]] = np.arange(m)
    ar = np.arange(m)
    # running max / min of q over the positions (earlier blocks hold smaller slots)
    qmax = np.maximum.accumulate(q)
    qmin = np.minimum.accumulate(q[::-1])[::-1]
    blk_lo = base[blk_of]
    blk_hi = blk_lo + k[blk_of] - 1
    r = np.where(pos > blk_lo, qmax[np.maximum(pos - 1, 0)], -1)  # a slot, not compact
    left = np.where(pos < blk_hi, qmin[np.minimum(pos + 1, m - 1)], slot + 1)
    c_r = np.maximum(r - slot, 0)
    c_l = np.maximum(slot - left, 0)
    sum_r = np.bincount(blk_of, c_r, len(blks))
    sum_l = np.bincount(blk_of, c_l, len(blks))
    if float(np.minimum(sum_r, sum_l).sum()) > max_pairs:
        return None, None
    by_r = (sum_r <= sum_l)[blk_of]
    c_r = np.where(by_r, c_r, 0)
    c_l = np.where(by_r, 0, c_l)
    tr, tl = int(c_r.sum()), int(c_l.sum())
    i_r = np.repeat(ar, c_r)
    j_r = i_r + (np.arange(tr) - np.repeat(np.cumsum(c_r) - c_r, c_r) + 1)
    j_l = np.repeat(ar, c_l)
    i_l = j_l - (np.arange(tl) - np.repeat(np.cumsum(c_l) - c_l, c_l) + 1)
    i = np.concatenate((i_r, i_l))
    j = np.concatenate((j_r, j_l))
    inv = pos[i] > pos[j]
    return slot[i[inv]], slot[j[inv]]


def _dense(p: np.ndarray, los: list, ks: list):
    """Inversions of the blocks of slots [lo, lo + k), each from all its pairs at once."""
    i_parts, j_parts = [], []
    for lo, k in zip(los, ks):
        pos = np.empty(k, np.int64)  # position at s_hi (in the block) of each slot's line
        pos[p[lo : lo + k] - lo] = np.arange(k)
        a, b = np.nonzero(np.triu(pos[:, None] > pos[None, :], 1))
        i_parts.append(a + lo)
        j_parts.append(b + lo)
    return np.concatenate(i_parts), np.concatenate(j_parts)


def first_min_critical(st: State) -> tuple[float, int, int] | None:
    """Step of the ``"first_min"`` rule, events processed and brackets (sorts), or None.

    ``st``: the lazy :class:`~penlearn.line_search.kernel.State` of the lines at step 0
    (not modified). The step is the sequential engine's (module docstring); the count is
    the events of the non-neutral blocks that were enumerated up to it (the work done,
    not the number of events before the first minimum); brackets: sorts of the B lines.
    None: the caller must run an exact driver
    (:func:`penlearn.line_search.blocks.blocks_step`).

    Examples
    --------
    >>> from penlearn.line_search.kernel import lines_state
    >>> st = lines_state(np.array([-1.0, 1.0]), np.array([1.0, -1.0]),
    ...                  np.array([1.0, 0.0]), np.array([0.0, -1.0]))
    >>> first_min_critical(st)  # AUM reaches 0 (the 1e-6 rule): left to the exact driver
    >>> st = lines_state(np.array([0.0, 1.0, 2.0, 3.0]), np.array([2.0, -1.0, 0.5, -2.0]),
    ...                  np.array([1.0, 1.0, 0.0, 0.0]), np.array([0.0, 0.0, -1.0, -1.0]))
    >>> first_min_critical(st)  # the sequential engine's step: 0.75
    (0.75, 3, 2)
    """
    B = st.B
    if B < 2:
        return None
    sw = _Sweep(st)
    fp_tot, fn_tot = 1.0 / (st.scale * st.tw), st.tw / 2
    # slopes within this of 0 are flat pieces (the tolerance of blocks.fragile)
    tol = 1e-9 * float(np.abs(sw.sl).max()) * min(fp_tot, fn_tot)
    eps = NEUTRAL_MARGIN * (fp_tot + fn_tot)
    zero_guard = 2 * FIRST_MIN_ZERO
    w = sw.fpd - sw.fnd
    if abs(sw.slope) <= tol or sw.aum < zero_guard:
        return None
    if sw.slope > 0:  # an ascent: step 0, once the rise at the first event registers
        xs = sw.adjacent_crossings()
        if not len(xs):
            return 0.0, 0, 0
        return (0.0, 1, 0) if sw.slope * float(xs.min()) > RISE * sw.aum else None
    max_pairs = PAIR_BUDGET * B + 64
    n_ev = brackets = halvings = 0
    width = None  # bracket width: from the first K adjacent crossings, then adaptive
    while True:
        xs = sw.adjacent_crossings()
        xs = xs[xs > sw.s_lo]
        if not len(xs):
            return None  # the last event without a rise: the exact driver decides
        if width is None:  # up to the K-th smallest adjacent crossing of step 0
            K = min(max(1, int(len(xs) * K_FRACTION)), len(xs))
            width = float(np.partition(xs, K - 1)[K - 1]) * (1 + 2 ** -20)
        s_hi = sw.s_lo + width
        brackets += 1
        got = _critical_bracket(sw, s_hi, max_pairs, w, eps)
        if isinstance(got, str):
            width /= 2
            halvings += 1
            if halvings > 50:
                return None
            continue
        halvings = 0
        if got is None:
            return None
        ev, d_slope, sw.order, sw.xs, pairs = got
        if len(ev):
            slopes = sw.slope + np.cumsum(d_slope)
            prev = np.concatenate(([sw.slope], slopes[:-1]))
            aums = sw.aum + np.cumsum(prev * np.diff(np.concatenate(([sw.step], ev))))
            up = np.flatnonzero(slopes > 0)
            k = int(up[0]) if len(up) else len(ev) - 1
            if np.any(np.abs(slopes[: k + 1]) <= tol) or aums[k] < zero_guard:
                return None  # a flat piece or the 1e-6 rule: rounding could decide
            if len(up):
                if min(-prev[k], slopes[k]) * ev[k] <= RISE * aums[k]:
                    return None  # AUM nearly flat around the minimum (see RISE)
                return float(ev[k]), n_ev + k + 1, brackets
            n_ev += len(ev)
            sw.step, sw.aum, sw.slope = float(ev[-1]), float(aums[-1]), float(slopes[-1])
        if sw.aum + sw.slope * (s_hi - sw.step) < zero_guard:
            return None
        sw.set_gaps()
        sw.s_lo = s_hi
        if pairs < max_pairs // 8:
            width *= GROWTH
