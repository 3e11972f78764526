"""The joint-peaks benchmark's helpers: its simulated windows and its table format."""

from __future__ import annotations

import numpy as np
from conftest import load_benchmark

from penlearn import joint_peak


def test_simulated_window_is_deterministic_contiguous_and_has_its_peak():
    bench = load_benchmark("joint_peaks")
    w = bench.simulate(4, 3000, peak=(1000, 1600, 2), seed=3)
    assert w.equals(bench.simulate(4, 3000, peak=(1000, 1600, 2), seed=3))
    for _, rows in w.groupby("sample_id"):
        assert rows["chromStart"].iloc[0] == 0 and rows["chromEnd"].iloc[-1] == 3000
        assert (rows["chromStart"].to_numpy()[1:] == rows["chromEnd"].to_numpy()[:-1]).all()
    fit = joint_peak(w)
    assert fit.exact
    assert sorted(fit.up.columns[fit.up.loc[2]]) == ["s0", "s1"]
    start, end = fit.peak.loc[2]
    assert abs(start - 1000) < 60 and abs(end - 1600) < 60


def test_markdown_table():
    bench = load_benchmark("joint_peaks")
    md = bench.results_file.markdown_table([{"rows": np.int64(185501), "s": 0.291,
                                             "proven": np.bool_(True)}])
    assert md == ["| rows | s | proven |", "|---|---|---|", "| 185,501 | 0.29 | True |"]
