"""Zero-coverage gaps (filled by default, or refused) and many samples × chromosomes at
every entry point: a gapped file gives the model, peaks, features and error functions of
the filled file; a table of several problems gives what one call per problem gives."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need
from hypothesis import given, settings
from hypothesis import strategies as st

import penlearn as pl
from penlearn.peaks.peakseg.contigs import (
    clipped_rows,
    coverage_problems,
    fill_gaps,
    filled_window,
    window_rows,
)
from penlearn.peaks.peakseg.evaluation import window_error_functions
from penlearn.peaks.peakseg.search import peakseg_search
from penlearn.peaks.peakseg.solver import peakseg_path

RAW = DATA / "chipseq_raw"


def _random_gapped(rng) -> pd.DataFrame:
    """2 samples × 2 chromosomes, random runs with random gaps, rows interleaved."""
    parts = []
    for s in ("a", "b"):
        for c in ("chr1", "chr2"):
            n = int(rng.integers(1, 8))
            gaps = rng.integers(0, 3, n) * rng.integers(0, 2, n)
            lengths = rng.integers(1, 4, n)
            start = int(rng.integers(0, 5)) + np.cumsum(np.r_[0, (lengths + gaps)[:-1]])
            parts.append(pd.DataFrame({"sample_id": s, "chrom": c, "chromStart": start,
                                       "chromEnd": start + lengths,
                                       "count": rng.integers(0, 5, n), "note": f"{s}{c}"}))
    cov = pd.concat(parts, ignore_index=True)
    # interleave the problems, keeping each problem's rows in order
    key = np.concatenate([np.arange(len(p)) for p in parts]) + rng.random(len(cov)) * 0.5
    return cov.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)


def _bases(cov: pd.DataFrame) -> dict:
    out = {}
    for r in cov.itertuples(index=False):
        for b in range(r.chromStart, r.chromEnd):
            out[(r.sample_id, r.chrom, b)] = r.count
    return out


@pytest.mark.parametrize("seed", range(30))
def test_fill_gaps_against_per_base_expansion(seed):
    """Brute force: every base between a problem's first and last row is covered exactly
    once, with the original count where a row was and 0 elsewhere; original rows kept in
    order, other columns copied into the filled rows."""
    rng = np.random.default_rng(seed)
    cov = _random_gapped(rng)
    filled = fill_gaps(cov)
    before, after = _bases(cov), _bases(filled)
    for (s, c), g in cov.groupby(["sample_id", "chrom"]):
        lo, hi = g["chromStart"].min(), g["chromEnd"].max()
        for b in range(lo, hi):
            assert after[(s, c, b)] == before.get((s, c, b), 0)
        f = filled[(filled["sample_id"] == s) & (filled["chrom"] == c)]
        assert (f["chromStart"].to_numpy()[1:] == f["chromEnd"].to_numpy()[:-1]).all()
        assert (f["note"] == f"{s}{c}").all()
    assert len(after) == sum(
        g["chromEnd"].max() - g["chromStart"].min()
        for _, g in cov.groupby(["sample_id", "chrom"]))
    # the original rows, in their order, are the non-inserted rows
    merged = filled.merge(cov, how="left", indicator=True)
    orig = filled[(merged["_merge"] == "both").to_numpy()]
    assert len(orig) == len(cov)
    np.testing.assert_array_equal(orig[cov.columns].to_numpy(), cov.to_numpy())
    if len(filled) > len(cov):
        with pytest.raises(ValueError, match=r"zero-coverage gap in sample '[ab]' on chr[12]: "
                                             r"row \d+ ends at \d+ but row \d+ starts at"):
            fill_gaps(cov, "error")
    else:
        assert fill_gaps(cov, "error") is cov


@pytest.mark.parametrize("seed", range(30))
def test_one_problem_fill_equals_the_general_fill(seed):
    """A single (sample, chromosome) table is filled column by column (the genome-scale
    path); it must give exactly the rows the general path gives that problem inside a
    table of several, dtypes and the copied columns included."""
    rng = np.random.default_rng(seed)
    cov = _random_gapped(rng).astype({"note": "string"})
    general = fill_gaps(cov)
    for (s, c), g in cov.groupby(["sample_id", "chrom"], sort=False):
        one = fill_gaps(g.reset_index(drop=True))
        want = general[(general["sample_id"] == s) & (general["chrom"] == c)]
        pd.testing.assert_frame_equal(one, want.reset_index(drop=True))
        if len(one) > len(g):
            with pytest.raises(ValueError, match=r"zero-coverage gap in sample '[ab]' on"):
                fill_gaps(g.reset_index(drop=True), "error")


def test_gap_policy_is_checked():
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 5], "chromEnd": [2, 9],
                        "count": [1, 2]})
    for call in (lambda g: pl.peakseg(cov, 1.0, gaps=g),
                 lambda g: fill_gaps(cov, g),
                 lambda g: pl.coverage_features(cov, gaps=g),
                 lambda g: pl.predict_peaks(cov, log_penalty=1.0, gaps=g)):
        with pytest.raises(ValueError, match="gaps must be 'fill' or 'error', got 'split'"):
            call("split")
        with pytest.raises(ValueError, match="zero-coverage gap on chr1: row 0 ends at 2"):
            call("error")


def _mono27ac_gapped():
    """Mono27ac (filled, as PeakSegDisk needs it) and the same without its interior
    zero-count rows, as ``bedtools genomecov -bg`` writes it."""
    filled = pl.read_bedgraph(need(RAW / "Mono27ac" / "coverage.bedGraph.gz"))
    lab = pl.read_peak_labels(need(RAW / "Mono27ac" / "labels.csv"))
    interior = np.r_[False, np.ones(len(filled) - 2, bool), False]
    gapped = filled[~(interior & (filled["count"] == 0).to_numpy())].reset_index(drop=True)
    return filled, gapped, lab


def test_gapped_file_gives_the_filled_file():
    filled, gapped, lab = _mono27ac_gapped()
    assert len(gapped) == len(filled) - 1016
    pd.testing.assert_frame_equal(fill_gaps(gapped), filled)
    for pen in (0.0, 2000.0, 1e5):
        a, b = pl.peakseg(gapped, pen), pl.peakseg(filled, pen)
        pd.testing.assert_frame_equal(a.segments, b.segments)
        assert a.total_loss == b.total_loss and a.n_peaks == b.n_peaks
    with pytest.raises(ValueError, match="gap on chr11: row 1 ends at 132643 but row 2"):
        pl.peakseg(gapped, 1.0, gaps="error")
    pd.testing.assert_frame_equal(pl.coverage_features(gapped), pl.coverage_features(filled))
    pd.testing.assert_frame_equal(pl.predict_peaks(gapped, log_penalty=math.log(2000.0)),
                                  pl.predict_peaks(filled, log_penalty=math.log(2000.0)))
    ev_g = pl.peak_error_functions(gapped, lab, max_peaks=12, progress=False)
    ev_f = pl.peak_error_functions(filled, lab, max_peaks=12, progress=False)
    pd.testing.assert_frame_equal(ev_g, ev_f)
    assert peakseg_search(gapped, 5).model.peaks.equals(peakseg_search(filled, 5).model.peaks)
    # a window that starts inside a gap sees the zeros there, as in the filled file
    win = pd.DataFrame({"chrom": ["chr11"], "chromStart": [300000], "chromEnd": [400000]})
    assert not ((gapped["chromStart"] <= 300000) & (gapped["chromEnd"] > 300000)).any()
    pd.testing.assert_frame_equal(pl.coverage_features(gapped, win),
                                  pl.coverage_features(filled, win))
    pd.testing.assert_frame_equal(pl.predict_peaks(gapped, log_penalty=7.0, windows=win),
                                  pl.predict_peaks(filled, log_penalty=7.0, windows=win))
    pd.testing.assert_frame_equal(
        pl.peak_error_functions(gapped, lab, windows=win, max_peaks=5, progress=False),
        pl.peak_error_functions(filled, lab, windows=win, max_peaks=5, progress=False))


def test_many_samples_and_chromosomes_are_one_problem_each():
    """peakseg on a table of 27 samples (× 2 chromosomes for two of them) equals one call
    per (sample, chromosome); so do predict_peaks and peak_error_functions."""
    cov = pd.read_csv(need(RAW / "H3K4me3_XJ_immune_chunk1" / "coverage.csv.gz"))
    cov = cov.drop(columns="cell_type")
    extra = cov[cov["sample_id"].isin(["McGill0004", "McGill0091"])].assign(chrom="chrOther")
    table = pd.concat([cov, extra], ignore_index=True)
    problems = coverage_problems(table)
    assert len(problems) == 27 + 2
    fit = pl.peakseg(table, 3000.0)
    assert fit.loss[["sample_id", "chrom"]].values.tolist() == [[s, c] for s, c, _ in problems]
    one_by_one = [pl.peakseg(g, 3000.0) for _, _, g in problems]
    assert fit.n_peaks == sum(f.n_peaks for f in one_by_one) > 0
    assert fit.total_loss == pytest.approx(sum(f.total_loss for f in one_by_one), rel=1e-12)
    expected = pd.concat([f.peaks.assign(sample_id=s)
                          for (s, _, _), f in zip(problems, one_by_one, strict=True)],
                         ignore_index=True)
    pd.testing.assert_frame_equal(fit.peaks, expected[["sample_id", "chrom", "chromStart",
                                                       "chromEnd"]])
    pred = pl.predict_peaks(table, log_penalty=math.log(3000.0))
    # predict_peaks reports the model's peaks that stand above both neighbours (runs of
    # equal mean joined: penlearn.peaks.peakseg.calls), here 51 of the model's 59
    reported = pl.reported_segments(fit.segments)
    reported = reported[reported["status"] == "peak"].reset_index(drop=True)
    assert len(reported) < fit.n_peaks
    pd.testing.assert_frame_equal(pred[["sample_id", "chrom", "chromStart", "chromEnd"]],
                                  reported[["sample_id", "chrom", "chromStart", "chromEnd"]])
    feats = pl.coverage_features(table)
    assert len(feats) == 29 and set(pred["sequence_id"]) <= set(feats.index)
    # labels on the second chromosome of one sample: only that problem has error functions
    lab = pd.DataFrame({"sample_id": "McGill0004", "chrom": "chrOther",
                        "chromStart": [20007000], "chromEnd": [20008000],
                        "annotation": ["peaks"]})
    ev = pl.peak_error_functions(table, lab, max_peaks=3, progress=False)
    g = extra[extra["sample_id"] == "McGill0004"]
    alone = window_error_functions(g, lab.drop(columns="sample_id"),
                                   sequence_id=ev["sequence_id"].iloc[0], max_peaks=3)
    pd.testing.assert_frame_equal(ev, alone)
    assert ev["sequence_id"].iloc[0].startswith("McGill0004/chrOther:")


def test_path_fills_gaps_and_names_the_problem():
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 4, 9, 12, 20],
                        "chromEnd": [3, 9, 12, 15, 26], "count": [1, 9, 8, 0, 2]})
    path = peakseg_path(cov)
    same = peakseg_path(fill_gaps(cov))
    pd.testing.assert_frame_equal(path.models, same.models)
    assert path.model(1).segments["first_row"].tolist() == \
        same.model(1).segments["first_row"].tolist()
    two = pd.concat([cov.assign(sample_id="x"), cov.assign(sample_id="y", count=-1)])
    with pytest.raises(ValueError, match="coverage of sample 'y', chr1 column 'count' must "
                                         "be >= 0; row 0"):
        pl.peakseg(two, 1.0)


def test_one_whole_chromosome_is_never_copied_nor_grouped():
    """The fast path of one (sample, chromosome): the same rows as the general path, and
    the caller's arrays themselves (2·10^7 rows: 0.9 GB less for 'penlearn peaks')."""
    from penlearn.peaks.peakseg.contigs import one_problem
    from penlearn.peaks.peakseg.evaluation import _windows_of
    from penlearn.peaks.peakseg.features import sample_windows

    cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": [0, 4, 9, 12],
                        "chromEnd": [4, 9, 12, 20], "count": [1, 5, 6, 0]})
    assert one_problem(cov) and one_problem(cov.drop(columns="sample_id"))
    for col, value in (("sample_id", "t"), ("chrom", "chr2"), ("chrom", None),
                       ("sample_id", None)):
        other = cov.copy()
        other.loc[2, col] = value
        assert not one_problem(other), (col, value)
        other.loc[:, col] = value
        assert one_problem(other) == (value is not None), (col, value)
        # categorical columns (the streaming callpeak's) by their codes: the same answers
        cat = cov.astype({col: "category"})
        other = cat.copy()
        other[col] = other[col].cat.add_categories([v for v in [value] if v is not None])
        other.loc[2, col] = value
        assert one_problem(cat) and not one_problem(other), (col, value)
    assert fill_gaps(cov) is cov
    [(sid, chrom, g)] = coverage_problems(cov)
    assert (sid, chrom) == ("s", "chr1") and g is cov
    assert sample_windows(cov).values.tolist() == [["s", "chr1", 0, 20]]
    [(name, sid, gw)] = list(_windows_of(cov, None))
    assert (name, sid) == ("s/chr1:0-20", "s")
    assert np.shares_memory(gw["chromStart"].to_numpy(), cov["chromStart"].to_numpy())
    # a gap, or a window inside the chromosome, still gives fresh filled / clipped rows
    gapped = cov.assign(chromStart=[0, 5, 9, 12])
    assert fill_gaps(gapped)["chromStart"].tolist() == [0, 4, 5, 9, 12]
    win = pd.DataFrame({"chrom": ["chr1"], "chromStart": [2], "chromEnd": [10]})
    [(_, _, gw)] = list(_windows_of(cov, win))
    assert gw[["chromStart", "chromEnd"]].values.tolist() == [[2, 4], [4, 9], [9, 10]]
    assert cov["chromStart"].tolist() == [0, 4, 9, 12]  # (the input is unchanged)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 15), st.integers(0, 2), st.integers(0, 9)),
                min_size=1, max_size=30),
       st.integers(-5, 400), st.integers(1, 200), st.booleans(), st.booleans(),
       st.integers(0, 7))
def test_filled_window_is_the_window_rows_filled_then_clipped(rows, start, size, extra,
                                                              real, offset):
    """One compiled pass equals :func:`window_rows`, :func:`fill_gaps`, then
    :func:`clipped_rows` and the columns kept: values, dtypes and index, with gaps or
    none, windows inside or beyond the rows, a categorical ``chrom``, a float column
    carried (the background) and a ``sample_id`` dropped."""
    width, gap, count = (np.array(c, np.int64) for c in zip(*rows))
    gap = gap * (gap + 3)  # (touching rows, gaps of 4 and 10 bases)
    lo = np.cumsum(np.r_[0, (width + gap)[:-1]]) + 2
    g = pd.DataFrame({"sample_id": "s",
                      "chrom": pd.Categorical.from_codes(np.zeros(len(lo), np.int8), ["c"]),
                      "chromStart": lo, "chromEnd": lo + width,
                      "count": count * 0.5 if real else count,
                      "background": np.arange(len(lo)) + 0.25})
    g.index = pd.RangeIndex(offset, offset + len(g))
    columns = ["chrom", "chromStart", "chromEnd", "count", *(["background"] if extra else [])]
    end = start + size
    want = clipped_rows(fill_gaps(window_rows(g, start, end)), start, end)[columns]
    pd.testing.assert_frame_equal(filled_window(g, start, end, tuple(columns)), want)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 6), st.integers(-1, 5), st.integers(-1, 4)),
                min_size=1, max_size=20))
def test_row_faults_are_the_checks_of_check_coverage(rows):
    """One pass: a row below 0, empty, overlapping or with a negative count is a fault
    (check_coverage then names the first); a row after a gap is told apart."""
    from penlearn.peaks.peakseg._contig_kernel import row_faults
    from penlearn.peaks.peakseg.solver import check_coverage

    step, width, count = (np.array(c, np.int64) for c in zip(*rows))
    start = np.cumsum(step) + 1
    end = start + width
    faults = bool((start < 0).any() or (end <= start).any() or (count < 0).any()
                  or (start[1:] < end[:-1]).any())
    assert row_faults(start, end, count) == (faults, bool((start[1:] > end[:-1]).any()))
    cov = pd.DataFrame({"chrom": "c", "chromStart": start, "chromEnd": end, "count": count})
    if faults:
        with pytest.raises(ValueError):
            check_coverage(cov)
    else:
        assert len(check_coverage(cov)) == len(cov) + int((start[1:] > end[:-1]).sum())
