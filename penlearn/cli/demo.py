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
from penlearn.datasets import finite_feature_columns, simulate, write_uci
from penlearn.learn import LINE_SEARCHES, learn_penalty, subtrain_validation_split
from penlearn.learn.options import DEFAULT_MODEL, MODELS
from penlearn.report import best_constant_log_lambda, roc_change_report
from penlearn.roc import roc_change

#: How the demo's report names each model class.
MODEL_NAMES = {"boosting": "AUM gradient boosting", "linear": "AUM line search",
               "constant": "constant chosen by CV"}


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
        learning_note = _boosting_note(model, ev_test, x_test, start, len(val))
    else:
        start_name = "initialisation (interval regression)"
        start = pd.Series(init.predict(x_test), index=test)
        learning_note = _learning_note(model, paper, init, ev_test, x_test, len(val))
    learned_name = f"learned ({MODEL_NAMES[model.level_['model']]})"
    predictions = {
        learned_name: pd.Series(model.predict(x_test), index=test),
        start_name: start,
        "BIC": bic_log_lambda(data.sequences).loc[test],
    }
    learning_note = (f"Learned: {model.describe()}. {learning_note} "
                     + _bic_note(ev_test, predictions[learned_name], predictions["BIC"]))
    report(learning_note)
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


def _bic_note(ev_test: pd.DataFrame, learned: pd.Series, bic: pd.Series) -> str:
    """Is the learned model at least as good as BIC on the test sequences (test AUC, label
    errors at the predicted penalty and at the best shift)? Said plainly either way."""
    r_l, r_b = roc_change(ev_test, learned), roc_change(ev_test, bic)
    e_l, e_b = (int(r.thresholds.loc["predicted", "errors"]) for r in (r_l, r_b))
    m_l, m_b = (int(r.thresholds.loc["min_error", "errors"]) for r in (r_l, r_b))
    nums = (f"test AUC {r_l.auc:.4f} (learned) against {r_b.auc:.4f} (BIC), label errors "
            f"{e_l} against {e_b} at the predicted penalties and {m_l} against {m_b} at "
            "each one's best shift")
    if r_l.auc >= r_b.auc and e_l <= e_b and m_l <= m_b:
        return ("Against BIC (λ = log n, no learning) the learned model is at least as "
                f"good: {nums}.")
    return (f"Against BIC (λ = log n, no learning) the learned model is NOT at least as good "
            f"on every measure: {nums}. On these Gaussian sequences the BIC penalty is linear "
            "in log n and log σ̂², which a linear model represents exactly and small trees "
            "do not; with few training sequences the learned level and ranking are also "
            "noisy.")


def _boosting_note(model, ev_test, x_test, constant: pd.Series, n_val: int) -> str:
    """One paragraph for the demo report: what boosting kept, and whether it lowered the
    test label errors of the best constant penalty (numbers of this run)."""
    h = model.history_
    v = h["validation_auc"].to_numpy()
    learned = roc_change(ev_test, pd.Series(model.predict(x_test), index=x_test.index))
    const = roc_change(ev_test, constant)
    e_l, e_c = (int(r.thresholds.loc["predicted", "errors"]) for r in (learned, const))
    n_labels = int(learned.thresholds.loc["predicted", "labels"])
    scale = model.level_.get("scale", 1.0)
    level = (f"the level of log λ (scale {scale:g}, shift of fewest errors) was chosen on "
             f"the {n_val} validation sequences")
    if model.level_.get("model") == "constant":
        changed = ("Learning did not change the model: cross-validation over the training "
                   "sequences chose the constant penalty (no learned model made fewer label "
                   "errors with a better ranking); its log λ is the one of fewest training "
                   "label errors.")
    elif len(h) == 1:
        changed = ("Learning did not change the model: AUM gradient boosting fit no tree "
                   "(too few subtrain sequences for the trees' leaves, or a zero AUM "
                   f"gradient), so the constant start is kept; {level}.")
    elif not model.trees_:
        changed = (f"Learning did not change the model: AUM gradient boosting fit "
                   f"{len(h) - 1} tree(s) but none raised the validation AUC above the "
                   f"constant start's ({v[0]:.4f}), so the constant penalty is kept; {level}.")
    else:
        changed = (f"Learning changed the model: AUM gradient boosting kept "
                   f"{len(model.trees_)} of {len(h) - 1} trees (each step by the exact AUM "
                   f"line search), raising the validation AUC from {v[0]:.4f} (constant "
                   f"start) to {v[model.best_step_]:.4f}; {level}.")
    if e_l < e_c:
        verdict = "learning lowered the test label errors"
    elif e_c == 0:
        verdict = "the constant has no test label error, so there is nothing to lower"
    elif e_l == e_c:
        verdict = "learning did not lower the test label errors (a tie)"
    else:
        verdict = ("learning did not lower the test label errors: the learned ranking "
                   "did not carry over to these test sequences at this level")
    return (f"{changed} On the {len(x_test)} test sequences: {e_l} of {n_labels} labels "
            f"wrong with the learned penalties against {e_c} with the best constant penalty "
            f"of the training sequences (log λ = {float(constant.iloc[0]):.3g}): {verdict}; "
            f"test AUC {learned.auc:.4f} against {const.auc:.4f}.")


def _learning_note(model, paper, init, ev_test, x_test, n_val: int) -> str:
    """One paragraph for the demo report: did learning change the model, and why (not)."""
    def test_auc(m):
        return roc_change(ev_test, pd.Series(m.predict(x_test), index=x_test.index)).auc

    note = _descent_note(model, paper, init, test_auc, n_val)
    alpha = getattr(model, "shrinkage_", 1.0)
    toward = "the constant model" if model.shrink is True else f"log λ = {model.shrink}"
    if model.shrink is False:
        return note
    if alpha == 1.0:
        return (note + f" Shrinking the weights toward {toward} (shrink={model.shrink!r}) "
                "did not raise the validation AUC, so they are kept.")
    if model.best_step_ == 0:
        note = note.replace("Learning did not change the model", "Descent did not change "
                            "the model", 1)
    return (note + f" Learning changed the model by shrinking: {alpha:.1f} × the weights + "
            f"{1 - alpha:.1f} × {toward} (shrink={model.shrink!r}) had the largest "
            f"validation AUC; test AUC {test_auc(init):.4f} (start) -> "
            f"{test_auc(model):.4f} (returned model).")


def _descent_note(model, paper, init, test_auc, n_val: int) -> str:
    """What gradient descent and the iterate selection did."""
    h = model.history_
    v = h["validation_auc"].to_numpy()
    a = h["subtrain_aum"].to_numpy()
    n_steps = int(h["step"].iloc[-1])
    j = 1 + int(v[1:].argmax()) if n_steps else 0  # the best step after the start
    init_auc = test_auc(init)
    done = f"gradient descent ran {n_steps} steps (subtrain AUM {a[0]:.4g} -> {a[-1]:.4g})"
    if model.best_step_ > 0:
        return (f"Learning changed the model: {done}, and step {model.best_step_} raised the "
                f"validation AUC from {v[0]:.4f} to {v[model.best_step_]:.4f}, more than "
                f"min_improvement={model.min_improvement}; test AUC {init_auc:.4f} (start) -> "
                f"{test_auc(model):.4f} (learned).")
    if n_steps == 0:
        return f"Learning did not change the model: {done}; the start is kept."
    gain = v[j] - v[0]
    why = ("no step raised the validation AUC above the start's" if gain <= 0 else
           f"the best step raised the validation AUC by only {gain:.4f}, not more than "
           f"min_improvement={model.min_improvement}")
    paper_says = ("also keeps the start." if paper.best_step_ == 0 else
                  f"takes step {paper.best_step_}: test AUC {test_auc(paper):.4f} against the "
                  f"start's {init_auc:.4f}.")
    return (f"Learning did not change the model: {done}, but on the {n_val} validation "
            f"sequences {why} (start {v[0]:.5f}, best later step {j}: {v[j]:.5f}), so "
            "descent keeps the interval-regression start: the lower subtrain AUM did not "
            "carry over to new sequences. The papers' protocol (plain AUM, l2=0, the largest "
            f"validation AUC, min_improvement=0, shrink=False) {paper_says}")



def register(add) -> None:
    """Add ``penlearn demo``, its arguments and handler, to the parser (``add``:
    :func:`penlearn.cli.main.build_parser`'s subcommand maker)."""
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
    p.add_argument("--model", choices=MODELS, default=DEFAULT_MODEL,
                   help="model class learned (as 'learn --model'; default: %(default)s): "
                   "the report compares it with its start, the best constant penalty for "
                   "boosting, interval regression for the linear model")
    p.add_argument("--line-search", choices=LINE_SEARCHES, default="first_min",
                   help="gradient descent step rule of the linear model (default: "
                   "%(default)s)")
    p.add_argument("--features", choices=FEATURE_SETS, default="neuroblastoma",
                   help="feature set of inputs.csv (default: %(default)s; 'segment' uses "
                   "penaltyLearning)")

