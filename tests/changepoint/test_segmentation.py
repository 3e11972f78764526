"""Segment neighbourhood: brute force, a plain DP, ruptures, real data, executors, bad input."""

from __future__ import annotations

import itertools
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
import ruptures as rpt
import segmentation_neuroblastoma as nb
from hypothesis import given, settings
from hypothesis import strategies as st

import penlearn.changepoint._dp_segment as seg_mod
from penlearn import segment, segment_sequences


def seg_cost(y, loss):
    if loss == "l2":
        return float(np.sum((y - y.mean()) ** 2))
    s, m = y.sum(), len(y)
    return 0.0 if s == 0 else float(s - s * np.log(s / m))


def brute_force(y, k_max, loss):
    """Optimal loss for 1..K segments by enumerating every set of change indices."""
    n = len(y)
    best = []
    for k in range(1, k_max + 1):
        costs = []
        for cuts in itertools.combinations(range(1, n), k - 1):
            e = [0, *cuts, n]
            costs.append(sum(seg_cost(y[a:b], loss) for a, b in zip(e[:-1], e[1:])))
        best.append(min(costs))
    return np.array(best)


def plain_dp(y, k_max):
    """Unpruned textbook DP (square loss), ties to the smallest last-change index."""
    n = len(y)
    cost = np.full((n + 1, n + 1), np.inf)
    for s in range(n):
        for t in range(s + 1, n + 1):
            cost[s, t] = seg_cost(y[s:t], "l2")
    F = np.full((k_max, n + 1), np.inf)
    B = np.zeros((k_max, n + 1), int)
    F[0, 1:] = cost[0, 1:]
    for k in range(2, k_max + 1):
        for t in range(k, n + 1):
            v = F[k - 2, k - 1 : t] + cost[k - 1 : t, t]
            i = int(np.argmin(v))
            F[k - 1, t], B[k - 1, t] = v[i], i + k - 1
    ends = []
    for k in range(1, k_max + 1):
        e, t = [], n
        for kk in range(k, 0, -1):
            e.append(t)
            t = B[kk - 1, t]
        ends.append(e[::-1])
    return F[:, n], ends


def model_loss(y, ends, loss):
    e = np.r_[0, ends]
    return sum(seg_cost(y[a:b], loss) for a, b in zip(e[:-1], e[1:]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False, allow_infinity=False), min_size=1,
                max_size=8), st.integers(1, 8))
def test_l2_equals_brute_force(values, k):
    y = np.array(values)
    k = min(k, len(y))
    seg = segment(y, k)
    ref = brute_force(y, k, "l2")
    scale = 1.0 + float(np.sum(y * y))
    np.testing.assert_allclose(seg.loss, ref, rtol=1e-9, atol=1e-9 * scale)
    for kk in range(1, k + 1):
        ends = seg.ends(kk)
        assert len(ends) == kk and ends[-1] == len(y) and (np.diff(np.r_[0, ends]) > 0).all()
        assert model_loss(y, ends, "l2") == pytest.approx(ref[kk - 1], rel=1e-9,
                                                          abs=1e-9 * scale)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=8), st.integers(1, 8))
def test_poisson_equals_brute_force(values, k):
    y = np.array(values, dtype=float)
    k = min(k, len(y))
    seg = segment(y, k, loss="poisson")
    ref = brute_force(y, k, "poisson")
    np.testing.assert_allclose(seg.loss, ref, rtol=1e-9, atol=1e-9 * (1 + y.sum()))
    for kk in range(1, k + 1):
        assert model_loss(y, seg.ends(kk), "poisson") == pytest.approx(
            ref[kk - 1], rel=1e-9, abs=1e-9 * (1 + y.sum()))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 70), st.integers(2, 12))
def test_pruned_blocks_equal_plain_dp(seed, n, k):
    """Tiny blocks exercise the pruning across many blocks; results equal the plain DP."""
    rng = np.random.default_rng(seed)
    y = np.repeat(rng.normal(0, 3, 5), n // 5 + 1)[:n] + rng.normal(0, 1, n)
    k = min(k, n)
    old = seg_mod._BLOCK_ELEMENTS
    seg_mod._BLOCK_ELEMENTS = 8  # blocks of 4 targets
    try:
        seg = segment(y, k, method="dp")
    finally:
        seg_mod._BLOCK_ELEMENTS = old
    loss, ends = plain_dp(y, k)
    np.testing.assert_allclose(seg.loss, loss, rtol=1e-10)
    for kk in range(1, k + 1):
        assert seg.ends(kk).tolist() == ends[kk - 1]


def test_tie_rule_smallest_last_change():
    # every split of a constant sequence has loss 0: the DP keeps the smallest index
    seg = segment(np.zeros(6), 3)
    assert seg.ends(2).tolist() == [1, 6]
    assert seg.ends(3).tolist() == [1, 2, 6]


def test_clipped_k_warns():
    with pytest.warns(UserWarning, match="larger than the number of data points"):
        seg = segment([1.0, 2.0, 3.0], 5)
    assert seg.max_segments == 3
    assert seg.loss[-1] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="k must be in 1..3"):
        seg.ends(4)


@pytest.mark.parametrize(
    ("values", "kwargs", "err", "match"),
    [
        ([1.0, np.nan], {}, ValueError, "finite"),
        ([], {}, ValueError, "empty"),
        ([[1.0, 2.0]], {}, ValueError, "one-dimensional"),
        ([1.0, 2.0], {"loss": "l1"}, ValueError, "loss must be one of"),
        ([1.0, -2.0], {"loss": "poisson"}, ValueError, "non-negative"),
        (["a", "b"], {}, TypeError, "real numbers"),
    ],
)
def test_segment_bad_input(values, kwargs, err, match):
    with pytest.raises(err, match=match):
        segment(values, 2, **kwargs)
    with pytest.raises((TypeError, ValueError), match="max_segments"):
        segment([1.0, 2.0], 0)


def test_ruptures_segmenters_equal_exact_dp():
    rng = np.random.default_rng(1)
    y = np.r_[rng.normal(0, 1, 40), rng.normal(4, 1, 30), rng.normal(1, 1, 30)]
    ours = segment(y, 6)
    for est in (rpt.Dynp(model="l2", min_size=1, jump=1),
                rpt.KernelCPD(kernel="linear", min_size=1, jump=1)):
        theirs = segment(y, 6, segmenter=est)
        assert theirs.loss_name == type(est).__name__
        np.testing.assert_allclose(theirs.loss, ours.loss, rtol=1e-9)
        assert theirs.ends(3).tolist() == ours.ends(3).tolist()
    with pytest.raises(TypeError, match="ruptures estimator"):
        segment(y, 3, segmenter=object())


def small_sequences():
    return pd.DataFrame({
        "sequence_id": ["a"] * 6 + ["b"] * 4,
        "position": [1, 3, 5, 7, 9, 11, 10, 20, 31, 40],
        "value": [0.0, 0.1, 5.0, 5.1, 5.0, 2.0, 1.0, 1.0, 3.0, 3.0],
    })


def test_segment_sequences_tables():
    models, changes = segment_sequences(small_sequences(), 3, progress=False)
    assert models.columns.tolist() == ["sequence_id", "n_segments", "loss"]
    assert changes.columns.tolist() == ["sequence_id", "n_segments", "position"]
    for sid, sub in small_sequences().groupby("sequence_id"):
        seg = segment(sub["value"].to_numpy(), 3)
        m = models[models.sequence_id == sid]
        np.testing.assert_array_equal(m["loss"], seg.loss)
        pos = sub["position"].to_numpy()
        for k in (1, 2, 3):
            e = seg.ends(k)[:-1]
            expect = ((pos[e - 1] + pos[e]) // 2).tolist()
            got = changes[(changes.sequence_id == sid) & (changes.n_segments == k)]
            assert got["position"].tolist() == expect
    # between 20 and 31 the change is at floor(51 / 2) = 25
    assert changes[(changes.sequence_id == "b") & (changes.n_segments == 2)][
        "position"].tolist() == [25]


def test_segment_sequences_executors_and_clipping():
    seqs = pd.concat([small_sequences(),
                      pd.DataFrame({"sequence_id": "c", "position": [1, 2],
                                    "value": [0.0, 1.0]})])
    with pytest.warns(UserWarning, match="fewer than max_segments"):
        ref = segment_sequences(seqs, 3, progress=False)
    assert ref.models.groupby("sequence_id").size().to_dict() == {"a": 3, "b": 3, "c": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with ThreadPoolExecutor(2) as ex:
            threaded = segment_sequences(seqs, 3, executor=ex, progress=False)
        with ProcessPoolExecutor(2) as ex:
            processes = segment_sequences(seqs, 3, executor=ex, progress=False)
    for other in (threaded, processes):
        pd.testing.assert_frame_equal(other.models, ref.models)
        pd.testing.assert_frame_equal(other.changes, ref.changes)


def test_segment_sequences_dask_local_cluster():
    """A real distributed.LocalCluster (2 workers, threads: processes=False)."""
    import distributed  # a declared test dependency: missing it is a failure, not a skip
    seqs = small_sequences()
    ref = segment_sequences(seqs, 3, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        out = segment_sequences(seqs, 3, executor=client.get_executor(), progress=False)
    pd.testing.assert_frame_equal(out.models, ref.models)
    pd.testing.assert_frame_equal(out.changes, ref.changes)


def test_segment_sequences_with_ruptures_segmenter():
    ref = segment_sequences(small_sequences(), 3, progress=False)
    out = segment_sequences(small_sequences(), 3, progress=False,
                            segmenter=rpt.Dynp(model="l2", min_size=1, jump=1))
    np.testing.assert_allclose(out.models["loss"], ref.models["loss"], atol=1e-12)
    pd.testing.assert_frame_equal(out.changes, ref.changes)


@pytest.mark.parametrize(
    ("edit", "err", "match"),
    [
        (lambda d: d.assign(value=d["value"].where(d.index != 7, np.nan)), ValueError,
         "'value' must be finite.*'b'"),
        (lambda d: d.assign(position=d["position"].where(d.index != 8, 15)), ValueError,
         "sequence 'b'.*strictly increasing.*unsorted"),
        (lambda d: d.assign(position=d["position"].where(d.index != 2, 3)), ValueError,
         "sequence 'a'.*strictly increasing.*duplicate"),
        (lambda d: d.iloc[[0, 1, 6, 2, 3, 4, 5, 7, 8, 9]], ValueError,
         "rows of sequence 'a' must be contiguous"),
        (lambda d: d.assign(position=d["position"] + 0.5), TypeError,
         "'position' must hold integers"),
        (lambda d: d.drop(columns="value"), ValueError, "missing column"),
        (lambda d: d.iloc[:0], ValueError, "no rows"),
    ],
)
def test_segment_sequences_bad_input(edit, err, match):
    bad = edit(small_sequences().reset_index(drop=True))
    with pytest.raises(err, match=match):
        segment_sequences(bad, 2, progress=False)


@pytest.mark.slow
def test_neuroblastoma_losses_match_processed_errors():
    """K = 20 models of the 154 verified sequences: loss of every processed model."""
    models, _ = nb.segmented()
    ref = nb.processed_errors()
    assert models["sequence_id"].nunique() == 154
    m = models.merge(ref[["sequence_id", "n_segments", "loss"]],
                     on=["sequence_id", "n_segments"], suffixes=("", "_ref"))
    assert len(m) == len(ref[ref["sequence_id"].isin(models["sequence_id"])]) == 1993
    np.testing.assert_allclose(m["loss"], m["loss_ref"], rtol=1e-9, atol=0)


@pytest.mark.slow
def test_neuroblastoma_equals_ruptures_kernelcpd_optimum():
    models, _ = nb.segmented()
    seqs = nb.sequences()
    for sid, sub in seqs.groupby("sequence_id", sort=False):
        y = sub["value"].to_numpy()
        algo = rpt.KernelCPD(kernel="linear", min_size=1, jump=1).fit(y)
        ours = models[models["sequence_id"] == sid]["loss"].to_numpy()
        for k in (3, 20) if len(y) <= 1000 else (20,):
            ends = np.asarray(algo.predict(n_bkps=k - 1))
            theirs = model_loss(y, ends, "l2")
            assert ours[k - 1] == pytest.approx(theirs, rel=1e-9), (sid, k)
