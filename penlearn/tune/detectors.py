"""Adapters: one interface over the penalised detectors of ruptures and skchange.

An adapter is fitted to one signal, then answers two questions: the change points the
detector returns at a penalty λ (:meth:`solve`), the detector's own cost of a set of
change points (:meth:`cost`, None when the detector has no segment cost), and its cost
of given segments [start, end) (:meth:`segment_costs`, None likewise: the cost features
of :mod:`penlearn.tune.features`). Neither
ruptures nor skchange is imported here: a detector is recognised by the module of its
class, so ``import penlearn`` stays light.

Conventions: a change at ``t`` means a new segment starts at index ``t`` (ruptures'
breakpoints without the final ``n``; skchange's change points); λ is the detector's own
penalty per change (ruptures' ``pen``, skchange's ``penalty`` with ``penalty_scale``
set to 1), so a detector that minimises a penalised cost minimises
``cost(changes) + λ · len(changes)`` (ruptures' Pelt adds λ per segment, one more than
per change: the same minimiser).
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np

#: Detectors that return the exact minimiser of cost + λ·changes (Killick, Fearnhead &
#: Eckley 2012 for PELT; Maidstone, Hocking, Rigaill & Fearnhead 2017 for FPOP), so that
#: the CROPS search of their path is exact.
_EXACT = {("ruptures", "Pelt"), ("ruptures", "KernelCPD"), ("skchange", "PELT"),
          ("skchange", "FPOP")}
SUPPORTED = (
    "ruptures Pelt, KernelCPD, Binseg, BottomUp, Window (predict(pen=...)) or a skchange "
    "detector with a 'penalty' parameter (PELT, FPOP, MovingWindow, SeededBinarySegmentation, "
    "CircularBinarySegmentation)"
)


def _library(detector) -> str:
    return type(detector).__module__.split(".")[0]


def detector_name(detector) -> str:
    """``"library.ClassName"`` of a detector, for messages and tables.

    Examples
    --------
    >>> import ruptures as rpt
    >>> detector_name(rpt.Pelt())
    'ruptures.Pelt'
    """
    return f"{_library(detector)}.{type(detector).__name__}"


def check_detector(detector) -> str:
    """The detector's library (``"ruptures"`` or ``"skchange"``), or a one-line TypeError.

    Examples
    --------
    >>> check_detector(object())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: detector object (builtins.object) takes no penalty: expected ruptures Pelt, ...
    """
    lib = _library(detector)
    name = f"{type(detector).__name__} ({detector_name(detector)})"
    if lib == "ruptures" and hasattr(detector, "predict") and hasattr(detector, "fit"):
        if "pen" in inspect.signature(detector.predict).parameters:
            return lib
        raise TypeError(f"detector {name} takes no penalty: its predict() has no 'pen' "
                        f"argument; expected {SUPPORTED}")
    if lib == "skchange" and hasattr(detector, "get_params"):
        if "penalty" in detector.get_params(deep=False):
            return lib
        raise TypeError(f"detector {name} takes no penalty: it has no 'penalty' parameter "
                        f"(CAPA has two, CROPS a range); expected {SUPPORTED}")
    raise TypeError(f"detector {name} takes no penalty: expected {SUPPORTED}")


def is_exact(detector) -> bool:
    """Whether the detector returns the exact minimiser of cost + λ·changes.

    Examples
    --------
    >>> is_exact(object())
    False
    >>> from skchange.detectors import FPOP
    >>> is_exact(FPOP())
    True
    """
    return (_library(detector), type(detector).__name__) in _EXACT


class _Ruptures:
    def __init__(self, detector, signal: np.ndarray):
        self.algo = copy.deepcopy(detector).fit(signal)
        self.n = len(signal)
        self.positive = type(detector).__name__ == "KernelCPD"  # it asserts pen > 0

    def solve(self, pen: float) -> np.ndarray:
        if self.positive:
            pen = max(pen, np.finfo(float).tiny)
        bkps = self.algo.predict(pen=float(pen))
        return np.asarray(bkps[:-1], dtype=np.int64)

    def cost(self, changes: np.ndarray) -> float | None:
        return float(self.algo.cost.sum_of_costs([*map(int, changes), self.n]))

    def segment_costs(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
        cost = getattr(self.algo, "cost", None)
        if cost is None or not hasattr(cost, "error"):
            return None
        return np.array([cost.error(int(a), int(b)) for a, b in zip(starts, ends)],
                        dtype=float)


class _Skchange:
    def __init__(self, detector, signal: np.ndarray):
        from sklearn.base import clone

        det = clone(detector)
        if "penalty_scale" in det.get_params(deep=False):
            det.set_params(penalty_scale=1.0)
        self.X = signal.reshape(len(signal), -1)
        self.det = det.fit(self.X)  # fitted once, so that its cost_ exists before any solve
        self._cache = None

    def solve(self, pen: float) -> np.ndarray:
        self.det.set_params(penalty=float(pen))
        self.det.fit(self.X)
        return np.asarray(self.det.predict(self.X), dtype=np.int64).reshape(-1)

    def cost(self, changes: np.ndarray) -> float | None:
        bounds = np.r_[0, np.asarray(changes, dtype=np.int64), len(self.X)]
        costs = self.segment_costs(bounds[:-1], bounds[1:])
        return None if costs is None else float(np.sum(costs))

    def segment_costs(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
        starts, ends = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
        if type(self.det).__name__ == "FPOP":  # squared error around each segment's mean
            return np.array([_square_loss(self.X[a:b, 0]) for a, b in zip(starts, ends)],
                            dtype=float)
        cost = getattr(self.det, "cost_", None)
        if cost is None or not hasattr(cost, "evaluate"):
            return None
        if self._cache is None:
            self._cache = cost.precompute(self.X)
        intervals = np.column_stack([starts, ends])
        out = np.asarray(cost.evaluate(self._cache, intervals), dtype=float)
        return out.reshape(len(intervals), -1).sum(axis=1)  # summed over columns


def _square_loss(y: np.ndarray) -> float:
    """Σ (y − mean y)² of one segment."""
    return float(np.sum((y - y.mean()) ** 2))


def fit_adapter(detector, signal: np.ndarray) -> Any:
    """An adapter of ``detector`` fitted to one signal (the detector itself is not changed).

    Examples
    --------
    >>> import ruptures as rpt
    >>> ad = fit_adapter(rpt.Pelt(model="l2", min_size=1, jump=1),
    ...                  np.r_[np.zeros(5), np.ones(5) * 9])
    >>> ad.solve(1.0).tolist(), ad.cost(np.array([5]))
    ([5], 0.0)
    """
    lib = check_detector(detector)
    return _Ruptures(detector, signal) if lib == "ruptures" else _Skchange(detector, signal)


def run_detector(detector, signal: np.ndarray, penalty: float) -> np.ndarray:
    """The change points that ``detector`` returns on ``signal`` at penalty λ.

    Examples
    --------
    >>> import ruptures as rpt
    >>> run_detector(rpt.Pelt(min_size=1, jump=1), np.r_[np.zeros(5), np.ones(5)], 0.1)
    array([5])
    """
    return fit_adapter(detector, signal).solve(penalty)


def _ruptures_params(detector) -> dict:
    """The constructor arguments of a ruptures detector, read back from the object."""
    names = [n for n in inspect.signature(type(detector).__init__).parameters if n != "self"]
    cost = getattr(detector, "cost", None)
    out: dict = {}
    for name in names:
        if name in ("min_size", "jump", "width"):
            out[name] = getattr(detector, name)
        elif name == "kernel":
            out[name] = getattr(detector, "kernel_name", "linear")
        elif name == "model":
            out[name] = getattr(cost, "model", "l2") or "l2"
        elif name == "custom_cost":
            out[name] = None if _factory_cost(cost) else cost
        elif name == "params":
            out[name] = getattr(detector, "params", None) or _cost_params(cost)
    if out.get("custom_cost") is not None:
        out.pop("model", None)
        out.pop("params", None)
    return out


def _factory_cost(cost) -> bool:
    """Whether ``cost`` is the one ruptures' cost factory makes for its model name."""
    from ruptures.costs import cost_factory

    try:
        return type(cost_factory(getattr(cost, "model", ""))) is type(cost)
    except (ValueError, TypeError):
        return False


def _cost_params(cost) -> dict | None:
    """The non-default constructor arguments of a ruptures cost (e.g. rbf's gamma)."""
    if cost is None:
        return None
    sig = inspect.signature(type(cost).__init__).parameters
    got = {n: getattr(cost, n) for n, p in sig.items()
           if n != "self" and hasattr(cost, n) and p.default is not inspect.Parameter.empty
           and getattr(cost, n) is not p.default and getattr(cost, n) != p.default}
    return got or None


def detector_params(detector) -> dict:
    """The parameters of a detector, scikit-learn style (its constructor arguments).

    skchange detectors have ``get_params``; a ruptures detector's are read back from the
    object (``model``, ``min_size``, ``jump``, ``params``, ...).

    Examples
    --------
    >>> import ruptures as rpt
    >>> detector_params(rpt.Pelt(model="rbf", jump=1))
    {'model': 'rbf', 'custom_cost': None, 'min_size': 2, 'jump': 1, 'params': None}
    """
    lib = check_detector(detector)
    if lib == "skchange":
        return dict(detector.get_params(deep=True))
    return _ruptures_params(detector)


def with_detector_params(detector, **params):
    """The detector with ``params`` set (scikit-learn's nested ``detector__name``).

    A skchange detector is copied and set with its own ``set_params``; a ruptures
    detector (which has no ``set_params``) is rebuilt from its constructor arguments
    (:func:`detector_params`) with ``params`` changed. The detector given is not changed.

    Examples
    --------
    >>> import ruptures as rpt
    >>> d = with_detector_params(rpt.Pelt(model="l2"), model="rbf", min_size=3)
    >>> type(d).__name__, d.cost.model, d.min_size
    ('Pelt', 'rbf', 3)
    """
    current = detector_params(detector)
    unknown = sorted(set(params) - set(current))
    if unknown:
        raise ValueError(f"invalid parameter(s) {['detector__' + k for k in unknown]} for "
                         f"{detector_name(detector)}; valid are "
                         f"{['detector__' + k for k in current]}")
    if check_detector(detector) == "skchange":
        from sklearn.base import clone

        return clone(detector).set_params(**params)
    args = {**current, **params}
    if params.get("custom_cost") is not None:  # a custom cost replaces model and params
        args.pop("model", None)
        args.pop("params", None)
    return type(detector)(**args)


def detector_repr(detector) -> str:
    """A detector with its parameters: ruptures' own repr shows none of them.

    ruptures detectors show their cost model (``model``, or the cost class of a custom
    cost), ``kernel`` (``KernelCPD``), ``width`` (``Window``), ``min_size`` and ``jump``
    (a grid of 5 samples by default: changes are multiples of ``jump``); other detectors
    (skchange, scikit-learn style) keep their own repr.

    Examples
    --------
    >>> import ruptures as rpt
    >>> detector_repr(rpt.Pelt(model="rbf"))
    "Pelt(model='rbf', min_size=2, jump=5)"
    >>> detector_repr(rpt.Window(width=40, jump=1))
    "Window(model='l2', width=40, min_size=2, jump=1)"
    """
    if _library(detector) != "ruptures":
        return repr(detector)
    params = {}
    cost = getattr(detector, "cost", None)
    if hasattr(detector, "kernel_name"):
        params["kernel"] = detector.kernel_name
    elif cost is not None:
        model = getattr(cost, "model", "")
        params["model"] = model if model else type(cost).__name__
    for name in ("width", "min_size", "jump"):
        if hasattr(detector, name):
            params[name] = getattr(detector, name)
    return f"{type(detector).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})"


#: Where skchange's default cost (L2Cost, of a detector whose ``cost`` is None) keeps its
#: numba kernels (a missing module is skipped: only the announcement depends on it).
_SKCHANGE_DEFAULT_COST = "skchange.interval_scorers._costs.l2_cost"


def announce_compile(detector, say: bool = True) -> bool:
    """Say, once per process and before the first path, that a skchange detector's numba
    kernels are being compiled (skchange compiles them on first use and caches them; a
    first path may take a minute): the line of penlearn's own kernels
    (:func:`penlearn._numba_cache.warm_kernels`), only when they are not cached yet.
    Returns True when announced (ruptures compiles nothing: False).

    Examples
    --------
    >>> class Pen:  # neither ruptures nor skchange
    ...     pass
    >>> announce_compile(Pen())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: ...
    """
    import sys

    from penlearn._numba_cache import warm_kernels

    if check_detector(detector) != "skchange":
        return False
    params = detector.get_params(deep=False)
    modules = {type(detector).__module__}
    modules |= {type(v).__module__ for v in params.values()
                if type(v).__module__.startswith("skchange")}
    if "cost" in params and params["cost"] is None:
        modules.add(_SKCHANGE_DEFAULT_COST)
    kernels = [obj for m in sorted(modules) if m in sys.modules
               for obj in vars(sys.modules[m]).values()
               if hasattr(obj, "signatures") and hasattr(obj, "_cache")]
    return warm_kernels(f"skchange {type(detector).__name__}", kernels, lambda: None, say)
