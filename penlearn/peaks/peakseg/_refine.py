"""A binned model's changes moved to the best row edge near each: the control's model.

:func:`~penlearn.peaks.peakseg.controls.binned_segments` solves the control's PeakSeg model
on bins (its changes on the bins' edges); :func:`refine_changes` then moves each change,
from the first to the last, to the row edge within ``reach`` bases of it that gives the
least Poisson loss of its two neighbouring segments (their means refit, the other changes
where they are), among the positions that keep every change's direction (up or down, not
strictly) — the bins' position itself always among them, so the loss never rises. One
pass, no second solve: a local improvement of the binned model, not the optimal model on
the rows.

The Poisson loss of a segment of ``N`` bases holding ``S`` reads in all, at its mean
``m = S / N``: ``N m − S log m = S − S log(S / N)`` (0 when ``S = 0``), the solver's
(:mod:`penlearn.peaks.peakseg.solver`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["area_at", "refine_changes", "segment_loss"]


@numba.njit(cache=True)
def segment_loss(s, n):
    """Poisson loss of ``n`` bases holding ``s`` reads at their mean (0 when ``s = 0``)."""
    return s - s * math.log(s / n) if s > 0 else 0.0


@numba.njit(cache=True)
def area_at(ts, te, area, x):
    """The coverage summed over the bases below ``x`` (rows ``ts, te`` sorted, ``area``
    the cumulative sums of their coverage, 0 first; a gap holds none)."""
    k = np.searchsorted(ts, x, side="right") - 1
    if k < 0:
        return 0.0
    width = te[k] - ts[k]
    inside = min(max(x - ts[k], 0), width)
    return area[k] + inside * ((area[k + 1] - area[k]) / max(width, 1))


@numba.njit(cache=True)
def _refine(ts, te, area, bounds, up, reach):
    out = bounds.copy()
    n = len(ts)
    k_last = len(bounds) - 1
    for k in range(1, k_last):
        a, c, b = out[k - 1], out[k], out[k + 1]
        sa, sb = area_at(ts, te, area, a), area_at(ts, te, area, b)
        m0 = 0.0  # the mean left of ``a`` and right of ``b``, for their directions
        if k >= 2:
            m0 = (sa - area_at(ts, te, area, out[k - 2])) / (a - out[k - 2])
        m3 = 0.0
        if k + 1 < k_last:
            m3 = (area_at(ts, te, area, out[k + 2]) - sb) / (out[k + 2] - b)
        sc = area_at(ts, te, area, c)
        best, best_loss = c, segment_loss(sc - sa, c - a) + segment_loss(sb - sc, b - c)
        lo, hi = max(c - reach, a + 1), min(c + reach, b - 1)
        i = max(np.searchsorted(te, lo, side="left") - 1, 0)
        n_edges = 0  # each row's start, then its end where a gap follows: in order
        while i < n and ts[i] <= hi:
            p = ts[i] if n_edges == 0 else te[i]
            if n_edges == 0 and (i + 1 == n or te[i] < ts[i + 1]):
                n_edges = 1
            else:
                n_edges = 0
                i += 1
            if p == c or p < lo or p > hi:
                continue
            sp = area_at(ts, te, area, p)
            ml, mr = (sp - sa) / (p - a), (sb - sp) / (b - p)
            if k >= 2 and (ml < m0 if up[k - 2] else ml > m0):
                continue
            if mr < ml if up[k - 1] else mr > ml:
                continue
            if k + 1 < k_last and (m3 < mr if up[k] else m3 > mr):
                continue
            loss = segment_loss(sp - sa, p - a) + segment_loss(sb - sp, b - p)
            if loss < best_loss:
                best, best_loss = p, loss
        out[k] = best
    return out


def refine_changes(ts: np.ndarray, te: np.ndarray, counts: np.ndarray, bounds: np.ndarray,
                   up: np.ndarray, reach: int) -> np.ndarray:
    """``bounds`` (a segmentation's first base, changes and end) with each change moved to
    the best row edge within ``reach`` bases of it, first to last (module docstring).

    Parameters
    ----------
    ts, te, counts : ndarray
        The coverage's rows (sorted; gaps hold no reads).
    bounds : ndarray of int
        The segments' edges, increasing: ``bounds[0]`` the first base, ``bounds[-1]`` the
        end, the changes between.
    up : ndarray of bool
        Per change (``len(bounds) - 2``): True where the mean rises there. Each
        change keeps its direction (not strictly: an equal mean is allowed).
    reach : int
        How far a change may move, in bases.

    Returns
    -------
    ndarray of int64
        The new edges (the same first and last).

    Examples
    --------
    >>> ts = np.arange(0, 100, 10); te = ts + 10
    >>> counts = np.array([1, 1, 1, 5, 5, 5, 5, 1, 1, 1])
    >>> refine_changes(ts, te, counts, np.array([0, 40, 60, 100]), np.array([True, False]),
    ...                20).tolist()
    [0, 30, 70, 100]
    """
    ts = np.ascontiguousarray(ts, np.int64)
    te = np.ascontiguousarray(te, np.int64)
    bounds = np.ascontiguousarray(bounds, np.int64)
    up = np.ascontiguousarray(up, np.bool_)
    if len(up) != max(len(bounds) - 2, 0):
        raise ValueError(f"up: one direction per change ({max(len(bounds) - 2, 0)}), "
                         f"got {len(up)}")
    if (np.diff(bounds) <= 0).any():
        raise ValueError("bounds must be increasing")
    if isinstance(reach, (bool, np.bool_)) or not isinstance(reach, (int, np.integer)) \
            or reach < 0:
        raise ValueError(f"reach must be an integer >= 0 (bases), got {reach!r}")
    if len(bounds) < 3 or not len(ts):
        return bounds.copy()
    area = np.r_[0.0, np.cumsum((te - ts) * np.asarray(counts, float))]
    return _refine(ts, te, area, bounds, up, np.int64(reach))
