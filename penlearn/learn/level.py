"""The level (and scale) of the predicted log λ, set for label errors on validation.

AUM and AUC do not change when a constant is added to every score, nor when every score
is multiplied by a positive number: a model learned on them has the right *ranking* of
the sequences, not the right *level* of log λ. On new genomic regions the learned level
is often far off (a linear model extrapolates), and label errors — what a user sees —
depend on the level alone for a given ranking.

:func:`choose_level` sets log λ = −(α·f(x) + c) for the learned scores f: for each α of
:data:`SCALE_GRID` the shift of fewest subtrain label errors
(:func:`penlearn.roc.min_error_shift` on count breakpoints) is judged by the
label errors it gives on the validation sequences (other genomic regions when the split
holds out groups); the α of fewest validation errors (ties: the largest α) is kept and
its shift refit on all the training sequences. A small α keeps the learned
ranking (the same AUC) while the predictions approach the best constant penalty: this is
the fall-back to a constant when the learned spread of log λ does not pay on held-out
sequences.
"""

from __future__ import annotations

import numpy as np

from penlearn.breakpoints import Breakpoints
from penlearn.roc import min_error_shift

__all__ = ["SCALE_GRID", "choose_level", "label_errors_at"]

#: Scales α tried, from the learned spread (1) down to almost a constant (the ranking,
#: hence the AUC, of any α > 0 is the learned one).
SCALE_GRID = (1.0, 0.7, 0.5, 0.35, 0.25, 0.18, 0.12, 0.08, 0.05, 0.02, 0.005)


def label_errors_at(bp: Breakpoints, scores: np.ndarray) -> float:
    """FP + FN of count breakpoints ``bp`` at ``scores`` (log λ = −score), less FP at
    λ = ∞ and FN at λ = 0 (both 0 for label errors): what :func:`min_error_shift`
    minimises.

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1])
    >>> label_errors_at(bp, np.array([-1.0, 1.0])), label_errors_at(bp, np.array([1.0, -1.0]))
    (0.0, 2.0)
    """
    t = bp.value - scores[bp.example]
    fp = float(np.sum(bp.fp_diff[t < 0]))  # thresholds passed at constant 0
    fn = float(-np.sum(bp.fn_diff[t >= 0]))
    return fp + fn


def _union(bp_a: Breakpoints, bp_b: Breakpoints) -> Breakpoints:
    """The breakpoints of two sets as one (examples of ``bp_b`` after those of ``bp_a``)."""
    return Breakpoints(np.r_[bp_a.example, bp_b.example + bp_a.n_examples],
                       np.r_[bp_a.value, bp_b.value], np.r_[bp_a.fp_diff, bp_b.fp_diff],
                       np.r_[bp_a.fn_diff, bp_b.fn_diff], bp_a.n_examples + bp_b.n_examples)


def choose_level(bp_sub: Breakpoints, f_sub: np.ndarray, bp_val: Breakpoints,
                 f_val: np.ndarray, grid=SCALE_GRID) -> tuple[float, float, list]:
    """(α, c, table): the scale α of fewest validation label errors when the shift is
    fit on subtrain, then the shift c of fewest errors on subtrain + validation.

    For each α the shift c_sub of fewest subtrain errors of α·f is validated on the
    validation sequences (held-out groups: a level fit on some regions, judged on
    others); the α of fewest validation errors (ties: the largest) is kept, and its
    shift refit on all the training sequences.

    Parameters
    ----------
    bp_sub, bp_val : Breakpoints
        Subtrain / validation breakpoints with label counts (``normalize="count"``).
    f_sub, f_val : ndarray
        The learned scores of those sequences (any level).
    grid : sequence of float
        Scales α > 0, tried in order; a later α is taken only with strictly fewer errors.

    Returns
    -------
    alpha, shift : float
        The predicted score of x is α·f(x) + c (log λ = −score).
    table : list of (α, c_sub, validation errors)

    Examples
    --------
    >>> from penlearn.breakpoints import breakpoints_from_labels
    >>> bp = breakpoints_from_labels([0, 1, 0, 1])
    >>> f = np.array([0.0, 1.0, 0.2, 3.0])
    >>> a, c, _ = choose_level(bp, f, bp, f)
    >>> a, label_errors_at(bp, a * f + c)
    (1.0, 0.0)
    """
    rows, best = [], None
    for a in grid:
        if not a > 0:
            raise ValueError(f"scale grid values must be > 0, got {a!r}")
        c = min_error_shift(bp_sub, float(a) * np.asarray(f_sub, float))
        e = label_errors_at(bp_val, float(a) * np.asarray(f_val, float) + c)
        rows.append((float(a), c, e))
        if best is None or e < best[2]:
            best = rows[-1]
    alpha = best[0]
    shift = min_error_shift(_union(bp_sub, bp_val), alpha * np.r_[f_sub, f_val])
    return alpha, shift, rows
