"""Benchmark: the PeakSeg model (functional pruning, numba) against the R/C++ timings.

Run: python benchmarks/peakseg.py [--results] [--path-sample McGill0023] [--max-peaks N]

* synthetic coverage of 1e4 / 1e5 / 1e6 rows at penalty 1000 (the reference timings'
  inputs: counts drawn with numpy's ``default_rng(1)``, means alternating 5 / 30 in
  blocks of 1000, one row per base), against PeakSegOptimal's in-memory C++ solver
  (``PeakSegFPOPchrom``) timed on the reference machine; the peak counts and losses are
  checked against the reference results;
* the growth of the time when N doubles (O(N log N) expected);
* the deltarod coverage (138,969 rows) at penalty 1e5 against PeakSegDisk's solver;
* one H3K36me3_TDH_other_chunk1 sample's whole penalty path (``peakseg_path``) against
  R's 3.4–8.6 minutes.

Timings exclude numba's compile time (the kernel is warmed up first); the compile time
(empty cache, measured in a fresh process) is reported separately. With ``--results`` the
table goes to the ``## peakseg`` section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.datasets.locate import data_folder, reference_folder
from penlearn.peaks.peakseg.solver import peakseg, peakseg_path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from _measure import run_python  # noqa: E402

SECTION = "## peakseg"
DATA = data_folder()
TIMINGS = reference_folder() / "peakseg" / "timings"


def best_of(fn, reps: int):
    """Result, best wall seconds and the CPU seconds of that run."""
    best = (np.inf, np.inf)
    out = None
    for _ in range(reps):
        t0 = time.perf_counter()
        c0 = time.process_time()
        out = fn()
        best = min(best, (time.perf_counter() - t0, time.process_time() - c0))
    return out, best


def synthetic(counts: np.ndarray, n: int) -> pd.DataFrame:
    return pd.DataFrame({"chrom": "chrSim", "chromStart": np.arange(n),
                         "chromEnd": np.arange(1, n + 1), "count": counts[:n]})


def compile_seconds() -> float:
    """First call in a fresh process with an empty numba cache."""
    code = (
        "import time, pandas as pd; from penlearn.peaks.peakseg.solver import peakseg;"
        "c = pd.DataFrame({'chrom': 'c', 'chromStart': range(5), 'chromEnd': range(1, 6),"
        " 'count': [1, 3, 0, 4, 2]}); t = time.perf_counter(); peakseg(c, 1.0);"
        "print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        return float(run_python(["-c", code], env={"NUMBA_CACHE_DIR": tmp}))


def run(args) -> dict:
    ref_t = pd.read_csv(TIMINGS / "timings.csv")
    cpp = ref_t[ref_t["task"].str.startswith("PeakSegOptimal FPOP")]
    cpp = {int(r.bedGraph_lines): float(r.median_seconds) for r in cpp.itertuples()}
    disk = ref_t[ref_t["data"].str.startswith("deltarod")]["median_seconds"].iloc[0]
    ref_loss = pd.read_csv(TIMINGS / "synthetic_fpop_penalty1000_loss.csv").set_index("N")
    counts = pd.read_csv(TIMINGS / "synthetic_counts_1e6.csv.gz")["count"].to_numpy()
    peakseg(synthetic(counts, 100), 1000.0)  # warm up (load the compiled kernel)
    rows = []
    for n in (10_000, 100_000, 1_000_000):
        if n > args.max_n:
            continue
        fit, sec = best_of(lambda n=n: peakseg(synthetic(counts, n), 1000.0),
                           3 if n < 1_000_000 else 1)
        ok = (fit.n_peaks == ref_loss.loc[n, "peaks"]
              and abs(fit.total_loss / ref_loss.loc[n, "total.loss"] - 1) < 1e-9)
        rows.append({"rows": n, "seconds": sec, "cpp": cpp.get(n, np.nan),
                     "peaks": fit.n_peaks, "same": ok})
    growth = []
    base = args.max_n // 8
    prev = None
    for n in (base, 2 * base, 4 * base, 8 * base):
        _, (_, cpu) = best_of(lambda n=n: peakseg(synthetic(counts, n), 1000.0), 2)
        growth.append((n, cpu, cpu / prev if prev else np.nan))
        prev = cpu
    cov = pd.read_csv(DATA / "chipseq_raw" / "deltarod_PeakSegDisk" / "coverage.bedGraph.gz",
                      sep="\t", header=None, names=["chrom", "chromStart", "chromEnd", "count"])
    fit, d_sec = best_of(lambda: peakseg(cov, 1e5), 2)
    deltarod = {"seconds": d_sec, "disk": float(disk), "peaks": fit.n_peaks,
                "loss": fit.total_loss}
    h3 = pd.read_csv(DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1" / "coverage.csv.gz")
    one = h3[h3["sample_id"] == args.path_sample].reset_index(drop=True)
    path, (p_sec, p_cpu) = best_of(lambda: peakseg_path(one, max_peaks=args.max_peaks), 1)
    return {"synthetic": rows, "growth": growth, "deltarod": deltarod,
            "path": {"sample": args.path_sample, "rows": len(one), "seconds": p_sec,
                     "cpu": p_cpu,
                     "models": len(path.models), "solves": path.n_solves,
                     "complete": path.complete, "max_peaks": args.max_peaks,
                     "most_peaks": int(path.models["peaks"].max())},
            "compile": compile_seconds()}


def table(r: dict) -> str:
    lines = ["| input | rows | penlearn wall s (CPU s) | R/C++ s (idle reference machine) | "
             "ratio wall (CPU) | check |", "|---|---|---|---|---|---|"]
    for s in r["synthetic"]:
        wall, cpu = s["seconds"]
        lines.append(
            f"| synthetic, penalty 1000 | {s['rows']:,} | {wall:.3f} ({cpu:.3f}) | "
            f"{s['cpp']:.3f} (PeakSegOptimal, in memory) | {wall / s['cpp']:.2f} "
            f"({cpu / s['cpp']:.2f}) | {s['peaks']} peaks, "
            f"{'same model as R' if s['same'] else 'DIFFERENT from R'} |")
    d = r["deltarod"]
    wall, cpu = d["seconds"]
    lines.append(
        f"| deltarod, penalty 1e5 | 138,969 | {wall:.3f} ({cpu:.3f}) | {d['disk']:.3f} "
        f"(PeakSegDisk, on disk) | {wall / d['disk']:.2f} ({cpu / d['disk']:.2f}) | "
        f"{d['peaks']} peaks, loss {d['loss']:.8f} |")
    p = r["path"]
    bound = "full path" if p["max_peaks"] is None else f"max_peaks={p['max_peaks']}"
    per = p["seconds"] / p["solves"]
    lines.append(
        f"| H3K36me3 {p['sample']} path ({bound}): {p['models']} models, up to "
        f"{p['most_peaks']} peaks, {p['solves']} solves | {p['rows']:,} | {p['seconds']:.1f} "
        f"({p['cpu']:.1f}) | R's whole path: 204–516 s for 220–350 solves (0.93–1.47 s "
        f"per solve) | per solve {per / 1.47:.2f}–{per / 0.93:.2f} "
        f"({p['cpu'] / p['solves'] / 1.47:.2f}–{p['cpu'] / p['solves'] / 0.93:.2f}) | "
        f"{per:.3f} s per solve |")
    lines += ["", "| rows (synthetic) | CPU seconds | × previous (2× rows) |", "|---|---|---|"]
    for n, sec, ratio in r["growth"]:
        lines.append(f"| {n:,} | {sec:.3f} | {'' if np.isnan(ratio) else f'{ratio:.2f}'} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", action="store_true")
    ap.add_argument("--max-n", type=int, default=1_000_000)
    ap.add_argument("--path-sample", default="McGill0023")
    ap.add_argument("--max-peaks", type=int, default=300,
                    help="peak bound of the path (-1: the full path down to penalty 0)")
    args = ap.parse_args(argv)
    if args.max_peaks is not None and args.max_peaks < 0:
        args.max_peaks = None
    r = run(args)
    text = table(r)
    load = os.getloadavg()[0]
    head = (
        f"`python benchmarks/peakseg.py{' --results' if args.results else ''}` on "
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, numpy {np.__version__}; "
        f"load average at the end {load:.1f} (machine shared with other agents). C++ "
        "seconds are the medians of `reference/peakseg/timings` (2-core AMD EPYC VM, R "
        "4.2.2, -O2). penlearn seconds are best of 3 (1 for 1e6 and the path), after a "
        f"warm-up; numba compile time with an empty cache: {r['compile']:.1f} s (once; "
        "cached on disk afterwards)."
    )
    print(head)
    print(text)
    if args.results:
        results_file.write_section(SECTION, f"{SECTION}\n\n{head}\n\n{text}\n")


if __name__ == "__main__":
    main()
