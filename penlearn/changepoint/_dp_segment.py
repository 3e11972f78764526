"""The quadratic segment neighbourhood DP (``segment(..., method="dp")``), and ruptures.

Exact optimal models with 1..K segments by dynamic programming (Auger & Lawrence 1989),
kept beside the functional pruning solver for cross-checking and small sequences; and the
adapter that takes the models from a ruptures estimator (``segment(..., segmenter=...)``).

Implementation: the segment costs come from cumulative sums, so one block of targets t
costs one vectorised evaluation of C(s, t) for all s, reused by all K layers (each layer
is one NumPy ``argmin`` over the block). Blocks are small enough to stay in cache, so the
peak memory is O(K·n) (the K×n backtracking table) plus O(block). Exact pruning: since
C(s, u) >= C(s, t) + C(t, u) for s < t < u (splitting a segment never increases its
cost), a candidate last change s with F_{k-1}(s) + C(s, t) > F_{k-1}(t) can never be the
optimal last change of a k-segment model of y_1..y_u for any u > t: the candidate t is
then at least as good (the argument of PELT, Killick et al. 2012, applied layer by layer).
Such candidates are dropped from the later blocks of layer k. A small margin keeps the
pruning exact under rounding, and equal-loss ties go to the smallest last-change index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_BLOCK_ELEMENTS = 1 << 16  # cost-block size (doubles) processed at once: fits in L2 cache
_PRUNE_GATHER_FRACTION = 0.5  # use only the alive candidates below this fraction


# ----------------------------------------------------------------------------- costs


def _prepare(values: np.ndarray, loss: str):
    """Cumulative sums for the segment cost, and the rounding margin used by pruning."""
    n = len(values)
    if loss == "l2":
        y = values - values.mean()  # centring improves the cumsum precision; same optimum
        s = np.zeros(n + 1)
        q = np.zeros(n + 1)
        np.cumsum(y, out=s[1:])
        np.cumsum(y * y, out=q[1:])
        scale = q[-1] + np.abs(s).max()
    else:
        s = np.zeros(n + 1)
        np.cumsum(values, out=s[1:])
        q = None
        scale = s[-1] * (1.0 + abs(np.log(max(s[-1] / n, 1e-300)))) if s[-1] > 0 else 0.0
    margin = 1e-9 * (1.0 + scale)
    return s, q, margin


def _cost(s, q, loss: str, start, end):
    """Cost C(start, end) of segments y[start:end] (broadcasting; end > start)."""
    m = end - start
    d = s[end] - s[start]
    if loss == "l2":
        return (q[end] - q[start]) - d * d / m
    with np.errstate(divide="ignore", invalid="ignore"):
        c = d - d * np.log(d / m)
    return np.where(d > 0, c, 0.0)


def _cost_block(s, q, loss: str, t0: int, t1: int) -> np.ndarray:
    """C(s, t) for targets t in [t0, t1) (rows) and s in [0, t1-1) (columns); inf if s >= t."""
    m = np.arange(t0, t1, dtype=float)[:, None] - np.arange(t1 - 1, dtype=float)[None, :]
    d = s[t0:t1, None] - s[None, : t1 - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        if loss == "l2":
            c = q[t0:t1, None] - q[None, : t1 - 1]
            d *= d
            d /= m
            c -= d
        else:
            c = d - d * np.log(d / m)
            c[d <= 0] = 0.0
    # the within-block triangle s >= t is not a segment
    tri = c[:, t0 - 1 :]
    tri[np.triu(np.ones(tri.shape, dtype=bool), k=1)] = np.inf
    return c


# ----------------------------------------------------------------------------- the DP


def _segment_neighbourhood(values: np.ndarray, k_max: int, loss: str):
    """Exact segment neighbourhood DP; returns (loss (K,), backtrack (K, n+1))."""
    n = len(values)
    s, q, margin = _prepare(values, loss)
    F = np.full((k_max, n + 1), np.inf)
    last = np.zeros((k_max, n + 1), dtype=np.int32)
    t_all = np.arange(1, n + 1)
    F[0, 1:] = _cost(s, q, loss, 0, t_all)
    # alive[k-1]: sorted candidate last changes of layer k not yet pruned (columns < t0-1)
    alive = [np.arange(k - 1, k - 1, dtype=np.int64) for k in range(1, k_max + 1)]
    block = max(4, _BLOCK_ELEMENTS // max(n, 1))
    for t0 in range(2, n + 1, block):
        t1 = min(n + 1, t0 + block)
        C = _cost_block(s, q, loss, t0, t1)
        rows = np.arange(t1 - t0)
        buf = np.empty_like(C)
        for k in range(2, k_max + 1):
            lo = k - 1  # the first k-1 segments need at least k-1 points
            if lo >= t1 - 1:
                break
            prev = F[k - 2]
            # candidates: the survivors so far, plus this block's new columns
            cand = np.concatenate((alive[k - 1], np.arange(max(lo, t0 - 1), t1 - 1)))
            full = k == 2 or len(cand) >= _PRUNE_GATHER_FRACTION * (t1 - 1 - lo)
            if full:
                V = np.add(prev[lo : t1 - 1], C[:, lo:], out=buf[:, lo:])
                idx = V.argmin(axis=1)
                F[k - 1, t0:t1] = V[rows, idx]
                last[k - 1, t0:t1] = idx + lo
            else:
                V = prev[cand] + C[:, cand]
                idx = V.argmin(axis=1)
                F[k - 1, t0:t1] = V[rows, idx]
                last[k - 1, t0:t1] = cand[idx]
            if k == 2:
                continue  # C(0,s) + C(s,t) <= C(0,t): layer 2 never prunes
            # prune: columns s < t0 are valid segments for every row of the block
            ncol = int(np.searchsorted(cand, t0))
            if ncol > 0:
                thr = prev[t0:t1, None] + margin
                if full:
                    dead = (V[:, : t0 - lo] > thr).any(axis=0)[cand[:ncol] - lo]
                else:
                    dead = (V[:, :ncol] > thr).any(axis=0)
                cand = np.concatenate((cand[:ncol][~dead], cand[ncol:]))
            alive[k - 1] = cand
    return F[:, n].copy(), last


def _backtrack(last: np.ndarray, n: int, k: int) -> np.ndarray:
    ends = np.empty(k, dtype=np.int64)
    t = n
    for kk in range(k, 0, -1):
        ends[kk - 1] = t
        t = int(last[kk - 1, t])
    return ends


def _segment_with_ruptures(values: np.ndarray, k_max: int, estimator: Any, loss: str):
    """Models with 1..k_max segments from a ruptures estimator (fit + predict(n_bkps))."""
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
        raise TypeError(
            "segmenter must be a ruptures estimator with fit() and predict(n_bkps=...), "
            f"got {type(estimator).__name__}"
        )
    n = len(values)
    estimator.fit(values)
    s, q, _ = _prepare(values, loss)
    ends = [np.array([n], dtype=np.int64)]
    for k in range(2, k_max + 1):
        e = np.asarray(estimator.predict(n_bkps=k - 1), dtype=np.int64)
        if len(e) != k or e[-1] != n or (np.diff(np.r_[0, e]) <= 0).any():
            raise ValueError(
                f"segmenter {type(estimator).__name__} returned invalid breakpoints {e.tolist()} "
                f"for {k} segments of {n} points"
            )
        ends.append(e)
    losses = np.array([_cost(s, q, loss, np.r_[0, e[:-1]], e).sum() for e in ends])
    return losses, ends
