"""The PeakSeg model against brute force on small data (hypothesis).

Brute force: every segmentation into background / peak / … / background segments; for
each, the exact up-down constrained optimum is found by enumerating the subsets of active
equality constraints (each run of tied segments pooled to its weighted mean) and keeping
the poolings whose means satisfy the non-strict up-down constraints. This is independent
of the functional-pruning code.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from penlearn.changepoint.peakseg import peakseg, peakseg_path


def run_loss(W: float, S: float) -> float:
    if S == 0:
        return 0.0
    m = S / W
    return W * m - S * math.log(m)


def brute_by_peaks(y, w) -> dict[int, float]:
    """Least up-down constrained Poisson loss for every feasible number of peaks."""
    n = len(y)
    cw = np.r_[0, np.cumsum(w)]
    cs = np.r_[0, np.cumsum(np.multiply(w, y))]
    best: dict[int, float] = {}
    for nseg in range(1, n + 1, 2):
        for cuts in itertools.combinations(range(1, n), nseg - 1):
            b = (0, *cuts, n)
            for mask in range(2 ** (nseg - 1)):
                means = np.empty(nseg)
                j = 0
                while j < nseg:
                    r = j + 1
                    while r < nseg and mask >> (r - 1) & 1:
                        r += 1
                    means[j:r] = (cs[b[r]] - cs[b[j]]) / (cw[b[r]] - cw[b[j]])
                    j = r
                # the loss of each maximal run of equal means (so that equal models
                # get equal losses whatever the pooling that produced them)
                loss = 0.0
                j = 0
                while j < nseg:
                    r = j + 1
                    while r < nseg and means[r] == means[j]:
                        r += 1
                    loss += run_loss(cw[b[r]] - cw[b[j]], cs[b[r]] - cs[b[j]])
                    j = r
                d = np.diff(means)
                if (d[0::2] >= 0).all() and (d[1::2] <= 0).all():
                    k = nseg // 2
                    best[k] = min(best.get(k, math.inf), loss)
    return best


def recomputed_loss(fit, y, w) -> float:
    seg = fit.segments
    m = np.repeat(seg["mean"].to_numpy(), seg["last_row"] - seg["first_row"] + 1)
    total = 0.0
    for yi, wi, mi in zip(y, w, m):
        if yi > 0:
            total += wi * (mi - yi * math.log(mi))
        else:
            total += wi * mi
    return total


def coverage(y, w) -> pd.DataFrame:
    end = np.cumsum(w)
    return pd.DataFrame({"chrom": "chr1", "chromStart": end - np.asarray(w),
                         "chromEnd": end, "count": y})


small_data = st.integers(1, 7).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.integers(1, 4), min_size=n, max_size=n),
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data, st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, math.inf]))
def test_penalised_optimum_equals_brute_force(data, penalty):
    y, w = data
    best = brute_by_peaks(y, w)
    fit = peakseg(coverage(y, w), penalty)
    if math.isinf(penalty):
        expected = best[0]
        got = fit.total_loss
        assert fit.n_peaks == 0
    else:
        expected = min(loss + penalty * k for k, loss in best.items())
        got = fit.total_loss + penalty * fit.n_peaks
    assert abs(got - expected) <= 1e-9 * max(1.0, abs(expected))
    # the decoded model's own loss is the reported optimum, and it is feasible
    assert abs(recomputed_loss(fit, y, w) - fit.total_loss) <= 1e-9 * max(1, abs(got))
    seg = fit.segments
    d = np.diff(seg["mean"].to_numpy())
    assert (d[0::2] >= 0).all() and (d[1::2] <= 0).all()
    assert seg["status"].tolist() == ["background", "peak"] * fit.n_peaks + ["background"]
    assert seg["first_row"].iloc[0] == 0 and seg["last_row"].iloc[-1] == len(y) - 1
    np.testing.assert_array_equal(seg["first_row"].to_numpy()[1:],
                                  seg["last_row"].to_numpy()[:-1] + 1)


def lower_hull(best: dict[int, float]) -> list[int]:
    """Peak counts selected by some penalty (strict vertices of the lower convex hull)."""
    ks = sorted(best)
    hull: list[int] = []
    for k in ks:
        if hull and best[k] >= min(best[j] for j in hull):
            continue
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # b is not a strict vertex if it lies on or above the segment a-k
            if (best[b] - best[a]) * (k - a) >= (best[k] - best[a]) * (b - a):
                hull.pop()
            else:
                break
        hull.append(k)
    return hull[::-1]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data)
def test_path_is_the_brute_force_convex_hull(data):
    y, w = data
    assume(len(set(y)) > 1 and len(y) >= 3)
    best = brute_by_peaks(y, w)
    path = peakseg_path(coverage(y, w))
    hull = lower_hull(best)
    assert path.complete
    assert path.models["peaks"].tolist() == hull
    for _, row in path.models.iterrows():
        exp = best[int(row["peaks"])]
        assert abs(row["total_loss"] - exp) <= 1e-9 * max(1.0, abs(exp))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=3, max_size=60),
       st.floats(0.0, 50.0))
def test_duplicated_rows_relax_weighted_rows(counts, penalty):
    """w rows of weight 1 allow every model of one row of weight w (and more changes)."""
    y = np.asarray(counts)
    assume(y.min() < y.max())
    w = (np.arange(len(y)) % 3) + 1
    fit_w = peakseg(coverage(y, w), penalty)
    fit_d = peakseg(coverage(np.repeat(y, w), np.ones(w.sum(), int)), penalty)
    a = fit_w.total_loss + penalty * fit_w.n_peaks
    b = fit_d.total_loss + penalty * fit_d.n_peaks
    assert b <= a + 1e-9 * max(1.0, abs(a))


@pytest.mark.parametrize("seed", range(3))
def test_medium_random_against_path_consistency(seed):
    """On 300 rows: the model at each path vertex's interval midpoint is that vertex."""
    rng = np.random.default_rng(seed)
    y = rng.poisson(np.where((np.arange(300) // 50) % 2 == 0, 2.0, 9.0))
    w = rng.integers(1, 5, 300)
    cov = coverage(y, w)
    path = peakseg_path(cov, max_peaks=6)
    for _, row in path.models.iterrows():
        hi = row["max_lambda"]
        lam = (row["min_lambda"] + hi) / 2 if np.isfinite(hi) else row["min_lambda"] * 2 + 1
        fit = peakseg(cov, lam)
        assert fit.n_peaks == row["peaks"]
        assert abs(fit.total_loss - row["total_loss"]) <= 1e-9 * abs(row["total_loss"])
