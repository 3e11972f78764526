"""A coverage file a chromosome at a time (``formats/coverage_chromosomes.py``, issue
55): the rows and errors of the whole file's reader, with tiny blocks, columns grown
from 3 rows and runs taken 2 at a time forced through the module constants."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from test_coverage_blocks import _lines

from penlearn.peaks.formats import _text_files, _text_parse
from penlearn.peaks.formats.coverage import read_bedgraph, read_coverage_file
from penlearn.peaks.formats.coverage_chromosomes import coverage_file_chromosomes


def _table(path, sid=None) -> pd.DataFrame:
    s, chroms = coverage_file_chromosomes(path, sid)
    parts = [pd.DataFrame(cols).assign(chrom=c) for c, cols in chroms]
    out = pd.concat(parts, ignore_index=True)
    return out.assign(sample_id=s)[["sample_id", "chrom", "chromStart", "chromEnd",
                                    "count"]]


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_chromosomes_are_the_rows_of_the_whole_file(tmp_path, monkeypatch, eol):
    rng = np.random.default_rng(55)
    lines, rows = _lines(rng, 400, chroms=("chr2", "chr1", "chrUn_1", "chrM", "chrX"))
    data = eol.join(lines).encode()
    plain = tmp_path / "r.bedGraph"
    plain.write_bytes(data)
    gz = tmp_path / "r.bedGraph.gz"
    gz.write_bytes(gzip.compress(data))
    whole = read_bedgraph(plain, "r")
    monkeypatch.setattr(_text_parse, "FIRST_ROWS", 3)
    monkeypatch.setattr(_text_parse, "RUN_CAPACITY", 2)
    for size in (16, 50, 123, 1 << 20):
        monkeypatch.setattr(_text_files, "BLOCK_BYTES", size)
        for path in (plain, gz):
            got = _table(path)
            assert got.values.tolist() == whole.values.tolist(), (path, size)
            assert got.dtypes.tolist()[2:] == [np.int64] * 3
    _, chroms = coverage_file_chromosomes(plain, "x")
    assert [c for c, _ in chroms] == ["chr2", "chr1", "chrUn_1", "chrM", "chrX"]


@pytest.mark.parametrize("bad, message", [
    ("chr1\t90\t1x\t3", "chromEnd must be an integer, got '1x'"),
    ("chr1\t90\t100", "expected 4 fields"),
    ("chr1\t5\t100\t3", "rows must be sorted by position without overlaps"),
    ("chr1\t100\t90\t3", "chromStart must be < chromEnd"),
    ("chr1\t100\t190\t-3", "count must be >= 0"),
    ("chr2\t500\t600\t3", "chromosome 'chr2' appears again after other chromosomes"),
])
def test_errors_are_those_of_the_whole_file(tmp_path, monkeypatch, bad, message):
    """One bad line after a few chromosomes (at a block's start or inside one): the
    message of the whole file's reader, naming the same line."""
    head = "chr2\t0\t10\t1\nchr2\t10\t20\t2\nchr1\t0\t50\t1\nchr1\t50\t90\t4\n"
    path = tmp_path / "bad.bedGraph"
    path.write_text(head + bad + "\nchr1\t1000\t1010\t1\nchrX\t0\t5\t1\n")
    for size in (16, 40, 1 << 20):
        monkeypatch.setattr(_text_files, "BLOCK_BYTES", size)
        with pytest.raises(ValueError) as whole:
            read_bedgraph(path)
        with pytest.raises(ValueError) as streamed:
            list(coverage_file_chromosomes(path)[1])
        assert message in str(whole.value) and "line 5" in str(whole.value)
        assert str(streamed.value) == str(whole.value)


def test_other_files_are_read_whole_then_cut(tmp_path):
    """A bigWig is read whole (its reader) and cut; the sample id from the file name."""
    pytest.importorskip("pyBigWig")
    import pyBigWig

    path = tmp_path / "s1.bw"
    bw = pyBigWig.open(str(path), "w")
    bw.addHeader([("chr2", 100), ("chr1", 100)])
    bw.addEntries(["chr2", "chr2", "chr1"], [0, 10, 5], ends=[10, 30, 50],
                  values=[1.0, 3.0, 2.0])
    bw.close()
    table, _ = read_coverage_file(path)
    assert _table(path).values.tolist() == table.values.tolist()
    assert coverage_file_chromosomes(path)[0] == "s1"


def _write_bigwig(path, sizes: dict, intervals: dict) -> None:
    import pyBigWig

    bw = pyBigWig.open(str(path), "w")
    bw.addHeader(list(sizes.items()))
    for chrom in sizes:
        s, e, v = intervals.get(chrom, ([], [], []))
        if len(s):
            bw.addEntries([chrom] * len(s), list(s), ends=list(e), values=list(v))
    bw.close()


def _random_intervals(rng, size: int, n: int):
    cuts = np.sort(rng.choice(np.arange(1, size), 2 * n, replace=False))
    s, e = cuts[0::2], cuts[1::2]
    return s.tolist(), e.tolist(), rng.integers(0, 9, n).astype(float).tolist()


def test_bigwig_chromosomes_are_the_rows_of_the_whole_file(tmp_path, monkeypatch):
    """A bigWig a chromosome at a time (windows of 7 bases, columns grown from 3 rows):
    the rows of the whole file's reader, a chromosome without intervals left out, the
    chromosomes read one after the other (not the whole file first)."""
    pytest.importorskip("pyBigWig")
    from penlearn.peaks.formats import _bigwig

    rng = np.random.default_rng(56)
    sizes = {"chr2": 300, "chrEmpty": 50, "chr1": 500, "chrX": 90}
    path = tmp_path / "s1.bw"
    _write_bigwig(path, sizes, {c: _random_intervals(rng, n, 20) for c, n in sizes.items()
                                if c != "chrEmpty"})
    whole, _ = read_coverage_file(path)
    monkeypatch.setattr(_bigwig, "_WINDOW", 7)
    monkeypatch.setattr(_bigwig, "_ROWS", 3)
    asked = []
    real = _bigwig._region_columns
    monkeypatch.setattr(_bigwig, "_region_columns",
                        lambda p, bw, regions: asked.append(regions) or real(p, bw, regions))
    sid, chroms = coverage_file_chromosomes(path)
    first = next(chroms)
    assert sid == "s1" and first[0] == "chr2" and asked == [[("chr2", 0, 300)]]
    got = _table(path)
    assert got.values.tolist() == whole.values.tolist()
    assert got.dtypes.tolist()[2:] == [np.int64] * 3
    assert list(pd.unique(got["chrom"])) == ["chr2", "chr1", "chrX"]


def test_bigwig_errors_are_those_of_the_whole_file(tmp_path):
    """A value that is not a count on the second chromosome (after the first was
    given), and a file without intervals: the whole file's messages."""
    pytest.importorskip("pyBigWig")
    bad = tmp_path / "bad.bw"
    _write_bigwig(bad, {"chr2": 100, "chr1": 100},
                  {"chr2": ([0], [10], [1.0]), "chr1": ([5, 20], [10, 30], [2.0, 2.5])})
    with pytest.raises(ValueError) as whole:
        read_coverage_file(bad)
    _, chroms = coverage_file_chromosomes(bad)
    assert next(chroms)[0] == "chr2"
    with pytest.raises(ValueError) as streamed:
        next(chroms)
    assert "chr1:20-30 has value 2.5" in str(whole.value)
    assert str(streamed.value) == str(whole.value)
    empty = tmp_path / "empty.bw"
    _write_bigwig(empty, {"chr1": 100}, {})
    with pytest.raises(ValueError) as whole:
        read_coverage_file(empty)
    with pytest.raises(ValueError) as streamed:
        list(coverage_file_chromosomes(empty)[1])
    assert "has no rows" in str(whole.value) and str(streamed.value) == str(whole.value)


@pytest.mark.parametrize("layout", ["indexed", "sorted", "unsorted"])
def test_bam_chromosomes_are_the_rows_of_the_whole_file(tmp_path, monkeypatch, layout):
    """A BAM file's depth a chromosome at a time: the rows of the whole file's reader
    and its warning (a mapped record without a CIGAR); an indexed file fetched a
    reference at a time (never read whole)."""
    pysam = pytest.importorskip("pysam")
    import warnings

    from test_bam import _records, _write_bam

    from penlearn.peaks.formats import bam as bam_module

    records = _records(np.random.default_rng(57), 300) + [(0, "chr2", 700, "")]
    path = tmp_path / "r.bam"
    _write_bam(path, records, sort=layout != "unsorted")
    if layout == "indexed":
        pysam.index(str(path))
    with pytest.warns(UserWarning, match="1 mapped record") as caught:
        whole, _ = read_coverage_file(path)
    if layout == "indexed":
        def whole_read(*args):
            raise AssertionError("an indexed BAM read whole")
        monkeypatch.setattr(bam_module, "_file_blocks", whole_read)
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = _table(path)
    assert [str(w.message) for w in got_warnings] == [str(w.message) for w in caught]
    assert len(whole) > 50 and list(pd.unique(got["chrom"])) == ["chr1", "chr2"]
    assert got.values.tolist() == whole.values.tolist()
    assert got.dtypes.tolist()[2:] == [np.int64] * 3


@pytest.mark.parametrize("indexed", [True, False])
def test_bam_without_mapped_reads_is_the_whole_files_error(tmp_path, indexed):
    pysam = pytest.importorskip("pysam")
    from test_bam import _write_bam

    path = tmp_path / "none.bam"
    _write_bam(path, [(4, "chr1", 10, "")], sort=True)
    if indexed:
        pysam.index(str(path))
    with pytest.raises(ValueError) as whole:
        read_coverage_file(path)
    with pytest.raises(ValueError) as streamed:
        list(coverage_file_chromosomes(path)[1])
    assert "no mapped reads" in str(whole.value)
    assert str(streamed.value) == str(whole.value)
