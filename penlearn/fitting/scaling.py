"""Feature standardisation: the one standardiser of the package.

Learning (interval regression, AUM gradient descent) and the binary baselines all work on
standardised features; :func:`standardize_features` learns which columns to keep and
their means and standard deviations, :class:`FeatureScaling` applies it;
:func:`unscale_weights` maps a linear model on standardised features back to the
original scale, :func:`scale_weights` the other way (a warm start).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["FeatureScaling", "scale_weights", "select_columns", "standardize_features",
           "unscale_weights"]

@dataclass(frozen=True)
class FeatureScaling:
    """Standardisation learned on a feature table: kept columns, their means and SDs."""

    columns: tuple
    mean: np.ndarray
    scale: np.ndarray
    dropped: tuple
    #: Smallest / largest training value of each kept column (None: not recorded, as in
    #: model files written before it was); the range non-finite features are clipped to.
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    def transform(self, X) -> np.ndarray:
        """Standardise ``X`` (DataFrame with the kept columns, or an array of them)."""
        A = select_columns(X, self.columns)
        return (A - self.mean) / self.scale


def select_columns(X, columns) -> np.ndarray:
    if isinstance(X, pd.DataFrame):
        missing = [c for c in columns if c not in X.columns]
        if missing:
            raise ValueError(f"X is missing feature column(s) needed for prediction: {missing}")
        A = X.loc[:, list(columns)].to_numpy(dtype=float)
    else:
        A = np.asarray(X, dtype=float)
        if A.ndim != 2 or A.shape[1] != len(columns):
            raise ValueError(
                f"X must be a 2-d array with {len(columns)} columns, got shape {A.shape}"
            )
    return A


def standardize_features(X, *, ddof: int = 1) -> FeatureScaling:
    """Learn a standardisation of the finite, non-constant columns of ``X``.

    Like R's ``scale()`` followed by keeping the columns that are finite on every row
    (the protocol of Fowler & Hocking 2024, Section 5.2): a column is dropped
    when any value is NaN/±inf or when it is constant (its standard deviation is 0, or
    below 1e-12 of its mean: rounding noise).

    Parameters
    ----------
    X : DataFrame or 2-d array
        Features, one row per example.
    ddof : int
        Delta degrees of freedom of the SD (1, as R's ``sd``).

    Returns
    -------
    FeatureScaling
        ``columns`` kept, ``mean``, ``scale``, the ``dropped`` column names, and the
        training range ``low``, ``high`` of each kept column.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, np.inf, 0.0], "c": 5.0})
    >>> sc = standardize_features(X)
    >>> sc.columns, sc.dropped
    (('a',), ('b', 'c'))
    >>> sc.transform(X).ravel().tolist()
    [-1.0, 0.0, 1.0]
    """
    if isinstance(X, pd.DataFrame):
        names = list(X.columns)
        try:
            A = X.to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError("features must be numeric") from exc
    else:
        A = np.asarray(X, dtype=float)
        if A.ndim != 2:
            raise ValueError(f"features must be 2-dimensional, got shape {A.shape}")
        names = list(range(A.shape[1]))
    if A.shape[0] < 2:
        raise ValueError(f"need at least 2 rows to standardise features, got {A.shape[0]}")
    finite = np.all(np.isfinite(A), axis=0)
    mean = np.zeros(A.shape[1])
    sd = np.zeros(A.shape[1])
    if finite.any():
        mean[finite] = A[:, finite].mean(axis=0)
        sd[finite] = A[:, finite].std(axis=0, ddof=ddof)
    # constant columns, including those constant up to rounding noise (whose "SD" is a
    # few ulps of the mean, and would be blown up to unit scale)
    keep = finite & (sd > 1e-12 * np.abs(mean))
    if not keep.any():
        raise ValueError(
            "after dropping non-finite (NaN/inf) and constant feature columns, none remain"
        )
    cols = tuple(n for n, k in zip(names, keep) if k)
    dropped = tuple(n for n, k in zip(names, keep) if not k)
    low = A[:, keep].min(axis=0)
    high = A[:, keep].max(axis=0)
    return FeatureScaling(cols, mean[keep], sd[keep], dropped, low, high)


def unscale_weights(w, b: float, mean, scale) -> tuple[np.ndarray, float]:
    """A linear model ``Z·w + b`` on standardised features ``Z = (X − mean) / scale`` as
    ``X·coef + intercept`` on the original scale: coef = w / scale, intercept =
    b − coef·mean.

    Examples
    --------
    >>> coef, b0 = unscale_weights(np.array([2.0]), 1.0, np.array([3.0]), np.array([4.0]))
    >>> coef.tolist(), b0
    ([0.5], -0.5)
    """
    coef = np.asarray(w, dtype=float) / np.asarray(scale, dtype=float)
    return coef, float(b - np.dot(coef, mean))


def scale_weights(coef, intercept: float, mean, scale) -> tuple[np.ndarray, float]:
    """The inverse of :func:`unscale_weights`: ``X·coef + intercept`` as ``Z·w + b``.

    Examples
    --------
    >>> w, b = scale_weights(np.array([0.5]), -0.5, np.array([3.0]), np.array([4.0]))
    >>> w.tolist(), b
    ([2.0], 1.0)
    """
    coef = np.asarray(coef, dtype=float)
    return coef * np.asarray(scale, dtype=float), float(intercept + np.dot(coef, mean))
