"""Linear binary classifiers trained by AUM gradient descent (learn_penalty's engine).

Binary labels give breakpoints at v = 0 (Hillman & Hocking 2023); the descent is
:func:`penlearn.fitting.descent.descend` with the exact line search of Fowler & Hocking
(2024), and the result is the package's one binary model type,
:class:`~penlearn.binary.model.BinaryLinearModel`.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from penlearn._folds import alternate_split, singletons
from penlearn._warnings import caller_stacklevel
from penlearn.aum import aum
from penlearn.binary.model import BinaryLinearModel, _Standardizer
from penlearn.breakpoints import breakpoints_from_labels
from penlearn.fitting.descent import (
    check_classes,
    descend,
    descent_options,
    initial_weights,
)
from penlearn.fitting.scaling import scale_weights
from penlearn.roc import breakpoints_auc, min_error_shift

__all__ = ["fit_aum_linear"]


def _as_matrix(A, what: str) -> np.ndarray:
    arr = np.asarray(A.to_numpy(dtype=float) if isinstance(A, pd.DataFrame) else A, float)
    if arr.ndim != 2:
        raise ValueError(f"{what} must be 2-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        r, c = np.argwhere(~np.isfinite(arr))[0]
        col = A.columns[c] if isinstance(A, pd.DataFrame) else int(c)
        raise ValueError(
            f"{what} has non-finite values (NaN or inf), e.g. row {int(r)}, column {col!r}; "
            "impute or drop them before fitting"
        )
    return arr


def _split(X, y, validation):
    Xa = _as_matrix(X, "X")
    ya = np.asarray(y)
    if len(ya) != len(Xa):
        raise ValueError(f"X has {len(Xa)} rows but y has {len(ya)} labels")
    if validation is None:  # rows alternately subtrain / validation (penlearn._folds)
        sub, val = alternate_split(singletons(range(len(Xa)))) if len(Xa) > 1 else \
            ([0] * len(Xa), [])
        return Xa[sub], ya[sub], Xa[val], ya[val]
    if not (isinstance(validation, tuple) and len(validation) == 2):
        raise TypeError("validation must be an (X, y) pair")
    Xv, yv = _as_matrix(validation[0], "validation X"), np.asarray(validation[1])
    if Xv.shape[1] != Xa.shape[1] or len(yv) != len(Xv):
        raise ValueError("validation X must have X's columns and one label per row")
    return Xa, ya, Xv, yv


def _start(init, st: _Standardizer, p: int, rng, names):
    """Starting weights and intercept on the standardised scale."""
    if isinstance(init, BinaryLinearModel):  # warm start from a fitted binary model
        if init.n_features_in_ != p:
            raise ValueError(f"init model has {init.n_features_in_} features, X has {p}")
        if names is not None and init.feature_names_ not in (None, names):
            raise ValueError("init model's feature names differ from X's columns")
        w0, b0 = scale_weights(init.coef_, init.intercept_, st.mean, st.sd)
        return w0, b0, "model"
    w = initial_weights(init, p, rng)
    if w is None:
        raise ValueError(
            f"init must be 'zero', 'random', a fitted BinaryLinearModel or an array of "
            f"weights, got {init!r}"
        )
    w0, b0 = (w[1:], float(w[0])) if len(w) == p + 1 else (w, 0.0)
    return w0, b0, init if isinstance(init, str) else "weights"


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
) -> BinaryLinearModel:
    """Linear binary classifier trained by AUM gradient descent.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, p)
        Features of the subtrain examples.
    y : array-like
        Labels in {0, 1} (or {−1, 1}).
    validation : (X, y), optional
        Validation examples; the returned iterate maximises their ROC AUC. Without it
        the examples are split alternately subtrain/validation.
    line_search, normalize, max_steps, tol, random_state, progress
        As in :func:`penlearn.learn_penalty`.
    init : str, BinaryLinearModel or array
        ``"random"`` (standard normal weights, as in the paper's binary experiments),
        ``"zero"``, a fitted model (warm start) or weights on the standardised
        features. At zero weights every score ties, the AUM is 0 and gradient descent
        cannot move: use ``"random"``.

    Returns
    -------
    BinaryLinearModel
        ``method="aum"``; ``history_`` has one row per step, ``best_step_`` is the
        returned iterate; the intercept minimises subtrain errors. Constant columns get
        weight 0 and are listed in ``dropped_features_``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2)); y = (X[:, 1] > 0).astype(int)
    >>> m = fit_aum_linear(X, y, random_state=0, progress=False)
    >>> bool(m.history_["validation_auc"].iloc[m.best_step_] > 0.95)
    True
    """
    t0 = time.perf_counter()
    descent_options(line_search, normalize, max_steps, tol)
    names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    Xs_raw, ys, Xv_raw, yv = _split(X, y, validation)
    st = _Standardizer(np.vstack([Xs_raw, Xv_raw]))
    dropped = [names[j] if names else f"x{j}" for j in np.flatnonzero(st.constant)]
    if dropped:
        warnings.warn(f"fit_aum_linear: constant feature column(s) {dropped} get weight 0",
                      UserWarning, stacklevel=caller_stacklevel())
    X_sub, X_val = st(Xs_raw), st(Xv_raw)
    bp_sub = breakpoints_from_labels(ys)
    check_classes(bp_sub, "subtrain")
    bp_sub = bp_sub.normalize(normalize)
    bp_val = breakpoints_from_labels(yv)
    check_classes(bp_val, "validation")
    bp_val = bp_val.normalize(normalize)
    rng = np.random.default_rng(random_state)
    w0, b0, how = _start(init, st, X_sub.shape[1], rng, names)
    w0 = np.where(st.constant, 0.0, w0)

    def evaluate(w):
        s_val = X_val @ w
        return breakpoints_auc(bp_sub, X_sub @ w), aum(bp_val, s_val).aum, \
            breakpoints_auc(bp_val, s_val)

    res = descend(X_sub, bp_sub, w0, b0, variant=line_search, max_steps=max_steps, tol=tol,
                  evaluate=evaluate, progress=progress)
    w_best = res.weights[res.best]
    b_best = b0 + min_error_shift(bp_sub, X_sub @ w_best + b0)
    coef, intercept = st.unscale(w_best, b_best)
    params = {"line_search": line_search, "normalize": normalize, "init": how,
              "max_steps": max_steps, "tol": tol,
              "random_state": random_state if isinstance(random_state, int) else None}
    return BinaryLinearModel(coef, intercept, "aum", params, res.history,
                             time.perf_counter() - t0, names, dropped, res.best)
