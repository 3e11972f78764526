"""The one best-constant rule (``penlearn.roc.min_error_shift``) against brute force.

A direct count of FP + FN at every candidate shift (each threshold ± a little, and
far beyond both ends) must find no shift with fewer errors than the one returned;
the returned shift must be the middle of a whole interval of fewest errors (the one of
largest penalty when several tie); and the evaluation-table form
(``best_constant_log_lambda``) must agree with a count over the error functions,
also when the labels hold only one class.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.breakpoints import Breakpoints
from penlearn.peaks.joint.pipeline import min_error_log_lambda
from penlearn.roc import best_constant_log_lambda, min_error_shift


def _errors(bp: Breakpoints, scores, c: float) -> float:
    """FP + FN of ``scores + c``, counted from the breakpoints' definition."""
    t = bp.value - (scores + c)[bp.example]
    return float(bp.fp_diff[t < 0].sum() - bp.fn_diff[t >= 0].sum())


def _random_breakpoints(rng, n: int, one_class: str | None = None) -> Breakpoints:
    ex, val, dfp, dfn = [], [], [], []
    for i in range(n):
        for _ in range(int(rng.integers(1, 4))):
            ex.append(i)
            val.append(float(rng.integers(-4, 5)))  # ties on purpose
            kind = rng.integers(3) if one_class is None else (0 if one_class == "fp" else 1)
            dfp.append(float(rng.integers(1, 3)) if kind in (0, 2) else 0.0)
            dfn.append(-float(rng.integers(1, 3)) if kind in (1, 2) else 0.0)
    return Breakpoints(np.array(ex), np.array(val), np.array(dfp), np.array(dfn), n)


@pytest.mark.parametrize("seed", range(40))
def test_min_error_shift_is_the_middle_of_a_min_error_interval(seed):
    rng = np.random.default_rng(seed)
    one = [None, "fp", "fn"][seed % 3]
    n = int(rng.integers(1, 6))
    bp = _random_breakpoints(rng, n, one)
    scores = rng.integers(-3, 4, size=n).astype(float) / 2.0
    c = min_error_shift(bp, scores)
    t = np.unique(bp.value - scores[bp.example])
    cand = np.r_[t[0] - 5.0, t - 1e-3, t + 1e-3, (t[:-1] + t[1:]) / 2.0, t[-1] + 5.0]
    errs = np.array([_errors(bp, scores, x) for x in cand])
    best = errs.min()
    assert _errors(bp, scores, c) == best
    # the interval of fewest errors around c: c is its middle (one unit in if unbounded)
    lo = t[t < c].max() if (t < c).any() else -np.inf
    hi = t[t >= c].min() if (t >= c).any() else np.inf
    while np.isfinite(lo) and _errors(bp, scores, lo - 1e-3) == best:
        lo = t[t < lo].max() if (t < lo).any() else -np.inf
    while np.isfinite(hi) and _errors(bp, scores, hi + 1e-3) == best:
        hi = t[t > hi].min() if (t > hi).any() else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        assert c == (lo + hi) / 2.0
    elif np.isfinite(hi):
        assert c == hi - 1.0
    elif np.isfinite(lo):
        assert c == lo + 1.0
    else:
        assert c == 0.0
    # ties: the smallest shift (the largest penalty) of fewest errors
    assert all(_errors(bp, scores, x) > best for x in cand[cand < lo])


def _evaluation(rng, n: int, one_class: str | None) -> pd.DataFrame:
    rows = []
    for s in range(n):
        cuts = np.sort(rng.choice(np.arange(-8, 8), 3, replace=False)) / 2.0
        edges = np.r_[-np.inf, cuts, np.inf]
        for lo, hi in zip(edges[:-1], edges[1:]):
            fp = 0 if one_class == "fn" else int(rng.integers(0, 3))
            fn = 0 if one_class == "fp" else int(rng.integers(0, 3))
            rows.append((f"s{s}", lo, hi, fp, fn))
    return pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                       "fp", "fn"])


def _table_errors(ev: pd.DataFrame, log_lambda: float) -> float:
    hit = (ev["min_log_lambda"] < log_lambda) & (log_lambda <= ev["max_log_lambda"])
    return float((ev.loc[hit, "fp"] + ev.loc[hit, "fn"]).sum())


@pytest.mark.parametrize("seed", range(30))
def test_best_constant_log_lambda_counts_the_error_functions(seed):
    rng = np.random.default_rng(seed)
    ev = _evaluation(rng, int(rng.integers(1, 5)), [None, "fp", "fn"][seed % 3])
    grid = np.arange(-6.0, 6.0, 0.25) + 0.125  # the cuts are multiples of 0.5
    totals = np.array([_table_errors(ev, v) for v in grid])
    c = best_constant_log_lambda(ev)
    assert _table_errors(ev, c) == totals.min()
    # ties: the largest penalty of fewest errors; from c up to the last such grid point,
    # no rise
    v1 = grid[np.flatnonzero(totals == totals.min())[-1]]
    assert all(totals[(grid >= c) & (grid <= v1)] == totals.min())
    # the errors-only form (joint windows) gives the same constant
    only = ev.assign(errors=ev["fp"] + ev["fn"]).drop(columns=["fp", "fn"])
    assert min_error_log_lambda(only) == c


def test_best_constant_log_lambda_without_changes_is_zero():
    ev = pd.DataFrame({"sequence_id": ["a"], "min_log_lambda": [-np.inf],
                       "max_log_lambda": [np.inf], "fp": [0], "fn": [1]})
    assert best_constant_log_lambda(ev) == 0.0
