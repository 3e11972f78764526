"""Benchmark: aum() on 10^6 binary breakpoints, as a ratio to one np.argsort.

Run: python benchmarks/aum_core.py [--n 1000000] [--repeats 7]

Both are timed side by side in one run on the same data (the thresholds are
-scores for binary breakpoints at v = 0); the table reports the minimum over the repeats
(interleaved, so load affects both alike).
Goal (issue 2): aum() <= 3x one argsort of the thresholds.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

import penlearn as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import results_file  # noqa: E402

SECTION = "## aum_core"


def best_time(fn, repeats: int) -> float:
    """Minimum over repeats: the least disturbed measurement on a shared machine."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.min(times))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--results", action="store_true", help="write benchmarks/RESULTS.md")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(1)
    y = (rng.random(args.n) < 0.5).astype(int)
    scores = rng.standard_normal(args.n)
    bp = pl.breakpoints_from_labels(y)
    thresholds = bp.value - scores[bp.example]
    t_sort = best_time(lambda: np.argsort(thresholds), args.repeats)
    t_sort_stable = best_time(lambda: np.argsort(thresholds, kind="stable"), args.repeats)
    t_aum = best_time(lambda: pl.aum(bp, scores), args.repeats)
    rows = [
        ("np.argsort (quicksort) of the thresholds", t_sort),
        ("np.argsort (stable)", t_sort_stable),
        ("penlearn.aum (AUM + n x 2 derivatives)", t_aum),
    ]
    table = ["| what | seconds | ratio to argsort |", "|---|---|---|"]
    table += [f"| {name} | {t:.4f} | {t / t_sort:.2f} |" for name, t in rows]
    print("\n".join(table))
    if args.results:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        text = [
            SECTION,
            "",
            f"`python benchmarks/aum_core.py --results` on {now}; {platform.machine()}, "
            f"{os.cpu_count()} CPUs, Python {platform.python_version()}, numpy "
            f"{np.__version__}; load average at the end {load:.1f}. n = {args.n} binary "
            f"breakpoints (random labels, standard normal scores, no ties); minimum of "
            f"{args.repeats} interleaved repeats. Goal (issue 2): aum() <= 3x one argsort.",
            "",
            *table,
        ]
        results_file.write_section(SECTION, "\n".join(text))

if __name__ == "__main__":
    main()
