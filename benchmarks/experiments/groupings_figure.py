"""The all_sets figure with one row of panels per grouping of test folds (issue 32).

``all_sets.py`` draws one row per fold scheme; two region groupings (other K or fold seed)
share the scheme ``regions``, so this labels each rows file by its grouping. Usage::

    python benchmarks/experiments/groupings_figure.py --out docs/img/all_sets_issue32.png \\
        --rows "given (tuned)=given.csv" "regions K=4 seed 1=r41.csv" ... \\
        --methods constant linear_model boosting default
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/
import all_sets  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", required=True, metavar="LABEL=CSV")
    ap.add_argument("--methods", nargs="+", default=None)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    parts = []
    for item in args.rows:
        label, _, path = item.rpartition("=")
        if not path:
            ap.error(f"--rows {item!r}: expected LABEL=CSV")
        d = pd.read_csv(path).assign(folds=label)
        parts.append(d if args.methods is None else d[d["method"].isin(args.methods)])
    all_sets.FOLD_SCHEMES = [item.rpartition("=")[0] for item in args.rows]
    all_sets.figure(pd.concat(parts, ignore_index=True), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
