"""Constants, input checks and the one routine for AUM and its slope at a step.

Everything here is shared by the sweep kernel (:mod:`.kernel`), its drivers and the grid
baseline. Fowler & Hocking (2024), "Efficient line search for optimizing Area Under the
ROC Curve in gradient descent": threshold lines (eq. 2), AUM and its slope from one sort
(eqs. 5-6).
"""

from __future__ import annotations

import math

import numpy as np

from penlearn.aum import aum as _aum
from penlearn.aum import check_scores
from penlearn.breakpoints import Breakpoints

#: Relative tolerance under which two computed intersection step sizes are one event.
#: Each computed step size is within ~3 units of roundoff (u = 2**-53) of the exact
#: intersection of the float-valued lines, so intersections of k lines through one point
#: are computed within ~6u of each other; 2**-48 = 32u leaves a safe margin.
TIE_RTOL = 2.0**-48

#: Absolute tolerances of the stopping rules of the R package aum (Fowler & Hocking 2024).
FIRST_MIN_ZERO = 1e-6
MAX_AUC_DROP = 1e-6

#: A new maximum of AUC after a step must exceed the previous one by this relative margin,
#: so that rounding noise on a plateau of equal AUC values is not taken for an increase
#: (the reference takes a later event of such a plateau; see the tests).
AUC_TIE = 2.0**-46

PATH_COLUMNS = [
    "step_size",
    "aum",
    "aum_slope_after",
    "auc",
    "auc_after",
    "intersections",
    "intervals",
    "q_size",
]

STOP_NAMES = ("first_min", "max_auc", "linear", "all")


def gaps(fp: np.ndarray, fn: np.ndarray):
    """FP, FN and min(FP, FN) in the B+1 gaps around B sorted lines (gap g below line g).

    Examples
    --------
    >>> [x.tolist() for x in gaps(np.array([1.0, 0.0]), np.array([0.0, -1.0]))]
    [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    """
    n = len(fp)
    fpg = np.empty(n + 1)
    fpg[0] = 0.0
    np.cumsum(fp, out=fpg[1:])
    fng = np.empty(n + 1)
    fng[n] = 0.0
    fng[:n] = -np.cumsum(fn[::-1])[::-1]
    return fpg, fng, np.minimum(fpg, fng)


def aum_slope(t_sorted: np.ndarray, d_sorted: np.ndarray, m: np.ndarray) -> tuple[float, float]:
    """AUM (eq. 5) and its slope in the step size (eq. 6) for lines already in order.

    ``t_sorted``: the lines' thresholds at the step, sorted; ``d_sorted``: their slopes in
    the order just after the step; ``m``: min(FP, FN) of the B+1 gaps (:func:`gaps`).

    Examples
    --------
    >>> m = gaps(np.array([1.0, 0.0]), np.array([0.0, -1.0]))[2]
    >>> aum_slope(np.array([0.0, 2.0]), np.array([1.0, -1.0]), m)
    (2.0, -2.0)
    """
    if len(t_sorted) < 2:
        return 0.0, 0.0
    mid = m[1:-1]
    return float(np.dot(mid, np.diff(t_sorted))), float(np.dot(mid, np.diff(d_sorted)))


def sort_right(t: np.ndarray, d: np.ndarray, kind: str = "quicksort") -> np.ndarray:
    """Permutation sorting ``t``, ties broken by slope ``d`` (the order just after a step).

    Examples
    --------
    >>> sort_right(np.array([1.0, 0.0, 1.0]), np.array([2.0, 0.0, -1.0])).tolist()
    [1, 2, 0]
    """
    p = np.argsort(t, kind=kind)
    ts = t[p]
    if len(ts) > 1 and np.any(ts[1:] == ts[:-1]):
        p = np.lexsort((d, t))
    return p


# ---------------------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------------------


def merge_lines(intercept, slope, fp_diff, fn_diff):
    """Sort lines by (intercept, slope) and merge identical ones by summing their diffs.

    The order is that of ``np.lexsort((slope, intercept))`` (identical lines in input
    order) and each merged diff that of ``np.add.reduceat`` over its run, computed on the
    tied and merged lines only (usually a few among thousands).

    Examples
    --------
    >>> ic, sl, fp, fn = merge_lines(np.array([1.0, 0.0, 1.0, 1.0]),
    ...                              np.array([2.0, 0.0, 1.0, 2.0]),
    ...                              np.array([1.0, 1.0, 0.0, 2.0]), np.zeros(4))
    >>> ic.tolist(), sl.tolist(), fp.tolist()
    ([0.0, 1.0, 1.0], [0.0, 1.0, 2.0], [1.0, 0.0, 3.0])
    """
    order = np.argsort(intercept)  # distinct intercepts (the usual case): any sort will do
    ic = intercept[order]
    if len(ic) > 1:
        tie = ic[1:] == ic[:-1]
        if tie.any():  # tied intercepts: by slope, then input order (as lexsort)
            at = np.zeros(len(ic), bool)
            at[:-1] = tie
            at[1:] |= tie
            idx = np.flatnonzero(at)  # runs of one intercept, each kept in its place
            sub = order[idx]
            order[idx] = sub[np.lexsort((sub, slope[sub], ic[idx]))]
    sl = slope[order]
    fp, fn = fp_diff[order], fn_diff[order]
    if len(ic) > 1:
        same = (ic[1:] == ic[:-1]) & (sl[1:] == sl[:-1])
        if same.any():
            new = np.ones(len(ic), bool)
            new[1:] = ~same
            starts = np.flatnonzero(new)
            # the runs of more than one line, summed on their own as reduceat does
            first = np.unique(np.searchsorted(starts, np.flatnonzero(~new), "right") - 1)
            lo = starts[first]
            size = np.append(starts, len(ic))[first + 1] - lo
            members = np.repeat(lo, size) + (np.arange(int(size.sum()))
                                             - np.repeat(np.cumsum(size) - size, size))
            local = np.cumsum(size) - size
            fp_m, fn_m = fp[starts], fn[starts]
            fp_m[first] = np.add.reduceat(fp[members], local)
            fn_m[first] = np.add.reduceat(fn[members], local)
            ic, sl, fp, fn = ic[starts], sl[starts], fp_m, fn_m
    return ic, sl, fp, fn


def check_totals(fp_diff, fn_diff, what: str = "") -> tuple[float, float]:
    fp_tot = float(np.sum(fp_diff))
    fn_tot = float(-np.sum(fn_diff))
    if not fp_tot > 0:
        raise ValueError(
            f"max FP should be positive: the total FP (sum of fp_diff{what}) is {fp_tot}; "
            "the ROC curve needs at least one possible false positive"
        )
    if not fn_tot > 0:
        raise ValueError(
            f"max FN should be positive: the total FN (-sum of fn_diff{what}) is {fn_tot}; "
            "the ROC curve needs at least one possible false negative"
        )
    return fp_tot, fn_tot


def parse_stop(stop, n_lines: int, max_iterations) -> tuple[int, int | float]:
    """Return (mode, event limit): mode 0 = count, 1 = first min, 2 = max AUC."""
    if isinstance(stop, bool):
        raise TypeError("stop must be a string or an int, not a bool")
    if isinstance(stop, (int, np.integer)):
        if stop < 0:
            raise ValueError(f"stop as a number of events must be >= 0, got {stop}")
        mode, limit = 0, int(stop)
    elif isinstance(stop, str):
        if stop not in STOP_NAMES:
            raise ValueError(f"stop must be one of {STOP_NAMES} or an int, got {stop!r}")
        mode, limit = {
            "first_min": (1, math.inf),
            "max_auc": (2, math.inf),
            "linear": (0, n_lines),
            "all": (0, math.inf),
        }[stop]
    else:
        raise TypeError(f"stop must be a string or an int, got {type(stop).__name__}")
    if max_iterations is not None:
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)):
            raise TypeError("max_iterations must be an int or None")
        if max_iterations < 0:
            raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
        limit = min(limit, int(max_iterations))
    return mode, limit


def breakpoint_lines(breakpoints: Breakpoints, scores, slopes=None, name: str = ""):
    """Threshold lines of breakpoints under scores ŷ(s) = scores + s·slopes.

    Returns ``intercept = v − scores[I]``, ``slope = −slopes[I]``, ``fp_diff``, ``fn_diff``
    (Fowler & Hocking 2024, eq. 2). ``slopes=None`` uses the descent direction of AUM: the negative
    mean of the left and right directional derivatives (:func:`penlearn.aum`).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> ic, sl, fp, fn = breakpoint_lines(breakpoints_from_labels([0, 1]), [10.0, -10.0])
    >>> ic.tolist(), sl.tolist()
    ([-10.0, 10.0], [1.0, -1.0])
    """
    if not isinstance(breakpoints, Breakpoints):
        raise TypeError(
            f"breakpoints{name} must be a penlearn.Breakpoints, got {type(breakpoints).__name__}"
        )
    if len(breakpoints) == 0:
        raise ValueError(f"breakpoints{name} is empty: the line search needs breakpoints")
    check_totals(breakpoints.fp_diff, breakpoints.fn_diff, name)
    s = check_scores(scores, breakpoints.n_examples, f"scores{name}")
    if slopes is None:
        deriv = _aum(breakpoints, s).derivatives
        d = -(deriv[:, 0] + deriv[:, 1]) / 2
    else:
        d = check_scores(slopes, breakpoints.n_examples, f"slopes{name}")
    ex = breakpoints.example
    return breakpoints.value - s[ex], -d[ex], breakpoints.fp_diff, breakpoints.fn_diff
