"""Hostile ``--jobs`` / ``--scheduler`` values: zero, negative, fractional, text, absurdly
large, an unreachable or malformed scheduler, both at once. Each is refused with one line;
``--jobs 2`` gives the bytes of ``--jobs 1``, and ``--jobs 4096`` on 3 tasks starts at most
3 workers."""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from _hostile import ERROR, check_cases, coverage_table, peak_folder, run_cli

import penlearn as pl


def _jobs_beyond_the_tasks():
    """3 tasks at --jobs 4096: the pool is not sized to 4096 processes (once: a minute,
    ~2,000 processes and 6-9 GB), and the result is that of one process."""
    from penlearn.cli._workers import workers

    cov = coverage_table(("a", "b", "c"))
    args = argparse.Namespace(jobs=4096, scheduler=None, oversubscribe=True)
    with workers(args) as pool:
        if isinstance(pool, ProcessPoolExecutor) and pool._max_workers > 64:
            raise RuntimeError(f"not run: a pool of {pool._max_workers} processes for 3 tasks")
        got = pl.predict_peaks(cov, 0.0, executor=pool)
        n = getattr(pool, "workers", None)
    return got.equals(pl.predict_peaks(cov, 0.0)), n


def _cases(tmp: Path):
    yield "--jobs 4096 on 3 tasks", _jobs_beyond_the_tasks, \
        lambda r: r[0] and r[1] is not None and r[1] <= 3
    folder = peak_folder(tmp / "jobs")
    cov = folder / "coverage.csv"
    for bad in ("0", "-1", "1.5", "two", "", "1e3"):
        yield (f"peaks --jobs {bad!r}",
               (lambda b=bad: run_cli(["peaks", cov, "--penalty", 5, "--out", tmp / "j" / "p",
                                       "--jobs", b, "-q"])), ERROR)
    yield ("learn --jobs 0",
           lambda: run_cli(["learn", folder, "--out", tmp / "j0.json", "--jobs", 0, "-q"]),
           ERROR)
    yield ("peaks --jobs 2 = --jobs 1",
           lambda: (run_cli(["peaks", cov, "--penalty", 5, "--out", tmp / "j1", "-q"]),
                    run_cli(["peaks", cov, "--penalty", 5, "--out", tmp / "j2", "--jobs", 2,
                             "-q"]))[1],
           lambda _: all((tmp / "j1" / f"{s}.bed").read_bytes()
                         == (tmp / "j2" / f"{s}.bed").read_bytes() for s in ("s1", "s4")))
    yield ("peaks --jobs 10**30",
           lambda: run_cli(["peaks", cov, "--penalty", 5, "--out", tmp / "jh", "--jobs",
                            10**30, "-q"]), ERROR)
    for name, addr in {"garbage": "not an address", "refused": "tcp://127.0.0.1:1",
                       "empty": ""}.items():
        yield (f"peaks --scheduler {name}",
               (lambda a=addr: run_cli(["peaks", cov, "--penalty", 5, "--out", tmp / "s",
                                        "--scheduler", a, "-q"])), ERROR)
    yield ("peaks --scheduler with --jobs 2",
           lambda: run_cli(["peaks", cov, "--penalty", 5, "--out", tmp / "s2", "--scheduler",
                            "tcp://127.0.0.1:1", "--jobs", 2, "-q"]), ERROR)


@pytest.mark.slow  # process pools and a refused Dask connection
def test_worker_options(tmp_path):
    check_cases(_cases(tmp_path), at_least=14)
