"""Compiled passes over the rows of one chromosome (issue 55): one window's rows, its
gaps filled and clipped to the window (:func:`~penlearn.peaks.peakseg.contigs.fill_gaps`
of the window's rows, then their clipping, copied each column several times per
window); the cumulative coverage at a few rows (no cumulative sum of every row)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["filled_window_rows", "row_faults", "running_sums_at"]


@numba.njit(cache=True, nogil=True)
def _gaps(lo, hi, a, b):
    """The number of gaps between rows ``a..b-1`` (a row starting after the previous
    ends)."""
    n = 0
    for i in range(a + 1, b):
        n += lo[i] > hi[i - 1]
    return n


@numba.njit(cache=True, nogil=True)
def _fill(lo, hi, count, a, b, out_lo, out_hi, out_count, src):
    """Rows ``a..b-1`` with a zero-count row in each gap (``src``: the row each comes
    from, a gap's the row before it), without a branch per row: a gap's row is written
    each time and kept (the next row written after it) only where there is a gap."""
    out_lo[0], out_hi[0], out_count[0] = lo[a], hi[a], count[a]
    sources = len(src) > 0
    if sources:
        src[0] = a
    m = 1
    for i in range(a + 1, b):
        out_lo[m], out_hi[m], out_count[m] = hi[i - 1], lo[i], 0
        if sources:
            src[m] = i - 1
        m += lo[i] > hi[i - 1]
        out_lo[m], out_hi[m], out_count[m] = lo[i], hi[i], count[i]
        if sources:
            src[m] = i
        m += 1


def filled_window_rows(lo: np.ndarray, hi: np.ndarray, count: np.ndarray, a: int, b: int,
                       start: int, end: int, sources: bool = True):
    """``(chromStart, chromEnd, count, source rows, first, gaps)`` of rows ``a..b-1``
    (``a < b``) of sorted int64 rows (``hi > lo``, no overlap) with their gaps filled by
    zero-count rows, those meeting ``[start, end)`` clipped to it; ``first``: where the
    first row kept is among the filled rows, ``gaps``: how many were filled; the source
    rows (a gap's: the row before it) only with ``sources``, else an empty array.

    Examples
    --------
    >>> lo, hi = np.array([0, 10, 30]), np.array([5, 20, 40])
    >>> s, e, n, src, first, gaps = filled_window_rows(lo, hi, np.array([1, 2, 3]), 0, 3,
    ...                                                 12, 35)
    >>> s.tolist(), e.tolist(), n.tolist(), src.tolist(), first, gaps
    ([12, 20, 30], [20, 30, 35], [2, 0, 3], [1, 1, 2], 2, 2)
    """
    a, b = np.int64(a), np.int64(b)
    gaps = int(_gaps(lo, hi, a, b))
    n = int(b - a) + gaps
    out = (np.empty(n, lo.dtype), np.empty(n, hi.dtype), np.empty(n, count.dtype),
           np.empty(n if sources else 0, np.int64))
    _fill(lo, hi, count, a, b, *out)
    # the rows meeting the window (rows a and b - 1 are one past it each side, at most),
    # the first and the last clipped to it
    first = int(np.searchsorted(out[1], start, side="right"))
    last = int(np.searchsorted(out[0], end))
    out = tuple(x[first:last] if len(x) else x for x in out)
    if last > first:
        out[0][0] = max(out[0][0], start)
        out[1][-1] = min(out[1][-1], end)
    return (*out, first, gaps)


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


@numba.njit(cache=True, nogil=True)
def _row_faults(start, end, count):
    faults = False
    gapped = False
    for i in range(len(start)):
        faults |= (start[i] < 0) | (end[i] <= start[i]) | (count[i] < 0)
        if i:
            faults |= start[i] < end[i - 1]
            gapped |= start[i] > end[i - 1]
    return faults, gapped


def row_faults(start: np.ndarray, end: np.ndarray, count: np.ndarray) -> tuple[bool, bool]:
    """``(faults, gapped)`` of one problem's rows in one pass: whether any row starts
    below 0, is empty, has a negative count or overlaps the previous one (the checks of
    :func:`~penlearn.peaks.peakseg.solver.check_coverage`, which then names the first);
    whether any starts after the previous one ends (a gap to fill).

    Examples
    --------
    >>> row_faults(np.array([0, 5, 9]), np.array([5, 8, 12]), np.array([1, 0, 2]))
    (False, True)
    >>> row_faults(np.array([0, 4]), np.array([5, 8]), np.array([1, 0]))[0]
    True
    """
    faults, gapped = _row_faults(start, end, count)
    return bool(faults), bool(gapped)
