"""Optimal segment-neighbourhood models: the best segmentation with 1..K segments.

For one sequence y_1..y_n and every k = 1..K, :func:`segment` finds the segmentation into
k contiguous segments of minimum total cost, where a segment's cost is the minimum over
its parameter of an additive loss (square loss: Gaussian change in mean; Poisson loss:
count data such as ChIP-seq coverage). This is the "segment neighbourhood" problem solved
exactly by dynamic programming (Auger & Lawrence 1989):

    F_1(t) = C(0, t),      F_k(t) = min_{k-1 <= s < t} F_{k-1}(s) + C(s, t),

where C(s, t) is the cost of the segment y_{s+1}..y_t. The models feed the penalty path
(:func:`penlearn.changepoint.model_selection`) and the label errors of supervised changepoint
detection (Hocking et al. 2013, ICML; Hillman & Hocking 2023, JMLR, Section 2).

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

import warnings
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from penlearn._checks import require_columns

LOSSES = ("l2", "poisson")
_BLOCK_ELEMENTS = 1 << 16  # cost-block size (doubles) processed at once: fits in L2 cache
_PRUNE_GATHER_FRACTION = 0.5  # use only the alive candidates below this fraction


@dataclass(frozen=True)
class Segmentation:
    """Optimal models with 1..K segments of one sequence.

    Attributes
    ----------
    loss : ndarray of shape (K,)
        ``loss[k-1]`` is the optimal total cost with k segments (total squared error for
        ``loss="l2"``; Poisson negative log-likelihood without the ``log(y!)`` term for
        ``loss="poisson"``).
    n_data : int
        Number of data points.
    segment_ends : tuple of ndarray
        ``segment_ends[k-1]`` are the k segment end indices (see :meth:`ends`).
    loss_name : str
        ``"l2"``, ``"poisson"`` or the name of a ruptures estimator.

    Examples
    --------
    >>> seg = segment([0.0, 0.1, 5.0, 5.2, 5.1], 3)
    >>> seg.ends(2).tolist()
    [2, 5]
    >>> float(round(seg.loss[1], 6))
    0.025
    """

    loss: np.ndarray
    n_data: int
    segment_ends: tuple
    loss_name: str = "l2"

    @property
    def max_segments(self) -> int:
        """The number K of models (1..K segments)."""
        return len(self.loss)

    def ends(self, k: int) -> np.ndarray:
        """End indices of the k segments of the k-segment model.

        Segment j covers ``values[ends[j-1]:ends[j]]`` (0-based, end exclusive, with
        ``ends[-1] == n``); equivalently the 1-based inclusive index of each segment's
        last point.
        """
        if not 1 <= int(k) <= self.max_segments:
            raise ValueError(f"k must be in 1..{self.max_segments}, got {k!r}")
        return self.segment_ends[int(k) - 1].copy()

    def starts(self, k: int) -> np.ndarray:
        """0-based start index of each segment of the k-segment model."""
        e = self.ends(k)
        return np.r_[0, e[:-1]]


class SequenceSegmentations(NamedTuple):
    """Result of :func:`segment_sequences`: the ``models`` and ``changes`` tables.

    Examples
    --------
    >>> import pandas as pd
    >>> seqs = pd.DataFrame({"sequence_id": "a", "position": [1, 2, 3],
    ...                      "value": [0.0, 0.0, 5.0]})
    >>> res = segment_sequences(seqs, 2, progress=False)
    >>> res.models["n_segments"].tolist(), res.changes["position"].tolist()
    ([1, 2], [2])
    """

    models: pd.DataFrame
    changes: pd.DataFrame


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


def _check_values(values, loss: str, what: str = "values") -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if len(arr) == 0:
        raise ValueError(f"{what} is empty: a sequence needs at least one data point")
    if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{what} must be real numbers, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if not np.isfinite(arr).all():
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{what} must be finite; element {i} is {arr[i]!r}")
    if loss == "poisson" and (arr < 0).any():
        raise ValueError(f"{what} must be non-negative counts for loss='poisson'")
    return arr


def _check_k(max_segments, n: int) -> int:
    if isinstance(max_segments, bool) or not isinstance(max_segments, int | np.integer):
        raise TypeError(f"max_segments must be an integer, got {max_segments!r}")
    k = int(max_segments)
    if k < 1:
        raise ValueError(f"max_segments must be >= 1, got {k}")
    if k > n:
        warnings.warn(
            f"max_segments={k} is larger than the number of data points ({n}); "
            f"computing models with 1..{n} segments",
            UserWarning,
            stacklevel=3,
        )
        k = n
    return k


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


def segment(
    values, max_segments: int, loss: str = "l2", *, segmenter: Any = None
) -> Segmentation:
    """Exact optimal models with 1..K segments of one sequence (segment neighbourhood).

    Parameters
    ----------
    values : array_like of shape (n,)
        The data, in order of position.
    max_segments : int
        K, the largest number of segments; clipped to n with a warning.
    loss : {"l2", "poisson"}
        Square loss (change in mean; loss = total squared error) or Poisson loss for
        non-negative counts (loss = Σ (μ − y log μ) over segments).
    segmenter : ruptures estimator, optional
        E.g. ``ruptures.KernelCPD(kernel="linear", min_size=1)`` or ``ruptures.Dynp``:
        its ``predict(n_bkps=k-1)`` gives the k-segment model, whose cost under ``loss``
        is reported. Default: penlearn's exact vectorised DP.

    Returns
    -------
    Segmentation

    Examples
    --------
    >>> seg = segment([1.0, 1.0, 4.0, 4.0, 4.0, 0.0], 4)
    >>> [e.tolist() for e in (seg.ends(1), seg.ends(3))]
    [[6], [2, 5, 6]]
    >>> seg.loss[:2].round(6).tolist()
    [17.333333, 10.8]
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    arr = _check_values(values, loss)
    k_max = _check_k(max_segments, len(arr))
    if segmenter is not None:
        losses, ends = _segment_with_ruptures(arr, k_max, segmenter, loss)
        return Segmentation(losses, len(arr), tuple(ends), type(segmenter).__name__)
    losses, last = _segment_neighbourhood(arr, k_max, loss)
    ends = tuple(_backtrack(last, len(arr), k) for k in range(1, k_max + 1))
    return Segmentation(losses, len(arr), ends, loss)


# ----------------------------------------------------------------------------- many sequences


def _check_sequences(sequences: pd.DataFrame, name: str = "sequences") -> pd.DataFrame:
    """Validate the long sequences table; return it with a stable order of sequences."""
    require_columns(sequences, ["sequence_id", "position", "value"], name)
    if len(sequences) == 0:
        raise ValueError(f"{name} has no rows")
    pos = sequences["position"]
    if not pd.api.types.is_integer_dtype(pos):
        num = pd.to_numeric(pos, errors="coerce")
        bad = num.isna() | (num != np.floor(num))
        if bad.any():
            sid = sequences["sequence_id"][bad].iloc[0]
            raise TypeError(
                f"{name} column 'position' must hold integers; sequence {sid!r} has "
                f"{pos[bad].iloc[0]!r}"
            )
    val = pd.to_numeric(sequences["value"], errors="coerce")
    bad = ~np.isfinite(val.to_numpy(dtype=float))
    if bad.any():
        sid = sequences["sequence_id"].to_numpy()[bad][0]
        raise ValueError(
            f"{name} column 'value' must be finite numbers; sequence {sid!r} has "
            f"{sequences['value'].to_numpy()[bad][0]!r}"
        )
    seq = sequences[["sequence_id", "position", "value"]].copy()
    seq["position"] = pd.to_numeric(seq["position"]).astype(np.int64)
    seq["value"] = val.astype(float)
    codes = pd.factorize(seq["sequence_id"])[0]
    same = codes[1:] == codes[:-1]
    dp = np.diff(seq["position"].to_numpy())
    bad = same & (dp <= 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        sid = seq["sequence_id"].iloc[i]
        what = "duplicate" if dp[i] == 0 else "unsorted"
        raise ValueError(
            f"{name}: positions of sequence {sid!r} must be strictly increasing "
            f"({what} position {int(seq['position'].iloc[i + 1])} after "
            f"{int(seq['position'].iloc[i])})"
        )
    # a sequence whose rows are not contiguous would hide unsorted positions
    first_rows = np.r_[True, ~same]
    if first_rows.sum() != codes.max() + 1:
        sid = seq["sequence_id"].to_numpy()[first_rows][
            pd.Series(codes[first_rows]).duplicated().to_numpy()
        ][0]
        raise ValueError(f"{name}: the rows of sequence {sid!r} must be contiguous")
    return seq


def _segment_task(values: np.ndarray, k_max: int, loss: str, segmenter: Any):
    seg = segment(values, k_max, loss, segmenter=segmenter)
    return seg.loss, seg.segment_ends


def _tables(ids, positions, results):
    """The ``models`` and ``changes`` tables from per-sequence (loss, ends) results."""
    m_sid, m_k, m_loss, c_sid, c_k, c_pos = [], [], [], [], [], []
    for g, (pos, (losses, ends)) in enumerate(zip(positions, results, strict=True)):
        k = len(losses)
        m_sid.append(np.full(k, g))
        m_k.append(np.arange(1, k + 1))
        m_loss.append(np.asarray(losses, dtype=float))
        after = np.concatenate([e[:-1] for e in ends]).astype(np.int64)
        c_sid.append(np.full(len(after), g))
        c_k.append(np.repeat(np.arange(1, k + 1), np.arange(k)))
        # ⌊(p_i + p_{i+1})/2⌋ without overflowing int64 near 2^62
        c_pos.append(pos[after - 1] + (pos[after] - pos[after - 1]) // 2)
    ids = pd.Index(ids)
    models = pd.DataFrame(
        {"sequence_id": ids.take(np.concatenate(m_sid)).to_numpy(),
         "n_segments": np.concatenate(m_k), "loss": np.concatenate(m_loss)}
    )
    changes = pd.DataFrame(
        {"sequence_id": ids.take(np.concatenate(c_sid)).to_numpy(),
         "n_segments": np.concatenate(c_k).astype(np.int64),
         "position": np.concatenate(c_pos).astype(np.int64)}
    )
    return models, changes


def segment_sequences(
    sequences: pd.DataFrame,
    max_segments: int,
    loss: str = "l2",
    executor: Executor | None = None,
    progress: bool = True,
    *,
    segmenter: Any = None,
) -> SequenceSegmentations:
    """Optimal models with 1..K segments of every sequence of a long table.

    Parameters
    ----------
    sequences : DataFrame
        Columns ``sequence_id, position, value``; positions strictly increasing integers
        within each sequence (each sequence's rows contiguous).
    max_segments : int
        K; clipped (with a warning) for sequences with fewer than K points.
    loss : {"l2", "poisson"}
        See :func:`segment`.
    executor : concurrent.futures.Executor, optional
        Runs one task per sequence: e.g. a ``ProcessPoolExecutor`` or a Dask cluster's
        ``distributed.Client(...).get_executor()``. Default: in this process.
    progress : bool
        Show a tqdm progress bar.
    segmenter : ruptures estimator, optional
        See :func:`segment`.

    Returns
    -------
    SequenceSegmentations
        ``models`` (``sequence_id, n_segments, loss``) and ``changes``
        (``sequence_id, n_segments, position``): the changes of each model, at
        ⌊(p_i + p_{i+1}) / 2⌋ between the last point of a segment and the next one.

    Examples
    --------
    >>> import pandas as pd
    >>> seqs = pd.DataFrame({"sequence_id": "a", "position": [10, 20, 30, 40],
    ...                      "value": [0.0, 0.0, 3.0, 3.0]})
    >>> models, changes = segment_sequences(seqs, 2, progress=False)
    >>> models["loss"].round(6).tolist(), changes["position"].tolist()
    ([9.0, 0.0], [25])
    """
    from tqdm.auto import tqdm

    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if isinstance(max_segments, bool) or not isinstance(max_segments, int | np.integer):
        raise TypeError(f"max_segments must be an integer, got {max_segments!r}")
    if max_segments < 1:
        raise ValueError(f"max_segments must be >= 1, got {max_segments}")
    seq = _check_sequences(sequences)
    # rows of each sequence are contiguous (checked): split at the first rows
    sid_all = seq["sequence_id"].to_numpy()
    codes = pd.factorize(sid_all)[0]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    ids = list(sid_all[starts])
    values = np.split(seq["value"].to_numpy(), starts[1:])
    positions = np.split(seq["position"].to_numpy(), starts[1:])
    if loss == "poisson":
        for sid, v in zip(ids, values, strict=True):
            if (v < 0).any():
                raise ValueError(f"sequences: sequence {sid!r} has negative values (poisson)")
    short = [(sid, len(v)) for sid, v in zip(ids, values, strict=True) if len(v) < max_segments]
    if short:
        warnings.warn(
            f"{len(short)} sequence(s) have fewer than max_segments={max_segments} points "
            f"(e.g. {short[0][0]!r} with {short[0][1]}); their models stop at n segments",
            UserWarning,
            stacklevel=2,
        )
    results: list = [None] * len(ids)
    bar = tqdm(total=len(ids), disable=not progress, desc="segment")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the clipping warning was given above
        if executor is None:
            for i, v in enumerate(values):
                results[i] = _segment_task(v, min(max_segments, len(v)), loss, segmenter)
                bar.update()
        else:
            futures = {
                executor.submit(_segment_task, v, min(max_segments, len(v)), loss, segmenter): i
                for i, v in enumerate(values)
            }
            try:
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    bar.update()
            except BaseException:
                for fut in futures:
                    fut.cancel()  # nothing half-done is returned: stop the remaining tasks
                raise
    bar.close()
    models, changes = _tables(ids, positions, results)
    return SequenceSegmentations(models, changes)
