"""The harness of the hostile-input tests (see README.md beside this file).

A case is ``(name, call, want)``; :func:`classify` runs ``call()`` and names the outcome:

* ``ok``        — the expected result, or the one clear line that ``want`` asks for;
* ``data-loss`` — an input folder of ``Error(..., inputs=...)`` changed;
* ``silent``    — no error where the input is wrong, or a wrong result;
* ``unclear``   — another exception, a message over several lines, or one lacking the
  words it must name.

:func:`check_cases` asserts that every case of a list is ``ok`` and lists the others.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import warnings
from pathlib import Path


class Error:
    """``want`` of a case that must fail with one line naming every ``needle``, leaving the
    ``inputs`` folders byte for byte unchanged."""

    def __init__(self, *needles: str, inputs=()) -> None:
        self.needles, self.inputs = needles, [Path(p) for p in inputs]

    def __repr__(self) -> str:
        return f"Error{self.needles!r}"


#: any one-line ``ValueError`` / ``TypeError``
ERROR = Error()
#: a one-line ``FileNotFoundError`` (a missing file, named)
MISSING = object()


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (relative path -> SHA-1 of its bytes)."""
    return {str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def run_cli(argv) -> str:
    """``penlearn ARGV`` in-process. Exit 0 returns stderr; a failure with one ``error:``
    line on stderr (exit 1: bad input, exit 2: usage) raises ``ValueError`` with that
    line; anything else (exit 70, a traceback, several lines) raises ``RuntimeError``."""
    from penlearn.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            code = exc.code
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    if code in (1, 2) and len(lines) == 1 and "error:" in lines[0]:
        raise ValueError(lines[0])
    if code != 0:
        raise RuntimeError(f"exit {code}: {err.getvalue()[-300:]}")
    return err.getvalue()


def classify(call, want) -> tuple[str, str]:
    """``(verdict, detail)`` of one case (see the module docstring)."""
    if want is MISSING:
        try:
            call()
        except FileNotFoundError as exc:
            return ("ok" if "\n" not in str(exc).strip() else "unclear"), str(exc)[:160]
        except Exception as exc:  # noqa: BLE001 - every failure is recorded
            return "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
        return "silent", "no error"
    inputs = want.inputs if isinstance(want, Error) else []
    before = [snapshot(d) for d in inputs]
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            got = call()
    except (ValueError, TypeError) as exc:
        text = str(exc)
        if not isinstance(want, Error):
            verdict, detail = "unclear", f"{type(exc).__name__}: {text[:160]}"
        elif not text or "\n" in text.strip():
            verdict, detail = "unclear", text[:160]
        elif not all(n in text for n in want.needles):
            verdict, detail = "unclear", f"message lacks {want.needles}: {text[:160]}"
        else:
            verdict, detail = "ok", text[:160]
    except Exception as exc:  # noqa: BLE001 - every failure is recorded
        verdict, detail = "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
    else:
        if isinstance(want, Error):
            verdict, detail = "silent", f"no error; got {str(got)[:120]!r}"
        else:
            try:
                good = bool(want(got))
            except Exception as exc:  # noqa: BLE001
                good, got = False, f"result check failed: {type(exc).__name__}: {exc}"
            verdict, detail = ("ok", "") if good else ("silent", f"wrong: {str(got)[:160]!r}")
    if any(snapshot(d) != b for d, b in zip(inputs, before)):
        return "data-loss", f"input changed ({detail[:120]})"
    return verdict, detail


def check_cases(cases, *, at_least: int = 1) -> None:
    """Every case of ``cases`` (an iterable of ``(name, call, want)``) is ``ok``; there are
    at least ``at_least`` of them (a setup that yields nothing cannot pass)."""
    bad, n = [], 0
    for name, call, want in cases:
        n += 1
        verdict, detail = classify(call, want)
        if verdict != "ok":
            bad.append(f"{verdict:9s} {name}: {detail}")
    assert n >= at_least, f"{n} cases, expected at least {at_least}"
    assert not bad, f"{len(bad)} of {n} cases not handled:\n" + "\n".join(bad)
