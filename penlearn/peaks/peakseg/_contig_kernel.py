"""Compiled passes over the rows of one chromosome (issue 55): one window's rows, its
gaps filled and clipped to the window (:func:`~penlearn.peaks.peakseg.contigs.fill_gaps`
of the window's rows, then their clipping, copied each column several times per
window); the cumulative coverage at a few rows (no cumulative sum of every row)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["filled_window_rows", "running_sums_at"]


@numba.njit(cache=True, nogil=True)
def _filled_window(lo, hi, count, a, b, start, end, out_lo, out_hi, out_count, src, write):
    """Rows ``a..b-1`` of sorted rows, each gap between two of them a zero-count row, those
    meeting ``[start, end)`` clipped to it (written when ``write``, ``src``: the row each
    comes from, a gap's the row before it). Returns (rows kept, position of the first
    kept among the filled rows, number of gaps filled)."""
    m = 0
    k = 0
    first = -1
    gaps = 0
    for i in range(a, b):
        if i > a and lo[i] > hi[i - 1]:
            gaps += 1
            x = hi[i - 1]
            y = lo[i]
            if y > start and x < end:
                if first < 0:
                    first = m
                if write:
                    out_lo[k] = max(x, start)
                    out_hi[k] = min(y, end)
                    out_count[k] = 0
                    src[k] = i - 1
                k += 1
            m += 1
        x = lo[i]
        y = hi[i]
        if y > start and x < end:
            if first < 0:
                first = m
            if write:
                out_lo[k] = max(x, start)
                out_hi[k] = min(y, end)
                out_count[k] = count[i]
                src[k] = i
            k += 1
        m += 1
    return k, max(first, 0), gaps


def filled_window_rows(lo: np.ndarray, hi: np.ndarray, count: np.ndarray, a: int, b: int,
                       start: int, end: int):
    """``(chromStart, chromEnd, count, source rows, first, gaps)`` of rows ``a..b-1`` of
    sorted int64 rows (``hi > lo``, no overlap) with their gaps filled by zero-count
    rows, those meeting ``[start, end)`` clipped to it; ``first``: where the first row kept
    is among the filled rows, ``gaps``: how many were filled.

    Examples
    --------
    >>> lo, hi = np.array([0, 10, 30]), np.array([5, 20, 40])
    >>> s, e, n, src, first, gaps = filled_window_rows(lo, hi, np.array([1, 2, 3]), 0, 3,
    ...                                                 12, 35)
    >>> s.tolist(), e.tolist(), n.tolist(), src.tolist(), first, gaps
    ([12, 20, 30], [20, 30, 35], [2, 0, 3], [1, 1, 2], 2, 2)
    """
    args = (lo, hi, count, np.int64(a), np.int64(b), np.int64(start), np.int64(end))
    none = np.empty(0, np.int64)
    k, first, gaps = _filled_window(*args, none, none, np.empty(0, count.dtype), none, False)
    out = (np.empty(k, lo.dtype), np.empty(k, hi.dtype), np.empty(k, count.dtype),
           np.empty(k, np.int64))
    _filled_window(*args, *out, True)
    return (*out, int(first), int(gaps))


@numba.njit(cache=True, nogil=True)
def _running_sums_at(start, end, count, rows, order, top, before):
    t = 0.0
    last = 0.0
    i = 0
    for q in order:
        while i <= rows[q]:
            last = t
            t += float(count[i]) * float(end[i] - start[i])
            i += 1
        top[q] = t
        before[q] = last


def running_sums_at(start: np.ndarray, end: np.ndarray, count: np.ndarray,
                    rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(total[rows], total[rows - 1])`` (0 before the first row) of ``total =
    np.cumsum(count.astype(float) * (end - start))``, bit for bit (the same additions in
    the same order), in one pass up to the last row asked for, without ``total``.

    Examples
    --------
    >>> top, before = running_sums_at(np.array([0, 10, 30]), np.array([10, 20, 40]),
    ...                               np.array([1, 2, 3]), np.array([2, 0]))
    >>> top.tolist(), before.tolist()
    ([60.0, 10.0], [30.0, 0.0])
    """
    rows = np.asarray(rows, np.int64)
    top, before = np.empty(len(rows)), np.empty(len(rows))
    _running_sums_at(start, end, count, rows, np.argsort(rows, kind="stable"), top, before)
    return top, before
