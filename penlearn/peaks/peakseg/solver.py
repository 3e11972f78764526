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
  "Computationally efficient changepoint detection for a range of penalties", JCGS;
  :func:`penlearn.changepoint.crops.crops`), each with its penalty interval from
  :func:`~penlearn.changepoint.model_selection.model_selection`;
* :func:`~penlearn.peaks.peakseg.search.peakseg_search` (in its own module) — the model
  with a given number of peaks by the same search.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, text_ids
from penlearn._repr import compact_repr
from penlearn.changepoint.crops import crops, crossing
from penlearn.changepoint.model_selection import model_selection
from penlearn.peaks.peakseg._background import BACKGROUND, background_column
from penlearn.peaks.peakseg._coverage_checks import COVERAGE_COLUMNS, check_coverage
from penlearn.peaks.peakseg._store import check_tmpdir
from penlearn.peaks.peakseg.contigs import check_gaps, coverage_problems

SEGMENT_COLUMNS = ("chrom", "chromStart", "chromEnd", "status", "mean")
# Costs within this relative distance count as a tie, which goes to the model whose last
# change is the latest (see the kernel); equal-cost models differ by rounding only.
_TIE_TOL = 1e-13
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
    mean_intervals, max_intervals : float, int
        Diagnostics of the functional pruning: mean and maximum number of pieces of the
        two cost functions over the data (0 when no dynamic programming was needed).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 20, 30],
    ...                     "chromEnd": [10, 20, 30, 40], "count": [2, 10, 14, 13]})
    >>> fit = peakseg(cov, 10.5)
    >>> fit.peaks.values.tolist()
    [['chr1', 10, 30]]
    >>> fit.loss[["peaks", "equality_constraints"]].values.tolist()
    [[1, 1]]
    """

    segments: pd.DataFrame
    loss: pd.DataFrame
    mean_intervals: float = 0.0
    max_intervals: int = 0

    @property
    def peaks(self) -> pd.DataFrame:
        """The model's peak segments as a BED table ``[sample_id,] chrom, chromStart,
        chromEnd`` (those the penalty pays for; the peaks outputs report are
        :func:`~penlearn.peaks.peakseg.calls.reported_segments`')."""
        pk = self.segments[self.segments["status"] == "peak"]
        cols = ["chrom", "chromStart", "chromEnd"]
        if "sample_id" in pk.columns:
            cols.insert(0, "sample_id")
        return pk[cols].reset_index(drop=True)

    @property
    def n_peaks(self) -> int:
        """Number of peaks (of all problems)."""
        return int(self.loss["peaks"].sum())

    @property
    def total_loss(self) -> float:
        """The Poisson loss of the model (summed over problems)."""
        return math.fsum(self.loss["total_loss"].tolist())


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
    """Validated arrays of one sample (counts, weights, positions): 24 bytes per row."""

    chrom: object
    start: np.ndarray
    y: np.ndarray
    w: np.ndarray
    width: np.ndarray | None = None  # the rows' bases when ``w`` holds weighted ones

    @classmethod
    def from_coverage(cls, coverage: pd.DataFrame, gaps: str = "fill",
                      name: str = "coverage") -> _Data:
        cov = check_coverage(coverage, name=name, gaps=gaps)
        # no temporaries beyond the result; ``start`` is the validated column itself (a
        # view of the caller's int64 column, or the filled one's: each column of the
        # validated frame is its own array, so nothing else of it stays alive)
        y = cov["count"].to_numpy().astype(float)
        start = cov["chromStart"].to_numpy()
        w = np.subtract(cov["chromEnd"].to_numpy(), start, dtype=np.float64)  # exact
        if BACKGROUND not in coverage.columns:
            return cls(chrom=cov["chrom"].iloc[0], start=start, y=y, w=w)
        b = background_column(coverage, len(cov), name)
        # Poisson counts of mean m·b_i: Σ w b m − y log(m b) = Σ (w b)(m − (y / b) log m)
        # + const, the loss of the data y / b at the weights w·b (the fold m per segment)
        return cls(chrom=cov["chrom"].iloc[0], start=start, y=y / b, w=w * b, width=w)

    def end(self, rows) -> np.ndarray:
        """``chromEnd`` of the given rows."""
        w = self.w if self.width is None else self.width
        return self.start[rows] + w[rows].astype(np.int64)


def _loss_of_run(W: float, S: float) -> float:
    """Poisson loss of a run with total weight W and weighted count sum S (a plain float:
    a model of 10^6 runs makes no tuple nor NumPy scalar each)."""
    if S == 0.0:
        return 0.0
    m = S / W
    return W * m - S * math.log(m)


def _model(data: _Data, penalty: float, first, last, peak, eq_prev) -> PeakSegModel:
    """Build the result from segment boundaries and equality flags (means pooled)."""
    first = np.asarray(first, np.int64)
    last = np.asarray(last, np.int64)
    k = len(first)
    # segment sums of integer weights and weight·count products: exact in float64
    W = np.add.reduceat(data.w, first)
    S = np.add.reduceat(data.w * data.y, first)
    # runs of segments tied by an active equality constraint share their pooled mean
    run_id = np.cumsum(~np.asarray(eq_prev, bool)) - 1
    means = (np.bincount(run_id, S) / np.bincount(run_id, W))[run_id]
    # adjacent segments whose means come out equal (the same ratio of exact integer sums)
    # form one run too, so that equally good models get bitwise equal losses
    same = np.r_[False, means[1:] == means[:-1]]
    run_id = np.cumsum(~same) - 1
    run_w = np.bincount(run_id, W)
    run_s = np.bincount(run_id, S)
    total = math.fsum(map(_loss_of_run, run_w.tolist(), run_s.tolist()))
    n_peaks = int(np.sum(peak))
    segments = pd.DataFrame(
        {
            "chrom": data.chrom,
            "chromStart": data.start[first],
            "chromEnd": data.end(last),
            "status": np.where(peak, "peak", "background"),
            "mean": means,
            "first_row": first,
            "last_row": last,
        }
    )
    bases = int(data.end(len(data.y) - 1) - data.start[0])
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


def _solve(data: _Data, penalty: float, progress: bool = False,
           tmpdir: str | None = None) -> PeakSegModel:
    n = len(data.y)
    if math.isinf(penalty) or n < 3 or data.y.min() == data.y.max():
        # one segment: infinite penalty, too few data for a peak, or constant data
        # (a peak could not lower the loss, so the model with fewest peaks is kept)
        return _model(data, penalty, [0], [n - 1], [False], [False])
    if n >= 2**31:
        raise ValueError(f"coverage has {n} rows; at most 2**31 - 1 are supported")
    # the numba kernel is compiled (or loaded from cache) on first use only; its
    # decoding information goes to temporary files for large inputs (bounded memory)
    from penlearn.peaks.peakseg._store import peakseg_solve

    # (Ctrl-C / SIGTERM are deferred around each chunk's kernel call, not the whole
    # solve: a long solve stops within a chunk)
    _, first, last, peak, _, eq_prev, total, biggest = peakseg_solve(
        data.y, data.w, penalty, _TIE_TOL, progress=progress, tmpdir=tmpdir
    )
    fit = _model(data, penalty, first, last, peak, eq_prev)
    return PeakSegModel(fit.segments, fit.loss, total / (2 * n), int(biggest))


def peakseg(coverage: pd.DataFrame, penalty: float, *, gaps: str = "fill",
            progress: bool = False, tmpdir: str | os.PathLike | None = None
            ) -> PeakSegModel:
    """The optimal PeakSeg model of coverage at one penalty, one problem per (sample, chrom).

    Minimises ``Σ w_i (m_i − y_i log m_i) + penalty·peaks`` over segmentations into
    background / peak / … / background segments with non-decreasing changes into and
    non-increasing changes out of each peak (Hocking et al. 2020, JMLR), exactly, by
    functional pruning (O(N log N) in practice). A table of several samples
    (``sample_id``) or chromosomes is several independent problems, solved one after
    the other at the same penalty.

    Memory is bounded, as in PeakSegDisk: beyond about 10^5 rows the information that
    the backward decoding needs (about 270 bytes per row) goes to temporary files in
    ``$PENLEARN_TMPDIR`` (else ``$TMPDIR``, else the system's default), removed when the
    call returns or fails; the process itself then needs about 50 bytes per row beyond
    the input table (see :mod:`penlearn.peaks.peakseg._store`). ``tmpdir`` chooses
    their folder.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count``: per (sample, chromosome),
        rows sorted without overlaps, counts non-negative integers.
    penalty : float
        λ >= 0 per peak. ``inf`` gives the one-segment model without any dynamic
        programming; 0 gives the model with the most peaks that the loss can use.
    gaps : {"fill", "error"}
        A zero-coverage gap between two rows (``bedtools genomecov -bg``, sparse
        bigWigs) is a run of zero counts: filled with a zero-count row (the default, so
        a gapped file gives the peaks of the filled file), or refused
        (:func:`~penlearn.peaks.peakseg.contigs.fill_gaps`).
    progress : bool
        Show tqdm progress bars (stderr) over the rows of each problem of 10^6 rows or
        more (forward pass and decoding, updated per chunk); the model is the same.
    tmpdir : str or path, optional
        Folder of the temporary files of large problems (it must exist and be
        writable; :func:`check_tmpdir`). Default: ``$PENLEARN_TMPDIR``, else
        :mod:`tempfile`'s default. The files have no name (POSIX) and are removed when
        the call returns or fails; they need about 20 bytes per stored function piece
        (about 5 GB for 2·10^7 rows).

    Returns
    -------
    PeakSegModel
        ``.segments``, ``.loss`` (one row per problem) and ``.peaks`` (BED). With several
        problems, ``segments`` and ``loss`` start with ``sample_id`` (when the coverage
        has that column) and ``chrom``, and ``first_row`` / ``last_row`` count the
        (filled) rows of each problem.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 1, 2, 3, 4],
    ...                     "chromEnd": [1, 2, 3, 4, 5], "count": [1, 3, 0, 4, 2]})
    >>> fit = peakseg(cov, 0.0)
    >>> fit.segments["status"].tolist()
    ['background', 'peak', 'background', 'peak', 'background']
    >>> peakseg(cov, float("inf")).loss["peaks"].item()
    0
    >>> two = pd.concat([cov.assign(sample_id="a"), cov.assign(sample_id="b")])
    >>> peakseg(two, 0.0).peaks.values.tolist()[:2]
    [['a', 'chr1', 1, 2], ['a', 'chr1', 3, 4]]
    """
    pen = _check_penalty(penalty)
    check_gaps(gaps)
    tmpdir = check_tmpdir(tmpdir)
    require_columns(coverage, COVERAGE_COLUMNS, "coverage")
    coverage = text_ids(coverage, "coverage")
    problems = coverage_problems(coverage) if len(coverage) else []
    if len(problems) <= 1:
        return _solve(_Data.from_coverage(coverage, gaps), pen, progress, tmpdir)
    return combine_models([
        (sid, _solve(_Data.from_coverage(
            g, gaps, name=f"coverage of {'' if sid is None else f'sample {sid!r}, '}{c}"),
            pen, progress, tmpdir))
        for sid, c, g in problems
    ])


def combine_models(fits: list) -> PeakSegModel:
    """One :class:`PeakSegModel` of several problems: ``[(sample_id or None, model)]``.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 1, 2],
    ...                     "chromEnd": [1, 2, 3], "count": [1, 5, 1]})
    >>> both = combine_models([("a", peakseg(cov, 0.0)), ("b", peakseg(cov, 9.0))])
    >>> both.loss[["sample_id", "chrom", "peaks"]].values.tolist(), both.n_peaks
    ([['a', 'chr1', 1], ['b', 'chr1', 0]], 1)
    """
    segs, losses = [], []
    for sid, fit in fits:
        chrom = fit.segments["chrom"].iloc[0]
        seg, loss = fit.segments, fit.loss.copy()
        loss.insert(0, "chrom", chrom)
        if sid is not None:
            seg = seg.assign(sample_id=sid)[["sample_id", *seg.columns]]
            loss.insert(0, "sample_id", sid)
        segs.append(seg)
        losses.append(loss)
    loss = pd.concat(losses, ignore_index=True)
    rows = loss["bedgraph_lines"].to_numpy(float)
    mean = float(np.dot([f.mean_intervals for _, f in fits], rows) / rows.sum())
    return PeakSegModel(pd.concat(segs, ignore_index=True), loss, mean,
                        max(f.max_intervals for _, f in fits))


def _crossing(more: PeakSegModel, fewer: PeakSegModel) -> float:
    """The penalty at which two models (more / fewer peaks) have equal penalised cost."""
    return crossing(more.n_peaks, more.total_loss, fewer.n_peaks, fewer.total_loss)


@dataclass(frozen=True)
class PeakSegPath:
    """The models on the lower convex hull of (peaks, total_loss) of one sample.

    Attributes
    ----------
    models : DataFrame
        One row per model, most peaks first: ``min_lambda, max_lambda, min_log_lambda,
        max_log_lambda`` (the model is optimal for penalties in that interval), ``peaks,
        segments, total_loss, equality_constraints`` and ``penalty`` (where it was solved).
    segments : DataFrame
        The segments of every model, with a leading ``peaks`` column.
    complete : bool
        True when the path reaches penalty 0 (no model was left out by ``max_peaks``).
    stopped_at_lambda : float
        The smallest penalty covered: ``min_lambda`` of the most complex model kept
        (0 when ``complete``). Below it the optimal models have more than ``max_peaks``.
    n_solves : int
        Number of penalised solves the search used.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(6),
    ...                     "chromEnd": range(1, 7), "count": [3, 9, 18, 15, 20, 2]})
    >>> path = peakseg_path(cov, max_peaks=1)
    >>> path.models["peaks"].tolist(), path.complete
    ([1, 0], False)
    >>> path.model(1).peaks.values.tolist()
    [['chr1', 2, 5]]
    """

    models: pd.DataFrame
    segments: pd.DataFrame
    complete: bool
    stopped_at_lambda: float
    n_solves: int
    _fits: dict = field(repr=False, default_factory=dict)

    def model(self, peaks: int) -> PeakSegModel:
        """The model of the path with ``peaks`` peaks (KeyError if it is not on the path)."""
        if peaks not in self._fits:
            raise KeyError(f"no model with {peaks} peaks on the path; it has "
                           f"{sorted(self._fits)}")
        return self._fits[peaks]


def _n_peaks(model: PeakSegModel) -> int:
    return model.n_peaks


def _total_loss(model: PeakSegModel) -> float:
    return model.total_loss


def _check_max_peaks(max_peaks, name: str = "max_peaks") -> int | None:
    if max_peaks is None:
        return None
    if isinstance(max_peaks, (bool, np.bool_)) or not isinstance(max_peaks, (int, np.integer)):
        raise TypeError(f"{name} must be an integer >= 0, got {type(max_peaks).__name__}")
    if max_peaks < 0:
        raise ValueError(f"{name} must be >= 0, got {max_peaks}")
    return int(max_peaks)


def peakseg_path(
    coverage: pd.DataFrame,
    max_peaks: int | None = None,
    stop: Callable[[PeakSegModel], bool] | None = None,
    *,
    gaps: str = "fill",
    tmpdir: str | os.PathLike | None = None,
    on_solve: Callable[[PeakSegModel], None] | None = None,
) -> PeakSegPath:
    """Every model on the lower convex hull of (peaks, total_loss), found exactly.

    The hull vertices are the models that some penalty selects. They are found with
    O(models) penalised solves (Haynes, Eckley & Fearnhead 2017, JCGS): solve at penalties
    ∞ and 0; for two models that differ, solve at the penalty where their penalised costs
    are equal; a model cheaper there is a new vertex between them, otherwise the two are
    neighbours (:func:`~penlearn.changepoint.crops.crops`). Each model's penalty interval comes from
    :func:`~penlearn.changepoint.model_selection.model_selection`.

    Parameters
    ----------
    coverage : DataFrame
        One problem's coverage (one sample's chromosome), as for :func:`peakseg`.
    max_peaks : int, optional
        Keep only models with at most this many peaks. The full path goes down to
        penalty 0 and can hold thousands of models (up to about N/2 peaks); with a bound
        the search stops early and ``stopped_at_lambda`` says where.
    stop : callable, optional
        ``stop(model) -> bool``; True means that models with more peaks than ``model``
        are not wanted: the path then ends at the simplest such model (a data-driven
        bound; the models kept are exact and ``stopped_at_lambda`` says where it
        stopped, nothing is known below).
    gaps : {"fill", "error"}
        Zero-coverage gaps between rows, as for :func:`peakseg`.
    tmpdir : str or path, optional
        Folder of the solver's temporary files, as for :func:`peakseg`.
    on_solve : callable, optional
        ``on_solve(model)`` after each penalised solve (progress within a long path).

    Returns
    -------
    PeakSegPath

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(6),
    ...                     "chromEnd": range(1, 7), "count": [3, 9, 18, 15, 20, 2]})
    >>> path = peakseg_path(cov)
    >>> path.models["peaks"].tolist()
    [2, 1, 0]
    >>> path.complete
    True
    """
    data = _Data.from_coverage(coverage, gaps)
    max_peaks = _check_max_peaks(max_peaks)
    tmpdir = check_tmpdir(tmpdir)
    def solve(pen: float) -> PeakSegModel:
        model = _solve(data, pen, tmpdir=tmpdir)
        if on_solve is not None:
            on_solve(model)
        return model

    search = crops(solve, _n_peaks, _total_loss, (math.inf, 0.0), max_size=max_peaks,
                   stop=stop)
    found, solves, bound = search.models, search.n_solves, search.bound
    order = sorted(found)
    fits = [found[k] for k in order]
    table = pd.concat([f.loss for f in fits], ignore_index=True)
    sel = model_selection("total_loss", "peaks", models=table)
    sel = sel.drop(columns=["input_row", "mean_pen_cost", "bases", "bedgraph_lines"])
    keep = sel["peaks"] <= bound
    complete = bool(keep.all())
    sel = sel[keep].reset_index(drop=True)
    stopped = float(sel["min_lambda"].iloc[0])
    kept = {int(k): found[int(k)] for k in sel["peaks"]}
    segs = pd.concat(
        [kept[k].segments.assign(peaks=k) for k in sel["peaks"]], ignore_index=True
    )
    segs = segs[["peaks"] + [c for c in segs.columns if c != "peaks"]]
    return PeakSegPath(
        models=sel, segments=segs, complete=complete, stopped_at_lambda=stopped,
        n_solves=solves, _fits=kept,
    )


PeakSegModel.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
PeakSegPath.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
