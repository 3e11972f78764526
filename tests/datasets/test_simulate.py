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


def test_signal_is_piecewise_constant_with_the_true_changes(data):
    """Segments tile each sequence, end at the true changes, jump by 1-4 noise SDs, and
    the data are that signal plus noise of the recorded SD."""
    truth = data.truth.set_index("sequence_id")
    for sid, seg in data.segments.groupby("sequence_id", sort=False):
        seg = seg.sort_values("first")
        n, sd = truth.loc[sid, "n_points"], truth.loc[sid, "sd"]
        assert seg["first"].iloc[0] == 1 and seg["last"].iloc[-1] == n
        assert (seg["first"].to_numpy()[1:] == seg["last"].to_numpy()[:-1] + 1).all()
        assert (seg["last"] - seg["first"] + 1 >= 10).all()
        ch = np.sort(data.changes.loc[data.changes["sequence_id"] == sid, "position"])
        assert np.array_equal(seg["last"].to_numpy()[:-1], ch)
        jumps = np.abs(np.diff(seg["mean"].to_numpy())) / sd
        assert ((jumps >= 1.0 - 1e-12) & (jumps <= 4.0 + 1e-12)).all()
        v = data.sequences.loc[data.sequences["sequence_id"] == sid, "value"].to_numpy()
        signal = np.repeat(seg["mean"].to_numpy(), seg["last"] - seg["first"] + 1)
        resid = v - signal
        # sample SD of >= 200 points: within 30% (t noise with 3 df is variable)
        assert 0.7 < resid.std() / sd < 1.3 or truth.loc[sid, "heavy_tails"]
        assert 0.4 < resid.std() / sd < 2.5
    assert data.truth["heavy_tails"].any() and not data.truth["heavy_tails"].all()


def test_true_changes_make_no_label_errors(data):
    """Cross-check with the label-error rules: the true model has zero errors."""
    from penlearn.changepoint.labels import label_errors

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
