"""Error functions over log λ (the "evaluation" table) and their validation.

An evaluation table has one row per (sequence, interval of log λ on which the selected
model is constant) with columns ``sequence_id, min_log_lambda, max_log_lambda, fp, fn``
and usually ``possible_fp, possible_fn, labels, errors``. Per sequence the intervals
partition (−∞, ∞).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._checks import bounded_rows, check_evaluation, id_list, require_columns
from penlearn.changepoint.labels import check_labels, id_type_hint, label_errors
from penlearn.changepoint.model_selection import _as_vector, selection_path


def error_functions(
    models: pd.DataFrame,
    changes: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    complexity: str = "n_segments",
) -> pd.DataFrame:
    """Label error functions over log λ: the evaluation table of the labeled sequences.

    For each labeled sequence, the exact penalty path of its models
    (:func:`penlearn.changepoint.model_selection`, with ``loss`` and ``complexity``) gives the
    interval of log λ on which each selected model is optimal; the label errors of that
    model (:func:`penlearn.label_errors`) are constant on it. This is the piecewise
    constant error function of Hillman & Hocking (2023, Section 2) and Fowler & Hocking
    (2024, Section 2), the input of :func:`penlearn.breakpoints_from_errors`.

    Parameters
    ----------
    models : DataFrame
        ``sequence_id, n_segments, loss`` (as :func:`penlearn.segment_sequences` returns).
    changes : DataFrame
        ``sequence_id, n_segments, position``.
    labels : DataFrame
        ``sequence_id, start, end, annotation`` (+ optional ``weight``).
    complexity : str
        The column of ``models`` (and ``changes``) giving the model complexity.

    Returns
    -------
    DataFrame
        ``sequence_id, <complexity>, loss, min_lambda, max_lambda, min_log_lambda,
        max_log_lambda, fp, fn, possible_fp, possible_fn, labels, errors``; per sequence
        from the largest penalty (fewest changes) to the smallest, partitioning
        (−∞, ∞) in log λ (it passes :func:`check_evaluation`).

    Examples
    --------
    >>> models = pd.DataFrame({"sequence_id": "a", "n_segments": [1, 2, 3],
    ...                        "loss": [10.0, 4.0, 3.5]})
    >>> changes = pd.DataFrame({"sequence_id": "a", "n_segments": [2, 3, 3],
    ...                         "position": [50, 50, 80]})
    >>> labels = pd.DataFrame({"sequence_id": ["a"], "start": [40], "end": [60],
    ...                        "annotation": ["1change"]})
    >>> ev = error_functions(models, changes, labels)
    >>> ev[["n_segments", "min_lambda", "max_lambda", "fn"]].values.tolist()
    [[1.0, 6.0, inf, 1.0], [2.0, 0.5, 6.0, 0.0], [3.0, 0.0, 0.5, 0.0]]
    """

    require_columns(models, ["sequence_id", complexity, "loss"], "models")
    require_columns(changes, ["sequence_id", complexity, "position"], "changes")
    lab = check_labels(labels)
    labeled = pd.unique(lab["sequence_id"])
    known = set(pd.unique(models["sequence_id"]))
    missing = [s for s in labeled if s not in known]
    if missing:
        raise ValueError(
            f"{id_list(missing, 'labeled sequence(s)')} have no models: a labeled sequence "
            f"needs data (and models) to have error functions{id_type_hint(missing, known)}"
        )
    mod = models[models["sequence_id"].isin(labeled)].reset_index(drop=True)
    rows, lo_all, hi_all = [], [], []
    codes, uniques = pd.factorize(mod["sequence_id"])
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    loss_all = mod["loss"].to_numpy()
    comp_all = mod[complexity].to_numpy()
    for g, sid in enumerate(uniques):
        idx = order[bounds[g] : bounds[g + 1]]
        try:
            loss = _as_vector(loss_all[idx], "loss")
            comp = _as_vector(comp_all[idx], complexity)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"models of sequence {sid!r}: {exc}") from exc
        sel, lo, hi = selection_path(loss, comp)
        rows.append(idx[sel][::-1])
        lo_all.append(lo[::-1])
        hi_all.append(hi[::-1])
    rows = np.concatenate(rows)
    selected = mod.iloc[rows].reset_index(drop=True)
    selected["min_lambda"] = np.concatenate(lo_all)
    selected["max_lambda"] = np.concatenate(hi_all)
    with np.errstate(divide="ignore"):
        selected["min_log_lambda"] = np.log(selected["min_lambda"].to_numpy())
        selected["max_log_lambda"] = np.log(selected["max_lambda"].to_numpy())
    keys = selected[["sequence_id", complexity]]
    ch = changes.merge(keys, on=["sequence_id", complexity], how="inner")
    errs = label_errors(selected, ch, lab, model_vars=complexity).model_errors
    cols = ["sequence_id", complexity, "loss", "min_lambda", "max_lambda", "min_log_lambda",
            "max_log_lambda", "fp", "fn", "possible_fp", "possible_fn", "labels", "errors"]
    extra = [c for c in errs.columns if c not in cols]
    return check_evaluation(errs[cols + extra])


def _largest_min_run(errors: np.ndarray, width: np.ndarray) -> tuple[int, int]:
    """First and last index of the widest run of consecutive minimum-error intervals.

    Intervals are in increasing order of penalty. Ties between runs of equal total width
    go to the later run (larger penalty); when both the first and the last interval
    (the two unbounded ones) are minimal, the whole line is returned, as
    ``penaltyLearning::targetIntervals`` does.
    """
    is_min = errors == errors.min()
    if len(errors) > 1 and is_min[0] and is_min[-1] and np.isinf(width[0]) and np.isinf(
        width[-1]
    ):
        return 0, len(errors) - 1
    edges = np.diff(np.r_[0, is_min.astype(np.int8), 0])
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    sizes = np.array([width[a : b + 1].sum() for a, b in zip(starts, ends, strict=True)])
    best = np.flatnonzero(sizes == sizes.max())[-1]
    return int(starts[best]), int(ends[best])


def target_intervals(evaluation: pd.DataFrame) -> pd.DataFrame:
    """Per sequence, the widest interval of log λ with minimum label errors.

    Consecutive intervals with the minimum number of errors are joined into runs; the
    run of largest total width in log λ is the target (ties: the run with larger
    penalty). A *bounded* sequence (lowest row marked ``bounded``, see
    :func:`~penlearn._checks.check_evaluation`) has its minimum over the known rows, and
    a run that reaches the bound b ends there (a finite lower limit): nothing below b
    is claimed. This is the output of interval regression (Hocking et al. 2013, ICML;
    ``penaltyLearning::targetIntervals``).

    Parameters
    ----------
    evaluation : DataFrame
        ``sequence_id, min_log_lambda, max_log_lambda`` and ``errors`` (or ``fp, fn``).

    Returns
    -------
    DataFrame
        ``sequence_id, min_log_lambda, max_log_lambda, errors``: one row per sequence in
        order of first appearance.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": "a", "min_log_lambda": [-np.inf, 0.0, 2.0],
    ...                    "max_log_lambda": [0.0, 2.0, np.inf], "errors": [1, 0, 1]})
    >>> target_intervals(ev).values.tolist()
    [['a', 0.0, 2.0, 0.0]]
    """
    require_columns(evaluation, ["sequence_id", "min_log_lambda", "max_log_lambda"],
                    "evaluation")
    ev = evaluation.copy()
    if "errors" not in ev.columns:
        require_columns(ev, ["fp", "fn"], "evaluation (no 'errors' column)")
        ev["errors"] = ev["fp"] + ev["fn"]
    if not pd.api.types.is_numeric_dtype(ev["errors"]) or pd.api.types.is_bool_dtype(
        ev["errors"]
    ):
        raise TypeError("evaluation column 'errors' must be the (numeric) number of label errors")
    err = ev["errors"].to_numpy(dtype=float)
    if not np.isfinite(err).all():
        sid = ev["sequence_id"].to_numpy()[~np.isfinite(err)][0]
        raise ValueError(f"evaluation column 'errors' must be finite (sequence {sid!r})")
    lo = pd.to_numeric(ev["min_log_lambda"]).to_numpy(dtype=float)
    hi = pd.to_numeric(ev["max_log_lambda"]).to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        width = hi - lo
    bad = ~(width > 0)
    if bad.any():
        sid = ev["sequence_id"].to_numpy()[bad][0]
        raise ValueError(
            f"evaluation: every interval must have max_log_lambda > min_log_lambda "
            f"(positive width); sequence {sid!r} has a zero-width or invalid interval"
        )
    codes, uniques = pd.factorize(ev["sequence_id"])
    order = np.lexsort((lo, codes))
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    first, last = bounds[:-1], bounds[1:] - 1
    s_lo, s_hi, s_err, s_w = lo[order], hi[order], err[order], width[order]
    group = codes[order]
    starts = np.zeros(len(order), bool)
    starts[first] = True
    bad = ((s_lo[first] != -np.inf) & ~bounded_rows(ev)[order[first]]) | (s_hi[last] != np.inf)
    bad[group[1:][(s_lo[1:] != s_hi[:-1]) & ~starts[1:]]] = True
    if bad.any():
        sid = uniques[int(np.flatnonzero(bad)[0])]
        raise ValueError(
            f"evaluation: the log λ intervals of sequence {sid!r} do not partition "
            "(-inf, inf)"
        )
    # the widest run of minimum errors (_largest_min_run), at once where a sequence has
    # one such run or all of the line is minimal, else by the function
    out_err = np.minimum.reduceat(s_err, first)
    is_min = s_err == out_err[group]
    ends = np.zeros(len(order), bool)
    ends[last] = True
    run_a = np.flatnonzero(is_min & (starts | ~np.r_[False, is_min[:-1]]))
    run_b = np.flatnonzero(is_min & (ends | ~np.r_[is_min[1:], False]))
    n_runs = np.bincount(group[run_a], minlength=len(uniques))
    a, b = s_lo[run_a[np.cumsum(n_runs) - n_runs]], s_hi[run_b[np.cumsum(n_runs) - 1]]
    out_lo, out_hi = a.copy(), b.copy()
    whole = (last > first) & is_min[first] & is_min[last] & np.isinf(s_w[first]) \
        & np.isinf(s_w[last])
    out_lo[whole], out_hi[whole] = s_lo[first[whole]], s_hi[last[whole]]
    for g in np.flatnonzero((n_runs > 1) & ~whole).tolist():
        f, e = int(first[g]), int(last[g]) + 1
        ra, rb = _largest_min_run(s_err[f:e], s_w[f:e])
        out_lo[g], out_hi[g] = s_lo[f + ra], s_hi[f + rb]
    return pd.DataFrame(
        {"sequence_id": uniques, "min_log_lambda": out_lo, "max_log_lambda": out_hi,
         "errors": out_err}
    )
