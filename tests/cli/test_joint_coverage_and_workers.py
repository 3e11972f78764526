"""``penlearn joint`` on any coverage a user has (genomecov's gapped bedGraphs, tables
without ``chrom``, samples under two groups, header-only files), the peaks folders every
command reads alike, its options checked before any work, and its windows fitted by
workers (``--jobs``, ``--scheduler``) or taken back after an interruption: the same
outputs every way."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_joint_cli import one_line_error

from penlearn.cli.main import main
from penlearn.peaks.joint import solver as joint_solver

SAMPLES = ("a", "b", "c")
#: planted peaks: (start, end, samples up)
PLANTED = ((300, 400, "ab"), (1300, 1400, "c"), (2500, 2600, "abc"))
OUTPUTS = ("peaks_matrix_sample.tsv", "peaks_matrix_group.tsv", "peaks_summary.tsv",
           "windows.tsv", "joint_peaks.bed")


def coverage_rows(seed: int = 0) -> pd.DataFrame:
    """Three samples on 3000 bases, runs of 5 bases, zero-count runs written out; sample
    b has no reads before base 250, sample c none after 2600."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in SAMPLES:
        mean = np.full(3000, 1.0)
        for a, b, up in PLANTED:
            if s in up:
                mean[a:b] = 15.0
        mean[:250] *= s != "b"
        mean[2600:] *= s != "c"
        counts = rng.poisson(mean[::5])
        if s == "a":  # sample a spans the chromosome
            counts[[0, -1]] = np.maximum(counts[[0, -1]], 1)
        rows += [(s, "chr1", 5 * i, 5 * i + 5, int(c)) for i, c in enumerate(counts)]
    return pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                       "count"])


def genomecov(cov: pd.DataFrame) -> pd.DataFrame:
    """As ``bedtools genomecov -bg`` writes it: zero runs left out (so sample b's rows
    start after 250, sample c's stop at 2600, inside the first and last windows)."""
    out = cov[cov["count"] > 0]
    assert out.groupby("sample_id")["chromStart"].min()["b"] >= 250
    assert out.groupby("sample_id")["chromEnd"].max()["c"] == 2600
    return out


def write_bedgraphs(cov: pd.DataFrame, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for s, g in cov.groupby("sample_id"):
        g[["chrom", "chromStart", "chromEnd", "count"]].to_csv(
            folder / f"{s}.bedGraph", sep="\t", header=False, index=False)
    return folder


def write_peaks(folder: Path, suffix: str = ".bed") -> Path:
    folder.mkdir(parents=True)
    for s in SAMPLES:
        lines = [f"chr1\t{a + 10}\t{b - 5}\n" for a, b, up in PLANTED if s in up]
        (folder / f"{s}{suffix}").write_text("".join(lines))
    return folder


def run(argv) -> int:
    return main([str(a) for a in argv] + ["-q"])


def outputs(out: Path) -> dict:
    return {name: (out / name).read_bytes() for name in OUTPUTS}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("joint-any")
    cov = coverage_rows()
    filled = write_bedgraphs(cov, tmp / "filled")
    gapped = write_bedgraphs(genomecov(cov), tmp / "gapped")
    peaks = write_peaks(tmp / "peaks")
    ref = tmp / "ref"
    assert run(["joint", filled, "--peaks", peaks, "--penalty", "50", "--out", ref]) == 0
    return {"tmp": tmp, "cov": cov, "filled": filled, "gapped": gapped, "peaks": peaks,
            "ref": ref}


def test_the_reference_run_finds_the_planted_peaks_with_their_samples(inputs):
    matrix = pd.read_csv(inputs["ref"] / "peaks_matrix_sample.tsv", sep="\t")
    got = {(r.chromStart // 100, "".join(s for s in SAMPLES if getattr(r, s)))
           for r in matrix.itertuples()}
    assert got == {(a // 100, up) for a, b, up in PLANTED}


def test_genomecov_bedgraphs_give_the_outputs_of_the_zero_filled_coverage(inputs):
    # zero runs left out, one sample ending early, one starting late: bases without rows
    # are zeros, as joint_peak counts them (issue 37: they were refused)
    out = inputs["tmp"] / "from-gapped"
    assert run(["joint", inputs["gapped"], "--peaks", inputs["peaks"], "--penalty", "50",
                "--out", out]) == 0
    assert outputs(out) == outputs(inputs["ref"])


def test_features_count_bases_without_rows_as_zeros():
    from penlearn.peaks.joint.pipeline import joint_features

    cov = coverage_rows()
    win = pd.DataFrame({"window_id": ["w1", "w2"], "chrom": "chr1",
                        "chromStart": [100, 2450], "chromEnd": [600, 2900]})
    gapped, filled = joint_features(genomecov(cov), win), joint_features(cov, win)
    # the same bases and counts; only the number of rows ("data") tells the files apart
    same = [c for c in filled.columns if "data" not in c]
    assert len(same) == 32
    pd.testing.assert_frame_equal(gapped[same], filled[same], check_exact=False, rtol=1e-12)
    assert (gapped["data"] < filled["data"]).all()


def test_labels_learn_the_same_penalty_from_gapped_coverage(inputs, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                      "a,chr1,250,350,peakStart\nc,chr1,250,350,noPeaks\n"
                      "c,chr1,1250,1350,peakStart\nb,chr1,2450,2550,peakStart\n"
                      "c,chr1,2650,2800,noPeaks\nb,chr1,200,260,noPeaks\n")
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(["joint", inputs["filled"], "--peaks", inputs["peaks"], "--labels", labels,
                "--out", a]) == 0
    assert run(["joint", inputs["gapped"], "--peaks", inputs["peaks"], "--labels", labels,
                "--out", b]) == 0
    assert outputs(a) == outputs(b)
    assert (a / "evaluation.tsv").read_bytes() == (b / "evaluation.tsv").read_bytes()


def test_jobs_2_gives_the_outputs_of_one_process(inputs):
    out = inputs["tmp"] / "jobs2"
    assert run(["joint", inputs["gapped"], "--peaks", inputs["peaks"], "--penalty", "50",
                "--out", out, "--jobs", "2", "--oversubscribe"]) == 0
    assert outputs(out) == outputs(inputs["ref"])


def test_a_dask_scheduler_gives_the_outputs_of_one_process(inputs):
    import distributed  # a declared test dependency: missing it is a failure, not a skip

    out = inputs["tmp"] / "dask"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  host="127.0.0.1", protocol="tcp",
                                  dashboard_address=":0") as cluster:
        assert run(["joint", inputs["filled"], "--peaks", inputs["peaks"], "--penalty", "50",
                    "--out", out, "--scheduler", cluster.scheduler_address]) == 0
    assert outputs(out) == outputs(inputs["ref"])


def test_an_interrupted_run_resumes_with_the_windows_it_saved(inputs, monkeypatch, capsys):
    calls = []

    @functools.wraps(joint_solver.joint_peak)  # the same solver: the same part keys
    def crashing(window, **kw):
        if len(calls) == 2:
            raise RuntimeError("killed on the third window")
        calls.append(1)
        return real(window, **kw)

    real = joint_solver.joint_peak
    out = inputs["tmp"] / "resumed"
    monkeypatch.setattr(joint_solver, "joint_peak", crashing)
    argv = ["joint", inputs["filled"], "--peaks", inputs["peaks"], "--penalty", "7",
            "--out", out]  # another penalty than the reference's: the parts hold none
    assert run(argv) != 0
    parts = out.with_name(out.name + ".penlearn-parts")
    assert len(list(parts.glob("joint-*.npz"))) == 2 and not out.exists()
    monkeypatch.setattr(joint_solver, "joint_peak", real)
    capsys.readouterr()
    assert run(argv[:-4] + ["--penalty", "50", "--out", out]) == 0  # penalty not in keys
    assert "(2 of 3 windows from an interrupted run)" in capsys.readouterr().out
    assert outputs(out) == outputs(inputs["ref"])
    assert not parts.exists()  # removed once the outputs are written


def test_no_resume_solves_every_window_again(inputs, monkeypatch):
    out = inputs["tmp"] / "no-resume"
    parts = out.with_name(out.name + ".penlearn-parts")
    parts.mkdir()
    (parts / f"joint-{'0' * 40}.npz").write_bytes(b"a part of another run")
    assert run(["joint", inputs["filled"], "--peaks", inputs["peaks"], "--penalty", "50",
                "--out", out, "--no-resume"]) == 0
    assert outputs(out) == outputs(inputs["ref"]) and not parts.exists()


# --------------------------------------------------------------------- the peaks folder


def test_peak_folders_are_read_as_errors_and_hub_read_them(inputs, tmp_path):
    # penlearn peaks --format narrowPeak writes <sample>.narrowPeak; .BED and .bed.gz too
    narrow = tmp_path / "narrow"
    narrow.mkdir()
    for f in sorted(inputs["peaks"].iterdir()):
        rows = [ln.split("\t") for ln in f.read_text().splitlines()]
        suffix = {"a": ".narrowPeak", "b": ".BED", "c": ".bed.gz"}[f.stem]
        text = "".join(f"{c}\t{s}\t{e.strip()}\t{f.stem}_p\t0\t.\t1\t-1\t-1\t-1\n"
                       if suffix == ".narrowPeak" else f"{c}\t{s}\t{e.strip()}\n"
                       for c, s, e in rows)
        if suffix == ".bed.gz":
            import gzip
            (narrow / f"{f.stem}{suffix}").write_bytes(gzip.compress(text.encode()))
        else:
            (narrow / f"{f.stem}{suffix}").write_text(text)
    out = tmp_path / "out"
    assert run(["joint", inputs["filled"], "--peaks", narrow, "--penalty", "50",
                "--out", out]) == 0
    assert outputs(out) == outputs(inputs["ref"])


def test_a_stale_gzip_beside_a_bed_file_is_refused_naming_both(inputs, tmp_path, capsys):
    import shutil

    stale = tmp_path / "stale"
    shutil.copytree(inputs["peaks"], stale)
    import gzip
    (stale / "a.bed.gz").write_bytes(gzip.compress(b"chr1\t1300\t1400\n"))
    one_line_error(capsys, ["joint", inputs["filled"], "--peaks", stale, "--penalty", "50",
                            "--out", tmp_path / "out"], "'a'", "a.bed", "a.bed.gz")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------- inputs, checked early


def test_a_coverage_table_without_chrom_is_told_what_it_lacks(inputs, tmp_path, capsys):
    # PeakSegJoint's tables (sample_id, group, chromStart, chromEnd, count): not a bedGraph
    table = tmp_path / "profiles.csv"
    inputs["cov"].drop(columns="chrom").to_csv(table, index=False)
    err = one_line_error(capsys, ["joint", table, "--peaks", inputs["peaks"], "--penalty",
                                  "50", "--out", tmp_path / "out"], "'chrom'")
    assert "4 fields" not in err


def test_a_sample_under_two_groups_is_refused_naming_both_and_the_fix(inputs, tmp_path,
                                                                      capsys):
    # PeakSegJoint's demo.profiles: sample ids repeated across groups (two profiles)
    cov = inputs["cov"].assign(group=np.where(inputs["cov"]["chromStart"] < 1500, "Input",
                                              "kidney"))
    table = tmp_path / "coverage.csv"
    cov.to_csv(table, index=False)
    one_line_error(capsys, ["joint", table, "--peaks", inputs["peaks"], "--penalty", "50",
                            "--out", tmp_path / "out"], "sample 'a'", "'Input'", "'kidney'",
                   "its own id")
    groups = tmp_path / "groups.csv"
    groups.write_text("sample_id,group\na,g1\nb,g1\nc,g2\na,g2\n")  # last row: no longer wins
    one_line_error(capsys, ["joint", inputs["filled"], "--peaks", inputs["peaks"],
                            "--penalty", "50", "--groups", groups, "--out", tmp_path / "out"],
                   "sample 'a'", "'g1'", "'g2'")


@pytest.mark.parametrize("widen", ["1e16", "1e300", "inf", "nan", "-1"])
def test_widen_beyond_its_cap_is_refused_before_reading(tmp_path, capsys, widen):
    one_line_error(capsys, ["joint", tmp_path / "no-such-coverage", "--peaks", tmp_path,
                            "--penalty", "1", f"--widen={widen}", "--out", tmp_path / "o"],
                   "--widen must be a number from 0 to 1e+06")


def test_header_only_coverage_is_named_empty(inputs, tmp_path, capsys):
    table = tmp_path / "coverage.csv"
    table.write_text("sample_id,chrom,chromStart,chromEnd,count\n")
    err = one_line_error(capsys, ["joint", table, "--peaks", inputs["peaks"], "--penalty",
                                  "1", "--out", tmp_path / "o"], "has no rows (a header only")
    assert "one sample" not in err


def test_sample_ids_are_text_one_and_quoted_one_are_one_sample():
    from penlearn.peaks.joint.pipeline import joint_peaks

    cov = coverage_rows()
    ids = cov["sample_id"].map({"a": 1, "b": 2, "c": 3}).astype(object)
    ids[(cov["sample_id"] == "a") & (cov["chromStart"] >= 1500)] = "1"  # 1 and "1"
    mixed = cov.assign(sample_id=ids)
    peaks = pd.DataFrame([(str(SAMPLES.index(s) + 1), "chr1", a + 10, b - 5)
                          for a, b, up in PLANTED for s in up],
                         columns=["sample_id", "chrom", "chromStart", "chromEnd"])
    res = joint_peaks(mixed, peaks.assign(sample_id=peaks["sample_id"].astype(int)),
                      penalty=50.0)
    ref = joint_peaks(cov.assign(sample_id=cov["sample_id"].map({"a": "1", "b": "2",
                                                                  "c": "3"})),
                      peaks, penalty=50.0)
    assert res.samples == ["1", "2", "3"]
    assert res.matrix().equals(ref.matrix())


def test_peaksegjoint_demo_profiles_are_told_what_they_lack_then_the_fix(tmp_path, capsys):
    from conftest import DATA, need

    table = need(DATA / "chipseq_raw" / "peaksegjoint" / "demo.profiles" / "coverage.csv.gz")
    peaks = tmp_path / "peaks"
    peaks.mkdir()
    (peaks / "MS002201.bed").write_text("chr1\t37986600\t37987000\n")
    argv = ["--peaks", peaks, "--penalty", "1", "--out", tmp_path / "out"]
    one_line_error(capsys, ["joint", table, *argv], "missing column(s) ['chrom']")
    # with chrom: the reader finds the two profiles of one id overlapping, and says why
    with_chrom = tmp_path / "profiles.csv"
    pd.read_csv(table, dtype={"sample_id": str}).assign(chrom="chr1").to_csv(with_chrom,
                                                                              index=False)
    one_line_error(capsys, ["joint", with_chrom, *argv], "without overlaps",
                   "one sample id given to two profiles, e.g. under two groups")
