"""The PeakSeg model against the R references (PeakSegDisk / PeakSegOptimal outputs).

Every expected value below is read from ``reference/peakseg`` (R's outputs on the same
coverage); nothing is a value our code produced earlier.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, decode_json_numbers, need

from penlearn.peaks.peakseg.search import peakseg_search
from penlearn.peaks.peakseg.solver import peakseg, peakseg_path

MONO = REFERENCE / "peakseg" / "mono27ac"
COLS = ["chrom", "chromStart", "chromEnd", "count"]


def read_bedgraph(path) -> pd.DataFrame:
    return pd.read_csv(need(path), sep="\t", header=None, names=COLS)


@pytest.fixture(scope="module")
def mono27ac() -> pd.DataFrame:
    return read_bedgraph(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz")


@pytest.fixture(scope="module")
def mono_fits(mono27ac):
    loss = pd.read_csv(need(MONO / "fpop_loss.csv"))
    return {float(p): peakseg(mono27ac, float(p)) for p in loss["penalty"]}


def rel(a, b) -> float:
    return abs(a - b) / max(1.0, abs(b))


def assert_same_segments(ours: pd.DataFrame, ref: pd.DataFrame) -> None:
    assert len(ours) == len(ref)
    np.testing.assert_array_equal(ours["chromStart"].to_numpy(), ref["chromStart"].to_numpy())
    np.testing.assert_array_equal(ours["chromEnd"].to_numpy(), ref["chromEnd"].to_numpy())
    assert ours["status"].tolist() == ref["status"].tolist()


def test_mono27ac_loss_rows(mono_fits):
    ref = pd.read_csv(need(MONO / "fpop_loss.csv"))
    for _, row in ref.iterrows():
        got = mono_fits[float(row["penalty"])].loss.iloc[0]
        assert rel(got["total_loss"], row["total.loss"]) < 1e-9
        assert rel(got["mean_pen_cost"], row["mean.pen.cost"]) < 1e-9
        assert got["bases"] == row["bases"] and got["bedgraph_lines"] == row["bedGraph.lines"]
        assert got["peaks"] == row["peaks"]
        assert got["segments"] == row["segments"]
        assert got["equality_constraints"] == row["equality.constraints"]


def test_mono27ac_segments(mono_fits):
    ref = pd.read_csv(need(MONO / "fpop_segments.csv"))
    for pen, fit in mono_fits.items():
        r = ref[ref["penalty"] == pen].reset_index(drop=True)
        assert_same_segments(fit.segments, r)
        np.testing.assert_array_equal(fit.segments["first_row"] + 1, r["first_row"])
        # R prints means with 6 significant digits
        np.testing.assert_allclose(fit.segments["mean"], r["mean"], rtol=1e-5, atol=1e-12)
        strict = np.ones(len(r), bool)
        # outside runs of equal means the optimal mean is the segment's data mean
        m = r["mean"].to_numpy()
        strict[1:] &= ~np.isclose(m[1:], m[:-1], rtol=1e-5)
        strict[:-1] &= ~np.isclose(m[1:], m[:-1], rtol=1e-5)
        np.testing.assert_allclose(
            fit.segments["mean"][strict], r["data_mean"][strict], rtol=1e-12
        )
        assert fit.peaks.equals(
            fit.segments.loc[fit.segments["status"] == "peak",
                             ["chrom", "chromStart", "chromEnd"]].reset_index(drop=True)
        )


def test_mono27ac_penalty0_model_is_feasible_and_optimal(mono_fits, mono27ac):
    fit = mono_fits[0.0]
    seg = fit.segments
    m = seg["mean"].to_numpy()
    up = np.diff(m)[0::2]
    down = np.diff(m)[1::2]
    assert (up >= 0).all() and (down <= 0).all()
    # the loss recomputed from the segments and the data
    y = mono27ac["count"].to_numpy().astype(float)
    w = (mono27ac["chromEnd"] - mono27ac["chromStart"]).to_numpy().astype(float)
    means = np.repeat(m, seg["last_row"] - seg["first_row"] + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(y > 0, w * (means - y * np.log(means)), w * means)
    assert rel(math.fsum(terms), fit.total_loss) < 1e-12


def test_mono27ac_sequential_search_19_peaks(mono27ac):
    fit = peakseg_search(mono27ac, peaks=19)
    assert fit.reached
    ref_loss = pd.read_csv(need(MONO / "sequentialSearch_19peaks_loss.csv")).iloc[0]
    got = fit.loss.iloc[0]
    assert got["peaks"] == 19 and got["segments"] == ref_loss["segments"]
    assert rel(got["total_loss"], ref_loss["total.loss"]) < 1e-9
    assert got["equality_constraints"] == ref_loss["equality.constraints"]
    ref_seg = pd.read_csv(need(MONO / "sequentialSearch_19peaks_segments.csv"))
    assert_same_segments(fit.segments, ref_seg)
    # the search solves at R's penalties, in R's order, with R's peak counts
    its = pd.read_csv(need(MONO / "sequentialSearch_19peaks_iterations.csv"))
    assert len(fit.iterations) == len(its)
    np.testing.assert_allclose(fit.iterations["penalty"], its["penalty"], rtol=1e-12)
    np.testing.assert_array_equal(fit.iterations["peaks"], its["peaks"])
    np.testing.assert_allclose(fit.iterations["total_loss"], its["total.loss"], rtol=1e-9)
    for col in ("under", "over"):
        np.testing.assert_array_equal(fit.iterations[col].to_numpy(float, na_value=np.nan),
                                      its[col].to_numpy(float))


def test_mono27ac_unreachable_peak_count_gives_simpler_model(mono27ac):
    # 15 peaks is not on the PDPA penalty path (no penalty selects it)
    with pytest.warns(UserWarning, match="no penalty gives exactly 15 peaks"):
        fit = peakseg_search(mono27ac, peaks=15)
    assert not fit.reached and fit.loss["peaks"].item() == 14


def test_mono27ac_path_matches_pdpa(mono27ac):
    ref = pd.read_csv(need(MONO / "pdpa_modelSelection_decreasing.csv"))
    path = peakseg_path(mono27ac, max_peaks=20)
    models = path.models
    assert not path.complete
    assert models["peaks"].tolist() == ref["peaks"].tolist()
    np.testing.assert_allclose(models["total_loss"], ref["PoissonLoss"], rtol=1e-9)
    np.testing.assert_allclose(models["max_lambda"], ref["max.lambda"], rtol=1e-9)
    np.testing.assert_allclose(models["min_lambda"][1:], ref["min.lambda"][1:], rtol=1e-9)
    # the lowest interval starts where the 21+ peak models take over, not at 0
    assert 0 < path.stopped_at_lambda < ref["max.lambda"].iloc[0]
    assert models["min_lambda"].iloc[0] == path.stopped_at_lambda
    # every PDPA model up to 20 peaks (loss per peak count) on the path is reproduced
    pdpa = pd.read_csv(need(MONO / "pdpa_loss_errors.csv")).set_index("peaks")
    for _, row in models.iterrows():
        assert rel(row["total_loss"], pdpa.loc[row["peaks"], "PoissonLoss"]) < 1e-9
        seg = path.model(int(row["peaks"])).segments
        assert len(seg) == 2 * row["peaks"] + 1
    assert set(path.segments["peaks"]) == set(models["peaks"])


@pytest.mark.slow
def test_deltarod_known_answer():
    folder = DATA / "chipseq_raw" / "deltarod_PeakSegDisk"
    cov = read_bedgraph(folder / "coverage.bedGraph.gz")
    fit = peakseg(cov, 1e5)
    got = fit.loss.iloc[0]
    correct = need(folder / "correctLoss.tsv").read_text().split()
    assert got["segments"] == 37 and got["peaks"] == 18
    assert got["bases"] == int(correct[3]) and got["bedgraph_lines"] == int(correct[4])
    assert rel(got["total_loss"], float(correct[6])) < 1e-9
    assert rel(got["mean_pen_cost"], float(correct[5])) < 1e-9
    assert got["equality_constraints"] == 0
    ref = pd.read_csv(need(REFERENCE / "peakseg" / "deltarod" /
                           "fpop_penalty_100000_segments.csv"))
    assert_same_segments(fit.segments, ref)
    np.testing.assert_allclose(fit.segments["mean"], ref["data_mean"], rtol=1e-12)


@pytest.mark.parametrize(
    "n", [10_000, 100_000, pytest.param(1_000_000, marks=pytest.mark.slow)]
)
def test_synthetic_penalty_1000(n):
    tim = REFERENCE / "peakseg" / "timings"
    y = pd.read_csv(need(tim / "synthetic_counts_1e6.csv.gz"))["count"].to_numpy()[:n]
    cov = pd.DataFrame({"chrom": "chrSim", "chromStart": np.arange(n),
                        "chromEnd": np.arange(1, n + 1), "count": y})
    fit = peakseg(cov, 1000.0)
    ref_loss = pd.read_csv(need(tim / "synthetic_fpop_penalty1000_loss.csv"))
    ref_loss = ref_loss[ref_loss["N"] == n].iloc[0]
    assert fit.loss["peaks"].item() == ref_loss["peaks"]
    assert fit.loss["equality_constraints"].item() == ref_loss["equality.constraints"]
    assert rel(fit.total_loss, ref_loss["total.loss"]) < 1e-9
    assert fit.max_intervals == ref_loss["max.intervals"]
    ref = pd.read_csv(need(tim / "synthetic_fpop_penalty1000_segments.csv"))
    ref = ref[ref["N"] == n].reset_index(drop=True)
    assert_same_segments(fit.segments, ref)
    np.testing.assert_allclose(fit.segments["mean"], ref["data_mean"], rtol=1e-12)


def xj_sample(sample: str) -> pd.DataFrame:
    cov = pd.read_csv(need(DATA / "chipseq_raw" / "H3K4me3_XJ_immune_chunk1" /
                           "coverage.csv.gz"))
    return cov[cov["sample_id"] == sample].reset_index(drop=True)


def test_xj_mcgill0004_full_path_matches_pdpa():
    folder = REFERENCE / "peakseg" / "peaksegoptimal_H3K4me3_XJ_McGill0004"
    ref = pd.read_csv(need(folder / "pdpa_modelSelection_decreasing.csv"))
    path = peakseg_path(xj_sample("McGill0004"))
    assert path.complete and path.stopped_at_lambda == 0
    assert path.models["peaks"].tolist() == ref["peaks"].tolist()
    np.testing.assert_allclose(path.models["total_loss"], ref["PoissonLoss"], rtol=1e-9)
    np.testing.assert_allclose(path.models["max_lambda"][1:], ref["max.lambda"][1:],
                               rtol=1e-8)


def edge_cases() -> dict:
    with open(need(REFERENCE / "peakseg" / "edge_cases.json")) as fh:
        cases = decode_json_numbers(json.load(fh))["cases"]
    return {c["id"]: c for c in cases}


def test_xj_fpop_cases():
    cases = edge_cases()
    c = cases["optimal_fpop_XJ_McGill0004_pen1000"]["expected"]
    fit = peakseg(xj_sample("McGill0004"), 1000.0)
    pen_cost = fit.total_loss + 1000.0 * fit.n_peaks
    assert rel(pen_cost, c["min_penalized_cost"]) < 1e-9
    # ends.vec: 1-based last rows of all segments but the last, last segment first
    ends = (fit.segments["last_row"].to_numpy()[:-1] + 1)[::-1]
    assert ends.tolist() == c["ends.vec"]
    np.testing.assert_allclose(fit.segments["mean"].to_numpy()[::-1], c["mean.vec"],
                               rtol=1e-12)
    c = cases["optimal_fpopchrom_XJ_McGill0106_pen3000"]["expected"]
    fit = peakseg(xj_sample("McGill0106"), 3000.0)
    seg = fit.segments
    assert (seg["first_row"] + 1).tolist() == c["segments"]["first"]
    assert (seg["last_row"] + 1).tolist() == c["segments"]["last"]
    assert seg["status"].tolist() == c["segments"]["status"]
    np.testing.assert_allclose(seg["mean"], c["segments"]["mean"], rtol=1e-12)
    assert rel(fit.total_loss + 3000.0 * fit.n_peaks,
               c["loss"]["penalized.loss"][0]) < 1e-9


def disk_coverage(case) -> pd.DataFrame:
    inp = case["input"]
    if "coverage" in inp:
        return pd.DataFrame(inp["coverage"])
    # PeakSegFPOP_vec run-length encodes the vector into bedGraph lines
    y = np.asarray(inp["count"])
    new = np.r_[True, y[1:] != y[:-1]]
    start = np.flatnonzero(new)
    end = np.r_[start[1:], len(y)]
    return pd.DataFrame({"chrom": "chrUnknown", "chromStart": start, "chromEnd": end,
                         "count": y[start]})


DISK_MODELS = [
    "disk_vec_pen0", "disk_vec_penInf", "disk_huge_penalty", "disk_one_line",
    "disk_all_0_pen0", "disk_all_5_pen0", "disk_repeated0_pen0", "disk_repeated0_pen10000",
    "disk_four_rows_pen10.5", "disk_supp_pen0", "disk_doc_simulated_pen10.5",
    "disk_doc_increasing_pen10.5",
]


@pytest.mark.parametrize("case_id", DISK_MODELS)
def test_edge_case_models(case_id):
    case = edge_cases()[case_id]
    fit = peakseg(disk_coverage(case), float(case["input"]["penalty"]))
    exp = case["expected"]
    got = fit.loss.iloc[0]
    for ours, theirs in [("segments", "segments"), ("peaks", "peaks"), ("bases", "bases"),
                         ("bedgraph_lines", "bedGraph.lines"),
                         ("equality_constraints", "equality.constraints")]:
        assert got[ours] == exp["loss"][theirs], ours
    assert rel(got["total_loss"], exp["loss"]["total.loss"]) < 1e-9
    assert rel(got["mean_pen_cost"], exp["loss"]["mean.pen.cost"]) < 1e-9
    ref = pd.DataFrame(exp["segments"])
    assert_same_segments(fit.segments, ref)
    np.testing.assert_allclose(fit.segments["mean"], ref["mean"], rtol=1e-5)


def test_edge_case_sequential_search():
    cases = edge_cases()
    case = cases["disk_seqsearch_supp_2peaks"]
    fit = peakseg_search(disk_coverage(case), peaks=2)
    assert fit.reached
    assert_same_segments(fit.segments, pd.DataFrame(case["expected"]["segments"]))
    assert fit.n_peaks == 2
    assert rel(fit.total_loss, case["expected"]["loss"]["total.loss"]) < 1e-12
    case = cases["disk_seqsearch_too_many_peaks"]
    with pytest.raises(ValueError, match="peaks=5 is impossible: at most 2 peaks for 6"):
        peakseg_search(disk_coverage(case), peaks=5)


def four_rows() -> pd.DataFrame:
    return pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 20, 30],
                         "chromEnd": [10, 20, 30, 40], "count": [2, 10, 14, 13]})


@pytest.mark.parametrize(
    "change, exc, match",
    [
        (lambda d: d.iloc[::-1].reset_index(drop=True), ValueError, "row 0 ends at 40"),
        (lambda d: d.assign(chromStart=[0, 11, 20, 30]), ValueError,
         "zero-coverage gap on chr1: row 0 ends at 10"),
        (lambda d: d.assign(count=[2, 10, 14.2, 13]), ValueError, "'count'.*row 2"),
        (lambda d: d.assign(count=[2, -1, 14, 13]), ValueError, "'count' must be >= 0; row 1"),
        (lambda d: d.iloc[:0], ValueError, "no rows"),
        (lambda d: d.drop(columns="count"), ValueError, "missing column"),
        (lambda d: d.assign(chromStart=[0, 9, 20, 30]), ValueError, "without overlaps.*row 0"),
        (lambda d: d.assign(count=["2", "x", "1", "1"]), TypeError, "'count' must be numeric"),
    ],
)
def test_bad_coverage(change, exc, match):
    """Bad rows are named; with gaps="error" a zero-coverage gap is refused (several
    samples or chromosomes are several problems: tests/peaks/test_contigs.py)."""
    with pytest.raises(exc, match=match):
        peakseg(change(four_rows()), 1.0, gaps="error")


@pytest.mark.parametrize("pen, exc", [(-0.1, ValueError), (float("nan"), ValueError),
                                      ("1", TypeError), (None, TypeError)])
def test_bad_penalty(pen, exc):
    with pytest.raises(exc, match="penalty"):
        peakseg(four_rows(), pen)


def test_single_sample_id_is_accepted():
    cov = four_rows().assign(sample_id="s1")
    fit = peakseg(cov, 10.5)
    assert fit.loss["peaks"].item() == 1


def test_search_bad_peaks():
    with pytest.raises(ValueError, match="peaks must be >= 0"):
        peakseg_search(four_rows(), peaks=-1)
    with pytest.raises(TypeError, match="peaks must be an integer"):
        peakseg_search(four_rows(), peaks=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert peakseg_search(four_rows(), peaks=0).reached


def test_path_stop_callback_equals_bound(mono27ac):
    by_bound = peakseg_path(mono27ac, max_peaks=7)
    by_stop = peakseg_path(mono27ac, stop=lambda fit: fit.n_peaks >= 7)
    pd.testing.assert_frame_equal(by_bound.models, by_stop.models)
    assert by_stop.models["peaks"].max() == 7 and not by_stop.complete
    assert by_stop.n_solves <= by_bound.n_solves


def test_constant_coverage_has_no_peaks():
    cov = four_rows().assign(count=5)
    for pen in (0.0, 1.0, math.inf):
        fit = peakseg(cov, pen)
        assert fit.n_peaks == 0 and fit.segments["mean"].tolist() == [5.0]
    with pytest.warns(UserWarning, match="exactly 1 peaks"):
        assert peakseg_search(cov, peaks=1).n_peaks == 0
    path = peakseg_path(cov)
    assert path.models["peaks"].tolist() == [0] and path.complete


def test_mono27ac_function_sizes_match_the_reference_solver(mono_fits):
    """The cost functions hold the same pieces as PeakSegDisk's (its diagnostics)."""
    ref = pd.read_csv(need(MONO / "fpop_loss.csv"))
    for _, row in ref.iterrows():
        fit = mono_fits[float(row["penalty"])]
        assert fit.max_intervals == row["max.intervals"]
        # the mean differs by up to 1.4% (how the first datum and merges are counted)
        assert abs(fit.mean_intervals / row["mean.intervals"] - 1) < 0.02


@pytest.mark.slow
def test_h3k36me3_paths_are_consistent():
    """Every sample of H3K36me3_TDH_other_chunk1: each path model is the one solved inside
    its penalty interval, feasible, and its loss is recomputed from the data."""
    cov = pd.read_csv(need(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1" /
                           "coverage.csv.gz"))
    for sample, one in cov.groupby("sample_id", sort=False):
        one = one.reset_index(drop=True)
        y = one["count"].to_numpy(float)
        w = (one["chromEnd"] - one["chromStart"]).to_numpy(float)
        path = peakseg_path(one.drop(columns="cell_type"), max_peaks=4)
        assert not path.complete and path.models["peaks"].iloc[-1] == 0
        for _, row in path.models.iterrows():
            hi = row["max_lambda"]
            lam = (row["min_lambda"] + hi) / 2 if np.isfinite(hi) else 2 * row["min_lambda"]
            fit = peakseg(one, lam)
            assert fit.n_peaks == row["peaks"], sample
            assert rel(fit.total_loss, row["total_loss"]) < 1e-12
            seg = fit.segments
            m = np.repeat(seg["mean"].to_numpy(), seg["last_row"] - seg["first_row"] + 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(y > 0, w * (m - y * np.log(m)), w * m)
            assert rel(math.fsum(terms), fit.total_loss) < 1e-12
            d = np.diff(seg["mean"].to_numpy())
            assert (d[0::2] >= 0).all() and (d[1::2] <= 0).all()


def test_check_coverage_copies_nothing_of_int64_columns_and_keeps_its_checks():
    """Whole chromosomes: the validated table is views of the caller's int64 columns
    (2·10^7 rows: 0.46 GB less); other integer types and gaps still give new arrays."""
    from penlearn.peaks.peakseg.solver import _Data, check_coverage

    cov = four_rows()
    out = check_coverage(cov)
    for col in ("chromStart", "chromEnd", "count"):
        assert np.shares_memory(out[col].to_numpy(), cov[col].to_numpy()), col
    assert np.shares_memory(_Data.from_coverage(cov).start, cov["chromStart"].to_numpy())
    pd.testing.assert_frame_equal(out, cov)
    small = cov.astype({"count": np.int32, "chromEnd": np.uint32})
    out = check_coverage(small)
    assert out["count"].dtype == np.int64 and out["chromEnd"].dtype == np.int64
    assert not np.shares_memory(out["count"].to_numpy(), small["count"].to_numpy())
    pd.testing.assert_frame_equal(out, cov)
    gapped = check_coverage(cov.assign(chromStart=[0, 12, 20, 30]))
    assert gapped["chromStart"].tolist() == [0, 10, 12, 20, 30]
    assert gapped["count"].tolist() == [2, 0, 10, 14, 13]
    for chrom, row in ((["chr1", "chr1", "chr2", "chr1"], 2), (["chr1", None, "chr1", "chr1"], 1),
                       ([None, None, "chr1", None], 2)):
        with pytest.raises(ValueError, match=f"must be on one chromosome; row {row} has"):
            check_coverage(cov.assign(chrom=chrom))
    assert check_coverage(cov.assign(chrom=None))["chrom"].isna().all()  # (as before)
