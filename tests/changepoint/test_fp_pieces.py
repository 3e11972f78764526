"""The cost families shared by both functional-pruning solvers (``_fp_pieces``), each
primitive against a direct NumPy evaluation or a brute-force bisection: values (with the
``m = 0`` / ``b = 0`` conventions), per-datum coefficients, minimisers, the roots of
``piece = level`` on either side of the minimum and the roots of a difference of pieces,
for the square loss (negative means included) and the Poisson loss."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

fp = pytest.importorskip("penlearn.changepoint._fp_pieces")


def direct(q, a, b, c, m):
    """q·m² + a·m + b·log m + c in NumPy (b·log m taken as 0 where b = 0)."""
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_term = b * np.log(m) if b != 0 else np.zeros_like(m)
    return q * m * m + a * m + log_term + c


def bisect(f, lo, hi):
    """The sign change of f in [lo, hi] by 200 bisection steps (f(lo), f(hi) of opposite signs)."""
    s_lo = math.copysign(1.0, f(lo))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if math.copysign(1.0, f(mid)) == s_lo:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def family_piece(family, ys, ws):
    """Coefficients of the summed losses of the data ys with weights ws."""
    total = np.zeros(4)
    for y, w in zip(ys, ws, strict=True):
        total += np.array(fp.loss_coefficients(family, float(y), float(w)))
    return tuple(float(v) for v in total)


# --- values -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 10), st.floats(-50, 50), st.floats(-50, 50), st.floats(-1e3, 1e3),
       st.floats(1e-6, 1e3))
def test_value_equals_numpy(q, a, b, c, m):
    got = fp.piece_value(q, a, b, c, m)
    want = float(direct(q, a, b, c, m))
    assert got == pytest.approx(want, rel=1e-12, abs=1e-9 * (1 + abs(c)))
    assert fp.value_at(q, a, b, c, m, math.log(m)) == got


@pytest.mark.parametrize("m", [-3.5, -1e-3, 0.0, 2.0])
def test_value_without_log_term_is_a_polynomial_for_every_mean(m):
    """b = 0 (square loss): no log is taken, negative means and m = 0 are ordinary."""
    q, a, c = 2.0, 3.0, -1.0
    assert fp.piece_value(q, a, 0.0, c, m) == q * m * m + a * m + c
    assert fp.piece_value(q, a, -0.0, c, m) == q * m * m + a * m + c


def test_value_with_log_term_at_and_below_zero():
    assert fp.piece_value(0.0, 1.0, -2.0, 5.0, 0.0) == math.inf  # Poisson: +inf at 0
    assert fp.piece_value(0.0, 1.0, 2.0, 5.0, 0.0) == -math.inf  # a difference: -b·inf
    assert math.isnan(fp.piece_value(0.0, 1.0, -2.0, 5.0, -1.0))  # outside the domain


def test_loss_coefficients_sum_to_the_losses():
    rng = np.random.default_rng(1)
    m = np.array([-2.0, -0.5, 0.0, 0.7, 3.0])
    y = rng.normal(size=7)
    w = rng.uniform(0.5, 3.0, 7)
    q, a, b, c = family_piece(fp.L2, y, w)
    assert b == 0.0
    want = np.array([np.sum(w * (mm - y) ** 2) for mm in m])
    got = np.array([fp.piece_value(q, a, b, c, mm) for mm in m])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    y = rng.poisson(4.0, 7).astype(float)
    q, a, b, c = family_piece(fp.POISSON, y, w)
    assert q == 0.0 and c == 0.0
    m = m[m > 0]
    want = np.array([np.sum(w * (mm - y * np.log(mm))) for mm in m])
    got = np.array([fp.piece_value(q, a, b, c, mm) for mm in m])
    np.testing.assert_allclose(got, want, rtol=1e-12)


# --- minimisers ---------------------------------------------------------------------------


data = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 5)), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(data, st.sampled_from(["l2", "poisson"]), st.integers(-20, 20))
def test_argmin_is_the_weighted_mean_clamped(pairs, family, shift):
    """Both families: the minimiser of a segment's loss is its weighted mean (square loss
    with negative data too), clamped to the interval."""
    y = np.array([p[0] for p in pairs], dtype=float)
    w = np.array([p[1] for p in pairs], dtype=float)
    if family == "l2":
        y = y + shift - 0.5  # negative means and vertices below 0
    code = fp.L2 if family == "l2" else fp.POISSON
    q, a, b, c = family_piece(code, y, w)
    mean = float(np.sum(w * y) / np.sum(w))
    lo, hi = float(y.min()) - 1.0, float(y.max()) + 1.0
    if family == "poisson":
        lo = 0.0
    assert fp.piece_argmin(q, a, b, lo, hi) == pytest.approx(mean, rel=1e-12, abs=1e-12)
    # clamped: an interval left / right of the mean
    if mean - 0.25 > lo:
        assert fp.piece_argmin(q, a, b, lo, mean - 0.25) == mean - 0.25
    assert fp.piece_argmin(q, a, b, mean + 0.25, hi + 1.0) == mean + 0.25
    if b != 0.0 or q != 0.0:
        assert fp.piece_vertex(q, a, b) == pytest.approx(mean, rel=1e-12, abs=1e-12)


def test_argmin_of_lines_and_constants_is_at_an_end():
    assert fp.piece_argmin(0.0, 0.0, 0.0, 1.0, 4.0) == 1.0  # a constant
    assert fp.piece_argmin(0.0, 2.0, 0.0, 1.0, 4.0) == 1.0  # rising line (all-zero counts)
    assert fp.piece_argmin(0.0, -2.0, 0.0, 1.0, 4.0) == 4.0  # falling line
    assert fp.piece_argmin(0.0, 0.0, -2.0, 1.0, 4.0) == 4.0  # -2·log m alone
    assert math.isnan(fp.piece_vertex(0.0, 2.0, 0.0))


def test_argmin_of_a_mixed_piece_matches_a_grid():
    q, a, b = 0.5, 1.0, -3.0  # 2q·m² + a·m + b = 0 at m = (−1 + √13) / 2
    m = fp.piece_argmin(q, a, b, 0.0, 10.0)
    assert m == pytest.approx((-1 + math.sqrt(13)) / 2, rel=1e-14)
    grid = np.linspace(0.01, 10, 100_001)
    assert direct(q, a, b, 0.0, m) <= direct(q, a, b, 0.0, grid).min() + 1e-12


# --- roots of piece = level ---------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(data, st.sampled_from(["l2", "poisson"]), st.floats(1e-6, 50.0), st.integers(-10, 10))
def test_level_roots_equal_bisection(pairs, family, rise, shift):
    """Where the piece crosses min + rise on either side of its minimum."""
    y = np.array([p[0] for p in pairs], dtype=float)
    w = np.array([p[1] for p in pairs], dtype=float)
    if family == "l2":
        y = y + shift
    code = fp.L2 if family == "l2" else fp.POISSON
    q, a, b, c = family_piece(code, y, w)
    if b == 0.0 and q == 0.0:  # Poisson, all zeros: a rising line from 0
        lo, hi = 0.0, 40.0
    else:
        lo = 0.0 if family == "poisson" else float(y.min()) - 40.0
        hi = float(y.max()) + 40.0
    m = fp.piece_argmin(q, a, b, lo, hi)
    v = fp.piece_value(q, a, b, c, m)
    level = v + rise

    def f(x):
        return fp.piece_value(q, a, b, c, x) - level

    left = f(lo) > 0
    right = f(hi) > 0
    r1, r2 = fp.level_roots(q, a, b, c, level, lo, m, hi, left, right)
    assert lo <= r1 <= m <= r2 <= hi
    # the root is as good as the rounding of f allows: within a few ulps of the terms'
    # magnitude in value, hence within that / |f'| of the bisection's root
    tol_f = 1e-12 * (1.0 + abs(level) + abs(a * hi) + q * hi * hi)

    def close(r, want):
        slope = abs(2 * q * want + a + (b / want if b else 0.0))
        assert abs(f(r)) <= tol_f
        assert abs(r - want) <= 1e-12 * (1 + abs(want)) + 4 * tol_f / slope

    if left:
        close(r1, bisect(f, lo, m))
    else:
        assert r1 == lo
    if right:
        close(r2, bisect(f, m, hi))
    else:
        assert r2 == hi


def test_level_roots_near_zero_and_of_a_line():
    # Poisson piece of a small count: the left root is far below 1 (lo = 0)
    q, a, b, c = 0.0, 1.0, -0.01, 0.0
    m = fp.piece_argmin(q, a, b, 0.0, 5.0)
    level = fp.piece_value(q, a, b, c, m) + 1.0
    r1, r2 = fp.level_roots(q, a, b, c, level, 0.0, m, 5.0, True, True)

    def f(x):
        return fp.piece_value(q, a, b, c, x) - level

    assert 0.0 < r1 < 1e-40
    assert math.log(r1) == pytest.approx(math.log(bisect(f, 1e-300, m)), rel=1e-12)
    assert r2 == pytest.approx(bisect(f, m, 5.0), rel=1e-14)
    # a rising line 2m + 1 on [0, 10] crosses 6 at 2.5
    assert fp.level_roots(0.0, 2.0, 0.0, 1.0, 6.0, 0.0, 0.0, 10.0, False, True) == (0.0, 2.5)


# --- roots of a difference of two pieces ------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(-6, 6), st.integers(-40, 40), st.floats(-30, 30), st.floats(0.0, 2.0),
       st.floats(0.5, 20.0))
def test_diff_roots_are_the_sign_changes(da, db, dc, lo, width):
    """A difference of two Poisson pieces: its roots against a fine grid + bisection."""
    hi = lo + width
    out = np.empty(3)
    nr = fp.diff_roots(0.0, float(da), float(db), dc, lo, hi, out)
    roots = out[:nr]
    # increasing, inside [lo, hi] (a root within rounding of an end may land on it)
    assert np.all(np.diff(roots) > 0) and np.all((roots >= lo) & (roots <= hi))

    def f(x):
        return fp.piece_value(0.0, float(da), float(db), dc, x)

    grid = np.linspace(lo, hi, 20_001)[1:-1]
    vals = np.array([f(x) for x in grid])
    changes = np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) < 0)
    want = [bisect(f, grid[k], grid[k + 1]) for k in changes]
    # every sign change on the grid is found, and every root found is a root
    for r in want:
        assert np.min(np.abs(roots - r)) <= 1e-9 * (1 + hi)
    for r in roots:
        # (a root of a line below exp(-745) is returned as 0, where the log term is 0 when
        # db is: e.g. da=1, db=0, dc=-3.4e-284 on [0, 1])
        log_term = abs(db * math.log(r)) if db else 0.0
        assert abs(f(r)) <= 1e-9 * (1 + abs(da) * r + log_term + abs(dc))


def test_newton_log_brackets_and_converges():
    """g(x) = e^x + x − 3 (a = 1, b = 1, c = −3) on [−5, 5], root by bisection."""
    x = fp.newton_log(0.0, 1.0, 1.0, -3.0, -5.0, 5.0, 4.9, -1.0)

    def g(t):
        return math.exp(t) + t - 3.0

    assert x == pytest.approx(bisect(g, -5.0, 5.0), abs=1e-14)
