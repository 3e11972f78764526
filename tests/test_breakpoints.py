"""Breakpoints validation, builders, normalization, and the real-data counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl


def test_immutable_and_frame():
    bp = pl.Breakpoints([0, 1], [0.5, -1.0], [1, 0], [0, -1])
    with pytest.raises(AttributeError):
        bp.n_examples = 3
    with pytest.raises(ValueError):
        bp.value[0] = 2.0
    assert bp.to_frame().to_dict("list") == {
        "example": [0, 1], "value": [0.5, -1.0], "fp_diff": [1.0, 0.0], "fn_diff": [0.0, -1.0]}


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        (([0, 1], [0.0], [1, 0], [0, -1]), {}, ValueError, "value has length 1"),
        (([0, 1], [0.0, np.nan], [1, 0], [0, -1]), {}, ValueError, "value must be finite"),
        (([0, 1], [0.0, 0.0], [1, np.inf], [0, -1]), {}, ValueError, "fp_diff must be finite"),
        (([0, 5], [0.0, 0.0], [1, 0], [0, -1]), {"n_examples": 3}, ValueError,
         r"example must be in \[0, n_examples=3\)"),
        (([0.5, 1], [0.0, 0.0], [1, 0], [0, -1]), {}, TypeError, "integers"),
        ((["a", "b"], [0.0, 0.0], [1, 0], [0, -1]), {}, TypeError, "integers"),
        (([0, 1], ["x", "y"], [1, 0], [0, -1]), {}, TypeError, "value must be numeric"),
        (([0, 1], [0.0, 0.0], [1, 0], [0, -1]), {"n_examples": 2.0}, TypeError, "n_examples"),
    ],
)
def test_validation(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        pl.Breakpoints(*args, **kwargs)


def test_duplicates_merged():
    bp = pl.Breakpoints([0, 1, 0], [1.0, 0.0, 1.0], [1, 0, 2], [0, -1, -1])
    assert len(bp) == 2
    assert bp.to_frame().to_dict("list") == {
        "example": [0, 1], "value": [1.0, 0.0], "fp_diff": [3.0, 0.0], "fn_diff": [-1.0, -1.0]}


def test_rate_normalization_and_errors():
    bp = pl.breakpoints_from_labels([0, 0, 0, 1], normalize="rate")
    assert bp.fp_total == pytest.approx(1) and bp.fn_total == pytest.approx(1)
    np.testing.assert_allclose(bp.fp_diff, [1 / 3, 1 / 3, 1 / 3, 0])
    with pytest.raises(ValueError, match="positive total FN"):
        pl.breakpoints_from_labels([0, 0], normalize="rate")
    with pytest.raises(ValueError, match="positive total FP"):
        pl.breakpoints_from_labels([1, 1], normalize="rate")
    with pytest.raises(ValueError, match="normalize must be"):
        pl.breakpoints_from_labels([0, 1], normalize="ratio")
    # {-1, 1} labels are accepted
    assert pl.breakpoints_from_labels([-1, 1]).to_frame()["fp_diff"].tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="non-empty"):
        pl.breakpoints_from_labels([])


def test_from_errors_sequence_ids_and_errors():
    ev = pd.DataFrame({"sequence_id": ["s", "s", "t", "t"],
                       "min_log_lambda": [-np.inf, 1.0, -np.inf, 2.0],
                       "max_log_lambda": [1.0, np.inf, 2.0, np.inf],
                       "fp": [1, 0, 0, 0], "fn": [0, 1, 0, 0]})
    bp = pl.breakpoints_from_errors(ev, sequence_ids=["u", "t", "s"])
    assert bp.n_examples == 3 and bp.example_ids == ("u", "t", "s")
    assert bp.to_frame().to_dict("list") == {
        "example": [2], "value": [-1.0], "fp_diff": [1.0], "fn_diff": [-1.0]}
    with pytest.raises(ValueError, match="not in sequence_ids"):
        pl.breakpoints_from_errors(ev, sequence_ids=["s"])
    with pytest.raises(ValueError, match="missing column"):
        pl.breakpoints_from_errors(ev.drop(columns="fn"))
    with pytest.raises(ValueError, match="sequence 's' do not partition"):
        pl.breakpoints_from_errors(ev.iloc[1:])
    with pytest.raises(ValueError, match="positive total FP"):
        pl.breakpoints_from_errors(ev[ev.sequence_id == "t"], normalize="rate")


def test_h3k4me3_tdh_immune_counts():
    ds = pl.load_uci(need(DATA / "H3K4me3_TDH_immune"))
    bp = pl.breakpoints_from_errors(ds.evaluation)
    assert bp.n_examples == 378
    assert len(bp) == 3192
    assert ds.inputs.shape == (378, 36)
    assert set(ds.folds) == {"equal_labels"}
    assert sorted(ds.folds["equal_labels"]["fold"].unique()) == [1, 2, 3, 4]
    # the brute-force definition: boundaries whose fp or fn changes
    ev = ds.evaluation.sort_values(["sequence_id", "min_log_lambda"])
    n_changes = 0
    for _, g in ev.groupby("sequence_id"):
        n_changes += int(((g.fp.diff() != 0) | (g.fn.diff() != 0)).iloc[1:].sum())
    assert n_changes == len(bp)
    res = pl.aum(bp, np.zeros(bp.n_examples))
    assert np.isfinite(res.aum) and res.derivatives.shape == (378, 2)
