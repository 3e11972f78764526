"""Prediction rules of :class:`penlearn.PenaltyModel` kept out of the estimator's module:
the one feature-selection path (by name), the non-finite feature rule of the linear model,
the check that every prediction is finite, features computed from a sequence, and the JSON
fields of the scaling and of boosted trees (:mod:`penlearn.learn.boosting`, which routes
missing values in trees).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from penlearn._checks import id_list, sequence_label
from penlearn.changepoint.features import feature_matrix
from penlearn.learn.boosting import TREE_FIELDS, check_trees
from penlearn.learn.scaling import FeatureScaling

__all__ = ["check_prediction", "check_sequence", "linear_design", "scaling_dict",
           "select_features", "sequence_features", "trees_from_json", "trees_to_json",
           "warn_missing"]


def scaling_dict(scaling: FeatureScaling) -> dict:
    out = {"mean": [float(v) for v in scaling.mean], "scale": [float(v) for v in scaling.scale]}
    if scaling.low is not None:
        out["low"] = [float(v) for v in scaling.low]
        out["high"] = [float(v) for v in scaling.high]
    return out


def select_features(X, cols: list, names_in: list) -> tuple[np.ndarray, pd.Index | None]:
    """The model's feature columns ``cols`` of ``X``, as a float matrix, and the row labels.

    One path for every model kind: a DataFrame, or a Series (one row indexed by feature
    names), is read **by name** (a model column present twice is refused: which copy is
    meant is unknown); an array is read by position, in the order of ``cols`` or of
    ``names_in`` (the columns the model was fitted on).

    Examples
    --------
    >>> x = pd.DataFrame({"b": [2.0], "a": [1.0]}, index=["s"])
    >>> select_features(x, ["a", "b"], ["a", "b"])[0].tolist()
    [[1.0, 2.0]]
    >>> select_features(pd.Series({"b": 2.0, "a": 1.0}), ["a", "b"], ["a", "b"])[0].tolist()
    [[1.0, 2.0]]
    """
    if isinstance(X, pd.Series) and not isinstance(X.index, pd.RangeIndex):
        X = X.to_frame().T  # one row, read by name (a RangeIndex: values by position)
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        count = pd.Series(names).value_counts()
        dup = [c for c in cols if count.get(str(c), 0) > 1]
        if dup:
            raise ValueError(f"X has the feature column(s) {dup[:5]} more than once: which "
                             "copy is meant is unknown; give each column once")
        pos = {n: i for i, n in enumerate(names)}
        missing = [c for c in cols if str(c) not in pos]
        if missing:
            raise ValueError(f"X is missing feature column(s): {id_list(missing, 'column(s)')}")
        take = X.iloc[:, [pos[str(c)] for c in cols]]
        try:
            return take.to_numpy(dtype=float), X.index
        except (TypeError, ValueError):
            for c in take.columns:
                try:
                    take[c].to_numpy(dtype=float)
                except (TypeError, ValueError):
                    raise ValueError(f"X column {c!r} holds values that are not "
                                     "numbers") from None
            raise
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"X must hold numbers ({exc})") from None
    if A.ndim == 1:
        A = A[None, :]
    n_in = len(names_in)
    if A.ndim == 2 and A.shape[1] == n_in and n_in != len(cols):
        pos = {str(c): i for i, c in enumerate(names_in)}
        A = A[:, [pos[str(c)] for c in cols]]
    if A.ndim != 2 or A.shape[1] != len(cols):
        raise ValueError(f"X must have {n_in} feature columns, got shape {A.shape}")
    return A, None


def _row_names(index, rows) -> list:
    return [sequence_label(index[r]) if index is not None else int(r) for r in rows]


def warn_missing(index, rows: np.ndarray, cols: list, rule: str, stacklevel: int = 3) -> None:
    """One warning naming the rows predicted by the missing-value rule ``rule`` (attributed
    to the caller ``stacklevel`` frames up: the user's ``predict`` call)."""
    rows = np.flatnonzero(rows)
    if len(rows):
        warnings.warn(f"{id_list(_row_names(index, rows), 'row(s)')} have NaN in feature(s) "
                      f"the model uses ({', '.join(map(str, cols[:5]))}"
                      f"{', ...' if len(cols) > 5 else ''}): predicted with {rule}",
                      UserWarning, stacklevel=stacklevel)


def linear_design(A, index, cols, coef, scaling, clip: bool = False) -> np.ndarray:
    """The linear model's features with the rule for non-finite values (see
    :meth:`PenaltyModel.predict`): weight 0 ignores a feature; ±inf is clipped to the
    training range; NaN takes the training mean (one warning names the rows); ``clip``
    clips every value to the training range.

    Examples
    --------
    >>> from penlearn.learn.scaling import FeatureScaling
    >>> sc = FeatureScaling(("a",), np.array([2.0]), np.array([1.0]), (),
    ...                     np.array([0.0]), np.array([5.0]))
    >>> linear_design(np.array([[np.inf], [1.0]]), None, ["a"], np.array([1.0]), sc).tolist()
    [[5.0], [1.0]]
    """
    ranged = (scaling is not None and scaling.low is not None
              and list(scaling.columns) == list(cols))
    A = np.ascontiguousarray(A)  # one memory layout: a row's sum does not depend on others
    bad = ~np.isfinite(A)
    if bad.any():
        A = A.copy()
        A[:, coef == 0] = 0.0  # a zero weight ignores the feature, whatever its value
        nan = np.isnan(A)
        known = scaling is not None and list(scaling.columns) == list(cols)
        if nan.any() and known:  # missing: the training mean (standardised value 0)
            A = np.where(nan, scaling.mean, A)
            warn_missing(index, nan.any(axis=1), [c for c, m in zip(cols, nan.any(axis=0))
                                                 if m], "the training mean of each such "
                         "feature", stacklevel=5)
        if ranged:
            A = np.where(np.isposinf(A), scaling.high, np.where(np.isneginf(A), scaling.low, A))
        bad = ~np.isfinite(A)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            why = ("the model records no training mean" if np.isnan(A[r, c]) else
                   "the model records no training range to clip it to")
            raise ValueError(f"X has a non-finite value in row {_row_names(index, [r])[0]!r}, "
                             f"column {cols[c]!r} (weight {coef[c]:.3g}; {why}); "
                             f"{int(bad.sum())} such value(s)")
    if clip and ranged:
        A = np.clip(A, scaling.low, scaling.high)  # no extrapolation beyond training
    return A


def check_prediction(pred: np.ndarray, index) -> np.ndarray:
    """``pred`` unless a value is not finite: then a ValueError naming the first such row
    (one check for every model kind: a log λ of ±inf or NaN is no prediction).

    Examples
    --------
    >>> check_prediction(np.array([1.0, np.inf]), pd.Index(["a", "b"]))
    Traceback (most recent call last):
    ...
    ValueError: the predicted log λ of row 'b' is inf (1 row(s) not finite): ...
    """
    bad = ~np.isfinite(pred)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise ValueError(f"the predicted log λ of row {_row_names(index, [r])[0]!r} is "
                         f"{float(pred[r])!r} ({int(bad.sum())} row(s) not finite): the "
                         "features or the model's values are beyond what a float can hold")
    return pred


def check_sequence(values) -> np.ndarray:
    """The values of a sequence to segment: a non-empty, flat array of finite numbers.

    Examples
    --------
    >>> check_sequence([1.0, np.nan])
    Traceback (most recent call last):
    ...
    ValueError: sequence: value 2 of 2 is nan; segment() needs finite numbers (1 such value(s))
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"sequence must be one flat sequence of values, got shape "
                         f"{values.shape}")
    if len(values) == 0:
        raise ValueError("sequence is empty: there is nothing to segment")
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"sequence: value {i + 1} of {len(values)} is {float(values[i])!r}; "
                         f"segment() needs finite numbers ({int(bad.sum())} such value(s))")
    return values


def sequence_features(values, positions, columns) -> pd.DataFrame:
    long = pd.DataFrame({"sequence_id": "s", "position": positions, "value": values})
    for kind in ("penaltyLearning", "chipseq", "neuroblastoma"):
        try:
            fm = feature_matrix(long, kind)
        except ValueError:
            continue
        if set(columns) <= set(fm.columns):
            return fm
    raise ValueError(
        "segment(): no feature set of penlearn.changepoint.features has all the model's "
        "columns; pass features= explicitly"
    )


def trees_to_json(trees: list) -> list:
    """Boosted trees as JSON lists (floats written with full precision by ``json``)."""
    return [{f: [int(v) if f in ("left", "right", "feature") else float(v) for v in t[f]]
             for f in TREE_FIELDS} for t in trees]


def trees_from_json(data, n_features: int, bound: float | None = None) -> list:
    """Trees read back from :func:`trees_to_json` output, validated
    (:func:`penlearn.learn.boosting.check_trees`; node values within ±``bound``); a
    malformed one raises ValueError.

    Examples
    --------
    >>> t = {"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
    ...      "threshold": [0.5, -2.0, -2.0], "value": [0.0, -1.0, 1.0]}
    >>> from penlearn.learn.boosting import predict_trees
    >>> trees = trees_from_json(trees_to_json([t]), 1)
    >>> predict_trees(trees, np.array([[0.0], [1.0]])).tolist()
    [-1.0, 1.0]
    """
    if not isinstance(data, list):
        raise ValueError("field 'trees' must be a list of trees")
    out = []
    for k, t in enumerate(data):
        if not isinstance(t, dict) or set(t) != set(TREE_FIELDS):
            raise ValueError(f"tree {k} must be an object with the fields {list(TREE_FIELDS)}")
        for f in ("left", "right", "feature"):  # exact JSON integers: no 0.5 -> 0, true -> 1
            if not isinstance(t[f], list) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in t[f]):
                raise ValueError(f"tree {k}: field '{f}' must be a list of integers")
        for f in ("threshold", "value"):  # numbers: JSON true / false are no leaf values
            if not isinstance(t[f], list) or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in t[f]):
                raise ValueError(f"tree {k}: field '{f}' must be a list of numbers")
        try:
            out.append({f: np.asarray(t[f], dtype=np.int64 if f in ("left", "right", "feature")
                                      else float) for f in TREE_FIELDS})
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"tree {k}: its arrays must hold numbers ({exc})") from exc
        if any(a.ndim != 1 for a in out[-1].values()):
            raise ValueError(f"tree {k}: each field must be a flat list")
    check_trees(out, n_features)
    for k, t in enumerate(out):
        if bound is not None and np.any(np.abs(t["value"]) > bound):
            raise ValueError(f"tree {k}: a node value is beyond ±{bound:g}")
    return out
