"""The CLI error boundary: bad input is one line and exit 1, a bug one line and exit 70,
``--debug`` shows the traceback."""

from __future__ import annotations

import errno
import subprocess
import sys

import pytest

from penlearn.cli import main
from penlearn.cli import predict as PREDICT


def _raiser(exc):
    def cmd(args):
        raise exc
    return cmd


def _run_with(monkeypatch, capsys, exc, *extra):
    monkeypatch.setattr(PREDICT, "cmd_predict", _raiser(exc))
    code = main(["predict", *extra, "model.json", "data"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("exc, needle", [
    (TypeError("column 'fp' must be numeric, got 'x'"), "column 'fp' must be numeric"),
    (ValueError("bad\nvalue"), "bad value"),
    (OSError(errno.EBUSY, "Device or resource busy", "."), "Device or resource busy: ."),
    (EOFError("Compressed file ended before the end-of-stream marker was reached"),
     "Compressed file ended"),
    (OverflowError("int too large to convert to float"), "int too large"),
    (MemoryError(), "out of memory"),
])
def test_input_errors_are_one_line_and_exit_1(monkeypatch, capsys, exc, needle):
    code, err = _run_with(monkeypatch, capsys, exc)
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("penlearn predict: error: "), err
    assert needle in err and "Traceback" not in err and "Errno" not in err


@pytest.mark.parametrize("exc", [KeyError("sequence_id"), ZeroDivisionError("division by zero"),
                                 RuntimeError("boom"), AssertionError()])
def test_bugs_are_one_line_exit_70_naming_debug(monkeypatch, capsys, exc):
    code, err = _run_with(monkeypatch, capsys, exc)
    assert code == 70, err
    assert err.count("\n") == 1 and "internal error" in err and type(exc).__name__ in err
    assert "--debug" in err and "Traceback" not in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_shows_the_traceback(monkeypatch, capsys, where):
    monkeypatch.setattr(PREDICT, "cmd_predict", _raiser(ZeroDivisionError("x")))
    argv = ["predict", "model.json", "data"]
    argv = ["--debug", *argv] if where == "before" else [*argv, "--debug"]
    with pytest.raises(ZeroDivisionError):
        main(argv)


def test_debug_is_in_every_help():
    for cmd in ("learn", "predict", "peaks", "report", "segment", "demo"):
        text = subprocess.run([sys.executable, "-m", "penlearn.cli", cmd, "--help"],
                              capture_output=True, text=True).stdout
        assert "--debug" in text and "traceback" in text, cmd


def test_real_bad_input_stays_one_line(tmp_path, capsys):
    """A real bad input through the whole command: a missing model file."""
    code = main(["predict", str(tmp_path / "none.json"), str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "model file not found" in err
