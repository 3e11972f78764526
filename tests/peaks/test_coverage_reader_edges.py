"""Coverage readers on hostile input: every case a one-line error naming the
file and line, or the exact value — never a silent wrong table."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.formats.coverage import read_bedgraph, read_bigwig, read_coverage

CSV_HEAD = "sample_id,chrom,chromStart,chromEnd,count\n"


def _bigwig(path, entries=((0, 100, 0.0), (100, 150, 3.0), (150, 400, 1.0)), size=1000):
    pyBigWig = pytest.importorskip(
        "pyBigWig", reason="pyBigWig (optional extra penlearn[bigwig]) is not installed")
    bw = pyBigWig.open(str(path), "w")
    bw.addHeader([("chr1", size)])
    s, e, v = zip(*entries)
    bw.addEntries(["chr1"] * len(s), list(s), ends=list(e), values=list(v))
    bw.close()
    return path


def test_byte_order_mark_is_not_part_of_the_first_chromosome(tmp_path):
    bg = tmp_path / "bom.bedGraph"
    bg.write_bytes(b"\xef\xbb\xbfchr1\t0\t10\t1\nchr1\t10\t20\t2\n")
    assert read_bedgraph(bg)["chrom"].tolist() == ["chr1", "chr1"]
    csv = tmp_path / "bom.csv"
    csv.write_bytes(b"\xef\xbb\xbf" + (CSV_HEAD + "a,chr1,0,10,1\n").encode())
    assert read_coverage(csv).iloc[0].tolist() == ["a", "chr1", 0, 10, 1]


def test_positions_beyond_float_precision_are_exact(tmp_path):
    big = 2**53 + 1  # a float64 holds 2**53, not 2**53 + 1
    csv = tmp_path / "c.csv"
    csv.write_text(CSV_HEAD + f"a,chr1,{big},{big + 2},1\n")
    cov = read_coverage(csv)
    assert cov["chromStart"].tolist() == [big] and cov["chromEnd"].tolist() == [big + 2]
    bg = tmp_path / "c.bedGraph"
    bg.write_text(f"chr1\t{big}\t{big + 2}\t1\n")
    assert read_bedgraph(bg)["chromStart"].tolist() == [big]


@pytest.mark.parametrize("token", ["1_000", "+5", "\u0665", "\uff15", "0x10", "1e3", "5.5",
                                   "\u00bd", "٣٢"])
def test_counts_python_int_accepts_but_bedgraph_does_not(tmp_path, token):
    p = tmp_path / "x.bedGraph"
    p.write_text(f"chr1\t0\t10\t1\nchr1\t10\t20\t{token}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{p}, line 2: count must be an integer, "
                       rf"got '{re.escape(token)}'"):
        read_bedgraph(p)


@pytest.mark.parametrize("field, line", [(" 5", "a,chr1,0,10, 5"), ("+5", "a,chr1,0,10,+5"),
                                         ("1_0", "a,chr1,1_0,20,5"),
                                         ("1,000", 'a,chr1,0,"1,000",5')])
def test_csv_numbers_in_loose_forms_are_refused(tmp_path, field, line):
    p = tmp_path / "c.csv"
    p.write_text(CSV_HEAD + "a,chr0,0,1,1\n" + line + "\n")
    with pytest.raises(ValueError, match=rf"{p}, line 3: \w+ must be an integer, "
                       rf"got '{re.escape(field)}'"):
        read_coverage(p)


def test_comma_grouped_coordinates_are_refused(tmp_path):
    p = tmp_path / "x.bedGraph"
    p.write_text("chr1\t1,000\t2,000\t5\n")
    with pytest.raises(ValueError, match=r"line 1: chromStart must be an integer, got '1,000'"):
        read_bedgraph(p)


@pytest.mark.parametrize("row, col", [("chr1\t0\t10\t99999999999999999999", "count"),
                                      ("chr1\t0\t9223372036854775808\t1", "chromEnd"),
                                      ("chr1\t-99999999999999999999\t10\t1", "chromStart")])
def test_integers_beyond_int64_are_a_one_line_error(tmp_path, row, col):
    p = tmp_path / "x.bedGraph"
    p.write_text("chr1\t5\t6\t1\n" + row + "\n")
    with pytest.raises(ValueError, match=rf"{p}, line 2: {col} -?\d+ is beyond the 64-bit"):
        read_bedgraph(p)
    csv = tmp_path / "x.csv"
    csv.write_text(CSV_HEAD + "a," + row.replace("\t", ",") + "\n")
    with pytest.raises(ValueError, match=rf"{csv}, line 2: {col} -?\d+ is beyond"):
        read_coverage(csv)


def test_positions_near_2_62_are_reported_exactly(tmp_path):
    a = 2**62
    p = tmp_path / "x.bedGraph"
    p.write_text(f"chr1\t{a}\t{a + 1}\t2\nchr1\t{a + 3}\t{a + 2}\t1\n")
    with pytest.raises(ValueError, match=rf"line 2: chromStart must be < chromEnd, got "
                       rf"chromStart={a + 3}, chromEnd={a + 2}$"):
        read_bedgraph(p)
    p.write_text(f"chr1\t{a}\t{a + 1}\t2\n")
    assert read_bedgraph(p)["chromEnd"].tolist() == [a + 1]


def test_ragged_csv_rows_name_file_and_line(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text(CSV_HEAD + "a,chr1,0,10,1\na,chr1,10,20,1,7\n")
    with pytest.raises(ValueError, match=rf"{p}, line 3: expected 5 fields as in the "
                       "header, got 6"):
        read_coverage(p)


def test_same_file_twice_is_refused(tmp_path):
    p = tmp_path / "s.bedGraph"
    p.write_text("chr1\t0\t10\t1\n")
    os.symlink(p, tmp_path / "t.bedGraph")
    for paths in ([p, p], [p, tmp_path / "." / "s.bedGraph"], [p, tmp_path / "t.bedGraph"],
                  {"x": p, "y": p}):
        with pytest.raises(ValueError, match="the same file is given twice"):
            read_coverage(paths)


def test_empty_path_is_refused_not_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "a.bedGraph").write_text("chr1\t0\t10\t1\n")
    monkeypatch.chdir(tmp_path)  # a folder with coverage that "" would read
    for arg in ("", [""], {"a": ""}):
        with pytest.raises(ValueError, match="empty path"):
            read_coverage(arg)
    proc = subprocess.run([sys.executable, "-m", "penlearn.cli", "peaks", "", "--penalty", "1",
                           "--out", str(tmp_path / "out.bed")], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "empty path" in proc.stderr
    assert not (tmp_path / "out.bed").exists()


def test_dangling_symlink_in_a_folder_is_an_error(tmp_path):
    folder = tmp_path / "cov"
    folder.mkdir()
    (folder / "a.bedGraph").write_text("chr1\t0\t10\t1\n")
    (folder / "b.bedGraph").write_text("chr1\t0\t10\t2\n")
    os.symlink(tmp_path / "gone.bedGraph", folder / "c.bedGraph")
    with pytest.raises(ValueError, match=r"c\.bedGraph: a symbolic link to a missing file"):
        read_coverage(folder)
    out = tmp_path / "peaks"
    proc = subprocess.run([sys.executable, "-m", "penlearn.cli", "peaks", str(folder),
                           "--penalty", "1", "--out", str(out)], capture_output=True,
                          text=True)
    assert proc.returncode == 1 and "symbolic link to a missing file" in proc.stderr
    assert not out.exists()


def test_read_bigwig_bad_paths_are_one_line_errors(tmp_path):
    pytest.importorskip("pyBigWig", reason="pyBigWig (optional extra) is not installed")
    text = tmp_path / "x.bigWig"
    text.write_text("chr1\t0\t10\t1\n")
    cases = [(text, ValueError, "not a bigWig file"),
             (tmp_path / "missing.bw", FileNotFoundError, "bigWig file not found"),
             (tmp_path, ValueError, "is a folder")]
    for path, error, match in cases:
        with pytest.raises(error, match=match) as info:
            read_bigwig(path, "chr1", 0, 10)
        assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_bigwig_region_past_the_chromosome_end_is_an_error(tmp_path):
    path = _bigwig(tmp_path / "x.bw")
    with pytest.raises(ValueError, match=r"region chr1:900-2000 is past the end of chr1 "
                       r"\(1000 bases\)"):
        read_bigwig(path, "chr1", 900, 2000)
    assert read_bigwig(path, "chr1", 900, 1000).empty  # the last base is fine


def test_bigwig_all_chromosomes_and_in_read_coverage(tmp_path):
    path = _bigwig(tmp_path / "s1.bw")
    whole = read_bigwig(path)
    assert whole.values.tolist() == [["chr1", 0, 100, 0], ["chr1", 100, 150, 3],
                                     ["chr1", 150, 400, 1]]
    folder = tmp_path / "f"
    folder.mkdir()
    os.replace(path, folder / "s1.bigWig")
    (folder / "s2.bedGraph").write_text("chr1\t0\t10\t4\n")
    cov = read_coverage(folder)
    assert cov["sample_id"].tolist() == ["s1"] * 3 + ["s2"]
    pd.testing.assert_frame_equal(cov.iloc[:3, 1:].reset_index(drop=True), whole)
    # told apart by the magic number: a bigWig named .bedGraph is still a bigWig
    os.replace(folder / "s1.bigWig", tmp_path / "named.bedGraph")
    assert read_coverage([tmp_path / "named.bedGraph"])["count"].tolist() == [0, 3, 1]


def test_fast_reader_matches_a_line_by_line_reference(tmp_path):
    """Random well-formed bedGraphs (headers, blank lines, CRLF, spaces, gzip): the bulk
    parser gives what a plain Python reader of the format gives."""
    rng = np.random.default_rng(3)
    for trial in range(20):
        n = int(rng.integers(1, 60))
        widths = rng.integers(1, 9, n)
        gaps = rng.integers(0, 3, n) * (trial % 2)
        ends = np.cumsum(widths + gaps)
        starts = ends - widths
        chroms = np.where(np.arange(n) < n // 2, "chrA", "chr_B.1")
        counts = rng.integers(0, 10**12, n)
        lines = []
        for c, s, e, k in zip(chroms, starts, ends, counts):
            if rng.random() < 0.1:
                lines.append(rng.choice(["", "  ", "# note", "track x=1", "browser y"]))
            sep = rng.choice(["\t", " ", "  \t"])
            lines.append(sep.join([c, str(s), str(e), str(k) + (".0" if k % 5 == 0 else "")]))
        eol = "\r\n" if trial % 3 == 0 else "\n"
        p = tmp_path / f"r{trial}.bedGraph"
        p.write_bytes(eol.join(lines).encode())
        expected = [[f[0], int(f[1]), int(f[2]), int(float(f[3]))]
                    for f in (line.split() for line in lines)
                    if f and not f[0].startswith(("#", "track", "browser"))]
        assert read_bedgraph(p).values.tolist() == expected


@pytest.mark.parametrize("position", ["33,4560,00", ",33", "33,", "3,3", "\u0663\u0663",
                                      "33,,000"])
def test_browser_label_positions_with_odd_commas_are_refused(tmp_path, position):
    from penlearn.peaks.formats.bed import read_peak_labels

    p = tmp_path / "labels.txt"
    p.write_text(f"chr1:1,000-2,000 peaks\nchr1:{position}-33,484,755 noPeaks\n",
                 encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{p}, line 2: expected 'chrom:start-end"):
        read_peak_labels(p)
    p.write_text("chr1:1,000-2,000 peaks\nchr1:3,000-4000 noPeaks\n")
    assert read_peak_labels(p)["chromStart"].tolist() == [999, 2999]


def test_bigwig_windows_and_regions_match_brute_force(tmp_path, monkeypatch):
    """Tiny windows (intervals across window edges), columns grown from 2 rows, an empty
    chromosome between two full ones, gaps: the reader gives the written rows, and a
    region's rows are the overlapping intervals clipped to it."""
    pyBigWig = pytest.importorskip(
        "pyBigWig", reason="pyBigWig (optional extra penlearn[bigwig]) is not installed")
    from penlearn.peaks.formats import _bigwig

    monkeypatch.setattr(_bigwig, "_WINDOW", 16)
    monkeypatch.setattr(_bigwig, "_ROWS", 2)
    rng = np.random.default_rng(5)
    rows = []
    for chrom, n in (("chrA", 40), ("chrE", 0), ("chrB", 25)):
        widths = rng.integers(1, 30, n)
        ends = np.cumsum(widths + rng.integers(0, 3, n))
        rows += [(chrom, int(e - w), int(e), int(c))
                 for e, w, c in zip(ends, widths, rng.integers(0, 9, n))]
    sizes = {"chrA": 1500, "chrE": 50, "chrB": 1000}
    path = tmp_path / "w.bw"
    bw = pyBigWig.open(str(path), "w")
    bw.addHeader(list(sizes.items()), maxZooms=0)
    for chrom in ("chrA", "chrB"):
        mine = [r for r in rows if r[0] == chrom]
        bw.addEntries([chrom] * len(mine), [r[1] for r in mine], ends=[r[2] for r in mine],
                      values=[float(r[3]) for r in mine])
    bw.close()
    assert read_bigwig(path).values.tolist() == [list(r) for r in rows]
    with monkeypatch.context() as m:  # one window of 40 rows into a column of 1 row
        m.setattr(_bigwig, "_WINDOW", 1 << 20)
        m.setattr(_bigwig, "_ROWS", 1)
        assert read_bigwig(path).values.tolist() == [list(r) for r in rows]
    for start, end in ((0, 1), (7, 333), (15, 17), (100, 1000), (640, 1500)):
        want = [["chrA", max(s, start), min(e, end), c] for ch, s, e, c in rows
                if ch == "chrA" and s < end and e > start]
        got = read_bigwig(path, "chrA", start, end)
        assert got.values.tolist() == want, (start, end)
        assert got.dtypes.tolist()[1:] == [np.int64] * 3
