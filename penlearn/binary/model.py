"""The binary model type and the checks shared by every binary learner.

All learners standardise the features internally (mean 0, standard deviation 1 on the
training rows; constant columns get weight 0) and report coefficients in the original
units.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from penlearn.binary.metrics import binary_roc, check_binary_labels, partial_auc, roc_auc
from penlearn.fitting.model_file import MAX_ABS_COEF, read_model_file, write_model_file
from penlearn.fitting.scaling import standardize_features, unscale_weights

__all__ = ["BinaryLinearModel", "balanced_intercept", "check_features"]


# --------------------------------------------------------------------------- model


class BinaryLinearModel:
    """A fitted linear scorer: score = X·coef_ + intercept_; positive when score > 0.

    The one binary model type: :func:`penlearn.fit_aum_linear` and every baseline of
    :mod:`penlearn.binary.baselines` return it.

    Parameters
    ----------
    coef : array-like of shape (p,)
    intercept : float
    method : str
        Name of the learner that produced it.
    params : dict, optional
        The learner's settings (JSON-serialisable), including the selected ones.
    history : DataFrame, optional
        One row per iterate or per candidate setting; its columns depend on the learner.
    seconds : float, optional
        Wall time of the fit.
    feature_names : list of str, optional
        Column names (a DataFrame ``X`` is then matched by name).
    dropped_features : list of str, optional
        Columns given weight 0 because they were constant on the training rows.
    best_step : int, optional
        For iterative learners: the history row of the returned weights.

    Examples
    --------
    >>> m = BinaryLinearModel([1.0, -1.0], 0.5, method="manual")
    >>> m.decision_function([[1.0, 0.0], [0.0, 2.0]]).tolist()
    [1.5, -1.5]
    >>> m.predict([[1.0, 0.0], [0.0, 2.0]]).tolist()
    [1, 0]
    """

    FORMAT = "penlearn.BinaryLinearModel"
    VERSION = 1

    def __init__(
        self,
        coef,
        intercept: float,
        method: str,
        params: dict | None = None,
        history: pd.DataFrame | None = None,
        seconds: float = float("nan"),
        feature_names: list | None = None,
        dropped_features: list | None = None,
        best_step: int | None = None,
    ) -> None:
        self.coef_ = np.asarray(coef, dtype=float).reshape(-1)
        self.intercept_ = float(intercept)
        self.method = str(method)
        self.params = dict(params or {})
        self.history_ = history if history is not None else pd.DataFrame()
        self.seconds_ = float(seconds)
        self.feature_names_ = None if feature_names is None else [str(c) for c in feature_names]
        if self.feature_names_ is not None and len(self.feature_names_) != len(self.coef_):
            raise ValueError(f"feature_names has {len(self.feature_names_)} names for "
                             f"{len(self.coef_)} coefficients")
        self.dropped_features_ = list(dropped_features or [])
        self.best_step_ = best_step

    @property
    def n_features_in_(self) -> int:
        return len(self.coef_)

    def __repr__(self) -> str:
        return (
            f"BinaryLinearModel(method={self.method!r}, n_features={self.n_features_in_}, "
            f"intercept={self.intercept_:.4g})"
        )

    def decision_function(self, X) -> np.ndarray:
        """Scores X·coef_ + intercept_ (larger ⇒ more positive)."""
        if isinstance(X, pd.DataFrame) and self.feature_names_ is not None:
            missing = [c for c in self.feature_names_ if c not in X.columns]
            if missing:
                raise ValueError(f"X is missing feature column(s) {missing[:5]}")
            X = X.loc[:, self.feature_names_]
        Xa = check_features(X, "X", n_features=self.n_features_in_)
        return Xa @ self.coef_ + self.intercept_

    def predict(self, X) -> np.ndarray:
        """Labels in {0, 1}: 1 where the score is positive."""
        return (self.decision_function(X) > 0).astype(int)

    def to_dict(self) -> dict:
        """JSON-ready description (coefficients, intercept, method, params, history)."""
        hist = self.history_.replace({np.nan: None}).to_dict(orient="list")
        return {
            "format": self.FORMAT,
            "version": self.VERSION,
            "method": self.method,
            "coef": self.coef_.tolist(),
            "intercept": self.intercept_,
            "feature_names": self.feature_names_,
            "dropped_features": self.dropped_features_,
            "best_step": self.best_step_,
            "params": self.params,
            "history": hist,
            "seconds": None if math.isnan(self.seconds_) else self.seconds_,
        }

    def save(self, path) -> None:
        """Write the model as JSON (atomically: temp file, then rename)."""
        write_model_file(path, self.to_dict())

    @classmethod
    def load(cls, path) -> BinaryLinearModel:
        """Read a model written by :meth:`save`, validating every field."""
        f = read_model_file(path, cls.FORMAT, cls.VERSION)
        f.require("method", "coef", "intercept")
        coef = f.vector("coef", bound=MAX_ABS_COEF)
        if len(coef) == 0:
            raise f.error("field 'coef' is empty")
        intercept = f.number("intercept")
        if not isinstance(f.data["method"], str):
            raise f.error("field 'method' must be a string")
        names = f.names("feature_names") if f.data.get("feature_names") is not None else None
        dropped = f.names("dropped_features", nonempty=False) \
            if "dropped_features" in f.data else []
        best = f.data.get("best_step")
        if best is not None:
            best = f.number("best_step", integer=True)
        params = f.data.get("params") or {}
        if not isinstance(params, dict):
            raise f.error("field 'params' must be an object")
        hist = f.data.get("history") or {}
        if not isinstance(hist, dict) or not all(isinstance(v, list) for v in hist.values()):
            raise f.error("field 'history' must be an object of columns")
        seconds = f.data.get("seconds")
        seconds = float("nan") if seconds is None else f.number("seconds")
        return cls(coef, intercept, f.data["method"], params, pd.DataFrame(hist), seconds,
                   names, dropped, best)


# ---------------------------------------------------------------------- validation


def check_features(X, name: str = "X", *, n_features: int | None = None) -> np.ndarray:
    """Validate a 2-D finite numeric feature matrix and return it as float array.

    Examples
    --------
    >>> check_features([[1, 2], [3, 4]]).shape
    (2, 2)
    >>> check_features([[1, float("nan")]])
    Traceback (most recent call last):
    ...
    ValueError: X must be finite: row 0, column 1 is nan
    """
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    try:
        Xa = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric matrix") from exc
    if Xa.ndim != 2:
        raise ValueError(f"{name} must be two-dimensional (n_samples, n_features), got shape "
                         f"{Xa.shape}")
    if Xa.shape[0] == 0 or Xa.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {Xa.shape}")
    bad = ~np.isfinite(Xa)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite: row {r}, column {c} is {float(Xa[r, c])}")
    if n_features is not None and Xa.shape[1] != n_features:
        raise ValueError(f"{name} has {Xa.shape[1]} features, expected {n_features}")
    return Xa


def _check_xy(X, y, name: str = "X", yname: str = "y"):
    Xa = check_features(X, name)
    pos = check_binary_labels(y, yname)
    if len(pos) != Xa.shape[0]:
        raise ValueError(f"{name} has {Xa.shape[0]} rows but {yname} has {len(pos)} labels")
    return Xa, pos


def _check_validation(validation, n_features: int):
    if validation is None:
        return None
    if not isinstance(validation, Sequence) or len(validation) != 2:
        raise TypeError("validation must be a pair (X_valid, y_valid) or None")
    Xv, pv = _check_xy(validation[0], validation[1], "validation X", "validation y")
    if Xv.shape[1] != n_features:
        raise ValueError(f"validation X has {Xv.shape[1]} features, expected {n_features}")
    return Xv, pv


class _Standardizer:
    """Column means and standard deviations (ddof 0) of the training rows, from
    :func:`penlearn.fitting.scaling.standardize_features`; constant columns get weight 0."""

    def __init__(self, X: np.ndarray) -> None:
        scaling = standardize_features(X, ddof=0)  # raises when every column is constant
        kept = np.zeros(X.shape[1], bool)
        kept[list(scaling.columns)] = True
        self.constant = ~kept
        self.mean = X.mean(axis=0)
        self.sd = np.ones(X.shape[1])
        self.mean[kept] = scaling.mean
        self.sd[kept] = scaling.scale

    def __call__(self, X: np.ndarray) -> np.ndarray:
        Z = (X - self.mean) / self.sd
        Z[:, self.constant] = 0.0
        return Z

    def unscale(self, w: np.ndarray, b: float) -> tuple[np.ndarray, float]:
        return unscale_weights(np.where(self.constant, 0.0, w), b, self.mean, self.sd)


def balanced_intercept(scores: np.ndarray, pos: np.ndarray) -> float:
    """Intercept b such that ``scores + b > 0`` minimises FPR + FNR on these scores.

    The cut is placed midway between consecutive distinct scores (or 1 beyond the
    extremes); the first best cut from the top is taken.

    Examples
    --------
    >>> balanced_intercept(np.array([0.0, 1.0, 2.0, 3.0]), np.array([False, False, True, True]))
    -1.5
    """
    roc = binary_roc(pos.astype(int), scores)
    err = roc.fpr + (1.0 - roc.tpr)
    k = int(np.argmin(err))
    thr = roc.thresholds  # thr[k] = smallest score predicted positive at point k
    if k == 0:
        cut = thr[1] + 1.0
    elif k == len(thr) - 1:
        cut = thr[k] - 1.0
    else:
        cut = 0.5 * (thr[k] + thr[k + 1])
    return -float(cut)


def _metrics(w, Xs, pos, valid, fpr_max: float | None = None) -> dict:
    out = {"train_auc": roc_auc(pos, Xs @ w)}
    if valid is not None:
        sv = valid[0] @ w
        out["valid_auc"] = roc_auc(valid[1], sv)
        if fpr_max is not None:
            out["valid_pauc"] = partial_auc(valid[1], sv, 0.0, fpr_max, normalize=True)
    return out


def _finish(method, st, w, b, Xs, pos, params, history, t0, fit_intercept=True):
    if fit_intercept:
        b = balanced_intercept(Xs @ w, pos)
    coef, intercept = st.unscale(w, b)
    return BinaryLinearModel(
        coef, intercept, method, params, pd.DataFrame(history), time.perf_counter() - t0
    )


def _check_positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _grid(value, default: tuple, name: str, has_validation: bool) -> list[float]:
    if value is None:
        return list(default) if has_validation else [default[len(default) // 2]]
    if isinstance(value, (list, tuple, np.ndarray)):
        vals = [_check_positive(v, name) for v in value]
        if not vals:
            raise ValueError(f"{name} grid is empty")
        if len(vals) > 1 and not has_validation:
            raise ValueError(f"a grid of {name} values needs validation=(X, y) to choose one")
        return vals
    return [_check_positive(value, name)]
