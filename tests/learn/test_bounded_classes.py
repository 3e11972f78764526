"""Learning from error functions that stop at a shallow bound.

With a shallow ``max_peaks`` every sequence's lowest (bounded) rows may have fp = 0: the
false positives of the models with more peaks lie below the bound, so the set has no
false positive to learn from. ``learn_penalty`` then fails with one line that says so
and what to do (raise ``max_peaks``), instead of a bare "only one class".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl


def _evaluation(bounded: bool) -> pd.DataFrame:
    """Six sequences: fn 1 -> 0 as λ falls, fp 0 -> 1 -> 0 (back to 0 at the lowest row)."""
    rows = []
    for i in range(6):
        sid = f"s{i}"
        lo = 0.5 + 0.1 * i if bounded else -np.inf
        rows += [(sid, 3.0 + i / 10, np.inf, 0, 1), (sid, 2.0, 3.0 + i / 10, 1, 0),
                 (sid, lo, 2.0, 0, 0)]
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "fp", "fn"])
    ev["possible_fp"], ev["possible_fn"], ev["labels"] = 1, 1, 2
    ev["errors"] = ev["fp"] + ev["fn"]
    ev["bounded"] = bounded
    return ev


def _features(ev: pd.DataFrame) -> pd.DataFrame:
    ids = pd.unique(ev["sequence_id"])
    return pd.DataFrame({"x": np.arange(len(ids), dtype=float)}, index=ids)


def test_bounded_without_false_positives_says_raise_max_peaks():
    ev = _evaluation(bounded=True)
    ev.attrs["max_peaks"] = 2
    with pytest.raises(ValueError) as err:
        pl.learn_penalty(_features(ev), ev, progress=False)
    msg = str(err.value)
    assert "\n" not in msg and "no false positive is possible" in msg
    assert "stop at max_peaks=2 (rows marked bounded)" in msg and "max_peaks=100" in msg
    del ev.attrs["max_peaks"]  # (a table written and read back: no attrs)
    with pytest.raises(ValueError, match="stop at a bound .*larger$"):
        pl.learn_penalty(_features(ev), ev, progress=False)
    ev = _evaluation(bounded=False)  # the same errors, complete: no hint about bounds
    with pytest.raises(ValueError, match=r"no false positive is possible \(no negative "
                       r"labels / sum of fp jumps is 0\)$"):
        pl.learn_penalty(_features(ev), ev, progress=False)


@pytest.mark.slow
def test_shallow_bound_on_h3k36me3_names_max_peaks():
    folder = need(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1")
    cov = pl.read_coverage(folder / "coverage.csv.gz")
    lab = pl.read_peak_labels(folder / "labels.csv")
    ev = pl.peak_error_functions(cov, lab, max_peaks=2, progress=False)
    last = ev.groupby("sequence_id").tail(1)  # λ decreasing: the lowest row of each
    assert last["bounded"].all() and (last["fp"] == 0).all()  # bounded, no FP: the case
    features = pl.coverage_features(cov).loc[pd.unique(ev["sequence_id"])]
    # the default (model="auto") checks the whole training set before any fit
    with pytest.raises(ValueError, match="training set has only one class.*stop at "
                       "max_peaks=2 .*max_peaks=100"):
        pl.learn_penalty(features, ev, progress=False)
    # one model alone checks its subtrain set, after dropping the non-finite features
    with pytest.warns(UserWarning, match="dropped"), \
            pytest.raises(ValueError, match="subtrain set .*stop at max_peaks=2 .*max_peaks=100"):
        pl.learn_penalty(features, ev, progress=False, model="boosting")
