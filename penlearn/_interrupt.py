"""Ctrl-C while the ``penlearn`` command is still importing: one line, no traceback.

The command's own handler (:func:`penlearn.cli.main`) only runs once every module is
imported; importing NumPy, pandas and the pipeline takes a second or more, and an
interrupt in that window would print a long traceback. This module is imported first
(before any heavy import) and, only when the process is the ``penlearn`` command
(``penlearn ...`` or ``python -m penlearn.cli``), wraps ``sys.excepthook`` so that an
uncaught ``KeyboardInterrupt`` prints ``penlearn: interrupted``. Library users (``import
penlearn`` in a script or notebook) are not affected.
"""

from __future__ import annotations

import os
import sys


def _is_cli() -> bool:
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    if name in ("penlearn", "penlearn.exe"):
        return True
    orig = list(getattr(sys, "orig_argv", []))
    return any(a == "-m" and b == "penlearn.cli" for a, b in zip(orig, orig[1:]))


def _hook(previous):
    def excepthook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            print("penlearn: interrupted", file=sys.stderr)
            return
        previous(kind, value, tb)

    excepthook.penlearn_quiet_interrupt = True
    return excepthook


def install() -> None:
    """Install the hook once, when running as the ``penlearn`` command."""
    if _is_cli() and not getattr(sys.excepthook, "penlearn_quiet_interrupt", False):
        sys.excepthook = _hook(sys.excepthook)


install()
