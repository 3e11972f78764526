"""ROC metrics of binary classifiers: ROC curve, AUC, partial AUC and soft-AUC.

These are the metrics of the binary baselines (``auc_baselines``) and of
``fit_aum_linear``: plain functions of labels ``y`` and real-valued scores (larger score ⇒
more positive). Tied scores give a diagonal ROC segment (a tie counts one half), so
:func:`roc_auc` equals the Wilcoxon–Mann–Whitney statistic with ties counted ½
(Calders & Jaroszewicz 2007, Section 2).

:func:`partial_auc` is the area under the ROC curve between two false positive rates,
the measure optimised by Narasimhan & Agarwal's structural SVM (Narasimhan & Agarwal 2013,
Section 2.1); with ``normalize=True`` it is divided by the width of the FPR range, as
their "normalized partial AUC".

AUC and partial AUC are computed by the generalized-ROC code of :mod:`penlearn.roc` on
the binary breakpoints (v = 0, ``breakpoints_from_labels``), so binary and changepoint
ROC areas share one implementation; :func:`binary_roc` lists the points with their score
thresholds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from penlearn._checks import finite_vector
from penlearn.breakpoints import breakpoints_from_labels
from penlearn.roc import breakpoints_roc_points, partial_path_auc, path_auc


def check_binary_labels(y, name: str = "y", *, both_classes: bool = True) -> np.ndarray:
    """Validate binary labels and return a boolean array (True = positive).

    Parameters
    ----------
    y : array-like
        Labels in {0, 1}, {−1, 1} or booleans; 1 (True) is the positive class.
    name : str
        Argument name used in error messages.
    both_classes : bool
        Require at least one positive and one negative label.

    Examples
    --------
    >>> check_binary_labels([0, 1, 1]).tolist()
    [False, True, True]
    >>> check_binary_labels([1, 1])
    Traceback (most recent call last):
    ...
    ValueError: y has only one class (2 positive, 0 negative labels): need both classes
    """
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional array, got shape {arr.shape}")
    if arr.dtype == bool:
        pos = arr.copy()
    else:
        try:
            yf = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numeric labels in {{0, 1}} or {{-1, 1}}") from exc
        if np.isnan(yf).any():
            i = int(np.flatnonzero(np.isnan(yf))[0])
            raise ValueError(f"{name} must not contain NaN; element {i} is NaN")
        vals = set(np.unique(yf).tolist())
        if not (vals <= {0.0, 1.0} or vals <= {-1.0, 1.0}):
            raise ValueError(
                f"{name} must hold labels in {{0, 1}} or {{-1, 1}}, got values {sorted(vals)[:6]}"
            )
        pos = yf == 1.0
    if both_classes:
        n_pos = int(pos.sum())
        n_neg = len(pos) - n_pos
        if n_pos == 0 or n_neg == 0:
            raise ValueError(
                f"{name} has only one class ({n_pos} positive, {n_neg} negative labels): "
                "need both classes"
            )
    return pos


def check_binary_scores(scores, n: int, name: str = "scores") -> np.ndarray:
    """Validate a finite one-dimensional score vector of length ``n``.

    Examples
    --------
    >>> check_binary_scores([0.5, 2], 2).tolist()
    [0.5, 2.0]
    """
    return finite_vector(scores, name, n, "the length of y")


class BinaryROC(NamedTuple):
    """ROC curve of binary scores, from (0, 0) to (1, 1).

    Attributes
    ----------
    fpr, tpr : ndarray
        One point per distinct score, plus the origin; FPR and TPR are non-decreasing.
    thresholds : ndarray
        ``thresholds[k]`` is the smallest score predicted positive at point k (``+inf``
        for the origin): point k predicts positive every score ≥ ``thresholds[k]``.

    Examples
    --------
    >>> r = binary_roc([0, 1], [0.0, 1.0])
    >>> r.fpr.tolist(), r.tpr.tolist(), r.thresholds.tolist()
    ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [inf, 1.0, 0.0])
    """

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


def binary_roc(y, scores) -> BinaryROC:
    """ROC curve of the scores: one point per distinct score value, O(n log n).

    Examples
    --------
    >>> r = binary_roc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r.fpr.tolist(), r.tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    pos = check_binary_labels(y)
    s = check_binary_scores(scores, len(pos))
    order = np.argsort(-s, kind="stable")
    ss = s[order]
    ps = pos[order]
    last = np.r_[ss[1:] != ss[:-1], True]  # last element of each tie group
    tp = np.cumsum(ps)[last]
    fp = np.cumsum(~ps)[last]
    n_pos, n_neg = tp[-1], fp[-1]
    return BinaryROC(
        np.r_[0.0, fp / n_neg],
        np.r_[0.0, tp / n_pos],
        np.r_[np.inf, ss[last]],
    )


def _roc_points(y, scores) -> tuple[np.ndarray, np.ndarray]:
    """ROC points through the shared breakpoint machinery (``penlearn.roc``)."""
    pos = check_binary_labels(y)
    s = check_binary_scores(scores, len(pos))
    return breakpoints_roc_points(breakpoints_from_labels(pos.astype(int)), s)


def roc_auc(y, scores) -> float:
    """Area under the ROC curve; tied scores count one half.

    Parameters
    ----------
    y : array-like
        Labels in {0, 1} or {−1, 1}; both classes must be present.
    scores : array-like
        Finite real scores, larger means more positive.

    Examples
    --------
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([0, 1], [2.0, 2.0])
    0.5
    """
    fpr, tpr = _roc_points(y, scores)
    return path_auc(fpr, tpr)


def _check_fpr_range(fpr_min, fpr_max) -> tuple[float, float]:
    for name, v in (("fpr_min", fpr_min), ("fpr_max", fpr_max)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number in [0, 1], got {type(v).__name__}")
        if not 0.0 <= float(v) <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {v!r}")
    if not float(fpr_min) < float(fpr_max):
        raise ValueError(f"need fpr_min < fpr_max, got fpr_min={fpr_min!r}, fpr_max={fpr_max!r}")
    return float(fpr_min), float(fpr_max)


def partial_auc(
    y, scores, fpr_min: float = 0.0, fpr_max: float = 1.0, *, normalize: bool = False
) -> float:
    """Area under the ROC curve between false positive rates ``fpr_min`` and ``fpr_max``.

    Parameters
    ----------
    y, scores : array-like
        As in :func:`roc_auc`.
    fpr_min, fpr_max : float
        The FPR range, ``0 <= fpr_min < fpr_max <= 1``.
    normalize : bool
        Divide by ``fpr_max − fpr_min``, giving the normalized partial AUC of
        Narasimhan & Agarwal 2013 (1 for a perfect ranking). The default is the raw area (at most
        ``fpr_max − fpr_min``). scikit-learn's ``roc_auc_score(max_fpr=...)`` reports a
        third variant, McClish's standardisation, which is neither of these.

    Notes
    -----
    The ROC curve is linearly interpolated between its points (tied scores give a
    diagonal segment), and the area is exact at the range ends. Without ties, and with
    ``n_neg·fpr_max`` an integer, the raw area equals Narasimhan & Agarwal 2013 eq. (2):
    the fraction
    of (positive, negative) pairs ranked correctly among the top ``n_neg·fpr_max``
    negatives, times ``fpr_max``.

    Examples
    --------
    >>> y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    >>> partial_auc(y, s, 0.0, 0.5)
    0.25
    >>> partial_auc(y, s, 0.0, 0.5, normalize=True)
    0.5
    >>> partial_auc(y, s) == roc_auc(y, s)
    True
    """
    lo, hi = _check_fpr_range(fpr_min, fpr_max)
    fpr, tpr = _roc_points(y, scores)
    area = partial_path_auc(fpr, tpr, hi, lo)
    return area / (hi - lo) if normalize else area


def soft_auc(y, scores, beta: float, *, chunk: int = 2048) -> float:
    """Exact soft-AUC: the mean of sigmoid(β·(s⁺ − s⁻)) over all (positive, negative) pairs.

    This is Calders & Jaroszewicz 2007 soft-AUC (Section 2), computed exactly in O(n⁺·n⁻) time by
    chunks of positives; see :func:`penlearn.binary.polynomial_auc.polynomial_auc` for its
    one-scan polynomial approximation.

    Examples
    --------
    >>> round(soft_auc([0, 1], [0.0, 1.0], beta=2.0), 6)
    0.880797
    """
    pos = check_binary_labels(y)
    s = check_binary_scores(scores, len(pos))
    if not (isinstance(beta, (int, float, np.integer, np.floating)) and beta > 0):
        raise ValueError(f"beta must be a positive number, got {beta!r}")
    sp, sn = s[pos], s[~pos]
    total = 0.0
    for start in range(0, len(sp), chunk):
        d = sp[start : start + chunk, None] - sn[None, :]
        # sigmoid(βd) written with tanh: no overflow for large |βd|
        total += float(np.sum(0.5 * (1.0 + np.tanh(0.5 * beta * d))))
    return total / (len(sp) * len(sn))
