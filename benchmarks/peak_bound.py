"""Benchmark: the default bound of the peak error functions (``DEFAULT_MAX_PEAKS``).

Run: python benchmarks/peak_bound.py [--results] [--deep 300]

On ``chipseq_raw/H3K36me3_TDH_other_chunk1`` (8 samples, 6 labels each), per sample:
the time of the default (bounded, exact) error functions, the bound's log λ, and — from
a much deeper exact path (``--deep`` peaks) — where the minimum-error intervals lie: the
sequence's (every interval with the minimum total errors) and each label's (the widest
run of intervals with that label's minimum error, as ``target_intervals`` picks). The
default bound must lie below all of them. The deeper path must also agree with the
default table on every row above the bound. On ``H3K4me3_XJ_immune_chunk1`` (27 samples,
no labels) the table says how many samples' default paths are complete (reach penalty
0) and how long they take.

With ``--results`` the table goes to the ``## peak_bound`` section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.changepoint.evaluation import _largest_min_run
from penlearn.datasets.locate import data_folder
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.coverage import read_coverage
from penlearn.peaks.formats.regions import PEAK_ANNOTATIONS, check_peak_labels
from penlearn.peaks.peakseg.evaluation import DEFAULT_MAX_PEAKS, window_error_functions
from penlearn.peaks.peakseg.labels import peak_label_counts
from penlearn.peaks.peakseg.solver import peakseg_path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

SECTION = "## peak_bound"
RAW = data_folder() / "chipseq_raw"


def label_errors(path, peaks, labels: pd.DataFrame) -> np.ndarray:
    """Errors of each label (columns) for each model of the path (rows, λ decreasing)."""
    lab = check_peak_labels(labels)
    codes = np.array([PEAK_ANNOTATIONS.index(a) for a in lab["annotation"]], np.int64)
    segs = path.segments
    out = []
    for k in peaks:
        pk = segs[(segs["peaks"] == k) & (segs["status"] == "peak")]
        tp, ptp, fp, _ = peak_label_counts(
            pk["chromStart"].to_numpy(np.int64), pk["chromEnd"].to_numpy(np.int64),
            lab["chromStart"].to_numpy(np.int64), lab["chromEnd"].to_numpy(np.int64), codes)
        out.append(fp + ptp - tp)
    return np.array(out)


def widest_run_low(err: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    """Lower end (log λ) of the widest run of minimum-error intervals (λ decreasing in)."""
    a, b = _largest_min_run(err[::-1], (hi - lo)[::-1])
    return float(lo[::-1][a])


def h3k36me3(deep: int) -> list[dict]:
    folder = RAW / "H3K36me3_TDH_other_chunk1"
    cov = read_coverage(folder / "coverage.csv.gz")
    labels = read_peak_labels(folder / "labels.csv")
    rows = []
    for sample, c in cov.groupby("sample_id", sort=False):
        c = c[["chrom", "chromStart", "chromEnd", "count"]]
        lab = labels[labels["sample_id"] == sample].drop(columns=["sample_id", "cell_type"],
                                                         errors="ignore")
        t0 = time.perf_counter()
        ev = window_error_functions(c, lab, sequence_id=sample)
        t_default = time.perf_counter() - t0
        bound = float(ev["min_log_lambda"].iloc[-1])
        t0 = time.perf_counter()
        path = peakseg_path(c, max_peaks=deep)
        t_deep = time.perf_counter() - t0
        m = path.models.sort_values("min_log_lambda", ascending=False, kind="stable")
        m = m.reset_index(drop=True)  # λ decreasing, as the evaluation table
        lo, hi = m["min_log_lambda"].to_numpy(), m["max_log_lambda"].to_numpy()
        per_label = label_errors(path, m["peaks"], lab)
        total = per_label.sum(axis=1)
        # agreement above the bound: same models, intervals and errors row for row
        above = m[m["max_log_lambda"] > bound]
        same = (above["peaks"].tolist() == ev["peaks"].tolist()
                and np.allclose(above["max_log_lambda"], ev["max_log_lambda"], rtol=1e-12)
                and total[: len(ev)].tolist() == ev["errors"].tolist())
        seq_low = float(lo[total == total.min()].min())
        label_low = min(widest_run_low(per_label[:, j], lo, hi)
                        for j in range(per_label.shape[1]))
        rows.append({
            "sample": sample, "rows": len(c), "default s": t_default,
            "models": len(ev), "bound log λ": bound,
            "min errors": int(total.min()),
            "lowest min-error log λ (seq)": seq_low,
            "lowest label target log λ": label_low,
            "inside": bool(seq_low > bound and label_low > bound),
            f"deep ({deep}) s": t_deep, "agrees above bound": bool(same),
        })
        print(rows[-1], flush=True)
    return rows


def xj() -> dict:
    cov = pd.read_csv(RAW / "H3K4me3_XJ_immune_chunk1" / "coverage.csv.gz")
    t0 = time.perf_counter()
    complete = 0
    n = 0
    for _, c in cov.groupby("sample_id", sort=False):
        path = peakseg_path(c[["chrom", "chromStart", "chromEnd", "count"]],
                            max_peaks=DEFAULT_MAX_PEAKS)
        complete += path.complete
        n += 1
    return {"samples": n, "complete": complete, "seconds": time.perf_counter() - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deep", type=int, default=300)
    ap.add_argument("--results", action="store_true")
    args = ap.parse_args()
    rows = h3k36me3(args.deep)
    x = xj()
    md = results_file.markdown_table(rows)
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    text = "\n".join([
        SECTION, "",
        f"`python benchmarks/peak_bound.py --deep {args.deep}` on {when}; "
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"load average at the end {load:.1f} (machine shared with other engineers). "
        f"Default bound: DEFAULT_MAX_PEAKS = {DEFAULT_MAX_PEAKS} peaks per (sample, window).",
        "",
        *md, "",
        f"H3K4me3_XJ_immune_chunk1 (no labels): {x['complete']} of {x['samples']} samples' "
        f"default paths are complete (reach penalty 0); all 27 paths in {x['seconds']:.1f} s.",
    ])
    print(text)
    if args.results:
        results_file.write_section(SECTION, text)


if __name__ == "__main__":
    main()
