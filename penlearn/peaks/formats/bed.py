"""Peak labels in, peaks out: label files (CSV / BED / genome-browser text) and BED files.

Coordinates are those of BED (UCSC): 0-based half-open, ``chromStart, chromEnd`` covers
the bases ``chromStart+1 .. chromEnd``. Peak labels and their annotations are those of
Hocking et al. (2017), "Optimizing ChIP-seq peak detectors using visual labels and
supervised machine learning", *Bioinformatics* 33(4).

* :func:`read_peak_labels` — labels as ``chrom, chromStart, chromEnd, annotation[, sample_id]``.
* :func:`write_bed`, :func:`read_bed` — peaks as BED.
* :func:`write_bedgraph`, :func:`bedgraph_bytes` — values of regions as bedGraph.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import not_one_word, optional_import, require_columns
from penlearn.atomic_files import staged_file, write_bytes_atomic
from penlearn.peaks.formats._label_text import BROWSER_LIKE, browser_labels, expand_groups
from penlearn.peaks.formats._text_files import (
    data_lines,
    first_data_line,
    four_fields,
    header_fields,
    parse_integers,
    read_text,
)
from penlearn.peaks.formats.regions import check_peak_labels, check_peaks


def _bed_labels(path, text: str) -> tuple[pd.DataFrame, list[int]]:
    numbers, lines = data_lines(text)
    where, cols = four_fields(path, numbers, lines, "annotation")
    df = pd.DataFrame({"chrom": pd.array(cols[0], dtype=str),
                       "chromStart": parse_integers(list(cols[1]), where, "chromStart"),
                       "chromEnd": parse_integers(list(cols[2]), where, "chromEnd"),
                       "annotation": pd.array(cols[3], dtype=str)})
    return df, numbers


def read_peak_labels(path: str | os.PathLike, *, samples=None,
                     coordinates: str = "browser", allow_empty: bool = False) -> pd.DataFrame:
    """Read peak labels from CSV / TSV / BED or the genome-browser labels text format.

    Three formats, told apart by the first data line:

    * CSV or TSV with a header holding ``chrom, chromStart, chromEnd, annotation`` and
      optionally ``sample_id`` (other columns are kept; ids are read as strings);
    * BED: four whitespace-separated columns ``chrom, chromStart, chromEnd,
      annotation``, no header;
    * the labels text format of genome-browser users, one label per line, blank lines
      between windows (labelled regions viewed together)::

          chr10:33,061,897-33,162,814 noPeaks
          chr10:33,456,000-33,484,755 peakStart kidney

      Positions are those the genome browser displays: 1-based, both ends included, so
      ``chr10:33,456,000-33,484,755`` is ``chromStart = 33455999, chromEnd = 33484755``
      (``coordinates="bed"`` takes the two numbers as ``chromStart, chromEnd``
      unchanged). The words after the annotation are sample groups (cell types) or
      sample ids: the annotation holds for the samples listed, and the other samples
      get ``noPeaks`` there; a line that lists nobody holds for every sample. The table
      has the columns ``chrom, chromStart, chromEnd, annotation, groups`` (the listed
      words, space-separated, ``""`` for all samples) and ``window`` (0, 1, … per block).
      With ``samples`` (a mapping ``sample_id -> group`` or a DataFrame with columns
      ``sample_id, group``), it is expanded to one row per (sample, label) with a
      ``sample_id`` column, ready for :func:`peak_label_errors`.

    Annotations must be ``noPeaks``, ``peakStart``, ``peakEnd`` or ``peaks``, and the
    labels of one sample and chromosome must not overlap.

    Parameters
    ----------
    path : path-like
        Plain or gzip file.
    samples : mapping or DataFrame, optional
        Sample groups, for the labels text format only.
    coordinates : {"browser", "bed"}
        How to read the positions of the labels text format.
    allow_empty : bool
        Whether a file without labels (only a header) is an empty table rather than an
        error (the labeling page's file, after its last label was deleted).

    Returns
    -------
    DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, annotation`` (+ the columns above).

    Raises
    ------
    ValueError
        Naming the file and line of a malformed line, an unknown annotation, or
        chromStart >= chromEnd; naming both lines of overlapping labels; a file without
        labels. The table's ``attrs["source_lines"]`` (file, {row index: line}) lets later
        messages about a row name its file and line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.txt"
    >>> _ = p.write_text("chr10:1,001-2,000 noPeaks\\nchr10:3,001-4,000 peakStart kidney\\n")
    >>> read_peak_labels(p)[["chromStart", "chromEnd", "annotation", "groups"]].values.tolist()
    [[1000, 2000, 'noPeaks', ''], [3000, 4000, 'peakStart', 'kidney']]
    >>> lab = read_peak_labels(p, samples={"MS1": "kidney", "MS2": "bcell"})
    >>> lab[["sample_id", "annotation"]].values.tolist()
    [['MS1', 'noPeaks'], ['MS1', 'peakStart'], ['MS2', 'noPeaks'], ['MS2', 'noPeaks']]
    """
    if coordinates not in ("browser", "bed"):
        raise ValueError(f"coordinates must be 'browser' or 'bed', got {coordinates!r}")
    text = read_text(path)
    first = first_data_line(text)
    header = header_fields(first)
    if BROWSER_LIKE.match(first):
        df, numbers = browser_labels(path, text, coordinates)
    elif header is not None:
        sep = "," if "," in first else "\t"
        try:
            df = pd.read_csv(io.StringIO(text), sep=sep, keep_default_na=False, dtype=str)
        except pd.errors.ParserError as exc:  # ragged rows
            raise ValueError(f"{path}: {' '.join(str(exc).split())}") from exc
        require_columns(df, ["chrom", "chromStart", "chromEnd", "annotation"], str(path))
        numbers = list(range(2, len(df) + 2))
        for col in ("chromStart", "chromEnd"):  # exact int64, as text (no float rounding)
            df[col] = parse_integers(df[col].tolist(), lambda i: f"{path}, line {numbers[i]}",
                                     col)
    else:
        df, numbers = _bed_labels(path, text)
    if samples is not None:
        if "groups" not in df.columns:
            raise ValueError("samples= applies to the labels text format only; "
                             f"{path} is a table (give sample_id as a column instead)")
        df = expand_groups(df, samples, where=lambda i: f"{path}, line {numbers[i]}")
        numbers = numbers * (len(df) // max(len(numbers), 1))

    def where(i: int) -> str:
        return f"{path}, line {numbers[i]}" if i < len(numbers) else f"{path}, label {i}"

    if not len(df) and not allow_empty:
        raise ValueError(f"labels file {path} has no labels")
    clean = check_peak_labels(df, name=str(path), where=where)
    for col in clean.columns:
        df[col] = clean[col].to_numpy()
    if samples is None:  # later messages (expand_groups) name the file and line of a row
        df.attrs["source_lines"] = (str(path), dict(zip(df.index.tolist(), numbers)))
    return df


def _text_column(values, col: str) -> np.ndarray:
    """A BED text column: non-empty, no whitespace (BED fields are tab / space separated)."""
    raw = pd.Series(values)
    text = np.array([str(v) for v in raw], dtype=object)
    bad = not_one_word(raw)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"peaks column {col!r} must be non-empty text without spaces, tabs "
                         f"or newlines; row {i} has {raw.iloc[i]!r}")
    return text


def track_line(track) -> str:
    """A UCSC ``track`` line: from a name (str) or a mapping of ``key=value`` attributes.

    Examples
    --------
    >>> track_line("my peaks")
    'track name="my peaks"'
    >>> track_line({"type": "bedGraph", "name": "means"})
    'track type=bedGraph name="means"'
    """
    attrs = {"name": track} if isinstance(track, str) else dict(track)
    parts = []
    for key, value in attrs.items():
        key, value = str(key), str(value)
        if not key.isidentifier() or any(c in value for c in '"\n\r'):
            raise ValueError(f"track attribute {key}={value!r}: keys must be words and "
                             "values must not hold quotes or newlines")
        plain = key == "type" and value.isidentifier()
        parts.append(f"{key}={value}" if plain else f'{key}="{value}"')
    return "track " + " ".join(parts)


def _scores(peaks: pd.DataFrame) -> np.ndarray:
    """BED column 5: integers 0-1000 (UCSC), as :func:`~penlearn.peaks.formats.peak_columns.
    ucsc_scores` gives them."""
    score = pd.to_numeric(peaks["score"], errors="coerce").to_numpy(float)
    bad = ~(np.isfinite(score) & (score >= 0) & (score <= 1000) & (score == np.rint(score)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"peaks column 'score' must hold integers 0-1000 (UCSC's BED score; "
                         f"ucsc_scores() scales any values to them); row {i} has "
                         f"{peaks['score'].iloc[i]!r}")
    return score.astype(np.int64)


def _peaks_text(peaks: pd.DataFrame, extra=()) -> str:
    clean = check_peaks(peaks.drop(columns="sample_id", errors="ignore"))
    out = clean[["chrom", "chromStart", "chromEnd"]].copy()
    out["chrom"] = _text_column(peaks["chrom"].to_numpy(), "chrom")
    width = 6 if extra or "strand" in peaks.columns else 5 if "score" in peaks.columns \
        else 4 if "name" in peaks.columns else 3
    if width >= 4:
        out["name"] = (_text_column(peaks["name"].to_numpy(), "name")
                       if "name" in peaks.columns else np.full(len(peaks), "."))
    if width >= 5:
        out["score"] = _scores(peaks) if "score" in peaks.columns else 0
    if width >= 6:
        strand = (peaks["strand"].astype(str).to_numpy() if "strand" in peaks.columns
                  else np.full(len(peaks), "."))
        if not np.isin(strand, ["+", "-", "."]).all():
            raise ValueError("peaks column 'strand' must hold '+', '-' or '.'")
        out["strand"] = strand
    for col in extra:
        require_columns(peaks, [col], "peaks")
        v = pd.to_numeric(peaks[col], errors="coerce").to_numpy(float)
        if not np.isfinite(v).all():
            i = int(np.flatnonzero(~np.isfinite(v))[0])
            raise ValueError(f"peaks column {col!r} must hold finite numbers; row {i} has "
                             f"{peaks[col].iloc[i]!r}")
        out[col] = v
    return out.to_csv(sep="\t", header=False, index=False, lineterminator="\n")


def _write_text(text: str, path, track) -> None:
    if track is not None:
        text = track_line(track) + "\n" + text
    data = text.encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    write_bytes_atomic(path, data)


def write_bed(peaks: pd.DataFrame, path: str | os.PathLike, *, track=None,
              extra=()) -> None:
    """Write peaks as a BED file, atomically (a temporary file, then a rename).

    Parameters
    ----------
    peaks : DataFrame
        ``chrom, chromStart, chromEnd`` and optionally ``name``, ``score`` and ``strand``
        (BED columns 4-6; a ``score`` without ``name`` gets name ``"."``). Scores are
        UCSC's: integers 0-1000
        (:func:`~penlearn.peaks.formats.peak_columns.ucsc_scores`). Other columns are
        not written unless named in ``extra``. A ``sample_id`` column may hold one
        sample only: write one file per sample.
    path : path-like
        Output file: tab-separated, no header; gzip-compressed when the name ends in
        ``.gz``. The file appears complete or not at all.
    track : str or mapping, optional
        A ``track`` line first (see :func:`track_line`): a name, or attributes such as
        ``{"name": "peaks", "description": "PeakSeg peaks"}``.
    extra : sequence of str
        Numeric columns written after the six of BED6 (BED6+n; a missing name is ``.``,
        score 0, strand ``.``), e.g. ``["mean"]``.

    Raises
    ------
    ValueError
        On an invalid table (nothing is written): empty / NaN chromosomes or names,
        names with spaces, tabs or newlines, scores other than integers 0-1000, bad
        coordinates.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "peaks.bed"
    >>> write_bed(pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20]}), p)
    >>> p.read_text()
    'chr1\\t10\\t20\\n'
    """
    require_columns(peaks, ["chrom", "chromStart", "chromEnd"], "peaks")
    if "sample_id" in peaks.columns and peaks["sample_id"].astype(str).nunique() > 1:
        raise ValueError(
            "peaks hold several samples (sample_id column); BED has no sample column, "
            "so write one file per sample (e.g. peaks.groupby('sample_id'))"
        )
    _write_text(_peaks_text(peaks, extra), path, track)


def write_bedgraph(segments: pd.DataFrame, path: str | os.PathLike, *, value: str = "mean",
                   track=None) -> None:
    """Write segment means (or another value column) as a bedGraph file, atomically.

    Parameters
    ----------
    segments : DataFrame
        ``chrom, chromStart, chromEnd`` and the ``value`` column, e.g. the ``segments``
        of a :class:`~penlearn.peaks.peakseg.solver.PeakSegModel` (one sample; regions not
        overlapping).
    path : path-like
        Output file (gzip when the name ends in ``.gz``).
    value : str
        The column written fourth.
    track : str or mapping, optional
        A ``track`` line first; ``type=bedGraph`` is added when missing.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "means.bedGraph"
    >>> seg = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 20], "chromEnd": [20, 40],
    ...                     "mean": [1.5, 29.0]})
    >>> write_bedgraph(seg, p)
    >>> p.read_text()
    'chr1\\t0\\t20\\t1.5\\nchr1\\t20\\t40\\t29.0\\n'
    """
    require_columns(segments, ["chrom", "chromStart", "chromEnd", value], "segments")
    peaks = segments[["chrom", "chromStart", "chromEnd"]]
    clean = check_peaks(peaks, name="segments")
    clean["chrom"] = _text_column(segments["chrom"].to_numpy(), "chrom")
    v = pd.to_numeric(segments[value], errors="coerce").to_numpy(float)
    if not np.isfinite(v).all():
        i = int(np.flatnonzero(~np.isfinite(v))[0])
        raise ValueError(f"segments column {value!r} must be finite numbers; row {i} has "
                         f"{segments[value].iloc[i]!r}")
    clean["value"] = v
    if track is not None:
        track = {"name": track} if isinstance(track, str) else dict(track)
        track = {"type": "bedGraph", **track}
    _write_text(clean.to_csv(sep="\t", header=False, index=False, lineterminator="\n"),
                path, track)


#: Integer-valued values below this are formatted from one table of 0.0, 1.0, 2.0, ...
_SMALL_INTEGERS = 1 << 16


def _value_texts(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, table, offsets): the text of ``v[i]`` is ``table[offsets[c]:offsets[c + 1]]``
    with ``c = codes[i]``, each distinct value (bit pattern: -0.0 is not 0.0) formatted by
    ``astype(str)`` as pandas' ``to_csv`` formats a float column."""
    if len(v) and ((v >= 0) & (v < _SMALL_INTEGERS)).all() and not np.signbit(v).any():
        codes = v.astype(np.int64)  # (the counts of a pileup: 0.0, 1.0, ... exactly)
        if (codes == v).all():
            return codes, *_text_table(np.arange(codes.max() + 1, dtype=np.float64))
    bits, codes = np.unique(v.view(np.int64), return_inverse=True)
    return codes.astype(np.int64).ravel(), *_text_table(bits.view(np.float64))


def _text_table(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    texts = values.astype(str)
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(np.char.str_len(texts), out=offsets[1:])
    return np.frombuffer("".join(texts.tolist()).encode("ascii"), np.uint8), offsets


def _csv_field(text: str) -> str:
    """``text`` as pandas' ``to_csv(sep="\\t")`` writes a field (quoted when it holds a
    quote)."""
    buf = io.StringIO()
    csv.writer(buf, delimiter="\t", lineterminator="\n").writerow([text])
    return buf.getvalue()[:-1]


def merge_equal_runs(starts, ends, values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by start with each run of touching rows (a row starting where the one
    before ends) of one value made one row, as ``bedtools genomecov -bg`` and MACS3 write
    a bedGraph (``callpeak -B``'s control λ is constant over many of the treatment's
    rows).

    Examples
    --------
    >>> s, e, v = merge_equal_runs([0, 5, 9, 12], [5, 9, 11, 20], [2.0, 2.0, 2.0, 2.0])
    >>> s.tolist(), e.tolist(), v.tolist()
    ([0, 12], [11, 20], [2.0, 2.0])
    """
    from penlearn.peaks.formats._pileup_kernel import equal_runs  # numba: on first use

    s, e, v = np.asarray(starts), np.asarray(ends), np.asarray(values)
    if not len(s):
        return s, e, v
    keep, _ = equal_runs(s, e, v)
    last = np.r_[keep[1:] - 1, len(s) - 1]
    return s[keep], e[last], v[keep]


def bedgraph_bytes(chrom: str, starts, ends, values, *, rows: int = 1 << 20):
    """The bedGraph lines of one chromosome's regions, in chunks of ``rows`` rows: the
    bytes of :func:`write_bedgraph` (the same table through pandas' ``to_csv``) at a
    compiled loop's speed (``callpeak -B`` writes tens of millions of rows, issue 55).

    Parameters
    ----------
    chrom : str
        The chromosome: a non-empty name without whitespace.
    starts, ends : array-like of int
        ``0 <= starts < ends``, sorted and not overlapping.
    values : array-like of float
        Finite numbers, written as ``str`` of a NumPy float64 (``1.5``, ``29.0``,
        ``1e-05``).
    rows : int
        Rows per chunk (the memory held at once).

    Yields
    ------
    bytes
        Consecutive chunks of the file's text.

    Examples
    --------
    >>> b"".join(bedgraph_bytes("chr1", [0, 20], [20, 40], [1.5, 29.0]))
    b'chr1\\t0\\t20\\t1.5\\nchr1\\t20\\t40\\t29.0\\n'
    """
    from penlearn.peaks.formats._bedgraph_kernel import bedgraph_rows

    if not isinstance(chrom, str) or not_one_word([chrom])[0]:
        raise ValueError(f"chrom must be a non-empty name without spaces, got {chrom!r}")
    s = np.ascontiguousarray(starts, dtype=np.int64)
    e = np.ascontiguousarray(ends, dtype=np.int64)
    v = np.ascontiguousarray(values, dtype=np.float64)
    if not (s.ndim == e.ndim == v.ndim == 1 and len(s) == len(e) == len(v)):
        raise ValueError(f"starts, ends and values must be 1-D of one length, got shapes "
                         f"{s.shape}, {e.shape} and {v.shape}")
    bad = (s < 0) | (s >= e) | ~np.isfinite(v)
    bad[:-1] |= e[:-1] > s[1:]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"bedGraph row {i} of {chrom}: needs 0 <= start < end, rows sorted "
                         f"and not overlapping, a finite value; got {s[i]}, {e[i]}, {v[i]}")
    prefix = np.frombuffer((_csv_field(chrom) + "\t").encode("utf-8"), np.uint8)
    for a in range(0, len(s), rows):
        codes, table, offsets = _value_texts(v[a:a + rows])
        yield bedgraph_rows(prefix, s[a:a + rows], e[a:a + rows], codes, table,
                            offsets).tobytes()


def write_bigwig(segments: pd.DataFrame, path: str | os.PathLike, *, value: str = "mean",
                 chrom_sizes=None) -> None:
    """Write segment means as a bigWig file (needs ``pyBigWig``), atomically.

    Parameters
    ----------
    segments : DataFrame
        As for :func:`write_bedgraph`.
    path : path-like
        Output file.
    value : str
        The column written.
    chrom_sizes : mapping, optional
        Chromosome lengths for the header; default: each chromosome's last ``chromEnd``.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "means.bw"
    >>> seg = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 20], "chromEnd": [20, 40],
    ...                     "mean": [1.5, 29.0]})
    >>> write_bigwig(seg, p)  # doctest: +SKIP
    """
    pyBigWig = optional_import("pyBigWig", "bigWig output", "bigwig")
    require_columns(segments, ["chrom", "chromStart", "chromEnd", value], "segments")
    clean = check_peaks(segments[["chrom", "chromStart", "chromEnd"]], name="segments")
    clean["chrom"] = _text_column(segments["chrom"].to_numpy(), "chrom")
    clean["value"] = pd.to_numeric(segments[value], errors="coerce").to_numpy(float)
    if not np.isfinite(clean["value"]).all():
        raise ValueError(f"segments column {value!r} must be finite numbers")
    clean = clean.sort_values(["chrom", "chromStart"], kind="stable")
    ends = clean.groupby("chrom", sort=False)["chromEnd"].max()
    sizes = {c: int(e) for c, e in ends.items()}
    if chrom_sizes is not None:
        for c, e in sizes.items():
            if c not in chrom_sizes or int(chrom_sizes[c]) < e:
                raise ValueError(f"chrom_sizes must give chromosome {c!r} a length >= {e}")
        sizes = {c: int(chrom_sizes[c]) for c in sizes}
    with staged_file(Path(path)) as tmp:
        bw = pyBigWig.open(str(tmp), "w")
        try:
            bw.addHeader(list(sizes.items()))
            bw.addEntries(clean["chrom"].tolist(), clean["chromStart"].tolist(),
                          ends=clean["chromEnd"].tolist(), values=clean["value"].tolist())
        finally:
            bw.close()


def read_bed(path: str | os.PathLike) -> pd.DataFrame:
    """Read a BED file of peaks: ``chrom, chromStart, chromEnd[, name, score]``.

    Plain or gzip; ``track`` / ``browser`` / ``#`` lines skipped; columns beyond the
    fifth are ignored. Errors name the file and line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "peaks.bed"
    >>> _ = p.write_text("chr1\\t10\\t20\\tp1\\t5\\n")
    >>> read_bed(p).values.tolist()
    [['chr1', 10, 20, 'p1', 5.0]]
    """
    numbers, lines = data_lines(read_text(path))

    def where(i: int) -> str:
        return f"{path}, line {numbers[i]}"

    fields = [line.split("\t") if "\t" in line else line.split() for line in lines]
    counts = np.array([len(f) for f in fields], dtype=np.int64)
    if len(fields) and (counts < 3).any():
        i = int(np.flatnonzero(counts < 3)[0])
        raise ValueError(f"{where(i)}: expected at least 3 fields, got {lines[i]!r}")
    if len(fields) and (counts != counts[0]).any():
        i = int(np.flatnonzero(counts != counts[0])[0])
        raise ValueError(f"{where(i)}: {counts[i]} fields, but line {numbers[0]} has "
                         f"{counts[0]}: every line of a BED file has the same fields")
    width = min(int(counts[0]) if len(fields) else 3, 5)
    cols = list(zip(*(f[:width] for f in fields))) if fields else [()] * width
    out = pd.DataFrame({"chrom": pd.array(cols[0], dtype=str),
                        "chromStart": parse_integers(list(cols[1]), where, "chromStart"),
                        "chromEnd": parse_integers(list(cols[2]), where, "chromEnd")})
    if width >= 4:
        out["name"] = pd.array(cols[3], dtype=str)
    if width == 5:
        text = pd.Series(cols[4], dtype=object)
        score = pd.to_numeric(text.where(text != "."), errors="coerce")
        bad = score.isna().to_numpy() & (text != ".").to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{where(i)}: score must be a number (or '.'), got {cols[4][i]!r}")
        out["score"] = score.to_numpy(float)
    negative = out["chromStart"].to_numpy() < 0
    if negative.any():
        i = int(np.flatnonzero(negative)[0])
        raise ValueError(f"{where(i)}: chromStart must be >= 0, got {out['chromStart'].iloc[i]}")
    bad = out["chromStart"].to_numpy() >= out["chromEnd"].to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{where(i)}: chromStart must be < chromEnd")
    return out
