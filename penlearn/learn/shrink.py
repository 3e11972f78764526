"""Shrinking a learned penalty model toward a safe one, by validation AUC.

A learned linear model of log λ can lose to a much simpler one on new sequences — most
often because it extrapolates to feature values beyond the training range. After descent,
:func:`penlearn.learn_penalty` (``shrink=``) replaces the selected weights w by the convex
combination α·w + (1 − α)·w₀ with the largest validation AUC over α ∈ {0, 0.1, …, 1}, where
w₀ is a model that learns nothing: the constant log λ (w₀ = 0), or log λ equal to one
feature column (e.g. ``log.log.data`` = log log n, a BIC-like penalty). α = 1 is the
learned model; ties go to the largest α.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from penlearn.fitting.scaling import FeatureScaling

__all__ = ["SHRINK_GRID", "check_shrink", "choose_shrinkage", "shrink_target"]

#: The mixing weights α tried, from the learned model (1) to the safe model (0).
SHRINK_GRID = tuple(float(a) for a in np.round(np.linspace(1.0, 0.0, 11), 10))


def check_shrink(shrink) -> None:
    """Raise unless ``shrink`` is a bool or a feature-column name (a non-empty str).

    Examples
    --------
    >>> check_shrink(True); check_shrink("log.log.data")
    >>> check_shrink(0.5)
    Traceback (most recent call last):
    ...
    TypeError: shrink must be True, False or a feature column name, got 0.5
    """
    if isinstance(shrink, bool) or (isinstance(shrink, str) and shrink):
        return
    raise TypeError(f"shrink must be True, False or a feature column name, got {shrink!r}")


def shrink_target(shrink, scaling: FeatureScaling) -> tuple[np.ndarray, float] | None:
    """Score weights and intercept (score = −log λ, standardised features) of the safe
    model of ``shrink``: None for ``False``, the constant for ``True``, log λ = the column
    for a column name.

    Examples
    --------
    >>> from penlearn.fitting.scaling import standardize_features
    >>> sc = standardize_features(pd.DataFrame({"a": [0.0, 2.0], "n": [1.0, 3.0]}))
    >>> w, b = shrink_target("n", sc)
    >>> w.tolist(), b  # -log λ = -n = -(z·sd + mean)
    ([0.0, -1.4142135623730951], -2.0)
    >>> shrink_target(True, sc)[0].tolist(), shrink_target(False, sc)
    ([0.0, 0.0], None)
    """
    check_shrink(shrink)
    if shrink is False:
        return None
    p = len(scaling.columns)
    if shrink is True:
        return np.zeros(p), 0.0
    cols = list(scaling.columns)
    if shrink not in cols:
        why = ("was dropped (non-finite or constant)" if shrink in scaling.dropped
               else "is not a feature column")
        raise ValueError(f"shrink={shrink!r}: that column {why}; kept columns: {cols[:8]}")
    j = cols.index(shrink)
    w = np.zeros(p)
    w[j] = -scaling.scale[j]
    return w, float(-scaling.mean[j])


def choose_shrinkage(validation_auc: Callable[[np.ndarray], float], w: np.ndarray,
                     w_safe: np.ndarray, grid=SHRINK_GRID) -> tuple[float, pd.DataFrame]:
    """The α of ``grid`` whose weights α·w + (1 − α)·w_safe have the largest validation AUC.

    Parameters
    ----------
    validation_auc : callable
        Weights → validation AUC (the intercept does not change AUC).
    w, w_safe : ndarray
        The learned and the safe model's weights.
    grid : sequence of float
        Values of α in [0, 1], tried in order; a later α is taken only if its AUC is
        larger (so ties go to the first: the learned model with the default grid).

    Returns
    -------
    alpha : float
    table : DataFrame
        ``alpha, validation_auc`` for every α tried.

    Examples
    --------
    >>> auc = lambda v: 1.0 - abs(v[0] - 0.3)  # best at weight 0.3
    >>> alpha, table = choose_shrinkage(auc, np.array([1.0]), np.array([0.0]))
    >>> alpha, len(table)
    (0.3, 11)
    >>> choose_shrinkage(lambda v: 0.5, np.array([1.0]), np.array([0.0]))[0]  # ties
    1.0
    """
    rows, best, best_auc = [], None, -np.inf
    for a in grid:
        if not 0.0 <= a <= 1.0:
            raise ValueError(f"shrinkage grid values must be in [0, 1], got {a!r}")
        v = float(validation_auc(a * w + (1.0 - a) * w_safe))
        rows.append((float(a), v))
        if v > best_auc:
            best, best_auc = float(a), v
    return best, pd.DataFrame(rows, columns=["alpha", "validation_auc"])
