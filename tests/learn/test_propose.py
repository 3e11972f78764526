"""Proposing the windows worth labeling (issue 44): from features, paths and the labels
so far, never from the errors of a window not labeled; the few-labels refit."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import penlearn as pl
from penlearn.learn import learn_penalty, level_shift
from penlearn.learn.prior import constant_model
from penlearn.learn.propose import propose_from_paths


def _prior(slope=2.0):
    p = constant_model(["x"], 0.0)
    p.model = "linear"
    p.coef_ = pd.Series([slope], index=["x"])
    p.prior_name_ = "the test prior"
    return p


def _data(n=40, seed=0):
    """n windows: 4 samples of n/4 regions, each path 2-7 models around log λ = 2x,
    random errors."""
    rng = np.random.default_rng(seed)
    ids = [f"t/samples/g/s{i % 4}/problems/chr{i // 4}:0-100" for i in range(n)]
    x = rng.normal(size=n)
    rows = []
    for i, xi in zip(ids, x):
        m = int(rng.integers(2, 8))
        cuts = np.sort(rng.uniform(-4, 4, m - 1)) + 2 * xi
        fp, fn = rng.integers(0, 3, m), rng.integers(0, 3, m)
        rows += [(i, a, b, p, f, 2, 2) for a, b, p, f in
                 zip(np.r_[-np.inf, cuts], np.r_[cuts, np.inf], fp, fn)]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp",
                                     "fn", "possible_fp", "possible_fn"])
    ev["errors"] = ev["fp"] + ev["fn"]
    ev["labels"] = 4
    return SimpleNamespace(inputs=pd.DataFrame({"x": x}, index=ids), evaluation=ev)


def _permuted(ev, rows, seed=1):
    """``ev`` with the error columns of ``rows`` permuted among them."""
    out = ev.copy()
    idx = np.flatnonzero(rows)
    perm = np.random.default_rng(seed).permutation(idx)
    for c in ("fp", "fn", "errors", "possible_fp", "possible_fn", "labels"):
        out.loc[out.index[idx], c] = ev[c].to_numpy()[perm]
    return out


def test_proposals_never_read_the_errors_of_unlabeled_windows():
    data = _data()
    labeled = list(data.inputs.index[:3])
    first = pl.propose_windows(data, 8, labeled=labeled, model=_prior())
    unlabeled = ~data.evaluation["sequence_id"].isin(labeled).to_numpy()
    other = SimpleNamespace(inputs=data.inputs,
                            evaluation=_permuted(data.evaluation, unlabeled))
    assert not other.evaluation["errors"].equals(data.evaluation["errors"])
    pd.testing.assert_frame_equal(pl.propose_windows(other, 8, labeled=labeled,
                                                     model=_prior()), first)
    # ... while the labeled windows' errors do steer them (the test can fail)
    steered = SimpleNamespace(inputs=data.inputs,
                              evaluation=_permuted(data.evaluation, ~unlabeled, seed=3))
    one = pl.propose_windows(data, 1, labeled=labeled, model=_prior())
    again = pl.propose_windows(steered, 1, labeled=labeled, model=_prior())
    assert again["sequence_id"].tolist() != one["sequence_id"].tolist()


def test_proposals_never_hold_a_labeled_window_and_each_window_once():
    data = _data()
    labeled = list(data.inputs.index[5:12])
    out = pl.propose_windows(data, 100, labeled=labeled, model=_prior())
    assert len(out) == 40 - 7 and out["sequence_id"].is_unique
    assert not set(out["sequence_id"]) & set(labeled)
    assert out["reason"].str.len().min() > 10
    assert list(out.columns) == ["sequence_id", "score", "changes", "reason"]


def test_proposals_are_deterministic_for_a_seed():
    data = _data()
    a = pl.propose_windows(data, 10, model=_prior(), random_state=7)
    pd.testing.assert_frame_equal(pl.propose_windows(data, 10, model=_prior(),
                                                     random_state=7), a)
    # ties (identical paths) are broken by the seed
    ids = [f"w{i}" for i in range(6)]
    paths = pd.DataFrame({"sequence_id": ids * 2, "min_log_lambda": [-np.inf] * 6 + [0.5] * 6,
                          "max_log_lambda": [0.5] * 6 + [np.inf] * 6})
    base = pd.Series(0.0, index=ids)
    orders = {tuple(propose_from_paths(paths, base, 6, groups=pd.Series(ids, index=ids),
                                       random_state=s)["sequence_id"]) for s in range(5)}
    assert len(orders) > 1
    assert propose_from_paths(paths, base, 6, random_state=2).equals(
        propose_from_paths(paths, base, 6, random_state=2))


def test_the_next_window_is_where_the_labels_put_the_level():
    # "up" changes its model 3 above its prior log λ, "down" 3 below: symmetric before any
    # label; a labeled window whose errors vanish only for shifts in (2.5, 3.5) picks "up"
    paths = pd.DataFrame({"sequence_id": ["up", "up", "down", "down", "lab", "lab", "lab"],
                          "min_log_lambda": [-np.inf, 3.0, -np.inf, -3.0, -np.inf, 2.5, 3.5],
                          "max_log_lambda": [3.0, np.inf, -3.0, np.inf, 2.5, 3.5, np.inf]})
    base = pd.Series(0.0, index=["up", "down", "lab"])
    lab = paths[paths["sequence_id"] == "lab"].assign(errors=[3, 0, 3])
    before = propose_from_paths(paths, base, 2, exclude=["lab"], groups=None)
    assert before["score"].iloc[0] == pytest.approx(before["score"].iloc[1])
    after = propose_from_paths(paths, base, 1, labeled=lab)
    assert after["sequence_id"].tolist() == ["up"]
    assert after["changes"].tolist() == [1]
    assert "where the labels so far put the penalty" in after["reason"].iloc[0]


def test_bad_arguments_name_what_was_expected():
    data = _data(8)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        pl.propose_windows(data, 0, model=_prior())
    with pytest.raises(ValueError, match="labeled: 'nope' is no sequence id"):
        pl.propose_windows(data, 2, labeled=["nope"], model=_prior())
    with pytest.raises(TypeError, match="data must be coverage"):
        pl.propose_windows([1, 2], 2, model=_prior())


def test_few_labels_refit_is_the_prior_shifted_by_level_shift():
    data = _data()
    ids = list(data.inputs.index[:5])
    ev = data.evaluation[data.evaluation["sequence_id"].isin(ids)]
    m = learn_penalty(data.inputs.loc[ids], ev, prior=_prior(), progress=False)
    base = pd.Series(2.0 * data.inputs.loc[ids, "x"].to_numpy(), index=ids)
    assert m.level_["shift"] == level_shift.level_shift(ev, base)
    np.testing.assert_array_equal(m.predict(data.inputs.loc[ids]),
                                  base.to_numpy() + m.level_["shift"])
    assert "5 labeled sequences (at most 20)" in m.describe()
    # brute force: the shift of smallest smoothed errors + s²/8 on the grid
    grid = level_shift.shift_grid()
    s = grid[:, None] + base.to_numpy()[None, :]
    e = np.zeros_like(s)
    for i, sid in enumerate(ids):
        r = ev[ev["sequence_id"] == sid]
        for a, b, k in zip(r["min_log_lambda"], r["max_log_lambda"], r["errors"]):
            e[:, i] += k * ((s[:, i] >= a) & (s[:, i] < b))
    E = e.sum(axis=1)
    n = int(round(3 * level_shift.BANDWIDTH / 0.02))
    ker = np.exp(-0.5 * (np.arange(-n, n + 1) * 0.02 / level_shift.BANDWIDTH) ** 2)
    sm = np.convolve(np.pad(E, n, mode="edge"), ker / ker.sum(), mode="valid")
    assert m.level_["shift"] == grid[np.argmin(sm + grid ** 2 / 8)]


@pytest.mark.filterwarnings("ignore:training set")
def test_more_than_20_labeled_sequences_are_learned_as_before():
    data = _data(24)
    ev = data.evaluation
    m = learn_penalty(data.inputs, ev, prior=_prior(), candidates=["constant"],
                      progress=False)
    assert "choice" in m.level_  # the cross-validated auto model, not the shift alone
    assert "at most 20" not in m.describe()


def _one_change_paths(where: dict) -> pd.DataFrame:
    """Paths with model changes at the given log λ, ``{id: [changes]}``."""
    rows = []
    for i, c in where.items():
        rows += list(zip([i] * (len(c) + 1), [-np.inf, *c], [*c, np.inf]))
    return pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda"])


def test_a_batch_is_spread_over_the_priors_ranking():
    # w0..w8: prior log λ 0..8, one model change at their own log λ (shift 0, where the
    # level likely is before any label), w4 three; z0..z2: their change 4.5 above theirs
    # (outside the likely shifts' 90 %: |s| <= 3.3 before any label)
    base = pd.Series({**{f"w{i}": float(i) for i in range(9)},
                      **{f"z{i}": 3.0 * i for i in range(3)}})
    where = {f"w{i}": [float(i)] for i in range(9)}
    where["w4"] = [3.9, 4.0, 4.1]
    where.update({f"z{i}": [3.0 * i + 4.5] for i in range(3)})
    paths = _one_change_paths(where)
    # one window: the most changes where the level likely is
    assert propose_from_paths(paths, base, 1)["sequence_id"].tolist() == ["w4"]
    # a batch of 3: the windows changing there cut in 3 strata of equal count by the
    # prior's log λ (w0-w2, w3-w5, w6-w8); the middle one of each, middle stratum first
    # (not the next best scores, and no z: they say nothing of the likely level)
    assert propose_from_paths(paths, base, 3)["sequence_id"].tolist() == ["w4", "w1", "w7"]
    # labels that put the level 3.5-5.5 above the prior: the batch is the z's
    lab = pd.DataFrame({"sequence_id": "L", "min_log_lambda": [-np.inf, 3.5, 5.5],
                        "max_log_lambda": [3.5, 5.5, np.inf], "errors": [6, 0, 6]})
    steered = propose_from_paths(paths, pd.concat([base, pd.Series({"L": 0.0})]), 3,
                                 labeled=lab)
    assert sorted(steered["sequence_id"]) == ["z0", "z1", "z2"]


def test_a_batch_takes_the_most_telling_window_of_a_strata_middle_third():
    # 12 windows of prior log λ 0..11, each with one model change where the level likely
    # is; w5 (lower stratum, rank 5 of 6: outside its middle third) and w3 (rank 3:
    # inside) have three. A batch of 2: strata w0-w5 and w6-w11; the lower stratum's
    # window is w3 (its middle third is w2, w3: not its median w2, nor w5), the upper's
    # one of w8, w9 (ties by the seed)
    base = pd.Series({f"w{i}": float(i) for i in range(12)})
    where = {f"w{i}": [float(i)] for i in range(12)}
    where["w5"] = [4.9, 5.0, 5.1]
    where["w3"] = [2.9, 3.0, 3.1]
    out = propose_from_paths(_one_change_paths(where), base, 2)["sequence_id"].tolist()
    assert out[0] == "w3" and out[1] in ("w8", "w9")
