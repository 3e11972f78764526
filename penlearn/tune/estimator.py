"""``SupervisedPenalty``: learn the penalty of a ruptures / skchange detector from labels.

For each labeled signal the detector's models over its penalty λ are found
(:func:`~penlearn.tune.path.detector_path`: the CROPS search of Haynes, Eckley &
Fearnhead 2017 for exact detectors), each model's label errors give the signal's error
function over log λ (Hillman & Hocking 2023, Section 2), and
:func:`~penlearn.learn.learn_penalty` learns log λ = f(features) from them (AUM descent
with the exact line search of Fowler & Hocking 2024, whatever its default model is).

Conventions
-----------
* A signal is an array of shape (n,) or (n, d); a **change at t** means that a new
  segment starts at index t (ruptures' breakpoints without the final n, skchange's
  change points), 1 ≤ t ≤ n − 1.
* Labels are the region labels of penlearn (``sequence_id, start, end, annotation``,
  optional ``weight``), ``sequence_id`` the signal's id (its key, or its position in a
  list). A label covers (start, end]: a change t is inside when start < t ≤ end. So
  ``(start, end]`` with ``1breakpoint`` is correct when exactly one change has
  start < t ≤ end, ``0breakpoints`` when none, ``>0breakpoints`` when at least one
  (:data:`penlearn.changepoint.labels.ANNOTATIONS` lists all of them). Labels must lie
  in the signal: 0 ≤ start and end ≤ n, and start < n − 1 (room for a change).
* Penalties are the detector's own λ (ruptures' ``pen``, skchange's ``penalty`` with
  ``penalty_scale`` 1); learning works in log λ.
"""

from __future__ import annotations

import contextlib
import inspect
import warnings

import numpy as np
import pandas as pd

from penlearn._checks import check_evaluation, id_list, sequence_label
from penlearn._folds import check_n_folds
from penlearn.changepoint.labels import check_labels, id_type_hint, label_errors
from penlearn.learn import learn_penalty
from penlearn.tune.detectors import (
    announce_compile,
    check_detector,
    detector_params,
    detector_repr,
    run_detector,
    with_detector_params,
)
from penlearn.tune.features import (
    as_signals,
    cost_features,
    logged_features,
    noise_level,
    signal_features,
)
from penlearn.tune.path import DetectorPath, detector_path
from penlearn.tune.selection import (
    CONSTANT,
    choose_candidate,
    cv_errors,
    cv_folds,
    fit_candidate,
    predict_candidate,
)

_LEARN_OPTIONS = tuple(
    name for name, p in inspect.signature(learn_penalty).parameters.items()
    if p.kind is inspect.Parameter.KEYWORD_ONLY
)
_OWN = ("detector", "features", "max_changes", "path_method", "choose", "cv_folds")
# learn_penalty's defaults, but no progress bar, a fixed seed (interval regression's CV
# folds are random: the same fit gives the same model) and the linear model: a few labeled
# signals are too few for boosted trees (learn_penalty's default), which keep the constant
_LEARN_DEFAULTS = {"progress": False, "random_state": 0, "model": "linear"}
#: choose= : the rules of penlearn.tune.selection.choose_candidate, named as
#: learn_penalty's cv_rule ("1se": the one-standard-error rule; "fewest": fewest CV errors)
CHOOSE_RULES = ("1se", "fewest")
# the spellings before the vocabulary was shared with learn_penalty (deprecated)
_OLD_RULES = {"cv-1se": "1se", "cv": "fewest"}


def _check_choice_options(choose, cv_folds, max_changes) -> str | None:
    """``choose`` in the shared vocabulary (old spellings: a DeprecationWarning),
    ``cv_folds`` an integer >= 2 and ``max_changes`` None or an integer >= 1."""
    if isinstance(choose, str) and choose in _OLD_RULES:
        warnings.warn(f"SupervisedPenalty(choose={choose!r}) is deprecated: use "
                      f"choose={_OLD_RULES[choose]!r} (the rule names of learn_penalty's "
                      "cv_rule)", DeprecationWarning, stacklevel=3)
        choose = _OLD_RULES[choose]
    if choose is not None and choose not in CHOOSE_RULES:
        raise ValueError(f"choose must be one of {list(CHOOSE_RULES)} or None, got {choose!r}")
    check_n_folds("cv_folds", cv_folds)
    if max_changes is not None and (isinstance(max_changes, bool) or not isinstance(
            max_changes, (int, np.integer)) or max_changes < 1):
        raise ValueError(f"max_changes must be None or an integer >= 1 (the path must reach "
                         f"at least one change to learn from the labels), got {max_changes!r}")
    return choose


def check_signal_labels(signals: dict, labels: pd.DataFrame) -> pd.DataFrame:
    """Labels checked against array signals; returns :func:`check_labels`' table.

    One-line ``ValueError`` for labeled ids that are not signals, and for labels outside
    their signal (see the module's conventions).

    Examples
    --------
    >>> lab = pd.DataFrame({"sequence_id": [0], "start": [5], "end": [12],
    ...                     "annotation": ["1breakpoint"]})
    >>> check_signal_labels({0: np.zeros(10)}, lab)
    Traceback (most recent call last):
    ...
    ValueError: labels row 0: (5, 12] of signal 0 is outside the signal (n = 10): ...
    """
    lab = check_labels(labels)
    ids = pd.unique(labels["sequence_id"])
    missing = [s for s in ids if s not in signals]
    if missing:
        raise ValueError(f"labels: {id_list(missing, 'labeled sequence(s)')} are not in "
                         f"signals (ids {id_list(list(signals), 'signal(s)')})"
                         f"{id_type_hint(missing, list(signals))}")
    n = labels["sequence_id"].map(lambda s: len(signals[s])).to_numpy()
    start = pd.to_numeric(labels["start"]).to_numpy(dtype=float)
    end = pd.to_numeric(labels["end"]).to_numpy(dtype=float)
    bad = np.flatnonzero((start < 0) | (start >= n - 1) | (end > n))
    if len(bad):
        r = bad[0]
        raise ValueError(
            f"labels row {labels.index[r]!r}: ({labels['start'].iloc[r]}, "
            f"{labels['end'].iloc[r]}] of signal "
            f"{sequence_label(labels['sequence_id'].iloc[r])!r} is outside "
            f"the signal (n = {n[r]}): expected 0 <= start < n - 1 and end <= n, in indices "
            "(a change at t starts a segment at index t)")
    return lab


def path_error_functions(paths: dict, labels: pd.DataFrame) -> pd.DataFrame:
    """The evaluation table (error functions over log λ) of detector paths.

    Parameters
    ----------
    paths : dict
        Signal id → :class:`~penlearn.tune.path.DetectorPath`.
    labels : DataFrame
        Labels of those signals (see the module's conventions).

    Returns
    -------
    DataFrame
        One row per (signal, λ-interval of the path): ``sequence_id, model, n_changes,
        cost, min_lambda, max_lambda, min_log_lambda, max_log_lambda, fp, fn,
        possible_fp, possible_fn, labels, errors``, as :func:`penlearn.error_functions`.

    Examples
    --------
    >>> import ruptures as rpt
    >>> x = np.r_[np.zeros(20), np.ones(20) * 4]
    >>> p = detector_path(rpt.Pelt(min_size=1, jump=1), x)
    >>> lab = pd.DataFrame({"sequence_id": ["a"], "start": [15], "end": [25],
    ...                     "annotation": ["1breakpoint"]})
    >>> path_error_functions({"a": p}, lab)[["n_changes", "fp", "fn"]].values.tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    lab = check_labels(labels)
    rows, models, changes = [], [], []
    for sid in pd.unique(lab["sequence_id"]):
        path: DetectorPath = paths[sid]
        rows.append(path.models.assign(sequence_id=sid))
        used = pd.unique(path.models["model"])
        models.append(pd.DataFrame({"sequence_id": sid, "model": used}))
        for m in used:
            ch = path.changes[int(m)]
            changes.append(pd.DataFrame({"sequence_id": sid, "model": int(m), "position": ch}))
    models_t = pd.concat(models, ignore_index=True)
    changes_t = pd.concat(changes, ignore_index=True)
    errs = label_errors(models_t, changes_t, lab, model_vars="model").model_errors
    table = pd.concat(rows, ignore_index=True)
    ev = table.merge(errs, on=["sequence_id", "model"], how="left", validate="many_to_one")
    cols = ["sequence_id", "model", "n_changes", "cost", "min_lambda", "max_lambda",
            "min_log_lambda", "max_log_lambda", "fp", "fn", "possible_fp", "possible_fn",
            "labels", "errors"]
    return check_evaluation(ev[cols])


def detector_label_errors(detector, signals, labels: pd.DataFrame, penalties) -> pd.DataFrame:
    """Label errors of a detector run at one penalty per signal.

    Parameters
    ----------
    detector
        A penalised detector (see :class:`SupervisedPenalty`).
    signals : dict or list
        The labeled signals (others are ignored).
    labels : DataFrame
        Their labels.
    penalties : float, dict or Series
        λ per signal id, or one λ for all.

    Returns
    -------
    DataFrame
        One row per labeled signal: ``sequence_id, penalty, n_changes, fp, fn,
        possible_fp, possible_fn, labels, errors``.

    Examples
    --------
    >>> import ruptures as rpt
    >>> lab = pd.DataFrame({"sequence_id": [0], "start": [15], "end": [25],
    ...                     "annotation": ["1breakpoint"]})
    >>> x = [np.r_[np.zeros(20), np.ones(20) * 4]]
    >>> detector_label_errors(rpt.Pelt(min_size=1, jump=1), x, lab, 1.0)["errors"].tolist()
    [0.0]
    """
    sig = as_signals(signals)
    check_signal_labels(sig, labels)
    ids = list(pd.unique(labels["sequence_id"]))
    if np.isscalar(penalties):
        pen = dict.fromkeys(ids, float(penalties))
    else:
        pen = {s: float(pd.Series(penalties)[s]) for s in ids}
    models, changes = [], []
    for sid in ids:
        ch = run_detector(detector, sig[sid], pen[sid])
        models.append({"sequence_id": sid, "model": 0, "penalty": pen[sid],
                       "n_changes": len(ch)})
        changes.append(pd.DataFrame({"sequence_id": sid, "model": 0, "position": ch}))
    res = label_errors(pd.DataFrame(models), pd.concat(changes, ignore_index=True), labels,
                       model_vars="model").model_errors
    return res.drop(columns="model")


def _cost_shift(detector, x: np.ndarray, moved: np.ndarray, default: float) -> float:
    """log of the detector's cost of ``x`` over its cost of ``moved`` (whole signals), or
    ``default`` when that cost is not reachable or not positive."""
    a, b = cost_features(detector, x), cost_features(detector, moved)
    if a is None or b is None:
        return float(default)
    ca, cb = a["cost.all"], b["cost.all"]
    if not (np.isfinite(ca) and np.isfinite(cb) and ca > 0 and cb > 0):
        return float(default)
    return float(np.log(ca / cb))


def _informative(ids: list, feats: pd.DataFrame, evaluation: pd.DataFrame):
    """Leave out of learning the signals whose features are not finite (a constant
    signal: log σ̂ = −inf) and whose path is one model at every λ (their label errors do
    not depend on λ: nothing to learn from them), so that they do not cost every other
    signal its noise features. The ids, features and evaluation kept."""
    flat = evaluation.groupby("sequence_id", sort=False).size() == 1
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(feats.to_numpy(dtype=float)).all(axis=1)
    drop = {s for s, ok in zip(feats.index, finite) if not ok and bool(flat.get(s, False))}
    if not drop or len(drop) == len(ids):
        return ids, feats, evaluation
    keep = [s for s in ids if s not in drop]
    return keep, feats.loc[keep], evaluation[~evaluation["sequence_id"].isin(drop)]


class SupervisedPenalty:
    """A penalised detector whose penalty per signal is learned from labels.

    ``fit`` finds each labeled signal's models over the detector's penalty
    (:func:`~penlearn.tune.path.detector_path`), their label errors, and learns
    log λ = f(features) with :func:`~penlearn.learn.learn_penalty`; ``predict`` runs the
    detector on each new signal at its predicted λ. Conventions (changes, labels,
    units) are those of :mod:`penlearn.tune.estimator`.

    Parameters
    ----------
    detector
        ruptures ``Pelt``, ``KernelCPD``, ``Binseg``, ``BottomUp``, ``Window`` (any cost,
        custom ``BaseCost`` subclasses included) or a skchange detector with a
        ``penalty`` parameter (``PELT``, ``FPOP``, ``MovingWindow``,
        ``SeededBinarySegmentation``, ``CircularBinarySegmentation``). Never changed: it
        is copied for every signal.
    features : None, callable or DataFrame
        None: the logs of :func:`~penlearn.tune.features.signal_features` (length, robust
        noise estimates, the detector's cost per sample; the raw columns are left out,
        :func:`~penlearn.tune.features.logged_features`); a callable
        ``f(signal) -> dict or Series`` of features; or a DataFrame indexed by signal id
        holding the rows of every signal passed to ``fit`` and ``predict``.
    max_changes : int or None
        The path of each training signal stops past this many changes (see
        :func:`~penlearn.tune.path.detector_path`); at least 1.
    path_method : {"auto", "crops", "scan"}
        How the path is found (exact CROPS or a checked scan for heuristic detectors).
    choose : {"1se", "fewest"} or None
        A safe fall-back chosen on the training signals only
        (:mod:`penlearn.tune.selection`). Candidates are the penalty function learned
        with the learn options (``"learned"``), the same with ``level="subtrain"``
        (``"learned, level subtrain"``, unless ``level`` is given) and the best constant
        penalty of the training signals (``"constant"``); each is learned on K − 1 of
        ``cv_folds`` folds of whole signals (fixed seed: ``random_state``) and its label
        errors are counted on the held-out fold at its predicted penalty. ``"1se"``
        (default): the candidate of fewest CV errors if it beats the constant by more
        than one standard error of their per-fold differences, else the constant (the
        one-standard-error rule: a learned slope must be worth its fit noise);
        ``"fewest"``: the fewest CV errors (ties: the constant, then the order above).
        The chosen candidate is refit on all training signals. None: always the learned
        function (no CV; ``fit`` is then about (K + 1)·2 times faster). The rule names
        are those of ``learn_penalty``'s ``cv_rule``; the old spellings ``"cv-1se"`` and
        ``"cv"`` still work with a ``DeprecationWarning``.
    cv_folds : int
        K of the cross-validation (an integer >= 2; at most one fold per training
        signal); also ``learn_penalty``'s ``cv_folds`` (the folds of ``model="auto"``),
        the same option, not a second one.
    **learn_options
        Keyword options of :func:`~penlearn.learn.learn_penalty` (its defaults
        otherwise, but ``progress=False`` and ``random_state=0``: the same fit gives the
        same model).

    Attributes
    ----------
    model_ : PenaltyModel or None
        The learned penalty function in use; None when the constant was chosen.
    chosen_ : str
        The candidate in use (``"learned"``, ``"learned, level subtrain"`` or
        ``"constant"``).
    cv_errors_ : DataFrame or None
        With ``choose`` set: held-out label errors of each candidate per fold, their
        sum ``errors`` and ``labels`` (:func:`~penlearn.tune.selection.cv_errors`).
    constant_log_penalty_ : float
        The best constant log λ of the training signals.
    log_penalty_range_, noise_level_range_ : tuple of float
        The training signals' range of predicted log λ and of noise level log σ̂²: a
        signal noisier or quieter than them is rescaled into their range and its log λ
        moved by the change of the detector's cost; predictions are bounded to the first
        range widened by its width (at least 1) on each side (``predict_log_penalty``).
    paths_ : dict
        Signal id → :class:`~penlearn.tune.path.DetectorPath` of the training signals.
    evaluation_ : DataFrame
        Their error functions (:func:`path_error_functions`).
    n_solves_ : Series
        Detector calls per training signal for its path.

    Examples
    --------
    >>> import ruptures as rpt
    >>> rng = np.random.default_rng(0)
    >>> signals, rows = {}, []
    >>> for i in range(8):
    ...     sd = 0.5 + i % 4
    ...     n = 80 + 4 * i
    ...     signals[i] = np.r_[np.zeros(40), np.ones(n - 40) * 3 * sd] + rng.normal(0, sd, n)
    ...     rows += [(i, 30, 50, "1breakpoint"), (i, 0, 25, "0breakpoints")]
    >>> labels = pd.DataFrame(rows, columns=["sequence_id", "start", "end", "annotation"])
    >>> tuner = SupervisedPenalty(rpt.Pelt(model="l2", jump=1)).fit(signals, labels)
    >>> pen = tuner.predict_penalty(signals)
    >>> bool(pen[3] > pen[0]), tuner.predict({"new": signals[3]})["new"].tolist()
    (True, [40])
    """

    def __init__(self, detector, features=None, max_changes: int | None = 30,
                 path_method: str = "auto", choose: str | None = "1se", cv_folds: int = 5,
                 **learn_options):
        unknown = sorted(set(learn_options) - set(_LEARN_OPTIONS))
        if unknown:
            raise TypeError(f"SupervisedPenalty got unknown option(s) {unknown}; options of "
                            f"learn_penalty are {list(_LEARN_OPTIONS)}")
        self.detector = detector
        self.features = features
        self.max_changes = max_changes
        self.path_method = path_method
        self.choose = _check_choice_options(choose, cv_folds, max_changes)
        self.cv_folds = cv_folds
        self.learn_options = dict(learn_options)

    # scikit-learn protocol: the learn options are parameters as well
    def get_params(self, deep: bool = True) -> dict:
        """Parameters (``detector``, ``features``, path options and the learn options; with
        ``deep``, the detector's own as ``detector__name``)."""
        params = {name: getattr(self, name) for name in _OWN}
        params.update(self.learn_options)
        if deep:
            with contextlib.suppress(TypeError):  # not a detector: no nested parameters
                for k, v in detector_params(self.detector).items():
                    params[f"detector__{k}"] = v
        return params

    def set_params(self, **params) -> SupervisedPenalty:
        """Set parameters; ``detector__name`` sets the detector's own (a ruptures
        detector, which has no ``set_params``, is rebuilt with it: the detector given to
        the constructor is not changed), as scikit-learn's nested parameters."""
        nested = {k.split("__", 1)[1]: v for k, v in params.items()
                  if k.startswith("detector__")}
        for k, v in params.items():
            if k.startswith("detector__"):
                continue
            if k in _OWN:
                setattr(self, k, v)
                if k in ("choose", "cv_folds", "max_changes"):
                    self.choose = _check_choice_options(self.choose, self.cv_folds,
                                                        self.max_changes)
            elif k in _LEARN_OPTIONS:
                self.learn_options[k] = v
            else:
                raise ValueError(f"invalid parameter {k!r} for SupervisedPenalty; valid are "
                                 f"{list(_OWN) + list(_LEARN_OPTIONS)} and detector__<name>")
        if nested:
            self.detector = with_detector_params(self.detector, **nested)
        return self

    def __repr__(self) -> str:
        defaults = {"features": None, "max_changes": 30, "path_method": "auto",
                    "choose": "1se", "cv_folds": 5}
        own = {k: getattr(self, k) for k, v in defaults.items()
               if not isinstance(getattr(self, k), pd.DataFrame) and getattr(self, k) != v}
        opts = "".join(f", {k}={v!r}" for k, v in {**own, **self.learn_options}.items())
        text = f"SupervisedPenalty({detector_repr(self.detector)}{opts})"
        if not hasattr(self, "model_"):
            return text
        return (f"{text} [fitted on {len(self.paths_)} signals: chosen_={self.chosen_!r}, "
                f"constant_log_penalty_={self.constant_log_penalty_:.4g}]")

    def _feature_table(self, signals: dict) -> pd.DataFrame:
        ids = list(signals)
        if self.features is None:  # scale features as logs only: no runaway extrapolation
            return logged_features(signal_features(signals, self.detector))
        if isinstance(self.features, pd.DataFrame):
            missing = [s for s in ids if s not in self.features.index]
            if missing:
                raise ValueError(f"features: no row for {id_list(missing, 'signal(s)')}"
                                 f"{id_type_hint(missing, list(self.features.index))}")
            return self.features.loc[ids]
        if callable(self.features):
            rows = [pd.Series(self.features(signals[s]), dtype=float) for s in ids]
            return pd.DataFrame(rows, index=pd.Index(ids, name="sequence_id"))
        raise TypeError("features must be None, a callable or a DataFrame indexed by signal "
                        f"id, got {type(self.features).__name__}")

    def paths(self, signals, ids=None) -> dict:
        """The detector's path (:func:`~penlearn.tune.path.detector_path`) of each signal."""
        sig = as_signals(signals)
        return {s: detector_path(self.detector, sig[s], max_changes=self.max_changes,
                                 method=self.path_method)
                for s in (sig if ids is None else ids)}

    def error_functions(self, signals, labels: pd.DataFrame) -> pd.DataFrame:
        """Error functions over log λ of labeled signals (e.g. held-out ones, for ROC)."""
        sig = as_signals(signals)
        check_signal_labels(sig, labels)
        ids = list(pd.unique(labels["sequence_id"]))
        return path_error_functions(self.paths(sig, ids), labels)

    def fit(self, signals, labels: pd.DataFrame, progress: bool = True) -> SupervisedPenalty:
        """Learn log λ = f(features) from the labeled signals (others are not used).

        Parameters
        ----------
        signals : dict or list
            id → array of shape (n,) or (n, d).
        labels : DataFrame
            ``sequence_id, start, end, annotation`` (+ optional ``weight``).
        progress : bool
            Show a tqdm progress bar (stderr) counting the training signals' paths, then
            the folds of the cross-validation and the final fit.

        Returns
        -------
        SupervisedPenalty
            self.
        """
        check_detector(self.detector)
        self.choose = _check_choice_options(self.choose, self.cv_folds, self.max_changes)
        candidates = self.candidates()
        sig = as_signals(signals)
        check_signal_labels(sig, labels)
        ids = list(pd.unique(labels["sequence_id"]))
        folds = (None if self.choose is None else
                 cv_folds(ids, self.cv_folds, self.learn_options.get("random_state", 0)))
        from penlearn._progress import tqdm

        if progress:  # a third-party compile of a minute: said, as penlearn's own
            announce_compile(self.detector)
        bar = tqdm(total=len(ids) + (0 if folds is None else folds.nunique()) + 1,
                   desc="fit: paths", unit="step", disable=not progress)
        self.paths_ = {}
        for s in ids:
            self.paths_[s] = detector_path(self.detector, sig[s], max_changes=self.max_changes,
                                           method=self.path_method)
            bar.update()
        self.n_solves_ = pd.Series({s: p.n_solves for s, p in self.paths_.items()},
                                   name="n_solves")
        self.evaluation_ = path_error_functions(self.paths_, labels)
        feats = self._feature_table({s: sig[s] for s in ids})
        ids, feats, ev = _informative(ids, feats, self.evaluation_)
        self.feature_names_in_ = np.asarray(feats.columns, dtype=object)
        self.cv_errors_ = None
        self.chosen_ = "learned"
        if folds is not None:
            if len(folds) != len(ids):  # signals left out of learning (_informative)
                folds = cv_folds(ids, self.cv_folds, self.learn_options.get("random_state", 0))
            bar.set_description("fit: cross-validation")
            self.cv_errors_ = cv_errors(feats, ev, candidates, folds, bar.update)
            self.chosen_ = choose_candidate(self.cv_errors_, self.choose)
        bar.set_description(f"fit: {self.chosen_}")
        self.constant_log_penalty_ = fit_candidate(None, feats, ev)
        self.model_ = (None if self.chosen_ == CONSTANT else
                       fit_candidate(candidates[self.chosen_], feats, ev))
        bar.update()
        bar.close()
        train = (np.array([self.constant_log_penalty_]) if self.model_ is None else
                 predict_candidate(self.model_, feats).to_numpy())
        self.log_penalty_range_ = (float(train.min()), float(train.max()))
        level = noise_level({s: sig[s] for s in ids}).to_numpy()
        level = level[np.isfinite(level)]
        self.noise_level_range_ = ((float(level.min()), float(level.max())) if len(level)
                                   else (-np.inf, np.inf))
        return self

    def candidates(self) -> dict:
        """Name → learn_penalty options of the candidates of ``choose`` (None: constant)."""
        choose = _check_choice_options(self.choose, self.cv_folds, self.max_changes)
        # cv_folds is learn_penalty's option too (the folds of model="auto"): one knob
        learned = {**_LEARN_DEFAULTS, "cv_folds": self.cv_folds, **self.learn_options}
        if choose is None:
            return {"learned": learned}
        out = {"learned": learned}
        if "level" not in self.learn_options:
            out["learned, level subtrain"] = {**learned, "level": "subtrain"}
        out[CONSTANT] = None
        return out

    def predict_log_penalty(self, signals) -> pd.Series:
        """Predicted log λ per signal."""
        if not hasattr(self, "model_"):
            raise ValueError("this SupervisedPenalty is not fitted yet: call fit() first")
        sig = as_signals(signals)
        index = pd.Index(list(sig), name="sequence_id")
        return pd.Series(self._scaled_prediction(sig), index=index, name="log_penalty")

    def _scaled_prediction(self, sig: dict) -> np.ndarray:
        """Predicted log λ that never extrapolates the model in the noise scale.

        A signal whose noise level log σ̂² (:func:`~penlearn.tune.features.noise_level`)
        lies outside the training signals' range is rescaled about its median into that
        range, predicted there, and its log λ moved by the change of the detector's own
        cost of the whole signal (``cost.all`` of
        :func:`~penlearn.tune.features.cost_features`: log c² for the l2 cost of a signal
        c times noisier, 0 for a scale-free kernel cost; the change of log σ̂² when the
        cost is not reachable). Features given as a DataFrame cannot be recomputed: those
        signals are not rescaled. The constant candidate is moved likewise. Every
        prediction is then bounded to the training
        signals' range of predicted log λ, widened by its width (at least 1) on each
        side and moved by the same shift.
        """
        ids = list(sig)
        level = noise_level(sig)
        low, high = self.noise_level_range_
        target = level.clip(low, high)
        moved, shift = dict(sig), np.zeros(len(ids))
        if not isinstance(self.features, pd.DataFrame):
            for i, s in enumerate(ids):
                if not np.isfinite(level[s]) or level[s] == target[s]:
                    continue
                x = sig[s]
                center = np.median(x, axis=0)
                moved[s] = center + (x - center) * np.exp((target[s] - level[s]) / 2.0)
                shift[i] = _cost_shift(self.detector, x, moved[s], level[s] - target[s])
        pred = shift + (np.full(len(ids), self.constant_log_penalty_) if self.model_ is None
                        else predict_candidate(self.model_, self._feature_table(moved)).to_numpy())
        lo, hi = self.log_penalty_range_
        margin = max(1.0, hi - lo)
        return np.clip(pred, lo - margin + np.minimum(shift, 0.0),
                       hi + margin + np.maximum(shift, 0.0))

    def predict_penalty(self, signals) -> pd.Series:
        """Predicted penalty λ per signal, in the detector's own units (``pen=``)."""
        return np.exp(self.predict_log_penalty(signals)).rename("penalty")

    def predict(self, signals) -> dict:
        """Change points of each signal: the detector run at its predicted penalty.

        Returns a dict id → int array of changes t (a segment starts at index t).
        """
        sig = as_signals(signals)
        pen = self.predict_penalty(sig)
        return {s: run_detector(self.detector, sig[s], float(pen[s])) for s in sig}
