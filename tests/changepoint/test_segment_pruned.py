"""Functional pruning (pDPA for 1..K segments, FPOP for one penalty) against independent
references: brute force over every segmentation, the quadratic DP, ruptures, a weighted
NumPy DP written here, and the real neuroblastoma and Mono27ac data."""

from __future__ import annotations

import gzip
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import ruptures as rpt
import segmentation_neuroblastoma as nb
from conftest import DATA, need
from hypothesis import given, settings
from hypothesis import strategies as st

import penlearn.changepoint._fp_segment as fp
from penlearn.changepoint.segmentation import (
    PenalizedSegmentation,
    change_positions,
    segment,
    segment_sequences,
)


@pytest.fixture(autouse=True)
def _bars_on(monkeypatch):
    """capsys is no terminal: show the bars anyway (penlearn._progress)."""
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")


def seg_cost(y, w, loss):
    """Cost of one segment, computed directly from its optimal mean."""
    sw, swy = float(np.sum(w)), float(np.sum(w * y))
    if loss == "l2":
        return float(np.sum(w * (y - swy / sw) ** 2))
    return 0.0 if swy == 0 else swy - swy * np.log(swy / sw)


def total_cost(y, w, ends, loss):
    e = np.r_[0, ends]
    return sum(seg_cost(y[a:b], w[a:b], loss) for a, b in zip(e[:-1], e[1:], strict=True))


def colex_key(ends):
    """The documented tie rule: smallest last change, then recursively (0 = no change)."""
    return (*list(ends)[::-1], 0)


def all_segmentations(n):
    for k in range(1, n + 1):
        for cuts in itertools.combinations(range(1, n), k - 1):
            yield [*cuts, n]


def brute_models(y, w, k_max, loss):
    """Per k: optimal loss and the colex-smallest optimal ends (ties within 1e-9)."""
    by_k = {}
    for ends in all_segmentations(len(y)):
        by_k.setdefault(len(ends), []).append((total_cost(y, w, ends, loss), ends))
    losses, best = [], []
    for k in range(1, k_max + 1):
        m = min(c for c, _ in by_k[k])
        losses.append(m)
        best.append(min((e for c, e in by_k[k] if c <= m + 1e-9), key=colex_key))
    return np.array(losses), best


def weighted_dp(y, w, k_max, loss):
    """Textbook segment neighbourhood DP on weighted data (NumPy; O(K n²)): losses only."""
    n = len(y)
    W, S, Q = (np.r_[0, np.cumsum(v)] for v in (w, w * y, w * y * y))

    def cost(s, t):  # segments y[s:t] for an array s of starts
        d, m = S[t] - S[s], W[t] - W[s]
        if loss == "l2":
            return Q[t] - Q[s] - d * d / m
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(d > 0, d - d * np.log(d / m), 0.0)

    F = np.full((k_max, n + 1), np.inf)
    F[0, 1:] = cost(np.zeros(n, int), np.arange(1, n + 1))
    for k in range(2, k_max + 1):
        for t in range(k, n + 1):
            s = np.arange(k - 1, t)
            F[k - 1, t] = np.min(F[k - 2, s] + cost(s, t))
    return F[:, n]


tie_values = st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.5, -1.0]), min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(tie_values, st.integers(1, 8))
def test_l2_ties_and_runs_equal_brute_force_and_tie_rule(values, k):
    y = np.array(values)
    k = min(k, len(y))
    seg = segment(y, k)
    ref_loss, ref_ends = brute_models(y, np.ones(len(y)), k, "l2")
    np.testing.assert_allclose(seg.loss, ref_loss, rtol=1e-9, atol=1e-12)
    for kk in range(1, k + 1):
        assert seg.ends(kk).tolist() == ref_ends[kk - 1]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.integers(1, 8))
def test_poisson_zeros_ties_equal_brute_force_and_tie_rule(values, k):
    y = np.array(values, dtype=float)
    k = min(k, len(y))
    seg = segment(y, k, loss="poisson")
    ref_loss, ref_ends = brute_models(y, np.ones(len(y)), k, "poisson")
    np.testing.assert_allclose(seg.loss, ref_loss, rtol=1e-9, atol=1e-12)
    for kk in range(1, k + 1):
        assert seg.ends(kk).tolist() == ref_ends[kk - 1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 4)), min_size=1, max_size=7),
       st.integers(1, 7), st.sampled_from(["l2", "poisson"]))
def test_weighted_equals_brute_force_and_expanded_runs(pairs, k, loss):
    y = np.array([p[0] for p in pairs], dtype=float)
    w = np.array([p[1] for p in pairs], dtype=float)
    k = min(k, len(y))
    seg = segment(y, k, loss=loss, weights=w)
    ref_loss, ref_ends = brute_models(y, w, k, loss)
    np.testing.assert_allclose(seg.loss, ref_loss, rtol=1e-9, atol=1e-12)
    for kk in range(1, k + 1):
        assert seg.ends(kk).tolist() == ref_ends[kk - 1]
    # a run of w equal values is one datum of weight w: the expanded data's optimum (the
    # quadratic DP) never needs a change inside a run, so its losses are the same
    expanded = segment(np.repeat(y, w.astype(int)), k, loss=loss, method="dp")
    np.testing.assert_allclose(seg.loss, expanded.loss, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 120), st.integers(2, 15),
       st.sampled_from(["l2", "poisson"]), st.booleans())
def test_equals_quadratic_dp(seed, n, k, loss, runs):
    """Random piecewise-constant data, optionally rounded into long constant runs."""
    rng = np.random.default_rng(seed)
    means = np.repeat(rng.uniform(0, 8, 6), n // 6 + 1)[:n]
    y = rng.poisson(means).astype(float) if loss == "poisson" else means + rng.normal(0, 1, n)
    if runs:
        y = np.round(y / 2) * 2
    k = min(k, n)
    ours, dp = segment(y, k, loss=loss), segment(y, k, loss=loss, method="dp")
    np.testing.assert_allclose(ours.loss, dp.loss, rtol=1e-9, atol=1e-12)
    w = np.ones(n)
    for kk in range(1, k + 1):
        a, b = ours.ends(kk), dp.ends(kk)
        if a.tolist() != b.tolist():  # only a tie may differ (the DP breaks ties by rounding)
            ca, cb = total_cost(y, w, a, loss), total_cost(y, w, b, loss)
            assert ca == pytest.approx(cb, rel=1e-12, abs=1e-12)
            assert colex_key(a) < colex_key(b)


@settings(max_examples=60, deadline=None)
@given(tie_values, st.floats(0, 6), st.sampled_from(["l2", "poisson"]))
def test_penalty_equals_brute_force(values, lam, loss):
    y = np.abs(np.array(values)) if loss == "poisson" else np.array(values)
    w = np.ones(len(y))
    res = segment(y, loss=loss, penalty=lam)
    assert isinstance(res, PenalizedSegmentation) and res.penalty == lam
    scored = [(total_cost(y, w, e, loss) + lam * (len(e) - 1), e)
              for e in all_segmentations(len(y))]
    best = min(c for c, _ in scored)
    assert res.loss + lam * (res.n_segments - 1) == pytest.approx(best, rel=1e-9, abs=1e-9)
    assert res.loss == pytest.approx(total_cost(y, w, res.ends(), loss), rel=1e-9, abs=1e-12)
    tied = min((e for c, e in scored if c <= best + 1e-9), key=colex_key)
    assert res.ends().tolist() == tied


def test_penalty_agrees_with_the_k_models_on_longer_data():
    rng = np.random.default_rng(5)
    y = np.repeat(rng.normal(0, 3, 12), 40) + rng.normal(0, 1, 480)
    seg = segment(y, 40)
    small = segment(y, penalty=0.5)  # the optimum has more than 40 segments: lower cost
    assert small.n_segments > 40
    assert small.loss + 0.5 * (small.n_segments - 1) < np.min(seg.loss + 0.5 * np.arange(40))
    for lam in (15.0, 40.0, 400.0):
        res = segment(y, penalty=lam)
        path = seg.loss + lam * np.arange(40)
        assert res.n_segments - 1 == int(np.argmin(path)) < 39
        assert res.ends().tolist() == seg.ends(res.n_segments).tolist()
        assert res.loss == pytest.approx(seg.loss[res.n_segments - 1], rel=1e-12)


def test_ruptures_dynp_and_pelt_optima():
    rng = np.random.default_rng(2)
    y = np.r_[rng.normal(0, 1, 25), rng.normal(3, 1, 20), rng.normal(-1, 1, 25)]
    y = np.round(y, 1)  # rounded values: ties are possible
    ours = segment(y, 6)
    dynp = rpt.Dynp(model="l2", min_size=1, jump=1).fit(y)
    w = np.ones(len(y))
    for k in range(2, 7):
        theirs = total_cost(y, w, dynp.predict(n_bkps=k - 1), "l2")
        assert ours.loss[k - 1] == pytest.approx(theirs, rel=1e-9)
    pelt = rpt.Pelt(model="l2", min_size=1, jump=1).fit(y)
    for lam in (2.0, 10.0):
        e = pelt.predict(pen=lam)
        res = segment(y, penalty=lam)
        theirs = total_cost(y, w, e, "l2") + lam * (len(e) - 1)
        assert res.loss + lam * (res.n_segments - 1) == pytest.approx(theirs, rel=1e-9)


def test_scale_invariance_and_range_errors():
    rng = np.random.default_rng(0)
    y = np.repeat([0.0, 3.0, 1.0, 2.0], 30) + rng.normal(0, 1, 120)
    ref = segment(y, 8)
    for factor, shift in ((1e-200, 0.0), (1e150, 0.0), (1.0, 1e9), (2.0**-1000, 0.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # underflowing losses
            other = segment(y * factor + shift, 8)
        for k in range(1, 9):
            assert other.ends(k).tolist() == ref.ends(k).tolist(), (factor, shift, k)
    big = segment(y * 1e150, 8)
    np.testing.assert_allclose(big.loss, ref.loss * 1e300, rtol=1e-9)
    with pytest.warns(UserWarning, match="underflow"):
        segment(y * 1e-200, 3)
    with pytest.raises(ValueError, match="overflow the float range"):
        segment(y * 1e160, 3)
    assert segment(y * 1e-100, penalty=1e-199).ends().tolist() == \
        segment(y, penalty=10.0).ends().tolist()


def test_change_positions_near_two_to_the_62():
    base = 2**62
    pos = np.array([base - 7, base - 2, base + 1, base + 2, 2**63 - 1], dtype=np.int64)
    after = np.arange(1, 5)
    expect = [(int(a) + int(b)) // 2 for a, b in zip(pos[:-1], pos[1:], strict=True)]
    assert change_positions(pos, after).tolist() == expect
    neg = np.array([-(2**63), -5, 2**62, 2**63 - 1], dtype=np.int64)
    expect = [(int(a) + int(b)) // 2 for a, b in zip(neg[:-1], neg[1:], strict=True)]
    assert change_positions(neg, np.arange(1, 4)).tolist() == expect
    seqs = pd.DataFrame({"sequence_id": "a", "position": pos[:4],
                         "value": [0.0, 0.0, 5.0, 5.0]})
    _, changes = segment_sequences(seqs, 2, progress=False)
    assert changes["position"].tolist() == [(int(pos[1]) + int(pos[2])) // 2]
    assert changes["position"].iloc[0] > 0


def test_progress_moves_within_one_sequence(monkeypatch, capsys):
    monkeypatch.setattr(fp, "_CHUNK", 50)
    y = np.random.default_rng(1).normal(size=1000)
    calls = []
    segment(y, 4, progress=calls.append)
    assert sum(calls) == 1000 and len(calls) >= 20  # 4 layers x 20 chunks, in points
    calls.clear()
    segment(y, penalty=3.0, progress=calls.append)
    assert sum(calls) == 1000 and len(calls) == 20
    seqs = pd.DataFrame({"sequence_id": np.repeat(["a", "b"], [700, 300]),
                         "position": np.r_[np.arange(700), np.arange(300)], "value": y})
    segment_sequences(seqs, 3, progress=True)
    assert "1000/1000" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("kwargs", "err", "match"),
    [
        ({"max_segments": 2, "weights": [1.0, 2.0]}, ValueError,
         "weights must be one-dimensional of length 3"),
        ({"max_segments": 2, "weights": [1.0, 0.0, 1.0]}, ValueError,
         "weights must be finite and > 0; element 1"),
        ({"penalty": 1.0, "weights": [1.0, np.nan, 1.0]}, ValueError, "element 1"),
        ({"max_segments": 2, "weights": ["a", "b", "c"]}, TypeError,
         "weights must be real numbers"),
        ({"penalty": -1.0}, ValueError, "penalty must be finite and >= 0"),
        ({"penalty": np.inf}, ValueError, "penalty must be finite"),
        ({"penalty": "1"}, TypeError, "penalty must be a number"),
        ({"penalty": 1.0, "max_segments": 2}, TypeError, "exactly one of max_segments"),
        ({}, TypeError, "exactly one of max_segments"),
        ({"max_segments": 2, "method": "fast"}, ValueError, "method must be one of"),
        ({"max_segments": 2, "method": "dp", "weights": [1, 1, 1]}, ValueError,
         "weights need method='pruned'"),
        ({"penalty": 1.0, "method": "dp"}, ValueError, "penalty= is solved by"),
    ],
)
def test_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        segment([1.0, 2.0, 3.0], **kwargs)


def test_neuroblastoma_equals_quadratic_dp():
    """All 154 profiles, K = 20: the same losses (1e-9) and every change position."""
    n_models = 0
    for _, sub in nb.sequences().groupby("sequence_id", sort=False):
        y = sub["value"].to_numpy()
        ours, dp = segment(y, 20), segment(y, 20, method="dp")
        np.testing.assert_allclose(ours.loss, dp.loss, rtol=1e-9, atol=0)
        for k in range(1, ours.max_segments + 1):
            assert ours.ends(k).tolist() == dp.ends(k).tolist()
            n_models += 1
    assert n_models == 154 * 20


def test_mono27ac_weighted_poisson_equals_weighted_dp():
    """Coverage runs (bedGraph lines) as weighted data: against the NumPy weighted DP."""
    path = need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz")
    with gzip.open(path, "rt") as fh:
        cov = pd.read_csv(fh, sep="\t", header=None, nrows=800,
                          names=["chrom", "start", "end", "count"])
    y = cov["count"].to_numpy(dtype=float)
    w = (cov["end"] - cov["start"]).to_numpy(dtype=float)
    seg = segment(y, 12, loss="poisson", weights=w)
    ref = weighted_dp(y, w, 12, "poisson")
    np.testing.assert_allclose(seg.loss, ref, rtol=1e-9)
    for k in range(1, 13):
        assert total_cost(y, w, seg.ends(k), "poisson") == pytest.approx(ref[k - 1], rel=1e-9)


def max_pieces(y, loss, k_max):
    """Largest number of pieces held by any layer while segmenting y (the pruning at work)."""
    n, w = len(y), np.ones(len(y))
    yy, dom, term, _ = fp._prepared(y, w, loss)
    code = fp.L2 if loss == "l2" else fp.POISSON
    prev = np.full(n + 1, np.inf)
    prev[0] = 0.0
    most = 0
    for _ in range(k_max):
        F, last = np.full(n + 1, np.inf), np.zeros(n + 1, dtype=np.int64)
        state = fp._new_state()
        for t0 in range(1, n + 1, 100):
            state = fp.run_layer(yy, w, term, prev, -1.0, F, last, t0, min(n + 1, t0 + 100),
                                 code, dom[0], dom[1], *state)
            most = max(most, state[4])
        prev = F
    return most


@pytest.mark.parametrize("loss", ["l2", "poisson"])
def test_constant_runs_keep_few_pieces_and_the_tie_rule(loss):
    """Ties in constant runs must neither pile up (quadratic time) nor break the tie rule."""
    rng = np.random.default_rng(4)
    runs = np.repeat(rng.integers(0, 5, 8), 250).astype(float)
    for y in (np.full(4000, 3.0), np.zeros(4000), runs):
        assert max_pieces(y, loss, 4) <= 12
    seg = segment(np.full(4000, 3.0), 4, loss=loss)
    assert seg.ends(4).tolist() == [1, 2, 3, 4000]  # the smallest changes among the ties
    np.testing.assert_allclose(seg.loss, seg.loss[0], rtol=1e-12)
    seg = segment(runs, 10, loss=loss)
    np.testing.assert_allclose(seg.loss, segment(runs, 10, loss=loss, method="dp").loss,
                               rtol=1e-9, atol=1e-9)


def test_import_penlearn_does_not_load_numba():
    import subprocess
    import sys

    code = ("import sys, penlearn; assert 'numba' not in sys.modules; "
            "penlearn.segment([1.0, 2.0], 2); assert 'numba' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
