"""The exact penalty path: which model minimises loss + λ·complexity, for every λ >= 0.

Given models with losses L_i and complexities c_i (e.g. the optimal loss with k segments
and k), the selected model for penalty λ is argmin_i L_i + λ c_i. As λ grows from 0 to
∞ the selection moves from the most complex useful model to the least complex one; the
selected models are the vertices of the lower convex hull of the points (c_i, L_i), and
the model changes at the breakpoints λ = (L_i − L_j) / (c_j − c_i) between consecutive
hull vertices (Hocking et al. 2013, ICML, "Learning sparse penalties for change-point
detection using max margin interval regression", Section 2; Hillman & Hocking 2023,
Section 2).

Semantics follow ``penaltyLearning::modelSelection`` (checked against its outputs): among
models of equal complexity only the smallest loss (the last such row on exact ties) can
be selected; a model whose loss is not strictly below the loss of every simpler model is
never selected; when several models are reached at the same breakpoint, only the most
complex of them is kept, so that models chosen at a single λ only are dropped.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PATH_COLUMNS = ("min_lambda", "max_lambda", "min_log_lambda", "max_log_lambda")


def _as_vector(x, name: str, n: int | None = None) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric") from exc
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if len(arr) == 0:
        raise ValueError(f"{name} must have at least one model")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN/inf), got {arr[~np.isfinite(arr)][0]}")
    if n is not None and len(arr) != n:
        raise ValueError(f"{name} has {len(arr)} values; expected {n} (one per model)")
    return arr


def selection_path(loss: np.ndarray, complexity: np.ndarray):
    """Core of :func:`model_selection` on validated float arrays.

    Returns
    -------
    selected : ndarray of int
        Input positions of the selected models, most complex first.
    min_lambda, max_lambda : ndarray of float
        The interval (min_lambda, max_lambda) of penalties selecting each model.

    Examples
    --------
    >>> sel, lo, hi = selection_path(np.array([3.0, 1.0, 0.5]), np.array([1.0, 2.0, 3.0]))
    >>> sel.tolist(), lo.tolist(), hi.tolist()
    ([2, 1, 0], [0.0, 0.5, 2.0], [0.5, 2.0, inf])
    """
    n = len(loss)
    # sort by complexity, then loss decreasing, then input position decreasing, so that the
    # last row of each complexity is its best model (smallest loss, last input row on ties)
    order = np.lexsort((-np.arange(n), -loss, complexity))
    c = complexity[order]
    L = loss[order]
    last_of_c = np.r_[c[1:] != c[:-1], True]
    order, c, L = order[last_of_c], c[last_of_c], L[last_of_c]
    # a model can only be selected when its loss is strictly below every simpler model's
    prev_min = np.minimum.accumulate(np.r_[np.inf, L[:-1]])
    keep = L < prev_min
    order, c, L = order[keep], c[keep], L[keep]
    sel = [0]
    breaks = [np.inf]
    i = 0
    m = len(L)
    while i < m - 1:
        lam = (L[i] - L[i + 1 :]) / (c[i + 1 :] - c[i])
        best = lam.max()  # the first model to beat model i as λ decreases
        # among models reached at the same breakpoint keep the most complex one
        j = i + 1 + int(np.flatnonzero(lam == best)[-1])
        if best == breaks[-1] and len(sel) > 1:
            # the current model would be selected at a single λ only: drop it
            sel.pop()
            breaks.pop()
        sel.append(j)
        breaks.append(best)
        i = j
    sel_arr = order[np.array(sel)][::-1]
    # contiguous, like min_lambda: np.log of a reversed view can differ in the last bit from
    # np.log of the same values in a contiguous array, which would open a gap between the
    # log λ intervals of consecutive models
    max_lambda = np.ascontiguousarray(np.array(breaks)[::-1])
    min_lambda = np.r_[0.0, max_lambda[:-1]]
    return sel_arr, min_lambda, max_lambda


def _log(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(x)


def model_selection(loss, complexity, models: pd.DataFrame | None = None) -> pd.DataFrame:
    """Exact path of the model minimising loss + λ·complexity over λ >= 0.

    Parameters
    ----------
    loss, complexity : array_like or str
        One value per model; or, when ``models`` is given, column names of ``models``.
    models : DataFrame, optional
        The models table; its selected rows are returned with all their columns.

    Returns
    -------
    DataFrame
        One row per selected model, from the most complex (``min_lambda`` = 0) to the
        least complex (``max_lambda`` = inf): ``min_lambda, max_lambda, min_log_lambda,
        max_log_lambda``, ``input_row`` (0-based position of the model in the input),
        then the model's columns (``loss, complexity`` when ``models`` is not given).
        The index holds the input index labels of the selected models. The model is
        selected for λ in (min_lambda, max_lambda).

    Examples
    --------
    >>> path = model_selection([10.0, 4.0, 3.5, 1.0], [1, 2, 3, 4])
    >>> path[["min_lambda", "max_lambda", "complexity"]].values.tolist()
    [[0.0, 1.5, 4.0], [1.5, 6.0, 2.0], [6.0, inf, 1.0]]
    """
    if models is not None:
        if not isinstance(models, pd.DataFrame):
            raise TypeError(f"models must be a pandas DataFrame, got {type(models).__name__}")
        for arg, name in ((loss, "loss"), (complexity, "complexity")):
            if not isinstance(arg, str) or arg not in models.columns:
                raise ValueError(
                    f"{name} must be a column name of models; got {arg!r}, "
                    f"columns are {list(models.columns)}"
                )
        table = models
        loss_v = _as_vector(models[loss].to_numpy(), f"models[{loss!r}]")
        comp_v = _as_vector(models[complexity].to_numpy(), f"models[{complexity!r}]")
    else:
        loss_v = _as_vector(loss, "loss")
        comp_v = _as_vector(complexity, "complexity", len(loss_v))
        table = pd.DataFrame({"loss": loss_v, "complexity": np.asarray(complexity)})
    if len(loss_v) == 0:
        raise ValueError("models must have at least one row")
    sel, lo, hi = selection_path(loss_v, comp_v)
    out = table.iloc[sel].copy()
    front = pd.DataFrame(
        {
            "min_lambda": lo,
            "max_lambda": hi,
            "min_log_lambda": _log(lo),
            "max_log_lambda": _log(hi),
            "input_row": sel,
        },
        index=out.index,
    )
    dup = [c for c in front.columns if c in out.columns]
    return pd.concat([front, out.drop(columns=dup)], axis=1)


def bic_log_lambda(sequences: pd.DataFrame) -> pd.Series:
    """BIC-like unsupervised penalty, log λ = log(2 σ̂² log n) per sequence.

    σ̂ is the MAD estimate of the noise SD from first differences (robust to the
    changes); λ = 2σ̂² log n is Schwarz's criterion for a Gaussian change in mean in
    units of the square loss (two parameters per change: position and mean) (Schwarz
    1978; Yao 1988).

    Parameters
    ----------
    sequences : DataFrame
        Long table ``sequence_id, position, value``.

    Returns
    -------
    Series
        ``log_lambda`` indexed by sequence id.

    Examples
    --------
    >>> import pandas as pd
    >>> seqs = pd.DataFrame({"sequence_id": "a", "position": range(1, 7),
    ...                      "value": [0.0, 0.1, -0.1, 5.0, 5.1, 4.9]})
    >>> bool(bic_log_lambda(seqs).loc["a"] < 0)
    True
    """
    out = {}
    for sid, grp in sequences.groupby("sequence_id", sort=False):
        v = grp["value"].to_numpy(dtype=float)
        d = np.diff(v)
        mad = np.median(np.abs(d - np.median(d))) * 1.4826 / np.sqrt(2) if len(d) else 0.0
        if not mad > 0:
            mad = float(np.std(v)) or 1.0
        out[sid] = float(np.log(2 * mad**2 * np.log(max(len(v), 2))))
    return pd.Series(out, name="log_lambda")
