"""The whole-chromosome tables that ``callpeak``'s memory no longer holds (issue 55) give
the values they gave: each rewrite against the computation it replaced, written here as
the reference (a filled copy of the chromosome, the stretches of every row, the
interpolation table of every row, ``scipy.stats``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import traced_peak
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from penlearn.peaks.formats.peak_stats import _binomial_logsf, _poisson_logsf
from penlearn.peaks.peakseg._flanks import _below, uncovered_segments
from penlearn.peaks.peakseg.contigs import fill_gaps
from penlearn.peaks.peakseg.evaluation import _windows_of
from penlearn.peaks.peakseg.features import window_id
from penlearn.peaks.pretrained import _long_piece_edges, _stretches, default_windows


def _rows(rng, n: int, chrom: str = "c") -> pd.DataFrame:
    """Sorted coverage rows with gaps (some touching), counts 0..5."""
    w = rng.integers(1, 40, n)
    gaps = rng.integers(0, 3, n) * rng.integers(0, 30, n)
    start = np.cumsum(np.r_[rng.integers(0, 80), (w + gaps)[:-1]])
    return pd.DataFrame({"chrom": chrom, "chromStart": start, "chromEnd": start + w,
                         "count": rng.integers(0, 6, n)})


def test_poisson_logsf_is_scipy_stats_value_for_value():
    """``scipy.special`` only (``scipy.stats`` is ~50 MB of a process): the same float64
    bits as ``scipy.stats.poisson.logsf``, edges included (below the support, +inf,
    NaN, mu = 0, mu < 0)."""
    rng = np.random.default_rng(0)
    k = np.r_[rng.integers(-3, 300, 20_000).astype(float), rng.random(500) * 40,
              np.nan, np.inf, -np.inf, 0.0, -0.0, 1e300, 4.0, 2.0]
    mu = np.r_[rng.gamma(1.0, 15.0, 20_000), rng.random(500) * 9, 1, 1, 1, 0, 0, 3,
               np.nan, -1.0]
    mu[:50] = 0.0
    want, got = stats.poisson.logsf(k, mu), _poisson_logsf(k, mu)
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ints = rng.integers(-2, 200, 5000)
    assert np.array_equal(_poisson_logsf(ints - 1, np.full(5000, 7.5)),
                          stats.poisson.logsf(ints - 1, np.full(5000, 7.5)))


def test_binomial_logsf_is_scipy_stats_value_for_value():
    """``scipy.special``'s ufunc only (``scipy.stats`` was ~40 MB of a ``callpeak``
    process with a control; issue 55, session 19): the same float64 bits as
    ``scipy.stats.binom.logsf``, edges included (below the support, from n up, +inf,
    NaN, n not whole, n < 0, n = 0, prob 0, 1 or out of [0, 1])."""
    rng = np.random.default_rng(1)
    n = np.r_[rng.integers(0, 3000, 20_000).astype(float), 5.5, -1.0, 0.0, np.nan, 7.0,
              7.0, 7.0, 7.0, 7.0, 1e6]
    x = np.r_[np.floor(rng.random(20_000) * (n[:20_000] + 4)) - 2, 1.0, 1.0, 0.0, 1.0,
              np.nan, np.inf, -np.inf, -0.0, 3.5, 4e5]
    for prob in (0.37, 0.5, 1e-9, 0.0, 1.0, 1.5, -0.1, np.nan):
        want, got = stats.binom.logsf(x, n, prob), _binomial_logsf(x, n, prob)
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("control", [False, True])
def test_callpeak_imports_no_scipy_stats(tmp_path, control):
    """The calls' p-values (and, with a control, the binomial test against it) without
    ``scipy.stats`` (imported, it was ~45 MB of the ~250 MB a ``callpeak`` process holds
    before any read; issue 55)."""
    import subprocess
    import sys

    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) is not "
                        "installed")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    design = plant_regions({"chr1": 200_000, "chr2": 100_000}, 6, 2, in_sticky=1, seed=3)
    t, c = tmp_path / "t.bam", tmp_path / "c.bam"
    write_reads_bam(t, design, background=3000, per_peak=100, sticky_fold=5, seed=1)
    args = ['callpeak', '-t', str(t), '-f', 'BAM', '-g', '300000', '-n', 'x', '--outdir',
            str(tmp_path), '--quiet']
    if control:
        write_reads_bam(c, design, background=3000, sticky_fold=5, seed=2)
        args[3:3] = ['-c', str(c)]
    code = ("import sys; from penlearn.cli.main import main; "
            f"rc = main({args!r}); "
            "print(sorted(m for m in sys.modules if m.startswith('scipy.stats'))); "
            "sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "x_peaks.narrowPeak").stat().st_size > 0
    assert out.stdout.strip().splitlines()[-1] == "[]"


def _edges_of_every_stretch(a, b, max_bases, start, end, count):
    """The edges of the code before issue 55: the stretches of the whole problem."""
    starts, ends, counts = _stretches(start, end, count)
    k = int(np.ceil((b - a) / (0.8 * max_bases)))
    radius = (b - a) / k / 8
    edges = [a]
    for i in range(1, k):
        t = a + (b - a) * i // k
        lo, hi = int(np.ceil(t - radius)), int(np.floor(t + radius))
        first, last = np.searchsorted(ends, lo, side="right"), np.searchsorted(starts, hi)
        s, e = np.maximum(starts[first:last], lo), np.minimum(ends[first:last], hi)
        if not len(s):
            edges.append(t)
            continue
        mid = (s + e) // 2
        edges.append(int(mid[np.lexsort((np.abs(mid - t), s - e, counts[first:last]))[0]]))
    return edges + [b]


def test_long_piece_edges_equal_those_of_every_stretch():
    rng = np.random.default_rng(1)
    for _ in range(300):
        g = _rows(rng, int(rng.integers(2, 1500)))
        start, end = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
        count = g["count"].to_numpy()
        a, b = int(start[0]), int(end[-1])
        max_bases = float(rng.integers(20, max(21, (b - a) // 2 + 1)))
        if b - a <= max_bases:
            continue
        assert _long_piece_edges(a, b, max_bases, (start, end, count)) == \
            _edges_of_every_stretch(a, b, max_bases, start, end, count)
    # and the windows themselves, one chromosome cut in many parts
    g = _rows(rng, 20_000)
    w = default_windows(g, max_bases=3000.0, min_gap=40)
    assert len(w) > 50 and (w["chromEnd"] - w["chromStart"]).max() <= 3000


def _windows_of_filled(coverage, windows):
    """The windows' rows as before issue 55: the whole chromosome filled, then cut."""
    filled = {c: fill_gaps(g) for c, g in coverage.groupby("chrom", sort=False)}
    out = []
    for w in windows.itertuples(index=False):
        f = filled[w.chrom]
        lo, hi = f["chromStart"].to_numpy(), f["chromEnd"].to_numpy()
        part = f[(hi > w.chromStart) & (lo < w.chromEnd)].copy()
        part["chromStart"] = np.maximum(part["chromStart"].to_numpy(), w.chromStart)
        part["chromEnd"] = np.minimum(part["chromEnd"].to_numpy(), w.chromEnd)
        out.append((window_id(None, w.chrom, w.chromStart, w.chromEnd),
                    part[["chrom", "chromStart", "chromEnd", "count"]]))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_window_rows_equal_those_cut_from_the_filled_chromosome(seed):
    """Windows starting and ending in gaps, inside rows, on row bounds, beyond the
    chromosome's rows: the rows (filled, clipped) of the chromosome filled whole."""
    rng = np.random.default_rng(seed)
    cov = pd.concat([_rows(rng, 300, "c1"), _rows(rng, 50, "c2")], ignore_index=True)
    windows = []
    for c, g in cov.groupby("chrom", sort=False):
        lo, hi = int(g["chromStart"].min()), int(g["chromEnd"].max())
        bounds = np.r_[g["chromStart"], g["chromEnd"]]
        edges = np.unique(np.r_[rng.integers(lo - 5, hi + 5, 6), rng.choice(bounds, 4)])
        windows += [(c, int(x), int(y)) for x, y in zip(edges[:-1], edges[1:])
                    if ((g["chromStart"] < y) & (g["chromEnd"] > x)).any()]
    windows = pd.DataFrame(windows, columns=["chrom", "chromStart", "chromEnd"])
    got = [(name, gw) for name, _, gw in _windows_of(cov, windows)]
    want = _windows_of_filled(cov, windows)
    assert [n for n, _ in got] == [n for n, _ in want] and len(got) >= 4
    for (_, a), (_, b) in zip(got, want):
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


def test_uncovered_segments_mean_equals_the_interpolation_of_every_row():
    """The bases between windows get the mean of the table of every row's cumulative
    coverage (``np.interp``), bit for bit."""
    rng = np.random.default_rng(5)
    for trial in range(300):
        g = _rows(rng, int(rng.integers(1, 80)))
        if trial % 2:
            g["count"] = rng.random(len(g)) * 7
        start, end = g["chromStart"].to_numpy(), g["chromEnd"].to_numpy()
        pts = np.unique(rng.choice(np.r_[start, end, rng.integers(start[0], end[-1] + 1,
                                                                   6)], 6))
        pts = pts[: len(pts) // 2 * 2]
        segs = pd.DataFrame({"chrom": "c", "chromStart": pts[0::2], "chromEnd": pts[1::2],
                             "mean": 1.0, "status": "peak", "sequence_id": "w",
                             "log_lambda": 0.0})
        out = uncovered_segments(segs, g)
        fill = out[out["sequence_id"] != "w"]
        total = np.r_[0.0, np.cumsum(g["count"].to_numpy(float) * (end - start))]
        xp, fp = np.c_[start, end].ravel(), np.c_[total[:-1], total[1:]].ravel()
        a, b = fill["chromStart"].to_numpy(), fill["chromEnd"].to_numpy()
        want = (np.interp(b, xp, fp) - np.interp(a, xp, fp)) / (b - a)
        assert np.array_equal(fill["mean"].to_numpy(), want)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 12), st.integers(0, 6)),
                min_size=1, max_size=25),
       st.lists(st.integers(-5, 400), max_size=12), st.booleans(), st.booleans())
def test_below_is_the_interpolation_of_every_row(rows, xs, real, infinite):
    """:func:`_below` at every ``x`` at once is ``np.interp`` of the whole table of the
    rows' cumulative coverage value for value: at the rows' bounds, inside rows, in gaps,
    before the first and past the last row, on empty rows and infinite sums; given that
    table or the counts (integers or floats) whose running sums it holds."""
    width, gap, count = (np.array(c, np.int64) for c in zip(*rows))
    start = np.cumsum(np.r_[0, (width + gap)[:-1]]) + 3
    end = start + width
    c = count * (np.pi if real else 1.0)
    if infinite:
        c[len(c) // 2] = np.inf
    with np.errstate(invalid="ignore"):  # (inf · 0 bases: NaN, as the caller's)
        total = np.cumsum(c * (end - start))
    x = np.r_[np.array(xs, np.int64), start, end]
    xp = np.c_[start, end].ravel()
    fp = np.c_[np.r_[0.0, total[:-1]], total].ravel()
    with np.errstate(invalid="ignore"):
        want = np.array([np.interp(v, xp, fp) for v in x])
    assert np.array_equal(_below(x, start, end, total), want, equal_nan=True)
    # from the counts: the running sums at the rows needed only, the same bits
    with np.errstate(invalid="ignore"):
        got = _below(x, start, end, count=c if real or infinite else count)
    assert np.array_equal(got, want, equal_nan=True)


def test_fragment_size_of_read_arrays_equals_that_of_their_reads():
    """``callpeak`` estimates from its compact reads (5′ ends and strands as held, weights
    or none), not from a :class:`Reads` copy of them (int32 5′ ends + 1 and a where of
    every read: ~150 MB at 20 million reads)."""
    from penlearn.peaks.formats.fragment_size import estimate_fragment_size
    from penlearn.peaks.formats.read_arrays import ReadArrays

    rng = np.random.default_rng(7)
    chroms = {}
    for k, n in enumerate((40_000, 25_000)):
        centre = np.sort(rng.integers(0, 2_000_000, 300))
        s = np.r_[rng.integers(0, 2_000_000, n), np.repeat(centre, 60)
                  + rng.integers(-100, 100, 300 * 60)]
        rev = rng.random(len(s)) < 0.5
        five = np.where(rev, s + 180, s).astype(np.int32)
        order = np.argsort(five, kind="stable")
        five, rev = five[order], rev[order]
        w = None if k == 0 else rng.integers(1, 3, len(five)).astype(np.int64)
        chroms[f"chr{k + 1}"] = (five, rev, w)
    reads = ReadArrays(False, chroms, {"chr1": 2_100_000, "chr2": 2_100_000})
    for mfold in ((5.0, 50.0), (2.0, 80.0)):
        want = estimate_fragment_size(reads.as_reads(), mfold=mfold)
        assert estimate_fragment_size(reads, mfold=mfold) == want
    assert 150 <= want <= 210


def test_window_features_equal_those_of_the_filled_chromosome():
    """``coverage_features`` of one chromosome's windows, each window's rows filled alone:
    the features of the rows of the chromosome filled whole (windows in gaps, across
    rows, on row bounds)."""
    from penlearn.peaks.peakseg.features import (
        FEATURE_COLUMNS,
        coverage_features,
        weighted_features,
    )

    rng = np.random.default_rng(11)
    for _ in range(40):
        g = _rows(rng, int(rng.integers(5, 400)))
        lo, hi = int(g["chromStart"].min()), int(g["chromEnd"].max())
        edges = np.unique(np.r_[rng.integers(lo, hi, 5), rng.choice(g["chromEnd"], 3), lo,
                                hi])
        windows = pd.DataFrame({"chrom": "c", "chromStart": edges[:-1],
                                "chromEnd": edges[1:]})
        f = fill_gaps(g)
        s, e, n = (f[c].to_numpy() for c in ("chromStart", "chromEnd", "count"))
        want = []
        for a, b in zip(edges[:-1], edges[1:]):
            m = (e > a) & (s < b)
            want.append(weighted_features(n[m], np.minimum(e[m], b) - np.maximum(s[m], a)))
        got = coverage_features(g, windows)
        assert list(got.columns) == list(FEATURE_COLUMNS)
        assert np.array_equal(got.to_numpy(), np.array(want), equal_nan=True)


def _pileup(n: int, seed: int = 5) -> pd.DataFrame:
    """A pileup's rows (callpeak's chromosome): sorted, every count > 0, a few gaps."""
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 40, n)
    gap = (rng.random(n) < 0.01) * rng.integers(0, 5000, n)
    start = np.cumsum(np.r_[0, (w + gap)[:-1]])
    return pd.DataFrame({"chrom": pd.Categorical.from_codes(np.zeros(n, np.int8), ["chr1"]),
                         "chromStart": start, "chromEnd": start + w,
                         "count": rng.integers(1, 30, n)})


def test_running_sums_are_numpys_cumsum_bit_for_bit():
    """``running_sums`` (one compiled pass) gives ``np.r_[0.0, np.cumsum(counts * (ends
    - starts))]``'s float64 bits (float and integer counts, other dtypes by numpy),
    holding only its result (numpy's formula: four arrays of the rows, ~80 MB at chr1's
    calls; issue 55)."""
    from penlearn.peaks.formats._summit_kernel import running_sums

    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 5000):
        s = np.cumsum(rng.integers(1, 300, n))
        e = s + rng.integers(1, 300, n)
        for c in (rng.random(n) * 7.3, rng.integers(0, 9, n).astype(float),
                  rng.integers(0, 9, n), rng.integers(0, 9, n).astype(np.int32)):
            want = np.r_[0.0, np.cumsum(c * (e - s))]
            got = running_sums(s, e, c)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    n = 200_000
    s = np.arange(n, dtype=np.int64) * 10
    c = rng.random(n)
    _, peak = traced_peak(running_sums, s, s + 5, c)
    assert peak < 8 * n + 100_000, peak


def test_default_windows_of_a_pileup_copy_none_of_its_columns():
    """A pileup (every row has reads): :func:`default_windows` cuts its own columns, not
    the covered rows' copies (an index, starts and ends: ~60 MB at chr1's features,
    issue 55); the same windows as with a zero-count row among them."""
    n = 200_000
    cov = _pileup(n)
    win, peak = traced_peak(default_windows, cov)
    assert peak < 2 * 8 * n, peak / (8 * n)  # (before: 4.1 x 8 bytes a row)
    # a zero-count row inserted inside a gap changes nothing (the general path)
    gap = int(np.flatnonzero(cov["chromStart"].to_numpy()[1:] - cov["chromEnd"].to_numpy()[
        :-1] > 100)[0])
    e = int(cov["chromEnd"].iloc[gap])
    zero = pd.DataFrame({"chrom": "chr1", "chromStart": [e], "chromEnd": [e + 10],
                         "count": [0]})
    mixed = pd.concat([cov.iloc[:gap + 1].astype({"chrom": str}), zero,
                       cov.iloc[gap + 1:].astype({"chrom": str})], ignore_index=True)
    pd.testing.assert_frame_equal(default_windows(mixed), win)


def test_sample_windows_of_one_chromosome_hash_no_row():
    """One sample's chromosome (callpeak's): the windows get its id without a hash of
    every row's (pandas makes the 1-byte category codes int64 for ``pd.unique``: ~20 MB
    at chr1, issue 55); the same table as the general path's."""
    from penlearn.peaks.peakseg import features

    n = 200_000
    cov = features._check_coverage(_pileup(n))
    win = default_windows(cov.drop(columns="sample_id"))
    got, peak = traced_peak(features._sample_windows, cov, win)
    assert peak < 0.75 * 8 * n, peak / (8 * n)  # (before: 1.5 x 8 bytes a row)
    general = cov.astype({"sample_id": str, "chrom": str}).iloc[::-1]
    pd.testing.assert_frame_equal(got, features._sample_windows(general, win))


def test_screened_out_holds_one_running_sum_of_the_rows():
    """The calls' screen: its running sums of the chromosome's coverage made in one pass
    and the padded counts not held past their use (issue 55: ~80 MB at chr1's calls);
    the traced peak under 3 x 8 bytes a row (before: 4.05)."""
    from penlearn.peaks.peakseg.calls import screened_out

    n = 200_000
    cov = _pileup(n)
    s, e = cov["chromStart"].to_numpy(), cov["chromEnd"].to_numpy()
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": s[::1000], "chromEnd": e[::1000] + 500})
    level = (float((cov["count"] * (e - s)).sum()), float(e[-1]), 200.0)
    out, peak = traced_peak(screened_out, peaks, cov, level, 2.0)
    assert peak < 3 * 8 * n, peak / (8 * n)
    assert out.any() and not out.all()
