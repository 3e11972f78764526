"""The ``penlearn`` command: its argument parser and entry point."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

from penlearn._interrupt import interrupt_in_chain
from penlearn._version import package_version
from penlearn.atomic_files import Terminated, sigterm_unwinds
from penlearn.changepoint.features import FEATURE_SETS
from penlearn.cli._common import (
    DEMO_MAX_SEGMENTS,
    DEMO_N_SEQUENCES,
    _Parser,
    _warning_printer,
    error_exit,
    non_negative_int,
)
from penlearn.cli._workers import add_worker_arguments, check_worker_arguments
from penlearn.cli.commands import cmd_demo, cmd_learn, cmd_predict, cmd_report, cmd_segment
from penlearn.cli.errors import add_errors_arguments, cmd_errors
from penlearn.cli.hub import add_hub_arguments, cmd_hub
from penlearn.cli.joint import add_joint_arguments, cmd_joint
from penlearn.cli.peaks import add_peaks_arguments, cmd_peaks
from penlearn.learn import LINE_SEARCHES
from penlearn.learn.options import DEFAULT_MODEL, MODELS

DEBUG_HELP = ("on an error, show Python's traceback (default: one line on stderr: exit 1 "
              "on bad input, 70 on a bug in penlearn)")


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
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help_: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("-q", "--quiet", action="store_true",
                       help="nothing on stderr but errors (no progress, messages or warnings); "
                       "the command's result on stdout stays")
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help=DEBUG_HELP)
        p.add_argument("--force", action="store_true", help=FORCE_HELP.get(
            name, "replace an existing --out (a folder is replaced as a whole)"))
        p.set_defaults(func=func)
        return p

    _demo_arguments(add)
    _segment_arguments(add)
    _learn_arguments(add)
    _predict_arguments(add)
    _peaks_arguments(add)
    add_joint_arguments(add("joint", "joint peaks of several samples from their coverage and "
                            "single-sample peaks: the peaks x samples matrix", cmd_joint))
    add_errors_arguments(add("errors", "false positive / negative labels of a peak file (or "
                             "a folder of them: any peak caller's) per label, per sample "
                             "and in total", cmd_errors))
    add_hub_arguments(add("hub", "a UCSC track hub folder: coverage bigWigs (multiWig), "
                          "peaks and labels as bigBed", cmd_hub))
    _report_arguments(add)
    return parser


#: --force of the commands that write one file (the others write a folder, replaced whole)
FORCE_HELP = {
    "learn": "replace an existing --out MODEL.json file (without it: an error)",
    "predict": "replace an existing --out PREDICTIONS.csv file (without it: an error)",
    "report": "replace an existing --out REPORT.html file (without it: an error)",
    "errors": "replace an existing --out ERRORS.csv file (without it: an error)",
    "peaks": "replace an existing --out: the peak file (and its --means file) of one "
             "sample, or the folder of one file per sample as a whole (without it: an error)",
}
#: what a coverage + peak labels folder holds (learn, report)
COVERAGE_FOLDER = ("a folder of ChIP-seq coverage + peak labels: coverage.csv[.gz] "
                   "(with sample_id), *.bedGraph[.gz], bigWig (*.bw, *.bigWig) or BAM "
                   "(*.bam) files, one per sample, plus labels.csv (sample_id, chrom, chromStart, "
                   "chromEnd, annotation; or labels.tsv / .bed / .txt)")


def _demo_arguments(add) -> None:
    """Arguments of ``penlearn demo``."""
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


def _segment_arguments(add) -> None:
    """Arguments of ``penlearn segment``."""
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


def _learn_arguments(add) -> None:
    """Arguments of ``penlearn learn``."""
    p = add("learn", "learn a penalty model on a UCI-format folder (inputs.csv, "
            "evaluation.csv, outputs.csv, cv/<type>/folds.csv) or a folder of ChIP-seq "
            "coverage and peak labels; the model records the segmentation settings of the "
            "folder's segment.json", cmd_learn)
    p.add_argument("data_dir", metavar="DATA_DIR",
                   help="a UCI-format folder (evaluation.csv, inputs.csv, ...) or "
                   + COVERAGE_FOLDER)
    p.add_argument("--fold", default=None, metavar="K",
                   help="hold out this test fold (subtrain/validation: the others, "
                   "alternately, as in the paper)")
    p.add_argument("--cv-type", default=None, metavar="TYPE",
                   help="which cv/<TYPE>/folds.csv (default: equal_labels, else the first)")
    p.add_argument("--model", choices=MODELS, default=DEFAULT_MODEL,
                   help="boosting: AUM gradient boosting of small trees, each step by the "
                   "exact AUM line search; linear: the papers' linear model (interval "
                   "regression, then AUM gradient descent); constant: the one log λ of "
                   "fewest training label errors; auto: the one of constant, linear and "
                   "boosting of fewest label errors in 3-fold cross-validation over whole "
                   "regions, one-standard-error rule (default: %(default)s)")
    p.add_argument("--line-search", choices=LINE_SEARCHES, default="first_min",
                   help="gradient descent step rule of the linear model (--model linear or "
                   "auto; boosting always takes the exact line search's first minimum) "
                   "(default: %(default)s)")
    p.add_argument("--init", default="interval_regression",
                   choices=("interval_regression", "interval_regression_flipped", "zero",
                            "random"), help="initialisation of the linear model (--model "
                   "linear or auto; boosting starts from a constant) (default: %(default)s)")
    p.add_argument("--normalize", choices=("rate", "count"), default="rate",
                   help="AUM of FP/FN rates or counts (default: %(default)s)")
    p.add_argument("--max-steps", type=non_negative_int, default=1000, metavar="N",
                   help="largest number of gradient steps (linear) or of trees "
                   "(boosting) (default: %(default)s)")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="seeds the model's random choices, as learn_penalty's random_state "
                   "(default: %(default)s, the same)")
    p.add_argument("--no-clip", dest="clip", action="store_false",
                   help="let a linear model extrapolate beyond its training features "
                   "(default: features are clipped to their training range at prediction, "
                   "as learn_penalty's clip=True)")
    p.add_argument("--out", required=True, metavar="MODEL.json", help="model file to write")
    _coverage_folder_arguments(p)


def _coverage_folder_arguments(p) -> None:
    """``--jobs``, ``--scheduler``, ``--tmpdir`` and the cache of a coverage + labels folder
    (``learn`` and ``report`` share the cached model paths)."""
    add_worker_arguments(p)
    p.add_argument("--no-cache", action="store_true",
                   help="a folder of coverage + peak labels: compute the model paths even if "
                   "a cached copy exists, and store none")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where the model paths of coverage folders are cached, the same "
                   "for 'learn' and 'report' (default: $PENLEARN_CACHE_DIR, else "
                   "$XDG_CACHE_HOME/penlearn, else ~/.cache/penlearn)")


def _predict_arguments(add) -> None:
    """Arguments of ``penlearn predict``."""
    p = add("predict", "predicted log λ of a model for the sequences of a folder", cmd_predict)
    p.add_argument("model", metavar="MODEL.json", help="a model written by 'penlearn learn'")
    p.add_argument("data", metavar="DATA_DIR",
                   help="a folder with inputs.csv (or an inputs CSV file)")
    p.add_argument("--fold", default=None, metavar="K", help="only this CV fold's sequences")
    p.add_argument("--cv-type", default=None, metavar="TYPE", help="which cv/<TYPE>")
    p.add_argument("--out", default=None, metavar="PREDICTIONS.csv",
                   help="CSV to write (the id column as named in the inputs, e.g. sequenceID; "
                   "log_lambda); default: standard output")


def _peaks_arguments(add) -> None:
    """Arguments of ``penlearn peaks``."""
    p = add("peaks", "ChIP-seq peaks of coverage (PeakSeg model) at a penalty or a learned "
            "model's predicted penalty, as BED or narrowPeak", cmd_peaks)
    add_peaks_arguments(p)


def _report_arguments(add) -> None:
    """Arguments of ``penlearn report``."""
    p = add("report", "HTML ROC-change report of models and/or prediction files on a "
            "folder's evaluation table (a UCI folder, or coverage + peak labels: their "
            "model paths are computed, or read from learn's cache); on all its labeled "
            "sequences, the training sequences of a model learned on the folder, unless "
            "--fold K", cmd_report)
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
        error, 70 on a bug in penlearn (one line; ``--debug`` shows the traceback), 130 when
        interrupted, 143 when terminated.

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
    try:  # options that do nothing are refused before any work
        check_worker_arguments(args)
    except ValueError as exc:
        return error_exit(args.command, exc)
    with sigterm_unwinds(), warnings.catch_warnings():
        warnings.showwarning = _warning_printer(args.command)
        if args.quiet:
            warnings.simplefilter("ignore")
        try:
            return int(args.func(args) or 0)
        except Terminated:
            print(f"penlearn {args.command}: terminated", file=sys.stderr)
            return 143
        except KeyboardInterrupt:
            print(f"penlearn {args.command}: interrupted", file=sys.stderr)
            return 130
        except SystemError as exc:  # an interrupt raised inside a compiled kernel's call
            ki = interrupt_in_chain(exc)
            if ki is None:
                if args.debug:
                    raise
                return error_exit(args.command, exc)
            term = isinstance(ki, Terminated)
            print(f"penlearn {args.command}: {'terminated' if term else 'interrupted'}",
                  file=sys.stderr)
            return 143 if term else 130
        except BrokenPipeError:  # e.g. predict | head: the reader has what it wanted
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        except Exception as exc:  # one line (exit 1: bad input, 70: a bug); --debug: traceback
            if args.debug:
                raise
            return error_exit(args.command, exc)
