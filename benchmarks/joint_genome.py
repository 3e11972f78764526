"""Benchmark: joint peaks of a genome — ``penlearn peaks`` then ``penlearn joint``, --jobs 2.

Run: python benchmarks/joint_genome.py [--bases 5e7] [--samples 20] [--peaks 1000]
     [--jobs 2] [--results] [--quick]

* a simulated chromosome of ``--bases`` bases and ``--samples`` samples, written as one
  bedGraph per sample the way ``bedtools genomecov -bg`` writes coverage: runs of 20–200
  bases of constant count (Poisson, background mean 1), zero-count runs left out (so
  samples end at different positions and have gaps: the bases without rows are zeros);
* ``--peaks`` planted peaks (1–3 kb, Poisson mean 8 in the samples that carry them), one
  every ``bases / peaks`` bases with jitter, each carried by a known subset of the
  samples (subset size uniform from 1 to S, then a random subset);
* ``penlearn peaks FOLDER --penalty P --jobs J`` then ``penlearn joint FOLDER --peaks
  PEAKS --penalty P --jobs J``: wall time, CPU time (user + system of the command and
  its workers) and memory of each command (``max RSS``: of the largest process,
  ``RUSAGE_CHILDREN``; ``all processes PSS``: the peak of the summed proportional set
  size of the command and its workers, sampled every 0.2 s);
* recovery: a planted peak is *found* when a joint peak overlaps it, *found with its
  samples* when an overlapping joint peak's samples up are exactly its subset; joint
  peaks overlapping no planted peak are counted as false.

Files go to a temporary folder, removed at the end. ``--quick``: 2·10^6 bases, 6
samples, 40 peaks (a smoke test). ``--results`` writes the ``## joint_genome`` section of
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

SECTION = "## joint_genome"
CHROM = "chr1"
BACKGROUND, HEIGHT = 1.0, 8.0


def plant(bases: int, samples: int, n_peaks: int, rng) -> pd.DataFrame:
    """Planted peaks: ``chromStart, chromEnd, samples`` (a frozenset of sample indices)."""
    step = bases // (n_peaks + 1)
    centers = (np.arange(1, n_peaks + 1) * step
               + rng.integers(-step // 4, step // 4 + 1, n_peaks))
    widths = rng.integers(1000, 3001, n_peaks)
    sets = []
    for _ in range(n_peaks):
        k = int(rng.integers(1, samples + 1))
        sets.append(frozenset(int(s) for s in rng.choice(samples, k, replace=False)))
    return pd.DataFrame({"chromStart": centers - widths // 2,
                         "chromEnd": centers - widths // 2 + widths, "samples": sets})


def sample_coverage(bases: int, planted: pd.DataFrame, s: int, rng) -> pd.DataFrame:
    """One sample's bedGraph rows (``bedtools genomecov -bg``: zero runs left out)."""
    cuts = np.cumsum(rng.integers(20, 201, bases // 20 + 10))
    mine = planted[[s in x for x in planted["samples"]]]
    edges = np.concatenate([[0], cuts[cuts < bases], mine["chromStart"], mine["chromEnd"],
                            [bases]])
    edges = np.unique(edges)
    start, end = edges[:-1], edges[1:]
    rate = np.full(len(start), BACKGROUND)
    inside = np.zeros(len(start), dtype=bool)
    for a, b in zip(mine["chromStart"], mine["chromEnd"]):
        lo, hi = np.searchsorted(start, [a, b])
        inside[lo:hi] = True
    rate[inside] = HEIGHT
    count = rng.poisson(rate)
    keep = count > 0
    return pd.DataFrame({"chrom": CHROM, "chromStart": start[keep], "chromEnd": end[keep],
                         "count": count[keep]})


def write_inputs(folder: Path, bases: int, samples: int, n_peaks: int, seed: int):
    rng = np.random.default_rng(seed)
    planted = plant(bases, samples, n_peaks, rng)
    folder.mkdir(parents=True)
    rows = 0
    for s in range(samples):
        cov = sample_coverage(bases, planted, s, rng)
        rows += len(cov)
        cov.to_csv(folder / f"s{s:02d}.bedGraph", sep="\t", header=False, index=False)
    return planted, rows


def _tree_pss(pid: int) -> int:
    """Summed proportional set size of a process and its descendants (bytes): pages
    shared by forked workers counted once in all, unlike a sum of their RSS."""
    import psutil

    try:
        p = psutil.Process(pid)
        procs = [p, *p.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for q in procs:
        try:
            total += q.memory_full_info().pss
        except psutil.Error:
            pass
    return total


_MEASURE = r"""
import json, subprocess, sys, time, resource
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t0
err = p.stderr.strip().splitlines()[-1] if p.returncode and p.stderr.strip() else ""
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "code": p.returncode, "error": err, "out": p.stdout.strip(),
                  "maxrss": ru.ru_maxrss * 1024, "cpu": ru.ru_utime + ru.ru_stime}))
"""


def measured(argv: list[str]) -> dict:
    """Run ``argv`` through a measuring process: wall, exit code, max RSS of its largest
    process and the peak summed RSS of its process tree."""
    import json

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen([sys.executable, "-c", _MEASURE, *argv], env=env,
                            stdout=subprocess.PIPE, text=True)
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.wait(0.2):
            peak[0] = max(peak[0], _tree_pss(proc.pid))

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out, _ = proc.communicate()
    stop.set()
    t.join()
    res = json.loads(out.strip().splitlines()[-1])
    res["tree_pss"] = peak[0]
    if res["code"]:
        raise RuntimeError(f"{argv[:3]} failed ({res['code']}): {res['error']}")
    return res


def recovery(out: Path, planted: pd.DataFrame, samples: int) -> dict:
    """Planted peaks found (overlapped by a joint peak), found with their exact samples,
    and joint peaks overlapping no planted peak."""
    matrix = pd.read_csv(out / "peaks_matrix_sample.tsv", sep="\t")
    names = [f"s{s:02d}" for s in range(samples)]
    ups = [frozenset(i for i, n in enumerate(names) if row[n] == 1)
           for _, row in matrix.iterrows()]
    js, je = matrix["chromStart"].to_numpy(), matrix["chromEnd"].to_numpy()
    found = exact = 0
    hit_joint = np.zeros(len(matrix), dtype=bool)
    wrong = []
    for r in planted.itertuples(index=False):
        over = np.flatnonzero((js < r.chromEnd) & (je > r.chromStart))
        hit_joint[over] = True
        if len(over):
            found += 1
            if any(ups[i] == r.samples for i in over):
                exact += 1
            else:
                best = min(over, key=lambda i: len(ups[i] ^ r.samples))
                wrong.append(len(ups[best] ^ r.samples))
    return {"planted": len(planted), "found": found, "exact samples": exact,
            "exact %": 100.0 * exact / max(len(planted), 1),
            "false joint peaks": int((~hit_joint).sum()), "joint peaks": len(matrix),
            "median samples wrong (inexact)": float(np.median(wrong)) if wrong else 0.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bases", type=float, default=5e7)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--peaks", type=int, default=None,
                    help="planted peaks (default: one per 50 kb)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--penalty", type=float, default=3000.0,
                    help="λ of penlearn peaks and of penlearn joint (default %(default)g)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--results", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.bases, args.samples, args.peaks = 2e6, 6, 40
    bases = int(args.bases)
    n_peaks = args.peaks if args.peaks is not None else bases // 50_000
    work = Path(tempfile.mkdtemp(prefix="penlearn-joint-genome-"))
    load0 = os.getloadavg()
    try:
        t0 = time.perf_counter()
        planted, rows = write_inputs(work / "coverage", bases, args.samples, n_peaks,
                                     args.seed)
        t_sim = time.perf_counter() - t0
        print(f"simulated {args.samples} samples × {bases:,} bases: {rows:,} bedGraph rows, "
              f"{n_peaks} planted peaks ({t_sim:.0f} s)", flush=True)
        cli = [sys.executable, "-m", "penlearn.cli"]
        common = ["--penalty", f"{args.penalty:g}", "--jobs", str(args.jobs), "-q"]
        peaks = measured([*cli, "peaks", str(work / "coverage"), "--out",
                          str(work / "peaks"), *common])
        print(f"penlearn peaks: {peaks['wall']:.0f} s, {peaks['out']}", flush=True)
        joint = measured([*cli, "joint", str(work / "coverage"), "--peaks",
                          str(work / "peaks"), "--out", str(work / "joint"), *common])
        print(f"penlearn joint: {joint['wall']:.0f} s, {joint['out']}", flush=True)
        rec = recovery(work / "joint", planted, args.samples)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load1 = os.getloadavg()
    mb = 1024 ** 2
    rows_t = [{"step": name, "wall (s)": r["wall"], "CPU (s)": r["cpu"],
               "max RSS MB": int(r["maxrss"] / mb), "all processes PSS MB":
               int(r["tree_pss"] / mb)}
              for name, r in (("penlearn peaks", peaks), ("penlearn joint", joint))]
    rows_t.append({"step": "total", "wall (s)": peaks["wall"] + joint["wall"],
                   "CPU (s)": peaks["cpu"] + joint["cpu"],
                   "max RSS MB": int(max(peaks["maxrss"], joint["maxrss"]) / mb),
                   "all processes PSS MB": int(max(peaks["tree_pss"], joint["tree_pss"]) / mb)})
    rec_t = [{k: (round(v, 1) if isinstance(v, float) else v) for k, v in rec.items()}]
    cmd = "python benchmarks/joint_genome.py " + " ".join(argv if argv is not None
                                                           else sys.argv[1:])
    head = (f"`{cmd.strip()}` on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; "
            f"{platform.machine()}, {os.cpu_count()} CPUs shared with other sessions (load "
            f"average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end), Python "
            f"{platform.python_version()}. {args.samples} samples × {bases:,} bases "
            f"({rows:,} bedGraph rows, zero runs left out as `bedtools genomecov -bg` "
            f"does), {n_peaks} planted peaks, penalty {args.penalty:g} for both commands, "
            f"--jobs {args.jobs}.")
    lines = [SECTION, "", head, "", *results_file.markdown_table(rows_t), "",
             "Planted peaks recovered by `penlearn joint`:", "",
             *results_file.markdown_table(rec_t)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.results:
        results_file.write_section(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
