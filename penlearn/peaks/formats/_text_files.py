"""Text-file helpers of the ChIP-seq readers: gzip by magic bytes, blocks of whole lines,
data lines, integers.

Every error names the file and line (through a ``where(i)`` callable).
"""

from __future__ import annotations

import gzip
import mmap
import os
import re
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_regular_file

HEADER_PREFIXES = ("track", "browser", "#")
GZIP_MAGIC = b"\x1f\x8b"


#: magic numbers of the compressions penlearn does not read (gzip it reads)
OTHER_COMPRESSIONS = ((b"BZh", "bzip2", "bunzip2"), (b"\xfd7zXZ\x00", "xz", "unxz"),
                      (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"))


def refuse_other_compression(path, head: bytes) -> None:
    """A ``ValueError`` naming the compression when ``head`` (the file's first bytes)
    is bzip2, xz or zstd: penlearn reads plain or gzip text.

    Examples
    --------
    >>> refuse_other_compression("a.bed.bz2", b"BZh91AY")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a.bed.bz2: bzip2-compressed; penlearn reads plain or gzip text: ...
    """
    for magic, name, tool in OTHER_COMPRESSIONS:
        if head.startswith(magic):
            raise ValueError(f"{path}: {name}-compressed; penlearn reads plain or gzip text: "
                             f"decompress it ({tool}) or compress it with gzip")


def read_bytes(path: str | os.PathLike) -> bytes:
    """The file's bytes, decompressed when they start with the gzip magic number (bzip2,
    xz and zstd files: an error naming them)."""
    check_regular_file(path)
    data = Path(path).read_bytes()
    refuse_other_compression(path, data[:8])
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:  # zlib: a damaged deflate block
            raise ValueError(f"{path}: corrupt gzip data ({exc})") from exc
    return data


#: bytes of text a reader holds at a time (:func:`text_blocks`); the tests make it small
BLOCK_BYTES = 16 << 20
_BOM = b"\xef\xbb\xbf"


def _fill(fh, view: memoryview, path) -> int:
    """Read into ``view`` until it is full or the file ends; the bytes read."""
    got = 0
    try:
        while got < len(view):
            k = fh.readinto(view[got:])
            if not k:
                break
            got += k
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise ValueError(f"{path}: corrupt gzip data ({exc})") from exc
    return got


def text_blocks(path: str | os.PathLike, block_bytes: int | None = None
                ) -> Iterator[np.ndarray]:
    """The bytes of a text file (gzip, told by its magic number, decompressed on the fly)
    in blocks of whole lines, as uint8 arrays of at most about ``block_bytes`` bytes.

    A block ends after a line terminator (``\\n``, or ``\\r`` not followed by ``\\n``)
    or at the end of the file; a line longer than the block makes the block longer. A
    UTF-8 byte-order mark at the start is dropped. Each block is a view of one reused
    buffer, valid until the next block is asked for, so a reader holds one block of text,
    not the file. Every block is checked: NUL bytes or invalid UTF-8 are a one-line
    ``ValueError`` naming the file (a multi-byte character never spans two blocks, whose
    edges are line ends).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.bedGraph"
    >>> _ = p.write_text("chr1 0 5 1\\nchr1 5 9 2\\n")
    >>> [bytes(b) for b in text_blocks(p, block_bytes=12)]
    [b'chr1 0 5 1\\n', b'chr1 5 9 2\\n']
    """
    size = max(int(block_bytes or BLOCK_BYTES), 16)
    check_regular_file(path)
    with open(path, "rb") as raw:
        head = raw.read(8)
        refuse_other_compression(path, head)
        gz = head[:2] == GZIP_MAGIC
        raw.seek(0)
        fh = gzip.GzipFile(fileobj=raw, mode="rb") if gz else raw
        # an anonymous mapping: pages cost memory once written, and go back to the
        # system when the last block is dropped (a freed heap buffer may not)
        buffer = mmap.mmap(-1, size)
        have = _fill(fh, memoryview(buffer)[:3], path)
        eof, skip = False, len(_BOM) if buffer[:3] == _BOM else 0
        while not eof:
            n = have + _fill(fh, memoryview(buffer)[have:], path)
            eof = n < len(buffer)
            cut = n
            if not eof:
                cut = buffer.rfind(b"\n", 0, n) + 1 or buffer.rfind(b"\r", 0, n - 1) + 1
                if cut == 0 and buffer.find(b"\x00", 0, n) >= 0:  # not text: say so now
                    raise ValueError(f"{path}: not a text file (NUL bytes or invalid UTF-8)")
                if cut == 0:  # no line ends in the buffer: a longer one (a new object:
                    bigger = mmap.mmap(-1, 2 * len(buffer))  # the caller may hold a view)
                    bigger[:n] = buffer[:n]
                    buffer, have = bigger, n
                    continue
            if cut > skip:
                block = np.frombuffer(buffer, np.uint8, count=cut - skip, offset=skip)
                if buffer.find(b"\x00", skip, cut) >= 0 or (
                        block.max() >= 128 and not _is_utf8(block)):
                    raise ValueError(f"{path}: not a text file (NUL bytes or invalid UTF-8)")
                yield block
                del block
            buffer[:n - cut] = buffer[cut:n]
            have, skip = n - cut, 0


def _is_utf8(block: np.ndarray) -> bool:
    try:
        str(memoryview(block), "utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_text(path: str | os.PathLike) -> str:
    """The file's text (UTF-8; a byte-order mark at its start is dropped)."""
    try:
        return read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not a text file (invalid UTF-8 at byte {exc.start})") from exc


def data_lines(text: str) -> tuple[list[int], list[str]]:
    """1-based line numbers and contents of the lines that hold data."""
    numbers, lines = [], []
    for i, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(HEADER_PREFIXES):
            numbers.append(i)
            lines.append(line)
    return numbers, lines


#: A plain decimal integer in ASCII digits (no ``_``, no other scripts' digits, no ``+``).
_INTEGER = re.compile(r"-?[0-9]+")
_INT64 = (-(2**63), 2**63 - 1)
#: Lines of plain integers of at most 18 digits (int64 holds them all): the fast path.
_SHORT_INTEGER_LINES = re.compile(r"(?:[ \t]*-?[0-9]{1,18}[ \t]*\n)*")


def parse_integers(tokens: list[str], where: Callable[[int], str], col: str,
                   allow_float: bool = False) -> np.ndarray:
    """Parse integer text exactly into int64; report the first bad token with its location.

    Only plain decimal integers are taken (``12``, ``-3``): forms Python's ``int()`` also
    accepts (``1_000``, ``+5``, non-ASCII digits) and values beyond int64 are errors.
    With ``allow_float``, integral floats (``1e3``) are taken too.

    Examples
    --------
    >>> parse_integers(["10", "-2"], lambda i: f"line {i + 1}", "chromStart").tolist()
    [10, -2]
    >>> parse_integers(["1_000"], lambda i: f"line {i + 1}", "chromStart")
    Traceback (most recent call last):
    ...
    ValueError: line 1: chromStart must be an integer, got '1_000'
    """
    if not tokens:
        return np.zeros(0, np.int64)
    if _SHORT_INTEGER_LINES.fullmatch("\n".join(tokens) + "\n"):
        return np.array(tokens, dtype=str).astype(np.int64)  # no overflow possible
    stripped = [t.strip() for t in tokens]
    values = np.zeros(len(tokens), np.int64)
    for i, tok in enumerate(stripped):
        x = None
        if _INTEGER.fullmatch(tok):
            x = int(tok)
        elif allow_float:
            try:
                f = float(tok)
            except ValueError:
                f = None
            if f is not None and np.isfinite(f) and f == round(f):
                x = int(f)
        if x is None:
            raise ValueError(f"{where(i)}: {col} must be an integer, got {tokens[i]!r}")
        if not _INT64[0] <= x <= _INT64[1]:
            raise ValueError(f"{where(i)}: {col} {tok} is beyond the 64-bit integer range")
        values[i] = x
    return values


def first_data_line(text: str) -> str:
    numbers, lines = data_lines(text[:65536])
    return lines[0] if lines else ""


def header_fields(line: str) -> list[str] | None:
    """The column names when ``line`` is a CSV / TSV header (it names one of the
    coordinate columns ``chrom, chromStart, chromEnd`` or ``sample_id``; a table lacking
    the others is then told what it lacks, not read as BED / bedGraph), else None.

    Examples
    --------
    >>> header_fields("sample_id,group,chromStart,chromEnd,count")[:2]
    ['sample_id', 'group']
    >>> header_fields("chr1\t0\t10\t3") is None
    True
    """
    sep = "," if "," in line else "\t"
    names = [f.strip().strip('"') for f in line.split(sep)]
    known = ("chrom", "chromStart", "chromEnd", "sample_id")
    return names if any(k in names for k in known) else None


def integer_series(df: pd.DataFrame, col: str, where: Callable[[int], str]) -> np.ndarray:
    values = pd.to_numeric(df[col], errors="coerce")
    arr = values.to_numpy(dtype=float)
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{where(i)}: {col} must be an integer, got {df[col].iloc[i]!r}")
    return arr.astype(np.int64)

def empty_field(line: str, names: tuple[str, ...]) -> str | None:
    """What a line of ``len(names)`` tab-separated fields with one left empty misses
    (whitespace-splitting counts one field fewer and blames the count), or None.

    Examples
    --------
    >>> names = ("chrom", "chromStart", "chromEnd", "count")
    >>> empty_field(chr(9).join(["", "0", "10", "3"]), names)[:24]
    'the chrom field is empty'
    >>> empty_field(chr(9).join(["chr1", "0", "10"]), names) is None
    True
    """
    tabs = line.rstrip("\r\n").split("\t")
    if len(tabs) != len(names) or all(t.strip() for t in tabs):
        return None
    empty = names[[bool(t.strip()) for t in tabs].index(False)]
    return (f"the {empty} field is empty ({len(names)} tab-separated fields "
            f"{', '.join(names)} expected)")


def four_fields(path, numbers, lines, last: str):
    """Whitespace-separated ``chrom, chromStart, chromEnd, <last>`` lines: a ``where(i)``
    naming the file and line, and the four columns (an error names any other count)."""
    def where(i: int) -> str:
        return f"{path}, line {numbers[i]}"

    fields = [line.split() for line in lines]
    for i, f in enumerate(fields):
        if len(f) != 4:
            if empty := empty_field(lines[i], ("chrom", "chromStart", "chromEnd", last)):
                raise ValueError(f"{where(i)}: {empty}: {lines[i]!r}")
            raise ValueError(f"{where(i)}: expected 4 fields (chrom, chromStart, chromEnd, "
                             f"{last}), got {len(f)}: {lines[i]!r}")
    return where, (list(zip(*fields)) if fields else [(), (), (), ()])


def resize_in_place(a: np.ndarray, n: int) -> None:
    """Resize an array that owns its data to ``n`` items in place, without filling new
    items with zeros (``ndarray.resize`` fills them unless the array is read-only): the
    pages of a large array are remapped by ``realloc``, not copied, so a column grown
    geometrically never holds its rows twice, and new pages cost memory once written.

    Examples
    --------
    >>> a = np.arange(3)
    >>> resize_in_place(a, 5); a[3:] = 7; resize_in_place(a, 4); a.tolist()
    [0, 1, 2, 7]
    """
    a.flags.writeable = False
    try:
        a.resize(n, refcheck=False)
    finally:
        a.flags.writeable = True


_STR = pd.array(np.array([], dtype=object), dtype=str).dtype


def string_column(values: list[str], lengths: np.ndarray):
    """The string column of runs ``values[k]`` repeated ``lengths[k]`` times: one string
    object per run, 8 bytes a row, not copied into the column."""
    obj = np.repeat(np.array(values + [""], dtype=object)[:-1], lengths)
    if isinstance(_STR, pd.StringDtype) and _STR.storage == "python":
        try:
            return pd.arrays.StringArray(obj, dtype=_STR)
        except TypeError:  # pandas < 3: no dtype argument
            pass
    return pd.array(obj, dtype=str)
