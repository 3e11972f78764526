"""Baselines of ``all_sets.py`` that are not ``learn_penalty``: the best constant penalty
and AFT-XGBoost.

AFT-XGBoost is XGBoost's accelerated failure time objective (``survival:aft``; Barnwal,
Cho & Hocking 2022, "Survival regression with accelerated failure time model in
XGBoost", JCGS) fit to the target intervals of the sequences — the interval-censored
outputs of interval regression (Hocking et al. 2013) — as in the penalty-learning
comparisons of Nguyen & Hocking (2024). The model is log T = f(x) + σ·ε; with T = λ its
lower/upper label bounds are the target interval's exp(min_log_lambda) and
exp(max_log_lambda) (0 and +inf for the infinite ends, as XGBoost expects censored
bounds), and its margin f(x) is the predicted log λ (no level shift).

Untuned settings (``AFT_PARAMS``, chosen once from the literature, not on these data):
normal ε with σ = 1, trees of depth 2, learning rate 0.1, 100 rounds, ``hist`` trees, one
thread (two benchmark processes share two cores), fixed seed. Sequences whose target is
the whole line (no label constrains them) are left out of the fit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

AFT_PARAMS = {
    "objective": "survival:aft",
    "eval_metric": "aft-nloglik",
    "aft_loss_distribution": "normal",
    "aft_loss_distribution_scale": 1.0,
    "max_depth": 2,
    "learning_rate": 0.1,
    "tree_method": "hist",
    "nthread": 1,
    "seed": 1,
}
AFT_ROUNDS = 100


def constant_log_lambda(ev: pd.DataFrame) -> float:
    """The log λ with the fewest label errors when every sequence gets it: the library's
    :func:`penlearn.report.best_constant_log_lambda` (the one rule for the demo, the
    notebooks and this benchmark)."""
    from penlearn.report import best_constant_log_lambda

    return best_constant_log_lambda(ev)


def aft_bounds(evaluation: pd.DataFrame, ids) -> tuple[np.ndarray, np.ndarray]:
    """XGBoost AFT label bounds (λ scale) of the target intervals of ``ids``.

    >>> ev = pd.DataFrame({"sequence_id": "a", "min_log_lambda": [-np.inf, 0.0, 2.0],
    ...                    "max_log_lambda": [0.0, 2.0, np.inf], "errors": [1, 0, 1]})
    >>> aft_bounds(ev, ["a"])
    (array([1.]), array([7.3890561]))
    """
    from penlearn import target_intervals

    t = target_intervals(evaluation).set_index("sequence_id").reindex(list(ids))
    if t["min_log_lambda"].isna().any():
        missing = t.index[t["min_log_lambda"].isna()][0]
        raise ValueError(f"sequence {missing!r} has no rows in the evaluation table")
    lo = np.exp(t["min_log_lambda"].to_numpy(float))  # exp(-inf) = 0: left-censored
    hi = np.exp(t["max_log_lambda"].to_numpy(float))  # exp(+inf) = inf: right-censored
    return lo, hi


def aft_xgboost(X_train: pd.DataFrame, evaluation: pd.DataFrame, X_test: pd.DataFrame,
                params: dict | None = None, rounds: int = AFT_ROUNDS) -> np.ndarray:
    """Fit AFT-XGBoost on the target intervals of the training sequences; predicted
    log λ of the test rows.

    Parameters
    ----------
    X_train, X_test : DataFrame
        Features indexed by sequence id (the same columns).
    evaluation : DataFrame
        Error functions of (at least) the training sequences.
    params : dict, optional
        Overrides of ``AFT_PARAMS``.
    rounds : int
        Boosting rounds.
    """
    import xgboost as xgb

    if list(X_train.columns) != list(X_test.columns):
        raise ValueError("X_train and X_test must have the same feature columns")
    lo, hi = aft_bounds(evaluation, X_train.index)
    keep = (lo > 0) | np.isfinite(hi)  # a target of the whole line tells nothing
    if not keep.any():
        raise ValueError("no training sequence has a finite target bound")
    d = xgb.DMatrix(X_train.to_numpy(float)[keep])
    d.set_float_info("label_lower_bound", lo[keep])
    d.set_float_info("label_upper_bound", hi[keep])
    booster = xgb.train({**AFT_PARAMS, **(params or {})}, d, num_boost_round=rounds)
    return booster.predict(xgb.DMatrix(X_test.to_numpy(float)), output_margin=True)
