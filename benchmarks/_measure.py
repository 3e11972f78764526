"""Shared by the benchmark scripts: runs in a fresh process and their peak memory.

One place for what ``peakseg_memory.py``, ``genome_scale.py`` and ``peakseg.py`` each
did with their own subprocess code:

* :func:`run_python` — ``python ARGS`` in a fresh process, with this repository (and
  ``benchmarks/``) first on ``PYTHONPATH``; its last line of output read as JSON;
* :func:`max_rss_bytes` — the peak resident memory of the calling process: ``VmHWM``
  of ``/proc/self/status`` (Linux), not ``ru_maxrss``, which after fork + exec can keep
  the size of a large parent; ``ru_maxrss`` elsewhere;
* :func:`run_command` — a command's wall time and max RSS, measured by a small
  intermediate process whose ``RUSAGE_CHILDREN`` is the command's own.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# the measuring process: it starts the command, so RUSAGE_CHILDREN is the command's own
_COMMAND = r"""
import json, subprocess, sys, time, resource
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t0
err = p.stderr.strip().splitlines()[-1] if p.returncode and p.stderr.strip() else ""
print(json.dumps({"wall": wall, "code": p.returncode, "error": err,
                  "maxrss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""


def max_rss_bytes() -> int:
    """Peak resident memory of this process, in bytes (``VmHWM`` on Linux)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def run_python(args: list[str], env: dict | None = None):
    """``python ARGS`` in a fresh process (repository and ``benchmarks/`` on the path);
    the last line it prints, parsed as JSON. ``env`` adds variables."""
    path = os.pathsep.join([str(HERE.parent), str(HERE),
                            *filter(None, [os.environ.get("PYTHONPATH")])])
    full = {**os.environ, **(env or {}), "PYTHONPATH": path}
    import subprocess

    out = subprocess.run([sys.executable, *args], env=full, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"benchmark child {args[:2]} failed ({out.returncode}): "
                           f"{out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_command(argv: list[str]) -> dict:
    """Run ``argv`` measured: ``wall`` seconds, exit ``code``, last ``error`` line, and
    ``maxrss`` (bytes) of the command alone."""
    return run_python(["-c", _COMMAND, *argv])
