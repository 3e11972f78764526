"""``--broad`` with a control: a call must stand above the control over its own extent.

The model's background follows the control's PeakSeg segments
(:func:`~penlearn.peaks.peakseg.controls.control_background`), solved on 1 kb bins at the
control's penalty: at a low depth they do not follow a region of 1–5 kb enriched in the
treatment and the control alike ("sticky": amplified, open chromatin), which the finer
model of :func:`~penlearn.peaks.peakseg.broad.predict_broad` then calls (4–14 of the
simulation suite's 40 sticky regions at its low depth, where the narrow mode's q-value
and MACS3 call 0–2). :func:`above_control` tests each ``--broad`` call against the raw
control over the call's own bases, each sample over its typical level (not over its
total, which a treatment rich in peaks raises: the suite's dense cells have 1.75 times
the control's fragments). Chosen on ``benchmarks/sensitivity.py --broad --controls
with`` (``benchmarks/RESULTS.md``, "sensitivity, --broad against the narrow mode").
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn._checks import require_columns

__all__ = ["CONTROL_FOLD", "LEVEL_BIN", "above_control"]

#: The fold over the control a ``--broad`` call needs over its own extent, each sample
#: over its typical level (:func:`above_control`; 1.3 kept one more domain of 60 at the
#: low depth and as many sticky regions).
CONTROL_FOLD = 1.5
#: The bins (bases) whose median mean is a sample's typical level (:func:`above_control`).
LEVEL_BIN = 1_000


def _integral(s: np.ndarray, e: np.ndarray, c: np.ndarray, cum: np.ndarray,
              x: np.ndarray) -> np.ndarray:
    """The coverage summed from the first row to each ``x`` (rows sorted, gaps 0)."""
    k = np.searchsorted(e, x, side="right")
    part = np.where(k < len(s), c[np.minimum(k, len(s) - 1)]
                    * np.clip(x - s[np.minimum(k, len(s) - 1)], 0, None), 0.0)
    return cum[k] + part


def _typical(s: np.ndarray, e: np.ndarray, c: np.ndarray, cum: np.ndarray) -> float:
    """The median of the :data:`LEVEL_BIN` bins' mean coverage from the first row to the
    last (the level on most bases, which peaks and domains leave alone)."""
    edges = np.r_[np.arange(s[0], e[-1], LEVEL_BIN), e[-1]]
    means = np.diff(_integral(s, e, c, cum, edges)) / np.diff(edges)
    return float(np.median(means)) if len(means) else 0.0


def _problems(table: pd.DataFrame) -> dict:
    """``(sample_id or None, chrom)`` → rows (starts, ends, counts, running sums)."""
    from penlearn.peaks.formats._summit_kernel import running_sums  # numba: on first use

    require_columns(table, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    keys = [k for k in ("sample_id", "chrom") if k in table.columns]
    out = {}
    for k, g in table.groupby(keys, sort=False, dropna=False):
        k = k if isinstance(k, tuple) else (k,)
        g = g.sort_values("chromStart", kind="stable")
        s, e = g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64)
        c = g["count"].to_numpy(float)
        out[k if len(k) == 2 else (None, k[0])] = (s, e, c, running_sums(s, e, c))
    return out


def above_control(calls: pd.DataFrame, treatment: pd.DataFrame, control: pd.DataFrame, *,
                  min_fold: float = CONTROL_FOLD) -> np.ndarray:
    """Which calls stand ``min_fold`` times above the control over their own extent.

    With a control, ``--broad``'s test of a call: the treatment's mean coverage over the
    call, over its typical level ``t₀``, at least ``min_fold`` times the control's over
    the same bases, over its typical level ``c₀`` (each the median of the sample's 1 kb
    bins' means on the chromosome: the level on most bases, which a sample rich in
    peaks does not raise as it raises its total). A region enriched in the treatment
    and the control alike ("sticky": amplified, open chromatin) fails it where the
    control's segments, which the model's background follows, are too coarse to
    follow it (1–5 kb at a low depth); a domain of fold 2 or more over a flat control
    passes.

    Parameters
    ----------
    calls : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd``.
    treatment, control : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count`` (the control's
        ``sample_id``, if any, matched to the calls', else one control for all).
    min_fold : float
        :data:`CONTROL_FOLD`.

    Returns
    -------
    ndarray of bool
        One per call: kept. Calls on a chromosome without control coverage are kept.

    Examples
    --------
    A domain at 4 over a treatment level of 1 (control flat) is kept; a region up 3
    times in both is not:

    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 20_000, 25_000, 60_000,
    ...                   63_000], "chromEnd": [20_000, 25_000, 60_000, 63_000, 100_000],
    ...                   "count": [1, 4, 1, 3, 1]})
    >>> c = t.assign(count=[2, 2, 2, 6, 2])
    >>> calls = pd.DataFrame({"chrom": "chr1", "chromStart": [20_000, 60_000],
    ...                       "chromEnd": [25_000, 63_000]})
    >>> above_control(calls, t, c).tolist()
    [True, False]
    """
    if not (isinstance(min_fold, (int, float, np.integer, np.floating))
            and math.isfinite(min_fold) and min_fold >= 0):
        raise ValueError(f"min_fold must be a finite number >= 0, got {min_fold!r}")
    require_columns(calls, ["chrom", "chromStart", "chromEnd"], "calls")
    keep = np.ones(len(calls), bool)
    if not len(calls):
        return keep
    tr, ct = _problems(treatment), _problems(control)
    levels: dict = {}
    sids = calls["sample_id"].tolist() if "sample_id" in calls.columns else [None] * len(
        calls)
    a_all = calls["chromStart"].to_numpy(np.int64)
    b_all = calls["chromEnd"].to_numpy(np.int64)
    for i, (sid, chrom) in enumerate(zip(sids, calls["chrom"].tolist())):
        t = tr.get((sid, chrom)) or tr.get((None, chrom))
        c = ct.get((sid, chrom)) or ct.get((None, chrom))
        if t is None or c is None:
            continue
        if (sid, chrom) not in levels:
            levels[(sid, chrom)] = (_typical(*t), _typical(*c))
        t0, c0 = levels[(sid, chrom)]
        if t0 <= 0 or c0 <= 0:
            continue
        x = np.array([a_all[i], b_all[i]])
        tm, cm = (float(np.diff(_integral(*r, x))[0]) / max(b_all[i] - a_all[i], 1)
                  for r in (t, c))
        keep[i] = tm / t0 >= min_fold * cm / c0
    return keep

