"""What the labeling page holds: the coverage cut into windows, each window's path of
peak models, the labels (one file, written atomically on every change) and the penalty
model re-learned from them.

A window's path of PeakSeg models (:func:`~penlearn.peaks.peakseg.solver.peakseg_path`,
penalty → peaks) is computed once, when the window is first shown; a label then only
re-counts errors on the paths (:func:`~penlearn.peaks.peakseg.evaluation.path_error_functions`),
re-learns the penalty (``learn_penalty(..., prior=the shipped model)``: with few labels its
level shifted to them, with more the learners of ``model="auto"``; as ``penlearn learn``
does) and picks each sample's model on its path: nothing is solved again. "Next" goes to
the window ``penlearn propose``'s rule proposes (:mod:`penlearn.label.proposals`), its
sketches solved ahead in the path worker.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, text_ids
from penlearn.atomic_files import check_output, write_text_atomic
from penlearn.fitting.model_file import check_model_task
from penlearn.label.labels_file import (
    LABEL_FILE_COLUMNS,
    check_labels_path,
    clip_to_coverage,
    label_text,
    labels_lock,
    read_label_file,
    sorted_labels,
)
from penlearn.label.learning import (
    LearnerProcess,
    command_refit,
    full_refit,
    learned_at_once,
    quick_refit,
    rankable,
)
from penlearn.label.page_json import window_view
from penlearn.label.proposals import NextWindow, PageNext
from penlearn.learn import PenaltyModel
from penlearn.peaks.formats.regions import PEAK_ANNOTATIONS, check_peak_labels
from penlearn.peaks.joint.windows import coverage_spans
from penlearn.peaks.label_windows import (
    DEFAULT_WINDOW_BASES,
    page_windows,
    reads_span,
    sequence_features,
    window_coverage,
    window_ids,
)
from penlearn.peaks.peakseg.calls import reported_segments
from penlearn.peaks.peakseg.evaluation import DEFAULT_MAX_PEAKS, path_error_functions
from penlearn.peaks.peakseg.solver import peakseg, peakseg_path
from penlearn.peaks.pretrained import (
    ZeroLabelModel,
    cut_from_long_windows,
    whole_chromosome_windows,
)

__all__ = ["LabelState"]

_UNDO = 200  # changes kept for undo
#: Seconds the background learner waits after a change (a later change makes it skip).
LEARN_DELAY = 0.5
#: Threads of the page's PeakSeg paths and of its solves (the kernels run without the
#: interpreter lock).
PAGE_THREADS = 2


class LabelState:
    """The page's data and model (thread safe: every change under one lock).

    Parameters
    ----------
    coverage : DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count`` (a table without ``sample_id``
        is one sample, ``"sample"``).
    labels_path : path
        The labels file, read if it exists (resume) and rewritten on every change.
    model : PenaltyModel, optional
        The starting model (default: the shipped zero-label model at the level of
        ``mark``, :class:`~penlearn.peaks.pretrained.ZeroLabelModel`: the log λ of
        ``penlearn peaks``).
    window_bases : int
        Longest page window (:func:`~penlearn.peaks.label_windows.page_windows`).
    max_peaks : int
        Bound of each (sample, window)'s path of peak models.
    model_out : path, optional
        Where "Save model" writes.
    mark : {"narrow", "broad"}
        The zero-label model's level (``penlearn label --broad``: broad marks).
    chrom_sizes : dict, optional
        Chromosome lengths known (BAM / bigWig headers): a whole chromosome shorter than
        every training window gets no short-window shift, as in ``penlearn peaks``.
    """

    def __init__(self, coverage: pd.DataFrame, labels_path, *, model=None,
                 window_bases: int = DEFAULT_WINDOW_BASES,
                 max_peaks: int = DEFAULT_MAX_PEAKS, model_out=None, mark: str = "narrow",
                 chrom_sizes: dict | None = None):
        require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
        if not len(coverage):
            raise ValueError("coverage has no rows: nothing to show")
        if "sample_id" not in coverage.columns:
            coverage = coverage.assign(sample_id="sample")
        coverage = text_ids(coverage, "coverage")  # ids as text, none with a control char
        self.samples = [str(s) for s in pd.unique(coverage["sample_id"])]
        self.spans = {(r.sample_id, str(r.chrom)): (int(r.first), int(r.last))
                      for r in coverage_spans(coverage).itertuples(index=False)}
        self.windows = page_windows(coverage, window_bases)
        self.ids = window_ids(self.samples, self.windows)
        self.ids_by = {(r.sample_id, r.window): r.sequence_id
                       for r in self.ids.itertuples(index=False)}
        # each (sample, window) from its first read to its last, as penlearn peaks' windows
        self.cov = {k: reads_span(t) for k, t in window_coverage(coverage,
                                                                 self.windows).items()}
        have = self.ids[[(r.sample_id, r.window) in self.cov
                         for r in self.ids.itertuples(index=False)]]
        # of each (sample, window)'s reads' span: propose's and penlearn peaks' features
        self.features = sequence_features(coverage, have, self.cov)
        self.window_of = pd.Series(have["window"].to_numpy(), index=have["sequence_id"])
        # no short-window shift (as peaks) for the (sample, window)s of a whole short
        # chromosome, nor for the page's pieces of a long stretch of coverage
        whole = cut_from_long_windows(have, coverage)
        short_chrom = whole_chromosome_windows(have, chrom_sizes)
        if short_chrom is not None:
            whole |= short_chrom
        self._whole = pd.Series(whole, index=have["sequence_id"].to_numpy()).reindex(
            self.features.index, fill_value=False).to_numpy(bool)
        self.coverage = coverage  # (Save model learns as penlearn learn does, on it)
        #: the (sample, window)s with coverage: what labels are given in and "Next"
        #: proposes from (:func:`~penlearn.peaks.propose.coverage_sequences`' table)
        self.sequences = have.reset_index(drop=True)
        self.key_of = {r.sequence_id: (r.sample_id, int(r.window))
                       for r in have.itertuples(index=False)}
        self.labels_path = check_labels_path(labels_path)
        self.model_out = None if model_out is None else Path(model_out)
        if self.model_out is not None:  # (the command checked --out; Python callers here)
            check_output(self.model_out, directory=False, force=True,
                         inputs=[self.labels_path], option="model_out")
        self.max_peaks = max_peaks
        #: the zero-label model (``penlearn peaks``' log λ, level and notice)
        self.zero = ZeroLabelModel(mark)
        with warnings.catch_warnings():  # its short-window warning, as peaks gives it
            warnings.filterwarnings("ignore", message=".*outside the range")  # (the docs)
            self.zero_log_lambda = self.zero.predict(self.features, whole=self._whole)
        self.start_model = model
        self.lock = threading.RLock()
        self._paths: dict = {}
        self._path_lock = threading.Lock()
        # the kernels release the interpreter lock: two paths (or solves) at once
        self._pool = ThreadPoolExecutor(PAGE_THREADS, thread_name_prefix="penlearn-paths")
        self._solver = ThreadPoolExecutor(PAGE_THREADS, thread_name_prefix="penlearn-solve")
        self._solved: dict = {}  # (sample, window) -> {log λ: segments at that penalty}
        self._solving: dict = {}  # (sample, window, log λ) -> future of that solve
        self._undo: list[tuple[pd.DataFrame, pd.DataFrame]] = []  # (added, removed)
        self._errors: dict = {}
        self._learner = ThreadPoolExecutor(1, thread_name_prefix="penlearn-learn")
        self._process = LearnerProcess()
        self._warmed = False
        self._learning = None
        self.model_version = 0
        #: the prior of every refit: the given model if it is a linear one, else the
        #: shipped zero-label model (``penlearn learn``'s prior)
        self.prior = model if rankable(model) else self.zero.model
        self.base_model = self.prior
        self.version = 0
        self.labels = read_label_file(self.labels_path, self.samples)
        self._file_key = self._stat()
        self._warn_off_page()
        if model is not None:  # (a file is checked as it loads; an object here)
            if not isinstance(model, PenaltyModel):
                raise TypeError(f"model must be a PenaltyModel or a model file, got "
                                f"{type(model).__name__}")
            check_model_task(getattr(model, "task_", None), "peaks", "model")
        try:
            self.start_log_lambda = self._predict(model)  # the level "Next" proposes about
        except ValueError as exc:  # the model's features are not the page's
            raise ValueError(f"model: {exc}") from None
        self.next = PageNext(self, self._pool.submit)
        self.refit()

    # -- labels --------------------------------------------------------------------------
    def _stat(self):
        """The labels file's bytes (None: no file): what the page last read or wrote
        (a time, size and inode can repeat across two writes; the bytes cannot lie)."""
        try:
            return self.labels_path.read_bytes()
        except FileNotFoundError:
            return None

    def _warn_off_page(self) -> None:
        """Say which labels of the file the page neither shows nor learns from (a sample
        not in the coverage, a region in no window): kept in the file as they are."""
        lab = self.learn_labels()
        unknown = ~lab["sample_id"].isin(self.samples)
        outside = (lab["window"] < 0) & ~unknown
        if unknown.any() or outside.any():
            parts = []
            if unknown.any():
                names = sorted(set(lab.loc[unknown, "sample_id"]))
                parts.append(f"{int(unknown.sum())} label(s) of samples not in the coverage "
                             f"({', '.join(map(repr, names[:3]))}"
                             f"{', ...' if len(names) > 3 else ''})")
            if outside.any():
                r = lab[outside].iloc[0]
                parts.append(f"{int(outside.sum())} label(s) in no window of the page (e.g. "
                             f"{r['chrom']}:{r['chromStart']}-{r['chromEnd']})")
            warnings.warn(f"labels {self.labels_path}: {' and '.join(parts)}; they are kept "
                          "in the file but neither shown nor learned from", UserWarning,
                          stacklevel=3)

    def _reread_if_changed(self) -> None:
        """Another writer (a second page on the same file) changed it: take its labels
        as the base of this change (changes are operations, not whole tables). Called
        under :func:`~penlearn.label.labels_file.labels_lock`, as the write after it."""
        key = self._stat()
        if key != self._file_key:
            self.labels = read_label_file(self.labels_path, self.samples)
            self._file_key = key

    def _write(self, lab: pd.DataFrame, added: pd.DataFrame, removed: pd.DataFrame
               ) -> None:
        """Write ``lab``: the labels so far with ``added`` rows in and ``removed`` out
        (kept for :meth:`undo`, an operation too)."""
        text = label_text(lab)
        write_text_atomic(self.labels_path, text)
        self._undo.append((added, removed))
        del self._undo[:-_UNDO]
        self.labels = lab
        self._file_key = text.encode("utf-8")
        self.version += 1

    def window_of_region(self, chrom: str, start: int, end: int) -> int:
        """The index of the page window that holds ``[start, end)`` (ValueError if none)."""
        w = self.windows
        # compared in Python: NumPy (and pandas) make "chr1\0" a fixed-width string,
        # trailing NULs dropped: it was chr1's window, and a labels file no reader takes
        # was written
        same = np.fromiter((c == chrom for c in w["chrom"]), bool, len(w))
        inside = np.flatnonzero(same
                                & (w["chromStart"].to_numpy() <= start)
                                & (w["chromEnd"].to_numpy() >= end))
        if len(inside) == 0:
            raise ValueError(f"{chrom}:{start}-{end} is not inside one window of the page")
        return int(inside[0])

    def add_label(self, chrom: str, start: int, end: int, annotation: str, samples) -> int:
        """Label ``[start, end)`` of ``samples`` with ``annotation``; labels of those
        samples overlapping it are replaced. Returns the number of labels written."""
        if annotation not in PEAK_ANNOTATIONS:
            raise ValueError(f"annotation must be one of {list(PEAK_ANNOTATIONS)}, got "
                             f"{annotation!r}")
        if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start < end:
            raise ValueError("start and end must be integers with 0 <= start < end")
        samples = list(dict.fromkeys(samples))  # a sample given twice is labeled once
        bad = [s for s in samples if s not in self.samples]
        if bad or not samples:
            raise ValueError(f"unknown sample(s) {bad[:3]}" if bad else "no sample given")
        window = self.window_of_region(chrom, start, end)
        with self.lock:
            with labels_lock(self.labels_path):
                self._reread_if_changed()
                lab = self.labels
                # each sample's label inside its coverage: the file penlearn learn reads
                new = clip_to_coverage(samples, chrom, start, end, self.spans)
                over = (lab["sample_id"].isin(new["sample_id"]) & (lab["chrom"] == chrom)
                        & (lab["chromStart"] < end) & (lab["chromEnd"] > start))
                new = new.assign(annotation=annotation)
                self._write(sorted_labels(pd.concat([lab[~over], new], ignore_index=True)),
                            added=new, removed=lab[over])
            self.refit()
            self.warm(window)  # the redraw's solves start before the page asks for it
            return len(new)

    def delete_label(self, sample: str, chrom: str, start: int, end: int) -> int:
        """Delete the label of ``sample`` at exactly ``[start, end)``; returns 0 or 1."""
        with self.lock:
            with labels_lock(self.labels_path):
                self._reread_if_changed()
                lab = self.labels
                same = np.fromiter((c == chrom for c in lab["chrom"]), bool, len(lab))
                hit = ((lab["sample_id"] == sample) & same  # ("chr1\0" is not chr1)
                       & (lab["chromStart"] == start) & (lab["chromEnd"] == end))
                if not hit.any():
                    return 0
                self._write(lab[~hit].reset_index(drop=True), added=lab.iloc[:0],
                            removed=lab[hit])
            self.refit()
            return 1

    def undo(self) -> bool:
        """Undo this page's last change (False: nothing to undo): its labels taken out,
        those it replaced put back, on the file as it is now (a second page's labels made
        since are kept; a ValueError, nothing changed, where one of them overlaps a label
        to put back)."""
        with self.lock:
            if not self._undo:
                return False
            with labels_lock(self.labels_path):
                self._reread_if_changed()
                added, removed = self._undo[-1]
                lab = self.labels
                keys = LABEL_FILE_COLUMNS
                gone = lab[keys].merge(added[keys].drop_duplicates(), how="left",
                                       indicator=True)["_merge"].eq("both").to_numpy()
                before = sorted_labels(pd.concat([lab[~gone], removed], ignore_index=True))
                try:
                    check_peak_labels(before[keys])
                except ValueError:
                    raise ValueError("cannot undo: labels made meanwhile in another page "
                                     "overlap the ones it would put back") from None
                self._undo.pop()
                text = label_text(before)
                write_text_atomic(self.labels_path, text)
                self.labels = before
                self._file_key = text.encode("utf-8")
                self.version += 1
            self.refit()
            return True

    # -- paths and peaks ------------------------------------------------------------------
    def _future(self, key):
        with self._path_lock:
            if key not in self._paths:
                cov = self.cov.get(key)
                self._paths[key] = self._pool.submit(
                    lambda: None if cov is None else peakseg_path(cov, max_peaks=self.max_peaks))
            return self._paths[key]

    def path(self, sample: str, window: int):
        """The path of peak models of a (sample, window), computed once (None: no rows)."""
        return self._future((sample, window)).result()

    def prepare(self, window: int) -> None:
        """Start computing the paths of a window's samples in the background, then the
        sketches the next press of "Next" needs (:meth:`PageNext.ahead
        <penlearn.label.proposals.PageNext.ahead>`)."""
        for s in self.samples:
            self._future((s, window))
        self.next.ahead()

    def paths_ready(self, window: int) -> int:
        """How many samples of the window have their path computed (a label there waits
        for its samples' paths)."""
        return sum((s, window) in self._paths and self._paths[(s, window)].done()
                   for s in self.samples)

    def has_path(self, window: int) -> bool:
        """Whether every path of the window is computed."""
        return self.paths_ready(window) == len(self.samples)

    def busy(self) -> bool:
        """Whether the page computes what the user waits for: a shown window's paths, or
        the learners after a label ("Next" sketches ahead only meanwhile)."""
        with self._path_lock:
            if any(not f.done() for f in self._paths.values()):
                return True
        return self._learning is not None and not self._learning.done()

    def close(self) -> None:
        """Stop the background computations (those running finish)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._solver.shutdown(wait=False, cancel_futures=True)
        self._learner.shutdown(wait=False, cancel_futures=True)
        self._process.shutdown()

    def _kept_path(self, sample: str, window: int):
        fut = self._paths.get((sample, window))
        return fut.result() if fut is not None and fut.done() else None

    def _from_path(self, sample: str, window: int, ll: float) -> pd.DataFrame | None:
        """The segments of the kept path's model at log λ ``ll`` (None: the path is not
        computed yet, or ``ll`` is below its bound)."""
        path = self._kept_path(sample, window)
        if path is None:
            return None
        m = path.models
        hit = m[(m["min_log_lambda"] <= ll) & (ll < m["max_log_lambda"])]
        if not len(hit):
            return None
        segs = path.segments
        return segs[segs["peaks"] == int(hit["peaks"].iloc[0])]

    def _from_solves(self, sample: str, window: int, ll: float) -> pd.DataFrame | None:
        """The segments at ``ll`` from the solves kept: one at ``ll``, or two around it
        with the same peak count (the count never increases with the penalty)."""
        done = self._solved.get((sample, window), {})
        if ll in done:
            return done[ll]
        below = [x for x in done if x < ll]
        above = [x for x in done if x > ll]
        if below and above:
            lo, hi = done[max(below)], done[min(above)]
            if (lo["status"] == "peak").sum() == (hi["status"] == "peak").sum():
                return lo
        return None

    def _solve(self, sample: str, window: int, ll: float) -> None:
        segments = peakseg(self.cov[(sample, window)], math.exp(ll)).segments
        self._solved.setdefault((sample, window), {})[ll] = segments

    def _solve_future(self, sample: str, window: int, ll: float):
        with self._path_lock:
            key = (sample, window, ll)
            if key not in self._solving:
                self._solving[key] = self._solver.submit(self._solve, sample, window, ll)
            return self._solving[key]

    def _known_peaks(self, sample: str, window: int, ll: float) -> pd.DataFrame | None:
        got = self._from_path(sample, window, ll)
        return got if got is not None else self._from_solves(sample, window, ll)

    def _missing(self, window: int) -> dict[str, float]:
        """The samples of ``window`` whose current model neither their path nor the
        solves kept know, with their log λ."""
        lls = {s: float(self.log_lambda[self.ids_by[(s, window)]]) for s in self.samples
               if (s, window) in self.cov}
        return {s: ll for s, ll in lls.items() if self._known_peaks(s, window, ll) is None}

    def warm(self, window: int) -> None:
        """Start, in the background, what showing ``window`` needs: its paths and the
        solves of the current model (the page's first window, as the server starts)."""
        self.prepare(window)
        for s, ll in self._missing(window).items():
            self._solve_future(s, window, ll)

    def solve_missing(self, window: int) -> None:
        """Solve, two samples at a time, the samples of ``window`` whose model lies
        beyond what their path (or the solves kept) say."""
        futures = [self._solve_future(s, window, ll) for s, ll in self._missing(window).items()]
        for f in futures:
            f.result()

    def peaks(self, sample: str, window: int) -> pd.DataFrame:
        """The peaks ``chromStart, chromEnd`` of the current model in a (sample, window)
        (the path's model at its log λ, else a solve at that penalty, kept), reported as
        ``penlearn peaks`` writes them (:func:`~penlearn.peaks.peakseg.reported_segments`)."""
        if (sample, window) not in self.cov:
            return pd.DataFrame({"chromStart": [], "chromEnd": []}, dtype=np.int64)
        ll = float(self.log_lambda[self.ids_by[(sample, window)]])
        segs = self._known_peaks(sample, window, ll)
        if segs is None:
            self._solve_future(sample, window, ll).result()
            segs = self._from_solves(sample, window, ll)
        r = reported_segments(segs)
        return r.loc[r["status"] == "peak", ["chromStart", "chromEnd"]].reset_index(drop=True)

    # -- learning ---------------------------------------------------------------------------
    def learn_labels(self) -> pd.DataFrame:
        """The labels inside one window, with the window index (the others are shown but
        not learned from)."""
        lab = self.labels
        w = self.windows
        win = np.full(len(lab), -1)
        for i, r in enumerate(lab.itertuples(index=False)):
            inside = np.flatnonzero((w["chrom"].to_numpy() == r.chrom)
                                    & (w["chromStart"].to_numpy() <= r.chromStart)
                                    & (w["chromEnd"].to_numpy() >= r.chromEnd))
            win[i] = inside[0] if len(inside) else -1
        return lab.assign(window=win)

    def evaluation(self) -> pd.DataFrame:
        """The error functions of every labeled (sample, window), from the kept paths."""
        lab = self.learn_labels()
        lab = lab[lab["window"] >= 0]
        parts = []
        for (sid, i), g in lab.groupby(["sample_id", "window"], sort=True):
            if (sid, int(i)) not in self.cov:
                continue
            key = (sid, int(i), tuple(map(tuple, g[LABEL_FILE_COLUMNS[2:]].to_numpy())))
            if key not in self._errors:  # only the (sample, window)s whose labels changed
                self._errors[key] = path_error_functions(
                    self.path(sid, int(i)), g, sequence_id=self.ids_by[(sid, int(i))])
            parts.append(self._errors[key])
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    def refit(self) -> None:
        """Re-learn from the labels so far (:mod:`penlearn.label.learning`): what
        ``penlearn learn`` learns, at once while that is the prior's level shift; beyond,
        at once the quick refit (the last learned ranking, its level shifted to the
        labels) and the learners in the worker process, whose model replaces the quick
        one if no label changed meanwhile (``model_version`` counts the models)."""
        with self.lock:
            ev = self.evaluation()
            self.evaluation_ = ev
            if len(ev) == 0:
                self._set_model(self.start_model, self.zero.notice()
                                if self.start_model is None else "the given model")
                return
            self._process_warm()
            if learned_at_once(ev):
                self._set_learned(full_refit(self.features, ev, self.prior))
                return
            model = quick_refit(self.base_model, self.features, ev)
            self._set_model(model, model.describe())
            version = self.version
            self._learning = self._learner.submit(self._learn, version, ev)

    def _process_warm(self) -> None:
        if not self._warmed:  # the worker's imports, before it is needed
            self._warmed = True
            self._process.warm()

    def _learn(self, version: int, ev: pd.DataFrame) -> None:
        time.sleep(LEARN_DELAY)  # labels often come in bursts: learn after the last one
        if version != self.version:
            return  # a later change queued its own
        model = self._process.run(self.features, ev, self.prior)
        with self.lock:
            if model is not None and version == self.version:
                self._set_learned(model)

    def _set_learned(self, model) -> None:
        if rankable(model):
            self.base_model = model
        self._set_model(model, model.describe())

    def _predict(self, model) -> pd.Series:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # clipped features: said in the docs
            if model is None:
                return self.zero_log_lambda.copy()
            return pd.Series(model.predict(self.features), index=self.features.index)

    def _set_model(self, model, note: str) -> None:
        ll = self._predict(model)
        self.model, self.model_note, self.log_lambda = model, note, ll
        self.model_version += 1

    def wait_learning(self, timeout: float | None = None) -> None:
        """Wait for the background learner (its model is then the page's)."""
        fut = self._learning
        if fut is not None:
            fut.result(timeout)

    def save_model(self) -> Path:
        """Write what ``penlearn learn`` writes from the labels so far (with the coverage
        in one folder with the labels file) where ``model_out`` says, and show it: learned
        on ``learn``'s sequences, each sample's chromosome
        (:func:`~penlearn.label.learning.command_refit`), not on the page's windows,
        which the page's refits learn on (so the two can differ). No label yet: the
        page's starting model."""
        if self.model_out is None:
            raise ValueError("no model file was given (penlearn label --out MODEL.json)")
        self.wait_learning()  # (its model must not replace the saved one afterwards)
        with self.lock:
            lab = self.labels[self.labels["sample_id"].isin(self.samples)]
            model = self.model if self.model is not None else self.zero.model
            if len(lab):
                model = command_refit(self.coverage, lab[LABEL_FILE_COLUMNS], self.prior,
                                      self.max_peaks)
                self._set_learned(model)
            model.save(self.model_out)
            self.saved_note = model.describe()
        return self.model_out

    # -- the page's view ---------------------------------------------------------------------
    @property
    def can_undo(self) -> bool:
        """Whether there is a change to undo."""
        return len(self._undo) > 0

    def view(self, window: int, coverage: bool = True) -> dict:
        """Everything the page draws of one window (:func:`~penlearn.label.page_json.
        window_view`)."""
        return window_view(self, window, coverage)

    # -- "Next" ------------------------------------------------------------------------------
    def labeled_windows(self) -> set[int]:
        """The windows holding a label."""
        return {int(i) for i in self.learn_labels()["window"] if i >= 0}

    def next_window(self, current: int) -> NextWindow:
        """The next window worth labeling by ``penlearn propose``'s rule
        (:class:`~penlearn.label.proposals.PageNext`): the window of a (sample, window)
        holding no label, of a window not left by "Next" before while any is (``window``
        None: every (sample, window) holds a label), with the sample and the reason."""
        return self.next.propose(current)

    def resume_window(self) -> int:
        """Where a reopened page starts: the last window (genome order) holding a label,
        else the first."""
        win = [int(i) for i in self.learn_labels()["window"] if i >= 0]
        return max(win) if win else 0

    def chrom_sizes(self) -> dict[str, int]:
        """Each chromosome's extent in the coverage (the page's reference: names and
        lengths only, no sequence)."""
        return {str(c): int(g["chromEnd"].max())
                for c, g in self.windows.groupby("chrom", sort=False)}
