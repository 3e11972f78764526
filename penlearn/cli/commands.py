"""The commands ``demo``, ``segment``, ``learn``, ``predict`` and ``report``."""

from __future__ import annotations

import contextlib
import io
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from penlearn._checks import id_list
from penlearn.atomic_files import check_added_folder, check_output, staged_dir, staged_file
from penlearn.breakpoints import breakpoints_from_errors, examples_with_negative_errors
from penlearn.changepoint.model_selection import bic_log_lambda
from penlearn.cli._common import (
    DEMO_MIN_SEQUENCES,
    _checked_labels,
    _fold_split,
    _load_model,
    _parse_named,
    _pipeline,
    _Reporter,
    _subset_evaluation,
    _write_csv,
)
from penlearn.cli._workers import workers
from penlearn.datasets import (
    assign_folds,
    finite_feature_columns,
    load_data,
    load_uci,
    read_inputs,
    read_predictions,
    read_table,
    simulate,
    write_uci,
)
from penlearn.datasets.peaks import data_task
from penlearn.learn import learn_penalty, subtrain_validation_split
from penlearn.peaks.peakseg.solver import check_tmpdir
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
    models, changes, evaluation, targets, features = _pipeline(
        data.sequences, data.labels, args.max_segments, "l2", report, args.quiet,
        args.features,
    )
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
    from penlearn.learn import learn_penalty

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


def cmd_segment(args) -> int:
    out = Path(args.out)
    check_output(out, directory=True, force=args.force, inputs=(args.sequences, args.labels))
    report = _Reporter(args.quiet)
    sequences = read_table(args.sequences, ["sequence_id", "position", "value"], "sequences")
    id_col = sequences.attrs.get("id_column", "sequence_id")
    labels = _checked_labels(args, sequences)
    models, changes, evaluation, targets, features = _pipeline(
        sequences, labels, args.max_segments, args.loss, report, args.quiet, args.features
    )
    folds, written = None, ["models.csv", "changes.csv", "inputs.csv", "segment.json"]
    if evaluation is not None:
        written[2:2] = ["evaluation.csv", "outputs.csv"]
        ids = list(pd.unique(evaluation["sequence_id"]))
        if args.n_folds and len(ids) >= 2 * args.n_folds:
            folds = ("random", assign_folds(ids, args.n_folds, args.seed))
            written.append("cv/random/folds.csv")
        elif args.n_folds:
            warnings.warn(f"{len(ids)} labeled sequences are too few for {args.n_folds} "
                          "CV folds (2 per fold): no cv/ written", UserWarning, stacklevel=2)
    settings = {"loss": args.loss, "max_segments": args.max_segments,
                "feature_set": args.features}
    with staged_dir(out, replace=args.force) as tmp:
        _write_csv(models, tmp / "models.csv", id_column=id_col)
        _write_csv(changes, tmp / "changes.csv", id_column=id_col)
        write_uci(tmp, evaluation=evaluation, targets=targets, features=features,
                  folds=folds, segmentation=settings)
    n = "no" if evaluation is None else evaluation["sequence_id"].nunique()
    print(f"penlearn segment: wrote {', '.join(written)} to {out} "
          f"({sequences['sequence_id'].nunique()} sequences, {n} labeled)")
    return 0


def _training_data(ds, fold, cv_type):
    """Training ids, the CV split (or None) and its type; every id checked up front."""
    if ds.inputs is None:
        raise ValueError(f"{ds.path} has no inputs.csv: features are needed to learn")
    have = set(ds.inputs.index)
    if fold is None:
        ids = [s for s in ds.sequence_ids if s in have]
        dropped = [s for s in ds.sequence_ids if s not in have]
        if not ids:
            raise ValueError(f"no labeled sequence of {ds.path} has features in inputs.csv")
        if dropped:
            warnings.warn(f"{id_list(dropped, 'labeled sequence(s)')} have no features in "
                          "inputs.csv and are left out of training", UserWarning, stacklevel=2)
        return ids, None, None
    split, cv_type = _fold_split(ds, fold, cv_type)
    in_folds = {s for part in ("subtrain", "validation", "test") for s in split[part]}
    unfolded = [s for s in ds.sequence_ids if s not in in_folds]
    if unfolded:  # as the no-fold path: said, then left out
        warnings.warn(f"{id_list(unfolded, 'labeled sequence(s)')} have no fold in "
                      f"cv/{cv_type}/folds.csv and are left out of training and test",
                      UserWarning, stacklevel=2)
    for part in ("subtrain", "validation", "test"):
        missing = [s for s in split[part] if s not in have]
        if missing:
            raise ValueError(f"{ds.path}: {id_list(missing, part + ' sequence(s)')} of "
                             f"cv/{cv_type} (test fold {fold}) have no features in inputs.csv")
    return split["subtrain"] + split["validation"], split, cv_type


def _segmentation_settings(ds) -> dict | None:
    """``loss`` and ``max_segments`` of the folder's segment.json, for the model."""
    if not ds.segmentation:
        return None
    return {k: ds.segmentation[k] for k in ("loss", "max_segments") if k in ds.segmentation}


def _cache_option(args):
    """``cache=`` of :func:`load_data` from ``--no-cache`` / ``--cache-dir`` (checked as
    ``--out`` is, before any work)."""
    if args.no_cache:
        return False
    if args.cache_dir is not None:
        check_added_folder(args.cache_dir, "--cache-dir", inputs=[args.data_dir],
                           outputs={"--out": args.out})
    return args.cache_dir or True


def cmd_learn(args) -> int:
    out = Path(args.out)
    check_output(out, directory=False, force=args.force, inputs=[args.data_dir])
    report = _Reporter(args.quiet)
    tmpdir = check_tmpdir(args.tmpdir, "--tmpdir")
    with workers(args) as executor:
        ds = load_data(args.data_dir, progress=not args.quiet, executor=executor,
                       cache=_cache_option(args), tmpdir=tmpdir)
    train_ids, split, cv_type = _training_data(ds, args.fold, args.cv_type)
    # the paper's protocol: only feature columns finite for every sequence of the data set
    ds.inputs = ds.inputs[finite_feature_columns(ds.inputs)]
    kwargs = dict(model=args.model, line_search=args.line_search, init=args.init,
                  normalize=args.normalize, clip=args.clip,
                  max_steps=args.max_steps, random_state=args.seed, progress=not args.quiet,
                  scale_features=ds.inputs, segmentation=_segmentation_settings(ds))
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
        try:
            model = learn_penalty(x, ev, **kwargs)
        except TypeError as exc:
            if "segmentation" not in str(exc):
                raise
            raise ValueError(f"{ds.path / 'segment.json'}: {exc}") from exc
    msg = f"penlearn learn: wrote {out} ({model!r})"
    if split is not None:  # evaluated before writing: an error leaves no model file
        test_ids = split["test"]
        res = roc_change(_subset_evaluation(ds.evaluation, test_ids),
                         pd.Series(model.predict(ds.inputs.loc[test_ids]), index=test_ids))
        msg += f"; test fold {args.fold}: AUC {res.auc:.4f}, AUM {res.aum:.4g}"
    model.task_ = data_task(ds)
    with staged_file(out) as tmp:
        model.save(tmp)
    print(msg)
    print(f"penlearn learn: learned {model.describe()}")
    return 0


def cmd_predict(args) -> int:
    if args.out is not None:  # before reading anything
        check_output(Path(args.out), directory=False, force=args.force,
                     inputs=[args.model, args.data])
    model = _load_model(args.model)
    inputs = read_inputs(args.data)
    ids = list(inputs.index)
    if args.fold is not None:
        ds = load_uci(args.data)
        split, _ = _fold_split(ds, args.fold, args.cv_type)
        ids = [s for s in split["test"] if s in inputs.index]
    pred = model.predict(inputs.loc[ids])
    # the id column is named as in the inputs file (sequenceID in the UCI format)
    table = pd.DataFrame({inputs.attrs.get("id_column", "sequence_id"): ids,
                          "log_lambda": pred})
    if args.out is None:
        table.to_csv(sys.stdout, index=False)
        sys.stdout.flush()  # a closed pipe (predict | head) is reported here, in main
    else:
        out = Path(args.out)
        with staged_file(out) as tmp:
            _write_csv(table, tmp)
        print(f"penlearn predict: wrote {len(table)} predictions to {out}")
    return 0


def cmd_report(args) -> int:
    out = Path(args.out)
    check_output(out, directory=False, force=args.force,
                 inputs=[args.data_dir, *(_parse_named(m, "--model")[1] for m in args.model or ()),
                         *(_parse_named(p, "--predictions")[1] for p in args.predictions or ())])
    if not args.model and not args.predictions:
        raise ValueError("give at least one --model MODEL.json or --predictions CSV")
    tmpdir = check_tmpdir(args.tmpdir, "--tmpdir")
    with workers(args) as executor:  # a coverage + labels folder: learn's cached paths
        ds = load_data(args.data_dir, progress=not args.quiet, executor=executor,
                       cache=_cache_option(args), tmpdir=tmpdir)
    ids = list(ds.sequence_ids)
    if args.fold is not None:
        split, cv_type = _fold_split(ds, args.fold, args.cv_type)
        ids = [s for s in split["test"] if s in set(ds.sequence_ids)]
        evaluated = f"evaluated on the {len(ids)} sequences of test fold {args.fold} " \
            f"(cv/{cv_type}), held out by 'penlearn learn --fold {args.fold}'"
    else:
        evaluated = (f"evaluated on all {len(ids)} labeled sequences of {ds.name}: a model "
                     "learned on this folder was trained on them, so its errors here are "
                     "training errors (optimistic); --fold K evaluates on a held-out fold")
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
            raise ValueError(f"inputs.csv of {ds.path} has no features for "
                             f"{id_list(list(missing))}")
        predictions[name or Path(path).stem] = pd.Series(model.predict(ds.inputs.loc[ids]),
                                                         index=ids)
        first_model = first_model or model
    for spec in args.predictions or []:
        name, path = _parse_named(spec, "--predictions")
        predictions.update(read_predictions(path, ids, name))
    # roc_change_report writes atomically (temp file + os.replace)
    roc_change_report(ev, predictions, out, title=args.title or f"penlearn report: {ds.name}",
                      model=first_model, notes=evaluated[0].upper() + evaluated[1:] + ".")
    print(f"penlearn report: wrote {out} ({len(predictions)} prediction(s), {evaluated})")
    return 0


# --------------------------------------------------------------------------- parser
