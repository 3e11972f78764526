"""The binary benchmark's data preparation: imbalance and splits as documented."""

from __future__ import annotations

import importlib.util

import numpy as np
import sklearn  # noqa: F401  (benchmarks/binary.py needs it; a test dependency)
from conftest import REPO


def _bench():
    spec = importlib.util.spec_from_file_location("bench_binary", REPO / "benchmarks" / "binary.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_data_sets_are_imbalanced_and_splits_stratified_and_disjoint():
    bench = _bench()
    sets = bench.load_sets(seed=2)
    assert set(sets) == {"digits 0 vs rest", "digits 8 vs rest", "breast cancer 10%"}
    for name, (X, y) in sets.items():
        assert X.shape[0] == len(y) and np.all(np.isfinite(X))
        assert 0.08 < y.mean() < 0.12, name
        sub, val, test = bench.split(y, seed=2)
        assert len(np.intersect1d(sub, val)) == 0 and len(np.intersect1d(sub, test)) == 0
        assert len(np.intersect1d(val, test)) == 0
        assert len(sub) + len(val) + len(test) == len(y)
        for part in (sub, val, test):  # every part keeps about the same imbalance
            assert abs(y[part].mean() - y.mean()) < 0.02, name
        assert abs(len(test) - len(y) / 3) <= 2 and abs(len(sub) - len(val)) <= 2
    # the breast cancer subset is redrawn per seed, the digits are fixed
    other = bench.load_sets(seed=3)
    assert not np.array_equal(other["breast cancer 10%"][0], sets["breast cancer 10%"][0])
    assert np.array_equal(other["digits 8 vs rest"][1], sets["digits 8 vs rest"][1])
