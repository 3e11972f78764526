"""Whole-genome simulated ChIP-seq BAM files, written fast (vectorised records, own BGZF).

The simulator of :mod:`penlearn.datasets.chipseq_reads` at the scale of a human genome:
hg19's chromosome sizes (chr1–chr22, chrX; 3.04 Gb), ~20 million reads per sample, ~20,000
true peaks. Writing 20 million records through ``pysam.AlignedSegment`` one at a time takes
minutes; here every record has the same layout (a fixed-width name, one ``M`` CIGAR
operation, a fixed read length), so the records of a chromosome are one NumPy structured
array, compressed into BGZF blocks with :mod:`zlib` (the SAM/BAM format specification,
section 4: the BGZF block, the BAM record, the ``reg2bin`` bin) and indexed with pysam.
Used by ``benchmarks/callpeak_genome.py``.

Two designs: :func:`genome_design` (true peaks and sticky regions on a uniform background,
:func:`~penlearn.datasets.chipseq_reads.plant_regions`) and :func:`genome_suite` (the
simulation suite of :mod:`penlearn.datasets.chipseq_suite` at whole-genome size: narrow
peaks of fold 2–80, broad domains of 5–30 kb, sticky regions, and a background whose level
wobbles by 500 kb bins, σ 0.15 of its log; the truth is known, written by
:func:`write_genome_suite_bam`).
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np

from penlearn._checks import optional_import
from penlearn.datasets.chipseq_reads import ChipSeqDesign, _fragments, plant_regions
from penlearn.datasets.chipseq_suite import SuiteDesign, suite_design, suite_fragments, truth_table

__all__ = ["HG19_SIZES", "genome_design", "genome_suite", "write_genome_bam",
           "write_genome_suite_bam", "write_records_bam"]

#: hg19's chromosome lengths (chr1–chr22, chrX)
HG19_SIZES = {
    "chr1": 249250621, "chr2": 243199373, "chr3": 198022430, "chr4": 191154276,
    "chr5": 180915260, "chr6": 171115067, "chr7": 159138663, "chr8": 146364022,
    "chr9": 141213431, "chr10": 135534747, "chr11": 135006516, "chr12": 133851895,
    "chr13": 115169878, "chr14": 107349540, "chr15": 102531392, "chr16": 90354753,
    "chr17": 81195210, "chr18": 78077248, "chr19": 59128983, "chr20": 63025520,
    "chr21": 48129895, "chr22": 51304566, "chrX": 155270560}

_EOF = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")
_BLOCK = 65280  # uncompressed bytes per BGZF block (as htslib)


def genome_design(scale: float = 1.0, *, n_peaks: int = 20_000, n_sticky: int = 2_000,
                  seed: int = 0) -> ChipSeqDesign:
    """hg19's chromosomes, each ``scale`` times its length, with ``scale * n_peaks`` true
    peaks and ``scale * n_sticky`` sticky regions (:func:`plant_regions`).

    Examples
    --------
    >>> d = genome_design(0.001)
    >>> len(d.chroms), d.chroms["chr1"], len(d.peaks)
    (23, 249250, 20)
    """
    if not 0 < scale <= 1:
        raise ValueError(f"scale must be in (0, 1], got {scale!r}")
    chroms = {c: int(n * scale) for c, n in HG19_SIZES.items()}
    # planted in whole 20 kb slots of each chromosome (plant_regions counts the slots
    # of the genome's total length)
    slots = {c: n // 20_000 * 20_000 for c, n in chroms.items()}
    d = plant_regions(slots, max(int(n_peaks * scale), 1), max(int(n_sticky * scale), 1),
                      seed=seed)
    return ChipSeqDesign(chroms, d.peaks, d.sticky)


def genome_suite(scale: float = 1.0, *, n_narrow: int = 20_000, n_broad: int = 2_000,
                 n_sticky: int = 2_000, wobble_sd: float = 0.15, wobble_bin: int = 500_000,
                 seed: int = 0) -> SuiteDesign:
    """hg19's chromosomes, each ``scale`` times its length, with the suite's features
    (:func:`~penlearn.datasets.chipseq_suite.suite_design`): ``scale * n_narrow`` narrow
    peaks (fold 2–80), ``scale * n_broad`` broad domains (5–30 kb, fold 2–6),
    ``scale * n_sticky`` sticky regions, and a background whose level changes every
    ``wobble_bin`` bases by ``exp(N(0, wobble_sd))`` (0: flat).

    Examples
    --------
    >>> d = genome_suite(0.001)
    >>> sorted(d.features["kind"].value_counts().items())
    [('broad', 2), ('narrow', 20), ('sticky', 2)]
    >>> int(d.wobble["chromEnd"].sub(d.wobble["chromStart"]).max())
    249250
    """
    if not 0 < scale <= 1:
        raise ValueError(f"scale must be in (0, 1], got {scale!r}")
    if not wobble_bin > 0:
        raise ValueError(f"wobble_bin must be > 0, got {wobble_bin!r}")
    chroms = {c: int(n * scale) for c, n in HG19_SIZES.items()}
    total = sum(chroms.values())
    every = [total / max(int(round(k * scale)), 1) for k in (n_narrow, n_broad, n_sticky)]
    # one bin length: log-uniform on [w, w + 1) is w bases after the int()
    return suite_design(chroms, narrow_every=every[0], broad_every=every[1],
                        sticky_every=every[2], wobble_sd=wobble_sd,
                        wobble_length=(wobble_bin, wobble_bin + 0.5), seed=seed)


def _reg2bin(beg: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The BAM bin of 0-based half-open [beg, end) (the specification's ``reg2bin``)."""
    end = end - 1
    out = np.zeros(len(beg), np.int64)
    done = np.zeros(len(beg), bool)
    for shift, offset in ((14, 4681), (17, 585), (20, 73), (23, 9), (26, 1)):
        same = ~done & ((beg >> shift) == (end >> shift))
        out[same] = offset + (beg[same] >> shift)
        done |= same
    return out


def _bgzf(data: bytes, level: int = 1) -> bytes:
    out = []
    for i in range(0, len(data), _BLOCK):
        chunk = data[i:i + _BLOCK]
        comp = zlib.compressobj(level, zlib.DEFLATED, -15)
        body = comp.compress(chunk) + comp.flush()
        out.append(b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC\x02\x00"
                   + struct.pack("<H", len(body) + 25) + body
                   + struct.pack("<II", zlib.crc32(chunk), len(chunk)))
    return b"".join(out)


def write_records_bam(path: str | os.PathLike, chroms: dict, tid: np.ndarray,
                      pos: np.ndarray, flag: np.ndarray, *, mate_pos=None, tlen=None,
                      read_length: int = 50, index: bool = True) -> int:
    """Write records sorted by (tid, pos) as a coordinate-sorted BAM (one ``M`` operation
    of ``read_length`` bases each, sequence ``N``, no qualities, names ``r%09d`` by record
    order, mates with the same name when ``mate_pos`` is given in pairs of records);
    returns the number of records.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "x.bam"
    >>> write_records_bam(f, {"chr1": 1000}, np.array([0, 0]), np.array([5, 700]),
    ...                   np.array([0, 16]), read_length=10)
    2
    """
    n = len(pos)
    order = np.lexsort((pos, tid))
    tid, pos, flag = tid[order], pos[order], flag[order]
    if mate_pos is not None:
        mate_pos, tlen = np.asarray(mate_pos)[order], np.asarray(tlen)[order]
    paired = mate_pos is not None
    name_id = (order // 2) if paired else order
    n_seq = (read_length + 1) // 2
    rec = np.dtype([("block_size", "<i4"), ("ref", "<i4"), ("pos", "<i4"),
                    ("l_name", "u1"), ("mapq", "u1"), ("bin", "<u2"), ("n_cigar", "<u2"),
                    ("flag", "<u2"), ("l_seq", "<i4"), ("next_ref", "<i4"),
                    ("next_pos", "<i4"), ("tlen", "<i4"), ("name", "S10"), ("nul", "u1"),
                    ("cigar", "<u4"), ("seq", f"V{n_seq}"), ("qual", f"V{read_length}")])
    names_b = [c.encode() for c in chroms]
    head = b"@HD\tVN:1.6\tSO:coordinate\n" + b"".join(
        b"@SQ\tSN:%s\tLN:%d\n" % (c, int(k)) for c, k in zip(names_b, chroms.values()))
    header = b"BAM\x01" + struct.pack("<i", len(head)) + head + struct.pack(
        "<i", len(chroms)) + b"".join(struct.pack("<i", len(c) + 1) + c + b"\x00"
                                      + struct.pack("<i", int(k))
                                      for c, k in zip(names_b, chroms.values()))
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(_bgzf(header))
        step = max(1, (64 << 20) // rec.itemsize)
        for i in range(0, n, step):  # 64 MB of records at a time
            k = slice(i, i + step)
            fh.write(_bgzf(_records(rec, tid[k], pos[k], flag[k], name_id[k],
                                    None if mate_pos is None else mate_pos[k],
                                    None if tlen is None else tlen[k], read_length)
                           .tobytes()))
        fh.write(_EOF)
    os.replace(tmp, path)
    if index:
        optional_import("pysam", "indexing BAM files", "bam").index(str(path))
    return n


def _records(rec, tid, pos, flag, name_id, mate_pos, tlen, read_length):
    """The BAM records (structured array of dtype ``rec``) of one chunk."""
    l_seq, n_seq, name_len = read_length, (read_length + 1) // 2, 11
    n = len(pos)
    r = np.zeros(n, rec)
    r["block_size"] = rec.itemsize - 4
    r["ref"], r["pos"], r["flag"] = tid, pos, flag
    r["l_name"], r["mapq"], r["n_cigar"], r["l_seq"] = name_len, 40, 1, l_seq
    r["bin"] = _reg2bin(pos.astype(np.int64), pos.astype(np.int64) + read_length)
    r["cigar"] = read_length << 4
    digits = (name_id[:, None] // 10 ** np.arange(8, -1, -1)) % 10 + ord("0")
    names = np.empty((n, 10), np.uint8)
    names[:, 0] = ord("r")
    names[:, 1:] = digits
    r["name"] = names.view("S10").ravel()
    r.view(np.uint8).reshape(n, rec.itemsize)[:, rec.fields["seq"][1]:
                                              rec.fields["seq"][1] + n_seq] = 0xFF
    r.view(np.uint8).reshape(n, rec.itemsize)[:, rec.fields["qual"][1]:] = 0xFF
    if mate_pos is not None:
        r["next_ref"], r["next_pos"], r["tlen"] = tid, mate_pos, tlen
    else:
        r["next_ref"], r["next_pos"] = -1, -1
    return r


def write_genome_bam(path: str | os.PathLike, design: ChipSeqDesign, *, background: int,
                     per_peak: int = 0, sticky_fold: float = 0.0, paired: bool = False,
                     fragment: int = 200, spread: float = 30.0, read_length: int = 50,
                     seed: int = 0) -> int:
    """:func:`~penlearn.datasets.chipseq_reads.write_reads_bam`'s reads (the same fragments
    and strands for a seed), written by :func:`write_records_bam`; returns the fragments.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.bam"
    >>> write_genome_bam(f, genome_design(0.001), background=2000, per_peak=20)  # doctest: +SKIP
    """
    rng = np.random.default_rng(seed)
    c, s, e = _fragments(design, rng, background=background, per_peak=per_peak,
                         sticky_fold=sticky_fold, fragment=fragment, spread=spread)
    order = np.lexsort((s, c))
    c, s, e = c[order], s[order], e[order]
    rev = rng.random(len(s)) < 0.5
    return _write_fragments(path, design.chroms, c, s, e, rev, paired, read_length)


def write_genome_suite_bam(path: str | os.PathLike, design: SuiteDesign, *, coverage: float,
                           sample: str = "treatment", paired: bool = False,
                           read_length: int = 50, seed: int = 0, **fragments):
    """One sample of the suite (:func:`~penlearn.datasets.chipseq_suite.suite_fragments`:
    ``coverage`` fragments per base of background; ``sample`` treatment, control or
    null) written by :func:`write_records_bam`; returns its truth table
    (:func:`~penlearn.datasets.chipseq_suite.truth_table`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.bam"
    >>> t = write_genome_suite_bam(f, genome_suite(0.001), coverage=0.5)  # doctest: +SKIP
    """
    frags = suite_fragments(design, coverage=coverage, sample=sample, seed=seed,
                            **fragments)
    _write_fragments(path, design.chroms, frags["chrom"].to_numpy(np.int64),
                     frags["start"].to_numpy(np.int64), frags["end"].to_numpy(np.int64),
                     frags["reverse"].to_numpy(bool), paired, read_length)
    return truth_table(design, frags, coverage=coverage, sample=sample)


def _write_fragments(path, chroms: dict, c, s, e, rev, paired: bool, read_length: int) -> int:
    """Fragments ``[s, e)`` on chromosome indices ``c`` (sorted), ``rev`` the strand of
    the read / first mate, as single-end reads or proper pairs; returns the fragments."""
    lo, hi = s, e - read_length
    if not paired:
        flag = np.where(rev, 16, 0)
        return write_records_bam(path, chroms, c, np.where(rev, hi, lo), flag,
                                 read_length=read_length) and len(s)
    f1 = 0x1 | 0x2 | 0x40 | np.where(rev, 0x10, 0x20)
    f2 = 0x1 | 0x2 | 0x80 | np.where(rev, 0x20, 0x10)
    p1, p2 = np.where(rev, hi, lo), np.where(rev, lo, hi)
    tl = e - s
    t1, t2 = np.where(p1 <= p2, tl, -tl), np.where(p2 < p1, tl, -tl)
    inter = np.empty(2 * len(s), np.int64)

    def both(a, b):
        out = inter.copy()
        out[0::2], out[1::2] = a, b
        return out
    write_records_bam(path, chroms, both(c, c), both(p1, p2), both(f1, f2),
                      mate_pos=both(p2, p1), tlen=both(t1, t2), read_length=read_length)
    return len(s)
