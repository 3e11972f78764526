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
