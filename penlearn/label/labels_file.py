"""The labeling page's labels file: checked before the page starts, read (resumed) in the
form ``penlearn learn`` and ``penlearn errors`` read, and written back whole, atomically,
with the columns it came with."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.peaks.formats.bed import expand_groups, read_peak_labels

__all__ = ["LABEL_FILE_COLUMNS", "check_labels_path", "clip_to_coverage", "label_text",
           "read_label_file", "sorted_labels"]

#: The columns of the labels file the page writes (``penlearn learn`` / ``errors`` read it).
LABEL_FILE_COLUMNS = ["sample_id", "chrom", "chromStart", "chromEnd", "annotation"]


def check_labels_path(path) -> Path:
    """The labels file the page writes: not a folder, in a folder that exists and can be
    written (ValueError naming ``labels`` otherwise, before any work). A symbolic link is
    followed: the page rewrites the file it points to (a rename over the link would
    replace the link, and the file it points to would never see a label).

    Examples
    --------
    >>> check_labels_path("labels.csv").name
    'labels.csv'
    """
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    if path.is_dir():
        raise ValueError(f"labels {path} is a folder: give the labels file (it is created "
                         "if absent)")
    parent = path.parent
    if not parent.is_dir():
        raise ValueError(f"labels {path}: its folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"labels {path}: its folder {parent} is not writable (the page "
                         "rewrites the file atomically on every change)")
    return path


def clip_to_coverage(samples, chrom: str, start: int, end: int,
                     spans: dict) -> pd.DataFrame:
    """One label of ``[start, end)`` per sample, clipped to the bases the sample's coverage
    of ``chrom`` spans (``spans``: ``(sample, chrom) -> (first, last)``, as
    :func:`~penlearn.peaks.joint.windows.coverage_spans`): the labels ``penlearn learn``
    accepts (:func:`~penlearn.peaks.peakseg.labels.check_labels_in_coverage`). Clipping
    changes no label error (no peak lies outside its sample's coverage); a sample with no
    base there gets no label, and when none has one: ValueError.

    Examples
    --------
    >>> spans = {("a", "chr1"): (0, 500), ("b", "chr1"): (40, 90)}
    >>> clip_to_coverage(["a", "b"], "chr1", 0, 100, spans)[["chromStart", "chromEnd"]]\\
    ...     .values.tolist()
    [[0, 100], [40, 90]]
    """
    out = []
    for s in samples:
        first, last = spans.get((s, chrom), (end, start))
        lo, hi = max(start, first), min(end, last)
        if lo < hi:
            out.append((s, lo, hi))
    if not out:
        raise ValueError(f"{chrom}:{start}-{end} holds no covered base of sample(s) "
                         f"{', '.join(map(str, list(samples)[:3]))}: no label to make")
    return pd.DataFrame(out, columns=["sample_id", "chromStart", "chromEnd"]).assign(
        chrom=chrom)[["sample_id", "chrom", "chromStart", "chromEnd"]]


def read_label_file(path: Path, samples) -> pd.DataFrame:
    """The labels of ``path`` (absent or without labels: none) as
    :data:`LABEL_FILE_COLUMNS`, then the file's other columns (kept as they are, written
    back); a label without ``sample_id`` holds for every sample, one row each; the
    samples listed after a label of the labels text format are sample ids (the others
    get ``noPeaks`` there, as ``penlearn errors`` reads it).

    Examples
    --------
    >>> read_label_file(Path("no-such-labels.csv"), ["a"]).shape
    (0, 5)
    """
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame({c: pd.Series(dtype=object if c in ("sample_id", "chrom",
                                                                 "annotation") else np.int64)
                             for c in LABEL_FILE_COLUMNS})
    lab = read_peak_labels(path, allow_empty=True)
    if "groups" in lab.columns and "sample_id" not in lab.columns:  # the text format
        lab = expand_groups(lab, {str(s): str(s) for s in samples}).drop(columns="window")
    if "sample_id" not in lab.columns:
        lab = pd.concat([lab.assign(sample_id=str(s)) for s in samples], ignore_index=True)
    lab = lab.assign(sample_id=lab["sample_id"].astype(str), chrom=lab["chrom"].astype(str))
    extra = [c for c in lab.columns if c not in LABEL_FILE_COLUMNS]
    return sorted_labels(lab[LABEL_FILE_COLUMNS + extra])


def sorted_labels(lab: pd.DataFrame) -> pd.DataFrame:
    """``lab`` with the file's types, in genome order (then sample), index 0..n-1."""
    lab = lab.astype({"sample_id": object, "chrom": object, "chromStart": np.int64,
                      "chromEnd": np.int64, "annotation": object})
    return lab.sort_values(["chrom", "chromStart", "sample_id"], kind="stable") \
        .reset_index(drop=True)


def label_text(lab: pd.DataFrame) -> str:
    """The file's text of ``lab`` (every column, ``\\n`` line ends)."""
    return lab.to_csv(index=False, lineterminator="\n")
