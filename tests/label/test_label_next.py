"""The page's "Next": penlearn propose's rule (propose_from_paths) on the page's
candidates, exact kept paths or sketches; never a labeled (sample, window), windows left
with Next after the others; the same candidates as penlearn propose (issue 54); the
reason reaches the page."""

from __future__ import annotations

import json
import math
import urllib.request

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

from penlearn.label import label_page
from penlearn.label.proposals import NOTHING_LEFT, ranking_at_start_level, sketch_log_lambdas
from penlearn.label.state import LabelState
from penlearn.learn.propose import propose_from_paths
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.peakseg.solver import peakseg
from penlearn.peaks.propose import propose_windows, sketch_paths, sketch_shifts

N_WINDOWS, WIDTH = 6, 2000


def _coverage(n_samples: int = 3) -> pd.DataFrame:
    """One peak per window of 2000 bases, of a height that varies by window and sample
    (runs of 20 bases)."""
    rng = np.random.default_rng(3)
    starts = np.arange(0, N_WINDOWS * WIDTH, 20)
    rows = []
    for k in range(n_samples):
        height = rng.uniform(2.0, 40.0, N_WINDOWS)[starts // WIDTH]
        inside = (starts % WIDTH > 600) & (starts % WIDTH < 900)
        rows.append(pd.DataFrame({"sample_id": f"s{k}", "chrom": "chr1",
                                  "chromStart": starts, "chromEnd": starts + 20,
                                  "count": rng.poisson(np.where(inside, height, 2.0))}))
    return pd.concat(rows, ignore_index=True)


@pytest.fixture
def state(tmp_path):
    st = LabelState(_coverage(), tmp_path / "labels.csv", window_bases=WIDTH, max_peaks=10)
    yield st
    st.close()


def _expected(st: LabelState, current: int, left: set, exact_windows: set) -> tuple:
    """The rule computed here from its parts: the candidates' exact paths or sketches
    (PeakSeg solved at the dyadic grid over the likely shifts' 5–95 % quantiles)."""
    labeled = {int(i) for i in st.learn_labels()["window"] if i >= 0}
    ev = st.evaluation()
    shipped = st.zero.predict(st.features)  # the start: the zero-label log λ
    ll = st.log_lambda - float(np.median(st.log_lambda - shipped))
    q = sketch_shifts(ev if len(ev) else None, ll)
    parts = []
    for i in range(N_WINDOWS):
        if i in labeled or i in left | {current}:
            continue
        for s in st.samples:
            sid = st.ids_by[(s, i)]
            if i in exact_windows:
                m = st.path(s, i).models
                parts.append(pd.DataFrame({"sequence_id": sid, "min_log_lambda":
                                           m["min_log_lambda"], "max_log_lambda":
                                           m["max_log_lambda"]}))
                continue
            at = sketch_log_lambdas(ll[sid] + q[0], ll[sid] + q[-1])
            counts = [peakseg(st.cov[(s, i)], math.exp(x)).n_peaks for x in at]
            parts.append(sketch_paths(pd.DataFrame({"sequence_id": sid, "log_lambda": at,
                                                    "peaks": counts}))
                         .drop(columns="peaks"))
    out = propose_from_paths(pd.concat(parts, ignore_index=True), ll, 1,
                             labeled=ev if len(ev) else None)
    sid = out["sequence_id"].iloc[0]
    return int(st.window_of[sid]), sid, out["reason"].iloc[0]


def test_next_is_propose_from_paths_on_the_pages_paths(state):
    st = state
    assert st.next_window(0) == (*_expected(st, 0, set(), set()),)  # sketches only
    for k, s in enumerate(st.samples):  # labels in window 0 move the likely shifts
        st.add_label("chr1", 550, 700, "peakStart" if k else "noPeaks", [s])
    for i in (4, 5):  # shown: their exact paths are kept, and used in place of sketches
        st.view(i)
        for s in st.samples:
            st.path(s, i)
    st.wait_learning()
    st.next.wait()
    got = st.next_window(0)
    assert got == (*_expected(st, 0, set(), {4, 5}),)
    assert got.window != 0 and "labels so far" in got.reason
    assert st.labeled_windows() == {0}


def test_next_proposes_every_unlabeled_sample_left_windows_last(state):
    st = state
    st.add_label("chr1", 4600, 4700, "noPeaks", ["s1"])  # (s1, window 2) holds a label
    st.next.budget = 150  # one (sample, window) solved per press: a bound, not a stop
    seen, current = [], 0
    for _ in range(N_WINDOWS - 1):  # every other window once before any again
        nxt = st.next_window(current)
        assert nxt.window not in seen and nxt.window != current
        assert nxt.sequence_id != st.ids_by[("s1", 2)]
        seen.append(nxt.window)
        current = nxt.window
    # window 2 too: its samples s0 and s2 hold no label (a label is one sample's)
    assert sorted(seen + [0]) == list(range(N_WINDOWS))
    again = st.next_window(current)  # every window left once: a new round, not "none"
    assert again.window is not None and again.window != current
    # every (sample, window) labeled but (s0, 5): Next goes there, from anywhere
    for i in range(N_WINDOWS):
        samples = [s for s in st.samples if (s, i) != ("s0", 5) and (s, i) != ("s1", 2)]
        st.add_label("chr1", i * WIDTH + 100, i * WIDTH + 200, "noPeaks", samples)
    assert st.next.candidates() == {("s0", 5)}
    for current in (5, 0):
        nxt = st.next_window(current)
        assert (nxt.window, nxt.sequence_id) == (5, st.ids_by[("s0", 5)])
    st.add_label("chr1", 5 * WIDTH + 100, 5 * WIDTH + 200, "noPeaks", ["s0"])
    nxt = st.next_window(5)
    assert nxt == (None, None, NOTHING_LEFT)


def test_next_and_propose_agree_on_what_is_left(tmp_path):
    """Issue 54: on chunk1 (27 samples, one window), after 10 samples were labeled the
    page said nothing was left while ``penlearn propose`` proposed one of the 17 others.
    For a sequence of label states (on 8 of its samples: each labeled window costs
    ``propose`` its full error path) the page's candidates are propose's, and each says
    nothing is left exactly when the other does."""
    cov = pd.read_csv(need(DATA / "chipseq_raw" / "H3K4me3_XJ_immune_chunk1"
                           / "coverage.csv.gz"))
    cov = cov[cov["sample_id"].isin(pd.unique(cov["sample_id"])[:8])]
    st = LabelState(cov, tmp_path / "labels.csv", max_peaks=5)
    try:
        w = st.windows.iloc[0]
        samples, chrom = st.samples, str(w["chrom"])
        start, end = int(w["chromStart"]), int(w["chromEnd"])
        assert len(samples) == 8 and len(st.windows) == 1
        mid = (start + end) // 2
        for labeled in (0, 5, 8):
            done = samples[:labeled]
            if done:
                st.add_label(chrom, mid, mid + 500, "noPeaks", done)
            labels = read_peak_labels(tmp_path / "labels.csv") if done else None
            if labeled == 8:  # said, and an empty table
                with pytest.warns(UserWarning, match="no window left to propose"):
                    proposed = propose_windows(cov, 100, labeled=labels)
            else:
                proposed = propose_windows(cov, 100, labeled=labels)  # every candidate
            left = {st.ids_by[k] for k in st.next.candidates()}
            assert set(proposed["sequence_id"]) == left
            assert left == {st.ids_by[(s, 0)] for s in samples[labeled:]}
            nxt = st.next_window(0)
            assert (nxt.window is None) == (labeled == 8) == (len(proposed) == 0)
            if nxt.window is not None:
                assert nxt.sequence_id in left
    finally:
        st.close()


def test_the_reason_reaches_the_page(tmp_path):
    page = label_page(_coverage(2), tmp_path / "labels.csv", window_bases=WIDTH,
                      max_peaks=10)
    try:
        base = page.address.rstrip("/")
        req = urllib.request.Request(f"{base}/api/next?from=0", headers=page.headers)
        with urllib.request.urlopen(req, timeout=60) as r:
            out = json.loads(r.read())
        assert out["next"] == int(page.state.window_of[out["sequence_id"]]) != 0
        assert "model change" in out["reason"]
        with pytest.raises(urllib.error.HTTPError) as err:  # a window that is not one
            urllib.request.urlopen(urllib.request.Request(
                f"{base}/api/next?from={N_WINDOWS}", headers=page.headers), timeout=60)
        assert err.value.code == 400
    finally:
        page.stop()


def test_the_ranking_moves_to_the_start_level():
    now = pd.Series([3.0, 5.0, 4.0], index=list("abc"))
    start = pd.Series([1.0, 2.0, 3.0], index=list("abc"))
    assert ranking_at_start_level(now, start).tolist() == [1.0, 3.0, 2.0]
