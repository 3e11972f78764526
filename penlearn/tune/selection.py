"""A safe fall-back for learned penalties: choose, on the training signals only, between
learned penalty functions and the best constant penalty by K-fold cross-validation.

A learned penalty function log λ = f(features) only pays when the features tell the
signals' best penalties apart; when they do not (for example a kernel cost that already
rescales every signal, so that one λ fits them all), its slope only adds fit noise and it
makes more label errors than the best constant. Which case holds is measured on the
training signals: they are dealt into K folds, whole signals at a time (group K-fold,
each signal its own group); every candidate is learned on K − 1 folds and its label
errors are counted on the held-out fold at the penalty it predicts there (the error of
the model the detector returns at that penalty, read off the fold's error functions).
The candidate with the fewest errors over the K folds is refit on all training signals;
the constant wins ties (it is the simpler model), then the candidate listed first. This
is the comparison to a best-constant baseline of Hocking, Rigaill, Vert & Bach (2013,
ICML), made inside the training set by cross-validation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._folds import check_n_folds, deal_folds, singletons
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.roc import best_constant_log_lambda, roc_change

#: The name of the constant candidate.
CONSTANT = "constant"


def cv_folds(ids, n_folds: int = 5, seed: int | None = 0) -> pd.Series:
    """Fold number 0..K−1 of each id: a random permutation (``seed``) dealt in turn
    (:func:`penlearn._folds.deal_folds`, each id its own group).

    K is ``min(n_folds, len(ids))``, so folds differ in size by at most one.

    Examples
    --------
    >>> f = cv_folds(list("abcdefg"), n_folds=3, seed=0)
    >>> f.value_counts().sort_index().tolist(), list(f.index) == list("abcdefg")
    ([3, 2, 2], True)
    """
    check_n_folds("cv_folds", n_folds)
    return deal_folds(singletons(ids), n_folds, seed)


def fit_candidate(options: dict | None, features: pd.DataFrame,
                  evaluation: pd.DataFrame) -> float | PenaltyModel:
    """A candidate fitted to training signals: a PenaltyModel, or the constant log λ.

    ``options`` are keyword options of :func:`~penlearn.learn.learn_penalty`; None is the
    constant (:func:`~penlearn.roc.best_constant_log_lambda`).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...                    "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 0],
    ...                    "possible_fp": 1, "possible_fn": 0})
    >>> fit_candidate(None, pd.DataFrame(index=["a"]), ev)
    1.0
    """
    if options is None:
        return best_constant_log_lambda(evaluation)
    return learn_penalty(features, evaluation, **options)


def predict_candidate(fitted: float | PenaltyModel, features: pd.DataFrame) -> pd.Series:
    """Predicted log λ of a fitted candidate (:func:`fit_candidate`) per row of features.

    Examples
    --------
    >>> predict_candidate(-1.0, pd.DataFrame(index=["a", "b"])).tolist()
    [-1.0, -1.0]
    """
    if isinstance(fitted, float):
        return pd.Series(fitted, index=features.index, name="log_penalty")
    return pd.Series(fitted.predict(features), index=features.index, name="log_penalty")


def cv_errors(features: pd.DataFrame, evaluation: pd.DataFrame, candidates: dict,
              folds: pd.Series, done=None) -> pd.DataFrame:
    """Held-out label errors of each candidate in each fold.

    Parameters
    ----------
    features : DataFrame
        One row per training signal (indexed by id).
    evaluation : DataFrame
        Their error functions.
    candidates : dict
        Name → learn_penalty options, or None for the constant.
    folds : Series
        Fold of each signal id (:func:`cv_folds`).
    done : callable, optional
        Called with no argument after each fold (e.g. a progress bar's ``update``).

    Returns
    -------
    DataFrame
        Indexed by candidate name: one column per fold (label errors on that fold at the
        candidate's predictions), ``errors`` (their sum) and ``labels``. A candidate
        that cannot be learned on some fold's training part (``ValueError``) gets
        ``inf`` there.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"s{i}" for i in range(10)]
    >>> x = 3 * rng.normal(size=10)
    >>> ev = pd.DataFrame([r for i, xi in zip(ids, x) for r in [
    ...     (i, -np.inf, xi - 1, 1, 0), (i, xi - 1, xi + 1, 0, 0), (i, xi + 1, np.inf, 0, 1)]],
    ...     columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn"])
    >>> ev["possible_fp"] = 1; ev["possible_fn"] = 1
    >>> t = cv_errors(pd.DataFrame(index=ids), ev, {"constant": None},
    ...               cv_folds(ids, 5))
    >>> t.loc["constant", ["errors", "labels"]].tolist()
    [9.0, 20.0]
    """
    rows = {}
    seq = evaluation["sequence_id"]
    n_labels = 0.0
    for k in sorted(pd.unique(folds)):
        test = folds.index[folds == k]
        train = folds.index[folds != k]
        ev_tr, ev_te = evaluation[seq.isin(train)], evaluation[seq.isin(test)]
        n_labels += _n_labels(ev_te)
        for name, options in candidates.items():
            try:
                fitted = fit_candidate(options, features.loc[train], ev_tr)
            except ValueError:
                rows.setdefault(name, {})[k] = np.inf
                continue
            pred = predict_candidate(fitted, features.loc[list(pd.unique(ev_te["sequence_id"]))])
            rows.setdefault(name, {})[k] = float(roc_change(ev_te, pred).predicted["errors"])
        if done is not None:
            done()
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.columns = [f"fold {k}" for k in table.columns]
    table["errors"] = table.sum(axis=1)
    table["labels"] = n_labels
    table.index.name = "candidate"
    return table


def _n_labels(evaluation: pd.DataFrame) -> float:
    first = evaluation.drop_duplicates("sequence_id")
    if "labels" in first.columns:
        return float(first["labels"].sum())
    return float((first["possible_fp"] + first["possible_fn"]).sum())


def choose_candidate(errors: pd.DataFrame, rule: str = "fewest") -> str:
    """The candidate chosen from CV errors (:func:`cv_errors`).

    ``rule="fewest"``: the fewest errors over the folds; ties: the constant, then the one
    listed first. ``rule="1se"``: the one-standard-error rule (Breiman, Friedman, Olshen
    & Stone 1984; Hastie, Tibshirani & Friedman 2009, Section 7.10): the candidate of
    fewest errors only when it beats the constant by more than one standard error of
    their paired per-fold differences (sd of the K differences × √K, on the total), else
    the constant.

    Examples
    --------
    >>> t = pd.DataFrame({"errors": [3.0, 3.0, 4.0]},
    ...                  index=["learned", "constant", "other"])
    >>> choose_candidate(t), choose_candidate(t.drop("constant"))
    ('constant', 'learned')
    >>> f = pd.DataFrame({"fold 0": [1.0, 3.0], "fold 1": [4.0, 3.0], "fold 2": [1.0, 2.0]},
    ...                  index=["learned", "constant"])
    >>> f["errors"] = f.sum(axis=1)
    >>> choose_candidate(f), choose_candidate(f, "1se")
    ('learned', 'constant')
    """
    if rule not in ("fewest", "1se"):
        raise ValueError(f"rule must be 'fewest' or '1se', got {rule!r}")
    total = errors["errors"]
    best_total = total.min()
    if CONSTANT in total.index and total[CONSTANT] == best_total:
        return CONSTANT
    best = str(total.index[np.flatnonzero(total.to_numpy() == best_total)[0]])
    if rule == "fewest" or CONSTANT not in total.index:
        return best
    folds = [c for c in errors.columns if str(c).startswith("fold ")]
    diff = (errors.loc[CONSTANT, folds] - errors.loc[best, folds]).to_numpy(dtype=float)
    if not np.isfinite(diff).all():
        return CONSTANT
    se = float(np.std(diff, ddof=1) * np.sqrt(len(diff))) if len(diff) > 1 else 0.0
    return best if diff.sum() > se else CONSTANT
