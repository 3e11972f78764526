"""The linear model's faster routes give the same model, bit for bit: the ridge step at the
B-th event from two sorts (``fitting.descent._l2_step_at_end``) against the path-based step
on real ChIP-seq sets (the default options and the paper's protocol), and the vectorised
``target_intervals`` against a per-sequence reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

from penlearn import learn_penalty
from penlearn.changepoint.evaluation import _largest_min_run, target_intervals
from penlearn.fitting import descent

SETS = ["H3K36me3_TDH_other", "H3K4me3_TDH_other"]


def _pooled():
    from penlearn.datasets import load_uci

    fs, evs = [], []
    for s in SETS:
        ds = load_uci(need(DATA / s))
        fs.append(ds.inputs)
        evs.append(ds.evaluation)
    X = pd.concat(fs)
    X = X.loc[:, np.isfinite(X.to_numpy(float)).all(axis=0)]
    return X, pd.concat(evs, ignore_index=True)


def _same(a, b):
    pd.testing.assert_series_equal(a.coef_, b.coef_, check_exact=True)
    assert a.intercept_ == b.intercept_
    pd.testing.assert_frame_equal(a.history_.drop(columns="seconds"),
                                  b.history_.drop(columns="seconds"), check_exact=True)
    assert a.level_ == b.level_ and a.shrinkage_ == b.shrinkage_


@pytest.mark.filterwarnings("ignore:learn_penalty. dropped")
@pytest.mark.parametrize("paper", [False, True])
def test_linear_model_equals_the_path_based_step(monkeypatch, paper):
    X, ev = _pooled()
    opts = dict(model="linear", progress=False, max_steps=40)
    if paper:  # l2 = 0: the step rule is the line search's own; the ridge route is unused
        opts.update(l2=0, min_improvement=0, shrink=False, level="subtrain", groups=None)
    calls = []
    real = descent._l2_step_at_end

    def counted(*a):
        got = real(*a)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(descent, "_l2_step_at_end", counted)
    fast = learn_penalty(X, ev, **opts)
    monkeypatch.setattr(descent, "_l2_step_at_end", lambda *a: None)
    slow = learn_penalty(X, ev, **opts)
    _same(fast, slow)
    if paper:
        assert not calls
    else:
        assert sum(calls) > len(calls) // 2  # the fast route answered most steps


def _reference_targets(ev: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for sid, g in ev.groupby("sequence_id", sort=False):
        g = g.sort_values("min_log_lambda")
        lo, hi = g["min_log_lambda"].to_numpy(), g["max_log_lambda"].to_numpy()
        err = (g["fp"] + g["fn"]).to_numpy(float)
        a, b = _largest_min_run(err, hi - lo)
        rows.append((sid, lo[a], hi[b], err.min()))
    return pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                       "errors"])


def test_target_intervals_equal_the_per_sequence_search():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(300):
        k = int(rng.integers(1, 9))
        cuts = np.sort(rng.choice(np.arange(-20, 20), size=k - 1, replace=False)) / 2.0
        lo, hi = np.r_[-np.inf, cuts], np.r_[cuts, np.inf]
        fp = rng.integers(0, 3, size=k)  # several minimal runs, all-minimal lines
        fn = rng.integers(0, 2, size=k)
        rows += [(f"s{i}", a, b, p, q) for a, b, p, q in zip(lo, hi, fp, fn, strict=True)]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "fp", "fn"]).sample(frac=1, random_state=1)
    got = target_intervals(ev)
    ref = _reference_targets(ev)
    pd.testing.assert_frame_equal(got, ref, check_exact=True, check_dtype=False)
