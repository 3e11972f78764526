"""The joint peak model against brute force on small windows (hypothesis).

Brute force: the window expanded to one count per base; every peak ``[a, b)`` with
1 <= a < b <= N − 1 (every base position, not only row boundaries); each sample's
up-down constrained optimum by enumerating the subsets of active equality constraints
(pooled means, kept when they satisfy the non-strict constraints) with the loss summed
base by base; then, for every k, every subset of k samples (or groups) up, not the
top-k shortcut the solver uses.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import xlogy

from penlearn import joint_peak


def base_loss(y: np.ndarray, m: np.ndarray) -> float:
    return float(np.sum(m - xlogy(y, m)))


def constrained(y: np.ndarray, a: int, b: int) -> float:
    """Least loss of three means (inside >= both outside) with changes at a and b."""
    segs = [y[:a], y[a:b], y[b:]]
    best = np.inf
    # each pattern: which neighbouring segments are pooled (1-2, 2-3)
    for pool12, pool23 in itertools.product([False, True], repeat=2):
        groups = [[0], [1], [2]]
        if pool12 and pool23:
            groups = [[0, 1, 2]]
        elif pool12:
            groups = [[0, 1], [2]]
        elif pool23:
            groups = [[0], [1, 2]]
        means = [0.0, 0.0, 0.0]
        for g in groups:
            m = np.concatenate([segs[i] for i in g]).mean()
            for i in g:
                means[i] = m
        if means[1] >= means[0] and means[1] >= means[2]:
            m = np.concatenate([np.full(len(s), means[i]) for i, s in enumerate(segs)])
            best = min(best, base_loss(y, m))
    return best


def brute(Y: np.ndarray, unit: np.ndarray, n_units: int) -> np.ndarray:
    """Least total loss for k = 0..n_units units up, over every peak and every subset."""
    S, N = Y.shape
    flat = np.array([base_loss(y, np.full(N, y.mean())) for y in Y])
    best = np.full(n_units + 1, np.inf)
    best[0] = flat.sum()
    for a in range(1, N - 1):
        for b in range(a + 1, N):
            up = np.array([constrained(Y[s], a, b) for s in range(S)])
            for k in range(1, n_units + 1):
                for sub in itertools.combinations(range(n_units), k):
                    on = np.isin(unit, sub)
                    best[k] = min(best[k], up[on].sum() + flat[~on].sum())
    return best


@st.composite
def windows(draw):
    """Rows of 1..4 samples on bases 100 .. 100 + N; sample 0 spans them all, the others
    may start late or end early (bases without rows are zeros); ``Y`` per base."""
    S = draw(st.integers(1, 4))
    N = draw(st.integers(3, 11))
    ties = draw(st.booleans())  # few count values: runs and tied means
    rows, Y = [], np.zeros((S, N))
    for s in range(S):
        first = draw(st.integers(0, min(2, N - 1))) if s else 0
        last = draw(st.integers(max(first + 1, N - 2), N)) if s else N
        pos = first
        while pos < last:
            hi = min(pos + draw(st.integers(1, 4)), last)
            c = draw(st.integers(0, 2 if ties else 9))
            rows.append((f"s{s}", 100 + pos, 100 + hi, c))
            Y[s, pos:hi] = c
            pos = hi
    df = pd.DataFrame(rows, columns=["sample_id", "chromStart", "chromEnd", "count"])
    n_groups = draw(st.integers(1, S))
    grp = [draw(st.integers(0, n_groups - 1)) for _ in range(S)]
    df["group"] = [f"g{grp[int(s[1:])]}" for s in df["sample_id"]]
    perm = draw(st.permutations(range(len(df))))
    return df.iloc[list(perm)].reset_index(drop=True), Y, grp


def model_loss(Y, peak, up_mask) -> float:
    """Total loss of one model (its peak, its up samples): brute-force sample losses."""
    total = 0.0
    for s in range(Y.shape[0]):
        if up_mask[s]:
            total += constrained(Y[s], peak[0], peak[1])
        else:
            total += base_loss(Y[s], np.full(Y.shape[1], Y[s].mean()))
    return total


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows())
def test_joint_peak_equals_brute_force(case):
    df, Y, grp = case
    fit = joint_peak(df)
    S = Y.shape[0]
    assert fit.exact
    assert (fit.chromStart, fit.chromEnd) == (100, 100 + Y.shape[1])
    expected = brute(Y, np.arange(S), S)
    np.testing.assert_allclose(fit.loss.to_numpy(), expected, rtol=1e-9, atol=1e-9)
    # the reported peak and up samples achieve the reported loss
    for k in range(1, S + 1):
        a, b = (fit.peak.loc[k] - 100).tolist()
        up = fit.up.loc[k, [f"s{s}" for s in range(S)]].to_numpy()
        assert up.sum() == k and 1 <= a < b <= Y.shape[1] - 1
        assert model_loss(Y, (a, b), up) == pytest.approx(fit.loss[k], rel=1e-9, abs=1e-9)
    assert not fit.up.loc[0].any()
    # groups: the same over groups, all samples of a group up together
    names = sorted(set(grp))
    gunit = np.array([names.index(g) for g in grp])
    gexp = brute(Y, gunit, len(names))
    np.testing.assert_allclose(fit.group_loss.to_numpy(), gexp, rtol=1e-9, atol=1e-9)
    for k in range(1, len(fit.group_loss)):
        a, b = (fit.group_peak.loc[k] - 100).tolist()
        gup = fit.group_up.loc[k]
        up = np.array([gup[fit.groups[f"s{s}"]] for s in range(S)])
        assert model_loss(Y, (a, b), up) == pytest.approx(fit.group_loss[k], rel=1e-9,
                                                          abs=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows())
def test_common_extent_equals_brute_force(case):
    """``extent="common"``: only the bases every sample covers."""
    df, Y, _ = case
    ends = df.groupby("sample_id").agg(first=("chromStart", "min"), last=("chromEnd", "max"))
    lo, hi = int(ends["first"].max()), int(ends["last"].min())
    if hi - lo < 3:
        with pytest.raises(ValueError, match="share only"):
            joint_peak(df, extent="common")
        return
    fit = joint_peak(df, extent="common")
    assert (fit.chromStart, fit.chromEnd) == (lo, hi)
    sub = Y[:, lo - 100: hi - 100]
    expected = brute(sub, np.arange(len(Y)), len(Y))
    np.testing.assert_allclose(fit.loss.to_numpy(), expected, rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows(), st.integers(1, 4))
def test_stopped_search_is_a_valid_model_no_worse_than_heuristic(case, max_blocks):
    """With a tiny work budget: the models reported are real models (their loss is what
    they cost), never worse than the heuristic's, and ``proven`` is honest."""
    df, Y, _ = case
    S = Y.shape[0]
    fit = joint_peak(df, max_blocks=max_blocks)
    heur = joint_peak(df, method="heuristic")
    expected = brute(Y, np.arange(S), S)
    assert not heur.exact and heur.proven.tolist() == [True] + [False] * S
    assert (fit.loss.to_numpy() <= heur.loss.to_numpy() + 1e-9).all()
    assert (fit.loss.to_numpy() >= expected - 1e-9).all()
    assert (heur.loss.to_numpy() >= expected - 1e-9).all()
    proven = fit.proven.to_numpy()
    np.testing.assert_allclose(fit.loss.to_numpy()[proven], expected[proven], rtol=1e-9,
                               atol=1e-9)
    assert fit.exact == bool(proven.all())
    for k in range(1, S + 1):
        a, b = (fit.peak.loc[k] - 100).tolist()
        up = fit.up.loc[k, [f"s{s}" for s in range(S)]].to_numpy()
        assert model_loss(Y, (a, b), up) == pytest.approx(fit.loss[k], rel=1e-9, abs=1e-9)
