"""Model files: one reader that validates every field, for every model type.

A model file is JSON with ``format`` (the model type) and ``version``; numbers that must
be finite are checked here, so a tampered or truncated file raises a ``ValueError``
naming the file and the field instead of giving silent ``inf`` predictions.
The segmentation settings a penalty model records (:func:`check_segmentation`) are
validated here too.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

import numpy as np

from penlearn.atomic_files import write_text_atomic

__all__ = [
    "DEFAULT_SEGMENTATION",
    "TASKS",
    "check_model_task",
    "check_task",
    "ModelFileError",
    "ModelFields",
    "check_segmentation",
    "read_model_file",
    "write_model_file",
]

# Coefficients beyond this make predictions overflow on ordinary (standardised) inputs.
MAX_ABS_COEF = 1e100


#: What a model file's ``task`` field says its features describe (what it was learned
#: for): a model of one task predicts nonsense on another's features, even of one name.
TASKS = {"changepoint": "sequences of a changepoint data set",
         "peaks": "single-sample ChIP-seq windows ('penlearn learn' on a coverage folder)",
         "joint": "joint windows across samples ('penlearn joint --labels')"}


class ModelFileError(ValueError):
    """A model file that is not valid JSON of the expected model type."""


def check_task(task, what: str = "task") -> str | None:
    """``task`` if it is None or one of :data:`TASKS`, else a ``ValueError`` listing them.

    Examples
    --------
    >>> check_task("peaks"), check_task(None)
    ('peaks', None)
    """
    if task is not None and (not isinstance(task, str) or task not in TASKS):
        raise ValueError(f"{what} must be one of {list(TASKS)} (or None), got {task!r}")
    return task


def check_model_task(recorded, expected, source: str) -> None:
    """The one task check of every model a command or ``prior=`` takes: a model that
    records a task (``recorded``) other than ``expected`` is refused, naming both (None
    on either side: unknown, not checked here).

    Examples
    --------
    >>> check_model_task("peaks", "peaks", "m.json")
    >>> check_model_task("joint", "peaks", "m.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    penlearn.fitting.model_file.ModelFileError: m.json is a model of the task 'joint' ...
    """
    check_task(expected)
    if expected is not None and recorded is not None and recorded != expected:
        raise ModelFileError(
            f"{source} is a model of the task {recorded!r} ({TASKS[recorded]}), not "
            f"{expected!r}: its features mean other things here; give a model of "
            f"{TASKS[expected]}")


def write_model_file(path, data: dict) -> None:
    """Write ``data`` as JSON atomically (temp file, then rename).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> write_model_file(p, {"format": "x", "version": 1})
    >>> read_model_file(p, "x", 1).data["version"]
    1
    """
    write_text_atomic(path, json.dumps(data, indent=1, allow_nan=True))


class ModelFields:
    """Validated access to the fields of one model file.

    Every accessor raises :class:`ModelFileError` naming the source and the field.
    """

    def __init__(self, data: dict, source: str) -> None:
        self.data = data
        self.source = source

    def error(self, msg: str) -> ModelFileError:
        return ModelFileError(f"{self.source} is not a valid penlearn model file: {msg}")

    def require(self, *names: str) -> None:
        """Raise unless every field in ``names`` is present."""
        missing = [k for k in names if k not in self.data]
        if missing:
            raise self.error(f"missing field(s) {missing}")

    def number(self, name: str, *, finite: bool = True, integer: bool = False):
        """A number (finite unless told otherwise; an int when ``integer``)."""
        v = self.data.get(name)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.error(f"field {name!r} must be a number, got {v!r}")
        if integer and not isinstance(v, int):
            raise self.error(f"field {name!r} must be an integer, got {v!r}")
        if finite and not math.isfinite(v):
            raise self.error(f"field {name!r} must be finite, got {v!r}")
        return v

    def vector(self, name: str, n: int | None = None, *, data: dict | None = None,
               bound: float | None = None) -> np.ndarray:
        """A list of finite numbers (of length ``n``; |x| ≤ ``bound``)."""
        v = (self.data if data is None else data).get(name)
        if not isinstance(v, list) or any(
            isinstance(x, bool) or not isinstance(x, (int, float)) for x in v
        ):
            raise self.error(f"field {name!r} must be a list of numbers")
        arr = np.asarray(v, dtype=float)
        if n is not None and len(arr) != n:
            raise self.error(f"field {name!r} has {len(arr)} values, expected {n}")
        if not np.all(np.isfinite(arr)):
            raise self.error(f"field {name!r} must hold finite numbers")
        if bound is not None and np.any(np.abs(arr) > bound):
            raise self.error(f"field {name!r} has a value beyond ±{bound:g}")
        return arr

    def task(self, expected: str | None = None) -> str | None:
        """The recorded ``task`` (one of :data:`TASKS`; None: a file written before
        tasks were recorded, its task unknown). A recorded task other than ``expected``
        is refused, naming both."""
        task = self.data.get("task")
        if task is not None and (not isinstance(task, str) or task not in TASKS):
            raise self.error(f"field 'task' must be one of {list(TASKS)}, got {task!r}")
        check_model_task(task, expected, self.source)
        return task

    def names(self, name: str, *, nonempty: bool = True) -> list[str]:
        """A list of distinct strings."""
        v = self.data.get(name)
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.error(f"field {name!r} must be a list of strings")
        if nonempty and not v:
            raise self.error(f"field {name!r} is empty")
        dup = sorted({x for x in v if v.count(x) > 1})
        if dup:
            raise self.error(f"field {name!r} has duplicates {dup[:5]}")
        return list(v)


#: The largest model file read (a boosting model of 1000 trees is about 1 MB).
MAX_MODEL_BYTES = 64 * 2**20


def _read_bounded(path: Path, source: str) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_MODEL_BYTES`; anything else (a
    FIFO, a device such as /dev/zero, a folder, a larger file) is a ModelFileError, found
    without blocking or reading it."""
    limit = MAX_MODEL_BYTES
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO: no wait
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ModelFileError(f"{source} is a folder, not a model file")
        if not stat.S_ISREG(st.st_mode):
            raise ModelFileError(f"{source} is not a regular file (a pipe, device or "
                                 "socket): a model file is read from a regular file only")
        if st.st_size > limit:
            raise ModelFileError(f"{source} has {st.st_size} bytes, beyond the "
                                 f"{limit} bytes a model file may have")
        chunks, n = [], 0
        while n <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - n))
            if not chunk:
                break
            chunks.append(chunk)
            n += len(chunk)
    finally:
        os.close(fd)
    if n > limit:  # grew while read
        raise ModelFileError(f"{source} has more than the {limit} bytes a model file may have")
    return b"".join(chunks)


def _json_int(text: str) -> int:
    """A JSON integer; one of more than 308 digits (beyond every float) is refused."""
    if len(text.lstrip("-")) > 308:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits, beyond the range "
                         "of any model field")
    return int(text)


def read_model_file(path_or_data, fmt: str, version: int, source: str | None = None):
    """Read (or take) model data, check its ``format`` and ``version``.

    Parameters
    ----------
    path_or_data : path or dict
        A JSON file (a regular file of at most :data:`MAX_MODEL_BYTES`), or the
        already-parsed data.
    fmt : str
        The expected ``format`` field.
    version : int
        The supported ``version``.
    source : str, optional
        Name used in messages (default: the path, or "model data").

    Returns
    -------
    ModelFields
    """
    if isinstance(path_or_data, dict):
        data, source = path_or_data, source or "model data"
    else:
        path = Path(path_or_data)
        source = source or str(path)
        text = _read_bounded(path, source)
        try:
            data = json.loads(text.decode("utf-8"), parse_int=_json_int)
        except UnicodeDecodeError as exc:
            raise ModelFileError(f"{source} is not a penlearn model file (not text)") from exc
        except json.JSONDecodeError as exc:
            raise ModelFileError(
                f"{source} is not a valid penlearn model file (bad JSON: {exc})"
            ) from exc
        except RecursionError:
            raise ModelFileError(f"{source} is not a penlearn model file (JSON nested too "
                                 "deeply to read)") from None
        except ValueError as exc:  # an integer of too many digits (_json_int)
            raise ModelFileError(f"{source} is not a penlearn model file ({exc})") from None
    fields = ModelFields(data, source)
    if not isinstance(data, dict):
        raise fields.error("expected a JSON object")
    got = data.get("format", data.get("kind"))
    if got != fmt:
        raise fields.error(f"'format' must be {fmt!r}, got {got!r}")
    if data.get("version", version) != version:
        raise fields.error(f"unsupported version {data.get('version')!r} (expected {version})")
    return fields


#: What :meth:`PenaltyModel.segment` uses when the model does not record its settings.
DEFAULT_SEGMENTATION = {"loss": "l2", "max_segments": 20}


def check_segmentation(settings) -> dict | None:
    """Validate segmentation settings ``{"loss": str, "max_segments": int}`` (or None).

    Examples
    --------
    >>> check_segmentation({"loss": "poisson", "max_segments": 5})
    {'loss': 'poisson', 'max_segments': 5}
    """
    if settings is None:
        return None
    if not isinstance(settings, dict):
        raise TypeError(f"segmentation must be a dict with 'loss' and 'max_segments', got "
                        f"{type(settings).__name__}")
    unknown = set(settings) - {"loss", "max_segments"}
    if unknown:
        raise ValueError(f"segmentation has unknown key(s) {sorted(unknown)}; expected 'loss' "
                         "and 'max_segments'")
    out = {}
    if "loss" in settings:
        if settings["loss"] not in ("l2", "poisson"):
            raise ValueError(f"segmentation 'loss' must be 'l2' or 'poisson', got "
                             f"{settings['loss']!r}")
        out["loss"] = settings["loss"]
    if "max_segments" in settings:
        k = settings["max_segments"]
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"segmentation 'max_segments' must be an integer >= 1, got {k!r}")
        out["max_segments"] = int(k)
    return out or None
