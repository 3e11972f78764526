"""Binary classification: AUM with the exact line search against the seed papers' baselines.

Data shipped with scikit-learn (the ``bench`` extra), made imbalanced as in the papers
(about 10% of one class, ``papers/001``):

- ``digits 0 vs rest`` and ``digits 8 vs rest``: 8×8 digit images, positive = the digit
  (about 10% positives);
- ``breast cancer 10%``: all benign tumours plus a random 10% subset of malignant ones
  (positive = malignant), redrawn for each seed.

For each seed the rows are split (stratified) into test (1/3) and the rest, which is
shuffled and assigned alternately subtrain / validation, the papers' protocol. Every
method fits on subtrain and uses validation for its model selection (AUM: the iterate of
best validation AUC; logistic / squared hinge: L2 weight from a grid; polynomial AUC: best
iterate; SVM: C from a grid, by validation partial AUC). Reported: validation AUC, test
AUC, test partial AUC over FPR [0, 0.1] (normalized: divided by 0.1), and fit seconds —
mean ± SD over seeds. A second table gives the error of the polynomial approximation of
AUC (``papers/002``) at degrees 10, 20, 30 against the exact AUC.

Usage::

    python benchmarks/binary.py                # 4 seeds, writes the "## binary" section
    python benchmarks/binary.py --seeds 2 --no-results
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

from penlearn import fit_aum_linear
from penlearn.binary import (
    fit_logistic,
    fit_polynomial_auc,
    fit_squared_hinge_pairs,
    fit_svm_pauc,
)
from penlearn.binary.metrics import partial_auc, roc_auc
from penlearn.binary.polynomial_auc import polynomial_auc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

SECTION = "## binary"
FPR_MAX = 0.1
DEGREES = (10, 20, 30)


# --------------------------------------------------------------------------- data


def load_sets(seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    from sklearn.datasets import load_breast_cancer, load_digits

    X, digit = load_digits(return_X_y=True)
    out = {
        "digits 0 vs rest": (X, (digit == 0).astype(int)),
        "digits 8 vs rest": (X, (digit == 8).astype(int)),
    }
    Xb, target = load_breast_cancer(return_X_y=True)
    malignant = target == 0
    rng = np.random.default_rng(1000 + seed)
    ben = np.flatnonzero(~malignant)
    mal = np.flatnonzero(malignant)
    n_mal = round(len(ben) / 9)  # 10% of the kept rows
    keep = np.sort(np.r_[ben, rng.choice(mal, n_mal, replace=False)])
    out["breast cancer 10%"] = (Xb[keep], malignant[keep].astype(int))
    return out


def split(y: np.ndarray, seed: int):
    """Stratified 1/3 test; the rest shuffled and alternately subtrain / validation."""
    rng = np.random.default_rng(seed)
    test, rest = [], []
    for cls in (0, 1):
        idx = rng.permutation(np.flatnonzero(y == cls))
        n_test = len(idx) // 3
        test.append(idx[:n_test])
        rest.append(idx[n_test:])
    rest = rng.permutation(np.concatenate(rest))
    # alternate within each class so both halves get positives
    sub = np.concatenate([r[0::2] for r in (rest[y[rest] == 0], rest[y[rest] == 1])])
    val = np.concatenate([r[1::2] for r in (rest[y[rest] == 0], rest[y[rest] == 1])])
    return np.sort(sub), np.sort(val), np.sort(np.concatenate(test))


# ------------------------------------------------------------------------ methods


def methods(seed: int):
    """(name, fit(X_sub, y_sub, X_val, y_val) -> model with decision_function)."""
    out = []
    if fit_aum_linear is not None:
        def aum_random(Xs, ys, Xv, yv):
            return fit_aum_linear(Xs, ys, validation=(Xv, yv), line_search="first_min",
                                  normalize="rate", random_state=seed, progress=False)

        def aum_from_logistic(Xs, ys, Xv, yv):
            init = fit_logistic(Xs, ys, balanced=True, validation=(Xv, yv))
            return fit_aum_linear(Xs, ys, validation=(Xv, yv), line_search="first_min",
                                  normalize="rate", init=init, progress=False)

        out += [("AUM exact LS (random init)", aum_random),
                ("AUM exact LS (init: balanced logistic)", aum_from_logistic)]
    out += [
        ("logistic", lambda Xs, ys, Xv, yv: fit_logistic(Xs, ys, validation=(Xv, yv))),
        ("logistic balanced",
         lambda Xs, ys, Xv, yv: fit_logistic(Xs, ys, balanced=True, validation=(Xv, yv))),
        ("squared hinge all pairs",
         lambda Xs, ys, Xv, yv: fit_squared_hinge_pairs(Xs, ys, validation=(Xv, yv))),
        ("polynomial AUC (deg 30)",
         lambda Xs, ys, Xv, yv: fit_polynomial_auc(Xs, ys, degree=30, validation=(Xv, yv))),
        (f"SVM pAUC [0, {FPR_MAX}]",
         lambda Xs, ys, Xv, yv: fit_svm_pauc(Xs, ys, fpr_max=FPR_MAX, validation=(Xv, yv))),
        ("SVM AUC (β = 1)",
         lambda Xs, ys, Xv, yv: fit_svm_pauc(Xs, ys, fpr_max=1.0, validation=(Xv, yv))),
    ]
    return out


def run(seeds: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, approx = [], []
    for seed in seeds:
        for data_name, (X, y) in load_sets(seed).items():
            sub, val, test = split(y, seed)
            for name, fit in methods(seed):
                t0 = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = fit(X[sub], y[sub], X[val], y[val])
                except ValueError as exc:  # e.g. a degenerate SVM solution: report it
                    print(f"  {data_name} seed {seed} {name}: {exc}", file=sys.stderr)
                    rows.append({"data": data_name, "seed": seed, "method": name,
                                 "error": str(exc)[:80]})
                    continue
                seconds = time.perf_counter() - t0
                sv = model.decision_function(X[val])
                st = model.decision_function(X[test])
                rows.append({
                    "data": data_name, "seed": seed, "method": name,
                    "valid_auc": roc_auc(y[val], sv),
                    "test_auc": roc_auc(y[test], st),
                    "test_pauc": partial_auc(y[test], st, 0.0, FPR_MAX, normalize=True),
                    "seconds": seconds,
                    "best_step": getattr(model, "best_step_", np.nan),
                    "gd_steps": len(model.history_) - 1 if hasattr(model, "best_step_")
                    else np.nan,
                    "final_subtrain_aum": model.history_["subtrain_aum"].iloc[-1]
                    if "subtrain_aum" in model.history_ else np.nan,
                })
                exact = rows[-1]["test_auc"]
                for d in DEGREES:
                    approx.append({"scores": "learned (test sets)", "degree": d,
                                   "error": polynomial_auc(y[test], st, d) - exact})
            print(f"seed {seed} {data_name}: done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows), pd.DataFrame(approx)


def synthetic_approx(seed: int = 0) -> pd.DataFrame:
    """papers/002 Fig. 2: normal scores (mean shift m, sd 1) raised to the power p."""
    rng = np.random.default_rng(seed)
    out = []
    for p in (1, 3):
        for shift in (0.0, 0.5, 1.0, 2.0):
            for _ in range(5):
                y = np.r_[np.zeros(1000, int), np.ones(1000, int)]
                s = (rng.normal(size=2000) + shift * y) ** p
                exact = roc_auc(y, s)
                for d in DEGREES:
                    out.append({"scores": f"synthetic normal, power {p}", "degree": d,
                                "error": polynomial_auc(y, s, d) - exact})
    return pd.DataFrame(out)


# ------------------------------------------------------------------------- report


def pm(values: pd.Series, digits: int = 4) -> str:
    v = values.dropna()
    if len(v) == 0:
        return "–"
    if len(v) == 1:
        return f"{v.iloc[0]:.{digits}f}"
    return f"{v.mean():.{digits}f} ± {v.std(ddof=1):.{digits}f}"


def summary_table(res: pd.DataFrame) -> str:
    lines = ["| data | method | validation AUC | test AUC | test pAUC [0, 0.1] (norm.) "
             "| seconds | failed fits |", "|---|---|---|---|---|---|---|"]
    order = list(dict.fromkeys(res["method"]))
    for data_name, g in res.groupby("data", sort=False):
        for name in order:
            r = g[g["method"] == name]
            if r.empty:
                continue
            failed = int(r["error"].notna().sum()) if "error" in r else 0
            lines.append(
                f"| {data_name} | {name} | {pm(r['valid_auc'])} | {pm(r['test_auc'])} | "
                f"{pm(r['test_pauc'])} | {pm(r['seconds'], 2)} | {failed} |"
            )
    return "\n".join(lines)


def verdict(res: pd.DataFrame) -> str:
    ok = res.dropna(subset=["test_auc"])
    means = ok.groupby(["data", "method"], sort=False)["test_auc"].mean().unstack()
    aum_cols = [c for c in means.columns if c.startswith("AUM")]
    base_cols = [c for c in means.columns if not c.startswith("AUM")]
    if not aum_cols:
        return "- fit_aum_linear is not available: no AUM rows."
    out = []
    for data_name, row in means.iterrows():
        best_base = row[base_cols].idxmax()
        parts = [f"{c}: {row[c] - row[best_base]:+.4f}" for c in aum_cols]
        out.append(f"- {data_name}: best baseline in mean test AUC is {best_base} "
                   f"({row[best_base]:.4f}); AUM minus it — " + "; ".join(parts))
    for name in aum_cols:
        r = ok[ok["method"] == name]
        moved = int((r["best_step"] > 0).sum())
        zero = r.groupby("data", sort=False)["final_subtrain_aum"].apply(
            lambda a: f"{int((a < 1e-9).sum())}/{len(a)}")
        out.append(f"- {name}: gradient steps per fit median {r['gd_steps'].median():.0f} "
                   f"(max {r['gd_steps'].max():.0f}); the best-validation iterate is past "
                   f"the start in {moved} of {len(r)} fits; fits that stopped at subtrain "
                   "AUM = 0 (separable subtrain set): "
                   + ", ".join(f"{d} {z}" for d, z in zero.items()) + ".")
    return "\n".join(out)


def approx_table(df: pd.DataFrame) -> str:
    lines = ["| scores | degree | mean abs error | max abs error | n |", "|---|---|---|---|---|"]
    for (kind, d), g in df.groupby(["scores", "degree"], sort=False):
        e = g["error"].abs()
        lines.append(f"| {kind} | {d} | {e.mean():.2e} | {e.max():.2e} | {len(e)} |")
    return "\n".join(lines)


def write_section(text: str) -> None:
    results_file.write_section(SECTION, text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=4, help="number of seeds (1..n)")
    ap.add_argument("--no-results", action="store_true",
                    help="do not rewrite the '## binary' section of benchmarks/RESULTS.md")
    ap.add_argument("--csv", type=Path, default=None, help="write the per-seed rows here")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    res, approx_learned = run(list(range(1, args.seeds + 1)))
    approx = pd.concat([synthetic_approx(), approx_learned], ignore_index=True)
    total = time.perf_counter() - t0
    if args.csv:
        res.to_csv(args.csv, index=False)
    table, ver, atab = summary_table(res), verdict(res), approx_table(approx)
    print(table, ver, "", atab, sep="\n")
    print(f"total {total:.0f} s")
    if not args.no_results:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        text = "\n".join([
            SECTION,
            "",
            f"- Date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; machine: "
            f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
            f"load average at the end {load:.1f} (shared with other jobs: seconds are "
            "indicative, ratios within one run are comparable).",
            f"- Command: `python benchmarks/binary.py --seeds {args.seeds}` "
            f"(total {total:.0f} s).",
            "- Data: scikit-learn's digits (0 vs rest, 8 vs rest; ~10% positives) and breast "
            "cancer (all benign + 10% malignant, redrawn per seed). Split per seed: "
            "stratified 1/3 test, the rest alternately subtrain / validation. Features are "
            "standardised inside each learner. Mean ± SD over seeds.",
            "- AUM: `fit_aum_linear(..., line_search='first_min', normalize='rate')`, "
            "stopping when the subtrain AUM decreases by less than 1e-5, keeping the "
            "iterate of best validation AUC; started from N(0, 1) weights (the papers' "
            "protocol) or from the balanced-logistic fit (its seconds include that fit).",
            "- Baselines (`penlearn.binary.baselines`): logistic (L2 from 1e-4..1 by validation "
            "AUC), class-balanced logistic, all-pairs squared hinge (O(n log n), margin 1, "
            "same L2 grid), polynomial AUC (degree 30, ≤ 30 angle-search iterations, best "
            "validation iterate), structural SVM for pAUC [0, 0.1] and for AUC (β = 1), "
            "C ∈ {0.1, 1, 10} by validation partial AUC, ε = 1e-3.",
            "",
            table,
            "",
            "AUM against the best baseline (difference of mean test AUC):",
            "",
            ver,
            "",
            "Account. AUM with the exact line search, started as in the papers from N(0, 1) "
            "weights, does not match the best baseline's test AUC on these sets; the "
            "histories (`--csv`) show why. (1) Where the subtrain set is linearly separable "
            "(digits 0 vs rest, breast cancer), the AUM reaches 0 within a few steps and "
            "gradient descent stops at the first separating direction: AUM has neither a "
            "margin nor a regulariser, so nothing favours a direction that generalises, while "
            "logistic, hinge and SVM losses keep pushing for margin under an L2 penalty chosen "
            "on validation. (2) On digits 8 vs rest the AUM does not reach 0 but gradient "
            "descent stalls: the first-min steps shrink to ~1e-3 and the AUM decrease falls "
            "below the 1e-5 tolerance at a subtrain AUC of 0.96-0.99 (non-smooth, non-convex "
            "AUM; running on with tolerance 0 did not help in a trial). Started from the "
            "balanced-logistic fit, AUM keeps that start (validation picks step 0 in most "
            "fits) or improves it slightly, so it ties with the best baseline to ~0.001. The "
            "papers' image-data result (AUM ≥ baselines) used 10^5 constant-step iterations "
            "with early stopping, a different regime from this stop-at-first-minimum loop.",
            "",
            "### Polynomial approximation of AUC (papers/002): error against the exact AUC",
            "",
            "Approximation minus exact AUC, by degree. Synthetic: 1000 + 1000 normal scores "
            "with mean shift 0, 0.5, 1, 2 (5 draws each), raised to the power p as in the "
            "paper's Fig. 2; learned: the test-set scores of every model above.",
            "",
            atab,
        ])
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
