"""What a peak is on output: the reported peaks of a PeakSeg model.

The PeakSeg model (Hocking et al. 2020, *JMLR*) alternates background and peak
segments, each change into a peak up and each change out of it down, *non-strictly*:
where a constraint is active, two consecutive segments get one pooled mean, so a
model's "peak" can have the mean of its background, and one rise can be split into two
peaks by a "background" segment as high as both. A reader of a BED file expects a peak
to be a region higher than the background on either side. So the outputs
(:func:`~penlearn.peaks.peakseg.evaluation.predict_peaks`, ``penlearn peaks``' BED,
narrowPeak, broadPeak, bedGraph / bigWig means and hub) report the model this way
(:func:`reported_segments`):

1. consecutive segments of equal mean (joined by an active equality constraint) are
   one run, whose mean is the weighted mean of its own bases;
2. a run is a reported **peak** when it holds a model peak and its mean is strictly
   above the runs on both sides (within one window); every other run is background.

The model itself is unchanged: its penalised loss, its peak count (``loss["peaks"]``,
the count the penalty is paid for) and the label errors of the error functions are
those of the model's segments, as in PeakSegDisk and PeakError; only the reported
peaks can be fewer (each active constraint between a peak and its background removes
or joins one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.level_shifts import trim_level_shifts
from penlearn.peaks.formats.peak_columns import peak_columns

__all__ = ["peak_calls", "reported_segments", "screened_out"]


def _sequence_starts(seg: pd.DataFrame) -> np.ndarray:
    """True where a row starts a new model: another window / sample / chromosome, or a
    row that does not touch the previous one."""
    n = len(seg)
    new = np.ones(n, bool)
    if n < 2:
        return new
    keys = [c for c in ("sample_id", "sequence_id", "chrom") if c in seg.columns]
    same = np.ones(n - 1, bool)
    for c in keys:
        codes = pd.factorize(seg[c], use_na_sentinel=False)[0]
        same &= codes[1:] == codes[:-1]
    same &= seg["chromStart"].to_numpy()[1:] == seg["chromEnd"].to_numpy()[:-1]
    new[1:] = ~same
    return new


def reported_segments(segments: pd.DataFrame) -> pd.DataFrame:
    """A model's segments as reported: equal-mean runs joined, peaks strictly above both
    neighbours (the module's rule).

    Parameters
    ----------
    segments : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, status, mean`` in genomic order per
        model (e.g. :attr:`PeakSegModel.segments
        <penlearn.peaks.peakseg.solver.PeakSegModel.segments>`, or ``predict_peaks(...,
        segments=True)``'s rows, where ``sequence_id`` tells windows apart). Other
        columns are kept from each run's first segment.

    Returns
    -------
    DataFrame
        One row per run, the same columns (``first_row`` / ``last_row``, when given,
        spanning the run).

    Examples
    --------
    >>> seg = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 20, 30, 40],
    ...                     "chromEnd": [10, 20, 30, 40, 50],
    ...                     "status": ["background", "peak", "background", "peak",
    ...                                "background"], "mean": [1.0, 5.0, 5.0, 5.0, 1.0]})
    >>> reported_segments(seg)[["chromStart", "chromEnd", "status", "mean"]].values.tolist()
    [[0, 10, 'background', 1.0], [10, 40, 'peak', 5.0], [40, 50, 'background', 1.0]]
    """
    require_columns(segments, ["chrom", "chromStart", "chromEnd", "status", "mean"],
                    "segments")
    if not len(segments):
        return segments.copy()
    seg = segments.reset_index(drop=True)
    mean = seg["mean"].to_numpy(float)
    new_seq = _sequence_starts(seg)
    new_run = new_seq | np.r_[True, mean[1:] != mean[:-1]]
    firsts = np.flatnonzero(new_run)
    lasts = np.r_[firsts[1:] - 1, len(seg) - 1]
    run = np.cumsum(new_run) - 1
    has_peak = np.bincount(run, weights=(seg["status"] == "peak").to_numpy(float)) > 0
    m = mean[firsts]
    seq = np.cumsum(new_seq)[firsts]
    left = np.r_[False, seq[1:] == seq[:-1]]
    right = np.r_[seq[1:] == seq[:-1], False]
    above_left = np.r_[False, m[1:] > m[:-1]]
    above_right = np.r_[m[:-1] > m[1:], False]
    peak = has_peak & left & right & above_left & above_right
    out = seg.iloc[firsts].reset_index(drop=True)
    out["chromEnd"] = seg["chromEnd"].to_numpy()[lasts]
    if "last_row" in out.columns:
        out["last_row"] = seg["last_row"].to_numpy()[lasts]
    out["status"] = np.where(peak, "peak", "background")
    return out


def peak_calls(segments: pd.DataFrame, coverage: pd.DataFrame | None = None, *,
               level_shifts: bool = True, screen: float | None = None, **summits
               ) -> pd.DataFrame:
    """The reported peaks and every column a peak file gives them, computed in one place.

    Parameters
    ----------
    segments : DataFrame
        A model's segments, as for :func:`reported_segments` (raw or already reported).
    coverage : DataFrame, optional
        The treatment coverage, for the summits; without it the summit is ``-1``.
    **summits
        ``control=`` (a control's coverage) and ``control_scale=`` (its factor): the
        summit is then that of treatment minus scaled control
        (:func:`~penlearn.peaks.formats.peak_columns.summit_offsets`).

    Returns
    -------
    DataFrame
        One row per reported peak, in genomic order: the segment's columns (``status``
        dropped), ``background`` (the weighted mean of the two flanking background
        runs; flanks without any read count as one read on their bases, so that fold and
        p-value stay finite) and ``score, signalValue, pValue, qValue, summit`` of
        :func:`~penlearn.peaks.formats.peak_columns.peak_columns`. With ``coverage`` and
        ``level_shifts`` (the default), a long reported peak that is only a change of
        the background's level is trimmed to its significant part, or dropped
        (:func:`~penlearn.peaks.formats.level_shifts.trim_level_shifts`).

    Examples
    --------
    >>> seg = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 20],
    ...                     "chromEnd": [10, 20, 40], "status": ["background", "peak",
    ...                     "background"], "mean": [1.0, 8.0, 2.5]})
    >>> calls = peak_calls(seg)
    >>> calls[["chromStart", "chromEnd", "mean", "background", "signalValue", "score"]
    ...       ].values.tolist()
    [[10.0, 20.0, 8.0, 2.0, 4.0, 1000.0]]
    """
    rep = reported_segments(segments)
    i = np.flatnonzero((rep["status"] == "peak").to_numpy())
    mean = rep["mean"].to_numpy(float)
    bases = (rep["chromEnd"] - rep["chromStart"]).to_numpy(float)
    w = bases[i - 1] + bases[i + 1] if len(i) else bases[:0]
    reads = mean[i - 1] * bases[i - 1] + mean[i + 1] * bases[i + 1] if len(i) else w
    peaks = rep.iloc[i].drop(columns="status").reset_index(drop=True)
    peaks["background"] = np.maximum(reads, 1.0) / w
    if coverage is not None and level_shifts:
        peaks = trim_level_shifts(peaks, coverage, control=summits.get("control"),
                                  control_scale=summits.get("control_scale", 1.0),
                                  genome_level=summits.get("genome_level"))
    if screen is None or coverage is None or summits.get("genome_level") is None:
        return peak_columns(peaks, coverage, **summits)
    peaks = peaks.reset_index(drop=True)
    out_ = screened_out(peaks, coverage, summits["genome_level"], screen)
    if not out_.any():
        return peak_columns(peaks, coverage, **summits)
    done = peak_columns(peaks[~out_], coverage, **summits)
    rest = peaks[out_].assign(score=np.int64(0), signalValue=np.nan, pValue=0.0,
                              qValue=0.0, summit=np.int64(-1))[done.columns]
    return pd.concat([p for p in (done, rest) if len(p)]).sort_index()


def screened_out(peaks: pd.DataFrame, coverage: pd.DataFrame, genome_level: tuple,
                 screen: float) -> np.ndarray:
    """True for the peaks (of one sample) whose p-value is surely below ``screen``
    (``-log10 p``): with ``k`` the treatment's highest count in the peak, ``P(X >= k)``
    for X Poisson of the genome's level is the least p-value any summit of it can have
    (a summit's count is at most ``k``; ``λ_local`` is never below the genome's level:
    :func:`~penlearn.peaks.formats.peak_columns.summit_tests`), by the same function as
    the p-values (a margin of 10⁻⁶ of it for rounding); and likewise of the whole peak's
    test, its fragments (coverage summed / d) against the genome's level over its length
    (the pValue is the better of the two, times 2 or, without a control, 1 + the
    peak's length in quarter fragments: only smaller).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 20, 30],
    ...                     "chromEnd": [10, 20, 30, 40], "count": [1, 2, 9, 1]})
    >>> pk = pd.DataFrame({"chrom": "chr1", "chromStart": [10, 20], "chromEnd": [20, 30]})
    >>> screened_out(pk, cov, (40.0, 40.0, 10.0), 2.0).tolist()  # P(X >= 2) = 0.26
    [True, False]
    """
    from penlearn.peaks.formats._summit_kernel import running_sums  # numba: on first use
    from penlearn.peaks.formats.peak_columns import (
        _integral,
        _poisson_log10_sf,
        _rows_by_problem,
    )

    total, bases, d = genome_level
    lam = max(total / bases if bases > 0 else 0.0, 1e-9)
    out = np.zeros(len(peaks), bool)
    rows = _rows_by_problem(coverage)
    ps, pe = peaks["chromStart"].to_numpy(np.int64), peaks["chromEnd"].to_numpy(np.int64)
    for chrom, idx in peaks.groupby("chrom", sort=False, observed=True).indices.items():
        found = [v for (_, c), v in rows.items() if c == chrom]
        if len(found) != 1:
            continue  # (several samples' rows, or none: nothing screened)
        starts, ends, counts = found[0]
        lo = np.searchsorted(ends, ps[idx], side="right")  # rows overlapping [s, e)
        hi = np.searchsorted(starts, pe[idx], side="left")
        top = np.zeros(len(idx))
        some = hi > lo
        if some.any():
            pairs = np.column_stack([lo[some], hi[some]]).ravel()
            # (the padded copy not held past this line: issue 55, chr1's rows)
            top[some] = np.maximum.reduceat(np.r_[counts, 0.0], pairs)[::2]
        best = -_poisson_log10_sf(top, np.full(len(idx), lam))
        cum = running_sums(starts, ends, counts)
        area = (_integral((starts, ends, counts), pe[idx], cum)
                - _integral((starts, ends, counts), ps[idx], cum))
        whole = -_poisson_log10_sf(np.floor(area / d), lam * (pe[idx] - ps[idx]) / d)
        best = np.maximum(best, whole)
        out[idx] = best < screen - 1e-6 * max(1.0, abs(screen))
    return out
