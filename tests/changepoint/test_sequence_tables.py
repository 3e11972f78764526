"""``sequence_tables``: segment -> error functions -> targets -> features in one call gives
the tables of each stage run on its own (the tables ``penlearn segment`` writes)."""

from __future__ import annotations

import pandas as pd
import pytest

import penlearn as pl
from penlearn.changepoint.features import feature_matrix
from penlearn.changepoint.pipeline import sequence_tables


@pytest.fixture(scope="module")
def data():
    return pl.simulate(5, seed=3, n_points=(40, 80))


@pytest.mark.parametrize("loss, feature_set", [("l2", "penaltyLearning"),
                                               ("poisson", "neuroblastoma")])
def test_equals_the_stages_run_one_by_one(data, loss, feature_set):
    seqs = data.sequences
    if loss == "poisson":  # counts
        seqs = seqs.assign(value=(seqs["value"] - seqs["value"].min()).round())
    messages = []
    got = sequence_tables(seqs, data.labels, 4, loss=loss, feature_set=feature_set,
                          progress=False, report=messages.append)
    models, changes = pl.segment_sequences(seqs, 4, loss=loss, progress=False)
    evaluation = pl.error_functions(models, changes, data.labels)
    pd.testing.assert_frame_equal(got.models, models)
    pd.testing.assert_frame_equal(got.changes, changes)
    pd.testing.assert_frame_equal(got.evaluation, evaluation)
    pd.testing.assert_frame_equal(got.targets, pl.target_intervals(evaluation))
    pd.testing.assert_frame_equal(got.features, feature_matrix(seqs, feature_set))
    assert messages == [f"segmenting 5 sequences (1..4 segments, {loss} loss)",
                        "error functions over log λ", f"features ({feature_set})"]


def test_without_labels_no_evaluation(data):
    got = sequence_tables(data.sequences, None, 3, progress=False)
    assert got.evaluation is None and got.targets is None
    assert sorted(got.features.index) == sorted(data.sequences["sequence_id"].unique())
    assert got.models.groupby("sequence_id")["n_segments"].max().eq(3).all()
