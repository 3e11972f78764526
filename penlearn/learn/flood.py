"""A few labels never flood: how far the labels may lower a prior's log λ.

With a handful of labeled windows the level of log λ = prior(x) + s is what the labels
set (:mod:`penlearn.learn.level_shift`). Two things let a few labels drag it to where
every unlabeled window fills with peaks (issue 52 item 4: 38 labels of one sample made
``learn`` shift by −2.98 and call ten times the peaks):

1. **the end of the computed path**: the error functions of a window are known only
   over the log λ its model path was computed for (PeakSeg: up to its largest peak
   count). Below that end the labels say nothing, and counting *no* error there made the
   unknown region look error-free. Beyond each end a window's errors are those at the
   end (:func:`extend_path_ends`), and the shift never goes past the end that has more
   peaks (:func:`flood_bound`).
2. **labels that bound one side only** (``noPeaks`` covering a few kb of megabase
   windows): the labeled windows' error functions barely rise as λ falls, while the
   unlabeled bases get more and more peaks. The shift may lower log λ only while the
   labeled windows hold at most :data:`FLOOD_FACTOR` × (the peaks at the prior's level +
   the labels that want a peak) peaks: no more peaks than the labels support, the
   conservative end preferred.

:func:`peaks_per_mb` says, on the labeled windows, the expected peaks per Mb at a shift
(``penlearn learn`` prints it before and after the labels).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["FLOOD_FACTOR", "extend_path_ends", "flood_bound", "peaks_on_grid",
           "peaks_per_mb"]

#: The labeled windows may hold at most this many times the peaks the labels support
#: (the prior's own peaks there plus one per label that wants a peak).
FLOOD_FACTOR = 2.0


def extend_path_ends(evaluation: pd.DataFrame) -> pd.DataFrame:
    """Each window's error function extended past the ends of its computed path: the
    first interval to +∞, the last to −∞ (the errors there are those at the end).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [3.0, 5.0],
    ...     "max_log_lambda": [5.0, np.inf], "errors": [4, 1]})
    >>> extend_path_ends(ev)["min_log_lambda"].tolist()
    [-inf, 5.0]
    """
    lo = evaluation.groupby("sequence_id", sort=False)["min_log_lambda"].transform("min")
    hi = evaluation.groupby("sequence_id", sort=False)["max_log_lambda"].transform("max")
    out = evaluation.copy()
    out.loc[(out["min_log_lambda"] == lo).to_numpy(), "min_log_lambda"] = -np.inf
    out.loc[(out["max_log_lambda"] == hi).to_numpy(), "max_log_lambda"] = np.inf
    return out


def _on_grid(evaluation: pd.DataFrame, base: pd.Series, grid: np.ndarray,
             column: str) -> np.ndarray:
    p = base.reindex(evaluation["sequence_id"]).to_numpy(float)
    a = np.searchsorted(grid, evaluation["min_log_lambda"].to_numpy(float) - p, side="left")
    b = np.searchsorted(grid, evaluation["max_log_lambda"].to_numpy(float) - p, side="left")
    v = evaluation[column].to_numpy(float)
    diff = np.zeros(len(grid) + 1)
    np.add.at(diff, a, v)
    np.add.at(diff, b, -v)
    return np.cumsum(diff)[:-1]


def peaks_on_grid(evaluation: pd.DataFrame, base: pd.Series, grid: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(peaks of the labeled windows at log λ = base + s, whether every window's path
    reaches s) for each shift s of ``grid``.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [1.0, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "peaks": [3, 0]})
    >>> n, known = peaks_on_grid(ev, pd.Series({"a": 0.0}), np.array([0.0, 1.0, 2.0]))
    >>> n.tolist(), known.tolist()
    ([0.0, 3.0, 0.0], [False, True, True])
    """
    n = _on_grid(evaluation, base, grid, "peaks")
    ones = evaluation.assign(_one=1.0)
    covered = _on_grid(ones, base, grid, "_one")
    return n, covered >= evaluation["sequence_id"].nunique()


def peaks_per_mb(evaluation: pd.DataFrame, base: pd.Series, bases: float, shift: float
                 ) -> tuple[float, bool]:
    """(expected peaks per Mb of the labeled windows at log λ = base + ``shift``, whether
    it is exact): beyond a window's computed path its count at the end (a lower bound).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [1.0, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "peaks": [3, 0]})
    >>> peaks_per_mb(ev, pd.Series({"a": 0.0}), 2e6, 1.5)
    (1.5, True)
    >>> peaks_per_mb(ev, pd.Series({"a": 0.0}), 2e6, 0.0)
    (1.5, False)
    """
    grid = np.array([float(shift)])
    n, known = peaks_on_grid(evaluation, base, grid)
    ext, _ = peaks_on_grid(extend_path_ends(evaluation), base, grid)
    return float(ext[0] if not known[0] else n[0]) / bases * 1e6, bool(known[0])


def _wanted_peaks(evaluation: pd.DataFrame) -> float:
    """Labels that want a peak (their count on each window: ``possible_fn``)."""
    if "possible_fn" not in evaluation.columns:
        return 0.0
    return float(evaluation.groupby("sequence_id", sort=False)["possible_fn"].first().sum())


def flood_bound(evaluation: pd.DataFrame, base: pd.Series, grid: np.ndarray
                ) -> np.ndarray:
    """Which shifts of ``grid`` the labels may choose: every s ≥ 0, and a lower s only
    where every labeled window's path reaches it and the labeled windows hold at most
    :data:`FLOOD_FACTOR` × (their peaks at s = 0 + the labels wanting a peak) peaks.
    Without a ``peaks`` column only the path's end bounds it.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a"] * 3, "min_log_lambda": [-2.0, -1.0, 0.0],
    ...     "max_log_lambda": [-1.0, 0.0, np.inf], "peaks": [40, 5, 1], "possible_fn": 2})
    >>> g = np.array([-3.0, -1.5, -0.5, 0.5])
    >>> flood_bound(ev, pd.Series({"a": 0.0}), g).tolist()  # 40 > 2 * (1 + 2); -3: past the end
    [False, False, True, True]
    """
    ok = grid >= 0
    if "peaks" in evaluation.columns:
        n, known = peaks_on_grid(evaluation, base, grid)
        n0, known0 = peaks_on_grid(evaluation, base, np.array([0.0]))
        ref = n0[0] if known0[0] else peaks_on_grid(extend_path_ends(evaluation), base,
                                                    np.array([0.0]))[0][0]
        return ok | (known & (n <= FLOOD_FACTOR * (ref + _wanted_peaks(evaluation))))
    lo = evaluation.groupby("sequence_id", sort=False)["min_log_lambda"].min()
    lowest = float((lo - base.reindex(lo.index)).max())
    return ok | (grid >= lowest)
