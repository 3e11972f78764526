"""Input validation shared by every module: one place for the "finite numeric vector" rule."""

from __future__ import annotations

import numpy as np


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
