"""Writing output files atomically: never a half-written file (temp file, then rename)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import stat
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


#: The longest file name (bytes) on the usual file systems (ext4, XFS, APFS, NTFS).
NAME_MAX = 255
#: Room a staging name needs beyond its stem: ``.``, ``.``, mkstemp's 8 random characters
#: and ``.old.tmp``.
_STAGE_EXTRA = 1 + 1 + 8 + len(".old.tmp")


def short_name(name: str, room: int) -> str:
    """``name`` itself when it leaves ``room`` bytes free within :data:`NAME_MAX`, else
    its first characters and a digest of the whole (distinct names stay distinct), so
    that a name made from it (a staging name, ``OUT.penlearn-parts``) fits a file system.

    Examples
    --------
    >>> short_name("peaks.bed", 20)
    'peaks.bed'
    >>> len(short_name("x" * 250, 20).encode()) <= NAME_MAX - 20
    True
    """
    raw = name.encode("utf-8", "surrogatepass")
    if len(raw) + room <= NAME_MAX:
        return name
    digest = hashlib.blake2b(raw, digest_size=8).hexdigest()
    return raw[:100].decode("utf-8", "ignore") + "~" + digest


def derived_path(out: str | os.PathLike, suffix: str) -> Path:
    """The path beside ``out`` named ``<out's name><suffix>`` (``peaks.bed`` ->
    ``peaks.bed.penlearn-parts``), its name shortened (:func:`short_name`) where it would
    exceed :data:`NAME_MAX` bytes: any valid output name has one.

    Examples
    --------
    >>> derived_path("results/peaks.bed", ".penlearn-parts").as_posix()
    'results/peaks.bed.penlearn-parts'
    >>> len(derived_path("p" * 250, ".penlearn-parts").name) <= NAME_MAX
    True
    """
    out = Path(out)
    return out.with_name(short_name(out.name, len(suffix.encode())) + suffix)


def stage_prefix(out: str | os.PathLike) -> str:
    """The prefix of the temporary names an output ``out`` is staged under, within
    :data:`NAME_MAX` bytes whatever the length of ``out``'s name: ``.<name>.``, or for a
    long name its first characters and a digest of it (:func:`short_name`), so a valid
    250-byte output name stages as well as a short one.

    Examples
    --------
    >>> stage_prefix("results/peaks.bed")
    '.peaks.bed.'
    >>> len(stage_prefix("x" * 250).encode()) + 18 <= NAME_MAX
    True
    """
    return f".{short_name(Path(out).name, _STAGE_EXTRA)}."


def check_replaceable(path: str | os.PathLike, option: str = "output") -> None:
    """The one output-path check of the node itself: an output replaces a regular file
    or a folder, never a pipe, device or socket (a rename would put a regular file in
    the node's place: the FIFO or ``/dev/...`` entry would be lost). A ``ValueError``
    naming ``option`` and the path; a missing path is fine (a symlink is followed).

    Examples
    --------
    >>> check_replaceable("/dev/null", "--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --out /dev/null is a device, not a regular file: ...
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    what = ("a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device")
    raise ValueError(f"{option} {path} is {what}, not a regular file: penlearn writes its "
                     "outputs to a file through a rename, which would replace that node "
                     "(--force or not); give a file name")


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
    and an existing ``path`` is left untouched. A file replaced keeps its mode.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> write_bytes_atomic(p, b"abc")
    >>> p.read_bytes()
    b'abc'
    """
    path = Path(path)
    check_replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # a file replaced keeps its mode (0600 stays 0600), a new one gets the umask's
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = default_file_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=stage_prefix(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
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


def check_not_input(path: str | os.PathLike, inputs=(), option: str = "--out") -> None:
    """Refuse an output that is one of the ``inputs``, holds one, or lies inside an input
    folder (``--force`` or not): writing it could replace what the command reads.

    This depends on the paths alone, so commands call it before reading any input
    (:func:`check_output` calls it too). Symlinks are followed; a hard link to an input
    is the input. ``option`` names the output in the message (``--out``, ``--cache-dir``).

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
        raise ValueError(f"{option} {path} holds the input file(s) {holds}: write the output "
                         "to another folder")
    if clash:
        raise ValueError(f"{option} {path} is the input {clash[0]}: write the output elsewhere")
    out_r = path.resolve()
    for p in given:
        if p.is_dir() and p.resolve() in out_r.parents:
            raise ValueError(f"{option} {path} is inside the input folder {p}: an output "
                             "there could replace a file the command reads (or be read as "
                             "input next time); write it elsewhere")


def check_file_name(name: str, option: str) -> None:
    """Refuse a text that cannot be one file or folder name (a path component): empty,
    ``.`` or ``..``, holding ``/`` or NUL, or longer than :data:`NAME_MAX` bytes.

    Examples
    --------
    >>> check_file_name("hg19", "--genome")
    >>> check_file_name("..", "--genome")
    Traceback (most recent call last):
    ...
    ValueError: --genome '..' cannot name a folder: '.' and '..' are not names
    """
    text = str(name)
    if not text.strip():
        raise ValueError(f"{option} is empty (an unset shell variable?): give a name")
    if text in (".", ".."):
        raise ValueError(f"{option} {text!r} cannot name a folder: '.' and '..' are not names")
    if "/" in text or "\0" in text or (os.sep != "/" and os.sep in text):
        raise ValueError(f"{option} {text[:60]!r} holds a path separator or NUL: give one "
                         "name, not a path")
    n = len(text.encode("utf-8", "surrogatepass"))
    if n > NAME_MAX:
        raise ValueError(f"{option} {text[:40]!r}... is {n} bytes long: a file name has at "
                         f"most {NAME_MAX}")


def check_path_names(path: str | os.PathLike, option: str = "--out") -> None:
    """Refuse a path that names nothing writable by its text alone: empty, or with a
    component longer than :data:`NAME_MAX` bytes (the OS would say "File name too long"
    only when it is written, after the work).

    Examples
    --------
    >>> check_path_names("results/peaks.bed")
    >>> check_path_names("x" * 300, "--cache-dir")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --cache-dir xxx...: a name in this path is 300 bytes long; ...
    """
    text = os.fspath(path)
    if not str(text).strip():
        raise ValueError(f"{option} is empty (an unset shell variable?): give a file or "
                         "folder")
    for part in Path(text).parts:
        n = len(part.encode("utf-8", "surrogatepass"))
        if n > NAME_MAX:
            raise ValueError(f"{option} {str(text)[:40]}...: a name in this path is {n} "
                             f"bytes long; file systems allow at most {NAME_MAX}")


def check_not_symlink(path: str | os.PathLike, what: str) -> None:
    """Refuse a path the command makes itself (a parts folder, a staging name) that is a
    symbolic link: writing there would write into wherever the link points.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "link").symlink_to(d)
    >>> check_not_symlink(d / "link", "the parts folder")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the parts folder .../link is a symbolic link (to ...): ...
    """
    path = Path(path)
    if path.is_symlink():
        raise ValueError(f"{what} {path} is a symbolic link (to {os.readlink(path)}): "
                         "penlearn does not write into where it points; remove the link")


def check_outputs_apart(outputs: dict, folders=()) -> None:
    """Refuse two outputs of one command that are the same path
    (``--cache-dir m.json --out m.json``) or one inside a file output: ``outputs`` maps
    an option to its path (None: not given); the options in ``folders`` are folders the
    command adds files to (a cache), so another output may lie inside them.

    Examples
    --------
    >>> check_outputs_apart({"--out": "m.json", "--cache-dir": "."}, folders=["--cache-dir"])
    >>> check_outputs_apart({"--out": "m.json", "--cache-dir": "m.json"})
    Traceback (most recent call last):
    ...
    ValueError: --out m.json and --cache-dir m.json are the same path: give each its own
    """
    given = [(k, Path(v)) for k, v in outputs.items() if v is not None and str(v) != ""]
    for i, (a, pa) in enumerate(given):
        for b, pb in given[i + 1:]:
            ra, rb = pa.resolve(), pb.resolve()
            if ra == rb:
                raise ValueError(f"{a} {pa} and {b} {pb} are the same path: give each its own")
            for (x, px, rx), (y, py, ry) in (((a, pa, ra), (b, pb, rb)),
                                             ((b, pb, rb), (a, pa, ra))):
                if x not in folders and rx in ry.parents:
                    raise ValueError(f"{y} {py} is inside {x} {px}, a file the command "
                                     "writes: give each output its own place")


def check_added_folder(path: str | os.PathLike, option: str, inputs=(),
                       outputs: dict | None = None) -> None:
    """Check a folder a command adds files to and never replaces (``--cache-dir``), as
    :func:`check_output` checks ``--out``, before any work: its names fit a file system,
    it is a folder if it exists, it is no input and lies inside none
    (:func:`check_not_input`), and it is apart from the command's other ``outputs``
    ({option: path}; :func:`check_outputs_apart`).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> check_added_folder(d / "cache", "--cache-dir", outputs={"--out": d / "m.json"})
    >>> check_added_folder(d / "m.json", "--cache-dir", outputs={"--out": d / "m.json"})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: --cache-dir .../m.json and --out .../m.json are the same path: ...
    """
    check_path_names(path, option)
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {path} exists and is not a folder")
    check_not_input(path, inputs, option)
    check_outputs_apart({option: path, **(outputs or {})}, folders=[option])
    anc = existing_ancestor(path)
    if not anc.is_dir():
        raise ValueError(f"{option} {path}: {anc} is not a folder")


def remove_tree(path: str | os.PathLike) -> None:
    """Remove a folder the command made (or the link itself, if ``path`` is a symbolic
    link: never what it points to); a failure raises ``OSError`` instead of passing
    silently. A missing ``path`` is fine.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "keep").mkdir(); (d / "link").symlink_to(d / "keep")
    >>> remove_tree(d / "link"); (d / "keep").is_dir(), (d / "link").exists()
    (True, False)
    """
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


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
                 inputs=(), option: str = "--out") -> None:
    """Fail early (before any work) on an output path that cannot be written.

    With ``force=False`` an existing file (or a non-empty folder) is an error: outputs
    replace what is there only when the user says so. An output never replaces one of
    the ``inputs`` (files or folders), ``force`` or not: the output must not be an input
    (through a symlink or hard link either), nor a folder holding one, nor lie inside an
    input folder (:func:`check_not_input`). A folder replaced as a whole (``force``) must
    not be the current folder, hold it, or be a mount point. ``directory=None``: either
    kind (the command knows which only after reading its inputs). Every name in the
    path must fit a file system (:func:`check_path_names`); ``option`` names the output
    in the messages.

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
    check_path_names(path, option)
    path = Path(path)
    check_replaceable(path, option)
    if directory and path.exists() and not path.is_dir():
        raise ValueError(f"{option} {path} exists and is not a directory")
    if directory is False and path.is_dir():
        raise ValueError(f"{option} {path} is a directory; give a file name")
    check_not_input(path, inputs, option)
    if not force and path.exists() and (not path.is_dir() or any(path.iterdir())):
        what = "folder" if path.is_dir() else "file"
        raise ValueError(f"{option} {path}: the {what} exists; give --force to replace it"
                         + (" (its whole content)" if path.is_dir() else ""))
    if force and directory is not False and path.is_dir():
        why = _replaces_cwd_or_mount(path)
        if why:
            raise ValueError(f"{option} {path} {why}: --force cannot replace it as a "
                             "whole; give a new or another folder")
    anc = existing_ancestor(path.parent if not directory else path)
    if not anc.is_dir():
        raise ValueError(f"{option} {path}: cannot create it: {anc} is not a directory")
    if not os.access(anc, os.W_OK):
        raise PermissionError(f"{option} {path}: cannot write to {anc}")


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
    check_replaceable(out)
    anc = existing_ancestor(out.parent)
    tmp = Path(tempfile.mkdtemp(dir=anc, prefix=stage_prefix(out), suffix=".tmp"))
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
    old = Path(tempfile.mkdtemp(dir=out.parent, prefix=stage_prefix(out), suffix=".old.tmp"))
    os.rmdir(old)
    os.replace(out, old)
    try:
        os.chmod(new, 0o777 & ~_umask())
        os.replace(new, out)
    except BaseException:
        os.replace(old, out)
        raise
    remove_tree(old)  # a symlinked ``out``: the link is removed, not where it points


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
    check_replaceable(out)
    anc = existing_ancestor(out.parent)
    fd, name = tempfile.mkstemp(dir=anc, prefix=stage_prefix(out), suffix=".tmp")
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
