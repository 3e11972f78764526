"""The local refinement of a binned model's changes (penlearn.peaks.peakseg._refine): each
change's new position equals the brute-force best over its candidate positions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from penlearn.peaks.peakseg._refine import refine_changes


def _loss(s, n):
    return s - s * math.log(s / n) if s > 0 else 0.0


def _at(ts, te, counts, x):
    """The coverage summed over the bases below ``x``, base by base."""
    return float(sum(max(0, min(x, e) - s) * c for s, e, c in zip(ts, te, counts)))


def _mean(rows, x, y):
    return (_at(*rows, y) - _at(*rows, x)) / (y - x)


def _feasible(rows, out, k, up, p):
    """Every change's direction kept with change ``k`` at ``p``."""
    a, b, last = out[k - 1], out[k + 1], len(out) - 1
    ml, mr = _mean(rows, a, p), _mean(rows, p, b)
    if k >= 2:
        m0 = _mean(rows, out[k - 2], a)
        if (ml < m0) if up[k - 2] else (ml > m0):
            return False
    if (mr < ml) if up[k - 1] else (mr > ml):
        return False
    if k + 1 < last:
        m3 = _mean(rows, b, out[k + 2])
        if (m3 < mr) if up[k] else (m3 > mr):
            return False
    return True


def _brute(ts, te, counts, bounds, up, reach):
    """The same pass written plainly: per change, every row edge within reach (strictly
    between its neighbours) tried, the feasible one of least loss kept (ties: the old
    position, else the leftmost)."""
    rows = (ts, te, counts)
    edges = sorted(set(ts.tolist()) | set(te.tolist()))
    out = [int(x) for x in bounds]
    for k in range(1, len(out) - 1):
        a, c, b = out[k - 1], out[k], out[k + 1]
        cands = [c] + [p for p in edges if a < p < b and abs(p - c) <= reach and p != c
                       and _feasible(rows, out, k, up, p)]
        losses = [_loss(_at(*rows, p) - _at(*rows, a), p - a)
                  + _loss(_at(*rows, b) - _at(*rows, p), b - p) for p in cands]
        out[k] = cands[losses.index(min(losses))]
    return out


def _case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    widths = rng.integers(1, 30, n)
    ts = np.r_[0, np.cumsum(widths)[:-1]] + rng.integers(0, 3, n).cumsum()  # some gaps
    te = ts + widths
    level = np.where((np.arange(n) // 10) % 2 == 1, 8.0, 1.0)
    counts = rng.poisson(level)
    k = int(rng.integers(2, 6))
    inner = np.sort(rng.choice(np.arange(int(ts[0]) + 1, int(te[-1])), k, replace=False))
    bounds = np.r_[ts[0], inner, te[-1]].astype(np.int64)
    means = [(sum(max(0, min(y, e) - max(x, s)) * c for s, e, c in zip(ts, te, counts)))
             / (y - x) for x, y in zip(bounds[:-1], bounds[1:])]
    up = np.diff(means) > 0
    return ts, te, counts, bounds, up


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("reach", [0, 15, 60])
def test_refined_changes_equal_brute_force(seed, reach):
    ts, te, counts, bounds, up = _case(seed)
    got = refine_changes(ts, te, counts, bounds, up, reach).tolist()
    assert got == _brute(ts, te, counts, bounds, up, reach)
    assert got[0] == bounds[0] and got[-1] == bounds[-1]
    assert all(np.diff(got) > 0)


@pytest.mark.parametrize("seed", range(20))
def test_refined_changes_never_raise_the_loss_and_keep_directions(seed):
    ts, te, counts, bounds, up = _case(seed)
    got = refine_changes(ts, te, counts, bounds, up, 40)

    def sums(b):
        return np.array([sum(max(0, min(y, e) - max(x, s)) * c
                             for s, e, c in zip(ts, te, counts))
                         for x, y in zip(b[:-1], b[1:])], float)

    def total(b):
        return sum(_loss(s, n) for s, n in zip(sums(b), np.diff(b)))

    assert total(got) <= total(bounds) + 1e-9
    m = sums(got) / np.diff(got)
    d = np.diff(m)
    assert ((d >= 0) == up)[d != 0].all()


def test_refinement_finds_the_rows_edges_of_a_clear_region():
    ts = np.arange(0, 1000, 10)
    counts = np.where((ts >= 330) & (ts < 670), 9, 1)
    got = refine_changes(ts, ts + 10, counts, np.array([0, 300, 700, 1000]),
                         np.array([True, False]), 50)
    assert got.tolist() == [0, 330, 670, 1000]


@pytest.mark.parametrize(("kw", "match"), [
    ({"up": np.array([True])}, "up: one direction per change"),
    ({"bounds": np.array([0, 50, 40, 100])}, "bounds must be increasing"),
    ({"reach": -1}, "reach must be an integer >= 0"),
    ({"reach": 2.5}, "reach must be an integer >= 0"),
])
def test_refinement_refuses_bad_arguments(kw, match):
    args = {"ts": np.arange(0, 100, 10), "te": np.arange(10, 110, 10),
            "counts": np.ones(10, int), "bounds": np.array([0, 40, 60, 100]),
            "up": np.array([True, False]), "reach": 10} | kw
    with pytest.raises(ValueError, match=match):
        refine_changes(**args)
