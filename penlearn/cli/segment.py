"""The command ``segment``: optimal models, changes, features and (with labels) the
evaluation table and CV folds of sequences, as a UCI-format folder that ``learn`` reads."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from penlearn.atomic_files import check_output, staged_dir
from penlearn.changepoint.features import FEATURE_SETS
from penlearn.changepoint.pipeline import sequence_tables
from penlearn.cli._common import _checked_labels, _Reporter, _write_csv, non_negative_int
from penlearn.datasets import assign_folds, read_table, write_uci


def cmd_segment(args) -> int:
    out = Path(args.out)
    check_output(out, directory=True, force=args.force, inputs=(args.sequences, args.labels))
    report = _Reporter(args.quiet)
    sequences = read_table(args.sequences, ["sequence_id", "position", "value"], "sequences")
    id_col = sequences.attrs.get("id_column", "sequence_id")
    labels = _checked_labels(args, sequences)
    segmented = sequence_tables(sequences, labels, args.max_segments, loss=args.loss,
                                feature_set=args.features, progress=not args.quiet, report=report)
    models, changes, features = segmented.models, segmented.changes, segmented.features
    evaluation, targets = segmented.evaluation, segmented.targets
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


def register(add) -> None:
    """``penlearn segment``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("segment", "optimal models (1..K segments), changes, features and (with labels) "
            "the evaluation table and CV folds of sequences, written as a UCI-format folder "
            "that 'learn' reads", cmd_segment)
    p.add_argument("sequences", metavar="SEQUENCES.csv",
                   help="long table: sequence_id (or sequenceID), position, value, and an "
                   "optional chromosome column (chr1..chrX indicators of the neuroblastoma "
                   "features); ids are read as text")
    p.add_argument("labels", metavar="LABELS.csv", nargs="?", default=None,
                   help="labels: sequence_id, start, end, annotation (regions (start, end]); "
                   "optional: without it, no evaluation table (e.g. new sequences to predict)")
    p.add_argument("--strict", action="store_true",
                   help="labels no change can fall in (outside the data, other units) are an "
                   "error, not a warning")
    p.add_argument("--ignore-unmatched-labels", action="store_true",
                   help="leave out (with a warning) labels of sequences that are not in "
                   "SEQUENCES.csv, instead of stopping")
    p.add_argument("--n-folds", type=int, default=3, metavar="K",
                   help="random CV folds written to cv/random/folds.csv, so that 'learn --fold' "
                   "can follow (default: %(default)s; 0: none)")
    p.add_argument("--seed", type=non_negative_int, default=1,
                   help="seed of the folds (default: %(default)s)")
    p.add_argument("--max-segments", type=int, required=True, metavar="K",
                   help="largest number of segments")
    p.add_argument("--loss", choices=("l2", "poisson"), default="l2",
                   help="segment loss (default: %(default)s)")
    p.add_argument("--features", choices=FEATURE_SETS, default="penaltyLearning",
                   help="feature set of inputs.csv (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")

