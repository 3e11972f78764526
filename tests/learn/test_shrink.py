"""Tests of ``shrink=`` (penlearn.learn.shrink): shrinking the learned weights toward a
safe model by validation AUC.

Each check recomputes the rule independently: the validation AUC of every mixture with
``roc_change`` on the predictions of an unshrunk fit, and the expected coefficients from
that fit's own coefficients.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from test_learn import split, synthetic

from penlearn import roc_change
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.scaling import standardize_features
from penlearn.learn.shrink import SHRINK_GRID, check_shrink, choose_shrinkage, shrink_target

# these tests check the linear model and its options (the default model is boosting)
learn_penalty = functools.partial(learn_penalty, model="linear")


def test_choose_shrinkage_is_first_argmax_of_grid():
    rng = np.random.default_rng(0)
    w, w0 = rng.normal(size=3), rng.normal(size=3)
    vals = {}

    def auc(v):  # a bumpy function of the mixture; remember what was asked
        a = float(np.round((v - w0) @ (w - w0) / ((w - w0) @ (w - w0)), 10))
        vals[a] = np.sin(7 * a) + 0.3 * a
        return vals[a]

    alpha, table = choose_shrinkage(auc, w, w0)
    assert table["alpha"].tolist() == list(SHRINK_GRID)
    expected = max(SHRINK_GRID, key=lambda a: (vals[round(a, 10)], a))
    assert alpha == pytest.approx(expected)
    assert table["validation_auc"].max() == pytest.approx(max(vals.values()))


def test_choose_shrinkage_ties_keep_the_learned_model_and_bad_grid():
    assert choose_shrinkage(lambda v: 0.7, np.ones(2), np.zeros(2))[0] == 1.0
    # NaN AUC is never chosen over a number
    a, _ = choose_shrinkage(lambda v: np.nan if v[0] > 0.5 else 0.6, np.ones(1), np.zeros(1))
    assert a == 0.5
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        choose_shrinkage(lambda v: 0.5, np.ones(1), np.zeros(1), grid=[1.5])


def test_shrink_target_reproduces_the_column():
    X = pd.DataFrame({"a": [0.0, 1.0, 5.0, 2.0], "n": [3.0, 7.0, 1.0, 4.0], "c": 1.0})
    sc = standardize_features(X)
    w, b = shrink_target("n", sc)
    score = sc.transform(X) @ w + b
    np.testing.assert_allclose(score, -X["n"].to_numpy())  # score = -log λ = -n
    w, b = shrink_target(True, sc)
    assert not w.any() and b == 0.0
    assert shrink_target(False, sc) is None
    with pytest.raises(ValueError, match="dropped"):
        shrink_target("c", sc)
    with pytest.raises(ValueError, match="not a feature column"):
        shrink_target("zz", sc)
    for bad in (0.5, "", None, 1):
        with pytest.raises(TypeError, match="shrink"):
            check_shrink(bad)


@pytest.fixture(scope="module")
def data():
    feats, ev = synthetic(n=80, seed=5, p=3, noise=0.5)
    return split(feats, ev)


def _valid_auc(m, fv, evv, coef, intercept):
    pred = fv[list(m.coef_.index)].to_numpy() @ coef + intercept
    return roc_change(evv, pd.Series(pred, index=fv.index)).auc


@pytest.mark.parametrize("toward", [True, "f2"])
def test_learn_penalty_shrink_matches_brute_force(data, toward):
    """A start opposite to the truth: shrinking must move toward the safe model, to the
    α of largest validation AUC recomputed here with roc_change."""
    (fs, es), (fv, evv) = data
    kw = dict(validation=(fv, evv), init=np.array([1.5, -1.0, 0.0]), max_steps=0,
              progress=False, level="subtrain")  # the scale of level="validation" aside
    m0 = learn_penalty(fs, es, shrink=False, **kw)
    m1 = learn_penalty(fs, es, shrink=toward, **kw)
    assert m0.shrinkage_ == 1.0
    safe = pd.Series(0.0, index=m0.coef_.index)
    if toward is not True:
        safe[toward] = 1.0
    aucs = [_valid_auc(m0, fv, evv, a * m0.coef_.to_numpy() + (1 - a) * safe.to_numpy(), 0)
            for a in SHRINK_GRID]
    expected = SHRINK_GRID[int(np.argmax(aucs))]
    assert m1.shrinkage_ == pytest.approx(expected)
    assert m1.shrinkage_ < 1.0  # the start is worse than the safe model here
    np.testing.assert_allclose(m1.coef_.to_numpy(),
                               expected * m0.coef_.to_numpy() + (1 - expected) * safe.to_numpy(),
                               atol=1e-9)
    got = _valid_auc(m1, fv, evv, m1.coef_.to_numpy(), m1.intercept_)
    assert got == pytest.approx(max(aucs), abs=1e-12)


def test_shrink_keeps_a_good_model_and_default_is_constant(data):
    """From interval regression on clean data the learned model is better than the
    constant: α = 1 and the coefficients are unchanged."""
    (fs, es), (fv, evv) = data
    kw = dict(validation=(fv, evv), progress=False, random_state=0)
    m0 = learn_penalty(fs, es, shrink=False, **kw)
    m1 = learn_penalty(fs, es, **kw)
    assert PenaltyModel().shrink is True
    aucs = [_valid_auc(m0, fv, evv, a * m0.coef_.to_numpy(), 0) for a in SHRINK_GRID]
    assert m1.shrinkage_ == pytest.approx(SHRINK_GRID[int(np.argmax(aucs))])
    if m1.shrinkage_ == 1.0:
        pd.testing.assert_series_equal(m1.coef_, m0.coef_)
        assert m1.intercept_ == m0.intercept_


def test_shrink_bad_values_and_persistence(data, tmp_path):
    (fs, es), (fv, evv) = data
    kw = dict(validation=(fv, evv), progress=False, max_steps=0,
              init=np.array([1.5, -1.0, 0.0]))
    with pytest.raises(TypeError, match="shrink"):
        learn_penalty(fs, es, shrink=0.5, **kw)
    with pytest.raises(ValueError, match="not a feature column"):
        learn_penalty(fs, es, shrink="nope", **kw)
    m = learn_penalty(fs, es, shrink="f1", **kw)
    m.save(tmp_path / "m.json")
    back = PenaltyModel.load(tmp_path / "m.json")
    assert back.shrinkage_ == m.shrinkage_ and back.shrink == "f1"
    np.testing.assert_allclose(back.predict(fv), m.predict(fv))


def test_demo_note_says_what_shrink_did(data):
    from penlearn.report.demo_notes import learning_note as _learning_note

    (fs, es), (fv, evv) = data
    kw = dict(validation=(fv, evv), init=np.array([1.5, -1.0, 0.0]), max_steps=0,
              progress=False, level="subtrain")  # the scale of level="validation" aside
    start = learn_penalty(fs, es, shrink=False, **kw)
    shrunk = learn_penalty(fs, es, **kw)
    note = _learning_note(shrunk, start, start, evv, fv, len(fv))
    assert note.startswith("Descent did not change the model")
    assert f"{shrunk.shrinkage_:.1f} × the weights" in note
    assert "Learning changed the model by shrinking" in note
    plain = _learning_note(start, start, start, evv, fv, len(fv))
    assert plain.startswith("Learning did not change the model") and "shrink" not in plain
