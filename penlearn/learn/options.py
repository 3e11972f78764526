"""The options of ``learn_penalty``: each defined once, with one validator.

:class:`LearnOptions` is the single source of the options of
:func:`penlearn.learn_penalty`, :func:`penlearn.learn.penalty.fit_penalty` and
:class:`penlearn.PenaltyModel` (their signatures are built from its fields, see
:func:`with_options`); :class:`BoostingOptions` holds the options of ``model="boosting"``
(the ``boosting=`` dict). :func:`learn_options` checks every value and raises a
``ValueError`` / ``TypeError`` naming the option and what was expected. A new option is
a new field here (with its check and its line in the docstring).
"""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from penlearn._checks import check_choice as _choice
from penlearn._checks import check_flag as _flag
from penlearn._checks import check_integer as _integer
from penlearn._checks import check_number as _number
from penlearn.fitting.descent import LINE_SEARCHES, NORMALIZES, SELECTIONS, descent_options
from penlearn.learn.shrink import check_shrink

__all__ = ["CANDIDATES", "CV_RULES", "DEFAULT_MODEL", "INITS", "LEVELS", "LINE_SEARCHES",
           "MIN_SEQUENCES", "MIN_SEQUENCES_AUTO", "MODELS", "NORMALIZES", "SELECTIONS",
           "BoostingOptions", "LearnOptions", "boosting_options", "learn_options", "with_options"]

#: The model classes of ``learn_penalty(model=...)``: ``"auto"`` chooses among
#: ``candidates`` by cross-validation over whole regions (:mod:`penlearn.learn.choice`).
MODELS = ("linear", "boosting", "constant", "auto")
#: The candidates of ``model="auto"``, simplest first.
CANDIDATES = ("constant", "linear", "boosting")
#: Fewer labeled sequences than this are too few to learn and validate a model
#: (:mod:`penlearn.learn.prior`: the few-labels rule).
MIN_SEQUENCES = 2
#: ``model="auto"`` chooses by cross-validation: each fold learns (and validates) on at
#: least :data:`MIN_SEQUENCES` sequences and tests on one, so it needs one more.
MIN_SEQUENCES_AUTO = MIN_SEQUENCES + 1
#: The rules of ``model="auto"`` among the candidates tied on CV label errors (one
#: standard error): the largest CV AUC, or the simplest (:mod:`penlearn.learn.choice`).
CV_RULES = ("1se-auc", "1se")
#: The model class of ``learn_penalty`` by default: the choice per data set by
#: cross-validation over whole regions, predicting with ``clip=True`` (issue 32; measured
#: in ``benchmarks/all_sets.py`` on the sets' own folds and two held-out region
#: groupings, the numbers are in the docs, "Learning").
DEFAULT_MODEL = "auto"
#: How the level of log λ is set (:mod:`penlearn.learn.level`).
LEVELS = ("validation", "subtrain")
#: The starts of the linear model given by name.
INITS = ("interval_regression", "interval_regression_flipped", "zero", "random")


@dataclass(frozen=True)
class BoostingOptions:
    """Options of ``model="boosting"`` (:mod:`penlearn.learn.boosting`).

    Attributes
    ----------
    max_stages : int
        Upper bound on the trees (also bounded by ``max_steps``); >= 0.
    learning_rate : float
        η in (0, 1]: each stage's exact line-search step is multiplied by it.
    max_depth, min_samples_leaf : int
        Of each regression tree; >= 1.
    patience : int
        Stop after this many stages without a gain in validation AUC; >= 1.
    min_improvement : float
        Keep stages only if the validation AUC beats the constant by more; >= 0.
    refit : bool
        Refit the chosen number of stages on subtrain + validation.
    """

    max_stages: int = 200
    learning_rate: float = 0.5
    max_depth: int = 2
    min_samples_leaf: int = 10
    patience: int = 20
    min_improvement: float = 0.0
    refit: bool = False


@dataclass(frozen=True)
class LearnOptions:
    """Every option of :func:`penlearn.learn_penalty` (see its docstring for each).

    ``line_search, init, normalize, max_steps, tol, random_state, progress, select,
    min_improvement, l2, shrink, ir_repeats, clip, model, level, boosting, cv_folds,
    candidates, cv_rule``.
    """

    line_search: str = "first_min"
    init: object = "interval_regression"
    normalize: str = "rate"
    max_steps: int = 1000
    tol: float = 1e-5
    random_state: object = 0
    progress: bool = True
    select: str = "validation_auc"
    min_improvement: float = 0.01
    l2: float = 0.1
    shrink: bool | str = True
    ir_repeats: int = 1
    clip: bool = True
    model: str = DEFAULT_MODEL
    level: str = "validation"
    boosting: dict | None = None
    cv_folds: int = 3
    candidates: tuple = CANDIDATES
    cv_rule: str = "1se-auc"

    def as_dict(self) -> dict:
        """The options as a plain dict (``boosting`` as given, a dict or None)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: The option names, in signature order.
OPTION_NAMES = tuple(f.name for f in fields(LearnOptions))


def boosting_options(options) -> BoostingOptions:
    """``boosting=`` (a dict of overrides, a :class:`BoostingOptions` or None), checked.

    Examples
    --------
    >>> boosting_options({"max_depth": 3}).max_depth
    3
    >>> boosting_options({"patience": -1})
    Traceback (most recent call last):
    ...
    ValueError: boosting: patience must be an integer >= 1, got -1
    >>> boosting_options(5)
    Traceback (most recent call last):
    ...
    TypeError: boosting must be a dict of options among ['max_stages', 'learning_rate', \
'max_depth', 'min_samples_leaf', 'patience', 'min_improvement', 'refit'] or None, got 5
    """
    names = [f.name for f in fields(BoostingOptions)]
    if options is None:
        return BoostingOptions()
    if isinstance(options, BoostingOptions):
        options = asdict(options)
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise TypeError(f"boosting must be a dict of options among {names} or None, "
                        f"got {options!r}")
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise ValueError(f"boosting options must be among {names}, got {unknown}")
    b = replace(BoostingOptions(), **options)
    try:
        _integer("max_stages", b.max_stages, 0)
        _number("learning_rate", b.learning_rate, 0.0, strict=True, high=1.0)
        _integer("max_depth", b.max_depth, 1)
        _integer("min_samples_leaf", b.min_samples_leaf, 1)
        _integer("patience", b.patience, 1)
        _number("min_improvement", b.min_improvement, 0.0)
        _flag("refit", b.refit)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"boosting: {exc}") from None
    return b


def learn_options(**options) -> LearnOptions:
    """The options of ``learn_penalty`` (defaults for those not given), each checked.

    Raises a ``ValueError`` (a ``TypeError`` for a wrong kind of value) naming the first
    invalid option and what it accepts; an unknown name raises a ``TypeError`` listing
    the valid ones.

    Examples
    --------
    >>> learn_options(l2=0.5).l2
    0.5
    >>> learn_options(random_state=-1)
    Traceback (most recent call last):
    ...
    ValueError: random_state must be an integer >= 0 or None, got -1
    """
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(f"unknown option(s) {unknown}; valid: {list(OPTION_NAMES)}")
    o = LearnOptions(**options)
    descent_options(o.line_search, o.normalize, o.max_steps, o.tol)  # shared with binary
    init = o.init
    if isinstance(init, str):
        _choice("init", init, INITS)
    elif not (hasattr(init, "coef_") and hasattr(init, "intercept_")):
        try:
            arr = np.asarray(init, dtype=float)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.ndim != 1 or not np.all(np.isfinite(arr)):
            raise ValueError(f"init must be one of {INITS}, a fitted PenaltyModel or a 1-D "
                             f"array of finite weights, got {init!r}")
    rs = o.random_state
    if rs is not None and (isinstance(rs, bool) or not isinstance(rs, (int, np.integer))
                           or rs < 0):
        raise ValueError(f"random_state must be an integer >= 0 or None, got {rs!r}")
    _flag("progress", o.progress)
    _choice("select", o.select, SELECTIONS)
    _number("min_improvement", o.min_improvement, 0.0)
    _number("l2", o.l2, 0.0)
    check_shrink(o.shrink)
    _integer("ir_repeats", o.ir_repeats, 1)
    _flag("clip", o.clip)
    _choice("model", o.model, MODELS)
    _choice("level", o.level, LEVELS)
    boosting_options(o.boosting)
    _integer("cv_folds", o.cv_folds, 2)
    _choice("cv_rule", o.cv_rule, CV_RULES)
    cands = o.candidates
    if isinstance(cands, str) or not isinstance(cands, (tuple, list)) or not cands \
            or not set(cands) <= set(CANDIDATES) or len(set(cands)) != len(cands):
        raise ValueError(f"candidates must be distinct names among {CANDIDATES}, got "
                         f"{cands!r}")
    return replace(o, candidates=tuple(c for c in CANDIDATES if c in cands))


def with_options(fn):
    """Give ``fn`` (which takes ``**options``) a signature listing every option of
    :class:`LearnOptions` as a keyword with its default (for ``help`` and ``inspect``).

    Examples
    --------
    >>> @with_options
    ... def f(x, **options):
    ...     return learn_options(**options)
    >>> inspect.signature(f).parameters["l2"].default
    0.1
    """
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
    params += [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default)
               for f in fields(LearnOptions)]
    fn.__signature__ = sig.replace(parameters=params)
    return fn
