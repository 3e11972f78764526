"""AUM gradient boosting: regression trees, each step by the exact AUM line search.

Functional gradient descent (Friedman 2001, "Greedy function approximation: a gradient
boosting machine") on the AUM of the scores (score = −log λ) of the subtrain sequences:
at stage m, with scores F (one per sequence),

1. ``aum(bp, F)`` gives the directional derivatives of AUM in each score (Hillman &
   Hocking 2023, "Optimizing ROC curves with a sort-based surrogate loss for binary
   classification and changepoint detection", JMLR); their mean g is the gradient;
2. a small regression tree h (scikit-learn's ``DecisionTreeRegressor``) is fit to −g on
   the subtrain features;
3. the step s is the exact AUM line search along the tree's predictions,
   ``line_search(bp, F, slopes=h(X))`` (Fowler & Hocking 2024, "Efficient line search
   for optimizing Area Under the ROC Curve in gradient descent": the line search works for
   any direction in prediction space), shrunk by the learning rate η: F ← F + η·s·h.

Stage 0 is the constant (every sequence the same score: AUM and AUC do not see the level,
which :mod:`penlearn.learn.level` sets); each stage is kept only if it pays on
validation (:func:`penlearn.fitting.descent.select_iterate` on the validation AUC).

Trees do not extrapolate: a test row beyond the training range of a feature falls in a
leaf fitted on training rows. A missing (NaN) feature value stops a row at the node that
splits on it, with that node's training mean (:func:`predict_trees`). A fitted tree is
kept as plain arrays (children, feature, threshold, leaf value), so predictions need no
scikit-learn and the model file holds them exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn.aum import aum
from penlearn.breakpoints import Breakpoints
from penlearn.fitting.descent import HISTORY_COLUMNS, select_iterate
from penlearn.learn.options import boosting_options
from penlearn.line_search import line_search

#: The line-search engine of each stage: certified skips over the events through which
#: AUM provably decreases (:mod:`penlearn.line_search.skip`; a tree's predictions take few
#: distinct values, which tightens the bound), then the kernel's sweep: the same steps as
#: the event-by-event walk (tested), ~15x less CPU than the bracket-at-a-time ``"blocks"``
#: sweep on the 17 ChIP-seq sets pooled (``benchmarks/RESULTS.md``, "fit_speed").
LS_METHOD = "skip"

__all__ = ["FLOAT32_MAX", "LS_METHOD", "TREE_FIELDS", "Boosted", "check_trees", "fit_boosting",
           "predict_trees", "tree_arrays", "tree_input"]

#: The arrays of one tree: node → left child, right child (−1 at a leaf), feature
#: (column of the model's kept features; −2 at a leaf), threshold (go left when
#: x ≤ threshold), value (the leaf's output, already multiplied by η·s).
TREE_FIELDS = ("left", "right", "feature", "threshold", "value")


@dataclass(frozen=True)
class Boosted:
    """The result of :func:`fit_boosting`.

    Attributes
    ----------
    trees : list of dict
        Every fitted stage (:data:`TREE_FIELDS` arrays, values scaled by η·s).
    history : DataFrame
        ``HISTORY_COLUMNS`` per stage (stage 0: the constant).
    best : int
        The number of stages kept (the selected iterate).
    """

    trees: list
    history: pd.DataFrame
    best: int


def tree_arrays(tree, scale: float) -> dict:
    """The arrays of a fitted scikit-learn ``DecisionTreeRegressor``, leaf values × ``scale``.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> t = DecisionTreeRegressor(max_depth=1).fit([[0.0], [1.0]], [0.0, 2.0])
    >>> a = tree_arrays(t, 0.5)
    >>> a["feature"].tolist(), a["value"].tolist()
    ([0, -2, -2], [0.5, 0.0, 1.0])
    """
    t = tree.tree_
    return {"left": t.children_left.astype(np.int64), "right": t.children_right.astype(np.int64),
            "feature": t.feature.astype(np.int64), "threshold": t.threshold.astype(float),
            "value": t.value[:, 0, 0].astype(float) * float(scale)}


def check_trees(trees: list, n_features: int) -> None:
    """Raise ValueError unless ``trees`` are well-formed tree arrays over ``n_features``
    columns (children in range and after their parent, so traversal ends).

    Examples
    --------
    >>> t = {"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
    ...      "threshold": [0.5, -2.0, -2.0], "value": [0.0, -1.0, 1.0]}
    >>> check_trees([t], 1)
    >>> check_trees([dict(t, left=[0, -1, -1])], 1)
    Traceback (most recent call last):
    ...
    ValueError: tree 0: node 0 has children [0, 2]; expected -1 (leaf) or nodes after 0
    """
    for k, t in enumerate(trees):
        n = len(t["value"])
        if n == 0 or any(len(t[f]) != n for f in TREE_FIELDS):
            raise ValueError(f"tree {k}: the arrays {TREE_FIELDS} must have one equal, "
                             "positive length")
        for i in range(n):
            lc, rc, f = int(t["left"][i]), int(t["right"][i]), int(t["feature"][i])
            leaf = lc == -1 and rc == -1
            if not leaf and not (i < lc < n and i < rc < n):
                raise ValueError(f"tree {k}: node {i} has children {[lc, rc]}; expected -1 "
                                 f"(leaf) or nodes after {i}")
            if not leaf and not 0 <= f < n_features:
                raise ValueError(f"tree {k}: node {i} splits on feature {f}; the model has "
                                 f"{n_features}")
            if not np.isfinite(float(t["value"][i])):
                raise ValueError(f"tree {k}: node {i} has a non-finite value")
            if not leaf and not np.isfinite(float(t["threshold"][i])):
                raise ValueError(f"tree {k}: node {i} has a non-finite threshold")


#: The largest float32: scikit-learn's trees see features as float32, so values beyond it
#: (finite in float64, e.g. 1e300) are clipped to it, at fit and at prediction alike
#: (the same order as ±inf: beyond every threshold).
FLOAT32_MAX = float(np.finfo(np.float32).max)


def tree_input(A: np.ndarray) -> np.ndarray:
    """Features as the trees see them: float64 values of float32 numbers, those beyond the
    float32 range clipped to it (NaN kept).

    Examples
    --------
    >>> x = tree_input(np.array([[1e300, -np.inf, np.nan]]))[0]
    >>> bool(x[0] == FLOAT32_MAX and x[1] == -FLOAT32_MAX and np.isnan(x[2]))
    True
    """
    A = np.clip(np.asarray(A, dtype=np.float64), -FLOAT32_MAX, FLOAT32_MAX)
    return A.astype(np.float32).astype(np.float64)


def predict_trees(trees: list, A: np.ndarray, *, return_missing: bool = False):
    """Sum of the trees' outputs for each row of ``A`` (float64, the model's columns).

    A row goes left at a node when its value, rounded to float32 as scikit-learn does,
    is ≤ the threshold; ±inf (and finite values beyond the float32 range) go to the
    extreme leaves. The result equals scikit-learn's ``predict`` (times the stored scale)
    exactly. A row whose value of a node's split feature is NaN (missing) stops at that
    node and takes its value: the mean output of the training rows that reached the node,
    i.e. the tree's prediction without that split (a feature no node splits on is never
    read, whatever its value).

    Parameters
    ----------
    trees : list of dict
        :data:`TREE_FIELDS` arrays.
    A : ndarray
        One row per prediction, the model's columns.
    return_missing : bool
        Also return a boolean per row: some tree stopped it at a NaN.

    Examples
    --------
    >>> t = {"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
    ...      "threshold": [0.5, -2.0, -2.0], "value": [0.25, -1.0, 1.0]}
    >>> predict_trees([t, t], np.array([[0.0], [1.0], [np.inf], [np.nan]])).tolist()
    [-2.0, 2.0, 2.0, 0.5]
    """
    A32 = tree_input(A)
    out = np.zeros(len(A32))
    missing = np.zeros(len(A32), dtype=bool)
    rows = np.arange(len(A32))
    for t in trees:
        left, right = np.asarray(t["left"]), np.asarray(t["right"])
        feat, thr = np.asarray(t["feature"]), np.asarray(t["threshold"], float)
        node = np.zeros(len(A32), dtype=np.int64)
        inner = left[node] != -1
        while inner.any():
            r, nd = rows[inner], node[inner]
            x = A32[r, feat[nd]]
            stop = np.isnan(x)  # missing: the row stays at this node
            node[r] = np.where(stop, nd, np.where(x <= thr[nd], left[nd], right[nd]))
            missing[r[stop]] = True
            inner[r[stop]] = False
            inner[r[~stop]] = left[node[r[~stop]]] != -1
        with np.errstate(over="ignore", invalid="ignore"):  # PenaltyModel.predict reports it
            out += np.asarray(t["value"], float)[node]
    return (out, missing) if return_missing else out


def fit_boosting(
    A_sub: np.ndarray,
    bp_sub: Breakpoints,
    A_val: np.ndarray,
    evaluate,
    *,
    max_stages: int = 200,
    learning_rate: float = 0.5,
    max_depth: int = 2,
    min_samples_leaf: int = 10,
    patience: int = 20,
    select: str = "validation_auc",
    min_improvement: float = 0.0,
    random_state: int = 0,
) -> Boosted:
    """AUM gradient boosting of the subtrain scores, stages selected on validation.

    Parameters
    ----------
    A_sub, A_val : ndarray
        Subtrain / validation features (the model's kept columns, original scale).
    bp_sub : Breakpoints
        Subtrain breakpoints (normalised as the AUM to minimise).
    evaluate : callable
        ``evaluate(subtrain scores, validation scores)`` → (subtrain AUC, validation AUM,
        validation AUC).
    max_stages : int
        Upper bound on the number of trees.
    learning_rate : float
        η in (0, 1]: each stage moves η times the exact line-search step.
    max_depth, min_samples_leaf : int
        Size of each tree (``DecisionTreeRegressor`` options).
    patience : int
        Stop after this many stages without a new best validation AUC.
    select, min_improvement
        The rule that picks the number of stages (:func:`~penlearn.fitting.descent.select_iterate`).
    random_state : int
        Seeds the trees (ties between equally good splits).

    Returns
    -------
    Boosted

    Examples
    --------
    >>> import pandas as pd
    >>> from penlearn.breakpoints import breakpoints_from_errors
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(60, 1)); ids = [f"s{i:02d}" for i in range(60)]
    >>> ev = pd.DataFrame([r for i, xi in zip(ids, x[:, 0]) for r in [
    ...     (i, -np.inf, xi - 1, 1, 0, 1, 1), (i, xi - 1, xi + 1, 0, 0, 1, 1),
    ...     (i, xi + 1, np.inf, 0, 1, 1, 1)]], columns=["sequence_id", "min_log_lambda",
    ...     "max_log_lambda", "fp", "fn", "possible_fp", "possible_fn"])
    >>> bp = breakpoints_from_errors(ev[ev.sequence_id < "s40"], sequence_ids=ids[:40])
    >>> bv = breakpoints_from_errors(ev[ev.sequence_id >= "s40"], sequence_ids=ids[40:])
    >>> from penlearn.aum import aum
    >>> metrics = lambda fs, fv: (0.0, aum(bv, fv).aum, -aum(bv, fv).aum)
    >>> b = fit_boosting(x[:40], bp, x[40:], metrics, min_samples_leaf=2)
    >>> h = b.history["subtrain_aum"]
    >>> b.best >= 1, float(h.iloc[b.best]) < float(h.iloc[0])
    (True, True)
    """
    from sklearn.tree import DecisionTreeRegressor  # the learner's only sklearn use

    boosting_options({"max_stages": max_stages, "learning_rate": learning_rate,
                      "max_depth": max_depth, "min_samples_leaf": min_samples_leaf,
                      "patience": patience})  # the learner's one validator
    start = time.perf_counter()
    F, Fv = np.zeros(len(A_sub)), np.zeros(len(A_val))
    cur = aum(bp_sub, F)
    rows = [(0, 0.0, cur.aum, *evaluate(F, Fv), 0, time.perf_counter() - start)]
    trees, best_auc, since = [], rows[0][5], 0
    rng = np.random.default_rng(random_state)
    while len(trees) < max_stages and since < patience and cur.aum > 0:
        r = -cur.derivatives.mean(axis=1)
        if not np.any(r):
            break
        tree = DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                                     random_state=int(rng.integers(2**31)))
        tree.fit(tree_input(A_sub), r)  # as predict_trees sees them (no float32 overflow)
        unit = tree_arrays(tree, 1.0)
        h = predict_trees([unit], A_sub)
        if not np.any(h):
            break
        ls = line_search(bp_sub, F, slopes=h, stop="first_min", method=LS_METHOD)
        s = float(ls.step_size)
        if not (np.isfinite(s) and s > 0):
            break
        t = dict(unit, value=unit["value"] * (learning_rate * s))
        trees.append(t)
        F = F + predict_trees([t], A_sub)
        Fv = Fv + predict_trees([t], A_val)
        prev = cur.aum
        cur = aum(bp_sub, F)
        sub_auc, v_aum, v_auc = evaluate(F, Fv)
        rows.append((len(trees), s, cur.aum, sub_auc, v_aum, v_auc,
                     int(ls.path.shape[0] - 1), time.perf_counter() - start))
        since = 0 if v_auc > best_auc else since + 1
        best_auc = max(best_auc, v_auc)
        if prev - cur.aum <= 0:
            break
    history = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    best = select_iterate(history, select, min_improvement)
    return Boosted(trees[:best], history, best)
