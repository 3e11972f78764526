"""``penlearn callpeak``'s memory while streaming (issue 55): a chromosome's reads are
dropped once it is called, and the calls that cannot pass ``-q`` / ``-p`` are not held
to the end of the genome (their genome-wide columns stay those of every call)."""

from __future__ import annotations

import gc
import os
import shlex
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pandas as pd
import pytest

from penlearn.cli import _callpeak_stream as cs
from penlearn.cli import _stream_calls as sc
from penlearn.cli.main import main
from penlearn.datasets.chipseq_genome import genome_design, write_genome_bam
from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam
from penlearn.peaks.formats.peak_columns import rescore, significant

pysam = pytest.importorskip("pysam",
                            reason="pysam (optional extra penlearn[bam]) is not installed")


@pytest.fixture(scope="module")
def bams(tmp_path_factory):
    d = tmp_path_factory.mktemp("bams")
    design = plant_regions({"chr1": 500_000, "chr2": 300_000, "chr3": 200_000}, 10, 4,
                           in_sticky=1, seed=3)
    t, c = d / "t.bam", d / "c.bam"
    write_reads_bam(t, design, background=8000, per_peak=100, sticky_fold=5, seed=1)
    write_reads_bam(c, design, background=6000, sticky_fold=5, seed=2)
    return t, c


def test_a_chromosomes_reads_are_dropped_once_it_is_called(bams, tmp_path, monkeypatch):
    """``--jobs 1``: when a chromosome is called, the reads of those called before it
    are gone (the control's pass's tasks held every chromosome's reads to the end of
    the genome: 0.2 GB of 20 M + 20 M reads, in memory beside the largest chromosome's
    tables)."""
    real = cs.call_chromosome
    called, alive = [], []

    def spy(chrom, treat, ctrl, *a, **k):
        # unreachable, not merely unreferenced: a first compile of numba's kernels (a
        # cold cache) can leave an array in a reference cycle (a caught exception's
        # frames) until the collector runs: no memory held, and this test flaked there
        gc.collect()
        alive.append([c for c, ref in called if ref() is not None])
        called.append((chrom, weakref.ref(treat.chroms[chrom][0])))
        called.append((chrom, weakref.ref(ctrl.chroms[chrom][0])))
        return real(chrom, treat, ctrl, *a, **k)
    monkeypatch.setattr(cs, "call_chromosome", spy)
    t, c = bams
    assert main(shlex.split(f"callpeak -t {t} -c {c} -f BAM -n x --outdir {tmp_path} "
                            "--quiet")) == 0
    assert len(alive) == 3 and alive == [[], [], []]


def _calls(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.exponential(2.0, n).round(1)  # ties
    p[rng.random(n) < 0.05] = 0.0
    return pd.DataFrame({"chrom": "chr1", "chromStart": np.arange(n) * 10,
                         "chromEnd": np.arange(n) * 10 + 5, "mean": rng.gamma(2.0, 3.0, n),
                         "pValue": p})


@pytest.mark.parametrize("cut", [{"qvalue": 0.05, "pvalue": None},
                                 {"qvalue": 0.01, "pvalue": 1e-3},
                                 {"qvalue": None, "pvalue": None}])
def test_candidates_keep_every_call_that_passes_with_its_genome_columns(cut):
    """Three "chromosomes" of calls: the rows :func:`_candidates` keeps, with
    :func:`genome_columns`' score and qValue, then ``significant``, equal
    ``significant(rescore(every call))`` (values, columns, order); and most calls are
    not kept when there is a cutoff, nor (under ``-q``) their p-values held."""
    chroms = [_calls(n, s) for n, s in ((400, 1), (0, 2), (900, 3))]
    tests = 5000.0
    whole = significant(rescore(pd.concat(chroms, ignore_index=True), tests),
                        qvalue=cut["qvalue"], pvalue=cut["pvalue"])
    kept, pops = zip(*(sc._candidates(c, cut) for c in chroms))
    population = sc._population({k: {"population": p} for k, p in enumerate(pops)},
                                [0, 1, 2], sum(len(k) for k in kept))
    streamed = significant(sc.genome_columns(pd.concat(kept, ignore_index=True),
                                             population, tests),
                           qvalue=cut["qvalue"], pvalue=cut["pvalue"])
    pd.testing.assert_frame_equal(streamed, whole)
    n_kept = sum(len(k) for k in kept)
    if cut["qvalue"] is None:
        assert n_kept == 1300
    else:
        assert len(whole) >= 20 and n_kept < 1300 / 2
    # the population held: under -q alone only the kept calls' p-values (issue 55),
    # else every call's; the score's top and the count of every call
    held = n_kept if cut["pvalue"] is None and cut["qvalue"] is not None else 1300
    assert len(population["pValue"]) == held and population["n"] == 1300


_RSS = textwrap.dedent("""
    import sys
    from penlearn.cli.main import main
    rc = main(sys.argv[1:])
    # (this process's own high-water mark: ru_maxrss counts the parent's at the fork)
    hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM")]
    print("MAXRSS_KB", hwm[0].split()[1])
    sys.exit(rc)
""")


def _max_rss_mb(argv: list, tmp) -> float:
    """``penlearn`` ``argv`` in a subprocess: its largest resident set (MB)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _RSS, *argv, "--outdir", str(tmp)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.split("MAXRSS_KB")[-1].split()[0]) / 1024


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                    reason="the resident high-water mark is read from /proc (Linux)")
def test_genome_without_a_control_beyond_the_interpreter_in_bounded_memory(tmp_path):
    """hg19's 23 chromosomes at a tenth of their lengths, 2,000,000 single-end reads, no
    control: the largest resident set beyond that of the same command on a BAM of three
    short chromosomes (the interpreter, NumPy, pandas, numba's kernels: ~220 MB) stays
    under 80 MB. Measured (issue 55, session 15): 63 MB; before, 114 MB — a filled
    copy of each chromosome held through its solves, the zero stretches and
    interpolation tables of every row, a ``Reads`` copy of the reads for the fragment
    size, 64 MiB of solver chunks in RAM, the reader's freed heap kept. Session 16: 61
    MB (the third pass's cuts scale with a chromosome's rows: at a tenth of hg19 they
    are a few MB here; each has its own test). (At hg19's full size, 20 M reads: 855 →
    507 → 486 → 435–438 MB, RESULTS.md.)"""
    design = genome_design(0.1)
    big = tmp_path / "t.bam"
    write_genome_bam(big, design, background=2_000_000 - 50 * len(design.peaks),
                     per_peak=50, sticky_fold=4, seed=1)
    small = plant_regions({"chr1": 300_000, "chr2": 200_000, "chr3": 100_000}, 8, 2,
                          in_sticky=1, seed=3)
    tiny = tmp_path / "tiny.bam"
    write_reads_bam(tiny, small, background=6000, per_peak=100, sticky_fold=5, seed=1)
    common = ["callpeak", "-f", "BAM", "-n", "x", "--quiet"]
    base = _max_rss_mb([*common, "-t", str(tiny), "-g", "600000"], tmp_path / "tiny")
    rss = _max_rss_mb([*common, "-t", str(big), "-g", str(sum(design.chroms.values()))],
                      tmp_path / "big")
    assert len((tmp_path / "big" / "x_peaks.narrowPeak").read_text().splitlines()) >= \
        len(design.peaks) // 2
    assert rss - base <= 80, (rss, base)


def test_the_freed_heap_is_given_back_before_each_solve(bams, tmp_path, monkeypatch):
    """Issue 55: the features' and each window's freed small blocks (~60 MB of glibc's
    heap at chr1's features) are given back (``malloc_trim``) before the next solve, not
    held under it: a trim after every chromosome's features and between its windows."""
    from penlearn.cli import peaks
    from penlearn.peaks.peakseg import candidates

    events = []
    real_ll, real_solve, real_free = peaks._log_lambda, candidates.candidate_segments, \
        cs._return_freed_memory

    def log_lambda(*a, **k):
        out = real_ll(*a, **k)
        events.append("features")
        return out

    def solve(*a, **k):
        events.append("solve")
        return real_solve(*a, **k)

    def free(trim=False):
        if trim:
            events.append("trim")
        return real_free(trim)
    monkeypatch.setattr(peaks, "_log_lambda", log_lambda)
    # (each window's solve: its candidate stretches, callpeak's default)
    monkeypatch.setattr(candidates, "candidate_segments", solve)
    monkeypatch.setattr(cs, "_return_freed_memory", free)
    t, _ = bams
    assert main(shlex.split(f"callpeak -t {t} -f BAM -n x --outdir {tmp_path} "
                            "--quiet")) == 0
    assert events.count("features") == 3 and events.count("solve") >= 3
    for k, e in enumerate(events):
        if e == "solve":  # right before it (after the features or the last window): a trim
            assert events[k - 1] == "trim", events
        if e == "features":
            assert events[k + 1] == "trim", events
