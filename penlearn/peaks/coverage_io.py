"""ChIP-seq coverage files: bedGraph, CSV and bigWig.

Coordinates are those of BED / bedGraph (UCSC): 0-based half-open, so a row
``chrom, chromStart, chromEnd`` covers the bases ``chromStart+1 .. chromEnd`` and has
``chromEnd - chromStart`` of them; a coverage row's ``count`` (aligned reads at each of
its bases) is one datum of weight ``chromEnd - chromStart`` for the PeakSeg model of
Hocking et al. (2020), "Constrained dynamic programming and supervised penalty learning
algorithms for peak detection in genomic data", *JMLR* 21(87). Gzip files are recognised
by their first two bytes, never by their name.

* :func:`read_bedgraph` — one bedGraph file (4 columns, no header; ``track`` /
  ``browser`` / ``#`` lines and blank lines skipped). Validated: integer coordinates,
  chromStart < chromEnd, integral counts >= 0, rows grouped by chromosome and sorted
  without overlaps (gaps are allowed). Errors name the file and line.
* :func:`read_coverage` — many samples as the long table
  ``sample_id, chrom, chromStart, chromEnd, count`` (sample ids are always strings).
* :func:`read_bigwig` — one region of a bigWig file, with the optional ``pyBigWig``.
* Peak labels and BED files: :mod:`penlearn.peaks.bed_io`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks._text_files import (
    data_lines,
    first_data_line,
    four_fields,
    header_fields,
    integer_series,
    parse_integers,
    read_text,
)

BEDGRAPH_COLUMNS = ("chrom", "chromStart", "chromEnd", "count")
COVERAGE_COLUMNS = ("sample_id", *BEDGRAPH_COLUMNS)
_BEDGRAPH_SUFFIXES = (".bedgraph", ".bg", ".bdg")


def check_coverage_rows(chrom: np.ndarray, start: np.ndarray, end: np.ndarray,
                        count: np.ndarray, where: Callable[[int], str], *,
                        contiguous: bool = False) -> None:
    """Validate the rows of one sample's coverage, naming the first bad row.

    Rows must have ``0 <= chromStart < chromEnd``, ``count >= 0``, and be grouped by
    chromosome and sorted by position without overlaps (``chromStart`` of a row >= the
    previous ``chromEnd`` on the same chromosome; gaps are allowed unless
    ``contiguous``).

    Parameters
    ----------
    chrom, start, end, count : ndarray
        Columns of the rows (integer arrays for the last three).
    where : callable
        Maps a row index to its location for messages (e.g. ``"file.bedGraph, line 3"``).
    contiguous : bool
        Also require no gaps: each chromStart equals the previous chromEnd of its
        chromosome (the input of the PeakSeg solvers, where every base is a datum).

    Examples
    --------
    >>> import numpy as np
    >>> check_coverage_rows(np.array(["chr1", "chr1"]), np.array([0, 5]), np.array([5, 4]),
    ...                     np.array([1, 2]), lambda i: f"row {i}")
    Traceback (most recent call last):
    ...
    ValueError: row 1: chromStart must be < chromEnd, got chromStart=5, chromEnd=4
    """
    checks = [
        (start < 0, lambda i: f"chromStart must be >= 0, got {start[i]}"),
        (start >= end,
         lambda i: f"chromStart must be < chromEnd, got chromStart={start[i]}, "
                   f"chromEnd={end[i]}"),
        (count < 0, lambda i: f"count must be >= 0, got {count[i]}"),
    ]
    for bad, message in checks:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{where(i)}: {message(i)}")
    if len(chrom) < 2:
        return
    same = chrom[1:] == chrom[:-1]
    overlap = same & (start[1:] < end[:-1])
    if overlap.any():
        i = int(np.flatnonzero(overlap)[0]) + 1
        raise ValueError(
            f"{where(i)}: rows must be sorted by position without overlaps; chromStart="
            f"{start[i]} is before the previous row's chromEnd={end[i - 1]}"
        )
    gap = same & (start[1:] != end[:-1])
    if contiguous and gap.any():
        i = int(np.flatnonzero(gap)[0]) + 1
        raise ValueError(
            f"{where(i)}: rows must be contiguous (no gaps); chromStart={start[i]} but the "
            f"previous row's chromEnd={end[i - 1]}"
        )
    firsts = np.flatnonzero(np.r_[True, ~same])
    _, once = np.unique(chrom[firsts], return_index=True)
    if len(once) < len(firsts):
        seen: set = set()
        for i in firsts:
            if chrom[i] in seen:
                raise ValueError(
                    f"{where(int(i))}: chromosome {chrom[i]!r} appears again after other "
                    "chromosomes; rows must be grouped by chromosome"
                )
            seen.add(chrom[i])




def read_bedgraph(path: str | os.PathLike, sample_id: str | None = None, *,
                  contiguous: bool = False) -> pd.DataFrame:
    """Read one bedGraph file of read counts (plain or gzip).

    Parameters
    ----------
    path : path-like
        Four whitespace-separated columns ``chrom, chromStart, chromEnd, count``, no
        header; ``track``, ``browser``, ``#`` and blank lines are skipped.
    sample_id : str, optional
        When given, a first column ``sample_id`` holding it (as a string).
    contiguous : bool
        Also reject gaps between the rows of a chromosome (as the PeakSeg solvers do).

    Returns
    -------
    DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count``, coordinates and counts int64.

    Raises
    ------
    ValueError
        Naming the file and line of the first bad line: not 4 fields, non-integer
        coordinates or counts, negative values, chromStart >= chromEnd, unsorted or
        overlapping rows.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.bedGraph"
    >>> _ = p.write_text("track type=bedGraph\\nchr1\\t0\\t10\\t0\\nchr1\\t10\\t12\\t3\\n")
    >>> read_bedgraph(p, sample_id="0001").values.tolist()
    [['0001', 'chr1', 0, 10, 0], ['0001', 'chr1', 10, 12, 3]]
    """
    numbers, lines = data_lines(read_text(path))
    if not lines:
        raise ValueError(f"{path}: no data lines (expected chrom, chromStart, chromEnd, "
                         "count)")

    where, columns = four_fields(path, numbers, lines, "count")
    chrom = np.array(columns[0], dtype=object)
    start = parse_integers(list(columns[1]), where, "chromStart")
    end = parse_integers(list(columns[2]), where, "chromEnd")
    count = parse_integers(list(columns[3]), where, "count", allow_float=True)
    check_coverage_rows(chrom, start, end, count, where, contiguous=contiguous)
    out = pd.DataFrame({"chrom": pd.array(chrom, dtype=str), "chromStart": start,
                        "chromEnd": end, "count": count})
    if sample_id is not None:
        out.insert(0, "sample_id", str(sample_id))
    return out


def _read_coverage_table(path: str | os.PathLike, text: str, sample_id: str | None = None,
                         contiguous: bool = False) -> pd.DataFrame:
    """A CSV / TSV coverage table with a header (and a ``sample_id`` column or argument)."""
    first = first_data_line(text)
    header = header_fields(first) or []
    sep = "," if "," in first else "\t"
    numeric = ("chromStart", "chromEnd", "count")
    df = pd.read_csv(io.StringIO(text), sep=sep, keep_default_na=False,
                     dtype={c: str for c in header if c not in numeric})
    if "sample_id" in df.columns and sample_id is not None:
        raise ValueError(f"{path} has a sample_id column; do not also give a sample id")
    if "sample_id" not in df.columns:
        if sample_id is None:
            raise ValueError(f"{path}: a coverage table needs a sample_id column")
        df.insert(0, "sample_id", str(sample_id))
    require_columns(df, COVERAGE_COLUMNS, str(path))

    def where(i: int) -> str:
        return f"{path}, line {i + 2}"

    cols = {c: integer_series(df, c, where) for c in numeric}
    out = pd.DataFrame({"sample_id": df["sample_id"].astype(str),
                        "chrom": df["chrom"].astype(str), **cols})
    for c in df.columns:
        if c not in COVERAGE_COLUMNS:
            out[c] = df[c]
    for idx in out.groupby("sample_id", sort=False).indices.values():
        idx = np.asarray(idx)
        check_coverage_rows(out["chrom"].to_numpy()[idx], cols["chromStart"][idx],
                            cols["chromEnd"][idx], cols["count"][idx],
                            lambda i, idx=idx: where(int(idx[i])), contiguous=contiguous)
    return out


def _sample_name(path: Path, root: Path | None = None) -> str:
    """A sample id from a bedGraph file name (``coverage.bedGraph`` → its folder)."""
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    for suffix in _BEDGRAPH_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    if name == "coverage":
        parent = path.parent
        if root is not None and parent != root:
            return parent.relative_to(root).as_posix()
        return parent.name
    return name


def _is_bedgraph_name(name: str) -> bool:
    low = name.lower().removesuffix(".gz")
    return low.endswith(_BEDGRAPH_SUFFIXES)


def _read_one(path: Path, sample_id: str | None, contiguous: bool) -> pd.DataFrame:
    text = read_text(path)
    if header_fields(first_data_line(text)) is not None:
        return _read_coverage_table(path, text, sample_id, contiguous)
    return read_bedgraph(path, sample_id=sample_id if sample_id is not None else
                         _sample_name(path), contiguous=contiguous)


def _discover(folder: Path) -> list[tuple[str | None, Path]]:
    """(sample id, file) of every bedGraph below ``folder``, then top-level tables."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and _is_bedgraph_name(p.name))
    found: dict[str, Path] = {}
    for p in files:
        sid = _sample_name(p, folder)
        if sid in found:
            raise ValueError(f"{folder}: two files give sample id {sid!r}: {found[sid]}, {p}")
        found[sid] = p
    tables = [p for name in ("coverage.csv", "coverage.csv.gz", "coverage.tsv",
                             "coverage.tsv.gz") if (p := folder / name).is_file()]
    if not found and not tables:
        raise ValueError(
            f"{folder}: no coverage found (expected *.bedGraph[.gz] files, or a "
            "coverage.csv[.gz] table with a sample_id column)"
        )
    return [*found.items(), *((None, p) for p in tables)]


def read_coverage(paths_or_dir, *, contiguous: bool = False) -> pd.DataFrame:
    """Read the coverage of many samples into one long table.

    Parameters
    ----------
    paths_or_dir : path-like, sequence of path-likes, or mapping
        * a mapping ``{sample_id: path}``;
        * a folder: every ``*.bedGraph`` / ``*.bedgraph`` / ``*.bg`` / ``*.bdg`` file in
          it or below (optionally ``.gz``), the sample id being the file name without
          those extensions, or, for files named ``coverage.bedGraph`` (the layout
          ``samples/<group>/<sample>/coverage.bedGraph``), the folder path relative to
          ``paths_or_dir`` (``"kidney/MS002201"``); plus a top-level
          ``coverage.csv[.gz]`` table if present;
        * one file or a list of files: bedGraph files (sample id from the name as
          above) or CSV / TSV tables with a header and the columns ``sample_id, chrom,
          chromStart, chromEnd, count`` (other columns are kept).
    contiguous : bool
        Also reject gaps between the rows of a sample's chromosome (see
        :func:`check_coverage_rows`).

    Returns
    -------
    DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count`` (+ extra table columns), with
        ``sample_id`` and ``chrom`` as strings (``"0001"`` stays ``"0001"``) and int64
        coordinates and counts, in file order.

    Raises
    ------
    ValueError
        On a bad file (naming file and line), or a sample id found twice.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "0001.bedGraph").write_text("chr1\\t0\\t5\\t2\\n")
    >>> read_coverage(d)[["sample_id", "count"]].values.tolist()
    [['0001', 2]]
    """
    if isinstance(paths_or_dir, Mapping):
        items = [(str(k), Path(v)) for k, v in paths_or_dir.items()]
    elif isinstance(paths_or_dir, (str, os.PathLike)):
        path = Path(paths_or_dir)
        if path.is_dir():
            items = _discover(path)
        else:
            items = [(None, path)]
    else:
        try:
            items = [(None, Path(p)) for p in paths_or_dir]
        except TypeError as exc:
            raise TypeError(
                "paths_or_dir must be a path, a folder, a list of paths or a mapping "
                f"sample_id -> path, got {type(paths_or_dir).__name__}"
            ) from exc
    if not items:
        raise ValueError("paths_or_dir holds no files")
    tables = [_read_one(p, sid, contiguous) for sid, p in items]
    out = pd.concat(tables, ignore_index=True)
    first = {}
    for (_, p), t in zip(items, tables):
        for s in pd.unique(t["sample_id"]):
            if s in first and first[s] != p:
                raise ValueError(f"sample id {s!r} is in both {first[s]} and {p}")
            first[s] = p
    return out


def read_bigwig(path: str | os.PathLike, chrom: str, start: int, end: int) -> pd.DataFrame:
    """Read the coverage of one region ``[start, end)`` of a bigWig file.

    Needs the optional dependency ``pyBigWig`` (``pip install penlearn[bigwig]``).
    Intervals are clipped to the region; counts must be integral (read counts).

    Parameters
    ----------
    path : path-like
        The bigWig file.
    chrom : str
        Chromosome name.
    start, end : int
        0-based half-open region.

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, count`` (int64).

    Examples
    --------
    >>> read_bigwig("x.bigWig", "chr1", 0, 10)  # doctest: +SKIP
    """
    try:
        import pyBigWig  # optional dependency, imported only when used
    except ImportError as exc:
        raise ImportError(
            "read_bigwig needs the optional package pyBigWig: pip install penlearn[bigwig]"
        ) from exc
    start, end = int(start), int(end)
    if not 0 <= start < end:
        raise ValueError(f"start and end must satisfy 0 <= start < end, got {start}, {end}")
    bw = pyBigWig.open(str(path))
    if bw is None:
        raise ValueError(f"{path}: cannot open as a bigWig file")
    try:
        sizes = bw.chroms()
        if chrom not in sizes:
            raise ValueError(f"{path}: no chromosome {chrom!r}; it has {sorted(sizes)}")
        intervals = bw.intervals(chrom, start, min(end, sizes[chrom])) or []
    finally:
        bw.close()
    arr = np.array(intervals, dtype=float).reshape(-1, 3)
    s = np.maximum(arr[:, 0], start).astype(np.int64)
    e = np.minimum(arr[:, 1], end).astype(np.int64)
    values = arr[:, 2]
    bad = ~np.isfinite(values) | (values != np.round(values)) | (values < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{path}: {chrom}:{s[i]}-{e[i]} has value {values[i]!r}; counts must be "
            "non-negative integers (read counts, not normalised signal)"
        )
    return pd.DataFrame({"chrom": pd.array([chrom] * len(s), dtype=str), "chromStart": s,
                         "chromEnd": e, "count": values.astype(np.int64)})
