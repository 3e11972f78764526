"""L1-regularised squared-hinge interval regression (the initialisation and baseline).

Max-margin interval regression of Rigaill, Hocking, Vert & Bach (ICML 2013, "Learning
sparse penalties for change-point detection using max margin interval regression"), in
the L1-regularised squared-hinge form of ``penaltyLearning::IntervalRegressionCV``: for
targets ``(lower_i, upper_i)`` of log λ and a linear prediction f(x) = b + xᵀw on
standardised features, minimise

    (1/n) Σ_i [φ(f(x_i) − lower_i) + φ(upper_i − f(x_i))] + ρ Σ_j |w_j|,
    φ(z) = (z − margin)² if z < margin else 0,

where infinite limits contribute nothing and the intercept b is not penalised. The
solver is FISTA (Beck & Teboulle 2009) with the fixed step 1/L and adaptive restart; a
regularisation path starts at ρ = 0.001 and grows ×1.2 with warm starts until every
weight vanishes; K-fold cross-validation chooses ρ. This module re-implements the method
from those descriptions (not from the GPL code).

Weights are reported on the original feature scale (``coef_``, ``intercept_``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.fitting.scaling import select_columns, standardize_features, unscale_weights

__all__ = [
    "IntervalRegression",
    "interval_regression_objective",
    "interval_regression_path",
    "squared_hinge",
]


def squared_hinge(x, margin: float = 1.0) -> np.ndarray:
    """The squared hinge φ(x) = (x − margin)² for x < margin, else 0.

    Examples
    --------
    >>> squared_hinge([-1.0, 0.5, 2.0]).tolist()
    [4.0, 0.25, 0.0]
    """
    x = np.asarray(x, dtype=float)
    return np.where(x < margin, (x - margin) ** 2, 0.0)


# --------------------------------------------------------------------------- solver


def _check_targets(targets, n: int) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(targets, pd.DataFrame):
        if {"min_log_lambda", "max_log_lambda"} <= set(targets.columns):
            T = targets[["min_log_lambda", "max_log_lambda"]].to_numpy(dtype=float)
        else:
            T = targets.to_numpy(dtype=float)
    else:
        T = np.asarray(targets, dtype=float)
    if T.ndim != 2 or T.shape[1] != 2:
        raise ValueError(
            "targets must have two columns (lower and upper limits of log λ), "
            f"got shape {T.shape}"
        )
    if T.shape[0] != n:
        raise ValueError(f"targets has {T.shape[0]} rows but features have {n} rows")
    lo, hi = T[:, 0], T[:, 1]
    if np.isnan(T).any():
        raise ValueError("targets must not contain NaN (use -inf/inf for missing limits)")
    if (lo == np.inf).any() or (hi == -np.inf).any() or (lo > hi).any():
        raise ValueError("targets must satisfy lower <= upper, lower < inf and upper > -inf")
    if not np.isfinite(lo).any():
        raise ValueError("targets have no finite lower limit, but need at least one")
    if not np.isfinite(hi).any():
        raise ValueError("targets have no finite upper limit, but need at least one")
    return lo, hi


def _loss_grad(pred, lo, hi, margin):
    """Mean squared-hinge loss and its gradient with respect to ``pred``."""
    n = len(pred)
    zl = pred - lo - margin  # -inf where lo = -inf
    zu = hi - pred - margin  # +inf... (hi = inf gives +inf)
    al = np.minimum(zl, 0.0)
    au = np.minimum(zu, 0.0)
    loss = (np.dot(al, al) + np.dot(au, au)) / n
    grad = 2.0 * (al - au) / n
    return loss, grad


def interval_regression_objective(
    Xs, targets, weights, intercept: float, regularization: float, margin: float = 1.0
) -> float:
    """Objective (mean squared hinge + ρ‖w‖₁) at standardised features ``Xs``.

    Examples
    --------
    >>> import numpy as np
    >>> interval_regression_objective(np.zeros((2, 1)), [[0.0, np.inf], [-np.inf, 0.0]],
    ...                               [0.0], 0.0, 0.1)
    1.0
    """
    Xs = np.asarray(Xs, dtype=float)
    lo, hi = _check_targets(targets, Xs.shape[0])
    w = np.asarray(weights, dtype=float)
    loss, _ = _loss_grad(Xs @ w + intercept, lo, hi, margin)
    return float(loss + regularization * np.abs(w).sum())


def _optimality(w, grad_w, grad_b, reg):
    """Largest violation of the subgradient optimality conditions."""
    nz = w != 0
    viol = np.where(nz, np.abs(grad_w + reg * np.sign(w)), np.maximum(np.abs(grad_w) - reg, 0))
    return max(abs(grad_b), float(viol.max()) if len(viol) else 0.0)


def _fista(Xs, lo, hi, reg, margin, w0, b0, L, tol, max_iterations):
    """FISTA with adaptive (gradient) restart on the L1 problem; returns w, b, iterations.

    Works on ``A = [1, Xs]`` and θ = (b, w) so that each iteration costs two products.
    """
    n = Xs.shape[0]
    A = np.column_stack([np.ones(n), Xs])
    At = np.ascontiguousarray(A.T)
    lo_m = lo + margin
    hi_m = hi - margin
    step = 1.0 / L
    thr = np.full(A.shape[1], step * reg)
    thr[0] = 0.0  # the intercept is not penalised
    theta = np.r_[b0, w0]
    y = theta.copy()
    t = 1.0
    scale = 2.0 / n
    it = 0
    # the same operations as pred = A @ y; g = min(pred - lo_m, 0) - min(hi_m - pred, 0),
    # in preallocated buffers (this loop runs tens of thousands of times per fit)
    pred, g, h = np.empty(n), np.empty(n), np.empty(n)
    for it in range(1, max_iterations + 1):
        np.matmul(A, y, out=pred)
        np.subtract(pred, lo_m, out=g)
        np.minimum(g, 0.0, out=g)
        np.subtract(hi_m, pred, out=h)
        np.minimum(h, 0.0, out=h)
        g -= h
        z = y - (step * scale) * (At @ g)
        new = np.sign(z) * np.maximum(np.abs(z) - thr, 0.0)
        diff = new - theta
        # restart momentum when it points uphill (O'Donoghue & Candes 2015)
        if np.dot(y - new, diff) > 0:
            t = 1.0
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        y = new + ((t - 1.0) / t_new) * diff
        theta, t = new, t_new
        if it % 20 == 0 or it == max_iterations:
            _, gp = _loss_grad(A @ theta, lo, hi, margin)
            if _optimality(theta[1:], Xs.T @ gp, float(gp.sum()), reg) < tol:
                break
    return theta[1:].copy(), float(theta[0]), it


def _lipschitz(Xs) -> float:
    A = np.column_stack([np.ones(Xs.shape[0]), Xs])
    smax = np.linalg.norm(A, 2)
    return 4.0 * smax * smax / Xs.shape[0]


def _solve_path(Xs, lo, hi, regs, margin, tol, max_iterations, stop_when_zero):
    """Warm-started solutions along ``regs`` (or growing ×factor, see caller)."""
    L = _lipschitz(Xs)
    p = Xs.shape[1]
    w = np.zeros(p)
    b = _intercept_only(lo, hi, margin)
    out = []
    for reg in regs:
        w, b, it = _fista(Xs, lo, hi, reg, margin, w, b, L, tol, max_iterations)
        out.append((reg, w.copy(), b, it))
        if stop_when_zero and not np.any(w):
            break
    return out


def _intercept_only(lo, hi, margin) -> float:
    """A starting intercept: the median of the finite target limits' midpoints."""
    mid = np.where(np.isfinite(lo) & np.isfinite(hi), (lo + hi) / 2, np.nan)
    mid = np.where(np.isfinite(lo) & ~np.isfinite(hi), lo + margin, mid)
    mid = np.where(~np.isfinite(lo) & np.isfinite(hi), hi - margin, mid)
    return float(np.nanmedian(mid)) if np.isfinite(mid).any() else 0.0


def interval_regression_path(
    X,
    targets,
    *,
    margin: float = 1.0,
    initial_regularization: float = 0.001,
    factor_regularization: float | None = 1.2,
    tol: float = 1e-5,
    max_iterations: int = 100_000,
    max_path: int = 500,
) -> pd.DataFrame:
    """Solutions of the L1 interval regression along a regularisation path.

    The path starts at ``initial_regularization`` and multiplies by
    ``factor_regularization`` after each solution (warm-starting the next) until all
    weights are 0; ``factor_regularization=None`` solves for one value only
    (``initial_regularization=0`` gives the unregularised fit). ``X`` must already be
    standardised (see :func:`standardize_features`).

    Returns
    -------
    DataFrame
        One row per regularisation: ``regularization, intercept, weights`` (an array of
        standardised-scale weights), ``nonzero``, ``iterations``, ``loss``, ``objective``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = X[:, 0] + rng.normal(scale=0.1, size=40)
    >>> path = interval_regression_path(X, np.column_stack([y - 1, y + 1]))
    >>> bool(path["nonzero"].iloc[-1] == 0), bool(path["nonzero"].iloc[0] >= 1)
    (True, True)
    """
    Xs = np.asarray(X, dtype=float)
    if Xs.ndim != 2 or not np.all(np.isfinite(Xs)):
        raise ValueError("X must be a finite 2-d array (standardise it first)")
    lo, hi = _check_targets(targets, Xs.shape[0])
    if not (np.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite non-negative number, got {margin!r}")
    if initial_regularization < 0:
        raise ValueError("initial_regularization must be >= 0")
    if factor_regularization is None:
        regs = [initial_regularization]
    else:
        if not factor_regularization > 1 or initial_regularization <= 0:
            raise ValueError(
                "a path needs factor_regularization > 1 and initial_regularization > 0"
            )
        regs = initial_regularization * factor_regularization ** np.arange(max_path)
    sols = _solve_path(
        Xs, lo, hi, regs, margin, tol, max_iterations, factor_regularization is not None
    )
    rows = []
    for reg, w, b, it in sols:
        loss, _ = _loss_grad(Xs @ w + b, lo, hi, margin)
        rows.append(
            {
                "regularization": float(reg),
                "intercept": b,
                "weights": w,
                "nonzero": int(np.count_nonzero(w)),
                "iterations": it,
                "loss": float(loss),
                "objective": float(loss + reg * np.abs(w).sum()),
            }
        )
    return pd.DataFrame(rows)


def _validation_metrics(Xv, lo, hi, w, b, margin) -> tuple[float, float, int]:
    pred = Xv @ w + b
    loss, _ = _loss_grad(pred, lo, hi, margin)
    mse, _ = _loss_grad(pred, lo, hi, 0.0)
    incorrect = int(np.sum((pred < lo) | (pred > hi)))
    return float(loss), float(mse), incorrect


class IntervalRegression:
    """L1-regularised squared-hinge interval regression with CV choice of the regulariser.

    Parameters
    ----------
    regularization : float or None
        Fixed ρ; ``None`` (default) chooses it by ``n_folds``-fold cross-validation over
        the path ``initial_regularization × factor_regularization^k``.
    margin : float
        Hinge margin (1, as ``IntervalRegressionCV``).
    initial_regularization, factor_regularization : float
        The path (0.001, ×1.2 until every weight vanishes).
    n_folds : int
        Number of CV folds (5, or 3 below 10 rows), drawn at random as
        ``IntervalRegressionCV`` does unless ``fold`` is given to :meth:`fit`.
    tol : float
        Stop FISTA on the CV paths when the largest violation of the subgradient
        optimality conditions is below ``tol`` (1e-3, penaltyLearning's threshold).
    final_tol : float
        The same criterion for the final fit at the chosen regulariser.
    random_state : int, Generator or None
        Seed of the random CV folds.

    Attributes
    ----------
    coef_ : Series
        Weights on the original feature scale, indexed by the kept feature names.
    intercept_ : float
    regularization_ : float
        The ρ used for the final fit.
    scaling_ : FeatureScaling
        Kept columns, means and SDs; ``scaling_.dropped`` lists the dropped columns.
    cv_results_ : DataFrame or None
        Per regularisation: mean validation ``squared_hinge``, ``mse`` (margin 0) and
        ``incorrect_intervals`` (predictions outside the target), over the folds.

    Notes
    -----
    CV selects the ρ with the fewest mean incorrect validation intervals, ties broken by
    the smaller mean validation squared hinge loss (penaltyLearning's ``reg.type="min"``
    counts incorrect intervals; the tie rule is ours). The final model is refit on all
    rows at that ρ, cold-started, as ``IntervalRegressionCV`` does.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(60, 3)); y = 2 * X[:, 0] + 1
    >>> m = IntervalRegression(random_state=0).fit(X, np.column_stack([y - 0.5, y + 0.5]))
    >>> bool(abs(m.coef_.iloc[0] - 2) < 0.2), bool(np.mean(abs(m.predict(X) - y)) < 0.3)
    (True, True)
    """

    def __init__(
        self,
        regularization: float | None = None,
        *,
        margin: float = 1.0,
        initial_regularization: float = 0.001,
        factor_regularization: float = 1.2,
        n_folds: int | None = None,
        tol: float = 1e-3,
        final_tol: float = 1e-6,
        max_iterations: int = 100_000,
        random_state=None,
    ) -> None:
        self.regularization = regularization
        self.margin = margin
        self.initial_regularization = initial_regularization
        self.factor_regularization = factor_regularization
        self.n_folds = n_folds
        self.tol = tol
        self.final_tol = final_tol
        self.max_iterations = max_iterations
        self.random_state = random_state

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters (scikit-learn style)."""
        return {
            k: getattr(self, k)
            for k in (
                "regularization",
                "margin",
                "initial_regularization",
                "factor_regularization",
                "n_folds",
                "tol",
                "final_tol",
                "max_iterations",
                "random_state",
            )
        }

    def set_params(self, **params) -> IntervalRegression:
        """Set constructor parameters (scikit-learn style)."""
        valid = self.get_params()
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"invalid parameter {k!r}; valid: {sorted(valid)}")
            setattr(self, k, v)
        return self

    def fit(self, X, targets, fold=None) -> IntervalRegression:
        """Fit on features ``X`` and targets (n × 2 lower/upper log λ, or a DataFrame
        with ``min_log_lambda, max_log_lambda``). Rows whose limits are both infinite
        carry no information and are dropped. ``fold`` gives the CV fold of each row."""
        if isinstance(X, pd.DataFrame) and isinstance(targets, pd.DataFrame):
            if not X.index.equals(targets.index):
                raise ValueError("X and targets must have the same index (sequence ids)")
        n = len(X)
        lo, hi = _check_targets(targets, n)
        keep = np.isfinite(lo) | np.isfinite(hi)
        Xk = X.iloc[np.flatnonzero(keep)] if isinstance(X, pd.DataFrame) else np.asarray(X)[keep]
        lo, hi = lo[keep], hi[keep]
        self.scaling_ = standardize_features(Xk)
        Xs = self.scaling_.transform(Xk)
        if self.regularization is None:
            fold_vec = self._folds(fold, keep)
            reg, self.cv_results_ = self._cross_validate(Xs, lo, hi, fold_vec)
        else:
            reg, self.cv_results_ = float(self.regularization), None
        path = interval_regression_path(
            Xs,
            np.column_stack([lo, hi]),
            margin=self.margin,
            initial_regularization=reg,
            factor_regularization=None,
            tol=self.final_tol,
            max_iterations=self.max_iterations,
        )
        row = path.iloc[0]
        self.regularization_ = reg
        self.weights_scaled_ = np.asarray(row["weights"])
        self.intercept_scaled_ = float(row["intercept"])
        self.objective_ = float(row["objective"])
        w, self.intercept_ = unscale_weights(self.weights_scaled_, self.intercept_scaled_,
                                             self.scaling_.mean, self.scaling_.scale)
        self.coef_ = pd.Series(w, index=list(self.scaling_.columns), name="coef")
        return self

    def _folds(self, fold, keep) -> np.ndarray:
        n = int(keep.sum())
        if fold is not None:
            f = np.asarray(fold)
            if len(f) != len(keep):
                raise ValueError(f"fold has length {len(f)}, expected {len(keep)}")
            return f[keep]
        k = self.n_folds or (3 if n < 10 else 5)
        rng = np.random.default_rng(self.random_state)
        return rng.permutation(np.arange(n) % k) + 1

    def _cross_validate(self, Xs, lo, hi, fold_vec):
        folds = np.unique(fold_vec)
        if len(folds) < 2:
            raise ValueError("cross-validation needs at least 2 folds")
        records = []
        for f in folds:
            tr = fold_vec != f
            lo_t, hi_t = lo[tr], hi[tr]
            if not (np.isfinite(lo_t).any() and np.isfinite(hi_t).any()):
                raise ValueError(
                    f"the training part of CV fold {f} has no lower or no upper limit"
                )
            path = interval_regression_path(
                Xs[tr],
                np.column_stack([lo_t, hi_t]),
                margin=self.margin,
                initial_regularization=self.initial_regularization,
                factor_regularization=self.factor_regularization,
                tol=self.tol,
                max_iterations=self.max_iterations,
            )
            for k, row in enumerate(path.itertuples()):
                sh, mse, inc = _validation_metrics(
                    Xs[~tr], lo[~tr], hi[~tr], row.weights, row.intercept, self.margin
                )
                records.append((f, k, row.regularization, sh, mse, inc))
        df = pd.DataFrame(
            records,
            columns=["fold", "step", "regularization", "squared_hinge", "mse", "incorrect"],
        )
        # paths of different folds stop at different lengths: extend each by its last
        # (all-zero) solution so every fold has every regularisation of the longest path
        n_steps = int(df["step"].max()) + 1
        full = []
        for _f, g in df.groupby("fold"):
            g = g.set_index("step").reindex(range(n_steps)).ffill()
            full.append(g)
        allf = pd.concat(full).reset_index()
        regs = self.initial_regularization * self.factor_regularization ** np.arange(n_steps)
        cv = allf.groupby("step").agg(
            squared_hinge=("squared_hinge", "mean"),
            squared_hinge_sd=("squared_hinge", "std"),
            mse=("mse", "mean"),
            incorrect_intervals=("incorrect", "mean"),
        )
        cv.insert(0, "regularization", regs[cv.index.to_numpy()])
        cv = cv.reset_index(drop=True)
        best = cv.sort_values(
            ["incorrect_intervals", "squared_hinge", "regularization"], kind="stable"
        ).index[0]
        cv["selected"] = cv.index == best
        return float(cv.loc[best, "regularization"]), cv

    def predict(self, X) -> np.ndarray:
        """Predicted log λ for the rows of ``X`` (needs the kept feature columns)."""
        if not hasattr(self, "coef_"):
            raise ValueError("this IntervalRegression is not fitted yet; call fit() first")
        A = select_columns(X, self.scaling_.columns)
        if not np.all(np.isfinite(A)):
            raise ValueError("X has non-finite values in the model's feature columns")
        return A @ self.coef_.to_numpy() + self.intercept_
