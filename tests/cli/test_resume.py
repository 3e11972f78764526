"""Resuming ``penlearn peaks``: a run killed mid-way (SIGKILL, no
clean-up) and rerun gives the files of an uninterrupted run and solves only the windows
left; saved windows are keyed by their content, so other inputs or another penalty are
never served stale results."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from _penlearn_demo import penlearn_command
from conftest import REPO

from penlearn.peaks.peakseg.evaluation import predict_peaks

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}


def _samples(folder, n, rows, seed=0):
    """``n`` bedGraph files of two chromosomes, ``rows`` rows each (peaks every 3.5 kb)."""
    folder.mkdir()
    rng = np.random.default_rng(seed)
    start = np.arange(rows) * 10
    for k in range(n):
        parts = [pd.DataFrame({"chrom": chrom, "chromStart": start, "chromEnd": start + 10,
                               "count": rng.poisson(np.where((start // 5000) % 7 == 3, 20, 2))})
                 for chrom in ("chr1", "chr2")]
        pd.concat(parts).to_csv(folder / f"s{k}.bedGraph", sep="\t", header=False,
                                index=False)
    return folder


def _run(*argv):
    return subprocess.run([*penlearn_command(), *map(str, argv)], capture_output=True,
                          text=True, timeout=600, env=ENV)


def _contents(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _saved(parts):
    return sorted(parts.glob("peaks-*.npz")) if parts.is_dir() else []


@pytest.mark.slow  # tier 2: a run killed mid-way in a child process, then resumed
def test_killed_run_resumes_with_identical_outputs(tmp_path):
    data = _samples(tmp_path / "data", n=8, rows=20000)
    argv = ["peaks", data, "--penalty", 1000, "--means", "bedGraph", "--track", "t"]
    whole = _run(*argv, "--out", tmp_path / "whole", "-q")
    assert whole.returncode == 0, whole.stderr
    assert not (tmp_path / "whole.penlearn-parts").exists()  # removed at the end

    out, parts = tmp_path / "cut", tmp_path / "cut.penlearn-parts"
    p = subprocess.Popen([*penlearn_command(), *map(str, argv), "--out", str(out), "-q"],
                         env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while len(_saved(parts)) < 4 and p.poll() is None and time.monotonic() - t0 < 300:
        time.sleep(0.005)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    done = len(_saved(parts))
    assert 4 <= done < 16, f"{done} of 16 windows saved when killed"
    assert not out.exists()  # nothing written but the parts
    assert (parts / "manifest.json").is_file()

    again = _run(*argv, "--out", out)
    assert again.returncode == 0, again.stderr
    assert f"({done} of 16 windows from an interrupted run)" in again.stdout, again.stdout
    assert _contents(out) == _contents(tmp_path / "whole")
    assert sorted(_contents(out)) == sorted(f"s{k}.{x}" for k in range(8)
                                            for x in ("bed", "bedGraph"))
    assert not parts.exists()


def _two_samples():
    rng = np.random.default_rng(3)
    start = np.arange(400) * 10
    return pd.concat([pd.DataFrame({"sample_id": s, "chrom": c, "chromStart": start,
                                    "chromEnd": start + 10,
                                    "count": rng.poisson(np.where(start % 1000 < 300, 15, 2))})
                      for s in ("a", "b") for c in ("chr1", "chr2")], ignore_index=True)


def test_saved_windows_are_reused_only_for_the_same_coverage_and_log_lambda(tmp_path):
    cov = _two_samples()
    first = predict_peaks(cov, log_penalty=4.0, segments=True, parts=tmp_path)
    assert first.attrs == {"parts_reused": 0, "windows": 4}
    again = predict_peaks(cov, log_penalty=4.0, segments=True, parts=tmp_path)
    assert again.attrs["parts_reused"] == 4
    pd.testing.assert_frame_equal(again, first)  # same values and dtypes, exactly
    # another log λ: nothing reused, and the result is that log λ's
    other = predict_peaks(cov, log_penalty=6.0, segments=True, parts=tmp_path)
    assert other.attrs["parts_reused"] == 0
    pd.testing.assert_frame_equal(other, predict_peaks(cov, log_penalty=6.0, segments=True))
    # one count changed in sample b, chr2: only that window is solved again
    changed = cov.copy()
    changed.loc[(changed["sample_id"] == "b") & (changed["chrom"] == "chr2")
                & (changed["chromStart"] == 100), "count"] += 50
    res = predict_peaks(changed, log_penalty=4.0, segments=True, parts=tmp_path)
    assert res.attrs["parts_reused"] == 3
    pd.testing.assert_frame_equal(res, predict_peaks(changed, log_penalty=4.0, segments=True))
    # peaks only (not segments) is another result
    assert predict_peaks(cov, log_penalty=4.0, parts=tmp_path).attrs["parts_reused"] == 0


def test_a_damaged_part_is_solved_again_with_a_warning(tmp_path):
    cov = _two_samples()
    first = predict_peaks(cov, log_penalty=4.0, segments=True, parts=tmp_path)
    victim = sorted(tmp_path.glob("peaks-*.npz"))[0]
    victim.write_bytes(victim.read_bytes()[:-40])  # a truncated file
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = predict_peaks(cov, log_penalty=4.0, segments=True, parts=tmp_path)
    assert res.attrs["parts_reused"] == 3
    assert any("unreadable" in str(w.message) for w in caught)
    pd.testing.assert_frame_equal(res, first)


def test_cli_no_resume_and_changed_penalty(tmp_path):
    data = _samples(tmp_path / "data", n=2, rows=300)
    out, parts = tmp_path / "peaks", tmp_path / "peaks.penlearn-parts"
    # an interrupted run's leftovers, at another penalty
    predict_peaks(_read(data), log_penalty=np.log(50.0), segments=True, parts=parts)
    (parts / "manifest.json").write_text('{"inputs": {"penalty": 50.0}}')
    r = _run("peaks", data, "--penalty", 300, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "of other inputs, model or penalty" in r.stderr
    assert "interrupted run" not in r.stdout  # nothing of penalty 50 was reused
    assert not parts.exists()
    # same penalty saved, --no-resume: solved again
    predict_peaks(_read(data), log_penalty=np.log(300.0), segments=True, parts=parts)
    r = _run("peaks", data, "--penalty", 300, "--out", out, "--force", "--no-resume")
    assert r.returncode == 0 and "interrupted run" not in r.stdout, r.stdout + r.stderr
    predict_peaks(_read(data), log_penalty=np.log(300.0), segments=True, parts=parts)
    r = _run("peaks", data, "--penalty", 300, "--out", out, "--force")
    assert re.search(r"\(4 of 4 windows from an interrupted run\)", r.stdout), r.stdout


def _read(folder):
    from penlearn.peaks.formats.coverage import read_coverage
    return read_coverage(folder)


@pytest.mark.parametrize("cache", [True, "dir"])
def test_peak_error_functions_cache(tmp_path, monkeypatch, cache):
    from penlearn.peaks.peakseg.evaluation import peak_error_functions

    monkeypatch.setenv("PENLEARN_CACHE_DIR", str(tmp_path / "env"))
    cov = _two_samples()
    labels = pd.DataFrame({"chrom": "chr1", "chromStart": [50, 950], "chromEnd": [350, 1250],
                           "annotation": ["peaks", "noPeaks"]})
    where = tmp_path / "env" if cache is True else tmp_path / "dir"
    arg = True if cache is True else where
    plain = peak_error_functions(cov, labels, progress=False)
    assert not where.exists()
    first = peak_error_functions(cov, labels, progress=False, cache=arg)
    assert len(list(where.glob("errors-*.npz"))) == 2
    pd.testing.assert_frame_equal(first, plain)
    # a second call reads the saved tables back; an edited one is never trusted: its
    # checksum no longer matches, it is computed again with a warning (issue 38)
    pd.testing.assert_frame_equal(peak_error_functions(cov, labels, progress=False,
                                                       cache=arg), plain)
    for f in where.glob("errors-*.npz"):
        with np.load(f) as z:
            arrays = dict(z)
        col = list(json.loads(str(arrays["__meta__"]))["dtypes"]).index("bounded")
        arrays[f"c{col}"] = ~arrays[f"c{col}"]
        with open(f, "wb") as fh:
            np.savez(fh, **arrays)
    with pytest.warns(UserWarning, match="does not match its checksum"):
        hit = peak_error_functions(cov, labels, progress=False, cache=arg)
    pd.testing.assert_frame_equal(hit, plain)
    # other labels: other keys, computed again
    moved = labels.assign(chromEnd=labels["chromEnd"] + 10)
    pd.testing.assert_frame_equal(peak_error_functions(cov, moved, progress=False, cache=arg),
                                  peak_error_functions(cov, moved, progress=False))
    assert len(list(where.glob("errors-*.npz"))) == 4
