"""``--jobs N`` starts at most as many workers as tasks, and as cores unless
``--oversubscribe`` (``--jobs 4096`` on 3 tasks once started ~2,000 processes)."""

from __future__ import annotations

import argparse

import pandas as pd

from penlearn.cli import build_parser
from penlearn.cli._workers import LazyProcessPool, available_cores, workers
from penlearn.peaks.peakseg.evaluation import predict_peaks


def _coverage(n_samples: int) -> pd.DataFrame:
    counts = [1, 2, 30, 28, 2, 1]
    n = len(counts)
    return pd.DataFrame({
        "sample_id": [f"s{i}" for i in range(n_samples) for _ in range(n)], "chrom": "chr1",
        "chromStart": list(range(0, 10 * n, 10)) * n_samples,
        "chromEnd": list(range(10, 10 * n + 10, 10)) * n_samples, "count": counts * n_samples})


def test_4096_jobs_on_3_tasks_start_3_workers():
    cov = _coverage(3)
    args = argparse.Namespace(jobs=4096, scheduler=None, oversubscribe=True)
    with workers(args) as pool:
        assert isinstance(pool, LazyProcessPool) and pool.workers == 0  # none before a task
        got = predict_peaks(cov, 0.0, executor=pool)
        assert pool.workers == 3
    assert got.equals(predict_peaks(cov, 0.0))


def test_jobs_are_capped_at_the_cores_unless_oversubscribed():
    args = argparse.Namespace(jobs=4096, scheduler=None, oversubscribe=False)
    with workers(args) as pool:
        assert pool is None if available_cores() == 1 else pool.max_workers == available_cores()


def test_a_larger_later_batch_gets_a_larger_pool():
    pool = LazyProcessPool(8)
    try:
        pool.expect_tasks(1)
        assert pool.submit(abs, -1).result() == 1 and pool.workers == 1
        pool.expect_tasks(3)
        assert [f.result() for f in [pool.submit(abs, -i) for i in range(3)]] == [0, 1, 2]
        assert pool.workers == 3
    finally:
        pool.shutdown()


def test_help_says_jobs_are_bounded():
    sub = build_parser()._subparsers._group_actions[0].choices
    for cmd in ("peaks", "learn"):
        text = sub[cmd].format_help()
        assert "--oversubscribe" in text and "cores" in text, cmd
