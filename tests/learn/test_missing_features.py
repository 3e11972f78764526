"""Prediction never crashes on missing or infinite features, and is never silently wrong:
every model kind (constant, linear, boosting) with NaN and ±inf
features, one feature-selection path by name, one finite-prediction check, features
beyond float32, the model-file reader's bounds and ``segment`` on degenerate sequences.

Expected values come from independent computations: the training rows that reach a tree
node (scikit-learn's ``decision_path``), a scalar walk of the trees, the training mean /
range substituted by hand.
"""

from __future__ import annotations

import json
import os
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor
from test_boosting import _regional

import penlearn.learn.model_file as model_file
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.boosting import FLOAT32_MAX, predict_trees, tree_arrays


@pytest.fixture(scope="module")
def models():
    """The three model kinds learned on the same small set."""
    feats, ev = _regional()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boost = learn_penalty(feats, ev, model="boosting", progress=False,
                              boosting={"min_samples_leaf": 3})
        linear = learn_penalty(feats, ev, model="linear", progress=False, max_steps=5)
    const = PenaltyModel.from_dict(boost.to_dict())
    const.trees_, const.best_step_ = [], 0  # a boosting model that kept no tree
    assert len(boost.trees_) >= 1 and np.any(linear.coef_ != 0)
    return {"constant": const, "boosting": boost, "linear": linear}, feats


def _walk(trees, x) -> float:
    """Scalar reference walk: left when float32(x) <= threshold, stop at a NaN."""
    total = 0.0
    for t in trees:
        i = 0
        while t["left"][i] != -1:
            v = x[t["feature"][i]]
            if np.isnan(v):
                break
            v = float(np.float32(np.clip(v, -FLOAT32_MAX, FLOAT32_MAX)))
            i = t["left"][i] if v <= t["threshold"][i] else t["right"][i]
        total += t["value"][i]
    return total


def test_a_nan_row_stops_at_the_node_with_the_mean_of_its_training_rows():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] ** 2 + np.sin(3 * X[:, 1]) + rng.normal(scale=0.1, size=200)
    tree = DecisionTreeRegressor(max_depth=3, min_samples_leaf=5, random_state=0).fit(X, y)
    arr = tree_arrays(tree, 1.0)
    paths = tree.decision_path(X).toarray().astype(bool)  # training rows through each node
    for i in range(0, 200, 7):
        for f in range(3):
            row = X[i].copy()
            row[f] = np.nan  # missing: the row stops at the first node of its path on f
            on_path = np.flatnonzero(paths[i])
            stops = [n for n in on_path if arr["left"][n] != -1 and arr["feature"][n] == f]
            node = stops[0] if stops else on_path[-1]
            got, missing = predict_trees([arr], row[None, :], return_missing=True)
            assert missing[0] == bool(stops)
            assert got[0] == pytest.approx(y[paths[:, node]].mean(), rel=1e-12)
    # many rows, NaN anywhere: the vectorised rule equals the scalar walk
    B = rng.normal(size=(300, 3))
    B[rng.random(B.shape) < 0.3] = np.nan
    two = [arr, tree_arrays(tree, -0.5)]
    np.testing.assert_allclose(predict_trees(two, B), [_walk(two, b) for b in B], rtol=1e-12)


@pytest.mark.parametrize("kind", ["constant", "boosting", "linear"])
def test_every_model_kind_predicts_nan_and_infinite_features(models, kind):
    ms, feats = models
    m = ms[kind]
    x = feats.iloc[:6].copy()
    base = m.predict(x)
    used = sorted({int(f) for t in (m.trees_ or []) for f in t["feature"] if f >= 0})
    x.iloc[0, :] = np.nan
    x.iloc[1, :] = np.inf
    x.iloc[2, :] = -np.inf
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = m.predict(x)
    assert np.all(np.isfinite(got))
    msgs = [str(w.message) for w in caught]
    if kind == "constant":  # a model with no trees reads no feature
        assert msgs == [] and np.all(got == m.intercept_)
        return
    assert len(msgs) == 1 and str(x.index[0]) in msgs[0] and str(x.index[1]) not in msgs[0]
    np.testing.assert_array_equal(got[3:], base[3:])  # other rows untouched
    if kind == "boosting":
        A = x[m.coef_.index].to_numpy()
        ref = [_walk(m.trees_, a) + m.intercept_ for a in A]
        np.testing.assert_allclose(got, ref, rtol=1e-12)
        big = x.iloc[[1, 2]].copy()
        big.iloc[0, :], big.iloc[1, :] = 1e300, -1e300  # beyond float32: as ±inf
        np.testing.assert_array_equal(m.predict(big), got[[1, 2]])
        assert [m.coef_.index[f] for f in used][0] in msgs[0]
    else:
        sc = m.scaling_
        w = m.coef_.to_numpy()
        assert got[0] == pytest.approx(sc.mean @ w + m.intercept_, rel=1e-12)
        assert got[1] == pytest.approx(sc.high @ w + m.intercept_, rel=1e-12)
        assert got[2] == pytest.approx(sc.low @ w + m.intercept_, rel=1e-12)


def test_a_feature_the_model_does_not_use_is_ignored(models):
    ms, feats = models
    boost = PenaltyModel.from_dict(ms["boosting"].to_dict())
    t = boost.trees_[0]
    boost.trees_ = [dict(t, feature=np.where(t["feature"] >= 0, 0, t["feature"]))]  # f0 only
    x = feats.iloc[:4].copy()
    x["extra"] = np.nan  # not a model column at all
    x[["f1", "f2"]] = np.nan  # model columns no tree splits on
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        np.testing.assert_array_equal(boost.predict(x), boost.predict(feats.iloc[:4]))


@pytest.mark.parametrize("kind", ["constant", "boosting", "linear"])
def test_a_prediction_that_is_not_finite_is_an_error(models, kind):
    ms, feats = models
    m = PenaltyModel.from_dict(ms[kind].to_dict())
    x = feats.iloc[:3]
    if kind == "constant":
        m.intercept_ = np.inf
    elif kind == "boosting":  # finite leaf values whose sum overflows
        t = {"left": np.array([-1]), "right": np.array([-1]), "feature": np.array([-2]),
             "threshold": np.array([-2.0]), "value": np.array([1e308])}
        m.trees_ = [t, dict(t)]
    else:
        m.coef_ = m.coef_ * 0 + 1e308
        x = x * 0 + 1e10
    with pytest.raises(ValueError, match=rf"predicted log λ of row '{x.index[0]}' is inf"):
        m.predict(x)


def test_a_model_file_whose_leaves_could_overflow_is_refused(models, tmp_path):
    data = models[0]["boosting"].to_dict()
    data["trees"][0]["value"][-1] = 1.5e308
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"m.json is not a valid .*tree 0: a node value is "
                       r"beyond"):
        PenaltyModel.load(path)


@pytest.mark.parametrize("kind", ["boosting", "linear"])
def test_features_are_selected_by_name_and_duplicates_refused(models, kind):
    m = models[0][kind]
    feats = models[1]
    row = feats.iloc[0]
    want = m.predict(feats.iloc[[0]])[0]
    assert m.predict(row[::-1])[0] == want  # a Series read by name, not position
    assert m.predict(feats.iloc[[0], ::-1])[0] == want
    twice = pd.concat([feats.iloc[[0]], feats.iloc[[0]][["f1"]]], axis=1)
    with pytest.raises(ValueError, match=r"\['f1'\] more than once"):
        m.predict(twice)
    text = feats.iloc[[0]].astype(object)
    text.iloc[0, 1] = "x"
    with pytest.raises(ValueError, match="column 'f1' holds values that are not numbers"):
        m.predict(text)


def test_boosting_learns_on_a_feature_beyond_float32(models):
    feats, ev = _regional()
    big = feats.copy()
    big.iloc[:5, 0] = 1e300  # finite, but not a float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = learn_penalty(big, ev, progress=False, boosting={"min_samples_leaf": 3})
    p = m.predict(big)
    assert np.all(np.isfinite(p))
    inf = big.copy()
    inf.iloc[:5, 0] = np.inf  # the same order: beyond every other value
    np.testing.assert_array_equal(m.predict(inf), p)


# ------------------------------------------------------------------ model files


def _saved(models, tmp_path):
    path = tmp_path / "m.json"
    models[0]["linear"].save(path)
    return path


def test_model_file_that_is_a_fifo_or_a_device_is_refused_without_reading(models, tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    result = {}

    def load():
        try:
            PenaltyModel.load(fifo)
        except ValueError as exc:
            result["error"] = str(exc)

    th = threading.Thread(target=load, daemon=True)
    th.start()
    th.join(10)
    assert not th.is_alive(), "reading a FIFO blocked"
    assert "fifo.json is not a regular file" in result["error"]
    for dev in ("/dev/zero", "/dev/urandom"):
        if not os.path.exists(dev):
            continue
        link = tmp_path / f"{os.path.basename(dev)}.json"
        link.symlink_to(dev)
        with pytest.raises(ValueError, match=f"{link.name} is not a regular file"):
            PenaltyModel.load(link)
    with pytest.raises(ValueError, match="is a folder"):
        PenaltyModel.load(tmp_path)


def test_model_file_beyond_the_size_bound_is_refused(models, tmp_path, monkeypatch):
    path = _saved(models, tmp_path)
    assert PenaltyModel.load(path) is not None
    monkeypatch.setattr(model_file, "MAX_MODEL_BYTES", path.stat().st_size - 1)
    with pytest.raises(ValueError, match=r"m.json has \d+ bytes, beyond"):
        PenaltyModel.load(path)


@pytest.mark.parametrize("text, needle", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"format": "penlearn.PenaltyModel", "version": ' + "9" * 5000 + "}", "5000 digits"),
    ('{"format": "penlearn.PenaltyModel", "version": ' + "9" * 400 + "}", "400 digits"),
])
def test_hostile_json_is_a_clear_error_naming_the_file(tmp_path, text, needle):
    path = tmp_path / "evil.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"evil.json is not a penlearn model file.*{needle}"):
        PenaltyModel.load(path)


def test_huge_integer_in_tree_arrays_is_named(models, tmp_path):
    data = json.dumps(models[0]["boosting"].to_dict())
    data = data.replace('"left": [1,', '"left": [' + "9" * 300 + ",", 1)
    path = tmp_path / "m.json"
    path.write_text(data)
    with pytest.raises(ValueError, match="m.json is not a valid .*tree 0"):
        PenaltyModel.load(path)


# ------------------------------------------------------------------ segment


def test_segment_on_degenerate_sequences(models):
    m = PenaltyModel.from_dict(models[0]["linear"].to_dict())
    m.coef_ = pd.Series([0.0], index=["log.n"])
    m.scaling_ = None
    with pytest.raises(ValueError, match="sequence is empty"):
        m.segment([])
    with pytest.raises(ValueError, match=r"value 2 of 3 is nan"):
        m.segment([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match=r"value 1 of 2 is inf"):
        m.segment(pd.DataFrame({"position": [1, 2], "value": [np.inf, 0.0]}))
    with pytest.raises(ValueError, match="needs a 'value' column"):
        m.segment(pd.DataFrame({"position": [1, 2], "y": [0.0, 1.0]}))
    assert m.segment([5.0]).tolist() == []  # one datum: one segment
    assert m.segment([5.0, 5.0]).tolist() == []
