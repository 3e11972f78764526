"""ChIP-seq folders of coverage and peak labels, as data sets of the learning pipeline.

A folder with coverage (``*.bedGraph[.gz]`` files, one per sample, or a
``coverage.csv[.gz]`` long table with ``sample_id``) and peak labels (``labels.csv``,
``labels.bed`` or the genome-browser ``labels.txt``) becomes a :class:`UCIDataSet`: the
error functions of every labeled (sample, window) from the PeakSeg models
(:func:`penlearn.peak_error_functions`), their 36 coverage features, target intervals and
random CV folds, so that ``learn_penalty``, ``roc_change`` and the command line take it
like any UCI folder.

Computing every model path is the slow part, so it can be cached
(:func:`load_peak_folder` ``cache=``; ``penlearn learn`` does by default): the evaluation
and feature tables go to a cache folder, under a key made of the contents of the
coverage and label files (a BLAKE2 digest of their bytes, not their names or dates), the
path options, the penlearn version and the source of :mod:`penlearn.peaks`; a second run
on the same data reads them back (floats written in their shortest exact form, so the
tables are identical).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import warnings
from concurrent.futures import Executor
from pathlib import Path

import pandas as pd

from penlearn._version import package_version
from penlearn._warnings import caller_stacklevel
from penlearn.atomic_files import write_bytes_atomic
from penlearn.changepoint.evaluation import target_intervals
from penlearn.datasets.uci import UCIDataSet, _find, assign_folds, load_uci
from penlearn.peaks.formats._label_text import expand_groups
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.coverage import coverage_files, read_coverage
from penlearn.peaks.joint.pipeline import _groups_of
from penlearn.peaks.peakseg.evaluation import DEFAULT_MAX_PEAKS, peak_error_functions
from penlearn.peaks.peakseg.features import FEATURE_COLUMNS, coverage_features
from penlearn.peaks.peakseg.parts import code_digest, default_cache_dir

__all__ = ["GROUP_COLUMNS", "LABEL_FILES", "data_task", "default_cache_dir", "is_peak_folder",
           "labels_by_group", "load_data", "load_peak_folder"]

#: Where a peak folder's labels are looked for, in this order.
LABEL_FILES = ("labels.csv", "labels.tsv", "labels.bed", "labels.txt")
#: Coverage columns taken as each sample's group (cell type) when no groups are given,
#: in this order: what labels of the genome-browser text format may name.
GROUP_COLUMNS = ("group", "cell_type")
#: Where groups come from, said when a label names an unknown one.
GROUPS_FROM = ("a sample's group comes from groups= (penlearn learn --groups FILE: "
               "sample_id, group), else a coverage column (--group-column COL; by default "
               f"{' or '.join(repr(c) for c in GROUP_COLUMNS)}), else the folder above it in "
               "a '<group>/<sample>' id")


def labels_by_group(labels: pd.DataFrame, coverage: pd.DataFrame, groups=None
                    ) -> pd.DataFrame:
    """Labels of the genome-browser text format that list groups or samples, one row per
    (sample, label) (:func:`~penlearn.peaks.formats._label_text.expand_groups`); other
    labels as they are.

    Each sample's group: ``groups`` (a table ``sample_id, group``, a mapping or a coverage
    column name, checked as ``joint_peaks`` checks it), else the first of
    :data:`GROUP_COLUMNS` in the coverage, else the folder above the sample in a
    ``<group>/<sample>`` id (as ``penlearn errors``), else the sample itself.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["A", "B"], "chrom": "chr1", "chromStart": 0,
    ...                     "chromEnd": 9, "count": 1, "cell_type": ["kidney", "bcell"]})
    >>> lab = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [9],
    ...                     "annotation": ["peaks"], "groups": ["kidney"], "window": 0})
    >>> labels_by_group(lab, cov)[["sample_id", "annotation"]].values.tolist()
    [['A', 'peaks'], ['B', 'noPeaks']]
    """
    if "groups" not in labels.columns or "sample_id" in labels.columns \
            or not (labels["groups"].astype(str).str.strip() != "").any():
        return labels
    samples = [str(s) for s in pd.unique(coverage["sample_id"])]
    if groups is None:
        groups = next((c for c in GROUP_COLUMNS if c in coverage.columns), None)
    mapping = {s: s.split("/")[-2] if "/" in s else s for s in samples} if groups is None \
        else _groups_of(coverage.assign(sample_id=coverage["sample_id"].astype(str)),
                        samples, groups)[0]
    try:
        return expand_groups(labels, mapping)
    except ValueError as exc:
        raise ValueError(f"{exc}; {GROUPS_FROM}") from None


def _labels_file(folder: Path) -> Path | None:
    return next((folder / n for n in LABEL_FILES if (folder / n).is_file()), None)


def _changepoint_labels(path: Path) -> bool:
    """Whether a labels file's header names changepoint labels (a sequence id column and
    no chromosome): the labels of a UCI-format folder, not of coverage."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return False
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    names = {f.strip().strip('"').lower() for f in re.split(r"[,\t]", first)}
    return bool(names & {"sequence_id", "sequenceid"}) and not names & {"chrom", "chr"}


def data_task(ds) -> str | None:
    """The task (:data:`penlearn.fitting.model_file.TASKS`) a model learned on the data set
    ``ds`` (of :func:`load_data`) is for, recorded in its file: ``"peaks"`` for a
    coverage + labels folder, ``"changepoint"`` for the output of ``penlearn segment``
    (it records its segmentation); another UCI folder is ``"peaks"`` when its inputs hold
    the 36 ChIP-seq coverage features (the UCI ChIP-seq sets: windows of one sample's
    coverage, what ``penlearn peaks`` computes), else ``"changepoint"`` (a choice: a
    UCI folder holds error functions of sequences, never joint windows).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> data_task(SimpleNamespace(path="no-such-folder", segmentation={"loss": "l2"}))
    'changepoint'
    """
    if is_peak_folder(ds.path):
        return "peaks"
    if getattr(ds, "segmentation", None):
        return "changepoint"
    inputs = getattr(ds, "inputs", None)
    return "peaks" if inputs is not None and set(FEATURE_COLUMNS) <= set(inputs.columns) \
        else "changepoint"


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
                     progress: bool = False, cache: bool | str | os.PathLike = False,
                     tmpdir: str | os.PathLike | None = None, groups=None,
                     coverage_map=None) -> UCIDataSet:
    """A coverage + peak labels folder as a data set (computed, not read).

    Parameters
    ----------
    path : path
        The folder (see the module docstring for its files).
    max_peaks : int or None
        Bound of each sample's path of peak models (default
        :data:`~penlearn.peaks.peakseg.evaluation.DEFAULT_MAX_PEAKS`; None: down to
        penalty 0); the evaluation table is bounded there (see
        :func:`~penlearn.peaks.peakseg.evaluation.peak_error_functions`).
    n_folds, seed : int
        Random CV folds (``cv["random"]``) over the labeled (sample, window) sequences.
    executor : concurrent.futures.Executor, optional
        One task per (sample, window) (a process pool or a Dask client's executor).
    progress : bool
        Show a progress bar.
    cache : bool or path
        Reuse (or store) the evaluation and feature tables in a cache folder: True for
        :func:`default_cache_dir`, or a folder; each labeled window's table is stored
        there as soon as it is computed (``peak_error_functions(cache=)``), so an
        interrupted run continues where it stopped. A cache that cannot be written gives
        one warning and the tables are computed as without it.
    tmpdir : path, optional
        Folder of the PeakSeg solver's temporary files (see
        :func:`~penlearn.peaks.peakseg.solver.peakseg`); not part of the cache key.
    groups : DataFrame, mapping or str, optional
        Each sample's group, for labels of the genome-browser text format that name
        groups (``chr1:1,001-2,000 peakStart kidney``): a table ``sample_id, group``, a
        mapping or a coverage column; default: a ``group`` or ``cell_type`` column of the
        coverage, else ``<group>/<sample>`` folders (:func:`labels_by_group`).

    coverage_map : callable, optional
        Applied to the coverage once read: it returns (the coverage of the peak models,
        the coverage of the features) — ``penlearn learn --control``: the treatments with
        their control as background, and as read, the controls taken out of both. The
        cache is then not used (its key does not know the map).

    Returns
    -------
    UCIDataSet
        ``evaluation`` (with ``peaks`` and ``total_loss``), ``inputs`` (the 36 UCI
        features), ``outputs`` (target intervals), ``folds["random"]``,
        ``extra["labels"]``, and ``extra["coverage"]`` when the tables were computed (not
        on a cache hit) or ``extra["cache"]`` (the cache file read).

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
    labels = read_peak_labels(lab_path)
    where = _cache_file(folder, lab_path, max_peaks, cache, groups) if cache and \
        coverage_map is None else None
    tables = _read_cache(where) if where is not None else None
    if tables is not None:
        evaluation, features = tables
        extra = {"labels": labels, "cache": where}
    else:
        coverage = read_coverage(folder, progress=progress)
        plain = coverage
        if coverage_map is not None:
            coverage, plain = coverage_map(coverage)
        # each window's table is cached too: an interrupted run continues from them
        evaluation = peak_error_functions(coverage, labels_by_group(labels, coverage, groups),
                                          max_peaks=max_peaks,
                                          executor=executor, progress=progress,
                                          tmpdir=tmpdir, cache=_usable(where))
        features = coverage_features(plain)
        extra = {"coverage": coverage, "labels": labels}
        if where is not None and where.parent.is_dir():
            _write_cache(where, evaluation, features)
    ids = list(dict.fromkeys(evaluation["sequence_id"]))
    folds = {"random": assign_folds(ids, min(n_folds, len(ids)), seed)} if len(ids) >= 2 \
        else {}
    return UCIDataSet(
        name=folder.name, path=folder, inputs=features.loc[ids],
        outputs=target_intervals(evaluation), evaluation=evaluation, folds=folds,
        extra=extra,
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
    folder = Path(path)
    labels = _labels_file(folder) if folder.is_dir() else None
    if labels is not None and _find(folder, "evaluation") is None \
            and _changepoint_labels(labels):
        raise FileNotFoundError(
            f"{folder} has no evaluation.csv(.gz|.xz), and {labels.name} holds changepoint "
            "labels (sequence_id, start, end), not peak labels (chrom, chromStart, chromEnd): "
            f"make the evaluation table first with 'penlearn segment SEQUENCES.csv {labels} "
            "--max-segments K --out FOLDER', then use FOLDER")
    if is_peak_folder(path):
        return load_peak_folder(path, **kwargs)
    if folder.is_dir() and _find(folder, "evaluation") is None and _has_coverage(folder):
        raise FileNotFoundError(f"{folder} has coverage but no peak labels (one of "
                                f"{', '.join(LABEL_FILES)}) and no evaluation.csv")
    return load_uci(path)


def _has_coverage(folder: Path) -> bool:
    """True when the folder holds coverage files (bedGraph, bigWig, BAM or coverage.csv)."""
    patterns = ("*.bedGraph", "*.bedGraph.gz", "*.bedgraph", "*.bedgraph.gz", "*.bw",
                "*.bigWig", "*.bam", "coverage.csv", "coverage.csv.gz")
    return any(next(folder.glob(p), None) is not None for p in patterns)


#: bump when the cached tables change meaning (with the penlearn version, part of the key)
_CACHE_FORMAT = 2


def _digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _groups_key(groups):
    """``groups`` (of :func:`load_peak_folder`) as JSON text for the cache key."""
    if groups is None or isinstance(groups, str):
        return groups
    if isinstance(groups, pd.DataFrame):
        groups = dict(zip(groups["sample_id"].astype(str), groups["group"].astype(str)))
    return sorted((str(k), str(v)) for k, v in dict(groups).items())


def _cache_file(folder: Path, labels: Path, max_peaks, cache, groups=None) -> Path:
    """The cache file of this folder's contents, path options and sample groups."""
    files = [(sid, p.relative_to(folder).as_posix(), _digest(p))
             for sid, p in coverage_files(folder)]
    key = {"format": _CACHE_FORMAT, "penlearn": package_version(), "code": code_digest(),
           "max_peaks": max_peaks, "coverage": files, "labels": [labels.name, _digest(labels)]}
    if groups is not None:  # (absent otherwise: the keys of earlier caches unchanged)
        key["groups"] = _groups_key(groups)
    key = json.dumps(key, sort_keys=True)
    name = hashlib.blake2b(key.encode(), digest_size=16).hexdigest()
    root = default_cache_dir() if cache is True else Path(cache)
    return root / f"peaks-{name}.csv.gz"


def _usable(where: Path | None) -> Path | bool:
    """The cache folder of ``where`` if it can be made (else one warning, and False: the
    windows' tables and the folder's are then computed without a cache)."""
    if where is None:
        return False
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        warnings.warn(f"cannot write the cache file {where} ({exc}); continuing without "
                      "a cache", stacklevel=caller_stacklevel())
        return False
    return where.parent


def _read_cache(where: Path):
    """(evaluation, features) from a cache file, or None (absent or unreadable).

    The file: one JSON line with the columns and dtypes of both tables, then one CSV of
    both (a ``table`` column tells them apart; feature columns prefixed ``f:``)."""
    if not where.is_file():
        return None
    try:
        with gzip.open(where, "rt", encoding="utf-8", newline="") as fh:
            meta = json.loads(fh.readline())
            both = pd.read_csv(fh, dtype={"table": str, "sequence_id": str},
                               keep_default_na=False, na_values=[""])
        ev = both[both["table"] == "evaluation"][list(meta["evaluation"])]
        ev = ev.astype(meta["evaluation"]).reset_index(drop=True)
        feats = both[both["table"] == "features"].set_index("sequence_id")
        feats = feats[["f:" + c for c in meta["features"]]]
        feats.columns = list(meta["features"])
        feats = feats.astype(meta["features"])
    except (OSError, ValueError, EOFError, KeyError, TypeError) as exc:
        warnings.warn(f"cache file {where} unreadable ({exc}); recomputing",
                      stacklevel=caller_stacklevel())
        return None
    return ev, feats


def _write_cache(where: Path, evaluation: pd.DataFrame, features: pd.DataFrame) -> None:
    meta = {"evaluation": {c: str(t) for c, t in evaluation.dtypes.items()},
            "features": {c: str(t) for c, t in features.dtypes.items()}}
    feats = features.add_prefix("f:").rename_axis("sequence_id").reset_index()
    both = pd.concat([evaluation.assign(table="evaluation"), feats.assign(table="features")],
                     ignore_index=True)
    text = json.dumps(meta) + "\n" + both.to_csv(index=False, lineterminator="\n")
    try:
        write_bytes_atomic(where, gzip.compress(text.encode("utf-8"), mtime=0))
    except OSError as exc:
        warnings.warn(f"cannot write the cache file {where} ({exc}); continuing without "
                      "a cache", stacklevel=caller_stacklevel())
