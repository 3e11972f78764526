"""Prediction rules of :class:`penlearn.PenaltyModel` kept out of the estimator's module:
the non-finite feature rule of the linear model, features computed from a sequence, and
the JSON fields of the scaling and of boosted trees (:mod:`penlearn.learn.boosting`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.changepoint.features import feature_matrix
from penlearn.learn.boosting import TREE_FIELDS, check_trees
from penlearn.learn.scaling import FeatureScaling

__all__ = ["finite_design", "scaling_dict", "sequence_features", "tree_design",
           "trees_from_json", "trees_to_json"]


def scaling_dict(scaling: FeatureScaling) -> dict:
    out = {"mean": [float(v) for v in scaling.mean], "scale": [float(v) for v in scaling.scale]}
    if scaling.low is not None:
        out["low"] = [float(v) for v in scaling.low]
        out["high"] = [float(v) for v in scaling.high]
    return out


def finite_design(A, index, cols, coef, scaling) -> np.ndarray:
    """The prediction rule for non-finite features (see :meth:`PenaltyModel.predict`)."""
    bad = ~np.isfinite(A)
    if not bad.any():
        return A
    A = A.copy()
    A[:, coef == 0] = 0.0  # a zero weight ignores the feature, whatever its value
    bad = ~np.isfinite(A)
    low = None if scaling is None else scaling.low
    if low is not None and list(scaling.columns) == list(cols):
        A = np.where(np.isposinf(A), scaling.high, np.where(np.isneginf(A), low, A))
        bad = np.isnan(A)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        who = index[r] if index is not None else r
        why = ("no value can stand for NaN" if np.isnan(A[r, c]) else
               "the model records no training range to clip it to")
        raise ValueError(f"X has a non-finite value in row {who!r}, column {cols[c]!r} "
                         f"(weight {coef[c]:.3g}; {why}); {int(bad.sum())} such value(s)")
    return A


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


def tree_design(A: np.ndarray, index, cols) -> np.ndarray:
    """Features for boosted trees: any finite or infinite value (a tree sends ±inf to its
    extreme leaves, as a value beyond every training value); NaN raises a ValueError
    naming the row and column."""
    bad = np.isnan(A)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        who = index[r] if index is not None else r
        raise ValueError(f"X has NaN in row {who!r}, column {cols[c]!r}: a tree cannot "
                         f"route it; {int(bad.sum())} such value(s)")
    return A


def trees_to_json(trees: list) -> list:
    """Boosted trees as JSON lists (floats written with full precision by ``json``)."""
    return [{f: [int(v) if f in ("left", "right", "feature") else float(v) for v in t[f]]
             for f in TREE_FIELDS} for t in trees]


def trees_from_json(data, n_features: int) -> list:
    """Trees read back from :func:`trees_to_json` output, validated
    (:func:`penlearn.learn.boosting.check_trees`); a malformed one raises ValueError.

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
        try:
            out.append({f: np.asarray(t[f], dtype=np.int64 if f in ("left", "right", "feature")
                                      else float) for f in TREE_FIELDS})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"tree {k}: its arrays must hold numbers ({exc})") from exc
        if any(a.ndim != 1 for a in out[-1].values()):
            raise ValueError(f"tree {k}: each field must be a flat list")
    check_trees(out, n_features)
    return out
