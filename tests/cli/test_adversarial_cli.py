"""No silent wrong answers, command-line side: each test failed before its fix.

Commands run in-process through ``main`` where only the result matters, and as a
subprocess where the process matters (signals, warnings, pipes, imports).
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _penlearn_demo import penlearn_command
from conftest import REPO
from conftest import run_main as run

from penlearn.binary import BinaryLinearModel
from penlearn.cli import build_parser, main
from penlearn.datasets import simulate

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}


def run_process(argv, **kw):
    return subprocess.run([*penlearn_command(), *map(str, argv)], capture_output=True,
                          text=True, timeout=300, env=ENV, **kw)


def one_line_error(code, err, *needles):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 1 and len(lines) == 1 and "error" in lines[0], err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def leftovers(folder: Path) -> list[Path]:
    return [p for p in Path(folder).rglob(".*") if p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """CSV files of 12 labeled sequences, their segment folder and a learned model."""
    d = tmp_path_factory.mktemp("adv")
    data = simulate(12, seed=5, n_points=(60, 120))
    data.sequences.to_csv(d / "sequences.csv", index=False)
    data.labels.to_csv(d / "labels.csv", index=False)
    assert main(["segment", str(d / "sequences.csv"), str(d / "labels.csv"), "--max-segments",
                 "5", "--out", str(d / "seg"), "-q"]) == 0
    assert main(["learn", str(d / "seg"), "--init", "zero", "--max-steps", "2", "--out",
                 str(d / "model.json"), "-q"]) == 0
    return d, data


# --------------------------------------------------------------------------- ids as text


def test_numeric_looking_ids_survive_segment_and_predict(small, tmp_path, capsys):
    d, data = small
    ids = ["0001", "1", "1.0", "2", "02", "3"]
    rename = dict(zip([f"sim{i:02d}" for i in range(1, 7)], ids))
    seqs = data.sequences[data.sequences["sequence_id"].isin(rename)].replace(rename)
    labels = data.labels[data.labels["sequence_id"].isin(rename)].replace(rename)
    seqs.to_csv(tmp_path / "s.csv", index=False)
    labels.to_csv(tmp_path / "l.csv", index=False)
    code, out, err = run(["segment", tmp_path / "s.csv", tmp_path / "l.csv", "--max-segments",
                          4, "--out", tmp_path / "seg", "-q", "--n-folds", 0], capsys)
    assert code == 0, err
    assert "(6 sequences" in out
    models = pd.read_csv(tmp_path / "seg" / "models.csv", dtype=str)
    assert sorted(pd.unique(models["sequence_id"])) == sorted(ids)
    code, out, err = run(["predict", d / "model.json", tmp_path / "seg"], capsys)
    assert code == 0, err
    pred = pd.read_csv(__import__("io").StringIO(out), dtype=str)
    assert list(pred["sequenceID"]) == ids  # none merged, none reformatted


# --------------------------------------------------------------- labels outside the data


def test_label_past_the_data_warns_and_strict_stops(small, tmp_path):
    d, data = small
    labels = data.labels.copy()
    labels.loc[len(labels)] = ["sim01", 5000, 6000, "1change"]  # kb instead of bp
    labels.to_csv(tmp_path / "l.csv", index=False)
    proc = run_process(["segment", d / "sequences.csv", tmp_path / "l.csv", "--max-segments",
                        3, "--out", tmp_path / "seg"])
    assert proc.returncode == 0, proc.stderr
    warn = [ln for ln in proc.stderr.splitlines() if "warning" in ln]
    assert len(warn) == 1 and "1 label(s) of 1 sequence(s) ['sim01']" in warn[0], proc.stderr
    proc = run_process(["segment", d / "sequences.csv", tmp_path / "l.csv", "--max-segments",
                        3, "--out", tmp_path / "seg2", "--strict"])
    one_line_error(proc.returncode, proc.stderr, "(5000, 6000]", "sim01")
    assert not (tmp_path / "seg2").exists() and leftovers(tmp_path) == []


# --------------------------------------------------------------- a model of another kind


def test_binary_model_is_refused_by_predict_and_report(small, tmp_path, capsys):
    d, _ = small
    path = tmp_path / "binary.json"
    BinaryLinearModel(np.array([1.0]), 0.0, "logistic", feature_names=["x"]).save(path)
    code, _, err = run(["predict", path, d / "seg", "--out", tmp_path / "p.csv"], capsys)
    one_line_error(code, err, str(path), "penlearn.BinaryLinearModel")
    code, _, err = run(["report", d / "seg", "--model", path, "--out", tmp_path / "r.html"],
                       capsys)
    one_line_error(code, err, "penlearn.BinaryLinearModel")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["binary.json"]


# ------------------------------------------------------------ sequences without features


def _folder_without_features_for(small, tmp_path, drop):
    d, _ = small
    folder = tmp_path / "seg"
    subprocess.run(["cp", "-r", str(d / "seg"), str(folder)], check=True)
    inputs = pd.read_csv(folder / "inputs.csv", dtype={"sequenceID": str})
    inputs[~inputs["sequenceID"].isin(drop)].to_csv(folder / "inputs.csv", index=False)
    return folder


def test_learn_says_which_labeled_sequences_it_leaves_out(small, tmp_path):
    folder = _folder_without_features_for(small, tmp_path, ["sim03", "sim07"])
    proc = run_process(["learn", folder, "--init", "zero", "--max-steps", 1, "--out",
                        tmp_path / "m.json"])
    assert proc.returncode == 0, proc.stderr
    warn = [ln for ln in proc.stderr.splitlines() if "warning" in ln]
    assert any("2 labeled sequence(s) ['sim03', 'sim07'] have no features" in ln
               for ln in warn), proc.stderr


def test_learn_fold_with_a_test_sequence_without_features_writes_nothing(small, tmp_path,
                                                                         capsys):
    folds = pd.read_csv(small[0] / "seg" / "cv" / "random" / "folds.csv", dtype=str)
    test_id = folds.loc[folds["fold"] == "1", "sequenceID"].iloc[0]
    folder = _folder_without_features_for(small, tmp_path, [test_id])
    out = tmp_path / "m.json"
    code, _, err = run(["learn", folder, "--fold", 1, "--out", out, "-q"], capsys)
    one_line_error(code, err, "test sequence(s)", test_id, "no features")
    assert not out.exists() and leftovers(tmp_path) == []


# ----------------------------------------------------------------- SIGTERM while writing


def test_sigterm_during_the_write_phase_leaves_no_temporary_copy(small, tmp_path):
    d, _ = small
    script = textwrap.dedent(f"""
        import os, signal, sys
        import penlearn.cli as cli
        import penlearn.cli.segment as commands
        real = commands.write_uci
        def write_then_term(*args, **kwargs):  # the signal arrives mid-write
            real(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGTERM)
        commands.write_uci = write_then_term
        sys.exit(cli.main(["segment", {str(d / 'sequences.csv')!r},
                           {str(d / 'labels.csv')!r}, "--max-segments", "3",
                           "--out", {str(tmp_path / 'out')!r}, "-q"]))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=ENV)
    assert proc.returncode == 143, (proc.returncode, proc.stderr)
    assert proc.stderr.strip() == "penlearn segment: terminated"
    assert list(tmp_path.iterdir()) == []  # neither the output nor a hidden .out.*.tmp/


# ------------------------------------------------------ Ctrl-C while importing, warnings


def test_ctrl_c_while_importing_prints_one_line(tmp_path):
    script = textwrap.dedent("""
        import builtins, sys
        sys.argv[0] = "/usr/local/bin/penlearn"   # as the console script runs
        real = builtins.__import__
        def interrupted(name, *args, **kwargs):
            if name == "pandas":
                raise KeyboardInterrupt
            return real(name, *args, **kwargs)
        builtins.__import__ = interrupted
        from penlearn.cli import main
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=ENV)
    assert proc.returncode != 0
    assert proc.stderr.strip() == "penlearn: interrupted", proc.stderr


def test_warnings_reach_users_as_one_line_without_source(small, tmp_path):
    d, data = small
    labels = data.labels.copy()
    labels.loc[len(labels)] = ["sim01", 5000, 6000, "1change"]
    labels.to_csv(tmp_path / "l.csv", index=False)
    proc = run_process(["segment", d / "sequences.csv", tmp_path / "l.csv", "--max-segments",
                        3, "--out", tmp_path / "seg"])
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "Warning" in ln or "warning" in ln]
    assert len(lines) == 1 and lines[0].startswith("penlearn segment: warning: labels: ")
    assert "warnings.warn" not in proc.stderr and ".py:" not in proc.stderr, proc.stderr


def test_quiet_leaves_stderr_empty(small, tmp_path):
    d, data = small
    labels = data.labels.copy()
    labels.loc[len(labels)] = ["sim01", 5000, 6000, "1change"]
    labels.to_csv(tmp_path / "l.csv", index=False)
    proc = run_process(["segment", d / "sequences.csv", tmp_path / "l.csv", "--max-segments",
                        3, "--out", tmp_path / "seg", "-q"])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.count("\n") == 1  # the one-line result stays


# ---------------------------------------------------------------- unclear errors


def test_best_step_that_is_not_a_number(small, tmp_path, capsys):
    data = json.loads((small[0] / "model.json").read_text())
    data["best_step"] = "x"
    (tmp_path / "m.json").write_text(json.dumps(data))
    code, _, err = run(["predict", tmp_path / "m.json", small[0] / "seg"], capsys)
    one_line_error(code, err, "best_step", "m.json")


def test_duplicate_ids_in_inputs(small, tmp_path, capsys):
    inputs = pd.read_csv(small[0] / "seg" / "inputs.csv", dtype={"sequenceID": str})
    pd.concat([inputs, inputs.iloc[[2]]]).to_csv(tmp_path / "inputs.csv", index=False)
    code, _, err = run(["predict", small[0] / "model.json", tmp_path / "inputs.csv"], capsys)
    one_line_error(code, err, "inputs.csv", "'sim03'", "more than one row")


def test_demo_with_too_few_sequences(tmp_path, capsys):
    code, _, err = run(["demo", "--n-sequences", 1, "--out", tmp_path / "d"], capsys)
    one_line_error(code, err, "--n-sequences must be >= 12", "got 1")


def test_segment_into_a_used_folder_needs_force_and_leaves_nothing_stale(small, tmp_path,
                                                                         capsys):
    d, _ = small
    out = tmp_path / "seg"
    (out / "cv" / "old").mkdir(parents=True)
    for stale in ("model.json", "report.html", "cv/old/folds.csv"):
        (out / stale).write_text("from an earlier run")
    argv = ["segment", d / "sequences.csv", d / "labels.csv", "--max-segments", 3, "--out",
            out, "-q"]
    code, _, err = run(argv, capsys)
    one_line_error(code, err, "--force")
    assert (out / "model.json").exists()
    code, _, err = run([*argv, "--force"], capsys)
    assert code == 0, err
    assert not (out / "model.json").exists() and not (out / "report.html").exists()
    assert sorted(p.name for p in (out / "cv").iterdir()) == ["random"]
    assert leftovers(tmp_path) == []


def test_force_never_replaces_a_folder_holding_the_inputs(small, tmp_path, capsys):
    d, _ = small
    for name in ("sequences.csv", "labels.csv"):
        (tmp_path / name).write_bytes((d / name).read_bytes())
    code, _, err = run(["segment", tmp_path / "sequences.csv", tmp_path / "labels.csv",
                        "--max-segments", 3, "--out", tmp_path, "--force", "-q"], capsys)
    one_line_error(code, err, "holds the input file(s)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.csv", "sequences.csv"]


@pytest.mark.parametrize("cmd", ["learn", "predict", "report"])
def test_existing_out_file_is_replaced_only_with_force(small, tmp_path, capsys, cmd):
    d, _ = small
    out = tmp_path / "existing"
    out.write_text("keep me")
    argv = {"learn": ["learn", d / "seg", "--max-steps", 1, "--init", "zero"],
            "predict": ["predict", d / "model.json", d / "seg"],
            "report": ["report", d / "seg", "--model", d / "model.json"]}[cmd]
    code, _, err = run([*argv, "--out", out, "-q"], capsys)
    one_line_error(code, err, "exists", "--force")
    assert out.read_text() == "keep me"
    code, _, err = run([*argv, "--out", out, "-q", "--force"], capsys)
    assert code == 0, err
    assert out.read_text() != "keep me"


def test_non_numeric_prediction_column(small, tmp_path, capsys):
    pred = tmp_path / "pred.csv"
    pred.write_text("sequence_id,log_lambda\nsim01,1.0\nsim02,high\n")
    code, _, err = run(["report", small[0] / "seg", "--predictions", pred, "--out",
                        tmp_path / "r.html"], capsys)
    one_line_error(code, err, "pred.csv", "'log_lambda'", "row 2", "'high'")


@pytest.mark.parametrize(("sep", "hint"), [(";", "semicolon"), ("\t", "tab")])
def test_semicolon_or_tab_file_gets_a_delimiter_hint(small, tmp_path, capsys, sep, hint):
    pd.read_csv(small[0] / "sequences.csv").to_csv(tmp_path / "s.csv", sep=sep, index=False)
    code, _, err = run(["segment", tmp_path / "s.csv", small[0] / "labels.csv",
                        "--max-segments", 3, "--out", tmp_path / "o"], capsys)
    one_line_error(code, err, f"{hint}-separated", "s.csv")


def test_gzip_named_csv_is_read(small, tmp_path, capsys):
    d, _ = small
    (tmp_path / "s.csv").write_bytes(gzip.compress((d / "sequences.csv").read_bytes()))
    code, _, err = run(["segment", tmp_path / "s.csv", d / "labels.csv", "--max-segments", 3,
                        "--out", tmp_path / "o", "-q"], capsys)
    assert code == 0, err


def test_predict_into_a_closed_pipe_is_silent(small, tmp_path):
    model = json.loads((small[0] / "model.json").read_text())
    model.update(features=["x"], coef=[1.0], feature_names_in=["x"], dropped_features=[],
                 scaling={"mean": [0.0], "scale": [1.0]})
    (tmp_path / "m.json").write_text(json.dumps(model))
    pd.DataFrame({"sequenceID": [f"s{i}" for i in range(50_000)], "x": 0.5}).to_csv(
        tmp_path / "inputs.csv", index=False)
    proc = subprocess.Popen([*penlearn_command(), "predict", str(tmp_path / "m.json"),
                             str(tmp_path / "inputs.csv")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV)
    assert proc.stdout.readline().startswith(b"sequenceID")
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert err == "" and proc.returncode in (141, -signal.SIGPIPE), (proc.returncode, err)


# ---------------------------------------------------------------- the user's formats


def test_id_column_name_of_the_input_is_kept(small, tmp_path, capsys):
    d, _ = small
    seqs = pd.read_csv(d / "sequences.csv").rename(columns={"sequence_id": "sequenceID"})
    seqs.to_csv(tmp_path / "s.csv", index=False)
    code, _, err = run(["segment", tmp_path / "s.csv", d / "labels.csv", "--max-segments", 3,
                        "--out", tmp_path / "seg", "-q"], capsys)
    assert code == 0, err
    assert pd.read_csv(tmp_path / "seg" / "models.csv").columns[0] == "sequenceID"
    inputs = pd.read_csv(d / "seg" / "inputs.csv").rename(columns={"sequenceID": "sequence_id"})
    inputs.to_csv(tmp_path / "inputs.csv", index=False)
    code, out, err = run(["predict", d / "model.json", tmp_path / "inputs.csv"], capsys)
    assert code == 0 and out.startswith("sequence_id,log_lambda"), err


def test_labels_without_data_are_reported_before_segmenting(small, tmp_path):
    d, data = small
    extra = pd.DataFrame({"sequence_id": [f"other{i}" for i in range(8)], "start": 1,
                          "end": 9, "annotation": "normal"})
    pd.concat([data.labels, extra]).to_csv(tmp_path / "l.csv", index=False)
    argv = ["segment", d / "sequences.csv", tmp_path / "l.csv", "--max-segments", 3]
    proc = run_process([*argv, "--out", tmp_path / "a"])
    line = one_line_error(proc.returncode, proc.stderr, "8 labeled sequence(s) (first 5: ")
    assert "segmenting" not in proc.stderr, line  # up front: before any work
    proc = run_process([*argv, "--out", tmp_path / "b", "--ignore-unmatched-labels"])
    assert proc.returncode == 0, proc.stderr
    assert "penlearn segment: warning: labels: 8 labeled sequence(s)" in proc.stderr


def test_segment_writes_folds_that_learn_fold_follows(small, tmp_path, capsys):
    d, _ = small
    folds = pd.read_csv(d / "seg" / "cv" / "random" / "folds.csv")
    assert sorted(folds["fold"].value_counts()) == [4, 4, 4]
    assert json.loads((d / "seg" / "segment.json").read_text())["max_segments"] == 5
    code, out, err = run(["learn", d / "seg", "--fold", 2, "--init", "zero", "--max-steps", 1,
                          "--out", tmp_path / "m.json", "-q"], capsys)
    assert code == 0 and "test fold 2: AUC" in out, err
    saved = json.loads((tmp_path / "m.json").read_text())
    assert saved["segmentation"] == {"loss": "l2", "max_segments": 5}


def test_new_sequences_are_segmented_without_labels(small, tmp_path, capsys):
    d, _ = small
    code, out, err = run(["segment", d / "sequences.csv", "--max-segments", 3, "--out",
                          tmp_path / "new", "-q"], capsys)
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert names == ["changes.csv", "inputs.csv", "models.csv", "segment.json"]
    code, out, err = run(["predict", d / "model.json", tmp_path / "new"], capsys)
    assert code == 0 and out.count("\n") == 13, err


@pytest.mark.parametrize(("cmd", "needles"), [
    ("segment", ["chromosome", "penaltyLearning", "--force", "--strict"]),
    ("demo", ["neuroblastoma", "penaltyLearning"]),
])
def test_help_mentions_columns_and_defaults(cmd, needles):
    sub = build_parser()._subparsers._group_actions[0].choices[cmd]
    text = " ".join(sub.format_help().split())
    for n in needles:
        assert n in text, n


def test_getting_started_explains_infinite_aum():
    text = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    # the example prints a finite AUM (tests/test_docs.py); the page still says when and
    # why the AUM is infinite (a labeled change no model finds, with FP at every penalty)
    i = text.index("the AUM is `inf`")
    assert "FN ≥ 1" in text[i - 400:i] and "FP ≥ 1" in text[i - 400:i]


# ---------------------------------------------------- options named, folds consistent


def test_a_negative_seed_names_the_argument(small, tmp_path, capsys):
    for argv in (["learn", small[0] / "seg", "--seed", "-1", "--out", tmp_path / "m.json"],
                 ["demo", "--seed", "-1", "--out", tmp_path / "demo"]):
        with pytest.raises(SystemExit) as info:
            main([str(a) for a in argv])
        err = capsys.readouterr().err
        assert info.value.code == 2 and "argument --seed: must be an integer >= 0" in err, err
    assert not (tmp_path / "m.json").exists()


def test_learn_fold_says_which_labeled_sequences_have_no_fold(small, tmp_path):
    """As the no-fold path says which sequences it leaves out (was: silently)."""
    folder = _folder_without_features_for(small, tmp_path, [])
    path = folder / "cv" / "random" / "folds.csv"
    folds = pd.read_csv(path, dtype=str)
    folds[folds["sequenceID"] != "sim02"].to_csv(path, index=False)
    proc = run_process(["learn", folder, "--fold", 1, "--init", "zero", "--max-steps", 1,
                        "--out", tmp_path / "m.json"])
    # (12 sequences less one: this fold's validation part may then lack a class, an error)
    assert "1 labeled sequence(s) ['sim02'] have no fold in cv/random/folds.csv" \
        in proc.stderr, proc.stderr


def test_learn_auto_says_which_model_and_why(small, tmp_path, capsys):
    code, out, err = run(["learn", small[0] / "seg", "--model", "auto", "--out",
                          tmp_path / "m.json", "-q"], capsys)
    assert code == 0, err
    line = out.splitlines()[-1]
    assert line.startswith("penlearn learn: learned ") and "chosen by 3-fold " \
        "cross-validation over sequences (label errors, mean ± SE: constant" in line, line
