"""Compiled loops of :mod:`penlearn.peaks.peakseg.candidates` (numba): the bound on
each row's local λ, one pass over a window's rows (the NumPy expression made ~10
arrays the size of a chromosome's rows per window width: 2 s of a genome's run)."""

from __future__ import annotations

import numba
import numpy as np  # noqa: F401 (the examples)


@numba.njit(cache=True, nogil=True)
def floors_of_rows(starts, ends, area, origin, bin_size, widths, out):
    """For each row ``[starts[i], ends[i])``: the most, over ``widths``, of the
    coverage of the whole bins (``area[k]``: the coverage summed over ``[origin,
    origin + k · bin_size)``) inside the bases every window of width ``w`` centred on a
    base of the row holds, over ``w``; into ``out``.

    Examples
    --------
    >>> area = np.array([0.0, 250.0, 500.0, 1250.0, 2000.0])
    >>> out = np.zeros(1)
    >>> floors_of_rows(np.array([490]), np.array([510]), area, 0, 250, np.array([1000]),
    ...                out)
    >>> out.tolist()
    [1.0]
    """
    top = area.shape[0] - 1
    for i in range(starts.shape[0]):
        best = 0.0
        for w in widths:
            lo = ends[i] - 1 - w // 2 - origin
            if lo < 0:
                lo = 0
            hi = starts[i] + (w - w // 2) - origin
            k_lo = -(-lo // bin_size)
            if k_lo > top:
                k_lo = top
            k_hi = hi // bin_size
            if k_hi > top:
                k_hi = top
            if k_hi > k_lo:
                v = (area[k_hi] - area[k_lo]) / w
                if v > best:
                    best = v
        out[i] = best


@numba.njit(cache=True, nogil=True)
def bin_areas(starts, ends, counts, origin, bin_size, n_bins):
    """The coverage of the rows ``(starts, ends, counts)`` summed over ``[origin,
    origin + k · bin_size)`` for k = 0 .. ``n_bins`` (float64), in one pass over the
    rows: no array of the rows' running sums.

    Examples
    --------
    >>> bin_areas(np.array([0, 500]), np.array([500, 1000]), np.array([1, 3]), 0, 250, 4
    ...           ).tolist()
    [0.0, 250.0, 500.0, 1250.0, 2000.0]
    >>> bin_areas(np.array([0, 500]), np.array([500, 1000]), np.array([1, 3]), 250, 250,
    ...           2).tolist()
    [0.0, 250.0, 1000.0]
    """
    per_bin = np.zeros(n_bins + 1)
    end = origin + n_bins * bin_size
    for i in range(starts.shape[0]):
        s = max(starts[i], origin)
        e = min(ends[i], end)
        c = float(counts[i])
        while s < e:
            k = (s - origin) // bin_size
            stop = min(e, origin + (k + 1) * bin_size)
            per_bin[k + 1] += c * (stop - s)
            s = stop
    for k in range(1, n_bins + 1):
        per_bin[k] += per_bin[k - 1]
    return per_bin


@numba.njit(cache=True, nogil=True)
def counts_histogram(counts, bins):
    """How many of ``counts`` have each value, floored, ``bins - 1`` and above in the
    last bin (counts ≥ 0), in one pass: no floored or clipped copy of them.

    Examples
    --------
    >>> counts_histogram(np.array([0.0, 2.5, 2.0, 9.0]), 5).tolist()
    [1, 0, 2, 0, 1]
    """
    out = np.zeros(bins, np.int64)
    for i in range(counts.shape[0]):
        c = counts[i]
        k = bins - 1 if c >= bins - 1 else int(np.floor(c))
        out[k] += 1
    return out
