"""The labeling page's round trip on the server side: save a label, re-learn (quick refit),
build the redraw's JSON, for 8 samples in a 1 Mb window (issue 45's goal: <= 1 s).

The coverage: ``chipseq_raw/deltarod_PeakSegDisk`` (one sample, 3.4 Mb of chr1), its window
chr1:14,000,000-15,000,000 taken 8 times (8 samples of 31,776 rows each). Each window's
paths are computed first (once per window, in the page's background); then ten labels,
alternately noPeaks and peaks over every sample, each timed (wall and CPU of this process;
the background learner is waited for between labels, so it does not share the CPU with the
timed part). ``--browser`` also runs the page in headless Chromium (the slow tests of
``tests/label/test_label_browser.py``: chunk1's ten windows labeled with the mouse and
keys, and 8 samples × 1 Mb) and prints what the page measured (key press to peaks
redrawn, first page load).

    python benchmarks/label_round_trip.py [--max-peaks 20] [--browser]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from penlearn.datasets.locate import data_folder
from penlearn.label.state import LabelState
from penlearn.peaks.formats.coverage import read_coverage

DATA = data_folder() / "chipseq_raw"


def eight_samples() -> pd.DataFrame:
    """deltarod_PeakSegDisk's chr1:14,000,000-15,000,000 as 8 samples (``s0``..``s7``)."""
    cov = read_coverage(DATA / "deltarod_PeakSegDisk/coverage.bedGraph.gz")
    a, b = 14_000_000, 15_000_000
    one = cov[(cov["chromEnd"] > a) & (cov["chromStart"] < b)].copy()
    one["chromStart"] = one["chromStart"].clip(lower=a)
    one["chromEnd"] = one["chromEnd"].clip(upper=b)
    return pd.concat([one.assign(sample_id=f"s{k}") for k in range(8)], ignore_index=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-peaks", type=int, default=20)
    ap.add_argument("--labels", type=int, default=10)
    ap.add_argument("--browser", action="store_true",
                    help="also measure in headless Chromium (the browser tests)")
    args = ap.parse_args(argv)
    eight = eight_samples()
    one = eight[eight["sample_id"] == "s0"]
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), time.process_time()
        st = LabelState(eight, Path(tmp) / "labels.csv", window_bases=1_000_000,
                        max_peaks=args.max_peaks)
        w = st.windows
        i = int((w["chromEnd"] - w["chromStart"]).idxmax())  # the window (gaps cut others)
        a, width = int(w["chromStart"].iat[i]), int(w["chromEnd"].iat[i] - w["chromStart"].iat[i])
        for s in st.samples:
            st.path(s, i)
        setup = (time.perf_counter() - t0, time.process_time() - c0)
        walls, cpus = [], []
        for k in range(args.labels):
            lo = a + width * k // (args.labels + 1)
            ann = "noPeaks" if k % 2 else "peaks"
            t0, c0 = time.perf_counter(), time.process_time()
            st.add_label("chr1", lo, lo + width // (3 * args.labels), ann, st.samples)
            json.dumps(st.view(i, coverage=False))
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            st.wait_learning()
        st.close()
    print(f"8 samples x {len(one)} rows, window of {width:,} bases, paths to "
          f"{args.max_peaks} peaks: "
          f"setup {setup[0]:.1f} s wall, {setup[1]:.1f} s CPU")
    print("| labels | round trip median (s, wall) | max (wall) | median (CPU s) | max (CPU s) |")
    print("|---|---|---|---|---|")
    print(f"| {len(walls)} | {statistics.median(walls):.3f} | {max(walls):.3f} | "
          f"{statistics.median(cpus):.3f} | {max(cpus):.3f} |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if args.browser:
        return _browser()
    return 0


def _browser() -> int:
    """The browser tests' own figures (they print them)."""
    root = Path(__file__).resolve().parents[1]
    t0, c0 = time.perf_counter(), os.times()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-s", "-q", "-m", "slow", "-p", "no:cacheprovider",
         "tests/label/test_label_browser.py", "-k", "eight or goal"],
        cwd=root, capture_output=True, text=True)
    c1 = os.times()
    keep = ("round trip", "first page load", "labels made", "passed", "failed")
    for line in run.stdout.splitlines():
        if any(k in line for k in keep):
            print(line.strip())
    print(f"browser tests: {time.perf_counter() - t0:.0f} s wall, "
          f"{c1.children_user + c1.children_system - c0.children_user - c0.children_system:.0f}"
          f" s CPU of pytest (Chromium's own not counted); load average at the end "
          f"{os.getloadavg()[0]:.1f}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
