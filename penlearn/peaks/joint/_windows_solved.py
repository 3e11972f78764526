"""The joint windows solved and described a chunk of windows at a time (issue 55).

:func:`solve_windows` takes the windows' coverage tables as they are cut (an iterator:
:func:`~penlearn.peaks.joint.windows.iter_window_tables`), solves
:data:`WINDOW_CHUNK` windows at a time (:func:`_solve_windows`: their paths, saved in
``parts`` as each is solved) and makes their (sample, window) coverage features
(:func:`_sample_window_features`), then drops their tables: the memory is one chunk's
tables, not every window's, and the features are made chunk by chunk, not over one
table of every window's rows at once. Each (sample, window) feature row depends on its
window's rows only (:func:`~penlearn.peaks.peakseg.features.coverage_features`), and
the rows are put back in the order of the whole table's (every window of the first
sample, then of the next), so the features, penalties and outputs are those of every
window at once (``tests/peaks/test_joint_chunks.py``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._executor import run_tasks
from penlearn.peaks.joint.errors import joint_path
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.peakseg.parts import frame_digest, part_key, read_part, write_part

__all__ = ["WINDOW_CHUNK", "solve_windows"]

#: windows solved (and their tables held) at a time
WINDOW_CHUNK = 1000


def _sample_window_features(tables: list, windows: pd.DataFrame, gaps: str
                            ) -> tuple[pd.DataFrame, np.ndarray]:
    """The 36 coverage features of each (sample, window), indexed ``<sample> <window>``,
    and the window id of each row."""
    chrom = dict(zip(windows["window_id"], windows["chrom"].astype(str)))
    cov = pd.concat([t.assign(chrom=chrom[wid]) for wid, t in tables], ignore_index=True)
    cov = cov[["sample_id", "chrom", "chromStart", "chromEnd", "count"]]
    samples = list(pd.unique(cov["sample_id"]))
    win = windows[["window_id", "chrom", "chromStart", "chromEnd"]]
    per = pd.concat([win.assign(sample_id=s) for s in samples], ignore_index=True)
    per["sequence_id"] = per["sample_id"] + "\t" + per["window_id"].astype(str)
    feats = coverage_features(cov, per, gaps=gaps)
    feats.index = (per["sample_id"] + " " + per["window_id"].astype(str)).to_numpy()
    return feats, per["window_id"].astype(str).to_numpy()


def _in_sample_order(chunks: list) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`_sample_window_features` of every window from ``(features, window ids,
    windows)`` of consecutive chunks of windows (each sample-major: every window of the
    chunk for its first sample, then for the next): the rows of every window for the
    first sample, then for the next, as one call on every window gives them."""
    if len(chunks) == 1:
        return chunks[0][:2]
    offsets = np.r_[0, np.cumsum([len(f) for f, _, _ in chunks])[:-1]]
    samples = len(chunks[0][0]) // chunks[0][2]
    order = np.concatenate([off + i * n + np.arange(n) for i in range(samples)
                            for off, (_, _, n) in zip(offsets, chunks)])
    feats = pd.concat([f for f, _, _ in chunks])
    ids = np.concatenate([w for _, w, _ in chunks])
    return feats.iloc[order], ids[order]


def _window_path(window: pd.DataFrame, solver: Callable, by: str, groups: dict):
    """One task: the joint fit of one window and its path over log λ."""
    fit = solver(window)
    return fit, joint_path(fit, by=by, groups=groups)


def _path_part(path: pd.DataFrame) -> pd.DataFrame:
    """A path as a part's table: the tuples of samples up as JSON text."""
    return path.assign(up=[json.dumps(list(u)) for u in path["up"]])


def _part_path(table: pd.DataFrame) -> pd.DataFrame:
    """The inverse of :func:`_path_part`."""
    return table.assign(up=[tuple(json.loads(u)) for u in table["up"]])


def _solve_windows(tasks: list, solver: Callable, *, by: str, groups: dict,
                   executor: Executor | None, parts, bar,
                   keep_fits: bool = True) -> tuple[dict, dict, int]:
    """``window_id -> path`` and ``window_id -> fit`` (windows solved here) of every
    ``(window_id, window coverage)`` task, and how many were taken from ``parts`` (where
    saved; the others are solved, in ``executor``, one task a window, and saved there);
    ``bar`` counts the windows."""
    paths, fits, keys = {}, {}, {}
    if parts is not None:
        Path(parts).mkdir(parents=True, exist_ok=True)
        solver_name = (f"{getattr(solver, '__module__', '')}."
                       f"{getattr(solver, '__qualname__', solver)}")
        for wid, window in tasks:
            keys[wid] = part_key("joint", window=str(wid), by=by, solver=solver_name,
                                 groups=sorted(groups.items()),
                                 coverage=frame_digest(window, list(window.columns)))
            table = read_part(parts, "joint", keys[wid])
            if table is not None:
                paths[wid] = _part_path(table)
    todo = [(wid, window) for wid, window in tasks if wid not in paths]
    bar.update(len(tasks) - len(todo))

    def finish(wid, fit, path) -> None:
        if parts is not None:
            write_part(parts, "joint", keys[wid], _path_part(path))
        paths[wid] = path
        fits.update({wid: fit} if keep_fits else {})
        bar.update()

    run_tasks(executor, _window_path,
              {wid: ((window, solver, by, groups), {}) for wid, window in todo},
              lambda wid, result: finish(wid, *result))
    order = [wid for wid, _ in tasks]
    return ({w: paths[w] for w in order}, {w: fits[w] for w in order if w in fits},
            len(tasks) - len(todo))


def solve_windows(tables: Iterable, windows: pd.DataFrame, solver: Callable, *, by: str,
                  groups: dict, executor: Executor | None, parts, progress: bool,
                  keep_fits: bool = True, features: bool = False, gaps: str = "fill",
                  chunk: int | None = None) -> tuple[dict, dict, int, tuple | None]:
    """Every window solved, ``chunk`` windows at a time: ``(paths, fits, reused,
    per)``, ``paths`` / ``fits`` / ``reused`` as :func:`_solve_windows` gives them for
    every window, ``per`` (with ``features``) the :func:`_sample_window_features` of
    every window (else None). ``tables``: the ``(window_id, window coverage)`` of
    ``windows``, in their order, taken ``chunk`` at a time and dropped once solved and
    described (default :data:`WINDOW_CHUNK`).

    Examples
    --------
    >>> from penlearn.peaks.joint.windows import window_coverage
    >>> cov = pd.DataFrame({"sample_id": list("aabb"), "chrom": "chr1",
    ...                     "chromStart": [0, 10] * 2, "chromEnd": [10, 20] * 2,
    ...                     "count": [1, 9, 1, 8]})
    >>> win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [0],
    ...                     "chromEnd": [20]})
    >>> from penlearn.peaks.joint.solver import joint_peak
    >>> paths, _, _, per = solve_windows(window_coverage(cov, win), win, joint_peak,
    ...     by="sample", groups={"a": "a", "b": "b"}, executor=None, parts=None,
    ...     progress=False, features=True)
    >>> list(paths), per[0].index.tolist()
    (['w'], ['a w', 'b w'])
    """
    from penlearn._progress import tqdm

    paths, fits, reused, described, first = {}, {}, 0, [], 0
    tables, chunk = iter(tables), chunk or WINDOW_CHUNK
    with tqdm(total=len(windows), disable=not progress, desc="joint windows") as bar:
        while tasks := list(itertools.islice(tables, chunk)):
            got = _solve_windows(tasks, solver, by=by, groups=groups, executor=executor,
                                 parts=parts, bar=bar, keep_fits=keep_fits)
            paths.update(got[0])
            fits.update(got[1])
            reused += got[2]
            if features:
                described.append((*_sample_window_features(
                    tasks, windows.iloc[first:first + len(tasks)], gaps), len(tasks)))
            first += len(tasks)
            del tasks, got
    return paths, fits, reused, _in_sample_order(described) if features else None
