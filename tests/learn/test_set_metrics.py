"""learn._metrics.SetMetrics gives exactly (bit for bit) the numbers of penlearn.aum and
ChangepointROC.auc that gradient descent records, with and without tied thresholds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn._checks import check_evaluation
from penlearn.aum import aum
from penlearn.breakpoints import Breakpoints, breakpoints_from_checked
from penlearn.learn._metrics import SetMetrics
from penlearn.roc import ChangepointROC


def _evaluation(rng, n):
    rows = []
    for i in range(n):
        cuts = np.sort(rng.normal(size=3))
        fp = [int(rng.integers(1, 3)), int(rng.integers(0, 2)), 0, 0]
        fn = [0, 0, int(rng.integers(0, 2)), 1]  # non-monotone FP/FN for some sequences
        lo = np.r_[-np.inf, cuts]
        hi = np.r_[cuts, np.inf]
        for k in range(4):
            rows.append((f"s{i:03d}", lo[k], hi[k], fp[k], fn[k], 2, 1))
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "fp", "fn", "possible_fp", "possible_fn"])
    return check_evaluation(ev)


@pytest.mark.parametrize("seed", range(5))
def test_same_numbers_as_the_public_functions(seed):
    rng = np.random.default_rng(seed)
    n = 60
    ev = _evaluation(rng, n)
    ids = list(pd.unique(ev["sequence_id"]))
    roc = ChangepointROC(ev, ids)
    bp = breakpoints_from_checked(ev, sequence_ids=ids).normalize("rate")
    shared, auc_only = SetMetrics(bp, roc), SetMetrics(None, roc)
    keep = bp.example != 0  # as learn_penalty drops sequences: AUM on other breakpoints
    dropped = Breakpoints(bp.example[keep], bp.value[keep], bp.fp_diff[keep],
                          bp.fn_diff[keep], bp.n_examples)
    other = SetMetrics(dropped, roc)
    assert shared.shared and not other.shared
    for k in range(20):
        scores = rng.normal(size=n)
        if k % 4 == 0:
            scores = np.round(scores, 1)  # tied thresholds: the public functions
        if k % 4 == 1:
            scores[:5] = 0.0
        a, c = shared(scores)
        assert a == aum(bp, scores).aum
        assert c == roc.auc(scores)
        assert np.isnan(auc_only(scores)[0]) and auc_only(scores)[1] == c
        assert other(scores) == (aum(dropped, scores).aum, c)
