"""The optional ``background`` column of coverage: each row's expected coverage relative
to the model's mean (a control's; :mod:`penlearn.peaks.peakseg.controls`), checked."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["BACKGROUND", "background_column"]

#: An optional coverage column: each row's expected coverage relative to the model's
#: mean (a control's; :mod:`penlearn.peaks.peakseg.controls`). With it the model's
#: segment means are folds over it: counts of mean ``m · background``.
BACKGROUND = "background"


def background_column(coverage: pd.DataFrame, rows: int, name: str = "coverage"
                      ) -> np.ndarray:
    """The ``background`` column of one problem's coverage, checked: finite, > 0, and the
    rows contiguous (``rows``: their number once gaps are filled), since a gap's bases
    would have no background.

    Examples
    --------
    >>> cov = pd.DataFrame({"count": [1, 2], "background": [1.0, 2.5]})
    >>> background_column(cov, 2).tolist()
    [1.0, 2.5]
    """
    if rows != len(coverage):
        raise ValueError(f"{name} with a 'background' column must have no gaps (every "
                         "base a row: its background is needed)")
    b = pd.to_numeric(coverage[BACKGROUND], errors="coerce").to_numpy(float)
    bad = ~(np.isfinite(b) & (b > 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} column 'background' must hold finite numbers > 0; row "
                         f"{i} has {coverage[BACKGROUND].iloc[i]!r}")
    return b
