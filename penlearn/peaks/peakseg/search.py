"""The PeakSeg model with a given number of peaks, by a search over penalties
(Hocking et al. 2020, *JMLR*: the sequential search of PeakSegDisk's pipeline)."""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass

import pandas as pd

from penlearn._repr import compact_repr
from penlearn._warnings import caller_stacklevel
from penlearn.peaks.peakseg.solver import (
    PeakSegModel,
    _check_max_peaks,
    _crossing,
    _Data,
    _solve,
    check_tmpdir,
)

__all__ = ["PeakSegSearch", "peakseg_search"]


@dataclass(frozen=True)
class PeakSegSearch:
    """The model found by :func:`peakseg_search`.

    Attributes
    ----------
    model : PeakSegModel
        The model with ``target_peaks`` peaks, or the next simpler model of the path.
    target_peaks : int
        The requested number of peaks.
    reached : bool
        False when no penalty gives exactly ``target_peaks`` peaks.
    iterations : DataFrame
        One row per solve: ``iteration, penalty, peaks, total_loss, under, over`` (the
        peak counts of the bracketing models when the solve was launched).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(6),
    ...                     "chromEnd": range(1, 7), "count": [3, 9, 18, 15, 20, 2]})
    >>> found = peakseg_search(cov, peaks=2)
    >>> found.reached, found.n_peaks, len(found.iterations)
    (True, 2, 2)
    """

    model: PeakSegModel
    target_peaks: int
    reached: bool
    iterations: pd.DataFrame

    @property
    def segments(self) -> pd.DataFrame:
        """The model's segments (see :class:`PeakSegModel`)."""
        return self.model.segments

    @property
    def loss(self) -> pd.DataFrame:
        """The model's loss row (see :class:`PeakSegModel`)."""
        return self.model.loss

    @property
    def peaks(self) -> pd.DataFrame:
        """The model's peaks as a BED table."""
        return self.model.peaks

    @property
    def n_peaks(self) -> int:
        """Number of peaks of the model found."""
        return self.model.n_peaks

    @property
    def total_loss(self) -> float:
        """Poisson loss of the model found."""
        return self.model.total_loss


def peakseg_search(coverage: pd.DataFrame, peaks: int, *, gaps: str = "fill",
                   tmpdir: str | os.PathLike | None = None) -> PeakSegSearch:
    """The PeakSeg model with a given number of peaks, by a search over penalties.

    Starts from penalties 0 ("over") and ∞ ("under"), then repeatedly solves at the
    penalty where the two bracketing models have equal penalised cost (given with 15
    significant digits, as the reference solver receives it), replacing ``under`` when
    the new model has fewer peaks than the target and ``over`` otherwise (Hocking et al.
    2020, JMLR). A number of peaks that no penalty selects (not on the convex hull of
    (peaks, loss)) gives the next simpler model, ``reached=False`` and a warning.

    Parameters
    ----------
    coverage : DataFrame
        One problem's coverage (one sample's chromosome), as for
        :func:`~penlearn.peaks.peakseg.solver.peakseg`.
    peaks : int
        Target number of peaks, at most ``(rows − 1) // 2``.
    gaps : {"fill", "error"}
        Zero-coverage gaps between rows, as for :func:`~penlearn.peaks.peakseg.solver.peakseg`.
    tmpdir : str or path, optional
        Folder of the solver's temporary files, as for
        :func:`~penlearn.peaks.peakseg.solver.peakseg`.

    Returns
    -------
    PeakSegSearch

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(6),
    ...                     "chromEnd": range(1, 7), "count": [3, 9, 18, 15, 20, 2]})
    >>> fit = peakseg_search(cov, peaks=1)
    >>> fit.reached, fit.loss["peaks"].item()
    (True, 1)
    """
    data = _Data.from_coverage(coverage, gaps)
    target = _check_max_peaks(peaks, "peaks")
    tmpdir = check_tmpdir(tmpdir)
    n = len(data.y)
    most_possible = (n - 1) // 2
    if target > most_possible:
        raise ValueError(
            f"peaks={target} is impossible: at most {most_possible} peaks for {n} "
            "coverage rows (a model has 2·peaks + 1 segments of at least one row)"
        )
    rows = []

    def run(pen: float, under, over) -> PeakSegModel:
        fit = _solve(data, pen, tmpdir=tmpdir)
        rows.append({
            "iteration": len(rows) + 1, "penalty": pen, "peaks": fit.n_peaks,
            "total_loss": fit.total_loss,
            "under": under.n_peaks if under is not None else None,
            "over": over.n_peaks if over is not None else None,
        })
        return fit

    over = run(0.0, None, None)
    under = run(math.inf, None, None)
    result = None
    while result is None:
        if under.n_peaks == target:
            result = under
        elif over.n_peaks == target:
            result = over
        elif over.n_peaks <= under.n_peaks:
            result = under  # even penalty 0 gives no more peaks than the simpler model
        elif over.n_peaks < target:
            result = over  # the path's most complex model (penalty 0) has fewer peaks
        else:
            pen = float(f"{_crossing(over, under):.15g}")
            if pen < 0:
                result = under
                break
            new = run(pen, under, over)
            if new.n_peaks in (under.n_peaks, over.n_peaks):
                result = under
            elif new.n_peaks < target:
                under = new
            else:
                over = new
    reached = result.n_peaks == target
    if not reached:
        warnings.warn(
            f"no penalty gives exactly {target} peaks (not on the convex hull of "
            f"(peaks, loss)); returning the next simpler model with {result.n_peaks} peaks",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
    return PeakSegSearch(
        model=result, target_peaks=target, reached=reached,
        iterations=pd.DataFrame(rows).astype({"under": "Int64", "over": "Int64"}),
    )


PeakSegSearch.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
