"""``penlearn callpeak``: MACS3's command shape (nf-core/chipseq's call), its refusals,
its output files, on small simulated BAM files."""

from __future__ import annotations

import shlex

import pandas as pd
import pytest

from penlearn.cli.main import build_parser, main
from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam

pytest.importorskip("pysam", reason="pysam (optional extra penlearn[bam]) is not installed")

#: nf-core/chipseq's MACS3 call (modules/nf-core/macs3/callpeak: its args from the
#: pipeline's modules.config, then --gsize, --format, --name, --treatment, --control)
NF_CORE = ("callpeak --keep-dup all --bdg --SPMR --gsize 2000000 --format {fmt} --name "
           "WT_REP1 --treatment {t} --control {c}")


@pytest.fixture(scope="module")
def bams(tmp_path_factory):
    d = tmp_path_factory.mktemp("bams")
    design = plant_regions({"chr1": 1_200_000, "chr2": 400_000}, 12, 8, seed=3)
    files = {}
    for paired in (False, True):
        sfx = "pe" if paired else "se"
        files[f"t_{sfx}"] = d / f"t_{sfx}.bam"
        files[f"c_{sfx}"] = d / f"c_{sfx}.bam"
        write_reads_bam(files[f"t_{sfx}"], design, background=15000, per_peak=150,
                        sticky_fold=5, paired=paired, seed=1)
        write_reads_bam(files[f"c_{sfx}"], design, background=15000, sticky_fold=5,
                        paired=paired, seed=2)
    return files, design


def _run(argv: str, cwd) -> int:
    return main(shlex.split(argv) + ["--quiet"])


@pytest.mark.parametrize("fmt", ["BAM", "BAMPE"])
def test_nf_core_call_writes_the_files_it_hands_on(bams, tmp_path, monkeypatch, fmt):
    files, design = bams
    sfx = "pe" if fmt == "BAMPE" else "se"
    monkeypatch.chdir(tmp_path)  # MACS3's default --outdir: the current folder
    assert _run(NF_CORE.format(fmt=fmt, t=files[f"t_{sfx}"], c=files[f"c_{sfx}"]),
                tmp_path) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["WT_REP1_control_lambda.bdg", "WT_REP1_peaks.narrowPeak",
                     "WT_REP1_peaks.xls", "WT_REP1_summits.bed", "WT_REP1_treat_pileup.bdg"]
    peaks = pd.read_csv(tmp_path / "WT_REP1_peaks.narrowPeak", sep="\t", header=None)
    assert peaks.shape[1] == 10
    assert (peaks[9] >= 0).all() and (peaks[9] < peaks[2] - peaks[1]).all()
    found = sum(((peaks[0] == c) & (peaks[1] <= x) & (peaks[2] > x)).any()
                for c, x in design.peaks[["chrom", "centre"]].itertuples(index=False))
    assert found == len(design.peaks)
    sticky = sum(((peaks[0] == c) & (peaks[1] < e) & (peaks[2] > s)).any()
                 for c, s, e in design.sticky[["chrom", "chromStart", "chromEnd"]].itertuples(
                     index=False))
    assert sticky == 0
    summits = pd.read_csv(tmp_path / "WT_REP1_summits.bed", sep="\t", header=None)
    assert (summits[1] == peaks[1] + peaks[9]).all()
    xls = pd.read_csv(tmp_path / "WT_REP1_peaks.xls", sep="\t", comment="#")
    assert list(xls.columns[:5]) == ["chr", "start", "end", "length", "abs_summit"]
    assert (xls["start"] == peaks[1] + 1).all()


def test_broad_writes_broadpeak_with_nine_columns(bams, tmp_path):
    files, _ = bams
    assert _run(f"callpeak -t {files['t_se']} -c {files['c_se']} -f BAM -n B --outdir "
                f"{tmp_path} --broad --broad-cutoff 0.1 --extsize 200", tmp_path) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "B_peaks.broadPeak", "B_peaks.xls", "B_summits.bed"]
    assert pd.read_csv(tmp_path / "B_peaks.broadPeak", sep="\t", header=None).shape[1] == 9


@pytest.mark.parametrize("given", ["--penalty 2000", "--log-penalty 7.6"])
def test_broad_with_a_given_penalty_calls_at_that_penalty(bams, tmp_path, given):
    """MACS3's --broad (the broadPeak file) with --penalty / --log-penalty (refused
    before): the peaks of that penalty, the narrowPeak calls without the summit column."""
    files, _ = bams
    common = f"callpeak -t {files['t_se']} -f BAM --extsize 200 {given} --outdir {tmp_path}"
    assert _run(f"{common} -n B --broad", tmp_path) == 0
    assert _run(f"{common} -n N", tmp_path) == 0
    broad = pd.read_csv(tmp_path / "B_peaks.broadPeak", sep="\t", header=None)
    narrow = pd.read_csv(tmp_path / "N_peaks.narrowPeak", sep="\t", header=None)
    assert len(broad) > 0 and broad.shape[1] == 9
    assert broad.drop(columns=3).equals(narrow.iloc[:, :9].drop(columns=3))  # names: B/N


def test_failed_call_makes_no_outdir_and_a_good_one_makes_it(bams, tmp_path):
    """--outdir is made when the files are written: a failed call (here unreadable reads)
    leaves no new empty folder behind (it was made before any input was read)."""
    files, _ = bams
    bad = tmp_path / "bad.bed"
    bad.write_text("chr1\t5\n")
    outdir = tmp_path / "new" / "sub"
    assert _run(f"callpeak -t {bad} -f BED -n X --outdir {outdir}", tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.bed"]
    assert _run(f"callpeak -t {files['t_se']} -f BAM --extsize 200 --penalty 2000 -n X "
                f"--outdir {outdir}", tmp_path) == 0
    assert sorted(p.name for p in outdir.iterdir()) == [
        "X_peaks.narrowPeak", "X_peaks.xls", "X_summits.bed"]


@pytest.mark.parametrize("option, says", [
    ("--nolambda", "--nolambda is MACS3's"),
    ("--min-length 200", "--min-length is MACS3's"),
    ("--max-gap 30", "--max-gap is MACS3's"),
])
def test_cutoffs_are_refused_with_one_line_saying_what_instead(bams, tmp_path, capsys,
                                                                option, says):
    files, _ = bams
    code = _run(f"callpeak -t {files['t_se']} -f BAM -n X --outdir {tmp_path} {option}",
                tmp_path)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("penlearn callpeak: error: ")
    assert says in err[0]
    assert list(tmp_path.iterdir()) == []


def test_ignored_options_warn_and_parse():
    args = build_parser().parse_args(shlex.split(
        "callpeak -t a.bam -c b.bam -f BAMPE -g hs -n N --outdir o --keep-dup all -B --SPMR "
        "--call-summits --broad --broad-cutoff 0.1 --bw 300 --buffer-size 100000 "
        "--verbose 2 --seed 1"))
    assert args.treatment == ["a.bam"] and args.control == ["b.bam"]
    assert args.gsize == 2.9e9 and args.keep_dup == "all" and args.bdg and args.SPMR
    assert args.macs_call_summits and args.macs_broad_cutoff == "0.1"


def test_single_end_options_refused_on_paired_fragments(bams, tmp_path, capsys):
    files, _ = bams
    assert _run(f"callpeak -t {files['t_pe']} -f BAMPE --extsize 150 -n X --outdir "
                f"{tmp_path}", tmp_path) == 1
    assert "-f BAMPE: the fragments are read as they are" in capsys.readouterr().err


def test_without_a_control_sticky_regions_are_called(bams, tmp_path):
    files, design = bams
    # the model's own peaks (--no-filter): the narrow rule's q-value, against the
    # treatment's own 5-10 kb level, drops most sticky regions without a control (issue 52)
    assert _run(f"callpeak -t {files['t_se']} -f BAM -n N --outdir {tmp_path} "
                "--extsize 200 --no-filter", tmp_path) == 0
    peaks = pd.read_csv(tmp_path / "N_peaks.narrowPeak", sep="\t", header=None)
    sticky = sum(((peaks[0] == c) & (peaks[1] < e) & (peaks[2] > s)).any()
                 for c, s, e in design.sticky[["chrom", "chromStart", "chromEnd"]].itertuples(
                     index=False))
    assert sticky > len(design.sticky) // 2  # what the control is there for


def test_q_and_p_cutoffs_filter_the_peaks(bams, tmp_path):
    """Issue 52: -q/-p keep the model's peaks of q-value <= Q (p-value <= P), their
    values unchanged, instead of being refused."""
    files, _ = bams
    base = (f"callpeak -t {files['t_pe']} -c {files['c_pe']} -f BAMPE --penalty 300 -n X "
            f"--outdir {tmp_path}")
    assert _run(base, tmp_path) == 0
    every = pd.read_csv(tmp_path / "X_peaks.narrowPeak", sep="\t", header=None)
    for option, col, cut in (("-q 1e-3", 8, 3.0), ("--qvalue 1e-3", 8, 3.0),
                             ("-p 1e-6", 7, 6.0), ("-q 0.5 -p 1e-6", 7, 6.0)):
        out = tmp_path / option.replace(" ", "")
        assert _run(f"{base.replace(str(tmp_path), str(out))} {option}", tmp_path) == 0
        kept = pd.read_csv(out / "X_peaks.narrowPeak", sep="\t", header=None)
        want = every[every[col] >= cut - 1e-9]
        assert 0 < len(kept) < len(every)
        assert kept[[0, 1, 2, 6, 7, 8, 9]].values.tolist() == \
            want[[0, 1, 2, 6, 7, 8, 9]].values.tolist()
        assert kept[3].tolist() == [f"X_peak_{k}" for k in range(1, len(kept) + 1)]


@pytest.mark.parametrize("option", ["-q 0", "-q 2", "-p x"])
def test_bad_cutoffs_are_argument_errors(bams, tmp_path, option):
    files, _ = bams
    with pytest.raises(SystemExit) as exc:
        main(shlex.split(f"callpeak -t {files['t_pe']} -f BAMPE --outdir {tmp_path} "
                         f"{option}"))
    assert exc.value.code == 2
