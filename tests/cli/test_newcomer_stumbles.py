"""A newcomer's stumbles (issue 54 item 4), each fixed at its root: one option-suggestion
rule and one case rule for every command, one "no reads" hint table, summits beside
``peaks --format narrowPeak`` as beside callpeak's, a printable ``peak_label_errors``."""

from __future__ import annotations

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
