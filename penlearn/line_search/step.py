"""The step of each gradient-descent variant, and the stop rule that fits it.

Fowler & Hocking (2024), Section 5: gradient descent on AUM takes its step from the exact
line search stopped at the first minimum of AUM (``"first_min"``), after B events
(``"linear"``), after every event (``"quadratic"``), at the largest AUC within the
AUM descent (``"max_auc"``, :func:`max_auc_step`), or from a grid of step sizes
(``"grid"``). :func:`choose_step` gives the
step of one variant without building the path table; :func:`descent_should_stop` is the
stop rule of the descent loop that fits each variant.
"""

from __future__ import annotations

import math

import numpy as np

from penlearn.breakpoints import Breakpoints
from penlearn.line_search._common import breakpoint_lines, parse_stop
from penlearn.line_search.blocks import blocks_step
from penlearn.line_search.critical import first_min_critical
from penlearn.line_search.first_min import first_min_monotone
from penlearn.line_search.grid import GRID_STEP_SIZES, grid_values
from penlearn.line_search.kernel import State, lines_state

__all__ = ["STEP_VARIANTS", "choose_step", "descent_should_stop"]

#: The variants of :func:`choose_step` and the line-search stop rule each one uses.
STEP_VARIANTS = {
    "first_min": "first_min",
    "linear": "linear",
    "quadratic": "all",
    "max_auc": "first_min",  # swept to the first AUM minimum; see max_auc_step
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
        ``events``: intersection events processed (for ``"grid"``: grid points). For
        ``"first_min"`` that is the work of its search, not the events before the first
        minimum: on monotone errors the events swept one by one after bracketing
        (:func:`~penlearn.line_search.first_min_monotone`), otherwise the events of the
        blocks of lines that can change the AUM slope
        (:func:`~penlearn.line_search.critical.first_min_critical`).

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
        aum_v, _ = grid_values(ic, sl, fp, fn, GRID_STEP_SIZES, with_auc=False)
        return float(GRID_STEP_SIZES[int(np.argmin(aum_v))]), len(GRID_STEP_SIZES)
    stop = STEP_VARIANTS[variant]
    if variant == "first_min" and np.all(fp >= 0) and np.all(fn <= 0):
        r = first_min_monotone(ic, sl, fp, fn, check=False)  # convex AUM: bracketing
        return float(r.step_size), int(r.n_events)
    st = lines_state(ic, sl, fp, fn)  # breakpoints and scores are checked: finite
    if variant == "max_auc":
        return max_auc_step(st)
    if variant == "first_min":
        got = first_min_critical(st)  # slope-neutral events skipped; None: undecided
        if got is not None:
            return got[0], got[1]
    mode, limit = parse_stop(stop, len(ic), None)
    step, _, events, _ = blocks_step(st, mode, limit)
    return step, events


def max_auc_step(st: State, min_gain: float = 1e-5) -> tuple[float, int]:
    """The step of the ``"max_auc"`` descent: the largest AUC along the AUM descent.

    The events are swept up to the first minimum of AUM (the ``"first_min"`` rule), so
    AUM does not rise on the explored range; the step is the midpoint of the first
    interval between two events on which the AUC (constant there) is largest. The line
    search's own ``stop="max_auc"`` rule stops at the first local maximum of AUC, a few
    events away on real data (AUC is piecewise constant and very rugged), which makes
    steps too short for gradient descent; this choice keeps the AUM descent's reach and
    takes the best ROC curve within it (Fowler & Hocking 2024, Section 4.4, remark).
    When no interval beats the AUC just after step 0 by more than ``min_gain``, the step
    is the first-min step.
    Returns (step, events swept).
    """
    step, _, last, r = blocks_step(st, 1, math.inf)
    if last == 0:
        return 0.0, 0
    up = r.reason == "rule" and r.aums[last] > r.aums[:last].min()
    k_max = last - 1 if up else last  # intervals (s_k, s_k+1), k < k_max
    k = int(np.argmax(r.auc_after[: max(k_max, 1)]))
    if not (r.auc_after[k] - r.auc_after[0]) * st.scale > min_gain:
        return step, last  # no AUC gain within reach: the first-min step
    return float((r.steps[k] + r.steps[k + 1]) / 2), last


def descent_should_stop(
    variant: str,
    previous_aum: float,
    current_aum: float,
    step_size: float,
    tol: float,
    previous_auc: float = -math.inf,
    current_auc: float = -math.inf,
) -> bool:
    """Stop rule of AUM gradient descent that fits the step rule of ``variant``.

    Call it before each step with the subtrain AUM (and AUC) before and after the last
    step and that step's size (``inf``/``-inf`` before the first step). For the variants
    that choose the step for AUM (all but ``"max_auc"``) the descent stops when the
    subtrain AUM decreased by no more than ``tol`` (the rule of Fowler & Hocking 2024).
    ``"max_auc"`` takes the step of the largest subtrain AUC within the AUM descent
    (:func:`max_auc_step`), which trades AUM for AUC, so AUM alone is the wrong
    yardstick: its descent stops when the step is 0 or neither did the subtrain AUM
    decrease nor the subtrain AUC increase by more than ``tol``.

    Examples
    --------
    >>> descent_should_stop("first_min", 1.0, 1.0 - 1e-6, 0.5, 1e-5)
    True
    >>> descent_should_stop("max_auc", 1.0, 1.001, 0.5, 1e-5, 0.80, 0.81)
    False
    >>> descent_should_stop("max_auc", 1.0, 0.9, 0.0, 1e-5, 0.80, 0.81)
    True
    """
    if variant != "max_auc":
        return not previous_aum - current_aum > tol
    if not step_size > 0:
        return True
    return not (current_auc - previous_auc > tol or previous_aum - current_aum > tol)
