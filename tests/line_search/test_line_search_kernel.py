"""The bracket engine (``method="blocks"``) and ``choose_step`` against the event-by-event
engine: the same step size (1e-12), AUM and number of events on the R reference cases, on
random lines with multi-way ties and near-ties, and on real ChIP-seq descent steps."""

from __future__ import annotations

import importlib
import json
import random

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, load_reference_json, need
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from penlearn import aum, breakpoints_from_errors, breakpoints_from_labels
from penlearn.line_search import (
    GRID_STEP_SIZES,
    breakpoint_lines,
    choose_step,
    descent_should_stop,
    grid_search,
    line_search,
    line_search_lines,
)

blocks = importlib.import_module("penlearn.line_search.blocks")
STOPS = ["first_min", "max_auc", "linear", "all", 7]


@pytest.fixture
def small_brackets(monkeypatch):
    """Brackets of a few events and a tiny pair budget: many brackets, many retries."""
    monkeypatch.setattr(blocks, "K_FRACTION", 0.0)
    monkeypatch.setattr(blocks, "PAIR_BUDGET", 0)


def same(lines, stop):
    """Blocks and sequential results on the same lines; asserts they agree."""
    seq = line_search_lines(*lines, stop=stop, method="sequential")
    blk = line_search_lines(*lines, stop=stop, method="blocks")
    assert blk.method == "blocks"
    assert blk.step_size == pytest.approx(seq.step_size, rel=1e-12, abs=1e-300)
    assert blk.aum == pytest.approx(seq.aum, rel=1e-9, abs=1e-9)
    assert blk.auc == pytest.approx(seq.auc, rel=1e-9, abs=1e-12)
    assert blk.events == seq.events
    assert blk.exhausted == seq.exhausted
    return seq, blk


def _reference_lines():
    ref = REFERENCE / "aum"
    if not ref.exists():
        return []
    out = []
    for path in sorted(ref.glob("*.json")):
        with open(path) as fh:
            kind = json.load(fh).get("kind")
        if kind == "raw_line_search":
            out.append(path.stem)
        elif kind == "aum_line_search":
            out.append(path.stem)
    return out


def _lines_of(name):
    d = load_reference_json(f"aum/{name}.json")
    if d["kind"] == "raw_line_search":
        lsi = d["inputs"]["line_search_input"]
    else:
        lsi = d["line_search"]["line_search_input"]
    return lsi["intercept"], lsi["slope"], lsi["fp.diff"], lsi["fn.diff"]


@pytest.mark.parametrize("name", _reference_lines())
@pytest.mark.parametrize("stop", STOPS)
def test_reference_cases(name, stop):
    need(REFERENCE / "aum")
    same(_lines_of(name), stop)


@pytest.mark.parametrize("name", _reference_lines())
def test_reference_cases_small_brackets(name, small_brackets):
    need(REFERENCE / "aum")
    for stop in STOPS:
        same(_lines_of(name), stop)


# dyadic coordinates on a coarse grid: multi-way ties, parallel lines, equal intercepts
dyadic_ic = st.integers(-6, 6).map(lambda k: k / 4)
dyadic_sl = st.integers(-4, 4).map(lambda k: k / 2)


@st.composite
def tied_lines(draw, max_lines=12):
    n = draw(st.integers(2, max_lines))
    rows = [(draw(dyadic_ic), draw(dyadic_sl), float(draw(st.integers(-1, 2))),
             float(draw(st.integers(-2, 1)))) for _ in range(n)]  # fmt: skip
    assume(sum(r[2] for r in rows) > 0 and sum(r[3] for r in rows) < 0)
    return [list(c) for c in zip(*rows)]


@st.composite
def near_tied_lines(draw, max_points=4):
    """Lines through a few common points, intercepts rounded: near-ties in the last bits."""
    rows = []
    for _ in range(draw(st.integers(1, max_points))):
        s0 = draw(st.integers(1, 30)) / 10  # the common point (s0, t0)
        t0 = draw(st.integers(-20, 20)) / 10
        for _ in range(draw(st.integers(2, 4))):
            m = draw(st.integers(-21, 21)) / 7  # inexact: t0 - s0·m is rounded
            rows.append((t0 - s0 * m, m, float(draw(st.integers(-1, 2))),
                         float(draw(st.integers(-2, 1)))))  # fmt: skip
    for _ in range(draw(st.integers(0, 4))):
        rows.append((draw(st.integers(-30, 30)) / 10, draw(st.integers(-30, 30)) / 10,
                     1.0, -1.0))
    assume(sum(r[2] for r in rows) > 0 and sum(r[3] for r in rows) < 0)
    return [list(c) for c in zip(*rows)]


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(tied_lines(), st.sampled_from(STOPS))
def test_ties_equal_sequential(lines, stop):
    same(lines, stop)


@SETTINGS
@given(near_tied_lines(), st.sampled_from(STOPS))
def test_near_ties_equal_sequential(lines, stop):
    same(lines, stop)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(STOPS))
def test_random_lines_small_brackets(seed, stop):
    """Many lines and brackets of a few events: every path through the driver."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    ic = rng.normal(size=n).round(int(rng.integers(1, 6)))
    sl = rng.normal(size=n).round(int(rng.integers(0, 4)))
    fp = rng.integers(-1, 3, n).astype(float)
    fn = rng.integers(-2, 2, n).astype(float)
    fp[0], fn[-1] = 5.0, -5.0
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(blocks, "K_FRACTION", float(rng.choice([0.0, 0.05, 0.5])))
        mp.setattr(blocks, "PAIR_BUDGET", int(rng.choice([0, 1, 8])))
        same((ic, sl, fp, fn), stop)
    finally:
        mp.undo()


def test_triple_point_in_the_last_bit():
    """Three lines through one point whose computed crossings differ in the last bit."""
    rng = random.Random(7)
    for _ in range(10000):
        m = sorted((rng.uniform(-3, 3) for _ in range(3)), reverse=True)
        ic = [0.3 - 0.7 * x for x in m]
        xs = [(ic[b] - ic[a]) / (m[a] - m[b]) for a, b in ((0, 1), (1, 2), (0, 2))]
        if len(set(xs)) == 3:
            break
    for stop in STOPS:
        seq, blk = same((ic, m, [0.5, 0.0, 0.5], [0.0, -0.5, -0.5]), stop)
        assert blk.events == 1


def test_choose_step_matches_line_search_and_grid():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 80)
    bp = breakpoints_from_labels(y)
    scores = rng.standard_normal(80)
    slopes = rng.standard_normal(80)
    for variant, stop in [("first_min", "first_min"), ("linear", "linear"),
                          ("quadratic", "all")]:  # fmt: skip
        ref = line_search(bp, scores, slopes, stop=stop, method="sequential")
        step, events = choose_step(variant, bp, scores, slopes)
        assert step == pytest.approx(ref.step_size, rel=1e-12)
        if variant != "first_min":  # monotone first_min: the bracketing search
            assert events == ref.events
    # max_auc: the interval of largest AUC on the sequential first-min path
    path = line_search(bp, scores, slopes, stop="first_min", method="sequential").path
    a, s, after = path["aum"].to_numpy(), path["step_size"].to_numpy(), path["auc_after"]
    last = len(a) - 1
    k_max = last - 1 if a[last] > a[:last].min() else last
    k = int(np.argmax(after.to_numpy()[:k_max]))
    assert after[k] - after[0] > 1e-5
    step, events = choose_step("max_auc", bp, scores, slopes)
    assert step == pytest.approx((s[k] + s[k + 1]) / 2, rel=1e-12)
    assert events == last
    g = grid_search(bp, scores, slopes)
    step, n = choose_step("grid", bp, scores, slopes)
    assert step == g["step_size"][int(np.argmin(g["aum"]))]
    assert n == len(GRID_STEP_SIZES)
    with pytest.raises(ValueError, match="variant must be one of"):
        choose_step("newton", bp, scores, slopes)


def test_method_blocks_rejects_path_options():
    lines = ([0.0, 1.0], [1.0, -1.0], [1.0, 0.0], [0.0, -1.0])
    with pytest.raises(ValueError, match="no path"):
        line_search_lines(*lines, method="blocks", max_step=1.0)
    with pytest.raises(ValueError, match="method must be one of"):
        line_search_lines(*lines, method="fast")


def test_descent_should_stop():
    assert descent_should_stop("grid", 1.0, 0.5, 0.1, 1e-5) is False
    assert descent_should_stop("linear", 1.0, 1.0, 0.1, 1e-5) is True
    assert descent_should_stop("first_min", np.inf, 1.0, np.inf, 1e-5) is False
    # max_auc: AUM may rise if AUC rises (by more than tol); a zero step stops
    assert descent_should_stop("max_auc", 1.0, 1.5, 0.1, 1e-5, 0.8, 0.81) is False
    assert descent_should_stop("max_auc", 1.0, 0.5, 0.1, 1e-5, 0.8, 0.8) is False
    assert descent_should_stop("max_auc", 1.0, 1.0, 0.1, 1e-5, 0.8, 0.8) is True
    assert descent_should_stop("max_auc", 1.0, 0.5, 0.0, 1e-5, 0.8, 0.9) is True
    assert descent_should_stop("max_auc", np.inf, 1.0, np.inf, 1e-5) is False


def _chipseq_steps(n_steps=4):
    """Lines of the first gradient-descent steps on a real ChIP-seq set (zero init)."""
    from penlearn.datasets import load_uci

    ds = load_uci(DATA / "H3K4me3_TDH_immune")
    ev = ds.evaluation
    ids = list(pd.unique(ev["sequence_id"]))[::2]
    bp = breakpoints_from_errors(ev[ev["sequence_id"].isin(ids)], sequence_ids=ids)
    X = ds.inputs.loc[ids].to_numpy(float)
    X = X[:, np.all(np.isfinite(X), axis=0)]
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    w = np.zeros(X.shape[1])
    out = []
    for _ in range(n_steps):
        scores = X @ w
        g = aum(bp, scores).derivatives.mean(axis=1)
        d = -(X.T @ g)
        out.append(breakpoint_lines(bp, scores, X @ d))
        step, _ = choose_step("first_min", bp, scores, X @ d)
        w = w + step * d
    return out


@pytest.mark.slow
def test_real_chipseq_steps():
    need(DATA / "H3K4me3_TDH_immune")
    for lines in _chipseq_steps():
        for stop in ["first_min", "linear", "max_auc"]:
            same(lines, stop)


@SETTINGS
@given(near_tied_lines(), st.floats(0.0, 4.0))
def test_anchor_sweep_is_the_kernel(lines, s_hi):
    """The bracketing search's sweep (``_anchor.sweep_from``) runs the kernel: from the
    order at step 0 it gives the event steps, AUM and slopes of the sequential path."""
    anchor_mod = importlib.import_module("penlearn.line_search._anchor")
    common = importlib.import_module("penlearn.line_search._common")
    ic, sl, fp, fn = (np.asarray(x, float) for x in lines)
    ic, sl, fp, fn = common.merge_lines(ic, sl, fp, fn)
    p = common.sort_right(ic, sl)
    a, d, fpo, fno = ic[p], sl[p], fp[p], fn[p]
    aum0, slope0 = common.aum_slope(a, d, common.gaps(fpo, fno)[2])
    zero = anchor_mod.Anchor(0.0, a, d, fpo, fno, aum0, slope0)
    events, after = anchor_mod.sweep_from(zero, s_hi, lambda aum, slope: False)
    path = line_search_lines(ic, sl, fp, fn, stop="all").path.iloc[1:]
    assert [e[0] for e in events] == path["step_size"].tolist()
    np.testing.assert_allclose([e[1] for e in events], path["aum"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose([e[2] for e in events], path["aum_slope_after"],
                               rtol=1e-12, atol=1e-12)
    # the order after the last event is sorted there
    if events:
        t = after.a + after.d * after.s
        assert np.all(np.diff(t) >= -1e-9 * (1 + np.abs(t[1:])))


def test_anchor_sweep_budget_and_stop():
    """``budget`` gives up when ``must`` never held; ``stop`` ends at its first event."""
    anchor_mod = importlib.import_module("penlearn.line_search._anchor")
    common = importlib.import_module("penlearn.line_search._common")
    rng = np.random.default_rng(3)
    n = 60
    ic, sl = rng.normal(size=n), rng.normal(size=n)
    fp, fn = np.ones(n), -np.ones(n)
    p = common.sort_right(ic, sl)
    a, d, fpo, fno = ic[p], sl[p], fp[p], fn[p]
    aum0, slope0 = common.aum_slope(a, d, common.gaps(fpo, fno)[2])
    zero = anchor_mod.Anchor(0.0, a, d, fpo, fno, aum0, slope0)
    never = lambda aum, slope: False  # noqa: E731
    events, _ = anchor_mod.sweep_from(zero, np.inf, never, budget=5)
    assert events is None
    all_events, _ = anchor_mod.sweep_from(zero, np.inf, never)
    assert len(all_events) > 5
    third = all_events[2][0]
    count = []

    def third_event(aum, slope):
        count.append(1)
        return len(count) == 3

    events, after = anchor_mod.sweep_from(zero, np.inf, third_event, lambda aum, sl: True)
    assert len(events) == 3 and events[-1][0] == third and after.s == third
