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


def test_examples_with_negative_errors_brute_force():
    from penlearn.breakpoints import examples_with_negative_errors

    rng = np.random.default_rng(0)
    for _ in range(300):
        n, B = 3, 6
        bp = pl.Breakpoints(rng.integers(0, n, B), rng.integers(-3, 3, B).astype(float),
                            rng.integers(-1, 3, B).astype(float),
                            rng.integers(-2, 2, B).astype(float), n_examples=n)
        expected = []
        for i in range(n):
            m = bp.example == i
            vals = np.unique(bp.value[m])
            if len(vals) == 0:
                continue
            cuts = np.r_[vals[0] - 1, (vals[:-1] + vals[1:]) / 2, vals[-1] + 1]
            if any(bp.fp_diff[m][bp.value[m] < c].sum() < 0
                   or -bp.fn_diff[m][bp.value[m] >= c].sum() < 0 for c in cuts):
                expected.append(i)
        assert examples_with_negative_errors(bp).tolist() == expected


def test_learn_penalty_leaves_out_sequences_with_negative_errors():
    """A sequence whose FN at lambda = 0 exceeds its FN at a larger penalty: warned, skipped."""
    import warnings

    ev_rows, feats = [], {}
    rng = np.random.default_rng(1)
    for i in range(12):
        sid = f"s{i}"
        cut = rng.uniform(-2, 2)
        fp, fn = ([1, 0, 0], [0, 0, 1]) if i else ([0, 0, 0], [1, 0, 1])
        ev_rows.append(pd.DataFrame({
            "sequence_id": sid, "min_log_lambda": [-np.inf, cut, cut + 1],
            "max_log_lambda": [cut, cut + 1, np.inf], "fp": fp, "fn": fn,
            "possible_fp": 1, "possible_fn": 1, "labels": 2}))
        feats[sid] = [cut + rng.normal(0, 0.1), rng.normal()]
    ev = pd.concat(ev_rows, ignore_index=True)
    X = pd.DataFrame.from_dict(feats, orient="index", columns=["a", "b"])
    folds = pd.Series({sid: ("subtrain" if k % 2 == 0 else "validation")
                       for k, sid in enumerate(X.index)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = pl.learn_penalty(X, ev, folds=folds, init="zero", max_steps=3, progress=False)
    assert any("s0" in str(w.message) and "left out" in str(w.message) for w in caught)
    assert np.all(np.isfinite(model.predict(X)))


def test_pickle_round_trip():
    """Breakpoints cross process boundaries (process pools, dask): pickling goes through
    the constructor and gives an equal, still immutable object."""
    import pickle

    bp = pl.Breakpoints([0, 1, 1], [0.5, -1.0, 2.0], [1.0, 0.0, 2.0], [0.0, -1.0, 0.0],
                        n_examples=3, example_ids=["a", "b", "c"])
    back = pickle.loads(pickle.dumps(bp))
    for name in ("example", "value", "fp_diff", "fn_diff"):
        np.testing.assert_array_equal(getattr(back, name), getattr(bp, name))
    assert (back.n_examples, back.example_ids) == (3, ("a", "b", "c"))
    np.testing.assert_array_equal(pl.aum(back, np.zeros(3)).derivatives,
                                  pl.aum(bp, np.zeros(3)).derivatives)
    with pytest.raises(AttributeError, match="immutable"):
        back.value = np.zeros(3)
