"""Few labels: a prior penalty model, shifted to the labels there are.

With one labeled window, one label class (only ``noPeaks``, say) or too few sequences to
hold some out, no model can be learned *and* validated. A prior model — for ChIP-seq
the shipped zero-label model of :mod:`penlearn.peaks.pretrained`, learned on 17 public
labeled sets — keeps its ranking of the sequences (its features' weights) and only its
level moves: log λ = prior(x) + s, with s the shift of fewest label errors on the
labels given, and among equally good shifts the one **nearest 0** (the prior's own
level unless the labels contradict it). One class of labels then only bounds the
shift: ``noPeaks`` labels can only raise λ, peak labels only lower it. Without a prior
the same rule applies to the constant penalty (the best constant of the labels).
With enough labels but at most :data:`PRIOR_MAX_SEQUENCES` labeled sequences,
``learn_penalty(..., prior=MODEL)`` (``model="auto"``): the learned candidates choose
as without a prior, and the prior (its ranking, the labels' level) takes the place of
the constant when they choose the constant (:func:`penlearn.learn.penalty.fit_penalty`;
its CV errors are recorded in ``choice_``). With more labeled
sequences the prior is not used: many labels lose nothing by its presence. Measured in
``benchmarks/RESULTS.md``, "pretrained" (few labels).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.aum import threshold_groups
from penlearn.breakpoints import breakpoints_from_errors
from penlearn.learn.flood import flood_bound
from penlearn.learn.model import PenaltyModel
from penlearn.learn.options import MIN_SEQUENCES, MIN_SEQUENCES_AUTO
from penlearn.learn.penalty import check_prior  # re-exported: its one place is there

__all__ = ["MIN_SEQUENCES", "MIN_SEQUENCES_AUTO", "PRIOR_MAX_SEQUENCES", "check_prior",
           "constant_model",
           "nearest_min_error_shift", "shift_prior", "too_few_labels"]

#: More labeled sequences than this: a prior is not used (the issue's "few labels": the
#: sets of at most 100 labeled sequences, where it was measured to help).
PRIOR_MAX_SEQUENCES = 100


def too_few_labels(evaluation: pd.DataFrame, model: str | None = None) -> str | None:
    """Why the labels of ``evaluation`` are too few to learn a model, or None.

    ``model="auto"`` needs :data:`MIN_SEQUENCES_AUTO` labeled sequences (its
    cross-validation learns each fold on at least :data:`MIN_SEQUENCES` and tests on
    one); any other model :data:`MIN_SEQUENCES` (one to learn on, one to validate on).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...     "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 0],
    ...     "possible_fp": 1, "possible_fn": 0})
    >>> too_few_labels(ev)
    '1 labeled sequence (at least 2 are needed to learn and validate a model)'
    >>> two = pd.concat([ev, ev.assign(sequence_id="b", possible_fn=1)])
    >>> too_few_labels(two, "auto")  # doctest: +NORMALIZE_WHITESPACE
    '2 labeled sequences (at least 3 are needed to choose a model by cross-validation:
    each fold learns on 2 and tests on 1)'
    """
    n = evaluation["sequence_id"].nunique()
    if n < MIN_SEQUENCES:
        return (f"{n} labeled sequence{'s' if n != 1 else ''} (at least {MIN_SEQUENCES} are "
                "needed to learn and validate a model)")
    first = evaluation.groupby("sequence_id", sort=False)[["possible_fp", "possible_fn"]].first()
    if not (first["possible_fn"] > 0).any():
        return "no label where a peak or change is expected (only one label class)"
    if not (first["possible_fp"] > 0).any():
        return "no label where no peak or change is allowed (only one label class)"
    if model == "auto" and n < MIN_SEQUENCES_AUTO:
        return (f"{n} labeled sequences (at least {MIN_SEQUENCES_AUTO} are needed to choose "
                f"a model by cross-validation: each fold learns on {MIN_SEQUENCES} and tests "
                "on 1)")
    return None


def nearest_min_error_shift(evaluation: pd.DataFrame, log_lambda: pd.Series) -> float:
    """The shift s of fewest label errors of ``log_lambda + s``, nearest 0 among ties.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0],
    ...     "possible_fp": 1, "possible_fn": 0})
    >>> nearest_min_error_shift(ev, pd.Series({"a": 0.0}))  # noPeaks: raise λ past 2
    3.0
    >>> nearest_min_error_shift(ev, pd.Series({"a": 5.0}))  # already right: unchanged
    0.0
    """
    ids = list(log_lambda.index)
    bp = breakpoints_from_errors(evaluation, sequence_ids=ids)
    if len(bp) == 0:
        return 0.0
    t = bp.value + log_lambda.to_numpy(float)[bp.example]  # score shift c = −s
    _, _, tt, fp_b, fn_b, fp_a, fn_a = threshold_groups(t, bp.fp_diff, bp.fn_diff)
    err = np.r_[fp_b[0] + fn_b[0], fp_a + fn_a]
    lo = np.r_[-np.inf, tt]
    hi = np.r_[tt, np.inf]
    best = np.flatnonzero(err == err.min())
    # each best interval's point nearest 0: 0 inside it, else one unit (at most half the
    # interval) inside its end nearest 0
    near = np.clip(0.0, lo[best], hi[best])
    k = best[int(np.argmin(np.abs(near)))]
    a, b = lo[k], hi[k]
    if a < 0 < b:
        c = 0.0
    elif b <= 0:
        c = max(b - 1.0, (a + b) / 2.0) if np.isfinite(a) else b - 1.0
    else:
        c = min(a + 1.0, (a + b) / 2.0) if np.isfinite(b) else a + 1.0
    return float(-c) + 0.0


def shift_prior(prior: PenaltyModel, features: pd.DataFrame, evaluation: pd.DataFrame,
                reason: str) -> PenaltyModel:
    """``prior`` with its log λ shifted by :func:`nearest_min_error_shift` on the labels
    of ``evaluation``; ``level_`` and :meth:`PenaltyModel.describe` say so.

    Examples
    --------
    >>> prior = constant_model(["x"], 0.0)
    >>> prior.coef_ = pd.Series([1.0], index=["x"])  # log λ = x
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0],
    ...     "possible_fp": 1, "possible_fn": 0})
    >>> m = shift_prior(prior, pd.DataFrame({"x": [0.0]}, index=["a"]), ev, "one window")
    >>> m.intercept_
    3.0
    """
    if not hasattr(prior, "history_"):
        raise ValueError("prior must be a fitted PenaltyModel (learned, or loaded from a "
                         "model file)")
    ids = list(pd.unique(evaluation["sequence_id"]))
    base = pd.Series(prior.predict(features.loc[ids]), index=ids)
    s = nearest_min_error_shift(evaluation, base)
    if s < 0:  # a few labels never flood (penlearn.learn.flood): up to the allowed shifts
        grid = np.r_[s, np.arange(np.ceil(s / 0.02) * 0.02, 0.0, 0.02), 0.0]
        s = float(grid[np.flatnonzero(flood_bound(evaluation, base, grid))[0]]) + 0.0
    model = PenaltyModel.from_dict(prior.to_dict(), source="prior")
    model.intercept_ = float(prior.intercept_) + s
    n = int(evaluation.groupby("sequence_id", sort=False)["labels"].first().sum()) \
        if "labels" in evaluation else None
    model.level_ = {**(getattr(prior, "level_", None) or {}), "rule": "prior",
                    "prior": getattr(prior, "prior_name_", "a prior penalty model"),
                    "shift": s, "labels": n, "reason": reason}
    return model


def constant_model(columns, log_lambda: float) -> PenaltyModel:
    """A constant model of log λ over feature ``columns`` (all weights 0).

    Examples
    --------
    >>> constant_model(["x"], 2.5).predict(pd.DataFrame({"x": [1.0, np.inf]})).tolist()
    [2.5, 2.5]
    """
    from penlearn.learn.model import FORMAT, FORMAT_VERSION, HISTORY_COLUMNS

    cols = [str(c) for c in columns]
    n = len(cols)
    return PenaltyModel.from_dict({
        "format": FORMAT, "version": FORMAT_VERSION, "kind": "penalty",
        "params": {"model": "constant"}, "features": cols, "coef": [0.0] * n,
        "intercept": float(log_lambda), "scaling": {"mean": [0.0] * n, "scale": [1.0] * n},
        "dropped_features": [], "feature_names_in": cols, "best_step": 0,
        "history": {c: [0.0] for c in HISTORY_COLUMNS}}, source="constant")
