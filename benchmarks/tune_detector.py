"""Tuned penalty vs one constant pen vs BIC for ruptures / skchange detectors.

Data: ``penlearn.simulate`` (piecewise-constant signals whose noise SD differs 10× between
signals, drawn log-uniformly in [0.3, 3]; half of them with Student t noise; labels drawn
from the true changes as an annotator would), as arrays (``signals_from_sequences``).
The first half of the signals trains, the second half is held out.

For each detector:

- ``tuned``: ``SupervisedPenalty(detector).fit(train)``, the detector run on each
  held-out signal at its predicted pen;
- ``constant``: the one pen with the fewest label errors over the training signals (from
  their error functions over log pen), the same for every held-out signal;
- ``BIC``: pen = 2σ̂² log n per signal (σ̂ the MAD of first differences /(0.6745·√2)),
  the usual unsupervised choice in the units of the l2 cost.

Reported on the held-out signals: label errors (% of labels wrong, the detector itself run
at each pen), the candidate SupervisedPenalty chose by cross-validation on the training
signals with its CV errors, the oracle (each held-out signal at its own best pen: the floor
no penalty rule can beat), the AUC of the tuned predictions (``roc_change`` on the
held-out error functions), and for the path search (training and held-out signals):
the detector calls ("solves") per signal, the models on the path, how often solves exceed
4·models + 2, and seconds per signal.

Usage::

    python benchmarks/tune_detector.py [--signals 100] [--seeds 1,2,3] [--results] [--options]

``--options`` adds a second table: the held-out label errors of the tuned penalty for
learn_penalty options other than SupervisedPenalty's defaults (:data:`OPTIONS`), each
learned from the same training paths and read off the held-out error functions
(``errors_at_predictions``: the error of the model the detector returns at that pen),
including the same linear model on the detector-free (MAD) features only, and what each
choice rule ("fewest" CV errors, "1se") picks from the same CV table with its held-out
errors.

Each seed draws its own data set. The BIC rule is in the units of the l2 cost: for the
rbf kernel (cost in units of the kernel, which ruptures scales by the median heuristic)
it is not meant to fit, and is shown only as what users often try.
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
from penlearn.tune import (
    SupervisedPenalty,
    bic_penalty,
    detector_label_errors,
    signal_features,
    signals_from_sequences,
)
from penlearn.tune.estimator import _LEARN_DEFAULTS
from penlearn.tune.selection import CONSTANT, choose_candidate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from all_sets import constant_log_lambda  # noqa: E402

SECTION = "## tune_detector"

#: learn_penalty options compared by ``--options`` (the first is SupervisedPenalty's default).
OPTIONS = {
    "linear, level validation": {"model": "linear", "level": "validation"},
    "linear, level subtrain": {"model": "linear", "level": "subtrain"},
    "boosting, level validation": {"model": "boosting", "level": "validation"},
    "auto, level validation": {"model": "auto", "level": "validation"},
}


def detectors() -> dict:
    import ruptures as rpt
    from skchange.detectors import PELT

    return {
        "ruptures Pelt l2": rpt.Pelt(model="l2"),
        "ruptures Pelt rbf": rpt.Pelt(model="rbf"),
        "skchange PELT (L2Cost)": PELT(),
    }


def split(n_signals: int, seed: int):
    sim = pl.simulate(n_signals, seed=seed, n_points=(150, 300))
    signals = signals_from_sequences(sim.sequences)
    ids = list(signals)
    train, test = ids[: n_signals // 2], ids[n_signals // 2:]
    lab = sim.labels

    def part(keep):
        return {s: signals[s] for s in keep}, lab[lab["sequence_id"].isin(keep)]

    return part(train), part(test)


def one_detector(name, det, train, test, with_options=False) -> tuple[dict, dict]:
    (tr_sig, tr_lab), (te_sig, te_lab) = train, test
    t0 = time.perf_counter()
    tuner = SupervisedPenalty(det).fit(tr_sig, tr_lab, progress=False)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    te_paths = tuner.paths(te_sig, list(pd.unique(te_lab["sequence_id"])))
    te_path_s = time.perf_counter() - t0
    te_ev = pl.tune.path_error_functions(te_paths, te_lab)
    paths = list(tuner.paths_.values()) + list(te_paths.values())
    solves = np.array([p.n_solves for p in paths])
    models = np.array([len(p.models) for p in paths])
    log_pen = tuner.predict_log_penalty(te_sig)
    pens = {
        "tuned": np.exp(log_pen),
        "constant": float(np.exp(constant_log_lambda(tuner.evaluation_))),
        "BIC": pd.Series({s: bic_penalty(x) for s, x in te_sig.items()}),
    }
    n_labels = len(te_lab)
    row = {"detector": name}
    for how, pen in pens.items():
        err = detector_label_errors(det, te_sig, te_lab, pen)
        row[f"{how} errors %"] = 100.0 * err["errors"].sum() / n_labels
    row["chosen (CV errors: learned / subtrain / constant)"] = (
        f"{tuner.chosen_} ({' / '.join(f'{e:.0f}' for e in tuner.cv_errors_['errors'])})")
    oracle = te_ev.groupby("sequence_id")["errors"].min().sum()  # best pen per signal
    row["held-out oracle %"] = 100.0 * oracle / n_labels
    row["tuned test AUC"] = pl.roc_change(te_ev, log_pen).auc
    row["solves / signal"] = f"{solves.mean():.1f} (max {solves.max()})"
    row["models / path"] = f"{models.mean():.1f}"
    row["> 4·models+2"] = int((solves > 4 * models + 2).sum())
    row["path s / signal"] = te_path_s / len(te_paths)
    row["fit s"] = fit_s
    opts = {"detector": name, "constant errors %": row["constant errors %"]}
    if with_options:
        ids = list(pd.unique(tr_lab["sequence_id"]))
        feats_tr = signal_features({s: tr_sig[s] for s in ids}, det)
        feats_te = signal_features(te_sig, det)
        plain = list(signal_features({ids[0]: tr_sig[ids[0]]}).columns)
        runs = {how: (options, None) for how, options in OPTIONS.items()}
        runs["linear, level validation, MAD features only"] = (OPTIONS[
            "linear, level validation"], plain)
        for how, (options, cols) in runs.items():
            f_tr, f_te = (feats_tr, feats_te) if cols is None else (feats_tr[cols],
                                                                    feats_te[cols])
            model = pl.learn_penalty(f_tr, tuner.evaluation_, **{**_LEARN_DEFAULTS, **options})
            pred = pd.Series(model.predict(f_te), index=f_te.index)
            err = errors_at_predictions(te_ev, pred)["errors"].sum()
            opts[f"{how} %"] = 100.0 * err / n_labels
        # what each choice rule of SupervisedPenalty picks from the same CV table
        held_out = {"learned": opts["linear, level validation %"],
                    "learned, level subtrain": opts["linear, level subtrain %"],
                    CONSTANT: row["constant errors %"]}
        for rule in ("fewest", "1se"):
            pick = choose_candidate(tuner.cv_errors_, rule)
            opts[f"CV {rule}: chosen"] = pick
            opts[f"CV {rule} %"] = held_out[pick]
    return row, {"paths": len(paths), "labels": n_labels, "options": opts,
                 "spearman": {"detector": name, **spearman(tuner, tr_sig)}}


def spearman_targets(evaluation: pd.DataFrame) -> pd.Series:
    """The middle of each signal's fewest-error interval of log pen (``target_intervals``;
    one unit inside a half-open one, signals whose interval is the whole line left out)."""
    ti = pl.target_intervals(evaluation).set_index("sequence_id")
    lo, hi = ti["min_log_lambda"], ti["max_log_lambda"]
    mid = ((lo + hi) / 2).where(np.isfinite(lo) & np.isfinite(hi))
    mid = mid.fillna((lo + 1).where(np.isfinite(lo))).fillna((hi - 1).where(np.isfinite(hi)))
    return mid.dropna()


def spearman(tuner, tr_sig) -> dict:
    """Spearman correlation of each built-in feature with the middle of each training
    signal's fewest-error interval of log pen (:func:`spearman_targets`), and the spread
    (SD) of those middles."""
    mid = spearman_targets(tuner.evaluation_)
    feats = signal_features({s: tr_sig[s] for s in mid.index}, tuner.detector)
    out = {"SD of middles": float(mid.std())}
    for col in feats.columns:
        if col.startswith("log."):
            out[col] = float(feats[col].corr(mid, method="spearman"))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--signals", type=int, default=100)
    ap.add_argument("--seeds", default="1,2,3", help="comma-separated data seeds")
    ap.add_argument("--results", action="store_true", help="write RESULTS.md section")
    ap.add_argument("--options", action="store_true",
                    help="also compare learn_penalty options (OPTIONS) on the same paths")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    seeds = [int(x) for x in args.seeds.split(",")]
    rows, labels, opt_rows, rho_rows = [], [], [], []
    start = time.perf_counter()
    for seed in seeds:
        train, test = split(args.signals, seed)
        for name, det in detectors().items():
            row, info = one_detector(name, det, train, test, args.options)
            rows.append({"seed": seed, **row})
            opt_rows.append({"seed": seed, **info["options"]})
            rho_rows.append({"seed": seed, **info["spearman"]})
            print(f"seed {seed}, {name}: done", flush=True)
        labels.append(info["labels"])
    table = pd.DataFrame(rows)
    total = time.perf_counter() - start
    text = markdown(table)
    if args.options:
        text += ("\n\nHeld-out label errors (% of labels) of the tuned penalty with other "
                 "learn_penalty options, same training paths:\n\n"
                 + markdown(pd.DataFrame(opt_rows)))
    text += ("\n\nSpearman correlation, over the training signals, of each log feature with "
             "the middle of the signal's fewest-error interval of log pen (the target a "
             "penalty function must hit; cost features are in the detector's own units):\n\n"
             + markdown(pd.DataFrame(rho_rows)))
    print(text)
    if args.results:
        load = os.getloadavg()[0]
        import ruptures
        import skchange
        head = (
            f"`python benchmarks/tune_detector.py --signals {args.signals} --seeds {args.seeds} "
            f"--results{' --options' if args.options else ''}` on "
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; "
            f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"ruptures {ruptures.__version__}, skchange {skchange.__version__}; load average "
            f"at the end {load:.1f} (machine shared with other engineers: seconds are "
            f"indicative). Per seed {args.signals} simulated signals (n 150–300, noise SD "
            f"0.3–3, half Student t), {args.signals // 2} train / "
            f"{args.signals - args.signals // 2} held out ({', '.join(map(str, labels))} "
            f"held-out labels); total {total:.0f} s. Detectors with "
            "ruptures' defaults (min_size 2, jump 5) and skchange's (L2Cost, min segment 2); "
            "SupervisedPenalty with its defaults (max_changes 30, the MAD and cost features, "
            "choose='1se': learned / learned level subtrain / best constant by 5-fold CV "
            "on the training signals, one-standard-error rule)."
        )
        results_file.write_section(SECTION, f"{SECTION}\n\n{head}\n\n{text}\n")


def markdown(table: pd.DataFrame) -> str:
    def cell(col, v):
        if isinstance(v, float):
            if col.endswith("%"):  # percentages: one decimal whatever their size
                return f"{v:.1f}"
            return f"{v:.3f}" if abs(v) < 1.5 else f"{v:.1f}"
        return str(v)

    lines = ["| " + " | ".join(table.columns) + " |",
             "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(c, v) for c, v in zip(table.columns, row)) + " |"
              for row in table.itertuples(index=False)]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
