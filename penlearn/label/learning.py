"""The page's refits: what ``penlearn learn`` learns from the labels so far, at once when
that is cheap, else a quick stand-in at once and the learners in a worker process.

Up to :data:`~penlearn.learn.level_shift.SHIFT_MAX_SEQUENCES` labeled (sample, window)s
(or too few labels to learn anything) ``learn_penalty(..., prior=...)`` is the prior's
level shifted to the labels (:func:`penlearn.learn.level_shift.shifted_prior`, a
breakpoint scan: milliseconds), so the page computes it at once and that is the model
(:func:`learned_at_once`). With more labeled sequences ``learn_penalty`` cross-validates
its learners (seconds): the page then shows at once the quick refit (the weights of the
last model the learners chose, its level shifted to the labels) and runs the full refit
in a worker process (:class:`LearnerProcess`: the learners do not hold the server's
interpreter lock, so the round trips of the labels that follow stay fast).
"""

from __future__ import annotations

import pickle
import struct
import subprocess
import sys
import threading
import warnings

import pandas as pd

from penlearn.datasets import finite_feature_columns
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.level_shift import SHIFT_MAX_SEQUENCES, shifted_prior
from penlearn.learn.prior import PRIOR_MAX_SEQUENCES, shift_prior, too_few_labels

__all__ = ["LearnerProcess", "command_refit", "full_refit", "learned_at_once", "quick_refit",
           "rankable", "serve"]


def rankable(model) -> bool:
    """Whether ``model`` can be shifted (a fitted linear or constant model, no trees).

    Examples
    --------
    >>> from penlearn.peaks.pretrained import load_pretrained
    >>> rankable(load_pretrained().model), rankable(None)
    (True, False)
    """
    return isinstance(model, PenaltyModel) and hasattr(model, "history_") \
        and not getattr(model, "trees_", None)


def learned_at_once(evaluation: pd.DataFrame) -> bool:
    """Whether :func:`full_refit` is the level shift of the prior (cheap): too few labels
    to learn and validate a model, or at most
    :data:`~penlearn.learn.level_shift.SHIFT_MAX_SEQUENCES` labeled sequences.

    Examples
    --------
    >>> learned_at_once(pd.DataFrame({"sequence_id": ["a", "b"], "possible_fp": 1,
    ...                               "possible_fn": 1}))
    True
    """
    return too_few_labels(evaluation) is not None \
        or evaluation["sequence_id"].nunique() <= SHIFT_MAX_SEQUENCES


def quick_refit(base: PenaltyModel, features: pd.DataFrame, evaluation: pd.DataFrame
                ) -> PenaltyModel:
    """``base`` with its level shifted to the labels of ``evaluation`` (its weights kept).

    Examples
    --------
    >>> import numpy as np
    >>> from penlearn.learn.prior import constant_model
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 2.0],
    ...     "max_log_lambda": [2.0, np.inf], "fp": [1, 0], "fn": [0, 0], "errors": [1, 0],
    ...     "possible_fp": 1, "possible_fn": 0, "labels": 1})
    >>> quick_refit(constant_model(["x"], 0.0), pd.DataFrame({"x": [0.0]}, index=["a"]),
    ...             ev).intercept_
    2.34
    """
    ids = list(pd.unique(evaluation["sequence_id"]))
    model = shifted_prior(base, features.loc[ids], evaluation,
                          "the page's quick refit (the learners run in the background)")
    model.task_ = "peaks"
    return model


def full_refit(features: pd.DataFrame, evaluation: pd.DataFrame, prior: PenaltyModel
               ) -> PenaltyModel:
    """What ``penlearn learn`` learns from these labels: ``learn_penalty`` with the shipped
    model as the prior (too few labels: shifted; at most
    :data:`~penlearn.learn.prior.PRIOR_MAX_SEQUENCES` labeled sequences: a candidate of
    ``model="auto"``); a cross-validation that cannot fit falls back to the shifted prior.
    ``features``: every (sample, window) of the page (the finite columns are chosen on
    all of them, as ``penlearn learn`` does on its folder)."""
    ids = list(pd.unique(evaluation["sequence_id"]))
    few = too_few_labels(evaluation) is not None
    x = features.loc[ids] if few else features.loc[ids, finite_feature_columns(features)]
    use_prior = prior if few or len(ids) <= PRIOR_MAX_SEQUENCES else None
    with warnings.catch_warnings():  # (a thread: no redirect of the process's stdout)
        warnings.simplefilter("ignore")
        try:
            model = learn_penalty(x, evaluation, prior=use_prior, progress=False)
        except ValueError as exc:  # e.g. no candidate fits every CV fold
            model = shift_prior(prior, features.loc[ids], evaluation,
                                f"learning failed ({exc})")
    model.task_ = "peaks"
    return model


def command_refit(coverage: pd.DataFrame, labels: pd.DataFrame, prior: PenaltyModel,
                  max_peaks: int) -> PenaltyModel:
    """What ``penlearn learn FOLDER`` writes for this coverage and these labels (the
    page's *Save model*): its labeled sequences, not the page's windows: each sample's
    chromosome is one sequence (:func:`~penlearn.peaks.peakseg.evaluation.
    peak_error_functions`' default windows, the paths computed again over them), their
    36 features, then :func:`full_refit` (the finite columns chosen on the labeled
    sequences, as ``learn`` chooses them on its folder's), and the narrow rule if the
    labels take it (:func:`~penlearn.peaks.pretrained.learned_rule.attach_rule`).

    Examples
    --------
    >>> from penlearn.peaks.pretrained import load_pretrained
    >>> cov = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> lab = pd.DataFrame({"sample_id": ["a"], "chrom": "chr1", "chromStart": [15],
    ...                     "chromEnd": [25], "annotation": ["peakStart"]})
    >>> command_refit(cov, lab, load_pretrained().model, 10).task_
    'peaks'
    """
    from penlearn.peaks.peakseg.evaluation import peak_error_functions
    from penlearn.peaks.peakseg.features import coverage_features
    from penlearn.peaks.pretrained.learned_rule import attach_rule

    ev = peak_error_functions(coverage, labels, max_peaks=max_peaks, progress=False)
    ids = list(dict.fromkeys(ev["sequence_id"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # log of 0 features: as learn reads them
        features = coverage_features(coverage).loc[ids]
    model = full_refit(features, ev, prior)
    attach_rule(model, coverage, labels, ids=ids)  # as learn: the narrow rule, by the labels
    return model


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError("the learner process ended")
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the learner process ended")
    return pickle.loads(data)


def serve(stdin=None, stdout=None) -> None:
    """The worker's loop (``python -m penlearn.label.learning``): read (features,
    evaluation, prior), answer ``("ok", model)`` or ``("error", message)``, until the
    input ends or the page is gone (its pipes closed: the worker ends quietly)."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    while True:
        try:
            features, evaluation, prior = _receive(stdin)
        except (EOFError, OSError):
            return
        try:
            answer = ("ok", full_refit(features, evaluation, prior))
        except Exception as exc:  # noqa: BLE001  (the page learns in-process instead)
            answer = ("error", f"{type(exc).__name__}: {exc}")
        try:
            _send(stdout, answer)
        except OSError:  # the page stopped meanwhile
            return


def _worker_command() -> list[str]:
    """The worker's command line: an isolated interpreter (``-I``: no working directory,
    no ``PYTHONPATH``, no user site on its path, so a ``pickle.py`` in the folder the user
    starts from is never imported) whose ``sys.path`` is this process's own, less the
    working directory: the same penlearn and the same libraries, a checkout put on
    ``sys.path`` by hand too."""
    import os

    cwd = os.getcwd()
    path = [p for p in sys.path if p and os.path.abspath(p) != cwd]
    from pathlib import Path

    import penlearn

    root = str(Path(penlearn.__file__).resolve().parents[1])
    if root not in path:
        path.insert(0, root)
    code = (f"import sys; sys.path[:] = {path!r}; "
            "from penlearn.label.learning import _worker_main; _worker_main()")
    return [sys.executable, "-I", "-c", code]


def _worker_main() -> None:
    """Run :func:`serve` as the worker process and end it with status 0 whatever
    happened to its pipes: the page may close them at any time (a stopped or killed
    page), and a flush of a closed pipe at the interpreter's shutdown would otherwise
    end it with status 120 and a message on stderr."""
    import os
    import signal

    # Ctrl-C in the terminal reaches the whole process group: the page stops its worker
    # itself (and a page that is gone closes the pipes), so no traceback of ours follows
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    status = 0
    try:
        serve()
    except BaseException:  # noqa: BLE001  (nothing to report to: the page reads no stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


class LearnerProcess:
    """:func:`full_refit` in a worker process of its own (``python -m
    penlearn.label.learning``, pickles over its pipes), started at the first :meth:`warm`
    or :meth:`run` and kept for the page's life: the learners never hold the page
    server's interpreter lock. Not :mod:`multiprocessing`: its spawn and fork-server
    methods re-import the caller's main script (a script without a ``__main__`` guard
    would run again), and a fork of the threaded server could inherit a held lock. If
    the worker cannot start or dies, the refit runs in the calling thread.

    Examples
    --------
    >>> from penlearn.learn.prior import constant_model
    >>> rows = [("a", float("-inf"), 2.0, 1), ("a", 2.0, float("inf"), 0)]
    >>> ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
    ...                                  "fp"]).assign(fn=0, possible_fp=1, possible_fn=0,
    ...                                                labels=1, errors=lambda d: d["fp"])
    >>> proc = LearnerProcess()
    >>> m = proc.run(pd.DataFrame({"x": [0.0]}, index=["a"]), ev, constant_model(["x"], 0.0))
    >>> round(m.intercept_, 2), proc.in_process
    (2.34, False)
    >>> proc.shutdown()
    """

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._closed = False
        #: whether the last refit ran in the calling thread (the worker failed)
        self.in_process = False

    def warm(self) -> None:
        """Start the worker now (its imports take a second or two)."""
        with self._lock:
            self._start()

    def _start(self) -> subprocess.Popen | None:
        if self._closed:  # never a worker after shutdown (it would outlive the page)
            return None
        if self._proc is None or self._proc.poll() is not None:
            try:
                self._proc = subprocess.Popen(
                    _worker_command(),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    start_new_session=True)  # the terminal's Ctrl-C is the page's to handle
            except OSError:
                self._proc = None
            if self._closed and self._proc is not None:  # shut down meanwhile
                self._proc.kill()
                self._proc.wait()
                self._proc = None
        return self._proc

    def run(self, features: pd.DataFrame, evaluation: pd.DataFrame,
            prior: PenaltyModel) -> PenaltyModel | None:
        """The model of :func:`full_refit`, learned in the worker (None once
        :meth:`shutdown` was called: the page is gone)."""
        with self._lock:
            proc = self._start()
            if proc is not None:
                try:
                    _send(proc.stdin, (features, evaluation, prior))
                    status, value = _receive(proc.stdout)
                    if status == "ok":
                        self.in_process = False
                        return value
                except (OSError, EOFError, pickle.PickleError):
                    self._stop()
            if self._closed:
                return None
        self.in_process = True
        return full_refit(features, evaluation, prior)

    def _stop(self) -> None:
        if self._proc is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc.stdout.close()
            self._proc = None

    def shutdown(self) -> None:
        """End the worker (a refit running in it is abandoned) and start none again."""
        self._closed = True
        proc = self._proc  # (not under the lock: a refit waiting on the worker holds it)
        if proc is not None:
            proc.kill()
            proc.wait()
        if self._lock.acquire(blocking=False):  # else the refit sees the end and closes
            try:
                self._stop()
            finally:
                self._lock.release()


if __name__ == "__main__":
    _worker_main()
