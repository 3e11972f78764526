"""One window's rows of a sorted chromosome, its gaps filled and clipped to the window,
in one compiled pass (issue 55: :func:`~penlearn.peaks.peakseg.contigs.fill_gaps` of
the window's rows, then their clipping, copied each column several times per window)."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["filled_window_rows"]


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
