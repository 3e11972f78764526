"""``joint_peaks`` solves and describes its windows a chunk at a time
(``peaks/joint/_windows_solved.py``, issue 55): every result of all windows at once
(the paths, the features, the penalties, the calls, the label evaluation), whatever the
chunk, and never more than a chunk's tables at once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.joint import _windows_solved
from penlearn.peaks.joint.pipeline import joint_peaks

#: chromosome -> (length, planted peaks (start, samples up))
CHROMS = {"chr2": (12_000, [(1_000 + 1_500 * k, "ab" if k % 2 else "abc")
                            for k in range(7)]),
          "chr1": (9_000, [(1_000, "c"), (3_000, "ab"), (6_000, "abc")])}


def _coverage(rng) -> pd.DataFrame:
    out = []
    for s in "abc":
        for chrom, (size, planted) in CHROMS.items():
            mean = np.full(size // 10, 2.0)
            for start, up in planted:
                if s in up:
                    mean[start // 10:(start + 300) // 10] = 12.0 + 3 * "abc".index(s)
            count = rng.poisson(mean)
            starts = np.arange(0, size, 10)
            keep = count > 0
            out.append(pd.DataFrame({"sample_id": s, "chrom": chrom,
                                     "chromStart": starts[keep],
                                     "chromEnd": starts[keep] + 10, "count": count[keep]}))
    return pd.concat(out, ignore_index=True)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(61)
    peaks = pd.DataFrame([(s, c, a + 20, a + 280) for c, (_, planted) in CHROMS.items()
                          for a, up in planted for s in up],
                         columns=["sample_id", "chrom", "chromStart", "chromEnd"])
    labels = pd.DataFrame({"sample_id": ["a", "b", "c", "a"],
                           "chrom": ["chr2", "chr2", "chr1", "chr1"],
                           "chromStart": [900, 900, 2_800, 5_800],
                           "chromEnd": [1_400, 1_400, 3_400, 6_400],
                           "annotation": ["peakStart", "peakStart", "noPeaks", "peakStart"]})
    return _coverage(rng), peaks, labels


def _same(a, b) -> None:
    for name in ("windows", "calls"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True)
    for name in ("features", "evaluation"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            pd.testing.assert_frame_equal(x, y, check_exact=True)
    assert list(a.paths) == list(b.paths)
    for w in a.paths:
        pd.testing.assert_frame_equal(a.paths[w], b.paths[w], check_exact=True)


@pytest.mark.parametrize("options", [{}, {"labels": True}, {"penalty": 30.0}])
def test_chunks_give_the_results_of_every_window_at_once(data, monkeypatch, options):
    coverage, peaks, labels = data
    options = {**options, "labels": labels} if options.get("labels") else options
    held = []
    real_solve, real_features = (_windows_solved._solve_windows,
                                 _windows_solved._sample_window_features)
    monkeypatch.setattr(_windows_solved, "_solve_windows",
                        lambda tasks, *a, **k: held.append(len(tasks))
                        or real_solve(tasks, *a, **k))
    monkeypatch.setattr(_windows_solved, "_sample_window_features",
                        lambda tables, *a: held.append(len(tables))
                        or real_features(tables, *a))
    whole = joint_peaks(coverage, peaks, **options)
    n = len(whole.windows)
    assert n >= 9 and max(held) == n
    assert (whole.features is not None) == ("penalty" not in options)
    for chunk in (1, 2, 4):
        held.clear()
        monkeypatch.setattr(_windows_solved, "WINDOW_CHUNK", chunk)
        _same(joint_peaks(coverage, peaks, **options), whole)
        assert max(held) == chunk and sum(held) == n * (1 + ("penalty" not in options))
