"""The summits of many peaks of one chromosome in numba (the rule of
:func:`~penlearn.peaks.formats.peak_columns.summit_offsets`, one peak after another in a
compiled loop: the narrow rule of issue 52 proposes ~100 candidates per peak kept, and
a Python loop over them was the largest part of ``callpeak``'s calls phase).

The pieces of a peak ``[a, b)`` are cut at ``a``, ``b`` and every start and end of the
treatment's and the control's rows inside it; a piece's value is the treatment's count
at its first base minus ``scale`` times the control's (0 where no row covers it). The
summit is the middle base of the longest run of consecutive pieces at the top value (the
first of equally long runs), as an offset from ``a``.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _value_at(starts, ends, counts, x):
    i = np.searchsorted(starts, x, side="right") - 1
    if i >= 0 and ends[i] > x:
        return counts[i]
    return 0.0


@numba.njit(cache=True)
def summits(t_starts, t_ends, t_counts, c_starts, c_ends, c_counts, scale, a, b):
    """Summit offsets of the peaks ``[a[i], b[i])`` (int64 arrays) over the treatment's
    rows and the control's (empty arrays: none), each sorted by start.

    Examples
    --------
    >>> s, e, n = np.array([0, 10, 14, 20]), np.array([10, 14, 20, 30]), np.array(
    ...     [1.0, 9.0, 9.0, 2.0])
    >>> z = np.zeros(0, np.int64)
    >>> summits(s, e, n, z, z, np.zeros(0), 1.0, np.array([5]), np.array([25])).tolist()
    [10]
    """
    out = np.empty(len(a), np.int64)
    with_control = len(c_starts) > 0
    for k in range(len(a)):
        lo, hi = a[k], b[k]
        t0 = np.searchsorted(t_ends, lo, side="right")
        t1 = np.searchsorted(t_starts, hi, side="left")
        c0 = np.searchsorted(c_ends, lo, side="right")
        c1 = np.searchsorted(c_starts, hi, side="left")
        n = 2 + 2 * (t1 - t0) + 2 * (c1 - c0)
        cuts = np.empty(n, np.int64)
        cuts[0], cuts[1] = lo, hi
        m = 2
        for i in range(t0, t1):
            cuts[m], cuts[m + 1] = t_starts[i], t_ends[i]
            m += 2
        for i in range(c0, c1):
            cuts[m], cuts[m + 1] = c_starts[i], c_ends[i]
            m += 2
        cuts = np.unique(cuts)
        keep = (cuts >= lo) & (cuts <= hi)
        cuts = cuts[keep]
        pieces = len(cuts) - 1
        value = np.empty(pieces)
        top = -np.inf
        for j in range(pieces):
            v = _value_at(t_starts, t_ends, t_counts, cuts[j])
            if with_control:
                v = v - scale * _value_at(c_starts, c_ends, c_counts, cuts[j])
            value[j] = v
            if v > top:
                top = v
        best_len, best_s, best_e = -1, lo, lo
        j = 0
        while j < pieces:
            if value[j] == top:
                s = cuts[j]
                length = 0
                while j < pieces and value[j] == top:
                    length += cuts[j + 1] - cuts[j]
                    j += 1
                if length > best_len:
                    best_len, best_s, best_e = length, s, cuts[j]
            else:
                j += 1
        out[k] = (best_s + best_e) // 2 - lo
    return out


@numba.njit(cache=True)
def held_levels(starts, ends, counts, x, width):
    """The level each base ``x[k]`` holds over ``width`` bases: the largest ``L`` such
    that some ``width`` consecutive bases containing ``x[k]`` all have coverage ``>= L``
    (bases without a row count 0; no base left of 0), over the rows ``(starts, ends,
    counts)`` sorted by start, not overlapping. Grown from ``x[k]``'s row toward the
    higher neighbour until ``width`` bases are held (the best window of each length
    containing a point, one step at a time).

    Examples
    --------
    >>> s, e, n = np.array([0, 10, 14, 20]), np.array([10, 14, 20, 30]), np.array(
    ...     [1.0, 9.0, 8.0, 2.0])
    >>> held_levels(s, e, n, np.array([12, 25]), 1).tolist()  # one base: its coverage
    [9.0, 2.0]
    >>> held_levels(s, e, n, np.array([12, 12, 25]), 8).tolist()  # 10-17 at >= 8
    [8.0, 8.0, 2.0]
    >>> held_levels(s, e, n, np.array([12]), 12).tolist()  # 10-21: 2 at base 20
    [2.0]
    """
    n = len(starts)
    out = np.zeros(len(x))
    for k in range(len(x)):
        xi = x[k]
        i = np.searchsorted(starts, xi, side="right") - 1
        if i < 0 or ends[i] <= xi:
            continue  # no coverage at x: 0
        lo, hi, level = starts[i], ends[i], counts[i]
        li, ri = i - 1, i + 1
        while hi - lo < width and level > 0:
            if lo <= 0:
                lv = -1.0
            elif li >= 0 and ends[li] == lo:
                lv = counts[li]
            else:
                lv = 0.0
            rv = counts[ri] if ri < n and starts[ri] == hi else 0.0
            if lv >= rv:
                if li >= 0 and ends[li] == lo:
                    lo = starts[li]
                    li -= 1
                else:
                    lo = ends[li] if li >= 0 else 0
                level = min(level, lv)
            else:
                if ri < n and starts[ri] == hi:
                    hi = ends[ri]
                    ri += 1
                else:
                    hi = starts[ri] if ri < n else hi + width
                level = min(level, rv)
        out[k] = level
    return out
