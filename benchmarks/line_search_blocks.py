"""First-min line search on non-monotone error functions: work per step as B grows.

Issue 14, goal 4. Subsets of growing size of a data set (default: ``systematic``, the
neuroblastoma error functions, non-monotone for some sequences) give B breakpoints; from
a zero start, a few gradient-descent steps with the first-min step are taken, and each
step's line search runs with the event-by-event engine (``method="sequential"``) and the
bracket engine (``method="blocks"``), and the step of ``choose_step("first_min")``, which
runs :func:`penlearn.line_search.critical.first_min_critical` (brackets that skip the
slope-neutral blocks of lines; the blocks engine when it cannot decide). Printed per B:
events per step up to the first minimum (what the event engines walk), brackets (one sort
of B lines each), the events the critical search enumerates and its brackets, seconds
per step of the three, the fraction of steps the critical search left to the blocks
engine, and the log-log growth with B of events and of the critical search's work.

Usage::

    python benchmarks/line_search_blocks.py [--data systematic] [--steps 4] [--results]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.aum import aum
from penlearn.breakpoints import breakpoints_from_errors, examples_with_negative_errors
from penlearn.datasets import load_uci
from penlearn.datasets.locate import data_folder
from penlearn.line_search import breakpoint_lines, choose_step, line_search_lines
from penlearn.line_search.critical import first_min_critical
from penlearn.line_search.kernel import lines_state

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

SECTION = "## line_search_blocks"

DEFAULT_DATA = data_folder()


def steps_of(ds, n_seq: int, n_steps: int, rng):
    """Lines of the first ``n_steps`` first-min descent steps on ``n_seq`` sequences."""
    ids = list(rng.permutation(ds.inputs.index))[:n_seq]
    ev = ds.evaluation[ds.evaluation["sequence_id"].isin(ids)]
    bp = breakpoints_from_errors(ev, sequence_ids=ids)
    bad = examples_with_negative_errors(bp)
    if len(bad):
        keep = ~np.isin(bp.example, bad)
        bp = type(bp)(bp.example[keep], bp.value[keep], bp.fp_diff[keep], bp.fn_diff[keep],
                      bp.n_examples, bp.example_ids)
    bp = bp.normalize("rate")
    X = ds.inputs.loc[ids].to_numpy(float)
    X = X[:, np.all(np.isfinite(X), axis=0)]
    sd = X.std(0)
    X = (X[:, sd > 0] - X[:, sd > 0].mean(0)) / sd[sd > 0]
    w = np.zeros(X.shape[1])
    out = []
    for _ in range(n_steps):
        scores = X @ w
        d = -(X.T @ aum(bp, scores).derivatives.mean(axis=1))
        lines = breakpoint_lines(bp, scores, X @ d)
        out.append(lines)
        s, _ = choose_step("first_min", bp, scores, X @ d)
        if s == 0:
            break
        w = w + s * d
    return len(bp), int(np.sum((bp.fp_diff < 0) | (bp.fn_diff > 0))), out


def run(data_dir: Path, name: str, sizes, n_steps: int, seed: int = 1) -> pd.DataFrame:
    ds = load_uci(data_dir / name)
    rng = np.random.default_rng(seed)
    rows = []
    for n_seq in sizes:
        if n_seq > len(ds.inputs):
            continue
        B, nonmono, steps = steps_of(ds, n_seq, n_steps, rng)
        for k, lines in enumerate(steps):
            t = time.perf_counter()
            seq = line_search_lines(*lines, stop="first_min", method="sequential")
            t_seq = time.perf_counter() - t
            t = time.perf_counter()
            blk = line_search_lines(*lines, stop="first_min", method="blocks")
            t_blk = time.perf_counter() - t
            assert blk.step_size == seq.step_size or \
                abs(blk.step_size - seq.step_size) <= 1e-12 * abs(seq.step_size)
            t = time.perf_counter()
            crit = first_min_critical(lines_state(*(np.asarray(x, float) for x in lines)))
            t_crit = time.perf_counter() - t
            if crit is not None:
                assert abs(crit[0] - seq.step_size) <= 1e-12 * abs(seq.step_size)
            rows.append(dict(data=name, sequences=n_seq, B=B, non_monotone=nonmono, step=k,
                             events=blk.events, brackets=blk.n_sorts,
                             critical_events=np.nan if crit is None else crit[1],
                             critical_brackets=np.nan if crit is None else crit[2],
                             critical_fallback=crit is None,
                             sequential_s=t_seq, blocks_s=t_blk, critical_s=t_crit))
            print(f"  n={n_seq} B={B} step {k}: events {blk.events} brackets {blk.n_sorts} "
                  f"seq {t_seq:.4f}s blocks {t_blk:.4f}s critical "
                  f"{'-' if crit is None else crit[1]} events {t_crit:.4f}s",
                  file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> tuple[str, float]:
    g = df.groupby(["data", "sequences", "B", "non_monotone"], sort=False).agg(
        steps=("step", "count"), events_per_step=("events", "mean"),
        brackets_per_step=("brackets", "mean"),
        critical_events=("critical_events", "mean"),
        critical_brackets=("critical_brackets", "mean"),
        critical_fallbacks=("critical_fallback", "mean"),
        sequential_s=("sequential_s", "mean"),
        blocks_s=("blocks_s", "mean"), critical_s=("critical_s", "mean")).reset_index()
    g["events_per_B"] = g["events_per_step"] / g["B"]
    g["speedup"] = g["sequential_s"] / g["blocks_s"]
    g["critical_speedup"] = g["sequential_s"] / g["critical_s"]

    def growth(col):
        ok = g[col] > 0
        return float(np.polyfit(np.log(g["B"][ok]), np.log(g[col][ok]), 1)[0]) \
            if ok.sum() > 1 else float("nan")

    slope = (growth("events_per_step"), growth("critical_events"), growth("critical_s"),
             growth("blocks_s"), growth("sequential_s"))
    cols = list(g.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in g.itertuples(index=False):
        lines.append("| " + " | ".join(
            f"{v:.4f}" if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(lines), slope


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--data", default="systematic")
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400, 800, 3000])
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--results", action="store_true")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", UserWarning)
    t0 = time.perf_counter()
    df = run(args.data_dir, args.data, args.sizes, args.steps)
    md, slope = summary(df)
    note = (f"Events per first-min step grow as B^{slope[0]:.2f} (log-log fit over the "
            "sizes; the quadratic worst case would be B^2); the events the critical search "
            f"enumerates as B^{slope[1]:.2f}; seconds per step as B^{slope[2]:.2f} (critical), "
            f"B^{slope[3]:.2f} (blocks), B^{slope[4]:.2f} (sequential).")
    print(md)
    print(note)
    if args.results:
        cmd = "python benchmarks/line_search_blocks.py " + " ".join(argv or sys.argv[1:])
        results_file.write_section(SECTION, "\n".join([
            SECTION, "",
            f"- Command: `{cmd.strip()}` (total {time.perf_counter() - t0:.0f} s, shared "
            "machine: seconds are under load). Zero start, first-min descent steps on random "
            "subsets of the sequences, AUM rate; `brackets` = sorts of B lines per step; "
            "`critical_*`: `choose_step(\"first_min\")`'s search (line_search/critical.py), "
            "mean over the steps it decided; `critical_fallbacks`: share of steps it left to "
            "the blocks engine.",
            "", md, "", f"- {note}", ""]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
