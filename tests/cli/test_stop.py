"""``--jobs`` workers stop within seconds of SIGINT / SIGTERM (issue 39: they ran on for
20-50 s after "terminated", until their task was done).

The stop time (signal → the command's exit, every worker process gone) is measured here
and printed (``pytest -s``); the bound asserted is generous (10 s against the 2 s goal)
because the machine running the suite may be loaded: this is a correctness test (the
workers are stopped, not waited for), not a benchmark.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _penlearn_demo import penlearn_command
from conftest import REPO, default_sigint

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig,code,word", [
    pytest.param(signal.SIGTERM, 143, "terminated", marks=pytest.mark.slow),  # tier 2
    (signal.SIGINT, 130, "interrupted")])
def test_jobs_workers_stop_within_seconds_of_the_signal(tmp_path, sig, code, word):
    rng = np.random.default_rng(3)
    folder = tmp_path / "cov"
    folder.mkdir()
    rows = 400_000  # seconds of solving per sample, on any machine
    for s in ("a", "b", "c", "d"):
        pd.DataFrame({"chrom": "chr1", "chromStart": np.arange(rows) * 10,
                      "chromEnd": np.arange(1, rows + 1) * 10,
                      "count": rng.poisson(3, rows)}).to_csv(
            folder / f"{s}.bedGraph", sep="\t", header=False, index=False)
    p = subprocess.Popen([*penlearn_command(), "peaks", str(folder), "--penalty", "1000",
                          "--jobs", "2", "--out", str(tmp_path / "out")],
                         stderr=subprocess.PIPE, text=True, env=ENV,
                         preexec_fn=default_sigint)
    try:
        # ready: the handlers are installed ("peak models" is printed by the command) and
        # the workers run (children of the command), whatever the load
        for line in p.stderr:
            if "peak models" in line:
                break
        deadline = time.monotonic() + 120
        while len(workers := _children(p.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(workers) >= 2, "the worker processes did not start"
        time.sleep(0.5)  # inside their tasks
        errors: list[str] = []
        reader = threading.Thread(target=lambda: errors.append(p.stderr.read()))
        reader.start()
        t0 = time.perf_counter()
        p.send_signal(sig)
        stop_workers = stop_command = None
        while (stop_workers is None or stop_command is None) and \
                time.perf_counter() - t0 < 120:
            now = time.perf_counter() - t0
            if stop_workers is None and not any(_alive(w) for w in workers):
                stop_workers = now
            if stop_command is None and p.poll() is not None:
                stop_command = now
            time.sleep(0.01)
        reader.join(60)
        rc, err = p.wait(timeout=60), "".join(errors)
    finally:
        if p.poll() is None:
            p.kill()
    print(f"\n{signal.Signals(sig).name}: {len(workers)} workers ended {stop_workers:.2f} s, "
          f"the command {stop_command:.2f} s after the signal (load "
          f"{os.getloadavg()[0]:.1f})")
    assert rc == code, err
    assert f"penlearn peaks: {word}" in err
    assert stop_workers is not None, "a worker outlived the command by 2 minutes"
    assert stop_workers <= 10.0, f"the workers stopped {stop_workers:.1f} s after the signal"
    assert stop_command <= 10.0, f"the command ended {stop_command:.1f} s after the signal"
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.bed"))
