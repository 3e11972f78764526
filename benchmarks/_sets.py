"""The labeled data sets of ``all_sets.py`` and their test folds.

Two fold schemes:

- ``given``: the folds that come with each set — ChIP-seq ``equal_labels`` (4 folds of
  whole ``chr:start-end`` problems), neuroblastoma ``profileID`` (6 folds of patients),
  the coverage set's 4 folds of 2 samples;
- ``regions``: K folds (default 4) of whole genomic regions drawn here with a fixed seed —
  the region of a sequence is the ``chr:start-end`` part of a ChIP-seq id
  (``<set>/samples/<group>/<sample>/problems/<chr:start-end>``), the chromosome of a
  neuroblastoma id (``<profile>_chr<Z>``), the window of a coverage-set id
  (``<sample>/<chr:start-end>``). Every sequence of a region lands in the same fold, so a
  test fold is regions no training sequence comes from: a user labels a few regions and
  predicts on the rest of the genome. Regions are taken in a seeded random order and each
  goes to the fold with the fewest labels so far (folds of about equal label counts, as
  ``equal_labels``); a set with fewer than K regions gets one fold per region. The
  coverage set is left out of this scheme: its 8 windows are per-sample extents of one
  chr21 chunk (one genomic region), so no fold of it can hold out a region.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._folds import check_n_folds, deal_folds
from penlearn.learn.groups import sequence_region

CHIPSEQ = [
    "ATAC_JV_adipose", "CTCF_TDH_ENCODE", "H3K27ac-H3K4me3_TDHAM_BP", "H3K27ac_TDH_some",
    "H3K27me3_RL_cancer", "H3K27me3_TDH_some", "H3K36me3_AM_immune", "H3K36me3_TDH_ENCODE",
    "H3K36me3_TDH_immune", "H3K36me3_TDH_other", "H3K4me1_TDH_BP", "H3K4me3_PGP_immune",
    "H3K4me3_TDH_ENCODE", "H3K4me3_TDH_immune", "H3K4me3_TDH_other", "H3K4me3_XJ_immune",
    "H3K9me3_TDH_BP",
]
NEURO = ["systematic", "neuroblastoma_detailed"]
# peak sets computed here from raw coverage and peak labels (chipseq_raw/): the error
# functions of the PeakSeg path of every (sample, window), the 36 coverage features
COVERAGE = {"H3K36me3_TDH_other_chunk1": "chipseq_raw/H3K36me3_TDH_other_chunk1"}
ALL_SETS = CHIPSEQ + NEURO + list(COVERAGE)
FOLD_SCHEMES = ["given", "regions"]
# the sets of each fold scheme (the coverage set is a single genomic region)
SCHEME_SETS = {"given": ALL_SETS, "regions": CHIPSEQ + NEURO}


@lru_cache(maxsize=4)
def load_set(data_dir: str, name: str):
    """(features with all-finite columns, evaluation, given folds, BIC-like column, cv
    type)."""
    from penlearn.datasets import load_uci

    if name in COVERAGE:
        return coverage_set(Path(data_dir) / COVERAGE[name])
    if name == "neuroblastoma_detailed":
        ds = load_uci(Path(data_dir) / "detailed")
        feats = load_uci(Path(data_dir) / "systematic").inputs
        ids = feats.index.intersection(pd.Index(ds.evaluation["sequence_id"].unique()))
        ev = ds.evaluation[ds.evaluation["sequence_id"].isin(ids)]
        folds = ds.folds["profileID"]
        folds = folds[folds["sequence_id"].isin(ids)]
        X, bic, cv = feats.loc[sorted(ids)], "log2.n", "profileID"
    else:
        ds = load_uci(Path(data_dir) / name)
        cv = "profileID" if name == "systematic" else "equal_labels"
        X, ev, folds = ds.inputs, ds.evaluation, ds.folds[cv]
        bic = "log2.n" if name == "systematic" else "log.log.data"
    finite = np.isfinite(X.to_numpy(float)).all(axis=0)
    return X.loc[:, finite], ev.reset_index(drop=True), folds, X[bic], cv


def coverage_set(folder: Path):
    """``load_set`` of a peak set from coverage: error functions of every sample's
    PeakSeg path (``peak_error_functions``, exact down to its default bound), the 36
    coverage features, 4 test folds of 2 samples each (samples k and k + 4 in file order:
    each fold holds out a kidney and a muscle sample when the file lists the 2 kidney
    samples first)."""
    import penlearn

    cov = penlearn.read_coverage(folder / "coverage.csv.gz")
    labels = penlearn.read_peak_labels(folder / "labels.csv")
    ev = penlearn.peak_error_functions(cov, labels, progress=False)
    X = penlearn.coverage_features(cov)
    samples = list(pd.unique(cov["sample_id"]))
    fold_of = {smp: i % 4 + 1 for i, smp in enumerate(samples)}
    ids = sorted(ev["sequence_id"].unique())
    X = X.loc[ids]
    folds = pd.DataFrame({"sequence_id": ids,
                          "fold": [fold_of[i.split("/")[0]] for i in ids]})
    finite = np.isfinite(X.to_numpy(float)).all(axis=0)
    return X.loc[:, finite], ev.reset_index(drop=True), folds, X["log.log.data"], "samples"


def region_of(sequence_id: str) -> str:
    """The genomic region of a sequence id: the trailing ``chr:start-end`` of a ChIP-seq
    or coverage-set id (:func:`penlearn.learn.groups.sequence_region`), the ``chr<Z>``
    part of a neuroblastoma id.

    >>> region_of("H3K9me3_TDH_BP/samples/bcell/ERS206573/problems/chr4:68270000-75427379")
    'chr4:68270000-75427379'
    >>> region_of("100_chr17")
    'chr17'
    """
    if not isinstance(sequence_id, str) or not sequence_id:
        raise ValueError(f"sequence id {sequence_id!r}: expected a non-empty string")
    region = sequence_region(sequence_id)  # the library's rule (region_groups)
    if region is not None:
        return region
    head, sep, chrom = sequence_id.rpartition("_")
    if not sep or not chrom.startswith("chr"):
        raise ValueError(f"sequence id {sequence_id!r}: expected '<set>/.../<chr:start-end>' "
                         "or '<profile>_chr<Z>'")
    return chrom


def region_folds(labels: pd.Series, n_folds: int = 4, seed: int = 1) -> pd.DataFrame:
    """K folds of whole regions with about equal label counts.

    Parameters
    ----------
    labels : Series
        Number of labels per sequence, indexed by sequence id (ids as ``region_of``
        reads them).
    n_folds : int
        K; a set with fewer regions gets one fold per region.
    seed : int
        Seeds the random order in which regions are dealt out.

    Returns
    -------
    DataFrame
        ``sequence_id, fold`` (folds 1..K), sorted by sequence id.

    Examples
    --------
    >>> s = pd.Series(1, index=["a/chr1:0-9", "b/chr1:0-9", "a/chr2:0-9", "b/chr2:0-9",
    ...                         "a/chr3:0-9"])
    >>> f = region_folds(s, n_folds=2, seed=0)
    >>> int(f.groupby(f["sequence_id"].map(region_of))["fold"].nunique().max())
    1
    """
    check_n_folds("n_folds", n_folds)
    region = pd.Series([region_of(s) for s in labels.index], index=labels.index)
    k = min(int(n_folds), region.nunique())
    if k < 2:
        raise ValueError(f"only {region.nunique()} region(s): cannot make test folds")
    # whole regions dealt in a random order, each to the fold of fewest labels so far
    fold = deal_folds(region.sort_values(kind="stable"), k, seed, weights=labels) + 1
    ids = sorted(labels.index)
    return pd.DataFrame({"sequence_id": ids, "fold": fold.loc[ids].to_numpy()})


@lru_cache(maxsize=8)
def fold_table(data_dir: str, name: str, scheme: str = "given", n_folds: int = 4,
               seed: int = 1) -> pd.DataFrame:
    """``sequence_id, fold`` of one set under one fold scheme (see the module docstring)."""
    if scheme not in FOLD_SCHEMES:
        raise ValueError(f"fold scheme {scheme!r}: expected one of {FOLD_SCHEMES}")
    if name not in SCHEME_SETS[scheme]:
        raise ValueError(f"set {name!r} has no {scheme!r} folds (one genomic region)")
    X, ev, folds = load_set(data_dir, name)[:3]
    if scheme == "given":
        return folds
    labels = ev.groupby("sequence_id")["labels"].max().reindex(X.index)
    return region_folds(labels, n_folds=n_folds, seed=seed)


def regions(ids) -> pd.Series:
    """The region of each id, as a Series indexed by the ids (the learner's groups)."""
    ids = list(ids)
    return pd.Series([region_of(s) for s in ids], index=ids, name="region")

# what each fold scheme is, in all_sets.py's report
SCHEME_TEXT = {
    "given": "the sets' own folds (ChIP-seq: 4 folds of `equal_labels`, whole regions; "
             "neuroblastoma: 6 folds of `profileID`; coverage set: 4 folds of samples)",
    "regions": "K folds of whole genomic regions drawn with a fixed seed (ChIP-seq "
               "`chr:start-end` problems, neuroblastoma chromosomes; not the coverage set, a "
               "single region; `_sets.py`)",
}
