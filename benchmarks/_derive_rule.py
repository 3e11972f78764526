"""Rows of another ``model="auto"`` rule from rows already run (``all_sets.py --csv``).

``model="auto"`` refits the chosen class on every training sequence with the same options
and seed, so its test row is the row of that class's own learner (``constant``,
``linear_model``, ``boosting``; checked equal on every real ``auto`` row of the regions
runs). A rule applied to the CV statistics stored in an ``auto`` row's ``choice`` column
therefore gives that rule's test row exactly, without refitting. Usage::

    python benchmarks/_derive_rule.py rows.csv... --rule 1se-auc --as default --out out.csv
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from penlearn.learn.choice import one_se_choice  # noqa: E402

ROW_OF = {"constant": "constant", "linear": "linear_model", "boosting": "boosting"}


def derive(rows: pd.DataFrame, rule: str, name: str, source: str = "auto") -> pd.DataFrame:
    """One row named ``name`` per ``source`` row: the candidate ``rule`` picks."""
    out = []
    for _, a in rows[rows["method"] == source].iterrows():
        c = json.loads(a["choice"])
        folds = pd.DataFrame(c["fold_errors"])
        aucs = pd.DataFrame({k: [v] * len(folds) for k, v in c["auc"].items()})
        pick, _ = one_se_choice(folds, aucs if rule == "1se-auc" else None)
        same = rows[(rows["folds"] == a["folds"]) & (rows["data"] == a["data"])
                    & (rows["fold"] == a["fold"]) & (rows["method"] == ROW_OF[pick])]
        r = same.iloc[0].copy()
        r["method"], r["seconds"] = name, a["seconds"]
        r["choice"] = json.dumps({**c, "chosen": pick, "rule": rule})
        out.append(r)
    return pd.DataFrame(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", type=Path)
    ap.add_argument("--rule", choices=("1se-auc", "1se"), default="1se-auc")
    ap.add_argument("--source", default="auto")
    ap.add_argument("--as", dest="name", default="default")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    rows = pd.concat([pd.read_csv(p) for p in args.csv], ignore_index=True)
    pd.concat([rows, derive(rows, args.rule, args.name, args.source)],
              ignore_index=True).to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
