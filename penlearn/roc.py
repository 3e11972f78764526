"""Generalized ROC curves of penalty predictions (ROC-change), AUC and AUM.

A constant c added to every predicted log λ moves every sequence along its error
function; the totals FP(c), FN(c) trace a ROC curve that can loop when the error
functions are not monotone, so its signed area (AUC) can exceed 1 or be negative
(Hillman & Hocking 2023, Section 2.2; Fowler & Hocking 2024,
Fowler & Hocking 2024). :func:`roc_change` reproduces the tables of
``penaltyLearning::ROChange`` row for row; :func:`breakpoints_auc` gives the same AUC
from a :class:`~penlearn.breakpoints.Breakpoints` set and scores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn._checks import (
    bounded_rows,
    check_evaluation,
    group_codes,
    id_list,
    require_columns,
)
from penlearn._repr import compact_repr
from penlearn.aum import check_scores, threshold_groups
from penlearn.breakpoints import Breakpoints, breakpoints_from_checked


def path_auc(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """Signed trapezoid area along a ROC path, closed with (0,0) and (1,1) if missing.

    Parameters
    ----------
    fpr, tpr : ndarray
        The path's points in order, starting from the low-FPR end.

    Examples
    --------
    >>> path_auc(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0]))
    1.0
    """
    x, y = _close_path(np.asarray(fpr, float), np.asarray(tpr, float))
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1])) / 2.0)


def _close_path(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(x) == 0 or not (x[0] == 0 and y[0] == 0):
        x, y = np.r_[0.0, x], np.r_[0.0, y]
    if not (x[-1] == 1 and y[-1] == 1):
        x, y = np.r_[x, 1.0], np.r_[y, 1.0]
    return x, y


def partial_path_auc(fpr, tpr, fpr_max: float, fpr_min: float = 0.0) -> float:
    """Signed area under a (closed) ROC path restricted to fpr_min ≤ FPR ≤ fpr_max.

    Each segment of the path contributes the integral of its TPR over the part of its
    FPR range inside [fpr_min, fpr_max] (McClish's partial AUC, Narasimhan & Agarwal 2013),
    signed by the direction it is traversed, so loops are handled as in the full AUC.

    Examples
    --------
    >>> partial_path_auc([0.0, 0.0, 1.0], [0.0, 1.0, 1.0], 0.5)
    0.5
    """
    if not (0.0 <= fpr_min < fpr_max <= 1.0):
        raise ValueError(
            f"need 0 <= fpr_min < fpr_max <= 1, got fpr_min={fpr_min}, fpr_max={fpr_max}"
        )
    x, y = _close_path(np.asarray(fpr, float), np.asarray(tpr, float))
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    dx = x1 - x0
    moving = dx != 0
    a = np.clip(x0, fpr_min, fpr_max)
    b = np.clip(x1, fpr_min, fpr_max)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(moving, (y1 - y0) / np.where(moving, dx, 1.0), 0.0)
    ya = y0 + slope * (a - x0)
    yb = y0 + slope * (b - x0)
    return float(np.sum(np.where(moving, (b - a) * (ya + yb) / 2.0, 0.0)))


def breakpoints_auc(breakpoints: Breakpoints, scores) -> float:
    """Generalized ROC AUC of scores, from breakpoints (ties give diagonal segments).

    FPR = FP/ΣΔFP and TPR = 1 − FN/(−ΣΔFN) for each interval of thresholds; the path
    runs from (0, 0) (threshold −∞) to (1, 1) (threshold +∞) and may loop when the
    error functions are not monotone.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> breakpoints_auc(breakpoints_from_labels([0, 1]), [0.0, 1.0])
    1.0
    """
    fpr, tpr = breakpoints_roc_points(breakpoints, scores)
    return path_auc(fpr, tpr)


def breakpoints_roc_points(breakpoints: Breakpoints, scores) -> tuple[np.ndarray, np.ndarray]:
    """The (FPR, TPR) points of the generalized ROC curve of scores, in path order.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> fpr, tpr = breakpoints_roc_points(breakpoints_from_labels([0, 1]), [0.0, 1.0])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])
    """
    s = check_scores(scores, breakpoints.n_examples)
    fp_tot, fn_tot = breakpoints.fp_total, breakpoints.fn_total
    if not fp_tot > 0:
        raise ValueError(f"AUC needs a positive total FP (sum of fp_diff), got {fp_tot}")
    if not fn_tot > 0:
        raise ValueError(f"AUC needs a positive total FN (-sum of fn_diff), got {fn_tot}")
    t = breakpoints.value - s[breakpoints.example]
    _, _, _, _, _, fp_a, fn_a = threshold_groups(t, breakpoints.fp_diff, breakpoints.fn_diff)
    fpr = np.r_[0.0, fp_a / fp_tot]
    tpr = np.r_[0.0, 1.0 - fn_a / fn_tot]
    return fpr, tpr


@dataclass(frozen=True)
class ROCChange:
    """Result of :func:`roc_change`.

    Attributes
    ----------
    roc : DataFrame
        One row per interval of the constant ``c`` added to every predicted log λ,
        ``min_thresh`` increasing: ``min_thresh, max_thresh, fp, fn, possible_fp,
        possible_fn, fpr, tpr, min_fp_fn, errors, labels, tp, error_percent``.
    auc : float
        Signed area under the (possibly looping) ROC path.
    aum : float
        Area under min(FP, FN) over c; inf when min(FP, FN) > 0 on an unbounded
        interval.
    thresholds : DataFrame
        Two rows of the roc table: ``"predicted"`` (c = 0, the interval with
        min_thresh < 0 ≤ max_thresh) and ``"min_error"`` (first row of minimum errors).
    auc_polygon : DataFrame
        ``fpr, tpr``: the closed path used for the AUC, as penaltyLearning reports it.
    aum_grad : DataFrame
        ``sequence_id, lo, hi``: left/right derivatives of AUM with respect to each
        predicted log λ.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from penlearn import roc_change
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...                    "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 1],
    ...                    "possible_fp": 1, "possible_fn": 1, "labels": 2, "errors": 1})
    >>> r = roc_change(ev, [0.5])
    >>> r.auc, r.roc[["fpr", "tpr"]].values.tolist()
    (0.5, [[1.0, 1.0], [0.0, 0.0]])
    """

    roc: pd.DataFrame
    auc: float
    aum: float
    thresholds: pd.DataFrame
    auc_polygon: pd.DataFrame
    aum_grad: pd.DataFrame

    def partial_auc(self, fpr_max: float, fpr_min: float = 0.0) -> float:
        """Signed area under the ROC path for fpr_min ≤ FPR ≤ fpr_max."""
        poly = self.auc_polygon
        return partial_path_auc(poly["fpr"].to_numpy()[:-1], poly["tpr"].to_numpy()[:-1],
                                fpr_max, fpr_min)

    @property
    def predicted(self) -> pd.Series:
        """The roc row at the predictions themselves (c = 0)."""
        return self.thresholds.loc["predicted"]


def _predictions_series(log_lambda, ids: pd.Index) -> pd.Series:
    if isinstance(log_lambda, pd.DataFrame):
        col = next((c for c in ("log_lambda", "pred_log_lambda") if c in log_lambda.columns),
                   None)
        if col is None or "sequence_id" not in log_lambda.columns:
            raise ValueError(
                "log_lambda as a DataFrame needs columns 'sequence_id' and 'log_lambda' "
                f"(or 'pred_log_lambda'); it has {list(log_lambda.columns)}"
            )
        if log_lambda["sequence_id"].duplicated().any():
            dup = log_lambda["sequence_id"][log_lambda["sequence_id"].duplicated()].iloc[0]
            raise ValueError(f"more than one prediction for sequence {dup!r}")
        pred = pd.Series(log_lambda[col].to_numpy(), index=log_lambda["sequence_id"])
    elif isinstance(log_lambda, pd.Series):
        pred = log_lambda
    elif isinstance(log_lambda, Mapping):
        pred = pd.Series(dict(log_lambda))
    else:
        arr = np.asarray(log_lambda)
        if arr.ndim != 1 or len(arr) != len(ids):
            raise ValueError(
                f"log_lambda as an array must have one value per sequence of the evaluation "
                f"table ({len(ids)}, in order of first appearance); got shape {arr.shape}"
            )
        pred = pd.Series(arr, index=ids)
    if pred.index.has_duplicates:
        raise ValueError(
            f"more than one prediction for sequence {pred.index[pred.index.duplicated()][0]!r}"
        )
    try:
        values = pred.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError("log_lambda must be numeric") from exc
    if not np.all(np.isfinite(values)):
        bad = pred.index[~np.isfinite(values)][0]
        raise ValueError(f"all predictions must be finite; sequence {bad!r} has {pred[bad]!r}")
    missing = ids.difference(pred.index)
    if len(missing):
        raise ValueError(f"no prediction for {id_list(list(missing))}")
    extra = pred.index.difference(ids)
    if len(extra):
        raise ValueError(
            f"prediction(s) for {id_list(list(extra))} not in the evaluation table"
        )
    return pd.Series(values, index=pred.index).reindex(ids)


def roc_change(evaluation: pd.DataFrame, log_lambda) -> ROCChange:
    """Generalized ROC curve, AUC and AUM of penalty predictions.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions: ``sequence_id, min_log_lambda, max_log_lambda, fp, fn,
        possible_fp, possible_fn`` (and ``labels``), per sequence a partition of
        (−∞, ∞) in log λ, or of (b, ∞) for a sequence whose lowest row is marked
        ``bounded`` (a path stopped at log λ = b). Breakpoints, ROC and AUM hold a
        bounded sequence's lowest row below b (no jump is known there); the ``roc`` table
        then has a column ``exact``: True on the rows whose constant keeps every
        sequence at or above its bound (the rows that depend on nothing below a bound).
    log_lambda : Series, dict, DataFrame or array
        Predicted log λ per sequence: a Series/dict keyed by sequence id, a DataFrame
        with ``sequence_id, log_lambda``, or an array in the evaluation's order of first
        appearance.

    Returns
    -------
    ROCChange
        ``roc`` table, ``auc``, ``aum``, ``thresholds``, ``auc_polygon``, ``aum_grad``
        and :meth:`ROCChange.partial_auc`.

    Notes
    -----
    Thresholds are the constant added to every predicted log λ, as in
    ``penaltyLearning::ROChange``: the first row (from −∞) has the most complex models.
    The AUC path is oriented from its low-FPR end and closed with (0,0) and (1,1);
    for non-monotone error functions it loops and the AUC can exceed 1.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]})
    >>> res = roc_change(ev, {"a": 0.5, "b": 0.5})
    >>> res.auc, res.aum
    (1.0, 0.0)
    """
    require_columns(
        evaluation,
        ["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn", "possible_fp",
         "possible_fn"],
        "evaluation",
    )
    return roc_change_checked(check_evaluation(evaluation), log_lambda)


def min_error_shift(bp: Breakpoints, scores=None) -> float:
    """The constant c minimising the label errors FP + FN of ``scores + c`` on ``bp``.

    The one best-constant rule of the package: the intercept of a learned model
    (Fowler & Hocking 2024), the level of log λ, and with ``scores=None`` the best
    constant penalty (:func:`best_constant_log_lambda`). A direct count: with thresholds
    t_b = v_b − score[I_b], FP(c) + FN(c) = −ΣΔFN + Σ_{t_b < c} (ΔFP_b + ΔFN_b), so it
    needs neither class (no positive or no negative label is fine). Thresholds whose
    jumps cancel (ΔFP + ΔFN = 0 in total) change nothing and are skipped, so the
    returned c is the middle of a whole interval of fewest errors, one unit inside it
    when it is unbounded; 0 when no threshold changes the errors. Among several such
    intervals, the one of smallest c: the fewest changes, the largest penalty (the rule
    of Fowler & Hocking 2024 for the intercept).

    Parameters
    ----------
    bp : Breakpoints
    scores : array-like, optional
        Score of each example (default: all 0).

    Returns
    -------
    float

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> min_error_shift(breakpoints_from_labels([0, 1]), np.array([0.0, 1.0]))
    -0.5
    >>> bp, s = breakpoints_from_labels([0, 1]), np.array([1.0, 0.0])
    >>> # errors: 1 (FN) for c < -1, 2 on (-1, 0), 1 (FP) for c > 0
    >>> min_error_shift(bp, s)
    -2.0
    """
    if len(bp) == 0:
        return 0.0
    s = np.zeros(bp.n_examples) if scores is None else np.asarray(scores, dtype=float)
    t = bp.value - s[bp.example]
    order = np.argsort(t, kind="stable")
    ts = t[order]
    jump = (bp.fp_diff + bp.fn_diff)[order].astype(float)
    starts = np.flatnonzero(np.r_[True, ts[1:] != ts[:-1]])
    cut, net = ts[starts], np.add.reduceat(jump, starts)
    cut, net = cut[net != 0], net[net != 0]
    if len(cut) == 0:
        return 0.0
    err = np.r_[0.0, np.cumsum(net)]  # errors − constant on (cut[i-1], cut[i]]
    best = np.flatnonzero(err == err.min())
    i = int(best[0])
    lo = cut[i - 1] if i > 0 else -np.inf
    hi = cut[i] if i < len(cut) else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return float((lo + hi) / 2.0)
    return float(hi - 1.0) if np.isfinite(hi) else float(lo + 1.0)


def best_constant_log_lambda(evaluation: pd.DataFrame) -> float:
    """The one log λ of fewest label errors when every sequence of ``evaluation`` gets
    it: the middle of the interval of fewest errors (one unit inside it when it is
    unbounded, the largest penalty when several tie, 0 when no error function changes).
    The baseline a learned penalty should beat on label errors (the "best constant" of
    Hocking et al. 2013, and of
    ``benchmarks/all_sets.py``); :func:`min_error_shift` counts the errors, so no
    negative and no positive label is needed (a few labeled windows may have neither).

    Parameters
    ----------
    evaluation : DataFrame
        Error functions of the training sequences (``sequence_id, min_log_lambda,
        max_log_lambda, fp, fn``; or ``errors`` in place of ``fp, fn``).

    Returns
    -------
    float
        The constant log λ.

    Examples
    --------
    >>> import numpy as np
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 2.0],
    ...     "max_log_lambda": [0.0, np.inf, 2.0, np.inf],
    ...     "fp": [1, 0, 1, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 1, 1], "possible_fn": [1, 1, 1, 1]})
    >>> best_constant_log_lambda(ev)
    1.0
    """
    if not {"fp", "fn"} <= set(evaluation.columns) and "errors" in evaluation.columns:
        evaluation = evaluation.assign(fp=evaluation["errors"], fn=0)
    bp = breakpoints_from_checked(check_evaluation(evaluation))
    return 0.0 - min_error_shift(bp)  # score = −log λ


def _check_possible(ev: pd.DataFrame, seq, ids, codes) -> None:
    """possible_fp/possible_fn/labels: non-negative and constant per sequence."""
    for col in ("possible_fp", "possible_fn") + (("labels",) if "labels" in ev else ()):
        vals = pd.to_numeric(ev[col]).to_numpy(dtype=float)
        if np.isnan(vals).any() or (vals < 0).any():
            raise ValueError("possible_fn/possible_fp/labels should be non-negative")
        # rows of a sequence are contiguous (check_evaluation sorts them): compare each
        # row with its sequence's first row
        first = np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1]
        ref = vals[first][np.cumsum(np.r_[True, codes[1:] != codes[:-1]]) - 1]
        varies = vals != ref
        if varies.any():
            bad = ids[codes[int(np.flatnonzero(varies)[0])]]
            raise ValueError(f"{col} should be constant for each sequence; {bad!r} varies")
    # fp <= possible_fp and fn <= possible_fn: checked by check_evaluation


def _aum_gradient(ids, ex, d_fp, d_fn, fp_b, fn_b, fp_a, fn_a, group) -> pd.DataFrame:
    """Directional derivatives of AUM with respect to each predicted log λ (moving it by
    +ε moves the sequence's thresholds by −ε: the right derivative crosses each boundary
    upward)."""
    fpb, fnb, fpa, fna = fp_b[group], fn_b[group], fp_a[group], fn_a[group]
    hi = np.minimum(fpb + d_fp, fnb + d_fn) - np.minimum(fpb, fnb)
    lo = -(np.minimum(fpa - d_fp, fna - d_fn) - np.minimum(fpa, fna))
    return pd.DataFrame(
        {
            "sequence_id": ids,
            "lo": np.bincount(ex, weights=lo, minlength=len(ids)),
            "hi": np.bincount(ex, weights=hi, minlength=len(ids)),
        }
    )


def _path_auc_polygon(fpr, tpr) -> tuple[float, pd.DataFrame]:
    """AUC of the ROC path oriented from its low-FPR end (ties: low TPR), as
    ``penaltyLearning::ROChange`` does, closed with (0,0) and (1,1); and its polygon."""
    if (fpr[0], tpr[0]) > (fpr[-1], tpr[-1]):
        px, py = fpr[::-1], tpr[::-1]
    else:
        px, py = fpr, tpr
    cx, cy = _close_path(px, py)
    auc = float(np.sum(np.diff(cx) * (cy[1:] + cy[:-1])) / 2.0)
    return auc, pd.DataFrame({"fpr": np.r_[cx, 1.0], "tpr": np.r_[cy, 0.0]})


def roc_change_checked(ev: pd.DataFrame, log_lambda) -> ROCChange:
    """:func:`roc_change` of an evaluation table already returned by
    :func:`penlearn._checks.check_evaluation` (sorted, validated): callers that evaluate
    many predictions on one table validate it once.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from penlearn._checks import check_evaluation
    >>> ev = check_evaluation(pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]}))
    >>> roc_change_checked(ev, [0.5, 0.5]).auc
    1.0
    """
    seq = ev["sequence_id"].to_numpy()
    codes, heads = group_codes(seq)
    ids = pd.Index(heads)
    _check_possible(ev, seq, ids, codes)
    fp = ev["fp"].to_numpy(float)
    fn = ev["fn"].to_numpy(float)
    pred = _predictions_series(log_lambda, ids).to_numpy()
    last = np.r_[seq[1:] != seq[:-1], True]  # smallest-λ row of each sequence
    first = np.r_[True, seq[1:] != seq[:-1]]
    possible_fp = float(ev["possible_fp"].to_numpy(float)[first].sum())
    possible_fn = float(ev["possible_fn"].to_numpy(float)[first].sum())
    n_labels = float(ev["labels"].to_numpy(float)[first].sum()) if "labels" in ev else np.nan
    if possible_fp <= 0:
        raise ValueError("no negative labels: the total possible_fp is 0, so FPR is undefined")
    if possible_fn <= 0:
        raise ValueError("no positive labels: the total possible_fn is 0, so TPR is undefined")

    # boundaries: row r (larger λ, above) vs row r+1 (smaller λ, below) of one sequence
    rows = np.flatnonzero(~last)
    d_fp = fp[rows] - fp[rows + 1]
    d_fn = fn[rows] - fn[rows + 1]
    keep = (d_fp != 0) | (d_fn != 0)
    rows, d_fp, d_fn = rows[keep], d_fp[keep], d_fn[keep]
    tau = ev["min_log_lambda"].to_numpy(float)[rows] - pred[codes[rows]]
    order, group, t, fp_b, fn_b, fp_a, fn_a = threshold_groups(tau, d_fp, d_fn)
    base_fp, base_fn = fp[last].sum(), fn[last].sum()
    # threshold_groups anchors FP at 0 on the left and FN at 0 on the right: re-anchor
    # both at the most complex models (c = -inf)
    fn_shift = base_fn - fn_b[:1].sum()
    fp_b, fp_a = fp_b + base_fp, fp_a + base_fp
    fn_b, fn_a = fn_b + fn_shift, fn_a + fn_shift
    fp_rows = np.r_[base_fp, fp_a]
    fn_rows = np.r_[base_fn, fn_a]
    min_thresh = np.r_[-np.inf, t]
    max_thresh = np.r_[t, np.inf]
    min_fp_fn = np.minimum(fp_rows, fn_rows)
    errors = fp_rows + fn_rows
    fpr = fp_rows / possible_fp
    tp = possible_fn - fn_rows
    tpr = tp / possible_fn
    roc = pd.DataFrame(
        {
            "min_thresh": min_thresh,
            "max_thresh": max_thresh,
            "fp": fp_rows,
            "fn": fn_rows,
            "possible_fp": possible_fp,
            "possible_fn": possible_fn,
            "fpr": fpr,
            "tpr": tpr,
            "min_fp_fn": min_fp_fn,
            "errors": errors,
            "labels": n_labels,
            "tp": tp,
            "error_percent": 100.0 * errors / n_labels,
        }
    )
    if "bounded" in ev.columns:
        # bounded error functions claim nothing below their bound b: a row is exact when
        # every sequence's log λ (prediction + constant) is at or above its b
        low = last & bounded_rows(ev)
        lo_last = ev["min_log_lambda"].to_numpy(float)[low]
        c_star = float(np.max(lo_last - pred[codes[low]])) if low.any() else -np.inf
        roc["exact"] = min_thresh >= c_star
    with np.errstate(invalid="ignore"):
        area = np.where(min_fp_fn == 0, 0.0, min_fp_fn * (max_thresh - min_thresh))
    auc, polygon = _path_auc_polygon(fpr, tpr)
    i_pred = int(np.flatnonzero((min_thresh < 0) & (0 <= max_thresh))[0])
    thresholds = roc.iloc[[i_pred, int(np.argmin(errors))]].copy()
    thresholds.index = pd.Index(["predicted", "min_error"], name="threshold")
    aum_grad = _aum_gradient(ids, codes[rows][order], d_fp[order], d_fn[order],
                             fp_b, fn_b, fp_a, fn_a, group)
    return ROCChange(roc, auc, float(np.sum(area)), thresholds, polygon, aum_grad)


# --------------------------------------------------------------------------- fast AUC of penalties


class ChangepointROC:
    """ROChange AUC (FPR = FP/Σpossible_fp) of scores on a fixed evaluation table.

    Precomputes the count breakpoints once, so that each AUC costs one sort; equal to
    ``roc_change(evaluation, -scores).auc`` (tested). ``ev`` is an evaluation table
    returned by :func:`penlearn._checks.check_evaluation` (or a subset of its sequences).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from penlearn._checks import check_evaluation
    >>> ev = check_evaluation(pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]}))
    >>> ChangepointROC(ev, ["a", "b"]).auc(np.array([-0.5, -0.5]))
    1.0
    """

    def __init__(self, ev: pd.DataFrame, ids: list) -> None:
        # ev: as returned by check_evaluation (sorted), or a subset of its sequences
        for col in ("possible_fp", "possible_fn"):
            if col not in ev:
                raise ValueError(f"evaluation is missing column {col!r}")
        self.bp = breakpoints_from_checked(ev, sequence_ids=ids)
        seq = ev["sequence_id"].to_numpy()
        last = np.r_[seq[1:] != seq[:-1], True]
        first = np.r_[True, seq[1:] != seq[:-1]]
        self.possible_fp = float(ev["possible_fp"].to_numpy(float)[first].sum())
        self.possible_fn = float(ev["possible_fn"].to_numpy(float)[first].sum())
        # actual totals at score +inf (the most complex models)
        self.fp_end = float(ev["fp"].to_numpy(float)[last].sum())
        self.fn_end = float(ev["fn"].to_numpy(float)[last].sum())

    def auc(self, scores: np.ndarray) -> float:
        """The AUC of ``scores``; NaN when the sequences hold one label class only (no
        ROC curve: :func:`roc_change` refuses them; a CV fold of one class has no AUC)."""
        if not (self.possible_fp > 0 and self.possible_fn > 0):
            return math.nan
        bp = self.bp
        t = bp.value - scores[bp.example]
        _, _, _, fp_b, fn_b, fp_a, fn_a = threshold_groups(t, bp.fp_diff, bp.fn_diff)
        fp0 = self.fp_end - bp.fp_total  # actual FP at score -inf
        fp = np.r_[fp_b[:1], fp_a] + fp0 if len(t) else np.array([fp0])
        fn = np.r_[fn_b[:1], fn_a] + self.fn_end if len(t) else np.array([self.fn_end])
        # roc_change lists rows from score +inf (c = -inf) to score -inf
        fpr = fp[::-1] / self.possible_fp
        tpr = (self.possible_fn - fn[::-1]) / self.possible_fn
        if (fpr[0], tpr[0]) > (fpr[-1], tpr[-1]):
            fpr, tpr = fpr[::-1], tpr[::-1]
        return path_auc(fpr, tpr)


def changepoint_auc(evaluation: pd.DataFrame, log_lambda) -> float:
    """Generalized ROC AUC of log λ predictions (``roc_change(...).auc``), fast.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions with ``possible_fp, possible_fn``.
    log_lambda : array-like or Series
        One prediction per sequence (Series indexed by sequence id, or an array in the
        evaluation's order of first appearance).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]})
    >>> changepoint_auc(ev, [0.5, 0.5])
    1.0
    """
    ids = list(pd.unique(evaluation["sequence_id"]))
    if isinstance(log_lambda, pd.Series):
        pred = log_lambda.reindex(ids).to_numpy(dtype=float)
    else:
        pred = np.asarray(log_lambda, dtype=float)
    if pred.shape != (len(ids),) or not np.all(np.isfinite(pred)):
        raise ValueError(f"log_lambda must hold one finite value for each of {len(ids)} sequences")
    return ChangepointROC(check_evaluation(evaluation), ids).auc(-pred)


ROCChange.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
