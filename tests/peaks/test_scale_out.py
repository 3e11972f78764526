"""Many samples in parallel and cached model paths: ``predict_peaks``
and ``peak_error_functions`` through an executor give the serial result; ``penlearn peaks
--jobs`` and ``penlearn learn --jobs`` on folders; the cache of a coverage folder."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor

import pandas as pd
import pytest
from conftest import DATA, need

import penlearn.datasets.peaks as dpeaks
from penlearn.peaks.formats.coverage import read_bedgraph
from penlearn.peaks.peakseg.evaluation import predict_peaks

MONO = DATA / "chipseq_raw" / "Mono27ac"


def _folder(tmp_path, n=3, small=False):
    """A coverage folder of ``n`` samples (Mono27ac with scaled counts) and its labels
    (``small``: the first 8 kb and their 3 labels)."""
    cov = read_bedgraph(need(MONO / "coverage.bedGraph.gz"))
    labels = pd.read_csv(need(MONO / "labels.csv"))
    if small:
        cov = cov[(cov["chromStart"] >= 321_000) & (cov["chromEnd"] <= 329_000)]
        labels = labels[labels["chromEnd"] <= 329_000]
    folder = tmp_path / "data"
    folder.mkdir()
    for k in range(n):
        text = cov.assign(count=cov["count"] * (k + 1)).to_csv(sep="\t", header=False,
                                                               index=False)
        (folder / f"s{k}.bedGraph.gz").write_bytes(gzip.compress(text.encode()))
    labels.to_csv(folder / "labels.csv", index=False)
    return folder, cov


def _penlearn(*argv):
    return subprocess.run([sys.executable, "-m", "penlearn.cli", *map(str, argv)],
                          capture_output=True, text=True)


def test_predict_peaks_in_a_process_pool_equals_serial():
    cov = read_bedgraph(need(MONO / "coverage.bedGraph.gz"))
    many = pd.concat([cov.assign(sample_id=s, count=cov["count"] * k)
                      for k, s in enumerate(["a", "b", "c", "d"], start=1)], ignore_index=True)
    serial = predict_peaks(many, log_penalty=8.0)
    with ProcessPoolExecutor(2) as ex:
        pooled = predict_peaks(many, log_penalty=8.0, executor=ex, progress=False)
    pd.testing.assert_frame_equal(pooled, serial)
    assert serial["sample_id"].unique().tolist() == ["a", "b", "c", "d"]


@pytest.mark.parametrize("bad", [[1.0], {"a": 1.0}, "3"])  # None: the shipped model
def test_predict_peaks_log_lambda_type_is_checked(bad):
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10], "chromEnd": [10, 20],
                        "count": [1, 5]})
    with pytest.raises(TypeError, match="log_penalty must be a number or a Series"):
        predict_peaks(cov, log_penalty=bad)


@pytest.mark.slow  # tier 2: the command with process pools, end to end
def test_cli_peaks_jobs_gives_the_same_files(tmp_path):
    folder, _ = _folder(tmp_path, small=True)
    outs = {}
    for jobs in (1, 2):
        out = tmp_path / f"peaks{jobs}"
        proc = _penlearn("peaks", folder, "--penalty", 300, "--out", out, "--jobs", jobs,
                         "-q")
        assert proc.returncode == 0, proc.stderr
        outs[jobs] = {p.name: p.read_text() for p in sorted(out.iterdir())}
    assert outs[1] == outs[2] and sorted(outs[1]) == ["s0.bed", "s1.bed", "s2.bed"]
    assert all(text.count("\n") >= 1 for text in outs[1].values())
    for bad in (0, 10**30):  # 10**30 was once an OverflowError traceback
        proc = _penlearn("peaks", folder, "--penalty", 1, "--out", tmp_path / "x", "--jobs",
                         bad)
        assert proc.returncode == 2, proc.stderr
        assert "--jobs: must be an integer from 1 to 4096" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_peak_folder_cache_is_reused_and_keyed_by_content(tmp_path, monkeypatch):
    folder, cov = _folder(tmp_path)
    cache = tmp_path / "cache"
    first = dpeaks.load_peak_folder(folder, max_peaks=8, cache=cache)
    assert "coverage" in first.extra and len(list(cache.glob("peaks-*.csv.gz"))) == 1
    assert len(list(cache.glob("errors-*.npz"))) == 3  # each window's table as it came

    def forbidden(*args, **kwargs):
        raise AssertionError("recomputed despite the cache")

    monkeypatch.setattr(dpeaks, "peak_error_functions", forbidden)
    second = dpeaks.load_peak_folder(folder, max_peaks=8, cache=cache)
    assert second.extra["cache"].parent == cache
    pd.testing.assert_frame_equal(second.evaluation, first.evaluation)
    pd.testing.assert_frame_equal(second.inputs, first.inputs)
    pd.testing.assert_frame_equal(second.outputs, first.outputs)
    # another path bound, or other bytes in one coverage file: not the cached tables
    with pytest.raises(AssertionError, match="recomputed"):
        dpeaks.load_peak_folder(folder, max_peaks=9, cache=cache)
    text = cov.assign(count=cov["count"] + 1).to_csv(sep="\t", header=False, index=False)
    (folder / "s1.bedGraph.gz").write_bytes(gzip.compress(text.encode()))
    with pytest.raises(AssertionError, match="recomputed"):
        dpeaks.load_peak_folder(folder, max_peaks=8, cache=cache)


def test_unwritable_cache_warns_once_and_computes(tmp_path):
    folder, _ = _folder(tmp_path, n=2)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = dpeaks.load_peak_folder(folder, max_peaks=5, cache=blocker / "cache")
    assert [str(w.message) for w in caught if "cache" in str(w.message)].__len__() == 1
    assert len(ds.inputs) == 2


@pytest.mark.slow  # tier 2: learn with process pools and its cache, end to end
def test_cli_learn_on_a_coverage_folder_with_jobs_and_cache(tmp_path):
    folder, _ = _folder(tmp_path, small=True)
    cache = tmp_path / "cache"
    models = []
    for k, extra in enumerate([["--jobs", 2], [], ["--no-cache"]]):
        out = tmp_path / f"model{k}.json"
        proc = _penlearn("learn", folder, "--out", out, "--cache-dir", cache, "-q",
                         "--max-steps", 5, *extra)
        assert proc.returncode == 0, proc.stderr
        model = json.loads(out.read_text())
        model.pop("history")  # holds run times
        models.append(model)
        assert len(list(cache.glob("peaks-*"))) == 1  # written once, then read
    assert models[0] == models[1] == models[2]


def test_cli_peaks_scheduler_runs_on_a_dask_cluster(tmp_path):
    """``--scheduler ADDRESS``: the same files as in this process (a real LocalCluster)."""
    import distributed  # a declared test dependency: missing it is a failure, not a skip

    from penlearn.cli import main

    folder, _ = _folder(tmp_path, n=2, small=True)
    assert main(["peaks", str(folder), "--penalty", "300", "--out", str(tmp_path / "one"),
                 "-q"]) == 0
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", dashboard_address=None) as cluster:
        code = main(["peaks", str(folder), "--penalty", "300", "--out",
                     str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address,
                     "-q"])
    assert code == 0
    for name in ("s0.bed", "s1.bed"):
        assert (tmp_path / "dask" / name).read_text() == (tmp_path / "one" / name).read_text()
    code = main(["peaks", str(folder), "--penalty", "1", "--out", str(tmp_path / "x"),
                 "--scheduler", "tcp://127.0.0.1:9", "--jobs", "2", "-q"])
    assert code == 1 and not (tmp_path / "x").exists()
