"""Linear binary classifiers that the AUM papers compare with, all with one fit/predict shape.

Each ``fit_*`` takes features ``X`` (n × p) and labels ``y`` in {0, 1} or {−1, 1},
optionally ``validation=(X_valid, y_valid)`` for model selection, and returns a
:class:`BinaryLinearModel` (score = X·coef_ + intercept_, ``decision_function``,
``predict``, ``history_``, ``save``/``load``), the same shape as
:func:`penlearn.fit_aum_linear`'s model.

- :func:`fit_logistic`: logistic regression, unweighted or class-balanced
  (weights 1/n_y, so each class has total weight 1), as in Hocking's comparison
  (Hocking 2024, talk on sort-based ROC optimisation: "Comparing AUM with weighted
  logistic loss").
- :func:`fit_squared_hinge_pairs`: the squared hinge loss summed over all
 (positive, negative) pairs, the surrogate AUC loss of Hillman & Hocking 2023 (Yan et al. 2003),
  evaluated in O(n log n) by sorting (:func:`squared_hinge_pairs_loss`).
- :func:`fit_polynomial_auc`: Calders & Jaroszewicz's linear classifier maximising the
  polynomial approximation of AUC or soft-AUC by gradient steps with the angle search
 (Calders & Jaroszewicz 2007, Algorithms 1–2; see :mod:`penlearn.binary.polynomial_auc`).
- :func:`fit_svm_pauc`: Narasimhan & Agarwal's structural SVM for the partial AUC in
  FPR range [0, β], solved by the cutting-plane method with the most-violated
  constraint of their Algorithm 2 (Narasimhan & Agarwal 2013, Section 4); ``fpr_max=1`` is
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

import time

import numpy as np

from penlearn.binary.metrics import check_binary_labels
from penlearn.binary.model import (
    BinaryLinearModel,
    _check_positive,
    _check_validation,
    _check_xy,
    _finish,
    _grid,
    _metrics,
    _Standardizer,
)

L2_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)


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
    """Linear logistic regression, unweighted or class-balanced (Hocking 2024, talk).

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
    from scipy.optimize import minimize  # heavy: imported when fitting
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
    Σa_j² − 2sΣa_j + k·s² from suffix sums (Hillman & Hocking 2023 all-pairs squared hinge).

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
    """Minimise the all-pairs squared hinge loss (surrogate AUC loss of Hillman & Hocking 2023).

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
    >>> from penlearn.binary.metrics import roc_auc
    >>> roc_auc(y, m.decision_function(X)) > 0.99
    True
    """
    from scipy.optimize import minimize  # heavy: imported when fitting
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
