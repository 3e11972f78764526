"""How the shipped zero-label model should enter learning with few labels (issue 36).

For each (set, test fold) of ``all_sets.py``'s groupings, the test predictions of:

- ``default``: ``learn_penalty()`` on the training sequences (as all_sets.py's ``default``);
- ``prior_shift``: the zero-label model learned without the set (``loso_prior``), its
  level the shift of fewest training label errors (the ``"prior"`` candidate);
- ``offset_<model>``: the prior as an **offset** — each training sequence's error
  function moved by the prior's log λ on it, ``learn_penalty(model=...)`` learns a
  correction f(x), the prediction is prior(x) + f(x): the constant candidate becomes the
  shifted prior, interval regression's L1 pulls the linear weights toward the prior's,
  boosting's stage 0 is the shifted prior (``offset_auto``: the default's CV choice);
- ``constant``: the best constant of the training labels.

Groupings: all_sets.py's own folds (``given``), region folds K = 4 seed 1 and K = 3
seed 2, and ``one_region`` (the first labeled region in sorted order as training, the
set's other regions as test, as ``benchmarks/pretrained.py --only-few``). Predictions
(long format) go to ``--out`` (a rerun skips the folds already there); ``--score`` adds
the rules ``shipped`` (:func:`with_rules`: what ``learn_penalty(prior=...)`` does) and
``blend`` and prints the tables.

    nice -n 10 python benchmarks/experiments/few_labels_offset.py --data-dir ../shared/data \
        --sets H3K36me3_TDH_other ... --out preds.csv
    python benchmarks/experiments/few_labels_offset.py --score preds.csv [more.csv ...]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _sets import fold_table, load_set  # noqa: E402
from all_sets import loso_prior, test_folds, test_metrics  # noqa: E402

SMALL = ["H3K27ac_TDH_some", "H3K27me3_TDH_some", "H3K36me3_TDH_ENCODE",
         "H3K36me3_TDH_immune", "H3K36me3_TDH_other", "H3K4me3_TDH_ENCODE",
         "H3K4me3_TDH_other"]
GROUPINGS = {"given": ("given", 4, 1), "regions4s1": ("regions", 4, 1),
             "regions3s2": ("regions", 3, 2),
             # one labeled region (the first chr:start-end in sorted order), the others test
             "one_region": ("one_region", 1, 1)}


def split(data_dir: str, name: str, grouping: str, fold) -> tuple[list, list]:
    """(training, test) sequence ids of one test fold of ``grouping``."""
    from penlearn.learn import subtrain_validation_split
    from penlearn.learn.groups import sequence_region

    scheme, k, fseed = GROUPINGS[grouping]
    if scheme == "one_region":
        ids = list(load_set(data_dir, name)[0].index)
        first = min(sequence_region(i) for i in ids)
        return (sorted(i for i in ids if sequence_region(i) == first),
                sorted(i for i in ids if sequence_region(i) != first))
    sp = subtrain_validation_split(fold_table(data_dir, name, scheme, k, fseed), fold)
    return sorted(sp["subtrain"] + sp["validation"]), sorted(sp["test"])


def shifted(ev: pd.DataFrame, offset: pd.Series) -> pd.DataFrame:
    """The error functions of log λ − offset (each sequence's moved by its offset)."""
    out = ev.copy()
    off = out["sequence_id"].map(offset).to_numpy(float)
    out["min_log_lambda"] = out["min_log_lambda"] - off
    out["max_log_lambda"] = out["max_log_lambda"] - off
    return out


def run_fold(data_dir, name, grouping, fold, seed=1, models=("auto", "linear", "boosting")):
    from penlearn._checks import check_evaluation
    from penlearn.learn import learn_penalty
    from penlearn.roc import ChangepointROC, best_constant_log_lambda, min_error_shift

    warnings.simplefilter("ignore")
    X, ev, _, _, _ = load_set(data_dir, name)
    tr, te = split(data_dir, name, grouping, fold)
    etr = ev[ev["sequence_id"].isin(tr)]
    prior = loso_prior(data_dir, name)
    p_tr = pd.Series(prior.predict(X.loc[tr]), index=tr)
    p_te = pd.Series(prior.predict(X.loc[te]), index=te)
    preds, secs = {}, {}
    t0 = time.process_time()
    m = learn_penalty(X.loc[tr], etr, progress=False, random_state=seed)
    preds["default"], secs["default"] = m.predict(X.loc[te]), time.process_time() - t0
    chosen = (getattr(m, "choice_", None) or {}).get("chosen", "")
    s = min_error_shift(ChangepointROC(check_evaluation(etr), tr).bp, -p_tr.to_numpy())
    preds["prior_shift"] = p_te.to_numpy() - s
    preds["constant"] = np.full(len(te), best_constant_log_lambda(etr))
    e_off = shifted(etr, p_tr)
    for model in models:
        t0 = time.process_time()
        mo = learn_penalty(X.loc[tr], e_off, progress=False, random_state=seed, model=model)
        preds[f"offset_{model}"] = p_te.to_numpy() + mo.predict(X.loc[te])
        secs[f"offset_{model}"] = time.process_time() - t0
        if model == "auto":
            chosen += "/" + (getattr(mo, "choice_", None) or {}).get("chosen", "")
    rows = [pd.DataFrame({"data": name, "grouping": grouping, "fold": fold, "n_train": len(tr),
                          "regions_train": len({i.rsplit("/", 1)[-1] for i in tr}),
                          "method": meth, "sequence_id": te, "pred": p,
                          "cpu_s": secs.get(meth, 0.0), "chosen": chosen})
            for meth, p in preds.items()]
    return pd.concat(rows, ignore_index=True)


def score(preds: pd.DataFrame, data_dir: str) -> pd.DataFrame:
    """Test label errors % per (set, grouping, fold, method)."""
    out = []
    for (name, g, fold, meth), d in preds.groupby(["data", "grouping", "fold", "method"]):
        _, ev, _, _, _ = load_set(data_dir, name)
        et = ev[ev["sequence_id"].isin(d["sequence_id"])]
        r = test_metrics(et, pd.Series(d["pred"].to_numpy(float), index=d["sequence_id"]))
        out.append({"data": name, "grouping": g, "fold": fold, "method": meth,
                    "n_train": d["n_train"].iloc[0], "regions_train": d["regions_train"].iloc[0],
                    "errors": r["test_errors_pct"], "auc": r["test_auc"]})
    return pd.DataFrame(out)


def with_rules(preds: pd.DataFrame) -> pd.DataFrame:
    """``preds`` and two rules derived from its columns: ``shipped`` — the default, with
    the shifted prior where the default chose the constant (what ``learn_penalty(prior=
    ...)`` does with at most 100 labeled sequences: the learned candidates' choice is
    the default's, the refit is the prior shifted to all training labels);
    ``blend`` — the mean of the default's and the shifted prior's log λ."""
    key = ["data", "grouping", "fold", "sequence_id"]
    w = preds.pivot_table(index=key, columns="method", values="pred")
    first = preds.drop_duplicates(key).set_index(key)
    const = first["chosen"].reindex(w.index).astype(str).str.split("/").str[0] == "constant"
    extra = {"shipped": np.where(const, w["prior_shift"], w["default"]),
             "blend": (w["default"] + w["prior_shift"]) / 2.0}
    out = [preds]
    for name, pred in extra.items():
        d = first.loc[w.index].reset_index()
        out.append(d.assign(method=name, pred=np.asarray(pred), cpu_s=0.0))
    return pd.concat(out, ignore_index=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[3] / "shared"
                                              / "data"))
    ap.add_argument("--sets", nargs="+", default=SMALL)
    ap.add_argument("--groupings", nargs="+", default=list(GROUPINGS), choices=list(GROUPINGS))
    ap.add_argument("--models", nargs="*", default=["auto", "linear", "boosting"],
                    help="offset_<model> columns (none: only default, prior_shift, constant)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--score", nargs="+", default=None, help="predictions CSVs to score")
    args = ap.parse_args(argv)
    if args.score:
        preds = pd.concat([pd.read_csv(f) for f in args.score], ignore_index=True)
        preds = preds.drop_duplicates(["data", "grouping", "fold", "method", "sequence_id"])
        s = score(with_rules(preds), args.data_dir)
        t = s.pivot_table(index=["data", "grouping"], columns="method", values="errors")
        cols = [c for c in ["default", "shipped", "prior_shift", "blend", "offset_auto",
                            "constant"] if c in t]
        pd.set_option("display.width", 200)
        print(t[cols].round(2).to_string())
        small = t[t.index.get_level_values(0).isin(SMALL)]
        print("\nsets of <= 100 sequences, mean over sets per grouping:")
        print(small[cols].groupby(level=1).mean().round(2).to_string())
        print("\nevery set, mean over sets per grouping:")
        print(t[cols].groupby(level=1).mean().round(2).to_string())
        return 0
    parts = [pd.read_csv(args.out)] if args.out and Path(args.out).is_file() else []
    done = set() if not parts else set(map(tuple, parts[0][["data", "grouping", "fold"]]
                                           .drop_duplicates().to_numpy().tolist()))
    for name in args.sets:
        for g in args.groupings:
            scheme, k, fseed = GROUPINGS[g]
            for fold in ([1] if scheme == "one_region" else
                         test_folds(args.data_dir, name, scheme, k, fseed)):
                if (name, g, fold) in done:  # resumed: already in --out
                    continue
                t0 = time.perf_counter()
                parts.append(run_fold(args.data_dir, name, g, fold, models=args.models))
                d = parts[-1]
                print(f"{name} {g} {fold}: {time.perf_counter() - t0:.1f} s wall, "
                      f"{d.groupby('method')['cpu_s'].first().sum():.1f} s CPU; chosen "
                      f"{d['chosen'].iloc[0]}", file=sys.stderr, flush=True)
                if args.out:
                    pd.concat(parts, ignore_index=True).to_csv(args.out, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
