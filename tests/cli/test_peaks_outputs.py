"""``penlearn peaks`` / ``learn`` on coverage, as a subprocess: where outputs go, what they
hold, interrupts. Each safety test failed before its fix (a file written outside ``--out``,
an input replaced, a label dropped, a traceback or a segmentation fault on an interrupt)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _penlearn_demo import penlearn_command
from conftest import REPO, default_sigint

import penlearn as pl

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
COUNTS = [1, 2, 30, 28, 2, 1]


def run(argv, cwd=None):
    return subprocess.run([*penlearn_command(), *map(str, argv)], capture_output=True,
                          text=True, timeout=300, env=ENV, cwd=cwd)


def one_line_error(r, *needles) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 1 and len(lines) == 1 and "error" in lines[0], r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def coverage_csv(path: Path, samples) -> Path:
    n = len(COUNTS)
    pd.DataFrame({"sample_id": [s for s in samples for _ in range(n)], "chrom": "chr1",
                  "chromStart": list(range(0, 10 * n, 10)) * len(samples),
                  "chromEnd": list(range(10, 10 * n + 10, 10)) * len(samples),
                  "count": COUNTS * len(samples)}).to_csv(path, index=False)
    return path


def bedgraph(path: Path, counts=COUNTS) -> Path:
    n = len(counts)
    pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 10 * n, 10),
                  "chromEnd": range(10, 10 * n + 10, 10), "count": counts}).to_csv(
        path, sep="\t", header=False, index=False)
    return path


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


# ---------------------------------------------------------------- sample ids are not paths


def test_sample_ids_never_write_outside_out_nor_share_a_file(tmp_path):
    victim = tmp_path / "victim.bed"
    victim.write_text("keep me\n")
    ids = ["../../victim", "A", "sub/../A", str(tmp_path / "abs"), ".hidden"]
    cov = coverage_csv(tmp_path / "cov.csv", ids)
    out = tmp_path / "a" / "b" / "peaks"
    r = run(["peaks", cov, "--penalty", 5, "--out", out, "-q"])
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "keep me\n"
    absolute = "%2F".join([""] + list((tmp_path / "abs").parts[1:]))
    assert files(tmp_path) == sorted(
        ["victim.bed", "cov.csv"] + [f"a/b/peaks/{n}.bed" for n in (
            "%2E.%2F..%2Fvictim", "A", "sub%2F..%2FA", absolute, "%2Ehidden")])
    # each file holds its own sample's peaks, named after the sample
    assert pl.read_bed(out / "sub%2F..%2FA.bed")["name"].tolist() == ["sub/../A"]
    assert pl.read_bed(out / "A.bed")["name"].tolist() == ["A"]


def test_empty_and_case_colliding_sample_ids_are_refused_before_any_work(tmp_path):
    cov = coverage_csv(tmp_path / "cov.csv", ["x", "EMPTY"])
    cov.write_text(cov.read_text().replace("EMPTY", '""'))
    r = run(["peaks", cov, "--penalty", 5, "--out", tmp_path / "o", "-q"])
    assert "sample" in one_line_error(r).lower()  # the reader or the writer refuses it
    cov2 = coverage_csv(tmp_path / "cov2.csv", ["Sample", "sample"])
    one_line_error(run(["peaks", cov2, "--penalty", 5, "--out", tmp_path / "o2", "-q"]),
                   "differ only in case")
    assert not (tmp_path / "o").exists() and not (tmp_path / "o2").exists()


# ---------------------------------------------------------------- outputs never replace inputs


def test_out_naming_the_input_is_refused_even_with_force(tmp_path):
    x = bedgraph(tmp_path / "x.bedGraph")
    before = x.read_bytes()
    (tmp_path / "link.bedGraph").symlink_to(x)
    os.link(x, tmp_path / "hard.bedGraph")
    for out in ("x.bedGraph", "link.bedGraph", "hard.bedGraph"):
        one_line_error(run(["peaks", x, "--penalty", 5, "--out", tmp_path / out, "--force", "-q"]),
                       "is the input")
    one_line_error(run(["peaks", x, "--penalty", 5, "--out", "", "-q"]), "--out is empty")
    assert x.read_bytes() == before


def test_out_folder_holding_or_inside_the_inputs_is_refused(tmp_path):
    d = tmp_path / "cov"
    d.mkdir()
    for s in ("s1", "s2"):
        bedgraph(d / f"{s}.bedGraph")
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    one_line_error(run(["peaks", d, "--penalty", 5, "--out", d, "--force", "-q"]),
                   "is the input")
    one_line_error(run(["peaks", d, "--penalty", 5, "--out", tmp_path, "--force", "-q"]),
                   "holds the input")
    one_line_error(run(["peaks", d, "--penalty", 5, "--out", d / "peaks", "--force", "-q"]),
                   "inside the input folder")
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before


# ---------------------------------------------------------------- outputs a browser loads


def test_bed_name_score_track_and_segment_means(tmp_path):
    cov = coverage_csv(tmp_path / "cov.csv", ["s1", "s2"])
    out = tmp_path / "peaks"
    r = run(["peaks", cov, "--penalty", 5, "--out", out, "--track", "run1", "--means", "bedGraph",
             "-q"])
    assert r.returncode == 0, r.stderr
    assert files(out) == ["s1.bed", "s1.bedGraph", "s2.bed", "s2.bedGraph"]
    model = pl.peakseg(pd.read_csv(cov).query("sample_id == 's1'"), 5.0)
    text = (out / "s1.bed").read_text().splitlines()
    assert text[0] == 'track name="run1 s1"'
    bed = pl.read_bed(out / "s1.bed")
    peaks = model.segments[model.segments["status"] == "peak"]
    assert bed[["chromStart", "chromEnd"]].values.tolist() == \
        peaks[["chromStart", "chromEnd"]].values.tolist()
    assert bed["name"].tolist() == ["s1"] * len(peaks)
    # UCSC's integer 0-1000 score (the strongest peak 1000), the mean in column 7
    assert bed["score"].tolist() == pl.ucsc_scores(peaks["mean"]).tolist()
    cols = [ln.split("\t") for ln in text[1:]]
    assert [c[5] for c in cols] == ["."] * len(peaks)
    assert [float(c[6]) for c in cols] == pytest.approx(peaks["mean"].tolist(), rel=1e-6)
    lines = (out / "s1.bedGraph").read_text().splitlines()
    assert lines[0].startswith("track type=bedGraph")
    rows = [ln.split("\t") for ln in lines[1:]]
    assert [[r[0], int(r[1]), int(r[2]), float(r[3])] for r in rows] == \
        model.segments[["chrom", "chromStart", "chromEnd", "mean"]].values.tolist()
    r = run(["peaks", cov, "--penalty", 5, "--out", tmp_path / "p3", "--bed3", "-q"])
    assert r.returncode == 0 and pl.read_bed(tmp_path / "p3" / "s1.bed").shape[1] == 3


def test_bigwig_of_segment_means(tmp_path):
    pybigwig = pytest.importorskip("pyBigWig")
    x = bedgraph(tmp_path / "x.bedGraph")
    r = run(["peaks", x, "--penalty", 5, "--out", tmp_path / "o" / "peaks.bed", "--means", "bigWig",
             "-q"])
    assert r.returncode == 0, r.stderr
    model = pl.peakseg(pl.read_bedgraph(x).drop(columns="sample_id", errors="ignore"), 5.0)
    bw = pybigwig.open(str(tmp_path / "o" / "peaks.bw"))
    try:
        assert [list(iv) for iv in bw.intervals("chr1")] == \
            model.segments[["chromStart", "chromEnd", "mean"]].values.tolist()
    finally:
        bw.close()


# ---------------------------------------------------------------- labels dropped in silence


def test_learn_on_a_folder_refuses_labels_without_coverage(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    coverage_csv(d / "coverage.csv", ["a", "b", "c"])
    (d / "labels.csv").write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                                  "a,chr1,15,25,peakStart\nb,chr1,15,25,peakStart\n"
                                  "c,chr2,15,25,peakStart\n")
    r = run(["learn", d, "--out", tmp_path / "m.json", "--init", "zero", "--max-steps", 2,
             "-q"])
    one_line_error(r, "1 of 3 labels", "chromosome without coverage")
    assert not (tmp_path / "m.json").exists()


def test_learn_on_a_coverage_folder_without_labels_names_the_labels(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    for s in ("s1", "s2"):
        bedgraph(d / f"{s}.bedGraph")
    one_line_error(run(["learn", d, "--out", tmp_path / "m.json", "-q"]),
                   "has coverage but no peak labels", "labels.csv")


# ---------------------------------------------------------------- interrupts


def _solve_time(argv) -> float:
    """Seconds from the 'peak models' message to the end of the command (the solve)."""
    p = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=ENV)
    for line in p.stderr:
        if "peak models" in line:
            t = time.perf_counter()
            break
    p.stderr.read()
    assert p.wait(timeout=300) == 0
    return time.perf_counter() - t


@pytest.mark.parametrize("sig,code,word", [
    (signal.SIGINT, 130, "interrupted"),
    pytest.param(signal.SIGTERM, 143, "terminated", marks=pytest.mark.slow)])
def test_interrupt_during_the_solve_is_one_line_and_leaves_nothing(tmp_path, sig, code, word):
    """Before: a 45-line SystemError traceback, or a segmentation fault (exit -11)."""
    rng = np.random.default_rng(1)
    x = bedgraph(tmp_path / "big.bedGraph", rng.poisson(3, 150000))
    argv = [*penlearn_command(), "peaks", str(x), "--penalty", "1000", "--out"]
    solve = _solve_time([*argv, str(tmp_path / "out1" / "peaks.bed")])
    p = subprocess.Popen([*argv, str(tmp_path / "out2" / "peaks.bed")],
                         stderr=subprocess.PIPE, text=True, env=ENV, preexec_fn=default_sigint)
    for line in p.stderr:
        if "peak models" in line:  # reading done (handlers installed): the solve is left
            break
    # into the kernel, but never past its end: a sleep of solve / 2 (the first run's time)
    # outlasted a faster second run under load, and the signal then hit the exiting
    # process (killed by it, not exit 143)
    time.sleep(min(0.2, solve / 10))
    p.send_signal(sig)
    err = p.stderr.read()
    assert p.wait(timeout=300) == code, err
    assert [ln for ln in err.splitlines() if ln.strip()] == [f"penlearn peaks: {word}"]
    # nothing but the resume folder (no window was finished: its manifest only)
    assert not (tmp_path / "out2").exists() or files(tmp_path / "out2") == [
        "peaks.bed.penlearn-parts/manifest.json"]


def test_tmpdir_option(tmp_path):
    bg = bedgraph(tmp_path / "cov.bedGraph")
    r = run(["peaks", bg, "--penalty", 5, "--out", tmp_path / "a.bed", "--tmpdir",
             tmp_path / "missing", "-q"])
    one_line_error(r, "--tmpdir", "does not exist")
    assert not (tmp_path / "a.bed").exists()
    (tmp_path / "t").mkdir()
    r = run(["peaks", bg, "--penalty", 5, "--out", tmp_path / "a.bed", "--tmpdir",
             tmp_path / "t", "-q"])
    assert r.returncode == 0, r.stderr
    assert pl.read_bed(tmp_path / "a.bed")[["chromStart", "chromEnd"]].values.tolist() == \
        [[20, 40]]
