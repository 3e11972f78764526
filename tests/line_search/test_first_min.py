"""The bracketing first-min line search (``penlearn.first_min``).

Checked against (1) an exact brute force in rational arithmetic that applies the
reference's sequential "min.aum" rule event by event, (2) the sequential event engine
``penlearn.line_search.line_search_lines(stop="first_min", method="sequential")``, and
(3) the R package ``aum`` (every monotone case in ``reference/aum`` and the recorded
first-min steps of the timing benchmark).
"""

from __future__ import annotations

import csv
import glob
import importlib
import inspect
import json
import os
from fractions import Fraction as Fr

import numpy as np
import pytest
from conftest import REFERENCE, load_reference_json, need
from hypothesis import example, given, settings
from hypothesis import strategies as st

from penlearn import aum, breakpoints_from_labels
from penlearn.breakpoints import Breakpoints
from penlearn.datasets import binary_timing_problem
from penlearn.line_search import FirstMinResult, first_min_monotone
from penlearn.line_search.first_min import AUM_ZERO

# ----------------------------------------------------------------------------- oracles


def _aum_exact(a, d, fp, fn, s: Fr) -> Fr:
    """AUM at step s in exact rational arithmetic (one sort)."""
    t = [Fr(ai) + Fr(di) * s for ai, di in zip(a, d)]
    order = sorted(range(len(a)), key=lambda i: t[i])
    fp_c, fn_c, total = Fr(0), -sum(Fr(x) for x in fn), Fr(0)
    for k in range(len(order) - 1):
        i = order[k]
        fp_c += Fr(fp[i])
        fn_c += Fr(fn[i])
        total += min(fp_c, fn_c) * (t[order[k + 1]] - t[i])
    return total


def brute_first_min(a, d, fp, fn):
    """The reference "min.aum" rule applied to every event, exactly.

    Events are the distinct positive step sizes where two lines cross. Track the first
    strict minimum of AUM; stop at the first event where AUM > min, AUM < 1e-6 or no
    more events; step = (big + first_min_step)/2 with big = the previous event when
    AUM > min, else this event (reference README, "min.aum").
    """
    n = len(a)
    events = sorted(
        {
            Fr(Fr(a[j]) - Fr(a[i])) / (Fr(d[i]) - Fr(d[j]))
            for i in range(n)
            for j in range(i + 1, n)
            if d[i] != d[j]
        }
        - {Fr(0)}
    )
    events = [e for e in events if e > 0]
    best, best_step, prev = _aum_exact(a, d, fp, fn, Fr(0)), Fr(0), Fr(0)
    for k, e in enumerate(events):
        v = _aum_exact(a, d, fp, fn, e)
        if v < best:
            best, best_step = v, e
        if v > best:
            return float((prev + best_step) / 2), float(best)
        if v < Fr(AUM_ZERO) or k == len(events) - 1:
            return float((e + best_step) / 2), float(best)
        prev = e
    return 0.0, float(best)


def sequential_first_min(a, d, fp, fn):
    """The event-by-event engine of ``penlearn.line_search``."""
    from penlearn.line_search import line_search_lines

    kw = {}
    if "method" in inspect.signature(line_search_lines).parameters:
        kw["method"] = "sequential"
    r = line_search_lines(a, d, fp, fn, stop="first_min", **kw)
    return r.step_size, r.aum


def _check(got: FirstMinResult, step, aum_value, rtol=1e-12, atol_aum=1e-9):
    assert got.step_size == pytest.approx(step, rel=rtol, abs=1e-300), (got, step)
    scale = max(1.0, abs(aum_value))
    assert abs(got.aum - aum_value) <= atol_aum * scale, (got, aum_value)


# ----------------------------------------------------------------------------- strategies


@st.composite
def small_lines(draw, max_lines=7):
    """Integer line tables: many ties, parallel lines, multi-way intersections, flat pieces."""
    n = draw(st.integers(1, max_lines))
    a = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
    d = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    fp = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    fn = draw(st.lists(st.integers(-2, 0), min_size=n, max_size=n))
    if sum(fp) == 0:
        fp[0] = 1
    if sum(fn) == 0:
        fn[-1] = -1
    return [np.array(x, float) for x in (a, d, fp, fn)]


# regressions: flat minima that go on past the first bracket, flat to the last event,
# ascent directions, a minimum at a three-way tie
REGRESSIONS = [
    ([0, 0, -2, -4, 1, -4, 4], [-1, 2, -2, -3, -3, 3, -1], [1, 0, 0, 0, 0, 2, 0],
     [-2, 0, -2, -1, -2, 0, -1]),
    ([-2, 4, -3, -1], [3, -2, 2, 3], [2, 0, 0, 2], [0, -1, -2, -1]),
    ([-4, -2, 1, -4], [-3, -1, -3, 3], [1, 0, 1, 2], [0, -1, -1, -1]),
    ([-1, 4, -4], [-3, -3, 1], [1, 1, 1], [0, -1, 0]),
    ([0, 2, 1, 4, 0, -3, -4], [-2, 0, -3, -3, -3, -3, -1], [1, 0, 0, 1, 1, 1, 2],
     [0, 0, 0, -2, -2, -1, 0]),
    ([4, -3, 1, 2, -2, -2, -2], [-2, 3, -2, -2, -3, -3, 2], [0, 2, 1, 2, 1, 2, 2],
     [0, -1, -1, 0, -1, -1, -1]),
    ([0.0, 1.0], [-1.0, 1.0], [1.0, 0.0], [0.0, -1.0]),
    ([-1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, -1.0]),
]  # fmt: skip


@pytest.mark.parametrize("case", range(len(REGRESSIONS)))
@pytest.mark.parametrize("kmax", [1, 1000])
def test_regressions_match_brute_force(case, kmax):
    a, d, fp, fn = (np.array(x, float) for x in REGRESSIONS[case])
    got = first_min_monotone(a, d, fp, fn, kmax=kmax)
    _check(got, *brute_first_min(a, d, fp, fn))
    _check(got, *sequential_first_min(a, d, fp, fn))


@settings(max_examples=250, deadline=None)
@given(small_lines(), st.sampled_from([1, 2, 1000]))
@example([np.array(x, float) for x in REGRESSIONS[0]], 1)
def test_matches_exact_brute_force(lines, kmax):
    got = first_min_monotone(*lines, kmax=kmax)
    _check(got, *brute_first_min(*lines))
    assert got.method == "bracket"


@settings(max_examples=150, deadline=None)
@given(small_lines(), st.sampled_from([1, 1000]))
def test_matches_sequential_engine_small(lines, kmax):
    got = first_min_monotone(*lines, kmax=kmax)
    _check(got, *sequential_first_min(*lines))


@st.composite
def descent_lines(draw):
    """Lines of random monotone breakpoints along the negative AUM gradient (real use)."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 60))
    kind = draw(st.sampled_from(["binary", "binary_rate", "penalty", "penalty_int"]))
    if kind.startswith("binary"):
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        bp = breakpoints_from_labels(y, normalize="rate" if kind == "binary_rate" else "count")
    else:
        ex, v, fpd, fnd = [], [], [], []
        for i in range(n):
            k = int(rng.integers(1, 4))
            if kind == "penalty_int":
                vals = np.sort(rng.integers(-2, 3, k)).astype(float)
            else:
                vals = np.sort(rng.standard_normal(k))
            for j in range(k):
                ex.append(i)
                v.append(vals[j])
                if (i + j) % 2:
                    fpd.append(float(rng.integers(1, 3)))
                    fnd.append(0.0)
                else:
                    fpd.append(0.0)
                    fnd.append(-float(rng.integers(1, 3)))
        bp = Breakpoints(ex, v, fpd, fnd, n_examples=n)
    if draw(st.booleans()):
        scores = rng.integers(-2, 3, n).astype(float)  # ties at step 0
    else:
        scores = rng.standard_normal(n)
    deriv = aum(bp, scores).derivatives
    direction = -(deriv[:, 0] + deriv[:, 1]) / 2
    ex = bp.example
    return [bp.value - scores[ex], -direction[ex], bp.fp_diff, bp.fn_diff]


@settings(max_examples=60, deadline=None)
@given(descent_lines(), st.sampled_from([1, 4, 1000]))
def test_matches_sequential_engine_descent(lines, kmax):
    got = first_min_monotone(*lines, kmax=kmax)
    _check(got, *sequential_first_min(*lines), atol_aum=1e-8)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kmax", [1, 4, 1000])
def test_matches_sequential_engine_larger(seed, kmax):
    """A few hundred lines: long sweeps (queue refills), back-offs, restarts of the bracket."""
    rng = np.random.default_rng(1000 + seed)
    n = 250
    if seed % 2:
        y = rng.integers(0, 2, n)
        bp = breakpoints_from_labels(y, normalize="rate" if seed % 4 == 1 else "count")
    else:
        k = rng.integers(1, 4, n)
        ex = np.repeat(np.arange(n), k)
        v = rng.standard_normal(len(ex)) if seed % 3 else rng.integers(-3, 4, len(ex)) * 1.0
        is_fp = rng.random(len(ex)) < 0.5
        size = rng.integers(1, 3, len(ex)).astype(float)
        bp = Breakpoints(ex, v, np.where(is_fp, size, 0.0), np.where(is_fp, 0.0, -size), n)
    scores = rng.standard_normal(n) if seed % 3 else rng.integers(-2, 3, n).astype(float)
    deriv = aum(bp, scores).derivatives
    ex = bp.example
    lines = [bp.value - scores[ex], ((deriv[:, 0] + deriv[:, 1]) / 2)[ex], bp.fp_diff, bp.fn_diff]
    got = first_min_monotone(*lines, kmax=kmax)
    _check(got, *sequential_first_min(*lines), atol_aum=1e-8)


# ----------------------------------------------------------------------------- R reference


def _monotone_cases():
    """Reference line-search cases whose error functions are monotone (cheap scan)."""
    names = []
    for path in sorted(glob.glob(str(REFERENCE / "aum" / "*.json"))):
        with open(path) as fh:
            case = json.load(fh)
        if case.get("kind") == "raw_line_search":
            lsi = case["inputs"]["line_search_input"]
        elif case.get("kind") == "aum_line_search":
            lsi = case["line_search"]["line_search_input"]
        else:
            continue
        if min(lsi["fp.diff"], default=0) >= 0 and max(lsi["fn.diff"], default=0) <= 0:
            names.append(os.path.basename(path))
    return names


MONOTONE_CASES = _monotone_cases()


def _reference_case(name):
    case = load_reference_json(f"aum/{name}")
    if case.get("kind") == "raw_line_search":
        lsi, runs = case["inputs"]["line_search_input"], case["line_search"]["runs"]
    elif case.get("kind") == "aum_line_search":
        lsi, runs = case["line_search"]["line_search_input"], case["line_search"]["runs"]
    else:  # MONOTONE_CASES holds line-search cases only
        pytest.fail(f"{name}: not a line-search case")
    lines = [np.asarray(lsi[k], float) for k in ("intercept", "slope", "fp.diff", "fn.diff")]
    assert not (np.any(lines[2] < 0) or np.any(lines[3] > 0)), f"{name}: non-monotone"
    runs = [r for r in runs if r["maxIterations"] == "min.aum"]
    assert runs, f"{name}: no min.aum run"
    return lines, runs[0]["line_search_result"]


@pytest.mark.parametrize("name", MONOTONE_CASES)
def test_reference_min_aum(name):
    lines, res = _reference_case(name)
    got = first_min_monotone(*lines)
    want_step, want_aum = res["step.size"][0], res["aum"][0]
    assert got.step_size == pytest.approx(want_step, rel=1e-12, abs=0), got
    # the reference accumulates AUM event by event: rounding of order 1e-15 · events
    # (measured: at most 4.4e-15 relative on these cases)
    assert abs(got.aum - want_aum) <= 1e-12 * max(1.0, abs(want_aum)), got
    _check(got, *sequential_first_min(*lines), atol_aum=1e-12)


def test_reference_has_monotone_cases():
    need(REFERENCE / "aum")
    for name in MONOTONE_CASES:
        _reference_case(name)
    assert len(MONOTONE_CASES) >= 20


def _timing_lines(n, p=10):
    """The timing generator of ``reference/aum/README.md`` and R's line-search input."""
    X, labels, w, _ = binary_timing_problem(n, p)
    pred = X @ w
    bp = breakpoints_from_labels(labels)
    grad_pred = aum(bp, pred).derivatives.mean(axis=1)
    slope = X @ (X.T @ grad_pred)
    ex = bp.example
    return bp.value - pred[ex], slope[ex], bp.fp_diff, bp.fn_diff


@pytest.mark.parametrize("n", [1000, 10000])
def test_timing_case_equals_reference(n):
    path = need(REFERENCE / "aum" / "timings.csv")
    with open(path) as fh:
        rows = [
            r
            for r in csv.DictReader(fh)
            if r["mode"] == "min.aum" and r["weight"] == "w" and int(r["n"]) == n
        ]
    assert rows, f"no min.aum row for n={n}"
    got = first_min_monotone(*_timing_lines(n))
    # inputs rebuilt in numpy differ from R's by ~1e-15: same event, same step
    assert got.step_size == pytest.approx(float(rows[0]["step_size"]), rel=1e-12)
    assert got.aum == pytest.approx(float(rows[0]["aum"]), rel=1e-10)
    assert got.n_sorts <= 40, got  # O(log) sorts, against 0.25·n² events sequentially
    assert got.n_events <= 2 * max(32, n // 200) + 10


# ----------------------------------------------------------------------------- misc


def test_result_fields_and_ascent():
    # P (fn) between two N (fp) lines and moving up through the upper one: AUM grows
    r = first_min_monotone([-10.0, 0.0, 1.0], [0.0, 1.0, -1.0], [1, 0, 1], [0, -1, 0])
    assert r == (0.0, 10.0, r.n_sorts, 0, "ascent", (0.0, 0.0), "bracket")
    assert r.n_sorts == 1
    r = first_min_monotone([-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [0.0, -1.0])
    assert (r.step_size, r.aum, r.reason) == (1.0, 0.0, "zero")


def test_no_events_returns_step_zero():
    # parallel or diverging lines never cross: the reference returns row 0
    r = first_min_monotone([0.0, 1.0, 2.0], [1.0, 1.0, 1.0], [1, 0, 1], [0, -1, 0])
    assert (r.step_size, r.aum, r.reason) == (0.0, 1.0, "no_events")
    r = first_min_monotone([0.0, 2.0, 4.0], [-1.0, 0.0, 1.0], [0, 1, 0], [-1, 0, -1])
    assert (r.step_size, r.aum, r.reason) == (0.0, 2.0, "no_events")


@pytest.mark.parametrize(
    "bad, msg",
    [
        (([0, 1], [1, -1], [1, -1], [0, -1]), "fp_diff must be >= 0"),
        (([0, 1], [1, -1], [1, 0], [0, 1]), "fn_diff must be <= 0"),
        (([0, 1], [1], [1, 0], [0, -1]), "slope has length 1"),
        (([0, np.nan], [1, -1], [1, 0], [0, -1]), "intercept must be finite"),
        (([], [], [], []), "intercept is empty"),
    ],
)
def test_bad_input(bad, msg):
    with pytest.raises(ValueError, match=msg):
        first_min_monotone(*bad)


def test_bad_type():
    with pytest.raises(TypeError, match="intercept"):
        first_min_monotone(["a", "b"], [1, 2], [1, 0], [0, -1])


def test_line_search_dispatches_to_bracket():
    ls_mod = importlib.import_module("penlearn.line_search")

    assert "method" in inspect.signature(ls_mod.line_search).parameters
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    bp = breakpoints_from_labels(y)
    scores = rng.standard_normal(60)
    auto = ls_mod.line_search(bp, scores)
    seq = ls_mod.line_search(bp, scores, method="sequential")
    assert auto.method == "bracket"
    assert seq.method == "sequential"
    assert auto.step_size == pytest.approx(seq.step_size, rel=1e-12)
    assert auto.aum == pytest.approx(seq.aum, rel=1e-9, abs=1e-9)
