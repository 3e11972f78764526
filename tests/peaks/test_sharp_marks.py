"""Sharp marks without labels (issue 46 item 5): the shipped model's level for narrow
marks (the default, as MACS3's) and for broad ones (``--broad``)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl
from penlearn.cli import main
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.pretrained import (
    SHORT_WINDOW_SHIFT,
    default_log_lambda,
    default_windows,
    load_pretrained,
    mark_offset,
    predict_log_lambda,
    short_window_shift,
)
from penlearn.peaks.pretrained.fit import leave_one_set_out, mark_class

XJ = DATA / "chipseq_raw" / "H3K4me3_XJ_immune_chunk1" / "coverage.csv.gz"


def _chunk1() -> pd.DataFrame:
    return pd.read_csv(need(XJ))


def test_narrow_default_finds_peaks_in_the_h3k4me3_chunk():
    cov = _chunk1()
    with pytest.warns(UserWarning) as seen:
        peaks = pl.predict_peaks(cov)
    messages = [str(w.message) for w in seen]
    assert any("at the narrow-mark level" in m for m in messages)
    assert any("27 window(s) are shorter than the shortest window" in m
               and "lowered by 0.58" in m for m in messages)
    # peaks in most samples (the level of all 17 sets, before: 1 peak in 1 of 27; the
    # issue-36 model: 21 peaks in 21; issue 52's refit, a lower narrow level: 24 in 23)
    assert peaks["sample_id"].nunique() == 23 and len(peaks) == 24
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        broad = pl.predict_peaks(cov, mark="broad")
        windows, ll = default_log_lambda(cov)
        features = coverage_features(cov, windows)
        assert (short_window_shift(features) == SHORT_WINDOW_SHIFT).all()
        level_only = pl.predict_peaks(cov, log_penalty=ll - SHORT_WINDOW_SHIFT,
                                      windows=windows)
    assert len(broad) == 1  # --broad: the level of all the sets, no short-window shift
    assert level_only["sample_id"].nunique() == 15  # the narrow level alone (13 before)


def test_short_window_shift_is_the_calibration_chunks_median():
    """SHORT_WINDOW_SHIFT: minus the median excess of the H3K4me3 chunks' log λ (PGP
    chunk 2, TDH_other chunk 8) over their samples' genome-scale training windows'."""
    excess = []
    for chunk, uci in (("H3K4me3.PGP.immune.chunk2", "H3K4me3_PGP_immune"),
                       ("H3K4me3.TDH.other.chunk8", "H3K4me3_TDH_other")):
        cov = pd.read_csv(need(DATA / "chipseq_raw" / "peaksegjoint" / chunk
                               / "coverage.csv.gz")).assign(chrom="chrU")
        windows = default_windows(cov)
        ll = predict_log_lambda(coverage_features(cov, windows), mark="broad")
        train = predict_log_lambda(pl.load_uci(need(DATA / uci)).inputs, mark="broad")
        genome = train.groupby(train.index.str.split("/").str[3]).median()
        excess.append(ll.to_numpy() - genome.reindex(windows["sample_id"]).to_numpy())
    excess = np.concatenate(excess)
    assert len(excess) == 37 and not np.isnan(excess).any()
    assert SHORT_WINDOW_SHIFT == -round(float(np.median(excess)), 2)
    long = pd.DataFrame({"bases": [load_pretrained().provenance["windows"]["min_bases"]]})
    assert short_window_shift(long).tolist() == [0.0]
    with pytest.warns(UserWarning, match=r"1 window\(s\) are shorter.*their λ may be off"):
        assert short_window_shift(long - 1, mark="broad").tolist() == [0.0]


def test_mark_levels_of_the_shipped_model():
    p = load_pretrained()
    marks = p.provenance["marks"]
    assert marks["broad"]["intercept"] == p.model.intercept_  # all-sets model unchanged
    assert marks["narrow"]["sets"] == [s for s in p.provenance["sets"]
                                       if mark_class(s) == "narrow"]
    assert len(marks["narrow"]["sets"]) == 9
    assert mark_offset(p, "broad") == 0.0
    assert mark_offset(p, "narrow") == marks["narrow"]["intercept"] - p.model.intercept_
    assert mark_offset(p, "narrow") < -0.5
    loso = marks["leave_one_set_out"]
    assert loso["mean"] < p.provenance["leave_one_set_out"]["mean"]
    # no set worse than its worst at the all-sets level
    assert max(loso["test_errors_pct"].values()) <= max(
        p.provenance["leave_one_set_out"]["test_errors_pct"].values())
    X = pd.DataFrame({"log.sd": [1.0], "log.mean": [0.5]}, index=["w"])
    got = predict_log_lambda(X, p, mark="narrow") - predict_log_lambda(X, p, mark="broad")
    assert got.loc["w"] == pytest.approx(mark_offset(p, "narrow"), abs=1e-12)
    with pytest.raises(ValueError, match=r"mark must be one of \['narrow', 'broad'\].*'sharp'"):
        predict_log_lambda(X, p, mark="sharp")
    with pytest.raises(ValueError, match="mark must be 'narrow' or 'broad'"):
        pl.predict_peaks(pd.DataFrame({"chrom": "c", "chromStart": [0], "chromEnd": [5],
                                       "count": [1]}), mark="Broad")


def test_mark_class_of_set_names():
    assert [mark_class(s) for s in ("ATAC_JV_adipose", "CTCF_TDH_ENCODE",
                                    "H3K27ac-H3K4me3_TDHAM_BP", "H3K9me3_TDH_BP",
                                    "H3K4me1_TDH_BP", "H3K27ac-H3K27me3_x", "systematic")] \
        == ["narrow", "narrow", "narrow", "broad", "broad", None, None]


def test_leave_one_set_out_at_the_mark_level_on_two_marks():
    """Two narrow sets and two broad ones: a narrow set left out gets the other narrow set's
    level, a broad one the level of all three others."""
    rows, feats, groups = [], [], []
    for s, lo, hi in (("H3K4me3_a", 1.0, 2.2), ("H3K4me3_b", 1.5, 2.5),
                      ("H3K36me3_c", 5.0, 6.0), ("H3K9me3_d", 5.5, 6.5)):
        for i in range(3):
            sid = f"{s}/{i}"
            rows += [(sid, -np.inf, lo, 1), (sid, lo, hi, 0), (sid, hi, np.inf, 1)]
            feats.append((sid, 0.0, 0.0))
            groups.append((sid, s))
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "errors"]).assign(labels=1)
    X = pd.DataFrame(feats, columns=["id", "log.sd", "log.mean"]).set_index("id")
    g = pd.Series(dict(groups))
    table = leave_one_set_out(X, ev, g, marks=True)
    assert table.loc["H3K4me3_a", "mark"] == 0.0  # b's level (2.0) is inside a's 1..2.2
    assert table.loc["H3K4me3_a", "all_sets"] == 100.0  # that of b, c, d (5.75) misses it
    assert table.loc["H3K36me3_c", "mark"] == table.loc["H3K36me3_c", "all_sets"] == 100.0


def test_peaks_command_broad_flag(tmp_path, capsys):
    cov = _chunk1()
    one = cov[cov["sample_id"] == "McGill0005"]
    path = tmp_path / "cov.csv"
    one.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["peaks", str(path), "--out", str(tmp_path / "n"), "--no-filter"])
        out_narrow = capsys.readouterr().out
        code_b = main(["peaks", str(path), "--out", str(tmp_path / "b"), "--broad"])
        out_broad = capsys.readouterr().out
    assert code == 0 and code_b == 0
    assert "at the narrow-mark level (--broad: broad marks)" in out_narrow.splitlines()[0]
    assert "at the broad-mark level of all the sets" in out_broad.splitlines()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ll = default_log_lambda(one)
    want = pl.predict_peaks(one, log_penalty=float(ll.iloc[0]))
    got = pd.read_csv(tmp_path / "n", sep="\t", header=None)
    assert got[[1, 2]].values.tolist() == want[["chromStart", "chromEnd"]].values.tolist()
    assert len(got) == 1
    assert not (tmp_path / "b").read_text().strip()  # broad: no peak
    code = main(["peaks", str(path), "--out", str(tmp_path / "x"), "--broad",
                 "--penalty", "1000"])
    err = capsys.readouterr().err
    assert code == 1 and "--broad picks the shipped zero-label model's level" in err
    assert "drop --broad (broadPeak files: --format broadPeak)" in err  # what instead
