"""The shipped zero-label penalty model (issue 36 items 1-2): it loads, ``penlearn pretrain``
rebuilds it (same predictions), ``--exclude`` leaves sets out, ``penlearn peaks`` and
``predict_peaks`` without a penalty use it on windows cut like its training problems and
say so, and windows outside its training range are clipped and named."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl
from penlearn.cli import main
from penlearn.datasets.pretrain import chipseq_sets, pretrain
from penlearn.peaks.formats.peak_columns import significant
from penlearn.peaks.peakseg.features import FEATURE_COLUMNS, coverage_features
from penlearn.peaks.pretrained import (
    DEFAULT_MODEL_PATH,
    default_log_lambda,
    default_windows,
    load_pretrained,
    mark_offset,
    predict_log_lambda,
)
from penlearn.peaks.pretrained.fit import fit_dispersion_model, min_error_intercept

MONO = DATA / "chipseq_raw" / "Mono27ac"


def test_shipped_model_loads_with_its_provenance():
    p = load_pretrained()
    assert set(p.model.coef_.index) <= set(FEATURE_COLUMNS)  # computable from coverage
    assert len(p.provenance["sets"]) == 17 and p.provenance["excluded"] == []
    assert not any(s in ("systematic", "detailed") for s in p.provenance["sets"])
    assert "Bioinformatics 33(4):491-499" in p.provenance["sources"][0]
    for loso in (p.provenance["leave_one_set_out"],
                 p.provenance["marks"]["leave_one_set_out"]):
        assert set(loso["test_errors_pct"]) == set(p.provenance["sets"])
        assert loso["mean"] == pytest.approx(np.mean(list(loso["test_errors_pct"].values())),
                                             abs=1e-3)
    assert p.model.clip is True
    note = p.note()  # the narrow level's (the default's) error
    assert "17 public ChIP-seq sets" in note and f"{loso['mean']:.1f} %" in note


@pytest.mark.slow
def test_rebuild_reproduces_the_shipped_predictions():
    need(DATA / "H3K4me3_TDH_immune")
    assert len(chipseq_sets(DATA)) == 17
    rebuilt = pretrain(DATA, loso=False)
    shipped = load_pretrained().model
    X = pd.concat([pl.load_uci(DATA / s).inputs for s in chipseq_sets(DATA)])
    np.testing.assert_array_equal(rebuilt.predict(X), shipped.predict(X))
    assert rebuilt.provenance_["sets"] == load_pretrained().provenance["sets"]
    shipped_marks = load_pretrained().provenance["marks"]
    for mark in ("narrow", "broad"):  # the mark levels too
        assert rebuilt.provenance_["marks"][mark] == shipped_marks[mark]


def _two_sets(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    for s in ("H3K36me3_TDH_other", "H3K4me3_TDH_ENCODE", "H3K36me3_TDH_ENCODE"):
        (root / s).symlink_to(need(DATA / s), target_is_directory=True)
    (root / "systematic").symlink_to(need(DATA / "systematic"), target_is_directory=True)
    return root


def test_pretrain_command_excludes_sets(tmp_path, capsys):
    root = _two_sets(tmp_path)
    out = tmp_path / "m.json"
    code = main(["pretrain", str(root), "--out", str(out), "--exclude",
                 "H3K36me3_TDH_ENCODE", "-q"])
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert "learned on 2 ChIP-seq sets" in stdout
    data = json.loads(out.read_text())
    prov = data["provenance"]
    assert prov["sets"] == ["H3K36me3_TDH_other", "H3K4me3_TDH_ENCODE"]  # no neuroblastoma
    assert prov["excluded"] == ["H3K36me3_TDH_ENCODE"]
    assert set(prov["leave_one_set_out"]["test_errors_pct"]) == set(prov["sets"])
    # the file is the model fit_dispersion_model learns on those two sets
    feats, evs, groups = [], [], []
    for s in prov["sets"]:
        ds = pl.load_uci(root / s)
        feats.append(ds.inputs[["log.sd", "log.mean"]])
        evs.append(ds.evaluation)
        groups.append(pd.Series(s, index=ds.inputs.index))
    fit = fit_dispersion_model(pd.concat(feats), pd.concat(evs), pd.concat(groups))
    assert data["intercept"] == fit["intercept"]
    assert data["coef"] == [fit["coef"]["log.sd"], fit["coef"]["log.mean"]]
    code = main(["pretrain", str(root), "--out", str(tmp_path / "x.json"), "--exclude",
                 "nope"])
    err = capsys.readouterr().err
    assert code == 1 and "no ChIP-seq set named ['nope']" in err
    assert not (tmp_path / "x.json").exists()


def test_min_error_intercept_equals_brute_force():
    rng = np.random.default_rng(3)
    rows = []
    for i in range(6):
        cuts = np.sort(rng.uniform(-3, 3, 3))
        lo, hi = np.r_[-np.inf, cuts], np.r_[cuts, np.inf]
        err = rng.integers(0, 3, 4)
        rows += [(f"s{i}", a, b, e) for a, b, e in zip(lo, hi, err)]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "errors"])
    off = pd.Series(rng.normal(size=6), index=[f"s{i}" for i in range(6)])
    w = pd.Series(rng.uniform(0.5, 2, 6), index=off.index)
    c, e = min_error_intercept(ev, off, w)

    seq = ev["sequence_id"].to_numpy()
    o, wt = off.reindex(seq).to_numpy(), w.reindex(seq).to_numpy()
    lo, hi, err = (ev[c].to_numpy(float) for c in ("min_log_lambda", "max_log_lambda",
                                                    "errors"))

    def total(c):
        inside = (lo <= c + o) & (c + o < hi)
        return float((err * wt)[inside].sum())

    t = np.unique((lo - o)[np.isfinite(lo)])  # every change of the total: try each piece
    candidates = np.r_[t[0] - 1, (t[1:] + t[:-1]) / 2, t[-1] + 1, t]
    assert e == pytest.approx(min(total(g) for g in candidates))
    assert total(c) == pytest.approx(e)


def test_default_windows_cut_at_long_zero_runs_and_long_pieces():
    cov = pd.DataFrame({"sample_id": "a", "chrom": "chr1",
                        "chromStart": [0, 100, 200, 60_000, 70_000],
                        "chromEnd": [100, 200, 60_000, 70_000, 70_010],
                        "count": [2, 1, 0, 3, 1]})
    w = default_windows(cov, max_bases=1e9)
    assert w.values.tolist() == [["a", "chr1", 0, 200], ["a", "chr1", 60_000, 70_010]]
    w = default_windows(cov, max_bases=5000)  # 10,010 bases: 3 equal parts
    assert w.values.tolist() == [["a", "chr1", 0, 200], ["a", "chr1", 60_000, 63_336],
                                 ["a", "chr1", 63_336, 66_673], ["a", "chr1", 66_673, 70_010]]
    # without sample_id: no sample column; a chromosome without reads is one window
    zero = cov.drop(columns="sample_id").assign(count=0)
    assert default_windows(zero).values.tolist() == [["chr1", 0, 70_010]]


def test_windows_outside_the_training_range_are_clipped_and_named():
    p = load_pretrained()
    low, high = p.model.scaling_.low, p.model.scaling_.high
    X = pd.DataFrame([[low[0] - 5, low[1]], [(low[0] + high[0]) / 2, (low[1] + high[1]) / 2]],
                     columns=["log.sd", "log.mean"], index=["far/chr1:0-10", "usual"])
    with pytest.warns(UserWarning, match=r"1 window\(s\).*\['log.sd'\].*far/chr1:0-10"):
        got = predict_log_lambda(X, p, mark="broad")  # the model itself
    coef = p.model.coef_.to_numpy()
    assert got.loc["far/chr1:0-10"] == pytest.approx(p.model.intercept_ + coef @ low)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert predict_log_lambda(X.loc[["usual"]], p, mark="broad").loc["usual"] == pytest.approx(
            p.model.intercept_ + coef @ X.loc["usual"].to_numpy())


def test_peaks_without_penalty_use_and_announce_the_shipped_model(tmp_path, capsys):
    path = need(MONO / "coverage.bedGraph.gz")
    out = tmp_path / "mono.bed"
    code = main(["peaks", str(path), "--out", str(out), "-q"])
    assert code == 0 and "zero-label" not in capsys.readouterr().out  # --quiet: no notice
    code = main(["peaks", str(path), "--out", str(out), "--force"])
    stdout = capsys.readouterr().out
    assert code == 0
    lines = stdout.splitlines()
    assert stdout.count("zero-label") == 1
    assert lines[0].startswith("penlearn peaks: no --penalty or --model: using the shipped "
                               "zero-label penalty model")
    assert "leave one set out" in lines[0]
    cov = pl.read_coverage(path)
    windows, ll = default_log_lambda(cov)
    assert len(ll) == 1  # the 520 kb region is one window
    feats = coverage_features(cov, windows)
    p = load_pretrained().model
    want_ll = mark_offset() + p.intercept_ + p.coef_.to_numpy() @ np.clip(
        feats[["log.sd", "log.mean"]].iloc[0].to_numpy(), p.scaling_.low, p.scaling_.high)
    assert ll.iloc[0] == pytest.approx(want_ll, abs=1e-12)
    # the narrow rule (issue 52): the peaks of log λ + δ of q-value <= 0.05
    zero = pl.shipped_model()
    assert "kept where their q-value <= 0.05" in lines[0]
    segs = pl.predict_peaks(cov, log_penalty=float(ll.iloc[0]) + zero.shift, segments=True)
    rule = significant(pl.peak_calls(segs, cov), qvalue=zero.qvalue)
    got = pd.read_csv(out, sep="\t", header=None)
    assert got[[1, 2]].values.tolist() == rule[["chromStart", "chromEnd"]].values.tolist()
    assert f"wrote {len(rule)} peaks" in lines[1]
    # --no-filter: the model's own peaks, those of predict_peaks
    want = pl.predict_peaks(cov, log_penalty=float(ll.iloc[0]))
    code = main(["peaks", str(path), "--out", str(out), "--force", "--no-filter", "-q"])
    got = pd.read_csv(out, sep="\t", header=None)
    assert got[[1, 2]].values.tolist() == want[["chromStart", "chromEnd"]].values.tolist()
    # Python: the same peaks, with a warning naming the model
    with pytest.warns(UserWarning, match="no penalty given: using the shipped"):
        py = pl.predict_peaks(cov)
    assert py[["chromStart", "chromEnd"]].values.tolist() == \
        want[["chromStart", "chromEnd"]].values.tolist()
    assert math.isfinite(py["log_lambda"].iloc[0])


def test_shipped_file_is_the_package_data():
    data = json.loads(DEFAULT_MODEL_PATH.read_text())
    assert data["format"] == "penlearn.PenaltyModel" and "provenance" in data
    assert DEFAULT_MODEL_PATH.stat().st_size < 20_000  # small enough to ship
