"""ChIP-seq error functions straight from coverage and peak labels.

For every (sample, window) of coverage that holds labels: the PeakSeg models selected
by some penalty (:func:`~penlearn.peaks.peakseg.solver.peakseg_path`, Hocking et al.
2020, *JMLR*; Hocking et al. 2022, *JSS*), the label errors of each
(:func:`~penlearn.peaks.peakseg.labels.peak_label_counts`; Hocking et al. 2017,
*Bioinformatics*), and from them the evaluation table — one row per interval of log λ
on which the selected model is constant — that :func:`penlearn.learn_penalty` and
:func:`penlearn.roc_change` take unchanged. Sequence ids are those of
:func:`~penlearn.peaks.peakseg.features.coverage_features`, so its feature
table lines up with the evaluation table.

Every row is exact. The path stops at a stated bound (``max_peaks``, default
:data:`DEFAULT_MAX_PEAKS`): the table then covers log λ from the bound up (its lowest
``min_log_lambda`` is the bound's log λ, its rows are marked ``bounded``) and claims
nothing below it, since label errors are not monotone in the penalty. Each (sample,
chromosome) or (sample, window) is one problem; zero-coverage gaps are filled with zero
counts (``gaps="fill"``) or refused (``gaps="error"``).
"""

from __future__ import annotations

import math
import os
import warnings
from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, text_ids
from penlearn._executor import run_tasks
from penlearn._warnings import caller_stacklevel
from penlearn.peaks.formats.regions import LABEL_COLUMNS, PEAK_ANNOTATIONS, check_peak_labels
from penlearn.peaks.peakseg._flanks import uncovered_segments
from penlearn.peaks.peakseg._store import warm as warm_peakseg
from penlearn.peaks.peakseg._windows import _windows_of
from penlearn.peaks.peakseg.calls import reported_segments
from penlearn.peaks.peakseg.contigs import (
    check_gaps,
)
from penlearn.peaks.peakseg.labels import check_labels_in_coverage, peak_label_counts
from penlearn.peaks.peakseg.parts import (
    default_cache_dir,
    frame_digest,
    part_key,
    read_part,
    write_part,
)
from penlearn.peaks.peakseg.penalty import log_penalty_of
from penlearn.peaks.peakseg.solver import (
    BACKGROUND,
    COVERAGE_COLUMNS,
    PeakSegPath,
    check_coverage,
    check_tmpdir,
    peakseg,
    peakseg_path,
)

__all__ = ["DEFAULT_MAX_PEAKS", "EVALUATION_COLUMNS", "evaluation_bounds",
           "path_error_functions", "peak_error_functions", "predict_peaks",
           "window_error_functions"]

#: Default bound of each (sample, window)'s path: models with at most this many peaks.
#: Chosen so that the bound lies well below every label's minimum-error interval in
#: log λ (measured by ``benchmarks/peak_bound.py``, figures in ``benchmarks/RESULTS.md``).
DEFAULT_MAX_PEAKS = 100

EVALUATION_COLUMNS = ["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "possible_fp",
                      "fn", "possible_fn", "labels", "errors", "peaks", "total_loss", "bounded"]


def _solve_ticks(bar, name: str, executor) -> dict:
    """``on_solve=`` of a window solved in this process (no executor) under a shown
    ``bar``: each model of its path said on the bar (a window may take minutes); none
    for workers (their windows tick the bar as each ends)."""
    if executor is not None or bar.disable:
        return {}
    solves = [0]

    def tick(model) -> None:
        solves[0] += 1
        bar.set_postfix_str(f"{name}: {solves[0]} models solved (the last: "
                            f"{int(model.n_peaks)} peaks)")
    return {"on_solve": tick}


def window_error_functions(coverage: pd.DataFrame, labels: pd.DataFrame, *,
                           sequence_id: str = "window",
                           max_peaks: int | None = DEFAULT_MAX_PEAKS,
                           gaps: str = "fill", tmpdir: str | None = None,
                           on_solve=None) -> pd.DataFrame:
    """The error functions of one sample's window: its PeakSeg path and label errors.

    Every row is exact: its ``fp`` / ``fn`` are those of the optimal model for every
    penalty of its interval. The path goes down to a bound, ``max_peaks``; below it
    nothing is claimed: the lowest row's ``min_log_lambda`` is the log λ where the path
    stopped (finite), not −∞, unless the path is complete (down to penalty 0). Label
    errors are not monotone in the penalty (Hocking et al. 2017, *Bioinformatics*), so
    no rule extends a row below the bound.

    Parameters
    ----------
    coverage : DataFrame
        One sample's coverage of the window, ``chrom, chromStart, chromEnd, count`` (as
        for :func:`~penlearn.peaks.peakseg.solver.peakseg`; zero-coverage gaps as ``gaps``).
    labels : DataFrame
        That sample's labels inside the window: ``chrom, chromStart, chromEnd,
        annotation`` (noPeaks, peakStart, peakEnd, peaks).
    sequence_id : str
        The id written in the ``sequence_id`` column.
    max_peaks : int or None
        Bound of the path (see :func:`~penlearn.peaks.peakseg.solver.peakseg_path`): models
        with at most this many peaks; default :data:`DEFAULT_MAX_PEAKS`. ``None``: the
        full path down to penalty 0 (thousands of models on 10^4 rows).
    gaps : {"fill", "error"}
        Zero-coverage gaps between rows (see :func:`~penlearn.peaks.peakseg.contigs.fill_gaps`).
    tmpdir : str, optional
        Folder of the solver's temporary files (see
        :func:`~penlearn.peaks.peakseg.solver.peakseg`).

    Returns
    -------
    DataFrame
        :data:`EVALUATION_COLUMNS`, one row per model of the path, λ decreasing; the
        intervals partition (b, ∞) of log λ with b the bound's log λ, and ``bounded``
        is True, unless the path is complete (down to penalty 0: b = −∞, ``bounded``
        False). See :func:`~penlearn._checks.check_evaluation` for bounded tables.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> lab = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [15, 40],
    ...                     "chromEnd": [25, 60], "annotation": ["peakStart", "noPeaks"]})
    >>> ev = window_error_functions(cov, lab, sequence_id="s/chr1:0-60")
    >>> ev[["peaks", "fp", "fn"]].values.tolist()  # λ decreasing: 0 peaks, then 1
    [[0, 0, 1], [1, 0, 0]]
    >>> float(ev["max_log_lambda"].iloc[0]), float(ev["min_log_lambda"].iloc[-1])
    (inf, -inf)
    >>> bounded = window_error_functions(cov, lab, max_peaks=0)  # stops before 1 peak
    >>> bounded["peaks"].tolist(), bool(bounded["min_log_lambda"].iloc[-1]
    ...                                  == ev["min_log_lambda"].iloc[0])  # the same row
    ([0], True)
    """
    lab = check_peak_labels(labels)
    path = peakseg_path(coverage, max_peaks=max_peaks, gaps=gaps, tmpdir=tmpdir,
                        on_solve=on_solve)
    return path_error_functions(path, lab, sequence_id=sequence_id)


def path_error_functions(path: PeakSegPath, labels: pd.DataFrame, *,
                         sequence_id: str = "window") -> pd.DataFrame:
    """The error functions of labels on a path of peak models already computed: the
    rows of :func:`window_error_functions` without solving anything (a labeling page
    keeps each window's path and re-counts the errors when the labels change).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> path = peakseg_path(cov)
    >>> lab = pd.DataFrame({"chrom": ["chr1"], "chromStart": [15], "chromEnd": [25],
    ...                     "annotation": ["peakStart"]})
    >>> path_error_functions(path, lab)[["peaks", "errors"]].values.tolist()
    [[0, 1], [1, 0]]
    """
    lab = check_peak_labels(labels)
    codes = {a: i for i, a in enumerate(PEAK_ANNOTATIONS)}
    l_start = lab["chromStart"].to_numpy(np.int64)
    l_end = lab["chromEnd"].to_numpy(np.int64)
    l_code = np.array([codes[a] for a in lab["annotation"]], dtype=np.int64)
    segs = path.segments
    segs = segs[segs["status"] == "peak"]
    k = segs["peaks"].to_numpy(np.int64)
    order = np.argsort(k, kind="stable")  # each model's peaks: one slice, in genome order
    k, starts = k[order], segs["chromStart"].to_numpy(np.int64)[order]
    ends = segs["chromEnd"].to_numpy(np.int64)[order]
    rows = []
    for m in path.models.itertuples(index=False):
        a, b = np.searchsorted(k, [m.peaks, m.peaks + 1])
        tp, ptp, fp, pfp = peak_label_counts(starts[a:b], ends[a:b], l_start, l_end, l_code)
        fn = ptp - tp
        rows.append((sequence_id, m.min_log_lambda, m.max_log_lambda, int(fp.sum()),
                     int(pfp.sum()), int(fn.sum()), int(ptp.sum()), len(lab),
                     int(fp.sum() + fn.sum()), int(m.peaks), float(m.total_loss),
                     not path.complete))
    ev = pd.DataFrame(rows, columns=EVALUATION_COLUMNS)
    ev = ev.sort_values("min_log_lambda", ascending=False, kind="stable")
    return ev.reset_index(drop=True)


def evaluation_bounds(evaluation: pd.DataFrame) -> pd.Series:
    """Where each sequence's error functions stop: the lowest ``min_log_lambda``.

    −∞ for a complete table; a finite b for a bounded one (a path stopped at log λ = b,
    e.g. by ``max_peaks``): its rows claim nothing about penalties below b.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b"], "min_log_lambda": [1.0, -2.5,
    ...                    -np.inf], "max_log_lambda": [np.inf, 1.0, np.inf]})
    >>> evaluation_bounds(ev).to_dict()
    {'a': -2.5, 'b': -inf}
    """
    return evaluation.groupby("sequence_id", sort=False)["min_log_lambda"].min()


def _solve_window(cov: pd.DataFrame, value: float, name: str, segments: bool = False,
                  gaps: str = "fill", tmpdir: str | None = None, progress: bool = False
                  ) -> pd.DataFrame:
    """The peaks (or all segments) of one (sample, window) at log λ = ``value`` (one task of
    :func:`predict_peaks`), without the window's id columns."""
    check_coverage(cov, name=f"coverage of {name}", gaps=gaps)
    model = peakseg(cov, math.exp(min(value, 700.0)), gaps=gaps, progress=progress,
                    tmpdir=tmpdir)
    segs = reported_segments(model.segments).drop(columns=["first_row", "last_row"])
    if segments:
        return segs
    return segs.loc[segs["status"] == "peak", ["chrom", "chromStart", "chromEnd"]
                    ].reset_index(drop=True)


def _with_ids(table: pd.DataFrame, value: float, name: str, sid) -> pd.DataFrame:
    peaks = table.assign(sequence_id=name, log_lambda=value)
    if sid is not None:
        peaks.insert(0, "sample_id", sid)
    return peaks


def _window_key(kind: str, cov: pd.DataFrame, name: str, sid, **fields) -> str:
    """The content key of one window's result (:mod:`penlearn.peaks.peakseg.parts`)."""
    columns = [*COVERAGE_COLUMNS, *([BACKGROUND] if BACKGROUND in cov else [])]
    return part_key(kind, sequence_id=name, sample_id=None if sid is None else str(sid),
                    coverage=frame_digest(cov, columns), **fields)


def predict_peaks(coverage: pd.DataFrame, log_lambda=None, *, penalty=None,
                  log_penalty=None, windows: pd.DataFrame | None = None,
                  gaps: str = "fill", segments: bool = False, executor: Executor | None = None,
                  progress: bool = False, tmpdir: str | None = None,
                  parts: str | os.PathLike | None = None, mark: str = "narrow"
                  ) -> pd.DataFrame:
    """Peaks of every (sample, window) at its penalty: one PeakSeg solve each.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count``: many samples and
        chromosomes, each (sample, chromosome) sorted without overlaps. By default each
        (sample, chromosome) is one window, one problem.
    log_lambda : float or Series, optional
        Deprecated: log λ given by position; use ``log_penalty=`` (it is that).
    penalty : float or Series, optional
        The penalty λ (>= 0) of every window, or a Series of λ indexed by the sequence
        ids of :func:`~penlearn.peaks.peakseg.features.coverage_features`.
    log_penalty : float or Series, optional
        log λ (natural log) instead: one number, or a Series indexed by those ids (e.g. a
        learned model's predictions on those features). A log λ above 50 or not finite,
        a λ negative or not finite is a ``ValueError`` naming the unit expected
        (:mod:`penlearn.peaks.peakseg.penalty`). With neither, the shipped zero-label
        model predicts each window's log λ (:mod:`penlearn.peaks.pretrained`; windows
        cut like its training problems unless ``windows`` is given), and a warning says
        so.
    windows : DataFrame, optional
        As for :func:`~penlearn.peaks.peakseg.features.coverage_features`.
    gaps : {"fill", "error"}
        Zero-coverage gaps between rows are filled with zero counts (default) or refused
        (:func:`~penlearn.peaks.peakseg.contigs.fill_gaps`).
    segments : bool
        Return every segment of the models (``status`` background / peak and ``mean``
        columns too), not only the peaks, from each (sample, chromosome)'s first
        covered base to its last: the bases no window covers (zero runs before the
        first read, after the last and between the shipped model's windows) are
        background segments of their own mean, with ``log_lambda`` NaN. Peaks and
        segments are those reported (:mod:`penlearn.peaks.peakseg.calls`): runs of equal
        mean joined, each peak strictly above its neighbours.
    executor : concurrent.futures.Executor, optional
        One task per (sample, window): e.g. a ``ProcessPoolExecutor`` or a Dask
        cluster's ``distributed.Client(...).get_executor()``. Default: this process.
        The result is the same, in the same order.
    progress : bool
        Show a tqdm progress bar counting coverage rows (with two or more windows) and,
        without an executor, bars inside each solve of 10^6 rows or more
        (:func:`~penlearn.peaks.peakseg.solver.peakseg`).
    tmpdir : str, optional
        Folder of the solver's temporary files (whole chromosomes; see
        :func:`~penlearn.peaks.peakseg.solver.peakseg`); with an executor, a path that every
        worker can write to. Default: ``$PENLEARN_TMPDIR``, else the system's.
    parts : path, optional
        A folder where each window's result is saved as soon as it is solved (atomically,
        under a key of its coverage rows' contents, its exact log λ and the options:
        :mod:`penlearn.peaks.peakseg.parts`), and from which a later call takes every result
        whose key is unchanged instead of solving it again: an interrupted run continues
        where it stopped, with the same result. The folder is created; nothing in it is
        removed (``penlearn peaks`` removes it once its outputs are written).
    mark : {"narrow", "broad"}
        Without a penalty: the shipped model's level for narrow marks (the default, as
        MACS3's: H3K4me3, H3K27ac, CTCF, ATAC, factors) or broad ones (MACS3's ``--broad``:
        H3K27me3, H3K36me3, H3K9me3, H3K4me1); see :mod:`penlearn.peaks.pretrained`.

    Returns
    -------
    DataFrame
        The peaks, ``[sample_id,] chrom, chromStart, chromEnd, sequence_id, log_lambda``
        (BED columns first). With ``parts``, ``attrs["parts_reused"]`` counts the windows
        taken from the folder and ``attrs["windows"]`` all of them.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> peaks = predict_peaks(cov, penalty=20.0)
    >>> peaks[["chrom", "chromStart", "chromEnd"]].values.tolist()
    [['chr1', 20, 40]]
    """
    from penlearn._progress import tqdm  # only when peaks are predicted

    check_gaps(gaps)
    tmpdir = check_tmpdir(tmpdir)
    if log_lambda is not None:
        if penalty is not None or log_penalty is not None:
            raise TypeError("predict_peaks: give the penalty once, as penalty= (λ) or "
                            "log_penalty= (log λ), not also by position")
        warnings.warn("predict_peaks(coverage, x): x by position is log λ and is "
                      "deprecated; write log_penalty=x (log λ) or penalty=λ",
                      DeprecationWarning, stacklevel=2)
        log_penalty = log_lambda
    for value, what in ((penalty, "penalty"), (log_penalty, "log_penalty")):
        if value is not None and not isinstance(value, pd.Series) and (
                isinstance(value, (bool, np.bool_))
                or not isinstance(value, (int, float, np.integer, np.floating))):
            raise TypeError(f"{what} must be a number or a Series indexed by window ids, "
                            f"got {type(value).__name__}")
    log_lambda = log_penalty_of(penalty, log_penalty)
    if mark not in ("narrow", "broad"):
        raise ValueError(f"mark must be 'narrow' or 'broad' (the shipped model's level when "
                         f"no penalty is given), got {mark!r}")
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    coverage = text_ids(coverage, "coverage")
    windows = None if windows is None else text_ids(windows, "windows")
    if log_lambda is None:
        from penlearn.peaks.pretrained import ZeroLabelModel

        zero = ZeroLabelModel(mark)
        warnings.warn(f"predict_peaks: no penalty given: using {zero.notice()}",
                      UserWarning, stacklevel=2)
        windows, log_lambda = zero.log_lambda(coverage, windows)
    tasks = []
    for name, sid, cov in _windows_of(coverage, windows, gaps):
        if isinstance(log_lambda, pd.Series):
            if name not in log_lambda.index:
                given = ("penalty" if penalty is not None else "log_penalty"
                         if log_penalty is not None else "log_lambda")
                raise ValueError(f"{given} has no value for window {name!r} (a Series of "
                                 "it is indexed by window ids)")
            value = float(log_lambda.loc[name])
        else:
            value = float(log_lambda)
        if math.isnan(value):
            raise ValueError(f"log_lambda of window {name!r} is NaN")
        tasks.append((cov, value, name, sid))
    if not tasks:
        raise ValueError("coverage has no rows")
    out: list = [None] * len(tasks)
    keys: list = [None] * len(tasks)
    if parts is not None:
        Path(parts).mkdir(parents=True, exist_ok=True)
        for i, (cov, value, name, sid) in enumerate(tasks):
            keys[i] = _window_key("peaks", cov, name, sid, log_lambda=value.hex(),
                                  segments=bool(segments), gaps=gaps)
            table = read_part(parts, "peaks", keys[i])
            if table is not None:
                out[i] = _with_ids(table, value, name, sid)
    todo = [i for i in range(len(tasks)) if out[i] is None]

    def finish(i: int, table: pd.DataFrame) -> None:
        if parts is not None:
            write_part(parts, "peaks", keys[i], table)
        cov, value, name, sid = tasks[i]
        out[i] = _with_ids(table, value, name, sid)
        bar.update(len(cov))

    if progress and todo:  # one window too: no bar, but no silent minute either
        warm_peakseg()  # compile before the bar starts: no ETA of hours meanwhile
    # a bar for one problem would only jump from 0 to 100% at the end
    with tqdm(total=sum(len(t[0]) for t in tasks), disable=not progress or len(tasks) < 2,
              unit="rows", desc="peaks",
              initial=sum(len(tasks[i][0]) for i in range(len(tasks)) if out[i] is not None)
              ) as bar:
        here = {"progress": progress} if executor is None else {}  # bars in this process
        run_tasks(executor, _solve_window,
                  {i: ((*tasks[i][:3], segments, gaps, tmpdir), here) for i in todo}, finish)
    result = pd.concat(out, ignore_index=True)
    if segments:
        result = uncovered_segments(result, coverage)
    if parts is not None:
        result.attrs.update(parts_reused=len(tasks) - len(todo), windows=len(tasks))
    return result


def _tasks(coverage: pd.DataFrame, labels: pd.DataFrame, windows, gaps: str):
    """(sequence_id, window coverage, window labels) of every labeled (sample, window)."""
    lab = labels
    if "sample_id" not in lab.columns:
        samples = pd.unique(coverage["sample_id"]) if "sample_id" in coverage.columns else [""]
        lab = pd.concat([lab.assign(sample_id=s) for s in samples], ignore_index=True)
    lab_by = dict(list(lab.groupby(["sample_id", "chrom"], sort=False)))
    for name, sid, cov in _windows_of(coverage, windows, gaps):
        la = lab_by.get(("" if sid is None else sid, cov["chrom"].iloc[0]))
        if la is None:
            continue
        lo, hi = cov["chromStart"].iloc[0], cov["chromEnd"].iloc[-1]
        la = la[(la["chromStart"] < hi) & (la["chromEnd"] > lo)]
        if len(la):
            yield name, cov, la


def peak_error_functions(coverage: pd.DataFrame, labels: pd.DataFrame, *,
                         windows: pd.DataFrame | None = None,
                         max_peaks: int | None = DEFAULT_MAX_PEAKS, gaps: str = "fill",
                         executor: Executor | None = None, progress: bool = True,
                         tmpdir: str | None = None,
                         cache: bool | str | os.PathLike = False) -> pd.DataFrame:
    """The evaluation table of every labeled (sample, window), from coverage and labels.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, count`` (as
        :func:`~penlearn.peaks.formats.coverage.read_coverage` returns): many samples and
        chromosomes, each (sample, chromosome) sorted without overlaps.
    labels : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, annotation`` (as
        :func:`~penlearn.peaks.formats.bed.read_peak_labels` returns); labels
        without ``sample_id`` hold for every sample.
    windows : DataFrame, optional
        As for :func:`~penlearn.peaks.peakseg.features.coverage_features`; by
        default each sample's chromosome is one window. Windows without labels are
        left out (their error functions are identically zero).
    max_peaks : int or None
        Bound of each path: models with at most this many peaks (default
        :data:`DEFAULT_MAX_PEAKS`); ``None`` for the full path down to penalty 0
        (thousands of models per 10^4 rows). Every row is exact; nothing is claimed
        below the bound (see Returns).
    gaps : {"fill", "error"}
        Zero-coverage gaps between rows (``bedtools genomecov -bg``, sparse bigWigs) are
        filled with zero counts per (sample, chromosome) (default) or refused
        (:func:`~penlearn.peaks.peakseg.contigs.fill_gaps`).
    executor : concurrent.futures.Executor, optional
        One task per (sample, window): e.g. a ``ProcessPoolExecutor`` or a Dask
        cluster's ``distributed.Client(...).get_executor()``. Default: this process.
    progress : bool
        Show a tqdm progress bar.
    tmpdir : str, optional
        Folder of the solver's temporary files, as for :func:`predict_peaks`.
    cache : bool or path
        Save each labeled window's table and reuse it in a later call: True for
        :func:`~penlearn.peaks.peakseg.parts.default_cache_dir` (``$PENLEARN_CACHE_DIR``, else
        ``~/.cache/penlearn``), or a folder. Off by default (a library call writes no
        files unless asked); on, a rerun on the same data costs only reading, and a
        window whose coverage rows, labels or options changed (or penlearn's peak code)
        is computed again: the key is a digest of their contents
        (:mod:`penlearn.peaks.peakseg.parts`). A cache that cannot be written gives one warning.

    Returns
    -------
    DataFrame
        ``sequence_id, min_log_lambda, max_log_lambda, fp, possible_fp, fn, possible_fn,
        labels, errors, peaks, total_loss, bounded``. Per sequence the intervals
        partition (b, ∞) of log λ, where b, the lowest ``min_log_lambda``, is the log λ at
        which the path stopped (:func:`evaluation_bounds`; −∞ only when the path reached
        penalty 0, else ``bounded`` is True on the sequence's rows); every row's fp/fn
        are those of the optimal model for every penalty of its interval, and no row is
        claimed below b. ``attrs["max_peaks"]`` records the bound.
        :func:`penlearn.learn_penalty`, :func:`penlearn.roc_change` and
        :func:`penlearn.target_intervals` take it unchanged (see
        :func:`penlearn.roc_change` for what they do below a bound).

    Examples
    --------
    >>> cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
    ...                     "chromStart": range(0, 60, 10), "chromEnd": range(10, 70, 10),
    ...                     "count": [1, 2, 30, 28, 2, 1]})
    >>> lab = pd.DataFrame({"sample_id": "s", "chrom": "chr1", "chromStart": [15],
    ...                     "chromEnd": [25], "annotation": ["peakStart"]})
    >>> ev = peak_error_functions(cov, lab, progress=False)
    >>> ev["sequence_id"].unique().tolist(), int(ev["errors"].min())
    (['s/chr1:0-60'], 0)
    """
    from penlearn._progress import tqdm  # only when error functions are computed

    if ("sample_id" in labels.columns) and ("sample_id" not in coverage.columns):
        raise ValueError("labels have a sample_id column but coverage has none")
    check_gaps(gaps)
    tmpdir = check_tmpdir(tmpdir)
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    coverage, labels = text_ids(coverage, "coverage"), text_ids(labels, "labels")
    windows = None if windows is None else text_ids(windows, "windows")
    labels = check_labels_in_coverage(coverage, labels, windows=windows)  # none dropped
    tasks = list(_tasks(coverage, labels, windows, gaps))
    if not tasks:
        raise ValueError("no (sample, window) of the coverage holds a label")
    for name, cov, _ in tasks:
        check_coverage(cov, name=f"coverage of {name}", gaps=gaps)
    out: list = [None] * len(tasks)
    folder = None if cache is False or cache is None else \
        (default_cache_dir() if cache is True else Path(cache))
    keys: list = [None] * len(tasks)
    if folder is not None:
        for i, (name, cov, lab) in enumerate(tasks):
            keys[i] = _window_key("errors", cov, name, None, max_peaks=max_peaks, gaps=gaps,
                                  labels=frame_digest(lab, [c for c in LABEL_COLUMNS
                                                            if c in lab.columns]))
            out[i] = read_part(folder, "errors", keys[i])
    todo = [i for i in range(len(tasks)) if out[i] is None]

    def finish(i: int, table: pd.DataFrame) -> None:
        nonlocal folder
        out[i] = table
        bar.update()
        if folder is not None:
            try:
                write_part(folder, "errors", keys[i], table)
            except OSError as exc:
                warnings.warn(f"cannot write the cache folder {folder} ({exc}); continuing "
                              "without a cache", stacklevel=caller_stacklevel())
                folder = None

    if progress and todo:
        warm_peakseg()  # compile before the bar starts: no ETA of hours meanwhile
    bar = tqdm(total=len(tasks), disable=not progress, desc="peak models",
               initial=len(tasks) - len(todo))
    try:
        run_tasks(executor, window_error_functions,
                  {i: (tasks[i][1:], dict(sequence_id=tasks[i][0], max_peaks=max_peaks,
                                          gaps=gaps, tmpdir=tmpdir,
                                          **_solve_ticks(bar, tasks[i][0], executor)))
                   for i in todo}, finish)
    finally:
        bar.close()
    ev = pd.concat(out, ignore_index=True)
    ev.attrs["max_peaks"] = max_peaks
    return ev
