"""Where a development checkout finds the real data and the reference outputs.

The library itself ships no data and reads none unless given a folder
(:func:`~penlearn.datasets.data_dir`). The tests, benchmarks and notebooks of a
repository checkout read the real data sets and the R reference outputs from a folder
``shared/`` beside the checkout (``../shared/data``, ``../shared/reference``); this module
is the one place that says how that folder is found, so that all three agree:

1. ``$PENLEARN_DATA`` (the data folder) and ``$PENLEARN_SHARED`` (the folder holding
   ``data/`` and ``reference/``) when set;
2. else the first folder named ``shared`` holding ``data/`` or ``reference/``, looked for
   beside the checkout and upwards from it (a git worktree deeper down finds the same one);
3. else ``../shared`` beside the checkout, which does not exist: callers skip (tests) or
   say which folder is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["data_folder", "reference_folder", "shared_folder"]

#: the checkout holding the ``penlearn`` package (its parent folder holds ``shared/``)
CHECKOUT = Path(__file__).resolve().parents[2]


def shared_folder(start: str | os.PathLike | None = None) -> Path:
    """The ``shared/`` folder of the real data and reference outputs.

    Parameters
    ----------
    start : path, optional
        Where to look from, upwards (default: the checkout holding this package).

    Returns
    -------
    Path
        ``$PENLEARN_SHARED``; else the first ``<folder>/shared`` holding ``data/`` or
        ``reference/`` for ``start`` and each of its parents; else ``start/../shared``
        (absent).

    Examples
    --------
    >>> import os, tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "shared" / "data").mkdir(parents=True)
    >>> (root / "wt" / "repo").mkdir(parents=True)
    >>> env = os.environ.pop("PENLEARN_SHARED", None)
    >>> shared_folder(root / "wt" / "repo") == root / "shared"
    True
    >>> os.environ.update({} if env is None else {"PENLEARN_SHARED": env})
    """
    env = os.environ.get("PENLEARN_SHARED")
    if env:
        return Path(env)
    here = Path(start).resolve() if start is not None else CHECKOUT
    for folder in (here, *here.parents):
        candidate = folder / "shared"
        if (candidate / "data").is_dir() or (candidate / "reference").is_dir():
            return candidate
    return here.parent / "shared"


def data_folder(start: str | os.PathLike | None = None) -> Path:
    """The folder of the real data sets: ``$PENLEARN_DATA``, else ``shared_folder()/data``.

    Examples
    --------
    >>> data_folder().name
    'data'
    """
    env = os.environ.get("PENLEARN_DATA")
    if env:
        return Path(env)
    return shared_folder(start) / "data"


def reference_folder(start: str | os.PathLike | None = None) -> Path:
    """The folder of the R reference outputs: ``shared_folder()/reference``.

    Examples
    --------
    >>> reference_folder().name
    'reference'
    """
    return shared_folder(start) / "reference"
