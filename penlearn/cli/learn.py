"""The command ``learn``: a penalty model learned on a UCI-format folder or a folder of
ChIP-seq coverage and peak labels."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import warnings
from pathlib import Path

import pandas as pd

from penlearn._checks import id_list
from penlearn.atomic_files import check_output, staged_file
from penlearn.cli._common import (
    COVERAGE_FOLDER,
    _cache_option,
    _coverage_folder_arguments,
    _fold_split,
    _groups_kwarg,
    _Reporter,
    _subset_evaluation,
    non_negative_int,
    plural,
)
from penlearn.cli._controls import add_control_arguments, apply_controls, drop_control_peaks
from penlearn.cli._workers import workers
from penlearn.cli.peaks import control_segments
from penlearn.datasets import finite_feature_columns, load_data
from penlearn.datasets.peaks import data_task
from penlearn.learn import learn_penalty, level_shift
from penlearn.learn.options import INITS, LINE_SEARCHES, MODELS, NORMALIZES, LearnOptions
from penlearn.learn.prior import PRIOR_MAX_SEQUENCES, too_few_labels
from penlearn.peaks.peakseg.solver import check_tmpdir
from penlearn.roc import roc_change

#: The defaults of ``learn_penalty``'s options, which the learning arguments show.
LEARN_DEFAULTS = LearnOptions()


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


def _prior(x: pd.DataFrame, report, few: bool, shift_only: bool = False):
    """Few labels: (features, the shipped zero-label model) for ChIP-seq coverage
    features, else (features, None: the best constant / learned as without it).
    ``few``: too few labels to learn anything (else at most PRIOR_MAX_SEQUENCES);
    ``shift_only``: at most ``level_shift.SHIFT_MAX_SEQUENCES``, only its level learned."""
    from penlearn.peaks.pretrained import ZeroLabelModel

    zero = ZeroLabelModel("narrow")  # the level its notice says (as penlearn peaks)
    if not set(zero.model.coef_.index) <= set(x.columns):
        return x, None
    if few:
        report("too few labels to learn and validate a model: starting from "
               f"{zero.notice()}")
    elif shift_only:
        report(f"at most {level_shift.SHIFT_MAX_SEQUENCES} labeled sequences: "
               f"{zero.notice()} ranks the windows, the labels set its level")
    else:
        report(f"at most {PRIOR_MAX_SEQUENCES} labeled sequences: {zero.notice()} is a "
               "candidate of the cross-validation, in place of the constant penalty")
    return x, zero.model


#: the controls of a labeled folder are segmented at the shipped zero-label penalty
_SHIPPED = argparse.Namespace(penalty=None, log_penalty=None, model=None, broad=False,
                              command="learn")


def python_call(args, ds, kwargs: dict, few: bool) -> str:
    """The Python statements that learn the same model as this ``penlearn learn`` (no
    ``--fold``): one line, said on stderr, so that a script gets what the command got
    (the shipped prior, the finite feature columns, the targets and the scaling rows).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> a = SimpleNamespace(data_dir="d", groups=None, group_column=None)
    >>> ds = SimpleNamespace(outputs=None, segmentation=None)
    >>> python_call(a, ds, {"model": "auto", "random_state": 0}, False)  # doctest: +ELLIPSIS
    "import penlearn as pl; ...; X = ds.inputs[finite_feature_columns(ds.inputs)]; \
model = pl.learn_penalty(X.loc[ds.sequence_ids], ds.evaluation, scale_features=X)"
    """
    imports = ["import penlearn as pl",
               "from penlearn.datasets import finite_feature_columns, load_data"]
    load = f"load_data({str(args.data_dir)!r}"
    if args.groups:
        imports.append("from penlearn.cli._common import read_groups_file")
        load += f", groups=read_groups_file({str(args.groups)!r})"
    elif args.group_column:
        load += f", groups={args.group_column!r}"
    # too few labels: every column (the prior's, even where not finite on every sequence)
    call = [f"{'ds.inputs' if few else 'X'}.loc[ds.sequence_ids]", "ds.evaluation",
            "scale_features=X"]
    if ds.outputs is not None:
        call.append("targets=ds.outputs")
    if kwargs.get("segmentation"):
        call.append(f"segmentation={kwargs['segmentation']!r}")
    if kwargs.get("prior") is not None:
        call.append("prior=pl.shipped_model().model")
    call += [f"{k}={kwargs[k]!r}" for k in ("model", "line_search", "init", "normalize",
                                            "clip", "max_steps", "random_state")
             if k in kwargs and kwargs[k] != getattr(LEARN_DEFAULTS, k)]
    return "; ".join([*imports, f"ds = {load})",
                      "X = ds.inputs[finite_feature_columns(ds.inputs)]",
                      f"model = pl.learn_penalty({', '.join(call)})"])


def cmd_learn(args) -> int:
    out = Path(args.out)
    check_output(out, directory=False, force=args.force, inputs=[args.data_dir])
    report = _Reporter(args.quiet)
    tmpdir = check_tmpdir(args.tmpdir, "--tmpdir")
    controlled: dict = {}

    def with_controls(cov):  # (the summits' controls kept for the narrow rule's check)
        c = apply_controls(cov, args, report,
                           lambda x: control_segments(_SHIPPED, x, report, tmpdir))
        controlled.update(summits=c.summits, segments=c.segments, pairs=c.pairs)
        return c[:2]
    with workers(args) as executor:
        extra = {} if not (args.control or args.control_sheet) else {
            "coverage_map": with_controls}
        ds = load_data(args.data_dir, progress=not args.quiet, executor=executor,
                       cache=_cache_option(args), tmpdir=tmpdir, **_groups_kwarg(args),
                       **extra)
    train_ids, split, cv_type = _training_data(ds, args.fold, args.cv_type)
    every_column = ds.inputs
    task = data_task(ds)  # (on every column: a UCI ChIP-seq set holds the 36 features)
    # the paper's protocol: only feature columns finite for every sequence of the data set
    ds.inputs = ds.inputs[finite_feature_columns(ds.inputs)]
    kwargs = dict(model=args.model, line_search=args.line_search, init=args.init,
                  normalize=args.normalize, clip=args.clip,
                  max_steps=args.max_steps, random_state=args.seed, progress=not args.quiet,
                  scale_features=ds.inputs, segmentation=_segmentation_settings(ds))
    if ds.outputs is not None:
        kwargs["targets"] = ds.outputs
    if split is None:
        report(f"learning on {plural(len(train_ids), 'sequence')} of {ds.name}")
        x, ev = ds.inputs.loc[train_ids], _subset_evaluation(ds.evaluation, train_ids)
    else:
        sub, val = split["subtrain"], split["validation"]
        report(f"learning on {ds.name}, cv/{cv_type} test fold {args.fold}: "
               f"{len(sub)} subtrain, {len(val)} validation, {len(split['test'])} test")
        x, ev = ds.inputs.loc[sub], _subset_evaluation(ds.evaluation, sub)
        kwargs["validation"] = (ds.inputs.loc[val], _subset_evaluation(ds.evaluation, val))
    few = too_few_labels(ev) is not None
    kwargs["task"] = task
    if split is None and task == "peaks" and (few or (args.model == "auto" and
                                  ev["sequence_id"].nunique() <= PRIOR_MAX_SEQUENCES)):
        # too few labels: the prior's columns even where not finite on every sequence
        # (the shift sees only these labels); else the finite columns learned on
        x, kwargs["prior"] = _prior(every_column.loc[x.index] if few else x, report, few,
                                    args.model == "auto" and ev["sequence_id"].nunique()
                                    <= level_shift.SHIFT_MAX_SEQUENCES)
    if split is None and len(train_ids) == len(ds.sequence_ids):
        report("the same model in Python: " + python_call(args, ds, kwargs, few))
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
    rule = _narrow_rule(args, model, ds, train_ids, controlled, report, tmpdir) \
        if task == "peaks" else None
    with staged_file(out) as tmp:
        model.save(tmp)
    print(msg)
    print(f"penlearn learn: learned {model.describe()}")
    if rule is not None:
        print(f"penlearn learn: {rule}")
    return 0


def _narrow_rule(args, model, ds, train_ids, controlled: dict, report, tmpdir) -> str | None:
    """Whether the model applies the narrow rule, by its training labels
    (:func:`~penlearn.peaks.pretrained.learned_rule.attach_rule`), written into its
    ``level_``; the line ``learn`` says about it (None: a folder without coverage)."""
    from penlearn.datasets.peaks import labels_by_group
    from penlearn.peaks.formats.coverage import read_coverage
    from penlearn.peaks.pretrained.learned_rule import attach_rule

    labels = ds.extra.get("labels")
    if labels is None:
        return None
    coverage = ds.extra.get("coverage")
    if coverage is None:  # the tables came from the cache (no control: none mapped)
        coverage = read_coverage(ds.path)
    report("the narrow rule on the labeled windows: the peaks at the model's log λ, and "
           "at its log λ lowered then filtered by q-value (in Python: penlearn.peaks."
           "pretrained.learned_rule.attach_rule(model, coverage, labels))")
    labels = labels_by_group(labels, coverage, _groups_kwarg(args).get("groups"))
    drop = None
    if controlled.get("pairs") and args.control_rule == "filter":  # as peaks does
        def drop(segs):
            return drop_control_peaks(segs, controlled["segments"], controlled["pairs"])[0]
    r = attach_rule(model, coverage, labels, summits=controlled.get("summits"),
                    ids=train_ids, segments_map=drop, tmpdir=tmpdir)
    if "label_errors" not in r:
        return None
    said = (f"narrow rule {'applied' if r['applied'] == 'yes' else 'refused'} by the "
            f"labels: peaks proposed at the model's log λ {r['shift']:+g}, kept at q-value "
            f"<= {r['qvalue']:g}: {r['label_errors']} label errors against "
            f"{r['label_errors_own']} at its own λ unfiltered")
    return (f"{said}; expected peaks per Mb of the labeled windows as peak files give "
            f"them: {r['peaks_per_mb_default']} at the shipped default, "
            f"{r['peaks_per_mb']} with this model")


def register(add) -> None:
    """``penlearn learn``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("learn", "learn a penalty model on a UCI-format folder (inputs.csv, "
            "evaluation.csv, outputs.csv, cv/<type>/folds.csv) or a folder of ChIP-seq "
            "coverage and peak labels; the model records the segmentation settings of the "
            "folder's segment.json and, on coverage, whether its labels take the shipped "
            "narrow rule for 'peaks'/'callpeak --model' (a lowered log λ, then q-value <= "
            "0.05)", cmd_learn,
            force_help="replace an existing --out MODEL.json file (without it: an error)")
    p.add_argument("data_dir", metavar="DATA_DIR",
                   help="a UCI-format folder (evaluation.csv, inputs.csv, ...) or "
                   + COVERAGE_FOLDER)
    p.add_argument("--fold", default=None, metavar="K",
                   help="hold out this test fold (subtrain/validation: the others, "
                   "alternately, as in the paper)")
    p.add_argument("--cv-type", default=None, metavar="TYPE",
                   help="which cv/<TYPE>/folds.csv (default: equal_labels, else the first)")
    p.add_argument("--model", choices=MODELS, default=LEARN_DEFAULTS.model,
                   help="boosting: AUM gradient boosting of small trees, each step by the "
                   "exact AUM line search; linear: the papers' linear model (interval "
                   "regression, then AUM gradient descent); constant: the one log λ of "
                   "fewest training label errors; auto: the one of constant, linear and "
                   f"boosting of fewest label errors in {LEARN_DEFAULTS.cv_folds}-fold "
                   "cross-validation over whole "
                   "regions, one-standard-error rule (default: %(default)s)")
    p.add_argument("--line-search", choices=LINE_SEARCHES, default=LEARN_DEFAULTS.line_search,
                   help="gradient descent step rule of the linear model (--model linear or "
                   "auto; boosting always takes the exact line search's first minimum) "
                   "(default: %(default)s)")
    p.add_argument("--init", default=LEARN_DEFAULTS.init, choices=INITS,
                   help="initialisation of the linear model (--model "
                   "linear or auto; boosting starts from a constant) (default: %(default)s)")
    p.add_argument("--normalize", choices=NORMALIZES, default=LEARN_DEFAULTS.normalize,
                   help="AUM of FP/FN rates or counts (default: %(default)s)")
    p.add_argument("--max-steps", type=non_negative_int, default=LEARN_DEFAULTS.max_steps,
                   metavar="N",
                   help="largest number of gradient steps (linear) or of trees "
                   "(boosting) (default: %(default)s)")
    p.add_argument("--seed", type=non_negative_int, default=LEARN_DEFAULTS.random_state,
                   help="seeds the model's random choices, as learn_penalty's random_state "
                   "(default: %(default)s, the same)")
    p.add_argument("--no-clip", dest="clip", action="store_false",
                   help="let a linear model extrapolate beyond its training features "
                   "(default: features are clipped to their training range at prediction, "
                   "as learn_penalty's clip=True)")
    p.add_argument("--out", required=True, metavar="MODEL.json", help="model file to write")
    _coverage_folder_arguments(p)
    add_control_arguments(p)

