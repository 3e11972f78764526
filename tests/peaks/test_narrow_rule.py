"""The zero-label model's narrow rule (issue 52 item 1): for a narrow mark, ``penlearn
peaks`` and ``callpeak`` propose peaks at the shipped log λ + δ and keep those of
q-value <= 0.05 (MACS3's default cutoff); a broad mark, a given penalty or model, and
``--no-filter`` keep the model's own λ and every peak of it."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import peaks_coverage, quiet

import penlearn as pl
from penlearn.cli import main
from penlearn.peaks.pretrained import DEFAULT_MODEL_PATH, ZeroLabelModel, load_pretrained

#: the chosen δ (benchmarks/RESULTS.md, "sensitivity, the shipped narrow rule")
SHIPPED_SHIFT = -2.5


_quiet = quiet


def _coverage(seed: int = 0):
    return peaks_coverage(seed, lowest=5.0)


def _narrowpeak(path) -> pd.DataFrame:
    text = path.read_text()
    return (pd.read_csv(path, sep="\t", header=None) if text.strip()
            else pd.DataFrame(columns=range(10)))


def test_the_shipped_model_carries_the_rule_of_each_mark():
    narrow, broad = ZeroLabelModel("narrow"), ZeroLabelModel("broad")
    assert (narrow.shift, narrow.qvalue) == (SHIPPED_SHIFT, 0.05)
    assert (broad.shift, broad.qvalue) == (0.0, None)
    # the rule's keys are new keys of default.json: the coefficients are the model's
    data = json.loads(DEFAULT_MODEL_PATH.read_text())
    assert data["zero_label_rule"]["narrow"] == {"shift": SHIPPED_SHIFT, "qvalue": 0.05}
    assert "broad" not in data["zero_label_rule"]
    # learn's prior (the model at the narrow level) is not lowered
    assert narrow.model.intercept_ == pytest.approx(
        load_pretrained().provenance["marks"]["narrow"]["intercept"])
    assert "q-value <= 0.05" in narrow.rule_notice() and broad.rule_notice() == ""


def test_filtered_log_lambda_is_the_model_s_plus_the_shift():
    cov = _coverage()
    narrow, broad = pl.shipped_model(), pl.shipped_model("broad")
    _, own = _quiet(narrow.log_lambda, cov)
    _, low = _quiet(narrow.log_lambda, cov, filtered=True)
    assert np.allclose(low.to_numpy(), own.to_numpy() + SHIPPED_SHIFT)
    _, b0 = _quiet(broad.log_lambda, cov)
    _, b1 = _quiet(broad.log_lambda, cov, filtered=True)
    assert np.array_equal(b0.to_numpy(), b1.to_numpy())


def test_a_model_file_without_the_rule_keeps_its_own_lambda(tmp_path):
    data = json.loads(DEFAULT_MODEL_PATH.read_text())
    del data["zero_label_rule"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    m = ZeroLabelModel("narrow", old)
    assert (m.shift, m.qvalue) == (0.0, None)
    data["zero_label_rule"] = {"narrow": {"shift": -2, "qvalue": 1.5}}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"zero_label_rule\.narrow\.qvalue"):
        ZeroLabelModel("narrow", bad)


def test_peaks_default_is_the_lowered_penalty_filtered_by_q(tmp_path, capsys):
    path = tmp_path / "s.bedGraph"
    _coverage().to_csv(path, sep="\t", header=False, index=False)
    out = {}
    for name, extra in (("default", []), ("all", ["--qvalue", "1"]),
                        ("own", ["--no-filter"])):
        f = tmp_path / f"{name}.narrowPeak"
        assert _quiet(main, ["peaks", str(path), "--out", str(f), "--format",
                             "narrowPeak", *extra]) == 0
        out[name] = _narrowpeak(f)
    said = capsys.readouterr().out.splitlines()
    notices = [s for s in said if "zero-label" in s]
    assert len(notices) == 3  # one per run: the rule, the user's cutoff, no rule
    assert notices[0].endswith("kept where their q-value <= 0.05 (MACS3's default "
                               "cutoff; --no-filter: the model's own peaks)")
    assert notices[1].endswith("kept where their q-value <= 1")
    assert "proposed at log λ" not in notices[2]
    cut = -math.log10(0.05)
    # default = the lowered penalty's peaks of q-value <= 0.05, with their values
    every = out["all"]
    kept = every[every[8] >= cut].reset_index(drop=True)
    pd.testing.assert_frame_equal(out["default"].drop(columns=3),
                                  kept.drop(columns=3), check_dtype=False)
    assert len(every) > len(kept)  # the filter dropped some proposals
    # --no-filter: the model's own λ, every peak (as predict_peaks without a penalty)
    own = _quiet(pl.predict_peaks, _coverage())
    assert out["own"][[1, 2]].values.tolist() == own[["chromStart", "chromEnd"]].values.tolist()
    # the planted peaks found: more with the rule than at the model's own λ
    centres = 12_800 + 25_000 * np.arange(40)

    def found(t):
        return sum(((t[1] < c) & (c < t[2])).any() for c in centres)

    assert found(out["default"]) > found(out["own"])


def test_peaks_options_that_turn_the_rule_off(tmp_path, capsys):
    path = tmp_path / "s.bedGraph"
    cov = _coverage(1)
    cov.to_csv(path, sep="\t", header=False, index=False)
    # --broad: the model's broad level, every peak (as predict_peaks at mark="broad")
    f = tmp_path / "broad.bed"
    assert _quiet(main, ["peaks", str(path), "--out", str(f), "--broad"]) == 0
    want = _quiet(pl.predict_peaks, cov, mark="broad")
    got = pd.read_csv(f, sep="\t", header=None)
    assert got[[1, 2]].values.tolist() == want[["chromStart", "chromEnd"]].values.tolist()
    # a given penalty: no filter unless asked
    a, b = tmp_path / "a.narrowPeak", tmp_path / "b.narrowPeak"
    assert _quiet(main, ["peaks", str(path), "--out", str(a), "--format", "narrowPeak",
                         "--log-penalty", "6"]) == 0
    assert _quiet(main, ["peaks", str(path), "--out", str(b), "--format", "narrowPeak",
                         "--log-penalty", "6", "--qvalue", "1"]) == 0
    assert a.read_text() == b.read_text()
    assert (_narrowpeak(a)[8] < -math.log10(0.05)).any()  # unfiltered peaks are there
    capsys.readouterr()
    assert main(["peaks", str(path), "--out", str(a), "--force", "--penalty", "100",
                 "--no-filter"]) != 0
    assert "drop --no-filter" in capsys.readouterr().err


def test_callpeak_default_rule_and_its_overrides(tmp_path):
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    design = plant_regions({"chr1": 600_000}, 24, 0, seed=5)
    bam = tmp_path / "t.bam"
    write_reads_bam(bam, design, background=24_000, per_peak=45, paired=True, seed=1)
    out = {}
    for name, extra in (("default", []), ("all", ["-q", "1"]), ("own", ["--no-filter"]),
                        ("p", ["-p", "1e-9"]), ("whole", ["--solve", "whole"]),
                        ("whole_all", ["-q", "1", "--solve", "whole"])):
        assert _quiet(main, ["callpeak", "-t", str(bam), "-f", "BAMPE", "--outdir",
                             str(tmp_path), "-n", name, "--quiet", *extra]) == 0
        out[name] = _narrowpeak(tmp_path / f"{name}_peaks.narrowPeak")
    cols = [0, 1, 2, 6, 7, 8, 9]  # (names and 0-1000 scores are those of the file's peaks)
    # the exact model: the rule's calls are those of every call that pass its cutoff
    every = out["whole_all"]
    kept = every[every[8] >= -math.log10(0.05)].reset_index(drop=True)
    pd.testing.assert_frame_equal(out["whole"][cols], kept[cols], check_dtype=False)
    assert len(every) > len(kept)
    # the candidate stretches (the default) depend on the cutoff: the same calls and
    # p/q-values; a fold may differ in its last digits (a background run a stretch's
    # cut ends, issue 55)
    every = out["all"]
    kept = every[every[8] >= -math.log10(0.05)].reset_index(drop=True)
    for got in (out["default"], out["whole"]):
        pd.testing.assert_frame_equal(got[[0, 1, 2, 7, 8, 9]], kept[[0, 1, 2, 7, 8, 9]],
                                      check_dtype=False)
        np.testing.assert_allclose(got[6], kept[6], rtol=1e-3)
    assert len(every) > len(kept)
    # -p replaces the rule's cutoff (the lowered penalty stays)
    assert out["p"][[1, 2]].values.tolist() == every.loc[
        every[7] >= 9, [1, 2]].values.tolist()
    centres = design.peaks["centre"].to_numpy()

    def found(t):
        return sum(((t[1] < c) & (c < t[2])).any() for c in centres)

    assert found(out["default"]) > found(out["own"])
    assert found(out["default"]) == len(out["default"])  # no false call here


def test_the_commands_lambda_is_lowered_for_treatments_only():
    """``peaks``/``callpeak``: the treatments' λ is the rule's (lowered, then filtered);
    the controls' segments (their background) stay at the model's own λ."""
    import argparse

    from penlearn.cli._common import _Reporter
    from penlearn.cli.peaks import _log_lambda

    cov = _coverage(2)
    ns = argparse.Namespace(penalty=None, log_penalty=None, model=None, broad=False)
    quiet = _Reporter(True)
    _, own = _quiet(pl.shipped_model().log_lambda, cov)
    treat, _ = _quiet(_log_lambda, ns, cov, quiet)
    control, _ = _quiet(_log_lambda, ns, cov, quiet, filtered=False)
    off, _ = _quiet(_log_lambda, argparse.Namespace(**{**vars(ns), "no_filter": True}),
                    cov, quiet)
    assert np.allclose(treat.to_numpy(), own.to_numpy() + SHIPPED_SHIFT)
    assert np.array_equal(control.to_numpy(), own.to_numpy())
    assert np.array_equal(off.to_numpy(), own.to_numpy())
