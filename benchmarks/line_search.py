"""Exact line search, stop="linear": time against the R/C++ reference (``aum``).

Inputs: ``reference/aum/timing_inputs_n100000.npz`` (R's own line tables at n = 1e5, so
the lines are bit-identical) and the README's generator at n = 1e3 … 1e6 (binary labels,
10 standard normal features, a random weight vector ``w`` or the "true" ``beta``).
Each case runs in a fresh subprocess, so its peak memory (max RSS) is its own.

* ``core``: :func:`penlearn.line_search.line_search_lines` on the line table (R's
  ``seconds_core``: ``aum:::aumLineSearch``).
* ``total``: :func:`penlearn.line_search.line_search_linear` from X, w and the labels:
  X·w, AUM and its derivatives, the direction, the lines and the search (R's
  ``seconds_total``: ``aum_line_search``).

R's ``maxIterations = n`` processes n − 1 events; ``stop="linear"`` processes n, one more
(the checked row is event n − 1). Ratios are to the R times of ``timings.csv`` (medians
of 3, on an idle machine of the same kind). Because this machine may be shared, a fixed
pure-Python workload (1e5 heap pops + pushes on 5e4 tuples) is timed in the same process
before each run and printed as ``calib_s``: compare it between runs to gauge the load.
Also reported: events per second, CPU seconds of the process (``cpu_s``) and its peak
resident memory (``maxrss_mb``, Python + NumPy + pandas included).

Usage::

    python benchmarks/line_search.py              # n = 1e3, 1e4, 1e5 (+ npz), 1e6
    python benchmarks/line_search.py --max-n 100000 --reps 3
    python benchmarks/line_search.py --results    # also rewrite ## line_search of RESULTS.md
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import platform
import random
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.datasets import binary_timing_problem
from penlearn.datasets.locate import reference_folder

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from _measure import max_rss_bytes, run_python  # noqa: E402

REF = reference_folder() / "aum"
SECTION = "## line_search"


def make(n, P=10):
    """The README's timing generator (seed = n)."""
    return binary_timing_problem(n, P)


def _calibration() -> float:
    """A fixed pure-Python heap workload (the engine's inner-loop kind of work)."""
    r = random.Random(0)
    h = [(r.random(), i, i + 1) for i in range(50_000)]
    heapq.heapify(h)
    t = time.perf_counter()
    for _ in range(100_000):
        x, a, b = heapq.heappop(h)
        heapq.heappush(h, (x + r.random() * 0.01, a, b))
    return time.perf_counter() - t


def one_case(source: str, n: int, weight: str, kind: str) -> dict:
    """Run one case in this process; return timings and the checked values."""
    from penlearn.breakpoints import breakpoints_from_labels
    from penlearn.line_search import line_search_linear, line_search_lines

    calib = _calibration()
    if source == "npz":
        z = np.load(REF / "timing_inputs_n100000.npz")
        lines = [z[f"lsi_{weight}_{k}"] for k in ("intercept", "slope", "fp_diff", "fn_diff")]
        X, labels, W = z["X"], z["labels"], z[weight]
    else:
        X, labels, w, beta = make(n)
        W = w if weight == "w" else beta
        lines = None
    bp = breakpoints_from_labels(labels)
    t0 = time.perf_counter()
    c0 = time.process_time()
    if kind == "total":
        res = line_search_linear(bp, X, W, stop="linear")
    else:
        if lines is None:
            from penlearn.line_search import breakpoint_lines

            scores = X @ W
            pre = line_search_linear(bp, X, W, stop=0)
            lines = breakpoint_lines(bp, scores, X @ pre.direction)
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = line_search_lines(*lines, stop="linear")
    sec = time.perf_counter() - t0
    cpu = time.process_time() - c0
    p = res.path
    row = p.iloc[min(n - 1, len(p) - 1)]
    return {
        "source": source,
        "n": n,
        "weight": weight,
        "kind": kind,
        "seconds": sec,
        "cpu_s": cpu,
        "events": len(p) - 1,
        "calibration": calib,
        "step_size": float(row["step_size"]),
        "aum": float(row["aum"]),
        "auc": float(row["auc"]),
        "maxrss_mb": max_rss_bytes() / 2**20,
    }


def run_sub(source, n, weight, kind) -> dict:
    return run_python([__file__, "--one", source, str(n), weight, kind])


def r_times() -> pd.DataFrame:
    t = pd.read_csv(REF / "timings.csv")
    t = t[t["mode"] == "maxIterations=n"]
    g = t.groupby(["n", "weight"]).agg(
        r_total=("seconds_total", "median"),
        r_core=("seconds_core", "median"),
        r_step=("step_size", "first"),
        r_aum=("aum", "first"),
        r_auc=("auc", "first"),
    )
    return g.reset_index()


def write_section(text: str) -> None:
    results_file.write_section(SECTION, text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=1, help="repetitions (median reported)")
    ap.add_argument("--results", action="store_true", help="write benchmarks/RESULTS.md")
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        source, n, weight, kind = args.one
        print(json.dumps(one_case(source, int(n), weight, kind)))
        return 0
    cases = [("npz", 100_000, wt, k) for wt in ("w", "beta") for k in ("core", "total")]
    for n in (1_000, 10_000, 100_000, 1_000_000):
        if n <= args.max_n:
            cases += [("gen", n, wt, k) for wt in ("w", "beta") for k in ("core", "total")]
    rows = []
    for case in cases:
        reps = [run_sub(*case) for _ in range(args.reps)]
        r = sorted(reps, key=lambda d: d["seconds"])[len(reps) // 2]
        rows.append(r)
        print(f"{case}: {r['seconds']:.3f} s, calib {r['calibration']:.3f} s", flush=True)
    df = pd.DataFrame(rows).merge(r_times(), on=["n", "weight"], how="left")
    df["r_seconds"] = np.where(df["kind"] == "core", df["r_core"], df["r_total"])
    df["ratio"] = df["seconds"] / df["r_seconds"]
    df["calib_s"] = df["calibration"]
    df["events_per_s"] = df["events"] / df["seconds"]
    df["same_result"] = np.isclose(df["step_size"], df["r_step"], rtol=1e-9) & np.isclose(
        df["aum"], df["r_aum"], rtol=1e-9
    )
    cols = ["source", "n", "weight", "kind", "seconds", "cpu_s", "r_seconds", "ratio",
            "calib_s", "events", "events_per_s", "maxrss_mb", "same_result"]  # fmt: skip
    table = df[cols]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.results:
        md = [SECTION, ""]
        md.append(
            f"Command: `python benchmarks/line_search.py --reps {args.reps}` on "
            f"{platform.node()} ({platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}), "
            f'{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC. `stop="linear"`; R times '
            "from `reference/aum/timings.csv` (idle machine of the same kind). `calib_s` = "
            "seconds of a fixed pure-Python heap workload (1e5 pops + pushes) timed in the "
            "same process: a load gauge. `cpu_s` = CPU seconds of the run. maxrss = peak "
            "resident memory of the benchmark process (Python, NumPy, pandas included). "
            "`same_result`: step size and AUM of event n - 1 equal R's last row (rtol 1e-9). "
            f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
            "(other processes running make every time, and every ratio, larger)."
        )
        md.append("")
        md.append("| " + " | ".join(cols) + " |")
        md.append("|" + "---|" * len(cols))
        for _, r in table.iterrows():
            cells = []
            for c in cols:
                v = r[c]
                cells.append(f"{v:.4g}" if isinstance(v, float) else str(v))
            md.append("| " + " | ".join(cells) + " |")
        write_section("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
