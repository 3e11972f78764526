"""The command ``report``: the HTML ROC-change report of models and / or prediction files
on a folder's evaluation table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from penlearn._checks import id_list
from penlearn.atomic_files import check_output
from penlearn.cli._common import (
    COVERAGE_FOLDER,
    _cache_option,
    _coverage_folder_arguments,
    _fold_split,
    _groups_kwarg,
    _load_model,
    _parse_named,
    _subset_evaluation,
)
from penlearn.cli._workers import workers
from penlearn.datasets import load_data, read_predictions
from penlearn.peaks.peakseg.solver import check_tmpdir
from penlearn.report import roc_change_report


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
                       cache=_cache_option(args), tmpdir=tmpdir, **_groups_kwarg(args))
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


def register(add) -> None:
    """``penlearn report``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("report", "HTML ROC-change report of models and/or prediction files on a "
            "folder's evaluation table (a UCI folder, or coverage + peak labels: their "
            "model paths are computed, or read from learn's cache); on all its labeled "
            "sequences, the training sequences of a model learned on the folder, unless "
            "--fold K", cmd_report,
            force_help="replace an existing --out REPORT.html file (without it: an error)")
    p.add_argument("data_dir", metavar="DATA_DIR",
                   help="a folder with evaluation.csv, or " + COVERAGE_FOLDER)
    p.add_argument("--model", action="append", metavar="[NAME=]MODEL.json",
                   help="a model to evaluate (repeatable)")
    p.add_argument("--predictions", action="append", metavar="[NAME=]PRED.csv",
                   help="CSV with sequence_id and prediction column(s) of log λ (repeatable)")
    p.add_argument("--fold", default=None, metavar="K", help="evaluate on this CV fold only")
    p.add_argument("--cv-type", default=None, metavar="TYPE", help="which cv/<TYPE>")
    p.add_argument("--title", default=None, help="report title")
    p.add_argument("--out", required=True, metavar="REPORT.html", help="HTML file to write")
    _coverage_folder_arguments(p)

