"""One sample's coverage file a chromosome at a time (issue 55): a bedGraph is parsed
and checked run by run (:func:`~penlearn.peaks.formats._text_parse.
parse_bedgraph_chromosomes`), a bigWig read a chromosome at a time (:func:`~penlearn.
peaks.formats._bigwig.bigwig_chromosomes`), a BAM file's depth made a chromosome at a
time (:func:`~penlearn.peaks.formats.bam.bam_chromosomes`: its records fetched a
reference at a time when it is indexed), so the rows held are one chromosome's, not
the file's; a CSV table is read whole and cut. ``penlearn peaks`` and ``joint`` cut a
folder of samples this way into a temporary folder (``penlearn/cli/_peaks_samples.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_regular_file
from penlearn.peaks.formats._bigwig import bigwig_chromosomes, is_bigwig
from penlearn.peaks.formats._text_files import header_fields
from penlearn.peaks.formats._text_parse import (
    first_line,
    line_of_row,
    parse_bedgraph_chromosomes,
)
from penlearn.peaks.formats.bam import bam_chromosomes, is_bam
from penlearn.peaks.formats.coverage import (
    COVERAGE_COLUMNS,
    _check_rows,
    _sample_name,
    no_rows_error,
    read_coverage_file,
)

__all__ = ["CHROMOSOME_COLUMNS", "coverage_file_chromosomes"]

#: the columns of each chromosome's rows
CHROMOSOME_COLUMNS = ("chromStart", "chromEnd", "count")


def coverage_file_chromosomes(path, sample_id: str | None = None
                              ) -> tuple[str, Iterator[tuple[str, dict]]]:
    """One sample's coverage file a chromosome at a time: its sample id (``sample_id``,
    else from the file name, as :func:`~penlearn.peaks.formats.coverage.read_coverage`
    names it) and an iterator of ``(chrom, {column: array})`` (:data:`CHROMOSOME_COLUMNS`)
    in the file's order, with the checks of ``read_coverage`` (each error naming the
    file and line; a bedGraph's are made chromosome by chromosome, so a file with
    several faults may be refused for another of them). A bedGraph, bigWig or BAM file
    is read a chromosome at a time (each when asked); a table whole, then cut.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.bedGraph"
    >>> _ = p.write_text("chr2\\t0\\t5\\t1\\nchr2\\t5\\t9\\t3\\nchr1\\t0\\t4\\t2\\n")
    >>> sid, chroms = coverage_file_chromosomes(p)
    >>> sid, [(c, cols["count"].tolist()) for c, cols in chroms]
    ('a', [('chr2', [1, 3]), ('chr1', [2])])
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a folder inside a list of coverage files")
    check_regular_file(path)
    sid = sample_id if sample_id is not None else _sample_name(path)
    bam = is_bam(path)
    if bam or is_bigwig(path):
        return str(sid), _named(path, bam_chromosomes(path) if bam else
                                bigwig_chromosomes(path))
    if header_fields(first_line(path)) is not None:
        table, ids = read_coverage_file(path, sample_id)
        if list(table.columns) != list(COVERAGE_COLUMNS) or len(ids) != 1:
            raise ValueError(f"{path}: not one sample's coverage")
        return str(ids[0]), _cut(table)
    return str(sid), _bedgraph_chromosomes(path)


def _named(path: Path, chromosomes: Iterator[tuple[str, list]]
           ) -> Iterator[tuple[str, dict]]:
    """``(chrom, {column: array})`` of a reader's ``(chrom, [start, end, count])``; a
    file without rows refused as :func:`~penlearn.peaks.formats.coverage.
    read_coverage_file` refuses it."""
    rows = 0
    for chrom, columns in chromosomes:
        rows += len(columns[0])
        yield chrom, dict(zip(CHROMOSOME_COLUMNS, columns))
    if not rows:
        raise no_rows_error(path)


def _cut(table: pd.DataFrame) -> Iterator[tuple[str, dict]]:
    """A table's chromosomes (grouped: checked by its reader), the table dropped first."""
    codes, names = pd.factorize(table["chrom"], sort=False)
    cuts = np.r_[0, np.flatnonzero(np.diff(codes)) + 1, len(codes)]
    columns = [table[c].to_numpy() for c in CHROMOSOME_COLUMNS]
    del table, codes
    for j, name in enumerate(names):
        a, b = cuts[j], cuts[j + 1]
        yield str(name), {c: v[a:b] for c, v in zip(CHROMOSOME_COLUMNS, columns)}


def _bedgraph_chromosomes(path: Path) -> Iterator[tuple[str, dict]]:
    """A bedGraph's chromosomes, each checked as :func:`~penlearn.peaks.formats.
    coverage.read_bedgraph` checks its rows."""
    seen: set = set()
    for name, first, columns in parse_bedgraph_chromosomes(path):
        def where(i: int, first: int = first) -> str:
            return f"{path}, line {line_of_row(path, first + i)}"
        if name in seen:
            raise ValueError(f"{where(0)}: chromosome {name!r} appears again after other "
                             "chromosomes; rows must be grouped by chromosome")
        seen.add(name)
        _check_rows(np.zeros(len(columns[0]), np.uint8), np.array([name], dtype=object),
                    *columns, where, False)
        yield name, dict(zip(CHROMOSOME_COLUMNS, columns))
