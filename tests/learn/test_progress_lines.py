"""A progress line for every step over ~5 s (issue 48 item 8): auto's cross-validation
(each candidate on each fold), each sample's PeakSeg path (every model solved) and a
third-party compile (skchange's kernels) said as penlearn's own; quiet: nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.learn import learn_penalty
from penlearn.peaks.peakseg.evaluation import peak_error_functions


@pytest.fixture(autouse=True)
def _bars_on(monkeypatch):
    """capsys is no terminal: show the bars anyway (penlearn._progress)."""
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")


def _set(n=9):
    rng = np.random.default_rng(1)
    ids = [f"s{i}" for i in range(n)]
    x = rng.normal(size=n)
    rows = [r for i, xi in zip(ids, x) for r in [
        (i, -np.inf, 3 * xi - 1, 1, 0), (i, 3 * xi - 1, 3 * xi + 1, 0, 0),
        (i, 3 * xi + 1, np.inf, 0, 1)]]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp",
                                     "fn"]).assign(possible_fp=1, possible_fn=1)
    return pd.DataFrame({"x": x}, index=ids), ev


def test_auto_says_each_candidate_on_each_fold(capsys):
    X, ev = _set()
    learn_penalty(X, ev, max_steps=2, progress=True)
    err = capsys.readouterr().err
    assert "choosing the model (cross-validation over sequences)" in err
    for k in (1, 2, 3):
        for c in ("constant", "linear", "boosting"):
            assert f"fold {k}: {c}" in err
    learn_penalty(X, ev, max_steps=2, progress=False)
    assert capsys.readouterr().err == ""


def test_each_model_of_a_sample_path_is_said(capsys):
    rng = np.random.default_rng(0)
    counts = rng.poisson(np.r_[np.full(20, 2.0), np.full(10, 20.0), np.full(20, 2.0)])
    cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": np.arange(50) * 10,
                        "chromEnd": np.arange(1, 51) * 10, "count": counts})
    lab = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": [150],
                        "chromEnd": [250], "annotation": ["peakStart"]})
    ev = peak_error_functions(cov, lab, progress=True)
    err = capsys.readouterr().err
    assert "peak models" in err and "s/chr1:0-500: 1 models solved (the last: 0 peaks)" in err
    assert "s/chr1:0-500: 2 models solved" in err
    quiet = peak_error_functions(cov, lab, progress=False)
    assert capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(ev, quiet)


def test_a_skchange_compile_is_announced_once(monkeypatch, capsys):
    pytest.importorskip("skchange")
    from skchange.detectors import PELT

    import penlearn._numba_cache as nc
    from penlearn.tune.detectors import announce_compile

    seen = []

    def not_cached(dispatchers):
        seen.extend(d.__name__ for d in dispatchers)
        return False

    monkeypatch.setattr(nc, "cached", not_cached)
    monkeypatch.setattr(nc, "_WARMED", set())
    assert announce_compile(PELT()) is True
    err = capsys.readouterr().err
    assert err.startswith("penlearn: compiling the skchange PELT kernels (once; numba caches "
                          "them for later runs): about")
    assert {"get_changepoints", "l2_cost"} <= set(seen)  # PELT's and its default cost's
    assert announce_compile(PELT()) is False  # once per process
    assert capsys.readouterr().err == ""


def test_a_fold_of_one_label_class_has_no_auc_and_no_warning(recwarn):
    # issue 48 item 7: 0/0 gave NumPy's "invalid value encountered in divide"
    from penlearn._checks import check_evaluation
    from penlearn.roc import ChangepointROC

    ev = check_evaluation(pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda":
                                        [-np.inf, 0.0], "max_log_lambda": [0.0, np.inf],
                                        "fp": [1, 0], "fn": [0, 0], "possible_fp": [1, 1],
                                        "possible_fn": [0, 0]}))
    assert np.isnan(ChangepointROC(ev, ["a"]).auc(np.array([0.5])))
    X, ev = _set(6)
    ev.loc[ev["sequence_id"].isin(["s3", "s4", "s5"]), "possible_fn"] = 0
    ev.loc[ev["sequence_id"].isin(["s3", "s4", "s5"]), "fn"] = 0
    m = learn_penalty(X, ev, cv_folds=6, max_steps=2, progress=False)  # 3 one-class folds
    assert sum(np.isnan(m.choice_["fold_errors"]["constant"])) == 0
    assert [w for w in recwarn if issubclass(w.category, RuntimeWarning)] == []
