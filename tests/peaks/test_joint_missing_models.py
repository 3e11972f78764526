"""Models that do not exist (no peak has k samples strictly up-down: loss NaN) are
skipped by model selection, in the fit and in the joint label-error path."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn import joint_peak
from penlearn.peaks.joint.errors import joint_path, joint_selected


def test_missing_models_are_skipped_by_selection_and_path():
    rows = [("a", 0, 10, 1), ("a", 10, 20, 9), ("a", 20, 30, 1),
            ("b", 0, 15, 1), ("b", 15, 30, 4),  # a step, never up-down
            ("c", 0, 12, 2), ("c", 12, 18, 6), ("c", 18, 30, 2)]
    fit = joint_peak(pd.DataFrame(rows, columns=["sample_id", "chromStart", "chromEnd",
                                                 "count"]))
    assert fit.exact and np.isnan(fit.loss[3]) and fit.loss.iloc[:3].notna().all()
    assert not fit.up.loc[3].any() and fit.peak.loc[3].isna().all()
    assert 3 not in set(fit.selection["k"])
    path = joint_path(fit)
    assert 3 not in set(path["k"]) and path["k"].iloc[-1] == 0
    for log_lam in np.linspace(-4, 6, 41):
        cost = fit.loss.to_numpy() + np.exp(log_lam) * np.arange(4)
        assert int(joint_selected(path, log_lam)["k"]) == int(np.nanargmin(cost))
