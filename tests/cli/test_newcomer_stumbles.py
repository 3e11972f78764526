"""A newcomer's stumbles (issue 54 item 4), each fixed at its root: one option-suggestion
rule and one case rule for every command, one "no reads" hint table, summits beside
``peaks --format narrowPeak`` as beside callpeak's, a printable ``peak_label_errors``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import one_line_exit

import penlearn as pl
from penlearn.cli.main import build_parser, main
from penlearn.peaks.formats.reads import NO_READS_HINTS, READ_FORMATS


def _usage_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(argv)
    assert e.value.code == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "error" in ln]
    assert len(lines) == 1
    return lines[0]


@pytest.mark.parametrize("argv, hint", [
    (["peaks", "x.bedGraph", "--out", "p", "--brod"], "did you mean --broad?"),
    (["callpeak", "-t", "a.bam", "--brod"], "did you mean --broad?"),
    (["learn", "d", "--out", "m", "--modle", "linear"], "did you mean --model?"),
    (["label", "c", "--labels", "l.csv", "--no-browsr"], "did you mean --no-browser?"),
    (["propose", "c", "--out", "w.bed", "--lables", "l.csv"], "did you mean --labels?"),
    (["peak", "x"], "did you mean 'peaks'?"),
    (["peaks", "x", "--out", "p", "--format", "narowPeak"], "did you mean 'narrowPeak'?"),
])
def test_every_command_suggests_the_option_meant(capsys, argv, hint):
    line = _usage_error(capsys, argv)
    assert hint in line, line
    assert line.startswith("penlearn")


def test_no_suggestion_for_a_word_near_nothing(capsys):
    line = _usage_error(capsys, ["peaks", "x", "--out", "p", "--zzzzzz"])
    assert "unrecognized arguments: --zzzzzz" in line and "did you mean" not in line


@pytest.mark.parametrize("argv, dest, want", [
    (["peaks", "x", "--out", "p", "--format", "narrowpeak"], "format", "narrowPeak"),
    (["peaks", "x", "--out", "p", "--format", "BROADPEAK"], "format", "broadPeak"),
    (["peaks", "x", "--out", "p", "--means", "bigwig"], "means", "bigWig"),
    (["callpeak", "-t", "a.bam", "-f", "bampe"], "format", "BAMPE"),
    (["learn", "d", "--out", "m", "--model", "Linear"], "model", "linear"),
])
def test_one_case_rule_for_every_choice(argv, dest, want):
    assert getattr(build_parser().parse_args(argv), dest) == want


def test_every_read_format_has_a_no_reads_hint():
    assert set(NO_READS_HINTS) == set(READ_FORMATS)


def test_a_single_end_bam_read_as_bampe_is_told_to_use_bam(tmp_path, capsys):
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    bam = tmp_path / "se.bam"
    write_reads_bam(bam, plant_regions({"chr1": 100_000}, 2, 1, seed=3), background=500,
                    per_peak=50, paired=False, seed=1)
    code = main(["callpeak", "-t", str(bam), "-f", "BAMPE", "--outdir", str(tmp_path / "o"),
                 "--quiet"])
    one_line_exit(capsys, code, "no reads counted as BAMPE", "single-end read(s)",
                  "give -f BAM")


def test_peaks_narrowpeak_writes_summits_like_callpeak(tmp_path):
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 1000, 10),
                        "chromEnd": range(10, 1010, 10),
                        "count": [2] * 40 + [30, 40, 55, 40, 30] + [2] * 55})
    path = tmp_path / "s1.bedGraph"
    cov.to_csv(path, sep="\t", header=False, index=False)
    out = tmp_path / "s1.narrowPeak"
    assert main(["peaks", str(path), "--out", str(out), "--format", "narrowpeak",
                 "--log-penalty", "4", "-q"]) == 0
    peaks = pd.read_csv(out, sep="\t", header=None)
    summits = pd.read_csv(tmp_path / "s1_summits.bed", sep="\t", header=None)
    assert len(peaks) == len(summits) >= 1
    assert (summits[1] == peaks[1] + peaks[9]).all() and (summits[3] == peaks[3]).all()
    # a folder: one <sample>_summits.bed beside each <sample>.narrowPeak
    folder = tmp_path / "folder"
    assert main(["peaks", str(path), "--out", f"{folder}/", "--format", "narrowPeak",
                 "--log-penalty", "4", "-q"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["s1.narrowPeak", "s1_summits.bed"]


def test_printing_peak_label_errors_shows_the_counts():
    labels = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
                           "chromStart": [10, 40, 10], "chromEnd": [20, 50, 20],
                           "annotation": ["peaks", "noPeaks", "peakStart"]})
    peaks = pd.DataFrame({"sample_id": ["a", "a"], "chrom": "chr1", "chromStart": [15, 45],
                          "chromEnd": [30, 46]})
    res = pl.peak_label_errors(peaks, labels)
    text = str(res)
    assert text == repr(res)
    assert text.splitlines()[0] == ("PeakLabelErrors: 2 of 3 label(s) wrong (1 false "
                                    "positive, 1 false negative; 66.7 %)")
    assert "sample_id" in text.splitlines()[1] and res.errors == 2


def test_the_page_writes_labels_penlearn_learn_reads(tmp_path):
    """A label made for every sample in view reached past a sample's first read
    (chunk1: McGill0007 starts 54 bases into the window), and ``penlearn learn`` refused
    the page's labels file ("labels have no coverage to be evaluated on"). Each sample's
    label is clipped to the bases its coverage spans; a sample with none gets no label."""
    from penlearn.label.state import LabelState
    from penlearn.peaks.peakseg.labels import check_labels_in_coverage

    def rows(sid, lo, hi):
        starts = np.arange(lo, hi, 20)
        return pd.DataFrame({"sample_id": sid, "chrom": "chr1", "chromStart": starts,
                             "chromEnd": starts + 20, "count": 2 + 20 * (starts % 2000 > 1000)})

    cov = pd.concat([rows("a", 0, 4000), rows("b", 500, 3500)], ignore_index=True)
    with pytest.warns(UserWarning, match="shorter than the shortest window"):
        state = LabelState(cov, tmp_path / "labels.csv", window_bases=4000, max_peaks=5)
    try:
        assert state.add_label("chr1", 100, 900, "noPeaks", "a b".split()) == 2
        assert state.add_label("chr1", 100, 400, "noPeaks", ["a", "b"]) == 1  # b: no base
        with pytest.raises(ValueError, match="no covered base of sample"):
            state.add_label("chr1", 3600, 3700, "noPeaks", ["b"])
        written = pd.read_csv(tmp_path / "labels.csv")
        assert written[["sample_id", "chromStart", "chromEnd"]].values.tolist() == [
            ["a", 100, 400], ["b", 500, 900]]
        check_labels_in_coverage(cov, written)  # what penlearn learn checks: no error
    finally:
        state.close()


def test_progress_says_whose_windows_it_is_on(tmp_path, capsys):
    """``peaks --control`` and ``callpeak -c`` printed "coverage features of every window
    like the model's training windows" twice, the controls' and the treatments' alike."""
    starts = np.arange(0, 20_000, 50)
    for name, bump in (("chip", 40), ("input", 0)):
        pd.DataFrame({"chrom": "chr1", "chromStart": starts, "chromEnd": starts + 50,
                      "count": 3 + bump * ((starts % 5000) < 300)}).to_csv(
            tmp_path / f"{name}.bedGraph", sep="\t", header=False, index=False)
    assert main(["peaks", str(tmp_path / "chip.bedGraph"), "--control",
                 str(tmp_path / "input.bedGraph"), "--out", str(tmp_path / "p.bed")]) == 0
    out = capsys.readouterr()
    lines = [ln for ln in (out.out + out.err).splitlines() if "] coverage features" in ln]
    assert len(lines) == 2, lines
    assert "of the controls" in lines[0] and "of the treatments" in lines[1], lines


def test_callpeak_names_its_peaks_as_macs3_does(tmp_path):
    """MACS3 3.1.0 names its peaks ``NAME_peak_1`` in the narrowPeak, summits and xls
    files; ``penlearn callpeak`` wrote ``NAME_peak1`` (scripts matching ``_peak_`` broke)."""
    pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam])")
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

    bam = tmp_path / "t.bam"
    write_reads_bam(bam, plant_regions({"chr1": 100_000}, 3, 1, seed=3), background=500,
                    per_peak=300, paired=False, seed=1)
    out = tmp_path / "o"
    assert main(["callpeak", "-t", str(bam), "-f", "BAM", "-n", "WT", "--outdir", str(out),
                 "--log-penalty", "6", "--nomodel", "--quiet"]) == 0
    peaks = pd.read_csv(out / "WT_peaks.narrowPeak", sep="\t", header=None)
    want = [f"WT_peak_{k}" for k in range(1, len(peaks) + 1)]
    assert len(want) >= 1 and peaks[3].tolist() == want
    assert pd.read_csv(out / "WT_summits.bed", sep="\t", header=None)[3].tolist() == want
    assert pd.read_csv(out / "WT_peaks.xls", sep="\t", comment="#")["name"].tolist() == want


def test_errors_warns_when_peaks_and_labels_share_no_chromosome(tmp_path, capsys):
    """MACS3 peaks named ``1, 2`` scored on labels of ``chr1``: every label was a missed
    peak, without a word."""
    (tmp_path / "p.bed").write_text("1\t100\t200\n1\t500\t600\n")
    (tmp_path / "l.csv").write_text("chrom,chromStart,chromEnd,annotation\n"
                                    "chr1,50,250,peaks\n")
    assert main(["errors", str(tmp_path / "p.bed"), str(tmp_path / "l.csv")]) == 0
    err = capsys.readouterr().err
    assert "share no chromosome name with the labels (peaks: 1; labels: chr1)" in err
    (tmp_path / "p.bed").write_text("chr1\t100\t200\n")  # sharing one: no warning
    assert main(["errors", str(tmp_path / "p.bed"), str(tmp_path / "l.csv")]) == 0
    assert "share no chromosome" not in capsys.readouterr().err


def test_peak_label_errors_says_how_to_score_labels_without_sample_id():
    """``predict_peaks`` gives a ``sample_id`` column; the labels of docs/chipseq.md's
    labeled folder have none: the error said "give sample_id in both tables", not how."""
    labels = pd.DataFrame({"chrom": "chr1", "chromStart": [10], "chromEnd": [20],
                           "annotation": ["peaks"]})
    peaks = pd.DataFrame({"sample_id": ["a"], "chrom": "chr1", "chromStart": [12],
                          "chromEnd": [15]})
    with pytest.raises(ValueError, match="labels.merge") as e:
        pl.peak_label_errors(peaks, labels)
    assert "peaks.drop(columns='sample_id')" in str(e.value)
    # the two ways it names give the counts
    both = labels.merge(pd.DataFrame({"sample_id": ["a"]}), how="cross")
    assert pl.peak_label_errors(peaks, both).errors == 0
    assert pl.peak_label_errors(peaks.drop(columns="sample_id"), labels).errors == 0


def test_the_page_does_not_shift_its_own_pieces_of_a_long_chromosome(tmp_path):
    """``penlearn label chip.bam`` (a 1.2 Mb chromosome, whole in the BAM header) cut it
    into 200 kb windows for display, called each one "shorter than the shortest window
    the pretrained model learned on" and lowered its log λ by 0.56 (0.58 since issue 52's
    refit), where ``penlearn peaks`` (one 1.2 Mb window) shifts nothing: more peaks on the
    page before any label.
    A piece of a long stretch of coverage is no region cut around peaks."""
    import warnings

    from penlearn.label.state import LabelState

    rng = np.random.default_rng(0)
    starts = np.arange(0, 600_000, 1000)
    cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": starts,
                        "chromEnd": starts + 1000,
                        "count": rng.poisson(np.where(starts % 50_000 < 2000, 40, 3))})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state = LabelState(cov, tmp_path / "labels.csv", window_bases=200_000, max_peaks=5)
    try:
        assert len(state.windows) == 3
        assert not [w for w in caught if "shorter than" in str(w.message)]
        unshifted = state.zero.predict(state.features, whole=np.ones(len(state.features)))
        assert np.allclose(state.zero_log_lambda.to_numpy(), unshifted.to_numpy())
    finally:
        state.close()


def test_the_documented_propose_rounds_run_as_written(tmp_path, monkeypatch):
    """docs/how-to/label-windows.md: "propose, label, propose again" with the same
    ``--out next.bed``; the second round stopped at "the file exists; give --force"."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs/how-to/label-windows.md").read_text()
    commands = [ln.split() for block in re.findall(r"```bash\n(.*?)```", text, re.S)
                for ln in block.splitlines() if ln.startswith("penlearn propose")]
    assert len(commands) == 2 and "--labels" in commands[1]
    folder = tmp_path / "coverage"
    folder.mkdir()
    starts = np.arange(0, 30_000, 100)
    for k in range(2):
        pd.DataFrame({"chrom": "chr1", "chromStart": starts, "chromEnd": starts + 100,
                      "count": 2 + 30 * ((starts % 10_000) < 400)}).to_csv(
            folder / f"s{k}.bedGraph", sep="\t", header=False, index=False)
    (tmp_path / "labels.csv").write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                                         "s0,chr1,1000,5000,noPeaks\n")
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        assert main([*argv[1:], "-q"]) == 0, argv
    assert (tmp_path / "next.bed").exists()


def test_the_label_command_counts_in_words(tmp_path):
    """"penlearn label: 1 samples, 1 windows" on one sample's chunk."""
    import os
    import signal
    import subprocess
    import sys

    starts = np.arange(0, 4000, 20)
    cov = tmp_path / "s1.bedGraph"
    pd.DataFrame({"chrom": "chr1", "chromStart": starts, "chromEnd": starts + 20,
                  "count": 2 + 20 * ((starts > 1000) & (starts < 1300))}).to_csv(
        cov, sep="\t", header=False, index=False)
    cmd = [sys.executable, "-m", "penlearn.cli", "label", str(cov), "--labels",
           str(tmp_path / "labels.csv"), "--no-browser", "--max-peaks", "5"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        lines = []
        while not lines or "token=" not in lines[-1]:
            lines.append(proc.stdout.readline())
            assert lines[-1] or proc.poll() is None, lines
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    said = [ln for ln in lines if "labels are saved to" in ln]
    assert said and said[0].startswith("penlearn label: 1 sample, 1 window; "), said
