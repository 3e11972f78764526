"""The page's two refits: at once, the level of the current ranking shifted to the labels
(a breakpoint scan: milliseconds); in the background, what ``penlearn learn`` learns.

The quick refit keeps the weights of the last model the learners chose (at first the
shipped zero-label model, Hocking et al. 2017's features) and moves its level to the
labels so far (:func:`penlearn.learn.level_shift.shifted_prior`, the rule ``learn_penalty``
uses for up to 20 labeled sequences). The full refit is ``learn_penalty(features,
evaluation, prior=shipped model)`` as :mod:`penlearn.cli.learn` calls it: up to 20 labeled
sequences the level shift, up to 100 the candidates of ``model="auto"`` with the shifted
prior in the constant's place, beyond that ``model="auto"`` alone.
"""

from __future__ import annotations

import warnings

import pandas as pd

from penlearn.datasets import finite_feature_columns
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.level_shift import shifted_prior
from penlearn.learn.prior import PRIOR_MAX_SEQUENCES, shift_prior, too_few_labels

__all__ = ["full_refit", "quick_refit", "rankable"]


def rankable(model) -> bool:
    """Whether ``model`` can be shifted (a fitted linear or constant model, no trees).

    Examples
    --------
    >>> from penlearn.peaks.pretrained import load_pretrained
    >>> rankable(load_pretrained().model), rankable(None)
    (True, False)
    """
    return isinstance(model, PenaltyModel) and hasattr(model, "history_") \
        and not getattr(model, "trees_", None)


def quick_refit(base: PenaltyModel, features: pd.DataFrame, evaluation: pd.DataFrame
                ) -> PenaltyModel:
    """``base`` with its level shifted to the labels of ``evaluation`` (its weights kept).

    Examples
    --------
    >>> import numpy as np
    >>> from penlearn.learn.prior import constant_model
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0], "errors": [1, 0],
    ...     "possible_fp": 1, "possible_fn": 0, "labels": 1})
    >>> quick_refit(constant_model(["x"], 0.0), pd.DataFrame({"x": [0.0]}, index=["a"]),
    ...             ev).intercept_
    2.34
    """
    ids = list(pd.unique(evaluation["sequence_id"]))
    model = shifted_prior(base, features.loc[ids], evaluation,
                          "the page's quick refit (the learners run in the background)")
    model.task_ = "peaks"
    return model


def full_refit(features: pd.DataFrame, evaluation: pd.DataFrame, prior: PenaltyModel
               ) -> PenaltyModel:
    """What ``penlearn learn`` learns from these labels: ``learn_penalty`` with the shipped
    model as the prior (too few labels: shifted; at most
    :data:`~penlearn.learn.prior.PRIOR_MAX_SEQUENCES` labeled sequences: a candidate of
    ``model="auto"``); a cross-validation that cannot fit falls back to the shifted prior.
    ``features``: every (sample, window) of the page (the finite columns are chosen on
    all of them, as ``penlearn learn`` does on its folder)."""
    ids = list(pd.unique(evaluation["sequence_id"]))
    few = too_few_labels(evaluation) is not None
    x = features.loc[ids] if few else features.loc[ids, finite_feature_columns(features)]
    use_prior = prior if few or len(ids) <= PRIOR_MAX_SEQUENCES else None
    with warnings.catch_warnings():  # (a thread: no redirect of the process's stdout)
        warnings.simplefilter("ignore")
        try:
            model = learn_penalty(x, evaluation, prior=use_prior, progress=False)
        except ValueError as exc:  # e.g. no candidate fits every CV fold
            model = shift_prior(prior, features.loc[ids], evaluation,
                                f"learning failed ({exc})")
    model.task_ = "peaks"
    return model
