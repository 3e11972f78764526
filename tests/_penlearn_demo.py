"""Run ``penlearn demo`` once per test session (shared by test_cli.py and test_browser.py).

The demo is the README's main command; it is run through the installed console script
when there is one next to the Python running the tests (as in the fresh virtual
environment of ``.ci/run``), else as ``python -m penlearn.cli``.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True)
class DemoRun:
    out: Path
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    command: tuple


def penlearn_command() -> list[str]:
    script = Path(sys.executable).parent / "penlearn"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "penlearn.cli"]


@lru_cache(maxsize=1)
def demo_run() -> DemoRun:
    root = Path(tempfile.mkdtemp(prefix="penlearn-demo-test-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    out = root / "penlearn-demo"
    cmd = (*penlearn_command(), "demo", "--out", str(out), "--quiet")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=root)
    return DemoRun(out, proc.returncode, proc.stdout, proc.stderr,
                   time.perf_counter() - t0, cmd)
