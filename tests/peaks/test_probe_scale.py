"""The adversarial probe of ``benchmarks/probe_scale.py`` (bigWig, gaps, ``--jobs`` /
``--scheduler``, the learn cache, boosting model files, ``predict_peaks`` /
``max_peaks``) stays clean: issue 23's closing re-run."""

from __future__ import annotations

import pytest
from conftest import load_benchmark


@pytest.mark.slow  # ~15 s: 105 cases, ~30 of them penlearn commands run in-process
def test_scale_probe_finds_no_silent_or_unclear_case():
    pytest.importorskip("pyBigWig")
    probe = load_benchmark("probe_scale")
    table = probe.run()
    assert len(table) >= 100
    bad = table[table["verdict"] != "ok"]
    assert bad.empty, bad.to_string()
