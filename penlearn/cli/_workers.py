"""Workers of the ChIP-seq commands: ``--jobs N`` (a process pool) or ``--scheduler ADDRESS``
(a Dask cluster), the same ``concurrent.futures.Executor`` code path either way."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor

#: the largest ``--jobs`` (beyond it the process pool cannot even be sized)
MAX_JOBS = 4096


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to {MAX_JOBS}, "
                                         f"got {text!r}")
    return n


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; else the machine's).

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class LazyProcessPool(Executor):
    """A process pool of at most ``max_workers`` processes that starts them at the first
    ``submit``, no more than the tasks announced by :func:`penlearn._executor.expect_tasks`
    (a later, larger batch of tasks gets a larger pool once the earlier one is done).

    Examples
    --------
    >>> pool = LazyProcessPool(64)
    >>> pool.expect_tasks(2)
    >>> pool.submit(abs, -3).result(), pool.workers
    (3, 2)
    >>> pool.shutdown()
    """

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max_workers
        self.workers = 0  # processes of the running pool (0: none started)
        self._tasks: int | None = None
        self._pool: ProcessPoolExecutor | None = None

    def expect_tasks(self, n_tasks: int) -> None:  # noqa: D102
        self._tasks = n_tasks
        want = max(1, min(self.max_workers, n_tasks))
        if self._pool is not None and want > self.workers:  # the earlier batch is done
            self._pool.shutdown(wait=True)
            self._pool, self.workers = None, 0

    def submit(self, fn, /, *args, **kwargs) -> Future:  # noqa: D102
        if self._pool is None:
            n = self.max_workers if self._tasks is None else min(self.max_workers, self._tasks)
            self.workers = max(1, n)
            self._pool = ProcessPoolExecutor(max_workers=self.workers)
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:  # noqa: D102
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def add_worker_arguments(p) -> None:
    """``--jobs`` and ``--scheduler`` of a command."""
    p.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                   help="worker processes, one task per (sample, window); at most as many "
                   f"as tasks and as this machine's cores ({available_cores()} here; "
                   "--oversubscribe: N anyway) (default: %(default)s: this process)")
    p.add_argument("--oversubscribe", action="store_true",
                   help="start up to --jobs N workers even beyond this machine's cores")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a Dask scheduler (e.g. tcp://host:8786) to run the tasks on "
                   "(needs the 'distributed' package; instead of --jobs)")
    p.add_argument("--tmpdir", default=None, metavar="DIR",
                   help="folder of the PeakSeg solver's temporary files (whole chromosomes: "
                   "about 5 GB per 2e7 coverage rows and worker; default: $PENLEARN_TMPDIR, "
                   "else $TMPDIR, else /tmp)")


@contextlib.contextmanager
def workers(args) -> Iterator[Executor | None]:
    """The executor of ``--jobs`` / ``--scheduler`` (None: this process); shut down at the
    end, pending tasks cancelled on an error or an interrupt.

    Examples
    --------
    >>> import argparse
    >>> with workers(argparse.Namespace(jobs=1, scheduler=None)) as ex:
    ...     print(ex)
    None
    """
    jobs, scheduler = getattr(args, "jobs", 1), getattr(args, "scheduler", None)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"--jobs must be an integer from 1 to {MAX_JOBS}, got {jobs!r}")
    if scheduler is not None:
        if jobs != 1:
            raise ValueError("give --jobs or --scheduler, not both")
        try:
            from distributed import Client
        except ImportError as exc:
            raise ValueError("--scheduler needs the package 'distributed': "
                             "pip install penlearn[dask]") from exc
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise ValueError(f"--scheduler {scheduler}: cannot connect ({exc})") from exc
        try:
            yield client.get_executor()
        finally:
            client.close()
        return
    if not getattr(args, "oversubscribe", False):
        jobs = min(jobs, available_cores())
    if jobs == 1:
        yield None
        return
    pool = LazyProcessPool(jobs)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
