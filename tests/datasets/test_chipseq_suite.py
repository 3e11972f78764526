"""The ChIP-seq simulation suite (benchmarks/sensitivity.py's data): deterministic, its
truth tables say what it planted, its depth ladder is the depth it draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.datasets.chipseq_suite import (
    DENSITIES,
    DEPTHS,
    FOLD_BINS,
    FOLD_SHARES,
    NARROW_HALF,
    SIZES,
    suite_design,
    suite_fragments,
    write_suite_bam,
)

CHROMS = {"chr1": 600_000, "chr2": 400_000}


@pytest.fixture(scope="module")
def design():
    return suite_design(CHROMS, narrow_every=10_000, broad_every=100_000,
                        sticky_every=100_000, seed=5)


def test_same_seed_same_design_and_reads_other_seed_other(design):
    again = suite_design(CHROMS, narrow_every=10_000, broad_every=100_000,
                         sticky_every=100_000, seed=5)
    pd.testing.assert_frame_equal(design.features, again.features)
    pd.testing.assert_frame_equal(design.wobble, again.wobble)
    pd.testing.assert_frame_equal(design.blocks, again.blocks)
    other = suite_design(CHROMS, narrow_every=10_000, broad_every=100_000,
                         sticky_every=100_000, seed=6)
    assert not design.features["chromStart"].equals(other.features["chromStart"])
    a = suite_fragments(design, coverage=1.0, seed=1)
    pd.testing.assert_frame_equal(a, suite_fragments(design, coverage=1.0, seed=1))
    assert not a.equals(suite_fragments(design, coverage=1.0, seed=2))


def test_bam_files_are_byte_identical_for_a_seed(design, tmp_path):
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) is not installed")
    for paired in (False, True):
        a, b = tmp_path / f"a{paired}.bam", tmp_path / f"b{paired}.bam"
        ta = write_suite_bam(a, design, coverage=0.5, paired=paired, seed=3)
        tb = write_suite_bam(b, design, coverage=0.5, paired=paired, seed=3)
        assert a.read_bytes() == b.read_bytes()
        pd.testing.assert_frame_equal(ta, tb)


def test_features_are_apart_and_folds_in_their_bins(design):
    f = design.features
    counts = f["kind"].value_counts().to_dict()
    assert counts == {"narrow": 100, "broad": 10, "sticky": 10}
    for _, g in f.groupby("chrom"):
        g = g.sort_values("chromStart")
        assert (g["chromStart"].to_numpy()[1:] - g["chromEnd"].to_numpy()[:-1] >= 2000).all()
        assert g["chromStart"].min() >= 2000
        assert (g["chromEnd"] <= CHROMS[g["chrom"].iloc[0]] - 2000).all()
    nar = f[f["kind"] == "narrow"]
    for (lo, hi), share in zip(FOLD_BINS, FOLD_SHARES):
        m = nar["fold_bin"] == f"{lo:g}-{hi:g}"
        assert m.sum() == round(share * len(nar))
        assert ((nar.loc[m, "fold"] >= lo) & (nar.loc[m, "fold"] <= hi)).all()
    br, st = f[f["kind"] == "broad"], f[f["kind"] == "sticky"]
    assert ((br["chromEnd"] - br["chromStart"]).between(5_000, 30_000)).all()
    assert ((st["chromEnd"] - st["chromStart"]).between(1_000, 5_000)).all()
    assert (nar["chromEnd"] - nar["chromStart"] == 2 * NARROW_HALF).all()


def test_truth_table_counts_the_fragments_planted_in_each_feature(design, tmp_path):
    frags = suite_fragments(design, coverage=2.0, seed=4)
    f = design.features
    own = frags[frags["feature"] >= 0]
    mid = (own["start"] + own["end"]) // 2
    fs = f.loc[own["feature"], ["chromStart", "chromEnd"]].to_numpy()
    names = list(design.chroms)
    assert (own["chrom"].map(names.__getitem__).to_numpy()
            == f.loc[own["feature"], "chrom"].to_numpy()).all()
    inside = (mid.to_numpy() >= fs[:, 0] - 1) & (mid.to_numpy() <= fs[:, 1])
    assert inside.all()  # every planted fragment is centred in its feature
    pysam = pytest.importorskip("pysam", reason="pysam (penlearn[bam]) is not installed")
    bam = tmp_path / "t.bam"
    truth = write_suite_bam(bam, design, coverage=2.0, paired=True, seed=4)
    kept = ~frags["duplicate"]
    assert truth["fragments"].tolist() == np.bincount(
        frags.loc[kept & (frags["feature"] >= 0), "feature"], minlength=len(f)).tolist()
    assert truth.attrs["fragments"] == len(frags)
    # the BAM holds exactly these fragments (first mates: fragment start, |TLEN|)
    got = sorted((r.reference_id, min(r.reference_start, r.next_reference_start),
                  abs(r.template_length)) for r in pysam.AlignmentFile(str(bam))
                 if r.is_read1)
    want = sorted(zip(frags["chrom"], frags["start"], frags["end"] - frags["start"]))
    assert got == [tuple(int(x) for x in w) for w in want]
    # expected planted counts: a narrow peak's fold is 1 + fragments / background coverage
    nar = truth["kind"] == "narrow"
    expect = (truth.loc[nar, "fold"] - 1) * 2.0
    z = (truth.loc[nar, "fragments"] - expect) / np.sqrt(expect)
    assert abs(z.mean()) < 0.4 and 0.6 < z.std() < 1.4
    # a control: the background and the sticky regions only
    ctl = suite_fragments(design, coverage=2.0, sample="control", seed=9)
    kinds = set(f.loc[ctl.loc[ctl["feature"] >= 0, "feature"].unique(), "kind"])
    assert kinds == {"sticky"}


def test_depth_ladder_is_the_background_coverage_drawn(design):
    assert max(DEPTHS.values()) / min(DEPTHS.values()) >= 10
    assert min(DENSITIES.values()) == 5_000 and max(DENSITIES.values()) == 100_000
    bases = design.bases
    for i, cov in enumerate(DEPTHS.values()):
        frags = suite_fragments(design, coverage=cov, duplicates=0.0, seed=i)
        bg = frags[frags["feature"] < 0]
        measured = (bg["end"] - bg["start"]).sum() / bases
        assert measured == pytest.approx(cov, rel=0.05)
    # the wobble: genome mean 1; the background follows each region's level
    w = design.wobble
    length = w["chromEnd"] - w["chromStart"]
    assert float((w["level"] * length).sum() / length.sum()) == pytest.approx(1.0)
    frags = suite_fragments(design, coverage=5.0, duplicates=0.0, seed=7)
    bg = frags[frags["feature"] < 0]
    names = list(design.chroms)
    for c, a, b, level in w.itertuples(index=False):
        mid = (bg["start"] + bg["end"]) // 2
        n = ((bg["chrom"] == names.index(c)) & (mid >= a) & (mid < b)).sum()
        expect = 5.0 / 200 * (b - a) * level
        assert abs(n - expect) < 5 * np.sqrt(expect) + 20


def test_duplicates_are_copies_and_their_share():
    d = suite_design(SIZES["quick"], seed=2)
    frags = suite_fragments(d, coverage=0.5, duplicates=0.1, seed=1)
    assert frags["duplicate"].mean() == pytest.approx(0.1, abs=0.005)
    orig = set(frags.loc[~frags["duplicate"], ["chrom", "start", "end", "reverse"]]
               .itertuples(index=False))
    dups = frags.loc[frags["duplicate"], ["chrom", "start", "end", "reverse"]]
    assert all(tuple(r) in orig for r in dups.itertuples(index=False))
    assert not suite_fragments(d, coverage=0.5, duplicates=0.0, seed=1)["duplicate"].any()


def test_bad_arguments_say_which():
    with pytest.raises(ValueError, match="narrow_every"):
        suite_design(CHROMS, narrow_every=0)
    with pytest.raises(ValueError, match="do not fit"):
        suite_design({"chr1": 50_000}, narrow_every=500)
    d = suite_design(SIZES["quick"], seed=1)
    with pytest.raises(ValueError, match="sample"):
        suite_fragments(d, coverage=1.0, sample="input")
    with pytest.raises(ValueError, match="coverage"):
        suite_fragments(d, coverage=0.0)
    with pytest.raises(ValueError, match="duplicates"):
        suite_fragments(d, coverage=1.0, duplicates=1.0)
