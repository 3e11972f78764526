"""Helpers of benchmarks/tune_output_features.py: the output features a training signal
reads off its exact path are those a new signal gets from running the detector."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark

rpt = pytest.importorskip("ruptures")

bench = load_benchmark("tune_output_features")


@pytest.mark.parametrize("max_changes", [None, 2])
def test_output_features_from_the_path_equal_those_from_detector_runs(max_changes):
    from penlearn.tune import detector_path

    rng = np.random.default_rng(3)
    x = np.r_[np.zeros(30), np.ones(25) * 3, np.zeros(20), np.ones(30) * 2] + rng.normal(
        0, 1, 105)
    det = rpt.Pelt(model="l2", min_size=2, jump=1)
    path = detector_path(det, x, max_changes=max_changes)
    for c in (np.log(3.0), np.log(8.0), np.log(30.0)):
        by_runs = bench.output_features(det, x, c)
        by_path = bench.output_features(det, x, c, path)
        assert by_path.keys() == by_runs.keys()
        np.testing.assert_allclose(list(by_path.values()), list(by_runs.values()))
    # the features move the way their names say: fewer changes at a larger pen
    f = bench.output_features(det, x, np.log(8.0))
    assert f["log1p.k-1"] >= f["log1p.k+0"] >= f["log1p.k+1"]
    assert f["log1p.k+0"] == np.log1p(len(det.fit(x).predict(pen=8.0)) - 1)
