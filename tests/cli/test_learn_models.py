"""``penlearn learn --model {boosting,linear,auto}`` and the boosting model file that
``penlearn predict`` and ``penlearn peaks --model`` use."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import run_main as run

import penlearn as pl
from penlearn.cli import build_parser, main
from penlearn.datasets import load_uci
from penlearn.learn import PenaltyModel
from penlearn.learn.penalty import DEFAULT_MODEL

BACKGROUND = (1, 3, 10, 30, 100, 300, 1000, 3000)


@pytest.fixture(scope="module")
def coverage_folder(tmp_path_factory):
    """48 samples of one 400 bp window: background b (1..3000 reads per bin, with
    over-dispersion ∝ b) and one peak of 4·b; labels on both peak edges and two flat
    regions. The penalty that finds the peak without false ones grows with b, so no
    single penalty fits every sample: a learned model must vary."""
    d = tmp_path_factory.mktemp("coverage") / "data"
    d.mkdir()
    rng = np.random.default_rng(3)
    rows, labels = [], []
    for i in range(48):
        s, b = f"s{i:02d}", BACKGROUND[i % len(BACKGROUND)]
        mu = np.r_[np.full(15, b), np.full(10, 4 * b), np.full(15, b)] * rng.lognormal(0, 0.3, 40)
        rows += [(s, "chr1", 10 * j, 10 * j + 10, int(c)) for j, c in enumerate(rng.poisson(mu))]
        labels += [(s, "chr1", 140, 160, "peakStart"), (s, "chr1", 240, 260, "peakEnd"),
                   (s, "chr1", 300, 380, "noPeaks"), (s, "chr1", 0, 100, "noPeaks")]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"]).to_csv(
        d / "coverage.csv", index=False)
    pd.DataFrame(labels, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                  "annotation"]).to_csv(d / "labels.csv", index=False)
    return d


def test_help_says_line_search_and_init_are_the_linear_models():
    learn = build_parser()._subparsers._group_actions[0].choices["learn"]
    helps = {a.dest: a.help for a in learn._actions}
    assert "linear model" in helps["line_search"] and "linear model" in helps["init"]
    args = build_parser().parse_args(["learn", "d", "--out", "m.json"])
    assert args.model == DEFAULT_MODEL
    assert build_parser().parse_args(["learn", "d", "--out", "m.json", "--model",
                                      "linear"]).model == "linear"


def test_unknown_model_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["learn", str(tmp_path), "--out", str(tmp_path / "m.json"), "--model", "tree"])
    assert exc.value.code == 2
    assert "--model" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_learn_each_model_class_and_predict_with_the_boosting_file(demo, tmp_path, capsys):
    fold = ["--fold", 3, "--cv-type", "demo", "-q"]
    models = {}
    for name in ("boosting", "linear", "auto"):
        path = tmp_path / f"{name}.json"
        code, out, err = run(["learn", demo.out, "--model", name, *fold, "--out", path], capsys)
        assert code == 0, err
        models[name] = PenaltyModel.load(path)
    assert models["boosting"].level_["model"] == "boosting" and models["boosting"].trees_
    assert models["linear"].level_["model"] == "linear" and not models["linear"].trees_
    assert models["auto"].level_["model"] in ("boosting", "linear")
    # --init and --line-search are the linear model's: the boosting file does not change
    b2 = tmp_path / "b2.json"
    code, _, err = run(["learn", demo.out, "--model", "boosting", "--init", "zero",
                        "--line-search", "grid", *fold, "--out", b2], capsys)
    assert code == 0, err
    ds = load_uci(demo.out)
    x = ds.inputs[models["boosting"].feature_names_in_]
    assert np.array_equal(PenaltyModel.load(b2).predict(x), models["boosting"].predict(x))
    # ... but they change the linear model
    l2 = tmp_path / "l2.json"
    code, _, err = run(["learn", demo.out, "--model", "linear", "--init", "zero", *fold,
                        "--out", l2], capsys)
    assert code == 0, err
    assert not np.allclose(PenaltyModel.load(l2).predict(x), models["linear"].predict(x))
    # predict with the boosting model file: its trees' log λ, not a constant
    code, out, err = run(["predict", tmp_path / "boosting.json", demo.out / "inputs.csv"],
                         capsys)
    assert code == 0, err
    pred = pd.read_csv(pd.io.common.StringIO(out), dtype={"sequenceID": str})
    expect = models["boosting"].predict(ds.inputs.loc[list(pred["sequenceID"])])
    assert np.allclose(pred["log_lambda"], expect)
    assert pred["log_lambda"].nunique() > 1


def test_default_learn_on_coverage_then_peaks_with_the_boosting_model(coverage_folder,
                                                                      tmp_path, capsys):
    """``learn --model boosting`` on a coverage folder writes a boosting model;
    ``peaks --model`` gives each sample the peaks of ``peaks --penalty`` at that sample's
    predicted λ (two paths through the command)."""
    path = tmp_path / "m.json"
    code, out, err = run(["learn", coverage_folder, "--model", "boosting", "--out", path,
                          "-q"], capsys)
    assert code == 0, err
    model = PenaltyModel.load(path)
    assert model.level_["model"] == "boosting" and model.trees_
    cov = pd.read_csv(coverage_folder / "coverage.csv")
    features = pl.coverage_features(pl.read_coverage(coverage_folder / "coverage.csv"))
    log_lambda = pd.Series(model.predict(features), index=features.index)
    samples = {i.split("/")[0]: v for i, v in log_lambda.items()}
    low, high = "s00", "s07"  # background 1 and 3000 reads per bin
    assert samples[high] > samples[low] + 1.0  # the model sees the difference
    code, _, err = run(["peaks", coverage_folder / "coverage.csv", "--model", path, "--out",
                        tmp_path / "peaks", "--bed3", "-q"], capsys)
    assert code == 0, err
    for s in (low, high):
        one = tmp_path / f"{s}.csv"
        cov[cov["sample_id"] == s].to_csv(one, index=False)
        code, _, err = run(["peaks", one, "--penalty", repr(math.exp(samples[s])), "--out",
                            tmp_path / f"{s}.bed", "--bed3", "-q"], capsys)
        assert code == 0, err
        by_model = pl.read_bed(tmp_path / "peaks" / f"{s}.bed")
        assert by_model.equals(pl.read_bed(tmp_path / f"{s}.bed")), s
        assert len(by_model) >= 1


def _errors_at(ev: pd.DataFrame, log_lambda: pd.Series) -> int:
    """Label errors of each sequence's row containing its log λ (a plain scan)."""
    lam = ev["sequence_id"].map(log_lambda)
    rows = ev[lam.notna() & (ev["min_log_lambda"] < lam) & (lam <= ev["max_log_lambda"])]
    assert sorted(rows["sequence_id"]) == sorted(log_lambda.index)  # one row each
    return int((rows["fp"] + rows["fn"]).sum())


def test_demo_learns_the_default_model_at_least_as_good_as_bic(demo):
    """The demo learns the default model (``model="auto"``: chosen by CV, said in the
    report) and its report says whether it is at least as good as BIC on the test
    sequences: numbers recomputed here from the files it wrote."""
    from _penlearn_demo import parse_report, table_frame

    ds = load_uci(demo.out)
    model = PenaltyModel.load(demo.out / "model.json")
    assert model.model == DEFAULT_MODEL == "auto"
    assert model.level_["model"] == model.choice_["chosen"]
    folds = ds.folds["demo"]
    test = list(folds.query("fold == 3")["sequence_id"])
    ev = ds.evaluation
    pred = pd.read_csv(demo.out / "predictions.csv", dtype={"sequence_id": str})
    pred = pred.set_index("sequence_id")
    learned_col = [c for c in pred.columns if c.startswith("learned")][0]
    e_learned = _errors_at(ev, pd.Series(model.predict(ds.inputs.loc[test]), index=test))
    e_bic = _errors_at(ev, pred.loc[test, "BIC"])
    page = parse_report(demo.out / "report.html")
    summary = table_frame(page.tables["auc-table"]).set_index("prediction")
    assert float(summary.loc[learned_col, "errors"]) == e_learned
    assert float(summary.loc["BIC", "errors"]) == e_bic
    text = (demo.out / "report.html").read_text()
    assert f"label errors {e_learned} against {e_bic} at the predicted penalties" in text
    auc_l, auc_b = (float(summary.loc[c, "auc"]) for c in (learned_col, "BIC"))
    as_good = "the learned model is at least as good" in text
    assert as_good == (auc_l >= auc_b - 5e-5 and e_learned <= e_bic) or \
        "is NOT at least as good" in text
    # seed 1 (the demo's default): the chosen model is at least as good as BIC
    assert as_good and auc_l >= auc_b and e_learned <= e_bic
    assert model.describe().split(";")[0] in text  # what was learned, in words



def test_learn_no_clip_is_learn_penalty_clip_false(demo, tmp_path, capsys):
    """--no-clip reaches the model (saved in its file): a linear model then extrapolates."""
    args = ["--fold", 3, "--cv-type", "demo", "-q", "--model", "linear"]
    for flag, name in (([], "clip.json"), (["--no-clip"], "noclip.json")):
        code, _, err = run(["learn", demo.out, *args, *flag, "--out", tmp_path / name], capsys)
        assert code == 0, err
    clipped = PenaltyModel.load(tmp_path / "clip.json")
    free = PenaltyModel.load(tmp_path / "noclip.json")
    assert clipped.clip is True and free.clip is False
    pd.testing.assert_series_equal(clipped.coef_, free.coef_)  # clip changes prediction only
    assert (free.coef_ != 0).any()
    sc = free.scaling_
    low, high = np.asarray(sc.low, float), np.asarray(sc.high, float)
    far = pd.DataFrame([high + 100 * (high - low) + 100], columns=list(sc.columns))
    inside = pd.DataFrame([(low + high) / 2], columns=list(sc.columns))
    assert free.predict(inside)[0] == pytest.approx(clipped.predict(inside)[0])
    assert free.predict(far)[0] != pytest.approx(clipped.predict(far)[0])
