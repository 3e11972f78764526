"""Zero-coverage gaps and the problems of a coverage table (sample × chromosome).

``bedtools genomecov -bg`` leaves zero-count runs out of its bedGraph, and so do many
sparse bigWig files: the bases between two rows of a chromosome have no reads. The
PeakSeg model (Hocking et al. 2020, *JMLR*) weights every row by its number of bases,
so it needs every base of the problem. Two ways exist: fill each gap with one zero-count
row (penlearn's default: the model of a gapped file is then that of the filled file), or
split the chromosome into gap-free contigs and solve each alone, as PeakSegPipeline
does (Hocking et al. 2022, *JSS*). penlearn **fills**: a zero run is evidence of
background that the model should see, and a peak can then never straddle a gap it did
not see. ``gaps="error"`` refuses a gap instead, naming it.

Only gaps *between* two rows of one (sample, chromosome) are filled: the problem spans
from its first ``chromStart`` to its last ``chromEnd`` (or the window's part of it).
One problem is one (sample, chromosome): :func:`coverage_problems`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["GAP_POLICIES", "check_gaps", "clipped_rows", "coverage_problems", "fill_gaps",
           "filled_window", "one_problem", "sorted_rows", "window_rows"]

#: The accepted values of every ``gaps=`` argument.
GAP_POLICIES = ("fill", "error")
_BOUNDS = ("chromStart", "chromEnd", "count")


def check_gaps(gaps) -> str:
    """Validate a ``gaps=`` argument: ``"fill"`` or ``"error"``.

    Examples
    --------
    >>> check_gaps("fill")
    'fill'
    """
    if not isinstance(gaps, str) or gaps not in GAP_POLICIES:
        raise ValueError(f"gaps must be 'fill' or 'error', got {gaps!r}")
    return gaps


def one_problem(coverage: pd.DataFrame) -> bool:
    """True when every row has the ``sample_id`` (if any) and ``chrom`` of the first row.

    A cheap test (one comparison per row, no hash table of 10^7 strings, no copy) that
    lets one whole chromosome skip the grouping of the general case; False on a
    missing value, which the general case handles.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": ["chr1", "chr1", "chr2"], "chromStart": [0, 1, 0]})
    >>> one_problem(cov), one_problem(cov.iloc[:2])
    (False, True)
    """
    for col in ("sample_id", "chrom"):
        if col in coverage.columns and len(coverage):
            column = coverage[col]
            if isinstance(column.dtype, pd.CategoricalDtype):
                # the codes (1 byte a row for the streaming path's one category), not an
                # object array of 10^7 strings
                codes = column.cat.codes.to_numpy()
                if codes[0] < 0 or (codes != codes[0]).any():
                    return False
                continue
            values = column.to_numpy()
            if pd.isna(values[0]) or (values != values[0]).any():
                return False
    return True


def _group_codes(coverage: pd.DataFrame) -> np.ndarray:
    keys = [c for c in ("sample_id", "chrom") if c in coverage.columns]
    if not keys:
        return np.zeros(len(coverage), np.int64)
    if len(keys) == 1:
        return pd.factorize(coverage[keys[0]])[0]
    return coverage.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()


def fill_gaps(coverage: pd.DataFrame, gaps: str = "fill", *, name: str = "coverage"
              ) -> pd.DataFrame:
    """Coverage with each zero-coverage gap between two rows filled by a zero-count row.

    Rows are taken per (``sample_id``, ``chrom``) in table order; where a row starts
    after the previous row of its sample and chromosome ends, a row ``[previous
    chromEnd, chromStart)`` with ``count`` 0 is inserted (other columns copied from the
    previous row). Nothing is added before the first or after the last row. Rows that
    overlap or are out of order are left for the coverage checks to report.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count``.
    gaps : {"fill", "error"}
        ``"error"`` raises a ValueError naming the first gap instead of filling it.
    name : str
        What the coverage is called in messages.

    Returns
    -------
    DataFrame
        The rows of ``coverage`` (the same object when it has no gap) with the zero rows
        inserted after the row each gap follows, a fresh RangeIndex.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 25],
    ...                     "chromEnd": [10, 20, 30], "count": [3, 5, 1]})
    >>> fill_gaps(cov).values.tolist()
    [['chr1', 0, 10, 3], ['chr1', 10, 20, 5], ['chr1', 20, 25, 0], ['chr1', 25, 30, 1]]
    >>> try:
    ...     fill_gaps(cov, "error")
    ... except ValueError as err:
    ...     print(str(err)[:64])
    coverage has a zero-coverage gap on chr1: row 1 ends at 20 but r
    """
    check_gaps(gaps)
    n = len(coverage)
    if n < 2 or not {"chromStart", "chromEnd"} <= set(coverage.columns):
        return coverage
    lo, hi = coverage["chromStart"].to_numpy(), coverage["chromEnd"].to_numpy()
    if lo.dtype.kind in "iu" and hi.dtype.kind in "iu" and one_problem(coverage):
        # one whole chromosome (the genome-scale case): no grouping, and a gapped one is
        # filled column by column, each column allocated once at its final length
        after = np.flatnonzero(lo[1:] > hi[:-1])
        if not len(after):
            return coverage
        if gaps == "fill":
            return _fill_one(coverage, after)
    start = pd.to_numeric(coverage["chromStart"], errors="coerce").to_numpy(dtype=float)
    end = pd.to_numeric(coverage["chromEnd"], errors="coerce").to_numpy(dtype=float)
    code = _group_codes(coverage)
    # the rows of each (sample, chrom) in table order: i -> the next row of its group
    order = np.argsort(code, kind="stable")
    nxt = order[1:][code[order[1:]] == code[order[:-1]]]
    prv = order[:-1][code[order[1:]] == code[order[:-1]]]
    gap = start[nxt] > end[prv]  # NaN compares False: bad values are left to the checks
    if not gap.any():
        return coverage
    prv, nxt = prv[gap], nxt[gap]
    if gaps == "error":
        i, j = int(prv[0]), int(nxt[0])
        sid = coverage["sample_id"].iloc[i] if "sample_id" in coverage.columns else ""
        sample = f"sample {sid!r} " if sid != "" else ""
        chrom = coverage["chrom"].iloc[i] if "chrom" in coverage.columns else "?"
        raise ValueError(
            f"{name} has a zero-coverage gap {'in ' + sample if sample else ''}on {chrom}: "
            f"row {i} ends at {end[i]:g} but row {j} starts at {start[j]:g} "
            "(gaps='fill' fills it with a zero-count row)"
        )
    # one take: each original row moves down by the gaps before it; a filled row sits
    # right after the row its gap follows, copying it, with the gap's bounds and count 0
    by_row = np.argsort(prv, kind="stable")
    prv, nxt = prv[by_row], nxt[by_row]
    k = len(prv)
    new_pos = np.arange(n) + np.searchsorted(prv, np.arange(n), side="left")
    fill_pos = prv + np.arange(1, k + 1)
    take = np.empty(n + k, np.int64)
    take[new_pos] = np.arange(n)
    take[fill_pos] = prv
    out = coverage.iloc[take].reset_index(drop=True)
    for col, values in (("chromStart", coverage["chromEnd"].to_numpy()[prv]),
                        ("chromEnd", coverage["chromStart"].to_numpy()[nxt])):
        column = out[col].to_numpy().copy()
        column[fill_pos] = values
        out[col] = column
    count = out["count"].to_numpy().copy()
    count[fill_pos] = 0
    out["count"] = count
    return out


def _fill_one(coverage: pd.DataFrame, after: np.ndarray) -> pd.DataFrame:
    """:func:`fill_gaps` of one problem with integer bounds, gaps after rows ``after``
    (sorted, distinct: ``np.insert``'s rows, in one compiled copy per column)."""
    from penlearn.peaks.formats._pileup_kernel import insert_rows

    at = after + 1
    lo, hi = coverage["chromStart"].to_numpy(), coverage["chromEnd"].to_numpy()
    take = None
    out = {}
    for col in coverage.columns:
        if col == "chromStart":
            out[col] = insert_rows(lo, at, hi[after])
        elif col == "chromEnd":
            out[col] = insert_rows(hi, at, lo[at])
        elif col == "count":
            out[col] = insert_rows(coverage[col].to_numpy(), at, 0)
        else:
            if take is None:  # a filled row copies the last
                take = insert_rows(np.arange(len(coverage)), at, after)
            out[col] = coverage[col].array.take(take)
    return pd.DataFrame(out, copy=False)


def coverage_problems(coverage: pd.DataFrame) -> list[tuple[object, object, pd.DataFrame]]:
    """The problems of a coverage table: one per (sample, chromosome), in table order.

    Returns
    -------
    list of (sample_id, chrom, DataFrame)
        ``sample_id`` is None when the table has no ``sample_id`` column; each frame
        holds that problem's rows in table order.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": ["chr1", "chr2", "chr1"],
    ...                     "chromStart": [0, 0, 0], "chromEnd": [5, 5, 5], "count": 1})
    >>> [(s, c, len(g)) for s, c, g in coverage_problems(cov)]
    [('a', 'chr1', 1), ('a', 'chr2', 1), ('b', 'chr1', 1)]
    """
    if len(coverage) and one_problem(coverage):  # (no copy of a whole chromosome)
        sid = coverage["sample_id"].iloc[0] if "sample_id" in coverage.columns else None
        return [(sid, coverage["chrom"].iloc[0], coverage)]
    if "sample_id" in coverage.columns:
        groups = coverage.groupby(["sample_id", "chrom"], sort=False, dropna=False)
        return [(s, c, g) for (s, c), g in groups]
    return [(None, c, g) for c, g in coverage.groupby("chrom", sort=False, dropna=False)]


def sorted_rows(g: pd.DataFrame) -> bool:
    """Whether the rows of one (sample, chromosome) have integer bounds, sorted, without
    overlaps or empty rows (:func:`window_rows` may cut them)."""
    lo, hi = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
    return bool(lo.dtype.kind in "iu" and hi.dtype.kind in "iu" and len(lo)
                and (lo[1:] >= hi[:-1]).all() and (hi > lo).all())


def window_rows(g: pd.DataFrame, start: int, end: int) -> pd.DataFrame:
    """The rows of one (sample, chromosome) ``g`` (:func:`sorted_rows`) that the window
    ``[start, end)`` needs, and one more each side: filled (``fill_gaps``), they hold
    every row the whole filled chromosome has there (the gap before the first row taken
    and after the last are outside the window), so a window's rows are made without a
    filled copy of the whole chromosome (a chromosome of 2.6 million rows: ~80 MB less,
    issue 55; :func:`~penlearn.peaks.peakseg.evaluation.predict_peaks`' windows and
    :func:`~penlearn.peaks.peakseg.features.coverage_features`').

    Examples
    --------
    >>> g = pd.DataFrame({"chrom": "c", "chromStart": [0, 10, 30, 50],
    ...                   "chromEnd": [5, 20, 40, 60], "count": [1, 2, 3, 4]})
    >>> window_rows(g, 12, 35)["chromStart"].tolist()
    [0, 10, 30, 50]
    >>> window_rows(g, 31, 35)["chromStart"].tolist()
    [10, 30, 50]
    """
    lo, hi = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
    a = max(0, int(np.searchsorted(hi, start, side="right")) - 1)
    b = min(len(lo), int(np.searchsorted(lo, end)) + 1)
    return g if (a, b) == (0, len(lo)) else g.iloc[a:b]


def clipped_rows(g: pd.DataFrame, start: int, end: int, sliced: bool = True
                 ) -> pd.DataFrame:
    """The rows of ``g`` in the window ``[start, end)``, clipped to it: ``g`` itself when
    the window holds it all; ``sliced``: a slice of ``g`` (rows sorted and not
    overlapping; else a mask), the other columns not copied.

    Examples
    --------
    >>> g = pd.DataFrame({"chromStart": [0, 10, 20], "chromEnd": [10, 20, 30]})
    >>> clipped_rows(g, 5, 25).values.tolist()
    [[5, 10], [10, 20], [20, 25]]
    """
    lo, hi = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
    if start <= lo.min() and hi.max() <= end:
        return g
    if sliced:
        gw = g.iloc[int(np.searchsorted(hi, start, side="right")):
                    int(np.searchsorted(lo, end))]
    else:
        gw = g[(hi > start) & (lo < end)]
    return gw.assign(chromStart=np.maximum(gw["chromStart"].to_numpy(), start),
                     chromEnd=np.minimum(gw["chromEnd"].to_numpy(), end))


def filled_window(g: pd.DataFrame, start: int, end: int, columns) -> pd.DataFrame | None:
    """``clipped_rows(fill_gaps(window_rows(g, start, end)), start, end)[columns]``, its
    index too, in one compiled pass over the window's rows (no filled copy, nor clipped
    copy, of each column: issue 55), for ``g`` one problem (:func:`one_problem`, as the
    caller has checked: a categorical ``chrom`` or ``sample_id`` is its first row's
    value throughout; :func:`sorted_rows`) with int64 bounds and numeric counts; None
    for any other ``g`` (the caller takes the general way).

    Examples
    --------
    >>> g = pd.DataFrame({"chrom": "c", "chromStart": [0, 10, 30, 50],
    ...                   "chromEnd": [5, 20, 40, 60], "count": [1, 2, 3, 4]})
    >>> filled_window(g, 12, 35, ["chrom", "chromStart", "chromEnd", "count"]).values.tolist()
    [['c', 12, 20, 2], ['c', 20, 30, 0], ['c', 30, 35, 3]]
    """
    from penlearn.peaks.peakseg._contig_kernel import filled_window_rows

    lo, hi = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
    count = g["count"]
    if (lo.dtype != np.int64 or hi.dtype != np.int64 or not isinstance(count.dtype, np.dtype)
            or count.dtype.kind not in "iuf" or not len(lo)):
        return None
    if start <= lo[0] and hi[-1] <= end and not (lo[1:] > hi[:-1]).any():
        columns = list(columns)
        return g if list(g.columns) == columns else g[columns]  # (g's own arrays)
    a = max(0, int(np.searchsorted(hi, start, side="right")) - 1)  # (window_rows' rows)
    b = min(len(lo), int(np.searchsorted(lo, end)) + 1)
    # a categorical id (the problem's one value): its code repeated, no source rows
    same = {c: g[c].array for c in columns if c in ("chrom", "sample_id")
            and isinstance(g[c].dtype, pd.CategoricalDtype)}
    taken = [c for c in columns if c not in same and c not in _BOUNDS]
    s, e, n, src, first, gaps = filled_window_rows(lo, hi, count.to_numpy(), a, b, int(start),
                                                   int(end), sources=bool(taken))
    # fill_gaps' rows are a fresh RangeIndex where it filled a gap, else g's own
    index = (pd.RangeIndex(first, first + len(s)) if gaps else
             g.index[a + first: a + first + len(s)])
    made = {"chromStart": s, "chromEnd": e, "count": n}
    made.update({c: pd.Categorical.from_codes(np.full(len(s), v.codes[0], v.codes.dtype),
                                              dtype=v.dtype) for c, v in same.items()})
    return pd.DataFrame({c: made[c] if c in made else g[c].array.take(src)
                         for c in columns}, index=index, copy=False)
