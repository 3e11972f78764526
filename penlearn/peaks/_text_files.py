"""Text-file helpers of the ChIP-seq readers: gzip by magic bytes, data lines, integers.

Every error names the file and line (through a ``where(i)`` callable).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

HEADER_PREFIXES = ("track", "browser", "#")
GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: str | os.PathLike) -> bytes:
    """The file's bytes, decompressed when they start with the gzip magic number."""
    data = Path(path).read_bytes()
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{path}: corrupt gzip data ({exc})") from exc
    return data


def read_text(path: str | os.PathLike) -> str:
    try:
        return read_bytes(path).decode("utf-8")
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


def parse_integers(tokens: list[str], where: Callable[[int], str], col: str,
                   allow_float: bool = False) -> np.ndarray:
    """Parse integer text; report the first bad token with its location."""
    try:
        return np.array(tokens, dtype=str).astype(np.int64) if tokens else np.zeros(0, np.int64)
    except (ValueError, OverflowError):
        pass
    values = np.zeros(len(tokens), np.int64)
    for i, tok in enumerate(tokens):
        try:
            values[i] = int(tok)
            continue
        except ValueError:
            pass
        try:
            x = float(tok)
        except ValueError:
            x = None
        if allow_float and x is not None and np.isfinite(x) and x == round(x):
            values[i] = int(x)
            continue
        raise ValueError(f"{where(i)}: {col} must be an integer, got {tok!r}")
    return values


def first_data_line(text: str) -> str:
    numbers, lines = data_lines(text[:65536])
    return lines[0] if lines else ""


def header_fields(line: str) -> list[str] | None:
    """The column names when ``line`` is a CSV / TSV header, else None."""
    sep = "," if "," in line else "\t"
    names = [f.strip().strip('"') for f in line.split(sep)]
    return names if "chrom" in names and "chromStart" in names else None


def integer_series(df: pd.DataFrame, col: str, where: Callable[[int], str]) -> np.ndarray:
    values = pd.to_numeric(df[col], errors="coerce")
    arr = values.to_numpy(dtype=float)
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{where(i)}: {col} must be an integer, got {df[col].iloc[i]!r}")
    return arr.astype(np.int64)

def four_fields(path, numbers, lines, last: str):
    """Whitespace-separated ``chrom, chromStart, chromEnd, <last>`` lines: a ``where(i)``
    naming the file and line, and the four columns (an error names any other count)."""
    def where(i: int) -> str:
        return f"{path}, line {numbers[i]}"

    fields = [line.split() for line in lines]
    for i, f in enumerate(fields):
        if len(f) != 4:
            raise ValueError(f"{where(i)}: expected 4 fields (chrom, chromStart, chromEnd, "
                             f"{last}), got {len(f)}: {lines[i]!r}")
    return where, (list(zip(*fields)) if fields else [(), (), (), ()])
