"""The ``penlearn`` command: its argument parser and entry point.

Each command is a module of :mod:`penlearn.cli` that owns its arguments and its handler:
its ``register(add)`` calls ``add(name, help, handler)`` for its subparser and adds its
arguments to it. This module only builds the parser from :data:`COMMANDS` and dispatches.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

from penlearn._interrupt import interrupt_in_chain
from penlearn._version import package_version
from penlearn.atomic_files import Terminated, sigterm_unwinds
from penlearn.cli import (
    callpeak,
    demo,
    errors,
    hub,
    joint,
    label,
    learn,
    peaks,
    predict,
    pretrain,
    propose,
    report,
    segment,
)
from penlearn.cli._common import _Parser, _warning_printer, error_exit
from penlearn.cli._workers import check_worker_arguments

#: The command modules, in the order ``penlearn --help`` lists them.
COMMANDS = (demo, segment, learn, predict, peaks, callpeak, joint, errors, hub, label,
            propose, pretrain, report)

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

    def add(name: str, help_: str, func, *, force_help: str = FORCE_HELP,
            short_quiet: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument(*(["-q"] if short_quiet else []), "--quiet", action="store_true",
                       help="nothing on stderr but errors (no progress, messages or warnings); "
                       "the command's result on stdout stays")
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help=DEBUG_HELP)
        p.add_argument("--force", action="store_true", help=force_help)
        p.set_defaults(func=func)
        return p

    for command in COMMANDS:
        command.register(add)
    return parser


#: --force of the commands that write a folder (replaced whole); those that write one
#: file say so in their own ``add(..., force_help=...)``
FORCE_HELP = "replace an existing --out (a folder is replaced as a whole)"


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
