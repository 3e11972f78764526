"""model_selection against penaltyLearning::modelSelection and against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, load_reference_json, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn import model_selection
from penlearn.changepoint.model_selection import selection_path

MS = REFERENCE / "penaltyLearning" / "modelSelection"
CASES = [
    "doc_example", "nonmonotonic", "oneSkip", "tie_three_lines", "convex_all_selected",
    "tie_collinear_all", "duplicate_complexity", "equal_loss", "unsorted_rows", "one_model",
    "noninteger_complexity", "random30",
]


@pytest.mark.parametrize("case", CASES)
def test_reference_cases_exact(case):
    meta = load_reference_json("penaltyLearning/modelSelection/cases.json")["cases"][case]
    models = pd.read_csv(need(MS / f"{case}_input.csv"))
    ref = pd.read_csv(need(MS / f"{case}_output.csv"))
    out = model_selection(meta["loss"], meta["complexity"], models=models)
    assert (out["input_row"].to_numpy() + 1).tolist() == meta["selected.input.rows"]
    for ours, theirs in [("min_lambda", "min.lambda"), ("max_lambda", "max.lambda"),
                         ("min_log_lambda", "min.log.lambda"),
                         ("max_log_lambda", "max.log.lambda")]:
        np.testing.assert_array_equal(out[ours].to_numpy(), ref[theirs].to_numpy(float))
    # every input column comes back for the selected rows
    for col in models.columns:
        assert out[col].tolist() == ref[col].tolist()


def test_doc_example_c_and_r_variants_agree():
    ref_c = pd.read_csv(need(MS / "doc_example_modelSelectionC.csv"))
    ref_r = pd.read_csv(need(MS / "doc_example_modelSelectionR.csv"))
    models = pd.read_csv(need(MS / "doc_example_input.csv"))
    out = model_selection(models["loss"], models["complexity"])
    for ref in (ref_c, ref_r):
        np.testing.assert_array_equal(out["max_lambda"], ref["max.lambda"].to_numpy(float))
        assert out["complexity"].tolist() == ref["model.complexity"].tolist()


@pytest.mark.parametrize(
    ("call", "err", "match"),
    [
        # modelSelection(1L)
        (lambda: model_selection("loss", "complexity", models=1), TypeError, "DataFrame"),
        # modelSelection(data.frame())
        (lambda: model_selection([], []), ValueError, "at least one model"),
        # data.frame(loss=NA_character_, complexity=NA_character_)
        (lambda: model_selection(np.array([None], dtype=object), [1]), (TypeError, ValueError),
         "numeric|finite"),
        # data.frame(loss=NA_real_, complexity=1)
        (lambda: model_selection([np.nan], [1]), ValueError, "finite"),
        # data.frame(loss=1, complexity=NA_real_)
        (lambda: model_selection([1.0], [np.nan]), ValueError, "finite"),
        # loss=c('foo','bar')
        (lambda: model_selection(["foo", "bar"], "complexity",
                                 models=pd.DataFrame({"loss": [1], "complexity": [1]})),
         ValueError, "loss must be a column name"),
        # complexity=2
        (lambda: model_selection("loss", 2,
                                 models=pd.DataFrame({"loss": [1], "complexity": [1]})),
         ValueError, "complexity must be a column name"),
        # loss='nope'
        (lambda: model_selection("nope", "complexity",
                                 models=pd.DataFrame({"loss": [1], "complexity": [1]})),
         ValueError, "loss must be a column name"),
        (lambda: model_selection([1.0, 2.0], [1]), ValueError, "one per model"),
    ],
)
def test_reference_errors(call, err, match):
    errors = load_reference_json("penaltyLearning/modelSelection/cases.json")["errors"]
    assert len(errors) == 10  # the two modelSelectionC preconditions are handled below
    with pytest.raises(err, match=match):
        call()


def test_c_preconditions_are_handled_not_errors():
    # modelSelectionC requires decreasing loss and increasing complexity; modelSelection
    # (our API) filters instead: equal losses and duplicate complexities are dropped
    sel, _, _ = selection_path(np.array([5.0, 4.0, 4.0]), np.array([1.0, 2.0, 3.0]))
    assert sorted(sel.tolist()) == [0, 1]
    sel, _, _ = selection_path(np.array([5.0, 4.0, 3.0]), np.array([1.0, 2.0, 2.0]))
    assert sorted(sel.tolist()) == [0, 2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 40)), min_size=1, max_size=12))
def test_path_equals_brute_force(points):
    """Integer data make ties frequent; every λ is checked against argmin loss + λ c."""
    comp = np.array([p[0] for p in points], float)
    loss = np.array([p[1] for p in points], float)
    out = model_selection(loss, comp)
    lo, hi = out["min_lambda"].to_numpy(), out["max_lambda"].to_numpy()
    assert lo[0] == 0 and hi[-1] == np.inf
    np.testing.assert_array_equal(lo[1:], hi[:-1])
    assert (lo < hi).all()  # no model selected at a single λ only
    assert np.all(np.diff(out["complexity"].to_numpy()) < 0)  # most complex first
    for a, b, c, value in zip(lo, hi, out["complexity"], out["loss"], strict=True):
        lam = (a + b) / 2 if np.isfinite(b) else a + 1.0
        total = loss + lam * comp
        assert value + lam * c == total.min()
        # inside the interval the optimum is unique (up to exact duplicate models)
        assert len(np.unique(comp[total == total.min()])) == 1
    # any model optimal at some λ > 0 (strictly) appears in the path
    for lam in np.r_[np.unique(np.r_[lo, hi[:-1]]) + 0.25, 0.1]:
        total = loss + lam * comp
        i = np.flatnonzero(total == total.min())
        if len(np.unique(comp[i])) == 1:
            row = out[(out["min_lambda"] <= lam) & (lam <= out["max_lambda"])]
            assert comp[i[0]] in row["complexity"].tolist()
