"""Shared pieces of the ``penlearn`` commands: argument parsing, messages, inputs."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import time
from pathlib import Path

import pandas as pd

from penlearn._checks import MissingDependency, check_regular_file
from penlearn.atomic_files import check_added_folder
from penlearn.changepoint.labels import labels_with_data
from penlearn.cli._workers import add_worker_arguments
from penlearn.datasets import read_table
from penlearn.datasets.peaks import is_peak_folder
from penlearn.learn import PenaltyModel, subtrain_validation_split
from penlearn.peaks.formats._label_text import check_sample_groups

DEMO_N_SEQUENCES = 90
DEMO_MAX_SEGMENTS = 20
DEMO_MIN_SEQUENCES = 12
#: what a coverage + peak labels folder holds (learn, report)
COVERAGE_FOLDER = ("a folder of ChIP-seq coverage + peak labels: coverage.csv[.gz] "
                   "(with sample_id), *.bedGraph[.gz], bigWig (*.bw, *.bigWig) or BAM "
                   "(*.bam) files, one per sample, plus labels.csv (sample_id, chrom, chromStart, "
                   "chromEnd, annotation; or labels.tsv / .bed / .txt)")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors, and every number an option value: argparse
    takes only ``-2`` / ``-2.5`` for a number, so ``--log-penalty -2.5e0``, ``-1e-3`` or
    ``-inf`` failed as "expected one argument" (no penlearn option looks like a number,
    so the wider pattern is safe)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(
            r"^-(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^-inf(?:inity)?$", re.IGNORECASE)

    def add_argument(self, *args, **kwargs):  # noqa: D102
        choices = kwargs.get("choices")
        if choices is not None and "type" not in kwargs \
                and all(isinstance(c, str) for c in choices):
            kwargs["type"] = any_case(choices)  # the one case rule of every choice
        return super().add_argument(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):  # noqa: D102
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self._subparsers is None:  # a command's own parser: it names them
            self.error(f"unrecognized arguments: {' '.join(extras)}"
                       f"{suggestion(extras, self._option_string_actions)}")
        return namespace, extras

    def error(self, message: str):  # noqa: D102
        choice = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$",
                          message)
        if choice:  # a misspelt command or value: the nearest of the choices
            names = re.findall(r"'([^']*)'", choice.group(3))
            message += suggestion([choice.group(2)], names, options=False)
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def any_case(choices):
    """argparse ``type`` of an option with word choices: any case of a choice is that
    choice (``--format narrowpeak`` is ``narrowPeak``, ``-f bampe`` is ``BAMPE``); other
    words are left to argparse's choice check (and :func:`suggestion`).

    Examples
    --------
    >>> any_case(("bed", "narrowPeak"))("NARROWPEAK")
    'narrowPeak'
    """
    folded: dict[str, list[str]] = {}
    for c in choices:
        folded.setdefault(c.casefold(), []).append(c)

    def canonical(text: str) -> str:
        hit = folded.get(str(text).casefold(), [])
        return hit[0] if len(hit) == 1 else text

    canonical.__name__ = "choice"  # (argparse names the type in some errors)
    return canonical


def suggestion(given, known, *, options: bool = True) -> str:
    """``" (did you mean --broad?)"`` for the first of ``given`` close to one of
    ``known`` (an unknown option's name before any ``=``; a case slip or a typo), else
    ``""``: the one rule of every command's usage errors.

    Examples
    --------
    >>> suggestion(["--brod"], ["--broad", "--out", "-q"])
    ' (did you mean --broad?)'
    >>> suggestion(["narrowpeak"], ["bed", "narrowPeak"], options=False)
    " (did you mean 'narrowPeak'?)"
    >>> suggestion(["--zzz"], ["--broad"])
    ''
    """
    known = [str(k) for k in known]
    for word in given:
        word = str(word).split("=", 1)[0]
        if options and not word.startswith("-"):
            continue
        folded = {k.casefold(): k for k in known}
        close = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.7)
        if close:
            hit = folded[close[0]]
            return f" (did you mean {hit}?)" if options else f" (did you mean {hit!r}?)"
    return ""


def non_negative_int(text: str) -> int:
    """argparse type of ``--seed``, ``--max-steps``: an integer >= 0 (argparse names the
    argument in its error).

    Examples
    --------
    >>> non_negative_int("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


def probability(text: str) -> float:
    """argparse type of ``--qvalue`` / ``--pvalue`` cutoffs: a number with 0 < x <= 1.

    Examples
    --------
    >>> probability("0.05")
    0.05
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0 and <= 1, got {text!r}"
                                         ) from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number > 0 and <= 1, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type of ``--window-size``: an integer >= 1.

    Examples
    --------
    >>> positive_int("200000")
    200000
    """
    value = non_negative_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def plural(n: int, word: str) -> str:
    """``n word`` or ``n words``: messages say "1 sequence", "2 sequences".

    Examples
    --------
    >>> plural(1, "sequence"), plural(3, "sequence")
    ('1 sequence', '3 sequences')
    """
    return f"{n} {word}{'' if n == 1 else 's'}"


#: What a command raises on bad input (files, tables, options, resources): one line on
#: stderr and exit 1. Anything else is a bug: one line naming it, exit 70 (``--debug``:
#: the traceback).
INPUT_ERRORS = (ValueError, TypeError, OSError, EOFError, OverflowError, MemoryError,
                MissingDependency)

#: Exit code of an unexpected exception (a bug; ``EX_SOFTWARE`` of sysexits.h).
EXIT_BUG = 70


def _one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (an OS error as ``what: file``, no errno)."""
    if isinstance(exc, OSError) and exc.strerror and exc.errno is not None:
        names = [str(f) for f in (exc.filename, exc.filename2) if f is not None]
        text = " ".join(f"{exc.strerror}: {' -> '.join(names)}".split()) if names else \
            " ".join(exc.strerror.split())
        return text
    text = " ".join(str(exc).split())
    if isinstance(exc, FileNotFoundError) and exc.filename and str(exc.filename) not in text:
        text = f"{text}: {exc.filename}"
    if isinstance(exc, MemoryError):
        text = "out of memory" + (f" ({text})" if text else "")
    return text or type(exc).__name__


def error_exit(command: str, exc: Exception) -> int:
    """Print the one-line message of a command's exception; returns the exit code.

    Bad input (:data:`INPUT_ERRORS`) is ``penlearn CMD: error: ...`` and exit 1; any other
    exception is a bug in penlearn: ``penlearn CMD: internal error: Type: ...`` with a hint
    to rerun with ``--debug`` (which shows the traceback), exit :data:`EXIT_BUG`.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     code = error_exit("learn", TypeError("column 'fp' must be numeric"))
    >>> code, err.getvalue().strip()
    (1, "penlearn learn: error: column 'fp' must be numeric")
    """
    if isinstance(exc, INPUT_ERRORS):
        print(f"penlearn {command}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    print(f"penlearn {command}: internal error: {type(exc).__name__}: {_one_line(exc)} "
          "(a bug in penlearn: rerun with --debug for the traceback and report it)",
          file=sys.stderr)
    return EXIT_BUG


class _Reporter:
    """Progress messages on stderr unless ``--quiet``."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.t0 = time.perf_counter()
        self._said: set[str] = set()

    def notice(self, msg: str) -> None:
        """A line on stdout said once per run (the zero-label model's notice), none with
        ``--quiet``."""
        if not self.quiet and msg not in self._said:
            self._said.add(msg)
            print(msg, flush=True)

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.t0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def _coverage_folder_arguments(p) -> None:
    """``--jobs``, ``--scheduler``, ``--tmpdir`` and the cache of a coverage + labels folder
    (``learn`` and ``report`` share the cached model paths)."""
    add_worker_arguments(p)
    p.add_argument("--no-cache", action="store_true",
                   help="a folder of coverage + peak labels: compute the model paths even if "
                   "a cached copy exists, and store none")
    p.add_argument("--groups", default=None, metavar="FILE",
                   help="each sample's group (cell type), for labels that name groups "
                   "('chr1:1,001-2,000 peakStart kidney'): a CSV / TSV with columns "
                   "sample_id, group (default: the coverage's 'group' or 'cell_type' "
                   "column, else the folder above a '<group>/<sample>' file)")
    p.add_argument("--group-column", default=None, metavar="COL",
                   help="a coverage column holding each sample's group (e.g. cell_type)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where the model paths of coverage folders are cached, the same "
                   "for 'learn' and 'report' (default: $PENLEARN_CACHE_DIR, else "
                   "$XDG_CACHE_HOME/penlearn, else ~/.cache/penlearn)")


def _cache_option(args):
    """``cache=`` of :func:`load_data` from ``--no-cache`` / ``--cache-dir`` (checked as
    ``--out`` is, before any work)."""
    if args.no_cache:
        return False
    if args.cache_dir is not None:
        check_added_folder(args.cache_dir, "--cache-dir", inputs=[args.data_dir],
                           outputs={"--out": getattr(args, "out", None)})
    return args.cache_dir or True


def groups_option(args):
    """``--groups FILE`` (its table ``sample_id, group``), ``--group-column COL`` (the
    name), or None; both given: an error."""
    if args.groups and args.group_column:
        raise ValueError("give at most one of --groups FILE and --group-column COL")
    return read_groups_file(args.groups) if args.groups else args.group_column


def _groups_kwarg(args) -> dict:
    """``groups=`` of :func:`load_data` for a coverage folder (``{}``: a UCI folder has
    no samples, and the options are refused there)."""
    groups = groups_option(args)
    if groups is None:
        return {}
    if not is_peak_folder(args.data_dir):
        raise ValueError("--groups / --group-column apply to a folder of coverage and peak "
                         f"labels; {args.data_dir} is a UCI-format folder")
    return {"groups": groups}


# --------------------------------------------------------------------------- inputs


def _load_model(path: str | os.PathLike, task: str | None = None):
    """The model file ``path``; ``task``: it must be a model of that task (its features
    mean what the command computes; :meth:`PenaltyModel.load`)."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"model file not found: {p}")
    return PenaltyModel.load(p, task=task)


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


def _write_csv(df: pd.DataFrame, path: Path, *, index: bool = False,
               id_column: str = "sequence_id") -> None:
    """Write a table, its id column named as the user's input named it."""
    df.rename(columns={"sequence_id": id_column}).to_csv(path, index=index)


def _checked_labels(args, sequences):
    """The labels file (or None), checked against the data before any work."""
    if args.labels is None:
        return None
    labels = read_table(args.labels, ["sequence_id", "start", "end", "annotation"], "labels")
    return labels_with_data(sequences, labels, outside="error" if args.strict else "warn",
                            unmatched="warn" if args.ignore_unmatched_labels else "error")


# --------------------------------------------------------------------------- commands


def _parse_named(spec: str, flag: str) -> tuple[str | None, str]:
    if "=" in spec and not Path(spec).exists():
        name, path = spec.split("=", 1)
        if not name:
            raise ValueError(f"{flag} {spec!r}: empty name before '='")
        return name, path
    return None, spec


def _warning_printer(command: str):
    """Warnings as one line ``penlearn CMD: warning: ...`` (no Python source lines)."""
    def show(message, category, filename, lineno, file=None, line=None):
        text = " ".join(str(message).split())
        print(f"penlearn {command}: warning: {text}", file=file or sys.stderr)
    return show


def read_sheet(path, columns: list[str], option: str) -> pd.DataFrame:
    """A small sample sheet: a CSV (``.csv``) or TSV / whitespace table of strings with
    (at least) ``columns``, checked; the error names ``option`` and the missing column.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "sheet.csv"
    >>> _ = f.write_text("sample_id,control\\nT1,C\\n")
    >>> read_sheet(f, ["sample_id", "control"], "--control-sheet").values.tolist()
    [['T1', 'C']]
    """
    sep = "," if str(path).endswith(".csv") else None
    check_regular_file(path)  # /dev/zero: read without bound
    try:
        # keep_default_na off: a sample or file named 'NA', 'null' or 'None' is a name
        # (an empty cell stays '', refused by the sheet's own check)
        table = pd.read_csv(path, sep=sep, engine="python", dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{option} {path} is empty: give a table with the columns "
                         f"{', '.join(columns)} (one row per sample)") from None
    # 'sample_id, control': names and cells stripped (a space after a comma is no part of
    # a name)
    table.columns = [str(c).strip() for c in table.columns]
    table = table.apply(lambda col: col.map(lambda v: v.strip() if isinstance(v, str) else v))
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{option} {path}: needs the columns {', '.join(columns)} "
                         f"(missing {missing[0]!r})")
    return table[columns]


def read_groups_file(path) -> pd.DataFrame:
    """``--groups FILE``: a CSV (``.csv``) or TSV / whitespace table with columns
    ``sample_id, group`` (strings), checked.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "groups.csv"
    >>> _ = f.write_text("sample_id,group\\nA,kidney\\nB,bcell\\n")
    >>> read_groups_file(f).values.tolist()
    [['A', 'kidney'], ['B', 'bcell']]
    """
    table = read_sheet(path, ["sample_id", "group"], "--groups")
    return check_sample_groups(table, f"--groups {path}")  # the one check of groups

