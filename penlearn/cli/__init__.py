"""The ``penlearn`` command line.

Subcommands (``penlearn <command> --help`` for each): ``demo`` (the whole pipeline on
simulated sequences, with an HTML report), ``segment`` (models, changes, features and,
with labels, the evaluation table and CV folds, as a UCI-format folder that ``learn``
reads), ``learn`` (a penalty model, optionally holding out a CV fold), ``predict``
(predicted log λ) and ``report`` (an HTML ROC-change report).

Bad input (a ``ValueError`` or ``OSError``: missing files or columns, unreadable tables,
a model file of another kind or version) ends with a one-line message on stderr and exit
code 1 (2 for usage errors); any other exception is a bug and keeps its traceback.
Warnings are one line too. Outputs are written only when the whole command succeeded
(staged next to the target, then moved in place); an existing ``--out`` is replaced only
with ``--force``; Ctrl-C (exit 130) and SIGTERM (exit 143) leave no temporary files.
Sequence ids are text; output tables name their id column as the input did.
"""

from penlearn.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
