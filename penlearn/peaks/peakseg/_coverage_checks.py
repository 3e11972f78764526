"""Checks of a coverage table before the PeakSeg solver reads it (:func:`check_coverage`;
split out of :mod:`penlearn.peaks.peakseg.solver`, which re-exports it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.peakseg.contigs import check_gaps, fill_gaps

__all__ = ["COVERAGE_COLUMNS", "check_coverage"]

COVERAGE_COLUMNS = ("chrom", "chromStart", "chromEnd", "count")


def _integer_column(df: pd.DataFrame, col: str, what: str) -> np.ndarray:
    raw = df[col].to_numpy()
    if raw.dtype.kind in "iu":
        return raw  # integers already: no float copy (bounded memory on whole chromosomes)
    try:
        vals = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} column {col!r} must be numeric") from exc
    bad = ~np.isfinite(vals) | (vals != np.round(vals))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} column {col!r} must hold integers; row {i} has {raw[i]!r}")
    return vals


def check_coverage(coverage: pd.DataFrame, name: str = "coverage", gaps: str = "fill"
                   ) -> pd.DataFrame:
    """Validate one problem's coverage and return ``chrom, chromStart, chromEnd, count``.

    One problem is one sample's chromosome. Rows must be sorted without overlaps, on one
    chromosome, with ``chromEnd > chromStart`` and non-negative integer counts; each
    zero-coverage gap between two rows is filled with a zero-count row (``gaps="fill"``,
    see :func:`~penlearn.peaks.peakseg.contigs.fill_gaps`) or refused (``gaps="error"``), so the
    rows returned are contiguous (each ``chromEnd`` equals the next ``chromStart``). A
    ``sample_id`` column is accepted when it holds a single value.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 5], "chromEnd": [5, 9],
    ...                     "count": [2, 0]})
    >>> check_coverage(cov)["count"].tolist()
    [2, 0]
    >>> check_coverage(cov.assign(chromStart=[0, 7]))["chromStart"].tolist()  # gap filled
    [0, 5, 7]
    """
    require_columns(coverage, COVERAGE_COLUMNS, name)
    if len(coverage) == 0:
        raise ValueError(f"{name} has no rows")
    check_gaps(gaps)
    if "sample_id" in coverage.columns and coverage["sample_id"].nunique(dropna=False) > 1:
        ids = list(pd.unique(coverage["sample_id"]))[:3]
        raise ValueError(
            f"{name} must hold one sample; column 'sample_id' has several values "
            f"({ids} ...): call once per sample"
        )
    chroms = coverage["chrom"]
    if isinstance(chroms.dtype, pd.CategoricalDtype):  # its codes (1 byte a row), not
        values = chroms.array                          # an object array of its strings
        codes = values.codes
        other = codes != codes[0]  # (a missing value's code is -1: the same test)
    else:
        values = chroms.to_numpy()  # (a view: no copy, and no hash table of 10^7 strings)
        other = ~pd.isna(values) if pd.isna(values[0]) else values != values[0]
    if other.any():
        i = int(np.flatnonzero(other)[0])
        raise ValueError(
            f"{name} must be on one chromosome; row {i} has chrom {values[i]!r}, "
            f"row 0 has {values[0]!r}"
        )
    del other
    # views of the caller's columns when they are int64 already: no copy of the table
    # (2·10^7 rows: 0.46 GB less; benchmarks/RESULTS.md, section genome_scale)
    start = _integer_column(coverage, "chromStart", name)
    end = _integer_column(coverage, "chromEnd", name)
    count = _integer_column(coverage, "count", name)
    if start.dtype == end.dtype == count.dtype == np.int64:
        from penlearn.peaks.peakseg._contig_kernel import row_faults

        faults, gapped = row_faults(start, end, count)  # (the checks below in one pass)
        if not faults:
            return _checked(chroms.array, start, end, count, gapped, gaps, name)
    if (start < 0).any():
        i = int(np.flatnonzero(start < 0)[0])
        raise ValueError(f"{name} column 'chromStart' must be >= 0; row {i} has {start[i]:g}")
    bad = end <= start
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} row {i} has chromEnd {end[i]:g} <= chromStart {start[i]:g}; "
            "each row must cover at least one base"
        )
    del bad
    bad = start[1:] < end[:-1]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} rows must be sorted without overlaps (chromStart >= previous "
            f"chromEnd); row {i} ends at {end[i]:g} but row {i + 1} starts at "
            f"{start[i + 1]:g}"
        )
    del bad
    return _checked(chroms.array, start, end, count, bool((start[1:] > end[:-1]).any()),
                    gaps, name)


def _checked(chrom_values, start, end, count, gapped: bool, gaps: str, name: str
             ) -> pd.DataFrame:
    """:func:`check_coverage`'s table of rows checked but for their counts (``gapped``:
    whether a row starts after the previous one ends)."""
    if gapped:  # zero-coverage gaps: fill (or refuse) them
        filled = fill_gaps(
            pd.DataFrame({"chrom": chrom_values, "chromStart": start, "chromEnd": end,
                          "count": count}, copy=False), gaps, name=name)
        chrom_values = filled["chrom"].array
        start, end, count = (filled[c].to_numpy() for c in ("chromStart", "chromEnd", "count"))
    if (count < 0).any():
        i = int(np.flatnonzero(count < 0)[0])
        raise ValueError(f"{name} column 'count' must be >= 0; row {i} has {count[i]:g}")
    return pd.DataFrame(
        {
            "chrom": chrom_values,
            "chromStart": start.astype(np.int64, copy=False),
            "chromEnd": end.astype(np.int64, copy=False),
            "count": count.astype(np.int64, copy=False),
        },
        copy=False,  # (each column its own block: no consolidated copy)
    )
