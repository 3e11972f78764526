"""ChIP-seq folders of coverage and peak labels, as data sets of the learning pipeline.

A folder with coverage (``*.bedGraph[.gz]`` files, one per sample, or a
``coverage.csv[.gz]`` long table with ``sample_id``) and peak labels (``labels.csv``,
``labels.bed`` or the genome-browser ``labels.txt``) becomes a :class:`UCIDataSet`: the
error functions of every labeled (sample, window) from the PeakSeg models
(:func:`penlearn.peak_error_functions`), their 36 coverage features, target intervals and
random CV folds, so that ``learn_penalty``, ``roc_change`` and the command line take it
like any UCI folder.
"""

from __future__ import annotations

import os
from concurrent.futures import Executor
from pathlib import Path

from penlearn.changepoint.evaluation import target_intervals
from penlearn.datasets.uci import UCIDataSet, _find, assign_folds, load_uci
from penlearn.peaks.bed_io import read_peak_labels
from penlearn.peaks.coverage_features import coverage_features
from penlearn.peaks.coverage_io import read_coverage
from penlearn.peaks.peak_evaluation import DEFAULT_MAX_PEAKS, peak_error_functions

__all__ = ["LABEL_FILES", "is_peak_folder", "load_data", "load_peak_folder"]

#: Where a peak folder's labels are looked for, in this order.
LABEL_FILES = ("labels.csv", "labels.tsv", "labels.bed", "labels.txt")


def _labels_file(folder: Path) -> Path | None:
    return next((folder / n for n in LABEL_FILES if (folder / n).is_file()), None)


def is_peak_folder(path: str | os.PathLike) -> bool:
    """True for a folder with peak labels and no ``evaluation.csv`` (coverage + labels).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "labels.csv").write_text("chrom,chromStart,chromEnd,annotation\\n")
    >>> is_peak_folder(d)
    True
    """
    folder = Path(path)
    return folder.is_dir() and _find(folder, "evaluation") is None \
        and _labels_file(folder) is not None


def load_peak_folder(path: str | os.PathLike, *, max_peaks: int | None = DEFAULT_MAX_PEAKS,
                     n_folds: int = 3, seed: int = 1, executor: Executor | None = None,
                     progress: bool = False) -> UCIDataSet:
    """A coverage + peak labels folder as a data set (computed, not read).

    Parameters
    ----------
    path : path
        The folder (see the module docstring for its files).
    max_peaks : int or None
        Bound of each sample's path of peak models (default
        :data:`~penlearn.peaks.peak_evaluation.DEFAULT_MAX_PEAKS`; None: down to
        penalty 0); the evaluation table is bounded there (see
        :func:`~penlearn.peaks.peak_evaluation.peak_error_functions`).
    n_folds, seed : int
        Random CV folds (``cv["random"]``) over the labeled (sample, window) sequences.
    executor : concurrent.futures.Executor, optional
        One task per (sample, window) (a process pool or a Dask client's executor).
    progress : bool
        Show a progress bar.

    Returns
    -------
    UCIDataSet
        ``evaluation`` (with ``peaks`` and ``total_loss``), ``inputs`` (the 36 UCI
        features), ``outputs`` (target intervals), ``folds["random"]`` and
        ``extra["coverage"]``, ``extra["labels"]``.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> cov = pd.DataFrame({"sample_id": [s for s in "abc" for _ in range(6)],
    ...     "chrom": "chr1", "chromStart": list(range(0, 60, 10)) * 3,
    ...     "chromEnd": list(range(10, 70, 10)) * 3, "count": [1, 2, 30, 28, 2, 1] * 3})
    >>> cov.to_csv(d / "coverage.csv", index=False)
    >>> _ = (d / "labels.csv").write_text(
    ...     "chrom,chromStart,chromEnd,annotation\\nchr1,15,25,peakStart\\n")
    >>> ds = load_peak_folder(d)
    >>> sorted(ds.sequence_ids), ds.inputs.shape
    (['a/chr1:0-60', 'b/chr1:0-60', 'c/chr1:0-60'], (3, 36))
    """
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"data set folder not found: {folder}")
    lab_path = _labels_file(folder)
    if lab_path is None:
        raise FileNotFoundError(f"{folder} has no peak labels ({', '.join(LABEL_FILES)})")
    coverage = read_coverage(folder)
    labels = read_peak_labels(lab_path)
    evaluation = peak_error_functions(coverage, labels, max_peaks=max_peaks,
                                      executor=executor, progress=progress)
    features = coverage_features(coverage)
    ids = list(dict.fromkeys(evaluation["sequence_id"]))
    folds = {"random": assign_folds(ids, min(n_folds, len(ids)), seed)} if len(ids) >= 2 \
        else {}
    return UCIDataSet(
        name=folder.name, path=folder, inputs=features.loc[ids],
        outputs=target_intervals(evaluation), evaluation=evaluation, folds=folds,
        extra={"coverage": coverage, "labels": labels},
    )


def load_data(path: str | os.PathLike, **kwargs) -> UCIDataSet:
    """A UCI folder (:func:`load_uci`), or a coverage + peak labels folder
    (:func:`load_peak_folder`, with ``kwargs``) when it has labels but no evaluation.

    Examples
    --------
    >>> load_data("no-such-folder")
    Traceback (most recent call last):
    ...
    FileNotFoundError: data set folder not found: no-such-folder
    """
    if is_peak_folder(path):
        return load_peak_folder(path, **kwargs)
    folder = Path(path)
    if folder.is_dir() and _find(folder, "evaluation") is None and _has_coverage(folder):
        raise FileNotFoundError(f"{folder} has coverage but no peak labels (one of "
                                f"{', '.join(LABEL_FILES)}) and no evaluation.csv")
    return load_uci(path)


def _has_coverage(folder: Path) -> bool:
    """True when the folder holds coverage files (bedGraph, bigWig or coverage.csv)."""
    patterns = ("*.bedGraph", "*.bedGraph.gz", "*.bedgraph", "*.bedgraph.gz", "*.bw",
                "*.bigWig", "coverage.csv", "coverage.csv.gz")
    return any(next(folder.glob(p), None) is not None for p in patterns)
