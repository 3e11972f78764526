"""The branch and bound's cut bound forced off, adaptive and always on: every mode equals
the brute force, and each path of the adaptive choice is taken.

The cut bound only prunes (it is a valid lower bound of each sample's loss over a block),
so whether it is computed changes the work, never the result; ``cut`` is a run-time
argument of the kernel (0 never, 1 where it pays, 2 always), so each path is tested here,
and ``tries`` (per block size: cut bounds computed, blocks they dropped, skips) shows
which paths ran.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_joint_bruteforce import brute, random_window
from test_joint_search import all_pairs_loss

from penlearn.peaks.joint.solver import LEAF_PAIRS, MAX_BLOCKS, _grid, _solve_units


def solve(Y: np.ndarray, unit: np.ndarray, leaf: int, cut: int):
    """Loss by k (NaN: no model), proven, and the cut bound's per-size counters."""
    rows = []
    for y in Y:
        c = np.r_[0, np.flatnonzero(np.diff(y)) + 1, len(y)].astype(np.int64)
        rows.append((c[:-1], c[1:], y[c[:-1]]))
    grid = _grid(rows, Y.shape[1], 0)
    tries = np.zeros((64, 3), np.int64)
    best, _, _, proven = _solve_units(grid, unit, int(unit.max()) + 1, "exact", MAX_BLOCKS,
                                      leaf, cut, tries)
    return np.where(np.isfinite(best), grid.flat.sum() - best, np.nan), proven, tries


def test_cut_never_and_always_equal_brute_force():
    """400 seeded small windows, samples and groups, every block bounded (leaf = 1):
    with the cut bound never computed (every rectangle takes the skip path) and always
    computed, each loss equals the brute force."""
    rng = np.random.default_rng(3737)
    total = {0: np.zeros(3, np.int64), 2: np.zeros(3, np.int64)}
    for _ in range(400):
        Y, _, _, groups = random_window(rng)
        gnames = sorted(set(groups))
        for unit in (np.arange(len(Y)), np.array([gnames.index(g) for g in groups])):
            expected = brute(Y, unit)
            for cut in (0, 2):
                loss, proven, tries = solve(Y, unit, 1, cut)
                assert proven.all()
                np.testing.assert_array_equal(np.isnan(loss), np.isnan(expected))
                np.testing.assert_allclose(loss, expected, rtol=1e-10, atol=1e-10)
                total[cut] += tries.sum(axis=0)
    assert total[0][0] == 0 and total[0][2] > 1000  # never: skipped, not computed
    assert total[2][2] == 0 and total[2][0] > 1000 and total[2][1] > 0  # always: drops some


@pytest.mark.parametrize("seed", [0, 1])
def test_adaptive_cut_takes_both_paths_and_stays_exact(seed):
    """A 3-sample noise window of 1,500 bases (10^6 peaks): in the adaptive mode the cut
    bound is computed for some block sizes and skipped for others (too large, or seldom
    dropping a block), and every mode gives the vectorised search's losses."""
    rng = np.random.default_rng(seed)
    Y = np.repeat(rng.poisson(5.0, size=(3, 150)), 10, axis=1).astype(float)
    expected = all_pairs_loss(Y)
    runs = {cut: solve(Y, np.arange(3), LEAF_PAIRS, cut) for cut in (0, 1, 2)}
    for loss, proven, _ in runs.values():
        assert proven.all()
        np.testing.assert_allclose(loss, expected, rtol=1e-10)
    tries = runs[1][2]
    assert tries[:, 0].sum() > 0 and tries[:, 2].sum() > 0
