"""Before/after timing of the public API across two checkouts of penlearn, side by side.

Runs the same workloads (AUM, ROC-change, the exact line search sequential and by
bracketing, the grid search, gradient descent, a segmentation, binary fits) with two
source trees, alternating between them so that both see the same machine load, and prints
the median seconds and their ratio::

    python benchmarks/versions.py BEFORE_DIR AFTER_DIR [--repeats 5] [--results]

Each tree is imported in a fresh subprocess (``PYTHONPATH=<tree>``); only names that
exist in both (the public ``penlearn`` namespace) are used. With ``--results`` the table
is written to the ``## versions`` section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

from penlearn.datasets.locate import data_folder  # noqa: E402

DATA = data_folder()

WORKLOAD = r'''
import json, sys, time, warnings
import numpy as np, pandas as pd
import penlearn as pl
warnings.simplefilter("ignore")
name, data, tree = sys.argv[1], sys.argv[2], sys.argv[3]
assert pl.__file__.startswith(tree), (pl.__file__, tree)  # the tree under test is imported
rng = np.random.default_rng(0)
def timed(f, k=5):
    best = float("inf")
    for _ in range(k):  # best of k inside one process, CPU seconds (shared machine)
        t = time.process_time(); f(); best = min(best, time.process_time() - t)
    return best
if name == "aum 1e6 binary":
    bp = pl.breakpoints_from_labels(rng.integers(0, 2, 10**6)); s = rng.normal(size=10**6)
    out = timed(lambda: pl.aum(bp, s))
elif name in ("roc_change H3K4me3", "learn_penalty H3K4me3 fold 1", "line_search H3K4me3"):
    ds = pl.load_uci(data + "/H3K4me3_TDH_immune")
    ev = ds.evaluation
    if name == "roc_change H3K4me3":
        pred = pd.Series(rng.normal(size=len(ds.sequence_ids)), index=ds.sequence_ids)
        out = timed(lambda: [pl.roc_change(ev, pred) for _ in range(5)])
    elif name == "line_search H3K4me3":
        bp = pl.breakpoints_from_errors(ev)
        s = rng.normal(size=bp.n_examples); d = rng.normal(size=bp.n_examples)
        out = timed(lambda: [pl.line_search(bp, s, d, stop="first_min") for _ in range(20)])
    else:
        sp = pl.subtrain_validation_split(ds.folds["equal_labels"], 1)
        f = ds.inputs
        sub, val = sp["subtrain"], sp["validation"]
        part = lambda ids: (f.loc[ids], ev[ev.sequence_id.isin(ids)])
        out = timed(lambda: pl.learn_penalty(*part(sub), validation=part(val), progress=False,
                                             random_state=1, scale_features=f))
elif name == "first_min_monotone n=1e5":
    z = np.load(data + "/../reference/aum/timing_inputs_n100000.npz")
    lines = [z[f"lsi_w_{k}"] for k in ("intercept", "slope", "fp_diff", "fn_diff")]
    out = timed(lambda: pl.first_min_monotone(*lines))
elif name == "grid_search H3K4me3":
    ds = pl.load_uci(data + "/H3K4me3_TDH_immune")
    bp = pl.breakpoints_from_errors(ds.evaluation)
    s = rng.normal(size=bp.n_examples); d = rng.normal(size=bp.n_examples)
    out = timed(lambda: [pl.grid_search(bp, s, d) for _ in range(20)])
elif name == "segment n=5000 K=20":
    x = np.repeat(rng.normal(size=20) * 3, 250) + rng.normal(size=5000)
    out = timed(lambda: pl.segment(x, 20))
elif name == "fit_aum_linear n=2000":
    X = rng.normal(size=(2000, 10)); y = (X[:, 0] + rng.normal(size=2000) > 0).astype(int)
    out = timed(lambda: pl.fit_aum_linear(X, y, random_state=0, progress=False))
elif name == "fit_logistic n=2000":
    X = rng.normal(size=(2000, 10)); y = (X[:, 0] + rng.normal(size=2000) > 0).astype(int)
    out = timed(lambda: pl.fit_logistic(X, y))
print(json.dumps(out))
'''

NAMES = ["aum 1e6 binary", "roc_change H3K4me3", "line_search H3K4me3",
         "first_min_monotone n=1e5", "grid_search H3K4me3", "learn_penalty H3K4me3 fold 1",
         "segment n=5000 K=20", "fit_aum_linear n=2000",
         "fit_logistic n=2000"]


def run(tree: Path, name: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    # -P: the current folder must not shadow the tree under test
    proc = subprocess.run([sys.executable, "-P", "-c", WORKLOAD, name, str(DATA), str(tree)],
                          env=env, capture_output=True, text=True, check=True)
    return float(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--results", action="store_true")
    args = ap.parse_args()
    t0 = time.time()
    rows = []
    for name in NAMES:
        b, a = [], []
        for _ in range(args.repeats):  # alternate: both trees see the same load
            b.append(run(args.before, name))
            a.append(run(args.after, name))
        mb, ma = statistics.median(b), statistics.median(a)
        rows.append((name, mb, ma, ma / mb))
        print(f"{name:32s} before {mb:8.4f} s  after {ma:8.4f} s  after/before {ma / mb:5.2f}",
              flush=True)
    table = ["| workload | before (s) | after (s) | after / before |", "|---|---|---|---|"]
    table += [f"| {n} | {b:.4f} | {a:.4f} | {r:.2f} |" for n, b, a, r in rows]
    load = os.getloadavg()[0]
    text = "\n".join([
        "## versions",
        "",
        f"`python benchmarks/versions.py {args.before} {args.after} --repeats {args.repeats}` "
        f"on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average at the end "
        f"{load:.1f}. Median of {args.repeats} runs per tree, the two trees alternating "
        f"(total {time.time() - t0:.0f} s). Each run is a fresh process timing the best of 5 "
        "calls (import excluded).",
        "",
        *table,
    ])
    print(text)
    if args.results:
        results_file.write_section("## versions", text)


if __name__ == "__main__":
    main()
