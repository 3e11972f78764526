"""``learn_penalty``: learn log λ = f(features) from error functions, in one call.

``learn_penalty(...)`` is ``PenaltyModel(...).fit(...)`` (:mod:`penlearn.learn.model`);
the work is done by :func:`penlearn.learn.penalty.fit_penalty`.
"""

from __future__ import annotations

import pandas as pd

from penlearn._checks import EVALUATION_REQUIRED, require_columns
from penlearn.fitting.model_file import check_task
from penlearn.learn import level_shift
from penlearn.learn.model import PenaltyModel
from penlearn.learn.options import learn_options, with_options
from penlearn.learn.penalty import check_prior
from penlearn.learn.prior import PRIOR_MAX_SEQUENCES, constant_model, shift_prior, too_few_labels
from penlearn.roc import best_constant_log_lambda

__all__ = ["learn_penalty"]


@with_options
def learn_penalty(
    features: pd.DataFrame,
    evaluation: pd.DataFrame,
    *,
    validation=None,
    folds=None,
    targets: pd.DataFrame | None = None,
    scale_features: pd.DataFrame | None = None,
    segmentation: dict | None = None,
    groups="auto",
    prior: PenaltyModel | None = None,
    task: str | None = None,
    **options,
) -> PenaltyModel:
    """Learn a penalty function log λ = f(features): linear, or boosted trees.

    Parameters
    ----------
    features : DataFrame
        One row per training sequence, indexed by sequence id (as ``inputs.csv``).
    evaluation : DataFrame
        The error functions of those sequences.
    validation : (DataFrame, DataFrame), optional
        ``(features, evaluation)`` of the validation sequences. Without it (and without
        ``folds``) the sequences are split by ``groups``: whole groups (genomic regions)
        alternately to subtrain and validation; without groups as in the paper: sorted by
        id, alternately subtrain and validation.
    folds : Series or DataFrame, optional
        Internal split: a Series indexed by sequence id (or a DataFrame
        ``sequence_id, set``) with values ``"subtrain"``/``"validation"``.
    line_search : {"first_min", "linear", "quadratic", "max_auc", "grid"}
        Step rule (exact line search variants, or the grid 10^−9…10^0).
    init : str, PenaltyModel or array
        ``"interval_regression"`` (default), ``"interval_regression_flipped"`` (the
        paper's sign flip), ``"zero"``, ``"random"``, a fitted penalty model (warm
        start), or weights on the standardised features (optionally intercept first).
    normalize : {"rate", "count"}
        AUM normalisation.
    max_steps : int
        Upper bound on gradient steps.
    tol : float
        Stop when the subtrain AUM decreases by no more than ``tol``.
    random_state : int or None
        Seeds the random init, interval regression's CV folds and the trees; default 0,
        so the same call gives the same model (None: a new seed each call).
    progress : bool
        Show a progress bar.
    targets : DataFrame, optional
        Target intervals (``sequence_id, min_log_lambda, max_log_lambda``, e.g.
        ``outputs.csv``) for the interval-regression init; default: computed from the
        evaluation table.
    scale_features : DataFrame, optional
        Features whose rows define the standardisation (the paper scales over all
        sequences of the data set, test fold included); default: subtrain + validation.
    segmentation : dict, optional
        How the evaluation table's models were made, ``{"loss": "l2", "max_segments":
        20}``: stored in the model (and its file) and used by
        :meth:`PenaltyModel.segment`.
    select : {"validation_auc", "validation_aum", "last"}
        Which iterate is returned: largest validation AUC (the paper's rule), smallest
        validation AUM, or the last.
    min_improvement : float
        Keep the start unless the selected iterate beats it on validation by more than
        this (AUC units for ``"validation_auc"``); default 0.01, 0 is the paper's rule
        (see the docs, "Learning").
    l2 : float
        Ridge penalty on the standardised weights (AUM + (l2/2)·‖w‖²; each step exact
        over the first B line-search events, or over the grid for ``"grid"``);
        default 0.1, 0 is plain AUM (the paper).
    shrink : bool or str
        After descent, replace the weights w by α·w + (1 − α)·w₀, α ∈ {1, 0.9, …, 0} of
        largest validation AUC (ties: the largest α), w₀ a model that learns nothing:
        the constant (True, the default), or log λ = one feature column (its name, e.g.
        ``"log.log.data"``, log log n: a BIC-like penalty); False: no shrinkage (the
        paper). The chosen α is ``shrinkage_`` (:mod:`penlearn.learn.shrink`).
    ir_repeats : int
        With ``init="interval_regression"``: fit interval regression this many times,
        each with its own random CV folds (so its own regulariser), and start from the
        average of the fits (their predictions averaged); default 1 (the paper). The
        CV choice of the regulariser varies a lot with the folds; averaging steadies it.
    clip : bool
        Predict with every feature clipped to the range it had in the training rows
        (no linear extrapolation to feature values beyond every training value; trees
        and the constant are unchanged by it). Default True; False: the papers'
        unbounded linear prediction. Why (measured on held-out regions): the docs,
        "Learning", and ``benchmarks/RESULTS.md``.
    model : {"auto", "linear", "boosting", "constant"}
        ``"linear"``: the linear model of the papers (interval-regression start, AUM
        descent); ``"boosting"``: AUM gradient boosting of small regression trees, each
        stage's step by the exact AUM line search along the tree's predictions, started
        from the constant, every stage kept only if it raises the validation AUC
        (:mod:`penlearn.learn.boosting`); ``"constant"``: the one log λ of fewest training
        label errors; ``"auto"`` (the default, :data:`penlearn.learn.options.DEFAULT_MODEL`):
        the one of ``candidates`` chosen by ``cv_folds``-fold cross-validation over whole
        groups (regions) of the training sequences, then refit on all of them
        (:mod:`penlearn.learn.choice`; ``choice_`` and :meth:`PenaltyModel.describe` say
        which and why). Measured by ``benchmarks/all_sets.py``: the docs, "Learning".
    cv_folds : int
        ``model="auto"``: K of the cross-validation (default 3; fewer groups than K: one
        sequence a group).
    candidates : sequence of str
        ``model="auto"``: the models compared, among ``("constant", "linear",
        "boosting")`` (the default: all three).
    cv_rule : {"1se-auc", "1se"}
        ``model="auto"``: among the candidates within one standard error of the smallest
        mean CV label-error rate, the one of largest mean CV AUC (default), or the simplest.
    groups : "auto", None or Series
        Groups of sequences held out together by the validation split (a Series indexed
        by sequence id). ``"auto"`` (default): the genomic region ``chrom:start-end`` that
        ends ChIP-seq ids (``.../problems/chr1:17175658-29878082``), when every id has one
        and there are at least 2 (:func:`penlearn.learn.groups.region_groups`); None: the
        paper's alternation of sorted ids. Not used with ``validation=`` or ``folds=``.
    level : {"validation", "subtrain"}
        How the level of log λ is set (AUM and AUC do not see it): ``"validation"``
        (default) predicts −(α·f + c), the scale α ∈ (0, 1] of fewest validation label
        errors when c is fit on subtrain errors, then c refit on all training sequences
        (a small α is the fall-back toward the best constant penalty, keeping the learned
        ranking; :mod:`penlearn.learn.level`); ``"subtrain"``: the papers' shift of fewest
        subtrain errors.
    prior : PenaltyModel, optional
        With ``model="auto"``, at most
        :data:`~penlearn.learn.level_shift.SHIFT_MAX_SEQUENCES` (20) labeled sequences and
        neither ``validation`` nor ``folds``: the prior's log λ shifted to the labels by
        :func:`~penlearn.learn.level_shift.level_shift` (its weights kept; measured on the
        17 ChIP-seq sets to beat the learned models there, ``benchmarks/RESULTS.md``,
        "few_labels"). Otherwise a model to start from when the labels are too few to
        learn and validate one
        (:func:`penlearn.learn.prior.too_few_labels`: one labeled sequence, one label
        class only, or with ``model="auto"`` two labeled sequences, too few for its
        cross-validation) and neither ``validation`` nor ``folds`` is given: its log λ shifted
        by the shift of fewest label errors nearest 0 (:mod:`penlearn.learn.prior`; for
        ChIP-seq coverage features, the shipped zero-label model,
        ``penlearn.shipped_model().model``). Without a prior, too few
        labels give the best constant penalty. Either way ``level_["reason"]`` and
        :meth:`PenaltyModel.describe` say so. With enough labels, at most
        :data:`~penlearn.learn.prior.PRIOR_MAX_SEQUENCES` (100) labeled sequences and
        ``model="auto"``, it takes the constant's place: when the cross-validation
        chooses the constant, the model is the prior (its weights kept) shifted to the
        labels (``"prior"``; its CV errors, its level shifted to each fold's training
        labels, are recorded in ``choice_``); with more labeled sequences, or other
        models, it is not used. Whether used or not, it is checked before any work
        (:func:`~penlearn.learn.penalty.check_prior`, a ``ValueError`` naming ``prior``):
        a fitted PenaltyModel whose feature columns are all in ``features`` and which, if
        it records a task (``task_``), is a model of ``task`` (by default ``"peaks"``: the
        prior is for ChIP-seq windows unless ``task`` says otherwise); the result never
        takes the prior's task.
    task : {"peaks", "joint", "changepoint"}, optional
        What the features describe, recorded in the model (``task_``, written by
        :meth:`~penlearn.PenaltyModel.save`; commands refuse a model of another task).
        Default: unknown, or ``"peaks"`` with a ``prior``.
    boosting : dict, optional
        Options of ``model="boosting"``, overriding
        :data:`penlearn.learn.penalty.BOOSTING_OPTIONS` (``max_stages``, ``learning_rate``,
        ``max_depth``, ``min_samples_leaf``, ``patience``, ``min_improvement``).

    Returns
    -------
    PenaltyModel
        Linear: the iterate with the largest validation AUC (ROChange AUC) if it beats the
        start by more than ``min_improvement``, else the start, shrunk by ``shrink``;
        boosting: the stages up to the largest validation AUC (``trees_``). Its level set
        by ``level`` (``level_``); ``history_`` records every step or stage.

    Notes
    -----
    The papers' protocol is ``model="linear", l2=0, min_improvement=0, shrink=False,
    level="subtrain", groups=None``. Gradient descent follows
    Fowler & Hocking (2024), Section 5.2: direction −Xᵀḡ with
    ḡ the mean of the left and right directional derivatives of the subtrain AUM
    (Hillman & Hocking 2023); the intercept does not change AUM/AUC and is not updated.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> ids = [f"s{i:02d}" for i in range(40)]
    >>> x = rng.normal(size=40)
    >>> ev = pd.DataFrame([r for i, xi in zip(ids, x) for r in [
    ...     (i, -np.inf, xi - 1, 1, 0), (i, xi - 1, xi + 1, 0, 0), (i, xi + 1, np.inf, 0, 1)]],
    ...     columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn"])
    >>> ev["possible_fp"] = 1; ev["possible_fn"] = 1
    >>> feats = pd.DataFrame({"x": x, "noise": rng.normal(size=40)}, index=ids)
    >>> m = learn_penalty(feats, ev, model="linear", init="zero", progress=False)
    >>> bool(m.history_["validation_auc"].max() > 0.9), 0.0 <= m.shrinkage_ <= 1.0
    (True, True)
    >>> paper = learn_penalty(feats, ev, model="linear", l2=0, min_improvement=0,
    ...                       shrink=False, level="subtrain", groups=None, progress=False)
    >>> paper.shrinkage_
    1.0
    """
    opts = learn_options(**options)
    require_columns(evaluation, EVALUATION_REQUIRED, "evaluation")  # before any work
    task = check_task(task)
    if prior is not None:  # its task (the one task check of every model a command or
        task = check_prior(prior, features, task)  # prior= takes) and feature columns
    if opts.model == "auto" and isinstance(validation, tuple) and len(validation) == 2:
        # auto cross-validates over subtrain and validation together: counted together
        both = too_few_labels(pd.concat([evaluation, validation[1]]), "auto")
        if both is not None:
            features = pd.concat([features, validation[0]])
            evaluation, validation = pd.concat([evaluation, validation[1]]), None
    if prior is not None and validation is None and folds is None and opts.model == "auto" \
            and evaluation["sequence_id"].nunique() <= level_shift.SHIFT_MAX_SEQUENCES:
        return _with_task(level_shift.shifted_prior(prior, features, evaluation,
                                                    level_shift.few_reason(evaluation)), task)
    reason = too_few_labels(evaluation, opts.model) if validation is None and folds is None \
        else None
    if reason is not None:
        if prior is None:
            prior = constant_model(features.columns, best_constant_log_lambda(evaluation))
            prior.prior_name_ = "the best constant penalty of the labels"
        return _with_task(shift_prior(prior, features, evaluation, reason), task)
    est = PenaltyModel(**opts.as_dict())
    if evaluation["sequence_id"].nunique() > PRIOR_MAX_SEQUENCES:
        prior = None  # many labels: learned as without a prior
    return est.fit(features, evaluation, validation=validation, folds=folds,
                   targets=targets, scale_features=scale_features, segmentation=segmentation,
                   groups=groups, prior=prior if opts.model == "auto" else None, task=task)


def _with_task(model: PenaltyModel, task: str | None) -> PenaltyModel:
    """``model`` recording ``task`` (never its prior's)."""
    model.task_ = task
    return model
