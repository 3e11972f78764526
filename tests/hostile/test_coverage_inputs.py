"""Hostile coverage inputs: broken, truncated or disguised bigWig and BAM files, bigWig
regions outside the chromosomes, fractional / negative / NaN values, gaps and overlaps in
bedGraphs, and devices or pipes given as data files. Each gives the exact coverage or one
clear line (a missing file: one ``FileNotFoundError`` line naming it)."""

from __future__ import annotations

import gzip
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import (
    ERROR,
    MISSING,
    Error,
    bounded_cli,
    check_cases,
    coverage_table,
    run_cli,
    write_file,
)

import penlearn as pl


def _bed(path: Path, rows) -> Path:
    path.write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
    return path


def _bw(tmp, name: str, chroms: dict, intervals: list) -> Path:
    """A bigWig file: intervals (chrom, start, end, value)."""
    import pyBigWig

    p = tmp / name
    bw = pyBigWig.open(str(p), "w")
    bw.addHeader(list(chroms.items()))
    for c, s, e, v in intervals:
        bw.addEntries([c], [s], ends=[e], values=[float(v)])
    bw.close()
    return p


def _bigwig_cases(tmp: Path):
    good = _bw(tmp, "good.bw", {"chr1": 100, "chr2": 50},
               [("chr1", 0, 10, 1), ("chr1", 10, 30, 5), ("chr1", 50, 60, 2), ("chr2", 0, 5, 3)])
    data = good.read_bytes()
    files = {"text": write_file(tmp, "t.bw", "chr1\t0\t10\t1\n"),
             "empty": write_file(tmp, "e.bw", b""),
             "truncated": write_file(tmp, "tr.bw", data[: len(data) // 2]),
             "magic only": write_file(tmp, "m.bw", data[:4]),
             "corrupt body": write_file(tmp, "c.bw", data[:64] + bytes(len(data) - 64)),
             "folder": tmp}
    for name, p in files.items():
        yield f"read_bigwig {name}", (lambda p=p: pl.read_bigwig(p)), ERROR
    yield "read_bigwig missing", lambda: pl.read_bigwig(tmp / "nope.bw"), MISSING
    yield "read_bigwig empty path", lambda: pl.read_bigwig(""), ERROR
    yield ("read_bigwig region clipped, gap left out",  # (10, 30, 5) cut to 15; 30-50 a gap
           lambda: pl.read_bigwig(good, "chr1", 15, 55),
           lambda d: d[["chromStart", "chromEnd", "count"]].values.tolist()
           == [[15, 30, 5], [50, 55, 2]])
    yield ("read_bigwig whole file",
           lambda: pl.read_bigwig(good),
           lambda d: d[d["chrom"] == "chr1"]["count"].tolist()[:2] == [1, 5]
           and d["chrom"].unique().tolist() == ["chr1", "chr2"])
    for name, args in {"chrom absent": ("chr9",), "start > end": ("chr1", 40, 20),
                       "start = end": ("chr1", 20, 20), "end past chrom": ("chr1", 0, 101),
                       "start negative": ("chr1", -1, 20), "start float": ("chr1", 2.5, 20),
                       "start str": ("chr1", "5", 20), "start bool": ("chr1", True, 20),
                       "chrom int": (1,), "start without chrom": (None, 5, 10),
                       "start 2^64": ("chr1", 0, 2**64)}.items():
        yield f"read_bigwig {name}", (lambda a=args: pl.read_bigwig(good, *a)), ERROR
    frac = _bw(tmp, "frac.bw", {"chr1": 20}, [("chr1", 0, 10, 1.5)])
    neg = _bw(tmp, "neg.bw", {"chr1": 20}, [("chr1", 0, 10, -1)])
    nan = _bw(tmp, "nan.bw", {"chr1": 20}, [("chr1", 0, 10, np.nan)])
    for name, p in {"fractional": frac, "negative": neg, "NaN": nan}.items():
        yield f"read_bigwig value {name}", (lambda p=p: pl.read_bigwig(p)), ERROR
    yield ("read_coverage same bigWig twice", lambda: pl.read_coverage([good, good]), ERROR)
    gap = pl.read_bigwig(good, "chr1")
    yield ("peakseg bigWig gaps='error'", lambda: pl.peakseg(gap, 1.0, gaps="error"), ERROR)


def _gap_cases(tmp: Path):
    def bg(rows):
        return pd.DataFrame(rows, columns=["chrom", "chromStart", "chromEnd", "count"])

    filled = bg([("chr1", 0, 10, 1), ("chr1", 10, 20, 30), ("chr1", 20, 30, 0),
                 ("chr1", 30, 40, 29), ("chr1", 40, 50, 1)])
    gapped = filled.drop(index=2).reset_index(drop=True)
    ref = pl.peakseg(filled, 5.0)
    yield ("peakseg gap filled = explicit zeros", lambda: pl.peakseg(gapped, 5.0),
           lambda r: r.n_peaks == ref.n_peaks and np.allclose(r.loss, ref.loss))
    yield "peakseg gaps='error'", lambda: pl.peakseg(gapped, 5.0, gaps="error"), ERROR
    yield "peakseg gaps='zero'", lambda: pl.peakseg(gapped, 5.0, gaps="zero"), ERROR
    yield "peakseg gaps=None", lambda: pl.peakseg(gapped, 5.0, gaps=None), ERROR
    over = bg([("chr1", 0, 10, 1), ("chr1", 5, 20, 3), ("chr1", 30, 40, 2)])
    yield "peakseg overlap after a gap", lambda: pl.peakseg(over, 5.0), ERROR
    unsorted = bg([("chr1", 30, 40, 2), ("chr1", 0, 10, 1), ("chr1", 10, 20, 3)])
    text = unsorted.to_csv(sep="\t", header=False, index=False)
    yield ("read_coverage bedGraph unsorted after a gap",
           lambda: pl.peakseg(pl.read_coverage(write_file(tmp, "u.bedGraph", text)), 5.0), ERROR)
    ov_text = over.to_csv(sep="\t", header=False, index=False)
    yield ("read_coverage bedGraph overlap",
           lambda: pl.peakseg(pl.read_coverage(write_file(tmp, "o.bedGraph", ov_text)), 5.0), ERROR)
    cov = coverage_table(("a",)).drop(index=2).reset_index(drop=True)
    yield ("predict_peaks gaps='error'",
           lambda: pl.predict_peaks(cov, 1.0, gaps="error"), ERROR)
    lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [0],
                        "chromEnd": [60], "annotation": ["peaks"]})
    yield ("peak_error_functions gaps='error'",
           lambda: pl.peak_error_functions(cov, lab, gaps="error", progress=False), ERROR)


def _bam_cases(d: Path):
    import pysam

    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "chr1", "LN": 1000}]}
    bam = d / "reads.bam"
    with pysam.AlignmentFile(str(bam), "wb", header=header) as out:
        for i, (pos, cigar) in enumerate([(10, "20M"), (15, "5M10N5M"), (40, "10M2D3M")]):
            a = pysam.AlignedSegment()
            a.query_name, a.reference_id, a.reference_start = f"r{i}", 0, pos
            a.cigarstring = cigar
            a.query_sequence = "A" * sum(int(n) for n, _ in re.findall(r"(\d+)([MIS=X])",
                                                                        cigar))
            a.flag, a.mapping_quality = 0, 30
            out.write(a)
    want = [(10, 15, 1), (15, 20, 2), (20, 35, 1), (40, 50, 1), (52, 55, 1)]  # by hand

    def bam_rows(path=bam):
        t = pl.read_coverage(path)
        return [tuple(map(int, r)) for r in t[["chromStart", "chromEnd", "count"]].values]
    yield "read_coverage of a BAM (N and D not covered)", bam_rows, lambda r: r == want
    disguised = d / "reads.bedGraph"
    shutil.copy(bam, disguised)
    yield "a BAM named .bedGraph", lambda: bam_rows(disguised), lambda r: r == want
    for name, data in {"truncated": bam.read_bytes()[:60], "text": b"not a bam", "empty": b"",
                       "gzip not BAM": gzip.compress(b"hello")}.items():
        f = d / f"bad_{name.replace(' ', '_')}.bam"
        f.write_bytes(data)
        yield f"read_coverage: {name} .bam", lambda f=f: pl.read_coverage(f), ERROR
    unmapped = d / "unmapped.bam"
    with pysam.AlignmentFile(str(unmapped), "wb", header=header) as out:
        a = pysam.AlignedSegment()
        a.query_name, a.flag, a.query_sequence = "u", 4, "ACGT"
        out.write(a)
    yield "read_coverage: a BAM of unmapped reads", lambda: pl.read_coverage(unmapped), ERROR
    yield ("peaks on a BAM, --out the BAM --force",
           lambda: run_cli(["peaks", bam, "--penalty", 1, "--out", bam, "--force", "-q"]),
           Error("is the input", inputs=[d]))


def _device_cases(d: Path):
    """Devices and pipes given as data files (endless, or opened twice): one clear line
    within a minute and 2 GB."""
    _bed(d / "p.bed", [("chr1", 10, 20), ("chr1", 120, 150)])
    pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 300], "chromEnd": [50, 200, 400],
                  "annotation": ["noPeaks", "peaks", "peakStart"]}).to_csv(d / "labels.csv",
                                                                           index=False)
    coverage_table().drop(columns="sample_id").to_csv(d / "cov.bedGraph", sep="\t",
                                                      header=False, index=False)
    fifo = d / "fifo"
    os.mkfifo(fifo)
    bed, labels = d / "p.bed", d / "labels.csv"
    cov = d / "cov.bedGraph"
    for dev in ("/dev/zero", "/dev/urandom", fifo):
        name = Path(dev).name
        for what, argv in [
            ("peaks COVERAGE", ["peaks", dev, "--penalty", 1, "--out", d / "dev.bed"]),
            ("peaks --chrom-sizes", ["peaks", cov, "--penalty", 1, "--chrom-sizes", dev,
                                     "--means", "bigWig", "--out", d / "dev2.bed"]),
            ("errors PEAKS", ["errors", dev, labels]),
            ("errors LABELS", ["errors", bed, dev]),
            ("segment SEQUENCES", ["segment", dev, "--max-segments", 2, "--out", d / "dseg"]),
        ]:
            yield f"{what} = {name}", lambda a=argv: bounded_cli(a, d), ERROR


def test_bigwig_inputs(tmp_path):
    pytest.importorskip("pyBigWig")
    check_cases(_bigwig_cases(tmp_path), at_least=25)


def test_bedgraph_gaps_and_overlaps(tmp_path):
    check_cases(_gap_cases(tmp_path), at_least=9)


def test_bam_inputs(tmp_path):
    pytest.importorskip("pysam")
    check_cases(_bam_cases(tmp_path), at_least=8)


@pytest.mark.slow  # 15 commands in child processes, each reading a device until refused
def test_devices_and_pipes_as_data_files(tmp_path):
    check_cases(_device_cases(tmp_path), at_least=15)
