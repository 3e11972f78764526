"""Reads as MACS3 reads them (BAM extended, BAMPE, BED, FRAG), their pileup checked
against bedtools (``genomecov -fs``, ``bamtobed -bedpe``), duplicates and the fragment
size estimate."""

from __future__ import annotations

import gzip
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.formats.fragment_size import estimate_fragment_size
from penlearn.peaks.formats.reads import dedup_limit, fragment_coverage, read_reads

pysam = pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) is not "
                            "installed")
needs_bedtools = pytest.mark.skipif(shutil.which("bedtools") is None,
                                    reason="bedtools is not installed")

SIZES = {"chr1": 20000, "chr2": 8000}
NAMES = list(SIZES)


def _header():
    return {"HD": {"VN": "1.6", "SO": "coordinate"},
            "SQ": [{"SN": n, "LN": k} for n, k in SIZES.items()]}


def _segment(name, flag, chrom, pos, length, mate=None, tlen=0):
    a = pysam.AlignedSegment()
    a.query_name = name
    a.flag = flag
    a.reference_id = NAMES.index(chrom)
    a.reference_start = pos
    a.mapping_quality = 30
    a.cigarstring = f"{length}M"
    a.query_sequence = "A" * length
    if mate is not None:
        a.next_reference_id = NAMES.index(chrom)
        a.next_reference_start = mate
        a.template_length = tlen
    return a


def _single_end(path, rng, n=400, dup=True):
    """Single-end reads of random strands and lengths (some repeated: duplicates)."""
    recs = []
    for _ in range(n):
        chrom = NAMES[rng.integers(2)]
        pos = int(rng.integers(0, SIZES[chrom] - 100))
        flag = 16 if rng.random() < 0.5 else 0
        recs.append((chrom, pos, flag, int(rng.integers(30, 60))))
        if dup and rng.random() < 0.1:
            recs.append(recs[-1])
    recs.sort(key=lambda r: (NAMES.index(r[0]), r[1]))
    with pysam.AlignmentFile(str(path), "wb", header=_header()) as out:
        for i, (chrom, pos, flag, length) in enumerate(recs):
            out.write(_segment(f"r{i}", flag, chrom, pos, length))
    return recs


def _pairs(path, rng, n=300):
    """Proper pairs, name-grouped (mate 1 then mate 2), some pairs repeated."""
    frags = []
    for _ in range(n):
        chrom = NAMES[rng.integers(2)]
        start = int(rng.integers(0, SIZES[chrom] - 700))
        frags.append((chrom, start, start + int(rng.integers(80, 600))))
        if rng.random() < 0.1:
            frags.append(frags[-1])
    with pysam.AlignmentFile(str(path), "wb", header=_header()) as out:
        for i, (chrom, s, e) in enumerate(frags):
            length = min(50, e - s)
            first_forward = rng.random() < 0.5  # mate 1 on + (left) or on - (right)
            left = (0x1 | 0x2 | (0x40 if first_forward else 0x80) | 0x20)
            right = (0x1 | 0x2 | (0x80 if first_forward else 0x40) | 0x10)
            a = _segment(f"p{i}", left, chrom, s, length, mate=e - length, tlen=e - s)
            b = _segment(f"p{i}", right, chrom, e - length, length, mate=s, tlen=-(e - s))
            for rec in ((a, b) if first_forward else (b, a)):
                out.write(rec)
    return frags


def _bedtools(args, stdin=None) -> pd.DataFrame:
    text = subprocess.run(["bedtools", *args], input=stdin, capture_output=True,
                          text=True, check=True).stdout
    rows = [line.split("\t") for line in text.splitlines() if line]
    table = pd.DataFrame(rows, columns=["chrom", "chromStart", "chromEnd", "count"])
    return table.astype({"chromStart": np.int64, "chromEnd": np.int64, "count": np.int64})


def _genome(tmp_path):
    g = tmp_path / "genome.txt"
    g.write_text("".join(f"{n}\t{k}\n" for n, k in SIZES.items()))
    return g


def _same(ours: pd.DataFrame, theirs: pd.DataFrame) -> None:
    ours = ours.astype({"chrom": object})
    pd.testing.assert_frame_equal(ours.reset_index(drop=True), theirs, check_dtype=False)


@needs_bedtools
@pytest.mark.parametrize("extsize", [None, 150])
def test_single_end_extension_equals_bedtools_fs(tmp_path, extsize):
    bam = tmp_path / "se.bam"
    _single_end(bam, np.random.default_rng(1), dup=False)
    ours = fragment_coverage(read_reads(bam, "BAM", keep_dup="all"), extsize)
    args = ["genomecov", "-ibam", str(bam), "-bg"] + (["-fs", str(extsize)] if extsize else [])
    _same(ours, _bedtools(args))


@needs_bedtools
def test_bampe_fragments_equal_bedtools_bedpe_spans(tmp_path):
    bam = tmp_path / "pe.bam"
    frags = _pairs(bam, np.random.default_rng(2))
    ours = fragment_coverage(read_reads(bam, "BAMPE", keep_dup="all"))
    bedpe = subprocess.run(["bedtools", "bamtobed", "-bedpe", "-i", str(bam)],
                           capture_output=True, text=True, check=True).stdout
    spans = []
    for line in bedpe.splitlines():
        f = line.split("\t")
        spans.append((f[0], min(int(f[1]), int(f[4])), max(int(f[2]), int(f[5]))))
    assert sorted(spans) == sorted(frags)  # the fixture is what bedtools reads
    spans.sort(key=lambda r: (NAMES.index(r[0]), r[1]))
    text = "".join(f"{c}\t{s}\t{e}\n" for c, s, e in spans)
    _same(ours, _bedtools(["genomecov", "-i", "stdin", "-g", str(_genome(tmp_path)),
                           "-bg"], stdin=text))


@needs_bedtools
def test_frag_file_counts_each_fragment_count_times(tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for i in range(200):
        chrom = NAMES[rng.integers(2)]
        s = int(rng.integers(0, SIZES[chrom] - 500))
        rows.append((chrom, s, s + int(rng.integers(40, 400)), f"BC{i % 7}",
                     int(rng.integers(1, 4))))
    rows.sort(key=lambda r: (NAMES.index(r[0]), r[1]))
    frag = tmp_path / "fragments.tsv.gz"
    with gzip.open(frag, "wt") as fh:
        fh.write("# a comment line\n")
        fh.writelines("\t".join(map(str, r)) + "\n" for r in rows)
    text = "".join(f"{c}\t{s}\t{e}\n" * k for c, s, e, _, k in rows)
    expected = _bedtools(["genomecov", "-i", "stdin", "-g", str(_genome(tmp_path)), "-bg"],
                         stdin=text)
    _same(fragment_coverage(read_reads(frag, "FRAG")), expected)
    once = "".join(f"{c}\t{s}\t{e}\n" for c, s, e, _, _ in rows)
    _same(fragment_coverage(read_reads(frag, "FRAG", max_count=1)),
          _bedtools(["genomecov", "-i", "stdin", "-g", str(_genome(tmp_path)), "-bg"],
                    stdin=once))



def test_frag_count_is_a_weight_not_copies(tmp_path):
    """A FRAG count of 10^15 is one row of weight 10^15 (it was expanded into 10^15
    copies: "out of memory"); the pileup, the compact arrays' pileup and callpeak's
    genome-wide mean all count it."""
    from penlearn.cli._callpeak_stream import control_genome_mean
    from penlearn.peaks.formats.read_arrays import chrom_pileup, compact_reads

    frag = tmp_path / "huge.tsv"
    frag.write_text("chr1\t100\t300\tAAA\t1000000000000000\nchr1\t200\t400\tCCC\t3\n")
    reads = read_reads(frag, "FRAG")
    expected = [["chr1", 100, 200, 10**15], ["chr1", 200, 300, 10**15 + 3],
                ["chr1", 300, 400, 3]]
    assert fragment_coverage(reads).values.tolist() == expected
    arrays = compact_reads(reads)
    assert [x.tolist() for x in chrom_pileup(arrays, "chr1", None)] == [
        [100, 200, 300], [200, 300, 400], [10**15, 10**15 + 3, 3]]
    mean = control_genome_mean(arrays, arrays, None, 0, None)[0]
    assert mean == (200 * 10**15 + 600) / 400

def test_bam_keeps_first_mates_of_proper_pairs_and_drops_flagged(tmp_path):
    bam = tmp_path / "flags.bam"
    with pysam.AlignmentFile(str(bam), "wb", header=_header()) as out:
        for i, flag in enumerate([0, 16, 4, 256, 512, 2048, 0x1 | 0x2 | 0x40,
                                  0x1 | 0x2 | 0x80, 0x1 | 0x40, 0x1 | 0x2 | 0x8 | 0x40,
                                  1024]):
            out.write(_segment(f"r{i}", flag, "chr1", 100 * i, 20, mate=100 * i, tlen=20))
    reads = read_reads(bam, "BAM", keep_dup="all")
    starts = reads.chroms["chr1"][0].tolist()
    # kept: 0, 16, first mate of a proper pair, and 1024 (duplicate flags are not read)
    assert starts == [0, 100, 600, 1000]


def test_keep_dup_counts_reads_at_one_5prime_end_and_strand(tmp_path):
    bed = tmp_path / "r.bed"
    # three reads with the 5' end 10 on +, two with 5' end 29 on - (ends 30), one at 10 on -
    lines = ["chr1\t10\t40\tr\t0\t+"] * 3 + ["chr1\t5\t30\tr\t0\t-", "chr1\t0\t30\tr\t0\t-",
                                              "chr1\t0\t11\tr\t0\t-"]
    bed.write_text("track name=x\n" + "\n".join(lines) + "\n")
    assert read_reads(bed, "BED").total == 3
    assert read_reads(bed, "BED", keep_dup=2).total == 5
    assert read_reads(bed, "BED", keep_dup="all").total == 6


def test_dedup_limit_auto_and_bad_values():
    assert dedup_limit("auto", 10, 1e9) == 1
    assert dedup_limit("auto", 3_000_000, 3e6) == 8
    with pytest.raises(ValueError, match="--keep-dup must be"):
        dedup_limit("0", 10, None)
    with pytest.raises(ValueError, match="genome size"):
        dedup_limit("auto", 10, None)


def test_bad_bed_strand_and_frag_count_are_named(tmp_path):
    bed = tmp_path / "r.bed"
    bed.write_text("chr1\t0\t10\tr\t0\t*\n")
    with pytest.raises(ValueError, match=r"line 1: column 6 \(strand\)"):
        read_reads(bed, "BED")
    frag = tmp_path / "f.tsv"
    frag.write_text("chr1\t0\t10\tBC\t0\n")
    with pytest.raises(ValueError, match=r"line 1: column 5 \(count\)"):
        read_reads(frag, "FRAG")


def test_fragment_size_estimate_finds_the_simulated_length():
    rng = np.random.default_rng(4)
    centres = rng.integers(5_000, 4_995_000, 300)
    n = 30_000
    fragment = 180
    mid = rng.choice(centres, n) + rng.normal(0, 40, n).astype(np.int64)
    noise = rng.integers(0, 5_000_000, n // 2)
    starts = np.r_[mid - fragment // 2, noise]
    rev = rng.random(len(starts)) < 0.5
    five = np.where(rev, starts + fragment - 36, starts)
    from penlearn.peaks.formats.reads import Reads

    reads = Reads(False, {"chr1": (five, five + 36, rev, np.ones(len(five), np.int64))},
                  {"chr1": 5_000_000})
    assert abs(estimate_fragment_size(reads) - fragment) <= 5
    flat = Reads(False, {"chr1": (noise, noise + 36, rev[: len(noise)],
                                  np.ones(len(noise), np.int64))}, {"chr1": 5_000_000})
    with pytest.raises(ValueError, match="--extsize"):
        estimate_fragment_size(flat)


@pytest.mark.parametrize("paired", [False, True])
def test_compiled_bam_reader_keeps_the_records_pysams_loop_keeps(tmp_path, monkeypatch,
                                                                 paired):
    # flags of every kind (unmapped, secondary, QC fail, supplementary, duplicates,
    # improper pairs, mate unmapped, second mates), CIGARs with D / N / I / S / = / X,
    # a mapped record without a CIGAR, long read names: the compiled loop keeps what
    # pysam's records give, in file order per chromosome
    from penlearn.peaks.formats import read_arrays

    rng = np.random.default_rng(7)
    cigars = ["50M", "10S40M", "20M5D30M", "15M100N35M", "25M3I22M", "30=2X18=", "50M5S"]
    flags = [0, 16, 4, 256, 512, 2048, 1024, 1 | 2 | 64, 1 | 2 | 16 | 64, 1 | 2 | 128,
             1 | 64, 1 | 2 | 8 | 64, 1 | 2 | 32 | 64]
    recs = []
    for i in range(600):
        chrom = NAMES[int(rng.integers(2))]
        recs.append((NAMES.index(chrom), int(rng.integers(200, SIZES[chrom] - 400)),
                     flags[int(rng.integers(len(flags)))], cigars[int(rng.integers(len(cigars)))],
                     int(rng.integers(-400, 400)), "q" * int(rng.integers(1, 60)) + str(i)))
    recs.sort(key=lambda r: r[:2])
    path = tmp_path / "mixed.bam"
    with pysam.AlignmentFile(str(path), "wb", header=_header()) as out:
        for k, (tid, pos, flag, cigar, tlen, name) in enumerate(recs):
            a = pysam.AlignedSegment()
            a.query_name, a.flag, a.reference_id, a.reference_start = name, flag, tid, pos
            a.mapping_quality = 30
            if k % 97 != 5:  # some mapped records without a CIGAR
                a.cigarstring = cigar
                a.query_sequence = "A" * a.infer_query_length()
            a.next_reference_id, a.next_reference_start = tid, pos + max(tlen, 0)
            a.template_length = tlen if tlen else 1
            out.write(a)
    assert read_arrays._compiled_read(path, paired, NAMES) is not None
    fast = read_arrays._bam_contigs(path, paired)
    monkeypatch.setattr(read_arrays, "_compiled_read", lambda *a: None)
    slow = read_arrays._bam_contigs(path, paired)
    assert fast[0] == slow[0] and fast[2] == slow[2] > 0
    assert list(fast[1]) == list(slow[1]) and len(fast[1]) == 2
    for c in slow[1]:
        for x, y in zip(fast[1][c], slow[1][c]):
            np.testing.assert_array_equal(x, y)
