"""BAM coverage: ``read_bam`` equals the pileup of the reads, counted here base
by base from each record's CIGAR (``bedtools genomecov -bg -split`` semantics: N and D
not covered, unmapped records left out, everything else counted)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.formats.bam import bam_chrom_sizes, is_bam, read_bam
from penlearn.peaks.formats.coverage import read_coverage

pysam = pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) is not "
                            "installed")

SIZES = {"chr1": 3000, "chr2": 1500, "chrEmpty": 800}
QUERY_OPS = set("MIS=X")
REF_COVERED = set("M=X")
REF_SKIPPED = set("DN")


def _cigar(rng) -> str:
    """A random CIGAR: clips at the ends, aligned blocks joined by N / D / I."""
    parts = []
    if rng.random() < 0.3:
        parts.append(f"{rng.integers(1, 5)}{'SH'[rng.integers(2)]}")
    for k in range(rng.integers(1, 4)):
        if k:
            parts.append(f"{rng.integers(1, 60)}{'NDI'[rng.integers(3)]}")
        parts.append(f"{rng.integers(5, 40)}{'M=X'[rng.integers(3)]}")
    if rng.random() < 0.3:
        parts.append(f"{rng.integers(1, 5)}S")
    return "".join(parts)


def _ops(cigar: str):
    num = ""
    for c in cigar:
        if c.isdigit():
            num += c
        else:
            yield c, int(num)
            num = ""


def _write_bam(path, records, sort: bool) -> None:
    header = {"HD": {"VN": "1.6"},
              "SQ": [{"SN": n, "LN": k} for n, k in SIZES.items()]}
    names = list(SIZES)
    if sort:
        records = sorted(records, key=lambda r: (names.index(r[1]), r[2]))
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i, (flag, chrom, pos, cigar) in enumerate(records):
            a = pysam.AlignedSegment()
            a.query_name = f"r{i}"
            a.flag = flag
            a.reference_id = names.index(chrom)
            a.reference_start = pos
            a.mapping_quality = 0 if flag & 4 else 30
            if not flag & 4:
                a.cigarstring = cigar
            n = sum(k for op, k in _ops(cigar) if op in QUERY_OPS)
            a.query_sequence = "A" * n
            out.write(a)


def _records(rng, n: int):
    recs = []
    for _ in range(n):
        chrom = ["chr1", "chr2"][rng.integers(2)]
        flag = int(rng.choice([0, 16, 4, 256, 1024, 2048, 512]))
        recs.append((flag, chrom, int(rng.integers(0, SIZES[chrom] - 400)), _cigar(rng)))
    return recs


def _pileup(records) -> pd.DataFrame:
    """Depth at every base from the CIGARs, then its bedGraph (runs of equal depth > 0)."""
    depth = {c: np.zeros(n, np.int64) for c, n in SIZES.items()}
    for flag, chrom, pos, cigar in records:
        if flag & 4:
            continue
        ref = pos
        for op, k in _ops(cigar):
            if op in REF_COVERED:
                depth[chrom][ref:ref + k] += 1
            if op in REF_COVERED or op in REF_SKIPPED:
                ref += k
    rows = []
    for chrom, d in depth.items():
        start = 0
        for i in range(1, len(d) + 1):
            if i == len(d) or d[i] != d[start]:
                if d[start] > 0:
                    rows.append((chrom, start, i, int(d[start])))
                start = i
    return pd.DataFrame(rows, columns=["chrom", "chromStart", "chromEnd", "count"])


@pytest.mark.parametrize("sort", [True, False])
def test_bam_coverage_is_the_pileup_of_the_reads(tmp_path, sort):
    rng = np.random.default_rng(31)
    records = _records(rng, 400)
    bam = tmp_path / "reads.bam"
    _write_bam(bam, records, sort)
    got = read_bam(bam)
    want = _pileup(records)
    assert len(want) > 100 and set(want["chrom"]) == {"chr1", "chr2"}
    pd.testing.assert_frame_equal(got.astype({"chrom": object}), want, check_dtype=False)
    assert got.dtypes[["chromStart", "chromEnd", "count"]].tolist() == [np.int64] * 3
    assert bam_chrom_sizes(bam) == SIZES


def test_split_reads_by_hand(tmp_path):
    # 5 aligned, 3 intron, 4 aligned, 2 deleted, 3 aligned (one insertion inside: no base)
    # + a read over the intron; an unmapped record is left out
    bam = tmp_path / "s.bam"
    _write_bam(bam, [(0, "chr1", 100, "2S5M3N4M2D1M2I2M"), (0, "chr1", 104, "6M"),
                     (4, "chr1", 100, "")], sort=True)
    rows = read_bam(bam).values.tolist()
    assert rows == [["chr1", 100, 104, 1], ["chr1", 104, 105, 2], ["chr1", 105, 108, 1],
                    ["chr1", 108, 110, 2], ["chr1", 110, 112, 1], ["chr1", 114, 117, 1]]


def test_read_coverage_takes_bam_files_and_folders(tmp_path):
    rng = np.random.default_rng(5)
    d = tmp_path / "bams"
    d.mkdir()
    recs = {s: _records(rng, 60) for s in ("s1", "s2")}
    for s, r in recs.items():
        _write_bam(d / f"{s}.bam", r, sort=True)
    pysam.index(str(d / "s1.bam"))  # an index beside it is not read as a sample
    cov = read_coverage(d)
    assert list(pd.unique(cov["sample_id"])) == ["s1", "s2"]
    for s, r in recs.items():
        part = cov[cov["sample_id"] == s].drop(columns="sample_id").reset_index(drop=True)
        pd.testing.assert_frame_equal(part.astype({"chrom": object}), _pileup(r),
                                      check_dtype=False)
    # recognised by content, whatever the name
    odd = tmp_path / "reads.dat"
    odd.write_bytes((d / "s2.bam").read_bytes())
    assert is_bam(odd) and not is_bam(d / "s1.bam.bai")
    assert read_coverage(odd)["sample_id"].iloc[0] == "reads.dat"


def test_bam_without_mapped_reads_is_an_error(tmp_path):
    bam = tmp_path / "none.bam"
    _write_bam(bam, [(4, "chr1", 10, "")], sort=True)
    with pytest.raises(ValueError, match="no mapped reads"):
        read_bam(bam)


def test_equals_bedtools_genomecov_when_installed(tmp_path):
    """The same rows as ``bedtools genomecov -ibam X -bg -split`` itself (skipped where
    bedtools is not installed; checked with bedtools 2.30.0)."""
    import shutil
    import subprocess

    bedtools = shutil.which("bedtools")
    if bedtools is None:
        msg = "bedtools is not installed (Debian: apt-get install -y bedtools)"
        if os.environ.get("PENLEARN_REQUIRE_DATA") == "1":
            pytest.fail(msg + " (PENLEARN_REQUIRE_DATA=1: .ci/run installs it)")
        pytest.skip(msg + "; the pileup test above still runs")
    rng = np.random.default_rng(7)
    bam = tmp_path / "reads.bam"
    _write_bam(bam, _records(rng, 1500), sort=True)
    out = subprocess.run([bedtools, "genomecov", "-ibam", str(bam), "-bg", "-split"],
                         capture_output=True, text=True, check=True).stdout
    rows = [[c, int(s), int(e), int(n)] for c, s, e, n in
            (line.split("\t") for line in out.splitlines())]
    assert len(rows) > 500 and read_bam(bam).values.tolist() == rows
