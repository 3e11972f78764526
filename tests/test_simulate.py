"""The simulator: the built-in default data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.datasets import simulate

MAX_CHANGES = {"0changes": 0, "1change": 1, ">0changes": np.inf}
MIN_CHANGES = {"0changes": 0, "1change": 1, ">0changes": 1}


@pytest.fixture(scope="module")
def data():
    return simulate(40, seed=3)


def test_deterministic_per_seed(data):
    again = simulate(40, seed=3)
    pd.testing.assert_frame_equal(again.sequences, data.sequences)
    pd.testing.assert_frame_equal(again.labels, data.labels)
    pd.testing.assert_frame_equal(again.changes, data.changes)
    other = simulate(40, seed=4)
    assert not np.array_equal(other.sequences["value"].to_numpy()[:50],
                              data.sequences["value"].to_numpy()[:50])


def test_shapes_and_conventions(data):
    seq, truth = data.sequences, data.truth
    assert list(seq.columns) == ["sequence_id", "position", "value"]
    assert truth["sequence_id"].is_unique and len(truth) == 40
    for sid, grp in seq.groupby("sequence_id", sort=False):
        pos = grp["position"].to_numpy()
        n = int(truth.set_index("sequence_id").loc[sid, "n_points"])
        assert np.array_equal(pos, np.arange(1, n + 1))
    assert 200 <= truth["n_points"].min() and truth["n_points"].max() <= 400
    assert np.isfinite(seq["value"]).all()
    # the number of true changes recorded matches the change table
    counts = data.changes.groupby("sequence_id").size().reindex(truth["sequence_id"]).fillna(0)
    assert np.array_equal(counts.to_numpy(), truth["n_changes"].to_numpy())


def test_labels_agree_with_true_changes(data):
    """Every label is correct for the true changes, and labels do not overlap."""
    n_points = data.truth.set_index("sequence_id")["n_points"]
    assert set(data.labels["annotation"]) <= set(MAX_CHANGES)
    assert (data.labels.groupby("sequence_id").size() >= 1).all()
    for sid, lab in data.labels.groupby("sequence_id"):
        lab = lab.sort_values("start")
        assert (lab["start"].to_numpy()[1:] >= lab["end"].to_numpy()[:-1]).all()
        assert (lab["start"] >= 0).all() and (lab["end"] <= n_points[sid]).all()
        assert (lab["end"] > lab["start"]).all()
        ch = data.changes.loc[data.changes["sequence_id"] == sid, "position"].to_numpy()
        for _, row in lab.iterrows():
            inside = np.sum((ch > row["start"]) & (ch <= row["end"]))
            assert MIN_CHANGES[row["annotation"]] <= inside <= MAX_CHANGES[row["annotation"]]


def test_changes_are_real_mean_shifts(data):
    """The signal is piecewise constant with jumps of >= 1.5 sd at the true changes:
    segment means of the data between true changes differ clearly (on long segments)."""
    sd = data.truth.set_index("sequence_id")["sd"]
    for sid, grp in data.sequences.groupby("sequence_id"):
        ch = np.sort(data.changes.loc[data.changes["sequence_id"] == sid, "position"])
        v = grp["value"].to_numpy()
        bounds = np.r_[0, ch, len(v)]
        means = [v[a:b].mean() for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        assert (np.diff(bounds) >= 10).all()
        if len(means) > 1:
            # a jump of >= 1.5 sd, estimated from >= 10 points each side: > 0.5 sd surely
            assert (np.abs(np.diff(means)) > 0.5 * sd[sid]).all()
        # within a segment the data are noise of the recorded sd
        resid = np.concatenate([v[a:b] - m for a, b, m in zip(bounds[:-1], bounds[1:], means,
                                                             strict=True)])
        assert 0.7 < resid.std() / sd[sid] < 1.3


def test_true_changes_make_no_label_errors(data):
    """Cross-check with the label-error rules: the true model has zero errors."""
    from penlearn.labels import label_errors

    models = data.truth.assign(n_segments=data.truth["n_changes"] + 1, loss=0.0)[
        ["sequence_id", "n_segments", "loss"]]
    changes = data.changes.merge(models[["sequence_id", "n_segments"]], on="sequence_id")
    table = label_errors(models, changes[["sequence_id", "n_segments", "position"]],
                         data.labels).model_errors
    assert len(table) == data.labels["sequence_id"].nunique()
    assert (table["fp"] == 0).all() and (table["fn"] == 0).all()


@pytest.mark.parametrize(
    "kwargs, err",
    [
        ({"n_sequences": 0}, ValueError),
        ({"n_sequences": 2.5}, TypeError),
        ({"n_sequences": 2, "n_points": (10, 5)}, ValueError),
        ({"n_sequences": 2, "sd_range": (0, 1)}, ValueError),
    ],
)
def test_bad_arguments(kwargs, err):
    with pytest.raises(err, match=list(kwargs)[-1]):
        simulate(**kwargs)
