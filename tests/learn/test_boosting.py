"""AUM gradient boosting, the level of log λ, and the group split.

Each check is against an independent computation: the line-search step of a stage
against a brute-force scan of AUM along the tree's direction (every crossing of two
breakpoint thresholds, where AUM(s) can change slope, plus a dense grid), tree
predictions against scikit-learn's own ``predict``, the label errors of the level rule
against a direct read of the evaluation table, the split against the groups.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeRegressor
from test_learn import synthetic

from penlearn.aum import aum
from penlearn.breakpoints import breakpoints_from_errors
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.boosting import fit_boosting, predict_trees, tree_arrays
from penlearn.learn.groups import check_groups, group_split, region_groups
from penlearn.learn.level import choose_level, label_errors_at


def _regional(n=80, seed=0, n_regions=8):
    """The synthetic set with ChIP-seq style ids: sample/problems/chrR:1-100."""
    feats, ev = synthetic(n=n, seed=seed)
    new = {sid: f"s{i // n_regions}/problems/chr{i % n_regions + 1}:1-100" for i, sid in
           enumerate(feats.index)}
    feats = feats.rename(index=new)
    ev = ev.assign(sequence_id=ev["sequence_id"].map(new))
    return feats, ev


def _aum_along(bp, F, h, s):
    return aum(bp, F + s * h).aum


def _first_min_brute_force(bp, F, h):
    """First local minimum of AUM(F + s·h) over s ≥ 0, from its values at every crossing
    of two thresholds t_b(s) = v_b − F_b − s·h_b (AUM is linear between crossings)."""
    c0 = bp.value - F[bp.example]
    sl = -h[bp.example]
    cand = {0.0}
    for i, j in itertools.combinations(range(len(bp)), 2):
        if sl[i] != sl[j]:
            s = (c0[j] - c0[i]) / (sl[i] - sl[j])
            if s > 0:
                cand.add(float(s))
    steps = np.array(sorted(cand))
    vals = np.array([_aum_along(bp, F, h, s) for s in steps])
    for k in range(len(vals) - 1):
        if vals[k + 1] > vals[k] + 1e-12:
            return steps, vals, float(vals[k])
    return steps, vals, float(vals[-1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stage_step_is_the_first_aum_minimum_along_the_tree(seed):
    """One boosting stage (learning rate 1): its step is the first minimum of AUM along
    the tree's predictions, found by brute force over all threshold crossings, and no
    point of a dense grid before it is lower."""
    feats, ev = synthetic(n=24, seed=seed)
    ids = list(feats.index)
    bp = breakpoints_from_errors(ev, sequence_ids=ids, normalize="rate")
    A = feats.to_numpy(float)
    b = fit_boosting(A, bp, A[:4], lambda f, fv: (0.0, 0.0, 0.0), max_stages=1,
                     learning_rate=1.0, min_samples_leaf=2, select="last")
    assert len(b.trees) == 1
    s = float(b.history["step_size"].iloc[1])
    h = predict_trees(b.trees, A) / s  # the tree's own predictions (unit scale)
    F = np.zeros(len(A))
    assert np.any(h)
    # the tree was fit to the negative AUM gradient at F = 0
    r = -aum(bp, F).derivatives.mean(axis=1)
    again = DecisionTreeRegressor(max_depth=2, min_samples_leaf=2, random_state=0).fit(A, r)
    # (a tie between equally good splits may go either way: compare the fits' errors)
    assert np.sum((r - h) ** 2) == pytest.approx(np.sum((r - again.predict(A)) ** 2))
    assert np.dot(h, r) > 0  # a descent direction
    steps, vals, first_min = _first_min_brute_force(bp, F, h)
    got = float(b.history["subtrain_aum"].iloc[1])
    assert got == pytest.approx(_aum_along(bp, F, h, s), abs=1e-12)
    assert got == pytest.approx(first_min, abs=1e-12)
    grid = np.linspace(0.0, s, 2001)
    assert min(_aum_along(bp, F, h, g) for g in grid) >= got - 1e-12


def test_blocks_engine_gives_the_sequential_steps(monkeypatch):
    """The boosting stages' line-search engine (``LS_METHOD``) against the event-by-event
    sweep: the same steps and AUMs, stage for stage."""
    import penlearn.learn.boosting as boosting

    feats, ev = synthetic(n=60, seed=7)
    ids = list(feats.index)
    bp = breakpoints_from_errors(ev, sequence_ids=ids, normalize="rate")
    A = feats.to_numpy(float)
    runs = {}
    for method in ("blocks", "sequential"):
        monkeypatch.setattr(boosting, "LS_METHOD", method)
        runs[method] = fit_boosting(A, bp, A[:5], lambda f, fv: (0.0, 0.0, 0.0), max_stages=15,
                                    min_samples_leaf=3, select="last").history
    assert len(runs["blocks"]) > 3
    np.testing.assert_array_equal(runs["blocks"]["step_size"], runs["sequential"]["step_size"])
    np.testing.assert_array_equal(runs["blocks"]["subtrain_aum"],
                                  runs["sequential"]["subtrain_aum"])


def test_predict_trees_equals_sklearn():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(300, 4)) * 10.0 ** rng.integers(-3, 4, size=4)
    y = np.sin(A[:, 0]) + A[:, 1]
    t = DecisionTreeRegressor(max_depth=4, random_state=0).fit(A, y)
    B = np.vstack([A, rng.normal(size=(200, 4)) * 1e3, t.tree_.threshold[t.tree_.feature >= 0]
                   [:, None].repeat(4, axis=1)])  # values exactly at thresholds too
    np.testing.assert_array_equal(predict_trees([tree_arrays(t, 1.0)], B), t.predict(B))
    two = predict_trees([tree_arrays(t, 0.5), tree_arrays(t, -2.0)], B)
    np.testing.assert_array_equal(two, -1.5 * t.predict(B))


def _label_errors_direct(ev, ids, scores):
    """FP + FN at log λ = −score, read off each sequence's row of the evaluation table."""
    total = 0.0
    for sid, sc in zip(ids, scores):
        g = ev[ev["sequence_id"] == sid]
        row = g[(g["min_log_lambda"] < -sc) & (-sc <= g["max_log_lambda"])]
        total += float(row["fp"].iloc[0] + row["fn"].iloc[0])
    return total


def test_level_errors_and_choice_brute_force():
    feats, ev = synthetic(n=40, seed=5)
    ids = list(feats.index)
    bp = breakpoints_from_errors(ev, sequence_ids=ids)  # counts
    rng = np.random.default_rng(0)
    f = feats["f0"].to_numpy() * -1.5 + rng.normal(size=len(ids))
    for c in np.linspace(-4, 4, 9) + 0.0123:
        direct = _label_errors_direct(ev, ids, f + c)
        assert label_errors_at(bp, f + c) == pytest.approx(direct)
    sub, val = ids[:20], ids[20:]
    bps = breakpoints_from_errors(ev[ev.sequence_id.isin(sub)], sequence_ids=sub)
    bpv = breakpoints_from_errors(ev[ev.sequence_id.isin(val)], sequence_ids=val)
    alpha, shift, table = choose_level(bps, f[:20], bpv, f[20:])
    # brute force over a fine grid of shifts: no shift beats the chosen one on all rows
    errs = [label_errors_at(bp, alpha * f + c) for c in np.linspace(-10, 10, 4001)]
    assert label_errors_at(bp, alpha * f + shift) <= min(errs) + 1e-9
    # the chosen α has the fewest validation errors, the first on ties
    best = min(e for _, _, e in table)
    assert alpha == next(a for a, _, e in table if e == best)


def test_boosting_round_trip_without_sklearn(tmp_path, monkeypatch):
    feats, ev = _regional()
    m = learn_penalty(feats, ev, model="boosting", progress=False,
                      boosting={"min_samples_leaf": 3})
    assert m.trees_ is not None and len(m.trees_) == m.best_step_
    assert m.level_["split"].startswith("groups")
    path = tmp_path / "boost.json"
    m.save(path)
    monkeypatch.setitem(sys.modules, "sklearn", None)  # loading and predicting need no sklearn
    m2 = PenaltyModel.load(path)
    np.testing.assert_array_equal(m2.predict(feats), m.predict(feats))
    inf_row = feats.iloc[:1].copy()
    inf_row.iloc[0, 0] = np.inf
    assert np.isfinite(m2.predict(inf_row)).all()  # ±inf: an extreme leaf
    nan_row = inf_row.copy()
    nan_row.iloc[0, 0] = np.nan  # missing: a per-row answer (tests/learn/test_missing_features)
    with pytest.warns(UserWarning, match="have NaN"):
        assert np.isfinite(m2.predict(nan_row)).all()


def test_boosting_file_with_a_bad_tree_is_rejected(tmp_path):
    import json

    feats, ev = _regional()
    m = learn_penalty(feats, ev, model="boosting", progress=False,
                      boosting={"min_samples_leaf": 3})
    d = m.to_dict()
    d["trees"] = [{"left": [0, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
                   "threshold": [0.0, -2.0, -2.0], "value": [0.0, 1.0, 2.0]}]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    with pytest.raises(ValueError, match="node 0 has children"):
        PenaltyModel.load(p)
    d["trees"] = [{"left": [-1]}]
    p.write_text(json.dumps(d))
    with pytest.raises(ValueError, match="tree 0 must be an object"):
        PenaltyModel.load(p)


@pytest.mark.parametrize("field, node, value, match", [
    ("threshold", 0, float("nan"), "node 0 has a non-finite threshold"),
    ("threshold", 0, float("inf"), "node 0 has a non-finite threshold"),
    ("feature", 0, 0.5, "field 'feature' must be a list of integers"),  # was read as 0
    ("right", 0, True, "field 'right' must be a list of integers"),  # was read as 1
])
def test_boosting_file_with_a_bad_tree_number_is_rejected(tmp_path, field, node, value, match):
    """Tampered numbers that once loaded in silence."""
    import json

    tree = {"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
            "threshold": [0.0, -2.0, -2.0], "value": [0.0, 1.0, 2.0]}
    feats, ev = _regional()
    d = learn_penalty(feats, ev, model="boosting", progress=False,
                      boosting={"min_samples_leaf": 3}).to_dict()
    d["trees"], d["best_step"] = [tree], 1  # one kept tree: best_step 1
    p = tmp_path / "ok.json"
    p.write_text(json.dumps(d))
    PenaltyModel.load(p)  # the untampered tree loads
    tree[field][node] = value
    p.write_text(json.dumps(d))  # NaN / Infinity: Python's JSON extension
    with pytest.raises(ValueError, match=match):
        PenaltyModel.load(p)


def test_model_file_with_an_unknown_or_inconsistent_model_class_is_rejected(tmp_path):
    import json

    feats, ev = _regional()
    d = learn_penalty(feats, ev, model="boosting", progress=False,
                      boosting={"min_samples_leaf": 3}).to_dict()
    p = tmp_path / "m.json"
    for params_model, drop_trees, match in [("forest", False, "model must be one of"),
                                            ("linear", False, "'trees' is present"),
                                            ("boosting", True, "'trees' is missing")]:
        e = dict(d, params=dict(d["params"], model=params_model))
        if drop_trees:
            e.pop("trees")
        p.write_text(json.dumps(e))
        with pytest.raises(ValueError, match=match):
            PenaltyModel.load(p)


@pytest.mark.parametrize("model", ["linear", "boosting"])
def test_same_call_same_model(model):
    feats, ev = _regional(seed=2)
    a = learn_penalty(feats, ev, model=model, progress=False)
    b = learn_penalty(feats, ev, model=model, progress=False)
    np.testing.assert_array_equal(a.predict(feats), b.predict(feats))


def test_bad_input():
    feats, ev = _regional()
    with pytest.raises(ValueError, match="model must be one of"):
        learn_penalty(feats, ev, model="forest", progress=False)
    with pytest.raises(ValueError, match="level must be one of"):
        learn_penalty(feats, ev, level="test", progress=False)
    with pytest.raises(ValueError, match="no group for 1 training sequence"):
        learn_penalty(feats, ev, groups=pd.Series(1, index=feats.index[1:]), progress=False)
    with pytest.raises(ValueError, match="all training sequences are in one group"):
        learn_penalty(feats, ev, groups=pd.Series(1, index=feats.index), progress=False)
    with pytest.raises(ValueError, match="groups must be 'auto'"):
        learn_penalty(feats, ev, groups="regions", progress=False)
    with pytest.raises(TypeError, match="groups must be a pandas Series"):
        learn_penalty(feats, ev, groups=[1, 2], progress=False)
    half = list(feats.index[::2])
    with pytest.raises(ValueError, match="give validation= or groups=, not both"):
        learn_penalty(feats.loc[half], ev[ev.sequence_id.isin(half)], progress=False,
                      validation=(feats.drop(index=half), ev[~ev.sequence_id.isin(half)]),
                      groups=region_groups(feats.index))
    with pytest.raises(ValueError, match="boosting options must be among"):
        learn_penalty(feats, ev, model="boosting", boosting={"depth": 2}, progress=False)
    with pytest.raises(ValueError, match="learning_rate must be"):
        learn_penalty(feats, ev, model="boosting", boosting={"learning_rate": 0},
                      progress=False)
    with pytest.raises(ValueError, match="max_depth must be"):
        learn_penalty(feats, ev, model="boosting", boosting={"max_depth": 0}, progress=False)


def test_groups_split_holds_out_whole_regions():
    feats, ev = _regional()
    g = region_groups(feats.index)
    assert g is not None and g.nunique() == 8
    sub, val = group_split(g)
    assert set(g[sub]).isdisjoint(set(g[val])) and len(sub) + len(val) == len(feats)
    assert region_groups(["1_chr1", "2_chr2"]) is None  # neuroblastoma ids: no regions
    assert check_groups({"a": "x", "b": "y"}, ["b", "a"]).tolist() == ["y", "x"]
    # the default split of learn_penalty is this one (the level records it); groups=None
    # is the papers' alternation of sorted ids
    assert learn_penalty(feats, ev, progress=False).level_["split"] == "groups (8)"
    assert learn_penalty(feats, ev, groups=None, progress=False).level_["split"] == \
        "alternate ids"


def test_refit_and_auto(tmp_path):
    """``refit``: as many trees as stages chosen on validation, now fit on every training
    sequence; ``model="auto"``: the class chosen by CV (tests/learn/test_choice.py),
    refit as that class alone, recorded in the model file."""
    feats, ev = _regional(seed=4)
    kw = dict(progress=False, boosting={"min_samples_leaf": 3})
    plain = learn_penalty(feats, ev, model="boosting", **kw)
    refit = learn_penalty(feats, ev, model="boosting",
                          boosting={"min_samples_leaf": 3, "refit": True}, progress=False)
    assert plain.best_step_ == refit.best_step_ == len(refit.trees_) > 0
    assert not np.array_equal(plain.predict(feats), refit.predict(feats))
    auto = learn_penalty(feats, ev, model="auto", **kw)
    pick = auto.choice_["chosen"]
    assert auto.level_["model"] == pick
    twin = learn_penalty(feats, ev, model=pick, **kw)
    np.testing.assert_array_equal(auto.predict(feats), twin.predict(feats))
    auto.save(tmp_path / "auto.json")
    back = PenaltyModel.load(tmp_path / "auto.json")
    assert back.choice_["errors"] == auto.choice_["errors"]
    np.testing.assert_array_equal(back.predict(feats), auto.predict(feats))
