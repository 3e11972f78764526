"""Helpers of benchmarks/macs3.py: the held-out unit and the held-out tuned figure (the
fair counterpart of "tuned on the labels it is scored on")."""

from __future__ import annotations

import pandas as pd
from conftest import load_benchmark

bench = load_benchmark("macs3")


def test_held_out_unit_is_the_sample_else_the_label():
    several = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
                            "chromStart": [10, 50, 10]})
    assert list(bench.held_out_units(several)) == ["a", "a", "b"]
    one = several.assign(sample_id="a")
    assert list(bench.held_out_units(one)) == ["chr1:10", "chr1:50", "chr1:10"]
    assert list(bench.held_out_units(one.drop(columns="sample_id"))) == [
        "chr1:10", "chr1:50", "chr1:10"]


def test_tuned_held_out_by_hand():
    idx = ["s1", "s2", "s2", "s3"]  # one label of s1, two of s2, one of s3
    wrong = {"A": pd.Series([0, 1, 0, 0], index=idx),   # s1 0, s2 1, s3 0 (1 in all)
             "B": pd.Series([1, 0, 0, 1], index=idx)}   # s1 1, s2 0, s3 1 (2 in all)
    # out s1: A, B tie on s2 + s3 (1 each) -> A, the earlier: 0 wrong on s1
    # out s2: A 0, B 2 on s1 + s3 -> A: 1 wrong on s2
    # out s3: A, B tie on s1 + s2 (1 each) -> A: 0 wrong on s3
    assert bench.tuned_held_out(wrong) == 1
    # ties go to the earlier setting of the grid: with B first, both ties pick B
    # (1 wrong on s1, 1 on s3) and out s2 still picks A (1 wrong)
    assert bench.tuned_held_out(dict(reversed(wrong.items()))) == 3
