"""Interrupts: one line, no traceback, and never inside a compiled kernel.

Ctrl-C while the ``penlearn`` command is still importing: one line, no traceback.

The command's own handler (:func:`penlearn.cli.main`) only runs once every module is
imported; importing NumPy, pandas and the pipeline takes a second or more, and an
interrupt in that window would print a long traceback. This module is imported first
(before any heavy import) and, only when the process is the ``penlearn`` command
(``penlearn ...`` or ``python -m penlearn.cli``), wraps ``sys.excepthook`` so that an
uncaught ``KeyboardInterrupt`` prints ``penlearn: interrupted``. Library users (``import
penlearn`` in a script or notebook) are not affected.

:func:`deferred_interrupts` wraps the calls of numba kernels: a SIGINT / SIGTERM whose
Python handler would run while numba boxes the kernel's results (where raising gives a
``SystemError: CPUDispatcher(...) returned a result with an exception set`` or even a
segmentation fault) is recorded and handled as soon as the kernel has returned.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator


def _is_cli() -> bool:
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    if name in ("penlearn", "penlearn.exe"):
        return True
    orig = list(getattr(sys, "orig_argv", []))
    return any(a == "-m" and b == "penlearn.cli" for a, b in zip(orig, orig[1:]))


def _hook(previous):
    def excepthook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt) or interrupt_in_chain(value) is not None:
            print("penlearn: interrupted", file=sys.stderr)
            return
        previous(kind, value, tb)

    excepthook.penlearn_quiet_interrupt = True
    return excepthook


def interrupt_in_chain(exc: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` that caused ``exc`` (itself, its cause or context), if any.

    Examples
    --------
    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt as k:
    ...         raise SystemError("returned a result with an exception set") from k
    ... except SystemError as e:
    ...     type(interrupt_in_chain(e)).__name__
    'KeyboardInterrupt'
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


#: how deep the main thread is in :func:`deferred_interrupts` blocks (a nested block
#: leaves the outer one's handlers: callpeak's ~10⁵ small solves, one block a window)
_DEPTH = [0]


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Within the block, SIGINT / SIGTERM are handled when the block ends.

    For the calls of compiled (numba) kernels: the interpreter runs a signal's Python
    handler at the next check, which can be inside numba's boxing of the kernel's
    results, where an exception corrupts the call. Here the handler only records the
    signal; the previous handler runs once the block is left (so Ctrl-C raises
    ``KeyboardInterrupt`` right after the kernel returns). A second signal during the
    block runs the previous handler at once. Signals with no Python handler (default
    kill, ignored) and threads other than the main one are left as they are.

    Examples
    --------
    >>> with deferred_interrupts():
    ...     x = sum(range(10))
    >>> x
    45
    """
    if threading.current_thread() is not threading.main_thread() or _DEPTH[0]:
        yield  # (another thread's, or within a block already: its handlers act)
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    previous = {s: h for s, h in previous.items() if callable(h)}
    pending: list[int] = []

    def record(signum, frame):
        if pending:  # asked twice: act now
            previous[signum](signum, frame)
        pending.append(signum)

    for s in previous:
        signal.signal(s, record)
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1
        for s, h in previous.items():
            signal.signal(s, h)
    if pending:
        previous[pending[0]](pending[0], None)


def install() -> None:
    """Install the hook once, when running as the ``penlearn`` command."""
    if _is_cli() and not getattr(sys.excepthook, "penlearn_quiet_interrupt", False):
        sys.excepthook = _hook(sys.excepthook)


install()
