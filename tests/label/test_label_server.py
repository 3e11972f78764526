"""The labeling page's server without a browser: token, routes, limits, the labels file
(atomic, never a file outside the given ones), two clients, a kill -9, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from penlearn.label import label_page
from penlearn.label.server import MAX_BODY
from penlearn.label.state import LABEL_FILE_COLUMNS, read_label_file
from penlearn.learn import PenaltyModel
from penlearn.peaks.label_windows import page_windows


def _coverage(n_samples: int = 2, bases: int = 4000) -> pd.DataFrame:
    """Two peaks per window of 2000 bases, runs of 20 bases."""
    rng = np.random.default_rng(1)
    starts = np.arange(0, bases, 20)
    mean = np.where((starts % 2000 > 600) & (starts % 2000 < 900), 25.0, 2.0)
    rows = [pd.DataFrame({"sample_id": f"s{k}", "chrom": "chr1", "chromStart": starts,
                          "chromEnd": starts + 20, "count": rng.poisson(mean)})
            for k in range(n_samples)]
    return pd.concat(rows, ignore_index=True)


@pytest.fixture
def page(tmp_path):
    p = label_page(_coverage(), tmp_path / "labels.csv", window_bases=2000, max_peaks=10,
                   model_out=tmp_path / "model.json")
    yield p
    p.stop()


def _request(url: str, body=None, *, raw: bytes | None = None, headers=None):
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={
        "Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null") if "json" in \
                r.headers.get("Content-Type", "") else r.read()
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def _session(url: str) -> tuple[str, dict]:
    """(the page's address, the header of its secret) from a one-time link, traded as
    the page trades it."""
    base, one = url.split("/?token=")
    status, body = _request(f"{base}/api/session", {"token": one})
    assert status == 200, body
    return base, {body["header"]: body["token"]}


def _api(page, path: str, body=None, *, headers=None, **kw):
    if not hasattr(page, "_session"):
        page._session = _session(page.url)
    base, auth = page._session
    return _request(f"{base}{path}", body, headers={**auth, **(headers or {})}, **kw)


def _label(page, start, end, ann="peakStart", samples="all"):
    return _api(page, "/api/label", {"chrom": "chr1", "start": start, "end": end,
                                     "annotation": ann, "samples": samples})


def test_the_handle_shows_its_url(page):
    text = repr(page)
    assert text == f"LabelPage({page.address}; .url gives a link)" and "\n" not in text
    assert page.url.startswith(page.address + "?token=") and page.url != page.url
    assert 'src="http://127.0.0.1:' in page._repr_html_()


def test_every_data_request_needs_the_header(page):
    base, one = page.url.split("/?token=")
    for path in ("/api/state", "/api/window?i=0", "/chrom.sizes"):
        assert _request(base + path)[0] == 403, path
        assert _request(base + path + ("&" if "?" in path else "?") + "token=" + one
                        )[0] == 403  # a link's token is no key to the data
        assert _request(base + path, headers={"X-Penlearn-Token": one})[0] == 403
    for path in ("/", "/static/igv.min.js", "/static/label.js"):  # the package's files
        assert _request(base + path)[0] == 200
    status, _ = _request(base + "/api/label", {"chrom": "chr1", "start": 1, "end": 9,
                                               "annotation": "peaks", "samples": "all"})
    assert status == 403
    assert _request(base + "/api/state", headers=page.headers)[0] == 200
    assert _request(base + "/api/state", headers={"X-Penlearn-Token": "wrong"})[0] == 403
    assert not (Path(page.state.labels_path)).exists()  # nothing written


def test_no_request_reaches_a_path(page, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    for path in ("/static/../state.py", "/static/%2e%2e/server.py", "/static/igv.LICENSE",
                 f"/static/{secret}", "/../secret.txt", "/api/window?i=../../x"):
        status, body = _api(page, path)
        assert status in (400, 404), path
        assert b"private" not in json.dumps(body).encode()
    status, _ = _label(page, 100, 200, samples=["../secret.txt"])
    assert status == 422
    status, _ = _api(page, "/api/delete", {"sample": str(secret), "chrom": "chr1",
                                           "start": 1, "end": 2})
    assert status == 200 and secret.read_text() == "private"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".labels.csv.lock", "secret.txt"]


def test_malformed_requests_get_4xx_and_change_nothing(page):
    assert _label(page, 100, 300)[0] == 200
    before = page.state.labels_path.read_bytes()
    bad = [({"chrom": "chr1", "start": 300, "end": 100, "annotation": "peaks",
             "samples": "all"}, 422),
           ({"chrom": "chr1", "start": 1.5, "end": 100, "annotation": "peaks",
             "samples": "all"}, 400),
           ({"chrom": "chr1", "start": 10, "end": 100, "annotation": "peak",
             "samples": "all"}, 422),
           ({"chrom": "chrX", "start": 10, "end": 100, "annotation": "peaks",
             "samples": "all"}, 422),
           ({"chrom": "chr1", "start": 1500, "end": 2500, "annotation": "peaks",
             "samples": "all"}, 422),  # across two windows
           ({"chrom": "chr1", "start": 10, "end": 100, "annotation": "peaks",
             "samples": "s0"}, 400),
           ([1, 2], 400)]
    for body, code in bad:
        assert _api(page, "/api/label", body)[0] == code, body
    assert _api(page, "/api/label", raw=b"{not json")[0] == 400
    assert _api(page, "/api/label", raw=b"x" * (MAX_BODY + 1))[0] == 413
    assert _api(page, "/api/nothing", {})[0] == 404
    assert page.state.labels_path.read_bytes() == before


def test_labels_file_save_model_undo_and_resume(page, tmp_path):
    assert _label(page, 600, 700, "peakStart")[0] == 200
    assert _label(page, 100, 300, "noPeaks", ["s1"])[0] == 200
    lab = pd.read_csv(page.state.labels_path)
    assert list(lab.columns) == LABEL_FILE_COLUMNS
    assert lab[["sample_id", "chromStart", "annotation"]].values.tolist() == [
        ["s1", 100, "noPeaks"], ["s0", 600, "peakStart"], ["s1", 600, "peakStart"]]
    # a label over another of the same sample replaces it (change)
    assert _label(page, 600, 700, "peaks", ["s0"])[0] == 200
    assert _api(page, "/api/undo", {})[1]["undone"] is True
    assert pd.read_csv(page.state.labels_path)["annotation"].tolist() == [
        "noPeaks", "peakStart", "peakStart"]
    view = _api(page, "/api/window?i=0")[1]
    assert [len(s["labels"]) for s in view["samples"]] == [1, 2]
    assert {st for s in view["samples"] for *_, st in s["labels"]} <= {"correct", "FP", "FN"}
    page.state.wait_learning()
    live = page.state.log_lambda.to_numpy()  # the page's own refit, on its windows
    status, body = _api(page, "/api/save-model", {})
    assert status == 200
    model = PenaltyModel.load(tmp_path / "model.json", task="peaks")
    assert model.predict(page.state.features).shape == (len(page.state.features),)
    # reopened on the same file: the same labels, the page's same refit (Save model showed
    # penlearn learn's model, learned on the samples' chromosomes: see test_label_learning)
    again = label_page(_coverage(), tmp_path / "labels.csv", window_bases=2000, max_peaks=10)
    try:
        assert again.state.labels.equals(page.state.labels)
        assert again.state.resume_window() == 0
        again.state.wait_learning()
        assert np.array_equal(again.state.log_lambda.to_numpy(), live)
    finally:
        again.stop()


def test_two_clients_lose_no_label(page):
    def worker(k):
        for j in range(3):
            a = 2000 * (k % 2) + 100 * (3 * (k // 2) + j) + 10
            assert _label(page, a, a + 50, "noPeaks", [f"s{k // 2 % 2}"])[0] == 200

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(pd.read_csv(page.state.labels_path)) == 12
    # another writer of the file between two changes: its labels are kept too
    lab = pd.read_csv(page.state.labels_path)
    extra = pd.DataFrame([["s0", "chr1", 1900, 1950, "noPeaks"]], columns=LABEL_FILE_COLUMNS)
    time.sleep(0.01)
    pd.concat([lab, extra]).to_csv(page.state.labels_path, index=False)
    assert _label(page, 3900, 3950, "noPeaks", ["s1"])[0] == 200
    assert len(pd.read_csv(page.state.labels_path)) == 14


def test_kill_9_between_labels_loses_nothing(tmp_path):
    cov = tmp_path / "coverage.csv"
    _coverage().to_csv(cov, index=False)
    labels = tmp_path / "labels.csv"
    cmd = [sys.executable, "-m", "penlearn.cli", "label", str(cov), "--labels", str(labels),
           "--no-browser", "--window-size", "2000", "--max-peaks", "10", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        url = ""
        while "token=" not in url:
            url = proc.stdout.readline().strip()
            assert url or proc.poll() is None
        page = type("P", (), {"url": url})
        assert _label(page, 600, 700, "peakStart")[0] == 200
        assert _label(page, 2100, 2300, "noPeaks", ["s0"])[0] == 200
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".labels.csv.lock", "coverage.csv",
                                                          "labels.csv"]
    lab = read_label_file(labels, ["s0", "s1"])
    assert lab[["sample_id", "chromStart", "annotation"]].values.tolist() == [
        ["s0", 600, "peakStart"], ["s1", 600, "peakStart"], ["s0", 2100, "noPeaks"]]


def test_page_windows_cut_the_coverage_in_equal_parts():
    cov = _coverage(bases=8000)
    assert page_windows(cov, 2000)["chromStart"].tolist() == [0, 2000, 4000, 6000]


def test_the_page_says_how_many_paths_of_a_window_are_computed(page):
    """(a label in a window waits for its samples' paths: the page shows the count)"""
    status, view = _api(page, "/api/window?i=1")
    assert status == 200 and 0 <= view["paths_ready"] <= 2
    page.state.path("s0", 1)
    page.state.path("s1", 1)
    assert _api(page, "/api/version?i=1")[1]["paths_ready"] == 2
    assert "paths_ready" not in _api(page, "/api/version")[1]
    assert _api(page, "/api/version?i=9")[0] == 400
    assert _api(page, "/api/version?i=x")[0] == 400
