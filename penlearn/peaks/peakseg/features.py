"""The 36 features of the UCI ChIP-seq sets, computed from aligned-read coverage.

One row per (sample, window) of coverage, the inputs of a learned penalty for the peak
model (Hocking et al. 2017, "Optimizing ChIP-seq peak detectors using visual labels and
supervised machine learning", *Bioinformatics* 33(4):491-499; the benchmark sets of
Hocking et al. 2020, *JMLR* 21(87)). With ``long`` the coverage expanded to one count
per base (a row repeated ``chromEnd - chromStart`` times), the nine statistics are

* ``quartile.0%`` … ``quartile.100%``: quantiles of ``long`` at 0, 0.25, 0.5, 0.75, 1,
  by linear interpolation between order statistics (R's default, "type 7"; Hyndman &
  Fan 1996);
* ``mean`` and ``sd`` (n − 1 denominator) of ``long``;
* ``bases`` = its length, ``data`` = the number of coverage rows;

each then also as ``log+1.`` = log(x + 1), ``log.`` = log x and ``log.log.`` =
log(log x): log 0 = −inf and NaN where undefined (log of a negative number), as in the
UCI ``inputs.csv`` files. Nothing is expanded: the statistics come from the distinct
counts and their total weights, and mean and variance are exact rational numbers of
integer sums rounded once.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, floor, sqrt

import numpy as np
import pandas as pd

from penlearn._checks import not_one_word, require_columns, text_ids
from penlearn.peaks.formats.coverage import _check_rows, check_coverage_rows
from penlearn.peaks.peakseg.contigs import (
    check_gaps,
    fill_gaps,
    filled_window,
    one_problem,
    window_rows,
)

_STATS = ("quartile.0%", "quartile.25%", "quartile.50%", "quartile.75%", "quartile.100%",
          "mean", "sd", "bases", "data")
#: The 36 feature columns, in the order of the UCI ``inputs.csv`` files.
FEATURE_COLUMNS = tuple(f"{pre}{s}" for pre in ("", "log+1.", "log.", "log.log.")
                        for s in _STATS)
_PROBS = (0.0, 0.25, 0.5, 0.75, 1.0)
_BOUNDS = ("chromStart", "chromEnd", "count")  # (a window's filled rows' columns)


def window_id(sample_id, chrom: str, chrom_start: int, chrom_end: int) -> str:
    """The id of a (sample, window): ``"<sample_id>/<chrom>:<start>-<end>"``.

    Without a sample (``sample_id=None``) it is ``"<chrom>:<start>-<end>"``, the
    ``problems/<chr:start-end>`` part of the UCI sequence ids.

    Examples
    --------
    >>> window_id("McGill0023", "chr21", 43005559, 44632664)
    'McGill0023/chr21:43005559-44632664'
    >>> window_id(None, "chr11", 60000, 580000)
    'chr11:60000-580000'
    """
    region = f"{chrom}:{int(chrom_start)}-{int(chrom_end)}"
    return region if sample_id is None else f"{sample_id}/{region}"


def weighted_features(counts, weights) -> np.ndarray:
    """The 36 features of one window from its counts and their weights (bases).

    Parameters
    ----------
    counts : array_like of int
        Non-negative integer counts, one per coverage row.
    weights : array_like of int
        Positive integer weights (``chromEnd - chromStart``), same length.

    Returns
    -------
    ndarray
        36 floats in the order of :data:`FEATURE_COLUMNS`.

    Examples
    --------
    >>> f = weighted_features([0, 2], [3, 1])  # the bases 0, 0, 0, 2
    >>> f[:9].tolist()
    [0.0, 0.0, 0.0, 0.5, 2.0, 0.5, 1.0, 4.0, 2.0]
    """
    c = np.asarray(counts, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    if len(c) == 0 or w.sum() <= 0:
        raise ValueError("a window needs at least one coverage row with a positive weight")
    if len(c) and 0 <= c.min() and c.max() <= 4 * len(c) + 2**16:
        # bases of each count by a table of the counts: no sort of the rows; integer
        # sums, no float copy of the weights (issue 55; bincount's float sums < 2**53
        # were exact, the same values)
        totals = np.zeros(int(c.max()) + 1, np.int64)
        np.add.at(totals, c, w)
        values = np.flatnonzero(totals)
        totals = totals[values]
    else:
        values, inverse = np.unique(c, return_inverse=True)
        totals = np.bincount(inverse, weights=w).astype(np.int64)  # exact: sums < 2**53
    cum = np.cumsum(totals)
    n = int(cum[-1])

    def order_statistic(k: int) -> float:  # the k-th (1-based) smallest value of long
        return float(values[np.searchsorted(cum, k, side="left")])

    quartiles = []
    for p in _PROBS:
        index = 1 + (n - 1) * p
        lo, hi = floor(index), ceil(index)
        q = order_statistic(lo)
        x_hi = order_statistic(hi)
        if index > lo and x_hi != q:
            h = index - lo
            q = (1 - h) * q + h * x_hi
        quartiles.append(q)
    s1 = sum(int(v) * int(t) for v, t in zip(values, totals))
    s2 = sum(int(v) * int(v) * int(t) for v, t in zip(values, totals))
    mean = float(Fraction(s1, n))
    sd = sqrt(float(Fraction(n * s2 - s1 * s1, n * (n - 1)))) if n > 1 else np.nan
    base = np.array([*quartiles, mean, sd, float(n), float(len(c))])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.concatenate([base, np.log(base + 1), np.log(base), np.log(np.log(base))])


def _integers(df: pd.DataFrame, col: str) -> np.ndarray:
    if df[col].dtype.kind in "iu":  # integers already: no float copy (whole chromosomes)
        return df[col].to_numpy().astype(np.int64, copy=False)
    values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values != np.round(values))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"coverage column {col!r} must hold integers; row {i} has "
                         f"{df[col].iloc[i]!r}")
    return values.astype(np.int64)


def _check_coverage(coverage: pd.DataFrame) -> pd.DataFrame:
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    ints = {c: _integers(coverage, c) for c in ("chromStart", "chromEnd", "count")}
    if len(coverage) and one_problem(coverage):
        # one chromosome (of one sample): its names as one category (1 byte a row, not an
        # object per row), its integer columns as they are: no copies of a whole
        # chromosome's rows (``penlearn callpeak`` streams them one at a time)
        def one(col, default=""):
            value = str(coverage[col].iloc[0]) if col in coverage.columns else default
            return pd.Categorical.from_codes(np.zeros(len(coverage), np.int8), [value])
        cov = pd.DataFrame({"sample_id": one("sample_id"), "chrom": one("chrom"), **ints},
                           copy=False)
        _check_rows(np.zeros(len(cov), np.int8), np.array([cov["chrom"].iloc[0]], object),
                    *ints.values(), lambda i: f"coverage row {i}", False)
        return cov
    cov = pd.DataFrame({
        "sample_id": (coverage["sample_id"].astype(str).to_numpy()
                      if "sample_id" in coverage.columns else ""),
        "chrom": coverage["chrom"].astype(str).to_numpy(), **ints,
    }, copy=False)  # (each column its own block: no consolidated copy)
    for idx in cov.groupby("sample_id", sort=False).indices.values():
        idx = np.asarray(idx)
        check_coverage_rows(cov["chrom"].to_numpy()[idx], cov["chromStart"].to_numpy()[idx],
                            cov["chromEnd"].to_numpy()[idx], cov["count"].to_numpy()[idx],
                            lambda i, idx=idx: f"coverage row {int(idx[i])}")
    return cov


def sample_windows(cov: pd.DataFrame, windows=None) -> pd.DataFrame:
    """The (sample, window) table: given windows, or each sample's chromosome extent.

    ``cov`` is a coverage table with a ``sample_id`` column; ``windows`` as for
    :func:`coverage_features`. A chromosome name that BED / bedGraph cannot carry (empty,
    or with a space or tab: :func:`penlearn._checks.not_one_word`) is refused here, one
    row per window, before any model is computed — not by the writer after the work.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": "s1", "chrom": "chr1", "chromStart": [0, 3],
    ...                     "chromEnd": [3, 4], "count": [0, 2]})
    >>> sample_windows(cov).values.tolist()
    [['s1', 'chr1', 0, 4]]
    """
    return _one_word_chroms(_sample_windows(cov, windows))


def _sample_windows(cov: pd.DataFrame, windows=None) -> pd.DataFrame:
    if windows is None and len(cov) and one_problem(cov):  # one chromosome: no grouping
        return pd.DataFrame({"sample_id": cov["sample_id"].iloc[:1].to_numpy(),
                             "chrom": cov["chrom"].iloc[:1].to_numpy(),
                             "chromStart": [cov["chromStart"].min()],
                             "chromEnd": [cov["chromEnd"].max()]})
    if windows is None:
        g = cov.groupby(["sample_id", "chrom"], sort=False)
        out = g.agg(chromStart=("chromStart", "min"), chromEnd=("chromEnd", "max"))
        return out.reset_index()
    require_columns(windows, ["chrom", "chromStart", "chromEnd"], "windows")
    win = pd.DataFrame({"chrom": windows["chrom"].astype(str).to_numpy(),
                        "chromStart": _integers(windows, "chromStart"),
                        "chromEnd": _integers(windows, "chromEnd")})
    if "sequence_id" in windows.columns:
        win["sequence_id"] = windows["sequence_id"].astype(str).to_numpy()
    bad = win["chromStart"].to_numpy() >= win["chromEnd"].to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"windows row {i}: chromStart must be < chromEnd")
    if "sample_id" in windows.columns:
        win.insert(0, "sample_id", windows["sample_id"].astype(str).to_numpy())
        return win
    # one sample (callpeak's chromosome): its id, not a hash of every row's (pandas makes
    # the 1-byte codes int64 for it: issue 55, ~20 MB at chr1)
    ids = cov["sample_id"]
    samples = ids.iloc[:1].to_numpy() if len(cov) and one_problem(cov) else pd.unique(ids)
    return pd.concat([win.assign(sample_id=s) for s in samples], ignore_index=True)


def _one_word_chroms(win: pd.DataFrame) -> pd.DataFrame:
    bad = not_one_word(win["chrom"])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"chromosome name {win['chrom'].iloc[i]!r}: must be one word, "
                         "without spaces or tabs (BED and bedGraph fields are separated by "
                         "them); rename it in the coverage")
    return win


def coverage_features(coverage: pd.DataFrame, windows: pd.DataFrame | None = None, *,
                      gaps: str = "fill") -> pd.DataFrame:
    """The 36 UCI ChIP-seq features of every (sample, window) of coverage.

    Parameters
    ----------
    coverage : DataFrame
        ``chrom, chromStart, chromEnd, count`` and optionally ``sample_id`` (the long
        table of :func:`~penlearn.peaks.formats.coverage.read_coverage`): many samples and
        chromosomes; per sample, rows grouped by chromosome and sorted without overlaps,
        integer counts >= 0.
    windows : DataFrame, optional
        ``chrom, chromStart, chromEnd`` (0-based half-open) and optionally ``sample_id``
        (the window then applies to that sample only, else to every sample) and
        ``sequence_id`` (its id in the output). Coverage rows are clipped to the window;
        rows outside it are not counted. By default each sample's chromosome is one
        window, from its first chromStart to its last chromEnd.
    gaps : {"fill", "error"}
        Zero-coverage gaps between two rows of a sample's chromosome count as zero-count
        bases (default: the features of a gapped file are those of the filled file), or
        are refused (:func:`~penlearn.peaks.peakseg.contigs.fill_gaps`).

    Returns
    -------
    DataFrame
        Indexed by ``sequence_id`` (from ``windows``, else :func:`window_id`), with the 36
        columns :data:`FEATURE_COLUMNS`, one row per (sample, window) in input order.

    Raises
    ------
    ValueError
        On invalid coverage, or a window that holds no coverage of its sample.

    Examples
    --------
    >>> import pandas as pd
    >>> cov = pd.DataFrame({"sample_id": "s1", "chrom": "chr1", "chromStart": [0, 3],
    ...                     "chromEnd": [3, 4], "count": [0, 2]})
    >>> f = coverage_features(cov)
    >>> f.index.tolist(), float(f.loc["s1/chr1:0-4", "quartile.75%"]), f.shape
    (['s1/chr1:0-4'], 0.5, (1, 36))
    """
    check_gaps(gaps)
    coverage = text_ids(coverage, "coverage")
    windows = None if windows is None else text_ids(windows, "windows")
    cov = _check_coverage(coverage)
    # one chromosome cut in windows (``callpeak``'s): each window's rows filled alone,
    # not a filled copy of the whole chromosome (sorted rows: checked above)
    by_window = gaps == "fill" and windows is not None and len(cov) and one_problem(cov)
    if not by_window:
        cov = fill_gaps(cov, gaps)
    has_samples = "sample_id" in coverage.columns
    win = sample_windows(cov, windows)
    if len(cov) and one_problem(cov):  # one whole chromosome: no copy of it
        groups = {(cov["sample_id"].iloc[0], cov["chrom"].iloc[0]): cov}
    else:
        groups = dict(list(cov.groupby(["sample_id", "chrom"], sort=False)))
    rows, ids = [], []
    for r in win.itertuples(index=False):
        sid = r.sample_id if has_samples else None
        g = groups.get((r.sample_id, r.chrom))
        if by_window and g is not None:
            # the window's rows filled and clipped in one pass (else filled, then cut)
            got = filled_window(g, r.chromStart, r.chromEnd, _BOUNDS)
            g = fill_gaps(window_rows(g, r.chromStart, r.chromEnd), gaps) if got is None \
                else got
        start = np.zeros(0, np.int64) if g is None else g["chromStart"].to_numpy()
        end = np.zeros(0, np.int64) if g is None else g["chromEnd"].to_numpy()
        first = int(np.searchsorted(end, r.chromStart, side="right"))
        last = int(np.searchsorted(start, r.chromEnd, side="left"))
        name = getattr(r, "sequence_id", None) or window_id(sid, r.chrom, r.chromStart,
                                                            r.chromEnd)
        if last <= first:
            raise ValueError(f"window {name!r} holds no coverage rows"
                             + ("" if sid is None else f" of sample {sid!r}"))
        weights = _clipped_widths(start[first:last], end[first:last], r.chromStart,
                                  r.chromEnd)
        rows.append(weighted_features(g["count"].to_numpy()[first:last], weights))
        ids.append(name)
        # (this window's filled rows dropped before the next window's are made: issue 55)
        got = g = start = end = weights = None
    out = pd.DataFrame(np.array(rows).reshape(-1, len(FEATURE_COLUMNS)),
                       columns=list(FEATURE_COLUMNS),
                       index=pd.Index(ids, name="sequence_id"))
    if out.index.has_duplicates:
        raise ValueError(f"windows give duplicate sequence ids, e.g. "
                         f"{out.index[out.index.duplicated()][0]!r}")
    return out


def _clipped_widths(start: np.ndarray, end: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The bases of each of the sorted, non-overlapping rows ``[start, end)`` inside
    ``[lo, hi)``, for rows that meet it: ``np.minimum(end, hi) - np.maximum(start, lo)``
    with one array of the rows, not three (only the first and the last row can reach
    past it; issue 55).

    Examples
    --------
    >>> _clipped_widths(np.array([0, 10, 30]), np.array([10, 20, 40]), 5, 35).tolist()
    [5, 10, 5]
    """
    out = np.subtract(end, start)
    if len(out):
        for k in (0, len(out) - 1):
            out[k] = min(int(end[k]), hi) - max(int(start[k]), lo)
    return out
