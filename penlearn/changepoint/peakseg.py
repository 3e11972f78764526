"""The PeakSeg peak model: exact up-down constrained Poisson segmentation of coverage.

A sample's coverage (bedGraph rows ``chrom, chromStart, chromEnd, count``; each row is
one datum ``y_i = count`` with weight ``w_i = chromEnd − chromStart``) is segmented into
background / peak / background / … / background segments with the Poisson loss
``Σ w_i (m_i − y_i log m_i)`` (``0·log 0 = 0``, no ``log y!`` term), each change into a
peak up and each change out of it down (non-strict), minimising
``loss + penalty·peaks`` exactly by functional pruning (Hocking et al. 2020,
"Constrained dynamic programming and supervised penalty learning algorithms for peak
detection in genomic data", JMLR; Hocking et al. 2022, "Generalized functional pruning
optimal partitioning (GFPOP) for constrained changepoint detection in genomic data",
JSS).

* :func:`peakseg` — the model at one penalty;
* :func:`peakseg_path` — every model on the lower convex hull of (peaks, loss), found
  with O(models) penalised solves (the CROPS search of Haynes, Eckley & Fearnhead 2017,
  "Computationally efficient changepoint detection for a range of penalties", JCGS),
  with its penalty interval from :func:`~penlearn.changepoint.model_selection.model_selection`;
* :func:`peakseg_search` — the model with a given number of peaks by the same search.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.changepoint.model_selection import model_selection

COVERAGE_COLUMNS = ("chrom", "chromStart", "chromEnd", "count")
SEGMENT_COLUMNS = ("chrom", "chromStart", "chromEnd", "status", "mean")
LOSS_COLUMNS = (
    "penalty", "segments", "peaks", "bases", "bedgraph_lines", "total_loss",
    "mean_pen_cost", "equality_constraints",
)


@dataclass(frozen=True)
class PeakSegModel:
    """One PeakSeg model of one sample's coverage.

    Attributes
    ----------
    segments : DataFrame
        ``chrom, chromStart, chromEnd, status, mean, first_row, last_row``: one row per
        segment in genomic order; ``status`` is ``"background"`` or ``"peak"``, ``mean``
        the optimal segment mean (the pooled weighted mean of each run of equal-mean
        segments), ``first_row`` / ``last_row`` the 0-based coverage rows it covers.
    loss : DataFrame
        One row: ``penalty, segments, peaks, bases, bedgraph_lines, total_loss,
        mean_pen_cost, equality_constraints`` (``mean_pen_cost = (total_loss +
        penalty·peaks) / bases``).
    """

    segments: pd.DataFrame
    loss: pd.DataFrame

    @property
    def peaks(self) -> pd.DataFrame:
        """The peak segments as a BED table ``chrom, chromStart, chromEnd``."""
        pk = self.segments[self.segments["status"] == "peak"]
        return pk[["chrom", "chromStart", "chromEnd"]].reset_index(drop=True)

    @property
    def n_peaks(self) -> int:
        """Number of peaks."""
        return int(self.loss["peaks"].iloc[0])

    @property
    def total_loss(self) -> float:
        """The Poisson loss of the model."""
        return float(self.loss["total_loss"].iloc[0])


def _integer_column(df: pd.DataFrame, col: str, what: str) -> np.ndarray:
    raw = df[col].to_numpy()
    try:
        vals = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} column {col!r} must be numeric") from exc
    bad = ~np.isfinite(vals) | (vals != np.round(vals))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} column {col!r} must hold integers; row {i} has {raw[i]!r}")
    return vals


def check_coverage(coverage: pd.DataFrame, name: str = "coverage") -> pd.DataFrame:
    """Validate one sample's coverage and return ``chrom, chromStart, chromEnd, count``.

    Rows must be sorted and contiguous (each ``chromEnd`` equals the next
    ``chromStart``), on one chromosome, with ``chromEnd > chromStart`` and non-negative
    integer counts. A ``sample_id`` column is accepted when it holds a single value.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 5], "chromEnd": [5, 9],
    ...                     "count": [2, 0]})
    >>> check_coverage(cov)["count"].tolist()
    [2, 0]
    """
    require_columns(coverage, COVERAGE_COLUMNS, name)
    if len(coverage) == 0:
        raise ValueError(f"{name} has no rows")
    if "sample_id" in coverage.columns and coverage["sample_id"].nunique(dropna=False) > 1:
        ids = list(pd.unique(coverage["sample_id"]))[:3]
        raise ValueError(
            f"{name} must hold one sample; column 'sample_id' has several values "
            f"({ids} ...): call once per sample"
        )
    chroms = coverage["chrom"].to_numpy()
    if len(pd.unique(chroms)) > 1:
        i = int(np.flatnonzero(chroms != chroms[0])[0])
        raise ValueError(
            f"{name} must be on one chromosome; row {i} has chrom {chroms[i]!r}, "
            f"row 0 has {chroms[0]!r}"
        )
    start = _integer_column(coverage, "chromStart", name)
    end = _integer_column(coverage, "chromEnd", name)
    count = _integer_column(coverage, "count", name)
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
    gap = end[:-1] != start[1:]
    if gap.any():
        i = int(np.flatnonzero(gap)[0])
        raise ValueError(
            f"{name} rows must be sorted and contiguous (chromEnd == next chromStart); "
            f"row {i} ends at {end[i]:g} but row {i + 1} starts at {start[i + 1]:g}"
        )
    if (count < 0).any():
        i = int(np.flatnonzero(count < 0)[0])
        raise ValueError(f"{name} column 'count' must be >= 0; row {i} has {count[i]:g}")
    return pd.DataFrame(
        {
            "chrom": chroms,
            "chromStart": start.astype(np.int64),
            "chromEnd": end.astype(np.int64),
            "count": count.astype(np.int64),
        }
    )


def _check_penalty(penalty) -> float:
    if isinstance(penalty, (bool, np.bool_)) or not isinstance(
        penalty, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"penalty must be a number >= 0, got {type(penalty).__name__}")
    pen = float(penalty)
    if math.isnan(pen) or pen < 0:
        raise ValueError(f"penalty must be >= 0 (inf for no peaks), got {pen!r}")
    return pen


@dataclass(frozen=True)
class _Data:
    """Validated arrays of one sample (counts, weights, positions)."""

    chrom: object
    start: np.ndarray
    end: np.ndarray
    y: np.ndarray
    w: np.ndarray
    cum_w: np.ndarray = field(repr=False)
    cum_s: np.ndarray = field(repr=False)

    @classmethod
    def from_coverage(cls, coverage: pd.DataFrame) -> _Data:
        cov = check_coverage(coverage)
        start = cov["chromStart"].to_numpy()
        end = cov["chromEnd"].to_numpy()
        y = cov["count"].to_numpy().astype(float)
        w = (end - start).astype(float)
        return cls(
            chrom=cov["chrom"].iloc[0], start=start, end=end, y=y, w=w,
            cum_w=np.r_[0.0, np.cumsum(w)], cum_s=np.r_[0.0, np.cumsum(w * y)],
        )


def _run_loss(W: float, S: float) -> tuple[float, float]:
    """Mean and Poisson loss of a run with total weight W and weighted count sum S."""
    if S == 0.0:
        return 0.0, 0.0
    m = S / W
    return m, W * m - S * math.log(m)


def _model(data: _Data, penalty: float, first, last, peak, eq_prev) -> PeakSegModel:
    """Build the result from segment boundaries and equality flags (means pooled)."""
    first = np.asarray(first, np.int64)
    last = np.asarray(last, np.int64)
    k = len(first)
    W = data.cum_w[last + 1] - data.cum_w[first]
    S = data.cum_s[last + 1] - data.cum_s[first]
    means = np.empty(k)
    losses = []
    j = 0
    while j < k:
        r = j + 1
        while r < k and eq_prev[r]:
            r += 1
        m, loss = _run_loss(float(W[j:r].sum()), float(S[j:r].sum()))
        means[j:r] = m
        losses.append(loss)
        j = r
    total = math.fsum(losses)
    n_peaks = int(np.sum(peak))
    segments = pd.DataFrame(
        {
            "chrom": data.chrom,
            "chromStart": data.start[first],
            "chromEnd": data.end[last],
            "status": np.where(peak, "peak", "background"),
            "mean": means,
            "first_row": first,
            "last_row": last,
        }
    )
    bases = int(data.end[-1] - data.start[0])
    pen_cost = total + (penalty * n_peaks if n_peaks else 0.0)
    loss = pd.DataFrame(
        {
            "penalty": [penalty],
            "segments": [k],
            "peaks": [n_peaks],
            "bases": [bases],
            "bedgraph_lines": [len(data.y)],
            "total_loss": [total],
            "mean_pen_cost": [pen_cost / bases],
            "equality_constraints": [int(np.sum(eq_prev))],
        }
    )
    return PeakSegModel(segments=segments, loss=loss)


def _solve(data: _Data, penalty: float) -> PeakSegModel:
    n = len(data.y)
    if math.isinf(penalty) or n < 3 or data.y.min() == data.y.max():
        # one segment: infinite penalty, too few data for a peak, or constant data
        # (a peak could not lower the loss, so the model with fewest peaks is kept)
        return _model(data, penalty, [0], [n - 1], [False], [False])
    # the numba kernel is compiled (or loaded from cache) on first use only
    from penlearn.changepoint._peakseg_kernel import peakseg_solve

    out = peakseg_solve(data.y, data.w, penalty)
    _, first, last, peak, _, eq_prev = out[:6]
    return _model(data, penalty, first, last, peak, eq_prev)


def peakseg(coverage: pd.DataFrame, penalty: float) -> PeakSegModel:
    """The optimal PeakSeg model of one sample's coverage at one penalty.

    Minimises ``Σ w_i (m_i − y_i log m_i) + penalty·peaks`` over segmentations into
    background / peak / … / background segments with non-decreasing changes into and
    non-increasing changes out of each peak (Hocking et al. 2020, JMLR), exactly, by
    functional pruning (O(N log N) in practice).

    Parameters
    ----------
    coverage : DataFrame
        ``chrom, chromStart, chromEnd, count`` of one sample (optionally a single-valued
        ``sample_id``): rows sorted and contiguous, counts non-negative integers.
    penalty : float
        λ >= 0 per peak. ``inf`` gives the one-segment model without any dynamic
        programming; 0 gives the model with the most peaks that the loss can use.

    Returns
    -------
    PeakSegModel
        ``.segments``, ``.loss`` (one row) and ``.peaks`` (BED).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 1, 2, 3, 4],
    ...                     "chromEnd": [1, 2, 3, 4, 5], "count": [1, 3, 0, 4, 2]})
    >>> fit = peakseg(cov, 0.0)
    >>> fit.segments["status"].tolist()
    ['background', 'peak', 'background', 'peak', 'background']
    >>> peakseg(cov, float("inf")).loss["peaks"].item()
    0
    """
    return _solve(_Data.from_coverage(coverage), _check_penalty(penalty))
