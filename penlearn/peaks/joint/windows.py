"""Joint windows: clusters of overlapping single-sample peaks, widened, and their coverage.

The first steps of the multi-sample pipeline of PeakSegPipeline (Hocking & Bourque,
"Machine learning algorithms for simultaneous supervised detection of peaks in multiple
samples and cell types", PSB 2020; PeakSegJoint, Hocking & Bourque, arXiv:1506.01286):

1. single-sample peaks (``penlearn peaks`` writes one BED file per sample) are read
   (:func:`~penlearn.peaks.formats.peak_files.read_peak_files`, the reader of every
   command taking a peaks folder);
2. the peaks of all samples on one chromosome that overlap, directly or through other
   peaks, form a cluster (:func:`joint_clusters`);
3. each cluster's span is widened on both sides so that every sample has background to
   compare the peak with (:func:`joint_windows`);
4. the coverage of every sample over each window, with every sample covering the same
   bases, is what :func:`penlearn.joint_peak` takes (:func:`window_coverage`): bases a
   sample has no row for are zeros, as in :func:`penlearn.joint_peak` (``bedtools
   genomecov -bg`` leaves zero runs out, trailing ones too, and a sample without reads on
   a chromosome has no rows there).

Widening (``widen``, a fraction of the cluster's width, default
:data:`DEFAULT_WIDEN`): each side grows by ``widen × width`` bases, but never past the
middle of the gap to the next cluster (windows never overlap, so the joint peaks of two
windows never do either) nor beyond the bases that some sample covers on the chromosome.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.peakseg.contigs import fill_gaps

__all__ = ["DEFAULT_WIDEN", "MAX_WIDEN", "WINDOW_COLUMNS", "coverage_spans", "joint_clusters",
           "iter_window_tables", "joint_windows", "window_coverage", "window_tables"]

#: Default widening of a cluster, each side, as a fraction of its width. 1.0 gives a
#: window three times the cluster: as many background bases on each side as the peak
#: region holds, so a sample's inside mean is compared with as much background as
#: peak, whatever the mark's peak width (H3K4me3's 1-kb peaks as H3K36me3's 50-kb ones).
DEFAULT_WIDEN = 1.0

#: The largest ``widen``: each side of a window at most a million times its cluster (a
#: window is clipped to the mid-gaps and the coverage anyway; beyond, positions would
#: overflow int64 before the clipping).
MAX_WIDEN = 1e6

WINDOW_COLUMNS = ["window_id", "chrom", "chromStart", "chromEnd", "clusterStart",
                  "clusterEnd", "n_peaks", "n_samples"]

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
                  widen: float = DEFAULT_WIDEN, spans: pd.DataFrame | None = None
                  ) -> pd.DataFrame:
    """The joint windows: each cluster of overlapping peaks, widened on both sides.

    Parameters
    ----------
    peaks : DataFrame
        ``sample_id, chrom, chromStart, chromEnd``: the single-sample peaks of every
        sample (e.g. :func:`~penlearn.peaks.formats.peak_files.read_peak_files` of a
        ``penlearn peaks`` folder).
    coverage : DataFrame, optional
        ``sample_id, chrom, chromStart, chromEnd, ...``: windows are then clipped to the
        bases that some sample covers on the chromosome (from the first ``chromStart``
        to the last ``chromEnd`` of all samples); the bases a sample has no row for are
        zeros (:func:`window_coverage`).
    widen : float
        Each side grows by ``widen`` times the cluster's width (default
        :data:`DEFAULT_WIDEN`, at most :data:`MAX_WIDEN`), but not past the middle of the
        gap to the neighbouring cluster (windows never overlap) nor, with ``coverage``,
        the covered bases. 0 keeps the cluster's span.
    spans : DataFrame, optional
        Instead of ``coverage``, its :func:`coverage_spans` (coverage read a chromosome
        at a time: the same windows).

    Returns
    -------
    DataFrame
        :data:`WINDOW_COLUMNS`: ``window_id`` (``chrom:start-end`` of the window),
        the window ``chrom, chromStart, chromEnd``, the cluster's span
        ``clusterStart, clusterEnd``, and how many peaks and samples it holds.

    Raises
    ------
    ValueError
        On no peaks, a ``widen`` not in [0, :data:`MAX_WIDEN`], or a cluster of peaks
        on a chromosome, or beyond the bases, that no sample of ``coverage`` covers.

    Examples
    --------
    >>> p = pd.DataFrame({"sample_id": ["a", "b", "a"], "chrom": "chr1",
    ...                   "chromStart": [100, 110, 150], "chromEnd": [120, 130, 160]})
    >>> joint_windows(p)[["chromStart", "chromEnd", "clusterStart", "clusterEnd"]
    ...                  ].values.tolist()
    [[70, 140, 100, 130], [140, 170, 150, 160]]
    """
    check_widen(widen)
    cl = joint_clusters(peaks)
    width = (cl["chromEnd"] - cl["chromStart"]).to_numpy(np.int64)
    # caps before casts: a window side never beyond 2**62 bases (no int64 overflow)
    grow = np.minimum(np.floor(width * float(widen)), 2.0 ** 62).astype(np.int64)
    start = np.maximum(cl["chromStart"].to_numpy(np.int64) - grow, 0)
    end = cl["chromEnd"].to_numpy(np.int64)
    end = end + np.minimum(grow, np.iinfo(np.int64).max - end)
    same = (cl["chrom"].to_numpy()[1:] == cl["chrom"].to_numpy()[:-1])
    mid = (cl["chromEnd"].to_numpy(np.int64)[:-1] + cl["chromStart"].to_numpy(np.int64)[1:]) // 2
    end[:-1] = np.where(same, np.minimum(end[:-1], mid), end[:-1])
    start[1:] = np.where(same, np.maximum(start[1:], mid), start[1:])
    if coverage is not None or spans is not None:
        start, end = _clip_to_coverage(cl, start, end, coverage_spans(coverage)
                                       if spans is None else spans)
    out = cl.rename(columns={"chromStart": "clusterStart", "chromEnd": "clusterEnd"})
    out.insert(1, "chromStart", start)
    out.insert(2, "chromEnd", end)
    out.insert(0, "window_id", [f"{c}:{s}-{e}" for c, s, e in
                                zip(out["chrom"], start, end)])
    return out[WINDOW_COLUMNS].reset_index(drop=True)


def check_widen(widen) -> float:
    """``widen`` checked: a number from 0 to :data:`MAX_WIDEN` (before any arithmetic).

    Examples
    --------
    >>> check_widen(1)
    1.0
    """
    if isinstance(widen, (bool, np.bool_)) or not isinstance(widen, (int, float, np.number)) \
            or not 0 <= widen <= MAX_WIDEN:
        raise ValueError(f"widen must be a number from 0 to {MAX_WIDEN:g} (times the width "
                         f"of a cluster of peaks), got {widen!r}")
    return float(widen)


def _clip_to_coverage(cl: pd.DataFrame, start, end, spans: pd.DataFrame):
    """Windows clipped to the bases some sample covers on their chromosome (``spans``:
    :func:`coverage_spans`)."""
    extent = spans.groupby(spans["chrom"].astype(str), sort=False).agg(
        first=("first", "min"), last=("last", "max"))
    start, end = start.copy(), end.copy()
    for i, r in enumerate(cl.itertuples(index=False)):
        region = f"{r.chrom}:{r.chromStart}-{r.chromEnd}"
        if r.chrom not in extent.index:
            raise ValueError(f"the cluster of peaks {region} is on {r.chrom}, which no "
                             "sample of the coverage covers (peaks of other coverage?)")
        first, last = int(extent.loc[r.chrom, "first"]), int(extent.loc[r.chrom, "last"])
        if r.chromStart < first or r.chromEnd > last:
            raise ValueError(f"the cluster of peaks {region} reaches beyond the coverage of "
                             f"every sample ({r.chrom}:{first}-{last}; peaks of other "
                             "coverage?)")
        start[i], end[i] = max(start[i], first), min(end[i], last)
    return start, end


def window_coverage(coverage: pd.DataFrame, windows: pd.DataFrame, *,
                    groups: Mapping | None = None, gaps: str = "fill",
                    samples: list | None = None):
    """Yield ``(window_id, window)``: every sample's coverage of each joint window.

    Each sample's rows of the chromosome (zero-coverage gaps filled with zero counts
    first, or refused with ``gaps="error"``) are cut to the window, and the bases of the
    window before its first row or after its last one (a sample's coverage may end
    earlier: ``bedtools genomecov -bg`` leaves out trailing zeros) get a zero-count row,
    so that every sample covers exactly the window's bases, the input of
    :func:`penlearn.joint_peak`. A sample with no row on the window's chromosome is all
    zeros there.

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
        As for :func:`~penlearn.peaks.peakseg.contigs.fill_gaps` (``"error"`` also
        refuses a window beyond a sample's rows).
    samples : list, optional
        The sample ids, in their order (default: those of ``coverage``); a sample
        without rows in ``coverage`` (e.g. one chromosome's rows) is all zeros.

    Yields
    ------
    window_id : str
    window : DataFrame
        ``sample_id, chromStart, chromEnd, count[, group]``, samples in coverage order.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
    ...                     "chromStart": [0, 10, 0], "chromEnd": [10, 30, 12],
    ...                     "count": [1, 5, 2]})
    >>> win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [5],
    ...                     "chromEnd": [20]})
    >>> [(w, t.values.tolist()) for w, t in window_coverage(cov, win)]
    [('w', [['a', 5, 10, 1], ['a', 10, 20, 5], ['b', 5, 12, 2], ['b', 12, 20, 0]])]
    """
    cols = ["sample_id", "chrom", "chromStart", "chromEnd", "count"]
    require_columns(coverage, cols, "coverage")
    require_columns(windows, ["window_id", "chrom", "chromStart", "chromEnd"], "windows")
    samples = [str(s) for s in (pd.unique(coverage["sample_id"]) if samples is None
                                else samples)]
    # the rows of each (sample, chromosome), taken when its first window comes and
    # dropped when the windows move to another chromosome (not a copy of the table)
    rows = {(str(sid), str(chrom)): idx for (sid, chrom), idx in coverage.groupby(
        ["sample_id", "chrom"], sort=False).indices.items()}
    yield from _cut_windows(windows, samples, lambda sid, chrom: None if (
        sid, str(chrom)) not in rows else coverage.iloc[rows[sid, str(chrom)]],
        groups=groups, gaps=gaps)


def _cut_windows(windows: pd.DataFrame, samples: list, rows_of, *, groups, gaps: str):
    """:func:`window_coverage` with ``rows_of(sample, chrom)``: the sample's rows of the
    chromosome (a table), or None; asked once a sample when a chromosome's first window
    comes, in the samples' order, each filled (:func:`~penlearn.peaks.peakseg.contigs.
    fill_gaps`) and kept as arrays until the windows move to another chromosome."""
    filled: dict = {}
    none = np.zeros(0, np.int64)
    for w in windows.itertuples(index=False):
        parts = []
        if filled and next(iter(filled))[1] != str(w.chrom):
            filled.clear()  # (made again if a later window comes back to it)
        for sid in samples:
            key = (sid, str(w.chrom))
            if key not in filled:
                got = rows_of(sid, w.chrom)
                filled[key] = (none, none, none) if got is None else _arrays(fill_gaps(
                    got, gaps, name=f"coverage of sample {sid!r}, {w.chrom}"))
                del got
            lo, hi, count = filled[key]
            if gaps == "error" and (len(lo) == 0 or lo[0] > w.chromStart
                                    or hi[-1] < w.chromEnd):
                raise ValueError(f"sample {sid!r} does not cover all of the joint window "
                                 f"{w.window_id} (gaps='error')")
            a = int(np.searchsorted(hi, w.chromStart, side="right"))
            b = int(np.searchsorted(lo, w.chromEnd, side="left"))
            st = np.maximum(lo[a:b], w.chromStart)
            en = np.minimum(hi[a:b], w.chromEnd)
            c = count[a:b]
            first = st[0] if len(st) else w.chromEnd
            last = en[-1] if len(en) else w.chromEnd
            if first > w.chromStart or last < w.chromEnd:  # bases without rows: zeros
                pre, post = int(first > w.chromStart), int(last < w.chromEnd)
                if len(st) == 0:
                    pre, post, last = 0, 1, w.chromStart
                st = np.concatenate([[w.chromStart] * pre, st, [last] * post])
                en = np.concatenate([[first] * pre, en, [w.chromEnd] * post])
                c = np.concatenate([np.zeros(pre, c.dtype), c, np.zeros(post, c.dtype)])
            part = pd.DataFrame({"sample_id": sid, "chromStart": st.astype(np.int64),
                                 "chromEnd": en.astype(np.int64), "count": c})
            if groups is not None:
                part["group"] = str(groups[sid])
            parts.append(part)
        yield w.window_id, pd.concat(parts, ignore_index=True)


def window_tables(coverage, windows: pd.DataFrame, samples: list, **options) -> list:
    """``(window_id, window coverage)`` of every window (:func:`window_coverage`;
    ``options``: its ``groups`` and ``gaps``); ``coverage`` a table, or a source of
    one sample's rows of one chromosome at a time (``sample_table(chrom, sample)``: its
    rows, or None; each filled and kept as arrays until the windows move to another
    chromosome: the same tables in less memory; ``samples``: the ids in order).
    :func:`iter_window_tables` gives them one at a time.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1", "chromStart": 0,
    ...                     "chromEnd": 10, "count": [1, 3]})
    >>> win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [2],
    ...                     "chromEnd": [6]})
    >>> [(w, t["count"].tolist()) for w, t in window_tables(cov, win, ["a", "b"])]
    [('w', [1, 3])]
    """
    return list(iter_window_tables(coverage, windows, samples, **options))


def iter_window_tables(coverage, windows: pd.DataFrame, samples: list, **options
                       ) -> Iterator[tuple]:
    """:func:`window_tables` one window at a time, each cut when asked (a source's
    chromosome read when its first window is asked, dropped after its last).

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a"], "chrom": "chr1", "chromStart": 0,
    ...                     "chromEnd": 10, "count": [2]})
    >>> win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [2],
    ...                     "chromEnd": [6]})
    >>> next(iter_window_tables(cov, win, ["a"]))[1]["count"].tolist()
    [2]
    """
    if isinstance(coverage, pd.DataFrame):
        yield from window_coverage(coverage, windows, **options)
        return
    require_columns(windows, ["window_id", "chrom", "chromStart", "chromEnd"], "windows")
    yield from _cut_windows(windows, [str(s) for s in samples], lambda sid, chrom:
                            coverage.sample_table(str(chrom), sid),
                            groups=options.get("groups"), gaps=options.get("gaps", "fill"))


def _arrays(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64),
            g["count"].to_numpy())
