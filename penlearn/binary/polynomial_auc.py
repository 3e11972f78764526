"""Polynomial approximation of AUC and soft-AUC in one scan (Calders & Jaroszewicz 2007).

Calders & Jaroszewicz 2007 ("Efficient AUC optimization for classification") replaces the step
function in AUC = mean over (positive, negative) pairs of H(s⁺ − s⁻) by a polynomial
p(x) = Σ_k c_k x^k fitted on [−1, 1]. Expanding (s⁺ − s⁻)^k binomially turns the double
sum over pairs into products of power sums Σ s^l of each class (their eqs. 1–2), so the
approximation costs one scan: O(n·d) for degree d instead of a sort (AUC) or O(n⁺n⁻)
(soft-AUC). Scores are first shifted and scaled so that every cross-class difference
lies in [−1, 1], where the approximation is accurate (their Section 4, "Scaling of the
Weights"); AUC does not change under this, soft-AUC's slope is rescaled to match.

Here:

- :func:`heaviside_chebyshev` gives the truncated Chebyshev series of the step
  function, H(x) ≈ ½ + Σ_{k odd} (2/(πk))·(−1)^((k−1)/2)·T_k(x), whose value at 0 is
  exactly ½, so tied pairs count ½ as in the exact AUC;
- :func:`polynomial_auc` is the one-scan approximation of AUC or soft-AUC and
  :func:`polynomial_auc_gradient` its derivative with respect to every score (eq. 5
  is this pushed through a linear model, ∂/∂w = Xᵀ ∂/∂s);
- :func:`angle_search` is their Algorithm 1: from the power sums of the scores of two
  directions w and g, the approximate AUC of (cos α·w + sin α·g)/√2 for every α on a
  grid, without re-scanning the data.

The learner built on these (their Algorithm 2) is
:func:`penlearn.binary.baselines.fit_polynomial_auc`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.polynomial import chebyshev as C

from penlearn.binary.metrics import check_binary_labels, check_binary_scores

MAX_DEGREE = 60


@lru_cache(maxsize=1)
def _pascal() -> np.ndarray:
    """C(n, k) for 0 <= k <= n <= 2·MAX_DEGREE, correctly rounded to float64 (once)."""
    m = 2 * MAX_DEGREE
    table = np.zeros((m + 1, m + 1))
    for n in range(m + 1):
        table[n, : n + 1] = [float(math.comb(n, k)) for k in range(n + 1)]
    return table


def comb(n, k) -> np.ndarray:
    """Binomial coefficients C(n, k) as floats, elementwise (n <= 2·MAX_DEGREE).

    Examples
    --------
    >>> comb(4, np.arange(5)).tolist()
    [1.0, 4.0, 6.0, 4.0, 1.0]
    """
    return _pascal()[np.asarray(n, dtype=np.int64), np.asarray(k, dtype=np.int64)]


def _check_degree(degree) -> int:
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)):
        raise TypeError(f"degree must be an int, got {type(degree).__name__}")
    if not 1 <= degree <= MAX_DEGREE:
        raise ValueError(
            f"degree must be in [1, {MAX_DEGREE}], got {degree} (degrees above ~40 lose "
            "accuracy to rounding in the power basis)"
        )
    return int(degree)


def _pad(coef: np.ndarray, degree: int) -> np.ndarray:
    """numpy trims trailing zero coefficients; pad back to length degree + 1."""
    out = np.zeros(degree + 1)
    out[: len(coef)] = coef[: degree + 1]
    return out


@lru_cache(maxsize=64)
def _heaviside_power(degree: int) -> tuple[float, ...]:
    k = np.arange(degree + 1)
    cheb = np.zeros(degree + 1)
    cheb[0] = 0.5
    odd = k[1::2]
    cheb[odd] = 2.0 / (np.pi * odd) * np.where((odd - 1) // 2 % 2 == 0, 1.0, -1.0)
    return tuple(_pad(C.cheb2poly(cheb), degree).tolist())


def heaviside_chebyshev(degree: int) -> np.ndarray:
    """Power-basis coefficients c_0..c_d of the Chebyshev series of the step function.

    The series is truncated at ``degree``: p(x) = Σ c_k x^k approximates H(x) = 1[x > 0]
    on [−1, 1] (Calders & Jaroszewicz 2007, Section 3, Fig. 1), with p(0) = ½.

    Examples
    --------
    >>> c = heaviside_chebyshev(9)
    >>> float(c[0])
    0.5
    >>> p = np.polynomial.Polynomial(c)
    >>> bool(p(0.8) > 0.9 and p(-0.8) < 0.1)
    True
    """
    return np.array(_heaviside_power(_check_degree(degree)))


def sigmoid_chebyshev(degree: int, slope: float) -> np.ndarray:
    """Power-basis coefficients of the Chebyshev interpolant of sigmoid(slope·x) on [−1, 1].

    Examples
    --------
    >>> p = np.polynomial.Polynomial(sigmoid_chebyshev(15, 2.0))
    >>> bool(abs(p(0.5) - 1 / (1 + np.exp(-1.0))) < 1e-6)
    True
    """
    degree = _check_degree(degree)
    cheb = C.chebinterpolate(lambda x: 0.5 * (1.0 + np.tanh(0.5 * slope * x)), degree)
    return _pad(C.cheb2poly(cheb), degree)


@lru_cache(maxsize=16)
def _interpolation_operator_cached(degree: int):
    nodes = C.chebpts1(degree + 1)
    vander = C.chebvander(nodes, degree)  # as numpy's chebinterpolate
    to_cheb = vander.T / (degree + 1)
    to_cheb[1:] *= 2.0
    to_power = np.column_stack([_pad(C.cheb2poly(np.eye(degree + 1)[k]), degree)
                                for k in range(degree + 1)])
    return nodes, to_power @ to_cheb


def _interpolation_operator(degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev points and the linear map from values there to power-basis coefficients."""
    nodes, op = _interpolation_operator_cached(degree)
    return nodes, op


def _pair_matrix(coef: np.ndarray) -> np.ndarray:
    """A[l, j] = c_{l+j}·binom(l+j, l)·(−1)^j, so Σ_pairs p(a − b) = Σ_{l,j} A[l,j]·Sa_l·Sb_j."""
    d = len(coef) - 1
    lj = np.add.outer(np.arange(d + 1), np.arange(d + 1))
    ll = np.broadcast_to(np.arange(d + 1)[:, None], lj.shape)
    sign = np.where(np.arange(d + 1) % 2 == 0, 1.0, -1.0)[None, :]
    inside = lj <= d
    a = np.zeros_like(lj, dtype=float)
    a[inside] = coef[lj[inside]] * comb(lj[inside], ll[inside])
    return a * sign


def _power_sums(f: np.ndarray, degree: int) -> np.ndarray:
    """Σ_i f_i^l for l = 0..degree."""
    return np.vander(f, degree + 1, increasing=True).sum(axis=0)


class ScoreScaling(NamedTuple):
    """Affine map f = (s − center)/scale that puts cross-class differences in [−1, 1].

    Examples
    --------
    >>> score_scaling(np.array([1.0, 3.0]), np.array([0.0, 2.0]))
    ScoreScaling(center=1.5, scale=3.0)
    """

    center: float
    scale: float


def score_scaling(scores_pos: np.ndarray, scores_neg: np.ndarray) -> ScoreScaling:
    """Shift and scale of Calders & Jaroszewicz 2007 Section 4: divide by max(M⁰ − m¹, M¹ − m⁰).

    The shift (to the middle of all scores) does not change any difference; it keeps the
    power sums small so that the power-basis evaluation stays accurate. A zero scale
    (every score equal) is returned as 1.

    Examples
    --------
    >>> sc = score_scaling(np.array([1.0, 3.0]), np.array([0.0, 2.0]))
    >>> (np.array([3.0]) - sc.center) / sc.scale - (np.array([0.0]) - sc.center) / sc.scale
    array([1.])
    """
    m1, big1 = float(scores_pos.min()), float(scores_pos.max())
    m0, big0 = float(scores_neg.min()), float(scores_neg.max())
    scale = max(big0 - m1, big1 - m0)
    center = 0.5 * (max(big0, big1) + min(m0, m1))
    return ScoreScaling(center, scale if scale > 0 else 1.0)


def _coefficients(degree: int, beta: float | None, scale: float) -> np.ndarray:
    if beta is None:
        return heaviside_chebyshev(degree)
    if not (isinstance(beta, (int, float, np.integer, np.floating)) and beta > 0):
        raise ValueError(f"beta must be a positive number or None, got {beta!r}")
    return sigmoid_chebyshev(degree, float(beta) * scale)


class _Classes(NamedTuple):
    """The checked inputs of :func:`polynomial_auc` and :func:`polynomial_auc_gradient`."""

    degree: int
    pos: np.ndarray  # True on the positive examples
    sp: np.ndarray  # scores of the positives
    sn: np.ndarray  # scores of the negatives
    scaling: ScoreScaling
    pair: np.ndarray  # _pair_matrix of the polynomial's coefficients


def _checked_classes(y, scores, degree, beta: float | None) -> _Classes:
    """Check ``degree``, ``y``, ``scores`` and ``beta`` (in that order); split the scores
    by class, scale them (:func:`score_scaling`) and build the pair matrix of the
    polynomial (of H, or of the sigmoid of slope ``beta`` on the scaled scores).

    Examples
    --------
    >>> c = _checked_classes([0, 1, 1], [0.0, 1.0, 2.0], 3, None)
    >>> c.degree, c.sp.tolist(), c.sn.tolist(), c.scaling, c.pair.shape
    (3, [1.0, 2.0], [0.0], ScoreScaling(center=1.0, scale=2.0), (4, 4))
    """
    degree = _check_degree(degree)
    pos = check_binary_labels(y)
    s = check_binary_scores(scores, len(pos))
    sp, sn = s[pos], s[~pos]
    sc = score_scaling(sp, sn)
    return _Classes(degree, pos, sp, sn, sc, _pair_matrix(_coefficients(degree, beta, sc.scale)))


def polynomial_auc(y, scores, degree: int = 30, beta: float | None = None) -> float:
    """One-scan polynomial approximation of AUC (or of soft-AUC with slope ``beta``).

    Parameters
    ----------
    y : array-like
        Labels in {0, 1} or {−1, 1}, both classes present.
    scores : array-like
        Finite scores.
    degree : int
        Degree of the polynomial; Calders & Jaroszewicz 2007 uses 30.
    beta : float, optional
        When given, approximate soft-AUC, the mean of sigmoid(β·(s⁺ − s⁻)) over pairs
        (exact value: :func:`penlearn.binary.metrics.soft_auc`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.zeros(300), np.ones(300)]
    >>> s = rng.normal(size=600) + y
    >>> from penlearn.binary.metrics import roc_auc
    >>> abs(polynomial_auc(y, s) - roc_auc(y, s)) < 0.01
    True
    """
    degree, _, sp, sn, sc, a = _checked_classes(y, scores, degree, beta)
    p1 = _power_sums((sp - sc.center) / sc.scale, degree)
    p0 = _power_sums((sn - sc.center) / sc.scale, degree)
    return float(p1 @ a @ p0) / (len(sp) * len(sn))


def polynomial_auc_gradient(
    y, scores, degree: int = 30, beta: float | None = None
) -> tuple[float, np.ndarray]:
    """The approximation of :func:`polynomial_auc` and its gradient w.r.t. every score.

    Returns
    -------
    value : float
    gradient : ndarray of shape (n,)
        ∂ value / ∂ scores[i]. For a linear model s = Xw the gradient in w is
        ``X.T @ gradient`` (Calders & Jaroszewicz 2007 eqs. 3–5). The score scaling is treated as
        fixed (it is a constant of the approximation, not of the model).

    Examples
    --------
    >>> v, g = polynomial_auc_gradient([0, 1], [0.0, 0.5], degree=5)
    >>> bool(g[1] > 0 > g[0])
    True
    """
    degree, pos, sp, sn, sc, a = _checked_classes(y, scores, degree, beta)
    v1 = np.vander((sp - sc.center) / sc.scale, degree + 1, increasing=True)
    v0 = np.vander((sn - sc.center) / sc.scale, degree + 1, increasing=True)
    p1, p0 = v1.sum(axis=0), v0.sum(axis=0)
    norm = len(sp) * len(sn)
    value = float(p1 @ a @ p0) / norm
    ell = np.arange(1, degree + 1)
    # d/df Σ_l q_l f^l = Σ_l l q_l f^(l-1)
    q1 = a @ p0
    q0 = a.T @ p1
    grad = np.empty(len(pos))
    grad[pos] = v1[:, :-1] @ (ell * q1[1:]) / (norm * sc.scale)
    grad[~pos] = v0[:, :-1] @ (ell * q0[1:]) / (norm * sc.scale)
    return value, grad


def _cross_power_sums(fw: np.ndarray, fg: np.ndarray, degree: int) -> np.ndarray:
    """S[m, q] = Σ_i fw_i^m · fg_i^q (Calders & Jaroszewicz 2007 Algorithm 2, lines 7–8)."""
    vw = np.vander(fw, degree + 1, increasing=True)
    vg = np.vander(fg, degree + 1, increasing=True)
    return vw.T @ vg


def _combined_power_sums(S: np.ndarray, ca: np.ndarray, sa: np.ndarray) -> np.ndarray:
    """Σ_i (ca·fw_i + sa·fg_i)^l for every angle and l, from the cross power sums S."""
    d = S.shape[0] - 1
    cpow = np.vander(ca, d + 1, increasing=True)  # ca^m
    spow = np.vander(sa, d + 1, increasing=True)
    out = np.empty((len(ca), d + 1))
    for ell in range(d + 1):
        m = np.arange(ell + 1)
        terms = comb(ell, m) * S[m, ell - m]
        out[:, ell] = (cpow[:, : ell + 1] * spow[:, ell::-1]) @ terms
    return out


class AngleSearch(NamedTuple):
    """Result of :func:`angle_search`: the grid, the approximate AUC there, the best.

    Examples
    --------
    >>> r = angle_search(np.array([0.5]), np.array([-0.5]), np.array([-0.5]),
    ...                  np.array([0.5]), degree=9)
    >>> len(r.angles) == len(r.values), bool(r.best_value == r.values.max())
    (True, True)
    """

    angles: np.ndarray
    values: np.ndarray
    best_angle: float
    best_value: float


def angle_search(
    fw_pos: np.ndarray,
    fw_neg: np.ndarray,
    fg_pos: np.ndarray,
    fg_neg: np.ndarray,
    degree: int = 30,
    *,
    step: float = 0.01,
    beta: float | None = None,
    norms: tuple[float, float, float] | None = None,
) -> AngleSearch:
    """Calders & Jaroszewicz 2007 Algorithm 1: approximate AUC of (cos α·w + sin α·g)/√2.

    Parameters
    ----------
    fw_pos, fw_neg, fg_pos, fg_neg : ndarray
        Scores of the positives and negatives under w and g, each already shifted and
        scaled (:func:`score_scaling`) so that cross-class differences are in [−1, 1];
        then every combination's differences are in [−1, 1] too.
    degree : int
        Polynomial degree.
    step : float
        Grid step of α (the paper's 0.01).
    beta : float, optional
        Soft-AUC slope for the unit-norm weight vector: with ``norms = (‖w‖², ‖g‖², w·g)``
        of the scaled vectors, the combination's norm is known for every α and the
        polynomial is refitted per α, as the paper's Section 4 ("Soft-AUC") prescribes.

    Returns
    -------
    AngleSearch
        ``best_angle`` is the first α of maximal value (α = 0 keeps the direction of w).

    Examples
    --------
    >>> r = angle_search(np.array([0.5]), np.array([-0.5]), np.array([-0.5]),
    ...                  np.array([0.5]), degree=9)
    >>> r.best_value > 0.9
    True
    """
    degree = _check_degree(degree)
    angles = np.arange(0.0, 2 * np.pi, step)
    ca, sa = np.cos(angles) / np.sqrt(2.0), np.sin(angles) / np.sqrt(2.0)
    s1 = _combined_power_sums(_cross_power_sums(fw_pos, fg_pos, degree), ca, sa)
    s0 = _combined_power_sums(_cross_power_sums(fw_neg, fg_neg, degree), ca, sa)
    norm = len(fw_pos) * len(fw_neg)
    # T[α, k] = Σ_{l+j=k} binom(k, l)·(−1)^j·s1[α, l]·s0[α, j]: value = Σ_k c_k·T[α, k] / norm
    w = _pair_matrix(np.ones(degree + 1))
    T = np.zeros((len(angles), degree + 1))
    for ell in range(degree + 1):
        rest = degree + 1 - ell
        T[:, ell:] += s1[:, ell : ell + 1] * (w[ell, :rest] * s0[:, :rest])
    if beta is None:
        values = T @ heaviside_chebyshev(degree) / norm
    else:
        if norms is None:
            raise ValueError("angle_search with beta needs norms=(|w|^2, |g|^2, w.g)")
        ww, gg, wg = norms
        n2 = ca**2 * ww + sa**2 * gg + 2 * ca * sa * wg
        lengths = np.sqrt(np.maximum(n2, 1e-300))
        nodes, op = _interpolation_operator(degree)
        slopes = float(beta) / lengths
        vals = 0.5 * (1.0 + np.tanh(0.5 * slopes[:, None] * nodes[None, :]))
        coefs = vals @ op.T  # power-basis coefficients of each angle's interpolant
        values = np.sum(T * coefs, axis=1) / norm
    best = int(np.argmax(values))
    return AngleSearch(angles, values, float(angles[best]), float(values[best]))
