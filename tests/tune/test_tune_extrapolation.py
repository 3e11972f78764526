"""SupervisedPenalty on signals beyond its training signals, and its options:
a 1000x noisier signal was given log λ ≈ 10^5 and lost an obvious change; cv_folds=2.5
made 3 uneven folds; a constant labeled signal was told Pelt has no cost; nested
detector parameters of ruptures detectors could not be set (no grid search)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import ruptures as rpt
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from penlearn.tune import SupervisedPenalty, detector_path
from penlearn.tune.features import logged_features, signal_features


@pytest.fixture(scope="module")
def train():
    rng = np.random.default_rng(0)
    signals, rows = {}, []
    for i in range(8):
        sd, n = 0.5 + i % 4, 80 + 4 * i
        signals[i] = np.r_[np.zeros(40), np.ones(n - 40) * 3 * sd] + rng.normal(0, sd, n)
        rows += [(i, 30, 50, "1breakpoint"), (i, 0, 25, "0breakpoints")]
    return signals, pd.DataFrame(rows, columns=["sequence_id", "start", "end", "annotation"])


@pytest.fixture(scope="module")
def step():
    """One 3-SD step at 50 in unit noise."""
    return np.r_[np.zeros(50), np.full(50, 3.0)] + np.random.default_rng(1).normal(0, 1, 100)


@pytest.mark.parametrize("choose", [None, "cv-1se"])
def test_far_noisier_or_quieter_signals_keep_their_change(train, step, choose):
    t = SupervisedPenalty(rpt.Pelt(model="l2", jump=1), choose=choose).fit(*train)
    for scale in (1e-3, 1.0, 1e3, 1e6):
        assert t.predict({"x": step * scale})["x"].tolist() == [50], scale
    lp = t.predict_log_penalty({"a": step * 1e3, "b": step * 1e4, "c": step * 1e-3,
                                "d": step * 1e-4})
    # beyond the training noise the prediction moves as the l2 cost does: log 10² per 10x
    assert lp["b"] - lp["a"] == pytest.approx(2 * np.log(10), abs=1e-6)
    assert lp["c"] - lp["d"] == pytest.approx(2 * np.log(10), abs=1e-6)
    # within the training signals' noise, predictions stay within their range + margin
    lo, hi = t.log_penalty_range_
    inside = t.predict_log_penalty(train[0])
    assert (inside >= lo - max(1, hi - lo) - 1e-9).all() and (inside <= hi + 1e-9).all()


def test_default_features_hold_no_unlogged_scale(train):
    t = SupervisedPenalty(rpt.Pelt(model="l2"), choose=None).fit(*train)
    names = list(t.feature_names_in_)
    assert "log.sd.mad" in names and "log.cost.all" in names and "log.n" in names
    assert not {"n", "sd.mad", "sd.hall", "cost.all", "cost.w10"} & set(names)
    full = signal_features(train[0], rpt.Pelt(model="l2"))
    assert list(logged_features(full).columns) == [c for c in full if c.startswith("log.")]


def test_a_prediction_never_runs_away_with_own_unlogged_features(train, step):
    """Features given as a table (not recomputable): a raw variance column far beyond the
    training ones is bounded (the l2 law's shift plus a margin), not log λ ≈ 10^5."""
    signals, labels = train
    table = pd.DataFrame({"var": [np.var(np.diff(x)) for x in signals.values()]},
                         index=list(signals))
    t = SupervisedPenalty(rpt.Pelt(model="l2"), features=table, choose=None).fit(signals,
                                                                                   labels)
    t.features = pd.DataFrame({"var": [np.var(np.diff(step * 1e3))]}, index=["x"])
    lp = float(t.predict_log_penalty({"x": step * 1e3})["x"])
    lo, hi = t.log_penalty_range_
    assert lp <= hi + max(1, hi - lo) + 2 * np.log(1e3) + 1e-9


@pytest.mark.parametrize("k", [2.5, 1, 0, True, "3"])
def test_cv_folds_must_be_an_integer_of_at_least_2(train, k):
    with pytest.raises(ValueError, match="cv_folds must be an integer >= 2") as exc:
        SupervisedPenalty(rpt.Pelt(model="l2"), cv_folds=k).fit(*train)
    assert "\n" not in str(exc.value)


def test_a_constant_labeled_signal_has_a_cost_of_zero(train):
    signals, labels = train
    signals = {**signals, "flat": np.ones(60)}
    labels = pd.concat([labels, pd.DataFrame([("flat", 0, 30, "0breakpoints")],
                                             columns=labels.columns)], ignore_index=True)
    p = detector_path(rpt.Pelt(model="l2"), np.ones(60))
    assert p.models["n_changes"].tolist() == [0] and p.models["cost"].tolist() == [0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # it does not cost the others their noise features
        t = SupervisedPenalty(rpt.Pelt(model="l2")).fit(signals, labels)
    assert "log.sd.mad" in list(t.feature_names_in_)
    assert t.predict({"flat": np.ones(60)})["flat"].tolist() == []


def test_nested_detector_parameters_of_ruptures_detectors(train):
    det = rpt.Pelt(model="l2", jump=5)
    t = SupervisedPenalty(det)
    params = t.get_params()
    assert params["detector__model"] == "l2" and params["detector__jump"] == 5
    t.set_params(detector__min_size=3, detector__model="rbf")
    assert t.detector.min_size == 3 and t.detector.cost.model == "rbf" and t.detector.jump == 5
    assert det.min_size == 2 and det.cost.model == "l2"  # the detector given is not changed
    with pytest.raises(ValueError, match="detector__bogus"):
        t.set_params(detector__bogus=1)
    # a grid search over the detector's own parameters: clone + set_params, then fit
    signals, labels = train
    got = {}
    for g in ParameterGrid({"detector__jump": [1, 5], "detector__min_size": [2, 4]}):
        est = clone(SupervisedPenalty(rpt.Pelt(model="l2"), choose=None)).set_params(**g)
        est.fit(signals, labels)
        got[tuple(sorted(g.items()))] = (est.detector.jump, est.detector.min_size)
    assert sorted(got.values()) == [(1, 2), (1, 4), (5, 2), (5, 4)]
