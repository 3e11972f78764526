"""error_functions and target_intervals: reference cases, real data, downstream use."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import segmentation_neuroblastoma as nb
from conftest import DATA, REFERENCE, load_reference_json, need
from hypothesis import given, settings
from hypothesis import strategies as st

import penlearn
from penlearn import (
    breakpoints_from_errors,
    error_functions,
    model_selection,
    segment_sequences,
    target_intervals,
)
from penlearn._checks import check_evaluation

TI = REFERENCE / "penaltyLearning" / "targetIntervals"


def test_target_intervals_synthetic_reference():
    models = pd.read_csv(need(TI / "synthetic_models.csv")).rename(
        columns={"p": "sequence_id", "min.log.lambda": "min_log_lambda",
                 "max.log.lambda": "max_log_lambda"})
    ref = pd.read_csv(need(TI / "synthetic_targetIntervals.csv"))
    out = target_intervals(models)
    assert out["sequence_id"].tolist() == ref["p"].tolist()
    np.testing.assert_array_equal(out["min_log_lambda"], ref["min.log.lambda"].to_numpy(float))
    np.testing.assert_array_equal(out["max_log_lambda"], ref["max.log.lambda"].to_numpy(float))
    np.testing.assert_array_equal(out["errors"], ref["errors"].to_numpy(float))


def test_largest_continuous_minimum_cases():
    """The cost/size vectors of largestContinuousMinimum; targetIntervals uses the C rule."""
    cases = load_reference_json("penaltyLearning/targetIntervals/cases.json")[
        "largestContinuousMinimum"]
    for case in cases:
        cost = np.atleast_1d(np.asarray(case["cost"], float))
        size = np.atleast_1d(np.asarray(case["size"], float))
        inner = np.cumsum(np.r_[0.0, size[1:-1]])
        lo = np.r_[-np.inf, inner] if len(cost) > 1 else np.array([-np.inf])
        hi = np.r_[inner, np.inf] if len(cost) > 1 else np.array([np.inf])
        ev = pd.DataFrame({"sequence_id": "x", "min_log_lambda": lo, "max_log_lambda": hi,
                           "errors": cost})
        out = target_intervals(ev).iloc[0]
        first, last = (np.asarray(case["C"]) - 1).tolist()
        assert (out["min_log_lambda"], out["max_log_lambda"]) == (lo[first], hi[last]), case


@pytest.mark.parametrize(
    ("edit", "err", "match"),
    [
        (lambda d: d.assign(max_log_lambda=[0.0, 0.0, np.inf], min_log_lambda=[-np.inf, 0.0, 0.0]),
         ValueError, "positive width"),
        (lambda d: d.assign(errors=["a", "b", "c"]), TypeError, "number of label errors"),
        (lambda d: d.assign(min_log_lambda=[-np.inf, 0.5, 2.0]), ValueError, "partition"),
        (lambda d: d.drop(columns="errors"), ValueError, "missing column"),
    ],
)
def test_target_intervals_errors(edit, err, match):
    ref = load_reference_json("penaltyLearning/targetIntervals/cases.json")["errors"]
    assert set(ref) == {"size.zero", "errors.not.numeric", "zero.width.interval"}
    ev = pd.DataFrame({"sequence_id": "a", "min_log_lambda": [-np.inf, 0.0, 2.0],
                       "max_log_lambda": [0.0, 2.0, np.inf], "errors": [1, 0, 1]})
    with pytest.raises(err, match=match):
        target_intervals(edit(ev))


@pytest.mark.slow
def test_target_intervals_all_processed_sequences():
    """All 3418 sequences of neuroblastomaProcessed: its target.mat (float noise 1.2e-12)."""
    ev = nb.processed_errors()
    targets = pd.read_csv(need(DATA / "neuroblastoma" / "processed_targets.csv.gz"))
    out = target_intervals(ev).merge(targets, left_on="sequence_id", right_on="sequenceID")
    assert len(out) == 3418
    for col in ("min", "max"):
        np.testing.assert_allclose(out[f"{col}_log_lambda"], out[f"{col}.log.lambda"],
                                   rtol=1e-12, atol=2e-12)


def tiny_problem():
    seqs = pd.DataFrame({"sequence_id": ["a"] * 8 + ["b"] * 6,
                         "position": list(range(1, 9)) + [2, 4, 6, 8, 10, 12],
                         "value": [0, 0.2, 0.1, 5, 5.2, 5.1, 1, 1.1, 3, 3.1, 2.9, 0, 0.1, 0.2]})
    labels = pd.DataFrame({"sequence_id": ["a", "a", "b"], "start": [2, 5, 1],
                           "end": [5, 8, 12], "annotation": ["1change", "normal",
                                                             ">0changes"]})
    return seqs, labels


def test_error_functions_tiny_brute_force():
    seqs, labels = tiny_problem()
    models, changes = segment_sequences(seqs, 4, progress=False)
    ev = error_functions(models, changes, labels)
    check_evaluation(ev)
    for sid, sub in ev.groupby("sequence_id", sort=False):
        m = models[models.sequence_id == sid]
        path = model_selection(m["loss"], m["n_segments"])
        assert sub["n_segments"].tolist() == path["complexity"].tolist()[::-1]
        lab = labels[labels.sequence_id == sid]
        for _, row in sub.iterrows():
            pos = changes[(changes.sequence_id == sid)
                          & (changes.n_segments == row["n_segments"])]["position"]
            fp = fn = 0
            for _, lr in lab.iterrows():
                cnt = ((pos > lr["start"]) & (pos <= lr["end"])).sum()
                fp += cnt > (0 if lr["annotation"] == "normal" else
                             (1 if lr["annotation"] == "1change" else np.inf))
                fn += cnt < (0 if lr["annotation"] == "normal" else 1)
            assert (row["fp"], row["fn"]) == (fp, fn)
            assert row["errors"] == fp + fn


def test_error_functions_bad_input_names_sequence():
    seqs, labels = tiny_problem()
    models, changes = segment_sequences(seqs, 3, progress=False)
    extra = pd.concat([labels, pd.DataFrame({"sequence_id": ["c"], "start": [0], "end": [5],
                                             "annotation": ["normal"]})])
    with pytest.raises(ValueError, match="'c'.*no models"):
        error_functions(models, changes, extra)
    with pytest.raises(ValueError, match="overlap"):
        error_functions(models, changes, labels.assign(start=[2, 4, 1]))
    with pytest.raises(ValueError, match="unknown annotation"):
        error_functions(models, changes, labels.assign(annotation="peaks"))
    with pytest.raises(ValueError, match="start must be less than end.*'a'"):
        error_functions(models, changes, labels.assign(end=[2, 8, 12]))
    bad = models.copy()
    bad.loc[0, "loss"] = np.nan
    with pytest.raises(ValueError, match="sequence 'a'"):
        error_functions(bad, changes, labels)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000))
def test_error_functions_partition_and_selection(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 30))
    y = np.repeat(rng.normal(0, 2, 3), n)[: n] + rng.normal(0, 1, n)
    seqs = pd.DataFrame({"sequence_id": "s", "position": np.arange(n) * 10, "value": y})
    lab = pd.DataFrame({"sequence_id": ["s", "s"], "start": [0, n * 5],
                        "end": [n * 5, n * 10], "annotation": ["1change", "0changes"]})
    models, changes = segment_sequences(seqs, min(n, 6), progress=False)
    ev = error_functions(models, changes, lab)
    ev = check_evaluation(ev)
    # the model of each interval minimises loss + λ k at the interval's midpoint
    loss = models["loss"].to_numpy()
    k = models["n_segments"].to_numpy()
    for _, row in ev.iterrows():
        lo, hi = row["min_lambda"], row["max_lambda"]
        lam = (lo + hi) / 2 if np.isfinite(hi) else lo + 1
        assert k[np.argmin(loss + lam * k)] == row["n_segments"]


@pytest.mark.slow
def test_neuroblastoma_evaluation_matches_processed_and_feeds_downstream():
    ev = nb.evaluation()
    ref = nb.processed_errors()
    ref = ref[ref["sequence_id"].isin(ev["sequence_id"])]
    assert ev["sequence_id"].nunique() == 154 and len(ev) == len(ref) == 1993
    m = ev.merge(ref, on=["sequence_id", "n_segments"], suffixes=("", "_ref"))
    assert len(m) == 1993
    for col in ("fp", "fn", "possible_fp", "possible_fn", "labels", "errors"):
        np.testing.assert_array_equal(m[col].to_numpy(float), m[col + "_ref"].to_numpy(float))
    for col in ("min_log_lambda", "max_log_lambda"):
        a, b = m[col].to_numpy(), m[col + "_ref"].to_numpy()
        assert np.array_equal(np.isinf(a), np.isinf(b))
        np.testing.assert_allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=0, atol=1e-12)
    # target intervals equal the processed targets of these sequences
    targets = pd.read_csv(need(DATA / "neuroblastoma" / "processed_targets.csv.gz"))
    ti = target_intervals(ev).merge(targets, left_on="sequence_id", right_on="sequenceID")
    assert len(ti) == 154
    for col in ("min", "max"):
        np.testing.assert_allclose(ti[f"{col}_log_lambda"], ti[f"{col}.log.lambda"],
                                   rtol=1e-12, atol=2e-12)
    # downstream: breakpoints and the ROC-change of constant predictions
    bp = breakpoints_from_errors(ev)
    bp_ref = breakpoints_from_errors(ref)
    assert bp.n_examples == 154 and len(bp.value) == len(bp_ref.value)
    np.testing.assert_allclose(bp.value, bp_ref.value, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(bp.fp_diff, bp_ref.fp_diff)
    np.testing.assert_array_equal(bp.fn_diff, bp_ref.fn_diff)
    pred = pd.Series(0.5, index=pd.unique(ev["sequence_id"]))
    roc = penlearn.roc_change(ev, pred)
    roc_ref = penlearn.roc_change(ref, pred)
    assert np.isfinite(roc.auc) and roc.auc == pytest.approx(roc_ref.auc, abs=1e-12)
    assert roc.aum == pytest.approx(roc_ref.aum, abs=1e-9)
