"""``callpeak --solve candidates`` (issue 55): each window solved on the stretches where a
call could pass the cutoff. Each stretch's model is the exact model of its rows; the
stretches hold every row that could be a passing call's summit; the calls that pass
equal those of the whole window's solve on real coverage, and on simulated reads up to a
few bases at a few ends (``benchmarks/RESULTS.md``: the genome-size files byte for
byte)."""

from __future__ import annotations

import math
import shlex

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats.coverage import read_bedgraph, read_coverage
from penlearn.peaks.formats.peak_columns import genome_level, significant
from penlearn.peaks.formats.peak_stats import _poisson_log10_sf, score_columns
from penlearn.peaks.peakseg._flanks import uncovered_segments
from penlearn.peaks.peakseg.calls import peak_calls
from penlearn.peaks.peakseg.candidates import (
    candidate_ranges,
    candidate_segments,
    count_histogram,
    cutoff_bound,
    local_floor,
    ranges_segments,
    row_floors,
    seed_rows,
    summit_threshold,
)
from penlearn.peaks.peakseg.evaluation import _solve_window
from penlearn.peaks.peakseg.solver import _Data

COLUMNS = ["chrom", "chromStart", "chromEnd", "status", "mean"]


def _coverage(counts, widths, start=0) -> pd.DataFrame:
    ends = start + np.cumsum(widths)
    return pd.DataFrame({"chrom": "chr1", "chromStart": ends - widths, "chromEnd": ends,
                         "count": np.asarray(counts, np.int64)})


def _mono27ac() -> pd.DataFrame:
    return read_bedgraph(need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz"))


@pytest.mark.parametrize("log_lambda", [0.0, 3.0, 6.0])
def test_one_range_over_every_row_is_the_whole_window_model(log_lambda):
    cov = _mono27ac()
    got = ranges_segments(_Data.from_coverage(cov), log_lambda, np.array([[0, len(cov)]]))
    want = _solve_window(cov, log_lambda, "w", segments=True)
    pd.testing.assert_frame_equal(got[COLUMNS].reset_index(drop=True),
                                  want[COLUMNS].reset_index(drop=True))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=12, max_size=80),
       st.lists(st.integers(1, 40), min_size=80, max_size=80),
       st.data(), st.floats(-1.0, 5.0))
def test_each_range_is_the_exact_model_of_its_rows(counts, widths, data, log_lambda):
    cov = _coverage(counts, widths[:len(counts)])
    n = len(cov)
    cuts = sorted(data.draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=4,
                                     unique=True)))
    edges = [0, *cuts, n]
    # every other piece a range (none touching another)
    ranges = np.array([(a, b) for k, (a, b) in enumerate(zip(edges[:-1], edges[1:]))
                       if k % 2 == 0], np.int64)
    got = ranges_segments(_Data.from_coverage(cov), log_lambda, ranges, grow_rows=0,
                          grow_bases=0)
    want = pd.concat([_solve_window(cov.iloc[a:b].reset_index(drop=True), log_lambda, "w",
                                    segments=True) for a, b in ranges], ignore_index=True)
    pd.testing.assert_frame_equal(got[COLUMNS].reset_index(drop=True), want[COLUMNS])


def test_touching_ranges_are_refused():
    cov = _coverage([1, 5, 1, 5, 1, 1], [10] * 6)
    with pytest.raises(ValueError, match="none touching"):
        ranges_segments(_Data.from_coverage(cov), 1.0, np.array([[0, 3], [3, 6]]))


def _summit_passes(starts, ends, counts, x, level, log10_p, d, own=True, control=None,
                   scale=1.0):
    """Whether base ``x`` could be a passing call's summit by peak_columns' own rule:
    its held level against its local λ (the genome's level, the windows' means)."""
    from penlearn.peaks.formats._summit_kernel import held_levels
    from penlearn.peaks.formats.peak_columns import (
        CONTROL_WINDOWS,
        OWN_WINDOWS,
        _window_means,
        held_width,
    )

    held = held_levels(starts, ends, counts.astype(float), x, held_width(d))
    if own:
        local = _window_means((starts, ends, counts.astype(float)), x, OWN_WINDOWS)
    else:
        local = [scale * v for v in _window_means(control, x, CONTROL_WINDOWS)]
    lam = np.maximum.reduce([np.full(len(x), level), *local])
    return _poisson_log10_sf(held, lam) + math.log10(2.0) <= log10_p


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 25), min_size=1, max_size=300),
       st.lists(st.integers(1, 60), min_size=300, max_size=300),
       st.floats(0.2, 4.0), st.floats(-8.0, -1.5), st.integers(0, 30), st.data())
def test_ranges_hold_every_possible_summit_widened_by_the_flank(counts, widths, level,
                                                                log10_p, flank, data):
    cov = _coverage(counts, widths[:len(counts)])
    s, e = cov["chromStart"].to_numpy(), cov["chromEnd"].to_numpy()
    c = cov["count"].to_numpy(float)
    r = candidate_ranges(s, e, c, level=level, fragment=20.0, log10_p=log10_p,
                         flank=flank, flank_bases=0)
    assert r.shape[1] == 2 and (r[:, 1] > r[:, 0]).all()
    assert (r[1:, 0] > r[:-1, 1]).all()  # sorted, none touching another
    inside = np.zeros(len(c) + 1, int)
    np.add.at(inside, r[:, 0], 1)
    np.add.at(inside, r[:, 1], -1)
    inside = np.cumsum(inside)[:-1] > 0
    seed = seed_rows(s, e, c, level=level, fragment=20.0, log10_p=log10_p)
    for i in np.flatnonzero(seed):  # each seed and `flank` rows on each side
        assert inside[max(i - flank, 0):min(i + flank + 1, len(c))].all()
    # no base of a row outside every range could be a passing summit (any base: the
    # row's first, last and one drawn)
    out = np.flatnonzero(~inside)
    if len(out):
        pick = np.array(data.draw(st.lists(st.floats(0, 1), min_size=len(out),
                                           max_size=len(out))))
        for x in (s[out], e[out] - 1, s[out] + (pick * (e[out] - s[out] - 1)).astype(int)):
            assert not _summit_passes(s, e, c, x, level, log10_p, 20.0).any()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=2, max_size=200),
       st.lists(st.integers(1, 400), min_size=200, max_size=200),
       st.lists(st.integers(0, 3), min_size=200, max_size=200),
       st.sampled_from([50, 100, 250]), st.floats(0.1, 3.0), st.data())
def test_row_floors_never_exceed_the_windows_means(counts, widths, gaps, bin_size, scale,
                                                   data):
    from penlearn.peaks.formats.peak_columns import CONTROL_WINDOWS, _window_means

    n = len(counts)
    w = np.asarray(widths[:n], np.int64)
    starts = np.cumsum(np.r_[0, (w + np.asarray(gaps[:n]) * 37)[:-1]])
    runs = (starts, starts + w, np.asarray(counts, float))
    # the chromosome's bins, or a span's only (a window and its reach: still a bound)
    lo = data.draw(st.integers(-5000, int(runs[1][-1])))
    span = data.draw(st.sampled_from([None, (lo, lo + data.draw(st.integers(1, 30_000)))]))
    floor = local_floor(runs, CONTROL_WINDOWS, scale, bin_size, span=span)
    # rows of another sample over the same bases (the treatment's, with the control's
    # floor): any rows, each base of them
    q_lo = np.sort(np.array(data.draw(st.lists(st.integers(0, int(runs[1][-1]) + 20_000),
                                               min_size=1, max_size=30))))
    q_hi = q_lo + np.array(data.draw(st.lists(st.integers(1, 3000), min_size=len(q_lo),
                                              max_size=len(q_lo))))
    got = row_floors(q_lo, q_hi, floor)
    for frac in (0.0, 0.5, 1.0):
        x = q_lo + (frac * (q_hi - q_lo - 1)).astype(np.int64)
        means = [scale * m for m in _window_means(runs, x, CONTROL_WINDOWS)]
        assert (got <= np.maximum.reduce(means)).all()


def test_row_floors_bound_a_flat_level_closely():
    from penlearn.peaks.formats.peak_columns import OWN_WINDOWS

    starts = np.arange(0, 100_000, 50)
    runs = (starts, starts + 50, np.full(len(starts), 4.0))
    for span in (None, (40_000, 60_050)):  # (a window's span and its reach)
        got = row_floors(np.array([50_000]), np.array([50_050]),
                         local_floor(runs, OWN_WINDOWS, span=span))
        # the 10 kb window loses at most two bins and the row's width
        assert 4.0 * (1 - 550 / 10_000) <= got[0] <= 4.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=3, max_size=120),
       st.lists(st.integers(1, 30), min_size=120, max_size=120),
       st.integers(1, 80), st.data())
def test_held_bound_never_below_the_chromosomes_held_level(counts, widths, width, data):
    from penlearn.peaks.formats._summit_kernel import held_levels
    from penlearn.peaks.peakseg.candidates import _held_bound

    n = len(counts)
    ends = np.cumsum(np.asarray(widths[:n], np.int64))
    starts = ends - np.asarray(widths[:n], np.int64)
    c = np.asarray(counts, float)
    # a window of the chromosome's rows, its rows split where a background changes
    lo = data.draw(st.integers(0, n - 1))
    hi = data.draw(st.integers(lo + 1, n))
    cut = data.draw(st.lists(st.integers(0, n - 1), max_size=10, unique=True))
    s, e, k = [], [], []
    for i in range(lo, hi):
        if i in cut and ends[i] - starts[i] > 1:
            mid = (starts[i] + ends[i]) // 2
            s += [starts[i], mid]
            e += [mid, ends[i]]
            k += [c[i], c[i]]
        else:
            s.append(starts[i])
            e.append(ends[i])
            k.append(c[i])
    s, e, k = np.array(s), np.array(e), np.array(k)
    rows = np.arange(len(s))
    got = _held_bound(s, e, k, rows, width)
    for x in (s, e - 1, (s + e) // 2):
        assert (got >= held_levels(starts, ends, c, x, width)).all()


@pytest.mark.parametrize("level,log10_p", [(1.0, -2.0), (1.78, -3.11), (0.05, -6.0),
                                            (12.0, -4.0)])
def test_summit_threshold_is_the_least_count_whose_test_passes(level, log10_p):
    h = summit_threshold(level, log10_p)
    two = math.log10(2.0)

    def passes(k):
        return _poisson_log10_sf(np.array([float(k)]), np.array([level]))[0] + two <= log10_p
    assert passes(h) and not passes(h - 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=30, max_size=30), st.floats(0.3, 3.0),
       st.floats(1e4, 1e9), st.sampled_from([0.01, 0.05, 0.1]))
def test_cutoff_bound_is_a_fixed_point_of_the_bh_bound(hist, level, tests, q):
    hist = np.asarray(hist, float)
    log_p = cutoff_bound(hist, level, tests, q)
    assert log_p <= math.log10(q) + 1e-12
    # N: the rows a passing summit could be; BH: a passing p-value <= q N / m
    h = min(summit_threshold(level, log_p), len(hist) - 1)
    n = max(hist[h:].sum(), 1.0)
    assert log_p >= math.log10(q * min(n, tests) / tests) - 1e-9


def test_count_histogram_counts_rows_and_floors_weights():
    got = count_histogram(np.array([0.0, 1.5, 1.0, 7.9, 9000.0]))
    assert got[0] == 1 and got[1] == 2 and got[7] == 1 and got[-1] == 1
    assert got.sum() == 5


def _passing(segs, cov, level3, tests, qvalue=0.05):
    calls = peak_calls(segs, cov, genome_level=level3)
    _, q = score_columns(calls["mean"].to_numpy(float), calls["pValue"].to_numpy(float),
                         tests)
    calls["qValue"] = q
    calls = significant(calls, qvalue=qvalue)
    return calls[["chromStart", "chromEnd", "pValue"]].reset_index(drop=True)


def _samples():
    out = [("Mono27ac", _mono27ac())]
    k36 = read_coverage(need(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
                             / "coverage.csv.gz"))
    for sid, g in k36.groupby("sample_id", sort=True):
        out.append((sid, g[["chrom", "chromStart", "chromEnd", "count"]].reset_index(
            drop=True)))
    return out


@pytest.mark.parametrize("log_lambda,own_floor", [(2.0, False), (5.0, False),
                                                  (2.0, True), (5.0, True)])
def test_real_coverage_passing_calls_equal_the_whole_window_solve(log_lambda, own_floor):
    from penlearn.peaks.formats.peak_columns import OWN_WINDOWS

    pruned = 0
    for _, cov in _samples():
        runs = tuple(cov[c].to_numpy(np.int64) for c in ("chromStart", "chromEnd", "count"))
        total, _, d = genome_level(runs)
        bases = float(runs[1][-1] - runs[0][0])  # (the sample's covered extent)
        level3, tests = (total, bases, d), 4 * bases / d
        log10_p = cutoff_bound(count_histogram(runs[2]), total / bases, tests, 0.05)
        r = candidate_ranges(*runs[:2], runs[2].astype(float), level=total / bases,
                             fragment=d, log10_p=log10_p)
        pruned += len(cov) - int((r[:, 1] - r[:, 0]).sum())
        whole = _solve_window(cov, log_lambda, "w", segments=True)
        floor = local_floor(runs, OWN_WINDOWS) if own_floor else None
        cand = candidate_segments(cov, log_lambda, level=total / bases, fragment=d,
                                  log10_p=log10_p, floor=floor)
        cand = uncovered_segments(cand.assign(sequence_id="w"), cov)
        pd.testing.assert_frame_equal(_passing(cand, cov, level3, tests),
                                      _passing(whole, cov, level3, tests))
    assert pruned > 1000  # (rows some windows were not solved on)


def test_callpeak_candidates_call_the_peaks_of_the_whole_solve(tmp_path):
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) is not "
                        "installed")
    from penlearn.cli.main import main
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    design = plant_regions({"chr1": 3_000_000, "chr2": 1_000_000}, 40, 6, in_sticky=2,
                           seed=11)
    t, c = tmp_path / "t.bam", tmp_path / "c.bam"
    write_reads_bam(t, design, background=40000, per_peak=80, sticky_fold=5, seed=3)
    write_reads_bam(c, design, background=30000, sticky_fold=5, seed=4)
    files = {}
    for solve in ("candidates", "whole"):
        argv = shlex.split(f"callpeak -t {t} -c {c} -f BAM -n {solve} --outdir {tmp_path}"
                           f" --solve {solve} --quiet")
        assert main(argv) == 0
        files[solve] = pd.read_csv(tmp_path / f"{solve}_peaks.narrowPeak", sep="\t",
                                   header=None).drop(columns=3)
    # the same calls; an end may differ by a few bases (a stretch's model is its own:
    # near its ends, and at ties of cost, a change can fall a row away)
    cand, whole = files["candidates"], files["whole"]
    assert len(whole) >= 20 and len(cand) == len(whole)
    assert (cand[0] == whole[0]).all()
    assert (abs(cand[1] - whole[1]) <= 10).all() and (abs(cand[2] - whole[2]) <= 10).all()
    same = ((cand[1] == whole[1]) & (cand[2] == whole[2])).mean()
    assert same >= 0.9, same


def test_candidate_options_follow_the_cutoff_and_the_solve_option():
    from penlearn.cli._callpeak_stream import _candidate_options

    level, hist = (2.0e6, 1.0e6, 200.0), [count_histogram(np.r_[np.zeros(900), [3] * 90,
                                                                 [12] * 10])]
    q = _candidate_options({"qvalue": 0.05, "pvalue": None}, level, hist)
    assert q == {"level": 2.0, "fragment": 200.0,
                 "log10_p": cutoff_bound(hist[0], 2.0, 4 * 1.0e6 / 200.0, 0.05)}
    assert q["log10_p"] < math.log10(0.05)  # (the BH bound: below q itself)
    p = _candidate_options({"qvalue": None, "pvalue": 1e-5}, level, hist)
    assert p["log10_p"] == pytest.approx(-5.0)  # -p: its own cutoff
    for opts in ({"qvalue": None, "pvalue": None},  # no cutoff: every call, every row
                 {"qvalue": 0.05, "pvalue": None, "solve": "whole"},
                 {"qvalue": 0.05, "pvalue": None, "broad": True}):
        assert _candidate_options(opts, level, hist) is None
    assert _candidate_options({"qvalue": 0.05}, (0.0, 1.0e6, 200.0), hist) is None


def test_a_window_without_a_stretch_is_one_background_segment():
    from penlearn.cli._callpeak_stream import _window_segments

    cov = pd.DataFrame({"chrom": pd.Categorical(["chr1"] * 6),
                        "chromStart": range(0, 60, 10), "chromEnd": range(10, 70, 10),
                        "count": [1, 2, 1, 2, 2, 1]})
    opts = {"level": 1.5, "fragment": 10.0, "log10_p": -5.0}
    got = _window_segments(cov, np.log(20.0), None, opts)
    assert got[["chromStart", "chromEnd", "status", "mean"]].values.tolist() == [
        [0, 60, "background", 1.5]]
    # with a stretch: its model there, background around it
    cov.loc[2, "count"] = 40
    got = _window_segments(cov, np.log(20.0), None, {**opts, "log10_p": -3.0})
    assert "peak" in got["status"].tolist()
    assert got["chromStart"].min() == 0 and got["chromEnd"].max() == 60


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([40, 6, 3, 2]), st.lists(st.integers(1, 60), min_size=150,
                                                   max_size=150),
       st.floats(-8.0, -1.5), st.booleans(), st.data())
def test_seed_rows_blocks_are_every_block_whose_test_passes(top, widths, log10_p,
                                                           with_floor, data):
    # (low counts over a level of 1 to 3: blocks near their cutoff, where no summit is)
    counts = data.draw(st.lists(st.integers(0, top), min_size=1, max_size=150))
    level = data.draw(st.floats(0.2, 4.0) if top == 40 else st.floats(0.5, 3.0))
    from penlearn.peaks.peakseg.candidates import BLOCK_FRAGMENTS, _held_bound
    from penlearn.peaks.peakseg.candidates import seed_rows as seeds

    cov = _coverage(counts, widths[:len(counts)])
    s, e = cov["chromStart"].to_numpy(), cov["chromEnd"].to_numpy()
    c = cov["count"].to_numpy(float)
    n, d = len(c), 8.0
    # (a level around which each row's bound varies a little: blocks near their cutoff)
    floor = (data.draw(st.floats(0.0, 5.0)) + np.array(data.draw(st.lists(
        st.floats(0.0, 1.0), min_size=n, max_size=n))) if with_floor else None)
    lam = np.full(n, level) if floor is None else np.maximum(floor, level)
    want = np.zeros(n, bool)
    # the summits: the held level's test against each row's λ
    held = _held_bound(s, e, c, np.arange(n), 4)
    want |= (c >= summit_threshold(level, log10_p)) & (
        _poisson_log10_sf(held, lam) + math.log10(2.0) <= log10_p)
    # every block, one by one: its fragments against its rows' least λ over its length
    for k in BLOCK_FRAGMENTS:
        size = max(int(round(k * d)), 2)
        for lo in range(int(s[0]), int(e[-1]), size // 2):
            hi = min(lo + size, int(e[-1]))
            over = (s < hi) & (e > lo)
            area = float((c * (np.minimum(e, hi) - np.maximum(s, lo)).clip(0))[over].sum())
            mu = lam[over].min() * (hi - lo) / d if over.any() else level * (hi - lo) / d
            p = _poisson_log10_sf(np.array([np.floor(area / d)]), np.array([mu]))[0]
            if p + math.log10(2.0) <= log10_p:
                want |= over
    got = seeds(s, e, c, level=level, fragment=d, log10_p=log10_p, floor=floor)
    assert (got == want).all()


def test_a_block_at_its_cutoff_is_a_seed_and_one_fragment_less_is_not():
    from penlearn.peaks.peakseg.candidates import least_count

    # 4-fragment blocks of 32 bases (fragment 8) on rows of 16: rows 10 and 11 make one
    # block of 2 · (a + b) fragments; a log10 p whose cutoff is even
    lp = next(x for x in np.arange(-2.0, -6.0, -0.25) if least_count(4.0, x) % 2 == 0)
    need = least_count(4.0, lp)
    starts = np.arange(0, 320, 16)
    for total, want in ((need // 2, True), (need // 2 - 1, False)):
        c = np.zeros(20)
        c[10], c[11] = total - total // 2, total // 2
        got = seed_rows(starts, starts + 16, c, level=1.0, fragment=8.0, log10_p=lp)
        assert got[10:12].all() == want and got.sum() == 2 * want, (need, total, got)
