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
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from penlearn.peaks.peakseg.solver import peakseg, peakseg_path


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


def lower_hull(best: dict[int, float], rtol: float = 0.0, collinear: bool = False
               ) -> list[int]:
    """Peak counts selected by some penalty: the strict vertices of the lower convex hull
    (``collinear``: with the counts on the hull's edges too). A count within ``rtol``
    (relative) of an edge counts as on it: two equal peaks make the one-peak model
    exactly collinear in theory, and rounding then puts it just below or just above."""
    ks = sorted(best)
    scale = rtol * max(1.0, max(abs(v) for v in best.values())) * max(1, ks[-1])
    hull: list[int] = []
    for k in ks:
        low = min(best[j] for j in hull) if hull else math.inf
        if best[k] > low + scale or (not collinear and best[k] >= low - scale):
            continue  # (no lower than a model of fewer peaks)
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            # how far b is above the segment a-k (> 0: above, not a vertex)
            above = (best[b] - best[a]) * (k - a) - (best[k] - best[a]) * (b - a)
            if above > scale or (not collinear and above >= -scale):
                hull.pop()
            else:
                break
        hull.append(k)
    return hull[::-1]


def test_lower_hull_of_collinear_losses():
    """The one-peak model midway between none and two: off the strict hull, on the loose
    one, whichever way rounding puts it (the case hypothesis found: two equal peaks)."""
    best = {0: 6.0, 1: 4.5, 2: 3.0, 3: 4.0}
    assert lower_hull(best) == [2, 0]
    assert lower_hull(best, 1e-9, collinear=True) == [2, 1, 0]
    nudged = {**best, 1: 4.5 - 1e-15}  # (below the segment by rounding only)
    assert lower_hull(nudged) == [2, 1, 0]
    assert lower_hull(nudged, 1e-9) == [2, 0]
    assert lower_hull({0: 6.0, 1: 4.0, 2: 3.0}, 1e-9) == [2, 1, 0]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data)
@example(([2, 4, 2, 2, 4, 0, 4], [2, 2, 2, 4, 2, 4, 4]))  # two equal peaks (CI, session 19)
def test_path_is_the_brute_force_convex_hull(data):
    y, w = data
    assume(len(set(y)) > 1 and len(y) >= 3)
    best = brute_by_peaks(y, w)
    path = peakseg_path(coverage(y, w))
    assert path.complete
    got = path.models["peaks"].tolist()
    # every strict vertex of the brute-force hull, nothing off it (a model exactly on an
    # edge, e.g. of two equal peaks, is selected on an empty interval: there or not)
    strict, loose = lower_hull(best, 1e-9), lower_hull(best, 1e-9, collinear=True)
    assert got == sorted(got, reverse=True)
    assert set(strict) <= set(got) <= set(loose), (got, strict, loose)
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


# --- the functional-pruning core on its own, against dense grids -------------------------

def _piece_list(rows):
    """A piece list from (lo, hi, a, b, c) tuples (Poisson family, q = 0)."""
    from penlearn.changepoint._fp_core import N_COLS, log_of

    F = np.zeros((max(8, 3 * len(rows) + 8), N_COLS))
    for k, (lo, hi, a, b, c) in enumerate(rows):
        F[k] = [lo, hi, 0.0, a, b, c, -1.0, np.nan, log_of(hi)]
    return F, len(rows)


def _evaluate(F, n, m):
    from penlearn.changepoint._fp_core import find_piece, piece_value

    out = np.empty(len(m))
    his = F[:n, 1].copy()
    for k, x in enumerate(m):
        i = find_piece(his, 0, n, x)
        out[k] = piece_value(F[i, 2], F[i, 3], F[i, 4], F[i, 5], x)
    return out


poisson_piece = st.tuples(st.integers(1, 6), st.integers(0, 40), st.floats(-20, 20))


@settings(max_examples=100, deadline=None)
@given(poisson_piece, poisson_piece, st.floats(0.0, 3.0), st.floats(0.5, 10.0))
def test_core_min_of_two_functions_and_min_less_more_on_a_grid(p1, p2, lo, width):
    from penlearn.changepoint._fp_core import LOG_HI, N_COLS, fn_min, log_of, min_less, min_more

    hi = lo + width
    (w1, s1, c1), (w2, s2, c2) = p1, p2
    F, nf = _piece_list([(lo, hi, w1, -s1, c1)])
    G, ng = _piece_list([(lo, hi, w2, -s2, c2)])
    H = np.zeros((32, N_COLS))
    nh = fn_min(F, nf, G, ng, H, True, 0.0, np.empty(3))
    # the grid holds each piece's exact minimiser s/w (a Poisson piece w·m − s·log m + c),
    # so that the running minima of the grid reach the exact minima
    argmins = [s / w for w, s in ((w1, s1), (w2, s2)) if s > 0 and lo <= s / w <= hi]
    grid = np.union1d(np.linspace(lo, hi, 4001), argmins)
    with np.errstate(divide="ignore"):
        log = np.log(grid)
    f = w1 * grid + c1 - (s1 * log if s1 else 0.0)
    g = w2 * grid + c2 - (s2 * log if s2 else 0.0)
    h = _evaluate(H, nh, grid)
    fin = np.isfinite(np.minimum(f, g))
    assert np.array_equal(np.isfinite(h), fin)
    grid, f, g, h = grid[fin], f[fin], g[fin], h[fin]
    scale = 1.0 + np.abs(np.minimum(f, g))
    assert np.all(np.abs(h - np.minimum(f, g)) <= 1e-9 * scale)
    assert H[0, 0] == lo and H[nh - 1, 1] == hi
    assert np.all(H[1:nh, 0] == H[: nh - 1, 1])  # contiguous pieces
    # every row carries the log of its right end (taken once, where the end is made)
    assert all(row[LOG_HI] == log_of(row[1]) for row in H[:nh])
    # min-less / min-more: running minima from the left / right (exact at the minimisers
    # on the grid; between grid points the pieces are smooth, within 1e-6)
    L = np.zeros((64, N_COLS))
    nl = min_less(H, nh, L, 7.0)
    got = _evaluate(L, nl, grid)
    want = np.minimum.accumulate(h)
    assert np.all(got <= want + 1e-9 * scale)
    assert np.all(got >= want - 1e-6 * scale)
    assert np.all(np.diff(got) <= 1e-9 * scale[1:])
    assert np.all(L[:nl, 6] == 7.0)
    const = (L[:nl, 3] == 0) & (L[:nl, 4] == 0)
    # a constant piece remembers where the minimum was: its value is h there
    for row in L[:nl][const]:
        assert abs(_evaluate(H, nh, np.array([row[7]]))[0] - row[5]) <= 1e-9 * (1 + abs(row[5]))
    M = np.zeros((64, N_COLS))
    nm = min_more(H, nh, M, 3.0)
    got = _evaluate(M, nm, grid)
    want = np.minimum.accumulate(h[::-1])[::-1]
    assert np.all(got <= want + 1e-9 * scale)
    assert np.all(got >= want - 1e-6 * scale)
    assert np.all(M[1:nm, 0] == M[: nm - 1, 1])
    for T, nt in ((L, nl), (M, nm)):
        assert all(row[LOG_HI] == log_of(row[1]) for row in T[:nt])


big_data = st.integers(3, 6).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from([0, 1, 2, 999, 1000, 123456, 10**6]), min_size=n, max_size=n),
        st.lists(st.integers(1, 100_000), min_size=n, max_size=n),
    )
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(big_data, st.sampled_from([0.0, 1.0, 1e3, 1e6, 1e9]))
def test_large_counts_and_weights_against_brute_force(data, penalty):
    y, w = data
    best = brute_by_peaks(y, w)
    fit = peakseg(coverage(y, w), penalty)
    expected = min(loss + penalty * k for k, loss in best.items())
    got = fit.total_loss + penalty * fit.n_peaks
    assert abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=3, max_size=80),
       st.lists(st.integers(1, 500), min_size=80, max_size=80),
       st.sampled_from([0.0, 1.0, 20.0, 1e3]))
def test_every_cost_function_row_keeps_the_log_of_its_right_end(counts, weights, penalty):
    """The forward pass caches ``log(HI)`` in each row (``LOG_HI``): after every datum
    (chunks of one datum), both cost functions' rows must hold exactly ``log_of(HI)``,
    and be contiguous from the smallest count to the largest."""
    from penlearn.changepoint._fp_core import HI, LO, LOG_HI, N_COLS, log_of
    from penlearn.peaks.peakseg._kernel import forward_chunk

    y = np.array(counts, float)
    assume(y.min() < y.max())
    w = np.array(weights[: len(y)], float)
    st_ = np.zeros(5, np.int64)
    arrays = [np.empty((64, N_COLS)) for _ in range(4)]
    store = (np.empty(4096), np.empty(4096, np.int32), np.empty(4096))
    cnt = np.empty((1, 2), np.int32)
    while st_[0] < len(y):
        *arrays, s_hi, s_pi, s_pm, _, _ = forward_chunk(y, w, penalty, 1e-13, st_, *arrays,
                                                        *store, cnt)
        store = (s_hi, s_pi, s_pm)
        for F, n in ((arrays[0], st_[1]), (arrays[1], st_[2])):
            if n == 0:
                continue
            assert F[0, LO] == y.min() and F[n - 1, HI] == y.max()
            assert np.array_equal(F[1:n, LO], F[: n - 1, HI])
            assert all(F[i, LOG_HI] == log_of(F[i, HI]) for i in range(n))
