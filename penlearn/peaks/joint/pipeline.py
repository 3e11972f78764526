"""The joint-peaks pipeline: single-sample peaks → joint windows → joint models → penalty
→ peaks × samples matrix.

PeakSegPipeline's multi-sample steps (Hocking & Bourque, "Machine learning algorithms for
simultaneous supervised detection of peaks in multiple samples and cell types", PSB
2020), with the exact joint model of :func:`penlearn.joint_peak` in place of
PeakSegJoint's heuristic (Hocking & Bourque, arXiv:1506.01286):

1. windows: clusters of overlapping single-sample peaks, widened
   (:func:`~penlearn.peaks.joint.windows.joint_windows`);
2. one joint fit per window, its models over log λ
   (:func:`~penlearn.peaks.joint.errors.joint_path`);
3. with labels, each window's error functions
   (:func:`~penlearn.peaks.joint.errors.joint_error_functions`), and the penalty
   learned by :func:`penlearn.learn_penalty` on window features (the 36 coverage
   features summed over the samples, as PeakSegPipeline does), or the best constant
   penalty when fewer than :data:`MIN_LEARN_WINDOWS` windows hold labels;
4. the model of each window at its log λ: the matrix, the summary, the peaks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.peaks.formats._label_text import expand_groups
from penlearn.peaks.joint.errors import joint_error_functions, joint_path, joint_selected
from penlearn.peaks.joint.windows import DEFAULT_WIDEN, joint_windows, window_coverage
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.peakseg.labels import check_labels_in_coverage, peak_label_errors

__all__ = ["MIN_LEARN_WINDOWS", "JointPeaks", "joint_features", "joint_peaks",
           "label_error_comparison", "learn_joint_penalty", "min_error_log_lambda"]

#: Fewer labeled windows than this: the joint penalty is the best constant (the log λ of
#: fewest train label errors), not a learned function of the window features. Below
#: about ten windows a learned model's subtrain / validation split holds a handful of
#: windows each, and the constant is all the labels can support.
MIN_LEARN_WINDOWS = 10


def joint_features(coverage: pd.DataFrame, windows: pd.DataFrame, *,
                   gaps: str = "fill") -> pd.DataFrame:
    """The features of each joint window: the 36 coverage features of each sample's
    coverage of the window (:func:`~penlearn.peaks.peakseg.features.coverage_features`),
    summed over the samples (as PeakSegPipeline does for its joint penalty).

    Parameters
    ----------
    coverage : DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count``.
    windows : DataFrame
        ``window_id, chrom, chromStart, chromEnd``.
    gaps : {"fill", "error"}
        Zero-coverage gaps, as for ``coverage_features``.

    Returns
    -------
    DataFrame
        Indexed by ``window_id`` (named ``sequence_id``), the 36 feature columns.

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1", "chromStart": 0,
    ...                     "chromEnd": 10, "count": [1, 3]})
    >>> win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [0],
    ...                     "chromEnd": [10]})
    >>> float(joint_features(cov, win).loc["w", "mean"])
    4.0
    """
    require_columns(windows, ["window_id", "chrom", "chromStart", "chromEnd"], "windows")
    samples = [str(s) for s in pd.unique(coverage["sample_id"])]
    win = windows[["window_id", "chrom", "chromStart", "chromEnd"]]
    per = pd.concat([win.assign(sample_id=s) for s in samples], ignore_index=True)
    per["sequence_id"] = per["sample_id"] + "\t" + per["window_id"].astype(str)
    cov = coverage[["sample_id", "chrom", "chromStart", "chromEnd", "count"]]
    if not pd.api.types.is_string_dtype(cov["sample_id"]):
        cov = cov.assign(sample_id=cov["sample_id"].astype(str))
    feats = coverage_features(cov, per, gaps=gaps)
    feats.index = per["window_id"].astype(str).to_numpy()
    out = feats.groupby(level=0, sort=False).sum()
    out.index.name = "sequence_id"
    return out


def min_error_log_lambda(evaluation: pd.DataFrame) -> float:
    """The constant log λ of fewest total label errors over the sequences of
    ``evaluation``: the middle of the first (lowest) run of log λ intervals of fewest
    errors, one unit inside it when it is unbounded (0 when no error function changes).

    Unlike :func:`penlearn.roc.best_constant_log_lambda` it needs no negative and no
    positive label (a few labeled windows may have neither).

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 2.0],
    ...     "max_log_lambda": [0.0, np.inf, 2.0, np.inf], "errors": [1, 0, 0, 1]})
    >>> min_error_log_lambda(ev)
    1.0
    """
    require_columns(evaluation, ["sequence_id", "min_log_lambda", "max_log_lambda",
                                 "errors"], "evaluation")
    lo = evaluation["min_log_lambda"].to_numpy(float)
    cuts = np.unique(lo[np.isfinite(lo)])
    if len(cuts) == 0:
        return 0.0
    points = np.r_[cuts[0] - 1.0, (cuts[:-1] + cuts[1:]) / 2.0, cuts[-1] + 1.0]
    total = np.zeros(len(points))
    for _, g in evaluation.groupby("sequence_id", sort=False):
        glo = g["min_log_lambda"].to_numpy(float)
        ghi = g["max_log_lambda"].to_numpy(float)
        err = g["errors"].to_numpy(float)
        for i, v in enumerate(points):
            hit = (glo < v) & (v <= ghi)
            total[i] += err[hit][0] if hit.any() else 0.0
    best = np.flatnonzero(total == total.min())
    first = int(best[0])
    last = first
    while last + 1 < len(points) and total[last + 1] == total[first]:
        last += 1
    edges = np.r_[-np.inf, cuts, np.inf]  # interval i is (edges[i], edges[i+1]]
    a, b = edges[first], edges[last + 1]
    if np.isfinite(a) and np.isfinite(b):
        return float((a + b) / 2.0)
    return float(b - 1.0) if np.isfinite(b) else float(a + 1.0)


def learn_joint_penalty(features: pd.DataFrame, evaluation: pd.DataFrame, *,
                        min_windows: int = MIN_LEARN_WINDOWS, **options):
    """The joint penalty from the labeled windows: learned, or the best constant.

    Parameters
    ----------
    features : DataFrame
        Window features (:func:`joint_features`), indexed by window id.
    evaluation : DataFrame
        The labeled windows' error functions.
    min_windows : int
        With fewer labeled windows, the best constant log λ (fewest train label errors,
        :func:`min_error_log_lambda`) instead of a learned model.
    **options
        Passed to :func:`penlearn.learn_penalty`.

    Returns
    -------
    model : PenaltyModel or None
        The learned model, None for the constant.
    constant : float or None
        The constant log λ, None for a learned model.
    note : str
        What was done and why, one sentence.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["w", "w"], "min_log_lambda": [-np.inf, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "errors": [0, 1]})
    >>> model, c, note = learn_joint_penalty(pd.DataFrame(index=["w"]), ev)
    >>> model is None, c
    (True, 1.0)
    """
    ids = list(pd.unique(evaluation["sequence_id"]))
    if len(ids) < min_windows:
        c = min_error_log_lambda(evaluation)
        return None, c, (f"constant penalty log λ = {c:.4g}: only {len(ids)} labeled "
                         f"window(s), fewer than {min_windows} needed to learn a function "
                         "of the window features (train errors)")
    options.setdefault("progress", False)
    model = learn_penalty(features.loc[ids], evaluation, **options)
    model.task_ = "joint"  # recorded in its file: no single-sample use
    return model, None, f"penalty learned on {len(ids)} labeled windows ({model!r})"


@dataclass
class JointPeaks:
    """Result of :func:`joint_peaks`.

    Attributes
    ----------
    windows : DataFrame
        The joint windows (:data:`~penlearn.peaks.joint.windows.WINDOW_COLUMNS`) and,
        per window, ``log_lambda`` and the chosen model's ``k``.
    paths : dict
        ``window_id -> joint_path`` table (every model selected by some penalty).
    calls : DataFrame
        One row per window: the chosen model (its path row) and ``window_id, chrom,
        log_lambda``.
    samples : list
        Sample ids in coverage order.
    groups : dict
        ``sample_id -> group`` (each sample its own group when none were given).
    evaluation : DataFrame or None
        The labeled windows' error functions (with labels).
    features : DataFrame or None
        Window features (when a model was used or learned).
    model : PenaltyModel or None
        The penalty model used or learned.
    note : str
        How the penalty was chosen.
    labels : DataFrame or None
        The labels per sample, checked (text-format groups expanded).
    fits : dict
        ``window_id -> joint fit`` (the solver's results).

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": ["a"] * 3 + ["b"] * 3, "chrom": "chr1",
    ...                     "chromStart": [0, 10, 20] * 2, "chromEnd": [10, 20, 30] * 2,
    ...                     "count": [1, 9, 1, 1, 8, 1]})
    >>> peaks = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1",
    ...                       "chromStart": [10, 12], "chromEnd": [20, 20]})
    >>> res = joint_peaks(cov, peaks, penalty=1.0, groups={"a": "x", "b": "x"})
    >>> res.summary()[["chromStart", "chromEnd", "samples_up", "groups_up"]].values.tolist()
    [[10, 20, 2, 1]]
    """

    windows: pd.DataFrame
    paths: dict
    calls: pd.DataFrame
    samples: list
    groups: dict
    evaluation: pd.DataFrame | None = None
    features: pd.DataFrame | None = None
    model: PenaltyModel | None = None
    note: str = ""
    labels: pd.DataFrame | None = None
    fits: dict = field(default_factory=dict)

    @property
    def peaks(self) -> pd.DataFrame:
        """Windows with a peak: ``chrom, chromStart, chromEnd`` of the joint peak, the
        window, ``samples_up, groups_up, loss_decrease, up``, sorted by position."""
        up = self.calls[self.calls["k"] > 0]
        return up.sort_values(["chrom", "chromStart"], kind="stable").reset_index(drop=True)

    def matrix(self, by: str = "sample") -> pd.DataFrame:
        """The peaks × samples (``by="sample"``) or × groups 0/1 matrix: ``chrom,
        chromStart, chromEnd`` then one column per sample (group); a group is 1 when one
        of its samples carries the peak."""
        pk = self.peaks
        out = pk[["chrom", "chromStart", "chromEnd"]].copy()
        cols = self.samples if by == "sample" else list(dict.fromkeys(self.groups.values()))
        for c in cols:
            if by == "sample":
                hit = [c in up for up in pk["up"]]
            else:
                hit = [any(self.groups[s] == c for s in up) for up in pk["up"]]
            out[c] = np.asarray(hit, dtype=np.int64)
        return out

    def summary(self) -> pd.DataFrame:
        """``chrom, chromStart, chromEnd, samples_up, groups_up, loss_decrease`` per
        joint peak, then its window and log λ."""
        pk = self.peaks
        return pd.DataFrame({"chrom": pk["chrom"], "chromStart": pk["chromStart"],
                             "chromEnd": pk["chromEnd"], "samples_up": pk["samples_up"],
                             "groups_up": pk["groups_up"],
                             "loss_decrease": pk["loss_decrease"],
                             "window_id": pk["window_id"], "log_lambda": pk["log_lambda"]})

    def sample_peaks(self) -> pd.DataFrame:
        """The joint peaks as single-sample peaks: ``sample_id, chrom, chromStart,
        chromEnd``, one row per (peak, sample up)."""
        rows = [(s, r.chrom, int(r.chromStart), int(r.chromEnd))
                for r in self.peaks.itertuples(index=False) for s in r.up]
        return pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd"]
                            ).astype({"chromStart": np.int64, "chromEnd": np.int64})


def _groups_of(coverage: pd.DataFrame, samples: list, groups) -> tuple[dict, bool]:
    """``sample_id -> group`` from a mapping, a table ``sample_id, group`` or a coverage
    column name; each sample its own group when ``groups`` is None."""
    if groups is None:
        return {s: s for s in samples}, False
    if isinstance(groups, str):
        require_columns(coverage, [groups], "coverage")
        per = coverage[["sample_id", groups]].drop_duplicates()
        per = pd.DataFrame({"sample_id": per["sample_id"].astype(str),
                            "group": per[groups].astype(str)})
        dup = per["sample_id"].duplicated()
        if dup.any():
            raise ValueError(f"coverage column {groups!r} must hold one group per sample; "
                             f"sample {per['sample_id'][dup].iloc[0]!r} has several")
    elif isinstance(groups, pd.DataFrame):
        require_columns(groups, ["sample_id", "group"], "groups")
        per = pd.DataFrame({"sample_id": groups["sample_id"].astype(str),
                            "group": groups["group"].astype(str)})
    elif isinstance(groups, Mapping):
        per = pd.DataFrame({"sample_id": [str(k) for k in groups],
                            "group": [str(v) for v in groups.values()]})
    else:
        raise TypeError("groups must be a coverage column name, a mapping sample_id -> "
                        f"group or a DataFrame sample_id, group; got {type(groups).__name__}")
    mapping = dict(zip(per["sample_id"], per["group"]))
    missing = [s for s in samples if s not in mapping]
    if missing:
        raise ValueError(f"groups: sample {missing[0]!r} of the coverage has no group")
    extra = [s for s in mapping if s not in set(samples)]
    if extra:
        raise ValueError(f"groups: sample {extra[0]!r} is not a sample of the coverage")
    return {s: mapping[s] for s in samples}, True


def _labels_of(coverage: pd.DataFrame, labels: pd.DataFrame, groups: dict) -> pd.DataFrame:
    """Per-sample labels, checked: text-format labels listing groups or samples are
    expanded (unlisted samples get noPeaks), unknown samples / groups, overlaps and
    labels beyond the coverage are errors."""
    if "groups" in labels.columns and "sample_id" not in labels.columns:
        labels = expand_groups(labels, groups)
    if "sample_id" not in labels.columns:
        labels = pd.concat([labels.assign(sample_id=s) for s in groups], ignore_index=True)
    labels = labels.assign(sample_id=labels["sample_id"].astype(str))
    check_labels_in_coverage(coverage, labels)  # unknown sample, overlap, beyond coverage
    return labels


def joint_peaks(coverage: pd.DataFrame, peaks: pd.DataFrame, *,
                labels: pd.DataFrame | None = None, groups=None,
                widen: float = DEFAULT_WIDEN, penalty: float | None = None,
                model: PenaltyModel | None = None, by: str = "sample",
                min_windows: int = MIN_LEARN_WINDOWS, gaps: str = "fill",
                solver: Callable | None = None, learn_options: dict | None = None,
                progress: bool = False) -> JointPeaks:
    """Joint peaks of many samples from their coverage and single-sample peaks.

    Parameters
    ----------
    coverage : DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count`` of every sample (e.g.
        :func:`penlearn.read_coverage`).
    peaks : DataFrame
        ``sample_id, chrom, chromStart, chromEnd``: single-sample peaks (e.g. ``penlearn
        peaks`` output read by :func:`~penlearn.peaks.joint.windows.read_peaks_folder`).
    labels : DataFrame, optional
        Peak labels (:func:`penlearn.read_peak_labels`: with ``sample_id``, without it
        for every sample, or the text format's ``groups``). Without ``penalty`` and
        ``model`` the penalty is learned from them; they must then hold at least one
        window. A window's error functions count the labels that overlap it, against
        that window's peak only (a label across two windows counts in both); the label
        errors of :func:`label_error_comparison` count every label once, against all
        joint peaks.
    groups : str, mapping or DataFrame, optional
        Sample groups (cell types): a coverage column name (e.g. ``"cell_type"``), a
        mapping ``sample_id -> group`` or a table ``sample_id, group``.
    widen : float
        Widening of each cluster (:func:`~penlearn.peaks.joint.windows.joint_windows`).
    penalty : float, optional
        λ of every window (>= 0).
    model : PenaltyModel, optional
        A model of log λ from window features (:func:`joint_features`), e.g. from an
        earlier run with labels.
    by : {"sample", "group"}
        Choose the number of samples up, or of groups up (all samples of a group up
        together; needs ``groups``).
    min_windows : int
        See :func:`learn_joint_penalty`.
    gaps : {"fill", "error"}
        Zero-coverage gaps.
    solver : callable, optional
        The joint model of one window (default :func:`penlearn.joint_peak`).
    learn_options : dict, optional
        Passed to :func:`penlearn.learn_penalty`.
    progress : bool
        Show a progress bar over the windows.

    Returns
    -------
    JointPeaks

    Examples
    --------
    >>> rows = []
    >>> for s, inside in (("a", 9), ("b", 1)):
    ...     rows += [(s, "chr1", 0, 10, 1), (s, "chr1", 10, 20, inside), (s, "chr1", 20, 30, 1)]
    >>> cov = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd",
    ...                                   "count"])
    >>> peaks = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [10],
    ...                       "chromEnd": [20]})
    >>> res = joint_peaks(cov, peaks, penalty=1.0)
    >>> res.matrix().values.tolist()
    [['chr1', 10, 20, 1, 0]]

    Raises
    ------
    ValueError
        On bad inputs, with one line: no peaks (no clusters), peaks of a sample the
        coverage lacks, a sample not covering a window, overlapping labels, labels of
        unknown samples or groups, both or neither of ``penalty`` / ``model`` / labels.
    """
    from tqdm.auto import tqdm

    if solver is None:
        from penlearn.peaks.joint.solver import joint_peak as solver
    if penalty is not None and model is not None:
        raise ValueError("give at most one of penalty and model")
    if penalty is None and model is None and labels is None:
        raise ValueError("give a penalty, a model, or labels to learn the penalty from")
    if penalty is not None and (isinstance(penalty, (bool, np.bool_))
                                or not isinstance(penalty, (int, float, np.number))
                                or not penalty >= 0):
        raise ValueError(f"penalty must be a number >= 0, got {penalty!r}")
    if by not in ("sample", "group"):
        raise ValueError(f"by must be 'sample' or 'group', got {by!r}")
    require_columns(coverage, ["sample_id", "chrom", "chromStart", "chromEnd", "count"],
                    "coverage")
    require_columns(peaks, ["sample_id", "chrom", "chromStart", "chromEnd"], "peaks")
    samples = [str(s) for s in pd.unique(coverage["sample_id"])]
    unknown = sorted(set(peaks["sample_id"].astype(str)) - set(samples))
    if unknown:
        raise ValueError(f"peaks of sample {unknown[0]!r}, which the coverage does not have "
                         f"(coverage samples: {', '.join(samples[:8])})")
    group_of, has_groups = _groups_of(coverage, samples, groups)
    if by == "group" and not has_groups:
        raise ValueError("by='group' needs groups")
    lab = None if labels is None else _labels_of(coverage, labels, group_of)
    windows = joint_windows(peaks.assign(sample_id=peaks["sample_id"].astype(str)),
                            coverage, widen=widen)
    paths, fits = {}, {}
    bar = tqdm(total=len(windows), disable=not progress, desc="joint windows")
    for wid, window in window_coverage(coverage, windows,
                                       groups=group_of if has_groups else None, gaps=gaps):
        fit = solver(window)
        fits[wid] = fit
        paths[wid] = joint_path(fit, by=by, groups=group_of)
        bar.update()
    bar.close()
    evaluation = None
    if lab is not None:
        parts = []
        for w in windows.itertuples(index=False):
            inside = lab[(lab["chrom"].astype(str) == w.chrom)
                         & (lab["chromStart"] < w.chromEnd) & (lab["chromEnd"] > w.chromStart)]
            if len(inside):
                parts.append(joint_error_functions(paths[w.window_id], inside,
                                                   sequence_id=w.window_id))
        evaluation = pd.concat(parts, ignore_index=True) if parts else None
    features, note = None, ""
    if penalty is not None:
        value = math.log(penalty) if penalty > 0 else -math.inf
        log_lambda = pd.Series(value, index=windows["window_id"])
        note = f"penalty λ = {penalty:g} given (log λ = {value:.4g})"
    else:
        features = joint_features(coverage, windows, gaps=gaps)
        if model is None:
            if evaluation is None:
                raise ValueError("no label lies in a joint window: the labels cannot choose "
                                 "the penalty (give --penalty or --model)")
            model, c, note = learn_joint_penalty(features, evaluation, min_windows=min_windows,
                                                 **(learn_options or {}))
        else:
            c, note = None, "penalty predicted by the given model"
        log_lambda = (pd.Series(c, index=features.index) if model is None
                      else pd.Series(model.predict(features), index=features.index))
    rows = []
    for w in windows.itertuples(index=False):
        v = float(log_lambda.loc[w.window_id])
        row = joint_selected(paths[w.window_id], v)
        rows.append({"window_id": w.window_id, "chrom": w.chrom, "log_lambda": v,
                     **row.to_dict()})
    calls = pd.DataFrame(rows)
    windows = windows.assign(log_lambda=calls["log_lambda"].to_numpy(),
                             k=calls["k"].to_numpy())
    return JointPeaks(windows=windows, paths=paths, calls=calls, samples=samples,
                      groups=group_of, evaluation=evaluation, features=features, model=model,
                      note=note, labels=lab, fits=fits)


def label_error_comparison(single: pd.DataFrame, joint: pd.DataFrame,
                           labels: pd.DataFrame) -> pd.DataFrame:
    """Per label, the status of single-sample and joint peaks (``single``, ``joint``).

    Both peak tables are ``sample_id, chrom, chromStart, chromEnd``; labels per sample
    (as :func:`joint_peaks` checked them). Labels outside every joint window count with
    no joint peak.

    Examples
    --------
    >>> lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["c"], "chromStart": [0],
    ...                     "chromEnd": [10], "annotation": ["peaks"]})
    >>> pk = pd.DataFrame({"sample_id": ["a"], "chrom": ["c"], "chromStart": [5],
    ...                    "chromEnd": [8]})
    >>> label_error_comparison(pk, pk.iloc[:0], lab)[["single", "joint"]].values.tolist()
    [['correct', 'false negative']]
    """
    s = peak_label_errors(single, labels).label_errors
    j = peak_label_errors(joint, labels).label_errors
    out = s[["sample_id", "chrom", "chromStart", "chromEnd", "annotation"]].copy()
    out["single"] = s["status"].to_numpy()
    out["joint"] = j["status"].to_numpy()
    return out
