"""The progress bars of penlearn: tqdm's, shown only where they can redraw.

Every bar of the package comes from :func:`tqdm` here: a terminal or a notebook gets the
bar; a stderr redirected to a file or a pipe (a log, a batch job) gets none, instead of
one ``\\r``-separated line per redraw. ``PENLEARN_PROGRESS=1`` shows the bars anyway.
"""

from __future__ import annotations

import os
import sys

__all__ = ["shows_bars", "tqdm"]


def shows_bars(stream=None) -> bool:
    """Whether a progress bar can redraw on ``stream`` (default: stderr): a terminal, a
    notebook (tqdm's widget), or ``PENLEARN_PROGRESS=1``.

    Examples
    --------
    >>> import io
    >>> shows_bars(io.StringIO())
    False
    """
    if os.environ.get("PENLEARN_PROGRESS") == "1":
        return True
    from tqdm.auto import tqdm as auto

    if auto.__module__.startswith("tqdm.notebook"):
        return True
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def tqdm(*args, **kwargs):
    """``tqdm.auto.tqdm(*args, **kwargs)``, disabled where :func:`shows_bars` says no.

    Examples
    --------
    >>> import io
    >>> with tqdm(total=3, file=io.StringIO()) as bar:
    ...     bar.disable
    True
    """
    from tqdm.auto import tqdm as auto

    if not kwargs.get("disable") and not shows_bars(kwargs.get("file")):
        kwargs["disable"] = True
    return auto(*args, **kwargs)
