"""ChIP-seq error functions straight from coverage and peak labels.

For every (sample, window) of coverage that holds labels: the PeakSeg models selected
by some penalty (:func:`~penlearn.peaks.peakseg.peakseg_path`, Hocking et al.
2020, *JMLR*; Hocking et al. 2022, *JSS*), the label errors of each
(:func:`~penlearn.peaks.peak_labels.peak_label_counts`; Hocking et al. 2017,
*Bioinformatics*), and from them the evaluation table — one row per interval of log λ
on which the selected model is constant — that :func:`penlearn.learn_penalty` and
:func:`penlearn.roc_change` take unchanged. Sequence ids are those of
:func:`~penlearn.peaks.coverage_features.coverage_features`, so its feature
table lines up with the evaluation table.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor, as_completed

import numpy as np
import pandas as pd

from penlearn.peaks.coverage_features import sample_windows, window_id
from penlearn.peaks.peak_labels import (
    PEAK_ANNOTATIONS,
    check_labels_in_coverage,
    check_peak_labels,
    peak_label_counts,
)
from penlearn.peaks.peakseg import check_coverage, peakseg, peakseg_path

__all__ = ["EVALUATION_COLUMNS", "peak_error_functions", "predict_peaks",
           "window_error_functions"]

EVALUATION_COLUMNS = ["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "possible_fp",
                      "fn", "possible_fn", "labels", "errors", "peaks", "total_loss"]


def window_error_functions(coverage: pd.DataFrame, labels: pd.DataFrame, *,
                           sequence_id: str = "window", max_peaks: int | None = None
                           ) -> pd.DataFrame:
    """The error functions of one sample's window: its PeakSeg path and label errors.

    Parameters
    ----------
    coverage : DataFrame
        One sample's contiguous coverage of the window, ``chrom, chromStart, chromEnd,
        count`` (as for :func:`~penlearn.peaks.peakseg.peakseg`).
    labels : DataFrame
        That sample's labels inside the window: ``chrom, chromStart, chromEnd,
        annotation`` (noPeaks, peakStart, peakEnd, peaks).
    sequence_id : str
        The id written in the ``sequence_id`` column.
    max_peaks : int, optional
        Bound of the path (see :func:`~penlearn.peaks.peakseg.peakseg_path`). The
        path also stops at the first model whose label errors (TP and FP of every label)
        are those of the most complex model, the one of penalty 0: from there on more
        peaks change no label's error at the path's two ends. The most complex model
        kept is used for every smaller penalty.

    Returns
    -------
    DataFrame
        :data:`EVALUATION_COLUMNS`, one row per model of the path, λ decreasing; the
        intervals partition (−∞, ∞) of log λ.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> lab = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [15, 40],
    ...                     "chromEnd": [25, 60], "annotation": ["peakStart", "noPeaks"]})
    >>> ev = window_error_functions(cov, lab, sequence_id="s/chr1:0-60")
    >>> ev[["peaks", "fp", "fn"]].values.tolist()  # λ decreasing: 0 peaks, then 1
    [[0, 0, 1], [1, 0, 0]]
    >>> float(ev["max_log_lambda"].iloc[0]), float(ev["min_log_lambda"].iloc[-1])
    (inf, -inf)
    """
    lab = check_peak_labels(labels)
    codes = {a: i for i, a in enumerate(PEAK_ANNOTATIONS)}
    l_start = lab["chromStart"].to_numpy(np.int64)
    l_end = lab["chromEnd"].to_numpy(np.int64)
    l_code = np.array([codes[a] for a in lab["annotation"]], dtype=np.int64)

    def counts(peaks: pd.DataFrame):
        return peak_label_counts(peaks["chromStart"].to_numpy(np.int64),
                                 peaks["chromEnd"].to_numpy(np.int64), l_start, l_end, l_code)

    # the label errors of the most complex model (penalty 0, the end of the path)
    tp0, _, fp0, _ = counts(peakseg(coverage, 0.0).peaks)

    def saturated(model) -> bool:
        # every label already has its error at penalty 0: more peaks change nothing
        tp, _, fp, _ = counts(model.peaks)
        return bool((fp == fp0).all() and (tp == tp0).all())

    path = peakseg_path(coverage, max_peaks=max_peaks, stop=saturated)
    segs = path.segments
    rows = []
    for m in path.models.itertuples(index=False):
        tp, ptp, fp, pfp = counts(segs[(segs["peaks"] == m.peaks) & (segs["status"] == "peak")])
        fn = ptp - tp
        rows.append((sequence_id, m.min_log_lambda, m.max_log_lambda, int(fp.sum()),
                     int(pfp.sum()), int(fn.sum()), int(ptp.sum()), len(lab),
                     int(fp.sum() + fn.sum()), int(m.peaks), float(m.total_loss)))
    ev = pd.DataFrame(rows, columns=EVALUATION_COLUMNS)
    ev = ev.sort_values("min_log_lambda", ascending=False, kind="stable")
    ev = ev.reset_index(drop=True)
    ev.loc[len(ev) - 1, "min_log_lambda"] = -math.inf  # most complex model kept: λ → 0
    return ev


def _windows_of(coverage: pd.DataFrame, windows):
    """(sequence_id, sample_id, window coverage) of every (sample, window)."""
    cov = coverage if "sample_id" in coverage.columns else coverage.assign(sample_id="")
    by_sample = dict(list(cov.groupby(["sample_id", "chrom"], sort=False)))
    for w in sample_windows(cov, windows).itertuples(index=False):
        sid = w.sample_id if "sample_id" in coverage.columns else None
        g = by_sample.get((w.sample_id, w.chrom))
        if g is None:
            continue
        inside = (g["chromEnd"] > w.chromStart) & (g["chromStart"] < w.chromEnd)
        gw = g[inside].copy()
        gw["chromStart"] = np.maximum(gw["chromStart"].to_numpy(), w.chromStart)
        gw["chromEnd"] = np.minimum(gw["chromEnd"].to_numpy(), w.chromEnd)
        name = getattr(w, "sequence_id", None) or window_id(sid, w.chrom, w.chromStart,
                                                            w.chromEnd)
        yield name, sid, gw[["chrom", "chromStart", "chromEnd", "count"]]


def predict_peaks(coverage: pd.DataFrame, log_lambda, *, windows: pd.DataFrame | None = None,
                  segments: bool = False) -> pd.DataFrame:
    """Peaks of every (sample, window) at its penalty: one PeakSeg solve each.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count``, contiguous per window.
    log_lambda : float or Series
        One log λ for every window, or a Series indexed by the sequence ids of
        :func:`~penlearn.peaks.coverage_features.coverage_features` (e.g. a learned
        model's predictions on those features).
    windows : DataFrame, optional
        As for :func:`~penlearn.peaks.coverage_features.coverage_features`.
    segments : bool
        Return every segment of the models (``status`` background / peak and ``mean``
        columns too), not only the peaks.

    Returns
    -------
    DataFrame
        The peaks, ``[sample_id,] chrom, chromStart, chromEnd, sequence_id, log_lambda``
        (BED columns first).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> predict_peaks(cov, 3.0)[["chrom", "chromStart", "chromEnd"]].values.tolist()
    [['chr1', 20, 40]]
    """
    out = []
    for name, sid, cov in _windows_of(coverage, windows):
        if isinstance(log_lambda, pd.Series):
            if name not in log_lambda.index:
                raise ValueError(f"log_lambda has no value for window {name!r}")
            value = float(log_lambda.loc[name])
        else:
            value = float(log_lambda)
        if math.isnan(value):
            raise ValueError(f"log_lambda of window {name!r} is NaN")
        check_coverage(cov, name=f"coverage of {name}")
        model = peakseg(cov, math.exp(min(value, 700.0)))
        peaks = model.segments.drop(columns=["first_row", "last_row"]) if segments \
            else model.peaks
        peaks = peaks.assign(sequence_id=name, log_lambda=value)
        if sid is not None:
            peaks.insert(0, "sample_id", sid)
        out.append(peaks)
    if not out:
        raise ValueError("coverage has no rows")
    return pd.concat(out, ignore_index=True)


def _tasks(coverage: pd.DataFrame, labels: pd.DataFrame, windows):
    """(sequence_id, window coverage, window labels) of every labeled (sample, window)."""
    lab = labels
    if "sample_id" not in lab.columns:
        samples = pd.unique(coverage["sample_id"]) if "sample_id" in coverage.columns else [""]
        lab = pd.concat([lab.assign(sample_id=s) for s in samples], ignore_index=True)
    lab_by = dict(list(lab.groupby(["sample_id", "chrom"], sort=False)))
    for name, sid, cov in _windows_of(coverage, windows):
        la = lab_by.get(("" if sid is None else sid, cov["chrom"].iloc[0]))
        if la is None:
            continue
        lo, hi = cov["chromStart"].iloc[0], cov["chromEnd"].iloc[-1]
        la = la[(la["chromStart"] < hi) & (la["chromEnd"] > lo)]
        if len(la):
            yield name, cov, la


def peak_error_functions(coverage: pd.DataFrame, labels: pd.DataFrame, *,
                         windows: pd.DataFrame | None = None, max_peaks: int | None = None,
                         executor: Executor | None = None, progress: bool = True
                         ) -> pd.DataFrame:
    """The evaluation table of every labeled (sample, window), from coverage and labels.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count`` (as
        :func:`~penlearn.peaks.coverage_io.read_coverage` returns), contiguous per
        sample and chromosome.
    labels : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, annotation`` (as
        :func:`~penlearn.peaks.bed_io.read_peak_labels` returns); labels
        without ``sample_id`` hold for every sample.
    windows : DataFrame, optional
        As for :func:`~penlearn.peaks.coverage_features.coverage_features`; by
        default each sample's chromosome is one window. Windows without labels are
        left out (their error functions are identically zero).
    max_peaks : int, optional
        Bound of each path (default: the full path down to penalty 0).
    executor : concurrent.futures.Executor, optional
        One task per (sample, window): e.g. a ``ProcessPoolExecutor`` or a Dask
        cluster's ``distributed.Client(...).get_executor()``. Default: this process.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    DataFrame
        ``sequence_id, min_log_lambda, max_log_lambda, fp, possible_fp, fn, possible_fn,
        labels, errors, peaks, total_loss``; per sequence the intervals partition
        (−∞, ∞) of log λ.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
    ...                     "chromStart": range(0, 60, 10), "chromEnd": range(10, 70, 10),
    ...                     "count": [1, 2, 30, 28, 2, 1]})
    >>> lab = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": [15],
    ...                     "chromEnd": [25], "annotation": ["peakStart"]})
    >>> ev = peak_error_functions(cov, lab, progress=False)
    >>> ev["sequence_id"].unique().tolist(), int(ev["errors"].min())
    (['s/chr1:0-60'], 0)
    """
    from tqdm.auto import tqdm  # only when error functions are computed

    if ("sample_id" in labels.columns) and ("sample_id" not in coverage.columns):
        raise ValueError("labels have a sample_id column but coverage has none")
    labels = check_labels_in_coverage(coverage, labels, windows=windows)  # none dropped
    tasks = list(_tasks(coverage, labels, windows))
    if not tasks:
        raise ValueError("no (sample, window) of the coverage holds a label")
    for name, cov, _ in tasks:
        check_coverage(cov, name=f"coverage of {name}")
    out: list = [None] * len(tasks)
    bar = tqdm(total=len(tasks), disable=not progress, desc="peak models")
    try:
        if executor is None:
            for i, (name, cov, lab) in enumerate(tasks):
                out[i] = window_error_functions(cov, lab, sequence_id=name,
                                                max_peaks=max_peaks)
                bar.update()
        else:
            futures = {executor.submit(window_error_functions, cov, lab, sequence_id=name,
                                       max_peaks=max_peaks): i
                       for i, (name, cov, lab) in enumerate(tasks)}
            try:
                for fut in as_completed(futures):
                    out[futures[fut]] = fut.result()
                    bar.update()
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise
    finally:
        bar.close()
    return pd.concat(out, ignore_index=True)
