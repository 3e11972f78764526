"""The ``penlearn`` command line.

Subcommands (``penlearn <command> --help`` for each):

- ``demo``: simulate labeled sequences, segment them, compute their error functions,
  learn a penalty model and write an HTML ROC-change report — the whole pipeline on the
  built-in default data set;
- ``segment``: optimal models, changes and the evaluation table of labeled sequences
  (written as a UCI-format folder that ``learn`` reads);
- ``learn``: learn a penalty model on a UCI-format folder (optionally holding out a
  CV fold);
- ``predict``: predicted log λ of a model for the sequences of a folder;
- ``report``: an HTML ROC-change report of models or prediction files on a folder.

Bad input (missing files or columns, unreadable tables, a model file of another
version: a ``ValueError`` or ``OSError``) ends with a one-line message on stderr and exit
code 1 (2 for usage errors); any other exception is a bug and keeps its traceback;
outputs are written only when the whole command succeeded (staged in a temporary
directory next to the target, then moved in place with ``os.replace``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from penlearn._version import package_version
from penlearn.atomic_files import check_output, staged_dir, staged_file
from penlearn.breakpoints import breakpoints_from_errors, examples_with_negative_errors
from penlearn.changepoint.evaluation import error_functions, target_intervals
from penlearn.changepoint.features import FEATURE_SETS, feature_matrix
from penlearn.changepoint.model_selection import bic_log_lambda
from penlearn.changepoint.segmentation import segment_sequences
from penlearn.datasets import (
    finite_feature_columns,
    load_uci,
    read_inputs,
    read_table,
    simulate,
    write_uci,
)
from penlearn.learn import LINE_SEARCHES, PenaltyModel, learn_penalty, subtrain_validation_split
from penlearn.report import roc_change_report
from penlearn.roc import roc_change

DEMO_N_SEQUENCES = 90
DEMO_MAX_SEGMENTS = 20


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors."""

    def error(self, message: str):  # noqa: D102
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in text:
        text = f"{text}: {exc.filename}"
    return text or type(exc).__name__


class _Reporter:
    """Progress messages on stderr unless ``--quiet``."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.t0 = time.perf_counter()

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.t0:6.1f}s] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- inputs


def _load_model(path: str | os.PathLike):
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"model file not found: {p}")
    return PenaltyModel.load(p)


def _fold_split(ds, fold, cv_type: str | None) -> tuple[dict, str]:
    if not ds.folds:
        raise ValueError(f"{ds.path} has no cv/<type>/folds.csv, so --fold cannot be used")
    if cv_type is None:
        cv_type = "equal_labels" if "equal_labels" in ds.folds else sorted(ds.folds)[0]
    if cv_type not in ds.folds:
        raise ValueError(f"--cv-type {cv_type!r} not found; {ds.path} has {sorted(ds.folds)}")
    folds = ds.folds[cv_type]
    values = pd.unique(folds["fold"])
    match = [v for v in values if str(v) == str(fold)]
    if not match:
        raise ValueError(f"--fold {fold} is not a fold of cv/{cv_type} (folds: "
                         f"{sorted(str(v) for v in values)})")
    return subtrain_validation_split(folds, match[0]), cv_type


def _subset_evaluation(evaluation: pd.DataFrame, ids) -> pd.DataFrame:
    return evaluation[evaluation["sequence_id"].isin(set(ids))]


def _write_csv(df: pd.DataFrame, path: Path, *, index: bool = False) -> None:
    df.to_csv(path, index=index)


def _pipeline(sequences, labels, max_segments: int, loss: str, report: _Reporter, quiet: bool,
              feature_set: str = "penaltyLearning"):
    """segment -> error functions -> features and targets (the tables of a UCI folder)."""
    report(f"segmenting {sequences['sequence_id'].nunique()} sequences "
           f"(1..{max_segments} segments, {loss} loss)")
    models, changes = segment_sequences(sequences, max_segments, loss=loss, progress=not quiet)
    report("error functions over log λ")
    evaluation = error_functions(models, changes, labels)
    targets = target_intervals(evaluation)
    report(f"features ({feature_set})")
    features = feature_matrix(sequences, feature_set)
    return models, changes, evaluation, targets, features


# --------------------------------------------------------------------------- commands


def cmd_demo(args) -> int:
    """simulate -> segment -> errors -> learn -> report."""
    from penlearn.learn import learn_penalty, subtrain_validation_split

    out = Path(args.out)
    check_output(out, directory=True)
    report = _Reporter(args.quiet)
    t0 = time.perf_counter()
    report(f"simulating {args.n_sequences} labeled sequences (seed {args.seed})")
    data = simulate(args.n_sequences, seed=args.seed)
    models, changes, evaluation, targets, features = _pipeline(
        data.sequences, data.labels, args.max_segments, "l2", report, args.quiet,
        args.features,
    )
    # the paper's protocol: keep the feature columns finite (and not constant) everywhere
    usable = features[finite_feature_columns(features)]
    ids = list(data.truth["sequence_id"])
    folds = pd.DataFrame({"sequence_id": ids, "fold": [i % 3 + 1 for i in range(len(ids))]})
    split = subtrain_validation_split(folds, 3)
    sub, val, test = split["subtrain"], split["validation"], split["test"]
    # AUM needs FN at the smallest penalty to be the minimum of each error function (FN is
    # taken as 0 at score +inf); a sequence whose largest model misses a change that a
    # smaller model found breaks that, so it is left out of training (kept for testing).
    bp = breakpoints_from_errors(evaluation)
    bad = [bp.example_ids[i] for i in examples_with_negative_errors(bp)]
    if bad:
        report(f"{len(bad)} sequence(s) left out of training (FN or FP below its value at "
               f"an extreme penalty): {bad[:5]}")
        sub = [s for s in sub if s not in set(bad)]
        val = [s for s in val if s not in set(bad)]
    report(f"learning a penalty model: {len(sub)} subtrain, {len(val)} validation, "
           f"{len(test)} test sequences")
    common = dict(
        validation=(usable.loc[val], _subset_evaluation(evaluation, val)),
        line_search=args.line_search,
        random_state=args.seed,
        progress=not args.quiet,
        scale_features=usable.loc[sub + val],
    )
    with warnings.catch_warnings():
        if args.quiet:
            warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(sys.stderr):
            init = learn_penalty(usable.loc[sub], _subset_evaluation(evaluation, sub),
                                 max_steps=0, **common)
            model = learn_penalty(usable.loc[sub], _subset_evaluation(evaluation, sub),
                                  **common)
            # the papers' protocol (plain AUM; largest validation AUC, however small the
            # gain), from the same start: to say what it finds when the default keeps it
            common["progress"] = False
            paper = learn_penalty(usable.loc[sub], _subset_evaluation(evaluation, sub),
                                  init=init, min_improvement=0.0, l2=0.0, **common)
    ev_test = _subset_evaluation(evaluation, test)
    x_test = usable.loc[test]
    h = model.history_
    v = h["validation_auc"].to_numpy()
    a = h["subtrain_aum"].to_numpy()
    n_steps = int(h["step"].iloc[-1])
    j = 1 + int(v[1:].argmax()) if n_steps else 0  # the best step after the start
    paper_auc = roc_change(ev_test, pd.Series(paper.predict(x_test), index=test)).auc
    init_auc = roc_change(ev_test, pd.Series(init.predict(x_test), index=test)).auc
    done = (f"gradient descent ran {n_steps} steps (subtrain AUM {a[0]:.4g} -> {a[-1]:.4g})")
    if model.best_step_ > 0:
        learning_note = (
            f"Learning changed the model: {done}, and step {model.best_step_} raised the "
            f"validation AUC from {v[0]:.4f} to {v[model.best_step_]:.4f}, more than "
            f"min_improvement={model.min_improvement}; test AUC {init_auc:.4f} (start) -> "
            f"{paper_auc:.4f} (learned).")
    elif n_steps == 0:
        learning_note = (f"Learning did not change the model: {done}; the start is kept.")
    else:
        gain = v[j] - v[0]
        why = ("no step raised the validation AUC above the start's" if gain <= 0 else
               f"the best step raised the validation AUC by only {gain:.4f}, not more than "
               f"min_improvement={model.min_improvement}")
        learning_note = (
            f"Learning did not change the model: {done}, but on the {len(val)} validation "
            f"sequences {why} (start {v[0]:.5f}, best later step {j}: {v[j]:.5f}), so the "
            f"interval-regression start is returned: the lower subtrain AUM did not carry "
            f"over to new sequences. The papers' protocol (plain AUM, l2=0, and the "
            f"largest validation AUC, min_improvement=0) "
            + ("also keeps the start." if paper.best_step_ == 0 else
               f"takes step {paper.best_step_}: test AUC {paper_auc:.4f} against the "
               f"start's {init_auc:.4f}."))
    report(learning_note)
    predictions = {
        "learned (AUM line search)": pd.Series(model.predict(x_test), index=test),
        "initialisation (interval regression)": pd.Series(init.predict(x_test), index=test),
        "BIC": bic_log_lambda(data.sequences).loc[test],
    }
    report("writing the report")
    with staged_dir(out) as tmp:
        write_uci(tmp, evaluation=evaluation, targets=targets, features=features,
                          folds=("demo", folds))
        _write_csv(data.sequences, tmp / "sequences.csv")
        _write_csv(data.labels, tmp / "labels.csv")
        _write_csv(models, tmp / "models.csv")
        _write_csv(changes, tmp / "changes.csv")
        model.save(tmp / "model.json")
        pred_table = pd.DataFrame({"sequence_id": test, **{
            name: p.to_numpy() for name, p in predictions.items()}})
        _write_csv(pred_table, tmp / "predictions.csv")
        roc_change_report(
            ev_test,
            predictions,
            tmp / "report.html",
            title="penlearn demo: learned penalties on simulated sequences",
            model=model,
            sequences=data.sequences,
            labels=data.labels,
            changes=changes,
            notes=(
                f"{args.n_sequences} simulated piecewise-constant Gaussian sequences "
                f"(seed {args.seed}), models with 1..{args.max_segments} segments; the model "
                f"was learned on {len(sub)} subtrain sequences (validation: {len(val)}) and "
                f"is evaluated here on the {len(test)} held-out test sequences. "
                + learning_note
            ),
        )
    res = roc_change(ev_test, predictions["learned (AUM line search)"])
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


def cmd_segment(args) -> int:
    out = Path(args.out)
    check_output(out, directory=True)
    report = _Reporter(args.quiet)
    sequences = read_table(args.sequences, ["sequence_id", "position", "value"], "sequences")
    labels = read_table(args.labels, ["sequence_id", "start", "end", "annotation"], "labels")
    models, changes, evaluation, targets, features = _pipeline(
        sequences, labels, args.max_segments, args.loss, report, args.quiet, args.features
    )
    with staged_dir(out) as tmp:
        _write_csv(models, tmp / "models.csv")
        _write_csv(changes, tmp / "changes.csv")
        write_uci(tmp, evaluation=evaluation, targets=targets, features=features)
    print(f"penlearn segment: wrote models.csv, changes.csv, evaluation.csv, inputs.csv, "
          f"outputs.csv to {out} ({evaluation['sequence_id'].nunique()} labeled sequences)")
    return 0


def _training_data(ds, fold, cv_type):
    """features / evaluation of the training sequences, and the test ids (or None)."""
    if ds.inputs is None:
        raise ValueError(f"{ds.path} has no inputs.csv: features are needed to learn")
    ev = ds.evaluation
    if fold is None:
        ids = [s for s in ds.sequence_ids if s in ds.inputs.index]
        return ids, None, None, None
    split, cv_type = _fold_split(ds, fold, cv_type)
    return split["subtrain"] + split["validation"], split, cv_type, _subset_evaluation(
        ev, split["test"])


def cmd_learn(args) -> int:

    out = Path(args.out)
    check_output(out, directory=False)
    report = _Reporter(args.quiet)
    ds = load_uci(args.data_dir)
    train_ids, split, cv_type, ev_test = _training_data(ds, args.fold, args.cv_type)
    # the paper's protocol: only feature columns finite for every sequence of the data set
    ds.inputs = ds.inputs[finite_feature_columns(ds.inputs)]
    missing = pd.Index(train_ids).difference(ds.inputs.index)
    if len(missing):
        raise ValueError(f"inputs has no features for sequence(s) {list(missing[:3])}")
    kwargs = dict(line_search=args.line_search, init=args.init, normalize=args.normalize,
                  max_steps=args.max_steps, random_state=args.seed, progress=not args.quiet,
                  scale_features=ds.inputs)
    if ds.outputs is not None:
        kwargs["targets"] = ds.outputs
    if split is None:
        report(f"learning on {len(train_ids)} sequences of {ds.name}")
        x, ev = ds.inputs.loc[train_ids], _subset_evaluation(ds.evaluation, train_ids)
    else:
        sub, val = split["subtrain"], split["validation"]
        report(f"learning on {ds.name}, cv/{cv_type} test fold {args.fold}: "
               f"{len(sub)} subtrain, {len(val)} validation, {len(split['test'])} test")
        x, ev = ds.inputs.loc[sub], _subset_evaluation(ds.evaluation, sub)
        kwargs["validation"] = (ds.inputs.loc[val], _subset_evaluation(ds.evaluation, val))
    with contextlib.redirect_stdout(sys.stderr if not args.quiet else io.StringIO()):
        model = learn_penalty(x, ev, **kwargs)
    with staged_file(out) as tmp:
        model.save(tmp)
    msg = f"penlearn learn: wrote {out} ({model!r})"
    if ev_test is not None:
        test_ids = split["test"]
        res = roc_change(ev_test, pd.Series(model.predict(ds.inputs.loc[test_ids]),
                                            index=test_ids))
        msg += f"; test fold {args.fold}: AUC {res.auc:.4f}, AUM {res.aum:.4g}"
    print(msg)
    return 0


def cmd_predict(args) -> int:
    model = _load_model(args.model)
    inputs = read_inputs(args.data)
    if args.out is not None:
        check_output(Path(args.out), directory=False)
    ids = list(inputs.index)
    if args.fold is not None:
        ds = load_uci(args.data)
        split, _ = _fold_split(ds, args.fold, args.cv_type)
        ids = [s for s in split["test"] if s in inputs.index]
    pred = model.predict(inputs.loc[ids])
    table = pd.DataFrame({"sequence_id": ids, "log_lambda": pred})
    if args.out is None:
        table.to_csv(sys.stdout, index=False)
    else:
        out = Path(args.out)
        with staged_file(out) as tmp:
            _write_csv(table, tmp)
        print(f"penlearn predict: wrote {len(table)} predictions to {out}")
    return 0


def _parse_named(spec: str, flag: str) -> tuple[str | None, str]:
    if "=" in spec and not Path(spec).exists():
        name, path = spec.split("=", 1)
        if not name:
            raise ValueError(f"{flag} {spec!r}: empty name before '='")
        return name, path
    return None, spec


def cmd_report(args) -> int:
    out = Path(args.out)
    check_output(out, directory=False)
    if not args.model and not args.predictions:
        raise ValueError("give at least one --model MODEL.json or --predictions CSV")
    ds = load_uci(args.data_dir)
    ids = list(ds.sequence_ids)
    if args.fold is not None:
        split, _ = _fold_split(ds, args.fold, args.cv_type)
        ids = [s for s in split["test"] if s in set(ds.sequence_ids)]
    ev = _subset_evaluation(ds.evaluation, ids)
    predictions: dict[str, pd.Series] = {}
    first_model = None
    for spec in args.model or []:
        name, path = _parse_named(spec, "--model")
        model = _load_model(path)
        if ds.inputs is None:
            raise ValueError(f"{ds.path} has no inputs.csv: --model needs features")
        missing = pd.Index(ids).difference(ds.inputs.index)
        if len(missing):
            raise ValueError(f"inputs has no features for sequence(s) {list(missing[:3])}")
        predictions[name or Path(path).stem] = pd.Series(model.predict(ds.inputs.loc[ids]),
                                                         index=ids)
        first_model = first_model or model
    for spec in args.predictions or []:
        name, path = _parse_named(spec, "--predictions")
        table = read_table(path, ["sequence_id"], "predictions")
        cols = [c for c in table.columns if c != "sequence_id"]
        if not cols:
            raise ValueError(f"predictions file {path} has no prediction column")
        table = table.set_index("sequence_id")
        for c in cols if name is None else cols[:1]:
            key = name or (Path(path).stem if c == "log_lambda" else c)
            predictions[key] = table[c].reindex(ids) if set(ids) <= set(table.index) \
                else table[c]
    # roc_change_report writes atomically (temp file + os.replace)
    roc_change_report(ev, predictions, out, title=args.title or f"penlearn report: {ds.name}",
                      model=first_model)
    print(f"penlearn report: wrote {out} ({len(predictions)} prediction(s), {len(ids)} "
          "sequences)")
    return 0


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``penlearn`` command.

    Examples
    --------
    >>> args = build_parser().parse_args(["learn", "data/H3K4me3", "--out", "m.json"])
    >>> args.command, args.line_search, args.fold
    ('learn', 'first_min', None)
    """

    parser = _Parser(
        prog="penlearn",
        description="Supervised changepoint detection: learn penalties from labeled "
        "sequences with AUM gradient descent and the exact AUM line search.",
    )
    parser.add_argument("--version", action="version", version=f"penlearn {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help_: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("-q", "--quiet", action="store_true",
                       help="no progress bars or messages (errors are still shown)")
        p.set_defaults(func=func)
        return p

    p = add("demo", "simulate labeled sequences, segment, learn a penalty model and write an "
            "HTML report (the built-in default data set)", cmd_demo)
    p.add_argument("--out", default="penlearn-demo", metavar="DIR",
                   help="output folder (default: %(default)s)")
    p.add_argument("--n-sequences", type=int, default=DEMO_N_SEQUENCES, metavar="N",
                   help="number of simulated sequences (default: %(default)s)")
    p.add_argument("--max-segments", type=int, default=DEMO_MAX_SEGMENTS, metavar="K",
                   help="largest model size (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="simulation seed (default: %(default)s)")
    p.add_argument("--line-search", choices=LINE_SEARCHES, default="first_min",
                   help="gradient descent step rule (default: %(default)s)")
    p.add_argument("--features", choices=FEATURE_SETS, default="neuroblastoma",
                   help="feature set (default: %(default)s)")

    p = add("segment", "optimal models (1..K segments), changes and the evaluation table of "
            "labeled sequences, written as a UCI-format folder", cmd_segment)
    p.add_argument("sequences", metavar="SEQUENCES.csv",
                   help="long table: sequence_id, position, value")
    p.add_argument("labels", metavar="LABELS.csv",
                   help="labels: sequence_id, start, end, annotation (regions (start, end])")
    p.add_argument("--max-segments", type=int, required=True, metavar="K",
                   help="largest number of segments")
    p.add_argument("--loss", choices=("l2", "poisson"), default="l2",
                   help="segment loss (default: %(default)s)")
    p.add_argument("--features", choices=FEATURE_SETS, default="penaltyLearning",
                   help="feature set of inputs.csv (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")

    p = add("learn", "learn a penalty model on a UCI-format folder (inputs.csv, "
            "evaluation.csv, outputs.csv, cv/<type>/folds.csv)", cmd_learn)
    p.add_argument("data_dir", metavar="DATA_DIR", help="the data set folder")
    p.add_argument("--fold", default=None, metavar="K",
                   help="hold out this test fold (subtrain/validation: the others, "
                   "alternately, as in the paper)")
    p.add_argument("--cv-type", default=None, metavar="TYPE",
                   help="which cv/<TYPE>/folds.csv (default: equal_labels, else the first)")
    p.add_argument("--line-search", choices=LINE_SEARCHES, default="first_min",
                   help="gradient descent step rule (default: %(default)s)")
    p.add_argument("--init", default="interval_regression",
                   choices=("interval_regression", "interval_regression_flipped", "zero",
                            "random"), help="initialisation (default: %(default)s)")
    p.add_argument("--normalize", choices=("rate", "count"), default="rate",
                   help="AUM of FP/FN rates or counts (default: %(default)s)")
    p.add_argument("--max-steps", type=int, default=1000, metavar="N",
                   help="largest number of gradient steps (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="MODEL.json", help="model file to write")

    p = add("predict", "predicted log λ of a model for the sequences of a folder", cmd_predict)
    p.add_argument("model", metavar="MODEL.json", help="a model written by 'penlearn learn'")
    p.add_argument("data", metavar="DATA_DIR",
                   help="a folder with inputs.csv (or an inputs CSV file)")
    p.add_argument("--fold", default=None, metavar="K", help="only this CV fold's sequences")
    p.add_argument("--cv-type", default=None, metavar="TYPE", help="which cv/<TYPE>")
    p.add_argument("--out", default=None, metavar="PREDICTIONS.csv",
                   help="CSV to write (sequence_id, log_lambda); default: standard output")

    p = add("report", "HTML ROC-change report of models and/or prediction files on a "
            "folder's evaluation table", cmd_report)
    p.add_argument("data_dir", metavar="DATA_DIR", help="folder with evaluation.csv")
    p.add_argument("--model", action="append", metavar="[NAME=]MODEL.json",
                   help="a model to evaluate (repeatable)")
    p.add_argument("--predictions", action="append", metavar="[NAME=]PRED.csv",
                   help="CSV with sequence_id and prediction column(s) of log λ (repeatable)")
    p.add_argument("--fold", default=None, metavar="K", help="evaluate on this CV fold only")
    p.add_argument("--cv-type", default=None, metavar="TYPE", help="which cv/<TYPE>")
    p.add_argument("--title", default=None, help="report title")
    p.add_argument("--out", required=True, metavar="REPORT.html", help="HTML file to write")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``penlearn`` command; returns the exit code.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 on bad input (with a one-line message on stderr), 2 on a usage
        error, 130 when interrupted.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     code = main(["predict", "no-such-model.json", "no-such-folder"])
    >>> code, err.getvalue().strip()
    (1, 'penlearn predict: error: model file not found: no-such-model.json')
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"penlearn {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:  # input errors; anything else keeps its traceback
        print(f"penlearn {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
