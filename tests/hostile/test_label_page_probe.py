"""The fifth hostile probe: the labeling page (``penlearn label``, ``label_page``) fed
labels files and requests a demanding user makes, its learner worker stopped and killed.
Each test failed before its fix (see tests/hostile/README.md)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

import numpy as np
import pandas as pd
import pytest

from penlearn.label import label_page
from penlearn.label.learning import LearnerProcess, _receive, _send
from penlearn.label.state import LabelState
from penlearn.learn.prior import constant_model

HEADER = "sample_id,chrom,chromStart,chromEnd,annotation\n"


def _coverage(n_samples: int = 2, bases: int = 4000) -> pd.DataFrame:
    """A peak of 25 over a background of 2 in each window of 2000 bases, runs of 20."""
    rng = np.random.default_rng(1)
    starts = np.arange(0, bases, 20)
    mean = np.where((starts % 2000 > 600) & (starts % 2000 < 900), 25.0, 2.0)
    return pd.concat([pd.DataFrame({"sample_id": f"s{k}", "chrom": "chr1",
                                    "chromStart": starts, "chromEnd": starts + 20,
                                    "count": rng.poisson(mean)})
                      for k in range(n_samples)], ignore_index=True)


def _state(path, **kw) -> LabelState:
    return LabelState(_coverage(), path, window_bases=2000, max_peaks=10, **kw)


def _rows(state) -> list:
    return state.labels[["sample_id", "chrom", "chromStart", "chromEnd",
                         "annotation"]].values.tolist()


def test_a_sample_given_twice_is_labeled_once(tmp_path):
    # was: both rows written (overlapping labels in the file), then a 422 from the refit
    state = _state(tmp_path / "labels.csv")
    try:
        assert state.add_label("chr1", 100, 200, "noPeaks", ["s0", "s0"]) == 1
        assert _rows(state) == [["s0", "chr1", 100, 200, "noPeaks"]]
        assert (tmp_path / "labels.csv").read_text() == HEADER + "s0,chr1,100,200,noPeaks\n"
    finally:
        state.close()


def test_a_file_whose_last_label_was_deleted_reopens(tmp_path):
    # was: "labels file ... has no labels" — the page's own file after delete / undo
    path = tmp_path / "labels.csv"
    state = _state(path)
    try:
        state.add_label("chr1", 100, 200, "noPeaks", ["s0"])
        assert state.delete_label("s0", "chr1", 100, 200) == 1
    finally:
        state.close()
    assert path.read_text() == HEADER
    again = _state(path)
    try:
        assert _rows(again) == [] and again.resume_window() == 0
    finally:
        again.close()


def test_samples_listed_in_the_labels_text_format(tmp_path):
    # was: the label held for every sample, the listed one and the others alike
    path = tmp_path / "labels.txt"
    path.write_text("chr1:101-200 peaks s0\n")
    state = _state(path)
    try:
        assert _rows(state) == [["s0", "chr1", 100, 200, "peaks"],
                                ["s1", "chr1", 100, 200, "noPeaks"]]
    finally:
        state.close()
    path.write_text("chr1:101-200 peaks kidney\n")  # a group the page cannot know
    with pytest.raises(ValueError, match=r"labels\.txt, line 1: 'kidney' is no sample id"):
        _state(path)


def test_the_files_other_columns_survive_a_change(tmp_path):
    # was: the first label rewrote the file without its cell_type column
    path = tmp_path / "labels.csv"
    path.write_text("sample_id,chrom,chromStart,chromEnd,annotation,cell_type\r\n"
                    "s0,chr1,100,200,noPeaks,kidney\r\n")
    state = _state(path)
    try:
        state.add_label("chr1", 2100, 2200, "peaks", ["s1"])
    finally:
        state.close()
    assert path.read_text() == ("sample_id,chrom,chromStart,chromEnd,annotation,cell_type\n"
                                "s0,chr1,100,200,noPeaks,kidney\n"
                                "s1,chr1,2100,2200,peaks,\n")


@pytest.mark.parametrize("where, needle", [("folder", "is a folder"),
                                           ("orphan", "does not exist")])
def test_the_labels_path_is_checked_before_the_page_starts(tmp_path, where, needle):
    # was (Python): IsADirectoryError, or a page that failed at its first label
    path = tmp_path if where == "folder" else tmp_path / "no-such-folder" / "labels.csv"
    with pytest.raises(ValueError, match=f"labels .*{needle}"):
        label_page(_coverage(), path, window_bases=2000, max_peaks=10)


def test_a_port_in_use_is_named(tmp_path):
    # was: "Address already in use" alone (which address? which option?)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ValueError, match=f"port {port}: .*in use.*--port"):
            label_page(_coverage(), tmp_path / "labels.csv", window_bases=2000,
                       max_peaks=10, port=port)
    assert not (tmp_path / "labels.csv").exists()


def test_a_write_that_fails_is_a_json_error_without_traceback(tmp_path, monkeypatch, capfd):
    # was: a 500 with a traceback on the server's terminal
    import json
    import urllib.error
    import urllib.request

    import penlearn.label.state as state_module

    def full_disk(path, text):
        raise OSError(28, "No space left on device", str(path))

    page = label_page(_coverage(), tmp_path / "labels.csv", window_bases=2000,
                      max_peaks=10)
    try:
        monkeypatch.setattr(state_module, "write_text_atomic", full_disk)
        req = urllib.request.Request(
            f"{page.address}api/label", data=json.dumps(
                {"chrom": "chr1", "start": 100, "end": 200, "annotation": "peaks",
                 "samples": "all"}).encode(),
            headers={**page.headers, "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=60)
        assert err.value.code == 500
        assert json.loads(err.value.read())["error"].startswith(
            "could not write: [Errno 28] No space left on device")
        assert len(page.state.labels) == 0 and page.state.version == 0
    finally:
        page.stop()
    assert "Traceback" not in capfd.readouterr().err


def _job():
    ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
                       "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0],
                       "errors": [1, 0], "possible_fp": 1, "possible_fn": 0, "labels": 1})
    return pd.DataFrame({"x": [0.0]}, index=["a"]), ev, constant_model(["x"], 0.0)


def _worker():
    from penlearn.label.learning import _worker_command
    return subprocess.Popen(_worker_command(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_worker_says_nothing_when_the_page_is_gone():
    # was: two BrokenPipeError tracebacks on the user's terminal after a kill of the page
    proc = _worker()
    _send(proc.stdin, _job())
    proc.stdout.close()  # the page is gone before the answer
    _send(proc.stdin, _job())
    proc.stdin.close()
    assert proc.wait(60) == 0
    assert proc.stderr.read() == b""
    proc.stderr.close()


def test_ctrl_c_in_the_terminal_leaves_the_worker_to_the_page():
    # was: a KeyboardInterrupt traceback of the worker after "penlearn label: stopped"
    proc = _worker()
    _send(proc.stdin, _job())  # an answer: its imports are done, serve() is running
    assert _receive(proc.stdout)[0] == "ok"
    os.kill(proc.pid, signal.SIGINT)
    time.sleep(0.3)
    assert proc.poll() is None  # alive: the page ends it
    proc.stdin.close()  # ... as it does (or its pipes close)
    assert proc.wait(60) == 0
    assert proc.stderr.read() == b""
    proc.stdout.close()
    proc.stderr.close()


def test_no_worker_is_started_after_the_page_stopped():
    # was: a refit waiting out its delay at stop() started a worker that outlived the page
    proc = LearnerProcess()
    proc.shutdown()
    assert proc.run(*_job()) is None
    assert proc._proc is None


def test_coverage_and_options_of_the_python_page(tmp_path):
    # was: a KeyError for an empty table; window_bases=0 silently the default; ...
    import copy

    from _hostile import Error, check_cases

    from penlearn.peaks.pretrained import load_pretrained

    other_task = copy.deepcopy(load_pretrained().model)
    other_task.task_ = "changepoint"
    path = tmp_path / "labels.csv"
    cases = [
        ("an empty coverage table",
         lambda: label_page(_coverage().iloc[:0], path), Error("coverage has no rows")),
        ("coverage without count",
         lambda: label_page(_coverage().drop(columns="count"), path), Error("count")),
        ("window_bases=0", lambda: label_page(_coverage(), path, window_bases=0),
         Error("window_bases", "got 0")),
        ("a model object of another task",
         lambda: label_page(_coverage(), path, model=other_task, window_bases=2000,
                            max_peaks=10),
         Error("model is a model of the task 'changepoint'")),
        ("model_out a folder",  # was: a 500 at "Save model"
         lambda: label_page(_coverage(), path, model_out=tmp_path, window_bases=2000),
         Error("model_out", "is a directory")),
        ("model_out the labels file",  # was: the model written over the labels
         lambda: label_page(_coverage(), path, model_out=path, window_bases=2000),
         Error("model_out", "is the input")),
    ]
    check_cases(cases, at_least=6)
    assert not path.exists()


def test_labels_the_page_cannot_use_are_said(tmp_path):
    # was: labels of a misspelt sample or outside every window silently not learned from
    path = tmp_path / "labels.csv"
    path.write_text(HEADER + "S0,chr1,100,200,peaks\ns0,chr1,1900,2100,noPeaks\n"
                    "s1,chr1,100,200,noPeaks\n")
    with pytest.warns(UserWarning) as seen:
        state = _state(path)
    state.close()
    said = [str(w.message) for w in seen if w.category is UserWarning]
    assert [m for m in said if "shorter than the shortest window" not in m] == [
        f"labels {path}: 1 label(s) of samples not in the coverage ('S0') and 1 label(s) "
        "in no window of the page (e.g. chr1:1900-2100); they are kept in the file but "
        "neither shown nor learned from"]
    assert len(state.labels) == 3


def test_undo_keeps_the_labels_of_a_second_page(tmp_path):
    # was: undo wrote back this page's table from before its change: the second page's
    # label made meanwhile was lost
    path = tmp_path / "labels.csv"
    one, two = _state(path), _state(path)
    try:
        one.add_label("chr1", 100, 200, "noPeaks", ["s0"])
        one.add_label("chr1", 150, 300, "peaks", ["s0"])  # replaces the first
        two.add_label("chr1", 2100, 2200, "peakStart", ["s1"])
        assert one.undo()  # the replacement undone: the first label back
        assert path.read_text() == HEADER + ("s0,chr1,100,200,noPeaks\n"
                                             "s1,chr1,2100,2200,peakStart\n")
        one.add_label("chr1", 150, 300, "peaks", ["s0"])  # replaces it again
        two.add_label("chr1", 50, 120, "peaks", ["s0"])  # where undo would put it back
        with pytest.raises(ValueError, match="cannot undo: labels made meanwhile"):
            one.undo()
        assert path.read_text() == HEADER + ("s0,chr1,50,120,peaks\n"
                                             "s0,chr1,150,300,peaks\n"
                                             "s1,chr1,2100,2200,peakStart\n")
    finally:
        one.close()
        two.close()


def test_the_command_says_a_port_in_use_before_reading_the_coverage(tmp_path):
    # was: the coverage read (and numba warmed) first, then "Address already in use"
    from _hostile import run_cli

    (tmp_path / "cov.bedGraph").write_text("not coverage\n")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ValueError, match=f"error: cannot listen on host '127.0.0.1', "
                                             f"port {port}: .*in use"):
            run_cli(["label", tmp_path / "cov.bedGraph", "--labels", tmp_path / "l.csv",
                     "--no-browser", "--port", port])


def test_an_ipv6_loopback_host(tmp_path):
    # was: "::1" taken as loopback (no warning) but the server could not bind it
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    page = label_page(_coverage(), tmp_path / "labels.csv", window_bases=2000,
                      max_peaks=10, host="::1")
    try:
        assert page.url.startswith("http://[::1]:")
        import urllib.request
        req = urllib.request.Request(page.address + "api/state", headers=page.headers)
        with urllib.request.urlopen(req, timeout=60) as r:
            assert r.status == 200
    finally:
        page.stop()


def test_bodies_json_cannot_hold_are_400(tmp_path, capfd):
    # was: a 500 and a RecursionError traceback for deep nesting; a 422 quoting Python's
    # integer-digits limit for a 5000-digit number
    import urllib.error
    import urllib.request

    page = label_page(_coverage(), tmp_path / "labels.csv", window_bases=2000,
                      max_peaks=10)
    try:
        for raw in (b"[" * 32000 + b"]" * 32000,
                    b'{"chrom": "chr1", "start": 1' + b"0" * 5000 + b', "end": 2}'):
            req = urllib.request.Request(f"{page.address}api/label", data=raw, headers={
                **page.headers, "Content-Type": "application/json"})
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(req, timeout=60)
            assert (err.value.code, err.value.read()) == (
                400, b'{"error": "the body must be JSON"}')
    finally:
        page.stop()
    assert "Traceback" not in capfd.readouterr().err
    assert not (tmp_path / "labels.csv").exists()


def test_a_labels_file_behind_a_link_gets_the_labels(tmp_path):
    # was: the atomic rename replaced the link by a file; the file linked to kept none
    real = tmp_path / "shared" / "labels.csv"
    real.parent.mkdir()
    real.write_text(HEADER + "s0,chr1,100,200,noPeaks\n")
    link = tmp_path / "labels.csv"
    link.symlink_to(real)
    state = _state(link)
    try:
        state.add_label("chr1", 2100, 2200, "peaks", ["s1"])
    finally:
        state.close()
    assert link.is_symlink()
    assert real.read_text() == HEADER + "s0,chr1,100,200,noPeaks\ns1,chr1,2100,2200,peaks\n"
