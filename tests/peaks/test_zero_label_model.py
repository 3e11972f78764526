"""One zero-label model everywhere (issue 54 item 1): ``penlearn peaks``, ``callpeak``,
``joint``, ``propose``, the labeling page and ``learn``'s prior take the same log λ, level
and notice from :class:`penlearn.peaks.pretrained.ZeroLabelModel`."""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl
from penlearn.cli import main
from penlearn.cli.learn import _prior as learn_prior
from penlearn.label.state import LabelState
from penlearn.peaks.label_windows import sequence_features
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.pretrained import (
    SHORT_WINDOW_SHIFT,
    ZeroLabelModel,
    default_log_lambda,
    load_pretrained,
)
from penlearn.peaks.propose import _predict as propose_predict
from penlearn.peaks.propose import _prior as propose_prior
from penlearn.peaks.propose import coverage_sequences

XJ = DATA / "chipseq_raw" / "H3K4me3_XJ_immune_chunk1" / "coverage.csv.gz"


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def test_shipped_model_is_the_documented_handle():
    m = pl.shipped_model()
    assert isinstance(m, ZeroLabelModel) and m.mark == "narrow"
    assert pl.shipped_model(mark="broad").mark == "broad"
    levels = load_pretrained().provenance["marks"]
    assert m.model.intercept_ == pytest.approx(levels["narrow"]["intercept"])
    assert pl.shipped_model("broad").model.intercept_ == pytest.approx(
        load_pretrained().model.intercept_)
    assert "narrow-mark level" in m.notice()
    with pytest.raises(ValueError, match="mark must be one of"):
        pl.shipped_model(mark="sharp")


@pytest.mark.xfail(strict=True, reason=(
    "known defect (found by issue 52's refit, not fixed): since --broad's commit the peak "
    "files report reported_segments (equal-mean runs joined) but the labeling page draws "
    "the solver's raw peaks; at the refit λ McGill0079's model has a 1-base 'peak' of the "
    "same mean as its neighbour, drawn by the page, not written by penlearn peaks"))
def test_the_page_draws_the_peaks_penlearn_peaks_writes(tmp_path, capsys):
    """H3K4me3_XJ_immune_chunk1: the page's zero-label peaks were in ~12 of 27 samples
    (the all-sets level, no short-window shift), penlearn peaks' in 21 (23 since issue 52's
    refit, whose narrow level is lower by 0.16). The page has no q-values: it draws the
    model's own peaks, ``penlearn peaks --no-filter`` (issue 52: ``peaks``' default is the
    narrow rule, a lowered λ whose peaks the q-value filters)."""
    path = need(XJ)
    out = tmp_path / "peaks"
    assert _quiet(main, ["peaks", str(path), "--out", f"{out}/", "--no-filter"]) == 0
    notice = capsys.readouterr().out
    assert notice.count("zero-label") == 1
    cov = pd.read_csv(path)
    written = {p.stem: pd.read_csv(p, sep="\t", header=None, comment="t")
               if p.read_text().strip() else pd.DataFrame(columns=[0, 1, 2])
               for p in out.glob("*.bed")}
    st = _quiet(LabelState, cov, tmp_path / "labels.csv")
    try:
        assert len(st.windows) == 1 and sorted(st.samples) == sorted(written)
        drawn = {s: st.peaks(s, 0)[["chromStart", "chromEnd"]].values.tolist()
                 for s in st.samples}
        want = {s: t[[1, 2]].values.tolist() for s, t in written.items()}
        assert drawn == want
        assert sum(len(v) > 0 for v in drawn.values()) == 23
        # the page's model line is the notice penlearn peaks prints
        assert st.model_note in notice
    finally:
        st.close()


def test_propose_and_learn_prior_use_the_zero_label_log_lambda(tmp_path):
    cov = pd.read_csv(need(XJ))
    windows, ll = _quiet(default_log_lambda, cov)  # what penlearn peaks solves at
    peaks_ll = dict(zip(windows["sample_id"], ll.to_numpy()))
    # propose without --model: its (sample, window)s are the page's, their log λ the
    # page's before any label, and penlearn peaks' (one window per sample here)
    seqs = coverage_sequences(cov)
    feats = sequence_features(cov, seqs)
    proposed = propose_predict(propose_prior(None, "peaks"), feats)
    st = _quiet(LabelState, cov, tmp_path / "labels.csv")
    try:
        assert proposed.to_dict() == st.zero_log_lambda.to_dict()
    finally:
        st.close()
    by_sample = dict(zip(seqs["sample_id"], proposed.loc[seqs["sequence_id"]].to_numpy()))
    assert by_sample == pytest.approx(peaks_ll, abs=1e-12)
    # learn's prior: the narrow-mark level its notice says (equal on training-size windows)
    pf = coverage_features(cov, windows)
    assert (ll < _quiet(pl.shipped_model().model.predict, pf) - 0.5).all()  # shifted
    said = []
    _, prior = learn_prior(pf, said.append, few=True)
    assert "at the narrow-mark level" in said[0]
    long = pf.assign(bases=1e6)
    assert np.allclose(prior.predict(long), _quiet(pl.shipped_model().predict, long))
    assert np.allclose(prior.predict(pf) + SHORT_WINDOW_SHIFT, ll)


def test_a_whole_short_chromosome_is_no_short_window(recwarn):
    """A 100 kb chromosome whose length is known (BAM header, chrom sizes) is whole:
    no short-window warning, no shift; the same coverage cut from a long one has both."""
    rng = np.random.default_rng(0)
    starts = np.arange(0, 100_000, 50)
    cov = pd.DataFrame({"chrom": "chrS", "chromStart": starts, "chromEnd": starts + 50,
                        "count": rng.poisson(np.where(starts % 20_000 < 500, 40, 3))})
    zero = pl.shipped_model()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all
        warnings.filterwarnings("ignore", message=".*outside the range")
        _, whole = zero.log_lambda(cov, chrom_sizes={"chrS": 100_000})
    with pytest.warns(UserWarning, match="shorter than the shortest window"):
        _, cut = zero.log_lambda(cov, chrom_sizes={"chrS": 50_000_000})
    assert float(cut.iloc[0] - whole.iloc[0]) == pytest.approx(SHORT_WINDOW_SHIFT)


def test_callpeak_says_the_notice_once_and_never_with_quiet(tmp_path, capsys):
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    design = plant_regions({"chr1": 400_000}, 4, 2, seed=3)
    t, c = tmp_path / "t.bam", tmp_path / "c.bam"
    write_reads_bam(t, design, background=3000, per_peak=100, paired=False, seed=1)
    write_reads_bam(c, design, background=3000, paired=False, seed=2)
    base = ["callpeak", "-t", str(t), "-c", str(c), "-f", "BAM", "--extsize", "200",
            "--outdir", str(tmp_path)]
    code = _quiet(main, [*base, "-n", "q", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "zero-label" not in captured.out + captured.err
    assert _quiet(main, [*base, "-n", "loud"]) == 0
    assert capsys.readouterr().out.count("zero-label") == 1


def test_joint_and_predict_peaks_take_the_same_model():
    cov = pd.DataFrame({"sample_id": list("xyz"), "chrom": "chr2", "chromStart": 5,
                        "chromEnd": 25, "count": [2, 4, 8]})
    from penlearn.peaks.joint.pipeline import shipped_log_lambda, window_coverage

    w = pd.DataFrame({"window_id": ["p"], "chrom": ["chr2"], "chromStart": [5],
                      "chromEnd": [25]})
    ll, note = _quiet(shipped_log_lambda, list(window_coverage(cov, w)), w)
    per = w.drop(columns="window_id").merge(pd.DataFrame({"sample_id": list("xyz")}),
                                            how="cross")
    feats = coverage_features(cov, per)
    want = _quiet(pl.shipped_model().predict, feats).mean()
    assert float(ll.loc["p"]) == pytest.approx(float(want))
    assert pl.shipped_model().notice() in note
    ns = argparse.Namespace(broad=True)
    from penlearn.cli.peaks import zero_label_model
    assert zero_label_model(ns).mark == "broad"


def test_callpeak_on_a_whole_short_chromosome_gives_no_short_window_warning(tmp_path,
                                                                            capsys):
    """issue 54: a 100 kb chromosome, its length in the BAM header, is whole."""
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    bam = tmp_path / "t.bam"
    write_reads_bam(bam, plant_regions({"chrS": 100_000}, 2, 1, seed=3), background=2000,
                    per_peak=100, paired=False, seed=1)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code = main(["callpeak", "-t", str(bam), "-f", "BAM", "--extsize", "200",
                     "--outdir", str(tmp_path), "-n", "w"])
    err = capsys.readouterr().err
    assert code == 0, err
    said = err + "".join(str(w.message) for w in seen)
    assert "shorter than the shortest window" not in said


def test_the_page_knows_a_whole_chromosome_as_peaks_does(tmp_path):
    rng = np.random.default_rng(0)
    starts = np.arange(0, 100_000, 50)
    cov = pd.DataFrame({"sample_id": "s", "chrom": "chrS", "chromStart": starts,
                        "chromEnd": starts + 50,
                        "count": rng.poisson(np.where(starts % 20_000 < 500, 40, 3))})
    sizes = {"chrS": 100_000}
    st = _quiet(LabelState, cov, tmp_path / "labels.csv", chrom_sizes=sizes)
    cut = _quiet(LabelState, cov, tmp_path / "labels2.csv")
    try:
        _, ll = _quiet(pl.shipped_model().log_lambda, cov, chrom_sizes=sizes)
        assert float(st.log_lambda.iloc[0]) == pytest.approx(float(ll.iloc[0]))
        assert float(cut.log_lambda.iloc[0] - st.log_lambda.iloc[0]) == pytest.approx(
            SHORT_WINDOW_SHIFT)
    finally:
        st.close()
        cut.close()


def test_propose_says_the_notice_once_and_never_with_quiet(tmp_path, capsys):
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 2000, 10),
                        "chromEnd": range(10, 2010, 10),
                        "count": ([2] * 40 + [30, 40, 55, 40, 30] + [2] * 55) * 2})
    path = tmp_path / "s1.bedGraph"
    cov.to_csv(path, sep="\t", header=False, index=False)
    argv = ["propose", str(path), "--out", str(tmp_path / "w.bed"), "--force"]
    assert _quiet(main, [*argv, "-q"]) == 0
    assert "zero-label" not in capsys.readouterr().out
    assert _quiet(main, argv) == 0
    assert capsys.readouterr().out.count(pl.shipped_model().notice()) == 1


MONO = DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz"


def test_the_pages_pieces_of_a_long_region_take_penlearn_peaks_log_lambda(tmp_path):
    """Mono27ac (520 kb, one window of penlearn peaks) cut by the page into 100 kb pieces:
    each piece's zero-label log λ (the page's, and propose's) is penlearn peaks' for the
    window that holds it (was: each piece's own features, −0.58 where peaks has −1.44
    from the shipped level on a 149 kb piece)."""
    from penlearn.peaks.formats.coverage import read_bedgraph

    cov = read_bedgraph(need(MONO)).assign(sample_id="mono")
    windows, ll = _quiet(default_log_lambda, cov)
    assert len(windows) == 1
    st = _quiet(LabelState, cov, tmp_path / "labels.csv", window_bases=100_000)
    try:
        assert len(st.windows) >= 5
        assert np.allclose(st.zero_log_lambda.to_numpy(), float(ll.iloc[0]), atol=1e-12)
    finally:
        st.close()
    seqs = coverage_sequences(cov, 100_000)
    proposed = propose_predict(propose_prior(None, "peaks"), sequence_features(cov, seqs))
    assert np.allclose(proposed.to_numpy(), float(ll.iloc[0]), atol=1e-12)
