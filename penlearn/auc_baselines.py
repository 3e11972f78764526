"""Linear binary classifiers that the AUM papers compare with, all with one fit/predict shape.

Each ``fit_*`` takes features ``X`` (n × p) and labels ``y`` in {0, 1} or {−1, 1},
optionally ``validation=(X_valid, y_valid)`` for model selection, and returns a
:class:`BinaryLinearModel` (score = X·coef_ + intercept_, ``decision_function``,
``predict``, ``history_``, ``save``/``load``), the same shape as
:func:`penlearn.fit_aum_linear`'s model.

- :func:`fit_logistic`: logistic regression, unweighted or class-balanced
  (weights 1/n_y, so each class has total weight 1), as in Hocking's comparison
  (``papers/001``, "Comparing AUM with weighted logistic loss").
- :func:`fit_squared_hinge_pairs`: the squared hinge loss summed over all
  (positive, negative) pairs, the surrogate AUC loss of ``papers/003`` (Yan et al. 2003),
  evaluated in O(n log n) by sorting (:func:`squared_hinge_pairs_loss`).
- :func:`fit_polynomial_auc`: Calders & Jaroszewicz's linear classifier maximising the
  polynomial approximation of AUC or soft-AUC by gradient steps with the angle search
  (``papers/002``, Algorithms 1–2; see :mod:`penlearn.polynomial_auc`).
- :func:`fit_svm_pauc`: Narasimhan & Agarwal's structural SVM for the partial AUC in
  FPR range [0, β], solved by the cutting-plane method with the most-violated
  constraint of their Algorithm 2 (``papers/004``, Section 4); ``fpr_max=1`` is
  Joachims' SVM for the full AUC.

All learners standardise the features internally (mean 0, standard deviation 1 on the
training rows; constant columns get weight 0) and report coefficients in the original
units. The ranking learners have no intercept of their own: theirs is set afterwards to
the cut that minimises the balanced training error FPR + FNR, which changes no AUC.
Model selection with ``validation``: the regularisation (logistic, squared hinge: L2
weight; SVM: C) is chosen from a small grid by validation AUC (partial AUC for the SVM);
the polynomial learner keeps its iterate with the best validation AUC.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from penlearn.atomic_files import write_text_atomic
from penlearn.binary_metrics import (
    binary_roc,
    check_binary_labels,
    partial_auc,
    roc_auc,
)
from penlearn.polynomial_auc import (
    _check_degree,
    angle_search,
    polynomial_auc,
    polynomial_auc_gradient,
    score_scaling,
)

L2_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
C_GRID = (0.1, 1.0, 10.0)


# --------------------------------------------------------------------------- model


class BinaryLinearModel:
    """A fitted linear scorer: score = X·coef_ + intercept_; positive when score > 0.

    Parameters
    ----------
    coef : array-like of shape (p,)
    intercept : float
    method : str
        Name of the learner that produced it.
    params : dict, optional
        The learner's settings (JSON-serialisable), including the selected ones.
    history : DataFrame, optional
        One row per iterate or per candidate setting; its columns depend on the learner.
    seconds : float, optional
        Wall time of the fit.

    Examples
    --------
    >>> m = BinaryLinearModel([1.0, -1.0], 0.5, method="manual")
    >>> m.decision_function([[1.0, 0.0], [0.0, 2.0]]).tolist()
    [1.5, -1.5]
    >>> m.predict([[1.0, 0.0], [0.0, 2.0]]).tolist()
    [1, 0]
    """

    def __init__(
        self,
        coef,
        intercept: float,
        method: str,
        params: dict | None = None,
        history: pd.DataFrame | None = None,
        seconds: float = float("nan"),
    ) -> None:
        self.coef_ = np.asarray(coef, dtype=float).reshape(-1)
        self.intercept_ = float(intercept)
        self.method = str(method)
        self.params = dict(params or {})
        self.history_ = history if history is not None else pd.DataFrame()
        self.seconds_ = float(seconds)

    @property
    def n_features_in_(self) -> int:
        return len(self.coef_)

    def __repr__(self) -> str:
        return (
            f"BinaryLinearModel(method={self.method!r}, n_features={self.n_features_in_}, "
            f"intercept={self.intercept_:.4g})"
        )

    def decision_function(self, X) -> np.ndarray:
        """Scores X·coef_ + intercept_ (larger ⇒ more positive)."""
        Xa = check_features(X, "X", n_features=self.n_features_in_)
        return Xa @ self.coef_ + self.intercept_

    def predict(self, X) -> np.ndarray:
        """Labels in {0, 1}: 1 where the score is positive."""
        return (self.decision_function(X) > 0).astype(int)

    def to_dict(self) -> dict:
        """JSON-ready description (coefficients, intercept, method, params, history)."""
        hist = self.history_.replace({np.nan: None}).to_dict(orient="list")
        return {
            "kind": "penlearn.BinaryLinearModel",
            "method": self.method,
            "coef": self.coef_.tolist(),
            "intercept": self.intercept_,
            "params": self.params,
            "history": hist,
            "seconds": None if math.isnan(self.seconds_) else self.seconds_,
        }

    def save(self, path) -> None:
        """Write the model as JSON (atomically: temp file, then rename)."""
        write_text_atomic(path, json.dumps(self.to_dict(), indent=1))

    @classmethod
    def load(cls, path) -> BinaryLinearModel:
        """Read a model written by :meth:`save`."""
        with open(path) as fh:
            d = json.load(fh)
        if d.get("kind") != "penlearn.BinaryLinearModel":
            raise ValueError(f"{path} does not hold a penlearn.BinaryLinearModel")
        hist = pd.DataFrame(d.get("history") or {})
        seconds = d.get("seconds")
        return cls(
            d["coef"],
            d["intercept"],
            d["method"],
            d.get("params"),
            hist,
            float("nan") if seconds is None else seconds,
        )


# ---------------------------------------------------------------------- validation


def check_features(X, name: str = "X", *, n_features: int | None = None) -> np.ndarray:
    """Validate a 2-D finite numeric feature matrix and return it as float array.

    Examples
    --------
    >>> check_features([[1, 2], [3, 4]]).shape
    (2, 2)
    >>> check_features([[1, float("nan")]])
    Traceback (most recent call last):
    ...
    ValueError: X must be finite: row 0, column 1 is nan
    """
    if isinstance(X, pd.DataFrame):
        X = X.to_numpy()
    try:
        Xa = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric matrix") from exc
    if Xa.ndim != 2:
        raise ValueError(f"{name} must be two-dimensional (n_samples, n_features), got shape "
                         f"{Xa.shape}")
    if Xa.shape[0] == 0 or Xa.shape[1] == 0:
        raise ValueError(f"{name} is empty: shape {Xa.shape}")
    bad = ~np.isfinite(Xa)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite: row {r}, column {c} is {float(Xa[r, c])}")
    if n_features is not None and Xa.shape[1] != n_features:
        raise ValueError(f"{name} has {Xa.shape[1]} features, expected {n_features}")
    return Xa


def _check_xy(X, y, name: str = "X", yname: str = "y"):
    Xa = check_features(X, name)
    pos = check_binary_labels(y, yname)
    if len(pos) != Xa.shape[0]:
        raise ValueError(f"{name} has {Xa.shape[0]} rows but {yname} has {len(pos)} labels")
    return Xa, pos


def _check_validation(validation, n_features: int):
    if validation is None:
        return None
    if not isinstance(validation, Sequence) or len(validation) != 2:
        raise TypeError("validation must be a pair (X_valid, y_valid) or None")
    Xv, pv = _check_xy(validation[0], validation[1], "validation X", "validation y")
    if Xv.shape[1] != n_features:
        raise ValueError(f"validation X has {Xv.shape[1]} features, expected {n_features}")
    return Xv, pv


class _Standardizer:
    """Column means and standard deviations of the training rows (sd 0 → 1)."""

    def __init__(self, X: np.ndarray) -> None:
        self.mean = X.mean(axis=0)
        sd = X.std(axis=0)
        self.constant = ~(sd > 1e-12 * np.maximum(1.0, np.abs(self.mean)))
        self.sd = np.where(self.constant, 1.0, sd)
        if self.constant.all():
            raise ValueError(
                "every column of X is constant on the training rows: no linear score can "
                "separate the classes"
            )

    def __call__(self, X: np.ndarray) -> np.ndarray:
        Z = (X - self.mean) / self.sd
        Z[:, self.constant] = 0.0
        return Z

    def unscale(self, w: np.ndarray, b: float) -> tuple[np.ndarray, float]:
        coef = np.where(self.constant, 0.0, w / self.sd)
        return coef, float(b - coef @ self.mean)


def balanced_intercept(scores: np.ndarray, pos: np.ndarray) -> float:
    """Intercept b such that ``scores + b > 0`` minimises FPR + FNR on these scores.

    The cut is placed midway between consecutive distinct scores (or 1 beyond the
    extremes); the first best cut from the top is taken.

    Examples
    --------
    >>> balanced_intercept(np.array([0.0, 1.0, 2.0, 3.0]), np.array([False, False, True, True]))
    -1.5
    """
    roc = binary_roc(pos.astype(int), scores)
    err = roc.fpr + (1.0 - roc.tpr)
    k = int(np.argmin(err))
    thr = roc.thresholds  # thr[k] = smallest score predicted positive at point k
    if k == 0:
        cut = thr[1] + 1.0
    elif k == len(thr) - 1:
        cut = thr[k] - 1.0
    else:
        cut = 0.5 * (thr[k] + thr[k + 1])
    return -float(cut)


def _metrics(w, Xs, pos, valid, fpr_max: float | None = None) -> dict:
    out = {"train_auc": roc_auc(pos, Xs @ w)}
    if valid is not None:
        sv = valid[0] @ w
        out["valid_auc"] = roc_auc(valid[1], sv)
        if fpr_max is not None:
            out["valid_pauc"] = partial_auc(valid[1], sv, 0.0, fpr_max, normalize=True)
    return out


def _finish(method, st, w, b, Xs, pos, params, history, t0, fit_intercept=True):
    if fit_intercept:
        b = balanced_intercept(Xs @ w, pos)
    coef, intercept = st.unscale(w, b)
    return BinaryLinearModel(
        coef, intercept, method, params, pd.DataFrame(history), time.perf_counter() - t0
    )


def _check_positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _grid(value, default: tuple, name: str, has_validation: bool) -> list[float]:
    if value is None:
        return list(default) if has_validation else [default[len(default) // 2]]
    if isinstance(value, (list, tuple, np.ndarray)):
        vals = [_check_positive(v, name) for v in value]
        if not vals:
            raise ValueError(f"{name} grid is empty")
        if len(vals) > 1 and not has_validation:
            raise ValueError(f"a grid of {name} values needs validation=(X, y) to choose one")
        return vals
    return [_check_positive(value, name)]


# ------------------------------------------------------------------------ logistic


def logistic_loss(w: np.ndarray, Z: np.ndarray, sign: np.ndarray, weight: np.ndarray,
                  l2: float) -> tuple[float, np.ndarray]:
    """Weighted mean logistic loss + (l2/2)·‖w[:-1]‖² and its gradient; w[-1] is the bias.

    Examples
    --------
    >>> loss, grad = logistic_loss(np.zeros(2), np.array([[1.0], [-1.0]]),
    ...                            np.array([1.0, -1.0]), np.array([0.5, 0.5]), 0.0)
    >>> round(loss, 6), grad.tolist()
    (0.693147, [-0.5, 0.0])
    """
    margin = sign * (Z @ w[:-1] + w[-1])
    loss = float(weight @ np.logaddexp(0.0, -margin)) + 0.5 * l2 * float(w[:-1] @ w[:-1])
    # d/dmargin log(1 + e^-m) = -sigmoid(-m)
    dm = -weight * 0.5 * (1.0 - np.tanh(0.5 * margin))
    ds = dm * sign
    grad = np.empty_like(w)
    grad[:-1] = Z.T @ ds + l2 * w[:-1]
    grad[-1] = ds.sum()
    return loss, grad


def fit_logistic(
    X,
    y,
    *,
    balanced: bool = False,
    l2=None,
    validation=None,
    max_iter: int = 500,
) -> BinaryLinearModel:
    """Linear logistic regression, unweighted or class-balanced (``papers/001``).

    Parameters
    ----------
    X : array-like (n, p)
    y : array-like (n,)
        Labels in {0, 1} or {−1, 1}.
    balanced : bool
        Weight each example by 1/n_y (its class size), so both classes weigh the same;
        otherwise each example weighs 1/n.
    l2 : float or sequence of floats, optional
        L2 penalty (l2/2)·‖w‖² on standardised weights (not the intercept). Default: the
        grid 1e−4 … 1 chosen by validation AUC when ``validation`` is given, else 1e−2.
    validation : (X_valid, y_valid), optional
    max_iter : int
        L-BFGS iterations per fit.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0)
    >>> m = fit_logistic(X, y.astype(int))
    >>> bool(m.coef_[0] > 1), float((m.predict(X) == y).mean()) > 0.85
    (True, True)
    """
    t0 = time.perf_counter()
    Xa, pos = _check_xy(X, y)
    valid = _check_validation(validation, Xa.shape[1])
    grid = _grid(l2, L2_GRID, "l2", valid is not None)
    st = _Standardizer(Xa)
    Z = st(Xa)
    vz = None if valid is None else (st(valid[0]), valid[1])
    sign = np.where(pos, 1.0, -1.0)
    if balanced:
        weight = np.where(pos, 0.5 / pos.sum(), 0.5 / (~pos).sum())
    else:
        weight = np.full(len(pos), 1.0 / len(pos))
    history, best = [], None
    w0 = np.zeros(Z.shape[1] + 1)
    for lam in grid:
        res = minimize(logistic_loss, w0, args=(Z, sign, weight, lam), jac=True,
                       method="L-BFGS-B", options={"maxiter": max_iter})
        w = res.x
        row = {"l2": lam, "loss": float(res.fun), "iterations": int(res.nit)}
        row.update(_metrics(w[:-1], Z, pos, vz))
        history.append(row)
        key = row.get("valid_auc", 0.0)
        if best is None or key > best[0]:
            best = (key, w, lam)
    _, w, lam = best
    params = {"balanced": bool(balanced), "l2": lam, "l2_grid": grid}
    method = "logistic_balanced" if balanced else "logistic"
    return _finish(method, st, w[:-1], w[-1], Z, pos, params, history, t0, fit_intercept=False)


# ------------------------------------------------------------ squared hinge, all pairs


def squared_hinge_pairs_loss(y, scores, margin: float = 1.0) -> tuple[float, np.ndarray]:
    """Mean over (positive, negative) pairs of (margin − (s⁺ − s⁻))₊², and its gradient.

    Computed in O(n log n): sort the shifted negative scores a_j = s⁻_j + margin; for a
    positive with score s, the active pairs are the a_j > s, whose sum of (a_j − s)² is
    Σa_j² − 2sΣa_j + k·s² from suffix sums (``papers/003``'s all-pairs squared hinge).

    Returns
    -------
    loss : float
    gradient : ndarray (n,)
        With respect to each score.

    Examples
    --------
    >>> loss, g = squared_hinge_pairs_loss([0, 1], [0.0, 0.5])
    >>> loss, g.tolist()
    (0.25, [1.0, -1.0])
    """
    pos = check_binary_labels(y)
    s = np.asarray(scores, dtype=float)
    if s.shape != pos.shape or not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite and have the same length as y")
    sp, sn = s[pos], s[~pos]
    a = np.sort(sn + margin)
    # suffix sums over sorted a: count, sum, sum of squares of a[k:]
    suf1 = np.r_[np.cumsum(a[::-1])[::-1], 0.0]
    suf2 = np.r_[np.cumsum((a * a)[::-1])[::-1], 0.0]
    k0 = np.searchsorted(a, sp, side="right")  # a[k0:] > s
    cnt = len(a) - k0
    S1, S2 = suf1[k0], suf2[k0]
    loss_pos = S2 - 2 * sp * S1 + cnt * sp * sp
    grad_pos = -2.0 * (S1 - cnt * sp)
    # negatives: active positives are those with s_i < a_j
    spos = np.sort(sp)
    pre = np.r_[0.0, np.cumsum(spos)]
    an = sn + margin
    c = np.searchsorted(spos, an, side="left")
    grad_neg = 2.0 * (c * an - pre[c])
    norm = len(sp) * len(sn)
    grad = np.empty(len(s))
    grad[pos] = grad_pos / norm
    grad[~pos] = grad_neg / norm
    return float(np.sum(loss_pos)) / norm, grad


def fit_squared_hinge_pairs(
    X,
    y,
    *,
    margin: float = 1.0,
    l2=None,
    validation=None,
    max_iter: int = 500,
) -> BinaryLinearModel:
    """Minimise the all-pairs squared hinge loss (surrogate AUC loss of ``papers/003``).

    Objective: mean over (positive, negative) pairs of (margin − w·(x⁺ − x⁻))₊² +
    (l2/2)·‖w‖², on standardised features, by L-BFGS with the O(n log n) loss and gradient
    of :func:`squared_hinge_pairs_loss` — never forming the n⁺·n⁻ pairs.

    Parameters
    ----------
    margin : float
        Hinge margin (1 in the papers).
    l2, validation, max_iter
        As in :func:`fit_logistic`.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(150, 2)); y = (X[:, 1] > 0.5).astype(int)
    >>> m = fit_squared_hinge_pairs(X, y)
    >>> roc_auc(y, m.decision_function(X)) > 0.99
    True
    """
    t0 = time.perf_counter()
    Xa, pos = _check_xy(X, y)
    margin = _check_positive(margin, "margin")
    valid = _check_validation(validation, Xa.shape[1])
    grid = _grid(l2, L2_GRID, "l2", valid is not None)
    st = _Standardizer(Xa)
    Z = st(Xa)
    vz = None if valid is None else (st(valid[0]), valid[1])
    ylab = pos.astype(int)

    def objective(w, lam):
        loss, gs = squared_hinge_pairs_loss(ylab, Z @ w, margin)
        return loss + 0.5 * lam * float(w @ w), Z.T @ gs + lam * w

    history, best = [], None
    for lam in grid:
        res = minimize(objective, np.zeros(Z.shape[1]), args=(lam,), jac=True,
                       method="L-BFGS-B", options={"maxiter": max_iter})
        w = res.x
        row = {"l2": lam, "loss": float(res.fun), "iterations": int(res.nit)}
        row.update(_metrics(w, Z, pos, vz))
        history.append(row)
        key = row.get("valid_auc", 0.0)
        if best is None or key > best[0]:
            best = (key, w, lam)
    _, w, lam = best
    params = {"margin": margin, "l2": lam, "l2_grid": grid}
    return _finish("squared_hinge_pairs", st, w, 0.0, Z, pos, params, history, t0)


# ------------------------------------------------------------ polynomial approximation


def fit_polynomial_auc(
    X,
    y,
    *,
    degree: int = 30,
    objective: str = "auc",
    beta: float = 10.0,
    max_iter: int = 30,
    angle_step: float = 0.01,
    validation=None,
    seed: int = 0,
) -> BinaryLinearModel:
    """Calders & Jaroszewicz's AUC-maximising linear classifier (``papers/002``, Alg. 2).

    Each iteration computes the gradient of the polynomial approximation of the
    training AUC (one scan, their eq. 5), rescales w and the gradient g so that
    cross-class score differences lie in [−1, 1], and moves to
    w ← (cos α·w + sin α·g)/√2 with the α ∈ [0, 2π) (grid step ``angle_step``) of largest
    approximate AUC, found from power sums without re-scanning (their Algorithm 1).
    It stops after ``max_iter`` iterations or when α = 0 is best.

    Parameters
    ----------
    degree : int
        Polynomial degree (the paper's 30).
    objective : {"auc", "soft_auc"}
        Approximate AUC, or soft-AUC with sigmoid slope ``beta`` for the unit-norm weight
        vector on standardised features (the paper's β/‖w‖ rescaling).
    beta : float
        Soft-AUC slope (``objective="soft_auc"`` only).
    max_iter : int
        Number of iterations (the paper's maxiter = 30).
    angle_step : float
        Grid step of the angle search.
    validation : (X_valid, y_valid), optional
        Keep the iterate with the best validation AUC (else the last one).
    seed : int
        Seeds the random start used only when the class means coincide.

    Notes
    -----
    The start is the difference of the standardised class means. The model has no
    intercept in the paper; ours is set by :func:`balanced_intercept`.

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> X = rng.normal(size=(200, 3)); y = (X @ [1.0, -2.0, 0.0] > 0).astype(int)
    >>> m = fit_polynomial_auc(X, y, degree=20, max_iter=10)
    >>> roc_auc(y, m.decision_function(X)) > 0.98
    True
    """
    t0 = time.perf_counter()
    Xa, pos = _check_xy(X, y)
    degree = _check_degree(degree)
    if objective not in ("auc", "soft_auc"):
        raise ValueError(f"objective must be 'auc' or 'soft_auc', got {objective!r}")
    soft = objective == "soft_auc"
    beta_ = _check_positive(beta, "beta") if soft else None
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise ValueError(f"max_iter must be a non-negative int, got {max_iter!r}")
    angle_step = _check_positive(angle_step, "angle_step")
    valid = _check_validation(validation, Xa.shape[1])
    st = _Standardizer(Xa)
    Z = st(Xa)
    vz = None if valid is None else (st(valid[0]), valid[1])
    ylab = pos.astype(int)
    w = Z[pos].mean(axis=0) - Z[~pos].mean(axis=0)
    if np.ptp(Z @ w) == 0:
        w = np.random.default_rng(seed).normal(size=Z.shape[1])
    if np.ptp(Z @ w) == 0:
        raise ValueError("degenerate scores: the start gives every example the same score")

    def scaled(v):
        f = Z @ v
        sc = score_scaling(f[pos], f[~pos])
        return v / sc.scale, (f - sc.center) / sc.scale

    def beta_for(v):  # slope of the scaled scores so that soft-AUC uses v/|v|
        return None if not soft else beta_ / float(np.linalg.norm(v))

    history, best = [], None
    for it in range(max_iter + 1):
        w, f = scaled(w)
        row = {"iteration": it, "approx_auc": polynomial_auc(ylab, f, degree, beta_for(w))}
        row.update(_metrics(w, Z, pos, vz))
        key = row.get("valid_auc", 0.0) if vz is not None else it
        if best is None or key > best[0]:
            best = (key, w.copy())
        if it == max_iter:
            history.append(row)
            break
        _, gs = polynomial_auc_gradient(ylab, f, degree, beta_for(w))
        g = Z.T @ gs
        if not np.any(g) or np.ptp(Z @ g) == 0:
            history.append(row | {"angle": 0.0})
            break
        g, fg = scaled(g)
        norms = (float(w @ w), float(g @ g), float(w @ g)) if soft else None
        res = angle_search(f[pos], f[~pos], fg[pos], fg[~pos], degree,
                           step=angle_step, beta=beta_, norms=norms)
        history.append(row | {"angle": res.best_angle})
        if res.best_angle == 0.0:
            break
        w = (math.cos(res.best_angle) * w + math.sin(res.best_angle) * g) / math.sqrt(2.0)
    w = best[1]
    params = {"degree": degree, "objective": objective, "beta": beta_, "max_iter": max_iter,
              "angle_step": angle_step}
    return _finish("polynomial_auc", st, w, 0.0, Z, pos, params, history, t0)


# ------------------------------------------------------------- structural SVM, pAUC


def _most_violated(s: np.ndarray, pos: np.ndarray, Z: np.ndarray, j_beta: int):
    """``papers/004`` Algorithm 2 in the compact O((m + j_β) log + n log n) form (App. B.1).

    Returns (Δ, a, H-parts): Δ = (1/(m·j_β))·Σ π_ij and a = (1/(m·j_β))·Σ π_ij (x⁺_i − z_j),
    with Z̄ the top j_β negatives by score and π_ij = 1[s⁺_i − s(z_j) ≤ 1].
    """
    sp = s[pos]
    neg_idx = np.flatnonzero(~pos)
    top = neg_idx[np.argsort(-s[neg_idx], kind="stable")[:j_beta]]
    sz = s[top]
    m = len(sp)
    # c_i = #{j: s(z_j) >= s_i - 1}; d_j = #{i: s_i <= s(z_j) + 1}
    sz_sorted = np.sort(sz)
    c = j_beta - np.searchsorted(sz_sorted, sp - 1.0, side="left")
    sp_sorted = np.sort(sp)
    d = np.searchsorted(sp_sorted, sz + 1.0, side="right")
    norm = m * j_beta
    delta = float(c.sum()) / norm
    a = (Z[pos].T @ c - Z[top].T @ d) / norm
    return delta, a


def _solve_qp(A: np.ndarray, delta: np.ndarray, C: float, w0: np.ndarray):
    """min ½‖w‖² + C·ξ s.t. ξ ≥ Δ_k − w·a_k for all k, ξ ≥ 0: the working-set QP, by SLSQP.

    Solved in the primal (p + 1 variables): the objective's Hessian is the identity on w,
    so SLSQP's quasi-Newton model is exact from the start and few iterations are needed.
    """
    p = A.shape[1]
    xi0 = max(0.0, float(np.max(delta - A @ w0)))
    x0 = np.r_[w0, xi0]
    jac_c = np.c_[A, np.ones(len(delta))]

    def fun(x):
        w = x[:p]
        g = np.r_[w, C]
        return 0.5 * float(w @ w) + C * x[p], g

    res = minimize(
        fun,
        x0,
        jac=True,
        method="SLSQP",
        bounds=[(None, None)] * p + [(0.0, None)],
        constraints=[{"type": "ineq", "fun": lambda x: A @ x[:p] + x[p] - delta,
                      "jac": lambda x: jac_c}],
        options={"maxiter": 500, "ftol": 1e-12},
    )
    w = res.x[:p]
    return w, max(0.0, float(np.max(delta - A @ w)))


def _svm_pauc_one(Z, pos, j_beta, C, epsilon, max_iter):
    A, D = [], []
    w = np.zeros(Z.shape[1])
    xi = 0.0
    iterations = 0
    converged = False
    while iterations < max_iter:
        iterations += 1
        delta, a = _most_violated(Z @ w, pos, Z, j_beta)
        H = delta - float(w @ a)
        if H <= xi + epsilon:
            converged = True
            break
        A.append(a)
        D.append(delta)
        w, xi = _solve_qp(np.array(A), np.array(D), C, w)
    objective = 0.5 * float(w @ w) + C * xi
    return w, {"iterations": iterations, "constraints": len(A), "converged": converged,
               "objective": objective, "xi": xi}


def fit_svm_pauc(
    X,
    y,
    *,
    fpr_max: float = 0.1,
    C=None,
    epsilon: float = 1e-3,
    max_iter: int = 500,
    validation=None,
) -> BinaryLinearModel:
    """Structural SVM for the partial AUC in FPR range [0, ``fpr_max``] (``papers/004``, §4).

    Minimises ½‖w‖² + C·ξ subject to ξ ≥ Δ(π) − w·(φ(Z, π*) − φ(Z, π)) for every
    subset Z of j_β = ⌈n⁻·β⌉ negatives and ordering π (their eq. 14, equal to the
    pairwise hinge surrogate of pAUC(0, β) by their Theorem 5), with the cutting-plane
    method (their Algorithm 1): solve the QP on the working set (in the primal, by
    ``scipy.optimize`` SLSQP), add the most violated constraint (Algorithm 2: the top
    j_β negatives and π_ij = 1[w·x⁺_i − w·z_j ≤ 1]), until none is violated by more
    than ``epsilon``. ``fpr_max=1`` gives Joachims' SVM for the full AUC.

    Parameters
    ----------
    fpr_max : float
        β in (0, 1].
    C : float or sequence, optional
        Regularisation; default the grid 0.1, 1, 10 chosen by validation partial AUC
        (normalized, FPR in [0, β]) when ``validation`` is given, else 1.
    epsilon : float
        Cutting-plane tolerance.
    max_iter : int
        Maximum cutting-plane iterations per fit (the history says if it converged).
    validation : (X_valid, y_valid), optional

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> X = rng.normal(size=(300, 4)); y = (X[:, 0] - X[:, 2] > 1.0).astype(int)
    >>> m = fit_svm_pauc(X, y, fpr_max=0.2, C=10.0)
    >>> partial_auc(y, m.decision_function(X), 0, 0.2, normalize=True) > 0.9
    True
    """
    t0 = time.perf_counter()
    Xa, pos = _check_xy(X, y)
    if isinstance(fpr_max, bool) or not isinstance(fpr_max, (int, float, np.integer,
                                                             np.floating)):
        raise TypeError(f"fpr_max must be a number in (0, 1], got {type(fpr_max).__name__}")
    if not 0.0 < fpr_max <= 1.0:
        raise ValueError(f"fpr_max must be in (0, 1], got {fpr_max!r}")
    epsilon = _check_positive(epsilon, "epsilon")
    valid = _check_validation(validation, Xa.shape[1])
    grid = _grid(C, C_GRID, "C", valid is not None)
    st = _Standardizer(Xa)
    Z = st(Xa)
    vz = None if valid is None else (st(valid[0]), valid[1])
    n_neg = int((~pos).sum())
    j_beta = max(1, min(n_neg, math.ceil(n_neg * float(fpr_max) - 1e-9)))
    history, best = [], None
    for c_val in grid:
        w, info = _svm_pauc_one(Z, pos, j_beta, c_val, epsilon, max_iter)
        row = {"C": c_val, **info}
        row.update(_metrics(w, Z, pos, vz, fpr_max=float(fpr_max)))
        history.append(row)
        key = row.get("valid_pauc", 0.0)
        if best is None or key > best[0]:
            best = (key, w, c_val)
    _, w, c_val = best
    if not np.linalg.norm(w) > 1e-9:
        raise ValueError(
            "degenerate scores: the partial-AUC SVM is minimised at w = 0 (every score equal) "
            f"for C in {grid}: no direction ranks the positives above the top "
            f"{j_beta} negatives on average, so the convex surrogate (papers/004 eq. 10) "
            "cannot improve on a constant score; try a larger fpr_max"
        )
    params = {"fpr_max": float(fpr_max), "j_beta": j_beta, "C": c_val, "C_grid": grid,
              "epsilon": epsilon}
    return _finish("svm_pauc", st, w, 0.0, Z, pos, params, history, t0)
