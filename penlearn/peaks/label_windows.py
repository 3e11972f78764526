"""The windows labels are given in and proposed in: one genomic region, common to all
samples, shown at a time by the labeling page (:mod:`penlearn.label`) and written by
``penlearn propose`` (:func:`penlearn.peaks.propose.propose_windows`).

The page's windows are cut like the shipped model's training windows
(:func:`penlearn.peaks.pretrained.default_windows`: each chromosome cut at zero-coverage
runs of 50 kb, here over the union of the samples) and then into equal parts of at most
``window_bases``; each (sample, window) is one labeled sequence of the learning problem,
and the unit of the proposals: :func:`unlabeled_sequences` is the one rule of which
(sample, window)s are left to propose, for the page's "Next" and ``penlearn propose``
alike. The unit is the (sample, window), not the window of all samples, because a label
is one sample's: the labels of 10 samples of a window say nothing of what the 17 others
show there; each (sample, window) is one sequence of the learning problem (and of the
UCI sets the rule was measured on, ``benchmarks/RESULTS.md`` "few_labels"); and the rule
already weighs down the samples of a region labeled in another sample
(:data:`~penlearn.learn.propose.REGION_SPREAD`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn.peaks.peakseg.contigs import coverage_problems, fill_gaps
from penlearn.peaks.peakseg.features import window_id
from penlearn.peaks.pretrained import default_windows

__all__ = ["DEFAULT_WINDOW_BASES", "label_hits", "page_windows", "reads_span",
           "sequence_features", "unlabeled_sequences", "window_coverage", "window_ids"]

#: Default width of a page window (bases): a few broad peaks or many sharp ones in view.
DEFAULT_WINDOW_BASES = 200_000


def page_windows(coverage: pd.DataFrame, window_bases: int = DEFAULT_WINDOW_BASES
                 ) -> pd.DataFrame:
    """The windows the page shows, in genome order: ``chrom, chromStart, chromEnd``.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count``.
    window_bases : int
        Longest window; a covered stretch longer than this is cut into equal parts.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
    ...                     "chromStart": [0, 100, 50], "chromEnd": [100, 400, 300],
    ...                     "count": [1, 2, 3]})
    >>> page_windows(cov, 200).values.tolist()
    [['chr1', 0, 200], ['chr1', 200, 400]]
    """
    if isinstance(window_bases, bool) or not isinstance(window_bases, (int, np.integer)) \
            or window_bases < 1:
        raise ValueError(f"window_bases must be an integer >= 1, got {window_bases!r}")
    pieces = default_windows(coverage, max_bases=math.inf)
    rows = []
    for chrom, g in pieces.groupby("chrom", sort=False):
        g = g.sort_values("chromStart")
        merged: list[list[int]] = []
        for a, b in zip(g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64)):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], int(b))
            else:
                merged.append([int(a), int(b)])
        for a, b in merged:
            k = max(1, math.ceil((b - a) / window_bases))
            edges = [a + (b - a) * i // k for i in range(k + 1)]
            rows += [(str(chrom), edges[i], edges[i + 1]) for i in range(k)]
    return pd.DataFrame(rows, columns=["chrom", "chromStart", "chromEnd"])


def window_coverage(coverage: pd.DataFrame, windows: pd.DataFrame
                    ) -> dict[tuple[str, int], pd.DataFrame]:
    """Each (sample, window)'s coverage rows, gaps filled with zeros and clipped to the
    window: ``{(sample_id, window index): chrom, chromStart, chromEnd, count}`` (pairs
    without a read row left out).

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": [0, 150],
    ...                     "chromEnd": [100, 400], "count": [1, 2]})
    >>> w = window_coverage(cov, page_windows(cov, 200))
    >>> w[("a", 0)][["chromStart", "chromEnd", "count"]].values.tolist()
    [[0, 100, 1], [100, 150, 0], [150, 200, 2]]
    """
    out = {}
    for sid, chrom, g in coverage_problems(coverage):
        filled = fill_gaps(g[["chrom", "chromStart", "chromEnd", "count"]],
                           name=f"coverage of sample {sid!r}, {chrom}")
        lo = filled["chromStart"].to_numpy(np.int64)
        hi = filled["chromEnd"].to_numpy(np.int64)
        for i in np.flatnonzero(windows["chrom"].to_numpy() == str(chrom)):
            a, b = int(windows["chromStart"].iat[i]), int(windows["chromEnd"].iat[i])
            first, last = np.searchsorted(hi, a, side="right"), np.searchsorted(lo, b)
            if first >= last:
                continue
            part = filled.iloc[first:last].copy()
            part["chromStart"] = np.maximum(part["chromStart"].to_numpy(np.int64), a)
            part["chromEnd"] = np.minimum(part["chromEnd"].to_numpy(np.int64), b)
            out[(str(sid), int(i))] = part.reset_index(drop=True)
    return out


def reads_span(table: pd.DataFrame) -> pd.DataFrame:
    """A (sample, window)'s coverage rows from its first read to its last (all of them
    when it has none): the problem ``penlearn peaks`` solves there
    (:func:`~penlearn.peaks.pretrained.default_windows` starts and ends windows at reads),
    so that the page's zero-label peaks are that command's.

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "c", "chromStart": [0, 5, 9], "chromEnd": [5, 9, 12],
    ...                   "count": [0, 3, 0]})
    >>> reads_span(t)[["chromStart", "chromEnd"]].values.tolist()
    [[5, 9]]
    """
    reads = np.flatnonzero(table["count"].to_numpy() > 0)
    if len(reads) == 0 or (reads[0] == 0 and reads[-1] == len(table) - 1):
        return table
    return table.iloc[reads[0]:reads[-1] + 1].reset_index(drop=True)


def sequence_features(coverage: pd.DataFrame, sequences: pd.DataFrame,
                      tables: dict | None = None) -> pd.DataFrame:
    """The coverage features of each (sample, window) of ``sequences`` (rows of
    :func:`window_ids`), indexed by ``sequence_id``: those of the window ``penlearn
    peaks`` solves that region in (the :func:`~penlearn.peaks.pretrained.default_windows`
    of the sample's coverage that holds most of the (sample, window)'s reads' span,
    :func:`reads_span` of its :func:`window_coverage` table, ``tables`` if computed), so
    that the page's and ``penlearn propose``'s zero-label log λ is ``penlearn peaks`` one
    wherever the page cuts a longer stretch of coverage into pieces for display; the one
    place the page and ``propose`` get the features their log λ comes from.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": [0, 50],
    ...                     "chromEnd": [50, 100], "count": [0, 4]})
    >>> seqs = window_ids(["a"], page_windows(cov, 1000))
    >>> float(sequence_features(cov, seqs)["bases"].iloc[0])
    50.0
    """
    import warnings

    from penlearn.peaks.peakseg.features import coverage_features

    if tables is None:
        tables = window_coverage(coverage, page_windows_of(sequences))
    span = [reads_span(tables[(str(r.sample_id), int(r.window))])
            for r in sequences.itertuples(index=False)]
    rows = sequences.assign(chromStart=[int(t["chromStart"].iat[0]) for t in span],
                            chromEnd=[int(t["chromEnd"].iat[-1]) for t in span])
    rows = _enclosing_windows(coverage, rows)
    unique = rows.drop_duplicates(["sample_id", "chrom", "chromStart", "chromEnd"])
    unique = unique.assign(sequence_id=[f"w{i}" for i in range(len(unique))])
    key = ["sample_id", "chrom", "chromStart", "chromEnd"]
    of = rows[key + ["sequence_id"]].merge(
        unique[key + ["sequence_id"]].rename(columns={"sequence_id": "w"}), on=key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # log of 0 features of empty windows
        feats = coverage_features(coverage, unique[key + ["sequence_id"]])
    out = feats.loc[of["w"].to_numpy()]
    out.index = pd.Index(of["sequence_id"].to_numpy(), name=feats.index.name)
    return out.loc[rows["sequence_id"].to_numpy()]


def _enclosing_windows(coverage: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (``sample_id, chrom, chromStart, chromEnd, sequence_id``) with their
    coordinates replaced by those of the ``penlearn peaks`` window
    (:func:`~penlearn.peaks.pretrained.default_windows`) overlapping each the most (a
    row overlapping none keeps its own)."""
    cov = coverage if "sample_id" in coverage.columns else coverage.assign(
        sample_id=rows["sample_id"].iat[0])
    own = default_windows(cov)
    own = own.assign(sample_id=own["sample_id"].astype(str), chrom=own["chrom"].astype(str))
    r = rows.assign(sample_id=rows["sample_id"].astype(str), chrom=rows["chrom"].astype(str),
                    _row=np.arange(len(rows)))
    m = r[["_row", "sample_id", "chrom", "chromStart", "chromEnd"]].merge(
        own, on=["sample_id", "chrom"], suffixes=("", "_w"))
    overlap = (np.minimum(m["chromEnd"], m["chromEnd_w"])
               - np.maximum(m["chromStart"], m["chromStart_w"]))
    m = m.assign(_overlap=overlap.to_numpy())
    m = m[m["_overlap"] > 0].sort_values(["_row", "_overlap"], ascending=[True, False])
    best = m.drop_duplicates("_row").set_index("_row")
    start = r["chromStart"].to_numpy(np.int64).copy()
    end = r["chromEnd"].to_numpy(np.int64).copy()
    idx = best.index.to_numpy()
    start[idx] = best["chromStart_w"].to_numpy(np.int64)
    end[idx] = best["chromEnd_w"].to_numpy(np.int64)
    return rows.assign(chromStart=start, chromEnd=end)


def page_windows_of(sequences: pd.DataFrame) -> pd.DataFrame:
    """The windows table (``chrom, chromStart, chromEnd``, in window-index order) of
    :func:`window_ids` rows."""
    w = sequences.drop_duplicates("window").sort_values("window")
    windows = pd.DataFrame({"chrom": w["chrom"].to_numpy(),
                            "chromStart": w["chromStart"].to_numpy(),
                            "chromEnd": w["chromEnd"].to_numpy()},
                           index=w["window"].to_numpy())
    return windows.reindex(range(int(w["window"].max()) + 1))


def window_ids(samples, windows: pd.DataFrame) -> pd.DataFrame:
    """The (sample, window) table with the learning sequence ids: ``sample_id, chrom,
    chromStart, chromEnd, window, sequence_id`` (ids of
    :func:`~penlearn.peaks.peakseg.features.window_id`).

    Examples
    --------
    >>> w = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "chromEnd": [9]})
    >>> window_ids(["a"], w)["sequence_id"].tolist()
    ['a/chr1:0-9']
    """
    rows = [(str(s), str(w.chrom), int(w.chromStart), int(w.chromEnd), i,
             window_id(s, w.chrom, w.chromStart, w.chromEnd))
            for i, w in enumerate(windows.itertuples(index=False)) for s in samples]
    return pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                       "window", "sequence_id"])


def label_hits(ids: pd.DataFrame, labels: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray]:
    """Which (sample, window)s of ``ids`` a label overlaps, and how many of them each
    label overlaps.

    Parameters
    ----------
    ids : DataFrame
        ``sample_id, chrom, chromStart, chromEnd`` (as :func:`window_ids`).
    labels : DataFrame or None
        ``[sample_id,] chrom, chromStart, chromEnd``: a label with a sample overlaps that
        sample's windows; a table without ``sample_id`` labels every sample.

    Returns
    -------
    (labeled, hits) : ndarray of bool (one per row of ``ids``), ndarray of int (one per
        label: 0 for a label in no window)

    Examples
    --------
    >>> w = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [0, 100],
    ...                   "chromEnd": [100, 200]})
    >>> ids = window_ids(["a", "b"], w)
    >>> lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [150],
    ...                     "chromEnd": [160]})
    >>> labeled, hits = label_hits(ids, lab)
    >>> ids.loc[labeled, "sequence_id"].tolist(), hits.tolist()
    (['a/chr1:100-200'], [1])
    """
    labeled = np.zeros(len(ids), bool)
    if labels is None or len(labels) == 0:
        return labeled, np.zeros(0, np.int64)
    for c in ("chrom", "chromStart", "chromEnd"):
        if c not in labels.columns:
            raise ValueError(f"labels: no {c!r} column (expected [sample_id,] chrom, "
                             "chromStart, chromEnd, annotation)")
    chrom = ids["chrom"].astype(str).to_numpy()
    a, b = ids["chromStart"].to_numpy(np.int64), ids["chromEnd"].to_numpy(np.int64)
    sample = ids["sample_id"].astype(str).to_numpy()
    by_sample = "sample_id" in labels.columns
    hits = np.zeros(len(labels), np.int64)
    for j, r in enumerate(labels.itertuples(index=False)):
        m = (chrom == str(r.chrom)) & (a < int(r.chromEnd)) & (b > int(r.chromStart))
        if by_sample:
            m &= sample == str(r.sample_id)
        hits[j] = int(m.sum())
        labeled |= m
    return labeled, hits


def unlabeled_sequences(ids: pd.DataFrame, labels: pd.DataFrame | None) -> pd.Index:
    """The (sample, window)s left to propose: the ``sequence_id`` of every row of
    ``ids`` that no label overlaps (:func:`label_hits`), in the order of ``ids``.

    The one candidate rule of the labeling page's "Next" and of ``penlearn propose``:
    each proposes one of these while any is left, and says nothing is left only when
    none is (the page prefers those not left with "Next" in the session, and goes back
    to them when every other holds a label).

    Examples
    --------
    >>> w = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "chromEnd": [100]})
    >>> ids = window_ids(["a", "b"], w)
    >>> lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [10],
    ...                     "chromEnd": [20]})
    >>> unlabeled_sequences(ids, lab).tolist()  # b's labels are still to give
    ['b/chr1:0-100']
    """
    labeled, _ = label_hits(ids, labels)
    return pd.Index(ids.loc[~labeled, "sequence_id"].to_numpy(), name="sequence_id")
