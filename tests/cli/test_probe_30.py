"""The hostile probe of ``benchmarks/probe_30.py`` stays clean: no data loss, no silent
wrong answer, no hang, no unclear message (issue 30's goal)."""

from __future__ import annotations

import pytest
from conftest import load_benchmark


@pytest.mark.slow  # ~30 s: penlearn commands in-process and a few tuner fits
def test_probe_30_finds_nothing_but_handled_cases():
    probe = load_benchmark("probe_30")
    table = probe.run()
    assert len(table) >= 18
    bad = table[table["verdict"] != "handled"]
    assert bad.empty, bad.to_string()
