"""The zero-label penalty model, leave one set out over the 17 UCI ChIP-seq sets.

For each held-out set (nothing of it used for training), test label errors (% of all
its labels) of:

- ``bic``: the BIC-like unsupervised baseline, log λ = log log (coverage rows) (the
  ``log.log.data`` feature; all_sets.py's "unsupervised");
- ``pooled_constant``: the best constant log λ of the other 16 sets' labels pooled;
- ``default``: the shipped learner (:mod:`penlearn.peaks.pretrained.fit`) fit on the
  other 16 sets, features clipped to their training range, as ``penlearn pretrain
  --exclude SET`` writes it, at the level of all those sets (``--broad``);
- ``by_mark``: the same at the level the set's user picks by saying narrow or broad
  (issue 46 item 5): a narrow-mark set at the narrow level of the other narrow sets, a
  broad one as ``default``; ``no_flag``: every set at the narrow level (a broad mark run
  without ``--broad``);
- ``in_set``: for reference, the in-set default (``learn_penalty()``, own folds) of
  RESULTS "all_sets, issue 32" (not recomputed: an auto fit per fold takes 7-17 s);

and the seconds of each fit. ``--few`` adds a few-labels table: a user who labeled one
genomic region (all samples of one ``chr:start-end`` window) of the held-out set, the
rest of its regions as test: the best constant of those labels, the held-out default
shifted to them (``learn_penalty(prior=...)``'s rule, :mod:`penlearn.learn.prior`),
``learn_penalty()`` on them, and ``learn_penalty(prior=<that default>)`` on them (with
at most 100 labeled sequences the prior, shifted to the labels, takes the place of the
constant when ``model="auto"`` chooses the constant: :mod:`penlearn.learn.prior`).

    python benchmarks/pretrained.py --data-dir ../shared/data [--few] [--csv rows.csv]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from penlearn.datasets.pretrain import chipseq_sets  # noqa: E402
from penlearn.datasets.uci import load_uci  # noqa: E402
from penlearn.learn.groups import sequence_region  # noqa: E402
from penlearn.peaks.pretrained.fit import (  # noqa: E402
    FEATURES,
    fit_dispersion_model,
    label_errors_pct,
    mark_class,
    mark_intercept,
)
from penlearn.roc import best_constant_log_lambda  # noqa: E402

#: learn_penalty() on its own folds, mean test label errors % per set: RESULTS.md
#: "all_sets, issue 32", folds given, column "default" (H3K27ac-H3K4me3_TDHAM_BP: its
#: fold 1 only, from that section's "Not run" note).
IN_SET = {
    "ATAC_JV_adipose": 20.17, "CTCF_TDH_ENCODE": 7.91, "H3K27ac-H3K4me3_TDHAM_BP": 15.2,
    "H3K27ac_TDH_some": 17.54, "H3K27me3_RL_cancer": 34.84, "H3K27me3_TDH_some": 13.62,
    "H3K36me3_AM_immune": 7.25, "H3K36me3_TDH_ENCODE": 29.01, "H3K36me3_TDH_immune": 5.65,
    "H3K36me3_TDH_other": 10.42, "H3K4me1_TDH_BP": 9.84, "H3K4me3_PGP_immune": 23.99,
    "H3K4me3_TDH_ENCODE": 5.25, "H3K4me3_TDH_immune": 18.70, "H3K4me3_TDH_other": 9.74,
    "H3K4me3_XJ_immune": 23.67, "H3K9me3_TDH_BP": 13.84,
}


def load(data_dir: str):
    X, evs, groups = [], [], []
    for name in chipseq_sets(data_dir):
        ds = load_uci(Path(data_dir) / name)
        X.append(ds.inputs)
        evs.append(ds.evaluation)
        groups.append(pd.Series(name, index=ds.inputs.index))
    return pd.concat(X), pd.concat(evs, ignore_index=True), pd.concat(groups)


def fit_predict(X, ev, groups, train, test):
    t0 = time.perf_counter()
    fit = fit_dispersion_model(X.loc[train, list(FEATURES)], ev, groups.loc[train])
    seconds = time.perf_counter() - t0
    A = X.loc[train, list(FEATURES)].to_numpy(float)
    B = np.clip(X.loc[test, list(FEATURES)].to_numpy(float), A.min(axis=0), A.max(axis=0))
    coef = np.array([fit["coef"][f] for f in FEATURES])
    return fit, pd.Series(fit["intercept"] + B @ coef, index=test), seconds


def leave_one_set_out(X, ev, groups) -> pd.DataFrame:
    rows = []
    for s in pd.unique(groups):
        test = groups.index[groups.to_numpy() == s]
        train = groups.index[groups.to_numpy() != s]
        ev_train = ev[ev["sequence_id"].isin(train)]
        t0 = time.perf_counter()
        c = best_constant_log_lambda(ev_train)
        const_s = time.perf_counter() - t0
        fit, pred, seconds = fit_predict(X, ev, groups, train, test)
        # the level its user picks by saying narrow (MACS3's default) or broad (--broad):
        # narrow sets at the narrow level of the other narrow sets, broad ones as default
        narrow = train[[mark_class(g) == "narrow" for g in groups.loc[train]]]
        level = {"narrow": mark_intercept(X.loc[narrow, list(FEATURES)], ev,
                                          groups.loc[narrow], fit["slope"]),
                 "broad": fit["intercept"]}
        as_narrow = pred + level["narrow"] - fit["intercept"]
        by_mark = pred + level[mark_class(s) or "broad"] - fit["intercept"]
        rows.append({
            "held_out": s, "sequences": len(test),
            "bic": label_errors_pct(ev, X.loc[test, "log.log.data"]),
            "pooled_constant": label_errors_pct(ev, pd.Series(c, index=test)),
            "default": label_errors_pct(ev, pred), "mark": mark_class(s),
            "by_mark": label_errors_pct(ev, by_mark),
            "no_flag": label_errors_pct(ev, as_narrow), "in_set": IN_SET.get(s, np.nan),
            "slope": fit["slope"], "fit_s": seconds, "constant_fit_s": const_s})
        print(f"  {s}: default {rows[-1]['default']:.1f} %, pooled constant "
              f"{rows[-1]['pooled_constant']:.1f} % ({seconds:.1f} s)", file=sys.stderr,
              flush=True)
    return pd.DataFrame(rows).set_index("held_out")


def _learned(x_lab, ev_lab, x_test, ev, **kwargs) -> float:
    """Test label errors of ``learn_penalty()`` on the labeled sequences (NaN: refused)."""
    from penlearn.learn import learn_penalty

    try:
        m = learn_penalty(x_lab, ev_lab, progress=False, **kwargs)
    except ValueError:
        return np.nan
    return label_errors_pct(ev, pd.Series(m.predict(x_test), index=x_test.index))


def _prior_model(X, ev, groups, train, held_out: str):
    """The zero-label model learned on ``train`` (the other sets), as a PenaltyModel."""
    from penlearn.learn.model import PenaltyModel
    from penlearn.peaks.pretrained.fit import model_data

    fit = fit_dispersion_model(X.loc[train, list(FEATURES)], ev, groups.loc[train])
    model = PenaltyModel.from_dict(model_data(fit, X.loc[train], {}), source="prior")
    model.prior_name_ = f"the zero-label model without {held_out}"
    return model


def few_labels(X, ev, groups, n_regions: int = 3) -> pd.DataFrame:
    """One labeled region of the held-out set (the first ``n_regions`` in sorted order,
    each in turn), the set's other regions as test."""
    from penlearn.learn.prior import nearest_min_error_shift

    warnings.simplefilter("ignore")
    rows = []
    for s in pd.unique(groups):
        ids = groups.index[groups.to_numpy() == s]
        train_all = groups.index[groups.to_numpy() != s]
        _, prior_pred, _ = fit_predict(X, ev, groups, train_all, ids)
        region = pd.Series([sequence_region(i) for i in ids], index=ids)
        for r in sorted(region.unique())[:n_regions]:
            lab = ids[region.to_numpy() == r]
            test = ids[region.to_numpy() != r]
            ev_lab = ev[ev["sequence_id"].isin(lab)]
            shift = nearest_min_error_shift(ev_lab, prior_pred.loc[lab])
            c = best_constant_log_lambda(ev_lab)
            finite = X.loc[lab].columns[np.isfinite(X.loc[ids].to_numpy(float)).all(axis=0)]
            t0 = time.perf_counter()
            learned = _learned(X.loc[lab, finite], ev_lab, X.loc[test, finite], ev)
            learn_s = time.perf_counter() - t0
            with_prior = _learned(X.loc[lab, finite], ev_lab, X.loc[test, finite], ev,
                                  prior=_prior_model(X, ev, groups, train_all, s))
            rows.append({"held_out": s, "region": r, "labeled_sequences": len(lab),
                         "zero_label": label_errors_pct(ev, prior_pred.loc[test]),
                         "default_shifted": label_errors_pct(ev, prior_pred.loc[test] + shift),
                         "constant_of_labels": label_errors_pct(ev, pd.Series(c, index=test)),
                         "learn_penalty": learned, "learn_penalty_prior": with_prior,
                         "learn_s": learn_s})
            print(f"  {s} {r}: " + ", ".join(f"{k} {v:.1f}" for k, v in rows[-1].items()
                                             if isinstance(v, float)), file=sys.stderr,
                  flush=True)
    return pd.DataFrame(rows)


def markdown(t: pd.DataFrame, digits: int = 2) -> str:
    cols = list(t.columns)
    lines = ["| " + " | ".join([t.index.name or ""] + cols) + " |",
             "|" + "---|" * (len(cols) + 1)]
    for i, r in t.iterrows():
        lines.append("| " + " | ".join([str(i)] + [
            f"{v:.{digits}f}" if isinstance(v, (float, np.floating)) else str(v)
            for v in r]) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    ap.add_argument("--few", action="store_true", help="also the few-labels table")
    ap.add_argument("--few-regions", type=int, default=1, metavar="N",
                    help="labeled regions tried per set in the few-labels table (the first N "
                    "in sorted order, each alone; default 1: learn_penalty() takes 30-250 s "
                    "a fit on a loaded machine)")
    ap.add_argument("--only-few", action="store_true", help="the few-labels table only")
    ap.add_argument("--csv", default=None, help="write the per-set rows here")
    args = ap.parse_args(argv)
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    X, ev, groups = load(args.data_dir)
    if not args.only_few:
        t = leave_one_set_out(X, ev, groups)
        marks = t.pop("mark")
        t = t.astype(float)
        t.loc["mean of sets"] = t.mean()
        t.loc["mean of sets", "sequences"] = t["sequences"].iloc[:-1].sum()
        excess = (t["default"] - t["pooled_constant"]).iloc[:-1]
        t.insert(1, "mark", marks.reindex(t.index).fillna(""))
        print(markdown(t[["mark", "sequences", "bic", "pooled_constant", "default", "by_mark",
                          "no_flag", "in_set", "slope", "fit_s"]]))
        print(f"\nworst held-out set: default {t['default'].iloc[:-1].max():.2f} %, "
              f"by_mark {t['by_mark'].iloc[:-1].max():.2f} %")
        print(f"\nworst held-out set: default − pooled constant = {excess.max():+.2f} "
              f"({excess.idxmax()}); goal: mean <= 17 %, no set > +2")
        if args.csv:
            t.to_csv(args.csv)
    if args.few or args.only_few:
        f = few_labels(X, ev, groups, args.few_regions)
        print("\nFew labels (one labeled region, the set's other regions as test), mean "
              "over (set, region):")
        means = f.groupby("held_out")[["labeled_sequences", "zero_label", "default_shifted",
                                       "constant_of_labels", "learn_penalty",
                                       "learn_penalty_prior", "learn_s"]].mean()
        means.loc["mean of sets"] = means.mean()
        print(markdown(means))
        if args.csv:
            f.to_csv(Path(args.csv).with_suffix(".few.csv"), index=False)
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
