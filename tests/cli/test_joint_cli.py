"""``penlearn joint``: outputs agree with the joint model of each window (solved again here),
bad inputs give one-line errors, and chunk1 runs end to end (slow)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

from penlearn.cli.main import main
from penlearn.peaks.formats.bed import read_bed
from penlearn.peaks.joint.solver import joint_peak
from penlearn.peaks.joint.windows import window_coverage

SAMPLES = {"a": "g1", "b": "g1", "c": "g2"}


def make_inputs(tmp: Path, seed: int = 0) -> dict:
    """Three samples on 600 bases: a peak at [200, 300) in a and b, one at [450, 500) in
    c; single-sample peaks near them; labels."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in SAMPLES:
        mean = np.full(600, 2.0)
        if s in ("a", "b"):
            mean[200:300] = 20.0
        if s == "c":
            mean[450:500] = 25.0
        counts = rng.poisson(mean)
        for i in range(0, 600, 5):  # runs of 5 bases
            rows.append((s, SAMPLES[s], "chr1", i, i + 5, int(counts[i])))
    cov = pd.DataFrame(rows, columns=["sample_id", "group", "chrom", "chromStart",
                                      "chromEnd", "count"])
    (tmp / "in").mkdir()
    cov_path = tmp / "in" / "coverage.csv"
    cov.to_csv(cov_path, index=False)
    peaks = tmp / "peaks"
    peaks.mkdir()
    (peaks / "a.bed").write_text("chr1\t195\t305\n")
    (peaks / "b.bed").write_text("chr1\t205\t290\n")
    (peaks / "c.bed").write_text("chr1\t440\t505\n")
    labels = tmp / "in" / "labels.csv"
    labels.write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                      "a,chr1,150,250,peakStart\nb,chr1,150,250,peakStart\n"
                      "c,chr1,150,250,noPeaks\nc,chr1,400,470,peakStart\n")
    return {"coverage": cov_path, "peaks": peaks, "labels": labels, "cov": cov}


def one_line_error(capsys, argv, *needles):
    code = main([str(a) for a in argv] + ["-q"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()
           and "warning" not in ln]
    assert code == 1 and len(err) == 1 and "error" in err[0], err
    for n in needles:
        assert n in err[0], err[0]
    return err[0]


def check_matrix_against_models(out: Path, cov: pd.DataFrame, groups=None):
    """Every window's row of the outputs is the joint model at its log λ, solved again."""
    windows = pd.read_csv(out / "windows.tsv", sep="\t")
    matrix = pd.read_csv(out / "peaks_matrix_sample.tsv", sep="\t")
    summary = pd.read_csv(out / "peaks_summary.tsv", sep="\t")
    bed = read_bed(out / "joint_peaks.bed")
    samples = [str(s) for s in pd.unique(cov["sample_id"])]
    assert list(matrix.columns) == ["chrom", "chromStart", "chromEnd", *samples]
    n_up = 0
    for (wid, win), w in zip(window_coverage(cov, windows, groups=groups),
                             windows.itertuples(index=False), strict=True):
        assert wid == w.window_id
        fit = joint_peak(win)
        lam = math.exp(w.log_lambda)
        k = int(np.argmin(fit.loss.to_numpy() + lam * fit.loss.index.to_numpy()))
        assert k == w.k
        if k == 0:
            continue
        n_up += 1
        a, b = (int(x) for x in fit.peak.loc[k, ["chromStart", "chromEnd"]])
        row = matrix[(matrix["chromStart"] == a) & (matrix["chromEnd"] == b)]
        assert len(row) == 1
        up = fit.up.loc[k]
        assert row[samples].iloc[0].astype(bool).tolist() == up[samples].tolist()
        s = summary[summary["chromStart"] == a].iloc[0]
        assert s["samples_up"] == k and s["chromEnd"] == b
        assert s["loss_decrease"] == pytest.approx(fit.loss[0] - fit.loss[k], rel=1e-5)
    assert len(matrix) == len(summary) == len(bed) == n_up
    # UCSC's integer 0-1000 score (issue 48 (9): it was the float count of samples up);
    # an empty BED file has no columns to read
    assert n_up == 0 or bed["score"].tolist() == np.rint(
        1000 * summary["samples_up"].to_numpy() / len(samples)).tolist()


def test_joint_outputs_agree_with_the_models_of_each_window(tmp_path, capsys):
    inp = make_inputs(tmp_path)
    out = tmp_path / "out"
    code = main(["joint", str(inp["coverage"]), "--peaks", str(inp["peaks"]), "--penalty",
                 "20", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert "2 joint peaks" in capsys.readouterr().out
    check_matrix_against_models(out, inp["cov"])
    matrix = pd.read_csv(out / "peaks_matrix_sample.tsv", sep="\t")
    assert matrix[["a", "b", "c"]].values.tolist() == [[1, 1, 0], [0, 0, 1]]
    group = pd.read_csv(out / "peaks_matrix_group.tsv", sep="\t")
    assert group[["g1", "g2"]].values.tolist() == [[1, 0], [0, 1]]  # the 'group' column
    html = (out / "index.html").read_text()
    assert 'id="peaks-matrix"' in html and "data:image/png;base64," in html


def test_joint_learns_a_constant_penalty_from_few_labeled_windows(tmp_path, capsys):
    inp = make_inputs(tmp_path)
    out = tmp_path / "out"
    code = main(["joint", str(inp["coverage"]), "--peaks", str(inp["peaks"]), "--labels",
                 str(inp["labels"]), "--out", str(out), "-q"])
    text = capsys.readouterr().out
    assert code == 0
    assert "label errors: single-sample" in text
    windows = pd.read_csv(out / "windows.tsv", sep="\t")
    assert windows["log_lambda"].nunique() == 1  # a constant: 2 labeled windows
    ev = pd.read_csv(out / "evaluation.tsv", sep="\t")
    # the constant is inside an interval of fewest total errors
    v = windows["log_lambda"].iloc[0]
    at = ev[(ev["min_log_lambda"] < v) & (v <= ev["max_log_lambda"])]
    grid = np.unique(np.r_[ev["min_log_lambda"], ev["max_log_lambda"]])
    grid = grid[np.isfinite(grid)]
    pts = np.r_[grid - 1e-6, grid + 1e-6]
    best = min(ev[(ev["min_log_lambda"] < p) & (p <= ev["max_log_lambda"])]["errors"].sum()
               for p in pts)
    assert at["errors"].sum() == best
    comparison = pd.read_csv(out / "label_errors.tsv", sep="\t")
    assert len(comparison) == 4 and (comparison["joint"] == "correct").all()
    check_matrix_against_models(out, inp["cov"])


def test_joint_bad_inputs_one_line_errors(tmp_path, capsys):
    inp = make_inputs(tmp_path)
    cov, pk, out = str(inp["coverage"]), str(inp["peaks"]), str(tmp_path / "out")
    base = ["joint", cov, "--peaks", pk, "--out", out]
    # (without any of --penalty, --model, --labels: the shipped model's penalty,
    # test_joint_default_penalty.py); both --penalty and --model: refused
    one_line_error(capsys, base + ["--penalty", "1", "--model", tmp_path / "m.json"],
                   "--penalty", "--model")
    # overlapping labels
    bad = tmp_path / "overlap.csv"
    bad.write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                   "a,chr1,10,50,noPeaks\na,chr1,40,60,peaks\n")
    one_line_error(capsys, base + ["--labels", bad], "overlapping labels")
    # a label of an unknown sample
    bad.write_text("sample_id,chrom,chromStart,chromEnd,annotation\nzz,chr1,10,50,noPeaks\n")
    one_line_error(capsys, base + ["--labels", bad], "sample without coverage")
    # a label naming an unknown group (text format)
    txt = tmp_path / "labels.txt"
    txt.write_text("chr1:11-50 peakStart g1 nosuchgroup\n")
    one_line_error(capsys, base + ["--labels", txt], "'nosuchgroup' is no sample id or group")
    # no peaks at all: no clusters
    empty = tmp_path / "empty"
    empty.mkdir()
    for s in SAMPLES:
        (empty / f"{s}.bed").write_text("")
    one_line_error(capsys, ["joint", cov, "--peaks", empty, "--penalty", "1", "--out", out],
                   "no single-sample peaks")
    # a sample missing from the peaks folder
    part = tmp_path / "part"
    part.mkdir()
    (part / "a.bed").write_text("chr1\t195\t305\n")
    one_line_error(capsys, ["joint", cov, "--peaks", part, "--penalty", "1", "--out", out],
                   "no BED file of sample 'b'")
    # peaks beyond every sample's coverage (peaks of other coverage)
    far = tmp_path / "far"
    far.mkdir()
    for s in SAMPLES:
        (far / f"{s}.bed").write_text("chr1\t195\t305\n" + ("chr1\t900\t950\n" if s == "c"
                                                              else ""))
    one_line_error(capsys, ["joint", cov, "--peaks", far, "--penalty", "1", "--out", out],
                   "chr1:900-950", "beyond the coverage of every sample")
    # output inside an input folder
    one_line_error(capsys, ["joint", cov, "--peaks", pk, "--penalty", "1", "--out",
                            Path(pk) / "out"], "inside the input folder")
    assert not Path(out).exists()


def test_labels_in_the_browser_text_format_expand_over_groups(tmp_path, capsys):
    inp = make_inputs(tmp_path)
    txt = tmp_path / "labels.txt"
    # PeakSegPipeline's format: group g2 is not listed in the first chunk: noPeaks there
    txt.write_text("chr1:151-250 peakStart g1\n\nchr1:401-470 peakStart g2\n")
    out = tmp_path / "out"
    assert main(["joint", str(inp["coverage"]), "--peaks", str(inp["peaks"]), "--labels",
                 str(txt), "--penalty", "20", "--out", str(out), "-q"]) == 0
    comp = pd.read_csv(out / "label_errors.tsv", sep="\t")
    got = {(r.sample_id, r.chromStart): r.annotation for r in comp.itertuples()}
    assert got == {("a", 150): "peakStart", ("b", 150): "peakStart", ("c", 150): "noPeaks",
                   ("a", 400): "noPeaks", ("b", 400): "noPeaks", ("c", 400): "peakStart"}
    assert (comp["joint"] == "correct").all()


@pytest.mark.slow
def test_chunk1_end_to_end(tmp_path, capsys):
    folder = need(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1")
    cov_path, labels = folder / "coverage.csv.gz", folder / "labels.csv"
    peaks, out = tmp_path / "peaks", tmp_path / "joint"
    assert main(["peaks", str(cov_path), "--penalty", "10000", "--out", str(peaks), "-q"]) == 0
    assert main(["joint", str(cov_path), "--peaks", str(peaks), "--labels", str(labels),
                 "--group-column", "cell_type", "--out", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    assert "label errors: single-sample 0, joint 0 of 48" in text
    from penlearn.peaks.formats.coverage import read_coverage
    cov = read_coverage(cov_path)
    groups = dict(zip(cov["sample_id"], cov["cell_type"]))
    check_matrix_against_models(out, cov, groups=None)
    group = pd.read_csv(out / "peaks_matrix_group.tsv", sep="\t")
    assert sorted(group.columns[3:]) == sorted(set(groups.values()))


def test_joint_by_group_puts_whole_groups_up(tmp_path, capsys):
    inp = make_inputs(tmp_path)
    out = tmp_path / "out"
    assert main(["joint", str(inp["coverage"]), "--peaks", str(inp["peaks"]), "--penalty",
                 "20", "--by", "group", "--out", str(out), "-q"]) == 0
    windows = pd.read_csv(out / "windows.tsv", sep="\t")
    matrix = pd.read_csv(out / "peaks_matrix_sample.tsv", sep="\t")
    for (_, win), w in zip(window_coverage(inp["cov"], windows, groups=SAMPLES),
                           windows.itertuples(index=False), strict=True):
        fit = joint_peak(win)
        k = int(np.argmin(fit.group_loss.to_numpy()
                          + math.exp(w.log_lambda) * fit.group_loss.index.to_numpy()))
        assert k == w.k
        if k:
            a = int(fit.group_peak.loc[k, "chromStart"])
            row = matrix[matrix["chromStart"] == a].iloc[0]
            up = fit.group_up.loc[k]
            assert [bool(row[s]) for s in SAMPLES] == [bool(up[g]) for g in SAMPLES.values()]
    assert len(matrix) >= 1
    one_line_error(capsys, ["joint", str(tmp_path / "in" / "coverage.csv"), "--peaks",
                            str(inp["peaks"]), "--penalty", "1", "--by", "group",
                            "--groups", str(tmp_path / "nope.csv"), "--out",
                            str(tmp_path / "o2")], "nope.csv")


def test_joint_sample_beds_match_the_matrix_and_feed_hub_and_errors(tmp_path, capsys):
    """OUT/samples/<sample>.bed holds each sample's joint peaks (where the matrix says 1);
    'penlearn errors' scores that folder and 'penlearn hub' makes a track hub of it."""
    pytest.importorskip("pybigtools", reason="pybigtools (penlearn[hub]) is not installed")
    inp = make_inputs(tmp_path)
    out = tmp_path / "out"
    assert main(["joint", str(inp["coverage"]), "--peaks", str(inp["peaks"]), "--penalty",
                 "20", "--out", str(out), "-q"]) == 0, capsys.readouterr().err
    matrix = pd.read_csv(out / "peaks_matrix_sample.tsv", sep="\t")
    for s in SAMPLES:
        text = (out / "samples" / f"{s}.bed").read_text()
        got = [tuple(ln.split("\t")[:3]) for ln in text.splitlines() if ln.strip()]
        want = [(r.chrom, str(r.chromStart), str(r.chromEnd))
                for r in matrix[matrix[s] == 1].itertuples(index=False)]
        assert got == want, s
    assert main(["errors", str(out / "samples"), str(inp["labels"])]) == 0
    table = capsys.readouterr().out
    assert "(all samples)" in table
    hub = tmp_path / "hub"
    assert main(["hub", str(inp["coverage"]), str(out / "samples"), "--genome", "hg19",
                 "--out", str(hub), "-q"]) == 0, capsys.readouterr().err
    track_db = (hub / "hg19" / "trackDb.txt").read_text()
    for s in ("a", "b", "c"):  # every sample is up in one joint peak at λ = 20
        assert s in track_db
