"""crops: the generic CROPS search against a brute-force lower convex hull.

The "solver" is an exact argmin over a random table of (size, cost) points; the hull
vertices are computed independently here by the slope rule, never by the search.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from penlearn.changepoint.crops import crops, crossing


def _table(seed: int, n: int = 30) -> dict[int, float]:
    """Best cost per size: decreasing in size, with random dents (non-convex)."""
    rng = np.random.default_rng(seed)
    gains = np.sort(rng.exponential(1.0, n))[::-1] * rng.uniform(0.6, 1.4, n)
    cost = 100.0 - np.cumsum(np.r_[0.0, gains[:-1]])
    return {k: float(c) for k, c in enumerate(cost)}


def _solver(table):
    def solve(lam: float) -> int:
        if math.isinf(lam):
            return min(table)
        # the most complex model among the cheapest (tie rule of an exact solver at λ)
        return min(table, key=lambda k: (table[k] + lam * k, -k))
    return solve


def _hull(table) -> set[int]:
    """Lower convex hull vertices by brute force: k is a vertex iff some λ > 0 selects it
    strictly (or it is the λ = 0 / λ = ∞ end)."""
    ks = sorted(table)
    out = set()
    for k in ks:
        lo = max(((table[k] - table[j]) / (j - k) for j in ks if j > k), default=0.0)
        hi = min(((table[j] - table[k]) / (k - j) for j in ks if j < k), default=math.inf)
        if lo < hi:
            out.add(k)
    return out


@pytest.mark.parametrize("seed", range(8))
def test_finds_exactly_the_hull(seed):
    table = _table(seed)
    res = crops(_solver(table), size=lambda k: k, cost=table.__getitem__)
    hull = _hull(table)
    assert set(res.models) == hull
    assert res.n_solves <= 2 * len(hull) - 1  # ends included
    assert res.bound == math.inf


@pytest.mark.parametrize("seed", range(4))
def test_max_size_stops_one_past_the_bound(seed):
    table = _table(seed)
    hull = sorted(_hull(table))
    bound = hull[len(hull) // 2]
    res = crops(_solver(table), lambda k: k, table.__getitem__, max_size=bound)
    below = {k for k in hull if k <= bound}
    assert below <= set(res.models)
    past = sorted(k for k in res.models if k > bound)
    # refined up to the first hull vertex past the bound, plus the λ = 0 end
    assert past[0] == min(k for k in hull if k > bound)
    assert past[-1] == max(hull)
    full = crops(_solver(table), lambda k: k, table.__getitem__)
    assert res.n_solves < full.n_solves and len(res.models) < len(full.models)


def test_stop_lowers_the_bound_and_solved_ends_are_not_solved_again():
    table = _table(3)
    hull = sorted(_hull(table))
    target = hull[2]
    seen = []
    res = crops(_solver(table), lambda k: k, table.__getitem__,
                stop=lambda k: seen.append(k) or k >= target)
    assert res.bound == min(k for k in seen if k >= target)
    assert {k for k in hull if k <= res.bound} <= set(res.models)
    calls = []
    solve = _solver(table)
    pre = [solve(math.inf), solve(0.0)]
    again = crops(lambda lam: calls.append(lam) or solve(lam), lambda k: k,
                  table.__getitem__, (math.inf, 0.0), solved=pre)
    assert math.inf not in calls and 0.0 not in calls
    assert set(again.models) == set(hull) and again.n_solves == len(calls)


def test_crossing_and_bad_arguments():
    assert crossing(4, 2.0, 2, 8.0) == 3.0  # 2 + 4·3 = 8 + 2·3
    with pytest.raises(ValueError, match="at least two"):
        crops(lambda lam: 0, len, float, (0.0,))
    with pytest.raises(ValueError, match="one per penalty"):
        crops(lambda lam: 0, len, float, (0.0, 1.0), solved=[0])
