"""``aum_path`` (the ``"linear"`` rule's path by brackets of events) against the
event-by-event line search's path."""

from __future__ import annotations

import numpy as np
import pytest

from penlearn import Breakpoints, breakpoints_from_labels
from penlearn.line_search import aum_path, line_search


def _random_bp(rng, n, b):
    ex = rng.integers(0, n, size=b)
    fp = rng.choice([0.0, 1.0, -1.0, 2.0], size=b)
    fn = rng.choice([0.0, -1.0, 1.0, -2.0], size=b)
    keep = (fp != 0) | (fn != 0)
    return Breakpoints(ex[keep], rng.integers(-5, 6, size=keep.sum()).astype(float),
                       fp[keep], fn[keep], n)


@pytest.mark.parametrize("seed", range(6))
def test_aum_path_equals_sequential_path(seed):
    rng = np.random.default_rng(seed)
    n = 60
    bp = _random_bp(rng, n, 400)  # integer values and few slopes: ties and multi-way events
    scores = rng.integers(-3, 4, size=n).astype(float)
    slopes = rng.choice([-1.0, 0.0, 0.5, 1.0], size=n) if seed % 2 else rng.normal(size=n)
    ref = line_search(bp, scores, slopes, stop="linear").path
    got = aum_path(bp, scores, slopes)
    assert list(got.columns) == ["step_size", "aum", "aum_slope_after"]
    np.testing.assert_array_equal(got["step_size"].to_numpy(), ref["step_size"].to_numpy())
    scale = max(1.0, float(np.abs(ref["aum_slope_after"]).max()))
    np.testing.assert_allclose(got["aum"], ref["aum"], rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(got["aum_slope_after"], ref["aum_slope_after"], rtol=0,
                               atol=1e-12 * scale)


def test_aum_path_event_count_and_bad_input():
    bp = breakpoints_from_labels([0, 1, 0, 1])
    scores, slopes = np.array([3.0, -1.0, 1.0, 0.0]), np.array([-1.0, 1.0, -0.5, 0.5])
    assert len(aum_path(bp, scores, slopes, events=1)) == 2
    ref = line_search(bp, scores, slopes, stop="all").path
    got = aum_path(bp, scores, slopes, events=10**6)
    np.testing.assert_array_equal(got["step_size"].to_numpy(), ref["step_size"].to_numpy())
    with pytest.raises(ValueError):
        aum_path(bp, scores[:3], slopes)
