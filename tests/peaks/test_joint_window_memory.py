"""``window_coverage`` holds one chromosome's filled rows at a time (issue 55: not a copy
of every sample's whole table): windows in any chromosome order give the tables of
each window alone."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.peaks.joint.windows import window_coverage


def test_windows_coming_back_to_a_chromosome_get_the_same_tables():
    rng = np.random.default_rng(4)
    rows = []
    for sid in ("a", "b", "c"):
        for chrom in ("chr1", "chr2"):
            ends = np.cumsum(rng.integers(1, 9, 40))
            keep = rng.random(40) < 0.8  # gaps: filled with zeros
            starts = np.r_[0, ends[:-1]]
            rows.append(pd.DataFrame({"sample_id": sid, "chrom": chrom,
                                      "chromStart": starts[keep], "chromEnd": ends[keep],
                                      "count": rng.integers(0, 20, 40)[keep]}))
    cov = pd.concat(rows, ignore_index=True)
    wins = pd.DataFrame({"window_id": ["w1", "w2", "w3", "w4"],
                         "chrom": ["chr1", "chr2", "chr1", "chr2"],
                         "chromStart": [10, 5, 60, 100], "chromEnd": [50, 40, 150, 160]})
    together = dict(window_coverage(cov, wins, groups={"a": "x", "b": "x", "c": "y"}))
    assert list(together) == ["w1", "w2", "w3", "w4"]
    for i in range(len(wins)):
        alone = dict(window_coverage(cov, wins.iloc[[i]], groups={"a": "x", "b": "x",
                                                                  "c": "y"}))
        wid = wins["window_id"][i]
        pd.testing.assert_frame_equal(together[wid], alone[wid])
        t = together[wid]
        assert set(t["sample_id"]) == {"a", "b", "c"}
        for _, g in t.groupby("sample_id"):  # every sample covers the window's bases
            assert g["chromStart"].iloc[0] == wins["chromStart"][i]
            assert g["chromEnd"].iloc[-1] == wins["chromEnd"][i]
            assert (g["chromStart"].to_numpy()[1:] == g["chromEnd"].to_numpy()[:-1]).all()
