"""Peak labels and peak calls as tables: the one place their rows are checked.

Readers (:func:`~penlearn.peaks.formats.bed.read_peak_labels`, peak folders) and writers
(:func:`~penlearn.peaks.formats.bed.write_bed`, narrowPeak, the track hub) and the label
errors (:mod:`penlearn.peaks.peakseg.labels`) all validate regions here: integer
``chromStart < chromEnd`` in BED coordinates (0-based, half-open), known annotations, no
overlapping labels of one sample.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._checks import not_one_word, require_columns

#: The four peak-label annotations, in this order (their integer codes).
PEAK_ANNOTATIONS = ("noPeaks", "peakStart", "peakEnd", "peaks")
LABEL_COLUMNS = ("chrom", "chromStart", "chromEnd", "annotation")
PEAK_COLUMNS = ("chrom", "chromStart", "chromEnd")


def _plain(v) -> str:
    """A cell as the file wrote it: ``-100``, not NumPy's ``np.int64(-100)``."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def _integer_column(df: pd.DataFrame, col: str, name: str, loc) -> np.ndarray:
    """Non-negative int64 coordinates, exactly (integers never pass through float)."""
    values = df[col]
    if pd.api.types.is_integer_dtype(values) and not pd.api.types.is_bool_dtype(values):
        if values.isna().any():  # nullable integers
            i = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise ValueError(f"{name} column {col!r} must hold non-negative integers; "
                             f"{loc(i)} has {_plain(values.iloc[i])}")
        if values.dtype.kind == "u":
            big = values.to_numpy() > np.iinfo(np.int64).max
            if big.any():
                i = int(np.flatnonzero(big)[0])
                raise ValueError(f"{name} column {col!r}: {loc(i)} has {values.iloc[i]}, "
                                 "beyond the 64-bit integer range")
        arr = values.to_numpy(dtype=np.int64)
        bad = arr < 0
    else:
        arr, bad = _integers_of_objects(values, col, name, loc)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} column {col!r} must hold non-negative integers; {loc(i)} has "
            f"{_plain(values.iloc[i])}"
        )
    return arr


def _integers_of_objects(values: pd.Series, col: str, name: str, loc):
    """int64 of a float / object column: Python ints exactly, floats when integral."""
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        if values.dtype == object and all(isinstance(v, (int, np.integer))
                                          and not isinstance(v, bool) for v in values):
            big = [i for i, v in enumerate(values) if not -(2**63) <= int(v) < 2**63]
            if big:
                raise ValueError(f"{name} column {col!r}: {loc(big[0])} has "
                                 f"{values.iloc[big[0]]}, beyond the 64-bit integer range")
            arr = np.array([int(v) for v in values], dtype=np.int64)
            return arr, arr < 0
        converted = pd.to_numeric(values, errors="coerce")
        if converted.isna().any():
            i = int(np.flatnonzero(converted.isna().to_numpy())[0])
            raise TypeError(
                f"{name} column {col!r} must hold integers; {loc(i)} has {_plain(values.iloc[i])}"
            )
        values = converted
    if pd.api.types.is_integer_dtype(values):
        arr = values.to_numpy(dtype=np.int64)
        return arr, arr < 0
    arr = values.to_numpy(dtype=float)
    bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 0) | (arr >= 2.0**63)
    return np.where(bad, 0, arr).astype(np.int64), bad


def _check_regions(df: pd.DataFrame, columns, name: str, what: str, where=None) -> pd.DataFrame:
    """Common checks of labels and peaks: integer coordinates, start < end, no overlap."""
    require_columns(df, columns, name)
    loc = where if where is not None else (lambda i: f"{name} row {i}")
    chrom = df["chrom"]
    text = np.array([str(v) for v in chrom], dtype=object)
    bad = not_one_word(chrom)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{loc(i)}: chrom must be a non-empty name without spaces, got "
                         f"{chrom.iloc[i]!r}")
    out = pd.DataFrame({"chrom": text})
    if "sample_id" in df.columns:
        out.insert(0, "sample_id", df["sample_id"].astype(str).to_numpy())
    for col in ("chromStart", "chromEnd"):
        out[col] = _integer_column(df, col, name, loc)
    bad = out["chromStart"].to_numpy() >= out["chromEnd"].to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{loc(i)}: chromStart must be < chromEnd, got "
            f"chromStart={out['chromStart'].iloc[i]}, chromEnd={out['chromEnd'].iloc[i]}"
        )
    per_sample = "sample_id" in out.columns
    code = pd.factorize(region_keys(out, per_sample))[0]
    starts = out["chromStart"].to_numpy()
    ends = out["chromEnd"].to_numpy()
    order = np.lexsort((starts, code))
    starts, ends, code = starts[order], ends[order], code[order]
    overlap = (code[1:] == code[:-1]) & (ends[:-1] > starts[1:])
    if overlap.any():
        j = int(np.flatnonzero(overlap)[0])
        r1, r2 = int(order[j]), int(order[j + 1])
        sample = f" of sample {out['sample_id'].iloc[r1]!r}" if per_sample else ""
        raise ValueError(
            f"overlapping {what}{sample}: {loc(r1)} ({out['chrom'].iloc[r1]}, "
            f"{starts[j]}, {ends[j]}) and {loc(r2)} ({starts[j + 1]}, {ends[j + 1]}); "
            f"{what} of one chromosome must not overlap (touching is fine)"
        )
    return out


def check_peak_labels(labels: pd.DataFrame, name: str = "labels", where=None) -> pd.DataFrame:
    """Validate peak labels and return a clean copy (input row order kept).

    Parameters
    ----------
    labels : DataFrame
        ``chrom, chromStart, chromEnd, annotation`` and optionally ``sample_id``.
    name : str
        Argument name used in error messages.
    where : callable, optional
        Maps a row index to its location in messages (default ``"labels row i"``);
        file readers pass one naming the file and line.

    Returns
    -------
    DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, annotation`` with int64 coordinates
        and string ids.

    Raises
    ------
    ValueError
        On an unknown annotation, chromStart >= chromEnd, negative or non-integer
        coordinates, or overlapping labels of one sample and chromosome.

    Examples
    --------
    >>> import pandas as pd
    >>> lab = pd.DataFrame({"chrom": ["chr1"], "chromStart": [1], "chromEnd": [10],
    ...                     "annotation": ["foo"]})
    >>> check_peak_labels(lab)
    Traceback (most recent call last):
    ...
    ValueError: labels row 0: unknown annotation 'foo'; annotations must be one of: \
noPeaks, peakStart, peakEnd, peaks
    """
    require_columns(labels, LABEL_COLUMNS, name)
    ann = labels["annotation"].astype(str).to_numpy()
    loc = where if where is not None else (lambda i: f"{name} row {i}")
    bad = ~np.isin(ann, PEAK_ANNOTATIONS)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{loc(i)}: unknown annotation {ann[i]!r}; annotations must be one of: "
            + ", ".join(PEAK_ANNOTATIONS)
        )
    out = _check_regions(labels, LABEL_COLUMNS, name, "labels", where)
    out["annotation"] = ann
    return out


def check_peaks(peaks: pd.DataFrame, name: str = "peaks") -> pd.DataFrame:
    """Validate a peak table (``chrom, chromStart, chromEnd[, sample_id]``).

    Returns a copy with int64 coordinates and string ids; raises ``ValueError`` when
    chromStart >= chromEnd or two peaks of one sample and chromosome overlap.

    Examples
    --------
    >>> import pandas as pd
    >>> p = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [1, 5],
    ...                   "chromEnd": [10, 20]})
    >>> check_peaks(p)
    Traceback (most recent call last):
    ...
    ValueError: overlapping peaks: peaks row 0 (chr1, 1, 10) and peaks row 1 (5, 20); \
peaks of one chromosome must not overlap (touching is fine)
    """
    return _check_regions(peaks, PEAK_COLUMNS, name, "peaks")


def region_keys(df: pd.DataFrame, per_sample: bool) -> pd.Series:
    """One key per row: the chromosome, or ``sample_id<TAB>chrom`` when ``per_sample``.

    Examples
    --------
    >>> df = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"]})
    >>> region_keys(df, True).tolist()
    ['a\\tchr1']
    """
    if per_sample:
        return df["sample_id"].astype(str) + "\t" + df["chrom"].astype(str)
    return df["chrom"].astype(str)
