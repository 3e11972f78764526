"""Control samples: the background rule (the Poisson model with the control as its
background) and the filter rule (PeakSegPipeline's: a peak where the control is up is
dropped), and nothing changed without a control."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.cli.main import main
from penlearn.peaks.peakseg.controls import (
    binned_segments,
    control_background,
    control_of,
    mark_control_peaks,
)
from penlearn.peaks.peakseg.evaluation import predict_peaks
from penlearn.peaks.peakseg.solver import peakseg


def _bins(counts, width=50, chrom="chr1"):
    s = np.arange(len(counts)) * width
    return pd.DataFrame({"chrom": chrom, "chromStart": s, "chromEnd": s + width,
                         "count": np.asarray(counts, np.int64)})


def _sample(seed=1, n=4000):
    """A treatment with a true peak (bins 1000-1009) and a sticky region (2000-2029) up
    in its control too."""
    rng = np.random.default_rng(seed)
    t, c = rng.poisson(2, n), rng.poisson(2, n)
    t[1000:1010] += rng.poisson(20, 10)
    t[2000:2030] += rng.poisson(15, 30)
    c[2000:2030] += rng.poisson(15, 30)
    return _bins(t), _bins(c)


def test_a_constant_background_gives_the_same_peaks_means_divided():
    t, _ = _sample()
    plain = peakseg(t, 200.0).segments
    scaled = peakseg(t.assign(background=4.0), 200.0).segments
    assert (plain[["chromStart", "chromEnd", "status"]].values.tolist()
            == scaled[["chromStart", "chromEnd", "status"]].values.tolist())
    np.testing.assert_allclose(scaled["mean"], plain["mean"] / 4.0, rtol=1e-12)


def test_background_is_the_control_segment_over_its_level_at_most_the_treatments():
    # the control up 21x on 2 kb, the treatment 5x there: b = min(21, 5) = 5
    t = _bins([2] * 280 + [10] * 40 + [2] * 280)  # 30 kb
    c = _bins([1] * 280 + [21] * 40 + [1] * 280)
    segs = peakseg(c, 1000.0).segments
    assert segs["status"].tolist() == ["background", "peak", "background"]
    b = control_background(t, c, segs)
    assert b[["chromStart", "chromEnd", "count"]].equals(
        t[["chromStart", "chromEnd", "count"]])  # the treatment's rows, never merged
    assert b["background"].tolist() == [1.0] * 280 + [5.0] * 40 + [1.0] * 280
    # up in the control only: no background there (the treatment's fold keeps no dip)
    flat = control_background(_bins([2] * 600), c, segs)
    assert flat["background"].tolist() == [1.0] * 600


def test_background_fills_gaps_within_the_treatments_extent():
    t = pd.DataFrame({"chrom": "chr1", "chromStart": [100, 120, 300],
                      "chromEnd": [120, 200, 350], "count": [30, 3, 1]})
    c = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [120], "count": [4]})
    segs = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 120], "chromEnd": [120, 480],
                         "mean": [4.0, 1.0]})  # the control's level: 1 (most bases)
    b = control_background(t, c, segs, chrom_sizes={"chr1": 480})
    assert b.values.tolist() == [["chr1", 100, 120, 30, 4.0], ["chr1", 120, 200, 3, 1.0],
                                 ["chr1", 200, 300, 0, 1.0], ["chr1", 300, 350, 1, 1.0]]


def test_background_columns_are_not_copied_into_one_block():
    # issue 55: the table's columns are the arrays made for it (chromStart and chromEnd
    # both views of the sorted cuts), not stacked into a copy of a chromosome's rows
    t = _bins([2] * 50 + [9] * 10 + [2] * 40)
    segs = peakseg(_bins([1] * 50 + [8] * 10 + [1] * 40), 100.0).segments
    b = control_background(t, t, segs)
    assert np.shares_memory(b["chromStart"].to_numpy(), b["chromEnd"].to_numpy())
    assert b[["chromStart", "chromEnd", "count"]].equals(t[["chromStart", "chromEnd", "count"]])


def test_background_rule_drops_the_sticky_region_keeps_the_true_peak():
    t, c = _sample()
    alone = predict_peaks(t, penalty=1000.0)
    segs = peakseg(c, 1000.0).segments
    with_control = predict_peaks(control_background(t, c, segs), penalty=1000.0)
    spans = lambda p: list(zip(p["chromStart"], p["chromEnd"]))  # noqa: E731
    assert any(s <= 100_000 < e for s, e in spans(alone))  # the sticky region, no control
    assert spans(with_control) == [(50_000, 50_500)]  # the true peak alone


def test_filter_rule_marks_peaks_overlapping_a_control_peak():
    peaks = pd.DataFrame({"chrom": ["chr1", "chr1", "chr2"], "chromStart": [10, 100, 100],
                          "chromEnd": [20, 200, 200]})
    ctrl = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [20, 199],
                         "chromEnd": [50, 300]})
    # touching (20) is no overlap; 199-200 is one base of overlap; chr2 has no control peak
    assert mark_control_peaks(peaks, ctrl)["control_up"].tolist() == [False, True, False]


def test_control_of_shared_and_paired_and_mismatched():
    assert control_of(["a", "b"], ["c"]) == {"a": "c", "b": "c"}
    with pytest.raises(ValueError, match="one per treatment"):
        control_of(["a", "b", "d"], ["c1", "c2"])


def _write(table, path):
    table.to_csv(path, sep="\t", header=False, index=False)
    return str(path)


@pytest.mark.parametrize("rule", ["background", "filter"])
def test_peaks_command_with_a_control_drops_the_sticky_region(tmp_path, rule):
    t, c = _sample()
    tf, cf = _write(t, tmp_path / "t.bedGraph"), _write(c, tmp_path / "c.bedGraph")
    out = tmp_path / f"{rule}.bed"
    assert main(["peaks", tf, "--control", cf, "--control-rule", rule, "--penalty", "1000",
                 "--out", str(out), "-q"]) == 0
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert [(int(r[1]), int(r[2])) for r in rows] == [(50_000, 50_500)]


def test_peaks_command_without_a_control_is_unchanged(tmp_path):
    t, _ = _sample()
    tf = _write(t, tmp_path / "t.bedGraph")
    out = tmp_path / "p.bed"
    assert main(["peaks", tf, "--penalty", "1000", "--out", str(out), "-q"]) == 0
    expected = predict_peaks(t, penalty=1000.0)
    rows = [line.split("\t")[:3] for line in out.read_text().splitlines()]
    assert rows == [[c, str(s), str(e)] for c, s, e in
                    expected[["chrom", "chromStart", "chromEnd"]].itertuples(index=False)]


def test_control_sheet_and_control_column_name_each_samples_control(tmp_path):
    t, c = _sample()
    t2, _ = _sample(seed=2)
    table = pd.concat([t.assign(sample_id="T1", control="C"),
                       t2.assign(sample_id="T2", control="C"),
                       c.assign(sample_id="C", control="")], ignore_index=True)
    csv = tmp_path / "coverage.csv"
    table[["sample_id", "chrom", "chromStart", "chromEnd", "count", "control"]].to_csv(
        csv, index=False)
    out = tmp_path / "by_column"
    assert main(["peaks", str(csv), "--penalty", "1000", "--out", str(out), "-q"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["T1.bed", "T2.bed"]  # C: a control
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("sample_id,control\nT1,C\nT2,C\n")
    plain = tmp_path / "plain.csv"
    table.drop(columns="control").to_csv(plain, index=False)
    out2 = tmp_path / "by_sheet"
    assert main(["peaks", str(plain), "--control-sheet", str(sheet), "--penalty", "1000",
                 "--out", str(out2), "-q"]) == 0
    for name in ("T1.bed", "T2.bed"):
        assert (out / name).read_text() == (out2 / name).read_text()
        rows = [line.split("\t") for line in (out / name).read_text().splitlines()]
        assert not [r for r in rows if int(r[1]) < 101_500 and int(r[2]) > 100_000]


def test_a_control_that_is_neither_sample_nor_file_is_named(tmp_path, capsys):
    t, _ = _sample()
    tf = _write(t, tmp_path / "t.bedGraph")
    assert main(["peaks", tf, "--control", str(tmp_path / "nope.bedGraph"), "--penalty",
                 "1000", "--out", str(tmp_path / "p.bed"), "-q"]) == 1
    assert "nope.bedGraph" in capsys.readouterr().err


def _labeled_folder(tmp_path):
    t, c = _sample()
    t2, _ = _sample(seed=2)
    d = tmp_path / "labeled"
    d.mkdir()
    table = pd.concat([t.assign(sample_id="T1"), t2.assign(sample_id="T2"),
                       c.assign(sample_id="C")], ignore_index=True)
    table[["sample_id", "chrom", "chromStart", "chromEnd", "count"]].to_csv(
        d / "coverage.csv", index=False)
    # the sticky region labeled noPeaks, the true peak peakStart, in both treatments
    (d / "labels.csv").write_text(
        "sample_id,chrom,chromStart,chromEnd,annotation\n"
        "T1,chr1,99000,103000,noPeaks\nT1,chr1,49000,50300,peakStart\n"
        "T2,chr1,99000,103000,noPeaks\nT2,chr1,49000,50300,peakStart\n")
    return d


def test_learn_with_a_control_evaluates_the_treatments_with_their_background(tmp_path):
    from penlearn.datasets.peaks import load_peak_folder

    d = _labeled_folder(tmp_path)
    plain = load_peak_folder(d)
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("sample_id,control\nT1,C\nT2,C\n")
    import argparse

    from penlearn.cli._controls import apply_controls
    from penlearn.cli.peaks import control_segments

    args = argparse.Namespace(control=None, control_sheet=str(sheet),
                              control_rule="background", penalty=1000.0, log_penalty=None,
                              model=None, broad=False, command="learn")
    with_c = load_peak_folder(d, coverage_map=lambda cov: apply_controls(
        cov, args, lambda m: None, lambda c: control_segments(args, c, lambda m: None))[:2])
    # the same windows and features (of the treatments' counts), other error functions
    assert list(with_c.inputs.index) == list(plain.inputs.index)
    pd.testing.assert_frame_equal(with_c.inputs, plain.inputs)
    assert not with_c.evaluation.equals(plain.evaluation)
    assert main(["learn", str(d), "--control-sheet", str(sheet), "--model", "constant",
                 "--out", str(tmp_path / "m.json"), "--no-cache", "-q"]) == 0


def test_labeled_raw_coverage_without_a_control_gives_the_peaks_of_before(tmp_path):
    """Mono27ac (labeled raw coverage, no control): the BED file at λ = 5000 is byte for
    byte the one main (86d757c, without control samples) writes."""
    cov = need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz")
    out = tmp_path / "mono.bed"
    assert main(["peaks", str(cov), "--penalty", "5000", "--out", str(out), "-q"]) == 0
    assert hashlib.md5(out.read_bytes()).hexdigest() == "5f459fa2bef300545503207b82ae2c1c"


def _segments(table):
    cols = ["chrom", "chromStart", "chromEnd", "status", "mean"]
    return table[cols].reset_index(drop=True)


@pytest.mark.parametrize("width", [1, 200, 1000])
def test_binned_control_model_solved_twice_equals_the_model_on_every_row(width):
    # refine="solve": width 1, every base a datum, the exact model; wider bins (at half
    # the penalty) solved again near their changes find the same changes where the
    # control's regions are clear
    _, c = _sample()
    c = c.assign(sample_id="control")
    exact = predict_peaks(c, penalty=300.0, segments=True)
    binned = binned_segments(c, float(np.log(300.0)), None, width, coarse=0.5,
                             refine="solve")
    assert (exact["status"] == "peak").sum() >= 1
    pd.testing.assert_frame_equal(_segments(binned), _segments(exact))


def _penalized(segs, c, penalty):
    """The Poisson loss of the rows of ``c`` under ``segs`` plus penalty per peak."""
    ts, te = c["chromStart"].to_numpy(), c["chromEnd"].to_numpy()
    area = np.r_[0, np.cumsum((te - ts) * c["count"].to_numpy())]
    s = segs["chromStart"].to_numpy()
    e = segs["chromEnd"].to_numpy()
    sums = np.interp(e, np.r_[ts, te[-1]], area) - np.interp(s, np.r_[ts, te[-1]], area)
    m = sums / (e - s)
    loss = np.where(sums > 0, (e - s) * m - sums * np.log(np.where(m > 0, m, 1)), 0).sum()
    return loss + penalty * int((segs["status"] == "peak").sum())


@pytest.mark.parametrize("width", [200, 1000])
def test_binned_control_model_refined_locally(width):
    # the default (refine="local", the bins' model at the penalty itself): the sticky
    # region (bins 2000-2029: bases 100,000-101,500) a peak at its rows' edges; the
    # penalized loss between the exact model's (its optimum) and the bins' model's
    _, c = _sample()
    c = c.assign(sample_id="control")
    exact = predict_peaks(c, penalty=300.0, segments=True)
    local = binned_segments(c, float(np.log(300.0)), None, width)
    bins_only = binned_segments(c, float(np.log(300.0)), None, width, near=0)
    sticky = local[(local["chromStart"] == 100_000) & (local["chromEnd"] == 101_500)]
    assert sticky["status"].tolist() == ["peak"]
    lo, mid, hi = (_penalized(x, c, 300.0) for x in (exact, local, bins_only))
    assert lo - 1e-6 <= mid <= hi + 1e-6
    if width == 200:  # the bins' edges are not the rows': the refinement moved some
        assert mid < hi - 1e-6
    # width 1: every base a datum, the exact model
    pd.testing.assert_frame_equal(
        _segments(binned_segments(c, float(np.log(300.0)), None, 1)), _segments(exact))


def test_binned_control_model_solves_every_row_where_its_segments_are_short():
    # a low penalty: many short segments, which bins could miss; the exact model then
    _, c = _sample(seed=3)
    exact = predict_peaks(c, penalty=5.0, segments=True)
    assert (exact["status"] == "peak").sum() > 20
    pd.testing.assert_frame_equal(_segments(binned_segments(c, float(np.log(5.0)), None, 500)),
                                  _segments(exact))


def test_binned_control_model_refuses_a_bad_width():
    _, c = _sample()
    with pytest.raises(ValueError, match="width must be an integer >= 1"):
        binned_segments(c, 5.0, None, 0)


def _sorted_rows(draw_rows):
    width, gap = (np.array(c, np.int64) for c in zip(*draw_rows)) if draw_rows else (
        np.zeros(0, np.int64), np.zeros(0, np.int64))
    start = np.cumsum(np.r_[0, (width + gap)[:-1]])[: len(width)] + 2
    return start, start + width


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 4)), min_size=1, max_size=20),
       st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4)), max_size=20),
       st.integers(-3, 10), st.booleans())
def test_row_cuts_equal_the_sorted_unique_bounds(rows, segments, offset, shuffled):
    """The merge of the treatment's row bounds and the control segments' (those within
    the treatment's extent) is the sort and unique of them all; rows out of order are
    told (None), for the sort to take them."""
    from penlearn.peaks.formats._pileup_kernel import row_cuts

    ts, te = _sorted_rows(rows)
    gs, ge = _sorted_rows(segments)
    gs, ge = gs + offset, ge + offset
    if shuffled and len(gs) > 1:
        gs, ge = gs[::-1].copy(), ge[::-1].copy()
    lo, hi = ts[0], te[-1]
    want = np.unique(np.r_[ts, te, gs[(gs >= lo) & (gs <= hi)], ge[(ge >= lo) & (ge <= hi)]])
    got = row_cuts(ts, te, gs, ge, lo, hi)
    if shuffled and len(gs) > 1 and (gs[1:] < ge[:-1]).any():
        assert got is None
    else:
        np.testing.assert_array_equal(got, want)
