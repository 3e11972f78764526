"""ChIP-seq I/O: bedGraph / coverage tables / bigWig, peak labels, BED (coverage_io)."""

from __future__ import annotations

import gzip
import os
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, load_reference_json, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats.bed import read_bed, read_peak_labels, write_bed
from penlearn.peaks.formats.coverage import read_bedgraph, read_bigwig, read_coverage
from penlearn.peaks.peakseg.labels import peak_label_errors

RAW = DATA / "chipseq_raw"


def _pandas_bedgraph(path) -> pd.DataFrame:
    """An independent reader of a clean bedGraph, for comparison."""
    return pd.read_csv(path, sep="\t", header=None, compression="gzip",
                       names=["chrom", "chromStart", "chromEnd", "count"],
                       dtype={"chrom": str})


# ---- bedGraph ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, rows, bases", [
    ("Mono27ac", 6921, 520_000),
    ("deltarod_PeakSegDisk", 138_969, 3_518_496),
])
def test_read_real_bedgraphs(name, rows, bases):
    path = need(RAW / name / "coverage.bedGraph.gz")
    cov = read_bedgraph(path)
    assert list(cov.columns) == ["chrom", "chromStart", "chromEnd", "count"]
    assert len(cov) == rows
    assert int((cov["chromEnd"] - cov["chromStart"]).sum()) == bases
    for col in ("chromStart", "chromEnd", "count"):
        assert cov[col].dtype == np.int64
    pd.testing.assert_frame_equal(cov, _pandas_bedgraph(path), check_dtype=False)


def test_gzip_is_detected_by_magic_bytes_not_name(tmp_path):
    text = "chr1\t0\t10\t1\nchr1\t10\t15\t0\n"
    plain_named_gz = tmp_path / "plain.bedGraph.gz"
    plain_named_gz.write_text(text)
    gz_named_plain = tmp_path / "zipped.txt"
    gz_named_plain.write_bytes(gzip.compress(text.encode()))
    a, b = read_bedgraph(plain_named_gz), read_bedgraph(gz_named_plain)
    pd.testing.assert_frame_equal(a, b)
    assert a.values.tolist() == [["chr1", 0, 10, 1], ["chr1", 10, 15, 0]]


def test_headers_spaces_sample_id_and_integral_float_counts(tmp_path):
    p = tmp_path / "s.bedGraph"
    p.write_text('track type=bedGraph name="x"\nbrowser position chr1:1-10\n# comment\n\n'
                 "chr1 0 10 3.0\nchr1\t12\t15\t0\nchr2\t0\t5\t7\n")
    cov = read_bedgraph(p, sample_id="0001")
    assert list(cov.columns) == ["sample_id", "chrom", "chromStart", "chromEnd", "count"]
    assert cov["sample_id"].tolist() == ["0001"] * 3  # a string, leading zeros kept
    assert cov["count"].tolist() == [3, 0, 7]
    assert cov["count"].dtype == np.int64


@pytest.mark.parametrize("body, line, match", [
    ("chr1\t0\t10\n", 3, "expected 4 fields"),
    ("chr1\t0\tten\t1\n", 3, "chromEnd must be an integer, got 'ten'"),
    ("chr1\t0\t10\t2.5\n", 3, "count must be an integer, got '2.5'"),
    ("chr1\t0\t10\t-1\n", 3, "count must be >= 0"),
    ("chr1\t-5\t10\t1\n", 3, "chromStart must be >= 0"),
    ("chr1\t10\t10\t1\n", 3, "chromStart must be < chromEnd"),
    ("chr1\t0\t10\t1\nchr1\t5\t20\t1\n", 4, "sorted by position without overlaps"),
    ("chr1\t20\t30\t1\nchr1\t0\t10\t1\n", 4, "sorted by position without overlaps"),
    ("chr1\t0\t10\t1\nchr2\t0\t10\t1\nchr1\t20\t30\t1\n", 5,
     "chromosome 'chr1' appears again"),
])
def test_malformed_bedgraph_names_file_and_line(tmp_path, body, line, match):
    p = tmp_path / "bad.bedGraph"
    p.write_text("track type=bedGraph\n\n" + body)  # two lines before the data
    with pytest.raises(ValueError, match=match) as info:
        read_bedgraph(p)
    assert f"{p}, line {line}:" in str(info.value)


def test_peaksegdisk_solver_input_errors(tmp_path):
    """The bedGraph inputs the PeakSegDisk solver rejects are rejected here too (the gap
    only with contiguous=True: a bedGraph may skip bases, the peak model may not)."""
    cases = {c["id"]: c for c in load_reference_json("peakseg/edge_cases.json")["cases"]}
    expected = {"disk_error_three_columns": "expected 4 fields",
                "disk_error_non_integer": "count must be an integer",
                "disk_error_gap": "rows must be contiguous",
                "disk_error_empty": "no data lines"}
    p = tmp_path / "coverage.bedGraph"
    for case_id, match in expected.items():
        p.write_text(cases[case_id]["input"]["bedGraph_text"])
        with pytest.raises(ValueError, match=match):
            read_bedgraph(p, contiguous=True)
    p.write_text(cases["disk_error_gap"]["input"]["bedGraph_text"])
    assert read_bedgraph(p)["chromStart"].tolist() == [0, 2]
    reverse = pd.DataFrame(cases["disk_reverse_data_error"]["input"]["coverage"])
    reverse.to_csv(p, sep="\t", header=False, index=False)
    with pytest.raises(ValueError, match=rf"{p}, line 2: rows must be sorted"):
        read_bedgraph(p)


def test_empty_bedgraph(tmp_path):
    p = tmp_path / "empty.bedGraph"
    p.write_text("track type=bedGraph\n")
    with pytest.raises(ValueError, match=rf"{p}: no data lines"):
        read_bedgraph(p)


def test_not_text_and_corrupt_gzip(tmp_path):
    p = tmp_path / "x.bedGraph"
    p.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(ValueError, match="not a text file"):
        read_bedgraph(p)
    p.write_bytes(gzip.compress(b"chr1\t0\t1\t1\n")[:12])
    with pytest.raises(ValueError, match="corrupt gzip"):
        read_bedgraph(p)


# ---- many samples -----------------------------------------------------------------------


def test_read_coverage_csv_many_samples():
    path = need(RAW / "H3K36me3_TDH_other_chunk1" / "coverage.csv.gz")
    cov = read_coverage(path)
    assert list(cov.columns[:5]) == ["sample_id", "chrom", "chromStart", "chromEnd", "count"]
    assert len(cov) == 230_024
    sizes = cov.groupby("sample_id", sort=False).size()
    assert sizes.to_dict() == {
        "McGill0023": 35507, "McGill0022": 43291, "McGill0019": 12109, "McGill0036": 28001,
        "McGill0037": 29338, "McGill0012": 15673, "McGill0013": 32784, "McGill0016": 33321}
    first = cov.groupby("sample_id", sort=False)["chromStart"].min()
    assert first["McGill0012"] == 43118550
    # every sample is contiguous (README of the data)
    assert len(read_coverage(path, contiguous=True)) == 230_024
    raw = pd.read_csv(path, dtype={"sample_id": str})
    np.testing.assert_array_equal(cov["count"].to_numpy(), raw["count"].to_numpy())
    assert cov["cell_type"].tolist() == raw["cell_type"].tolist()  # extra column kept


def test_ids_stay_strings(tmp_path):
    csv = tmp_path / "coverage.csv"
    csv.write_text("sample_id,chrom,chromStart,chromEnd,count\n"
                   "0001,1,0,10,2\n0001,1,10,20,0\n007,1,0,5,1\n")
    cov = read_coverage(csv)
    assert cov["sample_id"].tolist() == ["0001", "0001", "007"]
    assert cov["chrom"].tolist() == ["1", "1", "1"]
    folder = tmp_path / "bg"
    folder.mkdir()
    (folder / "0002.bedGraph").write_text("chr1\t0\t5\t1\n")
    (folder / "0010.bedgraph.gz").write_bytes(gzip.compress(b"chr1\t0\t5\t4\n"))
    cov = read_coverage(folder)
    assert cov["sample_id"].tolist() == ["0002", "0010"]
    assert cov["count"].tolist() == [1, 4]


def test_read_coverage_forms(tmp_path):
    layout = tmp_path / "samples"
    for group, sample, count in [("kidney", "MS1", 3), ("bcell", "MS2", 5)]:
        d = layout / group / sample
        d.mkdir(parents=True)
        (d / "coverage.bedGraph").write_text(f"chr10\t0\t10\t{count}\n")
    cov = read_coverage(layout)
    assert sorted(cov["sample_id"]) == ["bcell/MS2", "kidney/MS1"]
    files = {"a": layout / "kidney" / "MS1" / "coverage.bedGraph",
             "b": layout / "bcell" / "MS2" / "coverage.bedGraph"}
    assert read_coverage(files)["sample_id"].tolist() == ["a", "b"]
    assert read_coverage(list(files.values()))["sample_id"].tolist() == ["MS1", "MS2"]
    twin = tmp_path / "MS1.bedGraph"
    twin.write_text("chr1\t0\t1\t1\n")
    with pytest.raises(ValueError, match="sample id 'MS1' is in both"):
        read_coverage([files["a"], twin])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no coverage found"):
        read_coverage(empty)
    with pytest.raises(TypeError, match="paths_or_dir must be"):
        read_coverage(3)


def test_coverage_table_errors_name_file_and_line(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("sample_id,chrom,chromStart,chromEnd,count\n"
                 "a,chr1,0,10,1\nb,chr1,0,10,1\na,chr1,5,20,1\n")
    with pytest.raises(ValueError, match=rf"{p}, line 4: rows must be sorted"):
        read_coverage(p)
    p.write_text("sample_id,chrom,chromStart,chromEnd,count\na,chr1,0,10,x\n")
    with pytest.raises(ValueError, match=rf"{p}, line 2: count must be an integer"):
        read_coverage(p)
    p.write_text("chrom,chromStart,chromEnd,count\nchr1,0,10,1\n")
    with pytest.raises(ValueError, match="needs a sample_id column"):
        read_coverage(p)
    assert read_coverage({"s1": p})["sample_id"].tolist() == ["s1"]


# ---- bigWig -----------------------------------------------------------------------------


def test_read_bigwig_without_pybigwig_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyBigWig", None)  # makes the import fail
    with pytest.raises(ImportError, match=r"pip install 'penlearn\[bigwig\]'"):
        read_bigwig("missing.bigWig", "chr1", 0, 10)


def test_read_bigwig_round_trip(tmp_path):
    pyBigWig = pytest.importorskip(
        "pyBigWig", reason="pyBigWig (optional extra penlearn[bigwig]) is not installed")
    path = str(tmp_path / "x.bigWig")
    bw = pyBigWig.open(path, "w")
    bw.addHeader([("chr1", 1000)])
    bw.addEntries(["chr1", "chr1", "chr1"], [0, 100, 150], ends=[100, 150, 400],
                  values=[0.0, 3.0, 1.0])
    bw.close()
    cov = read_bigwig(path, "chr1", 50, 200)
    assert cov.values.tolist() == [["chr1", 50, 100, 0], ["chr1", 100, 150, 3],
                                   ["chr1", 150, 200, 1]]
    with pytest.raises(ValueError, match="no chromosome 'chr2'"):
        read_bigwig(path, "chr2", 0, 10)


# ---- labels -----------------------------------------------------------------------------


def test_read_labels_csv_and_bed():
    lab = read_peak_labels(need(RAW / "Mono27ac" / "labels.csv"))
    assert lab["annotation"].tolist() == ["noPeaks", "peakStart", "peakEnd", "noPeaks",
                                          "noPeaks", "noPeaks"]
    assert lab["chromStart"].tolist()[0] == 321778 and lab["chromStart"].dtype == np.int64
    bed = read_peak_labels(need(RAW / "PeakError_exampleData" / "labels.bed"))
    assert len(bed) == 20 and bed["chrom"].iloc[-1] == "chr5"
    multi = read_peak_labels(need(RAW / "H3K36me3_TDH_other_chunk1" / "labels.csv"))
    assert len(multi) == 48 and multi["sample_id"].nunique() == 8
    assert multi["annotation"].value_counts().to_dict() == {
        "noPeaks": 20, "peakStart": 18, "peakEnd": 10}


def test_read_labels_tsv_gzip_and_string_ids(tmp_path):
    p = tmp_path / "labels.tsv"  # gzip despite the name
    p.write_bytes(gzip.compress(b"sample_id\tchrom\tchromStart\tchromEnd\tannotation\n"
                                b"0001\t1\t0\t10\tpeaks\n0002\t1\t0\t10\tnoPeaks\n"))
    lab = read_peak_labels(p)
    assert lab["sample_id"].tolist() == ["0001", "0002"]
    assert lab["chrom"].tolist() == ["1", "1"]
    assert lab["chromEnd"].dtype == np.int64
    peaks = pd.DataFrame({"sample_id": ["0001"], "chrom": ["1"], "chromStart": [2],
                          "chromEnd": [4]})
    assert peak_label_errors(peaks, lab).label_errors["status"].tolist() == [
        "correct", "correct"]


BROWSER_TEXT = """
chr10:33,061,897-33,162,814 noPeaks
chr10:33,456,000-33,484,755 peakStart kidney
chr10:33,597,317-33,635,209 peakEnd kidney

chr10:35,182,820-35,261,001 noPeaks
chr10:35,261,418-35,314,654 peakStart bcell kidney
"""


def test_read_browser_labels_text(tmp_path):
    p = tmp_path / "labels.txt"
    p.write_text(BROWSER_TEXT)
    lab = read_peak_labels(p)
    assert lab["chromStart"].tolist() == [33061896, 33455999, 33597316, 35182819, 35261417]
    assert lab["chromEnd"].tolist() == [33162814, 33484755, 33635209, 35261001, 35314654]
    assert lab["groups"].tolist() == ["", "kidney", "kidney", "", "bcell kidney"]
    assert lab["window"].tolist() == [0, 0, 0, 1, 1]
    bed = read_peak_labels(p, coordinates="bed")
    assert bed["chromStart"].iloc[1] == 33456000
    per = read_peak_labels(p, samples={"MS1": "kidney", "MS2": "bcell", "MS3": "Input"})
    got = per.pivot(index="chromStart", columns="sample_id", values="annotation")
    assert got.loc[33455999].to_dict() == {"MS1": "peakStart", "MS2": "noPeaks",
                                           "MS3": "noPeaks"}
    assert got.loc[35261417].to_dict() == {"MS1": "peakStart", "MS2": "peakStart",
                                           "MS3": "noPeaks"}
    assert (got.loc[33061896] == "noPeaks").all()
    # a sample id may be listed in place of a group
    p.write_text("chr1:11-20 peaks MS3\n")
    one = read_peak_labels(p, samples=pd.DataFrame({"sample_id": ["MS1", "MS3"],
                                                    "group": ["kidney", "Input"]}))
    assert one["annotation"].tolist() == ["noPeaks", "peaks"]


@pytest.mark.parametrize("text, line, match", [
    ("chr1:11-20 noPeaks\n\nchr1 oops\n", 3, "expected 'chrom:start-end annotation"),
    ("chr1:11-20 noPeaks\nchr1:31-40 peak\n", 2, "unknown annotation 'peak'"),
    ("chr1:11-20 noPeaks\nchr1:15-40 peaks\n", 1, "overlapping labels"),
    ("chr1:20-11 noPeaks\n", 1, "chromStart must be < chromEnd"),
])
def test_malformed_browser_labels(tmp_path, text, line, match):
    p = tmp_path / "labels.txt"
    p.write_text(text)
    with pytest.raises(ValueError, match=match) as info:
        read_peak_labels(p)
    assert f"{p}, line {line}" in str(info.value)


def test_malformed_label_tables(tmp_path):
    p = tmp_path / "labels.bed"
    p.write_text("chr1\t0\t10\tnoPeaks\nchr1\t10\t20\n")
    with pytest.raises(ValueError, match=rf"{p}, line 2: expected 4 fields"):
        read_peak_labels(p)
    p.write_text("chr1\t0\t10\tnoPeaks\nchr1\t5\t20\tpeaks\n")
    with pytest.raises(ValueError, match=rf"{p}, line 1 .* {p}, line 2"):
        read_peak_labels(p)
    c = tmp_path / "labels.csv"
    c.write_text("chrom,chromStart,chromEnd,annotation\nchr1,0,10,noPeaks\nchr1,20,x,peaks\n")
    with pytest.raises(ValueError, match=rf"{c}, line 3: chromEnd must be an integer"):
        read_peak_labels(c)
    ok = tmp_path / "ok.bed"
    ok.write_text("chr1\t0\t10\tnoPeaks\n")
    with pytest.raises(ValueError, match="labels text format only"):
        read_peak_labels(ok, samples={"a": "b"})
    with pytest.raises(ValueError, match="coordinates must be"):
        read_peak_labels(c, coordinates="ucsc")


# ---- BED --------------------------------------------------------------------------------


def _peaks():
    return pd.DataFrame({"chrom": ["chr1", "chr1", "chr2"], "chromStart": [10, 50, 0],
                         "chromEnd": [20, 60, 5]})


def test_write_bed_plain_gzip_round_trip(tmp_path):
    peaks = _peaks()
    write_bed(peaks, tmp_path / "p.bed")
    assert (tmp_path / "p.bed").read_text() == "chr1\t10\t20\nchr1\t50\t60\nchr2\t0\t5\n"
    write_bed(peaks, tmp_path / "p.bed.gz")
    raw = (tmp_path / "p.bed.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw).decode() == (tmp_path / "p.bed").read_text()
    pd.testing.assert_frame_equal(read_bed(tmp_path / "p.bed.gz"), peaks, check_dtype=False)
    named = peaks.assign(name=["a", "b", "c"], score=[0, 417.0, 1000], other=1)
    write_bed(named, tmp_path / "n.bed")
    back = read_bed(tmp_path / "n.bed")
    assert list(back.columns) == ["chrom", "chromStart", "chromEnd", "name", "score"]
    assert back["score"].tolist() == [0, 417, 1000]
    assert "\t417\n" in (tmp_path / "n.bed").read_text()  # UCSC's integer score
    scored = peaks.assign(score=[1, 2, 3])
    write_bed(scored, tmp_path / "s.bed")
    assert read_bed(tmp_path / "s.bed")["name"].tolist() == [".", ".", "."]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["chr1", "chrX", "0001"]),
                          st.integers(0, 10**9), st.integers(1, 10**4)),
                max_size=20, unique_by=lambda t: t[0]))
def test_bed_round_trip_property(tmp_path_factory, rows):
    peaks = pd.DataFrame({"chrom": [r[0] for r in rows],
                          "chromStart": [r[1] for r in rows],
                          "chromEnd": [r[1] + r[2] for r in rows]},
                         columns=["chrom", "chromStart", "chromEnd"])
    path = tmp_path_factory.mktemp("bed") / "x.bed.gz"
    write_bed(peaks, path)
    back = read_bed(path)
    assert back["chrom"].tolist() == peaks["chrom"].tolist()
    assert back["chromStart"].tolist() == peaks["chromStart"].tolist()
    assert back["chromEnd"].tolist() == peaks["chromEnd"].tolist()


def test_write_bed_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "peaks.bed"
    path.write_text("old\n")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write_bed(_peaks(), path)
    monkeypatch.undo()
    assert path.read_text() == "old\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["peaks.bed"]  # no temp file
    new = tmp_path / "new.bed.gz"
    with pytest.raises(ValueError, match="chromStart must be < chromEnd"):
        write_bed(_peaks().assign(chromEnd=[5, 60, 5]), new)
    assert not new.exists()


@pytest.mark.parametrize("table, error, match", [
    (_peaks().assign(sample_id=["a", "a", "b"]), ValueError, "one file per sample"),
    (_peaks().drop(columns="chromEnd"), ValueError, r"missing column\(s\) \['chromEnd'\]"),
    (_peaks().assign(name=["a b", "c", "d"]), ValueError, "without spaces"),
    (_peaks().assign(score=["x", 1, 2]), ValueError, "'score' must hold integers 0-1000"),
    (_peaks().assign(score=[1.5, 1, 2]), ValueError, "'score' must hold integers 0-1000"),
    (_peaks().assign(score=[1001, 1, 2]), ValueError, "'score' must hold integers 0-1000"),
    (_peaks().assign(chromStart=[10, 15, 0]), ValueError, "overlapping peaks"),
])
def test_write_bed_bad_input(tmp_path, table, error, match):
    with pytest.raises(error, match=match):
        write_bed(table, tmp_path / "x.bed")
    assert not (tmp_path / "x.bed").exists()


def test_read_bed_errors(tmp_path):
    p = tmp_path / "x.bed"
    p.write_text("chr1\t10\n")
    with pytest.raises(ValueError, match=rf"{p}, line 1: expected at least 3 fields"):
        read_bed(p)
    p.write_text("chr1\t10\t5\n")
    with pytest.raises(ValueError, match=rf"{p}, line 1: chromStart must be < chromEnd"):
        read_bed(p)


def test_mono27ac_peaks_through_bed_files(tmp_path):
    """FPOP peaks of the R reference -> write_bed -> read_bed -> label errors as in R."""


    segs = pd.read_csv(need(REFERENCE / "peakseg" / "mono27ac" / "fpop_segments.csv"))
    summary = pd.read_csv(REFERENCE / "peakseg" / "mono27ac" / "fpop_error_summary.csv")
    labels = read_peak_labels(need(RAW / "Mono27ac" / "labels.csv"))
    for penalty, errors in zip(summary["penalty"], summary["errors"]):
        peaks = segs[(segs["penalty"] == penalty) & (segs["status"] == "peak")]
        path = tmp_path / f"{penalty}.bed.gz"
        write_bed(peaks, path)
        back = read_bed(path)
        assert len(back) == len(peaks)
        assert peak_label_errors(back, labels).totals["errors"].item() == errors
