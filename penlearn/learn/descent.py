"""The AUM gradient-descent core: a plain function on arrays, returning a frozen result.

Both learners are built on :func:`descend`: :func:`penlearn.learn_penalty` (log λ of
changepoint models from error functions) and :func:`penlearn.fit_aum_linear` (binary
labels). Each step goes in the direction −Xᵀḡ, with ḡ the mean of the left and right
directional derivatives of the subtrain AUM (Hillman & Hocking 2023), and takes the step
size chosen by the exact AUM line search (Fowler & Hocking 2024, Section 4) or by a grid
of step sizes; descent stops when the subtrain AUM decreases by no more than ``tol``.
The intercept changes neither AUM nor AUC, so it is not updated here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn.aum import aum, threshold_groups
from penlearn.breakpoints import Breakpoints
from penlearn.line_search import choose_step, descent_should_stop

__all__ = [
    "HISTORY_COLUMNS",
    "LINE_SEARCHES",
    "Descent",
    "check_classes",
    "descend",
    "initial_weights",
    "min_error_shift",
]

LINE_SEARCHES = ("first_min", "linear", "quadratic", "max_auc", "grid")
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


@dataclass(frozen=True)
class Descent:
    """The result of :func:`descend`.

    Attributes
    ----------
    history : DataFrame
        One row per recorded iterate (step 0 included): ``HISTORY_COLUMNS``.
    weights : tuple of ndarray
        The weights of every recorded iterate.
    best : int
        The iterate with the largest validation AUC (the first on ties).
    """

    history: pd.DataFrame
    weights: tuple
    best: int


def check_options(line_search_: str, normalize: str, max_steps, tol) -> None:
    """Raise a ``ValueError`` naming the first invalid learning option.

    Examples
    --------
    >>> check_options("first_min", "rate", 10, 1e-5)
    """
    if line_search_ not in LINE_SEARCHES:
        raise ValueError(f"line_search must be one of {LINE_SEARCHES}, got {line_search_!r}")
    if normalize not in ("rate", "count"):
        raise ValueError(f"normalize must be 'rate' or 'count', got {normalize!r}")
    if not (isinstance(max_steps, (int, np.integer)) and max_steps >= 0):
        raise ValueError(f"max_steps must be a non-negative int, got {max_steps!r}")
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")


def check_classes(bp: Breakpoints, what: str) -> None:
    """Raise a ``ValueError`` unless ``bp`` has both possible FP and possible FN.

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> check_classes(breakpoints_from_labels([0, 1]), "subtrain")
    """
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


def initial_weights(init, p: int, rng: np.random.Generator) -> np.ndarray | None:
    """Starting weights for ``init`` = ``"zero"``, ``"random"`` or an array; else None.

    An array holds ``p`` weights or the intercept followed by ``p`` weights.

    Examples
    --------
    >>> initial_weights("zero", 2, np.random.default_rng(0)).tolist()
    [0.0, 0.0]
    """
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


def min_error_shift(bp: Breakpoints, scores: np.ndarray) -> float:
    """The constant c minimising FP + FN of ``scores + c`` on ``bp``.

    The rule of Fowler & Hocking (2024) for the intercept: the first minimum among the
    thresholds {first − 1, midpoints, last + 1}.

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> min_error_shift(breakpoints_from_labels([0, 1]), np.array([0.0, 1.0]))
    -0.5
    """
    if len(bp) == 0:
        return 0.0
    t = bp.value - scores[bp.example]
    _, _, tt, fp_b, fn_b, fp_a, fn_a = threshold_groups(t, bp.fp_diff, bp.fn_diff)
    err = np.r_[fp_b[0] + fn_b[0], fp_a + fn_a]
    cand = np.r_[tt[0] - 1.0, (tt[:-1] + tt[1:]) / 2.0, tt[-1] + 1.0]
    return float(cand[int(np.argmin(err))])


def descend(
    X: np.ndarray,
    bp: Breakpoints,
    w0: np.ndarray,
    b0: float,
    *,
    variant: str,
    max_steps: int,
    tol: float,
    evaluate: Callable[[np.ndarray], tuple[float, float, float]],
    progress: bool = False,
) -> Descent:
    """AUM gradient descent on the weights of scores ``X @ w + b0``.

    Parameters
    ----------
    X : ndarray, shape (n, p)
        Standardised subtrain features.
    bp : Breakpoints
        Subtrain breakpoints (one example per row of ``X``).
    w0, b0
        Starting weights and intercept.
    variant : str
        One of ``LINE_SEARCHES``.
    max_steps : int
        Upper bound on gradient steps.
    tol : float
        Stop when the subtrain AUM decreases by no more than ``tol``.
    evaluate : callable
        ``evaluate(w)`` → (subtrain AUC, validation AUM, validation AUC).
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    Descent
        Every recorded iterate (the last, non-improving step included, as in the
        script of Fowler & Hocking 2024) and the best by validation AUC.

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> X = np.array([[1.0], [-1.0], [0.5], [-0.5]])
    >>> bp = breakpoints_from_labels([1, 0, 1, 0])
    >>> ev = lambda w: (0.0, 0.0, float(w[0]))
    >>> d = descend(X, bp, np.array([-1.0]), 0.0, variant="first_min", max_steps=5,
    ...             tol=1e-9, evaluate=ev)
    >>> h = d.history
    >>> int(h["step"].iloc[-1]) >= 1, d.best == int(h["validation_auc"].to_numpy().argmax())
    (True, True)
    """
    bar = None
    if progress:
        from tqdm.auto import tqdm  # only when a bar is asked for

        bar = tqdm(desc=f"AUM GD ({variant})", unit="step", leave=False)
    start = time.perf_counter()
    w = np.array(w0, dtype=float)
    scores = X @ w + b0
    cur = aum(bp, scores)
    rows, weights = [], [w.copy()]
    sub_auc, v_aum, v_auc = evaluate(w)
    rows.append((0, 0.0, cur.aum, sub_auc, v_aum, v_auc, 0, time.perf_counter() - start))
    prev, prev_auc, s = np.inf, -np.inf, np.inf
    step = 0
    try:
        while step < max_steps and not descent_should_stop(
            variant, prev, cur.aum, s, tol, prev_auc, sub_auc
        ):
            d = -(X.T @ cur.derivatives.mean(axis=1))
            if not np.any(d):
                break
            # the step rule of the variant (exact line search or grid), and its events
            s, events = choose_step(variant, bp, scores, X @ d)
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
    history = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    best = int(np.argmax(history["validation_auc"].to_numpy()))
    return Descent(history, tuple(weights), best)
