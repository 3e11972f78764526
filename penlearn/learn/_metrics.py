"""AUM and ROChange AUC of one set of sequences at each gradient-descent iterate, fast.

Gradient descent (:func:`penlearn.fitting.descent.descend`) records the subtrain AUC and the
validation AUM and AUC after every step, as in the script of Fowler & Hocking (2024).
:class:`SetMetrics` gives the same numbers as :func:`penlearn.aum` and
:meth:`penlearn.roc.ChangepointROC.auc` (bit for bit: the same floating-point operations
in the same order) from one sort of the thresholds per call, shared by AUM and AUC when
both use the same breakpoints, without the per-call validation of the public functions.
Tied thresholds (an exact line search often steps exactly onto a crossing) keep the fast
AUC when the ROC counts are integers; their AUM, and AUC of weighted counts, come from the
public functions themselves.
"""

from __future__ import annotations

import numpy as np

from penlearn.aum import aum, tied_aum
from penlearn.breakpoints import Breakpoints
from penlearn.roc import ChangepointROC, path_auc

__all__ = ["SetMetrics"]


class SetMetrics:
    """AUM of ``bp`` and ROChange AUC of ``roc`` at given scores, one sort per call.

    Parameters
    ----------
    bp : Breakpoints or None
        The (normalised) breakpoints whose AUM is wanted; None: AUC only.
    roc : ChangepointROC
        The set's count breakpoints and ROC totals.

    Examples
    --------
    >>> import pandas as pd
    >>> from penlearn._checks import check_evaluation
    >>> ev = check_evaluation(pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]}))
    >>> roc = ChangepointROC(ev, ["a", "b"])
    >>> SetMetrics(roc.bp, roc)(np.array([-0.5, -0.25]))
    (0.0, 1.0)
    """

    def __init__(self, bp: Breakpoints | None, roc: ChangepointROC) -> None:
        self.bp, self.roc = bp, roc
        rbp = roc.bp
        self.shared = bp is not None and np.array_equal(bp.example, rbp.example) \
            and np.array_equal(bp.value, rbp.value)
        self.fp0 = roc.fp_end - rbp.fp_total  # actual FP at score -inf
        # integer counts: cumulative sums are exact in any order, so the ROC points of tied
        # thresholds can be read off the per-breakpoint sums (see _auc)
        self.integer = bool(np.all(rbp.fp_diff == np.round(rbp.fp_diff))
                            and np.all(rbp.fn_diff == np.round(rbp.fn_diff)))

    def _aum(self, order, ts, scores) -> float:
        """:func:`penlearn.aum`'s area for distinct sorted thresholds ``ts``."""
        cum = np.cumsum(self.bp._diffs.take(order))
        fp_a = cum.real
        fn_a = cum.imag - cum.imag[-1]
        return float(np.dot(np.minimum(fp_a, fn_a)[:-1], np.diff(ts)))

    def _auc(self, order, ts=None) -> float:
        """:meth:`ChangepointROC.auc` for the thresholds sorted by ``order``; ``ts``: the
        sorted thresholds when some are tied (integer counts only): a tied group is one
        ROC segment, so the points inside it are dropped."""
        roc, rbp = self.roc, self.roc.bp
        fp_g, fn_g = rbp.fp_diff[order], rbp.fn_diff[order]
        fp_a = np.cumsum(fp_g)
        fn_b = 0.0 - np.cumsum(fn_g[::-1])[::-1]
        fn_a = fn_b + fn_g
        fp = np.empty(len(order) + 1)
        fp[0] = fp_a[0] - fp_g[0]
        fp[1:] = fp_a
        fp += self.fp0
        fn = np.empty(len(order) + 1)
        fn[0] = fn_b[0]
        fn[1:] = fn_a
        fn += roc.fn_end
        if ts is not None:  # keep the points between distinct thresholds
            keep = np.ones(len(order) + 1, bool)
            np.not_equal(ts[1:], ts[:-1], out=keep[1:-1])
            fp, fn = fp[keep], fn[keep]
        fpr = fp[::-1] / roc.possible_fp
        tpr = (roc.possible_fn - fn[::-1]) / roc.possible_fn
        if (fpr[0], tpr[0]) > (fpr[-1], tpr[-1]):
            fpr, tpr = fpr[::-1], tpr[::-1]
        # path_auc, closed with (0, 0) and (1, 1) when missing: the same operations
        head = not (fpr[0] == 0 and tpr[0] == 0)
        tail = not (fpr[-1] == 1 and tpr[-1] == 1)
        if not (head or tail):
            return path_auc(fpr, tpr)
        n = len(fpr) + head + tail
        x, y = np.zeros(n), np.zeros(n)
        x[head : head + len(fpr)], y[head : head + len(fpr)] = fpr, tpr
        if tail:
            x[-1] = y[-1] = 1.0
        return float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1])) / 2.0)

    def __call__(self, scores: np.ndarray) -> tuple[float, float]:
        """(AUM of ``bp``, or nan without ``bp``; AUC) at ``scores`` (finite, one per
        example)."""
        rbp = self.roc.bp
        if len(rbp) < 2:
            return self._slow(scores)
        t = rbp.value - scores[rbp.example]
        order = np.argsort(t)
        ts = t[order]
        ties = bool(np.any(ts[1:] == ts[:-1]))  # a step exactly at a crossing: common
        if ties and not self.integer:
            return self._slow(scores)
        auc = self._auc(order, ts if ties else None)
        if self.bp is None:
            return float("nan"), auc
        if not self.shared:
            return aum(self.bp, scores).aum, auc
        if ties:  # the thresholds and order aum() would compute: its area, no derivatives
            return tied_aum(self.bp, t, order), auc
        return self._aum(order, ts, scores), auc

    def _slow(self, scores) -> tuple[float, float]:
        a = float("nan") if self.bp is None else aum(self.bp, scores).aum
        return a, self.roc.auc(scores)
