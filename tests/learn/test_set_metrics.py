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


@pytest.mark.parametrize("seed", range(3))
def test_ties_keep_the_fast_auc_and_weighted_counts_fall_back(seed, monkeypatch):
    """Tied thresholds (a step exactly onto a crossing) with integer counts: the AUC from
    the one sort, equal to ChangepointROC.auc without calling it; with weighted
    (non-integer) counts the public functions are used, and the numbers still agree."""
    rng = np.random.default_rng(10 + seed)
    n = 40
    ev = _evaluation(rng, n)
    ids = list(pd.unique(ev["sequence_id"]))
    roc = ChangepointROC(ev, ids)
    m = SetMetrics(None, roc)
    assert m.integer
    tied = []
    bp = roc.bp
    for _ in range(30):  # move examples so that some thresholds coincide exactly
        scores = rng.normal(size=n)
        for _ in range(int(rng.integers(1, 4))):
            b1, b2 = rng.choice(len(bp), 2, replace=False)
            e1, e2 = bp.example[b1], bp.example[b2]
            if e1 != e2:
                scores[e2] = bp.value[b2] - (bp.value[b1] - scores[e1])
        t = bp.value - scores[bp.example]
        if len(np.unique(t)) < len(t):
            tied.append((scores, roc.auc(scores)))
    assert len(tied) >= 10
    monkeypatch.setattr(SetMetrics, "_slow", lambda self, s: pytest.fail("fell back"))
    for scores, expected in tied:
        assert m(scores)[1] == expected
    monkeypatch.undo()
    weighted = ev.assign(fp=ev["fp"] * 0.7, possible_fp=ev["possible_fp"] * 0.7)
    roc_w = ChangepointROC(check_evaluation(weighted), ids)
    mw = SetMetrics(None, roc_w)
    assert not mw.integer
    for scores, _ in tied:
        assert mw(scores)[1] == roc_w.auc(scores)
