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
pickles) and a JSON record of the key, the column dtypes and a checksum of the table
(:func:`frame_digest` of every column). A reader verifies the content, not only the key:
a part whose columns or values no longer match its checksum (a damaged file: truncated,
corrupted, edited without its record) is computed again, with one warning. The checksum
guards against accidents, not against intent: it is no signature (there is no secret to
sign with), so a part rewritten together with a recomputed checksum is read as written —
a parts folder is as trusted as the command's inputs (``--no-resume`` discards it).

A folder of parts that a command keeps for a run (``penlearn peaks``' ``OUT.penlearn-parts``)
is opened by :func:`open_parts_folder`: never through a symbolic link, never a folder that
holds other files than parts, and its ``manifest.json`` read with bounds (size, nesting).
:func:`run_parts_folder` is a run's whole use of it: opened, removed once the outputs are
written, and after a failure kept only where it holds saved parts to resume from (a run
that fails before its first part leaves nothing behind: no folder, no folder made for it).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._version import package_version
from penlearn._warnings import caller_stacklevel
from penlearn.atomic_files import (
    check_not_symlink,
    check_output,
    remove_tree,
    write_bytes_atomic,
    write_text_atomic,
)

__all__ = ["check_parts_folder", "code_digest", "default_cache_dir", "frame_digest",
           "open_parts_folder",
           "part_key", "read_part", "remove_parts_folder", "run_parts_folder", "write_part"]

#: bump when a part's table changes meaning (2: parts carry a checksum of their table)
PART_FORMAT = 2
#: the largest manifest.json read (a run's record of its input files)
MAX_MANIFEST_BYTES = 16 * 2**20


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
    root = Path(__file__).parent.parent  # penlearn/peaks: formats, peakseg, joint
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
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
    meta = {"key": key, "dtypes": {str(c): str(t) for c, t in table.dtypes.items()},
            "checksum": frame_digest(table, list(table.columns))}
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
    """The table of a part, or None when there is none (or it is unreadable, or its content
    does not match its checksum: one warning, and it is computed again).

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
            extra = sorted(set(z.files) - {"__meta__"} - {f"{c}{i}" for c in "cm"
                                                           for i in range(len(columns))})
        table = pd.DataFrame(columns)
        if extra or meta.get("checksum") != frame_digest(table, list(table.columns)):
            raise ValueError("its table does not match its checksum (edited or damaged)")
        return table
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile,
            RecursionError, AttributeError) as exc:
        warnings.warn(f"saved part {path} unreadable ({exc}); computing it again",
                      stacklevel=caller_stacklevel())
        return None


def _parts_files_only(folder: Path) -> None:
    """Refuse a folder that holds anything but parts, their manifest and staging files:
    it is not one penlearn made, and penlearn would write into it and remove it."""
    foreign = [p.name for p in folder.iterdir()
               if not (p.name == "manifest.json" or p.name.startswith(".")
                       or (p.suffix == ".npz" and p.is_file() and not p.is_symlink()))]
    if foreign:
        raise ValueError(f"{folder} holds {foreign[0]!r}, which is not a saved part: it is "
                         "not a parts folder of penlearn; move it away (penlearn would "
                         "write into it and remove it)")


def _read_manifest(path: Path):
    """The parsed ``manifest.json`` (a JSON object), or a ValueError naming the file."""
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{path} is not a regular file")
    size = path.stat().st_size
    if size > MAX_MANIFEST_BYTES:
        raise ValueError(f"{path} has {size} bytes, beyond the {MAX_MANIFEST_BYTES} of a "
                         "manifest")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{path} is JSON nested too deeply to read") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("inputs"), dict):
        raise ValueError(f"{path} is not a manifest of penlearn (a JSON object with "
                         "'inputs')")
    return data


def check_parts_folder(folder: str | os.PathLike, inputs=(), *,
                       fresh: bool = False) -> dict | None:
    """Check the parts folder of a run before any work; returns the manifest an earlier
    run left there (None: no folder or no manifest).

    Refused (ValueError): a symbolic link (penlearn would write into wherever it points),
    a file, a folder holding other files than parts, an unreadable manifest (not a
    regular file, too large, nested too deeply, not a penlearn manifest), and every case
    :func:`~penlearn.atomic_files.check_output` refuses (an input, inside an input folder,
    a name too long). ``fresh`` (the folder will be discarded): its manifest is not read.

    Examples
    --------
    >>> import tempfile
    >>> check_parts_folder(Path(tempfile.mkdtemp()) / "out.penlearn-parts") is None
    True
    """
    folder = Path(folder)
    check_not_symlink(folder, "the parts folder")
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"the parts folder {folder} exists and is not a folder; move it "
                         "away")
    check_output(folder, directory=True, force=True, inputs=inputs,
                 option="the parts folder")
    if not folder.exists():
        return None
    _parts_files_only(folder)
    old = folder / "manifest.json"
    if fresh or not (old.exists() or old.is_symlink()):
        return None
    try:
        return _read_manifest(old)
    except (OSError, ValueError) as exc:
        raise ValueError(f"the parts folder of an earlier run is unreadable: {exc}; "
                         f"remove {folder} (or give --no-resume)") from None


def open_parts_folder(folder: str | os.PathLike, manifest: dict, *,
                      fresh: bool = False) -> bool:
    """Make (or take back) the parts folder of a run and write its ``manifest.json``.

    The folder is checked first (:func:`check_parts_folder`); ``fresh``: it is removed
    first (``--no-resume``; a manifest of an earlier run need not be readable then, but a
    folder of other files is never removed).

    Returns
    -------
    bool
        True when an earlier run left a manifest of other ``manifest["inputs"]`` (its
        parts are reused only where a window's content key is unchanged).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()) / "out.penlearn-parts"
    >>> open_parts_folder(d, {"penlearn": "x", "inputs": {"penalty": 1.0}})
    False
    >>> open_parts_folder(d, {"penlearn": "x", "inputs": {"penalty": 2.0}})
    True
    """
    folder = Path(folder)
    check_not_symlink(folder, "the parts folder")
    if fresh and folder.is_dir():
        _parts_files_only(folder)
        remove_tree(folder)
    before = check_parts_folder(folder)
    write_text_atomic(folder / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return before is not None and before.get("inputs") != manifest.get("inputs")


def remove_parts_folder(folder: str | os.PathLike) -> None:
    """Remove a run's parts folder once its outputs are written; a failure is one warning
    (the outputs are complete), never silent.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()) / "p"
    >>> d.mkdir(); remove_parts_folder(d); d.exists()
    False
    """
    try:
        remove_tree(folder)
    except OSError as exc:
        warnings.warn(f"could not remove the parts folder {folder} ({exc}); the outputs are "
                      "complete, remove it by hand", stacklevel=caller_stacklevel())


def _saved_parts(folder: Path) -> bool:
    """Whether ``folder`` holds a saved part (a finished ``.npz``, not a staging file)."""
    return folder.is_dir() and any(p.suffix == ".npz" and not p.name.startswith(".")
                                   for p in folder.iterdir())


@contextlib.contextmanager
def run_parts_folder(folder: str | os.PathLike, manifest: dict, *,
                     fresh: bool = False) -> Iterator[bool]:
    """The parts folder of one run: opened (:func:`open_parts_folder`), removed once the
    body ends normally (the outputs are written), and after a failure (an error,
    Ctrl-C) kept only when it holds saved parts, for the same command to resume from.
    A folder that holds none and was made by this run is removed, with the parent folders
    made for it: a failed command leaves nothing new behind.

    Yields
    ------
    bool
        What :func:`open_parts_folder` returns (an earlier run of other inputs).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()) / "new" / "out.penlearn-parts"
    >>> try:
    ...     with run_parts_folder(d, {"inputs": {"penalty": 1.0}}):
    ...         raise ValueError("bad coverage")
    ... except ValueError:
    ...     pass
    >>> d.parent.exists()
    False
    """
    folder = Path(folder)
    made = [p for p in (folder, *folder.parents) if not p.exists()]  # self, then parents
    if fresh and folder.is_dir():  # --no-resume: the earlier run's folder is discarded
        made = [folder]
    try:
        changed = open_parts_folder(folder, manifest, fresh=fresh)
        yield changed
    except BaseException:
        if made and not _saved_parts(folder):
            remove_parts_folder(folder)
            for parent in made[1:]:  # innermost first; only while empty
                try:
                    parent.rmdir()
                except OSError:
                    break
        raise
    remove_parts_folder(folder)
