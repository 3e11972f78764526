"""A simulation suite of ChIP-seq reads: MACS3's turf, where the truth is known.

One design (:func:`suite_design`) plants, on a genome of ``chroms``, four kinds of
features, never overlapping and at least ``gap`` bases apart:

* **narrow peaks** (binding sites): fragments centred on the site, sd ``spread`` (30 bp);
  ``fold`` is the expected fragment coverage at the site over the genome's background
  coverage (``1 + planted / background``), in the bins :data:`FOLD_BINS` (2-5, 5-10,
  10-20, 20-80; log-uniform inside a bin, :data:`FOLD_SHARES` of the peaks in each);
  one per ``narrow_every`` bases (the feature density: :data:`DENSITIES`, one per 5 kb to
  one per 100 kb);
* **broad domains** (5-30 kb, fold 2-6 over the background, in 1 kb blocks whose level
  varies by a log-normal factor, sd 0.3): one per ``broad_every`` bases;
* **sticky regions** (1-5 kb, fold 3-8: amplified or open chromatin) enriched in the
  treatment **and** the control alike: one per ``sticky_every`` bases;
* **background wobble** (GC-like): the background level changes from region to region,
  regions of 100 kb-1 Mb (log-uniform), level ``exp(N(0, 0.15))`` (normalised to a
  genome mean of 1), shared by the treatment and the control (a property of the genome).

:func:`suite_fragments` draws one sample's fragments at a background ``coverage``
(fragments overlapping a base: :data:`DEPTHS` is the ladder 0.5 / 1.5 / 5, 10× from
lowest to highest): a ``"treatment"`` (every feature), a ``"control"`` (background and
sticky regions only) or a ``"null"`` treatment (drawn as a control is: no peak); a share
``duplicates`` (10 %) of the fragments are PCR duplicates (exact copies). Fragment
lengths are ``N(fragment, fragment / 10)`` (at least 60). :func:`write_suite_bam` writes
them as single-end or paired-end BAM files
(:func:`~penlearn.datasets.chipseq_reads.write_fragments_bam`) and returns the truth
table of that sample: every feature with the fragments planted in it.

Everything is deterministic for a seed. Used by ``benchmarks/sensitivity.py``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn.datasets.chipseq_reads import write_fragments_bam

__all__ = ["DENSITIES", "DEPTHS", "FOLD_BINS", "FOLD_SHARES", "SIZES", "SuiteDesign",
           "suite_design", "suite_fragments", "write_suite_bam"]

#: The depth ladder: background fragment coverage (fragments overlapping a base).
DEPTHS = {"low": 0.5, "mid": 1.5, "high": 5.0}
#: Feature densities: bases per narrow peak.
DENSITIES = {"dense": 5_000, "default": 33_333, "sparse": 100_000}
#: Fold bins of the narrow peaks (left-closed; the last one closed).
FOLD_BINS = ((2.0, 5.0), (5.0, 10.0), (10.0, 20.0), (20.0, 80.0))
#: The share of narrow peaks in each fold bin.
FOLD_SHARES = (0.3, 0.3, 0.2, 0.2)
#: Genomes: ``quick`` (2 Mb) for iteration, ``default`` (4 Mb: 120 narrow peaks, 30 broad
#: domains and 40 sticky regions at the default density), ``long`` (16 Mb: chromosomes 4×
#: longer, the same depth per base; the features as dense, so 4× as many).
SIZES = {"quick": {"chr1": 1_200_000, "chr2": 800_000},
         "default": {"chr1": 2_400_000, "chr2": 1_600_000},
         "long": {"chr1": 9_600_000, "chr2": 6_400_000}}
#: Half-width of a narrow peak's truth interval (its fragments' centres lie inside).
NARROW_HALF = 250
KINDS = ("narrow", "broad", "sticky")


@dataclass(frozen=True)
class SuiteDesign:
    """What is planted where.

    Attributes
    ----------
    chroms : dict
        ``{name: length}``.
    features : DataFrame
        ``kind`` (narrow, broad, sticky), ``chrom, chromStart, chromEnd`` (narrow: the
        centre ± 250), ``centre``, ``fold``, ``fold_bin`` (narrow: e.g. ``"5-10"``, else
        ``""``), in genomic order.
    wobble : DataFrame
        ``chrom, chromStart, chromEnd, level``: the background's relative level
        (genome mean 1).
    blocks : DataFrame
        ``feature, chromStart, chromEnd, level``: the broad domains' 1 kb blocks.
    """

    chroms: dict
    features: pd.DataFrame
    wobble: pd.DataFrame
    blocks: pd.DataFrame

    @property
    def bases(self) -> int:
        """The genome's length."""
        return int(sum(self.chroms.values()))


def _fold_bin(fold: float) -> str:
    for lo, hi in FOLD_BINS:
        if lo <= fold < hi or (hi == FOLD_BINS[-1][1] and fold == hi):
            return f"{lo:g}-{hi:g}"
    return ""


def _narrow_folds(n: int, rng) -> np.ndarray:
    counts = np.floor(np.asarray(FOLD_SHARES) * n).astype(int)
    counts[np.argsort(-np.asarray(FOLD_SHARES), kind="stable")[: n - counts.sum()]] += 1
    folds = [np.exp(rng.uniform(math.log(lo), math.log(hi), k))
             for (lo, hi), k in zip(FOLD_BINS, counts)]
    return np.concatenate(folds)


def suite_design(chroms: dict, *, narrow_every: int = DENSITIES["default"],
                 broad_every: int = 133_333, sticky_every: int = 100_000,
                 broad_width=(5_000, 30_000), sticky_width=(1_000, 5_000),
                 broad_fold=(2.0, 6.0), sticky_fold=(3.0, 8.0), wobble_sd: float = 0.15,
                 wobble_length=(100_000, 1_000_000), gap: int = 2_000,
                 seed: int = 0) -> SuiteDesign:
    """Plant narrow peaks, broad domains, sticky regions and a wobbling background.

    Parameters
    ----------
    chroms : dict
        ``{name: length}``.
    narrow_every, broad_every, sticky_every : int
        Bases per feature of each kind (``round(genome / every)`` of them).
    broad_width, sticky_width, broad_fold, sticky_fold : (low, high)
        Widths (uniform) and folds (log-uniform) of broad domains and sticky regions.
    wobble_sd : float
        sd of the log background level of each wobble region (0: a flat background).
    wobble_length : (low, high)
        Lengths of the wobble regions (log-uniform).
    gap : int
        Fewest bases between two features.
    seed : int
        Same seed, same design.

    Examples
    --------
    >>> d = suite_design(SIZES["quick"], seed=1)
    >>> d.features["kind"].value_counts().to_dict()
    {'narrow': 60, 'sticky': 20, 'broad': 15}
    >>> d.features.groupby("fold_bin").size().to_dict()
    {'': 35, '10-20': 12, '2-5': 18, '20-80': 12, '5-10': 18}
    """
    if not chroms or any(int(v) <= 0 for v in chroms.values()):
        raise ValueError("chroms must map chromosome names to lengths > 0")
    for name, v in (("narrow_every", narrow_every), ("broad_every", broad_every),
                    ("sticky_every", sticky_every)):
        if not v > 0:
            raise ValueError(f"{name} must be > 0, got {v!r}")
    rng = np.random.default_rng(seed)
    names = list(chroms)
    lengths = np.array([int(chroms[n]) for n in names], np.int64)
    total = int(lengths.sum())
    n = {k: int(round(total / every)) for k, every in
         zip(KINDS, (narrow_every, broad_every, sticky_every))}
    kind = np.repeat(np.arange(3), [n[k] for k in KINDS])
    width = np.r_[np.full(n["narrow"], 2 * NARROW_HALF),
                  rng.integers(broad_width[0], broad_width[1] + 1, n["broad"]),
                  rng.integers(sticky_width[0], sticky_width[1] + 1, n["sticky"])]
    fold = np.r_[_narrow_folds(n["narrow"], rng),
                 np.exp(rng.uniform(*np.log(broad_fold), n["broad"])),
                 np.exp(rng.uniform(*np.log(sticky_fold), n["sticky"]))]
    # each feature to a chromosome (by length), then spread at random along it
    chrom = rng.choice(len(names), len(kind), p=lengths / total)
    rows = []
    for ci in range(len(names)):
        idx = rng.permutation(np.flatnonzero(chrom == ci))
        free = int(lengths[ci]) - int(width[idx].sum()) - gap * (len(idx) + 1)
        if free < 0:
            raise ValueError(f"the features do not fit {names[ci]} ({lengths[ci]} bases) "
                             f"{gap} bases apart: fewer features or a longer genome")
        offsets = np.sort(rng.integers(0, free + 1, len(idx)))
        start = offsets + np.cumsum(np.r_[0, width[idx][:-1]]) + gap * np.arange(1, len(idx)
                                                                                 + 1)
        rows.append(pd.DataFrame({"kind": np.array(KINDS)[kind[idx]], "chrom": names[ci],
                                  "chromStart": start, "chromEnd": start + width[idx],
                                  "fold": fold[idx]}))
    feats = pd.concat(rows, ignore_index=True)
    feats["centre"] = (feats["chromStart"] + feats["chromEnd"]) // 2
    feats["fold_bin"] = [_fold_bin(f) if k == "narrow" else ""
                         for k, f in zip(feats["kind"], feats["fold"])]
    feats["chrom"] = pd.Categorical(feats["chrom"], categories=names)
    feats = feats.sort_values(["chrom", "chromStart"], kind="stable").reset_index(drop=True)
    feats["chrom"] = feats["chrom"].astype(str)
    feats = feats[["kind", "chrom", "chromStart", "chromEnd", "centre", "fold", "fold_bin"]]
    # the wobble: regions of log-uniform length, log-normal level, genome mean 1
    wob = []
    for name, length in zip(names, lengths):
        x = 0
        while x < length:
            step = int(np.exp(rng.uniform(*np.log(wobble_length))))
            wob.append((name, x, min(int(length), x + step)))
            x += step
    wobble = pd.DataFrame(wob, columns=["chrom", "chromStart", "chromEnd"])
    level = np.exp(rng.normal(0.0, wobble_sd, len(wobble))) if wobble_sd > 0 else np.ones(
        len(wobble))
    w = (wobble["chromEnd"] - wobble["chromStart"]).to_numpy()
    wobble["level"] = level * w.sum() / (level * w).sum()
    # the broad domains' 1 kb blocks
    blk = []
    for i in np.flatnonzero(feats["kind"].to_numpy() == "broad"):
        a, b = int(feats.at[i, "chromStart"]), int(feats.at[i, "chromEnd"])
        cuts = np.r_[np.arange(a, b, 1000), b]
        lv = np.exp(rng.normal(0.0, 0.3, len(cuts) - 1))
        blk.append(pd.DataFrame({"feature": i, "chromStart": cuts[:-1],
                                 "chromEnd": cuts[1:], "level": lv / lv.mean()}))
    blocks = (pd.concat(blk, ignore_index=True) if blk else pd.DataFrame(
        columns=["feature", "chromStart", "chromEnd", "level"]))
    return SuiteDesign(dict(chroms), feats, wobble, blocks)


def _uniform(rng, chrom_i, a, b, rate):
    """Fragment centres at ``rate`` per base, uniform on each ``[a, b)``."""
    k = rng.poisson(rate * (b - a))
    return (np.repeat(chrom_i, k),
            np.repeat(a, k) + (rng.random(k.sum()) * np.repeat(b - a, k)).astype(np.int64),
            np.repeat(np.arange(len(a)), k))


def suite_fragments(design: SuiteDesign, *, coverage: float, sample: str = "treatment",
                    fragment: int = 200, spread: float = 30.0, duplicates: float = 0.1,
                    seed: int = 0) -> pd.DataFrame:
    """One sample's fragments.

    Parameters
    ----------
    design : SuiteDesign
    coverage : float
        The background's fragment coverage (fragments overlapping a base, genome mean).
    sample : {"treatment", "control", "null"}
        ``treatment``: every feature; ``control`` and ``null``: the background and the
        sticky regions only.
    fragment, spread : number
        Mean fragment length; sd of the fragment centres at a narrow peak.
    duplicates : float
        The share of fragments that are PCR duplicates (copies of another, 0 <= d < 1).
    seed : int

    Returns
    -------
    DataFrame
        ``chrom`` (index into ``design.chroms``), ``start, end``, ``reverse`` (strand of
        the read / first mate), ``feature`` (row of ``design.features`` whose planted
        fragment it is; -1: background), ``duplicate`` (a copy), sorted by position.

    Examples
    --------
    >>> d = suite_design(SIZES["quick"], seed=1)
    >>> f = suite_fragments(d, coverage=0.5, seed=2)
    >>> round(float(f["duplicate"].mean()), 2)
    0.1
    """
    if sample not in ("treatment", "control", "null"):
        raise ValueError(f"sample must be 'treatment', 'control' or 'null', got {sample!r}")
    if not (math.isfinite(coverage) and coverage > 0):
        raise ValueError(f"coverage must be a number > 0, got {coverage!r}")
    if not 0 <= duplicates < 1:
        raise ValueError(f"duplicates must be from 0 to < 1, got {duplicates!r}")
    rng = np.random.default_rng(seed)
    names = list(design.chroms)
    lengths = np.array([design.chroms[n] for n in names], np.int64)
    per_base = coverage / fragment  # fragments starting per base
    wob = design.wobble
    c, m, _ = _uniform(rng, wob["chrom"].map(names.index).to_numpy(),
                       wob["chromStart"].to_numpy(np.int64),
                       wob["chromEnd"].to_numpy(np.int64),
                       per_base * wob["level"].to_numpy())
    parts = [(c, m, np.full(len(m), -1))]
    f = design.features
    ci = f["chrom"].map(names.index).to_numpy()
    sticky = np.flatnonzero(f["kind"].to_numpy() == "sticky")
    c, m, j = _uniform(rng, ci[sticky], f["chromStart"].to_numpy(np.int64)[sticky],
                       f["chromEnd"].to_numpy(np.int64)[sticky],
                       per_base * (f["fold"].to_numpy()[sticky] - 1))
    parts.append((c, m, sticky[j]))
    if sample == "treatment":
        b = design.blocks
        if len(b):
            fi = b["feature"].to_numpy(np.int64)
            c, m, j = _uniform(rng, ci[fi], b["chromStart"].to_numpy(np.int64),
                               b["chromEnd"].to_numpy(np.int64),
                               per_base * (f["fold"].to_numpy()[fi] - 1)
                               * b["level"].to_numpy())
            parts.append((c, m, fi[j]))
        narrow = np.flatnonzero(f["kind"].to_numpy() == "narrow")
        k = rng.poisson((f["fold"].to_numpy()[narrow] - 1) * coverage)
        off = np.clip(np.rint(rng.normal(0, spread, k.sum())), -NARROW_HALF + 1,
                      NARROW_HALF - 1).astype(np.int64)
        parts.append((np.repeat(ci[narrow], k),
                      np.repeat(f["centre"].to_numpy(np.int64)[narrow], k) + off,
                      np.repeat(narrow, k)))
    c = np.concatenate([p[0] for p in parts]).astype(np.int64)
    m = np.concatenate([p[1] for p in parts]).astype(np.int64)
    feat = np.concatenate([p[2] for p in parts]).astype(np.int64)
    length = np.maximum(np.rint(rng.normal(fragment, fragment / 10, len(m))), 60).astype(
        np.int64)
    length = np.minimum(length, lengths[c])
    s = np.clip(m - length // 2, 0, lengths[c] - length)
    rev = rng.random(len(m)) < 0.5
    dup = np.zeros(len(m), bool)
    n_dup = int(round(duplicates / (1 - duplicates) * len(m)))
    if n_dup:
        src = rng.integers(0, len(m), n_dup)
        c, s, length, rev, feat = (np.r_[x, x[src]] for x in (c, s, length, rev, feat))
        dup = np.r_[dup, np.ones(n_dup, bool)]
    out = pd.DataFrame({"chrom": c, "start": s, "end": s + length, "reverse": rev,
                        "feature": feat, "duplicate": dup})
    return out.sort_values(["chrom", "start", "end"], kind="stable").reset_index(drop=True)


def write_suite_bam(path: str | os.PathLike, design: SuiteDesign, *, coverage: float,
                    sample: str = "treatment", paired: bool = False, read_length: int = 50,
                    seed: int = 0, **fragments) -> pd.DataFrame:
    """Write one sample of the suite as a BAM file; returns its truth table.

    Parameters
    ----------
    path : path
        The BAM file (coordinate-sorted; read names ``f<k>``).
    design, coverage, sample, seed, **fragments
        As :func:`suite_fragments`.
    paired : bool
        Proper pairs (``-f BAMPE``) instead of single-end reads (``-f BAM``).
    read_length : int
        Bases per read.

    Returns
    -------
    DataFrame
        ``design.features`` with ``fragments`` (planted in this sample, duplicates
        left out) and ``duplicates`` (their copies); ``attrs``: ``coverage``, ``sample``,
        ``fragments`` (all, copies included), ``background`` (background fragments).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = suite_design(SIZES["quick"], seed=1)
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.bam"
    >>> truth = write_suite_bam(f, d, coverage=0.5, seed=2)  # doctest: +SKIP
    """
    frags = suite_fragments(design, coverage=coverage, sample=sample, seed=seed,
                            **fragments)
    write_fragments_bam(path, design.chroms, frags["chrom"], frags["start"], frags["end"],
                        reverse=frags["reverse"], paired=paired, read_length=read_length)
    return truth_table(design, frags, coverage=coverage, sample=sample)


def truth_table(design: SuiteDesign, frags: pd.DataFrame, *, coverage: float,
                sample: str) -> pd.DataFrame:
    """``design.features`` with the fragments of ``frags`` planted in each (see
    :func:`write_suite_bam`)."""
    n = len(design.features)
    own = frags["feature"].to_numpy() >= 0
    dup = frags["duplicate"].to_numpy()
    out = design.features.copy()
    out["fragments"] = np.bincount(frags["feature"].to_numpy()[own & ~dup], minlength=n)
    out["duplicates"] = np.bincount(frags["feature"].to_numpy()[own & dup], minlength=n)
    out.attrs.update(coverage=float(coverage), sample=sample, fragments=len(frags),
                     background=int((~own).sum()))
    return out
