"""Polynomial approximation of AUC / soft-AUC (papers/002) against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import chebyshev as C

from penlearn.binary.metrics import roc_auc, soft_auc
from penlearn.binary.polynomial_auc import (
    angle_search,
    heaviside_chebyshev,
    polynomial_auc,
    polynomial_auc_gradient,
    score_scaling,
    sigmoid_chebyshev,
)


def pairwise_poly(y, s, coef):
    """Brute force: mean over all (pos, neg) pairs of p((s⁺ − s⁻)/scale)."""
    y, s = np.asarray(y), np.asarray(s, float)
    sp, sn = s[y == 1], s[y == 0]
    sc = score_scaling(sp, sn)
    d = (sp[:, None] - sn[None, :]) / sc.scale
    return float(np.polynomial.Polynomial(coef)(d).mean())


@pytest.mark.parametrize("degree", [1, 2, 9, 10, 20, 30])
def test_heaviside_coefficients_are_the_chebyshev_series(degree):
    """Power basis agrees with the series Σ a_k T_k evaluated in the Chebyshev basis."""
    k = np.arange(degree + 1)
    a = np.zeros(degree + 1)
    a[0] = 0.5
    for j in k[1::2]:
        # projection of H onto T_j: (2/π)∫_0^{π/2} cos(jθ) dθ, by quadrature
        th = np.linspace(0, np.pi / 2, 20001)
        f = np.cos(j * th)
        a[j] = 2 / np.pi * float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(th)))
    x = np.linspace(-1, 1, 41)
    got = np.polynomial.Polynomial(heaviside_chebyshev(degree))(x)
    assert np.allclose(got, C.chebval(x, a), atol=1e-7)
    assert np.polynomial.Polynomial(heaviside_chebyshev(degree))(0.0) == pytest.approx(0.5)


def test_sigmoid_coefficients_interpolate():
    x = np.linspace(-1, 1, 101)
    p = np.polynomial.Polynomial(sigmoid_chebyshev(25, 4.0))(x)
    assert np.max(np.abs(p - 1 / (1 + np.exp(-4 * x)))) < 1e-8


@pytest.mark.parametrize("degree", [5, 10, 20, 30])
def test_one_scan_sum_equals_pairwise_polynomial(degree):
    """Eq. (2) of papers/002: the power-sum form is the double sum over pairs."""
    rng = np.random.default_rng(degree)
    y = rng.integers(0, 2, 150)
    s = 3.0 + 5 * rng.normal(size=150) + 2 * y  # shifted and scaled on purpose
    assert polynomial_auc(y, s, degree) == pytest.approx(
        pairwise_poly(y, s, heaviside_chebyshev(degree)), abs=1e-9
    )
    sc = score_scaling(s[y == 1], s[y == 0])
    coef = sigmoid_chebyshev(degree, 0.7 * sc.scale)
    assert polynomial_auc(y, s, degree, beta=0.7) == pytest.approx(
        pairwise_poly(y, s, coef), abs=1e-9
    )


@pytest.mark.parametrize("degree,tol", [(10, 0.01), (20, 0.002), (30, 0.002)])
def test_accuracy_against_exact_auc(degree, tol):
    """The experiment of papers/002 Fig. 2 at power p = 1: normal scores, mean shift."""
    rng = np.random.default_rng(7)
    for shift in (0.0, 0.5, 1.0, 2.0):
        y = np.r_[np.zeros(400, int), np.ones(400, int)]
        s = rng.normal(size=800) + shift * y
        assert abs(polynomial_auc(y, s, degree) - roc_auc(y, s)) < tol


def test_soft_auc_approximation_accuracy():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300)
    s = rng.normal(size=300) + y
    assert polynomial_auc(y, s, 30, beta=1.0) == pytest.approx(soft_auc(y, s, 1.0), abs=1e-6)


def test_ties_and_constant_scores():
    y = [0, 1, 0, 1]
    assert polynomial_auc(y, [2.0, 2.0, 2.0, 2.0], 30) == pytest.approx(0.5, abs=1e-12)
    # invariant to shifting and positive scaling of the scores
    s = np.array([0.3, 1.2, -0.4, 0.1])
    assert polynomial_auc(y, s, 20) == pytest.approx(polynomial_auc(y, 7 * s - 100, 20))


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 40)
    s = rng.normal(size=40) + y
    sc = score_scaling(s[y == 1], s[y == 0])
    for beta in (None, 2.0):
        v, g = polynomial_auc_gradient(y, s, 15, beta)
        assert v == pytest.approx(polynomial_auc(y, s, 15, beta))
        coef = heaviside_chebyshev(15) if beta is None else sigmoid_chebyshev(15, beta * sc.scale)
        for i in (0, 5, 17, 39):
            h = 1e-6
            sp_, sm_ = s.copy(), s.copy()
            sp_[i] += h
            sm_[i] -= h
            # hold the scaling fixed, as the gradient does
            fd = (_fixed(y, sp_, coef, sc) - _fixed(y, sm_, coef, sc)) / (2 * h)
            assert g[i] == pytest.approx(fd, rel=1e-5, abs=1e-9)


def _fixed(y, s, coef, sc):
    sp, sn = s[y == 1], s[y == 0]
    d = (sp[:, None] - sn[None, :]) / sc.scale
    return float(np.polynomial.Polynomial(coef)(d).mean())


def test_angle_search_equals_direct_evaluation():
    """Algorithm 1's power-sum shortcut gives the same value as scanning again."""
    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, 120).astype(bool)
    fw = rng.normal(size=120) + y
    fg = rng.normal(size=120) - 0.5 * y

    def scale(f):
        sc = score_scaling(f[y], f[~y])
        return (f - sc.center) / sc.scale

    fw, fg = scale(fw), scale(fg)
    res = angle_search(fw[y], fw[~y], fg[y], fg[~y], degree=20, step=0.3)
    coef = heaviside_chebyshev(20)
    for a, v in zip(res.angles, res.values, strict=True):
        f = (np.cos(a) * fw + np.sin(a) * fg) / np.sqrt(2)
        d = f[y][:, None] - f[~y][None, :]
        assert np.max(np.abs(d)) <= 1 + 1e-12
        assert v == pytest.approx(float(np.polynomial.Polynomial(coef)(d).mean()), abs=1e-9)
    assert res.best_value == pytest.approx(res.values.max())


def test_angle_search_soft_refits_per_angle():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 60).astype(bool)
    fw, fg = rng.normal(size=60) + y, rng.normal(size=60)
    fw, fg = fw / 4, fg / 4
    ww, gg, wg = 2.0, 3.0, 0.5
    res = angle_search(fw[y], fw[~y], fg[y], fg[~y], degree=20, step=0.7, beta=1.5,
                       norms=(ww, gg, wg))
    for a, v in zip(res.angles, res.values, strict=True):
        ca, sa = np.cos(a) / np.sqrt(2), np.sin(a) / np.sqrt(2)
        length = np.sqrt(ca**2 * ww + sa**2 * gg + 2 * ca * sa * wg)
        f = ca * fw + sa * fg
        d = f[y][:, None] - f[~y][None, :]
        coef = sigmoid_chebyshev(20, 1.5 / length)
        assert v == pytest.approx(float(np.polynomial.Polynomial(coef)(d).mean()), abs=1e-9)
    with pytest.raises(ValueError, match="norms"):
        angle_search(fw[y], fw[~y], fg[y], fg[~y], degree=5, beta=1.0)


def test_bad_degree_and_beta():
    with pytest.raises(ValueError, match="degree must be in"):
        polynomial_auc([0, 1], [0.0, 1.0], degree=0)
    with pytest.raises(TypeError, match="degree must be an int"):
        polynomial_auc([0, 1], [0.0, 1.0], degree=2.5)
    with pytest.raises(ValueError, match="beta must be a positive"):
        polynomial_auc([0, 1], [0.0, 1.0], beta=-1.0)
    with pytest.raises(ValueError, match="only one class"):
        polynomial_auc([1, 1], [0.0, 1.0])
