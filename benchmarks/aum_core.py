"""Benchmark: aum() on 10^6 binary breakpoints, as a ratio to one np.argsort.

Run: python benchmarks/aum_core.py [--n 1000000] [--repeats 7]

Both are timed side by side in one run on the same data (the thresholds are
-scores for binary breakpoints at v = 0); the table reports the minimum over the repeats
(interleaved, so load affects both alike).
Goal (issue 2): aum() <= 3x one argsort of the thresholds.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

import penlearn as pl


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
    args = ap.parse_args(argv)
    rng = np.random.default_rng(1)
    y = (rng.random(args.n) < 0.5).astype(int)
    scores = rng.standard_normal(args.n)
    bp = pl.breakpoints_from_labels(y)
    thresholds = bp.value - scores[bp.example]
    t_sort = best_time(lambda: np.argsort(thresholds), args.repeats)
    t_sort_stable = best_time(lambda: np.argsort(thresholds, kind="stable"), args.repeats)
    t_aum = best_time(lambda: pl.aum(bp, scores), args.repeats)
    print(f"machine: {platform.machine()} {platform.processor() or ''}, numpy {np.__version__}")
    print(f"{'what':<32}{'seconds':>10}{'ratio':>8}")
    print(f"{'np.argsort (quicksort)':<32}{t_sort:>10.4f}{1.0:>8.2f}")
    print(f"{'np.argsort (stable)':<32}{t_sort_stable:>10.4f}{t_sort_stable / t_sort:>8.2f}")
    print(f"{'penlearn.aum (value+derivs)':<32}{t_aum:>10.4f}{t_aum / t_sort:>8.2f}")


if __name__ == "__main__":
    main()
