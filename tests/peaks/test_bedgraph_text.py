"""bedgraph_bytes (the compiled bedGraph lines of ``callpeak -B``, issue 55) against the
pandas writer it replaced there (write_bedgraph: ``to_csv``), byte for byte."""

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.formats.bed import bedgraph_bytes, write_bedgraph

EDGE = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.1,
        1 / 3, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -2.5e-7,
        123456.78901, 65535.0, 65536.0, 65536.5, 2.0 ** 53, 2.0 ** 53 + 2,
        0.30000000000000004, 1e22, -1e-300, 12.5, 100.0, 1e5, 123456789012345.6]


def _pandas_bytes(tmp_path, chrom, s, e, v) -> bytes:
    p = tmp_path / "old.bdg"
    write_bedgraph(pd.DataFrame({"chrom": chrom, "chromStart": s, "chromEnd": e,
                                 "mean": v}), p)
    return p.read_bytes()


def _regions(rng, n):
    width = rng.integers(1, 10**6, n)
    s = rng.integers(0, 3 * 10**9) + np.concatenate([[0], np.cumsum(width[:-1])])
    return s, s + width


def _values(kind, rng, n):
    return {"edge": np.resize(np.array(EDGE), n),
            "counts": rng.integers(0, 300, n).astype(float),
            "big counts": rng.integers(0, 2**45, n).astype(float),
            "normal": rng.normal(size=n),
            "wide": np.exp(rng.normal(scale=40, size=n)) * rng.choice([-1, 1], n),
            "rounded": (rng.random(n) * 100).round(5),
            "levels": rng.integers(0, 50, n) * 0.123456789,
            "negative counts": -rng.integers(0, 100, n).astype(float)}[kind]


@pytest.mark.parametrize("kind", ["edge", "counts", "big counts", "normal", "wide",
                                  "rounded", "levels", "negative counts"])
@pytest.mark.parametrize("chrom", ["chr1", "chrUn_gl000220", 'q"uote', "é"])
def test_same_bytes_as_the_pandas_writer(tmp_path, kind, chrom):
    rng = np.random.default_rng(len(kind) * 7 + len(chrom))
    n = 3000
    s, e = _regions(rng, n)
    v = _values(kind, rng, n)
    want = _pandas_bytes(tmp_path, chrom, s, e, v)
    assert b"".join(bedgraph_bytes(chrom, s, e, v)) == want
    assert b"".join(bedgraph_bytes(chrom, s, e, v, rows=7)) == want  # chunks


def test_negative_zero_and_zero_in_one_chunk(tmp_path):
    v = np.array([0.0, -0.0, 3.0, -0.0])
    s, e = np.array([0, 5, 9, 10]), np.array([5, 9, 10, 20])
    got = b"".join(bedgraph_bytes("c", s, e, v))
    assert got == _pandas_bytes(tmp_path, "c", s, e, v)
    assert got.splitlines()[1] == b"c\t5\t9\t-0.0"


def test_integer_coordinates_and_empty():
    assert b"".join(bedgraph_bytes("c", [0, 9, 10**12], [9, 10, 10**12 + 1],
                                   [1.0, 2.0, 3.0])) == (
        b"c\t0\t9\t1.0\nc\t9\t10\t2.0\nc\t1000000000000\t1000000000001\t3.0\n")
    assert b"".join(bedgraph_bytes("c", [], [], [])) == b""


@pytest.mark.parametrize(("s", "e", "v", "match"), [
    ([0], [1], [np.nan], "finite"), ([0], [1], [np.inf], "finite"),
    ([-1], [1], [1.0], "0 <= start < end"), ([5], [5], [1.0], "0 <= start < end"),
    ([0, 5], [10, 20], [1.0, 2.0], "not overlapping"),
    ([0, 1], [1], [1.0, 2.0], "one length")])
def test_bad_rows_raise(s, e, v, match):
    with pytest.raises(ValueError, match=match):
        b"".join(bedgraph_bytes("c", s, e, v))


@pytest.mark.parametrize("chrom", ["", "chr 1", "chr\t1", None])
def test_bad_chrom_raises(chrom):
    with pytest.raises(ValueError, match="chrom"):
        b"".join(bedgraph_bytes(chrom, [0], [1], [1.0]))
