"""Hostile model files: a model of another task, boosting files whose trees were emptied,
cut short, padded or given JSON true / false, histories that do not match the trees.
Each must be refused with one message naming the file and what is wrong, or load to
exactly the model that was saved; ``describe()`` says only what the file shows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import one_line_exit

from penlearn.cli.main import main
from penlearn.learn import PenaltyModel, learn_penalty


def _data(n=60, seed=0):
    """Sequences whose zero-error interval of log λ is centred at 2·x0 (FP below, FN
    above)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    ids = [f"s{i}" for i in range(n)]
    rows = []
    for sid, t in zip(ids, 2 * X[:, 0]):
        rows += [(sid, -np.inf, t - 1, 1, 0), (sid, t - 1, t + 1, 0, 0), (sid, t + 1, np.inf, 0, 1)]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn"])
    ev = ev.assign(possible_fp=1, possible_fn=1, labels=2, errors=ev["fp"] + ev["fn"])
    return pd.DataFrame(X, index=pd.Index(ids, name="sequence_id"), columns=["a", "b"]), ev


@pytest.fixture(scope="module")
def boosted():
    feats, ev = _data()
    half = feats.index[:30], feats.index[30:]
    m = learn_penalty(feats.loc[half[0]], ev[ev.sequence_id.isin(half[0])], model="boosting",
                      validation=(feats.loc[half[1]], ev[ev.sequence_id.isin(half[1])]),
                      progress=False, boosting={"min_samples_leaf": 3})
    assert m.best_step_ >= 2, "the fixture needs a model that kept several trees"
    return m, feats


@pytest.fixture(scope="module")
def linear():
    feats, ev = _data(seed=1)
    return learn_penalty(feats, ev, model="linear", progress=False), feats


def _file(tmp_path, data, name="m.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


def test_a_model_of_another_task_is_refused_naming_both(tmp_path, linear):
    m, feats = linear
    for task, other in (("peaks", "joint"), ("joint", "peaks"), ("changepoint", "peaks")):
        m.task_ = task
        p = tmp_path / f"{task}.json"
        m.save(p)
        back = PenaltyModel.load(p, task=task)
        assert back.task_ == task
        np.testing.assert_array_equal(back.predict(feats), m.predict(feats))
        with pytest.raises(ValueError, match=rf"{p}.*task '{task}'.*not '{other}'"):
            PenaltyModel.load(p, task=other)
    m.task_ = None


def test_unknown_or_malformed_task_fields(tmp_path, linear):
    m, _ = linear
    d = m.to_dict()
    assert "task" not in d  # unknown: not invented
    p = _file(tmp_path, d)
    assert PenaltyModel.load(p).task_ is None
    with pytest.warns(UserWarning, match="does not record what task"):
        assert PenaltyModel.load(p, task="joint").task_ is None
    for bad in ("Peaks", "", 1, None, ["peaks"], True):
        if bad is None:
            continue  # null = not recorded
        p = _file(tmp_path, dict(d, task=bad), "bad.json")
        with pytest.raises(ValueError, match="field 'task' must be one of"):
            PenaltyModel.load(p)


def test_cli_joint_and_peaks_refuse_a_model_of_the_other_task(tmp_path, capsys, linear):
    m, _ = linear
    cov, peaks = tmp_path / "cov", tmp_path / "peaks"
    cov.mkdir()
    peaks.mkdir()
    (cov / "a.bedGraph").write_text("chr1\t0\t10\t1\n")
    (cov / "b.bedGraph").write_text("chr1\t0\t10\t2\n")
    m.task_ = "peaks"
    m.save(tmp_path / "peaks_model.json")
    code = main(["joint", str(cov), "--peaks", str(peaks), "--model",
                 str(tmp_path / "peaks_model.json"), "--out", str(tmp_path / "o"), "-q"])
    one_line_exit(capsys, code, "peaks_model.json", "'peaks'", "'joint'")
    m.task_ = "joint"
    m.save(tmp_path / "joint_model.json")
    code = main(["peaks", str(cov / "a.bedGraph"), "--model", str(tmp_path / "joint_model.json"),
                 "--out", str(tmp_path / "o.bed"), "-q"])
    one_line_exit(capsys, code, "joint_model.json", "'joint'", "'peaks'")
    assert not (tmp_path / "o").exists() and not (tmp_path / "o.bed").exists()
    m.task_ = None


def test_boosting_file_round_trip_and_its_story(tmp_path, boosted):
    m, feats = boosted
    p = tmp_path / "b.json"
    m.save(p)
    back = PenaltyModel.load(p)
    np.testing.assert_array_equal(back.predict(feats), m.predict(feats))
    assert f"boosting with {m.best_step_} tree(s)" in back.describe()


def test_a_refit_boosting_model_round_trips(tmp_path):
    """With ``refit`` the trees are refit on every sequence and may stop before
    ``best_step``: fewer trees are valid there, more never."""
    feats, ev = _data(seed=2)
    half = feats.index[:30], feats.index[30:]
    m = learn_penalty(feats.loc[half[0]], ev[ev.sequence_id.isin(half[0])], model="boosting",
                      validation=(feats.loc[half[1]], ev[ev.sequence_id.isin(half[1])]),
                      progress=False, boosting={"min_samples_leaf": 3, "refit": True})
    p = tmp_path / "r.json"
    m.save(p)
    np.testing.assert_array_equal(PenaltyModel.load(p).predict(feats), m.predict(feats))
    d = m.to_dict()
    d["trees"] = d["trees"] + d["trees"][:1] * (d["best_step"] + 1 - len(d["trees"]))
    with pytest.raises(ValueError, match="best_step"):
        PenaltyModel.load(_file(tmp_path, d))


@pytest.mark.parametrize("tamper, match", [
    (lambda d: d.update(trees=[]), "has 0 tree"),                       # emptied
    (lambda d: d.update(trees=d["trees"][:1]), "has 1 tree"),            # cut short
    (lambda d: d.update(trees=d["trees"] + d["trees"][:1]), "tree"),     # padded
    (lambda d: d.update(best_step=d["best_step"] - 1), "best_step"),     # count edited
    (lambda d: d["trees"][0].update(value=[True] * len(d["trees"][0]["value"])),
     "field 'value' must be a list of numbers"),
    (lambda d: d["trees"][0].update(value=[False] + d["trees"][0]["value"][1:]),
     "field 'value' must be a list of numbers"),
    (lambda d: d["trees"][0].update(threshold=[True] + d["trees"][0]["threshold"][1:]),
     "field 'threshold' must be a list of numbers"),
    (lambda d: d["trees"][0].update(value="1,2,3"), "field 'value' must be a list"),
    (lambda d: d["trees"][0].update(left=[]), "tree 0"),                # a tree emptied
    (lambda d: d["history"].update(step=[0] + [5] * (len(d["history"]["step"]) - 1)),
     "steps 0, 1, 2"),
    (lambda d: d.update(trees={"0": d["trees"][0]}), "list of trees"),
])
def test_tampered_boosting_files_are_refused(tmp_path, boosted, tamper, match):
    m, _ = boosted
    d = json.loads(json.dumps(m.to_dict()))
    tamper(d)
    p = _file(tmp_path, d)
    with pytest.raises(ValueError, match=match) as err:
        PenaltyModel.load(p)
    assert str(p) in str(err.value)


def test_zero_trees_describe_only_what_the_history_shows(tmp_path, boosted):
    m, feats = boosted
    d = json.loads(json.dumps(m.to_dict()))
    d.update(trees=[], best_step=0)  # consistent: boosting that kept no tree
    fitted = len(d["history"]["step"]) - 1
    back = PenaltyModel.load(_file(tmp_path, d))
    text = back.describe()
    assert f"kept none of the {fitted} tree(s) it fitted" in text
    assert "raised the validation AUC" not in text
    np.testing.assert_array_equal(back.predict(feats), np.full(len(feats), back.intercept_))
    d["history"] = {k: v[:1] for k, v in d["history"].items()}
    assert "boosting fitted no tree" in PenaltyModel.load(_file(tmp_path, d)).describe()
