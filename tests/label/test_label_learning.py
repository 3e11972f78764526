"""The labeling page's refits: what ``penlearn learn`` learns, at once while that is the
prior's level shift, else in a worker process of its own (never the server's threads)."""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import need
from test_label_server import _coverage

from penlearn.label import learning
from penlearn.label.learning import LearnerProcess, full_refit, learned_at_once
from penlearn.label.state import LabelState
from penlearn.learn import learn_penalty
from penlearn.learn.level_shift import SHIFT_MAX_SEQUENCES
from penlearn.peaks.pretrained import shipped_model

SHIPPED = shipped_model().model  # the page's prior (narrow-mark level)


def _predict(model, features):
    return model.predict(features)


def _state(tmp_path, n_samples, bases):
    return LabelState(_coverage(n_samples, bases), tmp_path / "labels.csv",
                      window_bases=2000, max_peaks=10)


def _label_windows(st, windows):
    """A peakStart over the first peak and a noPeaks before it, every sample, in each
    of ``windows``."""
    for i in windows:
        a = int(st.windows["chromStart"].iat[i])
        st.add_label("chr1", a + 580, a + 700, "peakStart", st.samples)
        st.add_label("chr1", a + 100, a + 400, "noPeaks", st.samples)


def test_few_labeled_sequences_learn_what_penlearn_learn_learns_at_once(tmp_path):
    st = _state(tmp_path, 3, 4000)
    try:
        _label_windows(st, [0])
        st.wait_learning()  # (nothing to wait for: the model is learned at once)
        _label_windows(st, [1])  # the level from the prior again, not from the last model
        ev = st.evaluation_
        assert ev["sequence_id"].nunique() == 6 and learned_at_once(ev)
        assert st._learning is None  # nothing left to the background: this is the model
        ids = list(pd.unique(ev["sequence_id"]))
        want = learn_penalty(st.features.loc[ids], ev, prior=SHIPPED, progress=False)
        assert np.array_equal(st.log_lambda.to_numpy(), _predict(want, st.features))
        assert st.model_note == want.describe()
    finally:
        st.close()


def test_many_labeled_sequences_learn_in_the_worker_process(tmp_path):
    st = _state(tmp_path, 6, 8000)  # 4 windows × 6 samples: 24 labeled sequences
    try:
        _label_windows(st, range(4))
        ev = st.evaluation_
        assert ev["sequence_id"].nunique() == 24 > SHIFT_MAX_SEQUENCES
        assert not learned_at_once(ev)
        quick = st.log_lambda.copy()
        st.wait_learning()
        assert not st._process.in_process  # learned in the worker, not in this process
        want = full_refit(st.features, ev, SHIPPED)
        assert np.array_equal(st.log_lambda.to_numpy(), _predict(want, st.features))
        assert st.model_note == want.describe()
        assert quick.index.equals(st.log_lambda.index)
    finally:
        st.close()


def test_a_worker_that_cannot_start_learns_in_process(monkeypatch):
    ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
                       "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0],
                       "errors": [1, 0], "possible_fp": 1, "possible_fn": 0, "labels": 1})
    x = SHIPPED.coef_.index
    feats = pd.DataFrame([np.ones(len(x))], columns=x, index=["a"])
    proc = LearnerProcess()
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    try:
        model = proc.run(feats, ev, SHIPPED)
    finally:
        proc.shutdown()
    assert proc.in_process
    assert np.array_equal(model.predict(feats), full_refit(feats, ev, SHIPPED).predict(feats))


def test_the_worker_answers_an_error_and_goes_on():
    inp = io.BytesIO()
    learning._send(inp, ("not a table", None, None))
    inp.seek(0)
    out = io.BytesIO()
    learning.serve(inp, out)  # ends at the end of its input
    out.seek(0)
    status, message = learning._receive(out)
    assert status == "error" and message
    with pytest.raises(EOFError):
        learning._receive(out)


def test_peaks_beyond_a_path_are_the_models_at_that_penalty(tmp_path):
    """Below a path's bound the page solves at the model's penalty; two solves with the
    same peak count stand for every penalty between them (the count never increases
    with the penalty), else the penalty between is solved: each equals a direct solve."""
    import math

    from penlearn.peaks.peakseg.calls import reported_segments
    from penlearn.peaks.peakseg.solver import peakseg

    st = LabelState(_coverage(1, 2000), tmp_path / "labels.csv", window_bases=2000,
                    max_peaks=1)
    try:
        sid = st.ids_by[("s0", 0)]
        assert float(st.path("s0", 0).models["min_log_lambda"].min()) > 4.0  # bounded
        cov = st.cov[("s0", 0)]

        def direct(ll):  # as penlearn peaks reports a model: equal-mean runs joined
            p = reported_segments(peakseg(cov, math.exp(ll)).segments)
            return p.loc[p["status"] == "peak", ["chromStart", "chromEnd"]].reset_index(
                drop=True)

        def show(ll):
            st.log_lambda[sid] = ll
            st.solve_missing(0)
            got = st.peaks("s0", 0)
            assert got.equals(direct(ll))
            return len(st._solved[("s0", 0)])

        # 40 peaks at both ends (this data): the middle is known without a solve
        assert [show(-1.0), show(-0.2), show(-0.6)] == [1, 2, 2]
        # 18 and 8 peaks: the middle is solved
        assert [show(3.0), show(4.0), show(3.5)] == [3, 4, 5]
    finally:
        st.close()


def test_the_worker_imports_this_penlearn_and_never_the_working_directory(
        monkeypatch, tmp_path):
    """The worker's path is this process's (a checkout put on sys.path by hand is found
    there too) less the working directory: a ``pickle.py`` in the folder the user starts
    from is never imported, and PYTHONPATH set after the page started changes nothing."""
    import subprocess
    from pathlib import Path

    import penlearn

    (tmp_path / "pickle.py").write_text("raise SystemExit('the pickle.py of the cwd ran')\n")
    (tmp_path / "struct.py").write_text("raise SystemExit('the struct.py of the cwd ran')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    cmd = learning._worker_command()
    assert cmd[1] == "-I"
    root = str(Path(penlearn.__file__).resolve().parents[1])
    assert root in cmd[-1] and str(tmp_path) not in cmd[-1]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
                       "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0],
                       "errors": [1, 0], "possible_fp": 1, "possible_fn": 0, "labels": 1})
    from penlearn.learn.prior import constant_model
    learning._send(proc.stdin, (pd.DataFrame({"x": [0.0]}, index=["a"]), ev,
                                constant_model(["x"], 0.0)))
    status, _ = learning._receive(proc.stdout)
    proc.stdin.close()
    assert proc.wait(120) == 0
    assert status == "ok"
    assert proc.stderr.read() == b""
    proc.stdout.close()
    proc.stderr.close()


def test_the_worker_is_out_of_the_terminals_reach():
    """Its own session: a Ctrl-C in the terminal stops the page, which ends the worker
    (no traceback of a worker interrupted in its imports)."""
    import os

    proc = LearnerProcess()
    try:
        proc.warm()
        assert os.getsid(proc._proc.pid) != os.getsid(0)
    finally:
        proc.shutdown()


def test_the_saved_model_is_what_learn_writes_on_chunk1(data_dir, tmp_path):
    """Save model learns on ``penlearn learn``'s sequences (each sample's chromosome),
    not on the page's windows: the two files hold one model (issue 53: the page's
    intercept was 4.34 where learn's was 4.98)."""
    import json

    from penlearn.cli import main
    from penlearn.peaks.formats.coverage import read_coverage
    from penlearn.peaks.label_windows import page_windows

    chunk = need(data_dir / "chipseq_raw/H3K4me3_XJ_immune_chunk1")
    cov = read_coverage(chunk / "coverage.csv.gz", progress=False)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "coverage.csv.gz").symlink_to(chunk / "coverage.csv.gz")
    windows = page_windows(cov, 2000)  # the page's sequences: 5 windows, learn's: 1
    edges = windows["chromStart"].tolist() + [int(windows["chromEnd"].iloc[-1])]
    rows = []
    for sid in sorted(cov["sample_id"].unique())[:6]:  # a peak at each top row, a flat end
        c = cov[cov["sample_id"] == sid]
        top = c.loc[c["count"].idxmax()]
        k = max(i for i in range(len(edges) - 1) if edges[i] <= top["chromStart"])
        a = max(edges[k] + 1, int(top["chromStart"]) - 200)
        b = min(edges[k + 1] - 1, int(top["chromEnd"]) + 200)
        flat = (edges[0] + 100, edges[0] + 600) if k > 0 else (edges[-2] + 100, edges[-2] + 600)
        rows += [(sid, "chrUnknown", *flat, "noPeaks"), (sid, "chrUnknown", a, b, "peaks")]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                "annotation"]).to_csv(folder / "labels.csv", index=False)
    state = LabelState(cov, folder / "labels.csv", model_out=tmp_path / "page.json",
                       window_bases=2000)
    try:
        own = state.model.intercept_  # the page's, learned on its windows
        state.save_model()
        shown = state.model.intercept_  # the page's after the save
    finally:
        state.close()
    assert main(["learn", str(folder), "--out", str(tmp_path / "learn.json"), "--no-cache",
                 "--quiet"]) == 0
    page = json.loads((tmp_path / "page.json").read_text())
    learn = json.loads((tmp_path / "learn.json").read_text())
    assert page == learn
    assert own != page["intercept"] and shown == page["intercept"]
