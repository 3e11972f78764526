"""``penlearn callpeak``'s memory while streaming (issue 55): a chromosome's reads are
dropped once it is called, and the calls that cannot pass ``-q`` / ``-p`` are not held
to the end of the genome (their genome-wide columns stay those of every call)."""

from __future__ import annotations

import shlex
import weakref

import numpy as np
import pandas as pd
import pytest

from penlearn.cli import _callpeak_stream as cs
from penlearn.cli import _stream_calls as sc
from penlearn.cli.main import main
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
    not kept when there is a cutoff."""
    chroms = [_calls(n, s) for n, s in ((400, 1), (0, 2), (900, 3))]
    tests = 5000.0
    whole = significant(rescore(pd.concat(chroms, ignore_index=True), tests),
                        qvalue=cut["qvalue"], pvalue=cut["pvalue"])
    kept, pops = zip(*(sc._candidates(c, cut) for c in chroms))
    offsets = np.cumsum([0] + [len(p["pValue"]) for p in pops[:-1]])
    population = {k: np.concatenate([p[k] for p in pops]) for k in ("mean", "pValue")}
    population["keep"] = np.concatenate([p["keep"] + o for p, o in zip(pops, offsets)])
    streamed = significant(sc.genome_columns(pd.concat(kept, ignore_index=True),
                                             population, tests),
                           qvalue=cut["qvalue"], pvalue=cut["pvalue"])
    pd.testing.assert_frame_equal(streamed, whole)
    n_kept = sum(len(k) for k in kept)
    if cut["qvalue"] is None:
        assert n_kept == 1300
    else:
        assert len(whole) >= 20 and n_kept < 1300 / 2
