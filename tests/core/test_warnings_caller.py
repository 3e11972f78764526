"""Warnings name the user's line, not penlearn's source (issue 39): the filename of each
warning below is this test file, however deep in penlearn it was raised."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import penlearn as pl


def _caught(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn()
    assert seen, "no warning"
    return seen


def test_learn_penalty_dropped_features_warning_points_at_the_caller():
    sim = pl.simulate(n_sequences=16, seed=2)
    models, changes = pl.segment_sequences(sim.sequences, 5, progress=False)
    ev = pl.error_functions(models, changes, sim.labels)
    feats = pl.feature_matrix(sim.sequences, "chipseq").assign(flat=1.0)
    seen = _caught(lambda: pl.learn_penalty(feats, ev, model="linear", init="zero",
                                            max_steps=2, progress=False))
    dropped = [w for w in seen if "dropped" in str(w.message)]
    assert dropped and all(w.filename == __file__ for w in dropped), \
        [(w.filename, w.lineno) for w in dropped]


def test_fit_aum_linear_constant_column_warning_points_at_the_caller():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=40), "c": 1.0})
    y = (X["x"] + rng.normal(size=40) > 0).astype(int).to_numpy()
    seen = _caught(lambda: pl.fit_aum_linear(X, y, max_steps=3))
    assert [w.filename for w in seen if "constant" in str(w.message)] == [__file__]


def test_prediction_with_nan_features_warning_points_at_the_caller():
    sim = pl.simulate(n_sequences=16, seed=2)
    models, changes = pl.segment_sequences(sim.sequences, 5, progress=False)
    ev = pl.error_functions(models, changes, sim.labels)
    feats = pl.feature_matrix(sim.sequences, "chipseq")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pl.learn_penalty(feats, ev, model="linear", l2=0, min_improvement=0,
                                 shrink=False, level="subtrain", groups=None, progress=False)
    used = model.coef_.index[model.coef_.to_numpy() != 0]
    bad = feats.copy()
    bad.iloc[0, bad.columns.get_loc(used[0])] = np.nan
    seen = _caught(lambda: model.predict(bad))
    assert [w.filename for w in seen if "NaN" in str(w.message)] == [__file__]
