"""Where ``penlearn peaks`` (and ``joint``) save each finished window: the parts folder
of a run and its manifest (:mod:`penlearn.peaks.peakseg.parts`)."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from pathlib import Path

from penlearn._version import package_version
from penlearn.atomic_files import derived_path
from penlearn.cli._common import _Reporter
from penlearn.peaks.formats.coverage import coverage_files
from penlearn.peaks.peakseg.parts import run_parts_folder

__all__ = ["parts_folder"]


def _coverage_paths(args) -> list:
    """The COVERAGE arguments as a list (one path or several, one sample each)."""
    return list(args.coverage) if isinstance(args.coverage, (list, tuple)) \
        else [args.coverage]


def parts_folder(out: Path) -> Path:
    """Where ``penlearn peaks --out OUT`` saves its finished windows: ``OUT.penlearn-parts``.

    Examples
    --------
    >>> parts_folder(Path("results/peaks")).as_posix()
    'results/peaks.penlearn-parts'
    """
    return derived_path(out, ".penlearn-parts")  # within NAME_MAX for any valid OUT


def _manifest(args) -> dict:
    """What the run was made from: the coverage files (size and mtime: a record, the
    parts' own keys are content digests), the model (BLAKE2 of its bytes) or penalty."""
    files = [f for c in _coverage_paths(args) + [
        c.split("=", 1)[-1] for c in getattr(args, "control", None) or []] for f in (
        coverage_files(Path(c)) if Path(c).is_dir() else [(None, Path(c))])]
    inputs = {"coverage": [{"path": str(p), "bytes": p.stat().st_size,
                            "mtime_ns": p.stat().st_mtime_ns} for _, p in files],
              "model": None if args.model is None else {
                  "path": str(args.model),
                  "blake2b": hashlib.blake2b(Path(args.model).read_bytes()).hexdigest()},
              "penalty": args.penalty, "log_penalty": getattr(args, "log_penalty", None)}
    return {"penlearn": package_version(), "inputs": inputs}


@contextlib.contextmanager
def _open_parts(args, out: Path, report: _Reporter) -> Iterator[Path]:
    """The parts folder of this run (:func:`run_parts_folder`: never through a symlink,
    removed once the outputs are written, left after a failure only where it holds parts
    to resume from), its manifest (re)written; an earlier run's manifest with other
    inputs is reported (its parts stay valid where the window's coverage and log λ are
    unchanged)."""
    parts = parts_folder(out)
    with run_parts_folder(parts, _manifest(args), fresh=args.no_resume) as changed:
        if changed:
            report(f"{parts}: an interrupted run of other inputs, model or penalty; only "
                   "its windows of unchanged coverage and log λ are reused")
        yield parts
