"""Bulk parsing of coverage text (bedGraph lines, the numbers of CSV tables) in numba.

One pass over a file's bytes, block by block (each block whole lines: the columns are
written where the previous block left them, the line count carried on): lines end in
``\\n``, ``\\r\\n`` or ``\\r``; integers are ASCII digits with an optional ``-`` (a count
may end in ``.`` and zeros: ``3.0``); no ``+``, ``_``, spaces inside a field, exponents or
non-ASCII digits (forms Python's ``int`` takes but a bedGraph does not). A value beyond
the 64-bit integer range is reported, never wrapped. Every error gives the 1-based line and
the byte range of the bad field, so the caller names file, line and token; nothing is
parsed twice unless there is an error.

Speed: the common line (no leading blank, unquoted, integers of at most 18 digits, no
error) is parsed in one pass — each integer's digits accumulated as they are scanned, the
chromosome name compared in place with the previous run's — with no end-of-buffer test
(every line that starts before the block's last terminator ends in one) and no call per
row (in numba a helper taking the byte array costs a reference-count increment and
decrement per call). Every other line, and the text after the last terminator, takes the
general path (field ranges, then :func:`_parse_int`), which alone decides errors, so the
results and messages are those of the general path (tests/peaks/test_parse_kernel.py).
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
        if i - first >= 18 and value > (_INT64_MAX - d) // 10:  # only past 18 digits
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
def _same(buf, pa, a, length):
    """Whether ``buf[pa:pa + length]`` equals ``buf[a:a + length]``."""
    for t in range(length):
        if buf[pa + t] != buf[a + t]:
            return False
    return True


@numba.njit(cache=True)
def _lines_end(buf):
    """One past the last line terminator of ``buf`` (0 if none): every line that starts
    before it ends in a terminator, so the fast paths scan it with no end-of-buffer test."""
    k = len(buf)
    while k > 0 and buf[k - 1] != 10 and buf[k - 1] != 13:
        k -= 1
    return k


@numba.njit(cache=True)
def parse_bedgraph(buf, pos, line, start, end, count, row, run_row, run_a, run_b, err):
    """Parse bedGraph lines ``chrom chromStart chromEnd count`` (spaces / tabs) of ``buf``
    from byte ``pos`` on (``line`` lines before it) into ``start, end, count`` from index
    ``row`` on: one block of a file (:func:`penlearn.peaks.formats._text_files.text_blocks`).

    Stops at the end of ``buf``, at the first bad line, or at the start of a line when the
    columns or the run arrays are full (the caller grows them and goes on from there).
    Returns ``(pos, line, row, runs)``: where it stopped, the lines and rows so far, and
    the chromosome runs of this call (``run_row`` first row, ``run_a, run_b`` byte range of
    the name; a run may go on from the previous call's last one). ``err`` gets
    ``(code, line, field, a, b)``: FIELDS (``field`` = the number of fields found, ``a:b``
    the line), NOT_INTEGER / OVERFLOW (``field`` 1..3 and the token's bytes ``a:b``).
    """
    runs = 0
    n = len(buf)
    limit = _lines_end(buf)
    cap = len(start)
    run_cap = len(run_row)
    while pos < n:
        if row == cap or runs == run_cap:
            break
        line += 1
        if pos < limit:
            # the common line in one pass, with no end-of-buffer test (it ends in a
            # terminator before ``limit``) and no call; any other line (blank, comment,
            # header, bad, a number of 19 digits or more) takes the general path below
            i = pos
            c = buf[i]
            ok = not (c == 32 or c == 9 or c == 10 or c == 13 or c == 35)
            same = False
            a0 = b0 = 0
            if ok:
                a0 = i
                if runs > 0:  # the previous run's name, then a blank?
                    pa = run_a[runs - 1]
                    plen = run_b[runs - 1] - pa
                    if i + plen < limit and (buf[i + plen] == 32 or buf[i + plen] == 9):
                        same = True
                        for t in range(plen):
                            if buf[pa + t] != buf[a0 + t]:
                                same = False
                                break
                        if same:
                            i += plen
                if not same:
                    while c != 32 and c != 9 and c != 10 and c != 13:
                        i += 1
                        c = buf[i]
                    # a track / browser line: the general path
                    ok = not ((i - a0 >= 5 and buf[a0] == 116 and buf[a0 + 1] == 114
                               and buf[a0 + 2] == 97 and buf[a0 + 3] == 99
                               and buf[a0 + 4] == 107)
                              or (i - a0 >= 7 and buf[a0] == 98 and buf[a0 + 1] == 114
                                  and buf[a0 + 2] == 111 and buf[a0 + 3] == 119
                                  and buf[a0 + 4] == 115 and buf[a0 + 5] == 101
                                  and buf[a0 + 6] == 114))
                b0 = i
            v1 = v2 = v = np.int64(0)
            for f in range(3):  # blanks, then digits parsed as they are scanned
                c = buf[i]
                if not ok or (c != 32 and c != 9):
                    ok = False
                    break
                while c == 32 or c == 9:
                    i += 1
                    c = buf[i]
                negative = c == 45
                if negative:
                    i += 1
                    c = buf[i]
                first = i
                v = np.int64(0)
                while 48 <= c <= 57:
                    v = v * 10 + np.int64(c - 48)
                    i += 1
                    c = buf[i]
                if i == first or i - first > 18:
                    ok = False
                    break
                if negative:
                    v = -v
                if f == 0:
                    v1 = v
                elif f == 1:
                    v2 = v
                elif c == 46:  # the count: "3." / "3.00"
                    i += 1
                    while buf[i] == 48:
                        i += 1
            if ok:
                c = buf[i]
                while c == 32 or c == 9:
                    i += 1
                    c = buf[i]
                if c == 10 or c == 13:
                    start[row] = v1
                    end[row] = v2
                    count[row] = v
                    if not same and not (runs > 0 and run_b[runs - 1] - run_a[runs - 1]
                                         == b0 - a0 and _same(buf, run_a[runs - 1], a0,
                                                              b0 - a0)):
                        run_row[runs] = row
                        run_a[runs] = a0
                        run_b[runs] = b0
                        runs += 1
                    row += 1
                    pos = i + 2 if c == 13 and i + 1 < n and buf[i + 1] == 10 else i + 1
                    continue
        # skip leading blanks
        i = pos
        while i < n and (buf[i] == 32 or buf[i] == 9):
            i += 1
        if i >= n or buf[i] == 10 or buf[i] == 13 or buf[i] == 35:
            e = _line_end(buf, i)
            pos = _after(buf, e)
            continue
        a0 = i
        while i < n and buf[i] != 32 and buf[i] != 9 and buf[i] != 10 and buf[i] != 13:
            i += 1
        b0 = i
        # header words
        if (b0 - a0 >= 5 and buf[a0] == 116 and buf[a0+1] == 114 and buf[a0+2] == 97
                and buf[a0+3] == 99 and buf[a0+4] == 107) or (
                b0 - a0 >= 7 and buf[a0] == 98 and buf[a0+1] == 114 and buf[a0+2] == 111
                and buf[a0+3] == 119 and buf[a0+4] == 115 and buf[a0+5] == 101
                and buf[a0+6] == 114):
            e = _line_end(buf, i)
            pos = _after(buf, e)
            continue
        fa1 = fb1 = fa2 = fb2 = fa3 = fb3 = 0
        nf = 1
        while True:
            while i < n and (buf[i] == 32 or buf[i] == 9):
                i += 1
            if i >= n or buf[i] == 10 or buf[i] == 13:
                break
            j = i
            while j < n and buf[j] != 32 and buf[j] != 9 and buf[j] != 10 and buf[j] != 13:
                j += 1
            if nf == 1:
                fa1, fb1 = i, j
            elif nf == 2:
                fa2, fb2 = i, j
            elif nf == 3:
                fa3, fb3 = i, j
            nf += 1
            i = j
        e = i
        if nf != 4:
            err[0], err[1], err[2], err[3], err[4] = FIELDS, line, nf, pos, e
            break
        v1, s1 = _parse_int(buf, fa1, fb1, False)
        v2, s2 = _parse_int(buf, fa2, fb2, False)
        v3, s3 = _parse_int(buf, fa3, fb3, True)
        if s1 != 0 or s2 != 0 or s3 != 0:
            if s1 != 0:
                err[0], err[1], err[2], err[3], err[4] = s1, line, 1, fa1, fb1
            elif s2 != 0:
                err[0], err[1], err[2], err[3], err[4] = s2, line, 2, fa2, fb2
            else:
                err[0], err[1], err[2], err[3], err[4] = s3, line, 3, fa3, fb3
            break
        start[row] = v1
        end[row] = v2
        count[row] = v3
        if not (runs > 0 and run_b[runs - 1] - run_a[runs - 1] == b0 - a0
                and _same(buf, run_a[runs - 1], a0, b0 - a0)):
            run_row[runs] = row
            run_a[runs] = a0
            run_b[runs] = b0
            runs += 1
        row += 1
        pos = _after(buf, e)
    return pos, line, row, runs


@numba.njit(cache=True)
def row_line(buf, skip, row, data_only, track, browser):
    """Find data row ``row`` (0-based) among the lines of ``buf`` after its first ``skip``
    lines: a row is a line that is not blank (and, with ``data_only``, not a ``track`` /
    ``browser`` / ``#`` line, as in a bedGraph). Returns ``(line, rows, lines)``: the
    row's 1-based line in ``buf`` (-1 if not there), the rows and the lines of ``buf``."""
    pos = 0
    line = 0
    rows = 0
    n = len(buf)
    while pos < n:
        e = _line_end(buf, pos)
        line += 1
        if line > skip:
            if data_only:
                data = _is_data(buf, pos, e, track, browser)
            else:
                i = pos
                while i < e and (buf[i] == 32 or buf[i] == 9):
                    i += 1
                data = i < e
            if data:
                if rows == row:
                    return line, rows, line
                rows += 1
        pos = _after(buf, e)
    return -1, rows, line


@numba.njit(cache=True)
def parse_csv_numbers(buf, pos, line, sep, n_fields, cols, text_cols, v0, v1, v2, rows,
                      run_row, run_a, run_b, err):
    """The integer columns ``cols`` (3 field indices; the last one a count) and the runs of
    equal values of the text columns ``text_cols`` (2 field indices, -1 for none) of the
    CSV lines of ``buf`` from byte ``pos`` on (``line`` lines before it), written into
    ``v0, v1, v2`` from index ``rows`` on. Fields may be quoted (``"..."``, ``""``
    inside); blank lines are skipped. Stops as :func:`parse_bedgraph`.

    Returns ``(pos, line, rows, nruns)``; per text column ``nruns[k]`` runs of this call
    with first row ``run_row[k]`` and the byte range ``run_a[k], run_b[k]`` of the value;
    ``err`` gets the error ``(code, line, field, a, b)`` as :func:`parse_bedgraph`
    (``field`` is a field index, or the number of fields found for FIELDS).
    """
    role = np.full(max(n_fields, 1), -1, np.int64)  # 0..2 integer column, 3..4 text
    for k in range(3):
        role[cols[k]] = k
    for k in range(2):
        if text_cols[k] >= 0:
            role[text_cols[k]] = 3 + k
    nruns = np.zeros(2, np.int64)
    last = np.zeros(4, np.int64)  # the byte ranges of the current runs' values
    n = len(buf)
    limit = _lines_end(buf)
    cap = len(v0)
    run_cap = run_row.shape[1]
    text_range = np.zeros(4, np.int64)  # the byte ranges of this line's text values
    while pos < n:
        if rows == cap or nruns[0] == run_cap or nruns[1] == run_cap:
            break
        line += 1
        if pos < limit:
            # the common line (no quotes, no blank first byte, integers of at most 18
            # digits) in one pass, as in parse_bedgraph; any other takes the general path
            i = pos
            c = buf[i]
            ok = not (c == 32 or c == 9 or c == 10 or c == 13)
            x0 = x1 = x2 = np.int64(0)
            f = 0
            while ok:
                if c == 34:
                    ok = False
                    break
                r = role[f]
                if 0 <= r <= 2:
                    negative = c == 45
                    if negative:
                        i += 1
                        c = buf[i]
                    first = i
                    v = np.int64(0)
                    while 48 <= c <= 57:
                        v = v * 10 + np.int64(c - 48)
                        i += 1
                        c = buf[i]
                    if i == first or i - first > 18:
                        ok = False
                        break
                    if r == 2 and c == 46:  # the count: "3." / "3.00"
                        i += 1
                        c = buf[i]
                        while c == 48:
                            i += 1
                            c = buf[i]
                    if negative:
                        v = -v
                    if r == 0:
                        x0 = v
                    elif r == 1:
                        x1 = v
                    else:
                        x2 = v
                else:
                    a = i
                    while c != sep and c != 10 and c != 13:
                        i += 1
                        c = buf[i]
                    if r >= 3:
                        text_range[2 * (r - 3)] = a
                        text_range[2 * (r - 3) + 1] = i
                f += 1
                if c == sep and f < n_fields:
                    i += 1
                    c = buf[i]
                else:
                    ok = (c == 10 or c == 13) and f == n_fields
                    break
            if ok:
                v0[rows] = x0
                v1[rows] = x1
                v2[rows] = x2
                for k in range(2):
                    if text_cols[k] < 0:
                        continue
                    a, b = text_range[2 * k], text_range[2 * k + 1]
                    m = nruns[k]
                    pa, pb = last[2 * k], last[2 * k + 1]
                    same = m > 0 and pb - pa == b - a
                    if same:  # inline: a call taking ``buf`` costs a reference count
                        for t in range(b - a):
                            if buf[pa + t] != buf[a + t]:
                                same = False
                                break
                    if not same:
                        last[2 * k], last[2 * k + 1] = a, b
                        run_row[k, m], run_a[k, m], run_b[k, m] = rows, a, b
                        nruns[k] = m + 1
                rows += 1
                pos = i + 2 if c == 13 and i + 1 < n and buf[i + 1] == 10 else i + 1
                continue
        i = pos
        while i < n and (buf[i] == 32 or buf[i] == 9):
            i += 1
        if i >= n or buf[i] == 10 or buf[i] == 13:
            pos = _after(buf, _line_end(buf, i))
            continue
        f = 0
        i = pos
        while True:
            if i < n and buf[i] == 34:
                j = i + 1
                while j < n and buf[j] != 10 and buf[j] != 13:
                    if buf[j] == 34:
                        if j + 1 < n and buf[j + 1] == 34:
                            j += 2
                            continue
                        break
                    j += 1
                a, b = i + 1, j
                i = j + 1 if j < n and buf[j] == 34 else j
                while i < n and buf[i] != sep and buf[i] != 10 and buf[i] != 13:
                    i += 1
            else:
                a = i
                while i < n and buf[i] != sep and buf[i] != 10 and buf[i] != 13:
                    i += 1
                b = i
            r = role[f] if f < n_fields else -1
            if r >= 3:
                k = r - 3
                m = nruns[k]
                pa, pb = (last[0], last[1]) if k == 0 else (last[2], last[3])
                same = m > 0 and pb - pa == b - a
                if same:
                    for t in range(b - a):
                        if buf[pa + t] != buf[a + t]:
                            same = False
                            break
                if not same:
                    last[2 * k], last[2 * k + 1] = a, b
                    run_row[k, m], run_a[k, m], run_b[k, m] = rows, a, b
                    nruns[k] = m + 1
            elif r >= 0:
                v, status = _parse_int(buf, a, b, r == 2)
                if status != 0 and err[0] == 0:
                    err[0], err[1], err[2], err[3], err[4] = status, line, f, a, b
                if r == 0:
                    v0[rows] = v
                elif r == 1:
                    v1[rows] = v
                else:
                    v2[rows] = v
            f += 1
            if i >= n or buf[i] != sep:
                break
            i += 1  # the separator
        if f != n_fields:
            err[0], err[1], err[2], err[3], err[4] = FIELDS, line, f, pos, i
            break
        if err[0] != 0:
            break
        rows += 1
        pos = _after(buf, i)
    return pos, line, rows, nruns


