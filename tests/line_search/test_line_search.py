"""The exact line search against the R reference (``reference/aum``) and on bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, load_reference_json, need

from penlearn import Breakpoints, aum, breakpoints_from_labels
from penlearn.line_search import (
    LineSearchResult,
    grid_search,
    line_search,
    line_search_linear,
    line_search_lines,
)

REF = REFERENCE / "aum"
REF_COLS = ["step.size", "aum", "aum.slope.after", "auc", "auc.after", "intersections",
            "intervals", "q.size"]  # fmt: skip
OUR_COLS = ["step_size", "aum", "aum_slope_after", "auc", "auc_after", "intersections",
            "intervals", "q_size"]  # fmt: skip

# Documented reference defects (README of reference/aum and the notes below):
# - bin_rand_n10_feature, max.auc (with and without maxStepSize): auc.after is the same
#   value 0.8095238095238095 on events 15-17 up to rounding noise in the reference's
#   accumulation (event 17 reads ...096), so its "first strict maximum" lands on event 17.
#   penlearn requires a new maximum to exceed the previous one by 2**-46 relative and takes
#   event 15, the first event of the plateau.
NOISY_MAX_AUC = {("bin_rand_n10_feature", "max.auc")}


def _case_names():
    if not REF.exists():
        return []
    names = []
    for path in sorted(REF.glob("*.json")):
        with open(path) as fh:
            kind = json.load(fh).get("kind")
        if kind in ("aum_line_search", "raw_line_search"):
            names.append(path.stem)
    return names


CASES = _case_names()


def _runs():
    out = []
    for name in CASES:
        d = load_reference_json(f"aum/{name}.json")
        for i, run in enumerate(d["line_search"]["runs"]):
            out.append(pytest.param(name, i, id=f"{name}-{i}-{run['label'][:14]}"))
    return out


def _lines(d):
    if d["kind"] == "raw_line_search":
        lsi = d["inputs"]["line_search_input"]
    else:
        lsi = d["line_search"]["line_search_input"]
    return lsi["intercept"], lsi["slope"], lsi["fp.diff"], lsi["fn.diff"]


def _stop_of(run):
    m = run["maxIterations"]
    if m == "min.aum":
        return "first_min"
    if m == "max.auc":
        return "max_auc"
    return int(m) - 1  # the reference's maxIterations counts rows (row 0 included)


def _assert_frame_close(ours: pd.DataFrame, ref: pd.DataFrame, rtol=1e-12, atol=1e-12):
    assert len(ours) == len(ref)
    for oc, rc in zip(OUR_COLS, REF_COLS):
        np.testing.assert_allclose(
            ours[oc].to_numpy(float), ref[rc].to_numpy(float), rtol=rtol, atol=atol,
            err_msg=oc,
        )  # fmt: skip


def test_reference_cases_present():
    need(REF)
    assert len(CASES) >= 20


@pytest.mark.parametrize("name,i", _runs())
def test_reference_run(name, i):
    """Every run of every line-search case: the path, or the reference's summary row."""
    d = load_reference_json(f"aum/{name}.json")
    run = d["line_search"]["runs"][i]
    ref = pd.DataFrame(run["line_search_result"])
    max_step = run["maxStepSize"] if run["maxStepSize"] > 0 else None
    stop = _stop_of(run)
    if max_step is not None:
        # With maxStepSize the reference overwrites row 0 by the event with the largest
        # auc.after so far (step, totals, q.size = that event's index) and, for max.auc,
        # does not apply its drop rule. penlearn keeps row 0 and its stopping rules; here
        # its whole path up to max_step must contain that event and the other rows.
        res = line_search_lines(
            *_lines(d), stop="all" if isinstance(stop, str) else stop, max_step=max_step
        )
        path = res.path
        assert (path["step_size"].iloc[:-1] < max_step).all()
        _assert_frame_close(path.iloc[1 : len(ref)], ref.iloc[1:])
        k = int(ref["q.size"][0])
        assert path["step_size"][k] == pytest.approx(ref["step.size"][0], rel=1e-12)
        assert path["intersections"][1 : k + 1].sum() == ref["intersections"][0]
        assert path["auc_after"][k] == pytest.approx(path["auc_after"].max(), rel=1e-12)
        assert ref["auc"][0] == pytest.approx(path["auc_after"].max(), rel=1e-12)
        return
    res = line_search_lines(*_lines(d), stop=stop, method="sequential")
    path = res.path
    events = path.iloc[1:]
    if isinstance(stop, str) and not (len(path) == 1 and ref["step.size"][0] == 0):
        # one summary row: chosen step, totals over the processed events
        assert ref["intersections"][0] == events["intersections"].sum()
        assert ref["intervals"][0] == events["intervals"].sum()
        assert ref["q.size"][0] == len(events)
        if (name, run["maxIterations"]) in NOISY_MAX_AUC:
            _check_noisy_max_auc(ref, res)
            return
        assert res.step_size == pytest.approx(ref["step.size"][0], rel=1e-12, abs=1e-300)
        if stop == "first_min":
            assert res.aum == pytest.approx(ref["aum"][0], rel=1e-12, abs=1e-12)
            auto = line_search_lines(*_lines(d), stop=stop)
            ic, sl, fp, fn = (np.asarray(x, float) for x in _lines(d))
            monotone = (fp >= 0).all() and (fn <= 0).all()
            assert auto.method == ("bracket" if monotone else "sequential")
            assert auto.step_size == pytest.approx(res.step_size, rel=1e-12, abs=1e-300)
            assert auto.aum == pytest.approx(res.aum, rel=1e-12, abs=1e-12)
        else:
            assert path["auc_after"].max() == pytest.approx(ref["auc"][0], rel=1e-12)
        return
    _assert_frame_close(path, ref)


def _check_noisy_max_auc(ref, res):
    path = res.path
    top = path["auc_after"].max()
    assert ref["auc"][0] == pytest.approx(top, rel=1e-12)
    plateau = path.index[np.isclose(path["auc_after"], top, rtol=1e-12, atol=0)]
    first = path["step_size"][plateau[0]]
    # penlearn takes the first event of the plateau; the reference a later one of it
    assert res.step_size == pytest.approx((first + path["step_size"].iloc[-1]) / 2)
    ref_first = 2 * ref["step.size"][0] - path["step_size"].iloc[-1]
    assert np.isclose(path["step_size"][plateau], ref_first, rtol=1e-12).any()
    assert ref_first > first


def _breakpoints_of(d):
    diffs = d["inputs"]["diffs"]
    return Breakpoints(
        diffs["example"], diffs["pred"], diffs["fp_diff"], diffs["fn_diff"],
        n_examples=d["inputs"]["n_examples"],
    )  # fmt: skip


def _pred_cases():
    out = []
    for name in CASES:
        d = load_reference_json(f"aum/{name}.json")
        if d["kind"] == "aum_line_search" and d["inputs"].get("search_diffs") is None:
            out.append(name)
    return out


@pytest.mark.parametrize("name", _pred_cases())
def test_reference_from_breakpoints(name):
    """line_search on Breakpoints + scores (default direction) gives the reference path."""
    d = load_reference_json(f"aum/{name}.json")
    bp = _breakpoints_of(d)
    pred = np.asarray(d["aum"]["pred_vec"], float)
    run = max(
        (r for r in d["line_search"]["runs"] if isinstance(r["maxIterations"], int)),
        key=lambda r: r["nrow"],
    )
    ref = pd.DataFrame(run["line_search_result"])
    if d["inputs"]["pred_vec"] is not None:
        res = line_search(bp, pred, stop=_stop_of(run))
        _assert_frame_close(res.path, ref)
        assert res.method == "sequential"
    else:
        X = np.asarray(d["inputs"]["feature_mat"], float)
        w = np.asarray(d["inputs"]["weight_vec"], float)
        res = line_search_linear(bp, X, w, stop=_stop_of(run))
        # X @ w and the direction may differ from R's BLAS in the last bits (measured: a
        # few 1e-15 relative), well inside 1e-12
        _assert_frame_close(res.path, ref)
        np.testing.assert_allclose(
            -res.direction, d["line_search"]["gradient_weight"], rtol=1e-12, atol=1e-12
        )
    assert res.path["aum"][0] == pytest.approx(d["aum"]["aum"], rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------------------
# bad input, errors.json
# --------------------------------------------------------------------------------------


def _error_case(name):
    cases = {c["name"]: c for c in load_reference_json("aum/errors.json")["cases"]}
    return cases[name]


@pytest.mark.parametrize(
    "name,lines",
    [
        ("ls_max_fn_not_positive", ([0.0], [0.0], [1.0], [1.0])),
        ("ls_max_fp_not_positive", ([0.0], [0.0], [-1.0], [-1.0])),
    ],
)
def test_errors_json_totals(name, lines):
    msg = _error_case(name)["error"]
    with pytest.raises(ValueError, match=msg):
        line_search_lines(*lines)


@pytest.mark.parametrize(
    "name,labels", [("ls_all_negative_class", [0, 0, 0]), ("ls_all_positive_class", [1, 1, 1])]
)
def test_errors_json_one_class(name, labels):
    msg = _error_case(name)["error"]
    with pytest.raises(ValueError, match=msg):
        line_search(breakpoints_from_labels(labels), [1.0, 2.0, 3.0])


def test_errors_json_bad_max_iterations():
    _error_case("ls_maxIterations_below_minus1")
    lines = ([-1, 0, 1], [1, 0, -1], [0.5, 0, 0.5], [0, -0.5, -0.5])
    with pytest.raises(ValueError, match="stop"):
        line_search_lines(*lines, stop=-2)
    with pytest.raises(ValueError, match="max_iterations"):
        line_search_lines(*lines, max_iterations=-1)


def test_errors_json_unsorted_lines_are_sorted_and_merged():
    """penlearn differs deliberately: it sorts the lines and merges identical ones, where
    the reference's C++ stops with 'intercepts should be non-decreasing' / 'slopes should be
    increasing for equal intercepts'."""
    _error_case("ls_intercepts_decreasing")
    _error_case("ls_slopes_not_increasing")
    ic, sl = [1.0, -1.0, 0.0, 1.0], [-1.0, 1.0, 0.0, -1.0]
    fp, fn = [0.25, 0.5, 0.0, 0.25], [-0.25, 0.0, -0.5, -0.25]
    res = line_search_lines(ic, sl, fp, fn, stop="all")
    ref = line_search_lines([-1, 0, 1], [1, 0, -1], [0.5, 0, 0.5], [0, -0.5, -0.5], stop="all")
    pd.testing.assert_frame_equal(res.path, ref.path)
    assert res.n_lines == 3


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("which", range(4))
def test_nonfinite_lines(bad, which):
    lines = [[-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [0.0, -1.0]]
    lines[which][1] = bad
    names = ["intercept", "slope", "fp_diff", "fn_diff"]
    with pytest.raises(ValueError, match=names[which]):
        line_search_lines(*lines)


def test_bad_lengths_and_empty():
    with pytest.raises(ValueError, match="slope has length 1"):
        line_search_lines([0.0, 1.0], [0.0], [1.0, 0.0], [0.0, -1.0])
    with pytest.raises(ValueError, match="no breakpoints"):
        line_search_lines([], [], [], [])
    with pytest.raises(ValueError, match="one-dimensional"):
        line_search_lines([[0.0]], [[0.0]], [[1.0]], [[-1.0]])
    bp = breakpoints_from_labels([0, 1])
    with pytest.raises(ValueError, match="scores has length 3"):
        line_search(bp, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="slopes has length 1"):
        line_search(bp, [0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="scores must be finite"):
        line_search(bp, [0.0, np.nan])
    with pytest.raises(ValueError, match="slopes must be finite"):
        line_search(bp, [0.0, 1.0], [np.inf, 0.0])
    with pytest.raises(ValueError, match="empty"):
        line_search(Breakpoints([], [], [], [], n_examples=2), [0.0, 1.0])
    with pytest.raises(TypeError, match="Breakpoints"):
        line_search(pd.DataFrame(), [0.0])
    with pytest.raises(ValueError, match="stop must be one of"):
        line_search(bp, [0.0, 1.0], stop="best")
    with pytest.raises(ValueError, match="max_step"):
        line_search(bp, [0.0, 1.0], max_step=-1.0)
    with pytest.raises(ValueError, match="X has 3 rows"):
        line_search_linear(bp, np.ones((3, 1)), [1.0])
    with pytest.raises(ValueError, match="weights has length 2"):
        line_search_linear(bp, np.ones((2, 1)), [1.0, 2.0])


@pytest.mark.parametrize("zero", ["fp", "fn"])
def test_zero_totals(zero):
    fp = [0.0, 0.0] if zero == "fp" else [1.0, 0.0]
    fn = [0.0, 0.0] if zero == "fn" else [0.0, -1.0]
    with pytest.raises(ValueError, match=f"max {zero.upper()} should be positive"):
        line_search_lines([0.0, 1.0], [1.0, -1.0], fp, fn)


# --------------------------------------------------------------------------------------
# stopping rules, linear models, grid search
# --------------------------------------------------------------------------------------


def _random_binary(n, seed, p=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = (X[:, 0] + rng.standard_normal(n) > 0).astype(int)
    return X, y, rng.standard_normal(p)


def test_stop_rules_are_prefixes_of_the_full_path():
    X, y, w = _random_binary(40, 1)
    bp = breakpoints_from_labels(y)
    full = line_search_linear(bp, X, w, stop="all")
    assert full.exhausted and full.path["q_size"].iloc[-1] == 0
    for stop in ["first_min", "max_auc", "linear", 7, 0]:
        res = line_search_linear(bp, X, w, stop=stop, method="sequential")
        k = len(res.path)
        pd.testing.assert_frame_equal(res.path, full.path.iloc[:k])
        if stop == "linear":
            assert k == min(len(bp), len(full.path) - 1) + 1
        if isinstance(stop, int):
            assert k == stop + 1
    first = line_search_linear(bp, X, w, stop="first_min", method="sequential")
    p = full.path
    i = int(np.argmin(p["aum"]))
    assert first.aum == pytest.approx(p["aum"][i], rel=1e-12)
    assert p["step_size"][i] <= first.step_size
    capped = line_search_linear(bp, X, w, stop="all", max_iterations=5)
    assert len(capped.path) == 6


def test_max_step():
    X, y, w = _random_binary(30, 2)
    bp = breakpoints_from_labels(y)
    full = line_search_linear(bp, X, w, stop="all")
    s = full.path["step_size"]
    cut = float(s.iloc[len(s) // 2])
    for ms in [cut, np.nextafter(cut, 0)]:
        res = line_search_linear(bp, X, w, stop="all", max_step=ms)
        last = res.path["step_size"].iloc[-1]
        assert last >= ms
        assert (res.path["step_size"].iloc[:-1] < ms).all()


def test_line_search_linear_matches_line_search():
    X, y, w = _random_binary(25, 3)
    bp = breakpoints_from_labels(y, normalize="rate")
    scores = X @ w
    res = line_search_linear(bp, X, w, stop="all")
    d = res.direction
    deriv = aum(bp, scores).derivatives
    np.testing.assert_allclose(d, -X.T @ deriv.mean(axis=1), rtol=1e-12)
    other = line_search(bp, scores, X @ d, stop="all")
    pd.testing.assert_frame_equal(res.path, other.path)
    given = line_search_linear(bp, X, w, direction=d, stop="all")
    pd.testing.assert_frame_equal(res.path, given.path)


def test_validation_same_set_repeats_the_columns():
    X, y, w = _random_binary(30, 4)
    bp = breakpoints_from_labels(y)
    res = line_search_linear(bp, X, w, stop="all", validation=(bp, X))
    p = res.path
    np.testing.assert_allclose(p["validation_aum"], p["aum"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(p["validation_auc"], p["auc"], rtol=1e-12)
    np.testing.assert_allclose(p["validation_auc_after"], p["auc_after"], rtol=1e-12)
    best = res.best_validation()
    assert best["validation_auc_after"] == p["validation_auc_after"].max()
    with pytest.raises(ValueError, match="without validation"):
        line_search_linear(bp, X, w, stop=2).best_validation()


def test_validation_other_set_matches_grid_search():
    X, y, w = _random_binary(30, 5)
    Xv, yv, _ = _random_binary(20, 6)
    bp, bpv = breakpoints_from_labels(y), breakpoints_from_labels(yv)
    res = line_search_linear(bp, X, w, stop="all", validation=(bpv, Xv))
    p = res.path
    d = res.direction
    steps = p["step_size"].to_numpy()
    # the validation set's own events can lie between the main events: compare AUM
    # (continuous, piecewise linear) at the steps themselves, and AUC right after a step
    g0 = grid_search(bpv, Xv @ w, Xv @ d, step_sizes=steps)
    np.testing.assert_allclose(p["validation_aum"], g0["aum"], rtol=1e-9, atol=1e-9)
    eps_steps = steps * (1 + 1e-9) + 1e-300
    g1 = grid_search(bpv, Xv @ w, Xv @ d, step_sizes=eps_steps)
    np.testing.assert_allclose(p["validation_auc_after"], g1["auc"], rtol=1e-12)


def test_grid_search_matches_brute_force_and_path():
    X, y, w = _random_binary(30, 7)
    bp = breakpoints_from_labels(y, normalize="rate")
    scores = X @ w
    slopes = X @ rng_direction(X.shape[1])
    g = grid_search(bp, scores, slopes)
    assert g["step_size"].tolist() == (10.0 ** np.arange(-9, 1)).tolist()
    for s, a in zip(g["step_size"], g["aum"]):
        assert a == pytest.approx(aum(bp, scores + s * slopes).aum, rel=1e-12, abs=1e-15)
    res = line_search(bp, scores, slopes, stop="all")
    p = res.path
    for s, a, auc in zip(g["step_size"], g["aum"], g["auc"]):
        r = int(np.searchsorted(p["step_size"], s, side="right")) - 1
        assert a == pytest.approx(
            p["aum"][r] + p["aum_slope_after"][r] * (s - p["step_size"][r]), rel=1e-9, abs=1e-12
        )
        expect = p["auc"][r] if p["step_size"][r] == s else p["auc_after"][r]
        assert auc == pytest.approx(expect, rel=1e-12)


def rng_direction(p):
    return np.random.default_rng(11).standard_normal(p)


def test_grid_search_ties_give_a_diagonal():
    bp = breakpoints_from_labels([0, 1])
    g = grid_search(bp, [1.0, -1.0], [-1.0, 1.0], step_sizes=[0.0, 1.0, 2.0])
    assert g["auc"].tolist() == [0.0, 0.5, 1.0]
    assert g["aum"].tolist() == [2.0, 0.0, 0.0]


def test_result_type_and_chosen_values():
    res = line_search(breakpoints_from_labels([0, 1]), [10.0, -10.0])
    assert isinstance(res, LineSearchResult)
    assert res.path.columns.tolist() == OUR_COLS
    assert (res.step_size, res.aum) == (10.0, 0.0)
    # at the crossing the two thresholds tie: the ROC is the diagonal
    assert res.auc == 0.5
    assert res.method == "bracket" and res.iterations == 0
    seq = line_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], method="sequential")
    assert seq.method == "sequential" and seq.iterations == 1
    assert (seq.step_size, seq.aum, seq.auc) == (res.step_size, res.aum, res.auc)
    with pytest.raises(ValueError, match="method='bracket' needs"):
        line_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], stop="all", method="bracket")
    with pytest.raises(ValueError, match="method must be"):
        line_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], method="fast")
    assert not math.isnan(res.auc)


# --------------------------------------------------------------------------------------
# the batched engine (stop="linear"/"all"/int on many lines) equals the sequential one
# --------------------------------------------------------------------------------------


@pytest.fixture
def force_batch(monkeypatch):
    import sys

    monkeypatch.setattr(sys.modules["penlearn.line_search.search"], "BATCH_MIN_LINES", 2)


def _count_runs():
    """Runs with an integer maxIterations and no maxStepSize (the batched engine's)."""
    out = []
    for p in _runs():
        name, i = p.values
        run = load_reference_json(f"aum/{name}.json")["line_search"]["runs"][i]
        if isinstance(run["maxIterations"], int) and run["maxStepSize"] <= 0:
            out.append(p)
    return out


@pytest.mark.parametrize("name,i", _count_runs())
def test_reference_run_batched(name, i, force_batch):
    d = load_reference_json(f"aum/{name}.json")
    run = d["line_search"]["runs"][i]
    ref = pd.DataFrame(run["line_search_result"])
    res = line_search_lines(*_lines(d), stop=_stop_of(run))
    _assert_frame_close(res.path, ref)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("stop", ["linear", "all", 57])
def test_batched_equals_sequential(stop, ties, monkeypatch):
    import sys

    mod = sys.modules["penlearn.line_search.search"]
    X, y, w = _random_binary(300, 8)
    if ties:  # integer scores and slopes: many multi-way ties, the batch hands over early
        X = np.round(X)
        w = np.round(w * 2)
    bp = breakpoints_from_labels(y)
    args = (bp, X, w, np.array([1.0, -1.0, 0.5]))
    monkeypatch.setattr(mod, "BATCH_MIN_LINES", 10**9)
    seq = line_search_linear(*args, stop=stop)
    monkeypatch.setattr(mod, "BATCH_MIN_LINES", 2)
    bat = line_search_linear(*args, stop=stop)
    assert len(seq.path) == len(bat.path) > 50
    pd.testing.assert_frame_equal(seq.path, bat.path, check_exact=False, rtol=1e-12)
    assert (seq.step_size, seq.aum) == pytest.approx((bat.step_size, bat.aum), rel=1e-12)
    assert seq.exhausted == bat.exhausted
    assert (bat.path["intervals"] > 1).any() == ties


def test_batched_with_validation(force_batch):
    X, y, w = _random_binary(200, 9)
    bp = breakpoints_from_labels(y)
    res = line_search_linear(bp, X, w, stop="linear", validation=(bp, X))
    p = res.path
    assert len(p) == len(bp) + 1
    np.testing.assert_allclose(p["validation_aum"], p["aum"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(p["validation_auc_after"], p["auc_after"], rtol=1e-12)


def test_grid_values_aum_only_equals_full():
    """The grid descent's AUM-only evaluation (plain sort) equals the full one, ties too."""
    from penlearn.line_search.grid import grid_values

    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(2, 60))
        ic = rng.integers(-3, 4, n).astype(float)  # many tied thresholds
        sl = rng.integers(-2, 3, n).astype(float)
        fp = rng.integers(0, 3, n).astype(float)
        fn = -rng.integers(0, 3, n).astype(float)
        fp[0], fn[-1] = 1.0, -1.0
        s = np.array([0.0, 0.25, 0.5, 1.0, 3.0])
        full, auc = grid_values(ic, sl, fp, fn, s)
        only, none = grid_values(ic, sl, fp, fn, s, with_auc=False)
        assert none is None and auc is not None
        np.testing.assert_allclose(only, full, rtol=1e-12, atol=1e-12)
