"""The compiled summits (``_summit_kernel.summits``, used by ``summit_offsets``) equal the
summit rule computed base by base: the middle of the longest run of consecutive bases at
the top of treatment − scale × control (the first of equally long runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats.peak_columns import summit_offsets


def _rows(rng, n_rows: int, end: int, gaps: bool) -> pd.DataFrame:
    cuts = np.unique(np.r_[0, rng.integers(1, end, n_rows), end])
    s, e = cuts[:-1], cuts[1:]
    n = rng.integers(0, 6, len(s))
    keep = rng.random(len(s)) > 0.3 if gaps else np.ones(len(s), bool)
    return pd.DataFrame({"chrom": "chr1", "chromStart": s[keep], "chromEnd": e[keep],
                         "count": n[keep]})


def _per_base(cov: pd.DataFrame, end: int) -> np.ndarray:
    v = np.zeros(end)
    for s, e, n in cov[["chromStart", "chromEnd", "count"]].itertuples(index=False):
        v[s:e] = n
    return v


def _brute(t, c, scale, a, b) -> int:
    v = t[a:b] - (scale * c[a:b] if c is not None else 0.0)
    top = v == v.max()
    best, best_s, j = -1, 0, 0
    while j < len(v):
        if top[j]:
            s = j
            while j < len(v) and top[j]:
                j += 1
            if j - s > best:
                best, best_s = j - s, s
        else:
            j += 1
    return ((a + best_s) + (a + best_s + best)) // 2 - a


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), control=st.booleans(), gaps=st.booleans(),
       scale=st.sampled_from([0.0, 0.5, 1.0, 1.7]))
def test_summits_equal_the_rule_base_by_base(seed, control, gaps, scale):
    rng = np.random.default_rng(seed)
    end = 400
    cov = _rows(rng, 40, end, gaps)
    ctl = _rows(rng, 20, end, gaps) if control else None
    a = rng.integers(0, end - 1, 25)
    b = np.minimum(a + rng.integers(1, 120, 25), end)
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": a, "chromEnd": b})
    got = summit_offsets(peaks, cov, control=ctl, control_scale=scale)
    t = _per_base(cov, end)
    c = None if ctl is None else _per_base(ctl, end)
    want = [_brute(t, c, scale, int(x), int(y)) for x, y in zip(a, b)]
    assert got.tolist() == want


def test_peaks_of_several_chromosomes_and_samples_keep_their_order():
    cov = pd.DataFrame({"sample_id": ["s", "s", "u"], "chrom": ["chr1", "chr2", "chr1"],
                        "chromStart": [0, 0, 0], "chromEnd": [10, 10, 10],
                        "count": [1, 1, 1]})
    cov = pd.concat([cov, cov.assign(chromStart=[10, 10, 10], chromEnd=[40, 20, 30],
                                     count=[5, 5, 5])], ignore_index=True)
    peaks = pd.DataFrame({"sample_id": ["u", "s", "s"], "chrom": ["chr1", "chr2", "chr1"],
                          "chromStart": [0, 0, 0], "chromEnd": [40, 40, 40]})
    # u/chr1: 10-30 at 5 -> base 20; s/chr2: 10-20 -> 15; s/chr1: 10-40 -> 25
    assert summit_offsets(peaks, cov).tolist() == [20, 15, 25]


def test_a_later_higher_top_and_equally_long_runs():
    # one pass over the pieces: a long run at 3 is forgotten for a later short one at 5;
    # of two runs at 5 as long, the first; a run at the top up to the peak's end counts
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 40, 44, 50, 54, 60],
                        "chromEnd": [10, 40, 44, 50, 54, 60, 70],
                        "count": [1, 3, 5, 1, 5, 2, 6]})
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 0, 55],
                          "chromEnd": [60, 40, 70]})
    t = _per_base(cov, 70)
    want = [_brute(t, None, 1.0, int(x), int(y)) for x, y in
            zip(peaks["chromStart"], peaks["chromEnd"])]
    assert want == [42, 25, 10]  # bases 40-43 (not 50-53, as long), 10-39, 60-69
    assert summit_offsets(peaks, cov).tolist() == want


def test_a_peak_over_many_rows():
    # hundreds of pieces in one peak, runs at the top value broken and taken up again
    rng = np.random.default_rng(4)
    end = 5000
    cov, ctl = _rows(rng, 900, end, True), _rows(rng, 700, end, True)
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": [3, 0, 2500],
                          "chromEnd": [4990, end, 2600]})
    got = summit_offsets(peaks, cov, control=ctl, control_scale=0.8)
    t, c = _per_base(cov, end), _per_base(ctl, end)
    assert got.tolist() == [_brute(t, c, 0.8, int(x), int(y)) for x, y in
                            zip(peaks["chromStart"], peaks["chromEnd"])]


def test_overlapping_coverage_rows_are_refused():
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 5], "chromEnd": [10, 20],
                        "count": [1, 2]})
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [20]})
    with pytest.raises(ValueError, match="coverage.*overlap"):
        summit_offsets(peaks, cov)
    with pytest.raises(ValueError, match="control.*overlap"):
        summit_offsets(peaks, cov.iloc[:1], control=cov)


def test_compiled_integrals_equal_the_vectorized_formula():
    from penlearn.peaks.formats._summit_kernel import integrals

    rng = np.random.default_rng(6)
    for _ in range(300):
        cov = _rows(rng, int(rng.integers(1, 40)), 500, True)
        s, e = cov["chromStart"].to_numpy(np.int64), cov["chromEnd"].to_numpy(np.int64)
        n = cov["count"].to_numpy(float) * rng.random()
        if not len(s):
            continue
        cum = np.r_[0.0, np.cumsum(n * (e - s))]
        x = rng.integers(-10, 520, int(rng.integers(1, 30)))
        if rng.random() < 0.5:
            x = np.sort(x)  # (the galloping walk; unsorted: from the first row again)
        i = np.searchsorted(s, x, side="right") - 1
        j = np.maximum(i, 0)
        want = np.where(i >= 0, cum[j] + n[j] * (np.clip(x, s[j], e[j]) - s[j]), 0.0)
        np.testing.assert_array_equal(integrals(s, e, n, cum, x), want)
