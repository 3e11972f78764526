"""Rows of another ``model="auto"`` rule from rows already run (``all_sets.py --csv``).

``model="auto"`` refits the chosen class on every training sequence with the same options
and seed, so its test row is the row of that class's own learner (``linear_model``,
``boosting``; checked equal on every real ``auto`` row of the regions runs). The
``constant`` baseline row is the same as auto's constant refit on 107 of 112 held-out
(set, fold) pairs, not all: where the rule picks what the source row chose, the source
row itself is taken (exact); a constant picked otherwise takes the ``constant`` row (an
approximation). A rule applied to the CV statistics stored in an ``auto`` row's
``choice`` column therefore gives that rule's test row without refitting. ``--clip`` takes the
``linear_model_clip`` row where the rule picks the linear model: exactly
``learn_penalty(model="auto", clip=True)`` (``clip`` changes prediction only, not the CV
fits nor their held-out predictions). Rules: ``1se-auc``, ``1se`` (``one_se_choice``);
``boosting-1se``: boosting unless another candidate's mean CV errors plus its standard
error are below boosting's (it wins by one SE). Usage::

    python benchmarks/experiments/derive_rule.py rows.csv... --rule 1se-auc --as default \\
        --out out.csv
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout
from penlearn.learn.choice import one_se_choice  # noqa: E402

ROW_OF = {"constant": "constant", "linear": "linear_model", "boosting": "boosting"}


def boosting_unless(c: dict) -> str:
    """Boosting unless another candidate wins the CV errors by one (its own) SE."""
    e, se = c["errors"], c["se"]
    if "boosting" not in e:
        return min(e, key=e.get)
    win = [k for k in e if k != "boosting" and e[k] + se[k] < e["boosting"] - 1e-12]
    return min(win, key=e.get) if win else "boosting"


def derive(rows: pd.DataFrame, rule: str, name: str, source: str = "auto",
           clip: bool = False) -> pd.DataFrame:
    """One row named ``name`` per ``source`` row: the candidate ``rule`` picks."""
    out = []
    for _, a in rows[rows["method"] == source].iterrows():
        c = json.loads(a["choice"])
        if rule == "boosting-1se":
            pick = boosting_unless(c)
        else:
            folds = pd.DataFrame(c["fold_errors"])
            aucs = pd.DataFrame({k: [v] * len(folds) for k, v in c["auc"].items()})
            pick, _ = one_se_choice(folds, aucs if rule == "1se-auc" else None)
        row_of = ROW_OF[pick] + ("_clip" if clip and pick == "linear" else "")
        same = rows[(rows["folds"] == a["folds"]) & (rows["data"] == a["data"])
                    & (rows["fold"] == a["fold"]) & (rows["method"] == row_of)]
        if json.loads(a["choice"])["chosen"] == pick and row_of == ROW_OF[pick]:
            same = pd.DataFrame([a])  # the source's own refit: exact
        elif same.empty:  # that row was not run: no derived row
            continue
        r = same.iloc[0].copy()
        r["method"], r["seconds"] = name, a["seconds"]
        r["choice"] = json.dumps({**c, "chosen": pick, "rule": rule})
        out.append(r)
    return pd.DataFrame(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", type=Path)
    ap.add_argument("--rule", choices=("1se-auc", "1se", "boosting-1se"), default="1se-auc")
    ap.add_argument("--clip", action="store_true", help="the linear model's clipped rows")
    ap.add_argument("--source", default="auto")
    ap.add_argument("--as", dest="name", default="default")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    rows = pd.concat([pd.read_csv(p) for p in args.csv], ignore_index=True)
    pd.concat([rows, derive(rows, args.rule, args.name, args.source, args.clip)],
              ignore_index=True).to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
