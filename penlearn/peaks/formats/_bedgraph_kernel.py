"""bedGraph lines of one chromosome in numba: ``chrom<TAB>start<TAB>end<TAB>value\\n``.

``callpeak -B`` writes tens of millions of rows; pandas' ``to_csv`` (a Python ``csv``
writer row by row) took longer than every other phase (issue 55). The kernel writes the
two integer columns' decimal digits itself and copies each value's text from a table of
the texts of the distinct values, made by the caller with NumPy's own float formatting
(``astype(str)``, what ``to_csv`` does with a float column): the bytes are those of the
pandas writer by construction (:func:`penlearn.peaks.formats.bed.bedgraph_bytes`).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def _digits(x):
    """Number of decimal digits of ``x >= 0``."""
    n = 1
    while x >= 10:
        x //= 10
        n += 1
    return n


@numba.njit(cache=True, inline="always")
def _put(out, pos, x, n):
    """The ``n`` decimal digits of ``x >= 0`` at ``out[pos:pos + n]``; returns the end."""
    end = pos + n
    j = end - 1
    while j >= pos:
        out[j] = 48 + x % 10
        x //= 10
        j -= 1
    return end


@numba.njit(cache=True)
def bedgraph_rows(prefix, starts, ends, codes, table, offsets):
    """The bytes (uint8) of the rows ``prefix start TAB end TAB table-text[code] NEWLINE``.

    ``prefix``: the chromosome's field and a tab (uint8); ``starts, ends``: int64 >= 0;
    ``codes``: int64 indices into the texts, the ``k``-th being
    ``table[offsets[k]:offsets[k + 1]]``.

    Examples
    --------
    >>> p = np.frombuffer(b"c\\t", np.uint8)
    >>> t, o = np.frombuffer(b"1.0-0.0", np.uint8), np.array([0, 3, 7])
    >>> bytes(bedgraph_rows(p, np.array([0, 9]), np.array([9, 10]), np.array([1, 0]), t, o))
    b'c\\t0\\t9\\t-0.0\\nc\\t9\\t10\\t1.0\\n'
    """
    n, lp = len(starts), len(prefix)
    size = 0
    for i in range(n):
        k = codes[i]
        size += lp + _digits(starts[i]) + _digits(ends[i]) + offsets[k + 1] - offsets[k] + 3
    out = np.empty(size, np.uint8)
    pos = 0
    for i in range(n):
        out[pos:pos + lp] = prefix
        pos += lp
        pos = _put(out, pos, starts[i], _digits(starts[i]))
        out[pos] = 9
        pos = _put(out, pos + 1, ends[i], _digits(ends[i]))
        out[pos] = 9
        pos += 1
        k = codes[i]
        a, b = offsets[k], offsets[k + 1]
        out[pos:pos + b - a] = table[a:b]
        pos += b - a
        out[pos] = 10
        pos += 1
    return out
