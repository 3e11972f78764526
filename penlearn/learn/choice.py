"""Model choice by cross-validation over whole regions (``learn_penalty(model="auto")``).

No model class wins on every data set (``benchmarks/all_sets.py``): a linear function of
the features is best where the penalty really is linear in them (CTCF_TDH_ENCODE,
the neuroblastoma sets, Gaussian data whose BIC penalty is linear in log n and log σ̂²),
trees where it is not, and a single constant where the features say nothing about new
regions (H3K36me3_TDH_immune). ``model="auto"`` therefore chooses per data set:

1. the training sequences' groups (genomic regions, :mod:`penlearn.learn.groups`) are
   dealt into K folds (:func:`group_folds`), so that each fold holds out whole regions,
   as new data do;
2. each candidate (``"constant"``, ``"linear"``, ``"boosting"``) is fit on K − 1 folds,
   exactly as ``learn_penalty`` fits it (its own validation split inside), and its label
   errors are counted on the held-out fold;
3. the one-standard-error rule (Hastie, Tibshirani & Friedman 2009, *The Elements of
   Statistical Learning*, Section 7.10; Breiman et al. 1984) on the label errors: the
   candidates whose mean CV error is within one standard error of the smallest are tied;
   among them the one of largest mean CV AUC (``cv_rule="1se-auc"``, the default: with
   few regions the errors rarely separate the candidates, the ranking does), or the
   simplest (``cv_rule="1se"``, the classic rule) (:func:`one_se_choice`);
4. the chosen class is refit on every training sequence.

The functions here are the pure parts (folds, rule, summary); the fitting is
:func:`penlearn.learn.penalty.fit_penalty`'s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._folds import deal_folds
from penlearn.learn.options import CANDIDATES

__all__ = ["CANDIDATES", "choice_summary", "group_folds", "one_se_choice"]


def group_folds(groups: pd.Series, k: int, rng, min_train: int = 1) -> pd.Series:
    """Deal whole groups into ``k`` folds of about equal numbers of sequences
    (:func:`penlearn._folds.deal_folds`); with fewer than ``k`` groups every sequence is
    its own group. When a fold would leave fewer than ``min_train`` sequences to learn
    on (few sequences, or one large group), every sequence is its own fold (leave one
    out).

    Parameters
    ----------
    groups : Series
        The group of each sequence, indexed by sequence id.
    k : int
        The number of folds (>= 2).
    rng : int or numpy Generator
    min_train : int
        The fewest sequences each fold must leave to learn on.

    Returns
    -------
    Series
        The fold (0..k−1, or 0..n−1 left one out) of each sequence, indexed as ``groups``.

    Examples
    --------
    >>> g = pd.Series(["a", "a", "b", "b", "c", "c"], index=list("uvwxyz"))
    >>> f = group_folds(g, 3, np.random.default_rng(0))
    >>> bool((f.groupby(g).nunique() == 1).all()), sorted(f.value_counts().tolist())
    (True, [2, 2, 2])
    >>> group_folds(pd.Series([0, 1, 2], index=list("abc")), 2, 0, min_train=2).tolist()
    [0, 1, 2]
    """
    if groups.nunique() < k:
        groups = pd.Series(np.arange(len(groups)), index=groups.index)
    fold = deal_folds(groups, k, rng)
    if len(fold) - fold.value_counts().max() < min_train:
        fold = pd.Series(np.arange(len(fold)), index=fold.index, name="fold")
    return fold


def one_se_choice(errors: pd.DataFrame, aucs: pd.DataFrame | None = None,
                  order=CANDIDATES) -> tuple[str, pd.DataFrame]:
    """The candidate chosen by the one-standard-error rule on CV label errors.

    Among the candidates whose mean CV error is within one standard error of the smallest
    (statistically tied on label errors): with ``aucs``, the one of largest mean CV AUC
    (the best ranking of the held-out sequences; ties: the simplest); without, the
    simplest (the classic rule).

    Parameters
    ----------
    errors : DataFrame
        Label-error rates, one row per CV fold, one column per candidate (NaN: the
        candidate could not be fit on that fold; it is then out of the choice).
    aucs : DataFrame, optional
        The CV test AUC of each candidate on each fold, as ``errors``.
    order : sequence of str
        The candidates, simplest first.

    Returns
    -------
    (str, DataFrame)
        The chosen candidate, and per candidate its ``mean`` and ``se`` (standard error
        of the mean over folds) of the errors, and ``auc`` (mean CV AUC, with ``aucs``).

    Examples
    --------
    >>> e = pd.DataFrame({"constant": [0.20, 0.22, 0.18], "linear": [0.19, 0.21, 0.17],
    ...                   "boosting": [0.10, 0.12, 0.08]})
    >>> one_se_choice(e)[0]
    'boosting'
    >>> tied = e.assign(boosting=[0.19, 0.20, 0.18])
    >>> one_se_choice(tied)[0]
    'constant'
    >>> a = pd.DataFrame({"constant": [0.90] * 3, "linear": [0.95] * 3, "boosting": [0.9] * 3})
    >>> one_se_choice(tied, a)[0]
    'linear'
    """
    ok = [c for c in order if c in errors and errors[c].notna().all()]
    if not ok:
        raise ValueError("no candidate model could be fit on every cross-validation fold")
    k = len(errors)
    table = pd.DataFrame({"mean": errors[ok].mean(),
                          "se": errors[ok].std(ddof=1) / np.sqrt(k) if k > 1 else 0.0})
    best = table["mean"].idxmin()
    bound = table.loc[best, "mean"] + table.loc[best, "se"]
    tied = [c for c in ok if table.loc[c, "mean"] <= bound + 1e-12]
    if aucs is None:
        return tied[0], table
    table["auc"] = aucs[ok].mean()  # (a fold of one class has no AUC: skipped)
    auc = table.loc[tied, "auc"].fillna(-np.inf)
    return next(c for c in tied if auc[c] >= auc.max() - 1e-12), table


def choice_summary(choice: dict) -> str:
    """Why ``model="auto"`` chose its model: the CV label errors it was chosen on
    (``choice`` as stored in ``PenaltyModel.level_["choice"]``).

    Examples
    --------
    >>> choice_summary({"chosen": "constant", "folds": 3, "groups": "regions",
    ...                 "errors": {"constant": 0.1, "linear": 0.15, "boosting": 0.12},
    ...                 "se": {"constant": 0.01, "linear": 0.02, "boosting": 0.02}})
    ... # doctest: +NORMALIZE_WHITESPACE
    'chosen by 3-fold cross-validation over regions (label errors, mean ± SE: constant
    10.0 ± 1.0 %, linear 15.0 ± 2.0 %, boosting 12.0 ± 2.0 %); learning fell back to a
    constant penalty: no learned model made fewer label errors by more than one
    standard error'
    """
    errs = ", ".join(f"{c} {100 * e:.1f} ± {100 * choice['se'][c]:.1f} %"
                     for c, e in choice["errors"].items())
    text = (f"chosen by {int(choice['folds'])}-fold cross-validation over "
            f"{choice['groups']} (label errors, mean ± SE: {errs}")
    if "auc" in choice and choice.get("rule") == "1se-auc":
        text += "; AUC " + ", ".join(f"{c} {a:.4f}" for c, a in choice["auc"].items())
    text += ")"
    if choice.get("prior") and choice["chosen"] != "prior":  # who "prior" was
        text += (f"; prior: {choice['prior']}, a candidate in the constant's place "
                 "(learn_penalty(prior=...))")
    if choice["chosen"] in ("constant", "prior"):
        text += ("; learning fell back to " + ("a constant penalty" if choice["chosen"] ==
                                               "constant" else "the prior, shifted to the "
                                               "labels, in the constant's place")
                 + ": no learned model made fewer label errors by more than one standard "
                 "error" + (" with a better ranking (AUC)" if choice.get("rule") == "1se-auc"
                            else ""))
    return text
