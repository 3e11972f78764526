"""The step of each gradient-descent variant, and the stop rule that fits it.

Fowler & Hocking (2024), Section 5: gradient descent on AUM takes its step from the exact
line search stopped at the first minimum of AUM (``"first_min"``), after B events
(``"linear"``), after every event (``"quadratic"``), at the first maximum of AUC
(``"max_auc"``), or from a grid of step sizes (``"grid"``). :func:`choose_step` gives the
step of one variant without building the path table; :func:`descent_should_stop` is the
stop rule of the descent loop that fits each variant.
"""

from __future__ import annotations

import math

import numpy as np

from penlearn.breakpoints import Breakpoints
from penlearn.line_search._common import breakpoint_lines, parse_stop
from penlearn.line_search.blocks import blocks_step
from penlearn.line_search.first_min import first_min_monotone
from penlearn.line_search.grid import GRID_STEP_SIZES, grid_values
from penlearn.line_search.kernel import prepare_lines

__all__ = ["STEP_VARIANTS", "choose_step", "descent_should_stop"]

#: The variants of :func:`choose_step` and the line-search stop rule each one uses.
STEP_VARIANTS = {
    "first_min": "first_min",
    "linear": "linear",
    "quadratic": "all",
    "max_auc": "max_auc",
    "grid": None,
}


def choose_step(variant: str, breakpoints: Breakpoints, scores, slopes) -> tuple[float, int]:
    """Step size chosen by a gradient-descent variant, and the work it took.

    Parameters
    ----------
    variant : {"first_min", "linear", "quadratic", "max_auc", "grid"}
        The line search (see the module docstring). ``"grid"`` takes the step of
        :data:`GRID_STEP_SIZES` (1e-9 … 1) with the smallest AUM, the smallest step on ties.
    breakpoints : Breakpoints
    scores, slopes : ndarray of shape (n_examples,)
        Scores move as ``scores + s·slopes``.

    Returns
    -------
    (step_size, events) : (float, int)
        ``events``: intersection events processed (for ``"grid"``: grid points).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> choose_step("quadratic", bp, np.array([1.0, -1.0]), np.array([-1.0, 1.0]))
    (1.0, 1)
    >>> choose_step("grid", bp, np.array([1.0, -1.0]), np.array([-1.0, 1.0]))
    (1.0, 10)
    """
    if variant not in STEP_VARIANTS:
        raise ValueError(f"variant must be one of {tuple(STEP_VARIANTS)}, got {variant!r}")
    ic, sl, fp, fn = breakpoint_lines(breakpoints, scores, slopes)
    if variant == "grid":
        aum_v, _ = grid_values(ic, sl, fp, fn, GRID_STEP_SIZES)
        return float(GRID_STEP_SIZES[int(np.argmin(aum_v))]), len(GRID_STEP_SIZES)
    stop = STEP_VARIANTS[variant]
    if stop == "first_min" and np.all(fp >= 0) and np.all(fn <= 0):
        r = first_min_monotone(ic, sl, fp, fn, check=False)  # convex AUM: bracketing
        return float(r.step_size), int(r.n_events)
    st, n = prepare_lines(ic, sl, fp, fn, lazy=True)
    mode, limit = parse_stop(stop, n, None)
    step, _, events, _ = blocks_step(st, mode, limit)
    return step, events


def descent_should_stop(
    variant: str, previous_aum: float, current_aum: float, step_size: float, tol: float
) -> bool:
    """Stop rule of AUM gradient descent that fits the step rule of ``variant``.

    For the variants that choose the step for AUM (all but ``"max_auc"``) the descent
    stops when the subtrain AUM decreased by no more than ``tol`` (the paper's rule).
    ``"max_auc"`` chooses the step that maximises the subtrain AUC, which may raise AUM on
    a step that still improves the ROC curve; its descent stops when the step is 0 (no
    event improves AUC: the search stopped at step 0) or when AUM rose by more than its
    own size times ``1e3·tol`` relative, i.e. went far off the AUM descent path.

    Examples
    --------
    >>> descent_should_stop("first_min", 1.0, 1.0 - 1e-6, 0.5, 1e-5)
    True
    >>> descent_should_stop("max_auc", 1.0, 1.001, 0.5, 1e-5)
    False
    >>> descent_should_stop("max_auc", 1.0, 0.9, 0.0, 1e-5)
    True
    """
    if variant != "max_auc":
        return not previous_aum - current_aum > tol
    if not step_size > 0:
        return True
    if not math.isfinite(current_aum):
        return True
    return current_aum - previous_aum > 1e3 * tol * max(abs(previous_aum), 1.0)
