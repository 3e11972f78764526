"""``penlearn peaks`` in the field's formats: narrowPeak, bigWig outputs with
the real chromosome sizes, BAM input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import penlearn as pl
from penlearn.cli.main import main

COUNTS = [1, 2, 30, 28, 2, 1, 1, 0, 3, 40, 41, 2, 1]


def _coverage(samples=("s1", "s2")) -> pd.DataFrame:
    n = len(COUNTS)
    rows = []
    for k, s in enumerate(samples):
        rows.append(pd.DataFrame({"sample_id": s, "chrom": "chr1",
                                  "chromStart": np.arange(0, 10 * n, 10),
                                  "chromEnd": np.arange(10, 10 * n + 10, 10),
                                  "count": np.roll(COUNTS, k)}))
    return pd.concat(rows, ignore_index=True)


def _run(argv, capsys=None) -> int:
    return main([str(a) for a in argv])


def _peaks(cov: pd.DataFrame, sid: str, penalty: float) -> pd.DataFrame:
    part = cov[cov["sample_id"] == sid].drop(columns="sample_id")
    seg = pl.peakseg(part, penalty).segments
    return seg[seg["status"] == "peak"].reset_index(drop=True)


def test_narrowpeak_columns_names_and_scores(tmp_path):
    cov = _coverage()
    cov.to_csv(tmp_path / "cov.csv", index=False)
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 3, "--out", tmp_path / "np",
                 "--format", "narrowPeak", "--track", "run", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "np").iterdir()) == \
        ["s1.narrowPeak", "s2.narrowPeak"]
    names = []
    for sid in ("s1", "s2"):
        path = tmp_path / "np" / f"{sid}.narrowPeak"
        lines = path.read_text().splitlines()
        assert lines[0] == f'track type=narrowPeak name="run {sid}"'
        rows = [ln.split("\t") for ln in lines[1:]]
        want = _peaks(cov, sid, 3.0)
        assert len(want) >= 2 and all(len(r) == 10 for r in rows)
        assert [[r[0], int(r[1]), int(r[2])] for r in rows] == \
            want[["chrom", "chromStart", "chromEnd"]].values.tolist()
        signal = np.array([float(r[6]) for r in rows])
        assert signal == pytest.approx(want["mean"].to_numpy(), rel=1e-12)
        score = [int(r[4]) for r in rows]
        assert max(score) == 1000 and score == \
            [round(1000 * v / signal.max()) for v in signal]
        assert {(r[5], r[7], r[8], r[9]) for r in rows} == {(".", "-1", "-1", "-1")}
        names += [r[3] for r in rows]
        # read_bed reads it as peaks (its first five columns)
        assert pl.read_bed(path)["chromEnd"].tolist() == want["chromEnd"].tolist()
    assert len(set(names)) == len(names) and names[0] == "s1_peak1"


def test_bed3_with_narrowpeak_is_refused(tmp_path, capsys):
    _coverage(["s1"]).to_csv(tmp_path / "cov.csv", index=False)
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 3, "--out", tmp_path / "x",
                 "--format", "narrowPeak", "--bed3"]) == 1
    assert "--bed3" in capsys.readouterr().err


def _bigwig_in(path, cov: pd.DataFrame, sizes: dict) -> None:
    pybigwig = pytest.importorskip("pyBigWig")
    bw = pybigwig.open(str(path), "w")
    bw.addHeader(list(sizes.items()))
    bw.addEntries(cov["chrom"].tolist(), cov["chromStart"].tolist(),
                  ends=cov["chromEnd"].tolist(), values=cov["count"].astype(float).tolist())
    bw.close()


def _header(path) -> dict:
    pybigwig = pytest.importorskip("pyBigWig")
    bw = pybigwig.open(str(path))
    try:
        return dict(bw.chroms())
    finally:
        bw.close()


def test_bigwig_means_declare_the_input_bigwigs_chromosome_sizes(tmp_path):
    cov = _coverage(["s1"]).drop(columns="sample_id")
    sizes = {"chr1": 48_129_895, "chr2": 1000}  # the input declares more than it covers
    _bigwig_in(tmp_path / "s1.bw", cov, sizes)
    assert _run(["peaks", tmp_path / "s1.bw", "--penalty", 3, "--out",
                 tmp_path / "o" / "s1.bed", "--means", "bigWig", "-q"]) == 0
    assert _header(tmp_path / "o" / "s1.bw") == {"chr1": sizes["chr1"]}


def test_chrom_sizes_file_for_bedgraph_input(tmp_path, capsys):
    cov = _coverage(["s1"]).drop(columns="sample_id")
    bg = tmp_path / "s1.bedGraph"
    cov.to_csv(bg, sep="\t", header=False, index=False)
    # without sizes: a warning, and the old header (the last covered base)
    assert _run(["peaks", bg, "--penalty", 3, "--out", tmp_path / "a.bed",
                 "--means", "bigWig"]) == 0
    assert "--chrom-sizes" in capsys.readouterr().err
    assert _header(tmp_path / "a.bw") == {"chr1": int(cov["chromEnd"].max())}
    sizes = tmp_path / "hg19.chrom.sizes"
    sizes.write_text("chr1\t249250621\nchr21\t48129895\n")
    assert _run(["peaks", bg, "--penalty", 3, "--out", tmp_path / "b.bed",
                 "--means", "bigWig", "--chrom-sizes", sizes, "-q"]) == 0
    assert _header(tmp_path / "b.bw") == {"chr1": 249250621}
    # sizes that do not fit the coverage are an error before any work
    sizes.write_text("chr1\t100\n")
    assert _run(["peaks", bg, "--penalty", 3, "--out", tmp_path / "c.bed",
                 "--chrom-sizes", sizes]) == 1
    assert "reaches base 130 of chr1" in capsys.readouterr().err
    sizes.write_text("chr2\t1000\n")
    assert _run(["peaks", bg, "--penalty", 3, "--out", tmp_path / "c.bed",
                 "--chrom-sizes", sizes]) == 1
    assert "no 'chr1'" in capsys.readouterr().err
    sizes.write_text("chr1 12x\n")
    assert _run(["peaks", bg, "--penalty", 3, "--out", tmp_path / "c.bed",
                 "--chrom-sizes", sizes]) == 1
    assert "line 1" in capsys.readouterr().err


def test_peaks_of_a_bam_equal_those_of_its_pileup(tmp_path):
    pysam = pytest.importorskip("pysam")
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "chr1", "LN": 5000}]}
    rng = np.random.default_rng(3)
    starts = np.sort(np.r_[rng.integers(0, 4900, 60), rng.integers(2000, 2100, 80)])
    with pysam.AlignmentFile(str(tmp_path / "s1.bam"), "wb", header=header) as out:
        for i, s in enumerate(starts):
            a = pysam.AlignedSegment()
            a.query_name, a.flag, a.reference_id = f"r{i}", 0, 0
            a.reference_start, a.mapping_quality, a.cigarstring = int(s), 30, "50M"
            a.query_sequence = "A" * 50
            out.write(a)
    depth = np.zeros(5000, np.int64)
    for s in starts:
        depth[s:s + 50] += 1
    runs, a = [], 0  # runs of equal depth > 0, as bedtools genomecov -bg writes them
    for i in range(1, len(depth) + 1):
        if i == len(depth) or depth[i] != depth[a]:
            runs += [f"chr1\t{a}\t{i}\t{depth[a]}\n"] if depth[a] else []
            a = i
    bg = tmp_path / "s1.bedGraph"
    bg.write_text("".join(runs))
    for src, out in ((tmp_path / "s1.bam", "bam.bed"), (bg, "bg.bed")):
        assert _run(["peaks", src, "--penalty", 20, "--out", tmp_path / out, "-q"]) == 0
    got = (tmp_path / "bam.bed").read_text()
    assert got and got == (tmp_path / "bg.bed").read_text()
