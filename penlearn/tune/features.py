"""Signals given as arrays: their checks, built-in features and the BIC-style penalty.

Users of ruptures and skchange hold their signals as NumPy arrays, one per sequence
(shape (n,) or (n, d)), not as penlearn's long table. The built-in features are the
noise and length features that ``penaltyLearning::featureMatrix`` users rely on most
(Hocking et al. 2013, ICML; Rigaill, Hocking, Vert & Bach 2013, ICML): the number of data
n, log n, log log n (the BIC feature), and two robust estimates of the noise standard
deviation σ that ignore the few jumps at changes — the MAD of first differences and
Hall's difference-based estimate (:func:`~penlearn.changepoint.features.median_abs_diff`,
:func:`~penlearn.changepoint.features.hall_sd`) — with their logs. For a signal with d
columns σ² is the sum over columns of their σ² (the scale of the l2 cost of a change
in every column).

With a detector whose segment cost is reachable (ruptures' costs, skchange's costs and
FPOP's squared error: :meth:`segment_costs` of :mod:`penlearn.tune.detectors`) the
features also hold noise levels **in the detector's own cost units**, the units the
penalty λ is compared against (:func:`cost_features`): the cost of the whole signal per
sample, and the mean cost per sample of disjoint windows of w = 5, 10, 20 samples (a
local noise level: ≈ σ²·(w − 1)/w for the l2 cost, the dispersion in kernel space for a
kernel cost such as ruptures' rbf after its median-heuristic scaling), with their logs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from penlearn.changepoint.features import hall_sd, median_abs_diff
from penlearn.changepoint.segmentation import _check_sequences
from penlearn.tune.detectors import fit_adapter

#: MAD of differences → σ: |x_{i+1} − x_i| is |N(0, 2σ²)|, whose median is 0.6745·√2·σ.
_MAD_TO_SD = 1.0 / (0.6744897501960817 * np.sqrt(2.0))
FEATURE_NAMES = ("n", "log.n", "log.log.n", "sd.mad", "log.sd.mad", "sd.hall",
                 "log.sd.hall")
#: Window lengths of the cost features (samples).
COST_WINDOWS = (5, 10, 20)
COST_FEATURE_NAMES = ("cost.all", "log.cost.all",
                      *(f"{p}cost.w{w}" for w in COST_WINDOWS for p in ("", "log.")))


def as_signals(signals, what: str = "signals") -> dict:
    """Signals as a dict id → float array of shape (n,) or (n, d), checked.

    A mapping keeps its keys; a sequence (list, tuple) of arrays gets ids 0, 1, ….

    Examples
    --------
    >>> s = as_signals([[0.0, 1.0, 2.0], np.zeros((4, 2))])
    >>> list(s), s[1].shape
    ([0, 1], (4, 2))
    >>> as_signals({"a": [1.0]})
    Traceback (most recent call last):
    ...
    ValueError: signals['a'] must be a finite 1-D or 2-D numeric array with at least 2 rows, ...
    """
    if isinstance(signals, Mapping):
        items = list(signals.items())
    elif isinstance(signals, (list, tuple)):
        items = list(enumerate(signals))
    else:
        raise TypeError(f"{what} must be a dict id -> array or a list of arrays, "
                        f"got {type(signals).__name__}")
    if not items:
        raise ValueError(f"{what} is empty: at least one signal is needed")
    out = {}
    for sid, x in items:
        try:
            arr = np.asarray(x, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{what}[{sid!r}] must be a numeric array") from exc
        if arr.ndim not in (1, 2) or len(arr) < 2 or not np.isfinite(arr).all():
            raise ValueError(f"{what}[{sid!r}] must be a finite 1-D or 2-D numeric array with "
                             f"at least 2 rows, got shape {arr.shape}")
        out[sid] = arr
    return out


def signals_from_sequences(sequences: pd.DataFrame) -> dict:
    """penlearn's long table ``sequence_id, position, value`` as a dict id → array.

    The values of each sequence in position order. With positions 1..n (as
    :func:`penlearn.simulate` makes them) a change located at position p (between p and
    p + 1) is the change t = p of the array, so labels (start, end] carry over unchanged.

    Examples
    --------
    >>> seqs = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"], "position": [1, 2, 1, 2],
    ...                      "value": [4.0, 5.0, 0.0, 1.0]})
    >>> {k: v.tolist() for k, v in signals_from_sequences(seqs).items()}
    {'a': [4.0, 5.0], 'b': [0.0, 1.0]}
    """
    seq = _check_sequences(sequences)
    return {sid: g["value"].to_numpy(dtype=float)
            for sid, g in seq.groupby("sequence_id", sort=False)}


def _noise_var(x: np.ndarray, estimate: Callable) -> float:
    cols = x.reshape(len(x), -1).T
    return float(sum(estimate(c) ** 2 for c in cols))


def noise_sd(signal, method: str = "mad") -> float:
    """Robust noise standard deviation of a signal (root of the sum over its columns).

    ``"mad"``: median |x_{i+1} − x_i| / (0.6745·√2), consistent for Gaussian noise;
    ``"hall"``: Hall, Kay & Titterington (1990).

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(0, 2, 5000)
    >>> round(noise_sd(x), 1), round(noise_sd(x, "hall"), 1)
    (2.0, 2.0)
    """
    x = np.asarray(signal, dtype=float)
    if method == "mad":
        return float(np.sqrt(_noise_var(x, lambda c: median_abs_diff(c) * _MAD_TO_SD)))
    if method == "hall":
        return float(np.sqrt(_noise_var(x, hall_sd)))
    raise ValueError(f"method must be 'mad' or 'hall', got {method!r}")


def cost_features(detector: Any, signal: np.ndarray,
                  windows: tuple[int, ...] = COST_WINDOWS) -> dict | None:
    """Noise levels of one signal in the units of the detector's own segment cost.

    Parameters
    ----------
    detector
        A penalised detector (see :class:`~penlearn.tune.estimator.SupervisedPenalty`);
        it is copied, not changed.
    signal : array of shape (n,) or (n, d)
    windows : sequence of int
        Window lengths w (a signal shorter than w is one window).

    Returns
    -------
    dict or None
        ``cost.all`` (the cost of the whole signal as one segment, per sample),
        ``cost.w{w}`` (the mean over the disjoint windows [0, w), [w, 2w), … of their
        cost per sample) and the log of each (−inf for a zero cost); None when the
        detector's segment cost is not reachable (e.g. skchange's moving-window scores)
        or refuses a window (a custom cost with a longer minimum segment).

    Examples
    --------
    >>> import ruptures as rpt
    >>> x = np.random.default_rng(0).normal(0, 2, 1000)
    >>> f = cost_features(rpt.Pelt(model="l2"), x)
    >>> round(float(np.var(x)), 2), round(f["cost.all"], 2), round(f["cost.w10"] * 10 / 9, 2)
    (3.82, 3.82, 3.77)
    """
    x = np.asarray(signal, dtype=float)
    adapter = fit_adapter(detector, x)
    n = len(x)
    out = {}
    try:
        whole = adapter.segment_costs(np.array([0]), np.array([n]))
        if whole is None:
            return None
        out["cost.all"] = float(whole[0]) / n
        for w in windows:
            w_n = min(int(w), n)  # a signal shorter than w: one window, the whole signal
            starts = np.arange(0, n - w_n + 1, w_n)
            out[f"cost.w{w}"] = float(np.mean(adapter.segment_costs(starts, starts + w_n))) / w_n
    except Exception:  # noqa: BLE001 (a custom cost that refuses short segments: none)
        return None
    with np.errstate(divide="ignore"):
        out.update({f"log.{k}": float(np.log(v)) for k, v in list(out.items())})
    return out


def signal_features(signals: dict | list, detector: Any = None) -> pd.DataFrame:
    """The built-in features of each signal (see the module docstring).

    Parameters
    ----------
    signals : dict or list
        id → array of shape (n,) or (n, d).
    detector : optional
        A penalised detector: adds its :func:`cost_features` when its cost is reachable
        on every signal (else only the detector-free features).

    Returns
    -------
    DataFrame
        Indexed by signal id, columns ``n, log.n, log.log.n, sd.mad, log.sd.mad, sd.hall,
        log.sd.hall`` (−inf from log 0 on a constant signal: learning drops such columns),
        then the cost features.

    Examples
    --------
    >>> f = signal_features({"a": np.r_[np.zeros(50), np.ones(50)] + np.arange(100) % 2})
    >>> f.loc["a", ["n", "sd.mad"]].round(3).tolist()
    [100.0, 1.048]
    >>> import ruptures as rpt
    >>> list(signal_features({"a": np.arange(30.0)}, rpt.Pelt(model="rbf")).columns[7:10])
    ['cost.all', 'log.cost.all', 'cost.w5']
    """
    sig = as_signals(signals)
    rows = []
    for x in sig.values():
        n = float(len(x))
        mad, hall = noise_sd(x, "mad"), noise_sd(x, "hall")
        with np.errstate(divide="ignore", invalid="ignore"):
            rows.append([n, np.log(n), np.log(np.log(n)), mad, np.log(mad), hall,
                         np.log(hall)])
    table = pd.DataFrame(rows, index=pd.Index(list(sig), name="sequence_id"),
                         columns=list(FEATURE_NAMES))
    if detector is None:
        return table
    costs = []
    for x in sig.values():
        c = cost_features(detector, x)
        if c is None:
            return table
        costs.append(c)
    extra = pd.DataFrame(costs, index=table.index)
    return table.join(extra[[c for c in COST_FEATURE_NAMES if c in extra.columns]])


def logged_features(table: pd.DataFrame) -> pd.DataFrame:
    """The columns of a feature table that do not grow with the signal's scale or length
    unlogged: a column ``X`` (not itself a log) is dropped when ``log.X`` is there too.

    A linear model of log λ on a raw noise variance or cost runs away on a signal much
    noisier than the training ones (log λ ≈ 10^5 on a signal 1000 times noisier); on
    their logs it scales as the cost does (log λ + 2·log 1000 under the l2 cost).

    Examples
    --------
    >>> f = signal_features({"a": np.arange(10.0) % 3})
    >>> list(logged_features(f).columns)
    ['log.n', 'log.log.n', 'log.sd.mad', 'log.sd.hall']
    """
    return table[[c for c in table.columns
                  if c.startswith("log.") or f"log.{c}" not in table.columns]]


def noise_level(signals) -> pd.Series:
    """log σ̂² of each signal (:func:`noise_sd`, MAD): the scale of its l2 cost per sample
    (−inf for a signal without noise).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(0, 1, 2000)
    >>> lv = noise_level({"x": x, "y": 1000 * x})
    >>> bool(abs(lv["y"] - lv["x"] - 2 * np.log(1000)) < 1e-9)
    True
    """
    sig = as_signals(signals)
    with np.errstate(divide="ignore"):
        return pd.Series({s: 2.0 * np.log(noise_sd(x)) for s, x in sig.items()},
                         name="noise_level", dtype=float)


def bic_penalty(signal) -> float:
    """BIC-style penalty λ = 2σ̂² log n in units of the l2 cost (σ̂: :func:`noise_sd`).

    Schwarz's criterion for a Gaussian change in mean, two parameters per change
    (Schwarz 1978; Yao 1988); the same rule as
    :func:`~penlearn.changepoint.model_selection.bic_log_lambda` for long tables.

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(0, 1, 1000)
    >>> round(float(bic_penalty(x) / np.log(1000)), 1)
    1.9
    """
    x = np.asarray(signal, dtype=float)
    return float(2.0 * noise_sd(x) ** 2 * np.log(max(len(x), 2)))
