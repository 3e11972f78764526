"""Tests of the iterate-selection options of learn_penalty and of its defaults.

Each test checks a rule against an independent computation: the selected iterate
against the history's own argmax / argmin, the start against a separate
``max_steps=0`` fit, the documented defaults against the signatures.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_learn import synthetic

from penlearn.aum import aum
from penlearn.breakpoints import breakpoints_from_labels
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.descent import SELECTIONS, l2_step, select_iterate
from penlearn.learn.penalty import fit_penalty
from penlearn.line_search import line_search

# these tests check the linear model and its options (the default model is boosting)
fit_penalty = functools.partial(fit_penalty, model="linear")


def _history(auc, aum=None):
    auc = np.asarray(auc, float)
    aum = np.linspace(1.0, 0.5, len(auc)) if aum is None else np.asarray(aum, float)
    return pd.DataFrame({"validation_auc": auc, "validation_aum": aum})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12),
       st.sampled_from([0.0, 0.001, 0.01, 0.1]))
def test_select_iterate_auc_rule(auc, delta):
    """The rule picks the first maximum when it beats step 0 by more than delta, else 0
    (brute force over the list)."""
    i = select_iterate(_history(auc), "validation_auc", delta)
    best = max(auc)
    first_best = auc.index(best)
    expected = first_best if best - auc[0] > delta else 0
    assert i == expected
    assert auc[i] >= auc[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.0, 2.0), min_size=1, max_size=12))
def test_select_iterate_aum_and_last(aum):
    h = _history(np.zeros(len(aum)), aum)
    i = select_iterate(h, "validation_aum")
    assert i == (aum.index(min(aum)) if min(aum) < aum[0] else 0)
    assert select_iterate(h, "last") == len(aum) - 1


def test_select_iterate_boundary_and_bad_input():
    h = _history([0.5, 0.51, 0.52])
    # a gain of exactly delta is not enough (strict); the float gap is 0.02 + O(1e-17)
    assert select_iterate(h, "validation_auc", 0.03) == 0
    assert select_iterate(h, "validation_auc", 0.019) == 2
    with pytest.raises(ValueError, match="select"):
        select_iterate(h, "best")
    with pytest.raises(ValueError, match="min_improvement"):
        select_iterate(h, "validation_auc", -0.1)
    with pytest.raises(ValueError, match="min_improvement"):
        select_iterate(h, "validation_auc", np.nan)


@pytest.fixture(scope="module")
def data():
    return synthetic(n=80, seed=3, p=4, noise=0.8)


def _fit(data, **kw):
    feats, ev = data
    kw.setdefault("random_state", 0)
    kw.setdefault("model", "linear")  # the options of the linear model's descent
    return learn_penalty(feats, ev, progress=False, **kw)


def test_large_min_improvement_returns_the_start(data):
    """With a threshold no AUC gain can exceed, the model is the start itself: the same
    coefficients as a separate fit with max_steps=0."""
    start = _fit(data, max_steps=0)
    m = _fit(data, min_improvement=1.0)
    assert m.best_step_ == 0
    assert len(m.history_) > 1  # descent ran; the start was kept on purpose
    np.testing.assert_allclose(m.coef_.to_numpy(), start.coef_.to_numpy(), rtol=0, atol=0)
    assert m.intercept_ == start.intercept_


def test_zero_min_improvement_is_the_papers_rule(data):
    m = _fit(data, min_improvement=0.0, init="zero")
    v = m.history_["validation_auc"].to_numpy()
    assert m.best_step_ == int(np.argmax(v))


def test_select_rules_pick_what_they_say(data):
    m_aum = _fit(data, select="validation_aum", init="zero")
    a = m_aum.history_["validation_aum"].to_numpy()
    assert a[m_aum.best_step_] == a.min()
    assert m_aum.best_step_ == int(np.argmin(a))
    m_last = _fit(data, select="last", init="zero")
    assert m_last.best_step_ == len(m_last.history_) - 1
    # the returned weights are those of that iterate: refit with max_steps = that step
    k = m_last.best_step_
    again = _fit(data, select="last", init="zero", max_steps=k)
    np.testing.assert_allclose(again.coef_.to_numpy(), m_last.coef_.to_numpy(), rtol=1e-12)


def test_min_improvement_threshold_on_a_real_history(data):
    """Between the gain of the best iterate and above it the choice flips."""
    m = _fit(data, min_improvement=0.0, init="zero")
    v = m.history_["validation_auc"].to_numpy()
    gain = v.max() - v[0]
    assert gain > 0.01  # zero weights: any learning helps on this data
    below = _fit(data, min_improvement=gain / 2, init="zero")
    above = _fit(data, min_improvement=gain + 1e-9, init="zero")
    assert below.best_step_ == int(np.argmax(v)) and above.best_step_ == 0


def test_defaults_are_what_the_docstrings_say():
    sig_fn = inspect.signature(learn_penalty).parameters
    sig_cls = inspect.signature(PenaltyModel).parameters
    sig_core = inspect.signature(fit_penalty).parameters
    for name in ("select", "min_improvement", "l2", "line_search", "init", "normalize"):
        assert sig_fn[name].default == sig_cls[name].default == sig_core[name].default
        assert getattr(PenaltyModel(), name) == sig_fn[name].default
    assert sig_fn["select"].default in SELECTIONS
    doc = inspect.getdoc(learn_penalty)
    assert f"default {sig_fn['min_improvement'].default}" in doc


def test_options_persist_and_reject_bad_values(data, tmp_path):
    feats, ev = data
    m = _fit(data, select="validation_aum", min_improvement=0.002, init="zero")
    m.save(tmp_path / "m.json")
    back = PenaltyModel.load(tmp_path / "m.json")
    assert back.select == "validation_aum" and back.min_improvement == 0.002
    np.testing.assert_array_equal(back.predict(feats), m.predict(feats))
    with pytest.raises(ValueError, match="select"):
        learn_penalty(feats, ev, select="test_auc", progress=False)
    with pytest.raises(ValueError, match="min_improvement"):
        learn_penalty(feats, ev, min_improvement=-1.0, progress=False)


# ----------------------------------------------------------------------- ridge penalty l2


def _penalised(bp, scores, w, l2):
    return aum(bp, scores).aum + 0.5 * l2 * float(w @ w)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.0, 0.05, 0.5, 5.0]))
def test_l2_step_is_the_minimum_over_the_explored_path(seed, l2):
    """Brute force: the penalised objective at the chosen step is no larger than at 1001
    step sizes spread over the explored events (AUM from aum(), independently)."""
    rng = np.random.default_rng(seed)
    n, p = 12, 3
    bp = breakpoints_from_labels(rng.integers(0, 2, n).tolist() + [0, 1])
    X = rng.normal(size=(n + 2, p))
    w, d = rng.normal(size=p), rng.normal(size=p)
    scores, slopes = X @ w, X @ d
    step, _ = l2_step(bp, scores, slopes, w, d, l2)
    smax = line_search(bp, scores, slopes, stop="linear").path["step_size"].max()
    grid = np.r_[np.linspace(0.0, smax, 1001), step]
    f = [_penalised(bp, scores + s * slopes, w + s * d, l2) for s in grid]
    assert 0.0 <= step <= smax
    assert f[-1] <= min(f[:-1]) + 1e-9


def test_l2_descent_decreases_the_penalised_objective_and_shrinks_weights(data):
    feats, ev = data
    fits = {l2: fit_penalty(feats, ev, l2=l2, select="last", init="interval_regression",
                            random_state=0, max_steps=200) for l2 in (0.01, 1.0)}
    for l2, fit in fits.items():
        W = fit.descent.weights
        h = fit.descent.history
        # recompute the subtrain objective of every iterate from the history's AUM
        obj = h["subtrain_aum"].to_numpy() + 0.5 * l2 * np.array([w @ w for w in W])
        assert np.all(np.diff(obj)[:-1] <= 1e-12)  # the last step may not improve
        assert obj[-1] <= obj[0] + 1e-12
    norm = {l2: float(np.linalg.norm(f.descent.weights[-1])) for l2, f in fits.items()}
    start = float(np.linalg.norm(fits[1.0].descent.weights[0]))
    assert norm[1.0] < start  # a strong ridge pulls the weights towards 0
    assert norm[1.0] < norm[0.01]


def test_l2_default_is_documented():
    doc = inspect.getdoc(learn_penalty)
    default = inspect.signature(learn_penalty).parameters["l2"].default
    assert default == PenaltyModel().l2 == inspect.signature(fit_penalty).parameters["l2"].default
    assert f"default {default}" in doc
    with pytest.raises(ValueError, match="l2"):
        fit_penalty(*synthetic(n=20), l2=-1.0)
