"""The (v, ΔFP, ΔFN, example) breakpoint tuples of the AUM papers.

Each breakpoint b says: when the score of example ``example[b]`` crosses ``value[b]``
from below, the false positive count jumps by ``fp_diff[b]`` and the false negative
count by ``fn_diff[b]`` (Hillman & Hocking 2023, "Optimizing ROC curves with a sort-based
surrogate loss ...", Hillman & Hocking 2023; Fowler & Hocking 2024, Section 2).
FP is 0 at score −∞ and FN is 0 at score +∞.

Scores are ``−log λ`` for penalty learning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from penlearn._checks import check_evaluation, id_list

Normalize = Literal["count", "rate"]


def _as_float_array(x, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


class Breakpoints:
    """Immutable set of breakpoint tuples (v, ΔFP, ΔFN, example).

    Parameters
    ----------
    example : array-like of int
        0-based example index of each breakpoint.
    value : array-like of float
        Breakpoint location v in score units (score = −log λ).
    fp_diff, fn_diff : array-like of float
        Jumps of FP and FN when the score crosses ``value`` from below.
    n_examples : int, optional
        Number of examples (predictions); default ``max(example) + 1``.
    example_ids : sequence, optional
        A name per example (e.g. sequence ids), length ``n_examples``.

    Notes
    -----
    Breakpoints of the same example at the same value are merged (their diffs summed),
    since they always move together.

    Examples
    --------
    >>> bp = Breakpoints([0, 1], [0.0, 0.0], [1.0, 0.0], [0.0, -1.0])
    >>> bp.n_examples, len(bp)
    (2, 2)
    >>> bp.to_frame().columns.tolist()
    ['example', 'value', 'fp_diff', 'fn_diff']
    """

    __slots__ = ("example", "value", "fp_diff", "fn_diff", "n_examples", "example_ids",
                 "_diffs", "_monotone", "_identity")

    def __init__(
        self,
        example,
        value,
        fp_diff,
        fn_diff,
        n_examples: int | None = None,
        example_ids: Sequence | None = None,
    ) -> None:
        ex = np.asarray(example)
        if ex.ndim != 1:
            raise ValueError(f"example must be one-dimensional, got shape {ex.shape}")
        if ex.size and not np.issubdtype(ex.dtype, np.integer):
            if np.issubdtype(ex.dtype, np.floating) and np.all(np.isfinite(ex)) and np.all(
                ex == np.round(ex)
            ):
                ex = ex.astype(np.int64)
            else:
                raise TypeError(f"example must hold integers, got dtype {ex.dtype}")
        ex = ex.astype(np.int64)
        v = _as_float_array(value, "value")
        fp = _as_float_array(fp_diff, "fp_diff")
        fn = _as_float_array(fn_diff, "fn_diff")
        n = len(ex)
        for name, arr in (("value", v), ("fp_diff", fp), ("fn_diff", fn)):
            if len(arr) != n:
                raise ValueError(
                    f"{name} has length {len(arr)} but example has length {n}; "
                    "all four arrays must have equal lengths"
                )
            if not np.all(np.isfinite(arr)):
                i = int(np.flatnonzero(~np.isfinite(arr))[0])
                raise ValueError(f"{name} must be finite; breakpoint {i} has {arr[i]!r}")
        if n_examples is None:
            n_examples = int(ex.max()) + 1 if n else 0
        if isinstance(n_examples, bool) or not isinstance(n_examples, (int, np.integer)):
            raise TypeError(f"n_examples must be an int, got {type(n_examples).__name__}")
        n_examples = int(n_examples)
        if n_examples < 0:
            raise ValueError(f"n_examples must be >= 0, got {n_examples}")
        if n and (ex.min() < 0 or ex.max() >= n_examples):
            bad = int(ex[(ex < 0) | (ex >= n_examples)][0])
            raise ValueError(
                f"example must be in [0, n_examples={n_examples}); found example {bad}"
            )
        if example_ids is not None:
            example_ids = tuple(example_ids)
            if len(example_ids) != n_examples:
                raise ValueError(
                    f"example_ids has length {len(example_ids)}, expected n_examples="
                    f"{n_examples}"
                )
        if n > 1:
            ex, v, fp, fn = _merge_duplicates(ex, v, fp, fn)
        for arr in (ex, v, fp, fn):
            arr.flags.writeable = False
        object.__setattr__(self, "example", ex)
        object.__setattr__(self, "value", v)
        object.__setattr__(self, "fp_diff", fp)
        object.__setattr__(self, "fn_diff", fn)
        object.__setattr__(self, "n_examples", n_examples)
        object.__setattr__(self, "example_ids", example_ids)
        # (ΔFP, ΔFN) pairs packed as complex numbers: one fast 1-D gather per sort
        diffs = fp + 1j * fn
        diffs.flags.writeable = False
        object.__setattr__(self, "_diffs", diffs)
        object.__setattr__(self, "_monotone", bool(np.all(fp >= 0) and np.all(fn <= 0)))
        # one breakpoint per example, in example order (binary labels): derivatives need
        # no accumulation
        object.__setattr__(self, "_identity", bool(
            len(ex) == n_examples and np.array_equal(ex, np.arange(n_examples))))

    def __setattr__(self, name, value):  # noqa: D105
        raise AttributeError("Breakpoints is immutable")

    def __reduce__(self):
        """Pickle through the constructor (process pools, dask): the immutable instance
        cannot be restored attribute by attribute."""
        return (type(self), (self.example, self.value, self.fp_diff, self.fn_diff,
                             self.n_examples, self.example_ids))

    def __len__(self) -> int:
        return len(self.example)

    def __repr__(self) -> str:
        return (
            f"Breakpoints(B={len(self)}, n_examples={self.n_examples}, "
            f"fp_total={self.fp_total:g}, fn_total={self.fn_total:g})"
        )

    @property
    def fp_total(self) -> float:
        """ΣΔFP: the FP count at score +∞ (the ROC's FPR denominator)."""
        return float(np.sum(self.fp_diff))

    @property
    def fn_total(self) -> float:
        """−ΣΔFN: the FN count at score −∞ (the ROC's FNR denominator)."""
        return float(-np.sum(self.fn_diff))

    @property
    def is_monotone(self) -> bool:
        """True when every ΔFP ≥ 0 and every ΔFN ≤ 0 (monotone error functions)."""
        return self._monotone

    def to_frame(self) -> pd.DataFrame:
        """The breakpoints as a DataFrame ``example, value, fp_diff, fn_diff``."""
        return pd.DataFrame(
            {
                "example": self.example,
                "value": self.value,
                "fp_diff": self.fp_diff,
                "fn_diff": self.fn_diff,
            }
        )

    def normalize(self, normalize: Normalize = "rate") -> Breakpoints:
        """Return a copy normalized by ``"count"`` (unchanged) or ``"rate"``.

        ``"rate"`` divides ΔFP by ΣΔFP and ΔFN by −ΣΔFN, so FPR and FNR go 0..1.
        """
        if normalize == "count":
            return self
        if normalize != "rate":
            raise ValueError(f"normalize must be 'count' or 'rate', got {normalize!r}")
        fp_tot, fn_tot = self.fp_total, self.fn_total
        if not fp_tot > 0:
            raise ValueError(
                f"normalize='rate' needs a positive total FP (sum of fp_diff), got {fp_tot}"
            )
        if not fn_tot > 0:
            raise ValueError(
                f"normalize='rate' needs a positive total FN (-sum of fn_diff), got {fn_tot}"
            )
        return Breakpoints(
            self.example,
            self.value,
            self.fp_diff / fp_tot,
            self.fn_diff / fn_tot,
            self.n_examples,
            self.example_ids,
        )

    def subset(self, examples) -> Breakpoints:
        """Breakpoints of the given examples only, renumbered 0..len(examples)-1."""
        examples = np.asarray(examples, dtype=np.int64)
        remap = np.full(self.n_examples, -1, np.int64)
        remap[examples] = np.arange(len(examples))
        keep = remap[self.example] >= 0
        ids = None
        if self.example_ids is not None:
            ids = [self.example_ids[i] for i in examples]
        return Breakpoints(
            remap[self.example[keep]],
            self.value[keep],
            self.fp_diff[keep],
            self.fn_diff[keep],
            len(examples),
            ids,
        )


def _merge_duplicates(ex, v, fp, fn):
    """Sum the diffs of breakpoints with the same (example, value); keep first order."""
    order = np.lexsort((v, ex))
    se, sv = ex[order], v[order]
    dup = (se[1:] == se[:-1]) & (sv[1:] == sv[:-1])
    if not dup.any():
        return ex.copy(), v.copy(), fp.copy(), fn.copy()
    start = np.r_[True, ~dup]
    group_sorted = np.cumsum(start) - 1
    group = np.empty_like(group_sorted)
    group[order] = group_sorted
    n_groups = int(group_sorted[-1]) + 1
    first_pos = np.full(n_groups, len(ex), np.int64)
    np.minimum.at(first_pos, group, np.arange(len(ex)))
    keep_order = np.sort(first_pos)
    fp_sum = np.bincount(group, weights=fp, minlength=n_groups)
    fn_sum = np.bincount(group, weights=fn, minlength=n_groups)
    g_of_kept = group[keep_order]
    return ex[keep_order], v[keep_order], fp_sum[g_of_kept], fn_sum[g_of_kept]


def breakpoints_from_errors(
    evaluation: pd.DataFrame,
    normalize: Normalize = "count",
    sequence_ids: Sequence | None = None,
) -> Breakpoints:
    """Breakpoints of per-sequence error functions (an evaluation table).

    For each sequence, sorted by λ decreasing, each interval boundary λ > 0 gives a
    breakpoint at v = −log λ with the FP/FN jumps across it (from the larger-λ model to
    the smaller-λ one); zero jumps are dropped (Fowler & Hocking 2024 Section 2).

    Parameters
    ----------
    evaluation : DataFrame
        Columns ``sequence_id, min_log_lambda, max_log_lambda, fp, fn``; per sequence the
        intervals partition (−∞, ∞), or (b, ∞) for a sequence whose lowest row is marked
        ``bounded`` (a path stopped at log λ = b): its breakpoints are the jumps above b,
        so AUM and ROC hold its lowest row's errors below b (no jump is known there).
    normalize : {"count", "rate"}
        ``"rate"`` divides ΔFP by ΣΔFP and ΔFN by −ΣΔFN of this set.
    sequence_ids : sequence, optional
        The example order (e.g. the rows of a feature matrix). Sequences listed here but
        absent from ``evaluation`` are examples without breakpoints; every sequence of
        ``evaluation`` must be listed. Default: order of first appearance.

    Returns
    -------
    Breakpoints
        With ``example_ids`` set to the sequence ids.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["s", "s", "s"],
    ...     "min_log_lambda": [-np.inf, 0.0, 2.0], "max_log_lambda": [0.0, 2.0, np.inf],
    ...     "fp": [2, 0, 0], "fn": [0, 0, 1]})
    >>> breakpoints_from_errors(ev).to_frame().values.tolist()
    [[0.0, -2.0, 0.0, -1.0], [0.0, -0.0, 2.0, 0.0]]
    """
    return breakpoints_from_checked(check_evaluation(evaluation), normalize, sequence_ids)


def breakpoints_from_checked(
    ev: pd.DataFrame,
    normalize: Normalize = "count",
    sequence_ids: Sequence | None = None,
) -> Breakpoints:
    """:func:`breakpoints_from_errors` of a table already returned by
    :func:`penlearn._checks.check_evaluation` (or a subset of its sequences): internal
    callers validate the evaluation table once where it enters the library.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from penlearn._checks import check_evaluation
    >>> ev = check_evaluation(pd.DataFrame({"sequence_id": ["s", "s"],
    ...     "min_log_lambda": [-np.inf, 0.0], "max_log_lambda": [0.0, np.inf],
    ...     "fp": [1, 0], "fn": [0, 0]}))
    >>> breakpoints_from_checked(ev).fp_diff.tolist()
    [1.0]
    """
    if sequence_ids is None:
        ids = pd.unique(ev["sequence_id"])
    else:
        ids = pd.Index(list(sequence_ids))
        if ids.has_duplicates:
            raise ValueError("sequence_ids must be unique")
        missing = ~pd.Index(pd.unique(ev["sequence_id"])).isin(ids)
        if missing.any():
            extra = pd.unique(ev["sequence_id"])[missing].tolist()
            raise ValueError(f"evaluation has {id_list(extra)} not in sequence_ids")
    index = pd.Index(ids)
    seq = ev["sequence_id"].to_numpy()
    lo = ev["min_log_lambda"].to_numpy()
    fp = ev["fp"].to_numpy()
    fn = ev["fn"].to_numpy()
    # rows sorted by sequence then λ decreasing; the next row has the next smaller λ
    has_next = np.r_[seq[1:] == seq[:-1], False]
    rows = np.flatnonzero(has_next)
    fp_d = fp[rows + 1] - fp[rows]
    fn_d = fn[rows + 1] - fn[rows]
    keep = (fp_d != 0) | (fn_d != 0)
    rows, fp_d, fn_d = rows[keep], fp_d[keep], fn_d[keep]
    example = index.get_indexer(seq[rows])
    order = np.lexsort((-lo[rows], example))  # by example, then v increasing
    bp = Breakpoints(
        example[order],
        -lo[rows][order],
        fp_d[order],
        fn_d[order],
        n_examples=len(index),
        example_ids=list(index),
    )
    return bp.normalize(normalize)


def breakpoints_from_labels(y, normalize: Normalize = "count") -> Breakpoints:
    """Breakpoints of binary labels: one per example at v = 0.

    A positive example (1) gives ΔFN = −1 (it is a false negative while its score is
    below 0); a negative example (0 or −1) gives ΔFP = +1.

    Parameters
    ----------
    y : array-like
        Labels in {0, 1} or {−1, 1}.
    normalize : {"count", "rate"}
        ``"rate"`` divides ΔFP by the number of negatives, ΔFN by the number of positives.

    Examples
    --------
    >>> breakpoints_from_labels([0, 1, 1]).to_frame()[["fp_diff", "fn_diff"]].values.tolist()
    [[1.0, 0.0], [0.0, -1.0], [0.0, -1.0]]
    """
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"y must be a non-empty one-dimensional array, got shape {arr.shape}")
    try:
        yf = arr.astype(float)
    except (TypeError, ValueError) as exc:
        raise TypeError("y must be numeric labels in {0, 1} or {-1, 1}") from exc
    vals = set(np.unique(yf).tolist())
    if not (vals <= {0.0, 1.0} or vals <= {-1.0, 1.0}):
        raise ValueError(f"y must hold labels in {{0, 1}} or {{-1, 1}}, got values {sorted(vals)}")
    pos = yf == 1.0
    n = len(yf)
    return Breakpoints(
        np.arange(n),
        np.zeros(n),
        np.where(pos, 0.0, 1.0),
        np.where(pos, -1.0, 0.0),
        n_examples=n,
    ).normalize(normalize)


def examples_with_negative_errors(breakpoints: Breakpoints, tol: float = 1e-9) -> np.ndarray:
    """Examples whose own FP or FN, rebuilt from their diffs, goes negative somewhere.

    Breakpoints only record jumps: FP is anchored at 0 at score −∞ and FN at 0 at score
    +∞ (λ = 0). A sequence whose most complex model still has a false negative, while a
    simpler model has fewer, gets a negative FN in between; AUM is then undefined for
    some predictions (:func:`penlearn.aum` raises). These are the examples to exclude
    or re-label.

    Parameters
    ----------
    breakpoints : Breakpoints
    tol : float
        Values above ``-tol`` (times the example's total absolute diff) count as 0.

    Returns
    -------
    ndarray of int
        Sorted example indices.

    Examples
    --------
    >>> bp = Breakpoints([0, 0, 1], [-1.0, 1.0, 0.0], [0, 0, 1], [-1, 1, 0])
    >>> examples_with_negative_errors(bp).tolist()
    [0]
    """
    if len(breakpoints) == 0:
        return np.zeros(0, np.int64)
    ex = breakpoints.example
    order = np.lexsort((breakpoints.value, ex))
    se = ex[order]
    fp = breakpoints.fp_diff[order]
    fn = breakpoints.fn_diff[order]
    start = np.r_[True, se[1:] != se[:-1]]
    group = np.cumsum(start) - 1
    starts = np.flatnonzero(start)
    # FP just right of each own breakpoint: cumulative sum within the example
    cfp = np.cumsum(fp)
    fp_after = cfp - np.r_[0.0, cfp][starts][group]
    # FN just left of each own breakpoint: reverse cumulative sum of -fn within the example
    rfn = np.cumsum(fn[::-1])[::-1]
    ends = np.r_[starts[1:], len(se)]
    fn_before = -(rfn - np.r_[rfn, 0.0][ends][group])
    scale = np.bincount(group, weights=np.abs(fp) + np.abs(fn))[group]
    bad = (fp_after < -tol * np.maximum(scale, 1.0)) | (fn_before < -tol * np.maximum(scale, 1.0))
    return np.unique(se[bad])
