"""Do features from the detector's own output near the best constant penalty help?

Issue 24's rbf goal (the tuned ruptures ``Pelt(model="rbf")`` beating the best constant
pen on held-out signals) was not reached with the noise and cost features of
``signal_features`` (RESULTS ``## tune_detector``). This script measures the next idea,
a two-stage feature map: after the best constant log pen c of the training signals is
known, each signal's **output features** are read off the detector's models at
pen = exp(c + δ), δ ∈ :data:`DELTAS`:

- ``log1p.k{δ}``: log(1 + number of changes) at c + δ (how crowded the signal is);
- ``slope``: the decrease of log(1 + k) per unit of log pen from c − 1 to c + 1;
- ``log.dcost.per.change``: log of the detector's cost decrease per extra change from
  the model at c + 1 to the one at c − 1, minus c (NaN when k does not change);
- ``log.minseg``: log of the shortest segment at c.

On a training signal they come from its exact path (no extra solve; the detector is run
when a penalty lies below the point where the path stopped); on a held-out signal from
3 detector runs, as ``predict`` would compute them. Every model is trained on the
training half only, with the same data generator and seeds as ``tune_detector.py``.

Printed (and with ``--results`` written to RESULTS ``## tune_output_features``):

1. Spearman correlation over the training signals of each output feature (and, for
   reference, ``log.cost.w10``) with the middle of the signal's fewest-error interval of
   log pen (as in ``tune_detector.py``);
2. held-out label errors (% of labels, read off the held-out error functions) of the
   best constant, of the linear penalty function (``level`` validation and subtrain) on
   the built-in features, on built-in + output features and on the output features
   only, and what ``SupervisedPenalty``'s 5-fold CV with the one-standard-error rule
   chooses among {built-in + output (two levels), constant};
3. where the best constant errs on the held-out signals (:func:`constant_misses`).

Usage::

    python benchmarks/tune_output_features.py [--signals 100] [--seeds 1,2,3] [--results]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import penlearn as pl
from penlearn.report import errors_at_predictions
from penlearn.tune import SupervisedPenalty, signal_features
from penlearn.tune.detectors import run_detector
from penlearn.tune.estimator import _LEARN_DEFAULTS
from penlearn.tune.selection import CONSTANT, choose_candidate, cv_errors, cv_folds

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from tune_detector import detectors, markdown, spearman_targets, split  # noqa: E402

SECTION = "## tune_output_features"
#: Offsets δ of log pen around the best constant c at which the detector's output is read.
DELTAS = (-1.0, 0.0, 1.0)
LEVELS = {"validation": {}, "subtrain": {"level": "subtrain"}}


def changes_at(path, detector, signal, penalty: float) -> np.ndarray:
    """The detector's changes at ``penalty``: read off the path, or run below its end."""
    if path is not None and penalty >= path.stopped_at_lambda:
        return path.model_at(penalty)
    return run_detector(detector, signal, penalty)


def output_features(detector, signal, c: float, path=None) -> dict:
    """Output features of one signal around log pen c (see the module docstring)."""
    x = np.asarray(signal, dtype=float)
    n = len(x)
    out, ks, costs = {}, [], []
    for d in DELTAS:
        ch = changes_at(path, detector, x, float(np.exp(c + d)))
        ks.append(len(ch))
        costs.append(pl.tune.detectors.fit_adapter(detector, x).cost(ch))
        out[f"log1p.k{d:+g}"] = float(np.log1p(len(ch)))
        if d == 0:
            out["log.minseg"] = float(np.log(np.diff(np.r_[0, ch, n]).min()))
    out["slope"] = (np.log1p(ks[0]) - np.log1p(ks[-1])) / (DELTAS[-1] - DELTAS[0])
    dk = ks[0] - ks[-1]
    out["log.dcost.per.change"] = (float(np.log((costs[-1] - costs[0]) / dk)) - c
                                   if dk > 0 and costs[-1] > costs[0] else np.nan)
    return out


def finite(table: pd.DataFrame) -> pd.DataFrame:
    """±inf and NaN (a constant signal, an unchanged k) as 0, as learn_penalty needs."""
    return table.replace([np.inf, -np.inf], np.nan).fillna(0.0)


def one_detector(name, det, train, test) -> tuple[dict, dict]:
    (tr_sig, tr_lab), (te_sig, te_lab) = train, test
    tuner = SupervisedPenalty(det, choose=None).fit(tr_sig, tr_lab, progress=False)
    c, ev = tuner.constant_log_penalty_, tuner.evaluation_
    ids, te_ids = list(tuner.paths_), list(pd.unique(te_lab["sequence_id"]))
    te_ev = pl.tune.path_error_functions(tuner.paths(te_sig, te_ids), te_lab)
    out_tr = pd.DataFrame({s: output_features(det, tr_sig[s], c, tuner.paths_[s])
                           for s in ids}).T.astype(float)
    out_te = pd.DataFrame({s: output_features(det, te_sig[s], c) for s in te_ids}).T
    base_tr = signal_features({s: tr_sig[s] for s in ids}, det)
    base_te = signal_features({s: te_sig[s] for s in te_ids}, det)
    mid = spearman_targets(ev)
    rho = {"detector": name, "log.cost.w10": base_tr["log.cost.w10"].corr(mid, "spearman")}
    rho.update({f: out_tr[f].corr(mid, method="spearman") for f in out_tr.columns})
    sets = {"built-in": (base_tr, base_te),
            "built-in + output": (base_tr.join(out_tr), base_te.join(out_te.astype(float))),
            "output only": (out_tr, out_te.astype(float))}
    n_labels = len(te_lab)

    def held_out(pred) -> float:
        return 100.0 * errors_at_predictions(te_ev, pred)["errors"].sum() / n_labels

    err = {"detector": name, "constant %": held_out(pd.Series(c, index=te_ids))}
    for how, (f_tr, f_te) in sets.items():
        for level, opt in LEVELS.items():
            model = pl.learn_penalty(finite(f_tr), ev, **{**_LEARN_DEFAULTS, **opt})
            pred = pd.Series(model.predict(finite(f_te)), index=te_ids)
            err[f"{how}, {level} %"] = held_out(pred)
    f_tr = finite(sets["built-in + output"][0])
    cands = {"validation": dict(_LEARN_DEFAULTS),
             "subtrain": {**_LEARN_DEFAULTS, "level": "subtrain"}, CONSTANT: None}
    table = cv_errors(f_tr, ev, cands, cv_folds(ids, 5, 0))
    pick = choose_candidate(table, "1se")
    err["CV 1se (built-in + output): chosen (CV errors val / sub / const)"] = (
        f"{pick} ({' / '.join(f'{e:.0f}' for e in table['errors'])})")
    err["CV 1se %"] = (err["constant %"] if pick == CONSTANT
                       else err[f"built-in + output, {pick} %"])
    return rho, err, constant_misses(name, te_ev, c, out_te["log1p.k+0"])


def constant_misses(name, te_ev, c: float, log1p_k) -> dict:
    """Where the best constant errs on the held-out signals: how many signals carry its
    errors, how many of them have their fewest-error interval of log pen entirely below
    (above) c, the median width of those intervals, and the changes at c of these
    signals against the others'."""
    ids = list(log1p_k.index)
    e = errors_at_predictions(te_ev, pd.Series(c, index=ids)).set_index("sequence_id")
    miss = e.index[e["errors"] > 0]
    ti = pl.target_intervals(te_ev).set_index("sequence_id").loc[miss]
    width = ti["max_log_lambda"] - ti["min_log_lambda"]
    k = np.expm1(log1p_k.astype(float))
    return {"detector": name, "constant errors": int(e["errors"].sum()),
            "signals with errors / all": f"{len(miss)} / {len(ids)}",
            "interval below c": int((ti["max_log_lambda"] < c).sum()),
            "interval above c": int((ti["min_log_lambda"] > c).sum()),
            "median width (finite)": float(width[np.isfinite(width)].median()),
            "changes at c: these (median)": float(k[miss].median()),
            "changes at c: others (median)": float(k.drop(miss).median())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--signals", type=int, default=100)
    ap.add_argument("--seeds", default="1,2,3", help="comma-separated data seeds")
    ap.add_argument("--results", action="store_true", help="write RESULTS.md section")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    rho_rows, err_rows, miss_rows = [], [], []
    for seed in [int(s) for s in args.seeds.split(",")]:
        train, test = split(args.signals, seed)
        for name, det in detectors().items():
            rho, err, miss = one_detector(name, det, train, test)
            miss_rows.append({"seed": seed, **miss})
            rho_rows.append({"seed": seed, **rho})
            err_rows.append({"seed": seed, **err})
            print(f"seed {seed}, {name}: done", flush=True)
    text = ("Spearman correlation over the training signals with the middle of the "
            "fewest-error interval of log pen:\n\n" + markdown(pd.DataFrame(rho_rows))
            + "\n\nHeld-out label errors (% of labels), linear penalty function:\n\n"
            + markdown(pd.DataFrame(err_rows))
            + "\n\nWhere the best constant errs on the held-out signals (each "
            "signal's fewest-error interval of log pen entirely below / above c, its "
            "width, changes at c):\n\n"
            + markdown(pd.DataFrame(miss_rows)))
    print(text)
    if args.results:
        head = (
            f"`python benchmarks/tune_output_features.py --signals {args.signals} --seeds "
            f"{args.seeds} --results` on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} "
            f"UTC; {platform.machine()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}; load average at the end {os.getloadavg()[0]:.1f} "
            "(machine shared with other engineers); total "
            f"{time.perf_counter() - start:.0f} s. Same data, split and detectors as "
            "`## tune_detector`; output features at δ = "
            f"{', '.join(f'{d:+g}' for d in DELTAS)} around the best constant log pen of "
            "the training signals."
        )
        results_file.write_section(SECTION, f"{SECTION}\n\n{head}\n\n{text}\n")


if __name__ == "__main__":
    main()
