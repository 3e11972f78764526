"""Joint windows: clusters of overlapping single-sample peaks, widened, and their coverage.

The first steps of the multi-sample pipeline of PeakSegPipeline (Hocking & Bourque,
"Machine learning algorithms for simultaneous supervised detection of peaks in multiple
samples and cell types", PSB 2020; PeakSegJoint, Hocking & Bourque, arXiv:1506.01286):

1. single-sample peaks (``penlearn peaks`` writes one BED file per sample) are read
   (:func:`read_peaks_folder`);
2. the peaks of all samples on one chromosome that overlap, directly or through other
   peaks, form a cluster (:func:`joint_clusters`);
3. each cluster's span is widened on both sides so that every sample has background to
   compare the peak with (:func:`joint_windows`);
4. the coverage of every sample over each window, with every sample covering the same
   bases, is what :func:`penlearn.joint_peak` takes (:func:`window_coverage`).

Widening (``widen``, a fraction of the cluster's width, default
:data:`DEFAULT_WIDEN`): each side grows by ``widen × width`` bases, but never past the
middle of the gap to the next cluster (windows never overlap, so the joint peaks of two
windows never do either) nor beyond the bases that every sample covers.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.bed import read_bed
from penlearn.peaks.peakseg.contigs import fill_gaps

__all__ = ["DEFAULT_WIDEN", "WINDOW_COLUMNS", "joint_clusters", "joint_windows",
           "read_peaks_folder", "window_coverage", "coverage_spans"]

#: Default widening of a cluster, each side, as a fraction of its width. 1.0 gives a
#: window three times the cluster: as many background bases on each side as the peak
#: region holds, so a sample's inside mean is compared with as much background as
#: peak, whatever the mark's peak width (H3K4me3's 1-kb peaks as H3K36me3's 50-kb ones).
DEFAULT_WIDEN = 1.0

WINDOW_COLUMNS = ["window_id", "chrom", "chromStart", "chromEnd", "clusterStart",
                  "clusterEnd", "n_peaks", "n_samples"]

_BED_SUFFIXES = (".bed", ".bed.gz")


def read_peaks_folder(path: str | os.PathLike) -> pd.DataFrame:
    """The single-sample peaks of a folder written by ``penlearn peaks``: one BED a sample.

    Every ``<stem>.bed`` (or ``.bed.gz``) file is one sample; its id is the stem with
    the percent-encoding of ``penlearn peaks`` undone (``%2F`` is ``/``). A file
    without peaks is a sample without peaks.

    Parameters
    ----------
    path : path-like
        The folder.

    Returns
    -------
    DataFrame
        ``sample_id, chrom, chromStart, chromEnd``, samples in file-name order;
        ``attrs["samples"]`` lists every sample, those without peaks too.

    Raises
    ------
    ValueError
        When the path is no folder or holds no BED file (the error names the path).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "A%2F1.bed").write_text("chr1\\t10\\t20\\tA/1\\t3.5\\n")
    >>> _ = (d / "B.bed").write_text("")
    >>> read_peaks_folder(d).values.tolist()
    [['A/1', 'chr1', 10, 20]]
    """
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--peaks {folder}: not a folder (give the folder 'penlearn peaks "
                         "--out' wrote, one <sample>.bed per sample)")
    files = sorted(p for p in folder.iterdir()
                   if p.is_file() and p.name.endswith(_BED_SUFFIXES))
    if not files:
        raise ValueError(f"--peaks {folder}: no .bed files (give the folder 'penlearn peaks "
                         "--out' wrote, one <sample>.bed per sample)")
    parts = []
    for f in files:
        bed = read_bed(f)[["chrom", "chromStart", "chromEnd"]]
        parts.append(bed.assign(sample_id=urllib.parse.unquote(_stem(f.name))))
    out = pd.concat(parts, ignore_index=True)
    out["sample_id"] = out["sample_id"].astype(str)
    out = out[["sample_id", "chrom", "chromStart", "chromEnd"]]
    out.attrs["samples"] = [urllib.parse.unquote(_stem(f.name)) for f in files]
    return out


def _stem(name: str) -> str:
    return name[: -len(".bed.gz")] if name.endswith(".bed.gz") else name[: -len(".bed")]


def joint_clusters(peaks: pd.DataFrame) -> pd.DataFrame:
    """Clusters of peaks: peaks of any samples on one chromosome that overlap, directly
    or through a chain of overlapping peaks, are one cluster.

    Two peaks overlap when they share a base (``[s1, e1)`` and ``[s2, e2)`` with
    ``s2 < e1`` and ``s1 < e2``); touching peaks (``e1 == s2``) do not.

    Parameters
    ----------
    peaks : DataFrame
        ``sample_id, chrom, chromStart, chromEnd``.

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, n_peaks, n_samples``: one row per cluster, sorted by
        chromosome (first appearance) and position.

    Raises
    ------
    ValueError
        When there are no peaks (there is nothing to cluster), or a peak has
        ``chromStart >= chromEnd``.

    Examples
    --------
    >>> p = pd.DataFrame({"sample_id": ["a", "b", "b", "a"], "chrom": "chr1",
    ...                   "chromStart": [10, 15, 30, 40], "chromEnd": [20, 32, 35, 50]})
    >>> joint_clusters(p).values.tolist()
    [['chr1', 10, 35, 3, 2], ['chr1', 40, 50, 1, 1]]
    """
    require_columns(peaks, ["sample_id", "chrom", "chromStart", "chromEnd"], "peaks")
    if len(peaks) == 0:
        raise ValueError("no single-sample peaks: there are no clusters to make joint "
                         "windows of (a higher penalty of 'penlearn peaks' gives fewer "
                         "peaks, a lower one more)")
    start = peaks["chromStart"].to_numpy(np.int64)
    end = peaks["chromEnd"].to_numpy(np.int64)
    bad = start >= end
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"peaks row {i}: chromStart must be < chromEnd, got {start[i]}, "
                         f"{end[i]}")
    chrom_code, chroms = pd.factorize(peaks["chrom"].astype(str))
    order = np.lexsort((start, chrom_code))
    c, s, e = chrom_code[order], start[order], end[order]
    sid = peaks["sample_id"].astype(str).to_numpy()[order]
    # running maximum of the ends within each chromosome: a new cluster starts where a
    # peak starts at or after every earlier peak's end
    reach = np.empty_like(e)
    new = np.ones(len(s), dtype=bool)
    for i in range(len(s)):
        if i and c[i] == c[i - 1]:
            new[i] = s[i] >= reach[i - 1]
            reach[i] = e[i] if new[i] else max(reach[i - 1], e[i])
        else:
            reach[i] = e[i]
    cluster = np.cumsum(new) - 1
    df = pd.DataFrame({"cluster": cluster, "chrom": np.asarray(chroms)[c], "s": s, "e": e,
                       "sample_id": sid})
    g = df.groupby("cluster", sort=True)
    return pd.DataFrame({"chrom": g["chrom"].first().to_numpy(),
                         "chromStart": g["s"].min().to_numpy(np.int64),
                         "chromEnd": g["e"].max().to_numpy(np.int64),
                         "n_peaks": g.size().to_numpy(np.int64),
                         "n_samples": g["sample_id"].nunique().to_numpy(np.int64)})


def coverage_spans(coverage: pd.DataFrame) -> pd.DataFrame:
    """First and last covered base of each (sample, chromosome): ``sample_id, chrom,
    first, last`` (``[first, last)`` in BED coordinates).

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
    ...                     "chromStart": [0, 10, 5], "chromEnd": [10, 30, 40]})
    >>> coverage_spans(cov).values.tolist()
    [['a', 'chr1', 0, 30], ['b', 'chr1', 5, 40]]
    """
    require_columns(coverage, ["sample_id", "chrom", "chromStart", "chromEnd"], "coverage")
    g = coverage.groupby(["sample_id", "chrom"], sort=False)
    return g.agg(first=("chromStart", "min"), last=("chromEnd", "max")).reset_index()


def joint_windows(peaks: pd.DataFrame, coverage: pd.DataFrame | None = None, *,
                  widen: float = DEFAULT_WIDEN) -> pd.DataFrame:
    """The joint windows: each cluster of overlapping peaks, widened on both sides.

    Parameters
    ----------
    peaks : DataFrame
        ``sample_id, chrom, chromStart, chromEnd``: the single-sample peaks of every
        sample (e.g. :func:`read_peaks_folder`).
    coverage : DataFrame, optional
        ``sample_id, chrom, chromStart, chromEnd, ...``: windows are then clipped to the
        bases that every sample of the coverage covers on the chromosome, and a cluster
        reaching beyond them is an error (a sample without coverage there cannot be
        compared with the others).
    widen : float
        Each side grows by ``widen`` times the cluster's width (default
        :data:`DEFAULT_WIDEN`), but not past the middle of the gap to the neighbouring
        cluster (windows never overlap) nor, with ``coverage``, the commonly covered
        bases. 0 keeps the cluster's span.

    Returns
    -------
    DataFrame
        :data:`WINDOW_COLUMNS`: ``window_id`` (``chrom:start-end`` of the window),
        the window ``chrom, chromStart, chromEnd``, the cluster's span
        ``clusterStart, clusterEnd``, and how many peaks and samples it holds.

    Raises
    ------
    ValueError
        On no peaks, a negative or non-finite ``widen``, peaks on a chromosome a
        sample of ``coverage`` does not cover, or a cluster beyond a sample's coverage.

    Examples
    --------
    >>> p = pd.DataFrame({"sample_id": ["a", "b", "a"], "chrom": "chr1",
    ...                   "chromStart": [100, 110, 150], "chromEnd": [120, 130, 160]})
    >>> joint_windows(p)[["chromStart", "chromEnd", "clusterStart", "clusterEnd"]
    ...                  ].values.tolist()
    [[70, 140, 100, 130], [140, 170, 150, 160]]
    """
    if isinstance(widen, (bool, np.bool_)) or not isinstance(widen, (int, float, np.number)) \
            or not np.isfinite(widen) or widen < 0:
        raise ValueError(f"widen must be a finite number >= 0, got {widen!r}")
    cl = joint_clusters(peaks)
    width = (cl["chromEnd"] - cl["chromStart"]).to_numpy(np.int64)
    grow = np.floor(width * float(widen)).astype(np.int64)
    start = cl["chromStart"].to_numpy(np.int64) - grow
    end = cl["chromEnd"].to_numpy(np.int64) + grow
    same = (cl["chrom"].to_numpy()[1:] == cl["chrom"].to_numpy()[:-1])
    mid = (cl["chromEnd"].to_numpy(np.int64)[:-1] + cl["chromStart"].to_numpy(np.int64)[1:]) // 2
    end[:-1] = np.where(same, np.minimum(end[:-1], mid), end[:-1])
    start[1:] = np.where(same, np.maximum(start[1:], mid), start[1:])
    start = np.maximum(start, 0)
    if coverage is not None:
        start, end = _clip_to_coverage(cl, start, end, coverage)
    out = cl.rename(columns={"chromStart": "clusterStart", "chromEnd": "clusterEnd"})
    out.insert(1, "chromStart", start)
    out.insert(2, "chromEnd", end)
    out.insert(0, "window_id", [f"{c}:{s}-{e}" for c, s, e in
                                zip(out["chrom"], start, end)])
    return out[WINDOW_COLUMNS].reset_index(drop=True)


def _clip_to_coverage(cl: pd.DataFrame, start, end, coverage):
    spans = coverage_spans(coverage)
    spans["sample_id"] = spans["sample_id"].astype(str)
    samples = list(pd.unique(spans["sample_id"]))
    common = spans.groupby("chrom", sort=False).agg(
        first=("first", "max"), last=("last", "min"), n=("sample_id", "nunique"))
    start, end = start.copy(), end.copy()
    for i, r in enumerate(cl.itertuples(index=False)):
        region = f"{r.chrom}:{r.chromStart}-{r.chromEnd}"
        if r.chrom not in common.index or common.loc[r.chrom, "n"] < len(samples):
            have = set(spans.loc[spans["chrom"] == r.chrom, "sample_id"])
            missing = [s for s in samples if s not in have]
            raise ValueError(f"the cluster of peaks {region} is on {r.chrom}, which sample "
                             f"{missing[0]!r} has no coverage of: every sample must cover "
                             "every joint window")
        first, last = int(common.loc[r.chrom, "first"]), int(common.loc[r.chrom, "last"])
        if r.chromStart < first or r.chromEnd > last:
            sp = spans[spans["chrom"] == r.chrom]
            short = sp[(sp["first"] > r.chromStart) | (sp["last"] < r.chromEnd)].iloc[0]
            raise ValueError(
                f"the cluster of peaks {region} reaches beyond the coverage of sample "
                f"{short['sample_id']!r} ({r.chrom}:{int(short['first'])}-"
                f"{int(short['last'])}): every sample must cover every joint window")
        start[i], end[i] = max(start[i], first), min(end[i], last)
    return start, end


def window_coverage(coverage: pd.DataFrame, windows: pd.DataFrame, *,
                    groups: Mapping | None = None, gaps: str = "fill"):
    """Yield ``(window_id, window)``: every sample's coverage of each joint window.

    Each sample's rows of the chromosome (zero-coverage gaps filled with zero counts
    first, or refused with ``gaps="error"``) are cut to the window, so that every sample
    covers exactly the window's bases, the input of :func:`penlearn.joint_peak`.

    Parameters
    ----------
    coverage : DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count``.
    windows : DataFrame
        ``window_id, chrom, chromStart, chromEnd`` (as :func:`joint_windows` returns).
    groups : mapping, optional
        ``sample_id -> group`` (e.g. cell types): the window tables get a ``group``
        column.
    gaps : {"fill", "error"}
        As for :func:`~penlearn.peaks.peakseg.contigs.fill_gaps`.

    Yields
    ------
    window_id : str
    window : DataFrame
        ``sample_id, chromStart, chromEnd, count[, group]``, samples in coverage order.

    Raises
    ------
    ValueError
        When a sample does not cover the whole window (one line naming both).

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
    ...                     "chromStart": [0, 10, 0], "chromEnd": [10, 30, 30],
    ...                     "count": [1, 5, 2]})
    >>> win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [5],
    ...                     "chromEnd": [20]})
    >>> [(w, t.values.tolist()) for w, t in window_coverage(cov, win)]
    [('w', [['a', 5, 10, 1], ['a', 10, 20, 5], ['b', 5, 20, 2]])]
    """
    cols = ["sample_id", "chrom", "chromStart", "chromEnd", "count"]
    require_columns(coverage, cols, "coverage")
    require_columns(windows, ["window_id", "chrom", "chromStart", "chromEnd"], "windows")
    samples = [str(s) for s in pd.unique(coverage["sample_id"])]
    by: dict = {}
    for (sid, chrom), g in coverage.groupby(["sample_id", "chrom"], sort=False):
        by[(str(sid), str(chrom))] = g
    filled: dict = {}
    for w in windows.itertuples(index=False):
        parts = []
        for sid in samples:
            key = (sid, str(w.chrom))
            if key not in filled:
                if key not in by:
                    raise ValueError(f"sample {sid!r} has no coverage of {w.chrom}: it does "
                                     f"not cover the joint window {w.window_id}")
                filled[key] = fill_gaps(by[key], gaps,
                                        name=f"coverage of sample {sid!r}, {w.chrom}")
            g = filled[key]
            lo, hi = g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64)
            if lo[0] > w.chromStart or hi[-1] < w.chromEnd:
                raise ValueError(f"sample {sid!r} covers {w.chrom}:{lo[0]}-{hi[-1]} only: it "
                                 f"does not cover the joint window {w.window_id}")
            a = int(np.searchsorted(hi, w.chromStart, side="right"))
            b = int(np.searchsorted(lo, w.chromEnd, side="left"))
            part = pd.DataFrame({"sample_id": sid,
                                 "chromStart": np.maximum(lo[a:b], w.chromStart),
                                 "chromEnd": np.minimum(hi[a:b], w.chromEnd),
                                 "count": g["count"].to_numpy()[a:b]})
            if groups is not None:
                part["group"] = str(groups[sid])
            parts.append(part)
        yield w.window_id, pd.concat(parts, ignore_index=True)
