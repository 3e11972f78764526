"""One penalty vocabulary: the penalty λ and its natural log, never confused.

Every peak function and command takes the penalty either as ``penalty=`` (λ, the cost of
one peak, ≥ 0; ``penlearn peaks --penalty``) or as ``log_penalty=`` (log λ, natural log;
``--log-penalty``), keyword-only. A value no coverage supports is an error naming the
unit that was expected, never a silent model without peaks: λ negative or not finite,
log λ not finite (NaN, +inf) or above :data:`MAX_LOG_PENALTY` (λ ≈ 5·10^21; the
penalties of the 17 UCI ChIP-seq sets' label-error minima lie between log λ ≈ −5 and 25).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["MAX_LOG_PENALTY", "check_log_penalty", "log_penalty_of"]

#: The largest log λ accepted (natural log).
MAX_LOG_PENALTY = 50.0


def _number(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    return float(value)


def check_log_penalty(value: float, what: str = "log_penalty") -> float:
    """``value`` if it is a log λ some coverage supports: −inf (λ = 0) or finite up to
    :data:`MAX_LOG_PENALTY`; else a ``ValueError`` saying which unit was expected.

    Examples
    --------
    >>> check_log_penalty(9.2)
    9.2
    >>> try:
    ...     check_log_penalty(10000.0)
    ... except ValueError as e:
    ...     print(str(e)[:47])
    log_penalty = 10000 is log λ (natural log), and
    """
    v = _number(value, what)
    if math.isnan(v):
        raise ValueError(f"{what} is NaN: give log λ (natural log of the penalty), a "
                         f"number <= {MAX_LOG_PENALTY:g}")
    if v > MAX_LOG_PENALTY:
        raise ValueError(f"{what} = {v:g} is log λ (natural log), and λ = e^{v:g} makes no "
                         f"peak on any coverage (log λ must be <= {MAX_LOG_PENALTY:g}); for the "
                         f"penalty λ = {v:g} itself give penalty={v:g} (penlearn peaks "
                         f"--penalty {v:g})")
    return v


def _check_penalty(value, what: str = "penalty") -> float:
    v = _number(value, what)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{what} = {v!r} is the penalty λ: a finite number >= 0 (the cost "
                         "of one peak); for log λ give log_penalty= (penlearn peaks "
                         "--log-penalty)")
    log = math.log(v) if v > 0 else -math.inf
    if log > MAX_LOG_PENALTY:
        raise ValueError(f"{what} = {v:g} is beyond e^{MAX_LOG_PENALTY:g}: λ so large makes "
                         "no peak on any coverage")
    return log


def log_penalty_of(penalty=None, log_penalty=None, *, penalty_name: str = "penalty",
                   log_name: str = "log_penalty"):
    """The log λ of ``penalty=`` (λ) or ``log_penalty=`` (log λ), checked; None when
    neither is given. Each may be a number or a Series per window.

    Examples
    --------
    >>> log_penalty_of(penalty=1.0), log_penalty_of(log_penalty=2.5), log_penalty_of()
    (0.0, 2.5, None)
    >>> try:
    ...     log_penalty_of(penalty=-1.0)
    ... except ValueError as e:
    ...     print(str(e)[:56])
    penalty = -1.0 is the penalty λ: a finite number >= 0 (t
    """
    if penalty is not None and log_penalty is not None:
        raise ValueError(f"give {penalty_name} (λ) or {log_name} (log λ), not both")
    if penalty is None and log_penalty is None:
        return None
    check = (lambda v: _check_penalty(v, penalty_name)) if penalty is not None else (
        lambda v: check_log_penalty(v, log_name))
    value = penalty if penalty is not None else log_penalty
    if isinstance(value, pd.Series):
        return pd.Series([check(v) for v in value.to_numpy()], index=value.index,
                         name="log_lambda")
    return check(value)
