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

The default solver is functional pruning over the segment mean: the pruned DP of Rigaill
(2015) for 1..K segments and FPOP (Maidstone, Hocking, Rigaill & Fearnhead 2017) for one
penalty, O(K·n·log n) time in practice and O(K·n) memory (numba kernels in
:mod:`penlearn.changepoint._fp_segment`). The quadratic DP
(:mod:`penlearn.changepoint._dp_segment`) stays available as ``method="dp"``.
"""

from __future__ import annotations

import warnings
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, require_ids, sequence_label
from penlearn._executor import expect_tasks
from penlearn._repr import compact_repr
from penlearn._warnings import caller_stacklevel
from penlearn.changepoint._dp_segment import (
    _backtrack,
    _segment_neighbourhood,
    _segment_with_ruptures,
)

LOSSES = ("l2", "poisson")


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


@dataclass(frozen=True)
class PenalizedSegmentation:
    """The optimal model of one sequence for one penalty λ (``segment(..., penalty=λ)``).

    It minimises ``loss + λ · (number of changes)`` over all segmentations (equivalently
    loss + λ · segments).

    Attributes
    ----------
    loss : float
        Total cost of the model (as :attr:`Segmentation.loss`).
    penalty : float
        λ.
    n_data : int
        Number of data points.
    segment_ends : ndarray
        End index of each segment (see :meth:`Segmentation.ends`).
    loss_name : str
        ``"l2"`` or ``"poisson"``.

    Examples
    --------
    >>> m = segment([0.0, 0.1, 5.0, 5.2, 5.1], penalty=1.0)
    >>> m.n_segments, m.ends().tolist()
    (2, [2, 5])
    """

    loss: float
    penalty: float
    n_data: int
    segment_ends: np.ndarray
    loss_name: str = "l2"

    @property
    def n_segments(self) -> int:
        """Number of segments of the model."""
        return len(self.segment_ends)

    def ends(self) -> np.ndarray:
        """End indices of the segments (0-based, exclusive; the last is n)."""
        return self.segment_ends.copy()

    def starts(self) -> np.ndarray:
        """0-based start index of each segment."""
        return np.r_[0, self.segment_ends[:-1]]


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
            stacklevel=caller_stacklevel(),
        )
        k = n
    return k


METHODS = ("pruned", "dp")


def _check_weights(weights, n: int) -> np.ndarray:
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights)
    if w.ndim != 1 or len(w) != n:
        raise ValueError(f"weights must be one-dimensional of length {n} (one per value), "
                         f"got shape {w.shape}")
    if not np.issubdtype(w.dtype, np.number) or np.issubdtype(w.dtype, np.complexfloating):
        raise TypeError(f"weights must be real numbers, got dtype {w.dtype}")
    w = w.astype(float)
    bad = ~(np.isfinite(w) & (w > 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"weights must be finite and > 0; element {i} is {w[i]!r}")
    return w


def _check_penalty(penalty) -> float:
    if isinstance(penalty, bool) or not isinstance(penalty, int | float | np.integer
                                                    | np.floating):
        raise TypeError(f"penalty must be a number (λ >= 0), got {penalty!r}")
    lam = float(penalty)
    if not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"penalty must be finite and >= 0, got {penalty!r}")
    return lam


def _check_range(losses, loss: str) -> None:
    """A clear error where the losses leave the float range (square loss of huge data)."""
    if not np.isfinite(losses).all():
        raise ValueError(
            f"the {loss} losses of these values overflow the float range (|values| too "
            "large for squared errors); rescale the values (changes are scale-invariant)"
        )


def _progress_bar(progress, n: int, desc: str):
    """(callback, bar) for a progress bar counting data points, or (None, None)."""
    if progress is False or progress is None:
        return None, None
    if callable(progress):
        return progress, None
    from penlearn._progress import tqdm

    bar = tqdm(total=n, desc=desc, unit="points")
    return bar.update, bar


def segment(
    values,
    max_segments: int | None = None,
    loss: str = "l2",
    *,
    weights=None,
    penalty: float | None = None,
    method: str = "pruned",
    segmenter: Any = None,
    progress: Any = False,
) -> Segmentation | PenalizedSegmentation:
    """Exact optimal models with 1..K segments of one sequence, or the model for a penalty.

    Parameters
    ----------
    values : array_like of shape (n,)
        The data, in order of position.
    max_segments : int, optional
        K, the largest number of segments; clipped to n with a warning. Give either
        ``max_segments`` or ``penalty``.
    loss : {"l2", "poisson"}
        Square loss (change in mean; loss = total squared error) or Poisson loss for
        non-negative counts (loss = Σ (μ − y log μ) over segments).
    weights : array_like of shape (n,), optional
        Positive weight of each datum (loss Σ w·ℓ(y, μ)): a run of equal values, e.g. a
        bedGraph line of coverage, is one datum whose weight is the run's length.
        Changes fall between data only. Default: all 1.
    penalty : float, optional
        λ >= 0: return the single model minimising loss + λ·(number of changes)
        (FPOP; Maidstone, Hocking, Rigaill & Fearnhead 2017), as a
        :class:`PenalizedSegmentation`. One solve, instead of K models: time
        O(n·log n) in practice, memory O(n).
    method : {"pruned", "dp"}
        ``"pruned"`` (default): functional pruning over the segment mean, the pruned
        dynamic programme of Rigaill (2015) layer by layer; time O(K·n·log n) in
        practice (few candidate last changes survive the pruning: about 10 per layer on
        piecewise-constant data, and constant runs cost nothing extra), memory O(K·n)
        (the backtracking table, 4 bytes per entry). The worst case is O(K·n²): data
        that keep rising or falling (e.g. sorted values) prune almost nothing, and there
        the vectorised DP is about 2x faster. ``"dp"``: the quadratic vectorised DP (time
        O(K·n²), memory O(K·n)); no weights or penalty.
    segmenter : ruptures estimator, optional
        E.g. ``ruptures.KernelCPD(kernel="linear", min_size=1)`` or ``ruptures.Dynp``:
        its ``predict(n_bkps=k-1)`` gives the k-segment model, whose cost under ``loss``
        is reported.
    progress : bool or callable
        True shows a tqdm bar counting data points (moving within the sequence); a
        callable is called with the number of points processed since its last call.

    Returns
    -------
    Segmentation or PenalizedSegmentation

    Notes
    -----
    Ties between segmentations of equal cost (within rounding) resolve to the smallest
    last change, then recursively (the last change of the remaining prefix), as the
    quadratic DP does for exact ties. With the square loss the data are centred and
    scaled by powers of two before solving, so the changes do not depend on the scale
    of the data (values times 1e-200 give the changes of the values); losses that leave
    the float range raise a ``ValueError``.

    Examples
    --------
    >>> seg = segment([1.0, 1.0, 4.0, 4.0, 4.0, 0.0], 4)
    >>> [e.tolist() for e in (seg.ends(1), seg.ends(3))]
    [[6], [2, 5, 6]]
    >>> seg.loss[:2].round(6).tolist()
    [17.333333, 10.8]
    >>> segment([1.0, 1.0, 4.0, 4.0, 4.0, 0.0], penalty=5.0).ends().tolist()
    [2, 5, 6]
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    arr = _check_values(values, loss)
    n = len(arr)
    if (max_segments is None) == (penalty is None):
        raise TypeError("give exactly one of max_segments (models 1..K) or penalty (λ)")
    w = _check_weights(weights, n)
    if penalty is not None:
        lam = _check_penalty(penalty)
        if segmenter is not None or method != "pruned":
            raise ValueError("penalty= is solved by method='pruned' only (no segmenter)")
        from penlearn.changepoint import _fp_segment  # numba: imported on first use

        if progress is True:
            _fp_segment.warm()  # compile before the bar starts: no ETA of hours meanwhile
        call, bar = _progress_bar(progress, n, f"segment (penalty {lam:g})")
        total, ends = _fp_segment.pruned_penalized(arr, w, lam, loss, _int_steps(call))
        if bar is not None:
            bar.close()
        _check_range(np.array([total]), loss)
        return PenalizedSegmentation(total, lam, n, ends, loss)
    k_max = _check_k(max_segments, n)
    if segmenter is not None or method == "dp":
        if weights is not None:
            raise ValueError("weights need method='pruned' (not the DP or a segmenter)")
        if segmenter is not None:
            losses, ends = _segment_with_ruptures(arr, k_max, segmenter, loss)
            name = type(segmenter).__name__
        else:
            losses, last = _segment_neighbourhood(arr, k_max, loss)
            ends = [_backtrack(last, n, k) for k in range(1, k_max + 1)]
            name = loss
        call, bar = _progress_bar(progress, n, f"segment (K={k_max})")
        if call is not None:
            call(n)  # these solvers report only at the end
        if bar is not None:
            bar.close()
        return Segmentation(losses, n, tuple(ends), name)
    from penlearn.changepoint import _fp_segment  # numba: imported on first use

    if progress is True:
        _fp_segment.warm()  # compile before the bar starts: no ETA of hours meanwhile
    call, bar = _progress_bar(progress, n, f"segment (K={k_max})")
    losses, ends = _fp_segment.pruned_models(arr, w, k_max, loss, _int_steps(call))
    if bar is not None:
        bar.close()
    _check_range(losses, loss)
    return Segmentation(losses, n, tuple(ends), loss)


def _int_steps(call):
    """Turn fractional progress increments into whole points for ``call``."""
    if call is None:
        return None
    state = [0.0, 0]

    def step(x: float) -> None:
        state[0] += x
        whole = int(state[0] + 1e-9)
        if whole > state[1]:
            call(whole - state[1])
            state[1] = whole

    return step


# ----------------------------------------------------------------------------- many sequences


def _check_sequences(sequences: pd.DataFrame, name: str = "sequences") -> pd.DataFrame:
    """Validate the long sequences table; return it with a stable order of sequences."""
    require_columns(sequences, ["sequence_id", "position", "value"], name)
    if len(sequences) == 0:
        raise ValueError(f"{name} has no rows")
    require_ids(sequences, name)
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
            f"{name} column 'value' must be finite numbers; sequence {sequence_label(sid)!r} "
            f"has {sequence_label(sequences['value'].to_numpy()[bad][0])!r}"
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


def _segment_task(values: np.ndarray, k_max: int, loss: str, segmenter: Any, progress=False):
    seg = segment(values, k_max, loss, segmenter=segmenter, progress=progress)
    return seg.loss, seg.segment_ends


def change_positions(positions: np.ndarray, after: np.ndarray) -> np.ndarray:
    """⌊(p_i + p_{i+1}) / 2⌋ for the changes after 0-based indices ``i = after - 1``.

    Computed without overflow for int64 positions anywhere in their range (e.g. near
    2^62, where p_i + p_{i+1} would wrap around).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([2**62, 2**62 + 3], dtype=np.int64)
    >>> int(change_positions(p, np.array([1]))[0]) == 2**62 + 1
    True
    """
    a = positions[after - 1].astype(np.int64)
    b = positions[after].astype(np.int64)
    return a // 2 + b // 2 + (a % 2 + b % 2) // 2


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
        c_pos.append(change_positions(pos, after))
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
        Show a tqdm progress bar counting data points; without an executor it moves
        within each long sequence as the segmentation proceeds.
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
    from penlearn._progress import tqdm

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
            stacklevel=caller_stacklevel(),
        )
    results: list = [None] * len(ids)
    if progress and segmenter is None:
        from penlearn.changepoint import _fp_segment  # numba: imported on first use

        _fp_segment.warm()  # compile before the bar starts: no ETA of hours meanwhile
    # the bar counts data points, and moves within a long sequence (in this process)
    bar = tqdm(total=int(sum(len(v) for v in values)), disable=not progress,
               desc="segment", unit="points")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the clipping warning was given above
        if executor is None:
            for i, v in enumerate(values):
                results[i] = _segment_task(v, min(max_segments, len(v)), loss, segmenter,
                                           bar.update if progress else False)
        else:
            expect_tasks(executor, len(values))  # a lazy pool starts no idle worker
            futures = {
                executor.submit(_segment_task, v, min(max_segments, len(v)), loss, segmenter): i
                for i, v in enumerate(values)
            }
            try:
                for fut in as_completed(futures):
                    results[futures[fut]] = fut.result()
                    bar.update(len(values[futures[fut]]))
            except BaseException:
                for fut in futures:
                    fut.cancel()  # nothing half-done is returned: stop the remaining tasks
                raise
    bar.close()
    models, changes = _tables(ids, positions, results)
    return SequenceSegmentations(models, changes)


Segmentation.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
PenalizedSegmentation.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
SequenceSegmentations.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
