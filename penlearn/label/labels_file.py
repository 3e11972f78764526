"""The labeling page's labels file: checked before the page starts, read (resumed) in the
form ``penlearn learn`` and ``penlearn errors`` read, and written back whole, atomically,
with the columns it came with."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import text_ids
from penlearn.atomic_files import check_replaceable, short_name
from penlearn.peaks.formats.bed import expand_groups, read_peak_labels

__all__ = ["LABEL_FILE_COLUMNS", "check_labels_path", "clip_to_coverage", "hold_labels_lock",
           "label_text", "labels_lock", "read_label_file", "sorted_labels"]

#: The columns of the labels file the page writes (``penlearn learn`` / ``errors`` read it).
LABEL_FILE_COLUMNS = ["sample_id", "chrom", "chromStart", "chromEnd", "annotation"]


def check_labels_path(path) -> Path:
    """The labels file the page writes: a regular file (or none yet) that can be written,
    in a folder that exists and can be written (ValueError naming ``labels`` otherwise,
    before any work). A read-only file is refused, not replaced (the page rewrites the
    file on every change, through a rename that its mode would not stop); so is a pipe,
    a device (``/dev/null``) or a loop of symbolic links. A symbolic link is followed:
    the page rewrites the file it points to (a rename over the link would replace the
    link, and the file it points to would never see a label).

    Examples
    --------
    >>> check_labels_path("labels.csv").name
    'labels.csv'
    """
    path = Path(path)
    try:
        if path.is_symlink():
            path = path.resolve()
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except (OSError, RuntimeError) as exc:  # a loop of links (RuntimeError before 3.13)
        why = "a loop of symbolic links" if isinstance(exc, RuntimeError) or \
            getattr(exc, "errno", None) == errno.ELOOP else (exc.strerror or str(exc))
        raise ValueError(f"labels {path}: {why}: give the labels file itself") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise ValueError(f"labels {path} is a folder: give the labels file (it is created "
                         "if absent)")
    check_replaceable(path, "labels")
    if mode is not None and (not mode & stat.S_IWUSR or not os.access(path, os.W_OK)):
        raise ValueError(f"labels {path} is read-only (mode {stat.S_IMODE(mode):04o}): the "
                         "page rewrites it on every change; make it writable (chmod u+w) "
                         "or give another file")
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


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{short_name(path.name, 6)}.lock")


@contextlib.contextmanager
def labels_lock(path: Path):
    """Hold the labels file's lock (``fcntl.flock`` of ``.NAME.lock`` beside it) across
    processes: two pages on one labels file (two servers, or a server and a notebook)
    read, change and write it one at a time, so neither writes over a label the other
    acknowledged. The lock file stays (empty); a page that dies releases the lock.

    Examples
    --------
    >>> import tempfile
    >>> with labels_lock(Path(tempfile.mkdtemp()) / "labels.csv"):
    ...     pass
    """
    fd = os.open(_lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (releases the lock)


def hold_labels_lock(path: Path, timeout: float) -> bool:
    """Take the labels file's lock (:func:`labels_lock`) for the rest of the process,
    waiting at most ``timeout`` seconds (False: not had): a process that ends at once
    (Ctrl-C) ends between two writes of the file.

    Examples
    --------
    >>> import tempfile
    >>> hold_labels_lock(Path(tempfile.mkdtemp()) / "labels.csv", 1.0)
    True
    """
    fd = os.open(_lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    end = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True  # (the descriptor stays open: the lock is held)
        except BlockingIOError:
            if time.monotonic() > end:
                os.close(fd)
                return False
            time.sleep(0.01)


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
    lab = text_ids(lab, f"labels {path}")
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
