"""The text readers parse a file block by block (bounded memory): tiny blocks,
forced through the module constants, must give what one block gives — lines cut at block
edges, errors naming the right line in a later block, gzip (one or many members) equal to
plain, chromosome runs and growing columns across edges."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest

from penlearn.peaks.formats import _text_files, _text_parse
from penlearn.peaks.formats.coverage import read_bedgraph, read_coverage

CSV_HEAD = "sample_id,chrom,chromStart,chromEnd,count\n"


def _lines(rng, n, chroms=("chrA", "chrB")):
    """Well-formed bedGraph lines with headers / blank lines here and there, and the rows
    a line-by-line reader of the format gives."""
    lines, rows = [], []
    per = -(-n // len(chroms))
    for chrom in chroms:
        end = 0
        for _ in range(per):
            if rng.random() < 0.1:
                lines.append(str(rng.choice(["", "  ", "# note", "track x=1", "browser y"])))
            start = end + int(rng.integers(0, 3))
            end = start + int(rng.integers(1, 40))
            count = int(rng.integers(0, 10**6))
            sep = str(rng.choice(["\t", " ", " \t "]))
            lines.append(sep.join([chrom, str(start), str(end), str(count)]))
            rows.append([chrom, start, end, count])
    return lines, rows


def _blocks(path, size):
    return [bytes(b) for b in _text_files.text_blocks(path, size)]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_blocks_are_the_file_cut_at_line_ends(tmp_path, eol):
    rng = np.random.default_rng(1)
    lines, _ = _lines(rng, 60)
    data = (eol.join(lines) + eol).encode()
    plain = tmp_path / "a.bedGraph"
    plain.write_bytes(b"\xef\xbb\xbf" + data)
    gz = tmp_path / "a.bedGraph.gz"
    # two gzip members (as bgzip writes): one stream when decompressed
    gz.write_bytes(gzip.compress(data[:500]) + gzip.compress(data[500:]))
    for size in (16, 37, 64, 301):
        for path in (plain, gz):
            blocks = _blocks(path, size)
            assert b"".join(blocks) == data, (path, size)  # the byte-order mark dropped
            for block, after in zip(blocks, blocks[1:] + [b""]):
                assert block.endswith((b"\n", b"\r"))
                assert not (block.endswith(b"\r") and after.startswith(b"\n"))
                # a block is longer than asked only when a line is longer than half
                assert len(block) <= max(size, 2 * max(map(len, lines)) + 4)


def test_a_line_longer_than_the_block_makes_a_longer_block(tmp_path):
    p = tmp_path / "long.bedGraph"
    long_name = "chr" + "x" * 200
    p.write_text(f"chr1\t0\t1\t1\n{long_name}\t0\t5\t2\nchr2\t0\t1\t3\n")
    blocks = _blocks(p, 16)
    assert b"".join(blocks) == p.read_bytes()
    assert blocks[1].startswith(f"{long_name}\t0\t5\t2\n".encode())
    assert read_bedgraph(p)["chrom"].tolist() == ["chr1", long_name, "chr2"]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_small_blocks_read_what_one_block_reads(tmp_path, monkeypatch, eol):
    """Random files against a line-by-line reference, plain and gzip, with blocks of a few
    lines, columns grown from 3 rows and runs taken 2 at a time."""
    rng = np.random.default_rng(2)
    lines, rows = _lines(rng, 300, chroms=("chr1", "chr2", "chrUn_1", "chrM"))
    data = (eol.join(lines)).encode()  # no line end after the last line
    plain = tmp_path / "r.bedGraph"
    plain.write_bytes(data)
    gz = tmp_path / "r.bedGraph.gz"
    gz.write_bytes(gzip.compress(data))
    whole = read_bedgraph(plain)
    assert whole.values.tolist() == rows
    monkeypatch.setattr(_text_parse, "FIRST_ROWS", 3)
    monkeypatch.setattr(_text_parse, "RUN_CAPACITY", 2)
    for size in (16, 50, 123):
        monkeypatch.setattr(_text_files, "BLOCK_BYTES", size)
        for path in (plain, gz):
            got = read_bedgraph(path, sample_id="s")
            assert got.drop(columns="sample_id").values.tolist() == rows, (path, size)
            assert got.dtypes.tolist()[2:] == [np.int64] * 3


def _edge_sizes(path, line_no):
    """Block sizes for which ``line_no`` is the first line of the second block."""
    text = path.read_bytes()
    before = len(b"".join(text.splitlines(keepends=True)[:line_no - 1]))
    return [s for s in range(16, 200) if len(_blocks(path, s)[0]) == before]


@pytest.mark.parametrize("bad, message", [
    ("chr1\t90\t1x\t3", "chromEnd must be an integer, got '1x'"),
    ("chr1\t90\t100", "expected 4 fields"),
    ("\t90\t100\t3", "the chrom field is empty"),  # not "got 3" fields
    ("chr1\t90\t100\t", "the count field is empty"),
    ("chr1\t90\t100\t99999999999999999999", "count 99999999999999999999 is beyond"),
    ("chr1\t5\t100\t3", "rows must be sorted by position without overlaps"),  # a row check
    ("chr1\t100\t90\t3", "chromStart must be < chromEnd"),
])
def test_error_on_the_first_line_of_a_later_block_names_its_line(tmp_path, monkeypatch,
                                                                 bad, message):
    good = [f"chr1\t{10 * i}\t{10 * i + 10}\t{i % 4}" for i in range(9)]
    lines = ["track type=bedGraph", *good[:4], "", "# c", *good[4:], bad, "chr1\t200\t210\t1"]
    line_no = lines.index(bad) + 1
    p = tmp_path / "e.bedGraph"
    p.write_text("\n".join(lines) + "\n")
    sizes = _edge_sizes(p, line_no)
    assert sizes  # the case the test is about does occur
    for size in [*sizes, 16, 1 << 20]:
        monkeypatch.setattr(_text_files, "BLOCK_BYTES", size)
        with pytest.raises(ValueError, match=rf"^{re.escape(str(p))}, line {line_no}: "
                           rf"{re.escape(message)}"):
            read_bedgraph(p)


def test_csv_in_small_blocks_header_late_errors_and_extra_columns(tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    lines, rows = _lines(rng, 80)
    body = [f"s{1 + (i >= 40)},{r[0]},{r[1]},{r[2]},{r[3]},x{i}" for i, r in enumerate(rows)]
    p = tmp_path / "t.csv"
    p.write_text("# made by a test\n" * 5 + CSV_HEAD.rstrip("\n") + ",note\n"
                 + "\n".join(body) + "\n")
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(p.read_bytes()))
    want = [[f"s{1 + (i >= 40)}", *r, f"x{i}"] for i, r in enumerate(rows)]
    monkeypatch.setattr(_text_parse, "FIRST_ROWS", 3)
    monkeypatch.setattr(_text_parse, "RUN_CAPACITY", 2)
    for size in (16, 40, 1 << 20):
        monkeypatch.setattr(_text_files, "BLOCK_BYTES", size)
        for path in (p, gz):
            assert read_coverage(path).values.tolist() == want, (path, size)
    # an overlap in the second sample, and a bad token, found in a later block
    body[50] = body[50].split(",", 2)[0] + f",{rows[50][0]},0,{rows[50][2]},1,y"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(["# c"] * 5 + [CSV_HEAD.rstrip("\n") + ",note", *body]) + "\n")
    monkeypatch.setattr(_text_files, "BLOCK_BYTES", 40)
    with pytest.raises(ValueError, match=rf"{re.escape(str(bad))}, line 57: rows must be "
                       "sorted"):
        read_coverage(bad)
    body[50] = body[50].replace(",0,", ",0x,")
    bad.write_text("\n".join(["# c"] * 5 + [CSV_HEAD.rstrip("\n") + ",note", *body]) + "\n")
    with pytest.raises(ValueError, match=rf"{re.escape(str(bad))}, line 57: chromStart must "
                       "be an integer, got '0x'"):
        read_coverage(bad)


def test_a_chromosome_found_again_in_a_later_block_is_refused(tmp_path, monkeypatch):
    p = tmp_path / "g.bedGraph"
    p.write_text("".join(f"chr{c}\t{i}\t{i + 1}\t1\n" for c in "121" for i in range(5)))
    monkeypatch.setattr(_text_files, "BLOCK_BYTES", 20)
    with pytest.raises(ValueError, match=rf"{re.escape(str(p))}, line 11: chromosome 'chr1' "
                       "appears again"):
        read_bedgraph(p)


def test_nul_bytes_or_bad_utf8_in_a_later_block_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(_text_files, "BLOCK_BYTES", 16)
    good = "".join(f"chr1\t{i}\t{i + 1}\t1\n" for i in range(10)).encode()
    for tail in (b"chr1\t10\t11\t\x001\n", b"chr\xff\t10\t11\t1\n"):
        p = tmp_path / "n.bedGraph"
        p.write_bytes(good + tail)
        with pytest.raises(ValueError, match=r"not a text file"):
            read_bedgraph(p)
    p.write_bytes(good + "chr\u00e9\t0\t1\t1\n".encode())  # UTF-8 across no edge
    assert read_bedgraph(p)["chrom"].iloc[-1] == "chr\u00e9"


def test_truncated_gzip_is_a_one_line_error(tmp_path):
    p = tmp_path / "t.bedGraph.gz"
    p.write_bytes(gzip.compress(b"chr1\t0\t1\t1\n" * 1000)[:-20])
    with pytest.raises(ValueError, match=rf"^{re.escape(str(p))}: corrupt gzip data"):
        read_bedgraph(p)
