"""The page's "Next": the window worth labeling by ``penlearn propose``'s rule.

The rule is :func:`penlearn.learn.propose.propose_from_paths` (its module says why): the
(sample, window) whose model-selection path changes most where the penalty's level
likely is, given the labels so far. On the page:

- **candidates**: every (sample, window) that holds no label
  (:func:`~penlearn.peaks.label_windows.unlabeled_sequences`, the rule ``penlearn
  propose`` proposes from too), but those of the windows left with "Next" before (the
  page remembers them for the session) while any other is left: once every candidate
  was left, they are candidates again, so "Next" says nothing is left exactly when
  ``penlearn propose`` proposes nothing. Next goes to the window of the proposed
  (sample, window) and says which sample and why (the rule's ``reason``);
- **labeled**: the error functions of the labeled (sample, window)s, exact, from the
  page's kept paths (:meth:`LabelState.evaluation <penlearn.label.state.LabelState.evaluation>`);
- **log λ**: the ranking of the page's current model at the level of the page's model
  before any label (:func:`ranking_at_start_level`). The rule is about the shift s of a
  ranking, and its prior on s (``exp(−s²/2σ²)``,
  :func:`~penlearn.learn.level_shift.likely_shifts`) is the spread of data sets' levels
  around the shipped model's: the labels enter once, through their errors E(s). The
  current model itself is already shifted to the labels (the page's quick refit), so
  with it the labels would count twice (the prior centred on their own shift); with
  the shipped model alone a ranking learned from many labels would be ignored;
- **paths**: a candidate's exact path where the page computed it (a window shown
  before), else a sketch (:func:`penlearn.peaks.propose.sketch_paths`): its peak counts
  at log λ on the dyadic grid spanning the likely shifts' 5–95 % quantiles
  (:func:`sketch_log_lambdas`: about :data:`~penlearn.peaks.propose.PATH_POINTS`
  points, like ``penlearn propose``). Each (sample, window)'s solved points are kept
  for the session (:class:`Sketches`); a press sketches from every point a press asked
  for so far (later presses refine earlier sketches; points solved only in the
  background are used once a press asks for them, so the proposal does not depend on
  how far the background got, but for which (sample, window)s fit in the bound below);
- **bound**: a press considers the (sample, window)s of at most :data:`SKETCH_WINDOWS`
  free windows, taken in one fixed shuffled order of the windows (seed 0, the same at
  every press: a random sample of the genome), and solves itself at most
  :data:`SKETCH_ROWS` coverage rows: a (sample, window) with points still to solve is
  left out of this press when its rows do not fit (the first always fits); those with
  an exact path or all their points solved always count.

The page pre-solves the points the next press will ask for in its path worker, after
the paths of the window in view (:meth:`PageNext.ahead`, from :meth:`LabelState.prepare
<penlearn.label.state.LabelState.prepare>`), one (sample, window) per task, and only
while the page is idle (:data:`SKETCH_IDLE` seconds after the last label, no path of a
shown window and no learner running): the labels' round trip and the paths of a shown
window go first.
"""

from __future__ import annotations

import math
import threading
import time
from typing import NamedTuple

import numpy as np
import pandas as pd

from penlearn.learn.propose import PATH_COLUMNS, propose_from_paths
from penlearn.peaks.label_windows import unlabeled_sequences
from penlearn.peaks.propose import PATH_POINTS, sketch_paths, sketch_shifts

__all__ = ["NOTHING_LEFT", "SKETCH_IDLE", "SKETCH_ROWS", "SKETCH_WINDOWS", "NextWindow",
           "PageNext", "Plan",
           "Sketches", "page_proposal", "plan_next", "plan_paths", "ranking_at_start_level",
           "sketch_log_lambdas", "solve_points", "window_order"]

#: Most coverage rows a press of "Next" solves sketches of (about 1.5 s of solves on one
#: core); the path worker solves the rest ahead.
SKETCH_ROWS = 50_000
#: Most windows a press of "Next" considers.
SKETCH_WINDOWS = 64
#: Seconds after a label before the path worker sketches ahead again (labels come in
#: bursts; their round trip goes first).
SKETCH_IDLE = 1.0
#: What "Next" says when every (sample, window) holds a label.
NOTHING_LEFT = "every sample of every window holds a label: nothing left to propose"
#: Finest and coarsest grid step of a sketch (log λ).
_STEPS = (2.0 ** -4, 2.0 ** 2)


class NextWindow(NamedTuple):
    """What "Next" proposes: the ``window`` index (None: no window left), the
    (sample, window) ``sequence_id`` the rule chose and its ``reason``."""

    window: int | None
    sequence_id: str | None
    reason: str


def sketch_log_lambdas(lo: float, hi: float) -> np.ndarray:
    """The log λ at which a window's path is sketched to cover ``[lo, hi]``: the
    multiples of a power-of-two step, from the one at or below ``lo`` to the one at or
    above ``hi``; the step is the smallest power of two (within 1/16..4) that is at
    least a :data:`~penlearn.peaks.propose.PATH_POINTS` − 1-th of the range. The grids
    nest, so a narrower range (more labels) reuses the points of the wider ones.

    Examples
    --------
    >>> sketch_log_lambdas(5.7, 12.3).tolist()
    [4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
    >>> sketch_log_lambdas(8.2, 9.9).tolist()
    [8.0, 8.5, 9.0, 9.5, 10.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ValueError(f"the range of log λ must be finite with lo <= hi, got {lo}, {hi}")
    step = 2.0 ** math.ceil(math.log2(max(hi - lo, 1e-12) / (PATH_POINTS - 1)))
    step = min(max(step, _STEPS[0]), _STEPS[1])
    return step * np.arange(math.floor(lo / step), math.ceil(hi / step) + 1)


def ranking_at_start_level(current: pd.Series, start: pd.Series) -> pd.Series:
    """The current model's log λ moved, all by one constant, to the level of the
    model before any label: ``current − median(current − start)`` (the current model's
    ranking; for a shifted start model, the start model itself).

    Examples
    --------
    >>> now, start = pd.Series([3.0, 5.0, 4.0]), pd.Series([1.0, 2.0, 3.0])
    >>> ranking_at_start_level(now, start).tolist()  # now − 2
    [1.0, 3.0, 2.0]
    """
    return current - float(np.median((current - start.reindex(current.index)).to_numpy()))


def window_order(free, n_windows: int, most: int = SKETCH_WINDOWS) -> list[int]:
    """The free windows a press considers: the first ``most`` of them in one fixed
    shuffled order of the ``n_windows`` windows (seed 0: the same at every press, a
    random sample of the genome).

    Examples
    --------
    >>> window_order([0, 1, 2, 3], 4, most=3)
    [2, 0, 1]
    """
    free = {int(i) for i in free}
    order = [int(i) for i in np.random.default_rng(0).permutation(n_windows) if i in free]
    return order[:most]


class Sketches:
    """Each (sample, window)'s solved points ``{log λ: peak count}`` (thread safe), and
    the points a press asked for (what its sketch is drawn from).

    Examples
    --------
    >>> sk = Sketches()
    >>> sk.store(("a", 0), {1.0: 3})
    >>> sk.missing(("a", 0), [1.0, 2.0])
    [2.0]
    """

    def __init__(self):
        self._solved: dict = {}
        self._asked: dict = {}
        self._lock = threading.Lock()
        self._key_locks: dict = {}

    def solve(self, key, coverage: pd.DataFrame, log_lambdas) -> bool:
        """Solve the points of ``log_lambdas`` missing for ``key`` (one thread per key at
        a time: a second waits, then finds them solved). Returns whether any was."""
        with self._lock:
            lock = self._key_locks.setdefault(key, threading.Lock())
        with lock:
            todo = self.missing(key, log_lambdas)
            if todo:
                self.store(key, solve_points(coverage, todo))
            return bool(todo)

    def missing(self, key, log_lambdas) -> list[float]:
        """The points of ``log_lambdas`` not solved yet for ``key``."""
        with self._lock:
            have = self._solved.get(key, {})
            return [float(x) for x in log_lambdas if float(x) not in have]

    def store(self, key, counts: dict[float, int]) -> None:
        """Keep solved points ``{log λ: peak count}`` of ``key``."""
        with self._lock:
            self._solved.setdefault(key, {}).update(counts)

    def ask(self, key, log_lambdas) -> None:
        """A press uses these points of ``key`` (now and at every later press)."""
        with self._lock:
            self._asked.setdefault(key, set()).update(float(x) for x in log_lambdas)

    def points(self, key, sequence_id: str) -> pd.DataFrame:
        """The asked points of ``key`` (all solved): ``sequence_id, log_lambda, peaks``."""
        with self._lock:
            ll = sorted(self._asked.get(key, ()))
            peaks = [self._solved[key][x] for x in ll]
        return pd.DataFrame({"sequence_id": sequence_id, "log_lambda": ll, "peaks": peaks})


def solve_points(coverage: pd.DataFrame, log_lambdas) -> dict[float, int]:
    """The peak count of PeakSeg's model of ``coverage`` at each log λ.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> solve_points(cov, [0.0, 9.0])
    {0.0: 1, 9.0: 0}
    """
    from penlearn.peaks.peakseg.solver import peakseg

    return {float(x): int(peakseg(coverage, math.exp(x)).n_peaks) for x in log_lambdas}


def page_proposal(paths: pd.DataFrame, log_lambda: pd.Series, evaluation, window_of: pd.Series
                  ) -> NextWindow:
    """The rule on the page's candidates: ``propose_from_paths(paths, log_lambda, 1,
    labeled=evaluation)`` and the window of the (sample, window) it proposes.

    Examples
    --------
    >>> paths = pd.DataFrame({"sequence_id": ["a", "a", "b", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 9.0, -np.inf, 0.5, 1.0],
    ...     "max_log_lambda": [9.0, np.inf, 0.5, 1.0, np.inf]})
    >>> page_proposal(paths, pd.Series({"a": 0.0, "b": 0.0}), None,
    ...               pd.Series({"a": 3, "b": 7})).window
    7
    """
    if len(paths) == 0:
        return NextWindow(None, None, NOTHING_LEFT)
    ev = evaluation if evaluation is not None and len(evaluation) else None
    out = propose_from_paths(paths[list(PATH_COLUMNS)], log_lambda, 1, labeled=ev)
    sid = str(out["sequence_id"].iloc[0])
    return NextWindow(int(window_of[sid]), sid, str(out["reason"].iloc[0]))


class Plan(NamedTuple):
    """A press's inputs: the candidate (sample, window)s in order (genome, then the
    page's samples), their exact path rows where computed, the log λ to sketch the
    others at, the rule's log λ and the labeled windows' error functions."""

    keys: list
    exact: dict
    wanted: dict
    log_lambda: pd.Series
    evaluation: pd.DataFrame | None


def plan_next(free, samples, rows: dict, exact: dict, log_lambda: pd.Series,
              evaluation, ids_by: dict, *, n_windows: int, sketches: Sketches | None = None,
              budget: float = SKETCH_ROWS) -> Plan:
    """What a press of "Next" needs: the candidate (sample, window)s ``free`` (their
    windows in :func:`window_order`), each with its exact path (``exact``: key → path
    rows) or
    the log λ to sketch it at (:func:`sketch_log_lambdas` over its ``log_lambda`` + the
    likely shifts' 5–95 % quantiles, :func:`~penlearn.peaks.propose.sketch_shifts`).

    The (sample, window)s are taken window by window in :func:`window_order` (samples
    in the page's order) while the coverage rows of those with points still to solve
    (``sketches``; None: all) fit in ``budget`` (at least one); those with an exact path
    or all their points solved always count. ``rows``: the coverage rows of each
    (sample, window) that has any; ``ids_by``: (sample, window) → sequence id.

    Examples
    --------
    >>> p = plan_next([("a", 0)], ["a"], {("a", 0): 9}, {}, pd.Series({"a/w0": 8.0}), None,
    ...               {("a", 0): "a/w0"}, n_windows=1)
    >>> p.keys, p.wanted[("a", 0)].tolist()
    ([('a', 0)], [4.0, 6.0, 8.0, 10.0, 12.0])
    """
    ev = evaluation if evaluation is not None and len(evaluation) else None
    q = sketch_shifts(ev, log_lambda)
    chosen, wanted, used = set(), {}, 0
    free = {(str(s), int(i)) for s, i in free}
    for i in window_order({i for _, i in free}, n_windows):
        for s in samples:
            key = (s, i)
            if key not in rows or key not in free:
                continue
            cost = 0
            if key not in exact:
                base = float(log_lambda[ids_by[key]])
                at = sketch_log_lambdas(base + q[0], base + q[-1])
                if sketches is None or sketches.missing(key, at):
                    cost = rows[key]
            if chosen and used + cost > budget:
                continue
            chosen.add(key)
            used += cost
            if key not in exact:
                wanted[key] = at
    keys = sorted(chosen, key=lambda k: (k[1], samples.index(k[0])))
    return Plan(keys, {k: exact[k] for k in keys if k in exact},
                {k: wanted[k] for k in keys if k in wanted}, log_lambda, ev)


def plan_paths(plan: Plan, sketches: Sketches, ids_by: dict) -> pd.DataFrame:
    """The candidates' path rows (``sequence_id, min_log_lambda, max_log_lambda``), in
    the plan's order: exact where computed, else sketched from the points asked so far.

    Examples
    --------
    >>> sk = Sketches()
    >>> sk.store(("a", 0), {0.0: 2, 2.0: 0})
    >>> sk.ask(("a", 0), [0.0, 2.0])
    >>> plan = Plan([("a", 0)], {}, {("a", 0): [0.0, 2.0]}, pd.Series({"a/w0": 1.0}), None)
    >>> plan_paths(plan, sk, {("a", 0): "a/w0"})["max_log_lambda"].round(2).tolist()
    [0.67, 1.33, inf]
    """
    parts = []
    for key in plan.keys:
        sid = ids_by[key]
        if key in plan.exact:
            parts.append(plan.exact[key][["min_log_lambda", "max_log_lambda"]]
                         .assign(sequence_id=sid)[list(PATH_COLUMNS)])
        else:
            parts.append(sketch_paths(sketches.points(key, sid))[list(PATH_COLUMNS)])
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object if c == "sequence_id" else float)
                             for c in PATH_COLUMNS})
    return pd.concat(parts, ignore_index=True)


class PageNext:
    """"Next" on a labeling page (thin: the rule is the functions above): the windows
    left with it, the sketches kept, and their solving ahead of the next press.

    Parameters
    ----------
    page : LabelState
        The page (its labels, model, kept paths and coverage are read).
    submit : callable
        Runs a task in the page's path worker (``ThreadPoolExecutor.submit``).
    budget : int
        :data:`SKETCH_ROWS`.

    Examples
    --------
    >>> PageNext.__name__
    'PageNext'
    """

    def __init__(self, page, submit, budget: int = SKETCH_ROWS):
        self.page, self.submit, self.budget = page, submit, budget
        self.seen: set = set()  # (sample, window)s left with "Next": proposed after others
        self.sketches = Sketches()
        self._lock = threading.Lock()
        self._running = False  # a chain of sketch tasks is queued in the path worker
        self._version, self._changed = None, 0.0  # the labels' version, when it changed

    def plan(self, blocking: bool = True, budget: float = math.inf) -> Plan | None:
        """The inputs of a press now (:func:`plan_next`); None when ``blocking`` is False
        and the page's lock is taken (a label's refit may be waiting for the path
        worker: the worker must not wait for that lock)."""
        pg = self.page
        if not pg.lock.acquire(blocking=blocking):
            return None
        try:
            free = self.candidates()
            ev, ll = pg.evaluation_, ranking_at_start_level(pg.log_lambda, pg.start_log_lambda)
            fresh = free - self.seen
        finally:
            pg.lock.release()
        rows = {k: len(v) for k, v in pg.cov.items()}
        exact = {}
        for s, i in rows:
            path = pg._kept_path(s, i)
            if path is not None:
                exact[(s, i)] = path.models
        return plan_next(fresh or free, pg.samples, rows, exact, ll, ev, pg.ids_by,
                         n_windows=len(pg.windows), sketches=self.sketches, budget=budget)

    def candidates(self) -> set:
        """The (sample, window)s left to propose, labeled or not by the labels now
        (:func:`~penlearn.peaks.label_windows.unlabeled_sequences`, as ``penlearn
        propose``), as ``(sample, window)`` keys."""
        pg = self.page
        with pg.lock:
            ids = unlabeled_sequences(pg.sequences, pg.labels)
        key = pg.key_of
        return {key[i] for i in ids}

    def propose(self, current: int) -> NextWindow:
        """Leave window ``current`` and propose the next (sketches not solved ahead are
        solved here, outside the page's lock: labels are not held up): a (sample,
        window) of no label, one of a window not left before while any is."""
        with self.page.lock:
            self.seen.update((s, int(current)) for s in self.page.samples)
            if not self.candidates() - self.seen:  # every candidate left: a new round
                self.seen = {(s, int(current)) for s in self.page.samples}
        plan = self.plan(budget=self.budget)
        for key, lls in reversed(plan.wanted.items()):  # the path worker goes forwards
            self.sketches.ask(key, lls)
            self.sketches.solve(key, self.page.cov[key], lls)
        out = page_proposal(plan_paths(plan, self.sketches, self.page.ids_by),
                            plan.log_lambda, plan.evaluation, self.page.window_of)
        self.ahead()
        return out

    def ahead(self) -> None:
        """Solve, in the path worker, the sketches the next press will ask for: one
        (sample, window) per task, each queueing the next (a window shown meanwhile has
        its paths queued before the next one), until none is missing."""
        with self._lock:
            if self._running:
                return
            self._running = True
        try:
            self.submit(self._step)
        except RuntimeError:  # the page is closing
            self._running = False

    def _idle(self) -> bool:
        """Whether the page is idle: no label for :data:`SKETCH_IDLE` seconds, no path
        of a shown window or learner running (:meth:`LabelState.busy
        <penlearn.label.state.LabelState.busy>`)."""
        if self.page.version != self._version:
            self._version, self._changed = self.page.version, time.monotonic()
        return time.monotonic() - self._changed >= SKETCH_IDLE and not self.page.busy()

    def _step(self) -> None:
        again = False
        try:
            plan = self.plan(blocking=False) if self._idle() else None
            if plan is None:  # the user's work first (and a refit may wait for a path)
                time.sleep(0.1)
                again = True
            else:
                for key, lls in plan.wanted.items():
                    if self.sketches.solve(key, self.page.cov[key], lls):
                        again = True
                        break
            if again:
                self.submit(self._step)
        except RuntimeError:  # the page is closing
            again = False
        finally:
            if not again:
                self._running = False

    def wait(self, timeout: float = 600.0) -> None:
        """Wait until the path worker has solved what the next press asks for."""
        t0 = time.monotonic()
        while self._running and time.monotonic() - t0 < timeout:
            time.sleep(0.02)
