"""``penlearn peaks --scheduler`` when the cluster goes away: with
every worker killed the command waited forever behind a frozen bar; now it exits 1 with
one line naming the scheduler within ``--worker-timeout``; an interrupt is one line, not
distributed's tracebacks of cancelled futures. A real scheduler (in this process, on
127.0.0.1) and a real worker process, killed with SIGKILL."""

from __future__ import annotations

import concurrent.futures as cf
import signal
import subprocess
import sys
import time

import pytest
from _penlearn_demo import penlearn_command
from conftest import default_sigint
from test_resume import ENV, _samples, _saved

from penlearn.cli._workers import WatchedExecutor, WorkersLost

SLOW = pytest.mark.slow  # a cluster, a worker process and a penlearn process: ~20 s each


@pytest.fixture
def scheduler():
    import distributed  # a declared test dependency: missing it is a failure, not a skip

    with distributed.LocalCluster(n_workers=0, processes=False, host="127.0.0.1",
                                  protocol="tcp", dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _worker(address):
    """A worker process without a nanny (nothing restarts it once killed)."""
    p = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                          "--no-nanny", "--nthreads", "1", "--no-dashboard",
                          "--host", "127.0.0.1"], env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p


def _start(tmp_path, address, *extra):
    data = _samples(tmp_path / "data", n=6, rows=20000)
    out = tmp_path / "peaks"
    p = subprocess.Popen([*penlearn_command(), "peaks", str(data), "--penalty", "1000",
                          "--out", str(out), "--scheduler", address, *extra],
                         env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_sigint)
    parts = tmp_path / "peaks.penlearn-parts"
    t0 = time.monotonic()
    while not _saved(parts) and p.poll() is None and time.monotonic() - t0 < 240:
        time.sleep(0.05)  # the first window done: the worker is at work
    assert p.poll() is None and _saved(parts), "the run ended before a window was saved"
    return p, out


@SLOW
def test_all_workers_lost_is_one_line_and_exit_1_within_the_timeout(tmp_path, scheduler):
    worker = _worker(scheduler)
    try:
        p, out = _start(tmp_path, scheduler, "--worker-timeout", "3")
        # the clock starts before the kill: the loss (and so the 3 s without a worker)
        # cannot begin before it, however late a loaded machine returns from wait()
        t = time.monotonic()
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        stdout, stderr = p.communicate(timeout=60)
        waited = time.monotonic() - t
    finally:
        worker.kill()
    assert p.returncode == 1, stderr
    err = [ln for ln in stderr.replace("\r", "\n").splitlines()
           if (ln.startswith("penlearn") and not ln.startswith("penlearn: compiling"))
           or "Error" in ln or "Traceback" in ln]  # a cold numba cache says it compiles
    assert err == [f"penlearn peaks: error: --scheduler {scheduler}: no worker for 3 s while "
                   "tasks waited (all workers lost, or none started); start workers, or "
                   "raise --worker-timeout"], stderr
    assert 3 <= waited + 0.5 and waited < 3 + 15, waited
    assert not out.exists() and stdout == ""


@SLOW
@pytest.mark.parametrize("sig,code,word", [(signal.SIGINT, 130, "interrupted"),
                                           (signal.SIGTERM, 143, "terminated")])
def test_interrupt_while_on_a_cluster_is_one_line(tmp_path, scheduler, sig, code, word):
    worker = _worker(scheduler)
    try:
        p, _ = _start(tmp_path, scheduler, "-q")
        p.send_signal(sig)
        _, stderr = p.communicate(timeout=60)
    finally:
        worker.kill()
    assert p.returncode == code, stderr
    assert [ln for ln in stderr.splitlines() if ln.strip()] == [f"penlearn peaks: {word}"]


class _Stuck:
    """A client whose tasks never run and whose scheduler has ``workers`` workers."""

    def __init__(self, workers):
        self.workers, self.cancelled = workers, []

    def get_executor(self):
        client = self

        class Never(cf.Executor):
            def submit(self, fn, /, *args, **kwargs):
                fut = cf.Future()
                fut.add_done_callback(lambda f: client.cancelled.append(f.cancelled()))
                return fut

            def shutdown(self, wait=True):
                pass
        return Never()

    def nthreads(self, callback_timeout=None):
        if self.workers is None:
            raise OSError("scheduler unreachable")
        return {f"w{i}": 1 for i in range(self.workers)}


@pytest.mark.parametrize("workers", [0, None])
def test_watchdog_fails_pending_tasks_after_the_timeout(workers):
    t = time.monotonic()  # before the executor: its clock starts no earlier than this
    ex = WatchedExecutor(_Stuck(workers), "tcp://10.0.0.1:8786", 0.4)
    fut = ex.submit(print, "never")
    with pytest.raises(WorkersLost, match=r"^--scheduler tcp://10\.0\.0\.1:8786: no worker "
                       r"for 0\.4 s"):
        fut.result(timeout=60)
    assert 0.4 <= time.monotonic() - t < 60  # (a loaded machine may be slow to wake it)
    ex.shutdown()


def test_watchdog_waits_while_there_are_workers_and_relays_cancel():
    client = _Stuck(2)
    ex = WatchedExecutor(client, "tcp://10.0.0.1:8786", 0.2)
    fut = ex.submit(print, "never")
    with pytest.raises(cf.TimeoutError):
        fut.result(timeout=1.0)  # workers present: no failure, however long it waits
    assert fut.cancel() and client.cancelled == [True]  # the cluster's task cancelled too
    ex.shutdown()


def test_worker_timeout_option():
    from penlearn.cli.main import build_parser

    args = build_parser().parse_args(["peaks", "x", "--out", "y"])
    assert args.worker_timeout is None  # not given: WORKER_TIMEOUT with --scheduler
    for bad in ("-1", "inf", "soon"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["peaks", "x", "--out", "y", "--worker-timeout", bad])
