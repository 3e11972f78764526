"""The CV fall-back of SupervisedPenalty (penlearn.tune.selection) and the detector-aware
cost features (penlearn.tune.features.cost_features), checked by brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import ruptures as rpt
from scipy.spatial.distance import pdist, squareform

import penlearn as pl
from penlearn.report import best_constant_log_lambda
from penlearn.tune import SupervisedPenalty, signal_features, signals_from_sequences
from penlearn.tune.features import cost_features
from penlearn.tune.selection import choose_candidate, cv_errors, cv_folds


def _interval_ev(centres: dict) -> pd.DataFrame:
    """Error functions: 1 FP below c − 1, none on (c − 1, c + 1), 1 FN above c + 1."""
    rows = [r for s, c in centres.items() for r in [
        (s, -np.inf, c - 1, 1, 0), (s, c - 1, c + 1, 0, 0), (s, c + 1, np.inf, 0, 1)]]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "fp", "fn"])
    return ev.assign(possible_fp=1, possible_fn=1, labels=2)


def test_cv_folds_partition_the_ids_evenly_and_repeatably():
    ids = [f"s{i}" for i in range(23)]
    f = cv_folds(ids, 5, seed=1)
    assert list(f.index) == ids
    assert sorted(f.value_counts().tolist()) == [4, 4, 5, 5, 5]
    pd.testing.assert_series_equal(f, cv_folds(ids, 5, seed=1))
    assert not f.equals(cv_folds(ids, 5, seed=2))
    assert cv_folds(ids[:3], 5).nunique() == 3
    with pytest.raises(ValueError, match="integer >= 2"):
        cv_folds(ids, 1)


def test_cv_errors_of_the_constant_equal_brute_force():
    rng = np.random.default_rng(5)
    ids = [f"s{i}" for i in range(17)]
    ev = _interval_ev(dict(zip(ids, 3 * rng.normal(size=17))))
    folds = cv_folds(ids, 4, seed=0)
    got = cv_errors(pd.DataFrame(index=ids), ev, {"constant": None}, folds)
    for k in range(4):
        train = [s for s in ids if folds[s] != k]
        c = best_constant_log_lambda(ev[ev["sequence_id"].isin(train)])
        want = 0
        for s in (s for s in ids if folds[s] == k):  # the row holding c: lo < c <= hi
            rows = ev[(ev["sequence_id"] == s) & (ev["min_log_lambda"] < c)
                      & (c <= ev["max_log_lambda"])]
            want += int((rows["fp"] + rows["fn"]).iloc[0])
        assert got.loc["constant", f"fold {k}"] == want
    assert got.loc["constant", "errors"] == got.filter(like="fold").sum(axis=1)["constant"]
    assert got.loc["constant", "labels"] == 2 * 17


def test_choose_candidate_prefers_the_constant_on_ties():
    t = pd.DataFrame({"errors": [5.0, 4.0, 4.0]}, index=["learned", "b", "constant"])
    assert choose_candidate(t) == "constant"
    assert choose_candidate(t.assign(errors=[3.0, 4.0, 4.0])) == "learned"
    assert choose_candidate(t.drop("constant")) == "b"


def test_one_standard_error_rule_by_hand():
    """Differences constant − best per fold d: the best wins iff Σd > sd(d)·√K."""
    t = pd.DataFrame({"fold 0": [2.0, 6.0, 5.0], "fold 1": [3.0, 5.0, 4.0],
                      "fold 2": [5.0, 7.0, 6.0]}, index=["learned", "b", "constant"])

    def with_learned(*folds):
        t.loc["learned", ["fold 0", "fold 1", "fold 2"]] = folds
        t["errors"] = t.filter(like="fold").sum(axis=1)
        return t

    assert choose_candidate(with_learned(2, 3, 5), "1se") == "learned"  # d 3,1,1: 5 > 2.0
    assert choose_candidate(with_learned(5, 3, 3), "1se") == "learned"  # d 0,1,3: 4 > 2.6
    with_learned(8, 3, 0)  # d −3,1,6: Σd 4 < sd·√3 = 7.8
    assert choose_candidate(t, "fewest") == "learned"
    assert choose_candidate(t, "1se") == "constant"
    with pytest.raises(ValueError, match="rule must be"):
        choose_candidate(t, "2se")


@pytest.fixture(scope="module")
def data():
    sim = pl.simulate(20, seed=4, n_points=(100, 160), heavy_tails=0.0)
    return signals_from_sequences(sim.sequences), sim.labels


def test_pure_noise_features_choose_the_constant(data):
    signals, labels = data
    rng = np.random.default_rng(0)
    noise = pd.DataFrame(rng.normal(size=(len(signals), 3)), index=list(signals),
                         columns=["a", "b", "c"])
    t = SupervisedPenalty(rpt.Pelt(model="l2", jump=2), features=noise, max_changes=12,
                          cv_folds=4).fit(signals, labels)
    assert t.chosen_ == "constant" and t.model_ is None
    assert list(t.cv_errors_.columns) == [f"fold {k}" for k in range(4)] + ["errors", "labels"]
    pen = t.predict_log_penalty(signals)
    assert np.allclose(pen, t.constant_log_penalty_)
    assert t.constant_log_penalty_ == best_constant_log_lambda(t.evaluation_)


def test_informative_features_choose_the_learned_function(data):
    """The noise SD differs 10x between signals: the noise features predict the penalty."""
    signals, labels = data
    t = SupervisedPenalty(rpt.Pelt(model="l2", jump=2), max_changes=12, cv_folds=4,
                          choose="fewest").fit(signals, labels)
    assert t.chosen_ != "constant" and t.model_ is not None
    assert choose_candidate(t.cv_errors_, "1se") == t.chosen_  # a clear win for both rules
    cv = t.cv_errors_["errors"]
    assert cv[t.chosen_] < cv["constant"]
    assert list(t.cv_errors_.index) == ["learned", "learned, level subtrain", "constant"]
    # choose=None learns without CV; a level given by the user leaves one learned candidate
    t0 = SupervisedPenalty(rpt.Pelt(), choose=None)
    assert list(t0.candidates()) == ["learned"]
    assert list(SupervisedPenalty(rpt.Pelt(), level="subtrain").candidates()) == [
        "learned", "constant"]
    with pytest.raises(ValueError, match="choose must be one of") as exc:
        SupervisedPenalty(rpt.Pelt(), choose="aic").fit(signals, labels)
    assert "\n" not in str(exc.value)


def test_cost_features_are_the_detector_costs_brute_force():
    rng = np.random.default_rng(2)
    x = np.r_[np.zeros(37), np.full(30, 4.0)] + rng.normal(0, 1.5, 67)
    n = len(x)
    for det in (rpt.Pelt(model="l2"), _skchange_pelt()):
        f = cost_features(det, x)
        assert f["cost.all"] == pytest.approx(np.var(x))
        w10 = [np.var(x[a:a + 10]) for a in range(0, n - 9, 10)]  # 6 windows, 7 left over
        assert f["cost.w10"] == pytest.approx(np.mean(w10))
        assert f["log.cost.w20"] == pytest.approx(np.log(f["cost.w20"]))
    # rbf: the kernel of ruptures (median heuristic), cost = Σ K_ii − Σ K_ij / length
    d = pdist(x.reshape(-1, 1), "sqeuclidean")
    gram = np.exp(-squareform(np.clip(d / np.median(d), 1e-2, 1e2)))
    np.fill_diagonal(gram, 1.0)

    def rbf(a, b):
        return b - a - gram[a:b, a:b].sum() / (b - a)

    f = cost_features(rpt.Pelt(model="rbf"), x)
    assert f["cost.all"] == pytest.approx(rbf(0, n) / n)
    assert f["cost.w5"] == pytest.approx(np.mean([rbf(a, a + 5) for a in range(0, n - 4, 5)]) / 5)
    # a signal shorter than a window is one window; no reachable cost: no cost features
    short = cost_features(rpt.Pelt(model="l2"), x[:8])
    assert short["cost.w10"] == short["cost.w20"] == pytest.approx(np.var(x[:8]))
    from skchange.detectors import MovingWindow

    assert cost_features(MovingWindow(), x) is None
    assert list(signal_features({0: x}, MovingWindow()).columns) == list(
        signal_features({0: x}).columns)


def _skchange_pelt():
    from skchange.detectors import PELT

    return PELT()
