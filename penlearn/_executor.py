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


def run_tasks(executor, fn, tasks: dict, finish) -> None:
    """Call ``fn(*args, **kwargs)`` for every ``key: (args, kwargs)`` of ``tasks`` and
    ``finish(key, result)`` as each one ends: in this process, in order, without an
    executor; else one task each (announced with :func:`expect_tasks`), finished in the
    order they complete, the pending ones cancelled when one fails or on an interrupt.

    The one loop of every command that runs windows on ``--jobs`` / ``--scheduler``
    workers (``penlearn peaks``, ``errors``, ``joint``).

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> done = {}
    >>> with ThreadPoolExecutor(2) as ex:
    ...     run_tasks(ex, pow, {"a": ((2, 3), {}), "b": ((3, 2), {})}, done.__setitem__)
    >>> sorted(done.items())
    [('a', 8), ('b', 9)]
    """
    if executor is None:
        for key, (args, kwargs) in tasks.items():
            finish(key, fn(*args, **kwargs))
        return
    from concurrent.futures import as_completed

    expect_tasks(executor, len(tasks))  # a lazy pool starts no idle worker
    futures = {executor.submit(fn, *args, **kwargs): key
               for key, (args, kwargs) in tasks.items()}
    try:
        for fut in as_completed(futures):
            finish(futures[fut], fut.result())
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise
