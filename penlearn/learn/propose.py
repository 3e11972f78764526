"""The windows worth labeling: where a label pins the penalty's level fastest.

A prior penalty model (for ChIP-seq the shipped zero-label model of
:mod:`penlearn.peaks.pretrained`) ranks the windows well; what it cannot know is each
data set's **level**, the shift s of log λ = prior(x) + s that the labels of that set
favour (measured in ``benchmarks/RESULTS.md``, "pretrained": the slope transfers across
sets, the level does not). A window's label errors, as a function of s, are a step
function that can only change where the window's model changes: at the breakpoints
of its model-selection path, moved by its prior log λ. A window whose path changes
nowhere near the likely shifts cannot say anything about s, whatever its labels; a
window with many changes where the shift probably lies can.

The rule (measured against random windows by ``benchmarks/few_labels.py``):

1. the likely shifts: a weight on a grid of s, ``exp(−s² / 2σ²)`` (the spread of the
   sets' own levels around the prior's) times ``exp(−β·(E(s) − min E))`` with E(s) the
   label errors of the windows labeled so far at shift s
   (:func:`penlearn.learn.level_shift.likely_shifts`);
2. each unlabeled window's score: the sum of that weight at its path's breakpoints,
   each moved by the window's prior log λ (the expected number of its model changes
   among the likely shifts);
3. the window of largest score. A **batch** of n proposals (no label revealed between
   them) cannot adapt: what its windows should do is tell the level of the whole set,
   as a sample of it. So a batch is spread over the prior's ranking: the candidates
   whose path changes where the shift likely is (90 % of its weight, given the labels
   so far) are cut into n strata of equal count by their prior log λ, and the j-th
   window is the one of largest score among the middle third of stratum j (middle
   strata first; windows of regions labeled or picked least often first): typical of
   its part of the ranking, and telling most about the level there. Measured (leave
   one set out, 17 sets, ``benchmarks/RESULTS.md`` "few_labels"), this is better than
   n random windows at n = 5 and 10, from no label and from labels, where the earlier
   batches (the best window in each of n equal-weight bins of the likely shifts, or
   the n best scores) were worse from no label; proposing one window at a time,
   labeling it and proposing again is better still;
4. the windows of a genomic region already labeled (or proposed) weigh less:
   ``score / (1 + γ·count)`` (:data:`REGION_SPREAD`), since the labels of one region
   in several samples tell much the same.

Only the paths (``sequence_id, min_log_lambda, max_log_lambda``) of the unlabeled
windows are read, never their errors: the proposals are the same whatever labels the
unlabeled windows would have. Plain functions on pandas/NumPy; the coverage front end
(cutting windows, computing paths) is :func:`penlearn.peaks.propose.propose_windows`;
the labeling page's "Next" runs it on the page's windows (``penlearn.label.proposals``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.learn.groups import region_groups
from penlearn.learn.level_shift import likely_shifts

__all__ = ["PATH_COLUMNS", "REGION_SPREAD", "path_breakpoints", "propose_from_paths"]

#: The columns of a model-selection path read by the proposals (never errors).
PATH_COLUMNS = ("sequence_id", "min_log_lambda", "max_log_lambda")
#: γ: a window's score is divided by 1 + γ·(windows of its region already labeled or
#: proposed): labels of one region in several samples say much the same about the level.
REGION_SPREAD = 1.0


def path_breakpoints(paths: pd.DataFrame, ids: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """The log λ where each window's selected model changes: the boundaries between
    consecutive rows of its path (a bounded path's lowest ``min_log_lambda`` is where
    the path stops, not a change).

    Returns
    -------
    (window, log_lambda) : ndarray of int, ndarray of float
        The 0-based position in ``ids`` of each breakpoint's window, and its log λ.

    Examples
    --------
    >>> p = pd.DataFrame({"sequence_id": ["a", "a", "a", "b"],
    ...     "min_log_lambda": [-2.0, 1.0, 3.0, -np.inf],
    ...     "max_log_lambda": [1.0, 3.0, np.inf, np.inf]})
    >>> w, v = path_breakpoints(p, pd.Index(["b", "a"]))
    >>> w.tolist(), v.tolist()
    ([1, 1], [1.0, 3.0])
    """
    for c in PATH_COLUMNS:
        if c not in paths.columns:
            raise ValueError(f"paths: no {c!r} column (expected the columns "
                             f"{list(PATH_COLUMNS)} of an evaluation table)")
    pos = pd.Series(np.arange(len(ids)), index=ids)
    sid = paths["sequence_id"]
    keep = sid.isin(ids).to_numpy()
    w = pos.reindex(sid[keep]).to_numpy()
    hi = paths["max_log_lambda"].to_numpy(float)[keep]
    ok = np.isfinite(hi)  # every row's upper end below +inf is a change to the next row
    return w[ok].astype(np.int64), hi[ok]


def _reason(changes: int, lo: float, hi: float, has_labels: bool) -> str:
    """One line: why a window was proposed."""
    if not changes:
        return ("no model change where the penalty likely is; the best left (its changes "
                "lie nearest)")
    where = "the labels so far put the penalty" if has_labels else \
        "the prior model puts the penalty before any label"
    return (f"{changes} model change{'s' if changes != 1 else ''} where {where} "
            f"(log λ {lo:.1f} to {hi:.1f} here)")


def _strata(changes: np.ndarray, score: np.ndarray, base: np.ndarray, cand: np.ndarray,
            n: int, tie: np.ndarray) -> np.ndarray:
    """A batch's strata: the candidates with a model change among the likely shifts
    (``changes`` > 0; else those of positive ``score``; else all candidates, whichever
    first has ``n``), numbered 0..n−1 by the rank of their prior log λ ``base`` (ties
    by ``tie``) in n groups of equal count; −1 for the others."""
    for ok in (cand & (changes > 0), cand & (score > 0), cand):
        if ok.sum() >= n:
            break
    stratum = np.full(len(score), -1)
    order = np.lexsort((tie[ok], base[ok]))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    stratum[ok] = rank * n // int(ok.sum())
    return stratum


def _stratum_pick(inside: np.ndarray, base: np.ndarray, score: np.ndarray,
                  tie: np.ndarray, seen: np.ndarray | None) -> int:
    """A batch's window of one stratum (``inside``): among its middle third by prior
    log λ ``base`` (ties by ``tie``), those of the regions labeled or picked least often
    (``seen``, per window; None: no regions), the one of largest ``score``."""
    idx = np.flatnonzero(inside)
    m = len(idx)
    ranked = idx[np.lexsort((tie[idx], base[idx]))]
    lo = m // 3
    pool = ranked[lo:max((2 * m + 2) // 3, lo + 1)]
    if seen is not None:
        pool = pool[seen[pool] == seen[pool].min()]
    return int(pool[np.lexsort((-tie[pool], -score[pool]))[0]])


def propose_from_paths(paths: pd.DataFrame, log_lambda: pd.Series, n: int, *,
                       labeled: pd.DataFrame | None = None, exclude=(), groups=None,
                       random_state=0) -> pd.DataFrame:
    """The next ``n`` windows to label, from their paths and the labels so far.

    Parameters
    ----------
    paths : DataFrame
        The model-selection path of every candidate window: ``sequence_id,
        min_log_lambda, max_log_lambda`` (one row per selected model, as an evaluation
        table; any other column, errors included, is ignored).
    log_lambda : Series
        The prior model's log λ of every window (candidates and labeled ones), indexed
        by window id: the proposals are about the shift of this prediction.
    n : int
        How many windows to propose (fewer when fewer candidates are left).
    labeled : DataFrame, optional
        The error functions (``errors`` column) of the windows labeled so far; they are
        never proposed.
    exclude : iterable of window ids
        Windows never to propose (e.g. overlapping a label).
    groups : Series, optional
        The genomic region of each window (indexed by window id; windows of several
        samples over one region share it): proposals spread over regions
        (:data:`REGION_SPREAD`). Default: the ``chrom:start-end`` that ends each id
        (:func:`penlearn.learn.groups.region_groups`), when every id has one.
    random_state : int or None
        Breaks ties between equal scores.

    Returns
    -------
    DataFrame
        One row per proposed window in order: ``sequence_id, score`` (the expected
        number of model changes among the likely shifts), ``changes`` (the number of
        its model changes where the shift has 90 % of its weight), ``reason``.

    Examples
    --------
    >>> paths = pd.DataFrame({"sequence_id": ["a", "a", "b", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 9.0, -np.inf, 0.5, 1.0],
    ...     "max_log_lambda": [9.0, np.inf, 0.5, 1.0, np.inf]})
    >>> out = propose_from_paths(paths, pd.Series({"a": 0.0, "b": 0.0}), 1)
    >>> out["sequence_id"].tolist(), int(out["changes"].iloc[0])
    (['b'], 2)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not isinstance(log_lambda, pd.Series):
        raise TypeError("log_lambda must be a pandas Series indexed by window id")
    done = set(exclude)
    if labeled is not None and len(labeled):
        done |= set(labeled["sequence_id"].unique())
    ids = pd.Index(pd.unique(paths["sequence_id"]))
    missing = ids.difference(log_lambda.index)
    if len(missing):
        raise ValueError(f"window {missing[0]!r} has a path but no predicted log λ")
    base = log_lambda.loc[ids].to_numpy(float)
    cand = ~ids.isin(list(done))
    grid, w = likely_shifts(labeled, log_lambda)
    win, v = path_breakpoints(paths, ids)
    rel = v - base[win]
    step = grid[1] - grid[0]
    cell = np.searchsorted(grid, rel - step / 2)
    inside = (cell >= 0) & (cell < len(grid)) & cand[win]
    win, cell = win[inside], cell[inside]
    order = np.argsort(-w, kind="stable")
    mass = np.cumsum(w[order])
    core = np.zeros(len(grid), bool)
    core[order[: int(np.searchsorted(mass, 0.9)) + 1]] = True
    lo, hi = grid[core].min(), grid[core].max()
    if groups is None:
        groups = region_groups(list(log_lambda.index))
    if groups is not None:
        if not isinstance(groups, pd.Series):
            raise TypeError("groups must be a pandas Series indexed by window id")
        g = groups.reindex(log_lambda.index)
        if g.isna().any():
            raise ValueError(f"groups: no group for window {g.index[g.isna()][0]!r}")
        codes = pd.factorize(g)[0]
        code = pd.Series(codes, index=log_lambda.index)
        region = code.loc[ids].to_numpy()
        seen = np.bincount(code.loc[[i for i in done if i in code.index]].to_numpy(),
                           minlength=codes.max() + 1).astype(float)
    has_labels = labeled is not None and len(labeled) > 0
    rng = np.random.default_rng(random_state)
    tie = rng.random(len(ids))
    rows = []
    n = min(n, int(cand.sum()))
    plain = np.bincount(win, weights=w[cell], minlength=len(ids)).astype(float)
    if n > 1:
        in_core = np.bincount(win, weights=core[cell], minlength=len(ids))
        stratum = _strata(in_core, plain, base, cand, n, tie)
        mid = (n - 1) // 2
        order_strata = sorted(range(n), key=lambda j: (abs(j - mid), j))
    for j in range(n):
        if n > 1:
            best = _stratum_pick(cand & (stratum == order_strata[j]), base, plain, tie,
                                 seen[region] if groups is not None else None)
            score = plain
        else:
            score = plain / (1.0 + REGION_SPREAD * seen[region]) if groups is not None \
                else plain.copy()
            score[~cand] = -np.inf
            best = int(np.lexsort((-tie, -score))[0])
        mine = cell[win == best]
        changes = int(core[mine].sum())
        rows.append({"sequence_id": ids[best], "score": float(score[best]),
                     "changes": changes, "reason": _reason(changes, base[best] + lo,
                                                           base[best] + hi, has_labels)})
        cand[best] = False
        if groups is not None:
            seen[region[best]] += 1.0
    return pd.DataFrame(rows, columns=["sequence_id", "score", "changes", "reason"])
