"""The adversarial probe of ``benchmarks/probe_rel23.py`` stays clean: every hostile
input gives the expected result or a one-line error (issue 23's "done when")."""

from __future__ import annotations

import pytest
from conftest import load_benchmark


@pytest.mark.slow  # ~15 s: 113 cases, a dozen of them penlearn commands run in-process
def test_probe_finds_no_silent_or_unclear_case():
    probe = load_benchmark("probe_rel23")
    table = probe.run()
    assert len(table) >= 100
    bad = table[table["verdict"] != "ok"]
    assert bad.empty, bad.to_string()
