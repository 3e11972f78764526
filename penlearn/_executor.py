"""Telling an executor how many tasks come, so a process pool starts no idle workers."""

from __future__ import annotations


def expect_tasks(executor, n_tasks: int) -> None:
    """Announce ``n_tasks`` tasks to ``executor`` before submitting them.

    A pool that starts its workers lazily (``penlearn --jobs N``) then starts at most
    ``n_tasks`` of them; an executor without an ``expect_tasks`` method (a Dask client's,
    the standard library's) ignores it.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as ex:
    ...     expect_tasks(ex, 3)  # nothing happens
    >>> expect_tasks(None, 3)
    """
    hint = getattr(executor, "expect_tasks", None)
    if callable(hint):
        hint(int(n_tasks))
