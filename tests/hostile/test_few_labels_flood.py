"""A few labels never flood (issue 52 item 4): one labeled sample, noPeaks covering little
of it, must not drag the prior's level to where the unlabeled bases fill with peaks.

The case of issue 52: ``benchmarks/control.py``'s 38 labels of one 2 Mb sample made
``penlearn learn`` shift the shipped model by −2.98 (ten times the peaks): its labeled
window's model path was computed down to log λ 6.7 (100 peaks) and below that end the
labels counted no error at all, so the unknown region looked error-free."""

from __future__ import annotations

import numpy as np
import pandas as pd

import penlearn as pl
from penlearn.learn.prior import constant_model


def _path(rows):
    """One labeled window's error function: rows (min log λ, peaks, fp, fn), highest
    λ first; 10 labels wanting a peak, 20 noPeaks."""
    lo = [r[0] for r in rows]
    hi = [np.inf] + lo[:-1]
    return pd.DataFrame({"sequence_id": "T/chr1", "min_log_lambda": lo,
                         "max_log_lambda": hi, "peaks": [r[1] for r in rows],
                         "fp": [r[2] for r in rows], "fn": [r[3] for r in rows],
                         "possible_fp": 20, "possible_fn": 10, "labels": 30,
                         "errors": [r[2] + r[3] for r in rows],
                         "bounded": [False] * (len(rows) - 1) + [True]})


def _learned_shift(ev: pd.DataFrame, **kw) -> float:
    prior = constant_model(["bases"], 6.0)
    x = pd.DataFrame({"bases": [2e6]}, index=["T/chr1"])
    return pl.learn_penalty(x, ev, prior=prior, **kw).intercept_ - 6.0


def _peaks_at(ev: pd.DataFrame, log_lambda: float) -> float:
    row = ev[(ev["min_log_lambda"] <= log_lambda) & (ev["max_log_lambda"] > log_lambda)]
    return float(row["peaks"].iloc[0]) if len(row) else np.inf  # past the path: unknown


def test_the_end_of_the_computed_path_is_not_error_free():
    # the path stops at log λ 2 with 6 errors; below it nothing is known
    ev = _path([(5.0, 0, 0, 10), (3.0, 10, 0, 5), (2.0, 30, 6, 0)])
    s = _learned_shift(ev)
    assert 6.0 + s >= 2.0, f"shift {s}: log λ below the path's end (errors unknown there)"


def test_error_free_but_flooded_levels_are_not_chosen():
    # no noPeaks label is hit even at 500 peaks (they cover a few kb of 2 Mb): the
    # labels support ~10 peaks here, not 500
    ev = _path([(5.0, 0, 0, 10), (2.0, 10, 0, 4), (1.0, 500, 0, 0), (0.5, 900, 3, 0)])
    for kw in ({}, {"model": "linear"}):  # level_shift and the nearest-min-error rule
        s = _learned_shift(ev, **kw)
        assert _peaks_at(ev, 6.0 + s) <= 20, (kw, s)


def test_learn_says_the_peaks_per_mb_before_and_after():
    ev = _path([(5.0, 0, 0, 10), (3.0, 10, 0, 5), (2.0, 30, 6, 0)])
    prior = constant_model(["bases"], 6.0)
    x = pd.DataFrame({"bases": [2e6]}, index=["T/chr1"])
    model = pl.learn_penalty(x, ev, prior=prior)
    text = model.describe()
    assert "expected peaks per Mb of the labeled windows: 0.0 before the labels, 5.0 after" \
        in text, text
