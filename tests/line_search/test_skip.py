"""``method="skip"`` (certified skips, then the kernel's sweep) against the full walk: the
same first-min step (1e-12) and AUM on random lines with ties and near-ties, on lines with
few slope classes (a tree's direction) and non-monotone error functions, and on real
ChIP-seq boosting stages; the slope bound holds at every step inside its bracket."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import DATA, need
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_line_search_kernel import near_tied_lines, tied_lines

from penlearn import aum, breakpoints_from_errors
from penlearn.datasets import load_uci
from penlearn.line_search import line_search, line_search_lines
from penlearn.line_search._anchor import Anchor
from penlearn.line_search._common import aum_slope, gaps, sort_right

skip = importlib.import_module("penlearn.line_search.skip")
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.fixture
def eager(monkeypatch):
    """Skip and chunk on the smallest inputs: every path of the driver runs."""
    monkeypatch.setattr(skip, "MIN_CROSSINGS", 1)
    monkeypatch.setattr(skip, "CHUNK", 2)


def same(lines):
    """Skip and the full walk (sequential engine) on the same lines; they must agree."""
    seq = line_search_lines(*lines, stop="first_min", method="sequential")
    sk = line_search_lines(*lines, stop="first_min", method="skip")
    assert sk.method in ("skip", "blocks")  # blocks: the choice hung on rounding
    assert sk.step_size == pytest.approx(seq.step_size, rel=1e-12, abs=1e-300)
    assert sk.aum == pytest.approx(seq.aum, rel=1e-9, abs=1e-9)
    return seq, sk


@SETTINGS
@given(st.one_of(tied_lines(), near_tied_lines()), st.sampled_from([1, 3]))
def test_ties_and_near_ties_equal_sequential(lines, chunk):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(skip, "MIN_CROSSINGS", 1)
        mp.setattr(skip, "CHUNK", chunk)
        same(lines)


def tree_lines(rng, n=300, classes=4):
    """Lines of a tree's direction: few distinct slopes, non-monotone error functions."""
    ic = rng.normal(size=n) * 3
    sl = rng.choice(rng.normal(size=classes), size=n)
    fp = rng.integers(-1, 3, n).astype(float)
    fn = rng.integers(-2, 2, n).astype(float)
    fp[0], fn[-1] = 40.0, -40.0
    return ic, sl, fp, fn


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 8, 64]), st.sampled_from([2, 4, 40]))
def test_tree_directions_equal_sequential(seed, min_crossings, classes):
    rng = np.random.default_rng(seed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(skip, "MIN_CROSSINGS", min_crossings)
        same(tree_lines(rng, classes=classes))


def test_skips_happen(eager):
    """On tree-like lines the driver skips brackets (sorts > 1), and stays exact."""
    sorts = []
    for seed in range(20):
        lines = tree_lines(np.random.default_rng(seed), n=2000)
        _, sk = same(lines)
        sorts.append(sk.n_sorts if sk.method == "skip" else 0)
    assert max(sorts) > 3


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 3.0), st.floats(1e-3, 3.0),
       st.sampled_from([3, 40]))
def test_slope_bound_holds_inside_its_bracket(seed, s, width, classes):
    """The bound is at least the slope just after every step of (s, s + width]."""
    rng = np.random.default_rng(seed)
    a, d, fp, fn = tree_lines(rng, n=60, classes=classes)
    a = a.round(1)  # ties
    t = a + d * s
    p = sort_right(t, d)
    a, d, fp, fn = a[p], d[p], fp[p], fn[p]
    _, _, m = gaps(fp, fn)
    anchor = Anchor(s, a, d, fp, fn, *aum_slope(t[p], d, m))
    bound, scale = skip.slope_bound(anchor, s + width)
    assert bound >= anchor.slope - 1e-12 * scale
    for x in np.r_[np.linspace(s, s + width, 41)[1:], s + width]:
        _, _, slope = anchor.evaluate(x)
        assert slope <= bound + 1e-12 * scale


def test_method_skip_rejects_other_rules():
    lines = ([-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [0.0, -1.0])
    with pytest.raises(ValueError, match="method='skip' needs stop='first_min'"):
        line_search_lines(*lines, stop="linear", method="skip")
    with pytest.raises(ValueError, match="method='skip' gives no path"):
        line_search_lines(*lines, method="skip", max_step=1.0)
    r = line_search_lines(*lines, method="skip")
    assert (r.step_size, r.aum, r.method) == (1.0, 0.0, "skip")


def _boosting_stages(name, stages=3):
    """Line-search inputs of the first boosting stages (depth-2 trees) on a real set."""
    from sklearn.tree import DecisionTreeRegressor

    ds = load_uci(need(DATA / name))
    ev, X = ds.evaluation, ds.inputs
    X = X.loc[:, np.isfinite(X.to_numpy(float)).all(axis=0)]
    ids = sorted(set(ev["sequence_id"]) & set(X.index))
    bp = breakpoints_from_errors(ev[ev["sequence_id"].isin(ids)], sequence_ids=ids)
    A = X.loc[ids].to_numpy(float)
    F = np.zeros(len(ids))
    for _ in range(stages):
        r = -aum(bp, F).derivatives.mean(axis=1)
        h = DecisionTreeRegressor(max_depth=2, min_samples_leaf=10,
                                  random_state=0).fit(A, r).predict(A)
        yield bp, F, h
        s = line_search(bp, F, slopes=h, method="blocks").step_size
        F = F + 0.5 * s * h


@pytest.mark.slow
@pytest.mark.parametrize("name", ["H3K4me3_TDH_immune", "H3K36me3_TDH_other"])
def test_real_boosting_stages_equal_blocks(name):
    """Real ChIP-seq error functions (non-monotone) along tree directions: the same step
    and AUM as the blocks engine (itself tested equal to the event-by-event walk)."""
    methods = []
    for bp, F, h in _boosting_stages(name):
        blk = line_search(bp, F, slopes=h, method="blocks")
        sk = line_search(bp, F, slopes=h, method="skip")
        assert sk.step_size == blk.step_size
        assert sk.aum == pytest.approx(blk.aum, rel=1e-9)
        methods.append(sk.method)  # "blocks" where the choice hung on rounding
    assert "skip" in methods
