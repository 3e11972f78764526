"""Writing output files atomically: never a half-written file (temp file, then rename)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path


def default_file_mode() -> int:
    """Mode of a new file under the current umask (``mkstemp`` itself makes 0600 files).

    Examples
    --------
    >>> 0 <= default_file_mode() <= 0o666
    True
    """
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder.

    The file appears complete or not at all; on any error the temporary file is removed
    and an existing ``path`` is left untouched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> write_text_atomic(p, "hello")
    >>> p.read_text()
    'hello'
    """
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder.

    The file appears complete or not at all; on any error the temporary file is removed
    and an existing ``path`` is left untouched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> write_bytes_atomic(p, b"abc")
    >>> p.read_bytes()
    b'abc'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def existing_ancestor(path: Path) -> Path:
    """The nearest existing folder at or above ``path``.

    Examples
    --------
    >>> existing_ancestor(Path("/no/such/dir")) == Path("/")
    True
    """
    p = Path(path).absolute()
    while not p.exists():
        p = p.parent
    return p


def _same_or_inside(out: Path, inp: Path) -> bool:
    """True when writing ``out`` would replace ``inp``: the same file (a symlink or hard
    link included), or a folder holding it."""
    out_r, inp_r = out.resolve(), inp.resolve()
    if out_r == inp_r or out_r in inp_r.parents:
        return True
    try:
        return out.exists() and inp.exists() and os.path.samefile(out, inp)
    except OSError:
        return False


def check_not_input(path: str | os.PathLike, inputs=()) -> None:
    """Refuse an output that is one of the ``inputs``, holds one, or lies inside an input
    folder (``--force`` or not): writing it could replace what the command reads.

    This depends on the paths alone, so commands call it before reading any input
    (:func:`check_output` calls it too). Symlinks are followed; a hard link to an input
    is the input.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "data").mkdir()
    >>> check_not_input(d / "model.json", inputs=[d / "data"])
    >>> check_not_input(d / "data" / "inputs.csv", inputs=[d / "data"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --out .../data/inputs.csv is inside the input folder .../data: ...
    """
    path = Path(path)
    given = [Path(p) for p in inputs if p is not None and str(p) != ""]
    clash = [str(p) for p in given if _same_or_inside(path, p)]
    holds = [p for p in clash if path.resolve() in Path(p).resolve().parents]
    if holds:
        raise ValueError(f"--out {path} holds the input file(s) {holds}: write the output "
                         "to another folder")
    if clash:
        raise ValueError(f"--out {path} is the input {clash[0]}: write the output elsewhere")
    out_r = path.resolve()
    for p in given:
        if p.is_dir() and p.resolve() in out_r.parents:
            raise ValueError(f"--out {path} is inside the input folder {p}: an output there "
                             "could replace a file the command reads (or be read as input "
                             "next time); write it elsewhere")


def _replaces_cwd_or_mount(path: Path) -> str | None:
    """Why the folder ``path`` cannot be replaced as a whole (None: it can)."""
    p = path.resolve()
    cwd = Path.cwd().resolve()
    if p == cwd or p in cwd.parents:
        return "is the current folder" if p == cwd else "holds the current folder"
    if os.path.ismount(p):
        return "is a mount point"
    return None


def check_output(path: Path, *, directory: bool | None, force: bool = True,
                 inputs=()) -> None:
    """Fail early (before any work) on an output path that cannot be written.

    With ``force=False`` an existing file (or a non-empty folder) is an error: outputs
    replace what is there only when the user says so. An output never replaces one of
    the ``inputs`` (files or folders), ``force`` or not: the output must not be an input
    (through a symlink or hard link either), nor a folder holding one, nor lie inside an
    input folder (:func:`check_not_input`). A folder replaced as a whole (``force``) must
    not be the current folder, hold it, or be a mount point. ``directory=None``: either
    kind (the command knows which only after reading its inputs).

    Examples
    --------
    >>> import tempfile
    >>> check_output(Path(tempfile.mkdtemp()) / "out.csv", directory=False)
    >>> src = Path(tempfile.mkdtemp()) / "in.csv"
    >>> _ = src.write_text("x")
    >>> check_output(src, directory=False, inputs=[src])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --out ... is the input ...: write the output elsewhere
    """
    path = Path(path)
    if directory and path.exists() and not path.is_dir():
        raise ValueError(f"--out {path} exists and is not a directory")
    if directory is False and path.is_dir():
        raise ValueError(f"--out {path} is a directory; give a file name")
    check_not_input(path, inputs)
    if not force and path.exists() and (not path.is_dir() or any(path.iterdir())):
        what = "folder" if path.is_dir() else "file"
        raise ValueError(f"--out {path}: the {what} exists; give --force to replace it"
                         + (" (its whole content)" if path.is_dir() else ""))
    if force and directory is not False and path.is_dir():
        why = _replaces_cwd_or_mount(path)
        if why:
            raise ValueError(f"--out {path} {why}: --force cannot replace it as a whole; "
                             "give a new or another folder")
    anc = existing_ancestor(path.parent if not directory else path)
    if not anc.is_dir():
        raise ValueError(f"cannot create {path}: {anc} is not a directory")
    if not os.access(anc, os.W_OK):
        raise PermissionError(f"cannot write to {anc}")


@contextlib.contextmanager
def staged_dir(out: Path, *, replace: bool = False) -> Iterator[Path]:
    """Write files into a temporary directory; move them to ``out`` only on success.

    With ``replace=True`` the whole folder ``out`` is replaced (no stale files of an
    earlier run stay); otherwise the new files are moved into it. On any exception,
    ``KeyboardInterrupt`` and ``SystemExit`` included (e.g. SIGTERM turned into one), the
    temporary directory is removed and ``out`` is left as it was.

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "results"
    >>> with staged_dir(out) as tmp:
    ...     _ = (tmp / "a.txt").write_text("a")
    >>> sorted(p.name for p in out.iterdir())
    ['a.txt']
    """
    anc = existing_ancestor(out.parent)
    tmp = Path(tempfile.mkdtemp(dir=anc, prefix=f".{out.name}.", suffix=".tmp"))
    try:
        yield tmp
        if replace and out.is_dir():
            _swap_dir(tmp, out)
            return
        out.mkdir(parents=True, exist_ok=True)
        for f in sorted(tmp.rglob("*"), key=lambda p: len(p.parts)):
            target = out / f.relative_to(tmp)
            if f.is_dir():
                target.mkdir(exist_ok=True)
            else:
                os.chmod(f, default_file_mode())
                os.replace(f, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _swap_dir(new: Path, out: Path) -> None:
    """Replace folder ``out`` by ``new``: rename the old one aside, then delete it."""
    old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".old.tmp"))
    os.rmdir(old)
    os.replace(out, old)
    try:
        os.chmod(new, 0o777 & ~_umask())
        os.replace(new, out)
    except BaseException:
        os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def staged_file(out: Path) -> Iterator[Path]:
    """A temporary file path whose content replaces ``out`` only on success.

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "table.csv"
    >>> with staged_file(out) as tmp:
    ...     _ = tmp.write_text("x")
    >>> out.read_text()
    'x'
    """
    anc = existing_ancestor(out.parent)
    fd, name = tempfile.mkstemp(dir=anc, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        out.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that staged outputs are cleaned up."""


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``).

    The ``finally`` blocks of :func:`staged_dir` and :func:`staged_file` then remove
    their temporary files, as they do on Ctrl-C; the default SIGTERM action would kill
    the process and leave them behind. Outside the main thread it does nothing.

    Examples
    --------
    >>> with sigterm_unwinds():
    ...     pass
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
