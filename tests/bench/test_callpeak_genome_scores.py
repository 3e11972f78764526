"""benchmarks/callpeak_genome.py (issue 52): the whole-genome suite plants known truth and
scores the calls, megabase calls without a planted domain counted; its cache folder's
name changes with the simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import load_benchmark

from penlearn.datasets.chipseq_genome import genome_suite, write_genome_suite_bam

bench = load_benchmark("callpeak_genome")

TRUTH = pd.DataFrame({
    "kind": ["narrow", "broad", "sticky"], "chrom": "chr1",
    "chromStart": [750, 20_000, 60_000], "chromEnd": [1250, 30_000, 62_000],
    "centre": [1000, 25_000, 61_000], "fold": [3.0, 3.0, 5.0],
    "fold_bin": ["2-5", "", ""]})


def test_long_calls_without_a_domain_are_counted_with_their_bases():
    calls = pd.DataFrame({
        "chrom": "chr1", "pValue": 1.0,
        "chromStart": [900, 15_000, 200_000, 400_000, 3_000_000],
        "chromEnd": [1100, 140_000, 350_000, 1_600_000, 3_000_500]})
    row = bench.score_calls(calls, TRUTH, genome=10_000_000)
    # 125 kb holding the domain: long, not empty; 150 kb and 1.2 Mb empty
    assert row["calls > 100 kb"] == 3
    assert row["> 100 kb empty"] == 2 and row["Mb in > 100 kb empty"] == 1.35
    assert row["> 1 Mb empty"] == 1 and row["Mb in > 1 Mb empty"] == 1.2
    assert row["false calls"] == 3 and row["narrow found"] == "1/1"
    assert row["narrow found ≤ 100 kb"] == "1/1"
    row = bench.score_calls(calls.assign(chromStart=[0] + [15_000, 200_000, 400_000,
                                                           3_000_000]).assign(
        chromEnd=[200_000, 140_000, 350_000, 1_600_000, 3_000_500]), TRUTH, 10_000_000)
    assert row["narrow found"] == "1/1" and row["narrow found ≤ 100 kb"] == "0/1"


def test_cache_folder_names_the_simulation(monkeypatch):
    a = bench.suite_folder(0.1, 0.15)
    assert bench.suite_folder(0.1, 0.0) != a and bench.suite_folder(1.0, 0.15) != a
    monkeypatch.setattr(bench, "SIM_VERSION", bench.SIM_VERSION + 1)
    assert bench.suite_folder(0.1, 0.15) != a


def test_genome_suite_wobbles_by_500_kb_bins_and_writes_its_truth(tmp_path):
    d = genome_suite(0.002, seed=3)
    w = d.wobble
    assert set(w["chrom"]) == set(d.chroms)
    inner = w.groupby("chrom").head(-1)  # every bin but each chromosome's last
    assert ((inner["chromEnd"] - inner["chromStart"]) == 500_000).all()
    assert np.std(np.log(w["level"])) == pytest.approx(0.15, abs=0.05)
    pytest.importorskip("pysam")
    truth = write_genome_suite_bam(tmp_path / "t.bam", d, coverage=0.2, seed=1)
    assert (truth.loc[truth["kind"] == "narrow", "fragments"] > 0).mean() > 0.5
    import pysam
    with pysam.AlignmentFile(str(tmp_path / "t.bam")) as f:
        assert f.mapped == truth.attrs["fragments"]
