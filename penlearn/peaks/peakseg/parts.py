"""Saved results of single (sample, window) problems, keyed by their content.

Two users: :func:`~penlearn.peaks.peakseg.evaluation.predict_peaks` ``parts=FOLDER`` (the
resume of ``penlearn peaks``: every window's result is written as soon as it is solved,
and a rerun takes the finished ones back) and
:func:`~penlearn.peaks.peakseg.evaluation.peak_error_functions` ``cache=`` (every labeled
window's error functions, reused by a later call on the same coverage and labels).

A part's key is a BLAKE2 digest of everything its result depends on: the window's
coverage rows as read (chromosome, starts, ends and counts, the arrays' bytes: contents,
not file names or dates), what was asked of it (the exact log λ, or the labels and the
path bound), the options, the penlearn version and the source of :mod:`penlearn.peaks`
(:func:`code_digest`). The key names the file (``<kind>-<key>.npz``), so a changed input
or model never reads a stale part: it looks for another file. Each file is written
atomically (temporary file, then rename), a NumPy ``.npz`` of the table's columns (their
binary values: the table read equals the table written; text as fixed-width unicode, no
pickles) and a JSON record of the key and the column dtypes.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._version import package_version
from penlearn._warnings import caller_stacklevel
from penlearn.atomic_files import write_bytes_atomic

__all__ = ["code_digest", "default_cache_dir", "frame_digest", "part_key", "read_part",
           "write_part"]

#: bump when a part's table changes meaning
PART_FORMAT = 1


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
        else:  # text: its distinct values, then which row holds which
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
            h.update("\0".join(map(str, uniques)).encode("utf-8", "surrogatepass"))
            h.update(codes.astype(np.int64).tobytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def _version() -> str:
    return package_version()


def part_key(kind: str, **fields) -> str:
    """The key of one part: a digest of ``fields`` (JSON), the format, the penlearn version
    and :func:`code_digest`.

    Examples
    --------
    >>> part_key("peaks", log_lambda=(1.5).hex()) != part_key("peaks", log_lambda=(2.0).hex())
    True
    """
    text = json.dumps({"kind": kind, "format": PART_FORMAT, "penlearn": _version(),
                       "code": code_digest(), **fields}, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def _path(folder: Path, kind: str, key: str) -> Path:
    return Path(folder) / f"{kind}-{key}.npz"


def write_part(folder: str | os.PathLike, kind: str, key: str, table: pd.DataFrame) -> None:
    """Write one part atomically (see the module docstring for the file).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> t = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "mean": [0.1 + 0.2]})
    >>> write_part(d, "peaks", "k", t)
    >>> read_part(d, "peaks", "k").equals(t)
    True
    """
    meta = {"key": key, "dtypes": {str(c): str(t) for c, t in table.dtypes.items()}}
    arrays = {"__meta__": np.array(json.dumps(meta))}
    for i, col in enumerate(table.columns):
        values = table[col]
        if values.dtype.kind in "biuf":
            arrays[f"c{i}"] = values.to_numpy()
        else:  # text: fixed-width unicode (no pickles), missing values as a mask
            arrays[f"c{i}"] = np.array(values.astype(object).where(values.notna(), "")
                                       .to_numpy(dtype=str), dtype=str)
            arrays[f"m{i}"] = values.isna().to_numpy()
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    write_bytes_atomic(_path(Path(folder), kind, key), buf.getvalue())


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
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["__meta__"]))
            if meta.get("key") != key:
                raise ValueError("its key is not its name's")
            columns = {}
            for i, (col, dtype) in enumerate(meta["dtypes"].items()):
                values = z[f"c{i}"]
                if f"m{i}" in z.files:
                    values = pd.Series(values, dtype=object).mask(z[f"m{i}"])
                columns[col] = pd.Series(values, dtype=dtype)
        return pd.DataFrame(columns)
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
        warnings.warn(f"saved part {path} unreadable ({exc}); computing it again",
                      stacklevel=caller_stacklevel())
        return None
