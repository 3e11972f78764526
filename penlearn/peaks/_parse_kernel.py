"""Bulk parsing of coverage text (bedGraph lines, the numbers of CSV tables) in numba.

One pass over the bytes of a file: lines end in ``\\n``, ``\\r\\n`` or ``\\r``; integers are
ASCII digits with an optional ``-`` (a count may end in ``.`` and zeros: ``3.0``); no
``+``, ``_``, spaces inside a field, exponents or non-ASCII digits (forms Python's ``int``
takes but a bedGraph does not). A value beyond the 64-bit integer range is reported, never
wrapped. Every error gives the 1-based line and the byte range of the bad field, so the
caller names file, line and token; nothing is parsed twice unless there is an error.
"""

from __future__ import annotations

import numba
import numpy as np

#: error codes of the kernels (0: none)
FIELDS, NOT_INTEGER, OVERFLOW = 1, 2, 3
_INT64_MAX = np.int64(9223372036854775807)


@numba.njit(cache=True)
def _line_end(buf, i):
    n = len(buf)
    while i < n:
        c = buf[i]
        if c == 10 or c == 13:
            return i
        i += 1
    return n


@numba.njit(cache=True)
def _after(buf, e):
    """Start of the line after the terminator at ``e``."""
    if e + 1 < len(buf) and buf[e] == 13 and buf[e + 1] == 10:
        return e + 2
    return e + 1


@numba.njit(cache=True)
def _starts(buf, i, b, word):
    if b - i < len(word):
        return False
    for k in range(len(word)):
        if buf[i + k] != word[k]:
            return False
    return True


@numba.njit(cache=True)
def _is_data(buf, a, b, track, browser):
    """A line holding data: not blank, not a ``track`` / ``browser`` / ``#`` line."""
    i = a
    while i < b and (buf[i] == 32 or buf[i] == 9):
        i += 1
    if i == b:
        return False
    if buf[i] == 35:
        return False
    return not (_starts(buf, i, b, track) or _starts(buf, i, b, browser))


@numba.njit(cache=True)
def _parse_int(buf, a, b, allow_fraction):
    """(value, status) of the field ``buf[a:b]``; status 0 ok, NOT_INTEGER, OVERFLOW."""
    i = a
    negative = False
    if i < b and buf[i] == 45:
        negative = True
        i += 1
    first = i
    value = np.int64(0)
    overflow = False
    while i < b and 48 <= buf[i] <= 57:
        d = np.int64(buf[i] - 48)
        if value > (_INT64_MAX - d) // 10:
            overflow = True
        else:
            value = value * 10 + d
        i += 1
    if i == first:
        return np.int64(0), NOT_INTEGER
    if i < b and allow_fraction and buf[i] == 46:
        i += 1
        while i < b and buf[i] == 48:
            i += 1
    if i < b:
        return np.int64(0), NOT_INTEGER
    if overflow:
        return np.int64(0), OVERFLOW
    return (-value if negative else value), 0


@numba.njit(cache=True)
def parse_bedgraph(buf, n_max, track, browser):
    """Parse bedGraph lines ``chrom chromStart chromEnd count`` (spaces / tabs).

    Returns ``start, end, count`` (int64, length = rows), the chromosome runs
    (``run_row`` first row, ``run_a, run_b`` byte range of the name) and the error
    ``(code, line, field, a, b)``: code 0 none, FIELDS (``field`` = the number of fields
    found, ``a:b`` the line), NOT_INTEGER / OVERFLOW (``field`` 1..3 and the token's
    bytes ``a:b``).
    """
    start = np.empty(n_max, np.int64)
    end = np.empty(n_max, np.int64)
    count = np.empty(n_max, np.int64)
    cap = 64
    run_row = np.empty(cap, np.int64)
    run_a = np.empty(cap, np.int64)
    run_b = np.empty(cap, np.int64)
    runs = 0
    rows = 0
    line = 0
    pos = 0
    n = len(buf)
    fa = np.zeros(5, np.int64)
    fb = np.zeros(5, np.int64)
    err = np.zeros(5, np.int64)
    while pos < n:
        e = _line_end(buf, pos)
        line += 1
        if _is_data(buf, pos, e, track, browser):
            nf = 0
            i = pos
            while i < e:
                while i < e and (buf[i] == 32 or buf[i] == 9):
                    i += 1
                if i == e:
                    break
                j = i
                while j < e and buf[j] != 32 and buf[j] != 9:
                    j += 1
                if nf < 5:
                    fa[nf] = i
                    fb[nf] = j
                nf += 1
                i = j
            if nf != 4:
                err[0], err[1], err[2], err[3], err[4] = FIELDS, line, nf, pos, e
                break
            values = np.zeros(3, np.int64)
            bad = 0
            for k in range(3):
                v, status = _parse_int(buf, fa[k + 1], fb[k + 1], k == 2)
                if status != 0:
                    err[0], err[1], err[2], err[3], err[4] = status, line, k + 1, \
                        fa[k + 1], fb[k + 1]
                    bad = 1
                    break
                values[k] = v
            if bad:
                break
            start[rows], end[rows], count[rows] = values[0], values[1], values[2]
            a, b = fa[0], fb[0]
            same = False
            if runs > 0 and run_b[runs - 1] - run_a[runs - 1] == b - a:
                same = True
                pa = run_a[runs - 1]
                for k in range(b - a):
                    if buf[pa + k] != buf[a + k]:
                        same = False
                        break
            if not same:
                if runs == cap:
                    cap *= 2
                    run_row = _grow(run_row, cap)
                    run_a = _grow(run_a, cap)
                    run_b = _grow(run_b, cap)
                run_row[runs], run_a[runs], run_b[runs] = rows, a, b
                runs += 1
            rows += 1
        pos = _after(buf, e)
    return (start[:rows], end[:rows], count[:rows], run_row[:runs], run_a[:runs],
            run_b[:runs], err)


@numba.njit(cache=True)
def _grow(arr, cap):
    out = np.empty(cap, arr.dtype)
    out[: len(arr)] = arr
    return out


@numba.njit(cache=True)
def data_line_number(buf, row, track, browser):
    """The 1-based line of data row ``row`` (0-based) of a bedGraph (-1 if none)."""
    pos = 0
    line = 0
    rows = 0
    n = len(buf)
    while pos < n:
        e = _line_end(buf, pos)
        line += 1
        if _is_data(buf, pos, e, track, browser):
            if rows == row:
                return line
            rows += 1
        pos = _after(buf, e)
    return -1


@numba.njit(cache=True)
def parse_csv_numbers(buf, pos, line, sep, n_fields, cols, text_cols, n_max):
    """The integer columns ``cols`` (3 field indices; the last one a count) and the runs of
    equal values of the text columns ``text_cols`` (2 field indices, -1 for none) of the
    CSV lines from byte ``pos`` on (``line`` lines before it). Fields may be quoted
    (``"..."``, ``""`` inside); blank lines are skipped.

    Returns the three columns (int64); per text column ``nruns[k]`` runs with first row
    ``run_row[k]`` and the byte range ``run_a[k], run_b[k]`` of the value; and the error
    ``(code, line, field, a, b)`` as :func:`parse_bedgraph` (``field`` is a field index,
    or the number of fields found for FIELDS).
    """
    v0 = np.empty(n_max, np.int64)
    v1 = np.empty(n_max, np.int64)
    v2 = np.empty(n_max, np.int64)
    cap = 64
    run_row = np.empty((2, cap), np.int64)
    run_a = np.empty((2, cap), np.int64)
    run_b = np.empty((2, cap), np.int64)
    nruns = np.zeros(2, np.int64)
    err = np.zeros(5, np.int64)
    rows = 0
    n = len(buf)
    while pos < n:
        e = _line_end(buf, pos)
        line += 1
        i = pos
        while i < e and (buf[i] == 32 or buf[i] == 9):
            i += 1
        if i < e:
            f = 0
            i = pos
            stop = False
            while True:
                a, b = i, i
                if i < e and buf[i] == 34:
                    j = i + 1
                    while j < e:
                        if buf[j] == 34:
                            if j + 1 < e and buf[j + 1] == 34:
                                j += 2
                                continue
                            break
                        j += 1
                    a, b = i + 1, j
                    i = j + 1
                    while i < e and buf[i] != sep:
                        i += 1
                else:
                    while i < e and buf[i] != sep:
                        i += 1
                    b = i
                for k in range(3):
                    if cols[k] == f:
                        v, status = _parse_int(buf, a, b, k == 2)
                        if status != 0 and not stop:
                            err[0], err[1], err[2], err[3], err[4] = status, line, f, a, b
                            stop = True
                        if k == 0:
                            v0[rows] = v
                        elif k == 1:
                            v1[rows] = v
                        else:
                            v2[rows] = v
                for k in range(2):
                    if text_cols[k] == f:
                        r = nruns[k]
                        same = False
                        if r > 0 and run_b[k, r - 1] - run_a[k, r - 1] == b - a:
                            same = True
                            pa = run_a[k, r - 1]
                            for t in range(b - a):
                                if buf[pa + t] != buf[a + t]:
                                    same = False
                                    break
                        if not same:
                            if r == cap:
                                cap *= 2
                                run_row = _grow2(run_row, cap)
                                run_a = _grow2(run_a, cap)
                                run_b = _grow2(run_b, cap)
                            run_row[k, r], run_a[k, r], run_b[k, r] = rows, a, b
                            nruns[k] = r + 1
                f += 1
                if i >= e:
                    break
                i += 1  # the separator
            if f != n_fields:
                err[0], err[1], err[2], err[3], err[4] = FIELDS, line, f, pos, e
                break
            if stop:
                break
            rows += 1
        pos = _after(buf, e)
    return v0[:rows], v1[:rows], v2[:rows], run_row, run_a, run_b, nruns, err


@numba.njit(cache=True)
def _grow2(arr, cap):
    out = np.empty((arr.shape[0], cap), arr.dtype)
    out[:, : arr.shape[1]] = arr
    return out


@numba.njit(cache=True)
def csv_line_number(buf, pos, line, row):
    """The 1-based line of data row ``row`` of a CSV table whose data start at byte
    ``pos`` after ``line`` lines (blank lines skipped, as :func:`parse_csv_numbers`)."""
    rows = 0
    n = len(buf)
    while pos < n:
        e = _line_end(buf, pos)
        line += 1
        i = pos
        while i < e and (buf[i] == 32 or buf[i] == 9):
            i += 1
        if i < e:
            if rows == row:
                return line
            rows += 1
        pos = _after(buf, e)
    return -1
