"""The path of a black-box penalised detector's models over its penalty λ.

For a detector that minimises ``cost(changes) + λ·len(changes)`` exactly (ruptures
``Pelt`` and ``KernelCPD``, skchange ``PELT`` and ``FPOP``), the models it returns as λ
goes from 0 to ∞ are the vertices of the lower convex hull of the points (changes, cost),
and they are found exactly with O(models) solves by the CROPS search of Haynes, Eckley & Fearnhead
(2017, "Computationally efficient changepoint detection for a range of penalties",
JCGS): solve at a small and a large penalty; where the two models differ, solve at the
penalty where their penalised costs are equal; a model cheaper there is a new vertex
between them, otherwise the two are neighbours (:func:`penlearn.changepoint.crops.crops`,
shared with the PeakSeg path). Each model's λ-interval then comes from
:func:`~penlearn.changepoint.model_selection.model_selection`, with the detector's own
cost. The search uses at most 2·(models) − 1 solves between its two ends, plus the few
solves that find those ends (one per decade of λ, see ``max_changes``).

A heuristic detector (ruptures ``Binseg``, ``BottomUp``, ``Window``; skchange's
binary-segmentation and moving-window detectors) need not return a model of that hull,
and its output need not even change monotonically with λ. For those the path is
**scanned**: the detector runs on a grid of ``grid`` penalties per decade, and between
two neighbouring grid penalties whose outputs differ the switch is located by bisection
in log λ to within ``tol``. Every row of the result is a run of consecutive checked
penalties with the same output; its bounds are the geometric means of the checked
penalties on either side of a switch. Exact at every checked penalty; an output that
appears and disappears again strictly between two grid penalties is missed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn.changepoint.crops import crops
from penlearn.changepoint.model_selection import model_selection
from penlearn.tune.detectors import detector_name, fit_adapter, is_exact

PATH_COLUMNS = ("model", "n_changes", "cost", "min_lambda", "max_lambda",
                "min_log_lambda", "max_log_lambda")
_MAX_DECADES = 14  # penalty probes: at most this many factors of 10 up or down


@dataclass(frozen=True)
class DetectorPath:
    """The models of a detector on one signal over its penalty (:func:`detector_path`).

    Attributes
    ----------
    models : DataFrame
        One row per λ-interval, from the smallest penalty (most changes) to ∞:
        ``model`` (index into ``changes``), ``n_changes``, ``cost`` (the detector's cost,
        NaN if it has none), ``min_lambda, max_lambda, min_log_lambda, max_log_lambda``.
    changes : list of ndarray
        The change points of each model (a change at t: a segment starts at index t).
    n_solves : int
        Calls of the detector.
    method : str
        ``"crops"`` (exact) or ``"scan"`` (heuristic detectors).
    complete : bool
        ``stopped_at_lambda == 0``: the rows hold for every penalty.
    stopped_at_lambda : float
        Rows are exact (crops) or checked (scan) for λ above this: the search stopped
        there (``max_changes``, ``min_penalty``, or the scan's smallest penalty). Below
        it the first row's model is the one the detector returned at or just below it,
        not known to be its output for every smaller penalty.
    detector : str

    Examples
    --------
    >>> import ruptures as rpt
    >>> x = np.r_[np.zeros(10), np.ones(10) * 4, np.zeros(10)]
    >>> p = detector_path(rpt.Pelt(min_size=1, jump=1), x)
    >>> p.models["n_changes"].tolist(), p.model_at(1.0).tolist()
    ([2, 0], [10, 20])
    """

    models: pd.DataFrame
    changes: list = field(repr=False)
    n_solves: int
    method: str
    complete: bool
    stopped_at_lambda: float
    detector: str

    def model_at(self, penalty: float) -> np.ndarray:
        """The change points of the path's model at penalty λ (the upper row on a bound)."""
        hi = self.models["max_lambda"].to_numpy()
        row = min(int(np.searchsorted(hi, penalty, side="left")), len(hi) - 1)
        return self.changes[int(self.models["model"].iloc[row])].copy()


class _Solver:
    """Calls the detector, counts the calls, and numbers the distinct models."""

    def __init__(self, adapter):
        self.adapter = adapter
        self.n_solves = 0
        self.keys: dict[tuple, int] = {}
        self.changes: list[np.ndarray] = []
        self.costs: list[float] = []

    def __call__(self, pen: float) -> int:
        self.n_solves += 1
        ch = self.adapter.solve(pen)
        key = tuple(int(c) for c in ch)
        if key not in self.keys:
            self.keys[key] = len(self.changes)
            self.changes.append(np.asarray(key, dtype=np.int64))
            cost = self.adapter.cost(self.changes[-1])
            self.costs.append(np.nan if cost is None else cost)
        return self.keys[key]

    def size(self, m: int) -> int:
        return len(self.changes[m])


def _top(solve: _Solver, max_penalty: float | None) -> tuple[float, int]:
    """A penalty where the detector returns no change (or ``max_penalty``)."""
    if max_penalty is not None:
        return max_penalty, solve(max_penalty)
    c0 = solve.adapter.cost(np.zeros(0, dtype=np.int64))
    # with a cost >= 0, any λ > cost(no change) makes every change cost more than it saves
    lam = abs(c0) * (1 + 1e-9) + 1e-12 if c0 is not None and np.isfinite(c0) else 1.0
    m = solve(lam)
    for _ in range(_MAX_DECADES):
        if solve.size(m) == 0:
            break
        lam *= 10.0
        m = solve(lam)
    return lam, m


def _bottom(solve: _Solver, top: float, min_penalty, max_changes):
    """Penalties top/10, top/100, … down to ``min_penalty`` or past ``max_changes``."""
    probes = []
    if min_penalty is not None:
        return [(min_penalty, solve(min_penalty))]
    if max_changes is None:
        return [(0.0, solve(0.0))]
    lam = top
    for _ in range(_MAX_DECADES):
        lam /= 10.0
        m = solve(lam)
        probes.append((lam, m))
        if solve.size(m) > max_changes:
            break
    return probes


def _crops(solve: _Solver, ends: list[tuple[float, int]], max_changes) -> int:
    """The CROPS search between the probes ``ends`` (solved already); its solves."""
    pens, models = zip(*ends)
    return crops(solve, solve.size, solve.costs.__getitem__, pens, solved=models,
                 max_size=max_changes, rtol=1e-10).n_solves


def _crops_table(solve: _Solver, max_changes) -> tuple[pd.DataFrame, float]:
    found = pd.DataFrame({"model": np.arange(len(solve.changes)),
                          "n_changes": [len(c) for c in solve.changes],
                          "cost": solve.costs})
    sel = model_selection("cost", "n_changes", models=found)
    sel = sel.reset_index(drop=True)  # λ increasing: most changes first
    stopped = 0.0
    if max_changes is not None:
        over = np.flatnonzero(sel["n_changes"].to_numpy() > max_changes)
        if len(over):
            first = over[-1]  # the simplest model past the bound
            sel = sel.iloc[first:].reset_index(drop=True)
            stopped = float(sel["max_lambda"].iloc[0])
            sel.loc[0, ["min_lambda", "min_log_lambda"]] = [0.0, -np.inf]
    return sel, stopped


def _scan(solve: _Solver, lo: float, hi: float, grid: int, tol: float) -> dict[float, int]:
    lo = max(lo, hi * 10.0 ** -_MAX_DECADES)
    n = max(2, int(math.ceil(grid * math.log10(hi / lo))) + 1)
    pens = {float(p): solve(float(p)) for p in np.geomspace(lo, hi, n)}
    todo = sorted(pens)
    pairs = [(a, b) for a, b in zip(todo[:-1], todo[1:]) if pens[a] != pens[b]]
    while pairs:
        a, b = pairs.pop()
        if math.log(b / a) <= tol:
            continue
        mid = math.sqrt(a * b)
        pens[mid] = solve(mid)
        if pens[mid] != pens[a]:
            pairs.append((a, mid))
        if pens[mid] != pens[b]:
            pairs.append((mid, b))
    return pens


def _scan_table(solve: _Solver, pens: dict[float, int]) -> pd.DataFrame:
    lam = np.array(sorted(pens))
    mod = np.array([pens[p] for p in lam])
    start = np.flatnonzero(np.r_[True, mod[1:] != mod[:-1]])
    bounds = np.sqrt(lam[start[1:] - 1] * lam[start[1:]])
    lo = np.r_[0.0, bounds]
    hi = np.r_[bounds, np.inf]
    models = mod[start]
    with np.errstate(divide="ignore"):
        return pd.DataFrame({
            "model": models, "n_changes": [solve.size(m) for m in models],
            "cost": [solve.costs[m] for m in models], "min_lambda": lo, "max_lambda": hi,
            "min_log_lambda": np.log(lo), "max_log_lambda": np.log(hi)})


def _check_positive(x, name: str, allow_zero: bool = False) -> float | None:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
    ok = x >= 0 if allow_zero else x > 0
    if not (ok and np.isfinite(x)):
        raise ValueError(f"{name} must be finite and {'>=' if allow_zero else '>'} 0, got {x}")
    return float(x)


def detector_path(
    detector,
    signal,
    *,
    max_changes: int | None = 30,
    min_penalty: float | None = None,
    max_penalty: float | None = None,
    method: str = "auto",
    grid: int = 10,
    tol: float = 0.01,
) -> DetectorPath:
    """The models a penalised detector returns on one signal, for every penalty λ.

    Parameters
    ----------
    detector
        A ruptures ``Pelt``, ``KernelCPD``, ``Binseg``, ``BottomUp`` or ``Window`` (any
        cost, custom ``BaseCost`` subclasses included), or a skchange detector with a
        ``penalty`` parameter. It is copied, never changed.
    signal : array_like of shape (n,) or (n, d)
    max_changes : int or None
        Stop below the penalty where the detector returns more than this many changes
        (the path to λ = 0 can hold a model per datum). None: the whole path.
    min_penalty, max_penalty : float, optional
        The ends of the search. Default: λ where the detector returns no change (its
        cost without change, or ×10 until no change), and λ/10, λ/100, … until more
        than ``max_changes`` changes (0 with ``max_changes=None``).
    method : {"auto", "crops", "scan"}
        ``"crops"`` (exact; needs a detector minimising cost + λ·changes that has a
        cost), ``"scan"`` (any detector; see the module docstring); ``"auto"`` takes
        crops for ruptures ``Pelt``/``KernelCPD`` and skchange ``PELT``/``FPOP``, else
        scan.
    grid : int
        Scan: checked penalties per decade.
    tol : float
        Scan: switches are located to within this distance in log λ.

    Returns
    -------
    DetectorPath

    Examples
    --------
    >>> import ruptures as rpt
    >>> rng = np.random.default_rng(0)
    >>> x = np.r_[np.zeros(20), np.ones(20) * 6, np.ones(20) * 5] + rng.normal(0, 0.5, 60)
    >>> p = detector_path(rpt.Pelt(model="l2", min_size=1, jump=1), x, max_changes=5)
    >>> p.models["n_changes"].tolist(), p.models["max_lambda"].round(1).tolist()
    ([6, 4, 3, 2, 1, 0], [1.0, 1.3, 1.4, 7.3, 432.5, inf])
    >>> p.n_solves, p.complete, p.model_at(20.0).tolist()
    (8, False, [20])
    """
    if method not in ("auto", "crops", "scan"):
        raise ValueError(f"method must be 'auto', 'crops' or 'scan', got {method!r}")
    if max_changes is not None and (isinstance(max_changes, bool)
                                    or not isinstance(max_changes, (int, np.integer))
                                    or max_changes < 0):
        raise ValueError(f"max_changes must be an integer >= 0 or None, got {max_changes!r}")
    min_penalty = _check_positive(min_penalty, "min_penalty", allow_zero=True)
    max_penalty = _check_positive(max_penalty, "max_penalty")
    if min_penalty is not None and max_penalty is not None and min_penalty >= max_penalty:
        raise ValueError(f"min_penalty must be < max_penalty, got {min_penalty} >= {max_penalty}")
    x = np.asarray(signal, dtype=float)
    if x.ndim not in (1, 2) or len(x) < 2 or not np.isfinite(x).all():
        raise ValueError(f"signal must be a finite 1-D or 2-D array with at least 2 rows, "
                         f"got shape {x.shape}")
    if method == "auto":
        method = "crops" if is_exact(detector) else "scan"
    solve = _Solver(fit_adapter(detector, x))
    no_change_cost = solve.adapter.cost(np.zeros(0, dtype=np.int64))  # 0.0 is a cost
    if method == "crops" and (no_change_cost is None or not np.isfinite(no_change_cost)):
        raise ValueError(f"method='crops' needs the detector's cost; {detector_name(detector)} "
                         "has none: use method='scan'")
    hi, top = _top(solve, max_penalty)
    ends = _bottom(solve, hi, min_penalty, max_changes)
    floor = ends[-1][0]  # the smallest penalty solved
    if method == "crops":
        _crops(solve, [*ends, (hi, top)], max_changes)
        table, stopped = _crops_table(solve, max_changes)
        stopped = max(stopped, floor)
    else:
        pens = _scan(solve, floor or hi * 10.0 ** -_MAX_DECADES, hi, grid, tol)
        table = _scan_table(solve, pens)
        stopped = min(pens)
    table = table[list(PATH_COLUMNS)].reset_index(drop=True)
    # one log per bound (the scan's bounds are computed here; np.log of equal values can
    # differ in the last bit between a strided and a contiguous array)
    with np.errstate(divide="ignore"):
        log_hi = np.log(table["max_lambda"].to_numpy())
    table["max_log_lambda"] = log_hi
    table["min_log_lambda"] = np.r_[-np.inf, log_hi[:-1]]
    return DetectorPath(models=table,
                        changes=solve.changes, n_solves=solve.n_solves, method=method,
                        complete=stopped == 0, stopped_at_lambda=stopped,
                        detector=detector_name(detector))
