"""coverage_features: the 36 UCI ChIP-seq features from coverage (R reference, UCI row,
and a per-base brute force)."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats.coverage import read_bedgraph, read_coverage
from penlearn.peaks.peakseg.features import (
    FEATURE_COLUMNS,
    coverage_features,
    weighted_features,
    window_id,
)

MONO_ID = ("H3K27ac-H3K4me3_TDHAM_BP/samples/Mono1_H3K27ac/S001YW_NCMLS/problems/"
           "chr11:60000-580000")


def _mono_features() -> pd.Series:
    cov = read_bedgraph(need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz"))
    got = coverage_features(cov)
    assert got.index.tolist() == ["chr11:60000-580000"]
    return got.iloc[0]


def _assert_close(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    got, want = np.asarray(got, float), np.asarray(want, float)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=0)


def test_mono27ac_matches_r_features():
    ref = pd.read_csv(need(REFERENCE / "peakseg" / "mono27ac" / "features.csv"))
    assert tuple(ref.columns[1:]) == FEATURE_COLUMNS
    assert ref["sequenceID"].iloc[0] == MONO_ID
    got = _mono_features()
    _assert_close(got.to_numpy(), ref.iloc[0, 1:].to_numpy(dtype=float), rtol=1e-12)


def test_mono27ac_matches_uci_inputs_row():
    path = need(DATA / "H3K27ac-H3K4me3_TDHAM_BP" / "inputs.csv.gz")
    with gzip.open(path, "rt") as fh:
        header = fh.readline().rstrip("\n").split(",")
        row = next(line for line in fh if line.startswith(MONO_ID + ","))
    assert tuple(header[1:]) == FEATURE_COLUMNS  # names exactly as in the UCI files
    uci = np.array([float(x) if x else np.nan for x in row.rstrip("\n").split(",")[1:]])
    # the file prints 15 significant digits
    _assert_close(_mono_features().to_numpy(), uci, rtol=5e-15)


def _brute_force(counts, weights) -> np.ndarray:
    """Expand to one count per base and use NumPy's statistics."""
    long = np.repeat(np.asarray(counts, float), weights)
    q = np.quantile(long, [0, 0.25, 0.5, 0.75, 1], method="linear")  # = R type 7
    sd = np.std(long, ddof=1) if len(long) > 1 else np.nan
    base = np.array([*q, long.mean(), sd, len(long), len(counts)], float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.concatenate([base, np.log(base + 1), np.log(base), np.log(np.log(base))])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 40)), min_size=1, max_size=30))
def test_matches_per_base_brute_force(rows):
    counts = [c for c, _ in rows]
    weights = [w for _, w in rows]
    _assert_close(weighted_features(counts, weights), _brute_force(counts, weights),
                  rtol=1e-12)


def test_windows_clip_rows_and_name_sequences():
    cov = pd.DataFrame({"sample_id": ["0001"] * 3 + ["0002"] * 2, "chrom": "chr1",
                        "chromStart": [0, 10, 20, 5, 15], "chromEnd": [10, 20, 30, 15, 40],
                        "count": [1, 5, 2, 0, 7]})
    windows = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [5, 12],
                            "chromEnd": [25, 14]})
    got = coverage_features(cov, windows)
    assert got.index.tolist() == ["0001/chr1:5-25", "0001/chr1:12-14",
                                  "0002/chr1:5-25", "0002/chr1:12-14"]
    # window (5, 25] of sample 0001: 5 bases of 1, 10 of 5, 5 of 2 (3 rows)
    _assert_close(got.iloc[0], _brute_force([1, 5, 2], [5, 10, 5]), rtol=1e-12)
    _assert_close(got.iloc[1], _brute_force([5], [2]), rtol=1e-12)
    _assert_close(got.iloc[2], _brute_force([0, 7], [10, 10]), rtol=1e-12)
    assert got.loc["0002/chr1:12-14", "data"] == 1
    # windows of one sample, with their own ids
    own = coverage_features(cov, windows.assign(sample_id=["0002", "0001"],
                                                sequence_id=["a", "b"]))
    assert own.index.tolist() == ["a", "b"]
    _assert_close(own.loc["a"], got.loc["0002/chr1:5-25"], rtol=0)
    # default: one window per sample and chromosome, over its extent
    whole = coverage_features(cov)
    assert whole.index.tolist() == ["0001/chr1:0-30", "0002/chr1:5-40"]
    assert window_id(None, "chr1", 0, 30) == "chr1:0-30"


def test_many_samples_agree_with_one_at_a_time():
    cov = read_coverage(need(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
                             / "coverage.csv.gz"))
    got = coverage_features(cov)
    assert len(got) == 8 and list(got.columns) == list(FEATURE_COLUMNS)
    one = cov[cov["sample_id"] == "McGill0019"]
    assert got.index[2] == "McGill0019/chr21:43119165-43459388"
    w = (one["chromEnd"] - one["chromStart"]).to_numpy()
    _assert_close(got.iloc[2], _brute_force(one["count"].to_numpy(), w), rtol=1e-12)


@pytest.mark.parametrize("change, match", [
    ({"chromStart": [0, 5]}, r"coverage row 1: rows must be sorted"),
    ({"count": [1, 2.5]}, r"'count' must hold integers; row 1"),
    ({"count": [1, -1]}, r"coverage row 1: count must be >= 0"),
])
def test_bad_coverage(change, match):
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10], "chromEnd": [10, 20],
                        "count": [1, 2]})
    for k, v in change.items():
        cov[k] = v
    with pytest.raises(ValueError, match=match):
        coverage_features(cov)


def test_bad_windows():
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10], "chromEnd": [10, 20],
                        "count": [1, 2]})
    with pytest.raises(ValueError, match=r"window 'chr2:0-5' holds no coverage rows"):
        coverage_features(cov, pd.DataFrame({"chrom": ["chr2"], "chromStart": [0],
                                             "chromEnd": [5]}))
    with pytest.raises(ValueError, match=r"window 'chr1:30-40' holds no coverage"):
        coverage_features(cov, pd.DataFrame({"chrom": ["chr1"], "chromStart": [30],
                                             "chromEnd": [40]}))
    with pytest.raises(ValueError, match="windows row 0: chromStart must be < chromEnd"):
        coverage_features(cov, pd.DataFrame({"chrom": ["chr1"], "chromStart": [5],
                                             "chromEnd": [5]}))
    with pytest.raises(ValueError, match="duplicate sequence ids"):
        coverage_features(cov, pd.DataFrame({"chrom": "chr1", "chromStart": [0, 0],
                                             "chromEnd": [5, 5]}))
    with pytest.raises(ValueError, match=r"coverage is missing column\(s\) \['count'\]"):
        coverage_features(cov.drop(columns="count"))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 5)), min_size=1, max_size=40),
       st.data())
def test_clipped_widths_are_the_rows_bases_inside_the_window(rows, data):
    from penlearn.peaks.peakseg.features import _clipped_widths

    widths = np.array([w for w, _ in rows])
    gaps = np.array([g for _, g in rows])
    start = np.cumsum(widths + gaps) - widths
    end = start + widths
    lo = data.draw(st.integers(0, int(end[-1]) - 1))
    hi = data.draw(st.integers(lo + 1, int(end[-1])))
    first = int(np.searchsorted(end, lo, side="right"))
    last = int(np.searchsorted(start, hi, side="left"))
    want = np.minimum(end[first:last], hi) - np.maximum(start[first:last], lo)
    assert _clipped_widths(start[first:last], end[first:last], lo, hi).tolist() == \
        want.tolist()


def test_window_features_hold_one_windows_filled_rows_at_a_time():
    import gc
    import tracemalloc

    n = 200_000  # rows with gaps between them: each window's rows filled, a copy
    s = np.arange(n, dtype=np.int64) * 20
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": s, "chromEnd": s + 10,
                        "count": np.arange(n) % 7})
    win = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [0, 2_000_000],
                        "chromEnd": [2_000_000, 4_000_000]})
    want = coverage_features(cov, win)
    gc.collect()
    tracemalloc.start()
    try:
        got = coverage_features(cov, win)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    pd.testing.assert_frame_equal(got, want)
    # ~41 bytes a row (session 19); ~58 when the first window's filled rows and widths
    # were held while the second's were made, ~50 with the weights' float copy
    assert peak < 46 * n
