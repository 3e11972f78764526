"""``penlearn callpeak`` one chromosome at a time: the same files as the whole-genome
tables gave (the pipeline before streaming, rebuilt here from the library's functions),
and bounded memory on a multi-chromosome BAM (tier 2)."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from penlearn.cli._callpeak_stream import _candidate_options, _window_segments, _with_floor
from penlearn.cli._common import _Reporter
from penlearn.cli.main import build_parser, main
from penlearn.cli.peaks import _log_lambda, control_segments, narrow_rule
from penlearn.datasets.chipseq_genome import genome_design, write_genome_bam
from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam
from penlearn.peaks.formats.bed import write_bedgraph
from penlearn.peaks.formats.fragment_size import estimate_fragment_size
from penlearn.peaks.formats.narrowpeak import narrowpeak_table, write_narrowpeak
from penlearn.peaks.formats.peak_columns import genome_level, significant
from penlearn.peaks.formats.read_arrays import chrom_pileup, compact_reads, read_bam_arrays
from penlearn.peaks.formats.reads import fragment_coverage, read_reads
from penlearn.peaks.peakseg.calls import peak_calls
from penlearn.peaks.peakseg.candidates import count_histogram
from penlearn.peaks.peakseg.controls import control_background, mark_control_peaks
from penlearn.peaks.peakseg.evaluation import predict_peaks

pysam = pytest.importorskip("pysam",
                            reason="pysam (optional extra penlearn[bam]) is not installed")


@pytest.fixture(scope="module")
def bams(tmp_path_factory):
    d = tmp_path_factory.mktemp("bams")
    design = plant_regions({"chr1": 900_000, "chr2": 400_000, "chr3": 300_000}, 14, 8,
                           in_sticky=2, seed=5)
    files = {}
    for paired in (False, True):
        sfx = "pe" if paired else "se"
        files[f"t_{sfx}"], files[f"c_{sfx}"] = d / f"t_{sfx}.bam", d / f"c_{sfx}.bam"
        write_reads_bam(files[f"t_{sfx}"], design, background=12000, per_peak=120,
                        sticky_fold=5, paired=paired, seed=1)
        write_reads_bam(files[f"c_{sfx}"], design, background=9000, sticky_fold=5,
                        paired=paired, seed=2)
        # indexed (callpeak reads them chromosome by chromosome); the treatment also as
        # an unindexed copy (read in one pass)
        shutil.copy(files[f"t_{sfx}"], d / f"u_{sfx}.bam")
        files[f"u_{sfx}"] = d / f"u_{sfx}.bam"
        for key in ("t", "c"):
            pysam.index(str(files[f"{key}_{sfx}"]))
    return files


def _whole_genome(argv: list[str], tmp_path):
    """The narrowPeak text and bedGraph texts of the pipeline before streaming: every
    table of the whole genome at once."""
    args = build_parser().parse_args(argv)
    given = any(x is not None for x in (args.penalty, args.log_penalty, args.model))
    pargs = argparse.Namespace(**{**vars(args), "broad": args.broad and not given})
    quiet = _Reporter(True)
    treat = read_reads(list(args.treatment), args.format, keep_dup=args.keep_dup,
                       genome_size=args.gsize)
    d = None if treat.paired else (args.extsize or estimate_fragment_size(treat))
    treat_cov = fragment_coverage(treat, d)
    cov, control_cov, sizes = treat_cov, None, treat.sizes
    if args.control:
        ctrl = read_reads(list(args.control), args.format, keep_dup=args.keep_dup,
                          genome_size=args.gsize)
        control_cov = fragment_coverage(ctrl, d)
        sizes = {**(ctrl.sizes or {}), **(treat.sizes or {})} or None
        c_segs = control_segments(pargs, control_cov.assign(sample_id="control"), quiet,
                                  chrom_sizes=sizes)
        if args.control_rule == "background":
            cov = control_background(treat_cov, control_cov, c_segs, chrom_sizes=sizes)
    log_lambda, windows = _log_lambda(pargs, treat_cov, quiet, sizes)
    # the zero-label narrow rule's cutoff unless -q / -p is given (issue 52)
    rule = narrow_rule(pargs) if args.qvalue is None and args.pvalue is None else None
    if args.solve == "whole":
        segs = predict_peaks(cov, log_penalty=log_lambda, windows=windows, segments=True)
    else:  # each window's candidate stretches, by the genome's level and counts
        total = bases = rises = 0.0
        for _, g in treat_cov.groupby("chrom", sort=False, observed=True):
            t_, b_, d_ = genome_level(tuple(g[c].to_numpy(np.int64) for c in (
                "chromStart", "chromEnd", "count")))
            total, bases, rises = total + t_, bases + b_, rises + t_ / d_
        options = _candidate_options(
            {"qvalue": args.qvalue if rule is None else rule, "pvalue": args.pvalue},
            (total, bases, total / rises), [count_histogram(treat_cov["count"])])
        # each chromosome's stretches by the bound on its calls' local λ
        parts = []
        for chrom, g in cov.groupby("chrom", sort=False, observed=True):
            t_c = treat_cov[treat_cov["chrom"] == chrom].reset_index(drop=True)
            c_c = None if control_cov is None else control_cov[
                control_cov["chrom"] == chrom].reset_index(drop=True)
            floor = _with_floor(options, t_c, c_c, None if control_cov is None else
                                treat.total / ctrl.total)
            parts.append(_window_segments(g.reset_index(drop=True), log_lambda, windows,
                                          floor))
        segs = pd.concat(parts, ignore_index=True)
    scale = {} if control_cov is None else {"control": control_cov,
                                            "control_scale": treat.total / ctrl.total}
    calls = peak_calls(segs, treat_cov, **scale)
    calls = significant(calls, qvalue=args.qvalue if rule is None else rule,
                        pvalue=args.pvalue)
    if control_cov is not None and args.control_rule == "filter":
        up = mark_control_peaks(calls, c_segs[c_segs["status"] == "peak"])["control_up"]
        calls = calls[~up.to_numpy()].reset_index(drop=True)
    write_narrowpeak(narrowpeak_table(calls, args.name, number_sep="_"),
                     tmp_path / "old.narrowPeak")
    out = {"peaks": (tmp_path / "old.narrowPeak").read_text()}
    if args.bdg:
        write_bedgraph(treat_cov.rename(columns={"count": "mean"}), tmp_path / "old.bdg")
        out["treat"] = (tmp_path / "old.bdg").read_text()
        if args.control:
            lam = cov if "background" in cov else control_background(
                treat_cov, control_cov, c_segs, chrom_sizes=sizes)
            mean = float(np.average(treat_cov["count"], weights=treat_cov["chromEnd"]
                                    - treat_cov["chromStart"]))
            rows = lam.assign(mean=lam["background"] * mean)[
                ["chrom", "chromStart", "chromEnd", "mean"]].reset_index(drop=True)
            # touching rows of one value are one line (as MACS3's and genomecov's)
            new = ((rows["chrom"] != rows["chrom"].shift())
                   | (rows["chromStart"] != rows["chromEnd"].shift())
                   | (rows["mean"] != rows["mean"].shift()))
            rows = rows.groupby(new.cumsum(), sort=False).agg(
                {"chrom": "first", "chromStart": "first", "chromEnd": "last", "mean": "first"})
            assert len(rows) < len(lam) / 2  # the λ is constant over many rows
            write_bedgraph(rows, tmp_path / "old.bdg")
            out["lambda"] = (tmp_path / "old.bdg").read_text()
    return out


@pytest.mark.parametrize("kind,extra", [
    ("se", "-B"), ("se", "--control-rule filter"), ("pe", "-B"), ("se", "--nocontrol"),
    ("se", "--extsize 150 --penalty 500 --jobs 2"), ("se", "-B --control-rule filter -q 0.01"),
    ("se", "--solve whole"), ("pe", "--solve whole -p 0.001"), ("se", "-p 0.001"),
    # (no control: the fragments' starts packed between the passes, on workers too)
    ("se", "--nocontrol --jobs 2"), ("se", "--nocontrol -B -p 0.001")])
def test_streaming_gives_the_whole_genome_files(bams, tmp_path, kind, extra):
    fmt = "BAMPE" if kind == "pe" else "BAM"
    control = "" if "--nocontrol" in extra else f"-c {bams['c_' + kind]}"
    extra = extra.replace("--nocontrol", "")
    argv = shlex.split(f"callpeak -t {bams['t_' + kind]} {control} -f {fmt} -n x "
                       f"--outdir {tmp_path} {extra}")
    assert main([*argv, "--quiet"]) == 0
    old = _whole_genome([a for a in argv if a not in ("--jobs", "2")], tmp_path)
    new = (tmp_path / "x_peaks.narrowPeak").read_text()
    assert new.count("\n") >= 10
    assert {line.split("\t")[0] for line in new.splitlines()} == {"chr1", "chr2", "chr3"}
    assert new == old["peaks"]
    if "-B" in extra:
        assert (tmp_path / "x_treat_pileup.bdg").read_text() == old["treat"]
        names = ["x_treat_pileup.bdg"]
        if control:  # (no control: no λ file)
            assert (tmp_path / "x_control_lambda.bdg").read_text() == old["lambda"]
            names.append("x_control_lambda.bdg")
        # the bedGraphs get the mode of the other outputs (the umask's), not mkstemp's 0600
        mode = (tmp_path / "x_peaks.narrowPeak").stat().st_mode & 0o777
        for name in names:
            assert (tmp_path / name).stat().st_mode & 0o777 == mode


def test_zero_label_notice_printed_once(bams, tmp_path, capsys):
    assert main(shlex.split(f"callpeak -t {bams['t_se']} -c {bams['c_se']} -f BAM -n x "
                            f"--outdir {tmp_path}")) == 0
    out = capsys.readouterr()
    assert out.out.count("no --penalty or --model") == 1
    lines = [ln for ln in out.err.splitlines() if "chromosomes" in ln]
    assert len(lines) >= 6 and "ETA" in lines[-1] and "\r" not in out.err


def test_read_arrays_pileup_equals_fragment_coverage(bams):
    for kind, fmt in (("se", "BAM"), ("pe", "BAMPE")):
        files = [bams["t_" + kind], bams["c_" + kind]]  # pooled, then deduplicated
        old = fragment_coverage(read_reads(files, fmt), 180)
        new = read_bam_arrays(files, fmt == "BAMPE")
        assert new.total == compact_reads(read_reads(files, fmt)).total
        for c, g in old.groupby("chrom", sort=False):
            s, e, n = chrom_pileup(new, c, 180)
            assert np.array_equal(s, g["chromStart"]) and np.array_equal(n, g["count"])
            assert np.array_equal(e, g["chromEnd"])


_CAPPED = textwrap.dedent("""
    import resource, sys
    cap = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from penlearn.cli.main import main
    sys.exit(main(sys.argv[2:]))
""")


@pytest.mark.slow
def test_genome_bam_in_bounded_memory(tmp_path):
    """hg19's 23 chromosomes at a tenth of their lengths (304 Mb), 2,000,000 + 2,000,000
    single-end reads, called in a process whose address space is capped at 1.6 GB: the
    streaming keeps one chromosome's tables at a time (0.86 GB of address space at most,
    0.39 GB resident, measured), where the whole-genome tables of the pipeline before
    needed 1.8 GB of address space, 1.45 GB resident, on the same reads (those of
    ``benchmarks/callpeak_genome.py --scale 0.1``; RESULTS.md "callpeak_genome")."""
    design = genome_design(0.1)
    t, c = tmp_path / "t.bam", tmp_path / "c.bam"
    write_genome_bam(t, design, background=2_000_000 - 50 * len(design.peaks),
                     per_peak=50, sticky_fold=4, seed=1)
    write_genome_bam(c, design, background=2_000_000, sticky_fold=4, seed=2)
    cap = 1_600_000_000  # bytes of address space
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # no per-thread BLAS buffers
    out = subprocess.run([sys.executable, "-c", _CAPPED, str(cap), "callpeak", "-t", str(t),
                          "-c", str(c), "-f", "BAM", "-n", "g", "--outdir", str(tmp_path)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    peaks = (tmp_path / "g_peaks.narrowPeak").read_text().splitlines()
    assert len(peaks) >= len(design.peaks) // 2
    assert out.stdout.count("no --penalty or --model") == 1
    progress = [ln for ln in out.stderr.splitlines() if "chromosomes" in ln]
    assert len(progress) >= 23 and "\r" not in out.stderr


@pytest.mark.parametrize("keep_dup", ["1", "all", "auto"])
def test_read_bam_samples_equals_read_bam_arrays(bams, keep_dup):
    """Each sample on a worker of its own (threads here; --jobs uses processes): the
    reads of each sample read alone, in the same order, every file pooled before the
    duplicates are counted; a worker's warnings given in the caller."""
    from concurrent.futures import ThreadPoolExecutor

    from penlearn.peaks.formats.read_arrays import read_bam_samples

    for fmt in ("BAM", "BAMPE"):
        kind = "pe" if fmt == "BAMPE" else "se"
        samples = [[bams["t_" + kind], bams["c_" + kind]], [bams["u_" + kind]]]
        alone = [read_bam_arrays(s, fmt == "BAMPE", keep_dup=keep_dup, genome_size=2e6)
                 for s in samples]
        seen = []
        with ThreadPoolExecutor(2) as ex:
            both = read_bam_samples(samples, fmt == "BAMPE", keep_dup=keep_dup,
                                    genome_size=2e6, executor=ex,
                                    progress=lambda *a, seen=seen: seen.append(a))
        assert sorted(seen) == [(0, alone[0].total), (1, alone[1].total)]
        for a, b in zip(alone, both):
            assert list(a.chroms) == list(b.chroms) and a.sizes == b.sizes
            assert a.total == b.total > 0
            for c in a.chroms:
                for x, y in zip(a.chroms[c][:2], b.chroms[c][:2]):
                    assert x.dtype == y.dtype and np.array_equal(x, y)


def test_read_bam_samples_warns_in_the_caller(bams, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    import penlearn.peaks.formats.read_arrays as ra

    real = ra.read_bam_arrays

    def warns(*a, **k):
        import warnings
        warnings.warn("a worker's warning", UserWarning, stacklevel=2)
        return real(*a, **k)
    monkeypatch.setattr(ra, "read_bam_arrays", warns)
    with ThreadPoolExecutor(1) as ex, pytest.warns(UserWarning, match="a worker's"):
        ra.read_bam_samples([[bams["t_se"]]], False, executor=ex)


def test_jobs_2_writes_the_files_of_jobs_1(bams, tmp_path):
    """``--jobs 2`` (reading both samples, the control's pass with the levels, and the
    treatment's pass on two worker processes) writes byte for byte the files of one
    process."""
    for kind, extra in (("se", "-B --control-rule filter"), ("pe", "")):
        fmt = "BAMPE" if kind == "pe" else "BAM"
        out = {}
        for jobs in ("1", "2"):
            d = tmp_path / f"{kind}{jobs}"
            argv = shlex.split(f"callpeak -t {bams['t_' + kind]} -c {bams['c_' + kind]} "
                               f"-f {fmt} -n x --outdir {d} --jobs {jobs} --oversubscribe "
                               f"--quiet {extra}")
            assert main(argv) == 0
            out[jobs] = {f.name: f.read_bytes() for f in sorted(d.iterdir())}
        assert out["1"] == out["2"] and len(out["1"]) >= 3
        assert out["1"]["x_peaks.narrowPeak"].count(b"\n") >= 10


def test_progress_line_whenever_every_seconds_pass():
    """Nothing done for ``every`` seconds (a fake clock): a "working" line; none before;
    the ETA once a chromosome is done."""
    import time as _time

    from penlearn.cli._phases import _Progress

    now = [0.0]
    lines: list[str] = []

    def wait_for(n):
        for _ in range(600):  # a loaded machine: up to 30 s for the thread's tick
            if len(lines) >= n:
                return
            _time.sleep(0.05)
    with _Progress(lines.append, {"chr1": 300, "chr2": 100}, "control", every=10.0,
                   clock=lambda: now[0]) as p:
        now[0] = 9.0
        _time.sleep(0.3)
        assert lines == []  # not yet 10 s
        now[0] = 10.5
        wait_for(1)
        assert lines[0] == "control working: 0/2 chromosomes, 0 % of the bases done"
        p.chromosome("chr1", 4)
        assert lines[1] == ("control chr1: 4 peak(s); 1/2 chromosomes, 75 % of the bases, "
                            "ETA 4 s")
        now[0] = 21.0
        wait_for(3)
        assert lines[2].startswith("control working: 1/2 chromosomes, 75 % of the bases "
                                   "done, ETA")
