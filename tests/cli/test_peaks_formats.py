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


NARROWPEAK_AUTOSQL = """table narrowPeak
"BED6+4 Peaks of signal enrichment"
(
    string chrom;        "Reference sequence chromosome or scaffold"
    uint   chromStart;   "Start position in chromosome"
    uint   chromEnd;     "End position in chromosome"
    string name;         "Name given to a region"
    uint   score;        "0-1000"
    char[1] strand;      "+ or - or . for unknown"
    float  signalValue;  "Measurement of average enrichment for the region"
    float  pValue;       "Statistical significance of signal value (-log10)"
    float  qValue;       "Statistical significance with multiple-test correction (-log10)"
    int    peak;         "Point-source called for this peak; 0-based offset from chromStart"
)
"""


def _big_bed_round_trip(path, tmp_path) -> list[list[str]]:
    """The narrowPeak file through bedToBigBed with the narrowPeak autoSql (where that
    tool is installed), else through pybigtools as the hub writes bigBeds; its rows."""
    import shutil
    import subprocess

    rows = [ln.split("\t") for ln in path.read_text().splitlines()
            if not ln.startswith("track")]
    sizes = {"chr1": 10_000}
    (tmp_path / "np.as").write_text(NARROWPEAK_AUTOSQL)
    (tmp_path / "chrom.sizes").write_text("chr1\t10000\n")
    bb = tmp_path / "np.bb"
    if shutil.which("bedToBigBed"):
        plain = tmp_path / "plain.narrowPeak"
        plain.write_text("".join("\t".join(r) + "\n" for r in rows))
        subprocess.run(["bedToBigBed", "-type=bed6+4", f"-as={tmp_path / 'np.as'}",
                        str(plain), str(tmp_path / "chrom.sizes"), str(bb)], check=True)
    else:
        pbt = pytest.importorskip("pybigtools")
        writer = pbt.open(str(bb), "w")
        writer.write(sizes, [(r[0], int(r[1]), int(r[2]), "\t".join(r[3:])) for r in rows],
                     autosql=NARROWPEAK_AUTOSQL)
    pbt = pytest.importorskip("pybigtools")
    with pbt.open(str(bb)) as f:
        assert "table narrowPeak" in f.sql()
        back = [["chr1", str(s), str(e), *rest] for s, e, *rest in f.records("chr1")]
    for r in back:  # each field as the autoSql types it (pybigtools does not check)
        assert r[3] and 0 <= int(r[4]) <= 1000 and r[5] in "+-."
        assert all(np.isfinite(float(x)) for x in r[6:9]) and int(r[9]) >= -1
    return back


def test_narrowpeak_and_broadpeak_columns_mean_something(tmp_path):
    """Issue 46 item 2: column 10 the summit, signalValue the fold over the flanking
    background, pValue / qValue Poisson and Benjamini-Hochberg, score 0-1000; checked for
    columns, types and ranges and through bedToBigBed's narrowPeak autoSql."""
    cov = _coverage()
    cov.to_csv(tmp_path / "cov.csv", index=False)
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 3, "--out", tmp_path / "np",
                 "--format", "narrowPeak", "--track", "run", "-q"]) == 0
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 3, "--out", tmp_path / "bp",
                 "--format", "broadPeak", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "np").iterdir()) == \
        ["s1.narrowPeak", "s1_summits.bed", "s2.narrowPeak", "s2_summits.bed"]
    names = []
    for sid in ("s1", "s2"):
        path = tmp_path / "np" / f"{sid}.narrowPeak"
        lines = path.read_text().splitlines()
        assert lines[0] == f'track type=narrowPeak name="run {sid}"'
        rows = [ln.split("\t") for ln in lines[1:]]
        part = cov[cov["sample_id"] == sid].drop(columns="sample_id")
        want = pl.peak_calls(pl.peakseg(part, 3.0).segments, part)
        assert len(want) >= 2 and all(len(r) == 10 for r in rows)
        assert [[r[0], int(r[1]), int(r[2])] for r in rows] == \
            want[["chrom", "chromStart", "chromEnd"]].values.tolist()
        score = [int(r[4]) for r in rows]
        assert max(score) == 1000 and min(score) >= 0
        assert score == pl.ucsc_scores(want["mean"]).tolist()
        assert {r[5] for r in rows} == {"."}
        signal, p, q = (np.array([float(r[k]) for r in rows]) for k in (6, 7, 8))
        assert signal == pytest.approx((want["mean"] / want["background"]).to_numpy(),
                                       rel=1e-5)
        assert (signal > 1).all() and (p > 0).all() and (q > 0).all() and (q <= p).all()
        assert np.isfinite(np.r_[signal, p, q]).all()
        for r in rows:  # the summit: the middle of the highest run of coverage
            a, b, summit = int(r[1]), int(r[2]), int(r[9])
            inside = part[(part["chromStart"] >= a) & (part["chromEnd"] <= b)]
            top = inside[inside["count"] == inside["count"].max()].iloc[0]
            assert 0 <= summit < b - a
            assert summit == (top["chromStart"] + top["chromEnd"]) // 2 - a
        names += [r[3] for r in rows]
        assert _big_bed_round_trip(path, tmp_path) == rows
        # broadPeak: the same peaks and columns, without the summit
        broad = (tmp_path / "bp" / f"{sid}.broadPeak").read_text().splitlines()
        assert [ln.split("\t") for ln in broad] == [r[:9] for r in rows]
        # read_bed reads it as peaks (its first five columns)
        assert pl.read_bed(path)["chromEnd"].tolist() == want["chromEnd"].tolist()
    assert len(set(names)) == len(names) and names[0] == "s1_peak1"


def test_summit_ties_control_p_and_q_values(tmp_path):
    """The summit of a flat top is its middle; with a control, of treatment minus scaled
    control; p-values are Poisson upper tails, q-values Benjamini-Hochberg's."""
    from scipy import stats

    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 14, 20, 30],
                        "chromEnd": [10, 14, 20, 30, 36], "count": [1, 9, 9, 2, 9]})
    pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "chromEnd": [36]})
    assert pl.peaks.formats.summit_offsets(pk, cov).tolist() == [15]  # 10-19, not 30-35
    ctl = cov.assign(count=[0, 4, 0, 0, 0])  # 9 - 2*4 = 1 on 10-13
    assert pl.peaks.formats.summit_offsets(pk, cov, control=ctl, control_scale=2.0
                                           ).tolist() == [17]  # 14-19 left at 9
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 200],
                          "chromEnd": [10, 120, 205], "mean": [3.0, 5.0, 2.0],
                          "background": [1.0, 1.0, 1.5]})
    t = pl.peaks.formats.peak_columns(peaks)  # no coverage: the mean against background
    p = stats.poisson.sf(np.array([3, 5, 2]) - 1, np.array([1.0, 1.0, 1.5]))
    assert t["pValue"].to_numpy() == pytest.approx(-np.log10(p), rel=1e-9)
    order = np.argsort(p)
    adj = np.minimum.accumulate((p[order] * 3 / np.arange(1, 4))[::-1])[::-1]
    q = np.empty(3)
    q[order] = np.minimum(adj, 1)
    assert t["qValue"].to_numpy() == pytest.approx(-np.log10(q), rel=1e-9)
    # far tails stay finite and ordered (no -log10 of an underflowed 0)
    far = pl.peaks.formats.peak_columns(peaks.assign(mean=[500.0, 800.0, 2.0]))
    assert np.isfinite(far["pValue"]).all() and far["pValue"].iloc[1] > far["pValue"].iloc[0]
    summits = tmp_path / "s_summits.bed"
    pl.write_summits(pl.narrowpeak_table(pl.peak_calls(pl.peakseg(cov, 1.0).segments, cov),
                                         "s"), summits)
    assert summits.read_text().split("\t")[:4] == ["chr1", "15", "16", "s_peak1"]


def test_out_ending_in_slash_is_a_folder_whatever_the_sample_count(tmp_path):
    """Issue 48 (2): '--out peaks/' with one sample wrote a file named 'peaks'."""
    one = tmp_path / "one.bedGraph"
    one.write_text("".join(f"chr1\t{10 * i}\t{10 * i + 10}\t{c}\n"
                           for i, c in enumerate(COUNTS)))
    assert _run(["peaks", one, "--penalty", 3, "--out", f"{tmp_path / 'peaks'}/", "-q"]) == 0
    assert (tmp_path / "peaks").is_dir()
    assert [p.name for p in (tmp_path / "peaks").iterdir()] == ["one.bed"]
    (tmp_path / "there").mkdir()  # an existing folder, no slash: a folder too
    assert _run(["peaks", one, "--penalty", 3, "--out", tmp_path / "there", "-q"]) == 0
    assert [p.name for p in (tmp_path / "there").iterdir()] == ["one.bed"]
    assert _run(["peaks", one, "--penalty", 3, "--out", tmp_path / "p.bed", "-q"]) == 0
    assert (tmp_path / "p.bed").is_file()


def test_several_coverage_files_are_one_sample_each(tmp_path, capsys):
    """Issue 48 (3): 'penlearn peaks a b --out two/' (MACS3's -t a b) was refused."""
    for name, k in (("a", 0), ("b", 3)):
        (tmp_path / f"{name}.bedGraph").write_text("".join(
            f"chr1\t{10 * i}\t{10 * i + 10}\t{c}\n"
            for i, c in enumerate(np.roll(COUNTS, k))))
    assert _run(["peaks", tmp_path / "a.bedGraph", tmp_path / "b.bedGraph", "--penalty", 3,
                 "--out", tmp_path / "two", "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == ["a.bed", "b.bed"]
    for name in ("a", "b"):
        alone = tmp_path / f"{name}_alone.bed"
        assert _run(["peaks", tmp_path / f"{name}.bedGraph", "--penalty", 3, "--out", alone,
                     "-q"]) == 0
        assert (tmp_path / "two" / f"{name}.bed").read_text() == alone.read_text()
    capsys.readouterr()
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.bedGraph").write_text("chr1\t0\t10\t3\n")
    assert _run(["peaks", tmp_path / "a.bedGraph", tmp_path / "x" / "a.bedGraph",
                 "--penalty", 3, "--out", tmp_path / "clash", "-q"]) == 1
    err = capsys.readouterr().err
    assert "sample id 'a'" in err and not (tmp_path / "clash").exists()


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


def test_scheduler_without_distributed_is_refused_before_any_work(tmp_path, capsys,
                                                                   monkeypatch):
    """Issue 48 (10): refused only after the features were computed; the hint unquoted."""
    import importlib.util

    import penlearn.cli._workers as workers_module
    import penlearn.cli.peaks as peaks_module

    real = importlib.util.find_spec
    monkeypatch.setattr(workers_module.importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))

    def no_work(*args, **kwargs):
        raise AssertionError("the coverage was read before --scheduler was checked")

    monkeypatch.setattr(peaks_module, "read_coverage", no_work)
    one = tmp_path / "one.bedGraph"
    one.write_text("chr1\t0\t10\t3\n")
    assert _run(["peaks", one, "--penalty", 3, "--scheduler", "tcp://127.0.0.1:8786",
                 "--out", tmp_path / "p.bed"]) == 1
    err = capsys.readouterr().err
    assert "pip install 'penlearn[dask]'" in err and "AssertionError" not in err


def test_peaks_qvalue_keeps_the_significant_peaks(tmp_path):
    """Issue 52: ``penlearn peaks --qvalue Q`` writes the peaks of q-value <= Q, in every
    format, with the values they have without the cutoff."""
    rng = np.random.default_rng(52)
    count = rng.poisson(2, 3000)
    for k, x in enumerate(range(100, 3000, 150)):  # peaks of rising height
        count[x:x + 20] += rng.poisson(1 + k, 20)
    cov = pd.DataFrame({"sample_id": "s1", "chrom": "chr1",
                        "chromStart": np.arange(3000) * 10,
                        "chromEnd": np.arange(3000) * 10 + 10, "count": count})
    cov.to_csv(tmp_path / "cov.csv", index=False)
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 50, "--out", tmp_path / "all.np",
                 "--format", "narrowPeak", "-q"]) == 0
    every = pd.read_csv(tmp_path / "all.np", sep="\t", header=None)
    cut = float(every[8].max()) / 2
    q = 10 ** -cut
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 50, "--out", tmp_path / "q.np",
                 "--format", "narrowPeak", "--qvalue", q, "-q"]) == 0
    kept = pd.read_csv(tmp_path / "q.np", sep="\t", header=None)
    want = every[every[8] >= cut - 1e-9]
    assert 0 < len(kept) < len(every)
    assert kept[[0, 1, 2, 7, 8, 9]].values.tolist() == want[[0, 1, 2, 7, 8, 9]].values.tolist()
    assert _run(["peaks", tmp_path / "cov.csv", "--penalty", 50, "--out", tmp_path / "q.bed",
                 "--qvalue", q, "-q"]) == 0
    bed = pd.read_csv(tmp_path / "q.bed", sep="\t", header=None)
    assert bed[[0, 1, 2]].values.tolist() == want[[0, 1, 2]].values.tolist()
