"""The penalty options of ``peaks`` and ``callpeak`` (``--penalty / --log-penalty /
--model``, now also with ``callpeak --broad``) are checked before any input is read: a
bad value is its own one-line error, not one found after reading every BAM (or an error
about the input that hides it)."""

from __future__ import annotations

import pytest
from _hostile import Error, check_cases, run_cli


@pytest.fixture
def junk(tmp_path):
    (tmp_path / "reads.bam").write_text("not reads\n")
    (tmp_path / "cov.bedGraph").write_text("not coverage\n")
    return tmp_path


def test_penalty_options_before_the_inputs(junk):
    bam, cov, out = junk / "reads.bam", junk / "cov.bedGraph", junk / "out"
    cases = [
        ("callpeak --log-penalty nan",
         lambda: run_cli(["callpeak", "-t", bam, "--log-penalty", "nan", "--outdir", out]),
         Error("--log-penalty", "NaN")),
        ("callpeak --broad --model missing",
         lambda: run_cli(["callpeak", "-t", bam, "--broad", "--model", junk / "no.json",
                          "--outdir", out]),
         Error("model file not found", "no.json")),
        ("callpeak --penalty with --log-penalty",
         lambda: run_cli(["callpeak", "-t", bam, "--penalty", "5", "--log-penalty", "1",
                          "--outdir", out]),
         Error("give one of --penalty")),
        ("peaks --penalty -1",
         lambda: run_cli(["peaks", cov, "--penalty", "-1", "--out", out / "p.bed"]),
         Error("--penalty", ">= 0")),
        ("peaks --broad --penalty",
         lambda: run_cli(["peaks", cov, "--broad", "--penalty", "5", "--out", out / "p.bed"]),
         Error("--broad", "drop --broad")),
    ]
    check_cases(cases, at_least=5)
    assert sorted(p.name for p in junk.iterdir()) == ["cov.bedGraph", "reads.bam"]
