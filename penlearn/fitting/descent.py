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

from penlearn._checks import check_choice, check_integer, check_number
from penlearn.aum import aum
from penlearn.breakpoints import Breakpoints
from penlearn.line_search import (
    GRID_STEP_SIZES,
    aum_path,
    breakpoint_lines,
    choose_step,
    descent_should_stop,
)
from penlearn.line_search.nth_event import nth_event

__all__ = [
    "HISTORY_COLUMNS",
    "LINE_SEARCHES",
    "Descent",
    "check_classes",
    "descent_options",
    "NORMALIZES",
    "descend",
    "initial_weights",
    "l2_step",
    "SELECTIONS",
    "select_iterate",
]

LINE_SEARCHES = ("first_min", "linear", "quadratic", "max_auc", "grid")
SELECTIONS = ("validation_auc", "validation_aum", "last")
NORMALIZES = ("rate", "count")
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
        The selected iterate (:func:`select_iterate`; by default the largest validation
        AUC, the first on ties).
    """

    history: pd.DataFrame
    weights: tuple
    best: int


def descent_options(line_search_: str, normalize: str, max_steps, tol) -> None:
    """Check the options every descent takes (``learn_penalty`` through
    :func:`penlearn.learn.options.learn_options`, ``fit_aum_linear`` directly): a
    ``ValueError`` names the first invalid one.

    Examples
    --------
    >>> descent_options("first_min", "rate", 10, 1e-5)
    >>> descent_options("first_min", "rate", True, 1e-5)
    Traceback (most recent call last):
    ...
    ValueError: max_steps must be an integer >= 0, got True
    """
    check_choice("line_search", line_search_, LINE_SEARCHES)
    check_choice("normalize", normalize, NORMALIZES)
    check_integer("max_steps", max_steps, 0)
    check_number("tol", tol, 0.0)


def check_classes(bp: Breakpoints, what: str, hint: str = "") -> None:
    """Raise a ``ValueError`` unless ``bp`` has both possible FP and possible FN.

    ``hint`` ends the message (e.g. what to do when the error functions are bounded).

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> check_classes(breakpoints_from_labels([0, 1]), "subtrain")
    """
    if len(bp) == 0:
        raise ValueError(
            f"the {what} set has no labels (no changes of FP/FN with the penalty): "
            f"nothing to learn from{hint}"
        )
    if not bp.fp_total > 0:
        raise ValueError(
            f"the {what} set has only one class: no false positive is possible "
            f"(no negative labels / sum of fp jumps is 0){hint}"
        )
    if not bp.fn_total > 0:
        raise ValueError(
            f"the {what} set has only one class: no false negative is possible "
            f"(no positive labels / sum of fn jumps is 0){hint}"
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


def l2_step(bp: Breakpoints, scores, slopes, w, d, l2: float, guess: float | None = None
            ) -> tuple[float, int]:
    """Step size minimising AUM(s) + (l2/2)·‖w + s·d‖² over the first B line-search events.

    The exact line search gives AUM(s) as a piecewise linear function of s (one piece
    between consecutive events); adding the quadratic penalty, each piece has its minimum
    in closed form, so the step is exact over the explored events (B of them, the
    ``"linear"`` rule of Fowler & Hocking 2024; :func:`~penlearn.line_search.aum_path`).
    When that objective provably decreases all the way to the B-th event
    (:func:`_l2_step_at_end`) the step is that event's, found without the path (the same
    float); ``guess`` (a step a little past it, e.g. from the last descent step) only saves
    work.

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> scores, slopes = np.array([1.0, 0.0]), np.array([-1.0, 0.0])  # AUM = max(0, 1 - s)
    >>> w, d = np.array([-1.0]), np.array([-1.0])  # penalty (l2/2)(1 + s)^2
    >>> l2_step(bp, scores, slopes, w, d, 0.0)[0], l2_step(bp, scores, slopes, w, d, 0.8)[0]
    (1.0, 0.25)
    """
    at_end = _l2_step_at_end(bp, scores, slopes, w, d, l2, guess)
    if at_end is not None:
        return at_end
    path = aum_path(bp, scores, slopes)  # the "linear" rule's events, by brackets
    s = path["step_size"].to_numpy(float)
    a = path["aum"].to_numpy(float)
    slope = path["aum_slope_after"].to_numpy(float)
    wd, dd, ww = float(w @ d), float(d @ d), float(w @ w)
    hi = np.r_[s[1:], s[-1]]
    if l2 > 0:
        t = np.clip(-(slope / l2 + wd) / dd, s, hi)
    else:  # a linear piece: its lower end
        t = np.where(slope < 0, hi, s)
    f = a + slope * (t - s) + 0.5 * l2 * (ww + 2.0 * t * wd + t * t * dd)
    return float(t[int(np.argmin(f))]), len(s) - 1


def _l2_step_at_end(bp: Breakpoints, scores, slopes, w, d, l2: float,
                    guess: float | None) -> tuple[float, int] | None:
    """:func:`l2_step`'s result when f(s) = AUM(s) + (l2/2)·‖w + s·d‖² decreases up to the
    B-th event s_B, else None.

    f' ≤ (a bound of the AUM slope over (0, s_B]) + l2·(w·d + s_B·d·d): when that is
    negative by more than rounding (the AUM slope bound padded by 1e-9 of its scale) f
    falls strictly through the path, so the minimum over the B events — the path's last
    piece, clipped at its end — is at s_B, and every earlier piece's minimum exceeds it by
    at least gap·(s_B − its end). That margin is required to exceed the rounding of the
    path's cumulative AUM sums (4ε per event on the size of AUM, the slope over the path and
    the penalty), so the walk's own comparison, in floating point, picks s_B too; and
    s_B is the B-th event's step computed as the walk computes it
    (:func:`~penlearn.line_search.nth_event.nth_event`). With the default ridge (l2 = 0.1)
    every step of the linear model on the 17 ChIP-seq sets pooled ends here
    (``benchmarks/fit_speed.py``).
    """
    if not l2 >= 0:
        return None
    ev = nth_event(*breakpoint_lines(bp, scores, slopes), guess=guess)
    if ev is None:
        return None
    steps = ev.steps
    s_b = float(steps[-1])
    wd, dd, ww = float(w @ d), float(d @ d), float(w @ w)
    gap = -(ev.slope_max + 1e-9 * ev.scale + l2 * (wd + s_b * dd))
    if not gap > 0:
        return None
    n = len(steps)
    q_max = 0.5 * l2 * (ww + 2.0 * s_b * abs(wd) + s_b * s_b * dd)
    size = ev.aum + s_b * ev.scale + q_max  # bounds |AUM|, |slope·Δs| and the penalty
    rounding = 4.0 * np.finfo(float).eps * size
    if n > 1 and not np.all(gap * (s_b - steps[:-1]) > (n - np.arange(1, n) + 2) * rounding):
        return None
    return s_b, n


def _l2_grid_step(bp: Breakpoints, scores, slopes, w, d, l2: float) -> tuple[float, int]:
    """The step of ``GRID_STEP_SIZES`` minimising AUM + (l2/2)·‖w + s·d‖² (the smallest
    on ties), or 0 when none improves on the current point."""
    f0 = aum(bp, scores).aum + 0.5 * l2 * float(w @ w)
    f = [aum(bp, scores + st * slopes).aum + 0.5 * l2 * float((w + st * d) @ (w + st * d))
         for st in GRID_STEP_SIZES]
    i = int(np.argmin(f))
    return (float(GRID_STEP_SIZES[i]) if f[i] < f0 else 0.0), len(f)


def select_iterate(history: pd.DataFrame, select: str = "validation_auc",
                   min_improvement: float = 0.0) -> int:
    """The iterate a descent returns, by a rule on its ``history``.

    Parameters
    ----------
    history : DataFrame
        ``validation_auc`` and ``validation_aum`` per iterate, step 0 first.
    select : {"validation_auc", "validation_aum", "last"}
        Largest validation AUC (Fowler & Hocking 2024; the first on ties), smallest
        validation AUM (the first on ties), or the last iterate.
    min_improvement : float
        Keep the start (step 0) unless the selected iterate improves the validation
        measure by more than this (AUC: larger by more; AUM: smaller by more). With 0
        an iterate that merely ties the start is not taken.

    Returns
    -------
    int
        Position of the selected iterate in ``history``.

    Examples
    --------
    >>> h = pd.DataFrame({"validation_auc": [0.90, 0.903, 0.92, 0.91],
    ...                   "validation_aum": [0.30, 0.20, 0.25, 0.10]})
    >>> select_iterate(h), select_iterate(h, min_improvement=0.05)
    (2, 0)
    >>> select_iterate(h, "validation_aum"), select_iterate(h, "last")
    (3, 3)
    """
    if select not in SELECTIONS:
        raise ValueError(f"select must be one of {SELECTIONS}, got {select!r}")
    if not (np.isfinite(min_improvement) and min_improvement >= 0):
        raise ValueError(f"min_improvement must be a finite number >= 0, got {min_improvement!r}")
    if select == "last":
        return len(history) - 1
    if select == "validation_auc":
        gain = history["validation_auc"].to_numpy(float)
    else:
        gain = -history["validation_aum"].to_numpy(float)
    gain = np.where(np.isnan(gain), -np.inf, gain)
    best = int(np.argmax(gain))
    return best if gain[best] - gain[0] > min_improvement else 0


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
    select: str = "validation_auc",
    min_improvement: float = 0.0,
    l2: float = 0.0,
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
    select, min_improvement
        The rule that picks the returned iterate (:func:`select_iterate`).
    l2 : float
        Ridge penalty: descend on AUM + (l2/2)·‖w‖² (w without the intercept); each step
        minimises that over the first B events of the exact line search
        (:func:`l2_step`; the exact variants then differ only in name) or, for
        ``variant="grid"``, over the grid; 0: plain AUM.

    Returns
    -------
    Descent
        Every recorded iterate (the last, non-improving step included, as in the
        script of Fowler & Hocking 2024) and the selected one.

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
        from penlearn._progress import tqdm  # only when a bar is asked for

        bar = tqdm(desc=f"AUM GD ({variant})", unit="step", leave=False)
    start = time.perf_counter()
    w = np.array(w0, dtype=float)
    scores = X @ w + b0
    cur = aum(bp, scores)
    penalty = 0.5 * l2 * float(w @ w)
    rows, weights = [], [w.copy()]
    sub_auc, v_aum, v_auc = evaluate(w)
    rows.append((0, 0.0, cur.aum, sub_auc, v_aum, v_auc, 0, time.perf_counter() - start))
    prev, prev_auc, s = np.inf, -np.inf, np.inf
    step = 0
    try:
        while step < max_steps and not descent_should_stop(
            variant, prev, cur.aum + penalty, s, tol, prev_auc, sub_auc
        ):
            d = -(X.T @ cur.derivatives.mean(axis=1) + l2 * w)
            if not np.any(d):
                break
            # the step rule: the exact line search of the variant (or the grid), and with
            # a ridge penalty the exact step of AUM + (l2/2)·‖w‖² over B events
            if l2 > 0 and variant == "grid":
                s, events = _l2_grid_step(bp, scores, X @ d, w, d, l2)
            elif l2 > 0:  # a guess past the last step's B-th event saves sorts
                s, events = l2_step(bp, scores, X @ d, w, d, l2,
                                    guess=1.05 * s if 0 < s < np.inf else None)
            else:
                s, events = choose_step(variant, bp, scores, X @ d)
            w = w + s * d
            scores = X @ w + b0
            prev, prev_auc = cur.aum + penalty, sub_auc
            cur = aum(bp, scores)
            penalty = 0.5 * l2 * float(w @ w)
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
    best = select_iterate(history, select, min_improvement)
    return Descent(history, tuple(weights), best)
