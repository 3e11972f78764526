"""model_selection: consecutive log λ intervals share their bound exactly (no 1-ulp gap)."""

from __future__ import annotations

import numpy as np
import pytest

from penlearn import model_selection


@pytest.mark.parametrize("n_before", [0, 3, 11])
def test_log_bounds_of_consecutive_models_are_equal_bit_for_bit(n_before):
    # np.log of a reversed (strided) view and of a contiguous array differ in the last bit
    # for some values, e.g. λ = 1.1265968684856489 (found by a detector path whose
    # evaluation table then failed check_evaluation with a gap between two intervals)
    decrements = np.r_[np.linspace(20, 2, n_before + 1), 1.1265968684856489, 0.5, 0.25]
    loss = np.r_[np.cumsum(decrements[::-1])[::-1], 0.0]
    path = model_selection(loss, np.arange(len(loss)))
    assert len(path) == len(loss)
    hi = path["max_log_lambda"].to_numpy()[:-1]
    lo = path["min_log_lambda"].to_numpy()[1:]
    assert hi.tobytes() == lo.tobytes()
