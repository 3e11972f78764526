"""The command ``demo``: simulate labeled sequences, segment, learn a penalty model and
write an HTML report (the built-in default data set)."""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

import pandas as pd

from penlearn._checks import id_list
from penlearn.atomic_files import check_output, staged_dir
from penlearn.breakpoints import breakpoints_from_errors, examples_with_negative_errors
from penlearn.changepoint.features import FEATURE_SETS
from penlearn.changepoint.model_selection import bic_log_lambda
from penlearn.changepoint.pipeline import sequence_tables
from penlearn.cli._common import (
    DEMO_MAX_SEGMENTS,
    DEMO_MIN_SEQUENCES,
    DEMO_N_SEQUENCES,
    _Reporter,
    _subset_evaluation,
    _write_csv,
    non_negative_int,
)
from penlearn.cli.learn import LEARN_DEFAULTS
from penlearn.datasets import finite_feature_columns, simulate, write_uci
from penlearn.learn import learn_penalty, subtrain_validation_split
from penlearn.learn.options import LINE_SEARCHES, MODELS
from penlearn.report import best_constant_log_lambda, demo_notes, roc_change_report
from penlearn.roc import roc_change


def cmd_demo(args) -> int:
    """simulate -> segment -> errors -> learn -> report."""
    out = Path(args.out)
    if args.n_sequences < DEMO_MIN_SEQUENCES:
        raise ValueError(f"--n-sequences must be >= {DEMO_MIN_SEQUENCES} (3 folds: a test fold, "
                         f"and subtrain and validation sequences), got {args.n_sequences}")
    check_output(out, directory=True, force=args.force)
    report = _Reporter(args.quiet)
    t0 = time.perf_counter()
    report(f"simulating {args.n_sequences} labeled sequences (seed {args.seed})")
    data = simulate(args.n_sequences, seed=args.seed)
    segmented = sequence_tables(data.sequences, data.labels, args.max_segments, loss="l2",
                                feature_set=args.features, progress=not args.quiet, report=report)
    models, changes, features = segmented.models, segmented.changes, segmented.features
    evaluation, targets = segmented.evaluation, segmented.targets
    # the paper's protocol: keep the feature columns finite (and not constant) everywhere
    usable = features[finite_feature_columns(features)]
    ids = list(data.truth["sequence_id"])
    folds = pd.DataFrame({"sequence_id": ids, "fold": [i % 3 + 1 for i in range(len(ids))]})
    sub, val, test = _demo_split(folds, evaluation, report)
    model, init, paper = _demo_learn(args, usable, evaluation, sub, val)
    ev_test = _subset_evaluation(evaluation, test)
    x_test = usable.loc[test]
    if init is None:  # boosting starts from a constant: compare with the best constant
        const = best_constant_log_lambda(_subset_evaluation(evaluation, sub + val))
        start_name = "initialisation (best constant penalty)"
        start = pd.Series(const, index=test, dtype=float)
        learning_note = demo_notes.boosting_note(model, ev_test, x_test, start, len(val))
    else:
        start_name = "initialisation (interval regression)"
        start = pd.Series(init.predict(x_test), index=test)
        learning_note = demo_notes.learning_note(model, paper, init, ev_test, x_test, len(val))
    learned_name = f"learned ({demo_notes.MODEL_NAMES[model.level_['model']]})"
    predictions = {
        learned_name: pd.Series(model.predict(x_test), index=test),
        start_name: start,
        "BIC": bic_log_lambda(data.sequences).loc[test],
    }
    learning_note = (f"Learned: {model.describe()}. {learning_note} "
                     + demo_notes.bic_note(ev_test, predictions[learned_name], predictions["BIC"]))
    report(learned_line(model, out / "report.html"))
    report("writing the report")
    notes = (
        f"{args.n_sequences} simulated piecewise-constant Gaussian sequences "
        f"(seed {args.seed}), models with 1..{args.max_segments} segments; the model "
        f"was learned on {len(sub)} subtrain sequences (validation: {len(val)}) and "
        f"is evaluated here on the {len(test)} held-out test sequences. " + learning_note
    )
    tables = {"sequences": data.sequences, "labels": data.labels, "models": models,
              "changes": changes, "predictions": pd.DataFrame({"sequence_id": test, **{
                  name: p.to_numpy() for name, p in predictions.items()}})}
    with staged_dir(out, replace=args.force) as tmp:
        write_uci(tmp, evaluation=evaluation, targets=targets, features=features,
                  folds=("demo", folds), segmentation={
                      "loss": "l2", "max_segments": args.max_segments,
                      "feature_set": args.features})
        for name, table in tables.items():
            _write_csv(table, tmp / f"{name}.csv")
        model.save(tmp / "model.json")
        roc_change_report(
            ev_test, predictions, tmp / "report.html",
            title="penlearn demo: learned penalties on simulated sequences",
            model=model, sequences=data.sequences, labels=data.labels, changes=changes,
            notes=notes,
        )
    res = roc_change(ev_test, predictions[learned_name])
    elapsed = time.perf_counter() - t0
    if not args.quiet:
        for name, p in predictions.items():
            r = roc_change(ev_test, p)
            pr = r.thresholds.loc["predicted"]
            print(f"  {name:38s} test AUC {r.auc:.3f}  AUM {r.aum:8.3f}  "
                  f"errors {int(pr['errors'])}/{int(pr['labels'])}", file=sys.stderr)
    print(f"penlearn demo: wrote {out / 'report.html'} (test AUC {res.auc:.3f}, "
          f"{elapsed:.1f}s)")
    return 0


def learned_line(model, report_path) -> str:
    """The console's one short line on what the demo learned (the full account, why this
    model and how it compares with the papers' protocol and BIC, is in the report).

    Examples
    --------
    >>> from penlearn.learn import PenaltyModel
    >>> m = PenaltyModel()
    >>> m.coef_ = pd.Series([0.5], index=["x"]); m.intercept_ = 1.0
    >>> m.level_ = {"model": "linear"}
    >>> learned_line(m, "demo/report.html")
    'Learned: AUM line search (why, and against BIC: demo/report.html)'
    """
    kind = demo_notes.MODEL_NAMES.get((getattr(model, "level_", None) or {}).get("model"),
                                      "a penalty model")
    return f"Learned: {kind} (why, and against BIC: {report_path})"


def _demo_split(folds: pd.DataFrame, evaluation: pd.DataFrame, report):
    """Subtrain, validation and test ids of the demo (test fold 3), without the sequences
    that AUM cannot train on."""
    split = subtrain_validation_split(folds, 3)
    sub, val, test = split["subtrain"], split["validation"], split["test"]
    # AUM needs FN at the smallest penalty to be the minimum of each error function (FN is
    # taken as 0 at score +inf); a sequence whose largest model misses a change that a
    # smaller model found breaks that, so it is left out of training (kept for testing).
    bp = breakpoints_from_errors(evaluation)
    bad = [bp.example_ids[i] for i in examples_with_negative_errors(bp)]
    if bad:
        report(f"{id_list(bad)} left out of training (FN or FP below its value at "
               "an extreme penalty)")
        sub = [s for s in sub if s not in set(bad)]
        val = [s for s in val if s not in set(bad)]
    report(f"learning a penalty model: {len(sub)} subtrain, {len(val)} validation, "
           f"{len(test)} test sequences")
    return sub, val, test


def _demo_learn(args, usable: pd.DataFrame, evaluation: pd.DataFrame, sub: list, val: list):
    """The demo's learned model, its start, and the papers' protocol from that start."""

    common = dict(
        validation=(usable.loc[val], _subset_evaluation(evaluation, val)),
        model=args.model,
        line_search=args.line_search,
        random_state=args.seed,
        progress=not args.quiet,
        scale_features=usable.loc[sub + val],
        segmentation={"loss": "l2", "max_segments": args.max_segments},
    )
    chosen = None
    if args.model != "linear":  # boosting (or auto): the learned model alone
        with contextlib.redirect_stdout(sys.stderr):
            chosen = learn_penalty(usable.loc[sub], _subset_evaluation(evaluation, sub),
                                   **common)
        if chosen.level_["model"] != "linear":
            return chosen, None, None
        common["model"] = "linear"  # auto chose the linear model: tell its story
    with contextlib.redirect_stdout(sys.stderr):
        init = learn_penalty(usable.loc[sub], _subset_evaluation(evaluation, sub),
                             max_steps=0, shrink=False, **common)
        # auto's final fit is this linear model (the same options and data)
        model = chosen if chosen is not None else learn_penalty(
            usable.loc[sub], _subset_evaluation(evaluation, sub), **common)
        # the papers' protocol (plain AUM; largest validation AUC, however small the
        # gain), from the same start: to say what it finds when the default keeps it
        common["progress"] = False
        paper = learn_penalty(usable.loc[sub], _subset_evaluation(evaluation, sub),
                              init=init, min_improvement=0.0, l2=0.0, shrink=False, **common)
    return model, init, paper


def register(add) -> None:
    """``penlearn demo``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("demo", "simulate labeled sequences, segment, learn a penalty model and write an "
            "HTML report (the built-in default data set)", cmd_demo)
    p.add_argument("--out", default="penlearn-demo", metavar="DIR",
                   help="output folder (default: %(default)s)")
    p.add_argument("--n-sequences", type=int, default=DEMO_N_SEQUENCES, metavar="N",
                   help="number of simulated sequences (default: %(default)s)")
    p.add_argument("--max-segments", type=int, default=DEMO_MAX_SEGMENTS, metavar="K",
                   help="largest model size (default: %(default)s)")
    p.add_argument("--seed", type=non_negative_int, default=1,
                   help="simulation seed (default: %(default)s)")
    p.add_argument("--model", choices=MODELS, default=LEARN_DEFAULTS.model,
                   help="model class learned (as 'learn --model'; default: %(default)s): "
                   "the report compares it with its start, the best constant penalty for "
                   "boosting, interval regression for the linear model")
    p.add_argument("--line-search", choices=LINE_SEARCHES, default=LEARN_DEFAULTS.line_search,
                   help="gradient descent step rule of the linear model (default: "
                   "%(default)s)")
    p.add_argument("--features", choices=FEATURE_SETS, default="neuroblastoma",
                   help="feature set of inputs.csv (default: %(default)s; 'segment' uses "
                   "penaltyLearning)")

