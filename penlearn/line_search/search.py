"""Drivers of the exact AUM/AUC line search (Fowler & Hocking 2024) and its public API.

Along a descent direction the predicted scores move linearly, ŷ(s) = scores + s·slopes, so
each breakpoint b becomes a threshold line T_b(s) = (v_b − scores[I_b]) + s·(−slopes[I_b])
(Section 3.2, eq. 2). The drivers here run the sweep kernel (:mod:`.kernel`: one sort,
then the intersections of adjacent lines in increasing step size with the O(1) updates of
Theorems 1-2) under the stopping rules of the paper's Section 4: sequentially, in
vectorised batches (:mod:`.batched`, :mod:`.blocks`), or, for the first minimum of a
convex AUM, by bracketing (:mod:`.first_min`).

``q_size`` follows the R reference: the number of distinct step sizes still queued,
counting intersections queued earlier whose lines have since stopped being adjacent (they
stay queued until their step). It is computed afterwards from the log of queued steps.

Public functions
----------------
line_search          on :class:`~penlearn.breakpoints.Breakpoints`, scores and slopes
line_search_linear   for a linear model: scores = X·w, slopes = X·d
line_search_lines    on a raw table of lines (intercept, slope, fp_diff, fn_diff)
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from penlearn._checks import finite_vector
from penlearn.aum import aum as _aum
from penlearn.breakpoints import Breakpoints
from penlearn.line_search._common import TIE_RTOL, breakpoint_lines, parse_stop
from penlearn.line_search.batched import BATCH_MIN_LINES, batch_sweep
from penlearn.line_search.blocks import auc_at_step, blocks_step, sweep_blocks
from penlearn.line_search.first_min import first_min_monotone
from penlearn.line_search.grid import grid_values
from penlearn.line_search.kernel import State, prepare_lines, sweep
from penlearn.line_search.result import LineSearchResult
from penlearn.line_search.skip import first_min_skip

__all__ = ["aum_path", "line_search", "line_search_linear", "line_search_lines"]


def _choose(mode, best, best_step, prev_step, steps, aums, slopes, aucs, afters):
    """Chosen step size, AUM and AUC from the processed events (the reference's rules)."""
    s = steps
    if len(s) == 1:
        return 0.0, float(aums[0]), float(aucs[0])
    if mode == 1:
        step = (prev_step + best_step) / 2
        aum_at = best
    elif mode == 2:
        step = (prev_step + best_step) / 2
        aum_at = None
    else:
        i = int(np.argmin(aums))
        j = i
        while j + 1 < len(aums) and aums[j + 1] == aums[i]:
            j += 1
        step = (s[i] + s[j]) / 2
        aum_at = float(aums[i])
    # the row in force at `step`: the last event at or before it
    r = int(np.searchsorted(s, step, side="right")) - 1
    auc = aucs[r] if s[r] == step else afters[r]
    if aum_at is None:
        aum_at = aums[r] + slopes[r] * (step - s[r])
    return float(step), float(aum_at), float(auc)


def _validation_columns(vst: State, steps) -> dict:
    """AUM, AUC at and AUC after each step size of ``steps`` for a second set of lines."""
    v_aum, v_auc, v_after = [], [], []
    rtol = TIE_RTOL
    for s in steps.tolist():
        before = vst.step
        sweep(vst, 0, math.inf, None, until=s + s * rtol)
        hit = vst.step != before and vst.step >= s - s * rtol
        v_aum.append(vst.aum + vst.slope * (s - vst.step))
        v_after.append(vst.auc_after)
        v_auc.append(vst.auc if (hit or s == 0.0) else vst.auc_after)
    k = vst.scale
    return {
        "validation_aum": np.array(v_aum),
        "validation_auc": np.array(v_auc) * k,
        "validation_auc_after": np.array(v_after) * k,
    }


def _queue_sizes(pushed, steps, npush) -> np.ndarray:
    """Distinct queued step sizes after each event (the reference's ``q.size``).

    The reference keeps intersections whose lines stopped being adjacent until their step
    is reached, so ``q_size`` after event k is the number of distinct step sizes queued by
    then that are beyond the event. Every step at or before an event was queued before it
    (new intersections always lie after the current event), hence
    q_size(k) = #{distinct steps first queued before k} − #{distinct steps <= event k}.
    """
    x = np.asarray(pushed, dtype=float)
    uniq, first = np.unique(x, return_index=True)
    first.sort()
    xhi = steps + steps * TIE_RTOL
    queued = np.searchsorted(first, npush, side="left")
    passed = np.searchsorted(uniq, xhi, side="right")
    return (queued - passed).astype(np.int64)


def _run(st: State, n_input: int, stop, max_iterations, max_step, vst: State | None):
    if max_step is not None:
        max_step = float(max_step)
        if not max_step > 0 or math.isnan(max_step):
            raise ValueError(f"max_step must be a positive number or None, got {max_step}")
    mode, limit = parse_stop(stop, n_input, max_iterations)
    aum0, slope0, auc0, after0, push0 = st.aum, st.slope, st.auc, st.auc_after, len(st.pushed)
    if st.heap is None:
        rows_b, done = batch_sweep(st, limit)
        n_b = len(rows_b[0])
        if done:
            rows = rows_b
            reason, best, best_step, prev_step = (
                "limit" if n_b >= limit else "exhausted",
                0.0,
                0.0,
                0.0,
            )
        else:
            rows_s, (reason, best, best_step, prev_step) = sweep(st, 0, limit - n_b, None)
            rows = tuple(
                np.concatenate((x, np.asarray(y, dtype=x.dtype)))
                for x, y in zip(rows_b[:4], rows_s[:4])
            ) + ({k + n_b: v for k, v in rows_s[4].items()},)
    else:
        rows, (reason, best, best_step, prev_step) = sweep(st, mode, limit, max_step)
    steps, slopes, dss, npush, special = rows
    steps = np.concatenate(([0.0], np.asarray(steps, dtype=float)))
    slopes = np.concatenate(([slope0], np.asarray(slopes, dtype=float)))
    # S after each event: the same sequential sums as in the sweep; S at an event: half
    # of the change for a single swap (the diagonal), computed by the block otherwise
    dss = np.asarray(dss, dtype=float)
    s_after = np.cumsum(np.concatenate(([after0], dss)))
    s_at = np.empty_like(s_after)
    s_at[0] = auc0
    s_at[1:] = s_after[:-1] + 0.5 * dss
    n = len(steps)
    inter = np.ones(n, np.int64)
    inter[0] = 0
    interv = inter.copy()
    for i, (a, b, d_at) in special.items():
        inter[i + 1] = a
        interv[i + 1] = b
        s_at[i + 1] = s_after[i] + d_at
    k = st.scale
    aucs = s_at * k
    afters = s_after * k
    npush = np.concatenate(([push0], np.asarray(npush, dtype=np.int64)))
    # AUM between events is linear: the same sequential sums as in the sweep
    inc = slopes[:-1] * np.diff(steps)
    aums = np.cumsum(np.concatenate(([aum0], inc)))
    path = pd.DataFrame(
        {
            "step_size": steps,
            "aum": aums,
            "aum_slope_after": slopes,
            "auc": aucs,
            "auc_after": afters,
            "intersections": inter,
            "intervals": interv,
            "q_size": _queue_sizes(
                np.concatenate([np.asarray(st.pushed, dtype=float), *st.log_extra]), steps, npush
            ),
        }
    )
    if vst is not None:
        for col, v in _validation_columns(vst, steps).items():
            path[col] = v
    if mode == 2:
        best *= k
    step, aum_at, auc_at = _choose(
        mode, best, best_step, prev_step, steps, aums, slopes, aucs, afters
    )
    return LineSearchResult(
        path=path,
        step_size=step,
        aum=aum_at,
        auc=auc_at,
        stop=stop,
        method="sequential",
        n_lines=st.B,
        exhausted=reason == "exhausted",
        reason=reason,
        events=len(steps) - 1,
    )


def line_search_lines(
    intercept,
    slope,
    fp_diff,
    fn_diff,
    *,
    stop="first_min",
    max_iterations=None,
    max_step=None,
    validation=None,
    method="auto",
):
    """Exact line search on a raw table of threshold lines T(s) = intercept + s·slope.

    This is the engine under :func:`line_search`; it takes the lines directly (the
    reference's ``aumLineSearch`` input). Lines need not be sorted; identical lines (equal
    intercept and slope) are merged by summing their diffs.

    Parameters
    ----------
    intercept, slope, fp_diff, fn_diff : array-like of shape (B,)
        Line b is ``T_b(s) = intercept[b] + s·slope[b]``; at that threshold FP jumps by
        ``fp_diff[b]`` and FN by ``fn_diff[b]`` (FP is 0 below every threshold, FN is 0
        above). ``sum(fp_diff)`` and ``-sum(fn_diff)`` must be positive.
    stop, max_iterations, max_step, method
        As in :func:`line_search`.
    validation : tuple (intercept, slope, fp_diff, fn_diff), optional
        Lines of a second set tracked at the same step sizes.

    Returns
    -------
    LineSearchResult

    Examples
    --------
    >>> r = line_search_lines([-1, 0, 1], [1, 0, -1], [0.5, 0, 0.5], [0, -0.5, -0.5],
    ...                       stop="all")
    >>> r.path[["step_size", "aum", "auc", "auc_after", "intervals"]].values.tolist()
    [[0.0, 1.0, 0.375, 0.375, 0.0], [1.0, 0.0, 0.5, 0.625, 2.0]]
    """
    ic = finite_vector(intercept, "intercept")
    lines = (ic, *(finite_vector(x, name, len(ic)) for x, name in
                   ((slope, "slope"), (fp_diff, "fp_diff"), (fn_diff, "fn_diff"))))  # fmt: skip
    vst = None
    if validation is not None:
        if not (isinstance(validation, (tuple, list)) and len(validation) == 4):
            raise TypeError("validation must be a tuple (intercept, slope, fp_diff, fn_diff)")
        vst, _ = prepare_lines(*validation, what=" (validation)")
    return _dispatch(lines, vst, stop, max_iterations, max_step, method)


def line_search(
    breakpoints: Breakpoints,
    scores,
    slopes=None,
    *,
    stop="first_min",
    max_iterations=None,
    max_step=None,
    validation=None,
    method="auto",
) -> LineSearchResult:
    """Exact AUM/AUC line search along scores ŷ(s) = scores + s·slopes.

    Parameters
    ----------
    breakpoints : Breakpoints
        The error functions as (v, ΔFP, ΔFN, example) tuples.
    scores : array-like of shape (n_examples,)
        Scores at step 0 (score = −log λ for penalty learning).
    slopes : array-like of shape (n_examples,), optional
        Rate of change of each score with the step size. Default: the AUM descent
        direction, minus the mean of the left and right directional derivatives.
    stop : {"first_min", "max_auc", "linear", "all"} or int
        ``"first_min"``: events until AUM first increases (or falls below 1e-6, or the
        queue empties); the step is the midpoint of the first flat minimum.
        ``"max_auc"``: events until AUC after a step falls more than 1e-6 below its first
        maximum (or the queue empties); the step is the midpoint between the first
        maximum's event and the last event. ``"linear"``: B events (B = number of
        breakpoints); ``"all"``: every event (quadratic in the worst case); an int k: at
        most k events. For these the chosen step minimises AUM over the explored events
        (midpoint of a flat minimum).
    max_iterations : int, optional
        Cap on the number of events for any rule.
    max_step : float, optional
        Stop after the first event at or past this step size.
    validation : tuple (Breakpoints, scores, slopes), optional
        A second set whose AUM, AUC at the step and AUC after it are added to the path
        (``validation_aum``, ``validation_auc``, ``validation_auc_after``) at the same step
        sizes; see :meth:`LineSearchResult.best_validation`.
    method : {"auto", "sequential", "bracket", "blocks", "skip"}
        ``"sequential"`` runs the event-by-event engine. ``"blocks"`` processes the same
        events a bracket at a time with vectorised updates (:mod:`.blocks`; any ``stop``,
        no ``validation`` or ``max_step``); same step and AUM, path = row 0 only.
        ``"skip"`` (``stop="first_min"`` only, any error functions) skips the brackets
        of events through which a bound proves AUM decreasing, then sweeps the last
        events (:mod:`.skip`); same step and AUM, path = row 0 only, the blocks engine
        from step 0 when the choice hangs on rounding (``result.method`` says so).
        ``"bracket"`` runs
        :func:`~penlearn.line_search.first_min_monotone`, an exact first-min search in a
        few sorts for monotone error functions (all ΔFP ≥ 0, ΔFN ≤ 0); its path holds row 0
        only and ``events``/``n_sorts`` its counters. ``"auto"`` (default) takes ``"bracket"`` for
        ``stop="first_min"`` on monotone breakpoints without ``validation``, ``max_step``
        and ``max_iterations``, and ``"sequential"`` otherwise. ``result.method`` says
        which one ran.

    Returns
    -------
    LineSearchResult

    Notes
    -----
    Fowler & Hocking (2024), Sections 3–4. Differences from the R
    reference (``aum::aum_line_search``): ``path`` always holds every processed event
    (the reference returns one summary row for ``min.aum``/``max.auc`` and overwrites row 0
    when ``maxStepSize`` is set); an integer ``stop=k`` means k events (the reference's
    ``maxIterations=k`` returns k rows, i.e. k − 1 events); intersections whose computed
    step sizes agree within :data:`TIE_RTOL` are one event (the reference needs bit-equal
    step sizes); input lines need not be sorted and identical lines are merged. With
    ``max_step``, ``"max_auc"`` keeps its drop rule (the reference's ``maxStepSize`` instead
    reports the event of the largest AUC so far). A new maximum of AUC after a step must
    exceed the previous one by 2**-46 relative (:data:`AUC_TIE`), so rounding noise on a
    plateau does not move the first maximum (the reference takes the noisy later event).
    The chosen step of the count rules (``"linear"``, ``"all"``, int) is the first minimum
    of AUM over the explored events (midpoint of a flat minimum); the reference returns
    the path only.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> r = line_search(bp, [10.0, -10.0], stop="all")
    >>> r.path[["step_size", "aum", "auc_after"]].values.tolist()
    [[0.0, 20.0, 0.0], [10.0, 0.0, 1.0]]
    >>> line_search(bp, [10.0, -10.0]).step_size
    10.0
    """
    lines = breakpoint_lines(breakpoints, scores, slopes)
    vst = None
    if validation is not None:
        if not (isinstance(validation, (tuple, list)) and len(validation) in (2, 3)):
            raise TypeError("validation must be a tuple (breakpoints, scores, slopes)")
        vbp, vscores, *vslopes = validation
        vslopes = vslopes[0] if vslopes else None
        vst, _ = prepare_lines(*breakpoint_lines(vbp, vscores, vslopes, " (validation)"))
    return _dispatch(lines, vst, stop, max_iterations, max_step, method)


def _dispatch(lines, vst, stop, max_iterations, max_step, method) -> LineSearchResult:
    """Run the bracketing first-min search or the sequential engine (see ``method``)."""
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    ic, sl, fp, fn = (np.asarray(x, dtype=float) for x in lines)
    if method in ("blocks", "skip"):
        if vst is not None or max_step is not None:
            raise ValueError(f"method={method!r} gives no path: it takes no validation or "
                             "max_step")
        if method == "skip":
            if not (isinstance(stop, str) and stop == "first_min" and max_iterations is None):
                raise ValueError("method='skip' needs stop='first_min' without max_iterations")
            return _run_skip(ic, sl, fp, fn)
        return _run_blocks(ic, sl, fp, fn, stop, max_iterations)
    simple = (
        isinstance(stop, str)
        and stop == "first_min"
        and vst is None
        and max_step is None
        and max_iterations is None
    )
    monotone = bool(np.all(fp >= 0) and np.all(fn <= 0))
    if method == "bracket" and not (simple and monotone):
        raise ValueError(
            "method='bracket' needs stop='first_min' without validation, max_step and "
            "max_iterations, on monotone error functions (fp_diff >= 0, fn_diff <= 0)"
        )
    if method == "bracket" or (method == "auto" and simple and monotone):
        return _run_bracket(ic, sl, fp, fn)
    mode, _ = parse_stop(stop, len(ic), max_iterations)
    lazy = mode == 0 and max_step is None and len(ic) >= BATCH_MIN_LINES
    st, n = prepare_lines(ic, sl, fp, fn, lazy=lazy)
    return _run(st, n, stop, max_iterations, max_step, vst)


_METHODS = ("auto", "sequential", "bracket", "blocks", "skip")


def _row0(st: State) -> pd.DataFrame:
    """The path's row for step 0 (the drivers without a path)."""
    return pd.DataFrame(
        {
            "step_size": [0.0],
            "aum": [st.aum],
            "aum_slope_after": [st.slope],
            "auc": [st.auc * st.scale],
            "auc_after": [st.auc_after * st.scale],
            "intersections": np.zeros(1, np.int64),
            "intervals": np.zeros(1, np.int64),
            "q_size": _queue_sizes(st.pushed, np.zeros(1), np.array([len(st.pushed)])),
        }
    )


def _run_blocks(ic, sl, fp, fn, stop, max_iterations) -> LineSearchResult:
    """Any stopping rule by brackets of events (:mod:`.blocks`); path = row 0 only."""
    st, n = prepare_lines(ic, sl, fp, fn, lazy=True)
    mode, limit = parse_stop(stop, n, max_iterations)
    step, aum_at, events, r = blocks_step(st, mode, limit)
    return LineSearchResult(
        path=_row0(st),
        step_size=step,
        aum=aum_at,
        auc=auc_at_step(st, r, step),
        stop=stop,
        method="blocks",
        n_lines=st.B,
        exhausted=r.reason == "exhausted",
        reason=r.reason,
        events=events,
        n_sorts=r.brackets,
    )


def _run_skip(ic, sl, fp, fn) -> LineSearchResult:
    """First-min step by certified skips (:mod:`.skip`); the blocks sweep from step 0 when
    the choice hangs on rounding. Path = row 0 only."""
    st, _ = prepare_lines(ic, sl, fp, fn, lazy=True)
    r = first_min_skip(*st.np[:4])
    if r is None:
        return dataclasses.replace(_run_blocks(ic, sl, fp, fn, "first_min", None),
                                   method="blocks")
    return _first_min_result(st, r, "skip", exhausted=r.reason == "exhausted")


def _first_min_result(st: State, r, method: str, exhausted: bool) -> LineSearchResult:
    """The result of a first-min driver without a path (``"bracket"``, ``"skip"``): its
    step, AUM, counters (``events``: swept one by one), AUC at the step; path = row 0."""
    _, auc = grid_values(*st.np[:4], np.array([r.step_size]))
    return LineSearchResult(
        path=_row0(st),
        step_size=float(r.step_size),
        aum=float(r.aum),
        auc=float(auc[0]),
        stop="first_min",
        method=method,
        n_lines=st.B,
        exhausted=exhausted,
        reason=r.reason,
        events=r.n_events,
        n_sorts=r.n_sorts,
    )


def aum_path(breakpoints: Breakpoints, scores, slopes, events: int | None = None
             ) -> pd.DataFrame:
    """AUM along ``scores + s·slopes`` at its first ``events`` events (default B, the
    ``"linear"`` rule): one row per event, step 0 first, with ``step_size``, ``aum`` and
    ``aum_slope_after`` — the same events and values as ``line_search(..., stop=events)``'s
    path, computed a bracket of events at a time (:mod:`.blocks`), several times faster
    (slopes summed in another order: equal up to rounding, ~1e-12 relative).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> aum_path(bp, [10.0, -10.0], [-1.0, 1.0]).values.tolist()
    [[0.0, 20.0, -2.0], [10.0, 0.0, 0.0]]
    """
    ic, sl, fp, fn = (np.asarray(x, dtype=float)
                      for x in breakpoint_lines(breakpoints, scores, slopes))
    st, n = prepare_lines(ic, sl, fp, fn, lazy=True)
    _, limit = parse_stop("linear" if events is None else int(events), n, None)
    r = sweep_blocks(st, 0, limit)
    return pd.DataFrame({"step_size": r.steps, "aum": r.aums, "aum_slope_after": r.slopes})


def _run_bracket(ic, sl, fp, fn) -> LineSearchResult:
    """First-min step by the sub-quadratic bracketing search; path = row 0 only."""
    st, _ = prepare_lines(ic, sl, fp, fn, lazy=True)  # row 0 only: no queue needed
    r = first_min_monotone(ic, sl, fp, fn)
    return _first_min_result(st, r, "bracket", exhausted=False)


def _linear_parts(X, weights, direction, breakpoints, name=""):
    try:
        Xa = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X{name} must be a numeric matrix") from exc
    if Xa.ndim != 2:
        raise ValueError(f"X{name} must be two-dimensional (n × p), got shape {Xa.shape}")
    if Xa.shape[0] != breakpoints.n_examples:
        raise ValueError(
            f"X{name} has {Xa.shape[0]} rows but the breakpoints have "
            f"n_examples={breakpoints.n_examples}"
        )
    if not np.all(np.isfinite(Xa)):
        raise ValueError(f"X{name} must be finite")
    w = finite_vector(weights, "weights", Xa.shape[1])
    return Xa, w


def line_search_linear(
    breakpoints: Breakpoints,
    X,
    weights,
    direction=None,
    *,
    stop="first_min",
    max_iterations=None,
    max_step=None,
    validation=None,
    method="auto",
) -> LineSearchResult:
    """Exact line search for a linear model: scores = X·w, slopes = X·d.

    Parameters
    ----------
    breakpoints : Breakpoints
    X : ndarray of shape (n_examples, p)
        Features (an intercept column, if any, is the caller's).
    weights : array-like of shape (p,)
    direction : array-like of shape (p,), optional
        Default: minus Xᵀ times the mean of the left and right directional derivatives of
        AUM with respect to the scores (the descent direction of Fowler & Hocking 2024).
    validation : tuple (Breakpoints, X_validation), optional
        Track validation AUM/AUC at the same step sizes (scores X_v·w, slopes X_v·d).
    stop, max_iterations, max_step, method
        As in :func:`line_search`.

    Returns
    -------
    LineSearchResult
        ``direction`` holds the direction d used.

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> X = np.array([[1.0], [-1.0]])
    >>> r = line_search_linear(breakpoints_from_labels([0, 1]), X, [10.0])
    >>> r.step_size
    5.0
    """
    if not isinstance(breakpoints, Breakpoints):
        raise TypeError(
            f"breakpoints must be a penlearn.Breakpoints, got {type(breakpoints).__name__}"
        )
    Xa, w = _linear_parts(X, weights, direction, breakpoints)
    scores = Xa @ w
    if direction is None:
        deriv = _aum(breakpoints, scores).derivatives
        d = -(Xa.T @ ((deriv[:, 0] + deriv[:, 1]) / 2))
    else:
        d = finite_vector(direction, "direction", Xa.shape[1])
    val = None
    if validation is not None:
        if not (isinstance(validation, (tuple, list)) and len(validation) == 2):
            raise TypeError("validation must be a tuple (breakpoints, X_validation)")
        vbp, vX = validation
        if not isinstance(vbp, Breakpoints):
            raise TypeError("validation[0] must be a penlearn.Breakpoints")
        vXa, _ = _linear_parts(vX, w, None, vbp, " (validation)")
        val = (vbp, vXa @ w, vXa @ d)
    res = line_search(
        breakpoints,
        scores,
        Xa @ d,
        stop=stop,
        max_iterations=max_iterations,
        max_step=max_step,
        validation=val,
        method=method,
    )
    return dataclasses.replace(res, direction=d)

