"""A handful of labels: the prior's ranking, the level the labels say.

With a prior penalty model (for ChIP-seq the shipped zero-label model) and a few
labeled windows, what the labels can pin is the **level** of log λ: the shift s of
log λ = prior(x) + s (the slope transfers across data sets, the level does not;
``benchmarks/RESULTS.md``, "pretrained" and "few_labels"). The shift is a small
Bayesian choice on a grid of s:

- before any label, s is about 0 with standard deviation :data:`SHIFT_SD` (the spread of
  the 17 public sets' own levels around the prior's);
- each label error of the labeled windows at log λ = prior(x) + s weighs
  ``exp(−ERROR_WEIGHT)``: the weight of s is ``exp(−s²/2σ² − β·E(s))``
  (:func:`likely_shifts`, also what :mod:`penlearn.learn.propose` proposes from);
- the shift chosen (:func:`level_shift`) is the one of largest weight once E is smoothed
  over ± :data:`BANDWIDTH` (a shift a hair away from a jump of E counts the errors on
  both sides: the labeled windows are a sample of the set, their steps are not exactly
  the set's).

:func:`learn_penalty` (``model="auto"``) uses it with a prior and at most
:data:`SHIFT_MAX_SEQUENCES` labeled sequences: measured on the 17 sets (leave one set
out, ``benchmarks/few_labels.py``), up to that many windows a learned model (its own
cross-validation on a handful of sequences) does not beat the shifted prior and costs
seconds a fit, the shift milliseconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.learn.flood import extend_path_ends, flood_bound, peaks_per_mb
from penlearn.learn.model import PenaltyModel
from penlearn.learn.prior import shift_prior, too_few_labels

__all__ = ["BANDWIDTH", "ERROR_WEIGHT", "SHIFT_MAX_SEQUENCES", "SHIFT_SD", "errors_on_grid",
           "few_reason", "level_shift", "likely_shifts", "shift_grid", "shifted_prior"]

#: Standard deviation of the sets' levels around the prior's (log λ units).
SHIFT_SD = 2.0
#: β: the weight of a shift falls by exp(−β) with each label error more.
ERROR_WEIGHT = 1.0
#: Half-width (standard deviation of a Gaussian, log λ units) over which the label
#: errors are smoothed before the shift is chosen.
BANDWIDTH = 0.25
#: With a prior and at most this many labeled sequences, ``learn_penalty(model="auto")``
#: returns the prior shifted by :func:`level_shift`.
SHIFT_MAX_SEQUENCES = 20
#: The grid of shifts: ±``_SPAN`` log λ, step ``_STEP``.
_SPAN, _STEP = 8.0, 0.02


def shift_grid() -> np.ndarray:
    """The shifts considered (log λ units, symmetric about 0).

    Examples
    --------
    >>> g = shift_grid()
    >>> float(g[0]), float(g[-1]), len(g)
    (-8.0, 8.0, 801)
    """
    n = int(round(_SPAN / _STEP))
    return np.round(_STEP * np.arange(-n, n + 1), 10)


def errors_on_grid(evaluation: pd.DataFrame | None, base: pd.Series,
                   grid: np.ndarray) -> np.ndarray:
    """E(s): the label errors of the windows of ``evaluation`` at log λ = base + s.

    Parameters
    ----------
    evaluation : DataFrame or None
        Error functions (``sequence_id, min_log_lambda, max_log_lambda, errors``).
    base : Series
        log λ of each of those windows before the shift, indexed by window id.
    grid : ndarray
        Sorted shifts.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 1.0],
    ...     "max_log_lambda": [1.0, np.inf], "errors": [2, 0]})
    >>> errors_on_grid(ev, pd.Series({"a": 0.5}), np.array([0.0, 0.5, 1.0])).tolist()
    [2.0, 0.0, 0.0]
    >>> ev2 = ev.assign(min_log_lambda=[-1.0, 1.0])  # the path ends at -1: 2 errors below
    >>> errors_on_grid(ev2, pd.Series({"a": 0.5}), np.array([-3.0, 0.0])).tolist()
    [2.0, 2.0]
    """
    if evaluation is None or len(evaluation) == 0:
        return np.zeros(len(grid))
    if "errors" not in evaluation.columns and {"fp", "fn"} <= set(evaluation.columns):
        # 'errors' is optional in an evaluation table (fp + fn), at any size
        evaluation = evaluation.assign(errors=evaluation["fp"] + evaluation["fn"])
    for c in ("sequence_id", "min_log_lambda", "max_log_lambda", "errors"):
        if c not in evaluation.columns:
            raise ValueError(f"the labeled windows' error functions have no {c!r} column "
                             "(nor fp and fn)")
    # past the ends of a window's computed path its errors are those at the end (not 0)
    evaluation = extend_path_ends(evaluation)
    p = base.reindex(evaluation["sequence_id"]).to_numpy(float)
    if np.isnan(p).any():
        bad = evaluation["sequence_id"].to_numpy()[np.isnan(p)][0]
        raise ValueError(f"labeled window {bad!r} has no prior log λ (no features)")
    a = np.searchsorted(grid, evaluation["min_log_lambda"].to_numpy(float) - p, side="left")
    b = np.searchsorted(grid, evaluation["max_log_lambda"].to_numpy(float) - p, side="left")
    err = evaluation["errors"].to_numpy(float)
    diff = np.zeros(len(grid) + 1)
    np.add.at(diff, a, err)
    np.add.at(diff, b, -err)
    return np.cumsum(diff)[:-1]


def likely_shifts(evaluation: pd.DataFrame | None, base: pd.Series
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The weight of each shift s of the prior's log λ given the labels so far:
    ``exp(−s²/2σ² − β·(E(s) − min E))``, normalised.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 1.0],
    ...     "max_log_lambda": [1.0, np.inf], "errors": [3, 0]})
    >>> g, w = likely_shifts(ev, pd.Series({"a": 0.0}))
    >>> bool(w[g >= 1].sum() > 0.9)  # three errors below s = 1: the level is above it
    True
    """
    grid = shift_grid()
    E = errors_on_grid(evaluation, base, grid)
    logw = -0.5 * (grid / SHIFT_SD) ** 2 - ERROR_WEIGHT * (E - E.min())
    w = np.exp(logw - logw.max())
    return grid, w / w.sum()


def _smooth(E: np.ndarray) -> np.ndarray:
    n = int(round(3 * BANDWIDTH / _STEP))
    ker = np.exp(-0.5 * (np.arange(-n, n + 1) * _STEP / BANDWIDTH) ** 2)
    return np.convolve(np.pad(E, n, mode="edge"), ker / ker.sum(), mode="valid")


def level_shift(evaluation: pd.DataFrame, base: pd.Series) -> float:
    """The shift s of log λ = base + s of largest weight given the labels: the
    minimum of β·Ẽ(s) + s²/2σ² (Ẽ: the label errors smoothed over ± :data:`BANDWIDTH`),
    the one nearest 0 among ties; a shift lowering log λ only as far as
    :func:`~penlearn.learn.flood.flood_bound` allows (the computed paths' ends, no more
    peaks on the labeled windows than the labels support).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "a"],
    ...     "min_log_lambda": [-np.inf, 1.0, 3.0], "max_log_lambda": [1.0, 3.0, np.inf],
    ...     "errors": [4, 0, 4]})
    >>> level_shift(ev, pd.Series({"a": 0.0}))  # inside the error-free (1, 3), nearest 0
    1.58
    >>> level_shift(ev.iloc[:0], pd.Series({"a": 0.0}))  # no label: the prior's level
    0.0
    """
    grid = shift_grid()
    E = errors_on_grid(evaluation, base, grid)
    obj = ERROR_WEIGHT * _smooth(E) + 0.5 * (grid / SHIFT_SD) ** 2
    if len(evaluation):  # a few labels never flood (penlearn.learn.flood)
        obj = np.where(flood_bound(evaluation, base, grid), obj, np.inf)
    best = np.flatnonzero(obj <= obj.min() + 1e-9)
    return float(grid[best[np.argmin(np.abs(grid[best]))]]) + 0.0


def shifted_prior(prior: PenaltyModel, features: pd.DataFrame, evaluation: pd.DataFrame,
                  reason: str) -> PenaltyModel:
    """``prior`` with its log λ shifted by :func:`level_shift` on the labels of
    ``evaluation``; ``level_`` and :meth:`PenaltyModel.describe` say so.

    Examples
    --------
    >>> from penlearn.learn.prior import constant_model
    >>> prior = constant_model(["x"], 0.0)
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0], "errors": [1, 0],
    ...     "possible_fp": 1, "possible_fn": 0, "labels": 1})
    >>> m = shifted_prior(prior, pd.DataFrame({"x": [0.0]}, index=["a"]), ev, "one window")
    >>> m.intercept_, m.level_["rule"]
    (2.34, 'prior')
    """
    model = shift_prior(prior, features, evaluation, reason)
    ids = list(pd.unique(evaluation["sequence_id"]))
    base = pd.Series(prior.predict(features.loc[ids]), index=ids)
    s = level_shift(evaluation, base)
    model.intercept_ = float(prior.intercept_) + s
    model.level_["shift"] = s
    model.level_.update(peak_density(evaluation, base, features, s))
    return model


def peak_density(evaluation: pd.DataFrame, base: pd.Series, features: pd.DataFrame,
                 shift: float) -> dict:
    """``{"peaks_per_mb_prior": …, "peaks_per_mb": …}``: the labeled windows' expected
    peaks per Mb at the prior's level and at ``shift`` (empty without ``peaks`` in the
    error functions or ``bases`` among the features); a count past a path's end is a
    lower bound, said by a ``≥`` in :meth:`PenaltyModel.describe`.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 1.0],
    ...     "max_log_lambda": [1.0, np.inf], "peaks": [4, 0]})
    >>> peak_density(ev, pd.Series({"a": 0.0}), pd.DataFrame({"bases": [2e6]}, index=["a"]),
    ...              2.0)
    {'peaks_per_mb_prior': 2.0, 'peaks_per_mb': 0.0}
    """
    if "peaks" not in evaluation.columns or "bases" not in features.columns:
        return {}
    bases = float(features.loc[list(base.index), "bases"].sum())
    if not bases > 0:
        return {}
    out = {}
    for key, s in (("peaks_per_mb_prior", 0.0), ("peaks_per_mb", shift)):
        v, exact = peaks_per_mb(evaluation, base, bases, s)
        out[key] = round(v, 3) if exact else f">={v:.3g}"
    return out


def few_reason(evaluation: pd.DataFrame) -> str:
    """Why the prior's ranking is kept and only its level learned (one line).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "b"], "possible_fp": 1, "possible_fn": 1})
    >>> few_reason(ev)
    '2 labeled sequences (at most 20): the prior ranks the windows, the labels set its level'
    """
    why = too_few_labels(evaluation)
    if why is not None:
        return f"{why}; the prior ranks the windows, the labels set its level"
    n = evaluation["sequence_id"].nunique()
    return (f"{n} labeled sequences (at most {SHIFT_MAX_SEQUENCES}): the prior ranks the "
            "windows, the labels set its level")
