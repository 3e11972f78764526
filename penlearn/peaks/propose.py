"""``propose_windows``: the next windows worth labeling, from coverage or a UCI set.

The front end of :mod:`penlearn.learn.propose` (the rule, on features and paths): it
cuts coverage into windows like the shipped model's training windows
(:func:`penlearn.peaks.pretrained.default_windows`), predicts each window's log λ with
the prior model (the shipped zero-label model by default), gets each window's path and
the labeled windows' error functions, and proposes. On a labeled UCI set
(:class:`penlearn.UCIDataSet`: ``inputs`` and ``evaluation``) the evaluation rows'
bounds are the paths; only the rows of the windows given as labeled are read with their
errors.

On coverage, a window's full path would cost a few dozen PeakSeg solves; the proposal
only needs where its model changes among the likely shifts, so each window is solved at
:data:`PATH_POINTS` log λ spread over them (the shifts' 5–95 % quantiles) and its peak
counts there stand for its path (a drop of c peaks between two of them: c changes,
evenly between them: :func:`sketch_paths`, which the labeling page's "Next" sketches
with too, :mod:`penlearn.label.proposals`). The labeled windows get their exact
(bounded) paths and errors (:func:`penlearn.peaks.peakseg.evaluation.peak_error_functions`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd

from penlearn.fitting.model_file import check_model_task
from penlearn.learn.level_shift import likely_shifts
from penlearn.learn.model import PenaltyModel
from penlearn.learn.propose import PATH_COLUMNS, propose_from_paths

__all__ = ["PATH_POINTS", "coverage_paths", "coverage_sequences", "propose_windows", "sketch_paths",
           "sketch_shifts"]

#: log λ per window at which coverage windows are solved to sketch their paths.
PATH_POINTS = 5


def _prior(model, task: str | None):
    """The prior model: the zero-label model (None: :func:`penlearn.shipped_model`, the
    log λ of ``penlearn peaks`` and the labeling page; or one given), a PenaltyModel or a
    model file, of ``task`` (a model of another task is refused: its features mean other
    things)."""
    from penlearn.peaks.pretrained import ZeroLabelModel

    if model is None:
        return ZeroLabelModel("narrow")
    if isinstance(model, ZeroLabelModel):
        return model
    if isinstance(model, PenaltyModel):
        check_model_task(getattr(model, "task_", None), task, "model")
        return model
    if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
        return PenaltyModel.load(model, task=task)
    raise TypeError(f"model must be a PenaltyModel, a model file path or None, got "
                    f"{type(model).__name__}")


def _nothing_left(what: str) -> pd.DataFrame:
    """No window left to propose: said (a warning), and an empty table."""
    warnings.warn(f"every {what} holds a label: no window left to propose", UserWarning,
                  stacklevel=3)
    return pd.DataFrame(columns=["sequence_id", "score", "changes", "reason"])


def _predict(model, features: pd.DataFrame) -> pd.Series:
    """log λ of each window: a PenaltyModel's, or the zero-label model's (its level and
    short-window shift, as ``penlearn peaks`` and the labeling page predict)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clipped features: the proposal only ranks windows
        return pd.Series(model.predict(features), index=features.index, name="log_lambda")


def _from_uci(data, n: int, labeled, model: PenaltyModel, random_state) -> pd.DataFrame:
    features, evaluation = data.inputs, data.evaluation
    if features is None:
        raise ValueError(f"data set {getattr(data, 'name', '')!r} has no inputs (features): "
                         "the prior model needs them")
    if isinstance(labeled, (str, bytes)):
        labeled = [labeled]
    labeled = list(pd.unique(pd.Series(list(labeled), dtype=object)))
    unknown = [i for i in labeled if i not in features.index]
    if unknown:
        raise ValueError(f"labeled: {unknown[0]!r} is no sequence id of the data set "
                         f"(e.g. {features.index[0]!r})")
    if set(features.index) <= set(labeled):
        return _nothing_left("sequence of the data set")
    log_lambda = _predict(model, features)
    paths = evaluation.loc[:, list(PATH_COLUMNS)]  # the bounds only: never the errors
    paths = paths[paths["sequence_id"].isin(features.index)]
    lab = evaluation[evaluation["sequence_id"].isin(labeled)]
    return propose_from_paths(paths, log_lambda, n, labeled=lab, exclude=labeled,
                              random_state=random_state)


def sketch_paths(points: pd.DataFrame) -> pd.DataFrame:
    """Path rows from a few solves of each window: its peak counts at some log λ, with
    the changes where the counts drop (a drop of c peaks between two solved log λ:
    c changes, evenly between them).

    The one place that turns (log λ, peak count) points into a sketched path
    (:func:`coverage_paths`; the labeling page's "Next",
    :mod:`penlearn.label.proposals`).

    Parameters
    ----------
    points : DataFrame
        ``sequence_id, log_lambda, peaks``: one row per solve (any order; a log λ solved
        twice counts once). Peak counts do not increase with log λ (exact solves).

    Returns
    -------
    DataFrame
        ``sequence_id, min_log_lambda, max_log_lambda, peaks``, windows in the order of
        their first point, rows from log λ −inf up to +inf.

    Examples
    --------
    >>> pts = pd.DataFrame({"sequence_id": "a", "log_lambda": [0.0, 3.0],
    ...                     "peaks": [3, 1]})
    >>> sketch_paths(pts).values.tolist()
    [['a', -inf, 1.0, 3], ['a', 1.0, 2.0, 2], ['a', 2.0, inf, 1]]
    """
    for c in ("sequence_id", "log_lambda", "peaks"):
        if c not in points.columns:
            raise ValueError(f"points: no {c!r} column (expected sequence_id, log_lambda, "
                             "peaks)")
    rows = []
    for sid, g in points.groupby("sequence_id", sort=False):
        g = g.drop_duplicates("log_lambda").sort_values("log_lambda", kind="stable")
        at = g["log_lambda"].to_numpy(float)
        counts = g["peaks"].to_numpy(np.int64)
        cuts = [-np.inf]
        for j in range(len(at) - 1):
            drop = int(counts[j] - counts[j + 1])
            cuts += list(at[j] + (at[j + 1] - at[j]) * np.arange(1, drop + 1) / (drop + 1))
        cuts.append(np.inf)
        peaks = int(counts[0])
        for a, b in zip(cuts[:-1], cuts[1:]):
            rows.append((sid, a, b, peaks))
            peaks -= 1
    out = pd.DataFrame(rows, columns=[*PATH_COLUMNS, "peaks"])
    out["peaks"] = np.maximum(out["peaks"], 0)
    return out


def sketch_shifts(labeled: pd.DataFrame | None, log_lambda: pd.Series) -> np.ndarray:
    """The :data:`PATH_POINTS` shifts of log λ a window's path is sketched at: the
    likely shifts' (:func:`~penlearn.learn.level_shift.likely_shifts`) 5–95 % quantiles.

    Examples
    --------
    >>> sketch_shifts(None, pd.Series({"a": 0.0})).round(2).tolist()  # no label: N(0, 2²)
    [-3.3, -1.21, -0.01, 1.19, 3.28]
    """
    grid, w = likely_shifts(labeled, log_lambda)
    return np.interp(np.linspace(0.05, 0.95, PATH_POINTS), np.cumsum(w), grid)


def coverage_paths(coverage: pd.DataFrame, windows: pd.DataFrame, log_lambda: pd.Series,
                   shifts) -> pd.DataFrame:
    """A sketch of each window's path: its peak counts at log λ + s for each ``s`` in
    ``shifts`` (one PeakSeg solve each), as path rows whose changes sit where the
    counts drop (``sequence_id, min_log_lambda, max_log_lambda, peaks``;
    :func:`sketch_paths`).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> w = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "chromEnd": [60]})
    >>> p = coverage_paths(cov, w, pd.Series({"chr1:0-60": 0.0}), [-2.0, 8.0])
    >>> p["peaks"].tolist()
    [1, 0]
    """
    from penlearn.peaks.peakseg.evaluation import predict_peaks

    shifts = np.sort(np.asarray(shifts, float))
    points = []
    for s in shifts:
        peaks = predict_peaks(coverage, log_penalty=log_lambda + s, windows=windows)
        count = peaks.groupby("sequence_id").size().reindex(log_lambda.index, fill_value=0)
        points.append(pd.DataFrame({"sequence_id": log_lambda.index,
                                    "log_lambda": log_lambda.to_numpy(float) + s,
                                    "peaks": count.to_numpy()}))
    return sketch_paths(pd.concat(points, ignore_index=True))


def coverage_sequences(coverage: pd.DataFrame,
                       window_bases: int | None = None) -> pd.DataFrame:
    """The (sample, window)s of coverage that proposals are about: the labeling page's
    windows (:func:`~penlearn.peaks.label_windows.page_windows`), each sample that has a
    coverage row in it (``sample_id, chrom, chromStart, chromEnd, window,
    sequence_id``; a coverage without ``sample_id`` is one sample, ``"sample"``).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> coverage_sequences(cov)["sequence_id"].tolist()
    ['sample/chr1:0-60']
    """
    from penlearn.peaks.label_windows import (
        DEFAULT_WINDOW_BASES,
        page_windows,
        window_coverage,
        window_ids,
    )

    if "sample_id" not in coverage.columns:
        coverage = coverage.assign(sample_id="sample")
    samples = [str(x) for x in pd.unique(coverage["sample_id"].astype(str))]
    windows = page_windows(coverage, window_bases or DEFAULT_WINDOW_BASES)
    have = window_coverage(coverage, windows)
    ids = window_ids(samples, windows)
    keep = [(r.sample_id, r.window) in have for r in ids.itertuples(index=False)]
    return ids[keep].reset_index(drop=True)


def _from_coverage(coverage: pd.DataFrame, n: int, labels, model: PenaltyModel,
                   random_state, window_bases) -> pd.DataFrame:

    from penlearn.peaks.label_windows import (
        label_hits,
        sequence_features,
        unlabeled_sequences,
    )
    from penlearn.peaks.peakseg.evaluation import peak_error_functions

    one_sample = "sample_id" not in coverage.columns
    if one_sample:
        coverage = coverage.assign(sample_id="sample")
    coverage = coverage.assign(sample_id=coverage["sample_id"].astype(str))
    seqs = coverage_sequences(coverage, window_bases)
    windows = seqs[["sample_id", "chrom", "chromStart", "chromEnd", "sequence_id"]]
    features = sequence_features(coverage, seqs)  # (the page's: of the reads' span)
    log_lambda = _predict(model, features.loc[windows["sequence_id"]])
    labeled_ev = None
    taken = np.zeros(len(windows), bool)
    if labels is not None and len(labels):
        for c in ("chrom", "chromStart", "chromEnd", "annotation"):
            if c not in labels.columns:
                raise ValueError(f"labels: no {c!r} column (expected chrom, chromStart, "
                                 "chromEnd, annotation[, sample_id])")
        lab = labels if not (one_sample and "sample_id" in labels.columns) else \
            labels.drop(columns="sample_id")
        _, hits = label_hits(windows, lab)
        if (hits == 0).any():
            r = lab.iloc[int(np.flatnonzero(hits == 0)[0])]
            who = f" of sample {r['sample_id']!r}" if "sample_id" in lab.columns else ""
            raise ValueError(f"label {r['chrom']}:{r['chromStart']}-{r['chromEnd']}{who} "
                             "lies in no window of the coverage (another genome, "
                             "chromosome or sample?)")
        taken = ~windows["sequence_id"].isin(unlabeled_sequences(windows, lab)).to_numpy()
        if taken.all():
            return _nothing_left(f"window of the coverage (in each of its "
                                 f"{windows['sample_id'].nunique()} samples)")
        if "sample_id" not in lab.columns:
            lab = pd.concat([lab.assign(sample_id=s) for s in pd.unique(windows["sample_id"])],
                            ignore_index=True)
        labeled_ev = peak_error_functions(coverage, lab, windows=windows[taken],
                                          progress=False)
    q = sketch_shifts(labeled_ev, log_lambda)
    free = windows[~taken]
    paths = coverage_paths(coverage, free, log_lambda.loc[free["sequence_id"]], q)
    out = propose_from_paths(paths, log_lambda, n, labeled=labeled_ev,
                             exclude=windows.loc[taken, "sequence_id"],
                             random_state=random_state)
    where = windows.set_index("sequence_id").loc[out["sequence_id"]]
    if one_sample:
        where = where.drop(columns="sample_id")
    return pd.concat([where.reset_index(drop=True), out.reset_index(drop=True)], axis=1)


def propose_windows(data, n: int, *, labeled=(), model=None, random_state=0,
                    window_bases: int | None = None) -> pd.DataFrame:
    """The next ``n`` windows worth labeling, best first, each with its reason.

    The rule (measured in ``benchmarks/RESULTS.md``, "few_labels"): the windows whose
    model-selection paths change most where the penalty's level likely is, given the
    labels so far (:mod:`penlearn.learn.propose`). It reads features, paths and the
    labels given so far, never the errors of a window not labeled.

    Parameters
    ----------
    data : DataFrame or UCIDataSet
        Coverage (``[sample_id,] chrom, chromStart, chromEnd, count``; cut into the
        labeling page's windows, :func:`coverage_sequences`: a proposal is one sample's
        window, as "Next" on the page proposes), or a data set with ``inputs``
        (features) and ``evaluation`` (paths; e.g. :func:`penlearn.load_uci`).
    n : int
        How many windows (fewer when fewer are left: an empty table when every
        (sample, window) holds a label,
        :func:`~penlearn.peaks.label_windows.unlabeled_sequences`).
    labeled : sequence of ids, or DataFrame
        The labels so far: for a data set, the ids of its labeled sequences; for
        coverage, the labels (``[sample_id,] chrom, chromStart, chromEnd, annotation``,
        as :func:`penlearn.read_peak_labels` returns). Windows holding a label are never
        proposed.
    model : PenaltyModel, ZeroLabelModel or path, optional
        The prior model (default: the shipped zero-label model,
        :func:`penlearn.shipped_model`: the log λ of ``penlearn peaks``).
    random_state : int or None
        Breaks ties between windows of equal score.
    window_bases : int, optional
        Coverage: the longest window (default: the page's,
        :data:`~penlearn.peaks.label_windows.DEFAULT_WINDOW_BASES`).

    Returns
    -------
    DataFrame
        ``sequence_id, score, changes, reason`` (coverage: the window's ``[sample_id,]
        chrom, chromStart, chromEnd`` first), one row per window, best first.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> propose_windows(cov, 1)[["chrom", "chromStart", "chromEnd"]].values.tolist()
    [['chr1', 0, 60]]
    """
    if not (labeled is None or isinstance(labeled, (str, bytes, pd.DataFrame))
            or isinstance(labeled, Iterable)):
        raise TypeError(f"labeled must be the labels so far (a DataFrame for coverage, a "
                        f"list of sequence ids for a data set), got {type(labeled).__name__}")
    if isinstance(data, pd.DataFrame):
        prior = _prior(model, "peaks")  # coverage windows: what 'penlearn peaks' computes
        if isinstance(labeled, pd.DataFrame) or labeled is None or len(list(labeled)) == 0:
            return _from_coverage(data, n, labeled if isinstance(labeled, pd.DataFrame)
                                  else None, prior, random_state, window_bases)
        raise TypeError("labeled: for coverage, give the labels as a DataFrame (chrom, "
                        "chromStart, chromEnd, annotation), e.g. read_peak_labels(path)")
    if hasattr(data, "inputs") and hasattr(data, "evaluation"):
        if isinstance(labeled, pd.DataFrame):
            raise TypeError("labeled: for a data set, give the ids of its labeled sequences")
        # (a data set's task is the caller's: the model's features must be its inputs)
        return _from_uci(data, n, () if labeled is None else labeled,
                         _prior(model, None), random_state)
    raise TypeError(f"data must be coverage (a DataFrame) or a data set with inputs and "
                    f"evaluation (load_uci), got {type(data).__name__}")
