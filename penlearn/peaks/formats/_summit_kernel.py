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


@numba.njit(cache=True, inline="always")
def _row_at(starts, ends, counts, i, p, nxt):
    """``(i, value, next cut)`` at base ``p`` of rows sorted by start, walked on from row
    ``i``: the first row not ending by ``p``, its count if it covers ``p`` (else 0), and
    ``nxt`` lowered to where that changes (the row's end, or its start if after ``p``)."""
    n = len(starts)
    while i < n and ends[i] <= p:
        i += 1
    v = 0.0
    if i < n:
        if starts[i] <= p:
            v = counts[i]
            nxt = min(nxt, ends[i])
        else:
            nxt = min(nxt, starts[i])
    return i, v, nxt


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
        # the pieces in one merge of the rows inside [lo, hi) (sorted, not overlapping):
        # cut at lo, hi and every row start and end between; a piece's value that of its
        # first base. One pass: the top value so far, the longest run of consecutive
        # pieces at it (the first of equally long ones) and the run going on (``run``:
        # its start, -1 when the piece before is below the top); a higher value starts
        # afresh
        i = np.searchsorted(t_ends, lo, side="right")
        j = np.searchsorted(c_ends, lo, side="right")
        p = lo
        top = -np.inf
        best_len, best_s, best_e = -1, lo, lo
        run = -1
        while p < hi:
            i, v, nxt = _row_at(t_starts, t_ends, t_counts, i, p, hi)
            if with_control:
                j, w, nxt = _row_at(c_starts, c_ends, c_counts, j, p, nxt)
                v = v - scale * w
            if v > top:
                top, best_len, run = v, -1, p
            elif v == top:
                if run < 0:
                    run = p
            elif run >= 0:  # the run at the top ends at p
                if p - run > best_len:
                    best_len, best_s, best_e = p - run, run, p
                run = -1
            p = nxt
        if run >= 0 and hi - run > best_len:
            best_len, best_s, best_e = hi - run, run, hi
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


@numba.njit(cache=True)
def integrals(starts, ends, counts, cum, x):
    """The coverage summed over the bases ``[0, x[k])`` of each ``x[k]`` (the rows sorted,
    not overlapping; ``cum``: their running sums from 0): ``peak_columns._integral``'s
    values, element by element in one loop (no temporary arrays).

    Examples
    --------
    >>> s, e, n = np.array([0, 10]), np.array([5, 20]), np.array([2.0, 1.0])
    >>> integrals(s, e, n, np.array([0.0, 10.0, 20.0]), np.array([-1, 3, 7, 15, 30])).tolist()
    [0.0, 6.0, 10.0, 15.0, 20.0]
    """
    out = np.empty(len(x))
    n = len(starts)
    i = -1  # the last row starting at or before the previous x
    for k in range(len(x)):
        xi = x[k]
        if k and xi < x[k - 1]:
            i = -1  # (x not sorted: from the first row again)
        # the last row starting at or before xi: galloping from the previous one
        step = 1
        while i + step < n and starts[i + step] <= xi:
            i += step
            step *= 2
        while step > 1:
            step //= 2
            if i + step < n and starts[i + step] <= xi:
                i += step
        if i < 0:
            out[k] = 0.0
            continue
        s = starts[i]
        clipped = min(max(xi, s), ends[i])
        out[k] = cum[i] + counts[i] * (clipped - s)
    return out


@numba.njit(cache=True)
def _running_sums(starts, ends, counts, acc, out):
    out[0] = 0.0
    for i in range(len(starts)):
        acc += counts[i] * (ends[i] - starts[i])
        out[i + 1] = acc


def running_sums(starts: np.ndarray, ends: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``np.r_[0.0, np.cumsum(counts * (ends - starts))]`` (the coverage's running sums
    from 0: the ``cum`` of :func:`integrals`) in one compiled pass, the same float64
    values (the same products, added in the same order; integer counts summed as
    integers, then made floats), without its four temporary arrays of a chromosome's
    rows (issue 55: ~80 MB at chr1's calls).

    Examples
    --------
    >>> running_sums(np.array([0, 10]), np.array([5, 20]), np.array([2.0, 1.0])).tolist()
    [0.0, 10.0, 20.0]
    """
    starts, ends, counts = np.asarray(starts), np.asarray(ends), np.asarray(counts)
    if not len(starts) or not (starts.dtype == ends.dtype == np.int64
                               and counts.dtype in (np.float64, np.int64)):
        return np.r_[0.0, np.cumsum(counts * (ends - starts))]
    if counts.dtype == np.int64:  # (numpy's integer product and sum, then floats)
        acc = np.empty(len(starts) + 1, np.int64)
        _running_sums(starts, ends, counts, np.int64(0), acc)
        return acc.astype(np.float64)
    out = np.empty(len(starts) + 1, np.float64)
    _running_sums(starts, ends, counts, 0.0, out)
    return out
