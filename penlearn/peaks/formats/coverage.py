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
* :func:`read_bigwig` — a bigWig file (all chromosomes, one, or a region), with the
  optional ``pyBigWig`` (:mod:`penlearn.peaks.formats._bigwig`).
* :func:`~penlearn.peaks.formats.bam.read_bam` — the read depth of a BAM file, with the optional
  ``pysam``.
* Peak labels and BED files: :mod:`penlearn.peaks.formats.bed`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_regular_file, require_columns
from penlearn._numba_cache import warm_kernels
from penlearn.peaks.formats._bigwig import is_bigwig, read_bigwig
from penlearn.peaks.formats._text_files import (
    GZIP_MAGIC,
    header_fields,
    string_column,
    text_blocks,
)
from penlearn.peaks.formats._text_parse import (
    NUMERIC,
    Columns,
    first_line,
    header_line,
    line_of_row,
    parse_bedgraph_file,
    parse_error,
    token,
)
from penlearn.peaks.formats.bam import is_bam, read_bam

__all__ = ["BEDGRAPH_COLUMNS", "COVERAGE_COLUMNS", "check_coverage_rows", "coverage_files",
           "coverage_items", "is_table_file", "no_rows_error", "read_bedgraph", "read_bigwig",
           "read_coverage", "read_coverage_file"]

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
    codes, names = pd.factorize(np.asarray(chrom, dtype=object))
    _check_rows(codes, np.asarray(names, dtype=object), start, end, count, where,
                contiguous)


def _check_rows(codes: np.ndarray, names: np.ndarray, start: np.ndarray, end: np.ndarray,
                count: np.ndarray, where: Callable[[int], str], contiguous: bool) -> None:
    """:func:`check_coverage_rows` on chromosome codes (``names[codes]`` the names)."""
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
    if len(codes) < 2:
        return
    same = codes[1:] == codes[:-1]
    overlap = same & (start[1:] < end[:-1])
    if overlap.any():
        i = int(np.flatnonzero(overlap)[0]) + 1
        raise ValueError(
            f"{where(i)}: rows must be sorted by position without overlaps; chromStart="
            f"{start[i]} is before the previous row's chromEnd={end[i - 1]} (in a table, "
            "one sample id given to two profiles, e.g. under two groups? give each its "
            "own id)"
        )
    if contiguous:
        gap = same & (start[1:] != end[:-1])
        if gap.any():
            i = int(np.flatnonzero(gap)[0]) + 1
            raise ValueError(
                f"{where(i)}: rows must be contiguous (no gaps); chromStart={start[i]} but "
                f"the previous row's chromEnd={end[i - 1]}"
            )
    firsts = np.flatnonzero(np.r_[True, ~same])
    run_codes = codes[firsts]
    if len(np.unique(run_codes)) < len(firsts):
        seen: set = set()
        for i, c in zip(firsts, run_codes):
            if c in seen:
                raise ValueError(
                    f"{where(int(i))}: chromosome {names[c]!r} appears again after other "
                    "chromosomes; rows must be grouped by chromosome"
                )
            seen.add(c)


def _run_codes(values: list[str], lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row codes of the runs' values (the smallest unsigned type holding them: one
    byte a row for up to 256 values), and the distinct values."""
    names = list(dict.fromkeys(values))
    index = {n: k for k, n in enumerate(names)}
    codes = np.repeat(np.array([index[v] for v in values],
                               dtype=np.min_scalar_type(max(len(names) - 1, 0))), lengths)
    return codes, np.array(names + [""], dtype=object)[:-1]


def read_bedgraph(path: str | os.PathLike, sample_id: str | None = None, *,
                  contiguous: bool = False) -> pd.DataFrame:
    """Read one bedGraph file of read counts (plain or gzip).

    One pass over the file's bytes in blocks (numba), at the speed of ``pandas.read_csv``
    and in little more memory than the columns returned (the text is held one block at a
    time; gzip is decompressed on the fly), with every check of a careful reader: each
    error names the file and line.

    Parameters
    ----------
    path : path-like
        Four space- or tab-separated columns ``chrom, chromStart, chromEnd, count``, no
        header; ``track``, ``browser``, ``#`` and blank lines are skipped; a UTF-8
        byte-order mark at the start is ignored; lines end in LF, CRLF or CR.
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
        Naming the file and line of the first bad line: not 4 fields; coordinates that
        are not plain decimal integers (``-``, digits: no ``+``, ``_``, ``,``, exponent or
        non-ASCII digit) or counts that are not (``3.0`` is 3); a value beyond the
        64-bit range; negative values, chromStart >= chromEnd, unsorted or overlapping
        rows, a chromosome found again after others.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.bedGraph"
    >>> _ = p.write_text("track type=bedGraph\\nchr1\\t0\\t10\\t0\\nchr1\\t10\\t12\\t3\\n")
    >>> read_bedgraph(p, sample_id="0001").values.tolist()
    [['0001', 'chr1', 0, 10, 0], ['0001', 'chr1', 10, 12, 3]]
    """
    (start, end, count), (run_names, lengths) = parse_bedgraph_file(path)
    codes, names = _run_codes(run_names, lengths)
    _check_rows(codes, names, start, end, count,
                lambda i: f"{path}, line {line_of_row(path, i)}", contiguous)
    del codes  # before the string columns: the peak is the columns returned
    columns = {"chrom": string_column(run_names, lengths), "chromStart": start,
               "chromEnd": end, "count": count}
    if sample_id is not None:
        columns = {"sample_id": string_column([str(sample_id)], np.array([len(start)])),
                   **columns}
    return pd.DataFrame(columns, copy=False)


def _table_header(path, first: str, line: int, sample_id: str | None
                  ) -> tuple[list[str], str, np.ndarray, np.ndarray]:
    """The column names, separator, integer and text field indices of a coverage table
    whose header is ``first`` (line ``line``); an error naming what is missing."""
    header = header_fields(first) or []
    sep = "," if "," in first else "\t"
    if "sample_id" in header and sample_id is not None:
        raise ValueError(f"{path} has a sample_id column; do not also give a sample id")
    if "sample_id" not in header and sample_id is None:
        raise ValueError(f"{path}: a coverage table needs a sample_id column")
    needed = [c for c in COVERAGE_COLUMNS if c != "sample_id" or sample_id is None]
    require_columns(pd.DataFrame(columns=header), needed, str(path))
    if len(set(header)) < len(header):
        raise ValueError(f"{path}, line {line}: repeated column names in the header")
    cols = np.array([header.index(c) for c in NUMERIC], dtype=np.int64)
    text_cols = np.array([header.index("sample_id") if sample_id is None else -1,
                          header.index("chrom")], dtype=np.int64)
    return header, sep, cols, text_cols


def _read_coverage_table(path: str | os.PathLike, sample_id: str | None = None,
                         contiguous: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """A CSV / TSV coverage table with a header (and a ``sample_id`` column or argument),
    parsed block by block as a bedGraph; and its sample ids in order."""
    from penlearn.peaks.formats import _parse_kernel as kernel  # numba: on first use

    cols = Columns(path, 2)
    err = np.zeros(5, np.int64)
    line, header = 0, None
    for buf in text_blocks(path):
        pos = 0
        if header is None:
            skip, first_no, a, b = header_line(buf)
            if a == len(buf):  # only blank / comment lines in this block
                line += skip
                continue
            skip, line = line + skip, line + first_no
            header, sep, numeric, text = _table_header(path, token(buf, a, b), line,
                                                       sample_id)
            header_no = line
            pos = int(kernel._after(buf, b)) if b < len(buf) else len(buf)
        while pos < len(buf):
            if cols.full:
                cols.grow()
            pos, line, cols.rows, nruns = kernel.parse_csv_numbers(
                buf, pos, line, ord(sep), len(header), numeric, text, *cols.arrays,
                cols.rows, cols.run_row, cols.run_a, cols.run_b, err)
            for k in (0, 1):
                cols.add_runs(k, buf, int(nruns[k]), unquote=True)
            if err[0]:
                col = header[int(err[2])] if err[0] != kernel.FIELDS else ""
                raise ValueError(parse_error(f"{path}, line {int(err[1])}", err, buf, col,
                                              f"{len(header)} fields as in the header"))
    buf = None  # the last block: its buffer goes back to the system before the columns
    if header is None:
        _table_header(path, "", line, sample_id)  # raises: no header
    (v0, v1, v2), (samples, chroms) = cols.finish()
    n = len(v0)
    if sample_id is not None:
        samples = ([str(sample_id)], np.array([n]))
    chrom_codes, chrom_names = _run_codes(*chroms)

    def where(i: int) -> str:
        return f"{path}, line {line_of_row(path, i, header_no, data_only=False)}"

    for idx in _groups(*samples):
        _check_rows(chrom_codes[idx], chrom_names, v0[idx], v1[idx], v2[idx],
                    lambda i, idx=idx: where(int(np.arange(n)[idx][i])), contiguous)
    del chrom_codes  # before the string columns: the peak is the columns returned
    extras = [c for c in header if c not in COVERAGE_COLUMNS]
    out = pd.DataFrame({"sample_id": string_column(*samples),
                        "chrom": string_column(*chroms),
                        "chromStart": v0, "chromEnd": v1, "count": v2}, copy=False)
    if extras:
        with open(path, "rb") as fh:
            gz = fh.read(2) == GZIP_MAGIC
        df = pd.read_csv(path, sep=sep, skiprows=skip, usecols=extras, dtype=str,
                         keep_default_na=False, encoding="utf-8-sig",
                         compression="gzip" if gz else None)
        if len(df) != n:
            raise ValueError(f"{path}: {len(df)} rows read as text but {n} as numbers "
                             "(a quoted field holding a line break?)")
        for c in extras:
            out[c] = df[c].to_numpy()
    return out, list(dict.fromkeys(samples[0]))


def _groups(values: list[str], lengths: np.ndarray) -> list:
    """Row selections of each value of runs ``values[k]`` of ``lengths[k]`` rows, in order
    of appearance: slices when every value is one run of rows (the usual layout; no
    array a row), else index arrays."""
    if len(set(values)) == len(values):
        bounds = np.r_[0, np.cumsum(lengths)]
        return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
    codes = _run_codes(values, lengths)[0]
    order = np.argsort(codes, kind="stable")
    cuts = np.flatnonzero(np.diff(codes[order])) + 1
    parts = np.split(order, cuts)
    return sorted(parts, key=lambda p: p[0])


_COVERAGE_SUFFIXES = (*_BEDGRAPH_SUFFIXES, *(s + ".gz" for s in _BEDGRAPH_SUFFIXES),
                      ".bw", ".bigwig", ".bam")


def _sample_name(path: Path, root: Path | None = None) -> str:
    """A sample id from a coverage file name (``coverage.bedGraph`` → its folder)."""
    name = path.name
    low = name.lower()
    for suffix in sorted(_COVERAGE_SUFFIXES, key=len, reverse=True):
        if low.endswith(suffix):
            name = name[: -len(suffix)]
            break
    else:
        if low.endswith(".gz"):
            name = name[:-3]
    if name == "coverage":
        parent = path.parent
        if root is not None and parent != root:
            return parent.relative_to(root).as_posix()
        return parent.name
    return name


def _is_coverage_name(name: str) -> bool:
    return name.lower().endswith(_COVERAGE_SUFFIXES)


def _read_one(path: Path, sample_id: str | None, contiguous: bool
              ) -> tuple[pd.DataFrame, list[str]]:
    """One coverage file, and its sample ids in order (without a pass over the rows)."""
    if path.is_dir():
        raise ValueError(f"{path}: is a folder inside a list of coverage files")
    check_regular_file(path)
    bam = is_bam(path)
    if bam or is_bigwig(path):
        out = read_bam(path) if bam else read_bigwig(path)
        if contiguous:
            _check_rows(*_codes(out["chrom"]), out["chromStart"].to_numpy(),
                        out["chromEnd"].to_numpy(), out["count"].to_numpy(),
                        lambda i: f"{path}, {'run' if bam else 'interval'} {i + 1}", True)
        sid = sample_id if sample_id is not None else _sample_name(path)
        out.insert(0, "sample_id", sid)
        return out, [str(sid)]
    if header_fields(first_line(path)) is not None:
        return _read_coverage_table(path, sample_id, contiguous)
    sid = sample_id if sample_id is not None else _sample_name(path)
    return read_bedgraph(path, sid, contiguous=contiguous), [str(sid)]


def _warm_parsers() -> bool:
    """Compile (or load) the text parsers' kernels on two tiny files (``warm_kernels``)."""
    from penlearn.peaks.formats import _parse_kernel as kernel  # numba: on first use

    def run():
        with tempfile.TemporaryDirectory(prefix="penlearn-warm-") as folder:
            bedgraph, table = Path(folder) / "s.bedGraph", Path(folder) / "coverage.csv"
            bedgraph.write_text("chr1\t0\t10\t1\n")
            table.write_text("sample_id,chrom,chromStart,chromEnd,count\ns,chr1,0,10,1\n")
            _read_one(bedgraph, None, False)
            _read_one(table, None, False)

    return warm_kernels("coverage reader",
                        (kernel.parse_bedgraph, kernel.parse_csv_numbers), run)


def _codes(chrom: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, names = pd.factorize(chrom)
    return codes, np.asarray(names, dtype=object)


def coverage_files(folder: Path) -> list[tuple[str | None, Path]]:
    """(sample id, file) of every coverage file below ``folder``, then top-level tables
    (sample id None), as :func:`read_coverage` reads a folder.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s1.bedGraph.gz").write_bytes(b"")
    >>> [(sid, p.name) for sid, p in coverage_files(d)]
    [('s1', 's1.bedGraph.gz')]
    """
    entries = sorted(p for p in folder.rglob("*") if _is_coverage_name(p.name))
    dangling = [p for p in entries if p.is_symlink() and not p.exists()]
    if dangling:
        raise ValueError(f"{dangling[0]}: a symbolic link to a missing file (coverage of "
                         "a sample would be left out)")
    found: dict[str, Path] = {}
    for p in (p for p in entries if p.is_file()):
        sid = _sample_name(p, folder)
        if sid in found:
            raise ValueError(f"{folder}: two files give sample id {sid!r}: {found[sid]}, {p}")
        found[sid] = p
    tables = [p for name in ("coverage.csv", "coverage.csv.gz", "coverage.tsv",
                             "coverage.tsv.gz") if (p := folder / name).is_file()]
    if not found and not tables:
        raise ValueError(
            f"{folder}: no coverage found (expected *.bedGraph[.gz], *.bw / *.bigWig or "
            "*.bam files, or a coverage.csv[.gz] table with a sample_id column)"
        )
    return [*found.items(), *((None, p) for p in tables)]


def _path(p, what: str = "paths_or_dir") -> Path:
    if not isinstance(p, (str, os.PathLike)):
        raise TypeError(f"{what} must hold paths, got {type(p).__name__}")
    if os.fspath(p) == "":
        raise ValueError(f"{what}: empty path (an unset shell variable?); give a coverage "
                         "file or folder")
    return Path(p)


def coverage_items(paths_or_dir) -> list[tuple[str | None, Path]]:
    """(sample id or None, file) of every file :func:`read_coverage` reads of
    ``paths_or_dir`` (its arguments' kinds), in its order; the same file twice, an
    empty path and a pipe or device refused.

    Examples
    --------
    >>> [(sid, p.name) for sid, p in coverage_items({"s": "a.bedGraph"})]
    [('s', 'a.bedGraph')]
    """
    if isinstance(paths_or_dir, Mapping):
        items = [(str(k), _path(v)) for k, v in paths_or_dir.items()]
    elif isinstance(paths_or_dir, (str, os.PathLike)):
        path = _path(paths_or_dir)
        items = coverage_files(path) if path.is_dir() else [(None, path)]
    else:
        try:
            paths = list(paths_or_dir)
        except TypeError as exc:
            raise TypeError(
                "paths_or_dir must be a path, a folder, a list of paths or a mapping "
                f"sample_id -> path, got {type(paths_or_dir).__name__}"
            ) from exc
        items = [(None, _path(p)) for p in paths]
    if not items:
        raise ValueError("paths_or_dir holds no files")
    seen: dict[str, Path] = {}
    for _, p in items:
        check_regular_file(p)  # before any reader opens it (a pipe would wait)
        key = os.path.realpath(p)
        if key in seen:
            raise ValueError(f"the same file is given twice: {seen[key]} and {p}")
        seen[key] = p
    return items


def read_coverage_file(path: Path, sample_id: str | None = None,
                       contiguous: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """One file of :func:`coverage_items` as :func:`read_coverage` reads it, and its
    sample ids in order; a file without rows refused."""
    table, samples = _read_one(path, sample_id, contiguous)
    if not len(table):  # a sample would vanish, or a command blame another input
        raise no_rows_error(path)
    return table, samples


def no_rows_error(path) -> ValueError:
    """The error of a coverage file without rows (:func:`read_coverage_file`).

    Examples
    --------
    >>> str(no_rows_error("a.bw")).startswith("coverage a.bw has no rows")
    True
    """
    return ValueError(f"coverage {path} has no rows (a header only, or no reads / "
                      "intervals): give each sample's coverage")


def is_table_file(path: Path) -> bool:
    """Whether a coverage file is a CSV / TSV table with a header (else one sample's
    bedGraph, bigWig or BAM)."""
    return not (is_bam(path) or is_bigwig(path)) and header_fields(
        first_line(path)) is not None


def read_coverage(paths_or_dir, *, contiguous: bool = False, progress: bool = False
                  ) -> pd.DataFrame:
    """Read the coverage of many samples into one long table.

    Parameters
    ----------
    paths_or_dir : path-like, sequence of path-likes, or mapping
        * a mapping ``{sample_id: path}``;
        * a folder: every ``*.bedGraph`` / ``*.bedgraph`` / ``*.bg`` / ``*.bdg`` file in
          it or below (optionally ``.gz``) and every ``*.bw`` / ``*.bigWig`` / ``*.bam``
          file, the sample id being the file name without those extensions, or, for files named
          ``coverage.bedGraph`` (the layout ``samples/<group>/<sample>/coverage.bedGraph``),
          the folder path relative to ``paths_or_dir`` (``"kidney/MS002201"``); plus a
          top-level ``coverage.csv[.gz]`` table if present. A symbolic link to a missing
          file is an error (a sample would be lost);
        * one file or a list of files: bedGraph, bigWig or BAM files (told apart by
          their first bytes; sample id from the name as above; a BAM gives the read depth
          of ``bedtools genomecov -bg -split``, see :mod:`penlearn.peaks.formats.bam`) or CSV /
          TSV tables with a header and the columns ``sample_id, chrom, chromStart,
          chromEnd, count`` (other columns are kept).
    contiguous : bool
        Also reject gaps between the rows of a sample's chromosome (see
        :func:`check_coverage_rows`).
    progress : bool
        Show a tqdm progress bar counting the bytes of the files read (with two or more
        files).

    Returns
    -------
    DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count`` (+ extra table columns), with
        ``sample_id`` and ``chrom`` as strings (``"0001"`` stays ``"0001"``) and int64
        coordinates and counts, in file order.

    Raises
    ------
    ValueError
        On a bad file (naming file and line), a file without rows, a sample id found
        twice, the same file given twice, or an empty path (an unset shell variable must
        not read the current folder).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "0001.bedGraph").write_text("chr1\\t0\\t5\\t2\\n")
    >>> read_coverage(d)[["sample_id", "count"]].values.tolist()
    [['0001', 2]]
    """
    items = coverage_items(paths_or_dir)
    from penlearn._progress import tqdm

    if progress and not all(is_bigwig(p) for _, p in items):  # one file too: no silence
        _warm_parsers()  # compile before the bar starts: no ETA of hours meanwhile
    tables, ids = [], []
    with tqdm(total=sum(os.path.getsize(p) for _, p in items), unit="B", unit_scale=True,
              desc="coverage", disable=not progress or len(items) < 2) as bar:
        for sid, p in items:
            table, samples = read_coverage_file(p, sid, contiguous)
            tables.append(table)
            ids.append(samples)
            bar.update(os.path.getsize(p))
    first: dict = {}
    for (_, p), samples in zip(items, ids):
        for s in samples:
            if s in first and first[s] != p:
                raise ValueError(f"sample id {s!r} is in both {first[s]} and {p}")
            first[s] = p
    return tables[0] if len(tables) == 1 else concat_dropping(tables)


def concat_dropping(tables: list) -> pd.DataFrame:
    """``pd.concat(tables, ignore_index=True)`` in less memory when the tables have the
    same columns and dtypes: column by column, each table's column dropped once joined
    (the rows twice at once for one column only, not for the whole table); other tables
    by ``pd.concat``. ``tables`` is emptied.

    Examples
    --------
    >>> a = pd.DataFrame({"x": [1, 2], "s": pd.array(["u", "v"], dtype=str)})
    >>> b = pd.DataFrame({"x": [3], "s": pd.array(["w"], dtype=str)})
    >>> concat_dropping([a, b]).values.tolist()
    [[1, 'u'], [2, 'v'], [3, 'w']]
    """
    first = tables[0]
    same = all(list(t.columns) == list(first.columns) and t.columns.is_unique
               and (t.dtypes == first.dtypes).all() for t in tables)
    if not same:
        out = pd.concat(tables, ignore_index=True)
        tables.clear()
        return out
    columns = {}
    for col in list(first.columns):
        columns[col] = pd.concat([t[col] for t in tables], ignore_index=True)
        for t in tables:
            del t[col]
    tables.clear()
    return pd.DataFrame(columns, copy=False)
