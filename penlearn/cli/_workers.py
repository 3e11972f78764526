"""Workers of the ChIP-seq commands: ``--jobs N`` (a process pool) or ``--scheduler ADDRESS``
(a Dask cluster), the same ``concurrent.futures.Executor`` code path either way."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor

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


def add_worker_arguments(p) -> None:
    """``--jobs`` and ``--scheduler`` of a command."""
    p.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                   help="worker processes, one task per (sample, window) (default: "
                   "%(default)s: this process)")
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
    if jobs == 1:
        yield None
        return
    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
