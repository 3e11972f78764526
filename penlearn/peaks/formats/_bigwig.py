"""bigWig coverage through the optional ``pyBigWig``: every chromosome of a file, or a region.

A bigWig (Kent et al. 2010, *Bioinformatics* 26(17)) is recognised by its magic number,
never by its name. Its intervals are bedGraph rows (0-based half-open); zero-coverage
runs a sparse bigWig leaves out are gaps, as in ``bedtools genomecov -bg`` output.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import optional_import
from penlearn.peaks.formats._text_files import resize_in_place, string_column

#: the first four bytes of a bigWig file (0x888FFC26, either byte order)
BIGWIG_MAGICS = (b"\x26\xfc\x8f\x88", b"\x88\x8f\xfc\x26")


def is_bigwig(path: str | os.PathLike) -> bool:
    """True when the file starts with the bigWig magic number.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.bw"
    >>> _ = p.write_text("chr1\\t0\\t1\\t1\\n")
    >>> is_bigwig(p)
    False
    """
    with open(path, "rb") as fh:
        return fh.read(4) in BIGWIG_MAGICS


def _open(path: str | os.PathLike):
    pyBigWig = optional_import("pyBigWig", "read_bigwig", "bigwig")
    p = Path(path)
    if os.fspath(path) == "":
        raise ValueError("read_bigwig: empty path (an unset shell variable?)")
    if p.is_dir():
        raise ValueError(f"{p}: is a folder, not a bigWig file")
    if not p.exists():
        raise FileNotFoundError(f"bigWig file not found: {p}")
    if not is_bigwig(p):
        raise ValueError(f"{p}: not a bigWig file (no bigWig magic number at its start)")
    try:
        bw = pyBigWig.open(str(p))
    except RuntimeError as exc:
        raise ValueError(f"{p}: cannot open as a bigWig file (corrupt?)") from exc
    if bw is None or not bw.isBigWig():
        raise ValueError(f"{p}: cannot open as a bigWig file")
    return bw


#: bases per ``intervals`` call: bounds the Python tuples held at once (~40k intervals
#: of 25 bases, a few MB)
_WINDOW = 1 << 20
#: the first capacity of the columns (rows); they grow geometrically
_ROWS = 1 << 20


def _fill(path, bw, chrom: str, start: int, end: int, columns: list, pos: int) -> int:
    """Write one region's intervals into ``columns`` (int64 starts, ends, counts, grown
    in place when full) from row ``pos``, window by window (the tuples freed at once);
    return the next row."""
    for ws in range(start, end, _WINDOW):
        ivs = bw.intervals(chrom, ws, min(ws + _WINDOW, end)) or ()
        part = np.fromiter(itertools.chain.from_iterable(ivs), dtype=float,
                           count=3 * len(ivs)).reshape(-1, 3)
        del ivs
        if ws > start:  # an interval over the window's start came with the last window
            part = part[part[:, 0] >= ws]
        s = np.maximum(part[:, 0].astype(np.int64), start)
        e = np.minimum(part[:, 1].astype(np.int64), end)
        values = part[:, 2]
        bad = ~np.isfinite(values) | (values != np.round(values)) | (values < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{path}: {chrom}:{s[i]}-{e[i]} has value {float(values[i])!r}; counts "
                "must be non-negative integers (read counts, not normalised signal)"
            )
        stop = pos + len(s)
        while stop > len(columns[0]):
            for c in columns:
                resize_in_place(c, 2 * len(c))
        columns[0][pos:stop] = s
        columns[1][pos:stop] = e
        columns[2][pos:stop] = values
        pos = stop
    return pos


def _region_columns(path, bw, regions: list[tuple[str, int, int]]
                    ) -> tuple[list, np.ndarray]:
    """The int64 columns (starts, ends, counts) of ``(chrom, start, end)`` regions, in
    one pass over the file, grown in place (:func:`resize_in_place`: never held twice,
    no second pass to count the rows first); and each region's rows."""
    columns = [np.empty(16, dtype=np.int64) for _ in range(3)]
    for c in columns:  # a small array resized: its large successor is remapped
        resize_in_place(c, _ROWS)
    firsts, pos = [], 0
    for r in regions:
        firsts.append(pos)
        pos = _fill(path, bw, *r, columns, pos)
    for c in columns:
        resize_in_place(c, pos)
    return columns, np.diff(np.r_[firsts, pos]).astype(np.int64)


def _read_regions(path, bw, regions: list[tuple[str, int, int]]) -> pd.DataFrame:
    """The coverage frame of ``(chrom, start, end)`` regions (:func:`_region_columns`),
    chromosome names as runs (one object per run)."""
    columns, lengths = _region_columns(path, bw, regions)
    out = {"chrom": string_column([r[0] for r in regions], lengths)}
    out.update(zip(("chromStart", "chromEnd", "count"), columns))
    return pd.DataFrame(out, copy=False)


def bigwig_chromosomes(path: str | os.PathLike) -> Iterator[tuple[str, list]]:
    """The rows of :func:`read_bigwig` (every chromosome) a chromosome at a time:
    ``(chrom, [starts, ends, counts])`` (int64) of each chromosome with intervals, in
    the file's order, read when asked (one chromosome's rows held, not the file's),
    with its checks and messages (a bad value raises where the whole file's reader
    does, after the chromosomes before it were given).

    Examples
    --------
    >>> [c for c, _ in bigwig_chromosomes("x.bigWig")]  # doctest: +SKIP
    ['chr1', 'chr2']
    """
    bw = _open(path)
    try:
        sizes = bw.chroms()
        if not sizes:
            raise ValueError(f"{path}: the bigWig file has no chromosomes")
        for c, n in sizes.items():
            columns, _ = _region_columns(path, bw, [(str(c), 0, int(n))])
            if len(columns[0]):
                yield str(c), columns
            del columns
    finally:
        bw.close()


def read_bigwig(path: str | os.PathLike, chrom: str | None = None, start: int | None = None,
                end: int | None = None) -> pd.DataFrame:
    """Read the coverage of a bigWig file: all chromosomes, one, or a region of one.

    Needs the optional dependency ``pyBigWig`` (``pip install 'penlearn[bigwig]'``).
    Intervals are clipped to the region; counts must be integral (read counts).

    Parameters
    ----------
    path : path-like
        The bigWig file (recognised by its magic number).
    chrom : str, optional
        One chromosome (default: every chromosome of the file, in its order).
    start, end : int, optional
        0-based half-open region of ``chrom`` (default: the whole chromosome). A region
        past the chromosome's end is an error (never clipped in silence).

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, count`` (coordinates and counts int64); the
        zero-coverage runs the file leaves out are gaps.

    Raises
    ------
    ValueError
        A missing chromosome, a bad region, a file that is not a bigWig, a folder, or a
        value that is not a non-negative integer (naming the file and interval).
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> read_bigwig("x.bigWig", "chr1", 0, 10)  # doctest: +SKIP
    """
    if chrom is None and (start is not None or end is not None):
        raise ValueError("read_bigwig: start / end need a chrom")
    bw = _open(path)
    try:
        sizes = bw.chroms()
        if chrom is None:
            if not sizes:
                raise ValueError(f"{path}: the bigWig file has no chromosomes")
            regions = [(str(c), 0, int(n)) for c, n in sizes.items()]
        else:
            if chrom not in sizes:
                raise ValueError(f"{path}: no chromosome {chrom!r}; it has {sorted(sizes)}")
            size = int(sizes[chrom])
            s = 0 if start is None else _integer(start, "start")
            e = size if end is None else _integer(end, "end")
            if not 0 <= s < e:
                raise ValueError(f"start and end must satisfy 0 <= start < end, got {s}, {e}")
            if e > size:
                raise ValueError(f"{path}: region {chrom}:{s}-{e} is past the end of "
                                 f"{chrom} ({size} bases)")
            regions = [(str(chrom), s, e)]
        out = _read_regions(path, bw, regions)
    finally:
        bw.close()
    return out


def _integer(x, name: str) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"read_bigwig: {name} must be an integer, got {x!r}")
    return int(x)
