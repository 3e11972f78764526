"""A learned model's narrow rule (issue 52 item 4): a model ``penlearn learn`` makes
carries the zero-label model's narrow rule when its labels take it, and ``penlearn peaks
--model`` then proposes peaks at its log λ + δ and keeps those of q-value <= the cutoff,
as the shipped default does; ``--no-filter`` gives its own peaks; a model without the
rule keeps its own λ, no filter."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import peaks_coverage, quiet

from penlearn.cli import main
from penlearn.learn.prior import constant_model
from penlearn.peaks.pretrained import ZeroLabelModel
from penlearn.peaks.pretrained.learned_rule import RULE_KEY, choose_rule, learned_rule

_quiet = quiet


def _coverage(seed: int = 0):
    return peaks_coverage(seed, lowest=2.0)


def _bed(path) -> list:
    return (pd.read_csv(path, sep="\t", header=None)[[1, 2]].values.tolist()
            if path.stat().st_size else [])


def _model_file(path, log_lambda: float, rule: dict | None):
    m = constant_model(["bases"], log_lambda)
    m.task_ = "peaks"
    if rule is not None:
        m.level_ = {RULE_KEY: rule}
    m.save(path)
    return path


def test_peaks_with_a_model_applies_its_rule(tmp_path):
    cov = tmp_path / "cov.bedGraph"
    _coverage().to_csv(cov, sep="\t", header=False, index=False)
    zero = ZeroLabelModel("narrow")
    rule = {"applied": "yes", "shift": zero.shift, "qvalue": zero.qvalue}
    with_rule = _model_file(tmp_path / "r.json", 9.0, rule)
    without = _model_file(tmp_path / "n.json", 9.0, None)
    refused = _model_file(tmp_path / "x.json", 9.0, {**rule, "applied": "no"})
    out = {k: tmp_path / f"{k}.bed" for k in ("rule", "own", "none", "refused", "by_hand")}
    for k, extra in (("rule", ["--model", with_rule]),
                     ("own", ["--model", with_rule, "--no-filter"]),
                     ("none", ["--model", without]), ("refused", ["--model", refused]),
                     ("by_hand", ["--log-penalty", 9.0 + zero.shift, "--qvalue",
                                  zero.qvalue])):
        assert _quiet(main, ["peaks", str(cov), "--out", str(out[k]), "-q",
                             *map(str, extra)]) == 0, k
    got = {k: _bed(v) for k, v in out.items()}
    # the rule: the model's log λ + δ, then q <= the cutoff, as by hand
    assert got["rule"] == got["by_hand"]
    # no rule, a refused rule, --no-filter: the model's own peaks
    assert got["own"] == got["none"] == got["refused"]
    assert got["rule"] != got["own"]
    own = _bed(out["own"])
    assert len(got["rule"]) > len(own)  # the lowered λ finds weak peaks the filter keeps


def test_a_malformed_rule_is_refused():
    m = constant_model(["bases"], 9.0)
    m.level_ = {RULE_KEY: {"applied": "yes", "shift": 3.0, "qvalue": 0.05}}
    with pytest.raises(ValueError, match="shift"):
        learned_rule(m)


def test_the_labels_refuse_a_rule_that_costs_them_errors():
    # a weak, wide enrichment the labels call a peak: the model's own λ finds it, the
    # summit's q-value (against the 5-10 kb level around it) does not keep it
    rng = np.random.default_rng(3)
    starts = np.arange(0, 400_000, 50)
    mu = np.full(len(starts), 4.0)
    mu[(starts >= 100_000) & (starts < 130_000)] += 3.0  # a broad domain, fold 1.75
    cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": starts,
                        "chromEnd": starts + 50, "count": rng.poisson(mu)})
    lab = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
                        "chromStart": [98_000, 128_000, 200_000],
                        "chromEnd": [102_000, 132_000, 260_000],
                        "annotation": ["peakStart", "peakEnd", "noPeaks"]})
    r = _quiet(choose_rule, constant_model(["bases"], 6.0), cov, lab)
    assert r["label_errors_own"] < r["label_errors"], r
    assert r["applied"] == "no"
    # a sharp peak, the same labels' kind: the rule costs nothing, it is taken
    mu = np.full(len(starts), 4.0)
    mu[(starts >= 100_000) & (starts < 100_600)] += 40.0
    cov = cov.assign(count=rng.poisson(mu))
    lab = lab.assign(chromStart=[99_000, 100_300, 200_000],
                     chromEnd=[100_300, 102_000, 260_000])
    r = _quiet(choose_rule, constant_model(["bases"], 9.0), cov, lab)
    assert r["applied"] == "yes" and r["label_errors"] <= r["label_errors_own"], r
    assert r["peaks_per_mb"] >= 0 and r["peaks_per_mb_default"] >= 0


def test_only_the_training_windows_labels_count():
    rng = np.random.default_rng(4)
    starts = np.arange(0, 200_000, 50)
    mu = np.full(len(starts), 4.0)
    mu[(starts >= 50_000) & (starts < 50_600)] += 40.0
    one = pd.DataFrame({"chrom": "chr1", "chromStart": starts, "chromEnd": starts + 50,
                        "count": rng.poisson(mu)})
    cov = pd.concat([one.assign(sample_id="a"), one.assign(sample_id="b")])
    lab = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1",
                        "chromStart": [49_000, 49_000], "chromEnd": [52_000, 52_000],
                        "annotation": ["peaks", "noPeaks"]})
    ids = [i for i in _quiet(choose_rule.__globals__["coverage_features"], cov).index
           if i.startswith("a/")]
    r = _quiet(choose_rule, constant_model(["bases"], 9.0), cov, lab, ids=ids)
    assert r["label_errors"] == r["label_errors_own"] == 0  # b's noPeaks left out
    r = _quiet(choose_rule, constant_model(["bases"], 9.0), cov, lab)
    assert r["label_errors"] == r["label_errors_own"] == 1


def test_learn_writes_the_rule_and_says_the_peaks_per_mb(tmp_path, capsys):
    folder = tmp_path / "d"
    folder.mkdir()
    cov = _coverage(1).assign(sample_id="s")
    cov[["sample_id", "chrom", "chromStart", "chromEnd", "count"]].to_csv(
        folder / "coverage.csv", index=False)
    centres = 12_800 + 25_000 * np.arange(30, 40)  # the strong peaks
    lab = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": centres - 400,
                        "chromEnd": centres + 400, "annotation": "peaks"})
    empty = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
                          "chromStart": 25_000 * np.arange(30, 40) + 20_000,
                          "chromEnd": 25_000 * np.arange(30, 40) + 22_000,
                          "annotation": "noPeaks"})
    pd.concat([lab, empty]).to_csv(folder / "labels.csv", index=False)
    model = tmp_path / "m.json"
    assert _quiet(main, ["learn", str(folder), "--out", str(model), "--no-cache",
                         "--quiet"]) == 0
    out = capsys.readouterr().out
    rule = json.loads(model.read_text())["level"][RULE_KEY]
    assert rule["applied"] in ("yes", "no")
    assert {"label_errors", "label_errors_own", "peaks_per_mb_default",
            "peaks_per_mb"} <= set(rule)
    assert "narrow rule" in out and "expected peaks per Mb" in out, out


def test_callpeak_with_a_model_applies_its_rule_but_not_to_broad_or_controls(tmp_path):
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    import argparse

    from penlearn.cli._common import _Reporter
    from penlearn.cli.peaks import _log_lambda
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    design = plant_regions({"chr1": 600_000}, 24, 0, seed=5)
    bam = tmp_path / "t.bam"
    write_reads_bam(bam, design, background=24_000, per_peak=45, paired=True, seed=1)
    zero = ZeroLabelModel("narrow")
    model = _model_file(tmp_path / "m.json", 9.0,
                        {"applied": "yes", "shift": zero.shift, "qvalue": zero.qvalue})
    runs = {"rule": ["--model", model], "hand": ["--log-penalty", 9.0 + zero.shift, "-q",
                                                  zero.qvalue],
            "broad": ["--model", model, "--broad"], "broad_hand": ["--log-penalty", 9.0,
                                                                   "--broad"]}
    got = {}
    for name, extra in runs.items():
        assert _quiet(main, ["callpeak", "-t", str(bam), "-f", "BAMPE", "--outdir",
                             str(tmp_path), "-n", name, "--quiet", *map(str, extra)]) == 0
        suffix = "broadPeak" if "broad" in name else "narrowPeak"
        f = tmp_path / f"{name}_peaks.{suffix}"
        got[name] = _bed(f)
    assert got["rule"] == got["hand"] and got["rule"]
    assert got["broad"] == got["broad_hand"]  # --broad: the model's own λ, no filter
    # the controls' segments stay at the model's own λ
    ns = argparse.Namespace(penalty=None, log_penalty=None, model=str(model), broad=False)
    cov = _coverage(2)
    treat, _ = _quiet(_log_lambda, ns, cov, _Reporter(True))
    control, _ = _quiet(_log_lambda, ns, cov, _Reporter(True), filtered=False)
    assert np.allclose(treat.to_numpy(), 9.0 + zero.shift)
    assert np.allclose(control.to_numpy(), 9.0)


def test_no_label_on_the_windows_is_no_rule():
    cov = _coverage().assign(sample_id="a")
    lab = pd.DataFrame({"sample_id": ["b"], "chrom": "chr1", "chromStart": [10],
                        "chromEnd": [900], "annotation": ["noPeaks"]})
    r = _quiet(choose_rule, constant_model(["bases"], 9.0), cov, lab)
    assert r["applied"] == "no" and "label_errors" not in r


def test_peaks_and_callpeak_say_the_models_rule(tmp_path, capsys):
    cov = tmp_path / "cov.bedGraph"
    _coverage().to_csv(cov, sep="\t", header=False, index=False)
    zero = ZeroLabelModel("narrow")
    model = _model_file(tmp_path / "r.json", 9.0,
                        {"applied": "yes", "shift": zero.shift, "qvalue": zero.qvalue})
    assert _quiet(main, ["peaks", str(cov), "--out", str(tmp_path / "a.bed"), "--model",
                         str(model)]) == 0
    said = "".join(capsys.readouterr())
    assert "penlearn peaks: the model's narrow rule: peaks proposed at its log λ -2.5" in said
    assert _quiet(main, ["peaks", str(cov), "--out", str(tmp_path / "b.bed"), "--model",
                         str(model), "--no-filter"]) == 0
    assert "narrow rule" not in "".join(capsys.readouterr())
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    bam = tmp_path / "t.bam"
    write_reads_bam(bam, plant_regions({"chr1": 300_000}, 6, 0, seed=5), background=8_000,
                    per_peak=40, paired=True, seed=1)
    assert _quiet(main, ["callpeak", "-t", str(bam), "-f", "BAMPE", "--outdir",
                         str(tmp_path), "-n", "c", "--model", str(model)]) == 0
    assert "penlearn callpeak: the model's narrow rule" in "".join(capsys.readouterr())


def test_the_segments_map_is_applied_before_the_peaks_are_reported():
    # --control-rule filter: learn's check sees the peaks as peaks writes them
    cov = _coverage().assign(sample_id="s")
    lab = pd.DataFrame({"sample_id": ["s"], "chrom": "chr1", "chromStart": [987_000],
                        "chromEnd": [989_000], "annotation": ["peaks"]})

    def no_peaks(segs):
        return segs.assign(status="background")
    m = constant_model(["bases"], 9.0)
    kept = _quiet(choose_rule, m, cov, lab)
    dropped = _quiet(choose_rule, m, cov, lab, segments_map=no_peaks)
    assert kept["label_errors_own"] == 0 and kept["peaks_per_mb"] > 0
    assert dropped["label_errors_own"] == dropped["label_errors"] == 1
    assert dropped["peaks_per_mb"] == 0 and dropped["peaks_per_mb_default"] == 0
