"""The grid-search baseline: AUM and AUC at a grid of step sizes, one sort per step.

Fowler & Hocking (2024) compare their exact line search with gradient descent that takes
the best of a grid of step sizes; this module is that baseline and the one vectorised
routine that evaluates AUM and AUC of threshold lines at given step sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn._checks import finite_vector
from penlearn.breakpoints import Breakpoints
from penlearn.line_search._common import breakpoint_lines, check_totals

__all__ = ["grid_search", "grid_values"]

#: The default grid, 1e-9 ... 1 (the paper's).
GRID_STEP_SIZES = 10.0 ** np.arange(-9, 1)


def grid_search(breakpoints: Breakpoints, scores, slopes=None, step_sizes=None) -> pd.DataFrame:
    """AUM and AUC at each of a grid of step sizes (vectorised): the paper's baseline.

    Parameters
    ----------
    breakpoints : Breakpoints
    scores, slopes : array-like of shape (n_examples,)
        Scores move as ``scores + s·slopes``; ``slopes=None`` uses the AUM descent
        direction as in :func:`line_search`.
    step_sizes : array-like, optional
        Default ``10.0 ** np.arange(-9, 1)`` (1e-9 … 1).

    Returns
    -------
    DataFrame
        ``step_size, aum, auc`` (AUC with tied thresholds as one diagonal ROC segment).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> g = grid_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], [-1.0, 1.0],
    ...                 step_sizes=[0.0, 5.0, 10.0, 20.0])
    >>> g.values.tolist()
    [[0.0, 20.0, 0.0], [5.0, 10.0, 0.0], [10.0, 0.0, 0.5], [20.0, 0.0, 1.0]]
    """
    ic, sl, fp, fn = breakpoint_lines(breakpoints, scores, slopes)
    if step_sizes is None:
        step_sizes = GRID_STEP_SIZES
    s = finite_vector(np.atleast_1d(np.asarray(step_sizes, dtype=float)), "step_sizes")
    aum_v, auc_v = grid_values(ic, sl, fp, fn, s)
    return pd.DataFrame({"step_size": s, "aum": aum_v, "auc": auc_v})


def grid_values(ic, sl, fp, fn, s, chunk_elems: int = 4_000_000, with_auc: bool = True):
    """AUM and AUC of the lines at each step size in ``s`` (rows processed in chunks).

    ``with_auc=False`` computes AUM only (AUC is None): the grid descent's step needs no
    more, and AUM does not depend on the order of tied thresholds, so a plain sort does.
    """
    fp_tot, fn_tot = check_totals(fp, fn)
    B = len(ic)
    out_aum = np.empty(len(s))
    out_auc = np.empty(len(s)) if with_auc else None
    rows = max(1, chunk_elems // max(B, 1))
    for start in range(0, len(s), rows):
        ss = s[start : start + rows]
        T = ic[None, :] + ss[:, None] * sl[None, :]
        o = np.argsort(T, axis=1, kind="stable" if with_auc else "quicksort")
        Ts = np.take_along_axis(T, o, axis=1)
        fpc = np.zeros((len(ss), B + 1))
        np.cumsum(fp[o], axis=1, out=fpc[:, 1:])
        fnc = np.zeros((len(ss), B + 1))
        np.cumsum(fn[o][:, ::-1], axis=1, out=fnc[:, 1:])
        fnc = -fnc[:, ::-1]
        m = np.minimum(fpc, fnc)
        out_aum[start : start + rows] = np.sum(m[:, 1:-1] * np.diff(Ts, axis=1), axis=1)
        if not with_auc:
            continue
        # ROC points on gaps between distinct thresholds; tied gaps take the previous point
        keep = np.ones((len(ss), B + 1), bool)
        keep[:, 1:-1] = Ts[:, 1:] != Ts[:, :-1]
        idx = np.where(keep, np.arange(B + 1)[None, :], 0)
        np.maximum.accumulate(idx, axis=1, out=idx)
        fpr = np.take_along_axis(fpc, idx, axis=1) / fp_tot
        tpr = 1.0 - np.take_along_axis(fnc, idx, axis=1) / fn_tot
        out_auc[start : start + rows] = (
            np.sum(np.diff(fpr, axis=1) * (tpr[:, 1:] + tpr[:, :-1]), axis=1) / 2
        )
    return out_aum, out_auc
