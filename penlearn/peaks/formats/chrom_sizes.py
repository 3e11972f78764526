"""Chromosome sizes: UCSC ``chrom.sizes`` files and the headers of bigWig / BAM inputs.

Big files (bigWig, bigBed; Kent et al. 2010, *Bioinformatics* 26(17)) declare each
chromosome's length in their header; a genome browser draws a chromosome to that length.
Coverage in bedGraph form does not say where a chromosome ends, so outputs made from it
end at the last covered base unless sizes are given.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from penlearn._checks import check_regular_file
from penlearn.atomic_files import write_bytes_atomic
from penlearn.peaks.formats._bigwig import _open as _open_bigwig
from penlearn.peaks.formats._bigwig import is_bigwig
from penlearn.peaks.formats._text_files import data_lines, parse_integers, read_text
from penlearn.peaks.formats.bam import bam_chrom_sizes, is_bam
from penlearn.peaks.formats.coverage import coverage_files

__all__ = ["check_chrom_sizes", "coverage_chrom_sizes", "read_chrom_sizes",
           "write_chrom_sizes"]


def read_chrom_sizes(path: str | os.PathLike) -> dict[str, int]:
    """Read a UCSC ``chrom.sizes`` file: ``name size`` per line (tab or spaces).

    Blank and ``#`` lines are skipped; plain or gzip.

    Raises
    ------
    ValueError
        Naming the file and line: not two fields, a size that is not a positive
        integer, a chromosome given twice.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hg19.chrom.sizes"
    >>> _ = p.write_text("chr1\\t249250621\\nchr21\\t48129895\\n")
    >>> read_chrom_sizes(p)
    {'chr1': 249250621, 'chr21': 48129895}
    """
    numbers, lines = data_lines(read_text(path))
    fields = [line.split() for line in lines]

    def where(i: int) -> str:
        return f"{path}, line {numbers[i]}"

    for i, f in enumerate(fields):
        if len(f) != 2:
            raise ValueError(f"{where(i)}: expected 2 fields 'name size', got {lines[i]!r}")
    if not fields:
        raise ValueError(f"{path}: no chromosome sizes in the file")
    sizes = parse_integers([f[1] for f in fields], where, "size")
    out: dict[str, int] = {}
    for i, (f, n) in enumerate(zip(fields, sizes)):
        if n <= 0:
            raise ValueError(f"{where(i)}: size must be > 0, got {n}")
        if f[0] in out:
            raise ValueError(f"{where(i)}: chromosome {f[0]!r} is given twice")
        out[f[0]] = int(n)
    return out


def write_chrom_sizes(sizes: dict[str, int], path: str | os.PathLike) -> None:
    """Write ``name<TAB>size`` lines (the UCSC ``chrom.sizes`` format), atomically."""
    write_bytes_atomic(path, "".join(f"{c}\t{n}\n" for c, n in sizes.items()).encode())


def _file_sizes(path: Path) -> dict[str, int] | None:
    check_regular_file(path)  # a pipe: its format would be told by opening it, then hang
    if is_bam(path):
        return bam_chrom_sizes(path)
    if is_bigwig(path):
        bw = _open_bigwig(path)
        try:
            return {str(c): int(n) for c, n in bw.chroms().items()}
        finally:
            bw.close()
    return None


def coverage_chrom_sizes(paths_or_dir) -> dict[str, int] | None:
    """The chromosome sizes the headers of coverage inputs declare (bigWig, BAM).

    Parameters
    ----------
    paths_or_dir : path-like, sequence of path-likes, or mapping
        As :func:`~penlearn.peaks.formats.coverage.read_coverage` takes them.

    Returns
    -------
    dict or None
        ``{chrom: size}`` over all files, or None when a file has no header (bedGraph,
        CSV): the sizes are then unknown.

    Raises
    ------
    ValueError
        Two files giving one chromosome different sizes.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.bedGraph"
    >>> _ = p.write_text("chr1\\t0\\t5\\t2\\n")
    >>> coverage_chrom_sizes(p) is None
    True
    """
    if isinstance(paths_or_dir, dict):
        paths = [Path(p) for p in paths_or_dir.values()]
    elif isinstance(paths_or_dir, (str, os.PathLike)):
        p = Path(paths_or_dir)
        paths = [f for _, f in coverage_files(p)] if p.is_dir() else [p]
    else:
        paths = [Path(p) for p in paths_or_dir]
    out: dict[str, int] = {}
    where: dict[str, Path] = {}
    for p in paths:
        sizes = _file_sizes(p)
        if sizes is None:
            return None
        for c, n in sizes.items():
            if c in out and out[c] != n:
                raise ValueError(f"chromosome {c!r} has {out[c]} bases in {where[c]} but {n} "
                                 f"in {p}: the inputs are of different assemblies")
            out.setdefault(c, n)
            where.setdefault(c, p)
    return out


def check_chrom_sizes(sizes: dict[str, int], table: pd.DataFrame, what: str) -> None:
    """Every chromosome of ``table`` (``chrom, chromEnd``) has a size >= its last end.

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "chromEnd": [20]})
    >>> check_chrom_sizes({"chr1": 10}, t, "coverage")
    Traceback (most recent call last):
    ...
    ValueError: coverage reaches base 20 of chr1, but the chromosome sizes give it 10 bases
    """
    ends = table.groupby("chrom", sort=False, observed=True)["chromEnd"].max()
    for c, e in ends.items():
        if c not in sizes:
            raise ValueError(f"the chromosome sizes have no {c!r} (a chromosome of the "
                             f"{what}): give the sizes of the assembly the {what} is on")
        if int(e) > sizes[c]:
            raise ValueError(f"{what} reaches base {int(e)} of {c}, but the chromosome "
                             f"sizes give it {sizes[c]} bases")
