"""Tasks and priors (issue 47, class e): every model a command or ``prior=`` takes goes
through one task check (:func:`penlearn.fitting.model_file.check_model_task`); every
model penlearn writes records its task; what a model file holds (task argument,
provenance, level) is checked on reading, never met later as a KeyError or a format
error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases, run_cli, uci_folder
from test_pretrain_folders import _set

import penlearn as pl
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.peaks.pretrained import DEFAULT_MODEL_PATH, load_pretrained


def _few(n=3, seed=2):
    sim = pl.simulate(n_sequences=n, seed=seed)
    models, changes = pl.segment_sequences(sim.sequences, 4, progress=False)
    ev = pl.error_functions(models, changes, sim.labels)
    feats = pl.feature_matrix(sim.sequences, "chipseq")
    return feats, ev


def _with_task(task: str) -> PenaltyModel:
    m = PenaltyModel.from_dict(load_pretrained().model.to_dict())
    m.task_ = task
    return m


def test_priors_of_another_task_are_refused_and_never_inherited():
    feats, ev = _few()
    one = ev[ev["sequence_id"] == ev["sequence_id"].iloc[0]]  # too few labels: the prior
    shipped = load_pretrained().model
    cases = [
        ("prior a joint model", lambda: learn_penalty(feats, one, prior=_with_task("joint")),
         Error("prior", "joint")),
        ("prior a changepoint model",
         lambda: learn_penalty(feats, one, prior=_with_task("changepoint")),
         Error("prior", "changepoint")),
        ("prior a joint model, task changepoint",
         lambda: learn_penalty(feats, one, prior=_with_task("joint"), task="changepoint"),
         Error("joint", "changepoint")),
        ("task 'peak'", lambda: learn_penalty(feats, one, task="peak"), Error("task", "peak")),
        ("the shipped prior", lambda: learn_penalty(feats, one, prior=shipped).task_,
         lambda t: t == "peaks"),
        ("a changepoint prior for changepoint features",
         lambda: learn_penalty(feats, one, prior=_with_task("changepoint"),
                               task="changepoint").task_, lambda t: t == "changepoint"),
        ("no prior, no task", lambda: learn_penalty(feats, one).task_, lambda t: t is None),
    ]
    check_cases(cases, at_least=7)



def test_prior_checked_in_one_place_by_fit_and_learn_penalty():
    """``PenaltyModel.fit(prior=)`` takes the task check of ``learn_penalty`` (it had none:
    a changepoint prior was fitted as a candidate of peaks features) and a prior whose
    feature columns are not in the features is a ValueError naming ``prior`` on every path
    (it was a KeyError in ``fit``, an error naming ``X`` with few labels)."""
    columns = list(load_pretrained().model.coef_.index)
    rng = np.random.default_rng(0)
    ids = [f"w{i}" for i in range(10)]  # labels of both classes: every fit runs
    feats = pd.DataFrame(rng.normal(size=(10, len(columns))), index=ids, columns=columns)
    ev = pd.DataFrame([(i, lo, hi, fp, fn, 1, 1) for i, y in zip(ids, rng.normal(size=10))
                       for lo, hi, fp, fn in ((-np.inf, y - 1, 1, 0), (y - 1, y + 1, 0, 0),
                                              (y + 1, np.inf, 0, 1))],
                      columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn",
                               "possible_fp", "possible_fn"])
    one = ev[ev["sequence_id"] == "w0"]
    column = columns[0]
    fewer = feats.drop(columns=[column])
    cases = [
        ("fit: prior a changepoint model",
         lambda: PenaltyModel(candidates=["constant"]).fit(
             feats, ev, prior=_with_task("changepoint")),
         Error("prior", "'changepoint'", "not 'peaks'", "task='changepoint'")),
        ("fit: prior a joint model, task changepoint",
         lambda: PenaltyModel(model="constant").fit(feats, ev, prior=_with_task("joint"),
                                                    task="changepoint"),
         Error("prior", "'joint'", "not 'changepoint'")),
        ("fit: prior columns not in the features",
         lambda: PenaltyModel(candidates=["constant"]).fit(fewer, ev,
                                                           prior=_with_task("peaks")),
         Error("prior", repr(column), "not in the features")),
        ("learn_penalty, few labels: prior columns not in the features",
         lambda: learn_penalty(fewer, one, prior=_with_task("peaks")),
         Error("prior", repr(column), "not in the features")),
        ("fit: prior not a model", lambda: PenaltyModel().fit(feats, ev, prior="m.json"),
         Error("prior", "fitted PenaltyModel", "str")),
        ("fit: a changepoint prior for changepoint features, recorded",
         lambda: PenaltyModel(model="constant").fit(
             feats, ev, prior=_with_task("changepoint"), task="changepoint").task_,
         lambda t: t == "changepoint"),
    ]
    check_cases(cases, at_least=6)

def _bad_provenance(tmp: Path, change) -> Path:
    data = json.loads(DEFAULT_MODEL_PATH.read_text())
    change(data["provenance"]) if callable(change) else data.update(provenance=change)
    p = tmp / f"prov{len(list(tmp.iterdir()))}.json"
    p.write_text(json.dumps(data))
    return p


def test_model_files_are_checked_on_reading(tmp_path):
    feats, ev = _few()
    one = ev[ev["sequence_id"] == ev["sequence_id"].iloc[0]].drop(columns="labels")
    m = learn_penalty(feats, one)  # level: labels None
    m.save(tmp_path / "none.json")
    text_shift = json.loads((tmp_path / "none.json").read_text())
    text_shift["level"]["shift"] = "abc"
    (tmp_path / "shift.json").write_text(json.dumps(text_shift))
    prov = tmp_path / "prov"
    prov.mkdir()
    cases = [
        ("load(task='peak')", lambda: PenaltyModel.load(tmp_path / "none.json", task="peak"),
         Error("task", "'peak'")),
        ("a level of None round-trips",
         lambda: (json.loads((tmp_path / "none.json").read_text())["level"]["labels"],
                  PenaltyModel.load(tmp_path / "none.json").describe()),
         lambda got: got[0] is None and "the labels given" in got[1]),
        ("a text shift", lambda: PenaltyModel.load(tmp_path / "shift.json"),
         Error("shift", "number")),
    ]
    for name, change in {
            "no provenance block": None, "provenance a list": [1],
            "no windows": lambda p: p.pop("windows"),
            "windows.max_bases text": lambda p: p["windows"].update(max_bases="x"),
            "windows a number": lambda p: p.update(windows=3),
            "sets text": lambda p: p.update(sets="abc"),
            "labels text": lambda p: p.update(labels="many"),
            "leave_one_set_out.mean text": lambda p: p["leave_one_set_out"].update(mean="x"),
            "windows.min_bases text": lambda p: p["windows"].update(min_bases="x"),
            "marks a list": lambda p: p.update(marks=[1]),
            "a mark's intercept text": lambda p: p.update(marks={"narrow": {"intercept": "x"}}),
    }.items():
        path = _bad_provenance(prov, change)
        cases.append((f"load_pretrained: {name}",
                      lambda p=path: load_pretrained(p).note(), Error("provenance")))
    check_cases(cases, at_least=14)


def test_every_learned_or_pretrained_model_records_its_task(tmp_path):
    # pretrain
    for k, name in enumerate(("setA", "setB")):
        _set(tmp_path / "sets" / name, k)
    run_cli(["pretrain", tmp_path / "sets", "--out", tmp_path / "pre.json", "--no-loso", "-q"])
    # learn on a UCI folder without segment.json: a changepoint set, and a ChIP-seq set
    d, _ = uci_folder()
    plain = tmp_path / "plain"
    shutil.copytree(d, plain)
    (plain / "segment.json").unlink()
    run_cli(["learn", plain, "--out", tmp_path / "cp.json", "--max-steps", 2, "-q"])
    run_cli(["learn", tmp_path / "sets" / "setA", "--out", tmp_path / "chip.json",
             "--model", "linear", "--max-steps", 2, "-q"])
    tasks = {n: json.loads((tmp_path / f"{n}.json").read_text()).get("task")
             for n in ("pre", "cp", "chip")}
    assert tasks == {"pre": "peaks", "cp": "changepoint", "chip": "peaks"}
    # and 'joint --model' refuses the changepoint model (no warning-only pass)
    with pytest.raises(ValueError, match="changepoint"):
        run_cli(["joint", tmp_path / "nope", "--peaks", tmp_path / "sets", "--model",
                 tmp_path / "cp.json", "--out", tmp_path / "j", "-q"])


def test_changepoint_folder_with_chipseq_features_gets_no_chipseq_prior(tmp_path):
    sim = pl.simulate(6, seed=3, n_points=(60, 120))
    sim.sequences.to_csv(tmp_path / "seq.csv", index=False)
    first = sim.labels["sequence_id"].iloc[0]
    sim.labels[sim.labels["sequence_id"] == first].to_csv(tmp_path / "labels.csv",
                                                          index=False)
    run_cli(["segment", tmp_path / "seq.csv", tmp_path / "labels.csv", "--max-segments", 4,
             "--features", "chipseq", "--out", tmp_path / "d", "-q"])
    run_cli(["learn", tmp_path / "d", "--out", tmp_path / "m.json", "-q"])
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["task"] == "changepoint"
    assert "shipped" not in json.dumps(data["level"]), data["level"]
    assert not np.any(data["coef"]), "a changepoint model from one label: the constant"
