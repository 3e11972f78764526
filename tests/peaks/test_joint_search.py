"""The branch and bound against a vectorised search over every pair of bases, on windows
large enough for it to split, bound and prune (hypothesis, and a slice of real data).

The strict model (PeakSegJoint's): a sample is up at ``[a, b)`` only when its three
segment averages are strictly up-down, its loss then the sum of the three segments';
computed here with NumPy from cumulative sums over every peak ``1 <= a < b <= N − 1``
(``test_joint_bruteforce`` checks the same model base by base on small windows); the best
model with k samples up takes the k largest decreases among the up-down samples of a
peak (NaN where no peak has k).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from conftest import DATA, need
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import xlogy

from penlearn import joint_peak


def seg(W, Y):
    return Y - xlogy(Y, Y / W)


def all_pairs_loss(Y: np.ndarray) -> np.ndarray:
    """Least total loss for k = 0..S over every peak of bases (vectorised)."""
    S, N = Y.shape
    a, b = np.triu_indices(N, k=1)  # 0 <= a < b <= N - 1
    keep = a >= 1
    a, b = a[keep].astype(float), b[keep].astype(float)
    dec = np.empty((S, len(a)))
    flat = np.empty(S)
    for s in range(S):
        cs = np.r_[0.0, np.cumsum(Y[s])]
        T = cs[-1]
        y1, y2 = cs[a.astype(int)], cs[b.astype(int)] - cs[a.astype(int)]
        y3 = T - cs[b.astype(int)]
        w1, w2, w3 = a, b - a, N - b
        flat[s] = seg(float(N), T)
        up = (y2 * w1 > y1 * w2) & (y2 * w3 > y3 * w2)
        dec[s] = np.where(up, flat[s] - seg(w1, y1) - seg(w2, y2) - seg(w3, y3), -np.inf)
    top = np.cumsum(-np.sort(-dec, axis=0), axis=0).max(axis=1)
    loss = flat.sum() - np.r_[0.0, top]
    loss[np.isinf(loss)] = np.nan
    return loss


def long_table(Y: np.ndarray, start: int = 0) -> pd.DataFrame:
    """Rows of runs of equal counts, one table for all samples."""
    out = []
    for s, y in enumerate(Y):
        cut = np.r_[0, np.flatnonzero(np.diff(y)) + 1, len(y)]
        out.append(pd.DataFrame({"sample_id": f"s{s}", "chromStart": start + cut[:-1],
                                 "chromEnd": start + cut[1:], "count": y[cut[:-1]]}))
    return pd.concat(out, ignore_index=True)


@st.composite
def bigger_windows(draw):
    S = draw(st.integers(1, 5))
    N = draw(st.integers(20, 90))
    Y = np.zeros((S, N))
    top = draw(st.sampled_from([2, 6, 20]))
    for s in range(S):
        pos = 0
        while pos < N:
            ln = draw(st.integers(1, 12))
            Y[s, pos:pos + ln] = draw(st.integers(0, top))
            pos += ln
    return Y


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bigger_windows())
def test_branch_and_bound_equals_every_pair(Y):
    fit = joint_peak(long_table(Y))
    assert fit.exact
    np.testing.assert_allclose(fit.loss.to_numpy(), all_pairs_loss(Y), rtol=1e-10,
                               atol=1e-8)


def test_real_slice_equals_every_pair():
    """1,500 bases of 3 samples of chunk1 around a peak start: ~10^6 peaks."""
    cov = pd.read_csv(need(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1" /
                           "coverage.csv.gz"))
    lo, hi = 43_140_000, 43_141_500
    ids = ["McGill0023", "McGill0022", "McGill0016"]
    Y = np.zeros((3, hi - lo))
    for s, sid in enumerate(ids):
        rows = cov[(cov["sample_id"] == sid) & (cov["chromEnd"] > lo) & (cov["chromStart"] < hi)]
        for r in rows.itertuples():
            Y[s, max(r.chromStart, lo) - lo:min(r.chromEnd, hi) - lo] = r.count
    window = long_table(Y, lo)
    fit = joint_peak(window)
    assert fit.exact and (fit.chromStart, fit.chromEnd) == (lo, hi)
    np.testing.assert_allclose(fit.loss.to_numpy(), all_pairs_loss(Y), rtol=1e-10)
