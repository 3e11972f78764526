"""Does learning pay? Every labeled data set × every test fold, against simple baselines.

Data (``PENLEARN_DATA`` or ``--data-dir``, the UCI / neuroblastoma-data format):

- the 17 ChIP-seq sets (Hocking et al. 2017), cv ``equal_labels`` (4 test folds);
- ``systematic``: the neuroblastoma copy-number sequences with the systematic labels
  (Rigaill et al. 2013; the same tables as ``neuroblastoma/processed_*``), cv
  ``profileID`` (6 test folds, patients held out);
- ``neuroblastoma_detailed``: the same sequences with the *detailed* labels
  (``detailed/evaluation``), features from ``systematic/inputs`` (3410 of the 3730
  detailed sequences have them; the others are left out), cv ``profileID``;
- ``H3K36me3_TDH_other_chunk1``: a peak set computed here from raw coverage
  (``chipseq_raw/``: 8 samples of chr21, 6 peak labels each): the error functions of each
  sample's PeakSeg path (``penlearn.peak_error_functions``), the 36 coverage features
  (``penlearn.coverage_features``), 4 test folds of 2 samples (see ``_sets.coverage_set``).
  With 3 subtrain and 3 validation sequences per fold it is a smoke test of the whole
  coverage-to-penalty pipeline more than a measure of learning.

Fold schemes (``--folds``, see ``_sets.py``): ``given``, the folds above; ``regions``, K
folds (``--n-folds``, default 4) of whole genomic regions (ChIP-seq ``chr:start-end``
problems, neuroblastoma chromosomes; not the coverage set, one region) drawn with
``--fold-seed``: a grouping of the regions nobody tuned on. Region hold-out is the
measure: a random split of sequences flatters every learner.

For each (set, test fold) the non-test sequences are split as in Fowler & Hocking (2024):
sorted by id, alternately subtrain and validation (for the methods fit on subtrain with a
validation set). Feature columns that are not finite on every sequence of the set are
dropped first (the papers' filter; unsupervised). Methods (``--methods``; default
``MAIN``, ``all`` for every one):

- ``unsupervised``: log λ = log log n, a BIC-like penalty (λ = log n), n the number of
  data of the sequence (``log.log.data`` of the ChIP-seq sets, ``log2.n`` of the
  neuroblastoma sets) — no learning at all;
- ``constant``: the single log λ with the fewest label errors on the training sequences;
- ``interval_regression``: ``learn_penalty(..., max_steps=0, shrink=False)`` on subtrain,
  the start of descent;
- ``aft_xgboost``: XGBoost's ``survival:aft`` on the training sequences' target intervals,
  untuned (``_baselines.py``: depth 2, 100 rounds, learning rate 0.1, normal, σ = 1);
- ``LEARNERS``: ``learn_penalty(train features, train evaluation, **kwargs)`` as a user
  calls it (``default``: its defaults); a keyword whose value is ``GROUPS`` gets the region
  of each training sequence (``_sets.regions``);
- ``CLIPPED``: a learner's model predicting with ``clip=True`` (test features clipped to
  their training range);
- ``first_min``, ``linear``, ``quadratic``, ``max_auc``, ``grid``: the papers' protocol
  (subtrain AUM "rate" descent from interval regression, iterate of best validation AUC:
  ``l2=0, min_improvement=0, shrink=False``) with each step rule; ``quadratic`` only where
  B subtrain ≤ ``--quadratic-max-b``;
- ``CANDIDATES``: other options of the linear learner from the same start (issue 15).

Reported on the test fold: AUC (``roc_change(...).auc``), label errors at the predicted
penalty (% of the labels), AUM of the FP/FN rates, and the fit seconds; per set and method
for errors and AUC, the mean over (set, fold), the goals of issue 25, and one figure
(``docs/img/all_sets.png``: errors and AUC per set and method, one row per fold scheme).

Usage::

    python benchmarks/all_sets.py                       # MAIN methods, both fold schemes
    python benchmarks/all_sets.py --quick --sets H3K4me3_TDH_immune H3K27me3_RL_cancer
    python benchmarks/all_sets.py --methods constant aft_xgboost default --folds regions
    python benchmarks/all_sets.py --methods all --folds given   # + the issue-15 options
    python benchmarks/all_sets.py --from-csv rows.csv   # table and figure from saved rows
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.datasets.locate import data_folder

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = data_folder()
FIGURE = HERE.parent / "docs" / "img" / "all_sets.png"
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from _baselines import aft_xgboost, constant_log_lambda  # noqa: E402
from _sets import (  # noqa: E402
    ALL_SETS,
    CHIPSEQ,
    COVERAGE,
    FOLD_SCHEMES,
    SCHEME_SETS,
    SCHEME_TEXT,
    fold_table,
    load_set,
    regions,
)

SECTION = "## all_sets"
QUICK_SETS = ["H3K4me3_TDH_immune", "H3K27me3_RL_cancer", "H3K36me3_AM_immune",
              "H3K4me3_TDH_other"]
from _all_sets_methods import (  # noqa: E402
    CANDIDATES,
    CLIPPED,
    GROUPS,
    LEARNERS,
    MAIN,
    METHODS,
    PRIOR,
    PUBLISHED,
    PUBLISHED_SOURCE,
    START,
    TABLE,
    VARIANTS,
)


def test_folds(data_dir: str, name: str, scheme: str = "given", n_folds: int = 4,
               fold_seed: int = 1) -> list:
    return sorted(fold_table(data_dir, name, scheme, n_folds, fold_seed)["fold"].unique())


# --------------------------------------------------------------------------- metrics

def test_metrics(et: pd.DataFrame, pred: pd.Series) -> dict:
    """Test AUC, label errors (%) at the predicted penalty and AUM of FP/FN rates."""
    from penlearn import aum, roc_change
    from penlearn.breakpoints import breakpoints_from_errors

    ids = list(pd.unique(et["sequence_id"]))
    r = roc_change(et, pred.loc[ids])
    at = r.thresholds.loc["predicted"]
    bp = breakpoints_from_errors(et, sequence_ids=ids, normalize="rate")
    return {"test_auc": float(r.auc), "test_errors_pct": 100.0 * at["errors"] / at["labels"],
            "test_aum": float(aum(bp, -pred.loc[ids].to_numpy(float)).aum)}


# --------------------------------------------------------------------------- one task

@functools.lru_cache(maxsize=2)
def loso_prior(data_dir: str, name: str):
    """The zero-label model learned on the other ChIP-seq sets of ``data_dir`` (as
    ``penlearn pretrain DATA_DIR --exclude NAME`` writes it), or None when ``name`` is
    not one of them (neuroblastoma, the raw-coverage set)."""
    from penlearn.datasets.pretrain import chipseq_sets, pretrain

    if name not in chipseq_sets(data_dir):
        return None
    model = pretrain(data_dir, exclude=[name], loso=False)
    model.prior_name_ = f"the zero-label model without {name}"
    return model


def run_task(data_dir: str, name: str, fold, methods: list[str], seed: int,
             quadratic_max_b: int, scheme: str = "given", n_folds: int = 4,
             fold_seed: int = 1) -> list[dict]:
    """Every method on one (set, test fold) of one fold scheme; one row per method."""
    warnings.simplefilter("ignore")  # dropped columns, sequences left out of AUM
    from penlearn.breakpoints import breakpoints_from_errors
    from penlearn.learn import learn_penalty, subtrain_validation_split

    X, ev, _, bic, _ = load_set(data_dir, name)
    sp = subtrain_validation_split(fold_table(data_dir, name, scheme, n_folds, fold_seed),
                                   fold)
    train_ids = sorted(sp["subtrain"] + sp["validation"])

    def part(ids):
        return X.loc[ids], ev[ev["sequence_id"].isin(ids)]

    (fs, es), (fv, evv), (ft, et) = (part(sp[k]) for k in ("subtrain", "validation", "test"))
    ftr, etr = part(train_ids)
    B = len(breakpoints_from_errors(es))
    base = {"data": name, "folds": scheme, "fold": fold, "n_train": len(train_ids),
            "n_test": len(ft), "B_subtrain": B, "seed": seed}
    rows = []

    def record(method, pred, seconds, model=None):
        rec = dict(base, method=method, seconds=seconds, steps=np.nan, best_step=np.nan)
        if getattr(model, "history_", None) is not None and "step" in model.history_:
            rec["steps"] = int(model.history_["step"].iloc[-1])
            rec["best_step"] = int(getattr(model, "best_step_", -1))
        if getattr(model, "choice_", None):  # model="auto": the CV errors it chose on
            rec["choice"] = json.dumps(model.choice_)
        rec.update(test_metrics(et, pd.Series(np.asarray(pred, float), index=ft.index)))
        rows.append(rec)

    if "unsupervised" in methods:
        record("unsupervised", bic.loc[ft.index].to_numpy(), 0.0)
    if "constant" in methods:
        t0 = time.perf_counter()
        c = constant_log_lambda(etr)
        record("constant", np.full(len(ft), c), time.perf_counter() - t0)
    if "aft_xgboost" in methods:
        t0 = time.perf_counter()
        pred = aft_xgboost(ftr, etr, ft)
        record("aft_xgboost", pred, time.perf_counter() - t0)
    # the papers' protocol: the linear model, its level the shift of fewest subtrain errors
    protocol = dict(validation=(fv, evv), progress=False, model="linear", level="subtrain")
    need_start = set(methods) & ({"interval_regression"} | set(VARIANTS) | set(CANDIDATES))
    if need_start:
        t0 = time.perf_counter()
        start = learn_penalty(fs, es, max_steps=0, random_state=seed, shrink=False,
                              **protocol)
        ir_seconds = time.perf_counter() - t0
    if "interval_regression" in methods:
        record("interval_regression", start.predict(ft), ir_seconds, start)
    for variant in VARIANTS:
        if variant not in methods or (variant == "quadratic" and B > quadratic_max_b):
            continue
        t0 = time.perf_counter()
        m = learn_penalty(fs, es, init=start, line_search=variant, min_improvement=0.0,
                          l2=0.0, shrink=False, **protocol)
        record(variant, m.predict(ft), ir_seconds + time.perf_counter() - t0, m)
    for method, kwargs in CANDIDATES.items():
        if method in methods:
            t0 = time.perf_counter()
            if kwargs.get("shrink") == "BIC":
                kwargs = dict(kwargs, shrink=str(bic.name))
            m = learn_penalty(fs, es, init=start, **kwargs, **protocol)
            record(method, m.predict(ft), ir_seconds + time.perf_counter() - t0, m)
    for method, kwargs in LEARNERS.items():  # as a user calls it: the training sequences
        clipped = [c for c, of in CLIPPED.items() if of == method and c in methods]
        if method not in methods and not clipped:
            continue
        kwargs = {k: (regions(ftr.index) if v is GROUPS else
                      loso_prior(data_dir, name) if v is PRIOR else v)
                  for k, v in kwargs.items()}
        kwargs.setdefault("random_state", seed)
        t0 = time.perf_counter()
        m = learn_penalty(ftr, etr, progress=False, **kwargs)
        seconds = time.perf_counter() - t0
        if method in methods:
            record(method, m.predict(ft), seconds, m)
        for c in clipped:  # the same model, test features clipped
            record(c, m.set_params(clip=True).predict(ft), seconds, m)
    print(f"  {name} {scheme} fold {fold}: " + ", ".join(
        f"{r['method']} {r['test_errors_pct']:.1f}% {r['test_auc']:.4f}" for r in rows),
        file=sys.stderr, flush=True)
    return rows


def run_all(data_dir: str, sets, methods, seed, quadratic_max_b, workers, max_folds=None,
            schemes=("given",), n_folds=4, fold_seed=1, csv=None):
    tasks = []
    for scheme in schemes:
        for name in [s for s in sets if s in SCHEME_SETS[scheme]]:
            for fold in test_folds(data_dir, name, scheme, n_folds, fold_seed)[:max_folds]:
                tasks.append((name, fold, scheme))
    # the largest sets first, so that the two processes finish together
    big = {"H3K27ac-H3K4me3_TDHAM_BP": 0, "systematic": 1, "neuroblastoma_detailed": 2,
           **{name: 3 for name in COVERAGE}}  # a coverage set: its peak paths first
    tasks.sort(key=lambda t: big.get(t[0], 9))
    args = (methods, seed, quadratic_max_b)
    rows = []
    def keep(new):  # the rows so far written after each task: a long run keeps its part
        rows.extend(new)
        if csv:
            pd.DataFrame(rows).to_csv(csv, index=False)

    if workers <= 1:
        for name, fold, scheme in tasks:
            keep(run_task(data_dir, name, fold, *args, scheme, n_folds, fold_seed))
        return pd.DataFrame(rows)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futs = [pool.submit(run_task, data_dir, n, f, *args, s, n_folds, fold_seed)
                for n, f, s in tasks]
        for fut in as_completed(futs):
            keep(fut.result())
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- summary

def _methods(rows: pd.DataFrame) -> list[str]:
    have = list(pd.unique(rows["method"]))
    return [m for m in METHODS if m in have] + [m for m in have if m not in METHODS]


def per_set_table(rows: pd.DataFrame, metric: str = "test_auc") -> pd.DataFrame:
    """Mean of ``metric`` per set (rows) and method (columns) over the test folds of one
    fold scheme, then the mean over all (set, fold) pairs and the mean of the set means."""
    methods = _methods(rows)
    t = rows.pivot_table(index="data", columns="method", values=metric, aggfunc="mean")
    t = t.reindex(columns=methods)
    t = t.reindex([s for s in ALL_SETS if s in t.index])
    folds = rows.pivot_table(index=["data", "fold"], columns="method", values=metric)
    t.loc["mean over (set, fold)"] = folds.reindex(columns=methods).mean()
    t.loc["mean of set means"] = t.iloc[:-1].mean()
    return t


def goals(rows: pd.DataFrame, method: str = "default") -> dict:
    """The goals of issue 25 for ``method`` on the rows of one fold scheme: mean test
    errors ≤ the constant's − 2 points and ≤ AFT-XGBoost's, no set above the constant + 1
    point; mean test AUC ≥ 0.930 and ≥ AFT-XGBoost's, no set below interval regression −
    0.01; ≥ +0.005 mean AUC over its start (``START``). A comparison whose baseline was
    not run is NaN and not met."""
    err, auc = per_set_table(rows, "test_errors_pct"), per_set_table(rows)
    sets, mean = err.index[:-2], "mean over (set, fold)"

    def col(t, m):
        return t[m] if m in t else pd.Series(np.nan, index=t.index)

    d_err = col(err, method) - col(err, "constant")
    d_auc = col(auc, method) - col(auc, "interval_regression")
    g = {"errors": err.loc[mean, method], "auc": auc.loc[mean, method],
         "errors_vs_constant": d_err[mean],
         "errors_vs_aft": err.loc[mean, method] - col(err, "aft_xgboost")[mean],
         "worst_errors_set": d_err[sets].idxmax() if d_err[sets].notna().any() else "–",
         "worst_errors_gap": d_err[sets].max(),
         "auc_vs_aft": auc.loc[mean, method] - col(auc, "aft_xgboost")[mean],
         "worst_auc_set": d_auc[sets].idxmin() if d_auc[sets].notna().any() else "–",
         "worst_auc_gap": d_auc[sets].min(),
         "auc_vs_start": auc.loc[mean, method] - col(auc, START.get(method, "–"))[mean],
         "median_seconds": float(rows.loc[rows["method"] == method, "seconds"].median())}
    g["met"] = bool(g["errors_vs_constant"] <= -2 and g["errors_vs_aft"] <= 0
                    and g["worst_errors_gap"] <= 1 and g["auc"] >= 0.930
                    and g["auc_vs_aft"] >= 0 and g["worst_auc_gap"] >= -0.01
                    and g["auc_vs_start"] >= 0.005 and g["median_seconds"] <= 5)
    return g


def with_oracle(rows: pd.DataFrame, t: pd.DataFrame, metric: str, scheme: str
                ) -> pd.DataFrame:
    """``t`` (:func:`per_set_table`) with the oracle "best of the table per set" (the
    method of :data:`TABLE` best on the set's mean, its folds averaged as the others) and,
    for test errors on the given folds, the published column (:data:`PUBLISHED`)."""
    t = t.copy()
    have = [m for m in TABLE if m in t]
    sets = [s for s in t.index[:-2]]
    if have:
        best = t.loc[sets, have].min(axis=1) if metric == "test_errors_pct" else \
            t.loc[sets, have].max(axis=1)
        n = rows.groupby("data")["fold"].nunique().reindex(sets)
        t["oracle"] = pd.concat([best, pd.Series(
            {"mean over (set, fold)": float((best * n).sum() / n.sum()),
             "mean of set means": float(best.mean())})])
    if metric == "test_errors_pct" and scheme == "given":
        pub = pd.Series({s: PUBLISHED[s][0] for s in sets if s in PUBLISHED}, dtype=float)
        t["published"] = pub.reindex(t.index)
    return t


def issue32_goals(rows: pd.DataFrame, method: str) -> dict:
    """The goals of issue 32 for ``method`` on one fold scheme: per set at most 1 point
    above the best other method of the table and the best published; mean errors ≤ the
    constant − 2.5; mean of the 17 ChIP-seq set means ≤ 14.7 %; mean AUC ≥ the best single
    method's; no set below interval regression − 0.01; median fit ≤ 5 s."""
    err, auc = per_set_table(rows, "test_errors_pct"), per_set_table(rows)
    sets, mean = list(err.index[:-2]), "mean over (set, fold)"
    others = [m for m in TABLE if m in err and m != method]
    gap = err.loc[sets, method] - err.loc[sets, others].min(axis=1)
    given = "folds" not in rows or (rows["folds"].fillna("given") == "given").all()
    pub = pd.Series({s: PUBLISHED[s][0] for s in sets if s in PUBLISHED and given},
                    dtype=float)  # published on the sets' own folds only
    gap_pub = (err.loc[pub.index, method] - pub) if len(pub) else pd.Series(dtype=float)
    chip = [s for s in sets if s in CHIPSEQ]
    best_auc = max(auc.loc[mean, m] for m in others) if others else np.nan
    d_auc = auc.loc[sets, method] - auc.loc[sets, "interval_regression"] \
        if "interval_regression" in auc else pd.Series(np.nan, index=sets)
    worst_auc = (d_auc.idxmin(), d_auc.min()) if d_auc.notna().any() else ("–", np.nan)
    return {
        "worst_vs_table": (gap.idxmax(), gap.max()),
        "worst_vs_published": (gap_pub.idxmax(), gap_pub.max()) if len(gap_pub)
        else ("–", np.nan),
        "errors": err.loc[mean, method],
        "vs_constant": err.loc[mean, method] - err.loc[mean, "constant"],
        "chip_mean": err.loc[chip, method].mean() if chip else np.nan,
        "auc": auc.loc[mean, method], "best_single_auc": best_auc,
        "worst_auc_vs_ir": worst_auc,
        "median_seconds": float(rows.loc[rows["method"] == method, "seconds"].median()),
    }


def issue32_lines(rows: pd.DataFrame, methods: list[str]) -> list[str]:
    """The issue-32 goals table, one row per learner."""
    lines = ["", "Goals of issue 32 per learner (errors in points of %; the table's methods: "
             f"{', '.join(TABLE)}; published: {PUBLISHED_SOURCE}):", "",
             "| method | worst set vs best other of the table (≤ +1) | worst set vs "
             "published (≤ +1) | errors % | vs constant (≤ −2.5) | mean of ChIP-seq set "
             "means (≤ 14.7) | AUC | best single AUC | worst set AUC vs IR (≥ −0.01) | "
             "median s (≤ 5) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for m in methods:
        g = issue32_goals(rows, m)
        lines.append(
            f"| {m} | {g['worst_vs_table'][0]} {g['worst_vs_table'][1]:+.2f} | "
            f"{g['worst_vs_published'][0]} {g['worst_vs_published'][1]:+.2f} | "
            f"{g['errors']:.2f} | {g['vs_constant']:+.2f} | {g['chip_mean']:.2f} | "
            f"{g['auc']:.4f} | {g['best_single_auc']:.4f} | {g['worst_auc_vs_ir'][0]} "
            f"{g['worst_auc_vs_ir'][1]:+.4f} | {g['median_seconds']:.2f} |")
    return lines


def markdown_table(t: pd.DataFrame, digits: int = 4) -> str:
    cols = list(t.columns)
    lines = ["| data | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for idx, r in t.iterrows():
        cells = ["–" if not np.isfinite(v) else f"{v:.{digits}f}" for v in r.to_numpy(float)]
        lines.append(f"| {idx} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def method_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per method: means over (set, fold) of every measure, median fit seconds (sets
    without a method's row — quadratic on large sets — are left out of its means)."""
    g = rows.groupby("method")
    s = g.agg(test_auc=("test_auc", "mean"), test_errors_pct=("test_errors_pct", "mean"),
              test_aum=("test_aum", "mean"), seconds=("seconds", "median"),
              tasks=("test_auc", "size"))
    return s.reindex(_methods(rows))


def scheme_rows(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The rows of each fold scheme (rows written before schemes existed are ``given``)."""
    scheme = rows["folds"] if "folds" in rows else pd.Series("given", index=rows.index)
    scheme = scheme.fillna("given")
    return {s: rows[scheme == s] for s in FOLD_SCHEMES if (scheme == s).any()}


def figure(rows: pd.DataFrame, path: Path) -> None:
    """Test label errors (%) and test AUC per set (rows) and method (markers), mean over
    test folds; one row of two panels per fold scheme."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    parts = scheme_rows(rows)
    methods = _methods(rows)
    n_sets = rows["data"].nunique() + 1
    fig = Figure(figsize=(11.0, len(parts) * (0.3 * n_sets + 1.2) + 0.4))
    axes = fig.subplots(len(parts), 2, squeeze=False, sharey="row")
    markers = "o^sv<>Dph*xP"
    colors = matplotlib.colormaps["tab20"].colors
    for r, (scheme, part) in enumerate(parts.items()):
        for c, (metric, label) in enumerate([("test_errors_pct", "test label errors (%)"),
                                             ("test_auc", "test AUC")]):
            ax = axes[r, c]
            t = per_set_table(part, metric).iloc[:-1]
            y = np.arange(len(t))[::-1]
            for i, m in enumerate(methods):
                if m not in t or (c == 0 and m == "unsupervised"):  # 80-100 % errors
                    continue
                big = m in MAIN or m in LEARNERS
                ax.scatter(t[m].to_numpy(float), y, marker=markers[i % len(markers)],
                           s=46 if big else 16, alpha=0.9 if big else 0.6,
                           color=colors[(2 * i) % 20 if big else (2 * i + 1) % 20],
                           label=m.replace("_", " "), zorder=3 if big else 2)
            ax.set_yticks(y, [s.replace("mean over (set, fold)", "MEAN (set, fold)")
                              for s in t.index], fontsize=7)
            ax.set_xlabel(f"{label}, mean over test folds"
                          + (" (unsupervised: off scale)" if c == 0 else ""), fontsize=8)
            ax.set_title(f"folds: {scheme}", fontsize=8)
            ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0, 1].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="upper center", ncol=min(6, len(labels)),
               framealpha=0.9)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def report_scheme(rows: pd.DataFrame, scheme: str) -> list[str]:
    err, auc, summ = (per_set_table(rows, "test_errors_pct"), per_set_table(rows),
                      method_summary(rows))
    err = with_oracle(rows, err, "test_errors_pct", scheme)
    auc = with_oracle(rows, auc, "test_auc", scheme)
    lines = [f"### folds: {scheme}", "", f"Test folds: {SCHEME_TEXT[scheme]}; "
             f"{rows.groupby(['data', 'fold']).ngroups} (set, fold) pairs.", "",
             "Test label errors (% of the labels at the predicted penalty), mean over "
             "test folds (`oracle`: the best of the table's "
             f"{', '.join(m for m in TABLE if m in err)} per set"
             + (f"; `published`: the best published result, {PUBLISHED_SOURCE}"
                if "published" in err else "") + "):", "", markdown_table(err, 2), "",
             "Test AUC, mean over test folds:", "", markdown_table(auc), "",
             "Per method, mean over (set, fold): test AUC, test label errors %, test AUM "
             "(FP/FN rates); median fit seconds:", "",
             "| method | test AUC | test errors % | test AUM | median s | (set, fold) |",
             "|---|---|---|---|---|---|"]
    for m, r in summ.iterrows():
        lines.append(f"| {m} | {r.test_auc:.4f} | {r.test_errors_pct:.2f} | "
                     f"{r.test_aum:.4f} | {r.seconds:.2f} | {int(r.tasks)} |")
    learned = [m for m in summ.index if m in LEARNERS or m in CLIPPED]
    if not learned:
        return lines
    if "constant" in summ.index:
        lines += issue32_lines(rows, [m for m in learned if m not in CLIPPED])
    lines += ["", "Goals of issue 25 per learner (errors in points of %, mean over "
              "(set, fold); worst set against the constant (errors) and interval "
              "regression (AUC); AUC gain over the learner's start):", "",
              "| method | errors % | vs constant | vs AFT | worst set (errors) | AUC | "
              "vs AFT | worst set (AUC) | vs start | median s | met |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in learned:
        g = goals(rows, m)
        lines.append(
            f"| {m} | {g['errors']:.2f} | {g['errors_vs_constant']:+.2f} | "
            f"{g['errors_vs_aft']:+.2f} | {g['worst_errors_set']} "
            f"{g['worst_errors_gap']:+.2f} | {g['auc']:.4f} | {g['auc_vs_aft']:+.4f} | "
            f"{g['worst_auc_set']} {g['worst_auc_gap']:+.4f} | {g['auc_vs_start']:+.4f} | "
            f"{g['median_seconds']:.2f} | {'yes' if g['met'] else 'no'} |")
    return lines


def report(rows: pd.DataFrame) -> str:
    lines = []
    for scheme, part in scheme_rows(rows).items():
        lines += report_scheme(part, scheme) + [""]
    return "\n".join(lines).rstrip("\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sets", nargs="+", default=None, help=f"default: all {len(ALL_SETS)}")
    ap.add_argument("--methods", nargs="+", default=None,
                    help=f"default: {' '.join(MAIN)}; 'all': {' '.join(METHODS)}")
    ap.add_argument("--folds", nargs="+", default=FOLD_SCHEMES, choices=FOLD_SCHEMES,
                    help="fold schemes (default: both)")
    ap.add_argument("--n-folds", type=int, default=4, help="K of --folds regions")
    ap.add_argument("--fold-seed", type=int, default=1, help="seed of --folds regions")
    ap.add_argument("--quick", action="store_true",
                    help=f"first 2 folds of {', '.join(QUICK_SETS)} (unless --sets), no "
                    "quadratic")
    ap.add_argument("--seed", type=int, default=1, help="the learners' random_state")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quadratic-max-b", type=int, default=700,
                    help="run the quadratic variant only where B subtrain is at most this")
    ap.add_argument("--csv", type=Path, default=None, help="write the per-fold rows here")
    ap.add_argument("--from-csv", type=Path, nargs="+", default=None,
                    help="table and figure from rows written by earlier runs (no new runs)")
    ap.add_argument("--run-seconds", type=float, default=None,
                    help="with --from-csv: the wall time of the run that wrote the rows")
    ap.add_argument("--results", action="store_true",
                    help="write the section of benchmarks/RESULTS.md and the docs figure")
    ap.add_argument("--section", default=SECTION,
                    help="with --results: the RESULTS.md section (another than the default: "
                    "no figure, no notes of explored options; e.g. a partial run)")
    ap.add_argument("--note", default="",
                    help="with --results: a line of the section's header (what was run)")
    args = ap.parse_args(argv)
    sets = args.sets or (QUICK_SETS if args.quick else ALL_SETS)
    unknown = set(sets) - set(ALL_SETS)
    if unknown:
        ap.error(f"unknown set(s) {sorted(unknown)}; known: {ALL_SETS}")
    if args.methods == ["all"]:
        methods = [m for m in METHODS if not (args.quick and m == "quadratic")]
    else:
        methods = args.methods or MAIN
    unknown = set(methods) - set(METHODS)
    if unknown:
        ap.error(f"unknown method(s) {sorted(unknown)}; known: all {METHODS}")
    if args.n_folds < 2:
        ap.error(f"--n-folds {args.n_folds}: expected at least 2")
    t0 = time.perf_counter()
    if args.from_csv:
        rows = pd.concat([pd.read_csv(p) for p in args.from_csv], ignore_index=True)
    else:
        rows = run_all(str(args.data_dir), sets, methods, args.seed, args.quadratic_max_b,
                       args.workers, max_folds=2 if args.quick else None,
                       schemes=args.folds, n_folds=args.n_folds, fold_seed=args.fold_seed,
                       csv=args.csv)
    if args.csv:
        rows.to_csv(args.csv, index=False)
    total = time.perf_counter() - t0
    text = report(rows)
    print(text)
    print(f"total {total:.0f} s", file=sys.stderr)
    if args.results:
        if args.section == SECTION:
            figure(rows, FIGURE)
        cmd = "python benchmarks/all_sets.py " + " ".join(argv or sys.argv[1:])
        load = os.getloadavg()
        head = [
            SECTION, "",
            f"- Date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
            f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {args.workers} "
            f"processes; load average at the end {load[0]:.1f} (shared machine: seconds are "
            "indicative).",
            f"- Command: `{cmd.strip()}` (total {total:.0f} s"
            + (f"; the run that wrote the rows took {args.run_seconds:.0f} s)."
               if args.run_seconds else ")."),
            "- Protocol: see the docstring of `benchmarks/all_sets.py`"
            + ("; figure `docs/img/all_sets.png`." if args.section == SECTION else "."),
            *([f"- {args.note}"] if args.note else []), "", "",
        ]
        explored = (HERE / "all_sets_explored.md").read_text() \
            if args.section == SECTION else ""
        head[0] = args.section
        results_file.write_section(args.section,
                                   "\n".join(head) + text + "\n\n" + explored)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
