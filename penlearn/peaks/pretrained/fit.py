"""Learning the zero-label penalty model from the labeled UCI ChIP-seq sets.

The learner is chosen by measurement (``benchmarks/pretrained.py``, leave one set out
over the 17 sets of Hocking et al. 2017, *Bioinformatics* 33(4):491-499): a model of
one feature that transfers across sets beat the AUM linear model on all 26 finite
features and boosting. The feature is the log **index of dispersion** (Fano factor) of
a window's per-base coverage, ``2·log(sd) − log(mean)``: the penalty a peak must pay
grows with how noisy the counts are, and overdispersed counts (variance ≫ mean) make
more spurious peaks at a given λ. The model is

    log λ = intercept + b · (2·log.sd − log.mean)

with b on a grid of step 0.01 and, for each b, the intercept of fewest label errors by
one exact sweep over the error functions; every set weighs the same (each label weighs
1 / the number of labels of its set), so a large set (H3K27ac-H3K4me3_TDHAM_BP, 2008
windows) does not decide the level of the others. The slope minimizes those errors
averaged over b ± :data:`SLOPE_SMOOTH` (issue 52): the errors are a step function of b
whose narrowest dips are a few labels' luck, and the slope at the bottom of a wide dip
transfers better to a set left out (leave one set out 21.51 % / 19.97 % at the mark's
level, against 21.85 / 20.12 for the first minimum; ``benchmarks/pretrained.py``).
Plain functions on NumPy arrays.

The level differs by mark: the narrow marks' sets (H3K4me3, H3K27ac, CTCF, ATAC) need a
lower one than the all-sets fit (at its level their errors are mostly missed peaks), so
:func:`mark_intercept` learns the narrow level on them at the same slope; leave one set
out (``leave_one_set_out(..., marks=True)``) measures it (issue 46 item 5). A level
learned on the broad sets alone transferred worse to a held-out broad set than the
all-sets level, which broad marks keep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["BROAD_MARKS", "FEATURES", "NARROW_MARKS", "SLOPE_SMOOTH", "fit_dispersion_model",
           "label_errors_pct", "leave_one_set_out", "mark_class", "mark_intercept",
           "min_error_intercept", "model_data", "slope_errors", "slope_grid",
           "smoothed_slope"]

#: The coverage features of the model (names of the UCI ``inputs.csv`` columns, computed
#: from coverage by :func:`penlearn.peaks.peakseg.features.coverage_features`).
FEATURES = ("log.sd", "log.mean")
#: The dispersion direction in those features: 2·log.sd − log.mean.
DIRECTION = np.array([2.0, -1.0])
#: Marks MACS3 calls without ``--broad`` (sharp histone marks, factors, open chromatin).
NARROW_MARKS = frozenset({"H3K4me3", "H3K4me2", "H3K27ac", "H3K9ac", "CTCF", "ATAC"})
#: Marks MACS3 calls with ``--broad``.
BROAD_MARKS = frozenset({"H3K27me3", "H3K36me3", "H3K9me3", "H3K4me1", "H3K79me2",
                         "H4K20me1"})


#: Half-width of the window (in slope units) over which the training errors are averaged
#: to choose the slope (:func:`smoothed_slope`): chosen by leave one set out over the 17
#: sets among 0-0.15 (RESULTS "pretrained"; nested, the width chosen inside each fold by
#: leave one set out on the other 16 sets: 21.56 % / 19.94 %).
SLOPE_SMOOTH = 0.05


def slope_grid(lo: float = -0.5, hi: float = 2.0, step: float = 0.01) -> np.ndarray:
    """The slopes tried: ``lo`` to ``hi`` by ``step``.

    Examples
    --------
    >>> grid = slope_grid()
    >>> len(grid), float(grid[0]), float(grid[-1])
    (251, -0.5, 2.0)
    """
    n = int(round((hi - lo) / step)) + 1
    return np.round(lo + step * np.arange(n), 10)


def smoothed_slope(slopes: np.ndarray, errors: np.ndarray,
                   smooth: float = SLOPE_SMOOTH) -> int:
    """The index of the slope of fewest ``errors`` averaged over the slopes within
    ``smooth`` of it (a window cut at the grid's ends; the first of equal minima).

    Parameters
    ----------
    slopes : ndarray
        An evenly spaced, increasing grid.
    errors : ndarray
        The training errors at each slope.
    smooth : float
        Half-width of the window; 0: the first slope of fewest errors.

    Examples
    --------
    >>> b = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    >>> e = np.array([5.0, 1.0, 5.0, 2.0, 2.0])  # a narrow dip at 0.1, a wide one at 0.35
    >>> smoothed_slope(b, e, 0.0), smoothed_slope(b, e, 0.1)
    (1, 4)
    """
    errors = np.asarray(errors, float)
    if len(errors) == 0:
        raise ValueError("slopes: no slope to choose from")
    k = 0 if len(slopes) < 2 else int(round(smooth / (slopes[1] - slopes[0])))
    if k > 0:
        window = np.ones(2 * k + 1)
        errors = (np.convolve(errors, window, "same")
                  / np.convolve(np.ones(len(errors)), window, "same"))
    return int(np.flatnonzero(errors <= errors.min() + 1e-12)[0])


class _Sweep:
    """The weighted label errors of ``c + offset_i`` for every intercept c, exactly.

    ``evaluation`` sorted by sequence then ``min_log_lambda``; ``seq`` the 0-based
    sequence of each row; ``weight`` one per sequence.
    """

    def __init__(self, evaluation: pd.DataFrame, seq: np.ndarray, weight: np.ndarray):
        err = evaluation["errors"].to_numpy(float)
        self.min = evaluation["min_log_lambda"].to_numpy(float)
        first = np.r_[True, seq[1:] != seq[:-1]]
        w = weight[seq]
        self.base = float((err * w)[first].sum())  # every sequence at its lowest row
        self.rows = np.flatnonzero(~first)
        self.seq = seq[self.rows]
        self.delta = (err[self.rows] - err[self.rows - 1]) * w[self.rows]

    def best(self, offset: np.ndarray) -> tuple[float, float]:
        """(intercept, weighted errors): the middle of the first interval of fewest
        errors (one unit inside an unbounded one)."""
        t = self.min[self.rows] - offset[self.seq]
        order = np.argsort(t, kind="stable")
        t = t[order]
        total = self.base + np.cumsum(self.delta[order])
        last = np.r_[t[1:] != t[:-1], True]  # equal thresholds: one step
        t, total = t[last], total[last]
        values = np.r_[self.base, total]
        k = int(np.argmin(values))  # values[k] holds on [t[k-1], t[k])
        if len(t) == 0:
            return 0.0, self.base
        if k == 0:
            return float(t[0] - 1.0), float(values[0])
        if k == len(t):
            return float(t[-1] + 1.0), float(values[k])
        return float((t[k - 1] + t[k]) / 2.0), float(values[k])


def _sorted_rows(evaluation: pd.DataFrame, ids: pd.Index):
    pos = pd.Series(np.arange(len(ids)), index=ids)
    ev = evaluation[evaluation["sequence_id"].isin(ids)]
    seq = pos.loc[ev["sequence_id"]].to_numpy()
    order = np.lexsort((ev["min_log_lambda"].to_numpy(float), seq))
    return ev.iloc[order].reset_index(drop=True), seq[order]


def min_error_intercept(evaluation: pd.DataFrame, offset: pd.Series,
                        weight: pd.Series | None = None) -> tuple[float, float]:
    """The constant c of fewest (weighted) label errors when sequence i gets log λ =
    c + offset_i, and those errors.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions (``sequence_id, min_log_lambda, max_log_lambda, errors``).
    offset : Series
        Per sequence id.
    weight : Series, optional
        Per sequence id (default 1): the weight of each of its label errors.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 2.0],
    ...     "max_log_lambda": [0.0, np.inf, 2.0, np.inf], "errors": [1, 0, 0, 1]})
    >>> min_error_intercept(ev, pd.Series([0.0, 0.0], index=["a", "b"]))
    (1.0, 0.0)
    """
    ids = pd.Index(offset.index)
    w = np.ones(len(ids)) if weight is None else weight.reindex(ids).to_numpy(float)
    ev, seq = _sorted_rows(evaluation, ids)
    return _Sweep(ev, seq, w).best(offset.to_numpy(float))


def _dispersion_and_weights(features: pd.DataFrame, evaluation: pd.DataFrame,
                            groups: pd.Series):
    """(ids, 2·log.sd − log.mean, weight of each sequence's labels: 1 / its group's
    labels), checking the features finite and every sequence's error function there."""
    ids = pd.Index(features.index)
    A = features.loc[:, list(FEATURES)].to_numpy(float)
    if not np.isfinite(A).all():
        raise ValueError(f"features {list(FEATURES)} must be finite on every training "
                         "sequence")
    labels = evaluation.groupby("sequence_id", sort=False)["labels"].first().reindex(ids)
    if labels.isna().any():
        raise ValueError(f"sequence {labels.index[labels.isna()][0]!r} has no error function")
    g = groups.reindex(ids).to_numpy()
    per_group = pd.Series(labels.to_numpy(float)).groupby(g).transform("sum").to_numpy()
    return ids, A @ DIRECTION, 1.0 / per_group


def slope_errors(features: pd.DataFrame, evaluation: pd.DataFrame, groups: pd.Series,
                 slopes=None) -> pd.DataFrame:
    """For each slope b, the intercept of fewest label errors of log λ = c +
    b·(2·log.sd − log.mean) and those errors (% of labels, mean of the groups' %).

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [0.0, 1.0], "log.mean": [0.0, 0.0]}, index=["a", "b"])
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 1.0, -np.inf, 3.0],
    ...     "max_log_lambda": [1.0, np.inf, 3.0, np.inf], "errors": [0, 1, 1, 0],
    ...     "labels": 1})  # a wants log λ < 1, b wants log λ >= 3
    >>> slope_errors(X, ev, pd.Series(["s", "t"], index=["a", "b"]), [0.0, 2.0])
       slope  intercept  errors_pct
    0    0.0        0.0        50.0
    1    2.0        0.0         0.0
    """
    ids, dispersion, weight = _dispersion_and_weights(features, evaluation, groups)
    n_groups = len(pd.unique(groups.reindex(ids).to_numpy()))
    ev, seq = _sorted_rows(evaluation, ids)
    sweep = _Sweep(ev, seq, weight)
    slopes = slope_grid() if slopes is None else np.asarray(slopes, float)
    rows = [sweep.best(b * dispersion) for b in slopes]
    return pd.DataFrame({"slope": slopes, "intercept": [c for c, _ in rows],
                         "errors_pct": [100.0 * e / n_groups for _, e in rows]})


def fit_dispersion_model(features: pd.DataFrame, evaluation: pd.DataFrame,
                         groups: pd.Series, *, smooth: float = SLOPE_SMOOTH) -> dict:
    """Slope and intercept of log λ = c + b·(2·log.sd − log.mean), fewest label errors
    with every group (data set) weighing the same.

    Parameters
    ----------
    features : DataFrame
        Indexed by sequence id, with the columns :data:`FEATURES` (finite).
    evaluation : DataFrame
        Error functions of those sequences (``errors`` column).
    groups : Series
        The data set of each sequence id.
    smooth : float
        The slope is the one of fewest errors averaged over b ± ``smooth``
        (:func:`smoothed_slope`; 0: of fewest errors); the intercept is the one of fewest
        errors at that slope.

    Returns
    -------
    dict
        ``coef`` (per feature of :data:`FEATURES`), ``intercept``, ``slope``,
        ``train_errors_pct`` (the set-weighted mean of per-set errors, %, at that slope
        and intercept), ``smooth``.

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [0.0, 1.0], "log.mean": [0.0, 0.0]}, index=["a", "b"])
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 1.0, -np.inf, 3.0],
    ...     "max_log_lambda": [1.0, np.inf, 3.0, np.inf], "errors": [0, 1, 0, 1],
    ...     "labels": 1})
    >>> fit = fit_dispersion_model(X, ev, pd.Series(["s", "t"], index=["a", "b"]))
    >>> fit["train_errors_pct"]
    0.0
    """
    if not (np.isfinite(smooth) and smooth >= 0):
        raise ValueError(f"smooth must be a finite number >= 0, got {smooth!r}")
    table = slope_errors(features, evaluation, groups)
    i = smoothed_slope(table["slope"].to_numpy(), table["errors_pct"].to_numpy(), smooth)
    b, c, e = (float(table[k].iloc[i]) for k in ("slope", "intercept", "errors_pct"))
    return {"coef": dict(zip(FEATURES, (b * DIRECTION).tolist())), "intercept": c,
            "slope": b, "train_errors_pct": e, "smooth": float(smooth)}


def label_errors_pct(evaluation: pd.DataFrame, log_lambda: pd.Series) -> float:
    """Label errors (% of all labels) of the sequences of ``log_lambda`` at those
    predicted log λ (the row of each error function holding it).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 1.0],
    ...     "max_log_lambda": [1.0, np.inf], "errors": [0, 1], "labels": [2, 2]})
    >>> label_errors_pct(ev, pd.Series([2.0], index=["a"]))
    50.0
    """
    ev = evaluation[evaluation["sequence_id"].isin(log_lambda.index)]
    p = log_lambda.reindex(ev["sequence_id"]).to_numpy(float)
    inside = (ev["min_log_lambda"].to_numpy(float) <= p) & (p < ev["max_log_lambda"].to_numpy(
        float))
    labels = ev.groupby("sequence_id", sort=False)["labels"].first().sum()
    return 100.0 * float(ev["errors"].to_numpy(float)[inside].sum()) / float(labels)


def model_data(fit: dict, features: pd.DataFrame, provenance: dict) -> dict:
    """The model file (JSON data of :class:`penlearn.PenaltyModel`, linear, clipped to the
    training range) of a :func:`fit_dispersion_model` result, with its ``provenance``.

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [0.0, 1.0], "log.mean": [0.0, 0.5]})
    >>> d = model_data({"coef": {"log.sd": 1.0, "log.mean": -0.5}, "intercept": 2.0}, X, {})
    >>> d["features"], d["coef"], d["scaling"]["high"]
    (['log.sd', 'log.mean'], [1.0, -0.5], [1.0, 0.5])
    """
    from penlearn.learn.model import FORMAT, FORMAT_VERSION, HISTORY_COLUMNS

    A = features.loc[:, list(FEATURES)].to_numpy(float)
    sd = A.std(axis=0, ddof=1) if len(A) > 1 else np.ones(len(FEATURES))
    return {
        "format": FORMAT, "version": FORMAT_VERSION, "kind": "penalty",
        "params": {"model": "linear", "clip": True},
        "features": list(FEATURES),
        "coef": [float(fit["coef"][f]) for f in FEATURES],
        "intercept": float(fit["intercept"]),
        "scaling": {"mean": A.mean(axis=0).tolist(),
                    "scale": np.where(sd > 0, sd, 1.0).tolist(),
                    "low": A.min(axis=0).tolist(), "high": A.max(axis=0).tolist()},
        "dropped_features": [], "feature_names_in": list(FEATURES), "best_step": 0,
        "history": {c: [0.0] for c in HISTORY_COLUMNS},
        "level": {"rule": "fewest label errors, every data set weighing the same"},
        "provenance": provenance,
    }


def mark_class(set_name: str) -> str | None:
    """``"narrow"`` or ``"broad"``: the mark class of a UCI ChIP-seq set, from the mark(s)
    before the first ``_`` of its name (``-`` joins the marks of a mixture, which is of a
    class when all its marks are); None for a mark of neither list.

    Examples
    --------
    >>> mark_class("H3K4me3_XJ_immune"), mark_class("H3K27ac-H3K4me3_TDHAM_BP")
    ('narrow', 'narrow')
    >>> mark_class("H3K36me3_TDH_other"), mark_class("neuroblastoma") is None
    ('broad', True)
    """
    marks = set(str(set_name).split("_")[0].split("-"))
    for name, known in (("narrow", NARROW_MARKS), ("broad", BROAD_MARKS)):
        if marks <= known:
            return name
    return None


def mark_intercept(features: pd.DataFrame, evaluation: pd.DataFrame, groups: pd.Series,
                   slope: float) -> float:
    """The intercept of fewest label errors of log λ = c + slope·(2·log.sd − log.mean) on
    these sequences, every group (data set) weighing the same: the level of one mark
    class at the slope learned on all sets.

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [0.5], "log.mean": [0.0]}, index=["w"])
    >>> ev = pd.DataFrame({"sequence_id": "w", "min_log_lambda": [-np.inf, 2.0, 4.0],
    ...     "max_log_lambda": [2.0, 4.0, np.inf], "errors": [1, 0, 1], "labels": 1})
    >>> mark_intercept(X, ev, pd.Series("s", index=["w"]), slope=1.0)  # c + 1 in [2, 4)
    2.0
    """
    ids, dispersion, weight = _dispersion_and_weights(features, evaluation, groups)
    c, _ = min_error_intercept(evaluation, pd.Series(slope * dispersion, index=ids),
                               pd.Series(weight, index=ids))
    return c


def leave_one_set_out(features: pd.DataFrame, evaluation: pd.DataFrame,
                      groups: pd.Series, *, marks: bool = False,
                      smooth: float = SLOPE_SMOOTH) -> pd.Series | pd.DataFrame:
    """Test label errors (%) of each set when the model is learned on the others.

    With ``marks``, a table of two columns: ``all_sets`` (as without it: the level of all
    the other sets) and ``mark``, the level its user picks by saying narrow or broad — a
    narrow-mark set (:func:`mark_class`) at the narrow level learned on the other narrow
    sets (:func:`mark_intercept`, at the slope learned on all the other sets), any other
    set at the level of all the other sets. ``smooth``: of :func:`fit_dispersion_model`.

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [0.0, 1.0, 0.5], "log.mean": 0.0}, index=list("abc"))
    >>> ev = pd.DataFrame({"sequence_id": list("aabbcc"),
    ...     "min_log_lambda": [-np.inf, 1.0] * 3, "max_log_lambda": [1.0, np.inf] * 3,
    ...     "errors": [0, 1] * 3, "labels": 1})
    >>> leave_one_set_out(X, ev, pd.Series(list("stu"), index=list("abc"))).tolist()
    [0.0, 0.0, 0.0]
    >>> g = pd.Series(["H3K4me3_a", "H3K4me3_b", "H3K36me3_c"], index=list("abc"))
    >>> leave_one_set_out(X, ev, g, marks=True)["mark"].tolist()
    [0.0, 0.0, 0.0]
    """
    rows = {}
    g = groups.reindex(features.index)
    narrow = np.array([mark_class(s) == "narrow" for s in g.to_numpy()])
    for s in pd.unique(g):
        train = features.index[g.to_numpy() != s]
        test = features.index[g.to_numpy() == s]
        fit = fit_dispersion_model(features.loc[train], evaluation, g.loc[train],
                                   smooth=smooth)
        A = features.loc[test, list(FEATURES)].to_numpy(float)
        low = features.loc[train, list(FEATURES)].to_numpy(float).min(axis=0)
        high = features.loc[train, list(FEATURES)].to_numpy(float).max(axis=0)
        A = np.clip(A, low, high)  # as the model predicts: clipped to its training range
        offset = A @ np.array([fit["coef"][f] for f in FEATURES])
        rows[s] = {"all_sets": label_errors_pct(
            evaluation, pd.Series(fit["intercept"] + offset, index=test))}
        if marks:
            same = features.index[(g.to_numpy() != s) & narrow]
            level = fit["intercept"]
            if mark_class(s) == "narrow" and len(same):
                level = mark_intercept(features.loc[same], evaluation, g.loc[same],
                                       fit["slope"])
            rows[s]["mark"] = label_errors_pct(evaluation,
                                               pd.Series(level + offset, index=test))
    table = pd.DataFrame.from_dict(rows, orient="index")
    if marks:
        return table
    return table["all_sets"].rename("label_errors_pct")
