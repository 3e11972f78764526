"""Saved results of single (sample, window) problems, keyed by their content.

Two users: :func:`~penlearn.peaks.peak_evaluation.predict_peaks` ``parts=FOLDER`` (the
resume of ``penlearn peaks``: every window's result is written as soon as it is solved,
and a rerun takes the finished ones back) and
:func:`~penlearn.peaks.peak_evaluation.peak_error_functions` ``cache=`` (every labeled
window's error functions, reused by a later call on the same coverage and labels).

A part's key is a BLAKE2 digest of everything its result depends on: the window's
coverage rows as read (chromosome, starts, ends and counts, the arrays' bytes: contents,
not file names or dates), what was asked of it (the exact log λ, or the labels and the
path bound), the options, the penlearn version and the source of :mod:`penlearn.peaks`
(:func:`code_digest`). The key names the file (``<kind>-<key>.csv``), so a changed input
or model never reads a stale part: it looks for another file. Each file is written
atomically (temporary file, then rename): one line of JSON (the key and the column
dtypes), then the table as CSV, floats in their shortest exact form and read back with
exact float parsing, so the table read equals the table written.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._version import package_version
from penlearn.atomic_files import write_bytes_atomic

__all__ = ["code_digest", "default_cache_dir", "frame_digest", "part_key", "read_part",
           "write_part"]

#: bump when a part's table changes meaning
PART_FORMAT = 1
#: pandas < 3 parses floats exactly only when asked (pandas 3 always does, and deprecates it)
_EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def default_cache_dir() -> Path:
    """``$PENLEARN_CACHE_DIR``, else ``$XDG_CACHE_HOME/penlearn``, else ``~/.cache/penlearn``.

    Examples
    --------
    >>> default_cache_dir().name in ("penlearn", os.environ.get("PENLEARN_CACHE_DIR", ""))
    True
    """
    if os.environ.get("PENLEARN_CACHE_DIR"):
        return Path(os.environ["PENLEARN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "penlearn"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the source of :mod:`penlearn.peaks`: a changed model or error rule (same
    version number, e.g. a git checkout) never reads results saved before.

    Examples
    --------
    >>> len(code_digest())
    32
    """
    h = hashlib.blake2b(digest_size=16)
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def frame_digest(table: pd.DataFrame, columns) -> str:
    """A BLAKE2 digest of the values of ``columns`` (their dtypes and bytes; text columns
    by their strings), the content key of a table.

    Examples
    --------
    >>> a = pd.DataFrame({"chrom": ["chr1"], "count": [3]})
    >>> frame_digest(a, ["chrom", "count"]) == frame_digest(a.assign(count=4), ["chrom", "count"])
    False
    """
    h = hashlib.blake2b(digest_size=20)
    for col in columns:
        values = table[col].to_numpy()
        h.update(f"{col}\0{values.dtype.kind}\0{len(values)}\0".encode())
        if values.dtype.kind in "biuf":
            h.update(np.ascontiguousarray(values).tobytes())
        else:
            h.update("\0".join(map(str, values)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def part_key(kind: str, **fields) -> str:
    """The key of one part: a digest of ``fields`` (JSON), the format, the penlearn version
    and :func:`code_digest`.

    Examples
    --------
    >>> part_key("peaks", log_lambda=(1.5).hex()) != part_key("peaks", log_lambda=(2.0).hex())
    True
    """
    text = json.dumps({"kind": kind, "format": PART_FORMAT, "penlearn": package_version(),
                       "code": code_digest(), **fields}, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def _path(folder: Path, kind: str, key: str) -> Path:
    return Path(folder) / f"{kind}-{key}.csv"


def write_part(folder: str | os.PathLike, kind: str, key: str, table: pd.DataFrame) -> None:
    """Write one part atomically (see the module docstring for the file).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> t = pd.DataFrame({"chromStart": [0], "mean": [0.1 + 0.2]})
    >>> write_part(d, "peaks", "k", t)
    >>> read_part(d, "peaks", "k").equals(t)
    True
    """
    meta = {"key": key, "dtypes": {c: str(t) for c, t in table.dtypes.items()}}
    text = json.dumps(meta) + "\n" + table.to_csv(index=False, lineterminator="\n")
    write_bytes_atomic(_path(Path(folder), kind, key), text.encode("utf-8"))


def read_part(folder: str | os.PathLike, kind: str, key: str) -> pd.DataFrame | None:
    """The table of a part, or None when there is none (or it is unreadable: one warning,
    and it is computed again).

    Examples
    --------
    >>> import tempfile
    >>> read_part(tempfile.mkdtemp(), "peaks", "no-such-key") is None
    True
    """
    path = _path(Path(folder), kind, key)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            meta = json.loads(fh.readline())
            if meta.get("key") != key:
                raise ValueError("its key is not its name's")
            dtypes = meta["dtypes"]
            body = fh.read()
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        warnings.warn(f"saved part {path} unreadable ({exc}); computing it again",
                      stacklevel=3)
        return None
    try:
        if not body.strip():
            return pd.DataFrame({c: pd.Series([], dtype=t) for c, t in dtypes.items()})
        table = pd.read_csv(io.StringIO(body), dtype={c: t for c, t in dtypes.items()
                                                      if t in ("str", "object")},
                            keep_default_na=False, na_values=[""],
                            **_EXACT)
        if list(table.columns) != list(dtypes):
            raise ValueError(f"columns {list(table.columns)}, expected {list(dtypes)}")
        return table.astype(dtypes)
    except (ValueError, TypeError, KeyError) as exc:
        warnings.warn(f"saved part {path} unreadable ({exc}); computing it again",
                      stacklevel=3)
        return None
