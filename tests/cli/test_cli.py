"""The ``penlearn`` command: the demo, each subcommand, and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _penlearn_demo import parse_report, table_frame
from conftest import run_main as run

from penlearn.changepoint.evaluation import error_functions
from penlearn.changepoint.segmentation import segment_sequences
from penlearn.cli import build_parser, main
from penlearn.datasets import load_uci, simulate
from penlearn.learn import PenaltyModel
from penlearn.roc import roc_change

SUBCOMMANDS = ["demo", "segment", "learn", "predict", "report"]


# --------------------------------------------------------------------------- helpers


def assert_one_line_error(code, err, *needles, exit_code=1):
    assert code == exit_code
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "error" in lines[0]
    for n in needles:
        assert n in lines[0], lines[0]


def leftovers(folder: Path) -> list[Path]:
    """Temporary files/folders of a staged output left behind."""
    return [p for p in folder.rglob(".*") if p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def small_data(tmp_path_factory):
    """A small labeled data set as the CSV files a user would have."""
    d = tmp_path_factory.mktemp("small")
    data = simulate(12, seed=5, n_points=(60, 120))
    data.sequences.to_csv(d / "sequences.csv", index=False)
    data.labels.to_csv(d / "labels.csv", index=False)
    return d, data


# --------------------------------------------------------------------------- the demo


def test_demo_writes_the_report_and_a_uci_folder(demo):
    out = demo.out
    assert "wrote" in demo.stdout and str(out / "report.html") in demo.stdout
    assert demo.stdout.count("\n") == 1  # --quiet: one summary line only
    for name in ("report.html", "model.json", "evaluation.csv", "inputs.csv", "outputs.csv",
                 "sequences.csv", "labels.csv", "models.csv", "changes.csv",
                 "predictions.csv", "cv/demo/folds.csv"):
        assert (out / name).is_file(), name
    assert leftovers(out.parent) == []
    ds = load_uci(out)
    assert ds.inputs is not None and set(ds.folds) == {"demo"}
    assert set(ds.sequence_ids) <= set(ds.inputs.index)


def test_demo_report_numbers_are_those_of_its_model(demo):
    """The learned model's test AUC/AUM in the report's table, recomputed independently
    from model.json, inputs.csv and evaluation.csv."""
    out = demo.out
    ds = load_uci(out)
    model = PenaltyModel.load(out / "model.json")
    test = list(ds.folds["demo"].query("fold == 3")["sequence_id"])
    ev = ds.evaluation[ds.evaluation["sequence_id"].isin(test)]
    res = roc_change(ev, pd.Series(model.predict(ds.inputs.loc[test]), index=test))
    page = parse_report(out / "report.html")
    summary = table_frame(page.tables["auc-table"]).set_index("prediction")
    assert len(summary) == 3
    learned = summary.loc[[i for i in summary.index if i.startswith("learned")][0]]
    assert float(learned["auc"]) == pytest.approx(res.auc, rel=1e-3, abs=1e-4)
    assert float(learned["aum"]) == pytest.approx(res.aum, rel=1e-3, abs=1e-4)
    assert float(learned["errors"]) == res.thresholds.loc["predicted", "errors"]
    pred = pd.read_csv(out / "predictions.csv").set_index("sequence_id")
    learned_col = [c for c in pred.columns if c.startswith("learned")][0]
    assert np.allclose(pred.loc[test, learned_col], model.predict(ds.inputs.loc[test]))
    for fig in ("roc-figure", "error-functions-figure", "learning-curves-figure"):
        assert page.images[fig].startswith("data:image/png;base64,")
    seq_table = table_frame(page.tables["sequence-table"])
    assert sorted(seq_table["sequence_id"]) == sorted(test)


def test_learn_and_predict_on_the_demo_folder(demo, tmp_path, capsys):
    model_path = tmp_path / "sub" / "model.json"
    code, out, err = run(["learn", demo.out, "--fold", 3, "--cv-type", "demo", "--init", "zero",
                          "--max-steps", 5, "--out", model_path, "--quiet"], capsys)
    assert code == 0, err
    assert re.search(r"test fold 3: AUC [0-9.]+", out)
    model = PenaltyModel.load(model_path)
    # what was learned, in words
    assert f"penlearn learn: learned {model.describe()}" in out.splitlines()
    assert len(model.history_) <= 6
    pred_path = tmp_path / "pred.csv"
    code, out, err = run(["predict", model_path, demo.out, "--fold", 3, "--cv-type", "demo",
                          "--out", pred_path], capsys)
    assert code == 0, err
    pred = pd.read_csv(pred_path, dtype={"sequenceID": str})
    ds = load_uci(demo.out)
    test = list(ds.folds["demo"].query("fold == 3")["sequence_id"])
    assert list(pred["sequenceID"]) == test  # the id column is named as in inputs.csv
    assert np.allclose(pred["log_lambda"], model.predict(ds.inputs.loc[test]))
    # to standard output without --out
    code, out, err = run(["predict", model_path, demo.out / "inputs.csv"], capsys)
    assert code == 0 and out.splitlines()[0] == "sequenceID,log_lambda"
    assert len(out.splitlines()) == 1 + len(ds.inputs)
    # a report comparing the model with its own prediction file: identical rows
    rep = tmp_path / "report.html"
    code, out, err = run(["report", demo.out, "--model", f"m={model_path}",
                          "--predictions", f"p={pred_path}", "--fold", 3, "--cv-type", "demo",
                          "--out", rep], capsys)
    assert code == 0, err
    summary = table_frame(parse_report(rep).tables["auc-table"]).set_index("prediction")
    assert list(summary.index) == ["m", "p"]
    assert summary.loc["m"].equals(summary.loc["p"])


# --------------------------------------------------------------------------- segment


def test_segment_writes_models_changes_and_evaluation(small_data, tmp_path, capsys):
    d, data = small_data
    out = tmp_path / "seg"
    code, stdout, err = run(["segment", d / "sequences.csv", d / "labels.csv",
                             "--max-segments", 5, "--out", out, "--quiet"], capsys)
    assert code == 0, err
    models, changes = segment_sequences(data.sequences, 5, progress=False)
    pd.testing.assert_frame_equal(pd.read_csv(out / "models.csv"), models, check_dtype=False)
    pd.testing.assert_frame_equal(pd.read_csv(out / "changes.csv"), changes, check_dtype=False)
    expected = error_functions(models, changes, data.labels)
    ds = load_uci(out)  # the folder is in the UCI format
    got = ds.evaluation
    for col in ("fp", "fn", "min_log_lambda", "max_log_lambda"):
        assert np.allclose(got[col].to_numpy(float), expected[col].to_numpy(float))
    assert list(got["sequence_id"].astype(str)) == list(expected["sequence_id"].astype(str))
    assert ds.outputs is not None and ds.inputs is not None
    assert set(ds.inputs.index.astype(str)) == set(data.truth["sequence_id"])
    assert leftovers(tmp_path) == []


# --------------------------------------------------------------------------- help, usage


@pytest.mark.parametrize("cmd", SUBCOMMANDS)
def test_help_of_every_subcommand(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main([cmd, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: penlearn {cmd}")
    assert "--quiet" in out


def test_parser_lists_every_subcommand():
    text = build_parser().format_help()
    for cmd in SUBCOMMANDS:
        assert cmd in text


def test_usage_error_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["segment", "a.csv"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "required" in err


# --------------------------------------------------------------------------- bad input


def test_missing_column(small_data, tmp_path, capsys):
    d, data = small_data
    bad = tmp_path / "seqs.csv"
    data.sequences.drop(columns="value").to_csv(bad, index=False)
    out = tmp_path / "out"
    code, _, err = run(["segment", bad, d / "labels.csv", "--max-segments", 3, "--out", out],
                       capsys)
    assert_one_line_error(code, err, "value", "missing")
    assert not out.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe binary", None])
def test_unreadable_file(small_data, tmp_path, capsys, content):
    d, _ = small_data
    path = tmp_path / "sequences.csv"
    if content is not None:
        path.write_bytes(content)
    out = tmp_path / "out"
    code, _, err = run(["segment", path, d / "labels.csv", "--max-segments", 3, "--out", out],
                       capsys)
    assert_one_line_error(code, err, "sequences")
    assert not out.exists() and leftovers(tmp_path) == []


def test_failure_after_work_leaves_no_partial_output(small_data, tmp_path, capsys):
    """Segmenting succeeds, then the labels turn out to overlap: nothing is written."""
    d, data = small_data
    labels = data.labels.copy()
    first = labels.iloc[[0]].copy()
    first["start"] += 1  # overlaps the first label
    pd.concat([labels, first]).to_csv(tmp_path / "labels.csv", index=False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("existing file")
    code, _, err = run(["segment", d / "sequences.csv", tmp_path / "labels.csv",
                        "--max-segments", 3, "--out", out, "--quiet", "--force"], capsys)
    assert_one_line_error(code, err, "overlap")
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert leftovers(tmp_path) == []


def _model_file(tmp_path: Path, demo) -> Path:
    path = tmp_path / "model.json"
    path.write_text((demo.out / "model.json").read_text())
    return path


def test_model_file_from_another_version(demo, tmp_path, capsys):
    path = _model_file(tmp_path, demo)
    data = json.loads(path.read_text())
    data["version"] = data["version"] + 1
    path.write_text(json.dumps(data))
    out = tmp_path / "pred.csv"
    code, _, err = run(["predict", path, demo.out, "--out", out], capsys)
    assert_one_line_error(code, err, "version")
    assert not out.exists()
    code, _, err = run(["report", demo.out, "--model", path, "--out", tmp_path / "r.html"],
                       capsys)
    assert_one_line_error(code, err, "version")
    assert not (tmp_path / "r.html").exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("text", ["not json at all {", '{"format": "something else"}', ""])
def test_model_file_that_is_not_a_model(demo, tmp_path, capsys, text):
    path = tmp_path / "model.json"
    path.write_text(text)
    code, _, err = run(["predict", path, demo.out], capsys)
    assert_one_line_error(code, err, "model")


def test_missing_model_file(demo, tmp_path, capsys):
    code, _, err = run(["predict", tmp_path / "nope.json", demo.out], capsys)
    assert_one_line_error(code, err, "nope.json")


def test_learn_bad_fold_and_missing_folder(demo, tmp_path, capsys):
    out = tmp_path / "m.json"
    code, _, err = run(["learn", demo.out, "--fold", 99, "--out", out], capsys)
    assert_one_line_error(code, err, "--fold 99")
    code, _, err = run(["learn", tmp_path / "nowhere", "--out", out], capsys)
    assert_one_line_error(code, err, "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(["learn", empty, "--out", out], capsys)
    assert_one_line_error(code, err, "evaluation")
    assert not out.exists() and leftovers(tmp_path) == []


def test_report_needs_predictions(demo, tmp_path, capsys):
    out = tmp_path / "r.html"
    code, _, err = run(["report", demo.out, "--out", out], capsys)
    assert_one_line_error(code, err, "--model")
    bad = tmp_path / "p.csv"
    pd.DataFrame({"sequence_id": ["x"], "log_lambda": [1.0]}).to_csv(bad, index=False)
    code, _, err = run(["report", demo.out, "--predictions", bad, "--out", out], capsys)
    assert_one_line_error(code, err)
    assert not out.exists() and leftovers(tmp_path) == []


def test_output_directory_that_is_a_file(small_data, tmp_path, capsys):
    d, _ = small_data
    out = tmp_path / "out"
    out.write_text("a file")
    code, _, err = run(["segment", d / "sequences.csv", d / "labels.csv", "--max-segments", 3,
                        "--out", out], capsys)
    assert_one_line_error(code, err, "not a directory")
    assert out.read_text() == "a file"


def test_inputs_without_the_model_features(demo, tmp_path, capsys):
    inputs = tmp_path / "inputs.csv"
    pd.DataFrame({"sequenceID": ["a", "b"], "log.n": [5.0, 6.0]}).to_csv(inputs, index=False)
    out = tmp_path / "pred.csv"
    code, _, err = run(["predict", demo.out / "model.json", inputs, "--out", out], capsys)
    assert_one_line_error(code, err, "feature")
    assert not out.exists()
    pd.DataFrame({"id": ["a"], "x": [1.0]}).to_csv(inputs, index=False)
    code, _, err = run(["predict", demo.out / "model.json", inputs], capsys)
    assert_one_line_error(code, err, "sequenceID")
