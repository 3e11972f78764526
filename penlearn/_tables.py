"""Reading users' CSV tables: sequence ids as text, files and rows named in every error.

The readers behind :func:`penlearn.datasets.read_table`, :func:`~penlearn.datasets.read_inputs`,
:func:`~penlearn.datasets.read_predictions` and :func:`~penlearn.datasets.load_uci`: plain or
compressed CSV (gzip recognised whatever the name), a hint for semicolon- or tab-separated
files, and id columns (``sequence_id`` / ``sequenceID``) always read as strings.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import os
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_regular_file, require_columns
from penlearn._folds import check_n_folds, deal_folds, singletons

_SUFFIXES = (".csv", ".csv.gz", ".csv.xz", ".csv.bz2")


def _find(folder: Path, stem: str) -> Path | None:
    for suf in _SUFFIXES:
        p = folder / (stem + suf)
        if p.exists():
            return p
    return None


#: Columns holding sequence ids: always read as strings ("0001" stays "0001"; "1" and
#: "1.0" are two ids).
ID_COLUMNS = ("sequenceID", "sequence_id")


def _compression(path: Path) -> str:
    """``"infer"`` from the name, but ``"gzip"`` for gzip data under any name."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
    except OSError:
        return "infer"
    return "gzip" if magic == b"\x1f\x8b" else "infer"


def _delimiter_hint(df: pd.DataFrame) -> str:
    """A hint when a one-column table looks like another delimiter's."""
    if df.shape[1] != 1:
        return ""
    head = str(df.columns[0])
    for sep, name in ((";", "semicolon"), ("\t", "tab"), ("|", "'|'")):
        if sep in head:
            return (f" (its header {head[:60]!r} looks {name}-separated; penlearn reads "
                    "comma-separated CSV: save it with ',' as the delimiter)")
    return ""


def _read_csv(path: Path, required=(), *, nrows: int | None = None,
              whole_rows: bool = False) -> pd.DataFrame:
    """Read a CSV (plain or compressed) with sequence ids as strings.

    Names the file in every error; a one-column table with missing ``required`` columns
    gets a delimiter hint. Quoted names and values (R's ``write.csv``) and spaces after
    the commas are read as the plain text. ``nrows=0``: the header only.
    ``whole_rows``: a row with fewer (or more) fields than the header is an error
    naming its line (pandas alone fills a short row with NaN); the file is read (and
    decompressed) once, its bytes both parsed and counted.
    """
    check_regular_file(path)
    raw = None
    try:
        if whole_rows:  # one read: the bytes parsed are the bytes whose rows are counted
            raw = _decompressed(path)
        df = pd.read_csv(path if raw is None else io.BytesIO(raw), na_values=["NA"],
                         keep_default_na=True,
                         compression=_compression(path) if raw is None else None,
                         skipinitialspace=True, nrows=nrows,
                         dtype={c: str for c in ID_COLUMNS})
    except UnicodeDecodeError as exc:
        raise ValueError(f"could not read {path}: not a text CSV file ({exc.reason})") from exc
    except Exception as exc:  # pandas raises many kinds; name the file
        raise ValueError(f"could not read {path}: {' '.join(str(exc).split())}") from exc
    missing = [c for c in required if c not in df.columns]
    if missing and _delimiter_hint(df):
        raise ValueError(f"{path} is missing column(s) {missing}{_delimiter_hint(df)}")
    if raw is not None:
        _check_row_lengths(path, raw, df.shape[1])
    for col in ID_COLUMNS:
        if col in df.columns and df[col].isna().any():
            row = int(np.flatnonzero(df[col].isna().to_numpy())[0])
            raise ValueError(f"{path}: column {col!r} has an empty id on data row {row + 1}")
    return df


def _decompressed(path: Path) -> bytes:
    """The bytes of the CSV ``path`` as pandas reads them: gzip by content or by name
    (a ``.gz`` name that is no gzip data fails as in pandas), ``.xz``, ``.bz2``, else
    plain."""
    opener = (gzip.open if _compression(path) == "gzip" or path.suffix == ".gz" else
              {".xz": lzma.open, ".bz2": bz2.open}.get(path.suffix, open))
    with opener(path, "rb") as fh:
        return fh.read()


def _check_row_lengths(path: Path, raw: bytes, n_fields: int) -> None:
    """Every line of ``raw`` (the bytes of the CSV ``path``) has ``n_fields`` fields: a
    count of the commas (C speed) and, only when it differs (quoted commas, a short or
    long row), a line by line read naming the first row that is not whole."""
    lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    if raw.count(b",") == (n_fields - 1) * lines:
        return
    for line, row in enumerate(csv.reader(io.StringIO(raw.decode("utf-8", "replace"))), 1):
        if row and len(row) != n_fields:
            raise ValueError(f"{path}: line {line} has {len(row)} field(s), the header "
                             f"{n_fields}: every row needs a value per column (write NA "
                             "for a missing one)")


def table_columns(path: str | os.PathLike) -> list[str]:
    """The column names of a CSV table (plain or compressed, read as :func:`read_table`
    reads it: quotes and spaces after the commas removed), from its header only.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text('"sequenceID", "log.sd"\\n"a", 1\\n')
    >>> table_columns(p)
    ['sequenceID', 'log.sd']
    """
    return [str(c) for c in _read_csv(Path(path), nrows=0).columns]


def _unique_ids(df: pd.DataFrame, path: Path, col: str = "sequence_id") -> None:
    """Raise when a table that has one row per sequence repeats an id."""
    dup = df[col][df[col].duplicated()]
    if len(dup):
        ids = list(pd.unique(dup))
        raise ValueError(f"{path}: {len(ids)} sequence id(s) appear on more than one row, "
                         f"e.g. {ids[:5]}; each sequence must have one row")


def _features_table(raw: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Features per sequence from a raw inputs table: id index, numeric columns."""
    col = next((c for c in ID_COLUMNS if c in raw.columns), None)
    if col is None:
        raise ValueError(f"inputs file {path} has no sequenceID (or sequence_id) column; it "
                         f"has {list(raw.columns)[:5]}{_delimiter_hint(raw)}")
    raw = raw.rename(columns={col: "sequence_id"})
    _unique_ids(raw, path)
    inputs = raw.set_index("sequence_id")
    inputs.attrs["id_column"] = col
    for c in inputs.columns:
        if not pd.api.types.is_numeric_dtype(inputs[c]):
            num = pd.to_numeric(inputs[c], errors="coerce")
            bad = num.isna() & inputs[c].notna()
            if bad.any():
                r = int(np.flatnonzero(bad.to_numpy())[0])
                raise ValueError(
                    f"inputs file {path}: feature column {c!r} must be numeric; row {r + 1} "
                    f"(sequence {inputs.index[r]!r}) has {inputs[c].iloc[r]!r}")
            inputs[c] = num
    return inputs.astype(float)


# --------------------------------------------------------------------------- user tables


def read_table(path: str | os.PathLike, required, what: str) -> pd.DataFrame:
    """Read a user's CSV table, naming the file and ``what`` it is in every error.

    Sequence ids (``sequence_id`` or ``sequenceID``) are read as strings: ``0001`` stays
    ``0001`` and ``1`` and ``1.0`` are two ids. When ``sequence_id`` is required, a
    ``sequenceID`` column is accepted for it; ``df.attrs["id_column"]`` records the name
    the file used, so outputs can use it too. Gzip data is read whatever the file name;
    a table that looks semicolon- or tab-separated gets a hint.

    Examples
    --------
    >>> read_table("no-such.csv", ["a"], "labels")
    Traceback (most recent call last):
    ...
    FileNotFoundError: labels file not found: no-such.csv
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{what} file not found: {p}")
    if p.is_dir():
        raise ValueError(f"{what} must be a CSV file, {p} is a directory")
    if not os.access(p, os.R_OK):
        raise PermissionError(f"cannot read {what} file {p}")
    required = list(required)
    df = _read_csv(p, required)
    if "sequence_id" in required and "sequence_id" not in df.columns \
            and "sequenceID" in df.columns:
        df = df.rename(columns={"sequenceID": "sequence_id"})
        df.attrs["id_column"] = "sequenceID"
    elif "sequence_id" in df.columns:
        df.attrs["id_column"] = "sequence_id"
    require_columns(df, required, f"{what} file {p.name}")
    if len(df) == 0:
        raise ValueError(f"{what} file {p} has no rows")
    return df


def read_inputs(path: str | os.PathLike) -> pd.DataFrame:
    """Features per sequence: ``inputs.csv(.gz|.xz)`` of a folder, or a CSV file.

    Examples
    --------
    >>> read_inputs("no-such-folder")
    Traceback (most recent call last):
    ...
    FileNotFoundError: inputs file not found: no-such-folder
    """
    p = Path(path)
    if p.is_dir():
        f = _find(p, "inputs")
        if f is None:
            raise FileNotFoundError(f"{p} has no inputs.csv(.gz|.xz) (features per sequence)")
        p = f
    return _features_table(read_table(p, [], "inputs"), p)


def assign_folds(ids, n_folds: int, seed: int = 1) -> pd.DataFrame:
    """A random ``sequence_id, fold`` table (folds 1..``n_folds`` of near-equal sizes,
    :func:`penlearn._folds.deal_folds` with each sequence its own group).

    Examples
    --------
    >>> assign_folds(["a", "b", "c", "d"], 2, seed=0)["fold"].value_counts().tolist()
    [2, 2]
    """
    ids = list(ids)
    n_folds = check_n_folds("n_folds", n_folds)
    if len(ids) < n_folds:
        raise ValueError(f"{len(ids)} sequence(s) cannot make {n_folds} folds")
    fold = deal_folds(singletons(ids), n_folds, seed).to_numpy() + 1
    return pd.DataFrame({"sequence_id": ids, "fold": fold})


def numeric_column(table: pd.DataFrame, column: str, what: str) -> pd.Series:
    """A column as floats (±Inf and empty cells allowed), or a ``ValueError`` naming the
    file, the column, the row and the sequence of its first text value.

    Examples
    --------
    >>> t = pd.DataFrame({"sequence_id": ["a", "b"], "min_log_lambda": ["-Inf", "x"]})
    >>> numeric_column(t, "min_log_lambda", "outputs.csv")
    Traceback (most recent call last):
    ...
    ValueError: outputs.csv: column 'min_log_lambda' must be numeric; row 2 (sequence 'b') has 'x'
    """
    col = table[column]
    num = pd.to_numeric(col, errors="coerce")
    bad = (num.isna() & col.notna()).to_numpy()
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        sid = f" (sequence {table['sequence_id'].iloc[r]!r})" if "sequence_id" in table else ""
        raise ValueError(f"{what}: column {column!r} must be numeric; row {r + 1}{sid} has "
                         f"{col.iloc[r]!r}")
    return num.astype(float)


def read_predictions(path, ids, name: str | None = None) -> dict[str, pd.Series]:
    """Prediction columns (log λ) of a CSV, by name, aligned on ``ids`` where possible.

    Every column but the id column must be numeric and finite on the rows of ``ids``;
    an error names the file, column and row. ``name`` renames the first column (only
    that one is read then).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "pred.csv"
    >>> _ = p.write_text("sequence_id,log_lambda\\na,1.5\\nb,x\\n")
    >>> read_predictions(p, ["a", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: predictions file pred.csv: column 'log_lambda' must be numeric; row 2 ...
    """
    path = Path(path)
    table = read_table(path, ["sequence_id"], "predictions")
    cols = [c for c in table.columns if c != "sequence_id"]
    if not cols:
        raise ValueError(f"predictions file {path} has no prediction column")
    _unique_ids(table, path)
    table = table.set_index("sequence_id")
    out = {}
    for c in cols if name is None else cols[:1]:
        col = table[c]
        num = pd.to_numeric(col, errors="coerce")
        bad = num.isna() & col.notna()
        if bad.any():
            r = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"predictions file {path.name}: column {c!r} must be numeric; "
                             f"row {r + 1} (sequence {col.index[r]!r}) has {col.iloc[r]!r}")
        if set(ids) <= set(num.index):
            num = num.reindex(list(ids))
        bad = ~np.isfinite(num.to_numpy(dtype=float))
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValueError(f"predictions file {path.name}: column {c!r} must be finite; "
                             f"sequence {num.index[r]!r} has {num.iloc[r]!r}")
        out[name or (path.stem if c == "log_lambda" else c)] = num.astype(float)
    return out
