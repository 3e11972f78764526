"""The result type of the exact line search (Fowler & Hocking 2024)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn._repr import compact_repr

__all__ = ["LineSearchResult"]


@dataclass(frozen=True)
class LineSearchResult:
    """Result of an exact line search.

    Attributes
    ----------
    path : DataFrame
        One row for step size 0 and one per event (a step size at which adjacent threshold
        lines intersect): ``step_size``; ``aum`` at that step; ``aum_slope_after`` (dAUM/ds
        until the next event); ``auc`` exactly at the step (tied thresholds form one diagonal
        ROC segment); ``auc_after`` on the open interval after it; ``intersections`` (distinct
        points at this step); ``intervals`` (adjacent line pairs swapped, k − 1 for a k-line
        tie); ``q_size`` (distinct future step sizes in the queue after the event,
        including intersections of lines that are no longer adjacent, as in the
        reference). With ``validation=`` also ``validation_aum``, ``validation_auc`` and
        ``validation_auc_after`` at the same step sizes. The ``"bracket"``,
        ``"blocks"`` and ``"skip"`` methods give row 0 only.
    step_size : float
        The chosen step size (see :func:`~penlearn.line_search.line_search`, ``stop``).
    aum, auc : float
        AUM and AUC at the chosen step size.
    stop : str or int
        The stopping rule used.
    method : str
        ``"sequential"`` (the event-by-event engine), ``"blocks"`` (the same events
        handled a bracket at a time with vectorised updates), ``"bracket"`` (the
        sub-quadratic first-min search for monotone error functions) or ``"skip"``
        (certified skips then a sweep: the first-min rule for any error functions).
    n_lines : int
        Number of distinct threshold lines (identical lines merged).
    exhausted : bool
        True when every intersection was processed (the queue emptied).
    reason : str
        Why the search stopped: ``"rule"`` (the stopping rule held), ``"limit"`` (event
        limit), ``"max_step"``, ``"exhausted"``, or for ``method="bracket"`` the
        :class:`~penlearn.line_search.FirstMinResult` reason.
    events : int
        Intersection events processed (distinct step sizes; for ``"bracket"`` only those
        swept one by one inside its last brackets).
    n_sorts : int
        Sorts of all B lines at one step size (probes) beyond the first.
    direction : ndarray or None
        The direction d of the weights (:func:`~penlearn.line_search.line_search_linear`).

    Examples
    --------
    >>> from penlearn import breakpoints_from_labels
    >>> from penlearn.line_search import line_search
    >>> r = line_search(breakpoints_from_labels([0, 1]), [10.0, -10.0], stop="all")
    >>> r.step_size, r.aum, r.iterations, r.exhausted, r.events
    (10.0, 0.0, 1, True, 1)
    """

    path: pd.DataFrame
    step_size: float
    aum: float
    auc: float
    stop: str | int = "all"
    method: str = "sequential"
    n_lines: int = 0
    exhausted: bool = False
    reason: str = ""
    events: int = 0
    n_sorts: int = 0
    direction: np.ndarray | None = field(default=None, repr=False)

    @property
    def iterations(self) -> int:
        """Number of events in the path (rows after row 0)."""
        return max(len(self.path) - 1, 0)

    def best_validation(self) -> pd.Series:
        """The path row with the largest ``validation_auc_after`` (first one on ties).

        Raises ValueError when the search was run without ``validation=``.
        """
        if "validation_auc_after" not in self.path:
            raise ValueError("this line search was run without validation=")
        return self.path.loc[self.path["validation_auc_after"].idxmax()]


LineSearchResult.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
