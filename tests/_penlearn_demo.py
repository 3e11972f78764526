"""Test helpers: run ``penlearn demo`` once per test run; read the tables of a report.

``demo_run`` (through the ``demo`` fixture of conftest.py) is shared by test_cli.py,
test_learn_models.py and test_browser.py, across the xdist workers too: the first worker
that asks runs the demo into the run's shared folder (``conftest.run_folder``), the
others read its outcome back (a run-wide lock).

The demo is the README's main command; it is run through the installed console script
when there is one next to the Python running the tests (as in the fresh virtual
environment of ``.ci/run``), else as ``python -m penlearn.cli``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd


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
    """``penlearn demo --out DIR --quiet``, run once per test run (in the run's folder,
    removed at its end); its outcome is kept beside it for the other workers."""
    from conftest import run_folder, run_lock

    root = run_folder() / "demo"
    done = root / "outcome.json"
    with run_lock("demo"):
        if not done.exists():
            root.mkdir(exist_ok=True)
            out = root / "penlearn-demo"
            cmd = (*penlearn_command(), "demo", "--out", str(out), "--quiet")
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=root)
            done.write_text(json.dumps({
                "out": str(out), "returncode": proc.returncode, "stdout": proc.stdout,
                "stderr": proc.stderr, "seconds": time.perf_counter() - t0, "command": cmd}))
        run = json.loads(done.read_text())
    return DemoRun(Path(run["out"]), run["returncode"], run["stdout"], run["stderr"],
                   run["seconds"], tuple(run["command"]))


class _Tables(HTMLParser):
    """Collect the cells of every <table id=...> of an HTML page."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.images: dict[str, str] = {}
        self._table = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "id" in a:
            self._table = a["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = ""
        elif tag == "img":
            self.images[a.get("id", "")] = a.get("src", "")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._table is not None and self._cell is not None:
            self.tables[self._table][-1].append(self._cell.strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def parse_report(path: Path) -> _Tables:
    p = _Tables()
    p.feed(Path(path).read_text(encoding="utf-8"))
    return p


def table_frame(rows: list[list[str]]) -> pd.DataFrame:
    header, *body = [r for r in rows if r]
    return pd.DataFrame(body, columns=header)
