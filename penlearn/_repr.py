"""Short reprs of result records: a few lines of figures and shapes, never a whole table.

A result record (a dataclass or a named tuple) printed in a notebook or a terminal shows
each field as a short summary: numbers and short strings as they are, arrays by shape and
dtype, tables by rows × columns and their first column names, long sequences by length.
The field name is the attribute that holds the full value (``res.path``,
``res.derivatives``). At most :data:`MAX_LINES` lines.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping

import numpy as np

#: Lines of a repr at most (a longer one ends with ``…``).
MAX_LINES = 10
WIDTH = 88


def summary(value) -> str:
    """One short piece of text for a field's value.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> summary(np.zeros((378, 2)))
    '<array 378×2 float64>'
    >>> summary(pd.DataFrame({"a": range(5), "b": 0.5}))
    '<DataFrame 5 rows × 2: a, b>'
    >>> summary(0.123456789), summary([1, 2, 3]), summary(list(range(50)))
    ('0.123457', '[1, 2, 3]', '<list of 50>')
    """
    import pandas as pd

    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(bool(value) if isinstance(value, np.bool_) else value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, np.ndarray):
        if value.size <= 4 and value.ndim <= 1:
            return np.array2string(value, separator=", ", precision=6)
        return f"<array {'×'.join(map(str, value.shape))} {value.dtype}>"
    if isinstance(value, pd.DataFrame):
        cols = [str(c) for c in value.columns[:4]] + (["…"] if value.shape[1] > 4 else [])
        return f"<DataFrame {len(value):,} rows × {value.shape[1]}: {', '.join(cols)}>"
    if isinstance(value, pd.Series):
        return f"<Series of {len(value):,}>"
    if isinstance(value, Mapping):
        keys = [str(k) for k in list(value)[:4]] + (["…"] if len(value) > 4 else [])
        return f"<dict of {len(value)}: {', '.join(keys)}>" if value else "{}"
    if isinstance(value, (list, tuple)):
        if len(value) <= 4 and all(isinstance(v, (numbers.Number, str)) for v in value):
            return repr(value)
        return f"<{type(value).__name__} of {len(value):,}>"
    first = repr(value).splitlines()[0] if repr(value) else type(value).__name__
    return first if len(first) <= 60 else f"<{type(value).__name__}>"


def _fields(obj) -> list[str]:
    if dataclasses.is_dataclass(obj):
        names = [f.name for f in dataclasses.fields(obj) if f.repr]
    else:
        names = list(getattr(obj, "_fields", ()))
    return [n for n in names if not n.startswith("_")]


def compact_repr(obj) -> str:
    """The repr of a result record: its fields' summaries, at most ``MAX_LINES`` lines.

    Examples
    --------
    >>> from typing import NamedTuple
    >>> import numpy as np
    >>> class Result(NamedTuple):
    ...     aum: float
    ...     derivatives: np.ndarray
    ...     __repr__ = compact_repr
    >>> Result(1.5, np.zeros((378, 2)))
    Result(aum=1.5, derivatives=<array 378×2 float64>)
    """
    items = [f"{name}={summary(getattr(obj, name))}" for name in _fields(obj)]
    lines, line = [], f"{type(obj).__name__}("
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else ")")
        if len(line) + len(piece) > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = "    "
        line += piece
    if not items:
        line += ")"
    lines.append(line)
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES - 1] + ["    …)"]
    return "\n".join(lines)
