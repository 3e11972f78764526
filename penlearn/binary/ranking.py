"""Ranking learners of the AUC-optimisation papers: the polynomial AUC classifier of
Calders & Jaroszewicz (2007) and the partial-AUC structural SVM of Narasimhan & Agarwal
(2013). Both return a :class:`~penlearn.binary.model.BinaryLinearModel`.
"""

from __future__ import annotations

import math
import time

import numpy as np

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
from penlearn.binary.polynomial_auc import (
    _check_degree,
    angle_search,
    polynomial_auc,
    polynomial_auc_gradient,
    score_scaling,
)

C_GRID = (0.1, 1.0, 10.0)


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
    """Calders & Jaroszewicz's AUC-maximising linear classifier (Alg. 2).

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
    >>> from penlearn.binary.metrics import partial_auc, roc_auc
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
    """Narasimhan & Agarwal 2013 Algorithm 2, compact O((m + j_β) log + n log n) form.

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
    from scipy.optimize import minimize  # heavy: imported when fitting
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
    """Structural SVM for the partial AUC in FPR range [0, ``fpr_max``] (Narasimhan & Agarwal).

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
    >>> from penlearn.binary.metrics import partial_auc
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
            f"{j_beta} negatives on average, so the convex surrogate (their eq. 10) "
            "cannot improve on a constant score; try a larger fpr_max"
        )
    params = {"fpr_max": float(fpr_max), "j_beta": j_beta, "C": c_val, "C_grid": grid,
              "epsilon": epsilon}
    return _finish("svm_pauc", st, w, 0.0, Z, pos, params, history, t0)
