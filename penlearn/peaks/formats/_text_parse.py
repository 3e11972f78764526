"""Coverage text parsed block by block: the driver of the numba kernels
(:mod:`penlearn.peaks.formats._parse_kernel`) for :mod:`penlearn.peaks.formats.coverage`.

The text is held one block at a time (:func:`penlearn.peaks.formats._text_files.text_blocks`),
the int64 columns grow in place (:func:`penlearn.peaks.formats._text_files.resize_in_place`),
and a row's line is found by a second pass only on the way to an error message.
"""

from __future__ import annotations

import os

import numpy as np

from penlearn.peaks.formats._text_files import (
    GZIP_MAGIC,
    empty_field,
    resize_in_place,
    text_blocks,
)

TRACK = np.frombuffer(b"track", np.uint8)
BROWSER = np.frombuffer(b"browser", np.uint8)
NUMERIC = ("chromStart", "chromEnd", "count")
#: chromosome / sample runs taken from the parser per call (it stops when they are full)
RUN_CAPACITY = 4096
#: the first capacity of the columns (rows); they double when full
FIRST_ROWS = 1 << 22


def token(buf: np.ndarray, a: int, b: int) -> str:
    """The text of bytes ``a:b`` of a block (for names and messages)."""
    return bytes(buf[a:b]).decode("utf-8", errors="replace")


def parse_error(where: str, err: np.ndarray, buf: np.ndarray, col: str, expected: str) -> str:
    """The one-line message of a kernel's error ``err`` (``where`` names file and line)."""
    from penlearn.peaks.formats import _parse_kernel as kernel  # numba: on first use

    code, _, field, a, b = (int(x) for x in err)
    if code == kernel.FIELDS:
        named = expected.partition("(")[2].rstrip(")")  # "4 fields (chrom, ...)"
        names = tuple(n.strip() for n in named.split(",")) if named else ()
        if names and (empty := empty_field(token(buf, a, b), names)):
            return f"{where}: {empty}: {token(buf, a, b)!r}"
        return f"{where}: expected {expected}, got {field}: {token(buf, a, b)!r}"
    text = token(buf, a, b)
    if code == kernel.OVERFLOW:
        return f"{where}: {col} {text} is beyond the 64-bit integer range"
    return f"{where}: {col} must be an integer, got {text!r}"


class Columns:
    """Three int64 columns the parser writes in place, block after block. They grow
    geometrically by :func:`resize_in_place` (growing never holds the rows twice) and are
    cut to the rows read at the end; plus the runs of equal values of up to two text columns
    (value, first row), joined across calls."""

    def __init__(self, path, n_text: int):
        # a data line has at least 8 bytes: a plain file's rows are at most size // 8 + 1
        # (a gzip file's are not known ahead); growing is cheap (pages remapped), so the
        # columns' reserved address space stays within twice their rows
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        capacity = FIRST_ROWS if gz else min(size // 8 + 2, FIRST_ROWS)
        # a small array resized: its large successor is remapped when it grows
        self.arrays = [np.empty(16, np.int64) for _ in range(3)]
        for a in self.arrays:
            resize_in_place(a, capacity)
        self.rows = 0
        self.runs: list[tuple[list[str], list[int]]] = [([], []) for _ in range(n_text)]
        shape = (n_text, RUN_CAPACITY) if n_text > 1 else (RUN_CAPACITY,)
        self.run_row, self.run_a, self.run_b = (np.empty(shape, np.int64) for _ in range(3))

    @property
    def full(self) -> bool:
        return self.rows == len(self.arrays[0])

    def grow(self) -> None:
        for a in self.arrays:
            resize_in_place(a, 2 * len(a))

    def add_runs(self, k: int, buf: np.ndarray, m: int, unquote: bool = False) -> None:
        """Take the first ``m`` runs of the parser's text column ``k`` (bytes of ``buf``)."""
        names, firsts = self.runs[k]
        rows, a, b = ((x[k] for x in (self.run_row, self.run_a, self.run_b))
                      if self.run_row.ndim > 1 else (self.run_row, self.run_a, self.run_b))
        for r, i, j in zip(rows[:m].tolist(), a[:m].tolist(), b[:m].tolist()):
            name = token(buf, i, j)
            if unquote:
                name = name.replace('""', '"')
            if not names or names[-1] != name:  # else the run goes on across a block edge
                names.append(name)
                firsts.append(r)

    def finish(self) -> tuple[list[np.ndarray], list[tuple[list[str], np.ndarray]]]:
        """The columns cut to the rows read, and per text column (values, run lengths)."""
        for a in self.arrays:
            resize_in_place(a, self.rows)
        runs = [(names, np.diff(np.r_[firsts, self.rows]).astype(np.int64))
                for names, firsts in self.runs]
        return self.arrays, runs


def line_of_row(path, row: int, skip: int = 0, data_only: bool = True) -> int:
    """The 1-based line of data row ``row`` (0-based) of a text file, counting rows after
    its first ``skip`` lines (only on the way to an error message: a second pass)."""
    from penlearn.peaks.formats import _parse_kernel as kernel  # numba: on first use

    lines = 0
    for buf in text_blocks(path):
        found, rows, n = kernel.row_line(buf, max(skip - lines, 0), row, data_only, TRACK,
                                         BROWSER)
        if found >= 0:
            return lines + int(found)
        row -= int(rows)
        lines += int(n)
    return -1


def _bedgraph_steps(path, cols: Columns):
    """Parse ``path``'s bedGraph blocks (:func:`text_blocks`) into ``cols``, yielding
    after each call of the compiled parser (the rows it added are then in ``cols``, its
    runs in ``cols.runs[0]``); a bad line raises the parser's error."""
    from penlearn.peaks.formats import _parse_kernel as kernel  # numba: on first use

    err = np.zeros(5, np.int64)
    line = 0
    for buf in text_blocks(path):
        pos = 0
        while pos < len(buf):
            if cols.full:
                cols.grow()
            pos, line, cols.rows, runs = kernel.parse_bedgraph(
                buf, pos, line, *cols.arrays, cols.rows, cols.run_row, cols.run_a,
                cols.run_b, err)
            cols.add_runs(0, buf, runs)
            if err[0]:
                col = NUMERIC[int(err[2]) - 1] if err[0] != kernel.FIELDS else ""
                raise ValueError(parse_error(
                    f"{path}, line {int(err[1])}", err, buf, col,
                    "4 fields (chrom, chromStart, chromEnd, count)"))
            yield


def parse_bedgraph_file(path) -> tuple[list[np.ndarray], tuple[list[str], np.ndarray]]:
    """The int64 columns of a bedGraph and its chromosome runs (names, lengths), parsed
    block by block (:func:`text_blocks`): the text held is one block, not the file."""
    cols = Columns(path, 1)
    for _ in _bedgraph_steps(path, cols):
        pass
    if cols.rows == 0:
        raise ValueError(f"{path}: no data lines (expected chrom, chromStart, chromEnd, "
                         "count)")
    arrays, (chroms,) = cols.finish()
    return arrays, chroms


def parse_bedgraph_chromosomes(path):
    """:func:`parse_bedgraph_file` a chromosome at a time: yields ``(name, first row,
    [start, end, count])`` of each run of rows of one chromosome (its first row: 0-based
    among the file's data rows) as soon as the next run starts, the last at the end. The
    columns held are one run's and a block's, not the file's (a chromosome found again
    after others is a run of its own: the caller's check)."""
    cols = Columns(path, 1)
    base = 0  # the rows of the runs yielded already
    for _ in _bedgraph_steps(path, cols):
        names, firsts = cols.runs[0]
        if len(names) > 1:  # every run but the last is whole
            for k in range(len(names) - 1):
                yield names[k], base + firsts[k], [
                    x[firsts[k]:firsts[k + 1]].copy() for x in cols.arrays]
            cut = firsts[-1]  # the last run's rows moved to the columns' start
            for x in cols.arrays:
                x[:cols.rows - cut] = x[cut:cols.rows]
            base, cols.rows = base + cut, cols.rows - cut
            cols.runs[0] = (names[-1:], [0])
    if base + cols.rows == 0:
        raise ValueError(f"{path}: no data lines (expected chrom, chromStart, chromEnd, "
                         "count)")
    names, _ = cols.runs[0]
    if cols.rows:
        yield names[0], base, [x[:cols.rows].copy() for x in cols.arrays]


def header_line(buf: np.ndarray) -> tuple[int, int, int, int]:
    """(lines before it, its 1-based number, start byte, end byte) of the first line that
    is not blank and not a ``track`` / ``browser`` / ``#`` line."""
    from penlearn.peaks.formats import _parse_kernel as kernel  # numba: on first use

    pos, line = 0, 0
    while pos < len(buf):
        e = kernel._line_end(buf, pos)
        line += 1
        if kernel._is_data(buf, pos, e, TRACK, BROWSER):
            return line - 1, line, pos, e
        pos = kernel._after(buf, e)
    return line, line, len(buf), len(buf)


def first_line(path) -> str:
    """The first line of a text file that is not blank nor a ``track`` / ``browser`` /
    ``#`` line, looked for in its first 64 kB ("" if none)."""
    blocks = text_blocks(path, 1 << 16)
    try:
        buf = next(blocks, None)
        if buf is None:
            return ""
        _, _, a, b = header_line(buf)
        return token(buf, a, b)
    finally:
        blocks.close()
