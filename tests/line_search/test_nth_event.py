"""``nth_event`` (the n-th event from two sorts) against the event-by-event walk, and the
ridge step that uses it (``fitting.descent.l2_step``) against the path-based step.

Equality, not closeness: the step of the n-th event is the walk's float, and the ridge
step is the path's choice, whenever the fast route answers (it must answer on continuous
random data, or these tests would compare nothing).
"""

from __future__ import annotations

import numpy as np
import pytest

from penlearn import Breakpoints
from penlearn.aum import aum, tied_aum
from penlearn.fitting import descent
from penlearn.line_search import aum_path, breakpoint_lines, line_search
from penlearn.line_search._common import merge_lines
from penlearn.line_search.nth_event import inversions, nth_event


def _bp(rng, n, b, integer=False, valid=False):
    """Random breakpoints; ``valid``: FP and FN never negative (fp jumps up, fn down),
    as AUM needs; the line search takes any."""
    ex = rng.integers(0, n, size=b)
    fp = rng.choice([0.0, 1.0, 2.0] + ([] if valid else [-1.0]), size=b) / (
        1.0 if integer else 3.0)
    fn = rng.choice([0.0, -1.0, -2.0] + ([] if valid else [1.0]), size=b) / (
        1.0 if integer else 7.0)
    keep = (fp != 0) | (fn != 0)
    value = (rng.integers(-5, 6, size=keep.sum()).astype(float) if integer
             else rng.normal(size=keep.sum()) * 3)
    return Breakpoints(ex[keep], value, fp[keep], fn[keep], n)


def test_inversions_are_every_inverted_pair():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 80))
        pos = np.arange(n)
        for _ in range(int(rng.integers(0, 6))):  # nearly sorted, some lines far away
            i, j = rng.integers(0, n, 2)
            pos[[i, j]] = pos[[j, i]]
        pos = pos[np.argsort(np.arange(n) + rng.normal(scale=rng.choice([0.5, 3, 30]),
                                                       size=n))]
        i, j = inversions(pos)
        got = sorted(zip(i.tolist(), j.tolist()))
        ref = [(a, b) for a in range(n) for b in range(a + 1, n) if pos[a] > pos[b]]
        assert got == ref


@pytest.mark.parametrize("seed", range(12))
def test_nth_event_is_the_walks_event(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    bp = _bp(rng, n, int(rng.integers(50, 500)))
    scores = rng.normal(size=n)
    slopes = rng.normal(size=n) * (1 + 9 * (seed % 2))
    k = int(rng.integers(1, 3 * len(bp)))
    lines = breakpoint_lines(bp, scores, slopes)
    ref = aum_path(bp, scores, slopes, events=k)
    got = nth_event(*lines, n=k, guess=None if seed % 3 else 1e-3)
    if len(ref) <= k:  # fewer events than k + 1 in all: not certified
        assert got is None
        return
    assert got is not None  # continuous values: no ties to refuse
    np.testing.assert_array_equal(got.steps, ref["step_size"].to_numpy()[1:k + 1])
    assert got.aum == pytest.approx(ref["aum"].iloc[0], rel=1e-12, abs=1e-12)
    # the bound holds over (0, s_k]: the slope after step 0 and after each event before k
    assert ref["aum_slope_after"].to_numpy()[:k].max() <= got.slope_max + 1e-12 * got.scale
    walk = line_search(bp, scores, slopes, stop=k).path["step_size"].to_numpy()
    assert walk[k] == got.steps[-1]  # the sequential walk's own float


def test_nth_event_refuses_ties_and_multi_way_events():
    rng = np.random.default_rng(3)
    bp = _bp(rng, 30, 300, integer=True)  # integer thresholds and slopes: many ties
    scores = rng.integers(-3, 4, size=30).astype(float)
    slopes = rng.choice([-1.0, 0.0, 1.0], size=30)
    lines = breakpoint_lines(bp, scores, slopes)
    assert nth_event(*lines) is None


def _l2_problem(rng, n=80, p=5):
    X = rng.normal(size=(n, p))
    bp = _bp(rng, n, 6 * n, valid=True)
    w = rng.normal(size=p)
    scores = X @ w
    d = -(X.T @ aum(bp, scores).derivatives.mean(axis=1) + 0.1 * w)
    return bp, scores, X @ d, w, d


@pytest.mark.parametrize("l2", [0.0, 0.1, 1.0, 10.0])
def test_l2_step_fast_route_is_the_path_step(monkeypatch, l2):
    rng = np.random.default_rng(int(l2 * 10))
    fast = 0
    for _ in range(30):
        bp, scores, slopes, w, d = _l2_problem(rng)
        got = descent.l2_step(bp, scores, slopes, w, d, l2)
        fast += descent._l2_step_at_end(bp, scores, slopes, w, d, l2, None) is not None
        with monkeypatch.context() as m:
            m.setattr(descent, "_l2_step_at_end", lambda *a: None)
            ref = descent.l2_step(bp, scores, slopes, w, d, l2)
        assert got == ref  # the same float and event count
    assert fast > 0  # the fast route answered (else this compared the path with itself)


def test_merge_lines_is_lexsort_and_reduceat():
    rng = np.random.default_rng(1)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        ic = rng.integers(0, max(2, n // int(rng.integers(1, 5))), n).astype(float) * 0.1
        sl = rng.integers(0, int(rng.integers(1, 4)), n).astype(float) * 0.3
        fp, fn = rng.random(n) / 3, -rng.random(n) / 7
        order = np.lexsort((sl, ic))
        ic_s, sl_s = ic[order], sl[order]
        new = np.r_[True, (ic_s[1:] != ic_s[:-1]) | (sl_s[1:] != sl_s[:-1])]
        starts = np.flatnonzero(new)
        ref = (ic_s[starts], sl_s[starts], np.add.reduceat(fp[order], starts),
               np.add.reduceat(fn[order], starts))
        for a, b in zip(merge_lines(ic, sl, fp, fn), ref, strict=True):
            np.testing.assert_array_equal(a, b)


def test_tied_aum_is_aum():
    rng = np.random.default_rng(2)
    for _ in range(50):
        bp = _bp(rng, 40, 200, integer=True, valid=True)
        scores = rng.integers(-2, 3, size=40).astype(float)
        t = bp.value - scores[bp.example]
        assert tied_aum(bp, t, np.argsort(t)) == aum(bp, scores).aum
