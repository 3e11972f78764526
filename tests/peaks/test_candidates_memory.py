"""The candidate solve's memory (issue 55): the held bound, the seeds and the window's
rows without copies of a window's rows beyond what they keep, the same values as the
merged runs' and the copies' (``callpeak``'s peak of memory was here, session 19)."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats._pileup_kernel import equal_runs
from penlearn.peaks.formats._summit_kernel import held_levels
from penlearn.peaks.peakseg._windows import _windows_of
from penlearn.peaks.peakseg.candidates import (
    _held_bound,
    candidate_segments,
    local_floor,
    row_floors,
    seed_rows,
)
from penlearn.peaks.peakseg.solver import _Data


def _merged_runs_bound(starts, ends, counts, rows, width):
    """The held bound on the window's runs of touching rows of one count merged (the
    definition before session 19)."""
    out = counts[rows].astype(float)
    inner = (starts[rows] >= starts[0] + width) & (ends[rows] <= ends[-1] - width)
    first, run = equal_runs(starts, ends, counts)
    last = np.r_[first[1:] - 1, len(starts) - 1]
    r_s = starts[first]
    out[inner] = held_levels(r_s, ends[last], counts[first].astype(float),
                             r_s[run[rows[inner]]], int(width))
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=150), st.data(),
       st.integers(1, 90))
def test_held_bound_is_the_level_of_the_merged_runs(counts, data, width):
    # rows of few counts (many equal neighbours), some split in two (a background's
    # cut), some gaps between them
    n = len(counts)
    widths = np.asarray(data.draw(st.lists(st.integers(1, 20), min_size=n, max_size=n)))
    gaps = np.asarray(data.draw(st.lists(st.sampled_from([0, 0, 0, 3]), min_size=n,
                                         max_size=n)))
    starts = np.cumsum(widths + gaps) - widths
    s, e, c = [], [], []
    for a, w, k in zip(starts.tolist(), widths.tolist(), counts):
        cut = w > 1 and data.draw(st.booleans())
        for lo, hi in ([(a, a + w // 2), (a + w // 2, a + w)] if cut else [(a, a + w)]):
            s.append(lo)
            e.append(hi)
            c.append(float(k))
    s, e, c = np.array(s, np.int64), np.array(e, np.int64), np.array(c)
    rows = np.arange(len(s))
    assert _held_bound(s, e, c, rows, width).tolist() == _merged_runs_bound(
        s, e, c, rows, width).tolist()


def _traced_peak(f, *args, **kwargs):
    """The bytes ``f`` allocates at its peak (NumPy's allocations are traced), after a
    first call (its kernels loaded)."""
    f(*args, **kwargs)
    gc.collect()
    tracemalloc.start()
    try:
        f(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    starts = np.arange(n, dtype=np.int64) * 10
    return starts, starts + 10, rng.integers(0, 4, n).astype(float)


def test_held_bound_holds_no_array_of_the_windows_rows():
    s, e, c = _rows(400_000)
    rows = np.arange(1000, 400_000, 40_000)
    # the runs' arrays of every row were five of them (~16 MB here): now a few per row
    # asked for
    assert _traced_peak(_held_bound, s, e, c, rows, 150) < 100_000


def test_seed_rows_holds_three_arrays_of_the_windows_rows_at_most():
    n = 400_000
    s, e, c = _rows(n)
    bins = local_floor((s, e, c), (5000, 10000))

    def seeds():  # (the rows' floors made for the call alone, as candidate_segments does)
        return seed_rows(s, e, c, level=1.5, fragment=400.0, log10_p=-5.0,
                         floor=row_floors(s, e, bins))
    got = _traced_peak(seeds)
    # its λ (8 bytes a row), running sums (8), blocks' counts (4), the seeds (1), the
    # blocks (fewer than a row each): ~22 bytes a row, the floors dropped once the λ is
    # made; with them, the λ's copy with its +inf and the counts' running sum ~43
    # (session 18)
    assert got < 25 * n


def test_candidate_segments_of_the_solver_columns_are_those_of_the_frame():
    rng = np.random.default_rng(3)
    n = 3000
    counts = rng.poisson(2.0, n)
    counts[1000:1010] += 40
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": np.arange(n) * 10,
                        "chromEnd": np.arange(n) * 10 + 10, "count": counts})
    opts = {"level": 2.0, "fragment": 100.0, "log10_p": -5.0, "flank": 20}
    want = candidate_segments(cov, 4.0, **opts)
    assert (want["status"] == "peak").any()
    pd.testing.assert_frame_equal(candidate_segments(_Data.from_coverage(cov), 4.0, **opts),
                                  want)


def test_windows_of_holds_nothing_of_the_window_it_yields():
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 30],
                        "chromEnd": [10, 20, 40], "count": [1, 2, 3]})
    for windows in (None, pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [0, 20],
                                        "chromEnd": [20, 40]})):
        gen = _windows_of(cov, windows)
        for _name, _sid, gw in gen:
            # (the caller may drop the window's rows while it is solved)
            assert not any(r is gen for r in gc.get_referrers(gw))
