"""Benchmark: exact segmentation of the 154 neuroblastoma sequences, K = 20 segments.

Run: python benchmarks/segmentation.py [--dynp-max-n 130] [--results]

Side by side, in one run, sequence by sequence (interleaved, so machine load hits all
alike):

* penlearn ``segment(y, 20)``: all models with 1..20 segments (vectorised NumPy DP with
  exact pruning);
* ruptures ``KernelCPD(kernel="linear", min_size=1, jump=1)`` (compiled C, the same
  square loss): one ``predict(n_bkps=19)``, i.e. only the 20-segment model (its cheapest
  use; all 20 models would need 19 calls);
* ruptures ``Dynp(model="l2", min_size=1, jump=1)`` (pure Python) on the sequences with
  n <= ``--dynp-max-n`` only: ``fit`` + ``predict(n_bkps=k-1)`` for k = 2..20 (all models,
  its cache shares the work).

Every optimum is checked: penlearn's losses equal those of the ruptures models.
Peak memory of ``segment`` on the longest sequence is measured with tracemalloc.
Goals (issue 5): >= 100x faster than Dynp, within 2x of KernelCPD, peak memory O(K n).
With ``--results`` the table is written to the ``## segmentation`` section of
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import ruptures as rpt

from penlearn import segment

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

SECTION = "## segmentation"


def default_profiles() -> Path:
    data = Path(os.environ.get("PENLEARN_DATA", HERE.parent.parent / "shared" / "data"))
    return data / "neuroblastoma" / "profiles.csv.gz"


def l2_loss(y: np.ndarray, ends) -> float:
    e = np.r_[0, np.asarray(ends)]
    return float(sum(np.sum((y[a:b] - y[a:b].mean()) ** 2) for a, b in zip(e[:-1], e[1:])))


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run(profiles: Path, k: int, dynp_max_n: int) -> dict:
    p = pd.read_csv(profiles)
    seqs = [g["logratio"].to_numpy() for _, g in p.groupby(["profile.id", "chromosome"],
                                                           sort=False)]
    segment(seqs[0], k)  # warm up imports
    t_ours = t_kcpd = t_ours_dynp = t_dynp = 0.0
    n_dynp = 0
    worst = 0.0
    for y in seqs:
        seg, t = timed(lambda y=y: segment(y, k))
        _, t2 = timed(lambda y=y: segment(y, k))
        t_ours += min(t, t2)
        _, t = timed(lambda y=y: rpt.KernelCPD(kernel="linear", min_size=1, jump=1)
                     .fit(y).predict(n_bkps=k - 1))
        ends, t2 = timed(lambda y=y: rpt.KernelCPD(kernel="linear", min_size=1, jump=1)
                         .fit(y).predict(n_bkps=k - 1))
        t_kcpd += min(t, t2)
        worst = max(worst, abs(l2_loss(y, ends) / seg.loss[k - 1] - 1))
        if len(y) <= dynp_max_n:
            _, t = timed(lambda y=y: segment(y, k))
            t_ours_dynp += t

            def dynp(y=y):
                est = rpt.Dynp(model="l2", min_size=1, jump=1).fit(y)
                return [est.predict(n_bkps=j) for j in range(1, k)]

            all_ends, t = timed(dynp)
            t_dynp += t
            n_dynp += 1
            for j, e in enumerate(all_ends, start=2):
                worst = max(worst, abs(l2_loss(y, e) / seg.loss[j - 1] - 1))
    longest = max(seqs, key=len)
    tracemalloc.start()
    segment(longest, k)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "n_seq": len(seqs), "n_points": int(sum(len(y) for y in seqs)),
        "t_ours": t_ours, "t_kcpd": t_kcpd, "n_dynp": n_dynp, "t_ours_dynp": t_ours_dynp,
        "t_dynp": t_dynp, "worst_rel": worst, "n_longest": len(longest), "peak": peak,
        "k": k, "dynp_max_n": dynp_max_n,
    }


def table(r: dict) -> str:
    kn = r["k"] * r["n_longest"] * 8
    rows = [
        ("penlearn segment (1..K models)", f"all {r['n_seq']}", f"{r['t_ours']:.2f}", "1"),
        ("ruptures KernelCPD (C, K-segment model only)", f"all {r['n_seq']}",
         f"{r['t_kcpd']:.2f}", f"{r['t_ours'] / r['t_kcpd']:.2f}x slower (penlearn/KernelCPD)"),
        ("penlearn segment (1..K models)", f"{r['n_dynp']} with n <= {r['dynp_max_n']}",
         f"{r['t_ours_dynp']:.3f}", "1"),
        ("ruptures Dynp (Python, 1..K models)", f"{r['n_dynp']} with n <= {r['dynp_max_n']}",
         f"{r['t_dynp']:.2f}", f"{r['t_dynp'] / r['t_ours_dynp']:.0f}x faster (Dynp/penlearn)"),
    ]
    lines = ["| method | sequences | seconds | ratio |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    lines.append("")
    lines.append(
        f"Peak traced memory of `segment` on the longest sequence (n = {r['n_longest']}, "
        f"K = {r['k']}): {r['peak'] / 1e6:.2f} MB = {r['peak'] / kn:.1f} x K·n·8 bytes "
        f"(O(K·n): backtracking table + one cache-sized cost block). "
        f"Largest relative loss difference to the ruptures optima: {r['worst_rel']:.1e}."
    )
    return "\n".join(lines)


def write_section(text: str) -> None:
    results_file.write_section(SECTION, text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profiles", type=Path, default=default_profiles())
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--dynp-max-n", type=int, default=130,
                    help="run Dynp only on sequences with at most this many points")
    ap.add_argument("--results", action="store_true", help="write benchmarks/RESULTS.md")
    args = ap.parse_args(argv)
    r = run(args.profiles, args.k, args.dynp_max_n)
    text = table(r)
    print(text)
    if args.results:
        load = os.getloadavg()
        header = (
            f"{SECTION}\n\n"
            f"`python benchmarks/segmentation.py --results` on "
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; "
            f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}, numpy {np.__version__}, ruptures "
            f"{rpt.__version__}; load average at the end {load[0]:.1f} (machine shared with "
            "other agents: timings are noisy, the ratios are measured side by side, "
            "sequence by sequence). "
            f"{r['n_seq']} neuroblastoma sequences ({r['n_points']} points), K = {r['k']}, "
            "exact; penlearn and KernelCPD times are the better of two runs per sequence.\n\n"
        )
        write_section(header + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
