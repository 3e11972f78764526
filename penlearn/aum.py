"""AUM (Area Under Min(FP, FN)) and its directional derivatives.

Implements the sort-based algorithm of Hillman & Hocking (2023), "Optimizing ROC Curves
with a Sort-Based Surrogate Loss for Binary Classification and Changepoint Detection"
(Hillman & Hocking 2023, Section 3): with thresholds t_b = v_b − score[I_b] sorted,
FP(c) = Σ ΔFP_b over t_b < c, FN(c) = Σ −ΔFN_b over t_b ≥ c and
AUM = ∫ min(FP(c), FN(c)) dc. One sort gives AUM and the left/right directional
derivatives with respect to every score, in O(B log B).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from penlearn._checks import finite_vector
from penlearn._repr import compact_repr
from penlearn.breakpoints import Breakpoints


class AUMResult(NamedTuple):
    """Result of :func:`aum`.

    Attributes
    ----------
    aum : float
        The area under min(FP, FN).
    derivatives : ndarray of shape (n_examples, 2)
        Left and right one-sided derivatives of AUM with respect to each score.

    Examples
    --------
    >>> from penlearn import aum, breakpoints_from_labels
    >>> res = aum(breakpoints_from_labels([0, 1]), [1.0, -1.0])
    >>> res.aum, res.derivatives.tolist()
    (2.0, [[1.0, 1.0], [-1.0, -1.0]])
    """

    aum: float
    derivatives: np.ndarray


def check_scores(scores, n_examples: int, name: str = "scores") -> np.ndarray:
    """Validate a score vector: numeric, one-dimensional, finite, length ``n_examples``.

    Examples
    --------
    >>> check_scores([0.5, 1.0], 2)
    array([0.5, 1. ])
    """
    if n_examples == 0:
        raise ValueError(f"{name} is empty: need at least one prediction (n_examples is 0)")
    return finite_vector(scores, name, n_examples, "n_examples of the breakpoints")


def threshold_groups(
    thresholds: np.ndarray,
    fp_diff: np.ndarray,
    fn_diff: np.ndarray,
    order: np.ndarray | None = None,
):
    """Sort thresholds, group ties and give FP/FN on each side of every group.

    This is the shared kernel of :func:`aum`, the ROC code and the line searches.

    Parameters
    ----------
    thresholds, fp_diff, fn_diff : ndarray of shape (B,)
    order : ndarray of int, optional
        A precomputed ``argsort(thresholds)`` (any tie order).

    Returns
    -------
    order : ndarray of int
        ``argsort(thresholds)``.
    group : ndarray of int, shape (B,)
        Group (distinct threshold) index of each *sorted* breakpoint.
    t : ndarray, shape (G,)
        Distinct sorted thresholds.
    fp_before, fn_before, fp_after, fn_after : ndarray, shape (G,)
        FP and FN just left and just right of each distinct threshold.

    Examples
    --------
    >>> out = threshold_groups(np.array([1.0, 0.0]), np.array([1.0, 0.0]),
    ...                        np.array([0.0, -1.0]))
    >>> out[2].tolist(), out[3].tolist(), out[4].tolist()
    ([0.0, 1.0], [0.0, 0.0], [1.0, 0.0])
    """
    if order is None:
        order = np.argsort(thresholds)
    ts = thresholds[order]
    B = len(ts)
    if B == 0:
        z = np.zeros(0)
        return order, np.zeros(0, np.int64), z, z, z, z, z
    start = np.empty(B, bool)
    start[0] = True
    np.not_equal(ts[1:], ts[:-1], out=start[1:])
    starts = np.flatnonzero(start)
    fp_g = np.add.reduceat(fp_diff[order], starts)
    fn_g = np.add.reduceat(fn_diff[order], starts)
    fp_after = np.cumsum(fp_g)
    fp_before = fp_after - fp_g
    # FN(c) = sum of -fn_diff over thresholds >= c: a reverse cumulative sum
    fn_before = 0.0 - np.cumsum(fn_g[::-1])[::-1]
    fn_after = fn_before + fn_g
    group = np.cumsum(start) - 1
    return order, group, ts[starts], fp_before, fn_before, fp_after, fn_after


def aum(breakpoints: Breakpoints, scores) -> AUMResult:
    """AUM of the predicted scores, and its left/right directional derivatives.

    Parameters
    ----------
    breakpoints : Breakpoints
        The error functions as (v, ΔFP, ΔFN, example) tuples.
    scores : array-like of shape (n_examples,)
        Predicted scores (for penalty learning, score = −log λ).

    Returns
    -------
    AUMResult
        ``aum`` and ``derivatives`` (n_examples × 2: left, right one-sided derivative
        of AUM with respect to each score).

    Notes
    -----
    Follows (Hillman & Hocking 2023), Section 3 and Theorem 1: moving the
    score of example i by ±ε moves its thresholds by ∓ε, so each breakpoint of i adds
    min(FP_before+ΔFP, FN_before+ΔFN) − min(FP_before, FN_before) to the right derivative
    and −[min(FP_after−ΔFP, FN_after−ΔFN) − min(FP_after, FN_after)] to the left one.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> res = aum(breakpoints_from_labels([0, 1]), [1.0, 0.0])
    >>> res.aum
    1.0
    >>> res.derivatives.tolist()
    [[1.0, 1.0], [-1.0, -1.0]]
    """
    if not isinstance(breakpoints, Breakpoints):
        raise TypeError(
            f"breakpoints must be a penlearn.Breakpoints, got {type(breakpoints).__name__}"
        )
    s = check_scores(scores, breakpoints.n_examples)
    if len(breakpoints) == 0:
        return AUMResult(0.0, np.zeros((breakpoints.n_examples, 2)))
    thresholds = breakpoints.value - s[breakpoints.example]
    fp_d, fn_d = breakpoints.fp_diff, breakpoints.fn_diff
    order = np.argsort(thresholds)
    ts = thresholds.take(order)
    if len(ts) > 1 and not np.any(ts[1:] == ts[:-1]):
        # no ties (the usual case for real-valued scores): one breakpoint per threshold,
        # so the left and right derivatives coincide and no grouping is needed
        rows = breakpoints._diffs.take(order)  # one gather of ΔFP + iΔFN
        cum = np.cumsum(rows)
        fp_a = cum.real
        fn_a = cum.imag - cum.imag[-1]  # FN right of each threshold; exactly 0 at the end
        fp_b = fp_a - rows.real
        fn_b = fn_a - rows.imag
        if not breakpoints.is_monotone:
            _check_nonnegative(np.minimum(fp_b, fp_a), np.minimum(fn_b, fn_a), fp_d, fn_d)
        min_a = np.minimum(fp_a, fn_a)
        area = float(np.dot(min_a[:-1], np.diff(ts)))
        d_sorted = min_a - np.minimum(fp_b, fn_b)
        out = np.empty((2, breakpoints.n_examples))  # returned transposed: n x 2
        if breakpoints._identity:  # breakpoint b is example b: scatter straight in
            np.put(out[0], order, d_sorted)
        else:
            d = np.empty_like(d_sorted)
            np.put(d, order, d_sorted)  # back to breakpoint order: bincount reads in order
            out[0] = np.bincount(breakpoints.example, weights=d,
                                 minlength=breakpoints.n_examples)
        out[1] = out[0]
        return AUMResult(area, out.T)
    ex = breakpoints.example[order]
    deriv = np.zeros((breakpoints.n_examples, 2))
    area, (order, group, t, fp_b, fn_b, fp_a, fn_a), min_after = _tied_area(
        thresholds, fp_d, fn_d, order)
    # per sorted breakpoint: the values around its group
    fps, fns = fp_d[order], fn_d[order]
    fpb, fnb, fpa, fna = fp_b[group], fn_b[group], fp_a[group], fn_a[group]
    right = np.minimum(fpb + fps, fnb + fns) - np.minimum(fpb, fnb)
    left = -(np.minimum(fpa - fps, fna - fns) - min_after[group])
    deriv[:, 0] = np.bincount(ex, weights=left, minlength=breakpoints.n_examples)
    deriv[:, 1] = np.bincount(ex, weights=right, minlength=breakpoints.n_examples)
    return AUMResult(area, deriv)


def _tied_area(thresholds, fp_d, fn_d, order):
    """AUM of thresholds with ties (sorted by ``order``, an ``argsort`` of them): the area,
    the groups of :func:`threshold_groups` and min(FP, FN) right of each group."""
    groups = threshold_groups(thresholds, fp_d, fn_d, order)
    _, _, t, fp_b, fn_b, fp_a, fn_a = groups
    _check_nonnegative(np.minimum(fp_b, fp_a), np.minimum(fn_b, fn_a), fp_d, fn_d)
    min_after = np.minimum(fp_a, fn_a)
    return float(np.dot(min_after[:-1], np.diff(t))), groups, min_after


def tied_aum(breakpoints: Breakpoints, thresholds: np.ndarray, order: np.ndarray) -> float:
    """``aum(breakpoints, scores).aum`` from the thresholds ``value − scores[example]`` and
    their ``np.argsort`` when some are tied: the same operations, without the derivatives.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> t = bp.value - np.array([0.0, 0.0])[bp.example]
    >>> tied_aum(bp, t, np.argsort(t)) == aum(bp, [0.0, 0.0]).aum
    True
    """
    return _tied_area(thresholds, breakpoints.fp_diff, breakpoints.fn_diff, order)[0]


def _check_nonnegative(fp_before, fn_before, fp_diff, fn_diff) -> None:
    """FP and FN must never be negative (up to rounding in rate-normalized diffs)."""
    tol_fp = 1e-9 * max(1.0, float(np.abs(fp_diff).sum()))
    tol_fn = 1e-9 * max(1.0, float(np.abs(fn_diff).sum()))
    if len(fp_before) and fp_before.min() < -tol_fp:
        raise ValueError(
            "fp should be non-negative: the cumulative sum of fp_diff over sorted thresholds "
            f"reaches {fp_before.min():g} (penlearn.breakpoints.examples_with_negative_errors "
            "lists the examples whose error functions cause it)"
        )
    if len(fn_before) and fn_before.min() < -tol_fn:
        raise ValueError(
            "fn should be non-negative: the reverse cumulative sum of -fn_diff over sorted "
            f"thresholds reaches {fn_before.min():g} (penlearn.breakpoints."
            "examples_with_negative_errors lists the examples whose error functions cause it)"
        )


AUMResult.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
