"""The first-min search that skips slope-neutral blocks (``line_search.critical``) against
the event-by-event engine: the same step size (1e-12) on lines with multi-way ties and
near-ties, on many random lines with small brackets, and on real ChIP-seq descent steps;
and ``choose_step("first_min")``, which uses it, likewise."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import DATA, need
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_line_search_kernel import _chipseq_steps, near_tied_lines, tied_lines

from penlearn import aum, breakpoints_from_labels
from penlearn.breakpoints import Breakpoints
from penlearn.line_search import breakpoint_lines, choose_step, line_search, line_search_lines
from penlearn.line_search.kernel import lines_state

critical = importlib.import_module("penlearn.line_search.critical")


def sequential_step(lines) -> float:
    return line_search_lines(*lines, stop="first_min", method="sequential").step_size


def check(lines):
    """The critical search's step, when it gives one, is the sequential engine's."""
    ic, sl, fp, fn = (np.asarray(x, dtype=float) for x in lines)
    got = critical.first_min_critical(lines_state(ic, sl, fp, fn))
    if got is not None:
        assert got[0] == pytest.approx(sequential_step(lines), rel=1e-12, abs=1e-300)
    return got


SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(tied_lines())
def test_ties(lines):
    check(lines)


@SETTINGS
@given(near_tied_lines())
def test_near_ties(lines):
    check(lines)


def _random_lines(rng, n):
    ic = rng.normal(size=n).round(int(rng.integers(1, 6)))
    sl = rng.normal(size=n).round(int(rng.integers(0, 4)))
    fp = rng.integers(-1, 3, n).astype(float)
    fn = rng.integers(-2, 2, n).astype(float)
    fp[0], fn[-1] = 5.0, -5.0
    return ic, sl, fp, fn


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_random_lines_small_brackets(seed):
    """Many lines, rounded (ties), and brackets of a few events: every path of the loop."""
    rng = np.random.default_rng(seed)
    lines = _random_lines(rng, int(rng.integers(20, 200)))
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(critical, "K_FRACTION", float(rng.choice([0.0, 0.05, 0.25, 2.0])))
        mp.setattr(critical, "PAIR_BUDGET", int(rng.choice([0, 1, 8])))
        mp.setattr(critical, "GROWTH", float(rng.choice([1.0, 1.25, 4.0])))
        check(lines)
    finally:
        mp.undo()


def _non_monotone(rng, n):
    """Binary-label breakpoints plus, for a tenth of the examples, a breakpoint that
    undoes the error (non-monotone error functions)."""
    bp = breakpoints_from_labels(rng.integers(0, 2, n))
    k = n // 10
    ex = np.r_[bp.example, np.arange(k)]
    fpd = np.r_[bp.fp_diff, np.where(bp.fp_diff[:k] > 0, -1.0, 0.0)]
    fnd = np.r_[bp.fn_diff, np.where(bp.fn_diff[:k] < 0, 1.0, 0.0)]
    up = rng.uniform(0.3, 1.0, k)  # FP back to 0 above, FN back below
    val = np.r_[bp.value, np.where(fpd[-k:] < 0, up, -up)]
    return Breakpoints(ex, val, fpd, fnd, bp.n_examples)


def test_skips_neutral_events_and_decides():
    """Along descent directions of non-monotone sets the search decides by itself (no
    fallback) and enumerates fewer events than the sequential engine walks."""
    rng = np.random.default_rng(3)
    decided = 0
    for _ in range(10):
        bp = _non_monotone(rng, 400)
        scores = rng.standard_normal(400)
        d = -aum(bp, scores).derivatives.mean(axis=1)  # the AUM descent direction, blurred
        lines = breakpoint_lines(bp, scores, d + 0.5 * rng.standard_normal(400))
        got = check(lines)
        if got is not None:
            decided += 1
            assert got[1] < line_search_lines(*lines, method="sequential").events
    assert decided >= 8


def test_choose_step_first_min_non_monotone():
    rng = np.random.default_rng(5)
    nbp = _non_monotone(rng, 60)
    for seed in range(5):
        r = np.random.default_rng(seed)
        scores, slopes = r.standard_normal(60), r.standard_normal(60)
        ref = line_search(nbp, scores, slopes, stop="first_min", method="sequential")
        step, _ = choose_step("first_min", nbp, scores, slopes)
        assert step == pytest.approx(ref.step_size, rel=1e-12, abs=1e-300)


@pytest.mark.slow
def test_real_chipseq_steps():
    need(DATA / "H3K4me3_TDH_immune")
    decided = 0
    for lines in _chipseq_steps():
        decided += check(lines) is not None
    assert decided >= 3


@pytest.mark.parametrize("dense", [0, 10**9])
def test_inversions_of_live_blocks(dense, monkeypatch):
    """Inversions inside the live blocks of a permutation, against a brute force, by the
    reach schemes (dense=0) and by comparing all pairs."""
    monkeypatch.setattr(critical, "DENSE_PAIRS", dense)
    rng = np.random.default_rng(dense % 7)
    for _ in range(1500):
        n = int(rng.integers(2, 40))
        p = np.arange(n)
        for _ in range(int(rng.integers(0, 6))):
            a, b = sorted(rng.integers(0, n, 2))
            seg = p[a : b + 1].copy()
            rng.shuffle(seg)
            p[a : b + 1] = seg
        end = np.maximum.accumulate(p) == np.arange(n)
        first = np.flatnonzero(np.r_[True, end[:-1]])
        size = np.diff(np.append(first, n))
        bid = np.repeat(np.arange(len(first)), size)
        live = (rng.random(len(first)) < 0.7) & (size > 1)
        if not live.any():
            continue
        i, j = critical._inversions(p, first, size, live, 10**9)
        pos = np.empty(n, int)
        pos[p] = np.arange(n)
        ref = {(a, b) for a in range(n) for b in range(a + 1, n)
               if pos[a] > pos[b] and live[bid[a]]}
        got = list(zip(i.tolist(), j.tolist()))
        assert len(got) == len(set(got))
        assert set(got) == ref
