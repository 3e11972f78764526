"""``ir_repeats``: the start is the average of interval-regression fits with their own CV
folds, checked against fits made here with the same seeds."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from test_learn import split, synthetic, targets_of

from penlearn.learn import IntervalRegression, learn_penalty

# these tests check the linear model and its options (the default model is boosting)
learn_penalty = functools.partial(learn_penalty, model="linear")


@pytest.mark.parametrize("repeats", [1, 3])
def test_start_is_the_average_of_the_fits(repeats):
    feats, ev = synthetic(n=60, seed=2, p=3, noise=0.6)
    (fs, es), (fv, evv) = split(feats, ev)
    T = targets_of(ev).set_index("sequence_id")
    m = learn_penalty(fs, es, validation=(fv, evv), max_steps=0, shrink=False,
                      ir_repeats=repeats, random_state=7, targets=targets_of(ev), level="subtrain",
                      progress=False)
    rng = np.random.default_rng(7)
    rows = list(fs.index) + list(fv.index)
    X = pd.concat([fs, fv])
    preds = [IntervalRegression(random_state=rng.integers(2**31)).fit(X, T.loc[rows])
             .predict(feats) for _ in range(repeats)]
    np.testing.assert_allclose(m.predict(feats), np.mean(preds, axis=0), atol=1e-6)
    regs = m.init_["regularization"]
    assert (np.ndim(regs) == 0) == (repeats == 1)


def test_ir_repeats_bad_values():
    feats, ev = synthetic(n=40, seed=1)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="ir_repeats"):
            learn_penalty(feats, ev, ir_repeats=bad, progress=False)
