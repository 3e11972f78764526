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
import os
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, text_ids
from penlearn._repr import compact_repr
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.peaks.formats._label_text import check_sample_groups, expand_groups
from penlearn.peaks.joint._windows_solved import _sample_window_features, solve_windows
from penlearn.peaks.joint.comparison import label_error_comparison
from penlearn.peaks.joint.errors import joint_error_functions, joint_selected
from penlearn.peaks.joint.solver import warm as warm_joint
from penlearn.peaks.joint.windows import (
    DEFAULT_WIDEN,
    coverage_spans,
    iter_window_tables,
    joint_windows,
    window_coverage,
)
from penlearn.peaks.peakseg.labels import check_labels_in_coverage
from penlearn.peaks.peakseg.penalty import log_penalty_of
from penlearn.roc import best_constant_log_lambda

__all__ = ["MIN_LEARN_WINDOWS", "JointPeaks", "joint_features", "joint_peaks",
           "label_error_comparison", "learn_joint_penalty", "min_error_log_lambda",
           "shipped_log_lambda"]

#: Fewer labeled windows than this: the joint penalty is the best constant (the log λ of
#: fewest train label errors), not a learned function of the window features. Below
#: about ten windows a learned model's subtrain / validation split holds a handful of
#: windows each, and the constant is all the labels can support.
MIN_LEARN_WINDOWS = 10

#: The constant log λ of fewest total label errors: the package's one best-constant rule
#: (the name this module has exported since the joint pipeline was written).
min_error_log_lambda = best_constant_log_lambda


def joint_features(coverage: pd.DataFrame, windows: pd.DataFrame, *,
                   gaps: str = "fill") -> pd.DataFrame:
    """The features of each joint window: the 36 coverage features of each sample's
    coverage of the window (:func:`~penlearn.peaks.peakseg.features.coverage_features`;
    bases a sample has no row for are zeros, as in the joint model), summed over the
    samples (as PeakSegPipeline does for its joint penalty).

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
    coverage = text_ids(coverage, "coverage")
    return _window_features(list(window_coverage(coverage, windows, gaps=gaps)), windows,
                            gaps)


def _window_features(tables: list, windows: pd.DataFrame, gaps: str, per=None) -> pd.DataFrame:
    """:func:`joint_features` of the windows' coverage tables (:func:`window_coverage`:
    every sample over all of each window, bases without rows as zeros; ``per``: their
    :func:`_sample_window_features`, made once)."""
    feats, window_ids = per or _sample_window_features(tables, windows, gaps)
    out = feats.groupby(window_ids, sort=False).sum()
    out.index.name = "sequence_id"
    return out


def shipped_log_lambda(tables: list, windows: pd.DataFrame, gaps: str = "fill", *,
                       per: tuple | None = None) -> tuple[pd.Series, str]:
    """The joint penalty without a penalty, model or labels: the shipped zero-label model
    (:mod:`penlearn.peaks.pretrained`, as ``penlearn peaks`` uses it) on each sample's
    coverage of each window, its log λ averaged over the window's samples (λ is the cost
    of each sample up, as of each single-sample peak; ``per``: the (sample, window)
    features made already). Returns (log λ by window id, the note saying so).

    Examples
    --------
    >>> import warnings
    >>> cov = pd.DataFrame({"sample_id": list("xyz"), "chrom": "chr2", "chromStart": 5,
    ...                     "chromEnd": 25, "count": [2, 4, 8]})
    >>> w = pd.DataFrame({"window_id": ["p"], "chrom": ["chr2"], "chromStart": [5],
    ...                   "chromEnd": [25]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # (20 bases: features clipped to the model's)
    ...     ll, note = shipped_log_lambda(list(window_coverage(cov, w)), w)
    >>> ll.index.tolist(), note.startswith("penalty of the shipped zero-label")
    (['p'], True)
    """
    import warnings

    from penlearn.peaks.pretrained import ZeroLabelModel

    zero = ZeroLabelModel("narrow")
    feats, window_ids = per or _sample_window_features(tables, windows, gaps)
    with warnings.catch_warnings():  # (joint windows are short by design: said below)
        warnings.filterwarnings("ignore", message=".*shorter than the shortest window")
        ll = zero.predict(feats).to_numpy()
    log_lambda = pd.Series(ll).groupby(window_ids, sort=False).mean().reindex(
        windows["window_id"].astype(str))
    note = (f"penalty of {zero.notice()}: each window's log λ the mean over its "
            "samples of the model's log λ of their coverage there, as penlearn peaks "
            "predicts a window (narrow-mark level; windows shorter than the model's "
            "shortest lowered as peaks lowers them)")
    return log_lambda, note


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
        :func:`penlearn.roc.best_constant_log_lambda`) instead of a learned model.
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
        c = best_constant_log_lambda(evaluation)
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
        ``window_id -> joint fit`` (the solver's results) of the windows solved in this
        call (with ``parts``, not those taken back from an interrupted run).
    reused : int
        Windows whose models were taken from ``parts`` instead of solved.

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
    reused: int = 0

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
    if isinstance(groups, str) and not isinstance(coverage, pd.DataFrame):
        raise ValueError(f"groups: the coverage column {groups!r} needs the coverage as "
                         "one table (coverage read a chromosome at a time has none)")
    if isinstance(groups, str):
        require_columns(coverage, [groups], "coverage")
        per = pd.DataFrame({"sample_id": coverage["sample_id"].astype(str),
                            "group": coverage[groups]})
        where = f"coverage column {groups!r}"
    elif isinstance(groups, pd.DataFrame):
        per, where = groups, "groups"
    elif isinstance(groups, Mapping):
        per = pd.DataFrame({"sample_id": [str(k) for k in groups],
                            "group": list(groups.values())})
        where = "groups"
    else:
        raise TypeError("groups must be a coverage column name, a mapping sample_id -> "
                        f"group or a DataFrame sample_id, group; got {type(groups).__name__}")
    per = check_sample_groups(per, where)  # blanks, one sample under two groups
    mapping = dict(zip(per["sample_id"], per["group"]))
    missing = [s for s in samples if s not in mapping]
    if missing:
        raise ValueError(f"groups: sample {missing[0]!r} of the coverage has no group")
    extra = [s for s in mapping if s not in set(samples)]
    if extra:
        raise ValueError(f"groups: sample {extra[0]!r} is not a sample of the coverage")
    return {s: mapping[s] for s in samples}, True


def _labels_of(spans: pd.DataFrame, labels: pd.DataFrame, groups: dict) -> pd.DataFrame:
    """Per-sample labels, checked: text-format labels listing groups or samples are
    expanded (unlisted samples get noPeaks), unknown samples / groups, overlaps and
    labels beyond the coverage are errors. The coverage of a sample on a chromosome is
    that of all samples (bases without rows are zeros, as in the windows); ``spans``:
    the coverage's :func:`~penlearn.peaks.joint.windows.coverage_spans`."""
    if "groups" in labels.columns and "sample_id" not in labels.columns:
        labels = expand_groups(labels, groups)
    if "sample_id" not in labels.columns:
        labels = pd.concat([labels.assign(sample_id=s) for s in groups], ignore_index=True)
    labels = labels.assign(sample_id=labels["sample_id"].astype(str))
    extent = spans.groupby(spans["chrom"].astype(str), sort=False).agg(
        chromStart=("first", "min"), chromEnd=("last", "max")).reset_index()
    every = pd.concat([extent.assign(sample_id=s) for s in groups], ignore_index=True)
    check_labels_in_coverage(every, labels)  # unknown sample, overlap, beyond coverage
    return labels


def joint_peaks(coverage: pd.DataFrame, peaks: pd.DataFrame, *,
                labels: pd.DataFrame | None = None, groups=None,
                widen: float = DEFAULT_WIDEN, penalty: float | None = None,
                log_penalty: float | None = None, model: PenaltyModel | None = None,
                by: str = "sample",
                min_windows: int = MIN_LEARN_WINDOWS, gaps: str = "fill",
                solver: Callable | None = None, learn_options: dict | None = None,
                executor: Executor | None = None, parts: str | os.PathLike | None = None,
                progress: bool = False, keep_fits: bool = True) -> JointPeaks:
    """Joint peaks of many samples from their coverage and single-sample peaks.

    Parameters
    ----------
    coverage : DataFrame or source
        ``sample_id, chrom, chromStart, chromEnd, count`` of every sample (e.g.
        :func:`penlearn.read_coverage`), or (the same result, one chromosome in memory)
        a source with ``samples``, ``spans_table()`` (:func:`~penlearn.peaks.joint.
        windows.coverage_spans`) and ``sample_table(chrom, sample)`` (one sample's rows
        there, or None).
    peaks : DataFrame
        ``sample_id, chrom, chromStart, chromEnd``: single-sample peaks (e.g. ``penlearn
        peaks`` output read by :func:`~penlearn.peaks.formats.peak_files.read_peak_files`).
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
        λ of every window (>= 0), checked as every peak function checks it
        (:func:`~penlearn.peaks.peakseg.penalty.log_penalty_of`: not finite, or beyond
        e^50, is an error naming the unit). Without ``penalty``, ``log_penalty``, ``model``
        and ``labels``: the shipped zero-label model's (:func:`shipped_log_lambda`), as
        ``penlearn peaks``.
    log_penalty : float, optional
        log λ of every window (natural log) instead of ``penalty``.
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
    executor : concurrent.futures.Executor, optional
        One task per window (its joint fit and path): e.g. a process pool or a Dask
        cluster's ``distributed.Client(...).get_executor()``, as for
        :func:`~penlearn.peaks.peakseg.evaluation.predict_peaks`. Default: this process.
        The result is the same.
    parts : path, optional
        A folder where each window's path (:func:`~penlearn.peaks.joint.errors.joint_path`)
        is saved as soon as it is solved, under a key of the window's coverage rows, the
        samples' groups, ``by`` and the solver (:mod:`penlearn.peaks.peakseg.parts`); a
        later call takes back every window whose key is unchanged (an interrupted run
        continues where it stopped; the penalty is not in the key, so another penalty
        reuses every window). ``fits`` then holds the windows solved in this call only.
    progress : bool
        Show a progress bar over the windows.
    keep_fits : bool
        Keep each window's fit in ``fits`` (False: none, ~20 kB a window less).

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
        unknown samples or groups, both ``penalty`` and ``model``.
    """
    if solver is None:
        from penlearn.peaks.joint.solver import joint_peak as solver
    for value, what in ((penalty, "penalty"), (log_penalty, "log_penalty")):
        if isinstance(value, pd.Series):
            raise TypeError(f"{what} must be one number (every window's), got a Series")
    given = log_penalty_of(penalty, log_penalty)  # the one penalty check of peaks and joint
    if given is not None and model is not None:
        raise ValueError("give at most one of penalty / log_penalty and model")
    if by not in ("sample", "group"):
        raise ValueError(f"by must be 'sample' or 'group', got {by!r}")
    whole = isinstance(coverage, pd.DataFrame)  # else read a chromosome at a time
    if whole:
        require_columns(coverage, ["sample_id", "chrom", "chromStart", "chromEnd",
                                   "count"], "coverage")
    require_columns(peaks, ["sample_id", "chrom", "chromStart", "chromEnd"], "peaks")
    # sample ids are strings throughout: 1 and "1" are one sample, not two
    coverage, peaks = text_ids(coverage, "coverage") if whole else coverage, text_ids(
        peaks, "peaks")
    samples = [str(s) for s in (pd.unique(coverage["sample_id"]) if whole else
                                coverage.samples)]
    spans = coverage_spans(coverage) if whole else coverage.spans_table()
    unknown = sorted(set(peaks["sample_id"].astype(str)) - set(samples))
    if unknown:
        raise ValueError(f"peaks of sample {unknown[0]!r}, which the coverage does not have "
                         f"(coverage samples: {', '.join(samples[:8])})")
    group_of, has_groups = _groups_of(coverage, samples, groups)
    if by == "group" and not has_groups:
        raise ValueError("by='group' needs groups")
    lab = None if labels is None else _labels_of(spans, labels, group_of)
    windows = joint_windows(peaks, widen=widen, spans=spans)
    # cut a chunk of windows at a time, solved and described, then dropped
    tables = iter_window_tables(coverage, windows, samples, gaps=gaps,
                                groups=group_of if has_groups else None)
    if progress and len(windows):
        warm_joint()  # compile before the bar starts: no silent minute, no ETA of hours
    paths, fits, reused, per = solve_windows(
        tables, windows, solver, by=by, groups=group_of, executor=executor, parts=parts,
        progress=progress, keep_fits=keep_fits, features=given is None, gaps=gaps)
    del tables
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
    if given is not None:
        log_lambda = pd.Series(given, index=windows["window_id"])
        note = f"penalty λ = {math.exp(given):.4g} given (log λ = {given:.4g})"
    else:
        features = _window_features([], windows, gaps, per)  # (per: made once)
        if model is None and labels is None:  # as penlearn peaks: the shipped model
            log_lambda, note = shipped_log_lambda([], windows, gaps, per=per)
        elif model is None:
            if evaluation is None:
                raise ValueError("no label lies in a joint window: the labels cannot choose "
                                 "the penalty (give --penalty or --model)")
            model, c, note = learn_joint_penalty(features, evaluation, min_windows=min_windows,
                                                 **(learn_options or {}))
        else:
            c, note = None, "penalty predicted by the given model"
        if model is not None or labels is not None:
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
                      note=note, labels=lab, fits=fits, reused=reused)


JointPeaks.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
