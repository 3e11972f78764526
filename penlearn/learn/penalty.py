"""Learning a penalty function: the functional core behind :func:`penlearn.learn_penalty`.

The protocol is Section 5.2 of Fowler & Hocking (2024), "Efficient line search for
optimizing Area Under the ROC Curve in gradient descent":

1. standardise the finite feature columns;
2. initialise with L1-regularised squared-hinge interval regression
   (:class:`~penlearn.learn.interval_regression.IntervalRegression`) on the target
   intervals;
3. gradient descent on the subtrain breakpoints' AUM ("rate" by default) with the step
   chosen by the exact AUM line search or a grid (:func:`penlearn.fitting.descent.descend`);
   by default on AUM + (0.1/2)·‖w‖² (``l2``; 0 is the paper's plain AUM);
4. keep the iterate with the largest validation AUC — by default only if it beats the
   start's validation AUC by more than 0.01 (``min_improvement``; 0 is the paper's rule,
   compared in ``benchmarks/all_sets.py``);
5. shrink toward the constant model by validation AUC (``shrink``; False is the paper).

Sign convention: the model predicts log λ, the AUM machinery uses score = −log λ. The
paper's script feeds interval regression's log λ predictions in as scores (a sign flip);
``init="interval_regression_flipped"`` reproduces that.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pandas as pd

from penlearn._checks import id_list
from penlearn.changepoint.evaluation import target_intervals
from penlearn.fitting.descent import descend, initial_weights
from penlearn.fitting.model_file import TASKS, ModelFileError, check_model_task, check_task
from penlearn.fitting.scaling import FeatureScaling, scale_weights, unscale_weights
from penlearn.learn._metrics import SetMetrics
from penlearn.learn.boosting import Boosted, fit_boosting, predict_trees
from penlearn.learn.choice import group_folds, one_se_choice
from penlearn.learn.groups import check_groups, region_groups
from penlearn.learn.interval_regression import IntervalRegression
from penlearn.learn.level import choose_level, label_errors_at
from penlearn.learn.options import (
    DEFAULT_MODEL,
    LEVELS,
    MIN_SEQUENCES,
    MIN_SEQUENCES_AUTO,
    MODELS,
    BoostingOptions,
    LearnOptions,
    boosting_options,
    learn_options,
    with_options,
)
from penlearn.learn.shrink import choose_shrinkage, shrink_target
from penlearn.learn.training_data import (
    Level,
    Part,
    Prepared,
    feature_scaling,
    join,
    prepare,
    set_breakpoints,
    split_training,
    subtrain_validation_split,
)
from penlearn.roc import ChangepointROC, min_error_shift

__all__ = ["BOOSTING_OPTIONS", "DEFAULT_MODEL", "LEVELS", "MODELS", "PenaltyFit", "check_prior",
           "fit_penalty", "subtrain_validation_split"]

#: Options of ``model="boosting"`` and their defaults (:class:`BoostingOptions`).
BOOSTING_OPTIONS = asdict(BoostingOptions())


@dataclass(frozen=True)
class PenaltyFit:
    """A fitted linear model of log λ on the original feature scale.

    Attributes
    ----------
    coef : Series
        Weights of log λ, indexed by the kept feature columns.
    intercept : float
    scaling : FeatureScaling
        The standardisation learned on the training rows.
    descent : penlearn.fitting.descent.Descent
        The gradient-descent history; ``descent.best`` is the returned iterate.
    init_info : dict
        Initialisation details (e.g. the interval-regression regulariser).
    shrinkage : float
        α of ``shrink`` (:mod:`penlearn.learn.shrink`): 1 keeps the descent's iterate.
    trees : list or None
        The boosted trees (``model="boosting"``): log λ = intercept + Σ trees(x).
    level : Level
        How the level of log λ was set (``level=``).
    """

    coef: pd.Series
    intercept: float
    scaling: FeatureScaling
    descent: object
    init_info: dict = field(default_factory=dict)
    shrinkage: float = 1.0
    #: boosting: the trees of log λ (:mod:`penlearn.learn.boosting` arrays, values in
    #: log λ units, the level's scale α included); None for the linear model
    trees: list | None = None
    #: how the level was set (:mod:`penlearn.learn.level`): rule, scale α, shift, split
    level: Level | None = None


def _target_intervals(evaluation: pd.DataFrame, ids: list) -> pd.DataFrame:
    t = target_intervals(evaluation)
    return t.set_index("sequence_id").loc[ids, ["min_log_lambda", "max_log_lambda"]]


def _weights_from_model(model, scaling: FeatureScaling):
    """Score weights on ``scaling``'s standardised features equal to a fitted penalty
    model (warm start): score = −log λ = −(X·coef + intercept)."""
    if not hasattr(model, "coef_"):
        raise ValueError("init as a model needs a fitted PenaltyModel")
    coef = model.coef_.reindex(list(scaling.columns))
    extra = set(model.coef_.index[model.coef_ != 0]) - set(scaling.columns)
    if extra:
        raise ValueError(f"init model uses feature(s) not kept here: {sorted(extra)[:5]}")
    return scale_weights(-coef.fillna(0.0).to_numpy(), -model.intercept_, scaling.mean,
                         scaling.scale)


def _start(init, d: Prepared, targets, rng, repeats=1):
    """Starting score weights and intercept on the standardised features, and details
    (interval regression: the average of ``repeats`` fits, each with its own CV folds)."""
    scaling, X_sub, X_val = d.scaling, d.X_sub, d.X_val
    (sub_ids, _, sub_eval), (v_ids, _, v_eval) = d.sub, d.val
    p = X_sub.shape[1]
    if isinstance(init, str) and init.startswith("interval_regression"):
        if init not in ("interval_regression", "interval_regression_flipped"):
            raise ValueError(f"unknown init {init!r}")
        tr_ids = list(sub_ids) + list(v_ids)
        if targets is None:
            T = _target_intervals(pd.concat([sub_eval, v_eval]), tr_ids)
        else:
            tt = targets.set_index("sequence_id") if "sequence_id" in targets else targets
            missing = pd.Index(tr_ids).difference(tt.index)
            if len(missing):
                raise ValueError(f"targets has no row for {id_list(list(missing))}")
            T = tt.loc[tr_ids, ["min_log_lambda", "max_log_lambda"]]
        Xtr = pd.DataFrame(np.vstack([X_sub, X_val]), index=tr_ids, columns=scaling.columns)
        fits = [IntervalRegression(random_state=rng.integers(2**31)).fit(Xtr, T)
                for _ in range(repeats)]
        # IR on standardised features: log λ = Xs·coef + intercept; IR may drop more
        w_ir = np.mean([pd.Series(ir.coef_, dtype=float).reindex(list(scaling.columns))
                        .fillna(0.0).to_numpy() for ir in fits], axis=0)
        sign = 1.0 if init == "interval_regression_flipped" else -1.0
        regs = [ir.regularization_ for ir in fits]
        info = {"init": init, "regularization": regs[0] if repeats == 1 else regs,
                "nonzero": int(np.count_nonzero(w_ir))}
        return sign * w_ir, sign * float(np.mean([ir.intercept_ for ir in fits])), info
    if hasattr(init, "coef_") and hasattr(init, "intercept_"):
        w0, b0 = _weights_from_model(init, scaling)
        return w0, b0, {"init": "model"}
    w = initial_weights(init, p, rng)
    if w is None:
        raise ValueError(
            "init must be 'interval_regression', 'interval_regression_flipped', "
            f"'zero', 'random', a fitted PenaltyModel or an array of weights, got {init!r}"
        )
    w0, b0 = (w[1:], float(w[0])) if len(w) == p + 1 else (w, 0.0)
    return w0, b0, {"init": init if isinstance(init, str) else "weights"}


@with_options
def fit_penalty(
    features: pd.DataFrame,
    evaluation: pd.DataFrame,
    *,
    validation=None,
    folds=None,
    targets: pd.DataFrame | None = None,
    scale_features: pd.DataFrame | None = None,
    groups="auto",
    prior=None,
    **options,
) -> PenaltyFit:
    """Learn log λ = f(features) by AUM gradient descent; the arguments of
    :func:`penlearn.learn_penalty`, which wraps this function in a
    :class:`~penlearn.PenaltyModel`. ``prior`` (a fitted PenaltyModel) is one more
    candidate of ``model="auto"``, its level shifted to the labels (:func:`_prior_fit`).

    Returns
    -------
    PenaltyFit
        The iterate chosen by ``select`` / ``min_improvement``
        (:func:`penlearn.fitting.descent.select_iterate`), its intercept set to minimise
        subtrain FP + FN (or the start's own, when the start is chosen), then shrunk
        toward the model of ``shrink`` (:func:`penlearn.learn.shrink.choose_shrinkage`).

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
    >>> fit = fit_penalty(feats, ev, init="zero")
    >>> bool(fit.descent.history["validation_auc"].max() > 0.9)
    True
    """
    o = learn_options(**options)  # every option checked before any work
    if o.model == "linear" or (o.model == "auto" and "linear" in o.candidates):
        # and those of the kept columns too: in auto, a ValueError only drops a candidate
        sub, val, _ = split_training(features, evaluation, validation, folds, groups)
        with warnings.catch_warnings():  # (the dropped columns are warned by the fit)
            warnings.simplefilter("ignore")
            _check_linear_options(o, feature_scaling(sub.features, val.features,
                                                     scale_features))
    if o.model == "auto":
        return _fit_auto(features, evaluation, validation, folds, targets, scale_features,
                         groups, o, prior)
    return _fit_kind(features, evaluation, validation, folds, targets, scale_features,
                     groups, o)


def _fit_kind(features, evaluation, validation, folds, targets, scale_features, groups,
              o: LearnOptions) -> PenaltyFit:
    """One model class (``o.model``: linear, boosting or constant) on a validation split."""
    sub, val, how = split_training(features, evaluation, validation, folds, groups)
    scaling = feature_scaling(sub.features, val.features, scale_features)
    if o.model == "constant":  # needs no class on either side of the split
        return _fit_constant(scaling, sub, val, how)
    d = prepare(sub, val, how, scaling, o.normalize)
    rng = np.random.default_rng(o.random_state)
    if o.model == "boosting":
        return _fit_boosted(d, o, rng)
    return _fit_linear(d, o, targets, rng)


def _fit_constant(scaling: FeatureScaling, sub: Part, val: Part, how: str) -> PenaltyFit:
    """``model="constant"``: the one log λ of fewest label errors on every training
    sequence (the features are not used; its history: one row, no step)."""
    both = join(sub, val)
    shift = min_error_shift(ChangepointROC(both.evaluation, both.ids).bp)
    hist = pd.DataFrame([{"step": 0, "step_size": 0.0, "subtrain_aum": 0.0,
                          "subtrain_auc": 0.0, "validation_aum": 0.0, "validation_auc": 0.0,
                          "events": 0, "seconds": 0.0}])
    lev = Level("constant", "all training", how, shift=float(shift),
                validation_errors=label_errors_at(ChangepointROC(val.evaluation, val.ids).bp,
                                                  np.full(len(val.ids), shift)))
    coef = pd.Series(0.0, index=list(scaling.columns), name="coef")
    return PenaltyFit(coef, -float(shift), scaling, Boosted([], hist, 0), {"init": "constant"},
                      1.0, level=lev)


def check_prior(prior, features: pd.DataFrame, task: str | None = None, *,
                candidate: bool = False) -> str:
    """The one check of a ``prior=`` model, before any work: a ``ValueError`` naming
    ``prior`` unless it is a fitted PenaltyModel of ``task`` (default ``"peaks"``: a
    prior is for ChIP-seq windows unless ``task`` says otherwise; the task comparison is
    :func:`~penlearn.fitting.model_file.check_model_task`, the one of
    :meth:`PenaltyModel.load <penlearn.PenaltyModel.load>`; a prior that records no task
    is not compared) whose feature columns are all in ``features``. ``candidate``
    (``model="auto"`` tries it as one of its models): also a linear (or constant) model,
    not boosted trees. Returns the task checked against.

    Examples
    --------
    >>> from penlearn.learn.prior import constant_model
    >>> check_prior(constant_model(["x"], 1.0), pd.DataFrame({"y": [1.0]}))
    Traceback (most recent call last):
    ...
    ValueError: prior: its feature column(s) ['x'] are not in the features (columns: ['y'])
    >>> check_prior(constant_model(["x"], 1.0), pd.DataFrame({"x": [1.0]}))
    'peaks'
    """
    if not hasattr(prior, "history_") or not hasattr(prior, "scaling_") \
            or not hasattr(prior, "coef_"):
        raise ValueError("prior must be a fitted PenaltyModel (learned, or loaded from a "
                         f"model file), got {type(prior).__name__}")
    task = check_task(task) or "peaks"
    recorded = getattr(prior, "task_", None)
    try:
        check_model_task(recorded, task, "prior")
    except ModelFileError as exc:  # the caller may have left task= to its default
        raise ModelFileError(f"{exc}; or, if the features are {TASKS[recorded]}, say "
                             f"task={recorded!r}") from None
    if candidate and getattr(prior, "trees_", None):
        raise ValueError("prior must be a linear (or constant) PenaltyModel, not boosted "
                         "trees")
    columns = list(getattr(features, "columns", []))
    missing = [c for c in prior.coef_.index if c not in columns]
    if missing:
        raise ValueError(f"prior: its feature column(s) {missing[:10]} are not in the "
                         f"features (columns: {columns[:10]})")
    return task


def _prior_fit(prior, feats: pd.DataFrame, ev: pd.DataFrame, ids: list, how: str
               ) -> PenaltyFit:
    """The ``prior`` model (a fitted linear PenaltyModel) with its weights kept and its
    level shifted to the fewest label errors of the sequences ``ids``
    (:func:`~penlearn.roc.min_error_shift`): the ``"prior"`` candidate of
    ``model="auto"``. Features are clipped to the prior's training range, as the model
    chosen predicts (``clip=True``, the default)."""
    base = _predict_fit(PenaltyFit(prior.coef_, float(prior.intercept_), prior.scaling_,
                                   None), feats.loc[ids], clip=True)
    shift = min_error_shift(ChangepointROC(ev, ids).bp, -base)
    hist = pd.DataFrame([{"step": 0, "step_size": 0.0, "subtrain_aum": 0.0,
                          "subtrain_auc": 0.0, "validation_aum": 0.0, "validation_auc": 0.0,
                          "events": 0, "seconds": 0.0}])
    name = getattr(prior, "prior_name_", "a prior penalty model")
    return PenaltyFit(prior.coef_.copy(), float(prior.intercept_) - float(shift),
                      prior.scaling_, Boosted([], hist, 0), {"init": "prior", "prior": name},
                      1.0, level=Level("prior", "all training", how, shift=-float(shift)))


def _predict_fit(fit: PenaltyFit, feats: pd.DataFrame, clip: bool = False) -> np.ndarray:
    """log λ of a fit on held-out rows (non-finite features: the training mean, clipped;
    ``clip``: every feature clipped to its training range)."""
    A = feats.loc[:, list(fit.scaling.columns)].to_numpy(float)
    bad = ~np.isfinite(A)
    if bad.any():
        fill = np.clip(np.nan_to_num(A, nan=0.0), fit.scaling.low, fit.scaling.high)
        A = np.where(bad, fill, A)
    if clip and fit.scaling.low is not None:
        A = np.clip(A, fit.scaling.low, fit.scaling.high)
    if fit.trees is not None:
        return predict_trees(fit.trees, A) + fit.intercept
    return A @ fit.coef.to_numpy() + fit.intercept


def _check_linear_options(o: LearnOptions, scaling: FeatureScaling) -> None:
    """The linear model's options that depend on the kept feature columns — a ``shrink``
    column, an ``init`` array's length, an ``init`` model's features — checked as its fit
    checks them (a ``ValueError`` naming the option)."""
    shrink_target(o.shrink, scaling)
    if hasattr(o.init, "coef_") and hasattr(o.init, "intercept_"):
        _weights_from_model(o.init, scaling)
    elif not isinstance(o.init, str):
        initial_weights(o.init, len(scaling.columns), np.random.default_rng(0))


def _choice_bar(progress: bool, total: int, what: str):
    """The progress bar of ``model="auto"``'s cross-validation (a tqdm bar, disabled
    without ``progress``): one step per candidate fit on a fold."""
    from penlearn._progress import tqdm

    return tqdm(total=total, disable=not progress, unit="fit", leave=False,
                desc=f"choosing the model (cross-validation over {what.split(' (')[0]})")


def _fit_auto(features, evaluation, validation, folds, targets, scale_features, groups,
              o: LearnOptions, prior=None) -> PenaltyFit:
    """``model="auto"``: each candidate scored by K-fold CV over whole groups, the one
    chosen by the one-SE rule refit on all (:mod:`penlearn.learn.choice`); with a
    ``prior``, the learned candidates choose as without it, and the prior shifted to
    the training labels takes the constant's place when they choose the constant (its
    CV errors, each fold's training labels setting its level, are recorded beside
    theirs; :mod:`penlearn.learn.prior`)."""
    sub, val, _ = split_training(features, evaluation, validation, folds, groups)  # checks
    ids, feats, ev = join(sub, val)  # cross-validate over every training sequence
    set_breakpoints(ev, ids, o.normalize, "training")  # both classes, or say what to do
    explicit = groups is not None and not isinstance(groups, str)
    g = check_groups(groups, ids) if explicit else \
        (region_groups(ids) if groups is not None else None)
    what = "groups" if explicit else ("regions" if g is not None else "sequences")
    if g is None:
        g = pd.Series(range(len(ids)), index=ids)
    if what != "sequences" and g.nunique() < o.cv_folds:  # group_folds: one sequence a group
        what = (f"sequences (only {g.nunique()} {what[:-1] if g.nunique() == 1 else what},"
                f" fewer than the {o.cv_folds} folds)")
    if len(ids) < MIN_SEQUENCES_AUTO:
        raise ValueError(f"model='auto' needs at least {MIN_SEQUENCES_AUTO} training sequences "
                         f"for its cross-validation, got {len(ids)} (learn_penalty learns "
                         "fewer by its few-labels rule: penlearn.learn.prior)")
    fold = group_folds(g, o.cv_folds, np.random.default_rng(o.random_state),
                       min_train=MIN_SEQUENCES)
    if fold.nunique() > o.cv_folds:
        what = f"sequences (left one out: {o.cv_folds} folds would leave too few to learn on)"
    ev_ids = ev["sequence_id"]
    order = o.candidates if prior is None else \
        (o.candidates[:1] + ("prior",) + o.candidates[1:])
    errors = {c: [] for c in order}
    aucs = {c: [] for c in order}
    bar = _choice_bar(o.progress, int(fold.nunique()) * len(order), what)
    for k in sorted(fold.unique()):
        tr, te = list(fold.index[fold != k]), list(fold.index[fold == k])
        ev_te = ev[ev_ids.isin(te)]
        roc = ChangepointROC(ev_te, te)
        n_labels = max(roc.possible_fp + roc.possible_fn, 1.0)
        for c in order:
            bar.set_postfix_str(f"fold {k + 1}: {c}")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    f = _prior_fit(prior, feats, ev[ev_ids.isin(tr)], tr, what) \
                        if c == "prior" else \
                        _fit_kind(feats.loc[tr], ev[ev_ids.isin(tr)], None, None, targets,
                                  scale_features, g.loc[tr] if explicit else groups,
                                  replace(o, model=c, progress=False))
                pred = _predict_fit(f, feats.loc[te], clip=c == "prior")
                errors[c].append(label_errors_at(roc.bp, -pred) / n_labels)
                aucs[c].append(roc.auc(-pred))
            except ValueError:  # e.g. one class only in a part: out of the choice
                errors[c].append(np.nan)
                aucs[c].append(np.nan)
            bar.update()
    bar.close()
    errors, aucs = pd.DataFrame(errors), pd.DataFrame(aucs)
    rule_aucs = aucs if o.cv_rule == "1se-auc" else None
    chosen, table = one_se_choice(errors, rule_aucs, order)  # every candidate's record
    if prior is not None:  # the learned candidates decide as without a prior ...
        own = list(o.candidates)
        chosen = one_se_choice(errors[own], None if rule_aucs is None else rule_aucs[own],
                               own)[0]
        if chosen == "constant":  # ... the prior in the constant's place: its ranking,
            chosen = "prior"  # the labels' level (its CV errors are only recorded)
    fit = _prior_fit(prior, feats, ev, ids, what) if chosen == "prior" else \
        _fit_kind(features, evaluation, validation, folds, targets, scale_features, groups,
                  replace(o, model=chosen))
    choice = {"chosen": chosen, "folds": int(fold.nunique()), "groups": what,
              "rule": o.cv_rule, "errors": table["mean"].to_dict(),
              "se": table["se"].to_dict(),
              "auc": {c: float(aucs[c].mean()) for c in table.index},  # (NaN: skipped)
              "fold_errors": {c: [float(e) for e in errors[c]] for c in table.index}}
    if prior is not None:
        choice["prior"] = getattr(prior, "prior_name_", "a prior penalty model")
    return replace(fit, level=replace(fit.level, model=chosen, choice=choice))


def _fit_linear(d: Prepared, o: LearnOptions, targets, rng) -> PenaltyFit:
    """``model="linear"``: interval-regression start, AUM descent, shrinkage, level."""
    w0, b0, info = _start(o.init, d, targets, rng, o.ir_repeats)
    scaling, X_sub, X_val, bp_sub = d.scaling, d.X_sub, d.X_val, d.bp_sub
    roc_sub, roc_val = d.roc_sub, d.roc_val

    # the same numbers as roc_sub.auc, aum(bp_val, .).aum and roc_val.auc, one sort each
    m_sub, m_val = SetMetrics(None, roc_sub), SetMetrics(d.bp_val, roc_val)

    def evaluate(w):
        v_aum, v_auc = m_val(X_val @ w)
        return m_sub(X_sub @ w)[1], v_aum, v_auc

    res = descend(X_sub, bp_sub, w0, b0, variant=o.line_search, max_steps=o.max_steps,
                  tol=o.tol, evaluate=evaluate, progress=o.progress, select=o.select,
                  min_improvement=o.min_improvement, l2=o.l2)
    w_best = res.weights[res.best]
    if res.best == 0 and info["init"] not in ("weights", "zero", "random"):
        b_best = b0  # the start's own intercept (interval regression or a model)
    else:
        b_best = min_error_shift(bp_sub, X_sub @ w_best)
    alpha, safe = 1.0, shrink_target(o.shrink, scaling)
    if safe is not None:  # toward the safe model, by validation AUC
        alpha, _ = choose_shrinkage(lambda w: roc_val.auc(X_val @ w), w_best, safe[0])
        if alpha < 1.0:
            w_best = alpha * w_best + (1.0 - alpha) * safe[0]
            b_best = min_error_shift(bp_sub, X_sub @ w_best)
    scale = 1.0
    if o.level == "validation":  # the level (and scale) of log λ for validation errors
        scale, b_best, table = choose_level(roc_sub.bp, X_sub @ w_best, roc_val.bp,
                                            X_val @ w_best)
        w_best = scale * w_best
        v_errors = min(e for _, _, e in table)
    else:
        v_errors = label_errors_at(roc_val.bp, X_val @ w_best + b_best)
    lev = Level("linear", o.level, d.how, scale, float(b_best), v_errors)
    # score weights on the standardised scale → log λ weights on the original scale
    a, a0 = unscale_weights(w_best, b_best, scaling.mean, scaling.scale)
    coef = pd.Series(-a, index=list(scaling.columns), name="coef")
    return PenaltyFit(coef, float(-a0), scaling, res, info, alpha, level=lev)


def _fit_boosted(d: Prepared, o: LearnOptions, rng) -> PenaltyFit:
    """``model="boosting"``: AUM gradient boosting (:mod:`penlearn.learn.boosting`) on the
    raw kept columns, the level of log λ by ``level``."""
    opts = asdict(boosting_options(o.boosting))
    cols = list(d.scaling.columns)
    A_sub = d.sub.features.loc[:, cols].to_numpy(float)
    A_val = d.val.features.loc[:, cols].to_numpy(float)
    roc_sub, roc_val = d.roc_sub, d.roc_val
    m_sub, m_val = SetMetrics(None, roc_sub), SetMetrics(d.bp_val, roc_val)

    def evaluate(f_sub, f_val):
        return (m_sub(f_sub)[1], *m_val(f_val))

    res = fit_boosting(A_sub, d.bp_sub, A_val, evaluate, max_stages=min(o.max_steps,
                       opts["max_stages"]), learning_rate=opts["learning_rate"],
                       max_depth=opts["max_depth"], min_samples_leaf=opts["min_samples_leaf"],
                       patience=opts["patience"], select=o.select,
                       min_improvement=opts["min_improvement"],
                       random_state=int(rng.integers(2**31)))
    f_sub, f_val = predict_trees(res.trees, A_sub), predict_trees(res.trees, A_val)
    scale = 1.0
    if o.level == "validation":
        scale, shift, table = choose_level(roc_sub.bp, f_sub, roc_val.bp, f_val)
        v_errors = min(e for _, _, e in table)
    else:
        shift = min_error_shift(d.bp_sub, f_sub)
        v_errors = label_errors_at(roc_val.bp, f_val + shift)
    trees = res.trees
    if opts["refit"] and res.best > 0:  # the chosen number of stages, on every sequence
        ids, _, ev_all = join(d.sub, d.val)
        bp_all = set_breakpoints(ev_all, ids, o.normalize, "training")
        A_all = np.vstack([A_sub, A_val])
        trees = fit_boosting(A_all, bp_all, A_all[:1], lambda f, fv: (0.0, 0.0, 0.0),
                             max_stages=res.best, learning_rate=opts["learning_rate"],
                             max_depth=opts["max_depth"],
                             min_samples_leaf=opts["min_samples_leaf"], patience=res.best + 1,
                             select="last", random_state=int(rng.integers(2**31))).trees
        f_all = predict_trees(trees, A_all)
        shift = min_error_shift(ChangepointROC(ev_all, ids).bp, scale * f_all)
    lev = Level("boosting", o.level, d.how, scale, float(shift), v_errors)
    # log λ = −score = −(α·Σ trees + c): trees of log λ
    trees = [dict(t, value=-scale * t["value"]) for t in trees]
    coef = pd.Series(0.0, index=cols, name="coef")
    return PenaltyFit(coef, -float(shift), d.scaling, res, {"init": "constant", **opts}, 1.0,
                      trees=trees, level=lev)

