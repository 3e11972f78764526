"""Issue 52 item 1, the simulation's turf: how far is the shipped zero-label penalty from
the level the simulated reads want, at each depth?

On the suite of ``benchmarks/sensitivity.py`` (default size, one density, paired-end,
with the control; BAM files cached as that script caches them), ``penlearn callpeak`` at
the shipped model's log λ (its median over the windows) plus δ, for each δ: narrow
peaks found, by fold, false calls per 10 Mb, broad domains found as one call.

    python benchmarks/penalty_shift.py [--density default] [--deltas 0,-1,-2,-3] [--qvalue Q]

``--qvalue Q``: callpeak's ``-q Q`` too (the calibrated q-value as a filter of the
lowered penalty's peaks).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import sensitivity as S  # noqa: E402

from penlearn.peaks.formats.reads import fragment_coverage, read_reads  # noqa: E402
from penlearn.peaks.pretrained import default_log_lambda  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--density", default="default", choices=list(S.DENSITIES))
    ap.add_argument("--deltas", default="0,-1,-2,-3")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--qvalue", default=None, help="also pass callpeak -q QVALUE")
    ap.add_argument("--control", default="with", choices=["with", "without"])
    args = ap.parse_args(argv)
    cache = S.cache_dir(args.cache)
    genome = int(sum(S.SIZES["default"].values()))
    print("| depth | shipped log λ | δ | narrow found | 5-10 | 10-20 | false /10 Mb | "
          "broad as one | calls |")
    print("|---|---|---|---|---|---|---|---|---|")
    for depth in S.DEPTHS:
        t, c, truth = S.sample_files(cache, "default", args.density, depth, "PE", 52)
        _, ll = default_log_lambda(fragment_coverage(read_reads(t, "BAMPE"), None))
        base = float(np.median(ll))
        for d in (float(x) for x in args.deltas.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                extra = ["--log-penalty", f"{base + d:.3f}"]
                if args.qvalue is not None:
                    extra += ["-q", args.qvalue]
                argv = S.commands("penlearn", None, t, c if args.control == "with" else None,
                                  "BAMPE", genome, False, extra)
                subprocess.run(argv + ["-n", "x", "--outdir", tmp], check=True,
                               capture_output=True)
                r = S.score(S.read_calls(Path(tmp)), truth, genome)
            print(f"| {depth} | {base:.2f} | {d:+g} | {r['narrow found']} | {r['5-10']} | "
                  f"{r['10-20']} | {r['false /10 Mb']} | {r['broad as one']} | "
                  f"{r['calls']} |", flush=True)


if __name__ == "__main__":
    main()
