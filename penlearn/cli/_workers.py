"""Workers of the ChIP-seq commands: ``--jobs N`` (a process pool) or ``--scheduler ADDRESS``
(a Dask cluster), the same ``concurrent.futures.Executor`` code path either way."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import importlib.util
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor

_NO_DISTRIBUTED = ("--scheduler needs the package 'distributed': "
                   "pip install 'penlearn[dask]'")
#: the largest ``--jobs`` (beyond it the process pool cannot even be sized)
MAX_JOBS = 4096
#: default ``--worker-timeout``: seconds of pending tasks with no Dask worker before giving up
WORKER_TIMEOUT = 120.0


class WorkersLost(ValueError):
    """No worker of the Dask scheduler for ``--worker-timeout`` seconds while tasks wait."""


def _seconds(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not 0 <= x < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text!r}")
    return x


#: ``[scheme://]host:port`` of a Dask scheduler (host: a name, IPv4, or [IPv6])
_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):"
                      r"([0-9]{1,5})/?")


def scheduler_address(text: str) -> str:
    """argparse type of ``--scheduler``: a Dask scheduler address ``tcp://host:port``
    (``tls``, ``ws``, ``wss``, ``ucx`` too; no scheme: tcp), checked before any work.

    Examples
    --------
    >>> scheduler_address("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> scheduler_address("tcp//host")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a Dask scheduler address tcp://host:port ...
    """
    m = _ADDRESS.fullmatch(str(text).strip())
    if m is None or not 1 <= int(m.group(3)) <= 65535:
        raise argparse.ArgumentTypeError(
            "must be a Dask scheduler address tcp://host:port (e.g. tcp://127.0.0.1:8786), "
            f"got {str(text)[:80]!r}")
    return str(text).strip()


def check_worker_arguments(args) -> None:
    """Refuse worker options that do nothing, before any work: ``--worker-timeout``
    without ``--scheduler`` (it times out Dask workers only), and a malformed
    ``--scheduler`` given programmatically (argparse checks it by
    :func:`scheduler_address`).

    Examples
    --------
    >>> check_worker_arguments(argparse.Namespace(scheduler=None, worker_timeout=5.0))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --worker-timeout applies with --scheduler only ...
    """
    scheduler = getattr(args, "scheduler", None)
    if scheduler is None and getattr(args, "worker_timeout", None) is not None:
        raise ValueError("--worker-timeout applies with --scheduler only (it times out a Dask "
                         "cluster's workers); give --scheduler ADDRESS or drop "
                         "--worker-timeout")
    if scheduler is not None:
        try:
            scheduler_address(scheduler)
        except argparse.ArgumentTypeError as exc:
            raise ValueError(f"--scheduler {exc}") from None
        if importlib.util.find_spec("distributed") is None:
            raise ValueError(_NO_DISTRIBUTED)


class WatchedExecutor(Executor):
    """A Dask client's executor whose pending tasks fail (:class:`WorkersLost`, naming the
    scheduler) once the scheduler has had no worker, or could not be reached, for
    ``timeout`` seconds: without it a cluster that lost every worker waits forever.

    A watchdog thread asks the scheduler for its workers every ``min(1, timeout / 4)``
    seconds while tasks are pending; ``timeout`` 0 disables it.
    """

    def __init__(self, client, address: str, timeout: float) -> None:
        self._client, self._address, self._timeout = client, address, timeout
        self._inner = client.get_executor()
        self._pending: set = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if timeout > 0:
            self._thread = threading.Thread(target=self._watch, daemon=True,
                                            name="penlearn-dask-watchdog")
            self._thread.start()

    def submit(self, fn, /, *args, **kwargs):
        """Submit to the cluster; the future returned relays the cluster's (its own
        object, so that the watchdog can fail it without racing distributed's updates)."""
        inner = self._inner.submit(fn, *args, **kwargs)
        outer: cf.Future = cf.Future()
        with self._lock:
            self._pending.add(outer)
        outer.add_done_callback(self._done)
        outer.add_done_callback(lambda o: inner.cancel() if o.cancelled() else None)
        inner.add_done_callback(lambda f: _relay(f, outer))
        return outer

    def _done(self, fut) -> None:
        with self._lock:
            self._pending.discard(fut)

    def _workers(self) -> int:
        """Workers known to the scheduler (0 when it cannot be asked within 5 s)."""
        try:
            return len(self._client.nthreads(callback_timeout=5))
        except Exception:  # noqa: BLE001 (a lost scheduler: any comm error or timeout)
            return 0

    def _watch(self) -> None:
        step = min(1.0, self._timeout / 4)
        last_ok = time.monotonic()
        while not self._stop.wait(step):
            with self._lock:
                idle = not self._pending
            if idle or self._workers() > 0:
                last_ok = time.monotonic()
                continue
            if time.monotonic() - last_ok < self._timeout:
                continue
            err = WorkersLost(f"--scheduler {self._address}: no worker for "
                              f"{self._timeout:g} s while tasks waited (all workers lost, or "
                              "none started); start workers, or raise --worker-timeout")
            with self._lock:
                pending = list(self._pending)
            for fut in pending:
                with contextlib.suppress(cf.InvalidStateError):
                    fut.set_exception(err)
            return

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the watchdog; ``wait=False`` cancels the running tasks (distributed's
        executor has no ``cancel_futures``)."""
        self._stop.set()
        self._inner.shutdown(wait=wait)


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
            self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                             initializer=_worker_signals)
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:  # noqa: D102
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def stop(self, timeout: float = 2.0) -> None:
        """Cancel the pending tasks and end the worker processes now (on an interrupt).

        A running task is not waited for: its worker gets SIGTERM (the default action,
        see :func:`_worker_signals`), and SIGKILL if still alive after ``timeout``
        seconds. Safe for the outputs: every file is written atomically and the solver's
        temporary files have no name (:mod:`penlearn.peaks.peakseg._store`).
        """
        if self._pool is None:
            return
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            with contextlib.suppress(Exception):
                proc.terminate()
        deadline = time.monotonic() + timeout
        for proc in processes:
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)


def _worker_signals() -> None:
    """In a ``--jobs`` worker: Ctrl-C is the main process's to handle (it stops the
    workers), and SIGTERM ends the worker at once, even inside a compiled kernel."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def add_worker_arguments(p, task: str = "(sample, window)", tmpdir: bool = True) -> None:
    """``--jobs`` and ``--scheduler`` of a command whose tasks are one ``task`` each (and
    ``--tmpdir``, the PeakSeg solver's, unless ``tmpdir`` is False)."""
    p.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                   help=f"worker processes, one task per {task}; at most as many "
                   f"as tasks and as this machine's cores ({available_cores()} here; "
                   "--oversubscribe: N anyway) (default: %(default)s: this process)")
    p.add_argument("--oversubscribe", action="store_true",
                   help="start up to --jobs N workers even beyond this machine's cores")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", type=scheduler_address,
                   help="a Dask scheduler (e.g. tcp://host:8786) to run the tasks on "
                   "(needs the 'distributed' package; instead of --jobs)")
    p.add_argument("--worker-timeout", type=_seconds, default=None, metavar="S",
                   help="with --scheduler only: fail (exit 1, naming the scheduler) once "
                   "tasks have waited S seconds with no worker on the scheduler, or with the "
                   f"scheduler unreachable (default: {WORKER_TIMEOUT:g}; 0: wait forever)")
    if not tmpdir:
        return
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
    check_worker_arguments(args)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ValueError(f"--jobs must be an integer from 1 to {MAX_JOBS}, got {jobs!r}")
    if scheduler is not None:
        if jobs != 1:
            raise ValueError("give --jobs or --scheduler, not both")
        try:
            from distributed import Client
        except ImportError as exc:
            raise ValueError(_NO_DISTRIBUTED) from exc
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise ValueError(f"--scheduler {scheduler}: cannot connect ({exc})") from exc
        _quiet_dask(("tornado", "asyncio", "concurrent.futures"))
        timeout = getattr(args, "worker_timeout", None)
        executor = WatchedExecutor(client, scheduler,
                                   WORKER_TIMEOUT if timeout is None else timeout)
        try:
            yield executor
        except BaseException:
            # pending tasks are cancelled: distributed would log each cancelled future's
            # traceback while closing; the command's one line says what happened
            _quiet_dask()
            executor.shutdown(wait=False)
            with contextlib.suppress(Exception):
                client.close(timeout=5)
            raise
        executor.shutdown(wait=True)
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
        pool.stop()  # an error or an interrupt: the running tasks are not waited for
        raise
    pool.shutdown(wait=True)


def _relay(inner: cf.Future, outer: cf.Future) -> None:
    """Give ``outer`` the outcome of ``inner`` (unless it already has one)."""
    with contextlib.suppress(cf.InvalidStateError, RuntimeError):
        if inner.cancelled():
            if outer.cancel():
                outer.set_running_or_notify_cancel()
        elif inner.exception() is not None:
            outer.set_exception(inner.exception())
        else:
            outer.set_result(inner.result())


def _quiet_dask(names=("distributed",)) -> None:
    """Silence these loggers for the rest of the process: distributed's once the command
    stops; from the start, the tracebacks its event loop's callbacks log when tasks are
    cancelled (``tornado``, ``asyncio``, ``concurrent.futures``: internal, not news)."""
    known = list(logging.root.manager.loggerDict)  # distributed sets some children's levels
    for name in [n for n in known if any(n.startswith(p + ".") for p in names)] + list(names):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
