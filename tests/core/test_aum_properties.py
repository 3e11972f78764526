"""Property tests: aum(), its derivatives and breakpoints_auc() against brute force.

Coordinates are small dyadic numbers so that ties (equal thresholds, several
breakpoints of one example) happen often and every computation is exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import penlearn as pl
from penlearn.roc import path_auc

dyadic = st.integers(-8, 8).map(lambda k: k / 4.0)


@st.composite
def problems(draw, monotone=False):
    n = draw(st.integers(1, 5))
    B = draw(st.integers(1, 10))
    example = draw(st.lists(st.integers(0, n - 1), min_size=B, max_size=B))
    value = draw(st.lists(dyadic, min_size=B, max_size=B))
    if monotone:
        fp = draw(st.lists(st.integers(0, 3), min_size=B, max_size=B))
        fn = draw(st.lists(st.integers(-3, 0), min_size=B, max_size=B))
    else:
        fp = draw(st.lists(st.integers(-2, 3), min_size=B, max_size=B))
        fn = draw(st.lists(st.integers(-3, 2), min_size=B, max_size=B))
    scores = draw(st.lists(dyadic, min_size=n, max_size=n))
    return (np.array(example), np.array(value), np.array(fp, float), np.array(fn, float),
            n, np.array(scores))


def brute_curves(bp: pl.Breakpoints, scores: np.ndarray):
    """FP, FN on every interval between distinct thresholds, by direct summation."""
    t = bp.value - scores[bp.example]
    cuts = np.unique(t)
    mids = np.r_[cuts[0] - 1, (cuts[:-1] + cuts[1:]) / 2, cuts[-1] + 1]
    fp = np.array([bp.fp_diff[t < c].sum() for c in mids])
    fn = np.array([-bp.fn_diff[t >= c].sum() for c in mids])
    return cuts, fp, fn


def brute_aum(bp, scores):
    cuts, fp, fn = brute_curves(bp, scores)
    return float(np.sum(np.minimum(fp, fn)[1:-1] * np.diff(cuts)))


def valid(bp, scores) -> bool:
    _, fp, fn = brute_curves(bp, scores)
    return bool(fp.min() >= 0 and fn.min() >= 0)


@settings(max_examples=300, deadline=None)
@given(problems())
def test_aum_equals_brute_force(prob):
    ex, v, fp, fn, n, s = prob
    bp = pl.Breakpoints(ex, v, fp, fn, n_examples=n)
    if not valid(bp, s):
        with pytest.raises(ValueError, match="should be non-negative"):
            pl.aum(bp, s)
        return
    assert pl.aum(bp, s).aum == pytest.approx(brute_aum(bp, s), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.booleans().flatmap(lambda monotone: problems(monotone=monotone)))
def test_derivatives_equal_one_sided_differences(prob):
    ex, v, fp, fn, n, s = prob
    bp = pl.Breakpoints(ex, v, fp, fn, n_examples=n)
    # only about a third of the non-monotone draws give non-negative FP/FN: mix in
    # monotone ones and reject (not silently pass) the invalid rest
    assume(valid(bp, s))
    res = pl.aum(bp, s)
    h = 2.0**-6  # smaller than any gap between distinct thresholds (multiples of 1/4)
    for i in range(n):
        e = np.zeros(n)
        e[i] = h
        right = (brute_aum(bp, s + e) - brute_aum(bp, s)) / h if valid(bp, s + e) else None
        left = (brute_aum(bp, s) - brute_aum(bp, s - e)) / h if valid(bp, s - e) else None
        if right is not None:
            assert res.derivatives[i, 1] == pytest.approx(right, abs=1e-9)
        if left is not None:
            assert res.derivatives[i, 0] == pytest.approx(left, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(problems())
def test_auc_equals_trapezoid_of_brute_force_roc(prob):
    ex, v, fp, fn, n, s = prob
    bp = pl.Breakpoints(ex, v, fp, fn, n_examples=n)
    if not (bp.fp_total > 0 and bp.fn_total > 0):
        with pytest.raises(ValueError, match="positive total"):
            pl.breakpoints_auc(bp, s)
        return
    _, fpc, fnc = brute_curves(bp, s)
    x = fpc / bp.fp_total
    y = 1 - fnc / bp.fn_total
    expected = float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2))
    # brute path starts at (0, 0) and ends at (1, 1) by construction
    assert x[0] == 0 and y[0] == 0 and x[-1] == pytest.approx(1) and y[-1] == pytest.approx(1)
    assert pl.breakpoints_auc(bp, s) == pytest.approx(expected, abs=1e-12)
    assert path_auc(x, y) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(problems(monotone=True))
def test_monotone_auc_in_unit_interval(prob):
    ex, v, fp, fn, n, s = prob
    bp = pl.Breakpoints(ex, v, fp, fn, n_examples=n)
    assume(bp.fp_total > 0 and bp.fn_total > 0)  # about a quarter of the draws
    assert -1e-12 <= pl.breakpoints_auc(bp, s) <= 1 + 1e-12


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=2, max_size=30), st.data())
def test_binary_auc_is_mann_whitney(labels, data):
    y = np.array(labels)
    assume(y.min() < y.max())
    s = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=len(y), max_size=len(y))),
                 float)
    pos, neg = s[y == 1], s[y == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    assert pl.breakpoints_auc(pl.breakpoints_from_labels(y), s) == pytest.approx(
        wins / (len(pos) * len(neg)), abs=1e-12)
