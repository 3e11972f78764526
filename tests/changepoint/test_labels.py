"""label_errors against penaltyLearning::labelError, its error cases, and real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import segmentation_neuroblastoma as nb
from conftest import REFERENCE, load_reference_json, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn import ANNOTATIONS, check_labels, label_errors

LE = REFERENCE / "penaltyLearning" / "labelError"
CASES = ["doc_example", "trivial_two_model_vars", "boundaries_all_annotation_types",
         "weighted_labels", "multi_problem"]


def read_case(case):
    meta = load_reference_json("penaltyLearning/labelError/cases.json")["cases"][case]
    start, end = meta["label.vars"]
    model_vars = meta["model.vars"]
    model_vars = [model_vars] if isinstance(model_vars, str) else model_vars
    ren = {meta["problem.vars"]: "sequence_id", meta["change.var"]: "position",
           start: "start", end: "end"}
    tables = {part: pd.read_csv(need(LE / f"{case}_{part}.csv")).rename(columns=ren)
              for part in ("models", "changes", "labels", "model_errors", "label_errors")}
    return tables, model_vars


@pytest.mark.parametrize("case", CASES)
def test_reference_cases_exact(case):
    t, model_vars = read_case(case)
    out = label_errors(t["models"], t["changes"], t["labels"], model_vars=model_vars)
    ref = t["model_errors"].rename(columns={"possible.fp": "possible_fp",
                                            "possible.fn": "possible_fn"})
    key = ["sequence_id", *model_vars]
    got = out.model_errors.sort_values(key).reset_index(drop=True)
    ref = ref.sort_values(key).reset_index(drop=True)
    assert got[key].astype(str).values.tolist() == ref[key].astype(str).values.tolist()
    for col in ("possible_fp", "fp", "possible_fn", "fn", "labels", "errors"):
        np.testing.assert_array_equal(got[col].to_numpy(float), ref[col].to_numpy(float))
    # per label and model: predicted changes, fp/fn, status, weight
    lref = t["label_errors"].rename(columns={"pred.changes": "n_changes",
                                             "min.changes": "min_changes",
                                             "max.changes": "max_changes"})
    lkey = [*key, "start", "end"]
    lgot = out.label_errors.sort_values(lkey).reset_index(drop=True)
    lref = lref.sort_values(lkey).reset_index(drop=True)
    assert len(lgot) == len(lref)
    for col in ("start", "end", "n_changes", "fp", "fn", "weight", "min_changes",
                "max_changes"):
        np.testing.assert_array_equal(lgot[col].to_numpy(float), lref[col].to_numpy(float))
    assert lgot["status"].tolist() == lref["status"].tolist()
    assert lgot["annotation"].tolist() == lref["annotation"].tolist()


def test_no_changes_model_with_missing_meta_column():
    ref = pd.read_csv(need(LE / "no_changes_model_errors.csv"))
    models = pd.DataFrame({"sequence_id": ["five"], "model": ["foo"], "bar": [np.nan]})
    changes = pd.DataFrame({"sequence_id": pd.Series([], dtype=object),
                            "model": pd.Series([], dtype=object),
                            "position": pd.Series([], dtype=float)})
    labels = pd.DataFrame({"sequence_id": ["five"], "start": [0], "end": [10],
                           "annotation": ["1change"]})
    got = label_errors(models, changes, labels, model_vars="model").model_errors
    assert np.isnan(got["bar"].iloc[0])
    for col, ref_col in [("possible_fp", "possible.fp"), ("fp", "fp"),
                         ("possible_fn", "possible.fn"), ("fn", "fn"), ("labels", "labels"),
                         ("errors", "errors")]:
        assert got[col].iloc[0] == ref[ref_col].iloc[0]


def test_annotation_rules_match_change_labels():
    ref = load_reference_json("penaltyLearning/labelError/cases.json")["change.labels"]
    assert set(ANNOTATIONS["annotation"]) == set(ref)
    for _, row in ANNOTATIONS.iterrows():
        r = ref[row["annotation"]]
        assert (row["min_changes"], row["max_changes"]) == (r["min.changes"], r["max.changes"])
        assert (row["possible_fp"], row["possible_fn"]) == (r["possible.fp"], r["possible.fn"])


def base():
    models = pd.DataFrame({"sequence_id": ["s"] * 3 + ["t"] * 2,
                           "n_segments": [1, 2, 3, 1, 2]})
    changes = pd.DataFrame({"sequence_id": ["s", "s", "s", "t"],
                            "n_segments": [2, 3, 3, 2], "position": [5, 5, 15, 3]})
    labels = pd.DataFrame({"sequence_id": ["s", "s", "t"], "start": [0, 10, 0],
                           "end": [10, 20, 9], "annotation": ["1change", "0changes",
                                                              "breakpoint"]})
    return models, changes, labels


def test_adjacent_labels_ok():
    models, changes, labels = base()
    out = label_errors(models, changes, labels)
    assert out.model_errors["errors"].tolist() == [1.0, 0.0, 1.0, 1.0, 0.0]
    assert load_reference_json("penaltyLearning/labelError/cases.json")["errors"][
        "adjacent.labels.ok"] is None


@pytest.mark.parametrize(
    ("reference_key", "edit", "match"),
    [
        ("start.not.less.than.end", lambda m, c, lab: (m, c, lab.assign(
            end=[10, 5, 9])), "start must be less than end.*'s'"),
        ("label.start.equals.end", lambda m, c, lab: (m, c, lab.assign(
            end=[10, 10, 9])), "start must be less than end.*'s'"),
        ("overlapping", lambda m, c, lab: (m, c, lab.assign(start=[0, 8, 0])),
         "labels of sequence 's' overlap"),
        ("unrecognized", lambda m, c, lab: (m, c, lab.assign(
            annotation=["1change", "peak", "breakpoint"])), "unknown annotation 'peak'"),
        ("labels.without.models", lambda m, c, lab: (m[m.sequence_id == "s"], c[
            c.sequence_id == "s"], lab), "'t'.*no models"),
        ("same.number.of.changes", lambda m, c, lab: (m.assign(
            n_segments=[1, 2, 2, 1, 2]), c, lab), "sequence 's' has duplicates"),
        ("unlabeled.problem.same.number.of.changes", lambda m, c, lab: (pd.concat(
            [m, pd.DataFrame({"sequence_id": ["u", "u"], "n_segments": [1, 1]})]), c, lab),
         "sequence 'u' has duplicates"),
        ("no.problem.vars", lambda m, c, lab: (m.drop(columns="sequence_id"), c, lab),
         "models is missing column"),
        ("no.change.var", lambda m, c, lab: (m, c.drop(columns="position"), lab),
         "changes is missing column"),
        ("no.label.vars", lambda m, c, lab: (m, c, lab.drop(columns="end")),
         "labels is missing column"),
    ],
)
def test_reference_errors(reference_key, edit, match):
    errors = load_reference_json("penaltyLearning/labelError/cases.json")["errors"]
    assert errors[reference_key] is not None  # R fails too
    models, changes, labels = edit(*base())
    with pytest.raises(ValueError, match=match):
        label_errors(models, changes, labels)


def test_weights_and_bad_weights():
    models, changes, labels = base()
    out = label_errors(models, changes, labels.assign(weight=[2.0, 0.5, 1.0]))
    s1 = out.model_errors.iloc[0]  # s, 1 segment: FN in the 1change label (weight 2)
    assert (s1["fn"], s1["fp"], s1["labels"], s1["possible_fp"]) == (2.0, 0.0, 2.5, 2.5)
    with pytest.raises(ValueError, match="weight"):
        check_labels(labels.assign(weight=[1.0, -1.0, 1.0]))


@pytest.mark.slow
def test_neuroblastoma_fp_fn_match_processed_errors():
    """Every model shared with neuroblastomaProcessed$errors: identical fp and fn."""
    models, changes = nb.segmented()
    out = label_errors(models, changes, nb.labels()).model_errors
    ref = nb.processed_errors()
    m = out.merge(ref, on=["sequence_id", "n_segments"], suffixes=("", "_ref"))
    assert len(m) >= 1054
    assert len(m) == ref["sequence_id"].isin(out["sequence_id"]).sum()
    for col in ("fp", "fn", "possible_fp", "possible_fn", "labels", "errors"):
        np.testing.assert_array_equal(m[col].to_numpy(float), m[col + "_ref"].to_numpy(float))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=8), st.lists(st.integers(0, 7), min_size=1,
                                                           max_size=4, unique=True),
       st.data())
def test_label_errors_brute_force(positions, cut_ids, data):
    """Random changes and adjacent labels (touching ends included) against direct counting."""
    cuts = np.sort(np.array(cut_ids)) * 4
    starts, ends = cuts[:-1], cuts[1:]
    if len(starts) == 0:
        starts, ends = np.array([cuts[0]]), np.array([cuts[0] + 5])
    annotations = data.draw(st.lists(st.sampled_from(list(ANNOTATIONS["annotation"])),
                                     min_size=len(starts), max_size=len(starts)))
    weights = data.draw(st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=len(starts),
                                 max_size=len(starts)))
    labels = pd.DataFrame({"sequence_id": "s", "start": starts, "end": ends,
                           "annotation": annotations, "weight": weights})
    models = pd.DataFrame({"sequence_id": ["s"], "n_segments": [len(positions) + 1]})
    changes = pd.DataFrame({"sequence_id": "s", "n_segments": len(positions) + 1,
                            "position": np.array(positions, dtype=float)})
    got = label_errors(models, changes, labels).model_errors.iloc[0]
    rules = ANNOTATIONS.set_index("annotation")
    fp = fn = 0.0
    for a, b, ann, w in zip(starts, ends, annotations, weights, strict=True):
        cnt = sum(a < p <= b for p in positions)
        fp += w * (cnt > rules.loc[ann, "max_changes"])
        fn += w * (cnt < rules.loc[ann, "min_changes"])
    assert (got["fp"], got["fn"], got["errors"]) == (fp, fn, fp + fn)
    assert got["labels"] == sum(weights)
