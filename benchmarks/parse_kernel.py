"""Benchmark: the numba parse kernels alone (bedGraph lines, CSV numbers), before / after.

Run: python benchmarks/parse_kernel.py [--rows 5e6] [--repeats 5] [--before main]
     [--results]

The synthetic coverage of ``genome_scale.py`` (one chromosome, ``--rows`` rows) is written
as a plain bedGraph and a CSV table with ``sample_id`` to a temporary folder, read into
memory once, and each kernel is called on the whole text (one block, columns large enough)
``--repeats`` times after a first (compiling) call, before and after alternated, into
columns allocated once: the median wall time of the warm calls is reported. "before" is
``penlearn/peaks/formats/_parse_kernel.py`` at git revision ``--before`` (loaded from ``git show``
into a temporary module), "after" the working tree's; both give the same columns
(checked). With ``--results`` the table goes to the ``## parse_kernel`` section of
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from genome_scale import synthetic_coverage  # noqa: E402

SECTION = "## parse_kernel"
RUN_CAPACITY = 4096


def load_kernel(rev: str, folder: Path):
    """``_parse_kernel`` as of git revision ``rev``, imported from a temporary file."""
    text = subprocess.run(["git", "show", f"{rev}:penlearn/peaks/formats/_parse_kernel.py"],
                          cwd=HERE.parent, check=True, capture_output=True).stdout
    path = folder / "_parse_kernel_before.py"
    path.write_bytes(text)
    spec = importlib.util.spec_from_file_location("_parse_kernel_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_bedgraph(kernel, buf: np.ndarray, n: int, cols: list[np.ndarray]) -> None:
    runs = [np.empty(RUN_CAPACITY, np.int64) for _ in range(3)]
    err = np.zeros(5, np.int64)
    out = kernel.parse_bedgraph(buf, 0, 0, *cols, 0, *runs, err)
    assert err[0] == 0 and out[2] == n, (err, out)


def run_csv(kernel, buf: np.ndarray, n: int, cols: list[np.ndarray]) -> None:
    header_end = int(np.flatnonzero(buf[:4096] == 10)[0]) + 1
    runs = [np.empty((2, RUN_CAPACITY), np.int64) for _ in range(3)]
    err = np.zeros(5, np.int64)
    out = kernel.parse_csv_numbers(buf, header_end, 1, ord(","), 5,
                                   np.array([2, 3, 4], np.int64), np.array([0, 1], np.int64),
                                   *cols, 0, *runs, err)
    assert err[0] == 0 and out[2] == n, (err, out)


def compare(run, before, after, buf: np.ndarray, n: int, repeats: int
            ) -> tuple[float, float]:
    """Median warm times of the two kernels, calls alternated (the columns allocated and
    written once, outside the timing); their columns checked equal."""
    cols = {k: [np.zeros(n + 1, np.int64) for _ in range(3)] for k in ("before", "after")}
    kernels = {"before": before, "after": after}
    for k in kernels:  # compile (or load from the cache)
        run(kernels[k], buf, n, cols[k])
    for a, b in zip(cols["before"], cols["after"]):
        assert np.array_equal(a, b)
    times: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(repeats):
        for k in kernels:
            t0 = time.perf_counter()
            run(kernels[k], buf, n, cols[k])
            times[k].append(time.perf_counter() - t0)
    return float(np.median(times["before"])), float(np.median(times["after"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=5e6)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--before", default="main", help="git revision of the 'before' kernel")
    ap.add_argument("--results", action="store_true", help="write benchmarks/RESULTS.md")
    args = ap.parse_args(argv)
    from penlearn.peaks.formats import _parse_kernel as after

    n = int(args.rows)
    tmp = Path(tempfile.mkdtemp(prefix="penlearn-kernel-"))
    rows = []
    try:
        before = load_kernel(args.before, tmp)
        cov = synthetic_coverage(n)
        bg, csv = tmp / "a.bedGraph", tmp / "a.csv"
        cov.to_csv(bg, sep="\t", header=False, index=False)
        cov.assign(sample_id="s1")[["sample_id", "chrom", "chromStart", "chromEnd",
                                    "count"]].to_csv(csv, index=False)
        for kind, path, run in [("bedGraph", bg, run_bedgraph), ("csv", csv, run_csv)]:
            buf = np.fromfile(path, np.uint8)
            t_before, t_after = compare(run, before, after, buf, n, args.repeats)
            rows.append([kind, f"{n:,}", f"{len(buf) / 2**20:,.0f}", f"{t_before:.3f}",
                         f"{t_after:.3f}", f"{t_before / t_after:.2f}",
                         f"{t_after / n * 1e9:.0f}"])
            print(" | ".join(rows[-1]), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = "\n".join([
        SECTION, "",
        f"`python benchmarks/parse_kernel.py {' '.join(sys.argv[1:])}` on "
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
        f"{os.cpu_count()} CPUs shared with other sessions (load average at the end "
        f"{os.getloadavg()[0]:.1f}), Python {platform.python_version()}. The kernel "
        f"alone on the whole text in memory (one call), median of {args.repeats} warm "
        f"calls; 'before' is the kernel at `{args.before}`, 'after' the working tree's "
        "(same columns, checked).", "",
        "| file | rows | MB | before (s) | after (s) | speed-up | after ns/row |",
        "|---|---|---|---|---|---|---|",
        *["| " + " | ".join(r) + " |" for r in rows]]) + "\n"
    print(text)
    if args.results:
        results_file.write_section(SECTION, text, results_file.RESULTS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
