"""The compiled parts of reading and piling up reads (issue 55): BGZF blocks inflated
whole (ISA-L or zlib: the same bytes; damage named), the BAM records parsed across the
reused buffer's edges, and the one-merge pileup equal to the weighted (argsort) one."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest
from conftest import traced_peak
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats import _bam_kernel
from penlearn.peaks.formats._bam_kernel import decompressed_blocks, read_bam_columns
from penlearn.peaks.formats._pileup_kernel import (
    extended_depth_runs,
    extended_fragments,
    unit_depth_runs,
)
from penlearn.peaks.formats.bam import depth_runs
from penlearn.peaks.formats.read_arrays import ReadArrays, chrom_pileup, weighted_fragments

ZLIB = ((lambda raw, size: zlib.decompress(raw, -15, max(size, 1))), zlib.crc32)


def _weighted(s, e):
    """depth_runs' weighted path (argsort of the steps), every weight 1."""
    return depth_runs(s, e, np.ones(len(s), np.int64))


def test_unit_depth_runs_equal_the_weighted_path():
    rng = np.random.default_rng(3)
    for _ in range(2000):
        n = int(rng.integers(1, 40))
        s = rng.integers(-5, 50, n)
        e = s + rng.integers(-3, 20, n)  # empty and reversed blocks too
        for x, y in zip(unit_depth_runs(s, e), _weighted(s, e)):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == np.int64
    z = np.zeros(0, np.int64)
    assert all(len(x) == 0 for x in unit_depth_runs(z, z))


def test_unit_depth_runs_hold_no_room_beyond_the_runs():
    """Issue 55: the runs are counted, then written into arrays of their length; the
    traced peak is the sorted blocks and the runs (before: room for 2 runs a block, 48
    bytes each, then copies of the runs written: ~twice as much)."""
    import tracemalloc

    s = np.arange(200_000, dtype=np.int32) * 10  # apart: 2 runs a block, the most
    e = s + 5
    unit_depth_runs(s[:10], e[:10])  # (compiled before tracing)
    tracemalloc.start()
    runs = unit_depth_runs(s, e)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(runs[0]) == 200_000  # (depth-0 gaps are no runs)
    expected = 2 * s.nbytes + sum(x.nbytes for x in runs)
    assert peak < expected + 1_000_000, (peak, expected)


def test_unit_depth_runs_in_place_sorts_the_callers_arrays_without_copies():
    """``in_place``: the same runs, the given arrays sorted, and no sorted copies of them
    at the traced peak (chrom_pileup's single-end fragments: its own arrays)."""
    import tracemalloc

    rng = np.random.default_rng(8)
    s = rng.integers(0, 2_000_000, 200_000)
    e = s + rng.integers(1, 300, len(s))
    want = unit_depth_runs(s, e)
    s2, e2 = s.copy(), e.copy()
    unit_depth_runs(s2[:10].copy(), e2[:10].copy(), in_place=True)  # (compiled first)
    tracemalloc.start()
    got = unit_depth_runs(s2, e2, in_place=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(s2, np.sort(s))
    np.testing.assert_array_equal(e2, np.sort(e))
    assert peak < sum(x.nbytes for x in got) + 1_000_000, peak  # (copies: +3.2 MB)


def _random_reads(rng, paired: bool, fewest: int):
    """One chromosome ``c`` of ``fewest``..29 random reads (pairs from -3, or single-end
    5' ends and strands), a clipping size or none, and an extension and shift for them."""
    n = int(rng.integers(fewest, 30))
    size = int(rng.integers(1, 80)) if rng.random() < 0.8 else None
    if paired:
        a = rng.integers(-3, 70, n).astype(np.int32)
        b = (a + rng.integers(1, 40, n)).astype(np.int32)
        ext, shift = None, 0
    else:
        a = rng.integers(0, 70, n).astype(np.int32)
        b = rng.random(n) < 0.5
        ext, shift = int(rng.integers(1, 40)), int(rng.integers(-6, 7))
    reads = ReadArrays(paired, {"c": (a, b, None)}, None if size is None else {"c": size})
    return reads, ext, shift


@pytest.mark.parametrize("paired", [False, True])
def test_chrom_pileup_equals_the_weighted_fragments_pileup(paired):
    # shifts, sizes that clip (and none), reads with no base left inside: the compiled
    # fragments and merge give weighted_fragments' rows
    rng = np.random.default_rng(5 + paired)
    for _ in range(1500):
        reads, ext, shift = _random_reads(rng, paired, 1)
        s, e, _ = weighted_fragments(reads, "c", ext, shift)
        got = chrom_pileup(reads, "c", ext, shift)
        want = _weighted(s, e) if len(s) else (np.zeros(0, np.int64),) * 3
        for x, y in zip(got, want):
            np.testing.assert_array_equal(x, y)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 120), st.booleans()), max_size=60),
       st.integers(1, 50), st.integers(-8, 8), st.one_of(st.none(), st.integers(0, 130)))
def test_extended_depth_runs_equal_the_two_sorted_arrays_merge(reads, extsize, shift, size):
    """One sort of the unclipped starts: the runs of the fragments clipped at 0 and at
    the chromosome's end (reads left without a base, ties, touching fragments) equal
    :func:`unit_depth_runs` of :func:`extended_fragments`' starts and ends."""
    five = np.array([r[0] for r in reads], np.int32)
    reverse = np.array([r[1] for r in reads], bool)
    want = unit_depth_runs(*extended_fragments(five, reverse, extsize, shift, size))
    got = extended_depth_runs(five, reverse, extsize, shift, size)
    for x, y in zip(got, want):
        assert x.dtype == np.int64 and x.base is None  # (its own data: no room held)
        np.testing.assert_array_equal(x, y)


def test_extended_fragments_past_int32_stay_int64():
    five = np.array([2**31 - 10], np.int32)
    s, e = extended_fragments(five, np.array([False]), 100, 0, None)
    assert s.dtype == np.int64 and e.tolist() == [2**31 - 10 + 100]
    s, e = extended_fragments(five, np.array([False]), 100, 0, 2**31 - 1)
    assert s.dtype == np.int32 and e.tolist() == [2**31 - 1]
    runs = extended_depth_runs(five, np.array([False]), 100, 0, None)
    assert [x.tolist() for x in runs] == [[2**31 - 10], [2**31 + 90], [1]]
    runs = extended_depth_runs(five, np.array([True]), 100, -2**31 + 5, None)
    assert [x.tolist() for x in runs] == [[2**32 - 114], [2**32 - 14], [1]]


def _bgzf(data: bytes, block: int = 1000) -> bytes:
    """BGZF blocks of ``data`` (the SAM/BAM specification's gzip header with ``BC``),
    and the empty end-of-file block."""
    out = []
    for k in range(0, len(data) + 1, block):
        piece = data[k:k + block]
        if not piece and k:
            break
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        raw = c.compress(piece) + c.flush()
        head = (b"\x1f\x8b\x08\x04" + bytes(6) + (6).to_bytes(2, "little") + b"BC"
                + (2).to_bytes(2, "little") + (len(raw) + 25).to_bytes(2, "little"))
        out.append(head + raw + zlib.crc32(piece).to_bytes(4, "little")
                   + len(piece).to_bytes(4, "little"))
    eof = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw = eof.compress(b"") + eof.flush()
    out.append(b"\x1f\x8b\x08\x04" + bytes(6) + (6).to_bytes(2, "little") + b"BC"
               + (2).to_bytes(2, "little") + (len(raw) + 25).to_bytes(2, "little") + raw
               + bytes(8))
    return b"".join(out)


@pytest.mark.parametrize("inflater", [None, ZLIB], ids=["default", "zlib"])
def test_bgzf_blocks_inflate_to_the_data_and_damage_is_named(tmp_path, inflater):
    data = np.random.default_rng(1).integers(0, 4, 50_000).astype(np.uint8).tobytes()
    p = tmp_path / "x.gz"
    p.write_bytes(_bgzf(data))
    assert gzip.decompress(p.read_bytes()) == data  # (a valid gzip file too)
    assert b"".join(decompressed_blocks(p, inflater)) == data
    blob = bytearray(p.read_bytes())
    for at in (-60, -40):  # a byte of the last data block's deflate stream, its CRC
        bad = bytearray(blob)
        bad[at] ^= 0xFF
        p.write_bytes(bytes(bad))
        with pytest.raises(ValueError, match="damaged BGZF block"):
            b"".join(decompressed_blocks(p, inflater))
    p.write_bytes(_bgzf(data)[:-100])  # cut inside a block
    with pytest.raises(ValueError, match="truncated"):
        b"".join(decompressed_blocks(p, inflater))
    p.write_bytes(gzip.compress(data))  # not BGZF: gzip's reader
    assert b"".join(decompressed_blocks(p, inflater)) == data


def test_isal_and_zlib_inflate_a_bam_alike(tmp_path):
    pytest.importorskip("isal", reason="isal (optional, in the bam extra) is not installed")
    data = np.random.default_rng(2).integers(0, 9, 300_000).astype(np.uint8).tobytes()
    p = tmp_path / "x.gz"
    p.write_bytes(_bgzf(data, 65_280))
    assert list(decompressed_blocks(p)) == list(decompressed_blocks(p, ZLIB))


@pytest.mark.parametrize("paired", [False, True])
def test_records_across_the_buffers_edges_are_parsed_alike(tmp_path, monkeypatch, paired):
    # a buffer smaller than a record (it grows) and one of a few records (records cut at
    # its end moved to its start): the same columns as one large buffer
    pysam = pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) "
                                "is not installed")
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "chr1", "LN": 100_000},
                                          {"SN": "chr2", "LN": 50_000}]}
    rng = np.random.default_rng(9)
    path = tmp_path / "r.bam"
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i in range(3000):
            a = pysam.AlignedSegment()
            a.query_name = "r" * int(rng.integers(1, 200)) + str(i)
            a.flag = int(rng.choice([0, 16, 1 | 2 | 64, 1 | 2 | 16 | 128, 4]))
            a.reference_id = int(i >= 2000)
            a.reference_start = int(rng.integers(0, 40_000))
            a.cigarstring = f"{int(rng.integers(20, 400))}M"
            a.query_sequence = "A" * a.infer_query_length()
            a.next_reference_id, a.next_reference_start = a.reference_id, a.reference_start
            a.template_length = int(rng.integers(100, 500))
            out.write(a)
    want = read_bam_columns(path, paired)
    for chunk in (64, 5000):
        monkeypatch.setattr(_bam_kernel, "CHUNK", chunk)
        got = read_bam_columns(path, paired)
        assert got[0] == want[0] and got[2] == want[2] and list(got[1]) == list(want[1])
        for t in want[1]:
            for x, y in zip(got[1][t], want[1][t]):
                np.testing.assert_array_equal(x, y)


def test_values_at_sorted_positions_equal_the_searched_ones():
    from penlearn.peaks.peakseg.controls import _value_at

    rng = np.random.default_rng(11)
    for _ in range(500):
        n = int(rng.integers(0, 12))
        start = np.sort(rng.integers(0, 60, n))
        end = start + rng.integers(1, 15, n)  # rows may overlap: the last start rules
        value = rng.integers(0, 9, n) if rng.random() < 0.5 else rng.random(n)
        missing = 0 if value.dtype.kind == "i" else 1.0
        x = np.sort(rng.integers(-3, 80, int(rng.integers(1, 20))))
        k = np.searchsorted(start, x, side="right") - 1
        kk = np.maximum(k, 0)
        inside = (k >= 0) & (x < end[kk]) if n else np.zeros(len(x), bool)
        want = np.where(inside, value[kk] if n else missing, missing)
        for got in (_value_at(start, end, value, x, missing),
                    _value_at(start, end, value, x[::-1], missing)[::-1]):
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype


def _dedup_reference(a, b, limit):
    """The deduplication as it was written before issue 55's third pass (ranks of every
    read in its key's group): the reference of :func:`read_arrays._dedup`."""
    order = np.lexsort((b, a))
    k0, k1 = a[order], b[order]
    new = np.r_[True, (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1])]
    group = np.cumsum(new) - 1
    rank = np.arange(len(order)) - np.flatnonzero(new)[group]
    keep = np.sort(order[rank < limit])
    return a[keep], b[keep]


def test_dedup_keeps_the_first_reads_of_each_key_in_one_pass():
    """``_dedup`` (the sort's order walked once, a mask in file order) keeps the reads
    the rank computation kept, in file order; its traced peak is the order and the mask
    and the kept reads (~17 bytes a read here), not the ranks, groups and sorted keys of
    every read (46 bytes a read: the read phase's high-water at 20 M reads, issue 55)."""
    from penlearn.peaks.formats.read_arrays import _dedup

    rng = np.random.default_rng(12)
    for _ in range(300):
        n = int(rng.integers(0, 60))
        a = rng.integers(0, 12, n).astype(np.int32)
        for b in (rng.random(n) < 0.5, rng.integers(0, 4, n).astype(np.int32)):
            for limit in (1, 2, 3):
                for x, y in zip(_dedup(a, b, limit), _dedup_reference(a, b, limit)):
                    np.testing.assert_array_equal(x, y)
                    assert x.dtype == y.dtype
    n = 200_000
    a = rng.integers(0, 3 * n, n).astype(np.int32)
    b = rng.random(n) < 0.5
    (ka, kb), peak = traced_peak(_dedup, a, b, 1)
    np.testing.assert_array_equal(ka, _dedup_reference(a, b, 1)[0])
    assert peak < 20 * n, peak / n


def test_single_end_strands_are_read_in_a_byte(tmp_path):
    """Single-end reads' strands come out of the compiled reader as one byte a read
    (uint8 0 / 1, then seen as bool without a copy): 5 bytes a read held while a file is
    read, not 8 (issue 55: ~60 MB at 20 M reads)."""
    pysam = pytest.importorskip("pysam")
    from penlearn.peaks.formats.read_arrays import _bam_contigs

    header = {"HD": {"VN": "1.6", "SO": "coordinate"}, "SQ": [{"SN": "chr1", "LN": 10_000}]}
    path = tmp_path / "strands.bam"
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i, flag in enumerate([0, 16, 0, 16, 16]):
            r = pysam.AlignedSegment()
            r.query_name, r.flag, r.reference_id = f"r{i}", flag, 0
            r.reference_start, r.cigarstring = 100 * i, "50M"
            r.query_sequence = "A" * 50
            out.write(r)
    names, cols, _ = read_bam_columns(path, False)
    a, b = cols[0]
    assert a.dtype == np.int32 and b.dtype == np.uint8 and b.tolist() == [0, 1, 0, 1, 1]
    strands = _bam_contigs(path, False)[1]["chr1"][1]
    assert strands.dtype == bool and strands.tolist() == [False, True, False, True, True]
    assert strands.base is not None  # (a view of the reader's bytes, not a copy)
    assert read_bam_columns(path, True)[1] == {}  # (paired: int32, no pair here)


@pytest.mark.parametrize("paired", [False, True])
def test_fragment_extent_equals_the_weighted_fragments_sums(paired):
    # control_genome_mean's sums without the fragments' arrays: the bases, the last end
    # and the count of weighted_fragments' rows (shifts, clipping sizes, reads left out)
    from penlearn.cli._callpeak_stream import control_genome_mean
    from penlearn.peaks.formats._pileup_kernel import fragment_extent

    rng = np.random.default_rng(11 + paired)
    for _ in range(1500):
        reads, ext, shift = _random_reads(rng, paired, 0)
        (a, b, _), size = reads.chroms["c"], (reads.sizes or {}).get("c")
        s, e, _ = weighted_fragments(reads, "c", ext, shift)
        want = (int((e - s).sum()), int(e.max()) if len(e) else 0, len(s))
        assert fragment_extent(a, b, paired, ext, shift, size) == want
        if len(s):  # the genome-wide means: the old sums over the arrays
            mean = float((e - s).sum()) / float(size or int(e.max()))
            assert control_genome_mean(reads, reads, ext, shift, reads.sizes) == (mean, mean)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 5), st.sampled_from(
    [0.0, 1.0, 2.5, float("nan")])), max_size=40))
def test_merge_equal_runs_joins_touching_rows_of_one_value(rows):
    from penlearn.peaks.formats.bed import merge_equal_runs

    starts, ends, values, x = [], [], [], 0
    for gap, width, v in rows:  # sorted rows, some touching, some not
        starts.append(x + gap)
        ends.append(x + gap + width)
        values.append(v)
        x = ends[-1]
    want = []  # plain Python: a row joins the last one when it touches it with its value
    for s, e, v in zip(starts, ends, values):
        if want and want[-1][1] == s and want[-1][2] == v:  # (NaN never equals: not joined)
            want[-1][1] = e
        else:
            want.append([s, e, v])
    got = merge_equal_runs(np.array(starts, np.int64), np.array(ends, np.int64),
                           np.array(values))
    assert got[0].tolist() == [w[0] for w in want]
    assert got[1].tolist() == [w[1] for w in want]
    np.testing.assert_array_equal(got[2], [w[2] for w in want])  # (NaNs at the same rows)
