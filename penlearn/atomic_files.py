"""Writing output files atomically: never a half-written file (temp file, then rename)."""

from __future__ import annotations

import os
import tempfile
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
