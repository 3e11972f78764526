"""The line search against an exact brute force (rational arithmetic, one sort per step).

The brute force knows nothing of events or updates: it finds every intersection of every
pair of lines exactly (``fractions.Fraction``), and at each of them, and between them,
sorts the lines and recomputes AUM, its slope and the AUC from scratch.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from penlearn.line_search import line_search_lines
from penlearn.line_search.kernel import prepare_lines as _prepare_lines
from penlearn.line_search.kernel import sweep as _sweep

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def merged(lines):
    """Identical lines (equal intercept and slope) merged by summing their diffs."""
    out = {}
    for ic, sl, fp, fn in lines:
        key = (Fraction(ic), Fraction(sl))
        f0, n0 = out.get(key, (Fraction(0), Fraction(0)))
        out[key] = (f0 + Fraction(fp), n0 + Fraction(fn))
    return [(ic, sl, fp, fn) for (ic, sl), (fp, fn) in out.items()]


def exact_events(lines):
    """All distinct positive intersection step sizes, exactly."""
    steps = set()
    for i, (a, sa, _, _) in enumerate(lines):
        for b, sb, _, _ in lines[i + 1 :]:
            if sa != sb:
                s = (b - a) / (sa - sb)
                if s > 0:
                    steps.add(s)
    return sorted(steps)


def state_at(lines, s):
    """Brute force at step s: AUM, AUM slope after s, AUC at s, AUC after s, #points, #gaps."""
    fp_tot = sum(fp for _, _, fp, _ in lines)
    fn_tot = -sum(fn for _, _, _, fn in lines)
    vals = sorted(((ic + s * sl, sl, fp, fn) for ic, sl, fp, fn in lines))
    B = len(vals)
    FP = [Fraction(0)]
    for v in vals:
        FP.append(FP[-1] + v[2])
    FN = [Fraction(0)] * (B + 1)
    for g in range(B - 1, -1, -1):
        FN[g] = FN[g + 1] - vals[g][3]
    M = [min(f, n) for f, n in zip(FP, FN)]
    aum = sum(M[g] * (vals[g][0] - vals[g - 1][0]) for g in range(1, B))
    slope = sum(M[g] * (vals[g][1] - vals[g - 1][1]) for g in range(1, B))

    def auc(gaps):
        pts = [(FP[g] / fp_tot, 1 - FN[g] / fn_tot) for g in gaps]
        return sum((x1 - x0) * (y1 + y0) / 2 for (x0, y0), (x1, y1) in zip(pts, pts[1:]))

    distinct = [0] + [g for g in range(1, B) if vals[g][0] != vals[g - 1][0]] + [B]
    groups = {}
    for v in vals:
        groups[v[0]] = groups.get(v[0], 0) + 1
    tied = [k for k in groups.values() if k > 1]
    return aum, slope, auc(distinct), auc(range(B + 1)), len(tied), sum(k - 1 for k in tied)


def check_path(raw_lines, res, rtol=1e-9):
    lines = merged(raw_lines)
    events = exact_events(lines)
    path = res.path
    assert len(path) == len(events) + 1
    steps = [Fraction(0), *events]
    for k, s in enumerate(steps):
        aum, slope, auc_at, auc_after, n_pts, n_gaps = state_at(lines, s)
        row = path.iloc[k]
        assert row["step_size"] == pytest.approx(float(s), rel=1e-15)
        assert row["aum"] == pytest.approx(float(aum), rel=rtol, abs=rtol)
        assert row["aum_slope_after"] == pytest.approx(float(slope), rel=rtol, abs=rtol)
        assert row["auc"] == pytest.approx(float(auc_at), rel=1e-12, abs=1e-12)
        assert row["auc_after"] == pytest.approx(float(auc_after), rel=1e-12, abs=1e-12)
        if k:
            assert (row["intersections"], row["intervals"]) == (n_pts, n_gaps)
        # midpoint to the next event (or one past the last): AUM linear, AUC constant
        nxt = steps[k + 1] if k + 1 < len(steps) else s + 1
        mid = (s + nxt) / 2
        m_aum, m_slope, m_auc, m_after, _, _ = state_at(lines, mid)
        assert m_auc == m_after
        assert row["auc_after"] == pytest.approx(float(m_auc), rel=1e-12, abs=1e-12)
        assert row["aum_slope_after"] == pytest.approx(float(m_slope), rel=rtol, abs=rtol)
        interp = row["aum"] + row["aum_slope_after"] * float(mid - s)
        assert interp == pytest.approx(float(m_aum), rel=rtol, abs=rtol)
    return lines, events


# dyadic coordinates on a coarse grid force multi-way ties, parallel lines, equal intercepts
dyadic_ic = st.integers(-6, 6).map(lambda k: k / 4)
dyadic_sl = st.integers(-4, 4).map(lambda k: k / 2)


@st.composite
def line_sets(draw, monotone=False, max_lines=9):
    n = draw(st.integers(2, max_lines))
    lines = []
    for _ in range(n):
        ic, sl = draw(dyadic_ic), draw(dyadic_sl)
        if monotone:
            fp, fn = draw(st.sampled_from([(1.0, 0.0), (0.0, -1.0), (0.5, -0.5), (2.0, 0.0)]))
        else:
            fp = float(draw(st.integers(-1, 2)))
            fn = float(draw(st.integers(-2, 1)))
        lines.append((ic, sl, fp, fn))
    assume(sum(x[2] for x in lines) > 0 and sum(x[3] for x in lines) < 0)
    return lines


def run(lines, **kw):
    ic, sl, fp, fn = (list(c) for c in zip(*lines))
    return line_search_lines(ic, sl, fp, fn, **kw)


@SETTINGS
@given(line_sets())
def test_full_path_equals_brute_force(lines):
    check_path(lines, run(lines, stop="all"))


@SETTINGS
@given(line_sets(monotone=True))
def test_first_min_is_the_global_min_for_monotone_errors(lines):
    full = run(lines, stop="all")
    flines, events = check_path(lines, full)
    brute = min(state_at(flines, s)[0] for s in [Fraction(0), *events])
    for method in ("sequential", "auto"):
        res = run(lines, stop="first_min", method=method)
        assert res.aum == pytest.approx(float(brute), rel=1e-9, abs=1e-12)
    assert res.method == "bracket"


@SETTINGS
@given(line_sets(), st.sampled_from(["first_min", "max_auc", "linear", 3]))
def test_stop_rules_follow_the_reference_rules(lines, stop):
    """The chosen steps, recomputed from the full path with the README's rules."""
    full = run(lines, stop="all").path
    res = run(lines, stop=stop, method="sequential")
    k = len(res.path)
    assert res.path.equals(full.iloc[:k])
    s, a, after = full["step_size"], full["aum"], full["auc_after"]
    if stop == "first_min":
        best, first = a[0], 0
        for i in range(1, len(full)):
            if a[i] < best:
                best, first = a[i], i
            elif a[i] > best:
                assert k == i + 1
                assert res.step_size == (s[first] + s[i - 1]) / 2
                break
            if a[i] < 1e-6:
                assert k == i + 1
                assert res.step_size == (s[first] + s[i]) / 2
                break
        else:
            assert k == len(full)
            assert res.step_size == (s[first] + s[k - 1]) / 2
        assert res.aum == best
    elif stop == "max_auc":
        best, first, i = after[0], 0, 0
        for i in range(1, len(full)):
            if after[i] > best + 2.0**-46 * abs(best):
                best, first = after[i], i
            elif best - after[i] > 1e-6:
                break
        assert k == min(i + 1, len(full))
        assert res.step_size == (s[first] + s[k - 1]) / 2
    elif stop == "linear":
        assert k == min(len(lines), len(full) - 1) + 1
    else:
        assert k == min(stop, len(full) - 1) + 1


def brute_order_after(lines_f, s):
    """Line indices sorted by exact value at step s, ties by slope."""
    return sorted(
        range(len(lines_f)),
        key=lambda j: (Fraction(lines_f[j][0]) + s * Fraction(lines_f[j][1]), lines_f[j][1]),
    )


def orders_after_each_event(ic, sl, fp, fn):
    """Run the engine one event at a time; yield (step, order of the merged lines)."""
    state, _ = _prepare_lines(ic, sl, fp, fn)
    yield 0.0, list(state.order)
    while state.heap:
        rows, _ = _sweep(state, 0, 1, None)
        if rows[0]:
            yield rows[0][0], list(state.order)


def near_triple(rng: random.Random):
    """Three (or four) lines through one random point, rounded to floats, plus others."""
    s0 = rng.uniform(0.05, 20.0)
    t0 = rng.uniform(-50.0, 50.0)
    k = rng.choice([3, 3, 3, 4])
    slopes = sorted((rng.uniform(-5.0, 5.0) for _ in range(k)), reverse=True)
    lines = [(t0 - s0 * m, m) for m in slopes]
    for _ in range(rng.randint(0, 3)):
        lines.append((rng.uniform(-60.0, 60.0), rng.uniform(-5.0, 5.0)))
    fp = [float(rng.random() < 0.5) for _ in lines]
    fn = [-(1.0 - f) for f in fp]
    fp[0], fn[-1] = 1.0, -1.0
    return [x[0] for x in lines], [x[1] for x in lines], fp, fn


def test_near_triple_points_never_corrupt_the_order():
    """2000 random near-triple points: after every event the order is an exact sort."""
    rng = random.Random(20240615)
    n_cases = 2000
    wrong = 0
    split = 0  # cases whose computed pairwise steps at the triple point differ
    for _ in range(n_cases):
        ic, sl, fp, fn = near_triple(rng)
        state, _ = _prepare_lines(ic, sl, fp, fn)
        ics, sls = state.ic, state.sl
        lines_f = list(zip(ics, sls))
        xs = {(ics[b] - ics[a]) / (sls[a] - sls[b]) for a in range(3) for b in range(a + 1, 3)
              if sls[a] != sls[b]}  # fmt: skip
        split += len(xs) > 1
        trace = list(orders_after_each_event(ic, sl, fp, fn))
        crossings = exact_events([(Fraction(a), Fraction(b), 0, 0) for a, b in lines_f])
        for k, (step, order) in enumerate(trace):
            # the order after an event must be the exact sort just after some step between
            # this event and the next (an event covers computed steps up to x·(1 + 2**-48),
            # and crossings closer than one ulp cannot be told apart by a float step size)
            lo = Fraction(step)
            if k + 1 < len(trace):
                hi = Fraction(trace[k + 1][0])
                cands = [lo, (lo + hi) / 2] + [e for e in crossings if lo <= e <= hi]
            else:
                cands = [2 * lo + 1 + (crossings[-1] if crossings else 0)]
            if not any(order == brute_order_after(lines_f, c) for c in cands):
                wrong += 1
                break
        assert trace[-1][1] == brute_order_after(lines_f, Fraction(10**9))
        # the final AUC/AUM agree with a brute force after the last event
        res = line_search_lines(ic, sl, fp, fn, stop="all")
        last = res.path.iloc[-1]
        far = Fraction(last["step_size"]) * 2 + 1
        aum, slope, _, after, _, _ = state_at(
            [(Fraction(a), Fraction(b), Fraction(c), Fraction(d))
             for a, b, c, d in zip(state.ic, state.sl, state.fpd, state.fnd)],
            far,
        )  # fmt: skip
        assert last["auc_after"] == pytest.approx(float(after), rel=1e-12, abs=1e-12)
        assert last["aum_slope_after"] == pytest.approx(float(slope), rel=1e-9, abs=1e-9)
    assert wrong == 0
    assert split > n_cases // 4  # the test does exercise split step sizes


def test_known_reference_failure_triple_point():
    """A triple point whose computed step sizes differ in the last bit (the reference's
    wrong-order failure mode): one event, all three lines reversed."""
    found = None
    rng = random.Random(7)
    for _ in range(10000):
        m = sorted((rng.uniform(-3, 3) for _ in range(3)), reverse=True)
        ic = [0.3 - 0.7 * x for x in m]  # through (s, t) = (0.7, 0.3), rounded
        xs = [(ic[b] - ic[a]) / (m[a] - m[b]) for a, b in ((0, 1), (1, 2), (0, 2))]
        if len(set(xs)) == 3:
            found = ic, m
            break
    assert found is not None
    ic, m = found
    res = line_search_lines(ic, m, [0.5, 0.0, 0.5], [0.0, -0.5, -0.5], stop="all")
    exact = exact_events(merged(zip(ic, m, [0.5, 0, 0.5], [0, -0.5, -0.5])))
    state, _ = _prepare_lines(ic, m, [0.5, 0.0, 0.5], [0.0, -0.5, -0.5])
    _sweep(state, 0, 10, None)
    assert state.order == [2, 1, 0]  # lines sorted by slope after every crossing
    assert res.path["aum_slope_after"].iloc[-1] > 0
    assert res.path["auc_after"].iloc[-1] == pytest.approx(0.625)
    assert res.path["aum"].iloc[-1] >= -1e-12
    assert len(exact) >= 1


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(line_sets(max_lines=6), line_sets(max_lines=6))
def test_validation_columns_equal_brute_force(lines, vlines):
    res = run(lines, stop="all", validation=tuple(list(c) for c in zip(*vlines)))
    vm = merged(vlines)
    steps = [Fraction(0), *exact_events(merged(lines))]
    assert len(steps) == len(res.path)
    for s, (_, row) in zip(steps, res.path.iterrows()):
        aum, _, auc_at, _, _, _ = state_at(vm, s)
        eps = s * Fraction(1, 10**9) + Fraction(1, 10**12)
        after = state_at(vm, s + eps)[3]
        assert row["validation_aum"] == pytest.approx(float(aum), rel=1e-9, abs=1e-9)
        assert row["validation_auc"] == pytest.approx(float(auc_at), rel=1e-12, abs=1e-12)
        assert row["validation_auc_after"] == pytest.approx(float(after), rel=1e-12, abs=1e-12)


def test_parallel_lines_and_equal_intercepts_brute_force():
    lines = [(0.0, 1.0, 1.0, 0.0), (1.0, 1.0, 0.0, -1.0), (2.0, -1.0, 1.0, 0.0),
             (3.0, -1.0, 0.0, -1.0), (0.0, 0.5, 1.0, 0.0), (0.0, 1.0, 0.0, -1.0),
             (0.0, 1.0, 1.0, -1.0)]  # fmt: skip
    res = run(lines, stop="all")
    check_path(lines, res)
    assert res.n_lines == 5  # the three (0, 1) lines merged
    assert np.all(np.diff(res.path["step_size"]) > 0)
