"""Benchmark: ``penlearn peaks`` killed mid-run, then rerun (issue 31, long runs).

Run: python benchmarks/resume.py [--samples 240] [--rows 10000] [--cut 0.5] [--jobs 1]
     [--results]

* synthetic coverage: ``--samples`` bedGraph files of two chromosomes, ``--rows`` rows of
  10 bases each (Poisson counts, a peak every 70 rows), so ``2 × samples`` windows;
* (1) the whole run, ``penlearn peaks DIR --penalty 1000 --out A``: wall time T;
* (2) the same command with ``--out B`` killed with SIGKILL (no clean-up: a crash) once
  ``--cut`` of the windows are saved in ``B.penlearn-parts/``;
* (3) the same command again: wall time R, and the windows it reused (its last line);
  the files of B must equal those of A byte for byte (the script fails otherwise).

Goal (issue 31): R about (1 - cut) × T. R also pays the fixed costs every run pays
(starting Python, importing, reading all coverage files, features), so R/T sits above
1 - cut by their share. With ``--results`` the table goes to the ``## resume`` section of
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(HERE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}


def write_samples(folder: Path, n: int, rows: int, seed: int = 0) -> None:
    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    start = np.arange(rows) * 10
    mean = np.where((start // 500) % 7 == 3, 20, 2)
    for k in range(n):
        parts = [pd.DataFrame({"chrom": c, "chromStart": start, "chromEnd": start + 10,
                               "count": rng.poisson(mean)}) for c in ("chr1", "chr2")]
        pd.concat(parts).to_csv(folder / f"s{k:03d}.bedGraph", sep="\t", header=False,
                                index=False)


def command(data: Path, out: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "penlearn.cli", "peaks", str(data), "--penalty", "1000",
            "--out", str(out), "--jobs", str(jobs)]


def timed(argv) -> tuple[float, str]:
    t = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{r.stderr}")
    return time.perf_counter() - t, r.stdout.strip()


def killed_at(argv, parts: Path, windows: int, cut: float) -> tuple[float, int]:
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    target = int(round(cut * windows))
    while p.poll() is None:
        if parts.is_dir() and len(list(parts.glob("peaks-*.npz"))) >= target:
            break
        time.sleep(0.02)
    if p.poll() is not None:
        raise SystemExit("the run ended before it was killed")
    p.send_signal(signal.SIGKILL)
    p.wait()
    return time.perf_counter() - t, len(list(parts.glob("peaks-*.npz")))


def fixed(whole: float, rerun: float, c: float) -> float:
    """The fixed costs F that make R = F + (1 - c) (T - F), c the fraction saved."""
    return (rerun - (1 - c) * whole) / c


def contents(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=240)
    ap.add_argument("--rows", type=int, default=10000)
    ap.add_argument("--cut", type=float, default=0.5)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--results", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="penlearn-resume-"))
    try:
        data = tmp / "data"
        write_samples(data, args.samples, args.rows)
        windows = 2 * args.samples
        timed(command(data, tmp / "warm", args.jobs))  # numba's caches, the page cache
        whole, _ = timed(command(data, tmp / "A", args.jobs))
        cut_s, saved = killed_at(command(data, tmp / "B", args.jobs),
                                 tmp / "B.penlearn-parts", windows, args.cut)
        rerun, line = timed(command(data, tmp / "B", args.jobs))
        same = contents(tmp / "A") == contents(tmp / "B")
        reused = re.search(r"\((\d+) of (\d+) windows", line)
        if not same or reused is None or int(reused.group(1)) != saved:
            raise SystemExit(f"outputs differ or reuse not reported: {line}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = [("uninterrupted run T", f"{whole:.1f} s", ""),
            ("killed (SIGKILL) after", f"{cut_s:.1f} s",
             f"{saved} of {windows} windows saved ({saved / windows:.0%})"),
            ("rerun R (same command)", f"{rerun:.1f} s",
             f"R/T = {rerun / whole:.2f}; {saved} windows reused, outputs identical"),
            ("fixed costs F, from R = F + (1 - c)(T - F)",
             f"{fixed(whole, rerun, saved / windows):.1f} s",
             "every run's: start, imports, reading all coverage, writing the outputs")]
    table = "| step | wall | |\n|---|---|---|\n" + "\n".join(
        f"| {a} | {b} | {c} |" for a, b, c in rows)
    print(table)
    if args.results:
        head = (f"## resume\n\n`python benchmarks/resume.py --samples {args.samples} --rows "
                f"{args.rows} --cut {args.cut} --jobs {args.jobs} --results` "
                f"({dt.date.today()}, {platform.machine()}, {os.cpu_count()} cores shared "
                "with other jobs: wall times vary run to run). "
                f"{args.samples} synthetic samples × 2 chromosomes × {args.rows} rows "
                "(bedGraph), `penlearn peaks --penalty 1000`, killed with SIGKILL once "
                f"{args.cut:.0%} of the windows were saved, then the same command again. "
                "R pays the fixed costs of every run (Python start, imports, reading every "
                "coverage file, reading the saved windows back) on top of the windows left.\n\n")
        results_file.write_section("## resume", head + table)


if __name__ == "__main__":
    main()
