"""The CROPS search: every model that some penalty selects, from a penalised solver.

For a solver that returns, at penalty λ, a model minimising ``cost(model) + λ·size(model)``
exactly, the models selected as λ goes over an interval are the vertices of the lower
convex hull of the points (size, cost). Haynes, Eckley & Fearnhead (2017,
"Computationally efficient changepoint detection for a range of penalties", JCGS) find
them with O(models) solves: solve at the ends of the interval; where two models differ
in size, solve at the penalty where their penalised costs are equal (:func:`crossing`);
a model strictly cheaper there is a new vertex between them (recurse on both sides),
otherwise the two are neighbours on the hull. The search uses at most 2·(models) − 1
solves between its ends.

The solver is a plain callable, so the same search serves the PeakSeg peak model
(:func:`penlearn.peaks.peakseg.solver.peakseg_path`) and black-box detectors
(:func:`penlearn.tune.path.detector_path`). The penalty intervals of the models found
come from :func:`~penlearn.changepoint.model_selection.model_selection`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["CropsResult", "crops", "crossing"]

M = TypeVar("M")


def crossing(size_more: float, cost_more: float, size_fewer: float, cost_fewer: float
             ) -> float:
    """The penalty at which two models have equal penalised cost ``cost + λ·size``.

    Examples
    --------
    >>> crossing(3, 1.0, 1, 7.0)  # 1 + 3λ = 7 + λ
    3.0
    """
    return (cost_fewer - cost_more) / (size_more - size_fewer)


@dataclass(frozen=True)
class CropsResult(Generic[M]):
    """The models found by :func:`crops`.

    Attributes
    ----------
    models : dict
        ``{size: model}``: every hull vertex found (the ends included), at most one per
        size (for the ends, the last one solved).
    n_solves : int
        Number of calls of ``solve``.
    bound : float
        The size bound in force at the end: ``max_size`` (``inf`` for None), lowered by
        ``stop``. Models of larger size may be in ``models`` (the first one past the
        bound, which tells where the search stopped); the search did not refine beyond.
    """

    models: dict = field(default_factory=dict)
    n_solves: int = 0
    bound: float = math.inf


def crops(
    solve: Callable[[float], M],
    size: Callable[[M], int],
    cost: Callable[[M], float],
    penalties: Sequence[float] = (math.inf, 0.0),
    *,
    solved: Sequence[M] | None = None,
    max_size: int | None = None,
    stop: Callable[[M], bool] | None = None,
    rtol: float = 1e-12,
) -> CropsResult[M]:
    """Every model on the lower convex hull of (size, cost) between the end penalties.

    Parameters
    ----------
    solve : callable
        ``solve(penalty) -> model``: a model minimising ``cost + penalty·size`` exactly.
    size, cost : callable
        The model's size (e.g. number of changes or peaks) and unpenalised cost.
    penalties : sequence of float
        The end penalties (at least two; more, e.g. probes, are fine). Solved in the
        order given unless ``solved`` holds their models.
    solved : sequence, optional
        The models already solved at ``penalties`` (same order): not solved again.
    max_size : int, optional
        Do not refine between two models when the simpler one has more than this size:
        the search stops one model past the bound.
    stop : callable, optional
        ``stop(model) -> bool``, called on every model solved whose size is below the
        current bound; True lowers the bound to that model's size (a data-driven bound).
    rtol : float
        A model counts as strictly cheaper at a crossing penalty when its penalised cost
        is below the neighbours' by more than ``rtol·max(1, |cost|)`` (rounding).

    Returns
    -------
    CropsResult
        ``models`` by size, ``n_solves``, ``bound``.

    Examples
    --------
    >>> hull = {0: 10.0, 1: 4.0, 2: 3.5, 3: 1.0}   # size -> cost of the best model
    >>> def solve(lam):
    ...     return min(hull, key=lambda k: (hull[k] + lam * k, -k))
    >>> found = crops(solve, size=lambda k: k, cost=lambda k: hull[k])
    >>> sorted(found.models), found.n_solves
    ([0, 1, 3], 4)
    """
    if solved is not None and len(solved) != len(penalties):
        raise ValueError(f"solved has {len(solved)} models; expected {len(penalties)} "
                         "(one per penalty)")
    if len(penalties) < 2:
        raise ValueError(f"penalties must hold at least two end penalties, got {penalties!r}")
    n_solves = 0
    bound = math.inf if max_size is None else max_size

    def run(pen: float) -> M:
        nonlocal n_solves, bound
        n_solves += 1
        model = solve(pen)
        if stop is not None and size(model) < bound and stop(model):
            bound = size(model)
        return model

    ends = list(solved) if solved is not None else [run(p) for p in penalties]
    found = {}
    for model in ends:
        found[size(model)] = model
    # penalty increasing: size decreasing
    by_penalty = [ends[i] for i in sorted(range(len(ends)), key=lambda i: penalties[i])]
    stack = [(a, b) for a, b in zip(by_penalty[:-1], by_penalty[1:])
             if size(a) != size(b)]
    while stack:
        more, fewer = stack.pop()
        k_more, k_fewer = size(more), size(fewer)
        if k_more - k_fewer <= 1 or k_fewer > bound:
            continue
        lam = crossing(k_more, cost(more), k_fewer, cost(fewer))
        if not lam > 0:
            continue
        mid = run(lam)
        at = cost(more) + lam * k_more
        k_mid = size(mid)
        if k_mid in (k_more, k_fewer) or cost(mid) + lam * k_mid >= at - rtol * max(1.0, abs(at)):
            continue  # more and fewer are neighbours on the hull
        found[k_mid] = mid
        stack.append((more, mid))
        stack.append((mid, fewer))  # simpler models first, so that ``stop`` prunes early
    return CropsResult(models=found, n_solves=n_solves, bound=bound)
