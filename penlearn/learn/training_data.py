"""The training data of :func:`penlearn.learn.penalty.fit_penalty`, as named records.

- :class:`Part`: the ids, features and error functions of one side of a split
  (subtrain or validation), made by :func:`split_training` (``validation=``,
  ``folds=``, whole groups or alternate ids; :mod:`penlearn._folds`);
- :class:`Prepared`: a split ready to fit (:func:`prepare`): the standardisation, the
  standardised features, the breakpoints and ROC of both sides;
- :class:`Level`: how the level of log λ was set (:mod:`penlearn.learn.level`), the
  ``level_`` of a :class:`~penlearn.PenaltyModel`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields, replace
from typing import NamedTuple

import numpy as np
import pandas as pd

from penlearn._checks import bounded_rows, check_evaluation
from penlearn._folds import alternate_split, singletons
from penlearn._warnings import caller_stacklevel
from penlearn.breakpoints import (
    Breakpoints,
    breakpoints_from_checked,
    examples_with_negative_errors,
)
from penlearn.fitting.descent import check_classes
from penlearn.fitting.scaling import FeatureScaling, standardize_features
from penlearn.learn.groups import check_groups, group_split, region_groups
from penlearn.roc import ChangepointROC

__all__ = ["Level", "Part", "Prepared", "check_features", "feature_scaling", "join", "prepare",
           "set_breakpoints", "split_training", "subtrain_validation_split"]


class Part(NamedTuple):
    """One side of a split: sequence ids, their features and their error functions."""

    ids: list
    features: pd.DataFrame
    evaluation: pd.DataFrame


def join(a: Part, b: Part) -> Part:
    """The sequences of both parts (``a``'s first).

    Examples
    --------
    >>> p = Part(["a"], pd.DataFrame({"x": [1.0]}, index=["a"]), pd.DataFrame())
    >>> join(p, p._replace(ids=["b"])).ids
    ['a', 'b']
    """
    return Part(list(a.ids) + list(b.ids), pd.concat([a.features, b.features]),
                pd.concat([a.evaluation, b.evaluation]))


@dataclass(frozen=True)
class Prepared:
    """A split ready to fit: the standardisation learned on its rows, the standardised
    features (``X_*``), the breakpoints (``bp_*``, normalised as asked) and the ROC
    (``roc_*``, counts) of the subtrain and validation sides, and how it was split."""

    scaling: FeatureScaling
    sub: Part
    val: Part
    how: str
    X_sub: np.ndarray
    X_val: np.ndarray
    bp_sub: Breakpoints
    bp_val: Breakpoints
    roc_sub: ChangepointROC
    roc_val: ChangepointROC


@dataclass(frozen=True)
class Level:
    """How the level of log λ was set (:mod:`penlearn.learn.level`).

    Attributes
    ----------
    model : str
        The model class fitted (``"linear"``, ``"boosting"``, ``"constant"``).
    rule : str
        ``level=`` (``"validation"``, ``"subtrain"``), or ``"all training"``.
    split : str
        How subtrain and validation were split.
    scale : float
        α, the scale of the learned function.
    shift : float
        The constant added to the scores.
    validation_errors : float
        Label errors on the validation side at that level.
    choice : dict or None
        ``model="auto"``: the choice among candidates (:mod:`penlearn.learn.choice`).
    """

    model: str
    rule: str
    split: str
    scale: float = 1.0
    shift: float = 0.0
    validation_errors: float = math.nan
    choice: dict | None = None

    def as_dict(self) -> dict:
        """The record as the ``level_`` dict of a PenaltyModel (``choice`` when set).

        Examples
        --------
        >>> Level("linear", "validation", "groups (2)", shift=1.5).as_dict()["shift"]
        1.5
        """
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if out["choice"] is None:
            del out["choice"]
        return out


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
    sub, val = alternate_split(singletons(rest)) if len(rest) > 1 else (list(rest), [])
    return {"subtrain": sub, "validation": val,
            "test": list(f["sequence_id"].to_numpy()[is_test])}


def check_features(features, what: str) -> pd.DataFrame:
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


def set_breakpoints(evaluation, ids, normalize, what) -> Breakpoints:
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
            stacklevel=caller_stacklevel(),
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


def split_training(features, evaluation, validation, folds, groups="auto"
                   ) -> tuple[Part, Part, str]:
    """The subtrain and the validation :class:`Part`, and how they were split."""
    feats = check_features(features, "features")
    evaluation = check_evaluation(evaluation)  # validated once here; trusted below
    all_ids = _check_match(feats, evaluation, "training")
    if validation is not None and folds is not None:
        raise ValueError("give validation= or folds=, not both")
    if validation is not None and not (groups is None or isinstance(groups, str)):
        raise ValueError("give validation= or groups=, not both")
    if validation is not None:
        if not (isinstance(validation, tuple) and len(validation) == 2):
            raise TypeError("validation must be a (features, evaluation) pair")
        v_feats = check_features(validation[0], "validation features")
        v_eval = check_evaluation(validation[1], name="validation evaluation")
        v_ids = _check_match(v_feats, v_eval, "validation")
        overlap = pd.Index(all_ids).intersection(v_ids)
        if len(overlap):
            raise ValueError(
                f"{len(overlap)} sequence(s) are in both training and validation sets, "
                f"e.g. {list(overlap[:3])}"
            )
        return Part(all_ids, feats, evaluation), Part(v_ids, v_feats, v_eval), "validation="
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
        sub_ids, v_ids = alternate_split(singletons(sorted(all_ids, key=str))) \
            if len(all_ids) > 1 else (all_ids, [])
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
    return (Part(sub_ids, feats.loc[sub_ids], evaluation[ev_ids.isin(sub_ids)]),
            Part(v_ids, feats.loc[v_ids], evaluation[ev_ids.isin(v_ids)]), how)


def feature_scaling(sub_feats, v_feats, scale_features) -> FeatureScaling:
    """Standardisation of the finite columns over the rows that define the scale."""
    scale_rows = pd.concat([sub_feats, v_feats]) if scale_features is None else \
        check_features(scale_features, "scale_features")
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
                      f"feature column(s): {list(scaling.dropped)}", UserWarning,
                      stacklevel=caller_stacklevel())
    return scaling


def prepare(sub: Part, val: Part, how: str, scaling: FeatureScaling, normalize: str
            ) -> Prepared:
    """The :class:`Prepared` split of ``sub`` and ``val`` (both classes on each side, or a
    ``ValueError`` saying what to do)."""
    return Prepared(scaling, sub, val, how,
                    scaling.transform(sub.features), scaling.transform(val.features),
                    set_breakpoints(sub.evaluation, sub.ids, normalize, "subtrain"),
                    set_breakpoints(val.evaluation, val.ids, normalize, "validation"),
                    ChangepointROC(sub.evaluation, sub.ids),
                    ChangepointROC(val.evaluation, val.ids))
