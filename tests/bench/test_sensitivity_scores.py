"""Scores of benchmarks/sensitivity.py (issue 52): recall by fold bin, false calls, broad
domains found and found as one call, pValue medians over the peaks both tools found."""

from __future__ import annotations

import pandas as pd
from conftest import load_benchmark

bench = load_benchmark("sensitivity")

TRUTH = pd.DataFrame({
    "kind": ["narrow", "narrow", "narrow", "broad", "broad", "sticky"],
    "chrom": "chr1",
    "chromStart": [750, 5750, 9750, 20_000, 40_000, 60_000],
    "chromEnd": [1250, 6250, 10_250, 30_000, 50_000, 62_000],
    "centre": [1000, 6000, 10_000, 25_000, 45_000, 61_000],
    "fold": [3.0, 12.0, 50.0, 3.0, 3.0, 5.0],
    "fold_bin": ["2-5", "10-20", "20-80", "", "", ""]})


def _calls(rows):
    return pd.DataFrame(rows, columns=["chrom", "chromStart", "chromEnd", "pValue"])


def test_scores_count_what_each_call_hits():
    calls = _calls([
        ("chr1", 5890, 6000, 10.0),       # finds the fold-12 peak (overlaps centre ± 100)
        ("chr1", 9000, 9800, 4.0),        # inside the truth window, not near the centre
        ("chr1", 21_000, 29_000, 30.0),   # one call over 80 % of a broad domain
        ("chr1", 40_000, 42_000, 5.0),    # two calls split the other
        ("chr1", 43_000, 47_000, 5.0),
        ("chr1", 61_500, 61_600, 8.0),    # a sticky region
        ("chr1", 80_000, 80_500, 6.0),    # false
        ("chr2", 0, 100, 6.0)])           # false (another chromosome)
    row = bench.score(calls, TRUTH, genome=1_000_000)
    assert row["narrow found"] == "1/3"
    assert (row["2-5"], row["10-20"], row["20-80"], row["5-10"]) == ("0/1", "1/1", "0/1",
                                                                     "0/0")
    assert row["false /10 Mb"] == 20.0  # 2 false calls in 1 Mb
    assert row["broad found"] == "2/2" and row["broad as one"] == "1/2"
    assert row["sticky called"] == "1/1" and row["calls"] == 8
    assert row["median pValue (true)"] == 10.0
    assert row["_found_p"] == {1: 10.0}


def test_both_found_median_is_over_the_common_peaks():
    a = {"_found_p": {0: 10.0, 1: 20.0, 2: 99.0}}
    b = {"_found_p": {1: 40.0, 2: 50.0, 3: 1.0}}
    bench._both_found([a, b])
    assert a["median pValue (both)"] == 59.5 and b["median pValue (both)"] == 45.0
    c = {"_found_p": {}}
    bench._both_found([a, c])
    assert c["median pValue (both)"] != c["median pValue (both)"]  # nan: none in common
