"""Input validation shared by every module (the bottom layer).

One place for each rule: finite numeric vectors, required columns, and the evaluation
table (error functions over log λ, one row per sequence and interval; per sequence the
intervals partition (−∞, ∞), or (b, ∞) for a sequence marked ``bounded``).
"""

from __future__ import annotations

import os
import re
import stat

import numpy as np
import pandas as pd

EVALUATION_REQUIRED = ("sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn")


def require_columns(df: pd.DataFrame, columns, what: str) -> None:
    """Raise a ``ValueError`` naming the missing columns of ``df``.

    Parameters
    ----------
    df : DataFrame
        The table to check.
    columns : iterable of str
        Column names that must be present.
    what : str
        The argument name, used in the message.

    Examples
    --------
    >>> import pandas as pd
    >>> require_columns(pd.DataFrame({"a": [1]}), ["a"], "table")
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(
            f"{what} is missing column(s) {missing}; it has {list(df.columns)}"
        )


def require_ids(df: pd.DataFrame, what: str, column: str = "sequence_id") -> None:
    """Raise a ``ValueError`` when the id column of ``df`` has missing values (NaN / None).

    Examples
    --------
    >>> require_ids(pd.DataFrame({"sequence_id": ["a", None]}), "labels")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: labels column 'sequence_id' has 1 missing value(s) (first at row 2); ...
    """
    missing = pd.isna(df[column]).to_numpy()
    if missing.any():
        raise ValueError(
            f"{what} column {column!r} has {int(missing.sum())} missing value(s) "
            f"(first at row {int(np.flatnonzero(missing)[0]) + 1}); every row needs a sequence id"
        )


#: Key values :func:`text_ids` reads as their text (``1`` -> ``"1"``).
_ID_SCALARS = (str, int, float, np.integer, np.floating, np.bool_)


#: Characters no id may hold: the C0 and C1 control characters (``"chr1\\0"``, a tab, a
#: line end): a file, a track name or a terminal would show another id, or none.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _printable_ids(values, what: str, col: str) -> None:
    """A ``ValueError`` naming the column and the first id holding a control character
    (each distinct id tested once)."""
    for v in pd.unique(pd.Series(values, copy=False).to_numpy(dtype=object)):
        if isinstance(v, str) and _CONTROL.search(v):
            kind = "the chromosome name" if col == "chrom" else "the id"
            raise ValueError(f"{what} column {col!r} holds {kind} {v!r} with a control "
                             "character: ids must be printable text")


def text_ids(table: pd.DataFrame, what: str, columns=("sample_id", "chrom")) -> pd.DataFrame:
    """``table`` with its key columns (those of ``columns`` it has) as text: the one
    normaliser of sample ids and chromosome names for every entry point.

    Ids are text, as in every file penlearn reads: a number (``1``, ``1.5``, ``True``,
    ``np.int64(3)``) is read as its text (``"1"``, ...), so ``1`` and ``"1"`` are one
    sample — a choice: a table read from a file cannot tell them apart either. A missing
    value (NaN / None; a grouping would drop its rows silently) is a ``ValueError``, and
    any other value (bytes, a tuple, ...) a ``TypeError``, each naming the column and the
    first row; an id holding a control character (``"chr1\\0"``) is a ``ValueError``
    (each distinct id tested once). A table whose keys are text already is returned as
    it is (no copy).

    Examples
    --------
    >>> t = pd.DataFrame({"sample_id": [1, 1, 2], "chrom": "chr1"})
    >>> text_ids(t, "coverage")["sample_id"].tolist()
    ['1', '1', '2']
    >>> text_ids(t.assign(chrom=["chr1", None, "chr1"]), "coverage")
    Traceback (most recent call last):
    ...
    ValueError: coverage column 'chrom' has 1 missing value(s) (first at row 1); every row needs one
    """
    out = table
    for col in columns:
        if col not in table.columns:
            continue
        s = table[col]
        missing = pd.isna(s).to_numpy()
        if missing.any():
            raise ValueError(f"{what} column {col!r} has {int(missing.sum())} missing "
                             f"value(s) (first at row {int(np.flatnonzero(missing)[0])}); "
                             "every row needs one")
        if isinstance(s.dtype, pd.StringDtype) or (
                s.dtype == object and pd.api.types.infer_dtype(s, skipna=False) == "string"):
            _printable_ids(s, what, col)
            continue
        if isinstance(s.dtype, pd.CategoricalDtype) and pd.api.types.infer_dtype(
                s.cat.categories, skipna=False) == "string":
            _printable_ids(s.cat.categories, what, col)
            continue  # (its categories tell: no pass over the rows)
        if s.dtype.kind not in "iufb":
            for row, v in enumerate(s.to_numpy(dtype=object)):  # (not text: rare)
                if not isinstance(v, _ID_SCALARS):
                    raise TypeError(f"{what} column {col!r} must hold text ids (or numbers, "
                                    f"read as their text); row {row} holds "
                                    f"{type(v).__name__} {v!r}")
        out = out.assign(**{col: s.astype(str)})
        _printable_ids(out[col], what, col)
    return out


def not_one_word(values) -> np.ndarray:
    """True where a value is missing, empty or holds whitespace: not a name that BED,
    bedGraph and the UCSC formats (fields separated by tabs or spaces) can carry — the
    one rule of chromosome names and BED name columns.

    Examples
    --------
    >>> not_one_word(["chr1", "chr 1", "", None]).tolist()
    [False, True, True, True]
    """
    raw = pd.Series(values, dtype=object)
    return raw.isna().to_numpy() | np.array(
        [not str(t) or any(c.isspace() for c in str(t)) for t in raw], dtype=bool)


def sequence_label(x):
    """A sequence id as a plain Python value, for readable error messages.

    Examples
    --------
    >>> import numpy as np
    >>> sequence_label(np.int64(3))
    3
    """
    return x.item() if isinstance(x, np.generic) else x


def id_list(ids, what: str = "sequence(s)", limit: int = 5) -> str:
    """A count and the ids for a message (the first ``limit`` of them when many).

    Examples
    --------
    >>> id_list(["a", "b"])
    "2 sequence(s) ['a', 'b']"
    >>> id_list([f"s{i}" for i in range(7)], limit=2)
    "7 sequence(s) (first 2: ['s0', 's1'])"
    """
    ids = [sequence_label(i) for i in ids]
    if len(ids) <= limit:
        return f"{len(ids)} {what} {ids}"
    return f"{len(ids)} {what} (first {limit}: {ids[:limit]})"


def group_codes(ids) -> tuple[np.ndarray, np.ndarray]:
    """Codes (0, 1, … in order of first appearance) and the distinct values of ``ids``.

    Tables with one block of rows per sequence are the rule (evaluation tables, sorted
    long tables): then the codes come from comparing neighbours, which is ten times faster
    than hashing every row (``pd.factorize``) on string ids; otherwise it factorizes.

    Examples
    --------
    >>> [x.tolist() for x in group_codes(np.array(["b", "b", "a"], dtype=object))]
    [[0, 0, 1], ['b', 'a']]
    >>> [x.tolist() for x in group_codes(np.array(["b", "a", "b"], dtype=object))]
    [[0, 1, 0], ['b', 'a']]
    """
    ids = np.asarray(ids)
    if len(ids) == 0:
        return np.zeros(0, np.int64), ids[:0]
    first = np.empty(len(ids), bool)
    first[0] = True
    np.not_equal(ids[1:], ids[:-1], out=first[1:])
    heads = ids[first]
    if len(set(heads.tolist())) == len(heads):  # each id in one block
        return np.cumsum(first) - 1, heads
    codes, uniques = pd.factorize(ids)
    return codes.astype(np.int64), np.asarray(uniques)


def bounded_rows(ev: pd.DataFrame, name: str = "evaluation") -> np.ndarray:
    """The optional ``bounded`` column of an evaluation table as booleans (False if absent).

    A sequence whose lowest row has ``bounded`` True is a *bounded* error function: its
    model path stopped at a penalty b > 0 (e.g. a peak-count bound), its lowest row's
    ``min_log_lambda`` is log b, and nothing is known below it.

    Examples
    --------
    >>> bounded_rows(pd.DataFrame({"bounded": [True, 0]})).tolist()
    [True, False]
    """
    if "bounded" not in ev.columns:
        return np.zeros(len(ev), bool)
    col = ev["bounded"]
    ok = col.isin([True, False]).to_numpy()
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{name} column 'bounded' must hold True/False; row {i + 1} has "
                         f"{col.iloc[i]!r}")
    return col.to_numpy(dtype=bool)


def check_evaluation(evaluation: pd.DataFrame, *, name: str = "evaluation") -> pd.DataFrame:
    """Validate an evaluation table and return it sorted by sequence, λ decreasing.

    Checks the required columns, that fp/fn are finite and non-negative (and at most
    ``possible_fp`` / ``possible_fn`` where those columns are given), and that the
    intervals of each sequence partition (−∞, ∞) in log λ (contiguous, no gaps or
    overlaps). A sequence whose lowest row is marked ``bounded`` (optional boolean
    column, :func:`bounded_rows`) may stop at a finite ``min_log_lambda``: its
    intervals partition (b, ∞) and nothing is claimed below b.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions, one row per (sequence, log λ interval).
    name : str
        Argument name used in error messages.

    Returns
    -------
    DataFrame
        A copy sorted by ``sequence_id`` (order of first appearance) and
        ``min_log_lambda`` decreasing, with a fresh RangeIndex.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...                    "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 1]})
    >>> check_evaluation(ev)["min_log_lambda"].tolist()
    [0.0, -inf]
    """
    require_columns(evaluation, EVALUATION_REQUIRED, name)
    if len(evaluation) == 0:
        raise ValueError(f"{name} has no rows")
    require_ids(evaluation, name)
    ev = evaluation.copy()
    for col in ("min_log_lambda", "max_log_lambda", "fp", "fn"):
        try:
            ev[col] = pd.to_numeric(ev[col]).astype(float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} column {col!r} must be numeric") from exc
    for col in ("fp", "fn"):
        bad = ~np.isfinite(ev[col].to_numpy()) | (ev[col].to_numpy() < 0)
        if bad.any():
            sid = sequence_label(ev["sequence_id"].to_numpy()[bad][0])
            raise ValueError(
                f"{name} column {col!r} must be finite and >= 0; sequence {sid!r} has "
                f"{ev[col].to_numpy()[bad][0]!r}"
            )
    for err, possible in (("fp", "possible_fp"), ("fn", "possible_fn")):
        if possible not in ev.columns:
            continue
        cap = pd.to_numeric(ev[possible], errors="coerce").to_numpy(dtype=float)
        if not (cap >= 0).all():
            i = int(np.flatnonzero(~(cap >= 0))[0])
            sid = sequence_label(ev["sequence_id"].to_numpy()[i])
            raise ValueError(
                f"{name}: possible_fn/possible_fp/labels should be non-negative; sequence "
                f"{sid!r} has {possible}={ev[possible].iloc[i]!r} (row {i + 1})"
            )
        bad = ~(ev[err].to_numpy() <= cap)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            sid = sequence_label(ev["sequence_id"].to_numpy()[i])
            raise ValueError(
                f"{name}: {err} should be in [0, {possible}] (the errors cannot exceed the "
                f"labels that can have them); sequence {sid!r} has "
                f"{err}={float(ev[err].iloc[i])!r}, {possible}={float(cap[i])!r} "
                f"(row {i + 1}; {int(bad.sum())} such row(s))"
            )
    lo = ev["min_log_lambda"].to_numpy()
    hi = ev["max_log_lambda"].to_numpy()
    if np.isnan(lo).any() or np.isnan(hi).any():
        sid = sequence_label(ev["sequence_id"].to_numpy()[np.isnan(lo) | np.isnan(hi)][0])
        raise ValueError(f"{name} has NaN min/max_log_lambda in sequence {sid!r}")
    if (lo >= hi).any():
        sid = sequence_label(ev["sequence_id"].to_numpy()[lo >= hi][0])
        raise ValueError(
            f"{name}: min_log_lambda must be < max_log_lambda; sequence {sid!r} violates it"
        )
    seq, uniques = group_codes(ev["sequence_id"].to_numpy())
    # sorted already (the rule): one block per sequence, λ decreasing; else sort stably
    d = np.diff(seq)
    if not np.all((d > 0) | ((d == 0) & (lo[1:] < lo[:-1]))):
        order = np.lexsort((-lo, seq))
        ev, seq, lo, hi = ev.iloc[order], seq[order], lo[order], hi[order]
    ev = ev.reset_index(drop=True)
    first = np.r_[True, seq[1:] != seq[:-1]]
    last = np.r_[seq[1:] != seq[:-1], True]
    ok = np.ones(len(ev), bool)
    ok &= ~first | (hi == np.inf)
    ok &= ~last | (lo == -np.inf) | bounded_rows(ev, name)
    # each interval's min equals the next (smaller λ) interval's max
    cont = np.ones(len(ev), bool)
    cont[:-1] = last[:-1] | (lo[:-1] == hi[1:])
    ok &= cont
    if not ok.all():
        sid = sequence_label(uniques[seq[~ok][0]])
        raise ValueError(
            f"{name}: the log λ intervals of sequence {sid!r} do not partition (-inf, inf) "
            "(they must be contiguous, from -inf to inf, without gaps or overlaps; a path "
            "stopped at a bound marks its lowest row bounded=True)"
        )
    return ev



def check_error_counts(ev: pd.DataFrame, name: str = "evaluation") -> None:
    """The ``labels`` and ``errors`` columns of an evaluation table, for a fit that reads
    them (``penlearn pretrain``): both there, ``labels`` finite and >= 0, ``errors`` equal
    to fp + fn on every row; else a ``ValueError`` naming the column, sequence and row.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a"], "fp": [1], "fn": [0], "labels": [2],
    ...                    "errors": [2]})
    >>> check_error_counts(ev)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: evaluation column 'errors' must be fp + fn; sequence 'a' has errors=2 ...
    """
    require_columns(ev, ["sequence_id", "fp", "fn", "labels", "errors"], name)
    for col, rule in (("labels", "finite and >= 0"), ("errors", "fp + fn")):
        v = pd.to_numeric(ev[col], errors="coerce").to_numpy(dtype=float)
        bad = ~(v >= 0) | ~np.isfinite(v) if col == "labels" else ~(
            v == ev["fp"].to_numpy(dtype=float) + ev["fn"].to_numpy(dtype=float))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            sid = sequence_label(ev["sequence_id"].to_numpy()[i])
            raise ValueError(f"{name} column {col!r} must be {rule}; sequence {sid!r} has "
                             f"{col}={sequence_label(ev[col].iloc[i])!r} (row {i + 1}; "
                             f"{int(bad.sum())} such row(s))")


def finite_vector(x, name: str, n: int | None = None, expected: str = "") -> np.ndarray:
    """Return ``x`` as a one-dimensional finite float array, or raise a clear error.

    Parameters
    ----------
    x : array-like
        The values.
    name : str
        Argument name used in messages.
    n : int, optional
        Required length.
    expected : str
        What fixes the required length, for the message (e.g. ``"n_examples"``).

    Raises
    ------
    TypeError
        If ``x`` is not numeric.
    ValueError
        If it is not one-dimensional, has the wrong length, or holds NaN/inf.

    Examples
    --------
    >>> finite_vector([1, 2.5], "scores").tolist()
    [1.0, 2.5]
    >>> finite_vector([1.0, float("nan")], "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be finite; element 1 is nan
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if n is not None and len(arr) != n:
        why = f" ({expected})" if expected else ""
        raise ValueError(f"{name} has length {len(arr)}, expected {n}{why}")
    if not np.all(np.isfinite(arr)):
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; element {i} is {float(arr[i])!r}")
    return arr


def check_regular_file(path: str | os.PathLike) -> None:
    """Refuse a pipe, device or socket as a data file: a ``ValueError`` naming the path,
    found without opening it. ``/dev/zero`` or ``/dev/urandom`` would be read without
    bound, and a pipe is opened more than once (the format is told by its first bytes),
    so it would lose its start or wait forever for a writer.

    Examples
    --------
    >>> check_regular_file("/dev/zero")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: /dev/zero is a device, not a regular file: ...
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # open() reports it, with its own message
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    what = ("a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device")
    raise ValueError(f"{path} is {what}, not a regular file: data are read from regular "
                     "files (plain or gzip; decompress a stream to a file first)")


class MissingDependency(ImportError):
    """An optional package a feature needs is not installed (a setup problem of the user's,
    not a bug: the command line reports it in one line, exit 1)."""


def optional_import(module: str, purpose: str, extra: str):
    """Import the optional package ``module``, or raise :class:`MissingDependency` saying
    which feature needs it and which extra installs it.

    Examples
    --------
    >>> optional_import("json", "reading JSON", "none").__name__
    'json'
    >>> try:
    ...     optional_import("no_such_pkg", "a feature", "demo")
    ... except MissingDependency as exc:
    ...     print(exc)
    a feature needs the optional package no_such_pkg: pip install 'penlearn[demo]'
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependency(f"{purpose} needs the optional package {module}: "
                                f"pip install 'penlearn[{extra}]'") from exc


# ----------------------------------------------------------------- option values
def check_integer(name: str, v, low: int) -> None:
    """Raise a ``ValueError`` naming ``name`` unless ``v`` is an integer >= ``low``
    (bools are not integers here).

    Examples
    --------
    >>> check_integer("max_steps", True, 0)
    Traceback (most recent call last):
    ...
    ValueError: max_steps must be an integer >= 0, got True
    """
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")


def check_number(name: str, v, low: float, *, strict: bool = False, high: float | None = None
            ) -> None:
    """Raise a ``ValueError`` naming ``name`` unless ``v`` is a finite number >= ``low``
    (> ``low`` with ``strict``; at most ``high`` when given)."""
    ok = (not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))
          and np.isfinite(v) and (v > low if strict else v >= low)
          and (high is None or v <= high))
    if not ok:
        span = f"in ({low:g}, {high:g}]" if high is not None else \
            (f"> {low:g}" if strict else f">= {low:g}")
        raise ValueError(f"{name} must be a finite number {span}, got {v!r}")


def check_choice(name: str, v, allowed) -> None:
    """Raise a ``ValueError`` naming ``name`` unless ``v`` is one of the strings ``allowed``."""
    if not isinstance(v, str) or v not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {v!r}")


def check_flag(name: str, v) -> None:
    """Raise a ``TypeError`` naming ``name`` unless ``v`` is True or False."""
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {v!r}")
