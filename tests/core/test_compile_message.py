"""First use compiles the numba kernels (25–60 s): the message and honest progress bars.

``penlearn._numba_cache.warm_kernels`` compiles a family of kernels before a progress bar
starts and says "compiling ... (once ...)" only when numba has not cached them yet; the
segmentation's bars start after it, so they never show the ETA of hours they showed when
the first data points took the whole compilation time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

import penlearn
from penlearn import _numba_cache


@pytest.fixture(autouse=True)
def _bars_on(monkeypatch):
    """capsys is no terminal: show the bars anyway (penlearn._progress)."""
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")

SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import tiny_kernel
    from penlearn._numba_cache import warm_kernels
    print(warm_kernels("tiny", [tiny_kernel.double], lambda: tiny_kernel.double(2.0)))
    print(warm_kernels("tiny", [tiny_kernel.double], lambda: tiny_kernel.double(2.0)))
""")


def test_warm_kernels_says_compiling_only_when_not_cached(tmp_path):
    (tmp_path / "tiny_kernel.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef double(x):\n    return 2.0 * x\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO))

    def run():
        proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split(), proc.stderr

    out, err = run()  # an empty cache: compiled, said once
    assert out == ["True", "False"]
    assert err.count("compiling the tiny kernels (once") == 1, err
    out, err = run()  # a new process: loaded from numba's cache, nothing said
    assert out == ["False", "False"]
    assert "compiling" not in err, err


def _sequences():
    rng = np.random.default_rng(0)
    values = np.r_[rng.normal(0, 1, 60), rng.normal(4, 1, 60)]
    return pd.DataFrame({"sequence_id": "a", "position": np.arange(1, 121), "value": values})


@pytest.mark.parametrize("is_cached", [False, True])
def test_segment_sequences_bar_starts_after_compiling(is_cached, monkeypatch, capsys):
    monkeypatch.setattr(_numba_cache, "_WARMED", set())
    monkeypatch.setattr(_numba_cache, "cached", lambda dispatchers: is_cached)
    models, _ = penlearn.segment_sequences(_sequences(), 3, progress=True)
    assert len(models) == 3
    err = capsys.readouterr().err
    assert "segment:" in err
    if is_cached:
        assert "compiling" not in err, err
    else:  # said once, before the bar starts
        assert err.count("compiling the segmentation kernels (once") == 1, err
        assert err.index("compiling") < err.index("segment:")
    # quiet: neither the bar nor the message
    monkeypatch.setattr(_numba_cache, "_WARMED", set())
    penlearn.segment_sequences(_sequences(), 3, progress=False)
    assert capsys.readouterr().err == ""


def _seconds(eta: str) -> int:
    parts = [int(p) for p in eta.split(":")]
    return sum(p * 60**i for i, p in enumerate(reversed(parts)))


@pytest.mark.slow
def test_first_demo_shows_no_eta_above_a_minute(tmp_path):
    """A fresh clone's first `penlearn demo` (an empty numba cache) compiles with honest bars."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(REPO),
               MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, "-m", "penlearn.cli", "demo", "--out",
                           str(tmp_path / "demo")], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    assert "compiling the segmentation kernels (once" in err, err[-2000:]
    etas = re.findall(r"<((?:\d+:)?\d+:\d+),", err)
    assert etas, err[-2000:]
    assert max(_seconds(e) for e in etas) <= 60, sorted(etas, key=_seconds)[-3:]


def _said_before_bar(err: str, kernels: str, bar: str) -> None:
    assert err.count(f"compiling the {kernels} kernels (once") == 1, err
    assert bar in err and err.index("compiling") < err.index(bar), err


def test_coverage_reader_and_peak_models_compile_before_their_bars(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(_numba_cache, "_WARMED", set())
    monkeypatch.setattr(_numba_cache, "cached", lambda dispatchers: False)
    for s, counts in (("a", [1, 2, 30, 28, 2, 1]), ("b", [0, 1, 25, 31, 1, 2])):
        (tmp_path / f"{s}.bedGraph").write_text("".join(
            f"chr1\t{10 * i}\t{10 * i + 10}\t{c}\n" for i, c in enumerate(counts)))
    coverage = penlearn.read_coverage(tmp_path, progress=True)
    _said_before_bar(capsys.readouterr().err, "coverage reader", "coverage:")
    labels = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1", "chromStart": 15,
                           "chromEnd": 25, "annotation": "peakStart"})
    ev = penlearn.peak_error_functions(coverage, labels, progress=True)
    assert set(ev["sequence_id"].str[0]) == {"a", "b"}
    _said_before_bar(capsys.readouterr().err, "PeakSeg", "peak models")


def test_one_sample_and_joint_runs_announce_the_compile_with_an_eta(tmp_path, monkeypatch,
                                                                      capsys):
    """Issue 39: `penlearn peaks` on one sample was silent for 42 s (no bar for one window,
    so no warm-up); the joint pipeline compiled silently too."""
    monkeypatch.setattr(_numba_cache, "_WARMED", set())
    monkeypatch.setattr(_numba_cache, "cached", lambda dispatchers: False)
    (tmp_path / "a.bedGraph").write_text("".join(
        f"chr1\t{10 * i}\t{10 * i + 10}\t{c}\n" for i, c in enumerate([1, 2, 30, 28, 2, 1])))
    coverage = penlearn.read_coverage(tmp_path / "a.bedGraph", progress=True)
    peaks = penlearn.predict_peaks(coverage, 3.0, progress=True)
    err = capsys.readouterr().err
    for kernels in ("coverage reader", "PeakSeg"):
        line = next(ln for ln in err.splitlines() if f"compiling the {kernels} kernels" in ln)
        assert re.search(r": about \d+ (s|min) at this machine's load", line), line
    assert err.index("coverage reader") < err.index("PeakSeg")
    two = pd.concat([coverage.assign(sample_id="a"), coverage.assign(sample_id="b")])
    penlearn.joint_peaks(two, peaks.assign(sample_id="a"), penalty=1.0, progress=True)
    err = capsys.readouterr().err
    assert err.count("compiling the joint peak kernels (once") == 1, err
    assert err.index("compiling") < err.index("joint windows"), err


def test_compile_eta_grows_with_the_load():
    assert _numba_cache.compile_eta(45.0, load=0.0, cores=2) == 45.0
    assert _numba_cache.compile_eta(45.0, load=15.0, cores=2) == 360.0
    assert _numba_cache._duration(45.0) == "about 45 s"
    assert _numba_cache._duration(360.0) == "about 6 min"
