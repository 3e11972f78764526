"""Every public result prints in at most 10 lines: summary figures and shapes, never a
whole array or table (issue 39: ``repr(AUMResult)`` printed a 378 × 2 array, a
``LineSearchResult`` its 478,627-row path)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import penlearn as pl
from penlearn.line_search.first_min import first_min_monotone

RNG = np.random.default_rng(0)
N = 2000


def _coverage(sample="a", n=400, seed=1):
    rng = np.random.default_rng(seed)
    mean = np.where((np.arange(n) // 50) % 4 == 1, 20.0, 2.0)
    return pd.DataFrame({"sample_id": sample, "chrom": "chr1",
                         "chromStart": np.arange(n) * 10, "chromEnd": np.arange(1, n + 1) * 10,
                         "count": rng.poisson(mean)})


def _results() -> dict[str, object]:
    bp = pl.breakpoints_from_labels(RNG.integers(0, 2, N))
    scores, slopes = RNG.normal(size=N), RNG.normal(size=N)
    sim = pl.simulate(n_sequences=12, seed=1)
    models, changes = pl.segment_sequences(sim.sequences, max_segments=5, progress=False)
    ev = pl.error_functions(models, changes, sim.labels)
    values = RNG.normal(size=3000)
    cov = _coverage()
    labels = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": [400, 1500],
                           "chromEnd": [600, 1900], "annotation": ["peakStart", "noPeaks"]})
    peaks = pl.predict_peaks(cov, 5.0)
    two = pd.concat([cov, _coverage("b", seed=2)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        feats = pl.feature_matrix(sim.sequences, "chipseq")
        constant = pl.learn_penalty(feats, ev, model="constant", progress=False)
    return {
        "AUMResult": pl.aum(bp, scores),
        "LineSearchResult": pl.line_search(bp, scores, slopes, stop="all"),
        "FirstMinResult": first_min_monotone([-1.0, 1.0], [1.0, -1.0], [1.0, 0.0],
                                             [0.0, -1.0]),
        "Breakpoints": bp,
        "Segmentation": pl.segment(values, 20),
        "PenalizedSegmentation": pl.segment(values, penalty=10.0),
        "SequenceSegmentations": pl.segment_sequences(sim.sequences, 5, progress=False),
        "LabelErrors": pl.label_errors(models, changes, sim.labels),
        "ROCChange": pl.roc_change(ev, np.zeros(ev.sequence_id.nunique())),
        "SimulatedDataSet": sim,
        "UCIDataSet": pl.UCIDataSet(name="sim", path=None, inputs=feats, outputs=None,
                                    evaluation=ev, folds=None),
        "PeakSegModel": pl.peakseg(cov.drop(columns="sample_id"), 5.0),
        "PeakSegPath": pl.peakseg_path(cov.drop(columns="sample_id")),
        "PeakSegSearch": pl.peakseg_search(cov.drop(columns="sample_id"), 3),
        "PeakLabelErrors": pl.peak_label_errors(peaks, labels),
        "JointPeakFit": pl.joint_peak(two.drop(columns="chrom")),
        "JointPeaks": pl.joint_peaks(two, peaks.assign(sample_id="a"), penalty=10.0),
        "PenaltyModel": constant,
        "ZeroLabelModel": pl.shipped_model(),
    }


@pytest.fixture(scope="module")
def results():
    return _results()


def test_every_public_result_class_is_covered(results):
    estimators = {"SupervisedPenalty", "IntervalRegression", "BinaryLinearModel"}
    # a handle to a running server, not a result: its repr is checked on a live page in
    # tests/label/test_label_server.py::test_the_handle_shows_its_url
    handles = {"LabelPage"}
    public = {n for n in pl.__all__ if inspect.isclass(getattr(pl, n))} - estimators - handles
    assert public <= set(results), sorted(public - set(results))


def test_reprs_are_at_most_ten_lines(results):
    long = {}
    for name, obj in results.items():
        text = repr(obj)
        assert text.startswith(name), (name, text[:80])
        lines = text.splitlines()
        if len(lines) > 10 or max(map(len, lines)) > 100:
            long[name] = text
    assert not long, long


def test_reprs_show_figures_and_shapes_not_data(results):
    assert repr(results["AUMResult"]).startswith("AUMResult(aum=")
    assert f"<array {N}×2 float64>" in repr(results["AUMResult"])
    ls = results["LineSearchResult"]
    assert f"path=<DataFrame {len(ls.path):,} rows × " in repr(ls)
    assert f"step_size={ls.step_size:.6g}" in repr(ls)


def test_a_constant_penalty_model_lists_no_features(results):
    text = repr(results["PenaltyModel"])
    assert "constant log λ" in text and "features" not in text, text
