"""Helpers of benchmarks/mark_guess.py: the threshold learned with every set weighing the
same, and its leave-one-set-out use."""

from __future__ import annotations

import pandas as pd
from conftest import load_benchmark

bench = load_benchmark("mark_guess")


def _units():
    # set a (narrow): 4 samples, set b (broad): 1 sample, set c (broad): 1 sample
    return pd.DataFrame({
        "set": ["a"] * 4 + ["b", "c"], "mark": ["narrow"] * 4 + ["broad"] * 2,
        "log max/mean": [5.0, 4.0, 2.5, 4.5, 3.0, 2.0],
        "errors_narrow": [1, 1, 1, 1, 5, 4], "errors_broad": [3, 3, 3, 3, 1, 2],
        "labels": [10, 10, 10, 10, 10, 10]})


def test_threshold_weighs_every_set_the_same():
    t = _units()
    # broad below the threshold: between 3.0 (b) and 4.0 costs a's 2.5 sample, 1/4 of a set;
    # below 2.5 would cost b, a whole set.
    assert bench.learn_threshold(t, "log max/mean", "class") == (-1, -3.5)
    # fewest label errors: b gains 4 of 10 and c 2 of 10 while a's 2.5 sample loses 2 of
    # 40: the same cut
    assert bench.learn_threshold(t, "log max/mean", "errors") == (-1, -3.5)


def test_leave_one_set_out_applies_the_others_threshold():
    r = bench.leave_one_set_out(_units(), "log max/mean", "class")
    # without b the cut is between c (2.0) and a's lowest (2.5): b at 3.0 is called narrow
    assert r.loc["b"].to_dict() == {"mark": "broad", "value": 3.0, "broad_if": "< 2.25",
                                    "right_pct": 0.0, "acting": 50.0, "default": 50.0,
                                    "right_mark": 10.0}
    # without a only broad sets are left: everything is called broad
    assert r.loc["a", "broad_if"] == "> 1.00"
    assert (r.loc["a", "right_pct"], r.loc["a", "acting"]) == (0.0, 30.0)
    assert (r.loc["c", "broad_if"], r.loc["c", "right_pct"]) == ("< 3.50", 100.0)
