"""Warnings that point at the caller's line, not at penlearn's own source.

``warnings.warn(..., stacklevel=2)`` is right only for a function called directly by the
user; penlearn's warnings are often raised several calls deep (``learn_penalty`` →
``PenaltyModel.fit`` → ``fit_penalty``), and a fixed stack level then names a line of
penlearn. :func:`caller_stacklevel` gives the level of the first frame outside the package instead
(what Python 3.12's ``skip_file_prefixes`` does), so the warning shows the user's own
call: ``warnings.warn(msg, UserWarning, stacklevel=caller_stacklevel())``.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)


def caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside penlearn, for a warning raised by the
    function that calls this one.

    Examples
    --------
    >>> import warnings
    >>> def deep():
    ...     warnings.warn("careful", UserWarning, stacklevel=caller_stacklevel())
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     deep()
    >>> seen[0].filename.startswith("<doctest")  # this example's line, not this module's
    True
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(
            _PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
