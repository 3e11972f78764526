"""The fitted penalty model: a thin scikit-learn style estimator, JSON I/O, prediction.

:class:`PenaltyModel` holds parameters; :meth:`PenaltyModel.fit` calls the functional
core :func:`penlearn.learn.penalty.fit_penalty` and stores its result;
:func:`penlearn.learn.learner.learn_penalty` is ``PenaltyModel(...).fit(...)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from penlearn._threads import one_blas_thread
from penlearn.changepoint.model_selection import model_selection
from penlearn.changepoint.segmentation import change_positions, segment
from penlearn.fitting.descent import HISTORY_COLUMNS
from penlearn.fitting.model_file import (
    DEFAULT_SEGMENTATION,
    MAX_ABS_COEF,
    TASKS,
    check_segmentation,
    check_task,
    read_model_file,
    write_model_file,
)
from penlearn.fitting.scaling import FeatureScaling
from penlearn.learn.boosting import predict_trees
from penlearn.learn.choice import choice_summary
from penlearn.learn.options import (
    DEFAULT_MODEL,
    MODELS,
    OPTION_NAMES,
    LearnOptions,
    learn_options,
    with_options,
)
from penlearn.learn.penalty import check_prior, fit_penalty
from penlearn.learn.prediction import (
    check_prediction,
    check_sequence,
    linear_design,
    scaling_dict,
    select_features,
    sequence_features,
    trees_from_json,
    trees_to_json,
    warn_missing,
)

__all__ = ["DEFAULT_MODEL", "FORMAT", "FORMAT_VERSION", "PenaltyModel"]

FORMAT = "penlearn.PenaltyModel"
FORMAT_VERSION = 1


class PenaltyModel:
    """A linear model of log λ learned by AUM gradient descent.

    A thin estimator over :func:`penlearn.learn.penalty.fit_penalty`; the parameters are
    those of :func:`learn_penalty`.

    The keyword options (``model``, ``line_search``, ``l2``, …: the signature lists
    them with their defaults) are those of :func:`learn_penalty`, defined once in
    :class:`penlearn.learn.options.LearnOptions` and checked by
    :func:`penlearn.learn.options.learn_options` when fitting; ``clip`` only changes
    prediction (features clipped to their training range).

    Attributes
    ----------
    coef_ : Series
        Weights of log λ on the original feature scale.
    intercept_ : float
    history_ : DataFrame
        One row per recorded step: ``step, step_size, subtrain_aum, subtrain_auc,
        validation_aum, validation_auc, events, seconds``.
    best_step_ : int
        The returned iterate (see ``select`` and ``min_improvement``).
    dropped_features_ : list
        Feature columns dropped for non-finite values or zero variance.
    init_ : dict
        Initialisation details (e.g. the interval-regression regulariser).
    segmentation_ : dict or None
        ``loss`` and ``max_segments`` of the training data's segmentations (as given to
        ``fit``), the defaults of :meth:`segment`.
    scaling_ : FeatureScaling
        Standardisation and training range of the features (see :meth:`predict`).
    shrinkage_ : float
        The α of ``shrink`` (1: the descent's iterate unchanged).
    trees_ : list or None
        ``model="boosting"``: the trees (arrays, :mod:`penlearn.learn.boosting`);
        log λ = ``intercept_`` + Σ trees(x), and ``coef_`` is all zero.
    level_ : dict
        How the level of log λ was set: ``rule``, ``scale`` α, ``shift``, ``split``.
    task_ : str or None
        What the features describe, recorded in the model file (``"changepoint"``,
        ``"peaks"``, ``"joint"``; :data:`penlearn.fitting.model_file.TASKS`) so that a
        command refuses a model of another task; None: unknown (set by the caller that
        knows, e.g. ``penlearn learn``; files written before it was recorded).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> m = PenaltyModel()
    >>> m.coef_ = pd.Series([1.0], index=["x"]); m.intercept_ = 0.5
    >>> m.predict(pd.DataFrame({"x": [1.0, 2.0]})).tolist()
    [1.5, 2.5]
    """

    _PARAMS = OPTION_NAMES

    @with_options
    def __init__(self, **options) -> None:
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise TypeError(f"PenaltyModel: unknown option(s) {unknown}; valid: "
                            f"{list(OPTION_NAMES)}")
        # stored as given (checked by fit, as scikit-learn estimators do)
        for k, v in {**LearnOptions().as_dict(), **options}.items():
            setattr(self, k, v)

    # scikit-learn style -------------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters."""
        return {k: getattr(self, k) for k in self._PARAMS}

    def set_params(self, **params) -> PenaltyModel:
        """Set constructor parameters."""
        for k, v in params.items():
            if k not in OPTION_NAMES:
                raise ValueError(f"invalid parameter {k!r}; valid: {list(OPTION_NAMES)}")
            setattr(self, k, v)
        return self

    def fit(self, X, y, *, validation=None, folds=None, targets=None, scale_features=None,
            segmentation=None, groups="auto", prior=None, task=None):
        """Fit on features ``X`` (indexed by sequence id) and the evaluation table ``y``.

        See :func:`learn_penalty` for the arguments (``prior``: one more candidate of
        ``model="auto"``, checked as there by
        :func:`~penlearn.learn.penalty.check_prior`: a fitted model of ``task``, by
        default ``"peaks"`` with a prior, whose feature columns are in ``X``; ``task``:
        recorded as ``task_``).
        """
        settings = check_segmentation(segmentation)
        learn_options(**self.get_params())  # every option checked before any work
        task = check_task(task) if prior is None else check_prior(
            prior, X, task, candidate=self.model == "auto")
        with one_blas_thread():  # vectors of 10^4 breakpoints: threads only cost here
            fit = fit_penalty(X, y, validation=validation, folds=folds, targets=targets,
                              scale_features=scale_features, groups=groups, prior=prior,
                              **self.get_params())
        self.coef_ = fit.coef
        self.intercept_ = fit.intercept
        self.scaling_ = fit.scaling
        self.dropped_features_ = list(fit.scaling.dropped)
        self.feature_names_in_ = [str(c) for c in X.columns]
        self.task_ = task  # what the features describe (None: unknown)
        self.history_ = fit.descent.history
        self.best_step_ = fit.descent.best
        self.init_ = fit.init_info
        self.shrinkage_ = fit.shrinkage
        self.trees_ = fit.trees
        self.level_ = fit.level.as_dict()
        self.segmentation_ = settings
        return self

    @property
    def choice_(self) -> dict | None:
        """``model="auto"``: the model chosen, the CV label errors (mean, SE) of every
        candidate it was chosen on, folds and grouping; None otherwise."""
        return (getattr(self, "level_", None) or {}).get("choice")

    def describe(self) -> str:
        """What was learned, in words: the model (constant, linear with its non-zero
        features, boosting with k trees) and why (``model="auto"``: the CV errors).

        Examples
        --------
        >>> m = PenaltyModel()
        >>> m.coef_ = pd.Series([0.0], index=["x"]); m.intercept_ = 1.5
        >>> m.describe()
        'a constant penalty, log λ = 1.5 for every sequence'
        """
        self._check_fitted()
        trees = getattr(self, "trees_", None)
        nonzero = int(np.count_nonzero(self.coef_.to_numpy()))
        if trees:
            what = f"boosting with {len(trees)} tree(s) over {len(self.coef_)} features"
        elif nonzero:
            what = (f"a linear model of log λ, {nonzero} of {len(self.coef_)} feature "
                    "weights non-zero")
        else:
            what = f"a constant penalty, log λ = {self.intercept_:.4g} for every sequence"
            if trees is not None:  # boosting that kept no stage: what its history shows
                fitted = len(self.history_) - 1
                what += (f" (boosting kept none of the {fitted} tree(s) it fitted: the "
                         "constant's validation measure was not improved on)" if fitted
                         else " (boosting fitted no tree)")
        level = getattr(self, "level_", None) or {}
        if level.get("model") == "prior":  # model="auto" chose the prior
            what = (f"{(self.choice_ or {}).get('prior', 'the prior penalty model')}, its "
                    f"log λ shifted by {level.get('shift') or 0:+.3g} to the labels")
        if level.get("rule") == "prior":
            n = level.get("labels")
            labels = "the labels given" if n is None else f"the {int(float(n))} labels given"
            density = ""
            if "peaks_per_mb" in level:  # penlearn.learn.flood: the labels never flood
                density = (f"; expected peaks per Mb of the labeled windows: "
                           f"{level.get('peaks_per_mb_prior')} before the labels, "
                           f"{level.get('peaks_per_mb')} after")
            return (f"{level.get('prior')}, its log λ shifted by {level.get('shift') or 0:+.3g} "
                    f"to fit {labels}; learned nothing more: {level.get('reason')}{density}")
        choice = self.choice_
        return f"{what}; {choice_summary(choice)}" if choice else what

    # prediction ----------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "coef_"):
            raise ValueError("this PenaltyModel is not fitted yet; call fit() first")

    def _design(self, X) -> tuple[np.ndarray, pd.Index | None]:
        self._check_fitted()
        cols = list(self.coef_.index)
        A, index = select_features(X, cols, getattr(self, "feature_names_in_", cols))
        if getattr(self, "trees_", None) is not None:  # trees route NaN and ±inf themselves
            return A, index
        return linear_design(A, index, cols, self.coef_.to_numpy(),
                             getattr(self, "scaling_", None), self.clip), index

    def decision_function(self, X) -> np.ndarray:
        """Scores of the AUM machinery: −log λ."""
        return -self.predict(X)

    def predict(self, X) -> np.ndarray:
        """Predicted log λ, one per row of ``X``.

        ``X`` is a DataFrame (or a one-row Series) whose columns are read by name (a
        model column given twice is refused), or an array read by position. Non-finite
        feature values never stop a prediction: a feature the model does not use is
        ignored, whatever its value (a constant model, with no trees, reads none).
        Linear model: ±inf in a feature of non-zero weight is clipped to the range that
        feature had in training (``scaling_.low`` / ``scaling_.high``), as a value beyond
        every training value; NaN (missing) takes the feature's training mean
        (``scaling_.mean``). Boosted trees (``trees_``): ±inf goes to the extreme
        leaves; NaN stops the row at the node that splits on it, with that node's
        training mean (:func:`penlearn.learn.boosting.predict_trees`). One warning names
        the rows predicted with a missing value. A model without those training records
        (built by hand) raises a ``ValueError`` naming the row and column instead. A
        prediction that is not finite (an overflow) is a ``ValueError`` on every model kind.
        """
        A, index = self._design(X)
        if getattr(self, "trees_", None) is not None:  # boosted trees: no extrapolation
            out, missing = predict_trees(self.trees_, A, return_missing=True)
            if missing.any():
                used = sorted({int(f) for t in self.trees_ for f in t["feature"] if f >= 0})
                nan = np.isnan(A[missing][:, used]).any(axis=0)
                warn_missing(index, missing, [self.coef_.index[f] for f, m in zip(used, nan)
                                              if m], "each tree's training mean at the "
                             "node splitting on the missing feature")
            with np.errstate(over="ignore", invalid="ignore"):
                pred = out + self.intercept_
        else:
            with np.errstate(over="ignore", invalid="ignore"):  # reported below, with the row
                pred = A @ self.coef_.to_numpy() + self.intercept_
        return check_prediction(pred, index)

    def segment(self, sequence, features=None, max_segments: int | None = None,
                loss: str | None = None):
        """Change positions of ``sequence`` selected by the predicted penalty.

        One penalised solve at the predicted λ (functional pruning, FPOP:
        :func:`penlearn.changepoint.segmentation.segment` with ``penalty=``); when that
        optimum has more than K segments, the model that λ selects among the optimal
        models with 1..K segments (:func:`penlearn.changepoint.model_selection.model_selection`)
        instead, as in training.

        Parameters
        ----------
        sequence : array-like or DataFrame
            The values, or a DataFrame of one sequence with ``position, value``
            (positions default to 1..n).
        features : Series or one-row DataFrame, optional
            The sequence's features (the model's columns). Default: computed from the
            sequence with :func:`penlearn.changepoint.features.feature_matrix`, using the first of
            its feature sets that has every column of the model.
        max_segments : int, optional
            K, the largest model considered. Default: the ``max_segments`` the model's
            training data was segmented with (``segmentation_``), else 20.
        loss : str, optional
            Segmentation loss (``"l2"`` or ``"poisson"``). Default: the training
            data's loss (``segmentation_``), else ``"l2"``.

        Returns
        -------
        ndarray of int
            Change positions (between consecutive data at p_i < p_{i+1} a change sits at
            ⌊(p_i + p_{i+1})/2⌋); empty for the 1-segment model (and for one datum).
            An empty sequence, or a value that is not finite, raises a ``ValueError``.
        """
        self._check_fitted()
        if isinstance(sequence, pd.DataFrame):
            if "value" not in sequence:
                raise ValueError(f"sequence: a DataFrame needs a 'value' column (and "
                                 f"optionally 'position'); got {list(sequence.columns)[:5]}")
            values = sequence["value"].to_numpy(dtype=float)
            positions = (sequence["position"].to_numpy() if "position" in sequence
                         else np.arange(1, len(values) + 1))
        else:
            values = np.asarray(sequence, dtype=float)
            positions = np.arange(1, len(values) + 1)
        values = check_sequence(values)
        if len(values) == 1:  # one datum: one segment, whatever the penalty
            return np.zeros(0, dtype=np.int64)
        if features is None:
            features = sequence_features(values, positions, list(self.coef_.index))
        log_lambda = float(self.predict(features)[0])
        settings = getattr(self, "segmentation_", None) or {}
        if max_segments is None:
            max_segments = settings.get("max_segments", DEFAULT_SEGMENTATION["max_segments"])
        if loss is None:
            loss = settings.get("loss", DEFAULT_SEGMENTATION["loss"])
        k_max = min(int(max_segments), len(values))
        penalty = math.exp(min(log_lambda, 700.0))  # beyond e^700: one segment anyway
        fit = segment(values, loss=loss, penalty=penalty)
        if fit.n_segments <= k_max:  # the penalised optimum is also the best of 1..K
            ends = fit.ends()[:-1]
        else:
            seg = segment(values, k_max, loss=loss)
            path = model_selection(seg.loss, np.arange(1, seg.max_segments + 1))
            inside = ((path["min_log_lambda"] <= log_lambda)
                      & (log_lambda < path["max_log_lambda"]))
            ends = seg.ends(int(path.loc[inside, "complexity"].iloc[0]))[:-1]
        return change_positions(np.asarray(positions, dtype=np.int64), ends)

    # persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The fitted model as JSON-compatible data (versioned)."""
        self._check_fitted()
        params = self.get_params()
        if isinstance(params["init"], PenaltyModel):
            params["init"] = "warm_start"  # the starting model itself is not persisted
        elif not isinstance(params["init"], str):
            params["init"] = np.asarray(params["init"], float).tolist()
        if params["random_state"] is not None and not isinstance(params["random_state"], int):
            params["random_state"] = None
        h = self.history_
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "kind": "penalty",
            "params": params,
            "features": [str(c) for c in self.coef_.index],
            "coef": [float(v) for v in self.coef_.to_numpy()],
            "intercept": float(self.intercept_),
            "scaling": scaling_dict(self.scaling_),
            **({"segmentation": dict(self.segmentation_)}
               if getattr(self, "segmentation_", None) else {}),
            "dropped_features": [str(c) for c in self.dropped_features_],
            "feature_names_in": [str(c) for c in self.feature_names_in_],
            "best_step": int(self.best_step_),
            "shrinkage": float(getattr(self, "shrinkage_", 1.0)),
            "history": {c: [float(v) for v in h[c]] for c in HISTORY_COLUMNS},
            **({"trees": trees_to_json(self.trees_)}
               if getattr(self, "trees_", None) is not None else {}),
            **({"level": _json_level(self.level_)} if getattr(self, "level_", None) else {}),
            **({"task": self.task_} if getattr(self, "task_", None) else {}),
        }

    def save(self, path) -> None:
        """Write the model as versioned JSON, atomically (temp file + rename)."""
        write_model_file(path, self.to_dict())

    @classmethod
    def load(cls, path, task: str | None = None) -> PenaltyModel:
        """Read a model written by :meth:`save`; a malformed file raises ValueError.

        ``task`` (``"peaks"``, ``"joint"``, ``"changepoint"``): the file must be a model
        of that task (its ``task`` field, which :meth:`save` writes when ``task_`` is
        set). A file without the field (written before tasks were recorded) loads with
        ``task_ = None``, its task unknown, and one warning when a task was asked for.
        """
        return cls.from_dict(path, task=task)

    @classmethod
    def from_dict(cls, data, source: str | None = None,
                  task: str | None = None) -> PenaltyModel:
        """Rebuild a model from :meth:`to_dict` output (or a path), validating every field
        (``task``: as in :meth:`load`)."""
        check_task(task)
        f = read_model_file(data, FORMAT, FORMAT_VERSION, source)
        recorded = f.task(task)
        if task is not None and recorded is None:
            warnings.warn(f"{f.source} does not record what task it was learned for (a "
                          "file of an older penlearn, or learned from a UCI folder): taken "
                          f"as a model of {TASKS[task]}", stacklevel=3)
        f.require("kind", "params", "features", "coef", "intercept", "scaling",
                  "dropped_features", "best_step", "history")
        if f.data["kind"] != "penalty":
            raise f.error(f"kind must be 'penalty', got {f.data['kind']!r} (a binary model "
                          "is read with penlearn.BinaryLinearModel.load)")
        feats = f.names("features")
        coef = f.vector("coef", len(feats), bound=MAX_ABS_COEF)
        intercept = float(f.number("intercept"))
        if abs(intercept) > MAX_ABS_COEF:
            raise f.error(f"field 'intercept' is beyond ±{MAX_ABS_COEF:g}")
        scaling = f.data["scaling"]
        if not isinstance(scaling, dict):
            raise f.error("field 'scaling' must be an object with 'mean' and 'scale'")
        mean = f.vector("mean", len(feats), data=scaling)
        scale = f.vector("scale", len(feats), data=scaling)
        if np.any(scale <= 0):
            raise f.error("field 'scale' must hold positive numbers")
        low = high = None
        if "low" in scaling or "high" in scaling:  # absent in older files
            low = f.vector("low", len(feats), data=scaling)
            high = f.vector("high", len(feats), data=scaling)
            if np.any(low > high):
                raise f.error("field 'scaling': 'low' must be <= 'high'")
        try:
            settings = check_segmentation(f.data.get("segmentation"))
        except (TypeError, ValueError) as exc:
            raise f.error(f"field 'segmentation': {exc}") from exc
        dropped = f.names("dropped_features", nonempty=False)
        names_in = f.names("feature_names_in") if "feature_names_in" in f.data else feats
        best = f.number("best_step", integer=True)
        hist_data = f.data["history"]
        if not isinstance(hist_data, dict):
            raise f.error("field 'history' must be an object of columns")
        try:
            hist = pd.DataFrame({c: np.asarray(hist_data[c], float) for c in HISTORY_COLUMNS})
        except (KeyError, TypeError, ValueError) as exc:
            raise f.error(f"field 'history' must have the columns {HISTORY_COLUMNS}") from exc
        if not 0 <= best < max(len(hist), 1):
            raise f.error(f"best_step {best} is not a step of the history")
        params = f.data["params"]
        if not isinstance(params, dict) or set(params) - set(cls._PARAMS) - {"kind"}:
            raise f.error(f"params must be an object with keys among {list(cls._PARAMS)}")
        model = cls(**{k: (tuple(v) if k == "candidates" and isinstance(v, list) else v)
                       for k, v in params.items() if k != "kind"})
        if "model" not in params:  # a file written before boosting: a linear model
            model.model = "linear"
        if not isinstance(model.model, str) or model.model not in MODELS:
            raise f.error(f"params: model must be one of {MODELS}, got {model.model!r}")
        if model.model != "auto" and (model.model == "boosting") != ("trees" in f.data):
            raise f.error(f"params.model is {model.model!r}, but field 'trees' is "
                          f"{'present' if 'trees' in f.data else 'missing'}")
        model.coef_ = pd.Series(coef, index=feats, name="coef")
        model.intercept_ = intercept
        model.scaling_ = FeatureScaling(tuple(feats), mean, scale, tuple(dropped), low, high)
        model.segmentation_ = settings
        model.dropped_features_ = dropped
        model.feature_names_in_ = names_in
        model.best_step_ = int(best)
        for c in ("step", "events"):
            hist[c] = hist[c].astype(int)
        model.history_ = hist
        model.init_ = {}
        model.shrinkage_ = float(f.number("shrinkage")) if "shrinkage" in f.data else 1.0
        model.trees_ = None
        model.task_ = recorded
        if "trees" in f.data:
            try:
                model.trees_ = trees_from_json(f.data["trees"], len(feats), MAX_ABS_COEF)
            except ValueError as exc:
                raise f.error(str(exc)) from exc
            refit = isinstance(model.boosting, dict) and bool(model.boosting.get("refit"))
            # the kept stages: one tree per step (refit on every sequence: at most as many,
            # the refit may stop earlier)
            if len(model.trees_) > best or (len(model.trees_) < best and not refit):
                raise f.error(f"field 'trees' has {len(model.trees_)} tree(s), but "
                              f"best_step says {best} were kept (trees removed or added)")
            if not np.array_equal(hist["step"].to_numpy(), np.arange(len(hist))):
                raise f.error("field 'history': a boosting history has steps 0, 1, 2, ... "
                              "(one row per fitted tree)")
        lev = f.data.get("level", {})
        if not isinstance(lev, dict):
            raise f.error("field 'level' must be an object")
        for key in _LEVEL_NUMBERS:  # what describe() and the reports format as numbers
            v = lev.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise f.error(f"field 'level': {key!r} must be a number (or null), got {v!r}")
        model.level_ = dict(lev)
        return model

    def __repr__(self) -> str:
        if not hasattr(self, "coef_"):
            return f"PenaltyModel(model={self.model!r})"
        kind = f"{self.level_['model']!r}, " if getattr(self, "level_", None) and \
            "model" in self.level_ else ""
        if getattr(self, "trees_", None) is not None:
            return (f"PenaltyModel({kind}trees={len(self.trees_)}, "
                    f"features={len(self.coef_)})")
        if not np.any(self.coef_.to_numpy()):  # a constant uses no feature: none listed
            return f"PenaltyModel({kind}constant log λ = {self.intercept_:.4g})"
        return (
            f"PenaltyModel({kind}features={len(self.coef_)}, "
            f"steps={int(self.history_['step'].iloc[-1])}, best_step={self.best_step_})"
        )


#: The entries of ``level_`` that are numbers (or None) in a model file.
_LEVEL_NUMBERS = ("scale", "shift", "validation_errors", "labels")


def _json_level(level: dict) -> dict:
    """``level_`` as JSON: numbers as floats, None as null, the candidates' errors as an
    object."""
    def conv(v):
        if v is None:
            return None
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return float(v) if isinstance(v, (int, float, np.number)) else str(v)
    return {str(k): conv(v) for k, v in level.items()}
