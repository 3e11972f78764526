"""The n-th event of the line search, and a bound of the AUM slope before it, from two sorts.

The ``"linear"`` rule of Fowler & Hocking (2024), "Efficient line search for optimizing
Area Under the ROC Curve in gradient descent" (Section 4), explores the first B events
(intersections of the threshold lines T_b(s) = a_b + s·d_b). The walk (:mod:`.kernel`,
:mod:`.blocks`) finds them one by one, with the AUM and its slope after each. When only the
step of the n-th event is wanted — and a proof that AUM cannot rise much before it — the
events need not be walked in order: the lines that cross in (0, s] are exactly the pairs
whose order at step 0 and at s differ (the inversions between the two sorts), so one sort
at an s past the n-th event gives every event up to it, and the n-th smallest of their
steps (the kernel's formula, so the same float) is the n-th event.

Exactness follows the blocks engine's own rules (:func:`.blocks.order_at_end`,
:func:`.blocks.crossings_below`): the sort at s must agree with the adjacent crossing steps
there, every crossing must lie in (0, s], and no two of the first n + 1 events may fall
within the kernel's tie window (a multi-way intersection is one event, :mod:`.kernel`);
otherwise :func:`nth_event` returns None and the caller walks the events.

The slope bound is that of :mod:`.skip` (eq. 6 of the paper: the slope is Σ_b d_b·w_b,
w_b a monotone function of e = FP − FN below line b), with the exact crossing partners of
each line instead of a window: e below b moves only when one of them crosses b, so it
stays between e plus the negative and e plus the positive changes they can make.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from penlearn.line_search._common import TIE_RTOL, aum_slope, gaps, merge_lines, parse_stop
from penlearn.line_search.blocks import sort_at
from penlearn.line_search.skip import _w

__all__ = ["NthEvent", "inversions", "nth_event"]

#: Sorts at a trial step before giving up (each one grows the step toward the n-th event).
MAX_SORTS = 8

#: Pairs at most this far apart in the step-0 order are compared offset by offset; the
#: rare pairs farther apart come from the lines that move farther (see :func:`inversions`).
NEAR = 16


class NthEvent(NamedTuple):
    """Result of :func:`nth_event`.

    Attributes
    ----------
    steps : ndarray
        The steps of events 1 … n, increasing (``steps[-1]`` is the n-th event).
    aum : float
        AUM at step 0.
    slope_max : float
        An upper bound of the AUM slope over (0, ``steps[-1]``].
    scale : float
        Σ_b |d_b|·max(|ΔFP_b|, |ΔFN_b|): a bound of |slope| (the size of its rounding).
    sorts : int
        Sorts at trial steps.
    """

    steps: np.ndarray
    aum: float
    slope_max: float
    scale: float
    sorts: int


def _runs(start: np.ndarray, count: np.ndarray, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i, i + offset + 1 … i + offset + count_i) for each i of ``start``."""
    total = int(count.sum())
    i = np.repeat(start, count)
    k = np.arange(total) - np.repeat(np.cumsum(count) - count, count) + 1
    return i, i + offset + k


def inversions(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs i < j with ``pos[i] > pos[j]`` of a permutation ``pos``.

    Work about n·:data:`NEAR` plus the inversions: an inverted pair i < j has
    j − i < (pos_i − i)⁺ + (j − pos_j)⁺, so j − i < 2·(pos_i − i) or j − i < 2·(j − pos_j);
    pairs within :data:`NEAR` are compared offset by offset, the others searched from the
    line that moves that far.

    Examples
    --------
    >>> i, j = inversions(np.array([2, 0, 1, 3]))
    >>> sorted(zip(i.tolist(), j.tolist()))
    [(0, 1), (0, 2)]
    """
    pos = np.asarray(pos, dtype=np.int64)
    n = len(pos)
    idx = np.arange(n)
    move = pos - idx
    reach_up = np.minimum(2 * np.maximum(move, 0), n - 1 - idx)  # j - i for i's pairs
    reach_dn = np.minimum(2 * np.maximum(-move, 0), idx)  # j - i for j's pairs
    far = int(max(reach_up.max(initial=0), reach_dn.max(initial=0)))
    near = min(NEAR, far)
    I, J = [], []
    for k in range(1, near + 1):
        h = np.flatnonzero(pos[:-k] > pos[k:])
        I.append(h)
        J.append(h + k)
    si = np.flatnonzero(reach_up > near)
    if len(si):
        i, j = _runs(si, reach_up[si] - near, near)
        I.append(i)
        J.append(j)
    sj = np.flatnonzero(reach_dn > near)
    if len(sj):
        j, i = _runs(sj, reach_dn[sj] - near, near)
        i = 2 * j - i  # i = j - near - k
        new = (j - i) > reach_up[i]  # not already found from i's side
        I.append(i[new])
        J.append(j[new])
    if not I:
        e = np.zeros(0, np.int64)
        return e, e
    i, j = np.concatenate(I), np.concatenate(J)
    inv = pos[i] > pos[j]
    return i[inv], j[inv]


def _first_guess(ic: np.ndarray, sl: np.ndarray, n: int) -> float | None:
    """A step past about n/4 adjacent crossings at step 0 (the blocks engine's first
    bracket), between two of them; None when no lines cross."""
    dsl = sl[:-1] - sl[1:]
    cr = np.flatnonzero(dsl > 0)
    x = (ic[cr + 1] - ic[cr]) / dsl[cr]
    x = x[x > 0]
    if len(x) < 2:
        return 2.0 * float(x[0]) + 1.0 if len(x) else None
    k = min(len(x) - 2, max(4, n // 4))
    part = np.partition(x, (k, k + 1))
    return float(part[k] + (part[k + 1] - part[k]) / 2)


def nth_event(ic, sl, fp, fn, n: int | None = None, guess: float | None = None
              ) -> NthEvent | None:
    """The first ``n`` events of the line search over lines ``a + s·d`` (default: as many as
    input lines, the ``"linear"`` rule), their steps equal to the walk's, and an upper bound
    of the AUM slope before the n-th; None when that cannot be certified from the sorts
    (ties, near-ties, fewer events than n + 1) — the caller then walks the events.

    Parameters
    ----------
    ic, sl, fp, fn : ndarray
        Intercepts, slopes, ΔFP and ΔFN of the threshold lines
        (:func:`~penlearn.line_search.breakpoint_lines`), finite.
    n : int, optional
        Which event (≥ 1).
    guess : float, optional
        A step a little past the n-th event (e.g. the last descent step's, a little more):
        saves trial sorts; any positive value gives the same result.

    Examples
    --------
    >>> ic = np.array([0.0, 1.0, 2.0, 3.0]); sl = np.array([3.0, 2.0, 1.0, 0.0])
    >>> r = nth_event(ic, sl, np.array([1.0, 0, 0, 0]), np.array([0, 0, 0, -1.0]), n=2)
    >>> r is None  # all six pairs meet at step 1: one multi-way event, not certified
    True
    >>> r = nth_event(np.array([0.0, 1.0, 5.0]), np.array([2.0, 0.0, -1.0]),
    ...               np.array([1.0, 0, 0]), np.array([0, 0, -1.0]), n=2)
    >>> r.steps.tolist()  # the crossings at 0.5, then 5/3 (and at 2, the third)
    [0.5, 1.6666666666666667]
    """
    ic, sl, fp, fn = (np.asarray(x, dtype=float) for x in (ic, sl, fp, fn))
    n_in = len(ic)
    _, limit = parse_stop("linear" if n is None else int(n), n_in, None)
    n = int(limit)
    ic, sl, fp, fn = merge_lines(ic, sl, fp, fn)  # sorted at step 0 (ties by slope)
    B = len(ic)
    if n < 1 or B < 2:
        return None
    s_hi = guess if guess is not None and guess > 0 else _first_guess(ic, sl, n)
    if s_hi is None:
        return None
    sorts = 0
    while True:
        if sorts == MAX_SORTS or not np.isfinite(s_hi):
            return None
        sorts += 1
        got = sort_at(ic, sl, s_hi)  # the blocks engine's checked sort
        if got is None:
            return None
        p = got[0]
        pos = np.empty(B, np.int64)
        pos[p] = np.arange(B)
        i, j = inversions(pos)
        if len(i) > n:
            break
        s_hi *= 4.0 if len(i) == 0 else min(4.0, max(1.25, 1.1 * (n + 1) / len(i)))
    sla, slb = sl[i], sl[j]
    if not np.all(sla > slb):
        return None
    x = (ic[j] - ic[i]) / (sla - slb)  # the kernel's formula: the same floats
    if not (np.all(x > 0) and np.all(x <= s_hi)):
        return None
    xs = np.partition(x, n)[: n + 1]  # the n + 1 first events (x[n] is the (n+1)-th)
    xs.sort()
    if np.any(xs[1:] <= xs[:-1] + xs[:-1] * (4 * TIE_RTOL)):
        return None  # a multi-way or near-tied event among the first n + 1
    # the bound of the AUM slope over (0, x_n]: lower line i rises past upper line j, so
    # e = FP - FN below j loses i's delta and e below i gains j's
    first = x <= xs[n - 1]  # exactly the first n events: they are distinct
    ei, ej = i[first], j[first]
    delta = fp - fn
    to_j, to_i = -delta[ei], delta[ej]
    up = np.bincount(ej, np.maximum(to_j, 0.0), B) + np.bincount(ei, np.maximum(to_i, 0.0), B)
    dn = np.bincount(ej, np.minimum(to_j, 0.0), B) + np.bincount(ei, np.minimum(to_i, 0.0), B)
    fpg, fng, m = gaps(fp, fn)
    e = fpg[:-1] - fng[:-1]
    pad = 1e-12 * float(np.abs(delta).sum())
    w_lo = _w(e + dn * (1 + 1e-9) - pad, fp, fn)
    w_hi = _w(e + up * (1 + 1e-9) + pad, fp, fn)
    bound = float(np.sum(np.maximum(sl * w_lo, sl * w_hi)))
    scale = float(np.sum(np.abs(sl) * np.maximum(np.abs(fp), np.abs(fn))))
    aum0, _ = aum_slope(ic, sl, m)
    return NthEvent(xs[:n], float(aum0), bound, scale, sorts)

