"""Binary ROC metrics against brute force and against scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sklearn.metrics as sk_metrics  # a declared test dependency: no skip
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.binary.metrics import (
    binary_roc,
    check_binary_labels,
    partial_auc,
    roc_auc,
    soft_auc,
)


def brute_auc(y, s):
    """Wilcoxon–Mann–Whitney over all pairs, ties count ½ (papers/002, Section 2)."""
    y, s = np.asarray(y), np.asarray(s, float)
    sp, sn = s[y == 1], s[y != 1]
    d = sp[:, None] - sn[None, :]
    return float(((d > 0) + 0.5 * (d == 0)).mean())


def brute_pauc_eq2(y, s, beta):
    """papers/004 eq. (2) (no ties, n⁻β integer), times β to give the raw area."""
    y, s = np.asarray(y), np.asarray(s, float)
    sp, sn = s[y == 1], np.sort(s[y != 1])[::-1]
    j = round(len(sn) * beta)
    return float((sp[:, None] > sn[None, :j]).mean()) * beta


def brute_pauc_curve(y, s, lo, hi, grid=200001):
    """Area by thresholding at every score (O(n²)) and integrating on a fine FPR grid."""
    y, s = np.asarray(y), np.asarray(s, float)
    pos = y == 1
    ts = np.r_[np.inf, np.unique(s)[::-1]]
    fpr = np.array([(s[~pos] >= t).mean() for t in ts])
    tpr = np.array([(s[pos] >= t).mean() for t in ts])
    # a vertical step (positives-only tie group) puts several points at one FPR:
    # arrive at an FPR by its first point and leave it from its last
    xs, first = np.unique(fpr, return_index=True)
    last = np.r_[first[1:] - 1, len(fpr) - 1]
    u = np.linspace(lo, hi, grid)
    k = np.clip(np.searchsorted(xs, u, side="right") - 1, 0, len(xs) - 2)
    x0, x1 = xs[k], xs[k + 1]
    y0, y1 = tpr[last[k]], tpr[first[k + 1]]
    f = y0 + (y1 - y0) * (u - x0) / (x1 - x0)
    return float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(u)))


labels_scores = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda v: 0 < sum(v) < n),
        st.lists(st.integers(-4, 4), min_size=n, max_size=n),  # small ints: many ties
    )
)


@settings(max_examples=80, deadline=None)
@given(labels_scores)
def test_auc_equals_mann_whitney_with_ties(ys):
    y, s = ys
    assert roc_auc(y, s) == pytest.approx(brute_auc(y, s), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(labels_scores)
def test_auc_equals_sklearn(ys):
    y, s = ys
    assert roc_auc(y, s) == pytest.approx(sk_metrics.roc_auc_score(y, s), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(labels_scores, st.floats(0.0, 0.9), st.floats(0.05, 1.0))
def test_partial_auc_additive_and_bounded(ys, a, width):
    y, s = ys
    b = min(1.0, a + width)
    mid = 0.5 * (a + b)
    whole = partial_auc(y, s, a, b)
    assert whole == pytest.approx(partial_auc(y, s, a, mid) + partial_auc(y, s, mid, b),
                                  abs=1e-12)
    assert -1e-12 <= whole <= (b - a) + 1e-12
    assert partial_auc(y, s, a, b, normalize=True) == pytest.approx(whole / (b - a))
    assert partial_auc(y, s, 0.0, 1.0) == pytest.approx(roc_auc(y, s), abs=1e-12)


def test_partial_auc_matches_eq2_without_ties():
    rng = np.random.default_rng(0)
    for n_neg, beta in [(50, 0.1), (40, 0.25), (20, 0.05), (30, 1.0)]:
        y = np.r_[np.zeros(n_neg, int), np.ones(17, int)]
        s = rng.normal(size=len(y)) + y
        assert partial_auc(y, s, 0.0, beta) == pytest.approx(brute_pauc_eq2(y, s, beta),
                                                             abs=1e-12)


@pytest.mark.parametrize("lo,hi", [(0.0, 0.1), (0.05, 0.3), (0.33, 0.71), (0.0, 1.0)])
def test_partial_auc_matches_curve_brute_force_with_ties(lo, hi):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 60)
    s = rng.integers(0, 6, 60).astype(float)  # heavy ties: diagonal segments
    assert partial_auc(y, s, lo, hi) == pytest.approx(brute_pauc_curve(y, s, lo, hi),
                                                      abs=1e-8)


@pytest.mark.parametrize("max_fpr", [0.05, 0.1, 0.3, 0.77])
def test_partial_auc_agrees_with_sklearn_mcclish(max_fpr):
    """sklearn reports McClish's standardisation; undo it and compare the raw area."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300) + 0.8 * y, 1)  # some ties
    std = sk_metrics.roc_auc_score(y, s, max_fpr=max_fpr)
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    raw = min_area + (2 * std - 1) * (max_area - min_area)
    assert partial_auc(y, s, 0.0, max_fpr) == pytest.approx(raw, abs=1e-10)


def test_roc_curve_points_and_labels_minus_one():
    y = np.array([-1, 1, -1, 1, 1])
    s = np.array([0.2, 0.9, 0.9, 0.1, 0.5])
    r = binary_roc(y, s)
    assert r.fpr.tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert np.allclose(r.tpr, [0, 1 / 3, 2 / 3, 2 / 3, 1])
    assert r.thresholds.tolist() == [math.inf, 0.9, 0.5, 0.2, 0.1]
    assert roc_auc(y, s) == pytest.approx(brute_auc((y == 1).astype(int), s))


def test_perfect_and_reversed_and_constant():
    y = [0, 0, 1, 1]
    assert roc_auc(y, [0, 1, 2, 3]) == 1.0
    assert roc_auc(y, [3, 2, 1, 0]) == 0.0
    assert roc_auc(y, [1, 1, 1, 1]) == 0.5
    assert partial_auc(y, [0, 1, 2, 3], 0, 0.2, normalize=True) == pytest.approx(1.0)
    # constant scores: the diagonal, area β²/2 on [0, β]
    assert partial_auc(y, [1, 1, 1, 1], 0, 0.2) == pytest.approx(0.02)


def test_soft_auc_brute_force_and_limit():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 80)
    s = rng.normal(size=80) + y
    sp, sn = s[y == 1], s[y == 0]
    d = sp[:, None] - sn[None, :]
    for beta in (0.5, 3.0):
        expected = float(np.mean(1 / (1 + np.exp(-beta * d))))
        assert soft_auc(y, s, beta, chunk=7) == pytest.approx(expected, rel=1e-12)
    assert soft_auc(y, s, 1e6) == pytest.approx(roc_auc(y, s), abs=1e-6)


@pytest.mark.parametrize(
    "y,s,match",
    [
        ([1, 1, 1], [0.1, 0.2, 0.3], "only one class"),
        ([0, 0], [0.1, 0.2], "only one class"),
        ([0, 2, 1], [0.1, 0.2, 0.3], r"labels in \{0, 1\}"),
        ([0, float("nan"), 1], [0.1, 0.2, 0.3], "NaN"),
        ([0, 1, 1], [0.1, float("nan"), 0.3], "scores must be finite; element 1"),
        ([0, 1, 1], [0.1, float("inf"), 0.3], "scores must be finite"),
        ([0, 1, 1], [0.1, 0.3], r"length 2, expected 3 \(the length of y\)"),
        ([], [], "non-empty"),
    ],
)
def test_bad_input_errors(y, s, match):
    with pytest.raises(ValueError, match=match):
        roc_auc(y, s)


def test_bad_fpr_range():
    y, s = [0, 1], [0.0, 1.0]
    with pytest.raises(ValueError, match="fpr_min < fpr_max"):
        partial_auc(y, s, 0.3, 0.3)
    with pytest.raises(ValueError, match=r"fpr_max must be in \[0, 1\]"):
        partial_auc(y, s, 0.0, 1.5)
    with pytest.raises(TypeError, match="fpr_min must be a number"):
        partial_auc(y, s, "0", 0.5)
    with pytest.raises(ValueError, match="beta must be a positive"):
        soft_auc(y, s, 0.0)


def test_check_binary_labels_bool_and_no_class_requirement():
    assert check_binary_labels(np.array([True, False])).tolist() == [True, False]
    assert check_binary_labels([1, 1], both_classes=False).tolist() == [True, True]
    with pytest.raises(TypeError, match="numeric labels"):
        check_binary_labels(["a", "b"])
