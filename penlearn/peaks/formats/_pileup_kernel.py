"""Fragment pileups as run-length arrays in numba (issue 55: the pileups of ``callpeak``
are made several times per chromosome, from tens of millions of reads).

:func:`unit_depth_runs` is :func:`~penlearn.peaks.formats.bam.depth_runs` of blocks
counted once each: the starts and the ends sorted apart, then one merge of the two
(the depth rises by the starts and falls by the ends at each position), no argsort of
the concatenated positions nor cumulative sum of steps. :func:`extended_fragments` is
:func:`~penlearn.peaks.formats.read_arrays.weighted_fragments` of single-end reads
(5′ ends and strands) in one pass, in int32 when every position fits.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["equal_runs", "extended_depth_runs", "extended_fragments", "extended_starts",
           "fragment_extent", "row_cuts", "starts_depth_runs", "unit_depth_runs"]

_INT32_MAX = np.iinfo(np.int32).max


@numba.njit(cache=True, nogil=True)
def _merge_runs(s, e, out_s, out_e, out_d, write):
    """Runs ``(start, end, depth > 0)`` (equal neighbours merged) of the depth of blocks
    whose sorted starts are ``s`` and sorted ends ``e``; the number of runs (written
    when ``write``, else only counted)."""
    n, m = len(s), len(e)
    i = j = k = 0
    depth = old = 0
    start = 0
    while i < n or j < m:
        if j >= m or (i < n and s[i] <= e[j]):
            p = s[i]
        else:
            p = e[j]
        while i < n and s[i] == p:
            depth += 1
            i += 1
        while j < m and e[j] == p:
            depth -= 1
            j += 1
        # (the step written in each merge, not called: a compiled call of it, inlined
        # or not, made the merge 4-5x slower, 0.11 vs 0.025 s on chr1's 1.6 M reads)
        if depth != old:
            if old > 0:
                if write:
                    out_s[k] = start
                    out_e[k] = p
                    out_d[k] = old
                k += 1
            start = p
            old = depth
    return k


def unit_depth_runs(starts: np.ndarray, ends: np.ndarray, *, in_place: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """bedGraph runs (start, end, depth > 0; equal neighbours merged; int64) of the depth
    of half-open blocks ``[starts[i], ends[i])`` each counted once: the rows of
    :func:`~penlearn.peaks.formats.bam.depth_runs` without weights. ``in_place``: sort
    the caller's own ``starts`` and ``ends`` (arrays it made for this and drops after),
    not copies of them: a chromosome's fragments less at once (issue 55).

    Examples
    --------
    >>> s, e, d = unit_depth_runs(np.array([0, 5, 10]), np.array([10, 10, 12]))
    >>> s.tolist(), e.tolist(), d.tolist()
    ([0, 5, 10], [5, 10, 12], [1, 2, 1])
    """
    if in_place:
        starts.sort()
        ends.sort()
        s, e = starts, ends
    else:
        s, e = np.sort(starts), np.sort(ends)
    # the runs counted first, then written into arrays of their length: no room for
    # every possible run (2 per block) nor copies of it (chr1's level pass, with every
    # read held, was callpeak's high-water mark without a control: issue 55)
    none = np.empty(0, np.int64)
    k = _merge_runs(s, e, none, none, none, False)
    out = np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64)
    _merge_runs(s, e, *out, True)
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _fragment(lo, hi, x, reverse, paired, extsize, shift, size):
    """The fragment of one read clipped to ``[0, size)`` (``size`` < 0: no end): the pair
    ``[lo, hi)`` (``paired``), else the single-end read of 5′ end ``x`` on strand
    ``reverse`` extended to ``extsize`` and shifted by ``shift`` (``weighted_fragments``'
    rule)."""
    if not paired:
        x = np.int64(x)
        if reverse:
            x -= shift
            lo, hi = x + 1 - extsize, x + 1
        else:
            x += shift
            lo, hi = x, x + extsize
    if lo < 0:
        lo = 0
    if size >= 0 and hi > size:
        hi = size
    return lo, hi


@numba.njit(cache=True, nogil=True)
def _extend(five, reverse, extsize, shift, size, s, e):
    """Single-end reads' fragments (:func:`_fragment`) into ``s, e``; the number kept
    (those with a base inside ``[0, size)``; ``size`` < 0: no end)."""
    k = 0
    for i in range(len(five)):
        lo, hi = _fragment(np.int64(0), np.int64(0), five[i], reverse[i], False, extsize,
                           shift, size)
        if hi > lo:
            s[k] = lo
            e[k] = hi
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _extent(a, b, paired, extsize, shift, size):
    """``(bases, last end, fragments)`` of the fragments :func:`_fragment` makes of
    single-end reads (``a`` 5′ ends, ``b`` reverse strands), or of pairs ``[a, b)``
    clipped to ``[0, size)`` (``paired``), without arrays: int64 sums."""
    area = 0
    last = 0
    k = 0
    for i in range(len(a)):
        if paired:
            lo, hi = _fragment(np.int64(a[i]), np.int64(b[i]), 0, False, True, extsize,
                               shift, size)
        else:
            lo, hi = _fragment(np.int64(0), np.int64(0), a[i], b[i], False, extsize,
                               shift, size)
        if hi > lo:
            area += hi - lo
            if hi > last:
                last = hi
            k += 1
    return area, last, k


def fragment_extent(a: np.ndarray, b: np.ndarray, paired: bool, extsize: int | None,
                    shift: int, size: int | None) -> tuple[int, int, int]:
    """The bases summed over the fragments of one chromosome's unweighted reads, the
    last fragment's end and their number: ``(e - s).sum(), e.max(), len(s)`` of
    :func:`~penlearn.peaks.formats.read_arrays.weighted_fragments`' rows (single-end
    reads' 5′ ends ``a`` and strands ``b`` extended to ``extsize``, or pairs ``[a, b)``),
    in one compiled pass with no copy of the reads (``control_genome_mean``).

    Examples
    --------
    >>> fragment_extent(np.array([5, 39], np.int32), np.array([False, True]), False,
    ...                 25, 0, 40)
    (50, 40, 2)
    """
    area, last, k = _extent(a, b, bool(paired), np.int64(extsize if extsize else 0),
                            np.int64(shift), np.int64(-1 if size is None else size))
    return int(area), int(last), int(k)


def extended_fragments(five: np.ndarray, reverse: np.ndarray, extsize: int, shift: int,
                       size: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) of single-end reads moved ``shift`` bases 3′-ward and extended to
    ``extsize`` bases, clipped to ``[0, size)`` (None: no end), those left without a
    base dropped: :func:`~penlearn.peaks.formats.read_arrays.weighted_fragments`' rows
    (int32 when every position fits, else int64).

    Examples
    --------
    >>> s, e = extended_fragments(np.array([5, 39], np.int32), np.array([False, True]),
    ...                           25, 0, 40)
    >>> s.tolist(), e.tolist()
    ([5, 15], [30, 40])
    """
    top = (int(five.max()) if len(five) else 0) + abs(int(shift)) + int(extsize) + 1
    if size is not None:
        top = min(top, int(size))
    dtype = np.int32 if top <= _INT32_MAX else np.int64
    s = np.empty(len(five), dtype)
    e = np.empty(len(five), dtype)
    k = _extend(five, reverse, np.int64(extsize), np.int64(shift),
                np.int64(-1 if size is None else size), s, e)
    if k < len(five):
        s, e = s[:k].copy(), e[:k].copy()
    return s, e


@numba.njit(cache=True, nogil=True)
def _extended_starts(five, reverse, extsize, shift, size, out):
    """The unclipped starts of single-end reads' fragments (:func:`_fragment`'s ``lo``
    before its clipping at 0) into ``out``, those with a base inside ``[0, size)`` only
    (``size`` < 0: no end); their number."""
    k = 0
    for i in range(len(five)):
        x = np.int64(five[i])
        lo = x - shift + 1 - extsize if reverse[i] else x + shift
        hi = lo + extsize
        if size >= 0 and hi > size:
            hi = size
        if hi > max(lo, 0):
            out[k] = lo
            k += 1
    return k


@numba.njit(cache=True, nogil=True, inline="always")
def _clipped_end(lo, extsize, size):
    hi = np.int64(lo) + extsize
    if size >= 0 and hi > size:
        hi = size
    return hi


@numba.njit(cache=True, nogil=True)
def _merge_extended(lo, extsize, size, out_s, out_e, out_d, write):
    """:func:`_merge_runs` of fragments ``[max(lo, 0), min(lo + extsize, size))`` of the
    sorted unclipped starts ``lo``: both bounds are non-decreasing in ``lo``, so the
    starts and the ends are each sorted by ``lo``'s one sort."""
    n = len(lo)
    i = j = k = 0
    depth = old = 0
    start = 0
    while i < n or j < n:
        p = _clipped_end(lo[j], extsize, size) if j < n else 0
        if i < n:
            s = max(np.int64(lo[i]), 0)
            if j >= n or s <= p:
                p = s
        while i < n and max(np.int64(lo[i]), 0) == p:
            depth += 1
            i += 1
        while j < n and _clipped_end(lo[j], extsize, size) == p:
            depth -= 1
            j += 1
        # (the step written in each merge, not called: a compiled call of it, inlined
        # or not, made the merge 4-5x slower, 0.11 vs 0.025 s on chr1's 1.6 M reads)
        if depth != old:
            if old > 0:
                if write:
                    out_s[k] = start
                    out_e[k] = p
                    out_d[k] = old
                k += 1
            start = p
            old = depth
    return k


def extended_depth_runs(five: np.ndarray, reverse: np.ndarray, extsize: int, shift: int,
                        size: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``unit_depth_runs(*extended_fragments(five, reverse, extsize, shift, size))``
    with one sort, of the fragments' unclipped starts (their clipped starts and ends
    both follow that order), and one array of the reads' length, not two (issue 55:
    ``callpeak`` makes each chromosome's pileups several times):
    ``starts_depth_runs(extended_starts(...), extsize, size)``.

    Examples
    --------
    >>> s, e, d = extended_depth_runs(np.array([5, 39, 2], np.int32),
    ...                               np.array([False, True, True]), 25, 0, 40)
    >>> s.tolist(), e.tolist(), d.tolist()
    ([0, 5, 15, 30], [3, 15, 30, 40], [1, 1, 2, 1])
    """
    return starts_depth_runs(extended_starts(five, reverse, extsize, shift, size), extsize,
                             size)


def extended_starts(five: np.ndarray, reverse: np.ndarray, extsize: int, shift: int,
                    size: int | None) -> np.ndarray:
    """The sorted unclipped starts of single-end reads' fragments (those with a base in
    ``[0, size)``), int32 when every position fits: what :func:`starts_depth_runs`
    merges.

    Examples
    --------
    >>> extended_starts(np.array([5, 39, 2], np.int32), np.array([False, True, True]),
    ...                 25, 0, 40).tolist()
    [-22, 5, 15]
    """
    extsize, shift = int(extsize), int(shift)
    top = (int(five.max()) if len(five) else 0) + abs(shift) + 1
    fits = max(top, abs(shift) + extsize) <= _INT32_MAX
    lo = np.empty(len(five), np.int32 if fits else np.int64)
    k = _extended_starts(five, reverse, np.int64(extsize), np.int64(shift),
                         np.int64(-1 if size is None else size), lo)
    lo = lo[:k]
    lo.sort()
    return lo


def starts_depth_runs(lo: np.ndarray, extsize: int, size: int | None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The depth runs of the fragments ``[max(lo, 0), min(lo + extsize, size))`` of the
    sorted unclipped starts ``lo`` (:func:`extended_starts`).

    Examples
    --------
    >>> s, e, d = starts_depth_runs(np.array([-22, 5, 15], np.int32), 25, 40)
    >>> s.tolist(), e.tolist(), d.tolist()
    ([0, 5, 15, 30], [3, 15, 30, 40], [1, 1, 2, 1])
    """
    # one merge into room for every possible run (fewer than two a fragment), then each
    # array shrunk in place (realloc) to the runs written: the room past them is never
    # written, so never resident, and no merge to count the runs first (issue 55)
    room = max(2 * len(lo) - 1, 0)
    out = np.empty(room, np.int64), np.empty(room, np.int64), np.empty(room, np.int64)
    n = _merge_extended(lo, np.int64(extsize), np.int64(-1 if size is None else size), *out,
                        True)
    for column in out:
        column.resize(n, refcheck=False)  # (the arrays are this call's own)
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _cut(out, k, last, y, lo, hi, write):
    """Writes ``y`` after the cut ``last`` (the ``k``-th) unless it repeats it or lies
    outside ``[lo, hi]``; the number of cuts and the last one."""
    if lo <= y <= hi and (k == 0 or y != last):
        if write:
            out[k] = y
        return k + 1, y
    return k, last


@numba.njit(cache=True, nogil=True)
def _row_cuts(a_start, a_end, b_start, b_end, lo, hi, out, write):
    """The distinct values of the bounds of rows ``a`` (``start[0], end[0], start[1],
    …``) and of rows ``b`` (those in ``[lo, hi]``) merged; their number, or -1 where the
    bounds of either are not in order (rows that overlap or are not sorted)."""
    na, nb = len(a_start), len(b_start)
    k = 0
    last = np.int64(0)
    j = 0  # the next of b's bounds (two a row)
    prev_a = a_start[0] if na else 0
    prev_b = b_start[0] if nb else 0
    for r in range(2 * na):
        x = a_start[r >> 1] if (r & 1) == 0 else a_end[r >> 1]
        if x < prev_a:
            return -1
        prev_a = x
        while j < 2 * nb:  # b's bounds up to x first
            y = b_start[j >> 1] if (j & 1) == 0 else b_end[j >> 1]
            if y < prev_b:
                return -1
            if y > x:
                break
            prev_b = y
            j += 1
            k, last = _cut(out, k, last, y, lo, hi, write)
        k, last = _cut(out, k, last, x, x, x, write)
    while j < 2 * nb:
        y = b_start[j >> 1] if (j & 1) == 0 else b_end[j >> 1]
        if y < prev_b:
            return -1
        prev_b = y
        j += 1
        k, last = _cut(out, k, last, y, lo, hi, write)
    return k


def row_cuts(a_start: np.ndarray, a_end: np.ndarray, b_start: np.ndarray,
             b_end: np.ndarray, lo: int, hi: int) -> np.ndarray | None:
    """``np.unique`` of the bounds of the rows ``a`` and of those of rows ``b`` within
    ``[lo, hi]``, by one merge of the two (each sorted without overlaps: a row's bounds
    follow the previous row's), not a sort of them all; None where either is not so.

    Examples
    --------
    >>> row_cuts(np.array([0, 10]), np.array([5, 20]), np.array([3, 8]), np.array([8, 30]),
    ...          0, 20).tolist()
    [0, 3, 5, 8, 10, 20]
    """
    args = (a_start, a_end, b_start, b_end, np.int64(lo), np.int64(hi))
    k = _row_cuts(*args, np.empty(0, np.int64), False)
    if k < 0:
        return None
    out = np.empty(k, np.int64)
    _row_cuts(*args, out, True)
    return out


@numba.njit(cache=True, nogil=True)
def _values_at_sorted(start, end, value, x, missing, out):
    k = -1
    n = len(start)
    for i in range(len(x)):
        xi = x[i]
        while k + 1 < n and start[k + 1] <= xi:
            k += 1
        if k >= 0 and xi < end[k]:
            out[i] = value[k]
        else:
            out[i] = missing


def values_at_sorted(start: np.ndarray, end: np.ndarray, value: np.ndarray, x: np.ndarray,
                     missing) -> np.ndarray:
    """The value of the row (``start`` sorted) holding each position of the sorted ``x``
    (the last row starting at or before it; ``missing`` where that row ends before it or
    none starts), in one walk: ``searchsorted(start, x, "right") - 1``'s rows without a
    search per position.

    Examples
    --------
    >>> values_at_sorted(np.array([0, 10]), np.array([5, 20]), np.array([3, 4]),
    ...                  np.array([-1, 0, 7, 12, 25]), 0).tolist()
    [0, 3, 0, 4, 0]
    """
    out = np.empty(len(x), np.result_type(value, missing))
    _values_at_sorted(start, end, value, x, out.dtype.type(missing), out)
    return out


@numba.njit(cache=True, nogil=True)
def _insert(values, at, new, out):
    j = 0  # the next inserted row
    m = 0
    for i in range(len(values)):
        while j < len(at) and at[j] == i:
            out[m] = new[j]
            m += 1
            j += 1
        out[m] = values[i]
        m += 1
    while j < len(at):
        out[m] = new[j]
        m += 1
        j += 1


def insert_rows(values: np.ndarray, at: np.ndarray, new) -> np.ndarray:
    """``np.insert(values, at, new)`` for ``at`` sorted (non-decreasing, within ``[0,
    len(values)]``) in one compiled copy (``np.insert`` sorts the positions and copies
    through masks); ``new`` an array as long as ``at`` or a scalar.

    Examples
    --------
    >>> insert_rows(np.array([1, 2, 3]), np.array([1, 3]), np.array([8, 9])).tolist()
    [1, 8, 2, 3, 9]
    """
    values = np.asarray(values)
    new = np.broadcast_to(np.asarray(new, values.dtype), at.shape)
    out = np.empty(len(values) + len(at), values.dtype)
    _insert(values, np.asarray(at, np.int64), np.ascontiguousarray(new), out)
    return out


@numba.njit(cache=True, nogil=True)
def _level_sums(starts, ends, counts):
    total = 0
    rises = 0
    for i in range(len(starts)):
        total += counts[i] * (ends[i] - starts[i])
        prev = counts[i - 1] if i and starts[i] == ends[i - 1] else 0
        if counts[i] > prev:
            rises += counts[i] - prev
    return total, rises


def level_sums(starts: np.ndarray, ends: np.ndarray, counts: np.ndarray) -> tuple[int, int]:
    """``(coverage total, rises)`` of integer pileup runs in one pass, no temporary array:
    the sums :func:`~penlearn.peaks.formats.peak_columns.genome_level` takes (integers:
    exact whatever the order of the additions).

    Examples
    --------
    >>> level_sums(np.array([0, 10]), np.array([10, 30]), np.array([1, 2]))
    (50, 2)
    """
    total, rises = _level_sums(starts, ends, counts)
    return int(total), int(rises)


@numba.njit(cache=True, nogil=True)
def equal_runs(starts, ends, values):
    """The runs of touching rows (a row starting where the one before ends) of one
    value, in one pass: ``(first, run_of_row)``, each run's first row and each row's
    run (0, 1, ...); :func:`~penlearn.peaks.formats.bed.merge_equal_runs`' rows.

    Examples
    --------
    >>> first, run = equal_runs(np.array([0, 5, 10, 20]), np.array([5, 10, 20, 30]),
    ...                         np.array([1.0, 1.0, 2.0, 2.0]))
    >>> first.tolist(), run.tolist()
    ([0, 2], [0, 0, 1, 1])
    """
    n = starts.shape[0]
    run_of = np.empty(n, np.int64)
    k = -1
    for i in range(n):
        if i == 0 or values[i] != values[i - 1] or starts[i] != ends[i - 1]:
            k += 1
        run_of[i] = k
    first = np.empty(k + 1, np.int64)  # (the runs counted first: no room for n)
    for i in range(n - 1, -1, -1):
        first[run_of[i]] = i
    return first, run_of
