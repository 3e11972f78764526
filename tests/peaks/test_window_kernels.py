"""The windows' and features' faster paths (issue 55) equal the sorts they replace:
rows inserted by one compiled copy (``np.insert``), the zero stretches of a problem (a
stable argsort), the lowest stretch near a cut (``np.lexsort``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.peaks.formats._pileup_kernel import insert_rows
from penlearn.peaks.peakseg.contigs import fill_gaps
from penlearn.peaks.pretrained import _first_least, _stretches


def test_insert_rows_equals_np_insert():
    rng = np.random.default_rng(1)
    for _ in range(500):
        n, k = int(rng.integers(0, 20)), int(rng.integers(0, 6))
        values = rng.integers(-9, 9, n)
        at = np.sort(rng.integers(0, n + 1, k))  # repeated positions too
        new = rng.integers(100, 200, k)
        np.testing.assert_array_equal(insert_rows(values, at, new), np.insert(values, at, new))
        np.testing.assert_array_equal(insert_rows(values.astype(float), at, 0),
                                      np.insert(values.astype(float), at, np.zeros(k)))


def _argsort_stretches(start, end, count):
    gap = start[1:] > end[:-1]
    s = np.r_[start, end[:-1][gap]]
    order = np.argsort(s, kind="stable")
    return (s[order], np.r_[end, start[1:][gap]][order],
            np.r_[count, np.zeros(int(gap.sum()), count.dtype)][order])


def test_stretches_equal_the_stable_sort_of_rows_and_gaps():
    rng = np.random.default_rng(2)
    for _ in range(500):
        n = int(rng.integers(1, 25))
        start = np.cumsum(rng.integers(0, 4, n))
        end = start + rng.integers(0, 4, n)  # empty rows, overlaps (unsorted: the sort)
        if rng.random() < 0.2:
            start = rng.permutation(start)
        count = rng.integers(0, 5, n)
        for x, y in zip(_stretches(start, end, count), _argsort_stretches(start, end, count)):
            np.testing.assert_array_equal(x, y)


def test_first_least_is_lexsorts_first_row():
    rng = np.random.default_rng(3)
    for _ in range(1000):
        n = int(rng.integers(1, 30))
        keys = tuple(rng.integers(0, 3, n) for _ in range(3))  # many ties
        assert _first_least(keys) == np.lexsort(keys[::-1])[0]


def test_fill_gaps_of_one_problem_equals_the_inserted_rows():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 30))
        start = np.cumsum(rng.integers(1, 5, n)) * 3
        cov = pd.DataFrame({"chrom": "chr1", "chromStart": start,
                            "chromEnd": start + rng.integers(1, 4, n),
                            "count": rng.integers(0, 5, n), "sample_id": "s"})
        lo, hi = cov["chromStart"].to_numpy(), cov["chromEnd"].to_numpy()
        after = np.flatnonzero(lo[1:] > hi[:-1])
        at = after + 1
        take = np.insert(np.arange(n), at, after)
        want = pd.DataFrame({"chrom": cov["chrom"].to_numpy()[take],
                             "chromStart": np.insert(lo, at, hi[after]),
                             "chromEnd": np.insert(hi, at, lo[at]),
                             "count": np.insert(cov["count"].to_numpy(), at, 0),
                             "sample_id": cov["sample_id"].to_numpy()[take]})
        pd.testing.assert_frame_equal(fill_gaps(cov), want, check_dtype=False)


def test_fragment_histogram_by_bisection_equals_the_mask_of_each_window():
    # reads unsorted (reverse 5' ends out of order), int32 and int64 positions, windows
    # of two chromosomes interleaved: the same sum, term by term in the windows' order
    from penlearn.peaks.formats.fragment_size import _BIN, _window_histogram

    rng = np.random.default_rng(5)
    for dtype in (np.int32, np.int64):
        fives = {}
        for c in ("chr1", "chr2"):
            pos = rng.integers(0, 30 * _BIN, 3000).astype(dtype)
            fives[c] = (pos, rng.random(3000) < 0.5)
        used = [(0, ("chr1", "chr2")[k % 2], int(rng.integers(0, 31))) for k in range(25)]
        want = np.zeros(301)
        for _, c, i in used:
            pos, rev = fives[c]
            m = (pos >= (i - 1) * _BIN) & (pos < (i + 2) * _BIN)
            plus, minus = pos[m & ~rev], pos[m & rev]
            if not len(plus) or not len(minus):
                continue
            d = (minus[None, :].astype(np.int64) - plus[:, None]).ravel() + 1
            d = d[(d >= 0) & (d <= 300)]
            want += np.bincount(d, minlength=301) - len(plus) * len(minus) * (
                3 * _BIN - np.arange(301)) / (3 * _BIN) ** 2
        np.testing.assert_array_equal(_window_histogram(fives, used, 300), want)


def test_genome_level_of_integer_runs_equals_the_array_sums():
    from penlearn.peaks.formats.peak_columns import _genome_level, genome_level

    rng = np.random.default_rng(7)
    for _ in range(1000):
        n = int(rng.integers(1, 30))
        s = np.cumsum(rng.integers(0, 4, n))
        e = s + rng.integers(1, 5, n)
        if rng.random() < 0.5:  # touching rows (rises counted from the previous count)
            s[1:] = np.maximum(s[1:], e[:-1])
        c = rng.integers(0, 9, n)
        assert genome_level((s, e, c)) == _genome_level([(s, e, c)])
