"""Learning a penalty function: the functional core behind :func:`penlearn.learn_penalty`.

The protocol is Section 5.2 of Fowler & Hocking (2024), "Efficient line search for
optimizing Area Under the ROC Curve in gradient descent":

1. standardise the finite feature columns;
2. initialise with L1-regularised squared-hinge interval regression
   (:class:`~penlearn.learn.interval_regression.IntervalRegression`) on the target
   intervals;
3. gradient descent on the subtrain breakpoints' AUM ("rate" by default) with the step
   chosen by the exact AUM line search or a grid (:func:`penlearn.learn.descent.descend`);
   by default on AUM + (0.1/2)·‖w‖² (``l2``; 0 is the paper's plain AUM);
4. keep the iterate with the largest validation AUC — by default only if it beats the
   start's validation AUC by more than 0.01 (``min_improvement``; 0 is the paper's rule:
   on 17 ChIP-seq data sets the paper's rule lost test AUC to its own start on average,
   see benchmarks/all_sets.py);
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

from penlearn._checks import bounded_rows, check_evaluation, id_list
from penlearn.breakpoints import (
    Breakpoints,
    breakpoints_from_checked,
    examples_with_negative_errors,
)
from penlearn.changepoint.evaluation import target_intervals
from penlearn.learn._metrics import SetMetrics
from penlearn.learn.boosting import Boosted, fit_boosting, predict_trees
from penlearn.learn.choice import group_folds, one_se_choice
from penlearn.learn.descent import (
    check_classes,
    descend,
    initial_weights,
    min_error_shift,
)
from penlearn.learn.groups import check_groups, group_split, region_groups
from penlearn.learn.interval_regression import IntervalRegression
from penlearn.learn.level import choose_level, label_errors_at
from penlearn.learn.options import (
    DEFAULT_MODEL,
    LEVELS,
    MODELS,
    BoostingOptions,
    LearnOptions,
    boosting_options,
    learn_options,
    with_options,
)
from penlearn.learn.scaling import FeatureScaling, standardize_features
from penlearn.learn.shrink import choose_shrinkage, shrink_target
from penlearn.roc import ChangepointROC

__all__ = ["BOOSTING_OPTIONS", "DEFAULT_MODEL", "LEVELS", "MODELS", "PenaltyFit", "fit_penalty",
           "subtrain_validation_split"]

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
    descent : penlearn.learn.descent.Descent
        The gradient-descent history; ``descent.best`` is the returned iterate.
    init_info : dict
        Initialisation details (e.g. the interval-regression regulariser).
    shrinkage : float
        α of ``shrink`` (:mod:`penlearn.learn.shrink`): 1 keeps the descent's iterate.
    trees : list or None
        The boosted trees (``model="boosting"``): log λ = intercept + Σ trees(x).
    level : dict
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
    level: dict = field(default_factory=dict)


def subtrain_validation_split(folds: pd.DataFrame, test_fold) -> dict[str, list]:
    """The paper's split: test fold; the other sequences alternately subtrain/validation.

    As coded for Figure 6 of Fowler & Hocking (2024): the rows of ``folds`` are taken in
    sorted ``sequence_id`` order (the order of ``folds.csv``); those with
    ``fold != test_fold`` are assigned ``subtrain, validation, subtrain, ...``.

    Parameters
    ----------
    folds : DataFrame
        ``sequence_id, fold`` (as ``load_uci(...).folds[cv_type]``).
    test_fold
        The fold held out as test set.

    Returns
    -------
    dict
        ``{"subtrain": [...], "validation": [...], "test": [...]}`` of sequence ids.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"sequence_id": list("abcde"), "fold": [1, 2, 2, 1, 2]})
    >>> subtrain_validation_split(f, 1)
    {'subtrain': ['b', 'e'], 'validation': ['c'], 'test': ['a', 'd']}
    """
    if not isinstance(folds, pd.DataFrame) or not {"sequence_id", "fold"} <= set(folds):
        raise ValueError("folds must be a DataFrame with columns 'sequence_id' and 'fold'")
    f = folds.sort_values("sequence_id", kind="stable")
    is_test = (f["fold"] == test_fold).to_numpy()
    if not is_test.any():
        raise ValueError(f"test_fold {test_fold!r} is not a fold of folds ({sorted(set(f.fold))})")
    rest = f["sequence_id"].to_numpy()[~is_test]
    return {
        "subtrain": list(rest[0::2]),
        "validation": list(rest[1::2]),
        "test": list(f["sequence_id"].to_numpy()[is_test]),
    }


def _check_features(features, what: str) -> pd.DataFrame:
    if not isinstance(features, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame indexed by sequence id")
    if features.index.has_duplicates:
        dup = features.index[features.index.duplicated()][0]
        raise ValueError(f"{what} has more than one row for sequence {dup!r}")
    bad = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if bad:
        raise TypeError(f"{what} column(s) {bad[:5]} are not numeric")
    if len(features) == 0:
        raise ValueError(f"{what} has no rows")
    return features.astype(float)


def _check_match(features: pd.DataFrame, evaluation: pd.DataFrame, what: str) -> list:
    ev_ids = pd.Index(pd.unique(evaluation["sequence_id"]))
    fids = features.index
    no_ev = fids.difference(ev_ids)
    no_feat = ev_ids.difference(fids)
    if len(no_ev) or len(no_feat):
        raise ValueError(
            f"sequence ids of the {what} features and evaluation do not match: "
            f"{len(no_ev)} feature row(s) without evaluation (e.g. {list(no_ev[:3])}), "
            f"{len(no_feat)} evaluated sequence(s) without features (e.g. {list(no_feat[:3])})"
        )
    return list(fids)


def _set_breakpoints(evaluation, ids, normalize, what) -> Breakpoints:
    bp = breakpoints_from_checked(evaluation, sequence_ids=ids)
    bad = examples_with_negative_errors(bp)
    if len(bad):
        # their FN (or FP) relative to the extreme penalties goes negative, where AUM is
        # undefined: keep the sequences (they still get predictions) without breakpoints
        names = [bp.example_ids[i] for i in bad]
        warnings.warn(
            f"{what} set: {len(bad)} sequence(s) have fewer errors at an intermediate penalty "
            "than at the extreme one (FN at lambda=0 or FP at lambda=inf is not minimal), so "
            f"AUM is undefined for them; their breakpoints are left out: {names[:5]}",
            UserWarning,
            stacklevel=3,
        )
        keep = ~np.isin(bp.example, bad)
        bp = Breakpoints(bp.example[keep], bp.value[keep], bp.fp_diff[keep], bp.fn_diff[keep],
                         bp.n_examples, bp.example_ids)
    check_classes(bp, what, _bound_hint(evaluation))
    return bp.normalize(normalize)


def _bound_hint(evaluation: pd.DataFrame) -> str:
    """What to do when bounded error functions hold too few errors to learn from."""
    bounded = bounded_rows(evaluation)
    if not bounded.any():
        return ""
    n = evaluation.loc[bounded, "sequence_id"].nunique()
    bound = evaluation.attrs.get("max_peaks")
    where = f"max_peaks={bound}" if bound is not None else "a bound"
    return (f"; the error functions of {n} of its sequences stop at {where} (rows marked "
            "bounded) and the missing errors may lie below it: compute them further down, "
            "e.g. peak_error_functions(..., max_peaks=100) (the default) or larger")


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
    a = -coef.fillna(0.0).to_numpy()
    return a * scaling.scale, float(-model.intercept_ + np.dot(a, scaling.mean))


def _split(features, evaluation, validation, folds, groups="auto"):
    """(ids, features, evaluation) of the subtrain and of the validation sets, and how
    they were split."""
    feats = _check_features(features, "features")
    evaluation = check_evaluation(evaluation)  # validated once here; trusted below
    all_ids = _check_match(feats, evaluation, "training")
    if validation is not None and folds is not None:
        raise ValueError("give validation= or folds=, not both")
    if validation is not None and not (groups is None or isinstance(groups, str)):
        raise ValueError("give validation= or groups=, not both")
    if validation is not None:
        if not (isinstance(validation, tuple) and len(validation) == 2):
            raise TypeError("validation must be a (features, evaluation) pair")
        v_feats = _check_features(validation[0], "validation features")
        v_eval = check_evaluation(validation[1], name="validation evaluation")
        v_ids = _check_match(v_feats, v_eval, "validation")
        overlap = pd.Index(all_ids).intersection(v_ids)
        if len(overlap):
            raise ValueError(
                f"{len(overlap)} sequence(s) are in both training and validation sets, "
                f"e.g. {list(overlap[:3])}"
            )
        return (all_ids, feats, evaluation), (v_ids, v_feats, v_eval), "validation="
    how = "folds="
    g = None
    if folds is None and groups is not None:
        if isinstance(groups, str):
            if groups != "auto":
                raise ValueError(f"groups must be 'auto', None or a Series indexed by "
                                 f"sequence id, got {groups!r}")
            g = region_groups(all_ids)
        else:
            g = check_groups(groups, all_ids)
            if g.nunique() < 2:
                raise ValueError("groups: all training sequences are in one group; give "
                                 "at least 2 groups (or groups=None)")
    elif folds is not None and not (isinstance(groups, str) and groups == "auto") \
            and groups is not None:
        raise ValueError("give folds= or groups=, not both")
    if g is not None:
        sub_ids, v_ids = group_split(g)
        how = f"groups ({g.nunique()})"
    elif folds is None:
        order = sorted(all_ids, key=str)
        sub_ids, v_ids = order[0::2], order[1::2]
        how = "alternate ids"
    else:
        f = folds.set_index("sequence_id")["set"] if isinstance(folds, pd.DataFrame) \
            else pd.Series(folds)
        f = f.reindex(all_ids)
        if f.isna().any():
            raise ValueError(f"folds has no set for sequence {f.index[f.isna()][0]!r}")
        bad_sets = set(f) - {"subtrain", "validation"}
        if bad_sets:
            raise ValueError(f"folds values must be 'subtrain'/'validation', got {bad_sets}")
        sub_ids = list(f.index[f == "subtrain"])
        v_ids = list(f.index[f == "validation"])
    if len(sub_ids) == 0 or len(v_ids) == 0:
        raise ValueError("need at least one subtrain and one validation sequence")
    ev_ids = evaluation["sequence_id"]
    return ((sub_ids, feats.loc[sub_ids], evaluation[ev_ids.isin(sub_ids)]),
            (v_ids, feats.loc[v_ids], evaluation[ev_ids.isin(v_ids)]), how)


def _scaling(sub_feats, v_feats, scale_features) -> FeatureScaling:
    """Standardisation of the finite columns over the rows that define the scale."""
    scale_rows = pd.concat([sub_feats, v_feats]) if scale_features is None else \
        _check_features(scale_features, "scale_features")
    scaling = standardize_features(scale_rows)
    for what, fr in (("subtrain", sub_feats), ("validation", v_feats)):
        vals = fr.loc[:, list(scaling.columns)].to_numpy(float)
        if not np.all(np.isfinite(vals)):
            r, c = np.argwhere(~np.isfinite(vals))[0]
            raise ValueError(
                f"{what} features: sequence {fr.index[r]!r} has a non-finite value in kept "
                f"column {scaling.columns[c]!r}"
            )
    # the training range (non-finite features are clipped to it at prediction time)
    rows = np.vstack([fr.loc[:, list(scaling.columns)].to_numpy(float)
                      for fr in (sub_feats, v_feats)])
    scaling = replace(scaling, low=np.minimum(scaling.low, rows.min(axis=0, initial=np.inf)),
                      high=np.maximum(scaling.high, rows.max(axis=0, initial=-np.inf)))
    if scaling.dropped:
        warnings.warn(f"learn_penalty: dropped {len(scaling.dropped)} non-finite/constant "
                      f"feature column(s): {list(scaling.dropped)}", UserWarning, stacklevel=5)
    return scaling


def _start(init, scaling, sub, val, X_sub, X_val, targets, rng, repeats=1):
    """Starting score weights and intercept on the standardised features, and details
    (interval regression: the average of ``repeats`` fits, each with its own CV folds)."""
    (sub_ids, _, sub_eval), (v_ids, _, v_eval) = sub, val
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
    **options,
) -> PenaltyFit:
    """Learn log λ = f(features) by AUM gradient descent; the arguments of
    :func:`penlearn.learn_penalty`, which wraps this function in a
    :class:`~penlearn.PenaltyModel`.

    Returns
    -------
    PenaltyFit
        The iterate chosen by ``select`` / ``min_improvement``
        (:func:`penlearn.learn.descent.select_iterate`), its intercept set to minimise
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
    if o.model == "auto":
        return _fit_auto(features, evaluation, validation, folds, targets, scale_features,
                         groups, o)
    return _fit_kind(features, evaluation, validation, folds, targets, scale_features,
                     groups, o)


def _fit_kind(features, evaluation, validation, folds, targets, scale_features, groups,
              o: LearnOptions) -> PenaltyFit:
    """One model class (``o.model``: linear, boosting or constant) on a validation split."""
    sub, val, how = _split(features, evaluation, validation, folds, groups)
    (sub_ids, sub_feats, sub_eval), (v_ids, v_feats, v_eval) = sub, val
    scaling = _scaling(sub_feats, v_feats, scale_features)
    if o.model == "constant":  # needs no class on either side of the split
        return _fit_constant(scaling, sub, val, how)
    X_sub = scaling.transform(sub_feats)
    X_val = scaling.transform(v_feats)
    bp_sub = _set_breakpoints(sub_eval, sub_ids, o.normalize, "subtrain")
    bp_val = _set_breakpoints(v_eval, v_ids, o.normalize, "validation")
    roc_sub = ChangepointROC(sub_eval, sub_ids)
    roc_val = ChangepointROC(v_eval, v_ids)
    if o.model == "boosting":
        return _fit_boosted(scaling, sub, val, bp_sub, bp_val, roc_sub, roc_val,
                            o.level, how, boosting_options(o.boosting), o.select,
                            o.max_steps, np.random.default_rng(o.random_state), o.normalize)
    return _fit_linear(
        scaling, sub, val, X_sub, X_val, bp_sub, bp_val, roc_sub, roc_val, o.level, how,
        np.random.default_rng(o.random_state), init=o.init, targets=targets,
        ir_repeats=o.ir_repeats, line_search=o.line_search,
        max_steps=o.max_steps, tol=o.tol, progress=o.progress, select=o.select,
        min_improvement=o.min_improvement, l2=o.l2, shrink=o.shrink)


def _fit_constant(scaling, sub, val, how) -> PenaltyFit:
    """``model="constant"``: the one log λ of fewest label errors on every training
    sequence (the features are not used; its history: one row, no step)."""
    ids = list(sub[0]) + list(val[0])
    roc = ChangepointROC(pd.concat([sub[2], val[2]]), ids)
    shift = min_error_shift(roc.bp, np.zeros(len(ids)))
    hist = pd.DataFrame([{"step": 0, "step_size": 0.0, "subtrain_aum": 0.0,
                          "subtrain_auc": 0.0, "validation_aum": 0.0, "validation_auc": 0.0,
                          "events": 0, "seconds": 0.0}])
    lev = {"rule": "all training", "split": how, "scale": 1.0, "model": "constant",
           "shift": float(shift), "validation_errors": label_errors_at(
               ChangepointROC(val[2], list(val[0])).bp, np.full(len(val[0]), shift))}
    coef = pd.Series(0.0, index=list(scaling.columns), name="coef")
    return PenaltyFit(coef, -float(shift), scaling, Boosted([], hist, 0), {"init": "constant"},
                      1.0, level=lev)


def _predict_fit(fit: PenaltyFit, feats: pd.DataFrame) -> np.ndarray:
    """log λ of a fit on held-out rows (non-finite features: the training mean, clipped)."""
    A = feats.loc[:, list(fit.scaling.columns)].to_numpy(float)
    bad = ~np.isfinite(A)
    if bad.any():
        fill = np.clip(np.nan_to_num(A, nan=0.0), fit.scaling.low, fit.scaling.high)
        A = np.where(bad, fill, A)
    if fit.trees is not None:
        return predict_trees(fit.trees, A) + fit.intercept
    return A @ fit.coef.to_numpy() + fit.intercept


def _fit_auto(features, evaluation, validation, folds, targets, scale_features, groups,
              o: LearnOptions) -> PenaltyFit:
    """``model="auto"``: each candidate scored by K-fold CV over whole groups, the one
    chosen by the one-SE rule refit on all (:mod:`penlearn.learn.choice`)."""
    sub, val, _ = _split(features, evaluation, validation, folds, groups)  # checks all
    feats = pd.concat([sub[1], val[1]])  # cross-validate over every training sequence
    ev = pd.concat([sub[2], val[2]])
    ids = list(sub[0]) + list(val[0])
    _set_breakpoints(ev, ids, o.normalize, "training")  # both classes, or say what to do
    explicit = groups is not None and not isinstance(groups, str)
    g = check_groups(groups, ids) if explicit else \
        (region_groups(ids) if groups is not None else None)
    what = "groups" if explicit else ("regions" if g is not None else "sequences")
    if g is None:
        g = pd.Series(range(len(ids)), index=ids)
    fold = group_folds(g, o.cv_folds, np.random.default_rng(o.random_state))
    ev_ids = ev["sequence_id"]
    errors = {c: [] for c in o.candidates}
    aucs = {c: [] for c in o.candidates}
    for k in sorted(fold.unique()):
        tr, te = list(fold.index[fold != k]), list(fold.index[fold == k])
        ev_te = ev[ev_ids.isin(te)]
        roc = ChangepointROC(ev_te, te)
        n_labels = max(roc.possible_fp + roc.possible_fn, 1.0)
        for c in o.candidates:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    f = _fit_kind(feats.loc[tr], ev[ev_ids.isin(tr)], None, None, targets,
                                  scale_features, g.loc[tr] if explicit else groups,
                                  replace(o, model=c, progress=False))
                pred = _predict_fit(f, feats.loc[te])
                errors[c].append(label_errors_at(roc.bp, -pred) / n_labels)
                aucs[c].append(roc.auc(-pred))
            except ValueError:  # e.g. one class only in a part: out of the choice
                errors[c].append(np.nan)
                aucs[c].append(np.nan)
    chosen, table = one_se_choice(pd.DataFrame(errors), pd.DataFrame(aucs)
                                  if o.cv_rule == "1se-auc" else None)
    fit = _fit_kind(features, evaluation, validation, folds, targets, scale_features, groups,
                    replace(o, model=chosen))
    choice = {"chosen": chosen, "folds": int(fold.nunique()), "groups": what,
              "rule": o.cv_rule, "errors": table["mean"].to_dict(),
              "se": table["se"].to_dict(),
              "auc": {c: float(np.nanmean(aucs[c])) for c in table.index},
              "fold_errors": {c: [float(e) for e in errors[c]] for c in table.index}}
    return replace(fit, level={**fit.level, "model": chosen, "choice": choice})


def _fit_linear(scaling, sub, val, X_sub, X_val, bp_sub, bp_val, roc_sub, roc_val, level, how,
                rng, *, init, targets, ir_repeats, line_search, max_steps, tol, progress,
                select, min_improvement, l2, shrink) -> PenaltyFit:
    """``model="linear"``: interval-regression start, AUM descent, shrinkage, level."""
    w0, b0, info = _start(init, scaling, sub, val, X_sub, X_val, targets, rng, ir_repeats)

    # the same numbers as roc_sub.auc, aum(bp_val, .).aum and roc_val.auc, one sort each
    m_sub, m_val = SetMetrics(None, roc_sub), SetMetrics(bp_val, roc_val)

    def evaluate(w):
        v_aum, v_auc = m_val(X_val @ w)
        return m_sub(X_sub @ w)[1], v_aum, v_auc

    res = descend(X_sub, bp_sub, w0, b0, variant=line_search, max_steps=max_steps, tol=tol,
                  evaluate=evaluate, progress=progress, select=select,
                  min_improvement=min_improvement, l2=l2)
    w_best = res.weights[res.best]
    if res.best == 0 and info["init"] not in ("weights", "zero", "random"):
        b_best = b0  # the start's own intercept (interval regression or a model)
    else:
        b_best = min_error_shift(bp_sub, X_sub @ w_best)
    alpha, safe = 1.0, shrink_target(shrink, scaling)
    if safe is not None:  # toward the safe model, by validation AUC
        alpha, _ = choose_shrinkage(lambda w: roc_val.auc(X_val @ w), w_best, safe[0])
        if alpha < 1.0:
            w_best = alpha * w_best + (1.0 - alpha) * safe[0]
            b_best = min_error_shift(bp_sub, X_sub @ w_best)
    lev = {"rule": level, "split": how, "scale": 1.0, "model": "linear"}
    if level == "validation":  # the level (and scale) of log λ for validation errors
        lev["scale"], b_best, table = choose_level(roc_sub.bp, X_sub @ w_best, roc_val.bp,
                                                   X_val @ w_best)
        w_best = lev["scale"] * w_best
        lev["validation_errors"] = min(e for _, _, e in table)
    else:
        lev["validation_errors"] = label_errors_at(roc_val.bp, X_val @ w_best + b_best)
    lev["shift"] = float(b_best)
    # score weights on the standardised scale → log λ weights on the original scale
    a = w_best / scaling.scale
    a0 = b_best - float(np.dot(a, scaling.mean))
    coef = pd.Series(-a, index=list(scaling.columns), name="coef")
    return PenaltyFit(coef, float(-a0), scaling, res, info, alpha, level=lev)


def _fit_boosted(scaling, sub, val, bp_sub, bp_val, roc_sub, roc_val, level, how,
                 options: BoostingOptions, select, max_steps, rng,
                 opts_normalize="rate") -> PenaltyFit:
    """``model="boosting"``: AUM gradient boosting (:mod:`penlearn.learn.boosting`) on the
    raw kept columns, the level of log λ by ``level``."""
    opts = asdict(options)
    cols = list(scaling.columns)
    A_sub = sub[1].loc[:, cols].to_numpy(float)
    A_val = val[1].loc[:, cols].to_numpy(float)
    m_sub, m_val = SetMetrics(None, roc_sub), SetMetrics(bp_val, roc_val)

    def evaluate(f_sub, f_val):
        return (m_sub(f_sub)[1], *m_val(f_val))

    res = fit_boosting(A_sub, bp_sub, A_val, evaluate, max_stages=min(max_steps,
                       opts["max_stages"]), learning_rate=opts["learning_rate"],
                       max_depth=opts["max_depth"], min_samples_leaf=opts["min_samples_leaf"],
                       patience=opts["patience"], select=select,
                       min_improvement=opts["min_improvement"],
                       random_state=int(rng.integers(2**31)))
    f_sub, f_val = predict_trees(res.trees, A_sub), predict_trees(res.trees, A_val)
    lev = {"rule": level, "split": how, "scale": 1.0, "model": "boosting"}
    if level == "validation":
        lev["scale"], shift, table = choose_level(roc_sub.bp, f_sub, roc_val.bp, f_val)
        lev["validation_errors"] = min(e for _, _, e in table)
    else:
        shift = min_error_shift(bp_sub, f_sub)
        lev["validation_errors"] = label_errors_at(roc_val.bp, f_val + shift)
    trees = res.trees
    if opts["refit"] and res.best > 0:  # the chosen number of stages, on every sequence
        ids = list(sub[0]) + list(val[0])
        ev_all = pd.concat([sub[2], val[2]])
        bp_all = _set_breakpoints(ev_all, ids, opts_normalize, "training")
        A_all = np.vstack([A_sub, A_val])
        trees = fit_boosting(A_all, bp_all, A_all[:1], lambda f, fv: (0.0, 0.0, 0.0),
                             max_stages=res.best, learning_rate=opts["learning_rate"],
                             max_depth=opts["max_depth"],
                             min_samples_leaf=opts["min_samples_leaf"], patience=res.best + 1,
                             select="last", random_state=int(rng.integers(2**31))).trees
        f_all = predict_trees(trees, A_all)
        shift = min_error_shift(ChangepointROC(ev_all, ids).bp, lev["scale"] * f_all)
    lev["shift"] = float(shift)
    # log λ = −score = −(α·Σ trees + c): trees of log λ
    trees = [dict(t, value=-lev["scale"] * t["value"]) for t in trees]
    coef = pd.Series(0.0, index=cols, name="coef")
    return PenaltyFit(coef, -float(shift), scaling, res, {"init": "constant", **opts}, 1.0,
                      trees=trees, level=lev)

