"""Learning a linear penalty function by AUM gradient descent with an exact line search.

The protocol is Section 5.2 of Fowler & Hocking (2024), "Efficient line search for
optimizing Area Under the ROC Curve in gradient descent" (``papers/000``), as coded for
its Figure 6 (SPEC §5):

1. standardise the finite feature columns;
2. initialise with L1-regularised squared-hinge interval regression
   (:class:`~penlearn.interval_regression.IntervalRegression`) on the target intervals;
3. gradient descent on the subtrain breakpoints' AUM ("rate" by default) with direction
   −Xᵀ(mean of the left/right directional derivatives) (Hillman & Hocking 2023,
   ``papers/003``) and the step chosen by the exact AUM line search (``papers/000``,
   Section 4) or by a grid of step sizes;
4. stop when the subtrain AUM decreases by no more than ``tol``; keep the iterate with
   the largest validation AUC.

Sign convention (SPEC §2): the model predicts log λ, the AUM machinery uses
score = −log λ. The paper's script feeds interval regression's log λ predictions in as
scores (a sign flip); ``init="interval_regression_flipped"`` reproduces that.

The same engine fits binary classifiers (:func:`fit_aum_linear`): score = X·w + b.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_evaluation
from penlearn.atomic_files import write_text_atomic
from penlearn.aum import aum, threshold_groups
from penlearn.breakpoints import (
    Breakpoints,
    breakpoints_from_errors,
    breakpoints_from_labels,
    examples_with_negative_errors,
)
from penlearn.interval_regression import FeatureScaling, IntervalRegression, standardize_features
from penlearn.roc import breakpoints_auc, path_auc

__all__ = [
    "LINE_SEARCHES",
    "PenaltyModel",
    "changepoint_auc",
    "fit_aum_linear",
    "learn_penalty",
    "subtrain_validation_split",
]

LINE_SEARCHES = ("first_min", "linear", "quadratic", "max_auc", "grid")
_STOP = {"first_min": "first_min", "linear": "linear", "quadratic": "all", "max_auc": "max_auc"}
GRID_STEP_SIZES = 10.0 ** np.arange(-9, 1)
FORMAT = "penlearn.PenaltyModel"
FORMAT_VERSION = 1
HISTORY_COLUMNS = [
    "step",
    "step_size",
    "subtrain_aum",
    "subtrain_auc",
    "validation_aum",
    "validation_auc",
    "events",
    "seconds",
]


# --------------------------------------------------------------------------- splits


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


# --------------------------------------------------------------------------- ROC of penalties


class _ChangepointROC:
    """ROChange AUC (FPR = FP/Σpossible_fp) of scores on a fixed evaluation table.

    Precomputes the count breakpoints once, so that each AUC costs one sort; equal to
    ``roc_change(evaluation, -scores).auc`` (tested).
    """

    def __init__(self, evaluation: pd.DataFrame, ids: list) -> None:
        ev = check_evaluation(evaluation)
        for col in ("possible_fp", "possible_fn"):
            if col not in ev:
                raise ValueError(f"evaluation is missing column {col!r}")
        self.bp = breakpoints_from_errors(ev, sequence_ids=ids)
        seq = ev["sequence_id"].to_numpy()
        last = np.r_[seq[1:] != seq[:-1], True]
        first = np.r_[True, seq[1:] != seq[:-1]]
        self.possible_fp = float(ev["possible_fp"].to_numpy(float)[first].sum())
        self.possible_fn = float(ev["possible_fn"].to_numpy(float)[first].sum())
        # actual totals at score +inf (the most complex models)
        self.fp_end = float(ev["fp"].to_numpy(float)[last].sum())
        self.fn_end = float(ev["fn"].to_numpy(float)[last].sum())

    def auc(self, scores: np.ndarray) -> float:
        bp = self.bp
        t = bp.value - scores[bp.example]
        _, _, _, fp_b, fn_b, fp_a, fn_a = threshold_groups(t, bp.fp_diff, bp.fn_diff)
        fp0 = self.fp_end - bp.fp_total  # actual FP at score -inf
        fp = np.r_[fp_b[:1], fp_a] + fp0 if len(t) else np.array([fp0])
        fn = np.r_[fn_b[:1], fn_a] + self.fn_end if len(t) else np.array([self.fn_end])
        # roc_change lists rows from score +inf (c = -inf) to score -inf
        fpr = fp[::-1] / self.possible_fp
        tpr = (self.possible_fn - fn[::-1]) / self.possible_fn
        if (fpr[0], tpr[0]) > (fpr[-1], tpr[-1]):
            fpr, tpr = fpr[::-1], tpr[::-1]
        return path_auc(fpr, tpr)


def changepoint_auc(evaluation: pd.DataFrame, log_lambda) -> float:
    """Generalized ROC AUC of log λ predictions (``roc_change(...).auc``), fast.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions with ``possible_fp, possible_fn``.
    log_lambda : array-like or Series
        One prediction per sequence (Series indexed by sequence id, or an array in the
        evaluation's order of first appearance).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]})
    >>> changepoint_auc(ev, [0.5, 0.5])
    1.0
    """
    ids = list(pd.unique(evaluation["sequence_id"]))
    if isinstance(log_lambda, pd.Series):
        pred = log_lambda.reindex(ids).to_numpy(dtype=float)
    else:
        pred = np.asarray(log_lambda, dtype=float)
    if pred.shape != (len(ids),) or not np.all(np.isfinite(pred)):
        raise ValueError(f"log_lambda must hold one finite value for each of {len(ids)} sequences")
    return _ChangepointROC(evaluation, ids).auc(-pred)


# --------------------------------------------------------------------------- engine


def _line_step(bp: Breakpoints, scores, slopes, variant: str) -> tuple[float, int]:
    """Step size chosen by ``variant`` and the number of line-search events processed
    (for ``"grid"``: the number of grid points)."""
    from penlearn.line_search import choose_step

    return choose_step(variant, bp, scores, slopes)


def _min_error_shift(bp: Breakpoints, scores: np.ndarray) -> float:
    """The constant c minimising FP + FN of ``scores + c`` on ``bp`` (the paper's
    intercept rule: first minimum among {first−1, midpoints, last+1} thresholds)."""
    if len(bp) == 0:
        return 0.0
    t = bp.value - scores[bp.example]
    _, _, tt, fp_b, fn_b, fp_a, fn_a = threshold_groups(t, bp.fp_diff, bp.fn_diff)
    err = np.r_[fp_b[0] + fn_b[0], fp_a + fn_a]
    cand = np.r_[tt[0] - 1.0, (tt[:-1] + tt[1:]) / 2.0, tt[-1] + 1.0]
    return float(cand[int(np.argmin(err))])


def _descend(
    X: np.ndarray,
    bp: Breakpoints,
    w0: np.ndarray,
    b0: float,
    *,
    variant: str,
    max_steps: int,
    tol: float,
    evaluate: Callable[[np.ndarray], tuple[float, float, float]],
    progress: bool,
) -> tuple[pd.DataFrame, list[np.ndarray]]:
    """AUM gradient descent on weights (the intercept does not change AUM or AUC).

    ``evaluate(w)`` gives (subtrain AUC, validation AUM, validation AUC). Returns the
    history and the weights of every recorded iterate (step 0 included; the last,
    non-improving step is recorded too, as in the paper's script).
    """
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"AUM GD ({variant})", unit="step", leave=False)
    start = time.perf_counter()
    w = np.array(w0, dtype=float)
    scores = X @ w + b0
    cur = aum(bp, scores)
    rows, weights = [], [w.copy()]
    sub_auc, v_aum, v_auc = evaluate(w)
    rows.append((0, 0.0, cur.aum, sub_auc, v_aum, v_auc, 0, time.perf_counter() - start))
    from penlearn.line_search import descent_should_stop

    prev, prev_auc, s = np.inf, -np.inf, np.inf
    step = 0
    try:
        while step < max_steps and not descent_should_stop(
            variant, prev, cur.aum, s, tol, prev_auc, sub_auc
        ):
            g = cur.derivatives.mean(axis=1)
            d = -(X.T @ g)
            if not np.any(d):
                break
            slopes = X @ d
            s, events = _line_step(bp, scores, slopes, variant)
            w = w + s * d
            scores = X @ w + b0
            prev, prev_auc = cur.aum, sub_auc
            cur = aum(bp, scores)
            step += 1
            sub_auc, v_aum, v_auc = evaluate(w)
            rows.append(
                (step, s, cur.aum, sub_auc, v_aum, v_auc, events, time.perf_counter() - start)
            )
            weights.append(w.copy())
            if bar is not None:
                bar.update(1)
                bar.set_postfix(aum=f"{cur.aum:.5g}", valid_auc=f"{v_auc:.5f}")
    finally:
        if bar is not None:
            bar.close()
    return pd.DataFrame(rows, columns=HISTORY_COLUMNS), weights


# --------------------------------------------------------------------------- input checks


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
    bp = breakpoints_from_errors(evaluation, sequence_ids=ids)
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
    _check_classes(bp, what)
    return bp.normalize(normalize)


def _check_classes(bp: Breakpoints, what: str) -> None:
    if len(bp) == 0:
        raise ValueError(
            f"the {what} set has no labels (no changes of FP/FN with the penalty): "
            "nothing to learn from"
        )
    if not bp.fp_total > 0:
        raise ValueError(
            f"the {what} set has only one class: no false positive is possible "
            "(no negative labels / sum of fp jumps is 0)"
        )
    if not bp.fn_total > 0:
        raise ValueError(
            f"the {what} set has only one class: no false negative is possible "
            "(no positive labels / sum of fn jumps is 0)"
        )


def _target_intervals(evaluation: pd.DataFrame, ids: list) -> pd.DataFrame:
    from penlearn.changepoint.evaluation import target_intervals

    t = target_intervals(evaluation)
    return t.set_index("sequence_id").loc[ids, ["min_log_lambda", "max_log_lambda"]]


def _initial_weights(init, p: int, rng: np.random.Generator) -> np.ndarray | None:
    if isinstance(init, str):
        if init == "zero":
            return np.zeros(p)
        if init == "random":
            return rng.normal(size=p + 1)
        return None
    arr = np.asarray(init, dtype=float)
    if arr.shape not in ((p,), (p + 1,)) or not np.all(np.isfinite(arr)):
        raise ValueError(
            f"init as an array must hold {p} finite weights (or intercept + {p} weights) "
            "on the standardised features"
        )
    return arr


# --------------------------------------------------------------------------- model


class PenaltyModel:
    """A linear model of log λ (or of binary scores) learned by AUM gradient descent.

    Parameters
    ----------
    line_search : {"first_min", "linear", "quadratic", "max_auc", "grid"}
        Step rule of gradient descent: exact line search stopped at the first AUM
        minimum, after B events, after all events, at the first AUC maximum, or the
        best of the grid 10^−9…10^0.
    init : str or array
        ``"interval_regression"`` (penalty models; L1 interval regression on the target
        intervals, correctly signed), ``"interval_regression_flipped"`` (the paper's
        sign flip, only for reproducing it), ``"zero"``, ``"random"`` (standard normal
        weights), or weights on the standardised features.
    normalize : {"rate", "count"}
        AUM of FP/FN rates or counts.
    max_steps : int
        Upper bound on gradient steps.
    tol : float
        Stop when the subtrain AUM decreases by no more than ``tol``.
    random_state : int or None
        Seeds ``init="random"`` and interval regression's CV folds.
    progress : bool
        Show a tqdm progress bar.
    kind : {"penalty", "binary"}
        What :meth:`fit` learns: log λ from error functions, or binary labels.

    Attributes
    ----------
    coef_ : Series
        Weights on the original feature scale: of log λ (penalty), of the score
        (binary).
    intercept_ : float
    history_ : DataFrame
        One row per recorded step: ``step, step_size, subtrain_aum, subtrain_auc,
        validation_aum, validation_auc, events, seconds``.
    best_step_ : int
        The step with the largest validation AUC (the returned iterate).
    dropped_features_ : list
        Feature columns dropped for non-finite values or zero variance.
    init_ : dict
        Initialisation details (e.g. the interval-regression regulariser).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0) * 1
    >>> m = PenaltyModel(kind="binary", random_state=0, progress=False).fit(X[:100], y[:100],
    ...                                                    validation=(X[100:], y[100:]))
    >>> bool(m.history_["validation_auc"].max() > 0.8), m.predict(X[:3]).shape
    (True, (3,))
    """

    _PARAMS = ("line_search", "init", "normalize", "max_steps", "tol", "random_state",
               "progress", "kind")

    def __init__(
        self,
        line_search: str = "first_min",
        init="interval_regression",
        normalize: str = "rate",
        max_steps: int = 1000,
        tol: float = 1e-5,
        random_state=None,
        progress: bool = True,
        kind: str = "penalty",
    ) -> None:
        self.line_search = line_search
        self.init = init
        self.normalize = normalize
        self.max_steps = max_steps
        self.tol = tol
        self.random_state = random_state
        self.progress = progress
        self.kind = kind

    # scikit-learn style -------------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters."""
        return {k: getattr(self, k) for k in self._PARAMS}

    def set_params(self, **params) -> PenaltyModel:
        """Set constructor parameters."""
        for k, v in params.items():
            if k not in self._PARAMS:
                raise ValueError(f"invalid parameter {k!r}; valid: {list(self._PARAMS)}")
            setattr(self, k, v)
        return self

    def fit(self, X, y, *, validation=None, folds=None, targets=None, scale_features=None):
        """Fit: ``y`` is an evaluation table (``kind="penalty"``) or labels (binary).

        See :func:`learn_penalty` and :func:`fit_aum_linear` for the arguments.
        """
        opts = {k: getattr(self, k) for k in self._PARAMS if k != "kind"}
        if self.kind == "penalty":
            fitted = learn_penalty(
                X, y, validation=validation, folds=folds, targets=targets,
                scale_features=scale_features, **opts,
            )
        elif self.kind == "binary":
            if targets is not None or folds is not None:
                raise ValueError("targets/folds are for penalty models only")
            if isinstance(opts["init"], str) and opts["init"].startswith("interval"):
                opts["init"] = "random"
            fitted = fit_aum_linear(X, y, validation=validation, **opts)
        else:
            raise ValueError(f"kind must be 'penalty' or 'binary', got {self.kind!r}")
        self.__dict__.update({k: v for k, v in fitted.__dict__.items() if k.endswith("_")})
        return self

    # prediction ----------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "coef_"):
            raise ValueError("this PenaltyModel is not fitted yet; call fit() first")

    def _design(self, X) -> tuple[np.ndarray, pd.Index | None]:
        self._check_fitted()
        cols = list(self.coef_.index)
        if isinstance(X, pd.DataFrame):
            missing = [c for c in cols if c not in X.columns]
            if missing:
                raise ValueError(f"X is missing feature column(s) {missing[:5]}")
            A, index = X.loc[:, cols].to_numpy(dtype=float), X.index
        else:
            A, index = np.asarray(X, dtype=float), None
            if A.ndim == 1:
                A = A[None, :]
            n_in = len(getattr(self, "feature_names_in_", cols))
            if A.ndim == 2 and A.shape[1] == n_in and n_in != len(cols):
                pos = {str(c): i for i, c in enumerate(self.feature_names_in_)}
                A = A[:, [pos[str(c)] for c in cols]]
            if A.ndim != 2 or A.shape[1] != len(cols):
                raise ValueError(f"X must have {n_in} feature columns, got shape {A.shape}")
        if not np.all(np.isfinite(A)):
            r, c = np.argwhere(~np.isfinite(A))[0]
            who = index[r] if index is not None else r
            raise ValueError(f"X has a non-finite value in row {who!r}, column {cols[c]!r}")
        return A, index

    def decision_function(self, X) -> np.ndarray:
        """Scores: −log λ for penalty models, X·w + b for binary models."""
        A, _ = self._design(X)
        out = A @ self.coef_.to_numpy() + self.intercept_
        return -out if self.kind == "penalty" else out

    def predict(self, X) -> np.ndarray:
        """Predicted log λ (penalty models) or labels in {0, 1} (binary models)."""
        s = self.decision_function(X)
        if self.kind == "penalty":
            return -s
        return (s > 0).astype(int)

    def segment(self, sequence, features=None, max_segments: int = 20, loss: str = "l2"):
        """Change positions of ``sequence`` selected by the predicted penalty.

        Optimal models with 1..K segments (:func:`penlearn.changepoint.segmentation.segment`), the
        exact penalty path (:func:`penlearn.changepoint.model_selection.model_selection`), and the
        model selected at the predicted λ.

        Parameters
        ----------
        sequence : array-like or DataFrame
            The values, or a DataFrame of one sequence with ``position, value``
            (positions default to 1..n).
        features : Series or one-row DataFrame, optional
            The sequence's features (the model's columns). Default: computed from the
            sequence with :func:`penlearn.changepoint.features.feature_matrix`, using the first of
            its feature sets that has every column of the model.
        max_segments : int
            K, the largest model considered.
        loss : str
            Segmentation loss (``"l2"`` or ``"poisson"``).

        Returns
        -------
        ndarray of int
            Change positions (SPEC §2: between consecutive data at p_i < p_{i+1} a change
            sits at ⌊(p_i + p_{i+1})/2⌋); empty for the 1-segment model.
        """
        self._check_fitted()
        if self.kind != "penalty":
            raise ValueError("segment() needs a penalty model (kind='penalty')")
        from penlearn.changepoint.model_selection import model_selection
        from penlearn.changepoint.segmentation import segment

        if isinstance(sequence, pd.DataFrame):
            values = sequence["value"].to_numpy(dtype=float)
            positions = (sequence["position"].to_numpy() if "position" in sequence
                         else np.arange(1, len(values) + 1))
        else:
            values = np.asarray(sequence, dtype=float)
            positions = np.arange(1, len(values) + 1)
        if features is None:
            features = _sequence_features(values, positions, list(self.coef_.index))
        if isinstance(features, pd.Series):
            features = features.to_frame().T
        log_lambda = float(self.predict(features)[0])
        seg = segment(values, min(int(max_segments), len(values)), loss=loss)
        k = np.arange(1, seg.max_segments + 1)
        path = model_selection(seg.loss, k)
        inside = (path["min_log_lambda"] <= log_lambda) & (log_lambda < path["max_log_lambda"])
        n_seg = int(path.loc[inside, "complexity"].iloc[0])
        ends = seg.ends(n_seg)[:-1]
        return ((positions[ends - 1] + positions[ends]) // 2).astype(np.int64)

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
            "kind": self.kind,
            "params": params,
            "features": [str(c) for c in self.coef_.index],
            "coef": [float(v) for v in self.coef_.to_numpy()],
            "intercept": float(self.intercept_),
            "scaling": {
                "mean": [float(v) for v in self.scaling_.mean],
                "scale": [float(v) for v in self.scaling_.scale],
            },
            "dropped_features": [str(c) for c in self.dropped_features_],
            "feature_names_in": [str(c) for c in self.feature_names_in_],
            "best_step": int(self.best_step_),
            "history": {c: [float(v) for v in h[c]] for c in HISTORY_COLUMNS},
        }

    def save(self, path) -> None:
        """Write the model as versioned JSON, atomically (temp file + rename)."""
        write_text_atomic(path, json.dumps(self.to_dict(), indent=1, allow_nan=True))

    @classmethod
    def load(cls, path) -> PenaltyModel:
        """Read a model written by :meth:`save`; a malformed file raises ValueError."""
        path = Path(path)
        try:
            with open(path) as fh:
                data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{path} is not a valid penlearn model file (bad JSON: {exc})"
            ) from exc
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data, source: str = "model data") -> PenaltyModel:
        """Rebuild a model from :meth:`to_dict` output, validating every field."""

        def bad(msg):
            return ValueError(f"{source} is not a valid penlearn model file: {msg}")

        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise bad(f"'format' must be {FORMAT!r}")
        if data.get("version") != FORMAT_VERSION:
            raise bad(f"unsupported version {data.get('version')!r} (expected {FORMAT_VERSION})")
        need = ("kind", "params", "features", "coef", "intercept", "scaling",
                "dropped_features", "best_step", "history")
        missing = [k for k in need if k not in data]
        if missing:
            raise bad(f"missing field(s) {missing}")
        try:
            feats = list(data["features"])
            coef = np.asarray(data["coef"], dtype=float)
            intercept = float(data["intercept"])
            mean = np.asarray(data["scaling"]["mean"], dtype=float)
            scale = np.asarray(data["scaling"]["scale"], dtype=float)
            hist = pd.DataFrame({c: np.asarray(data["history"][c], float)
                                 for c in HISTORY_COLUMNS})
        except (TypeError, ValueError, KeyError) as exc:
            raise bad(f"bad field ({exc})") from exc
        if coef.shape != (len(feats),) or mean.shape != coef.shape or scale.shape != coef.shape:
            raise bad("features, coef and scaling must have equal lengths")
        if not (np.all(np.isfinite(coef)) and np.isfinite(intercept)):
            raise bad("coef and intercept must be finite")
        if data["kind"] not in ("penalty", "binary"):
            raise bad(f"kind must be 'penalty' or 'binary', got {data['kind']!r}")
        params = dict(data["params"])
        unknown = set(params) - set(cls._PARAMS)
        if unknown:
            raise bad(f"unknown parameter(s) {sorted(unknown)}")
        model = cls(**params)
        model.kind = data["kind"]
        model.coef_ = pd.Series(coef, index=feats, name="coef")
        model.intercept_ = intercept
        model.scaling_ = FeatureScaling(tuple(feats), mean, scale, tuple(data["dropped_features"]))
        model.dropped_features_ = list(data["dropped_features"])
        model.feature_names_in_ = list(data.get("feature_names_in", feats))
        model.best_step_ = int(data["best_step"])
        for c in ("step", "events"):
            hist[c] = hist[c].astype(int)
        model.history_ = hist
        model.init_ = {}
        return model

    def __repr__(self) -> str:
        if not hasattr(self, "coef_"):
            return f"PenaltyModel(line_search={self.line_search!r}, kind={self.kind!r})"
        return (
            f"PenaltyModel(kind={self.kind!r}, features={len(self.coef_)}, "
            f"steps={int(self.history_['step'].iloc[-1])}, best_step={self.best_step_})"
        )


def _sequence_features(values, positions, columns) -> pd.DataFrame:
    from penlearn.changepoint.features import feature_matrix

    long = pd.DataFrame({"sequence_id": "s", "position": positions, "value": values})
    for kind in ("penaltyLearning", "chipseq", "neuroblastoma"):
        try:
            fm = feature_matrix(long, kind)
        except ValueError:
            continue
        if set(columns) <= set(fm.columns):
            return fm
    raise ValueError(
        "segment(): no feature set of penlearn.changepoint.features has all the model's columns; "
        "pass features= explicitly"
    )


def _finish(model: PenaltyModel, scaling: FeatureScaling, w_std: np.ndarray, b: float,
            history: pd.DataFrame, best: int, sign: float) -> PenaltyModel:
    """Store weights on the original scale; ``sign`` = −1 turns scores into log λ."""
    a = w_std / scaling.scale
    a0 = b - float(np.dot(a, scaling.mean))
    model.coef_ = pd.Series(sign * a, index=list(scaling.columns), name="coef")
    model.intercept_ = float(sign * a0)
    model.scaling_ = scaling
    model.dropped_features_ = list(scaling.dropped)
    if not hasattr(model, "feature_names_in_"):
        model.feature_names_in_ = list(scaling.columns) + list(scaling.dropped)
    model.history_ = history
    model.best_step_ = int(best)
    return model


def _weights_from_model(model: PenaltyModel, scaling: FeatureScaling):
    """Score weights on ``scaling``'s standardised features equal to a fitted penalty
    model (warm start): score = −log λ = −(X·coef + intercept)."""
    model._check_fitted()
    if model.kind != "penalty":
        raise ValueError("init as a model needs a penalty model (kind='penalty')")
    coef = model.coef_.reindex(list(scaling.columns))
    extra = set(model.coef_.index[model.coef_ != 0]) - set(scaling.columns)
    if extra:
        raise ValueError(f"init model uses feature(s) not kept here: {sorted(extra)[:5]}")
    a = -coef.fillna(0.0).to_numpy()
    return a * scaling.scale, float(-model.intercept_ + np.dot(a, scaling.mean))


def _validate_options(line_search, normalize, max_steps, tol) -> None:
    if line_search not in LINE_SEARCHES:
        raise ValueError(f"line_search must be one of {LINE_SEARCHES}, got {line_search!r}")
    if normalize not in ("rate", "count"):
        raise ValueError(f"normalize must be 'rate' or 'count', got {normalize!r}")
    if not (isinstance(max_steps, (int, np.integer)) and max_steps >= 0):
        raise ValueError(f"max_steps must be a non-negative int, got {max_steps!r}")
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")


def learn_penalty(
    features: pd.DataFrame,
    evaluation: pd.DataFrame,
    *,
    validation=None,
    folds=None,
    line_search: str = "first_min",
    init="interval_regression",
    normalize: str = "rate",
    max_steps: int = 1000,
    tol: float = 1e-5,
    random_state=None,
    progress: bool = True,
    targets: pd.DataFrame | None = None,
    scale_features: pd.DataFrame | None = None,
) -> PenaltyModel:
    """Learn a linear penalty function log λ = f(features) (SPEC §5).

    Parameters
    ----------
    features : DataFrame
        One row per training sequence, indexed by sequence id (as ``inputs.csv``).
    evaluation : DataFrame
        The error functions of those sequences.
    validation : (DataFrame, DataFrame), optional
        ``(features, evaluation)`` of the validation sequences. Without it (and without
        ``folds``) the sequences are split as in the paper: sorted by id, alternately
        subtrain and validation.
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
        Seeds the random init and interval regression's CV folds.
    progress : bool
        Show a progress bar.
    targets : DataFrame, optional
        Target intervals (``sequence_id, min_log_lambda, max_log_lambda``, e.g.
        ``outputs.csv``) for the interval-regression init; default: computed from the
        evaluation table.
    scale_features : DataFrame, optional
        Features whose rows define the standardisation (the paper scales over all
        sequences of the data set, test fold included); default: subtrain + validation.

    Returns
    -------
    PenaltyModel
        The iterate with the largest validation AUC (ROChange AUC), its intercept set to
        minimise subtrain FP + FN; ``history_`` records every step.

    Notes
    -----
    Gradient descent follows ``papers/000`` Section 5.2: direction −Xᵀḡ with ḡ the
    mean of the left and right directional derivatives of the subtrain AUM
    (``papers/003``); the intercept does not change AUM/AUC and is not updated by it.

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
    >>> m = learn_penalty(feats, ev, init="zero", progress=False)
    >>> bool(m.history_["validation_auc"].max() > 0.9)
    True
    """
    _validate_options(line_search, normalize, max_steps, tol)
    feats = _check_features(features, "features")
    check_evaluation(evaluation)
    all_ids = _check_match(feats, evaluation, "training")
    if validation is not None and folds is not None:
        raise ValueError("give validation= or folds=, not both")
    if validation is not None:
        if not (isinstance(validation, tuple) and len(validation) == 2):
            raise TypeError("validation must be a (features, evaluation) pair")
        v_feats = _check_features(validation[0], "validation features")
        v_eval = validation[1]
        check_evaluation(v_eval, name="validation evaluation")
        v_ids = _check_match(v_feats, v_eval, "validation")
        overlap = pd.Index(all_ids).intersection(v_ids)
        if len(overlap):
            raise ValueError(
                f"{len(overlap)} sequence(s) are in both training and validation sets, "
                f"e.g. {list(overlap[:3])}"
            )
        sub_ids, sub_feats, sub_eval = all_ids, feats, evaluation
    else:
        if folds is None:
            order = sorted(all_ids, key=str)
            sub_ids, v_ids = order[0::2], order[1::2]
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
        sub_feats, v_feats = feats.loc[sub_ids], feats.loc[v_ids]
        ev_ids = evaluation["sequence_id"]
        sub_eval = evaluation[ev_ids.isin(sub_ids)]
        v_eval = evaluation[ev_ids.isin(v_ids)]
        if len(sub_ids) == 0 or len(v_ids) == 0:
            raise ValueError("need at least one subtrain and one validation sequence")

    # standardisation: finite columns over the rows that define the scale
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
    if scaling.dropped:
        warnings.warn(f"learn_penalty: dropped {len(scaling.dropped)} non-finite/constant "
                      f"feature column(s): {list(scaling.dropped)}", UserWarning, stacklevel=2)
    X_sub = scaling.transform(sub_feats)
    X_val = scaling.transform(v_feats)

    bp_sub = _set_breakpoints(sub_eval, sub_ids, normalize, "subtrain")
    bp_val = _set_breakpoints(v_eval, v_ids, normalize, "validation")
    roc_sub = _ChangepointROC(sub_eval, sub_ids)
    roc_val = _ChangepointROC(v_eval, v_ids)

    rng = np.random.default_rng(random_state)
    p = X_sub.shape[1]
    init_info: dict = {"init": init if isinstance(init, str) else "weights"}
    if isinstance(init, str) and init.startswith("interval_regression"):
        if init not in ("interval_regression", "interval_regression_flipped"):
            raise ValueError(f"unknown init {init!r}")
        tr_ids = list(sub_ids) + list(v_ids)
        tr_eval = pd.concat([sub_eval, v_eval])
        if targets is None:
            T = _target_intervals(tr_eval, tr_ids)
        else:
            tt = targets.set_index("sequence_id") if "sequence_id" in targets else targets
            missing = pd.Index(tr_ids).difference(tt.index)
            if len(missing):
                raise ValueError(f"targets has no row for sequence(s) {list(missing[:3])}")
            T = tt.loc[tr_ids, ["min_log_lambda", "max_log_lambda"]]
        Xtr = pd.DataFrame(np.vstack([X_sub, X_val]), index=tr_ids, columns=scaling.columns)
        ir = IntervalRegression(random_state=rng.integers(2**31)).fit(Xtr, T)
        # IR on standardised features: log λ = Xs·(coef) + intercept; IR may drop more
        w_ir = pd.Series(ir.coef_, dtype=float).reindex(list(scaling.columns)).fillna(0.0)
        w_ir = w_ir.to_numpy()
        b_ir = ir.intercept_
        sign = 1.0 if init == "interval_regression_flipped" else -1.0
        w0, b0 = sign * w_ir, sign * b_ir
        init_info.update(regularization=ir.regularization_, nonzero=int(np.count_nonzero(w_ir)))
    elif isinstance(init, PenaltyModel):
        w0, b0 = _weights_from_model(init, scaling)
        init_info = {"init": "model"}
    else:
        w = _initial_weights(init, p, rng)
        if w is None:
            raise ValueError(
                "init must be 'interval_regression', 'interval_regression_flipped', "
                f"'zero', 'random', a fitted PenaltyModel or an array of weights, got {init!r}"
            )
        w0, b0 = (w[1:], float(w[0])) if len(w) == p + 1 else (w, 0.0)

    def evaluate(w):
        s_sub = X_sub @ w
        s_val = X_val @ w
        return roc_sub.auc(s_sub), aum(bp_val, s_val).aum, roc_val.auc(s_val)

    history, weights = _descend(
        X_sub, bp_sub, w0, b0, variant=line_search, max_steps=max_steps, tol=tol,
        evaluate=evaluate, progress=progress,
    )
    best = int(np.argmax(history["validation_auc"].to_numpy()))
    w_best = weights[best]
    if best == 0 and (isinstance(init, PenaltyModel)
                      or (isinstance(init, str) and init.startswith("interval_regression"))):
        b_best = b0
    else:
        scores = X_sub @ w_best
        b_best = _min_error_shift(bp_sub, scores)
    model = PenaltyModel(line_search, init, normalize, max_steps, tol, random_state,
                         progress, kind="penalty")
    model.init_ = init_info
    return _finish(model, scaling, w_best, b_best, history, best, sign=-1.0)


def fit_aum_linear(
    X,
    y,
    *,
    validation=None,
    line_search: str = "first_min",
    normalize: str = "rate",
    init="random",
    max_steps: int = 1000,
    tol: float = 1e-5,
    random_state=None,
    progress: bool = True,
) -> PenaltyModel:
    """Linear binary classifier trained by AUM gradient descent (learn_penalty's engine).

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, p)
        Features of the subtrain examples.
    y : array-like
        Labels in {0, 1} (or {−1, 1}).
    validation : (X, y), optional
        Validation examples; the returned iterate maximises their ROC AUC. Without it
        the examples are split alternately subtrain/validation.
    line_search, normalize, init, max_steps, tol, random_state, progress
        As in :func:`learn_penalty`; ``init`` is ``"random"`` (standard normal weights, as
        in the paper's binary experiments), ``"zero"`` or weights. At zero weights every
        score ties, the AUM is 0 and gradient descent cannot move: use ``"random"``.

    Returns
    -------
    PenaltyModel
        ``kind="binary"``: ``decision_function(X)`` gives scores X·w + b,
        ``predict(X)`` labels in {0, 1} (the intercept minimises subtrain errors).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = (X[:, 1] > 0).astype(int)
    >>> m = fit_aum_linear(X, y, random_state=0, progress=False)
    >>> bool(m.history_["validation_auc"].iloc[m.best_step_] > 0.95)
    True
    """
    _validate_options(line_search, normalize, max_steps, tol)
    names = list(X.columns) if isinstance(X, pd.DataFrame) else None

    def as_matrix(A, what):
        arr = np.asarray(A.to_numpy(dtype=float) if isinstance(A, pd.DataFrame) else A, float)
        if arr.ndim != 2:
            raise ValueError(f"{what} must be 2-dimensional, got shape {arr.shape}")
        return arr

    Xa = as_matrix(X, "X")
    ya = np.asarray(y)
    if len(ya) != len(Xa):
        raise ValueError(f"X has {len(Xa)} rows but y has {len(ya)} labels")
    if validation is None:
        idx = np.arange(len(Xa))
        sub, val = idx[0::2], idx[1::2]
        Xs_raw, ys, Xv_raw, yv = Xa[sub], ya[sub], Xa[val], ya[val]
    else:
        if not (isinstance(validation, tuple) and len(validation) == 2):
            raise TypeError("validation must be an (X, y) pair")
        Xs_raw, ys = Xa, ya
        Xv_raw, yv = as_matrix(validation[0], "validation X"), np.asarray(validation[1])
        if Xv_raw.shape[1] != Xa.shape[1] or len(yv) != len(Xv_raw):
            raise ValueError("validation X must have X's columns and one label per row")
    frame = pd.DataFrame(np.vstack([Xs_raw, Xv_raw]), columns=names)
    nonfinite = ~np.isfinite(frame.to_numpy(float))
    if nonfinite.any():
        r, c = np.argwhere(nonfinite)[0]
        raise ValueError(
            f"X has non-finite values (NaN or inf), e.g. column {frame.columns[c]!r}; "
            "impute or drop them before fitting"
        )
    scaling = standardize_features(frame)
    if scaling.dropped:
        warnings.warn(f"fit_aum_linear: dropped constant feature column(s) "
                      f"{list(scaling.dropped)}", UserWarning, stacklevel=2)
    keep = [frame.columns.get_loc(c) for c in scaling.columns]
    X_sub = (Xs_raw[:, keep] - scaling.mean) / scaling.scale
    X_val = (Xv_raw[:, keep] - scaling.mean) / scaling.scale
    bp_sub = breakpoints_from_labels(ys)
    _check_classes(bp_sub, "subtrain")
    bp_sub = bp_sub.normalize(normalize)
    bp_val = breakpoints_from_labels(yv)
    _check_classes(bp_val, "validation")
    bp_val = bp_val.normalize(normalize)

    rng = np.random.default_rng(random_state)
    p = X_sub.shape[1]
    if names is None:
        kept_names = tuple(f"x{c}" for c in scaling.columns)
    else:
        kept_names = tuple(str(c) for c in scaling.columns)
    if isinstance(init, PenaltyModel):  # warm start from a fitted binary model
        init._check_fitted()
        if init.kind != "binary":
            raise ValueError("init as a model needs a binary model (kind='binary')")
        coef = init.coef_.reindex(list(kept_names))
        if coef.isna().any():
            raise ValueError("init model lacks feature(s) "
                             f"{list(coef.index[coef.isna()])[:5]}")
        a = coef.to_numpy()
        w0, b0 = a * scaling.scale, float(init.intercept_ + np.dot(a, scaling.mean))
    else:
        w = _initial_weights(init, p, rng)
        if w is None:
            raise ValueError(
                f"init must be 'zero', 'random', a fitted binary PenaltyModel or an array of "
                f"weights, got {init!r}"
            )
        w0, b0 = (w[1:], float(w[0])) if len(w) == p + 1 else (w, 0.0)

    def evaluate(w):
        s_val = X_val @ w
        return breakpoints_auc(bp_sub, X_sub @ w), aum(bp_val, s_val).aum, \
            breakpoints_auc(bp_val, s_val)

    with warnings.catch_warnings():
        history, weights = _descend(
            X_sub, bp_sub, w0, b0, variant=line_search, max_steps=max_steps, tol=tol,
            evaluate=evaluate, progress=progress,
        )
    best = int(np.argmax(history["validation_auc"].to_numpy()))
    w_best = weights[best]
    b_best = b0 + _min_error_shift(bp_sub, X_sub @ w_best + b0)
    model = PenaltyModel(line_search, init, normalize, max_steps, tol, random_state,
                         progress, kind="binary")
    model.init_ = {"init": init if isinstance(init, str) else
                   "model" if isinstance(init, PenaltyModel) else "weights"}
    if names is None:
        model.feature_names_in_ = [f"x{c}" for c in range(Xa.shape[1])]
        scaling = FeatureScaling(
            tuple(f"x{c}" for c in scaling.columns), scaling.mean, scaling.scale,
            tuple(f"x{c}" for c in scaling.dropped),
        )
    else:
        model.feature_names_in_ = [str(c) for c in names]
    return _finish(model, scaling, w_best, b_best, history, best, sign=1.0)
