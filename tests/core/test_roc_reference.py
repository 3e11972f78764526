"""roc_change() against penaltyLearning::ROChange (tables, AUC, AUM, thresholds, errors)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, need

import penlearn as pl
from penlearn.datasets import snake_case_columns

ROC_DIR = REFERENCE / "penaltyLearning" / "ROChange"


def _cases() -> dict:
    path = ROC_DIR / "cases.json"
    if not path.exists():
        return {}
    cases = json.loads(path.read_text())["cases"]
    return {k: v for k, v in cases.items() if (ROC_DIR / f"{k}_models.csv").exists()}


CASES = _cases()


def _ids(df: pd.DataFrame, problem_vars: list[str]) -> pd.Series:
    return df[problem_vars].astype(str).agg("|".join, axis=1)


def _load(name: str, case: dict):
    pv = case["problem.vars"]
    models = pd.read_csv(need(ROC_DIR / f"{name}_models.csv"))
    models["sequence_id"] = _ids(models, pv)
    preds = pd.read_csv(ROC_DIR / f"{name}_predictions.csv")
    pred = pd.Series(preds["pred.log.lambda"].to_numpy(float), index=_ids(preds, pv))
    return snake_case_columns(models), pred, pv


def test_reference_cases_present():
    need(ROC_DIR / "cases.json")
    assert len(CASES) >= 8


def _num(x):
    return {"Inf": np.inf, "-Inf": -np.inf}.get(x, x) if isinstance(x, str) else float(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_roc_change_matches_reference(name):
    case = CASES[name]
    ev, pred, pv = _load(name, case)
    res = pl.roc_change(ev, pred)
    ref = pd.read_csv(ROC_DIR / f"{name}_roc.csv")
    ref.columns = [c.replace(".", "_").lower() for c in ref.columns]
    assert len(res.roc) == case["n.roc.rows"] == len(ref)
    for col in ["min_thresh", "max_thresh", "fp", "fn", "possible_fp", "possible_fn", "fpr",
                "tpr", "min_fp_fn", "errors", "labels", "tp", "error_percent"]:
        np.testing.assert_allclose(res.roc[col].to_numpy(float), ref[col].to_numpy(float),
                                   rtol=1e-12, atol=0, err_msg=col)
    assert res.auc == pytest.approx(_num(case["auc"]), rel=1e-12, abs=1e-15)
    assert res.aum == pytest.approx(_num(case["aum"]), rel=1e-12, abs=1e-15)
    poly = pd.read_csv(ROC_DIR / f"{name}_auc_polygon.csv")
    np.testing.assert_allclose(res.auc_polygon[["fpr", "tpr"]].to_numpy(),
                               poly[["FPR", "TPR"]].to_numpy(), rtol=1e-12)
    thr = snake_case_columns(pd.read_csv(ROC_DIR / f"{name}_thresholds.csv"))
    for col in ["min_thresh", "max_thresh", "fp", "fn", "errors"]:
        np.testing.assert_allclose(res.thresholds[col].to_numpy(float),
                                   thr[col].to_numpy(float), rtol=1e-12, err_msg=col)
    grad = pd.read_csv(ROC_DIR / f"{name}_aum_grad.csv")
    got = res.aum_grad.set_index("sequence_id").loc[_ids(grad, pv)]
    np.testing.assert_allclose(got[["lo", "hi"]].to_numpy(), grad[["lo", "hi"]].to_numpy(),
                               rtol=1e-12, atol=1e-15)


def _simple_eval():
    return pd.DataFrame({
        "sequence_id": ["a", "a", "b", "b"],
        "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
        "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
        "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
        "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1], "labels": [1, 1, 1, 1],
    })


def _ref_error(key: str) -> str:
    errors = json.loads(need(ROC_DIR / "cases.json").read_text())["errors"]
    assert key in errors, f"reference error case {key} missing"
    return errors[key]


@pytest.mark.parametrize(
    ("key", "mutate", "pred", "match"),
    [
        ("missing.columns", lambda e: e.drop(columns="possible_fp"), {"a": 0, "b": 0},
         "missing column"),
        ("na.fp", lambda e: e.assign(fp=[np.nan, 0, 0, 0]), {"a": 0, "b": 0},
         "'fp' must be finite"),
        ("infinite.pred", lambda e: e, {"a": np.inf, "b": 0}, "must be finite"),
        ("pred.not.in.models", lambda e: e, {"a": 0, "b": 0, "c": 1}, "not in the evaluation"),
        ("no.minus.inf", lambda e: e.assign(min_log_lambda=[-5.0, 0, -np.inf, 1]),
         {"a": 0, "b": 0}, "do not partition"),
        ("inconsistent.intervals", lambda e: e.assign(max_log_lambda=[0.5, np.inf, 1, np.inf]),
         {"a": 0, "b": 0}, "do not partition"),
        ("possible.fp.not.constant", lambda e: e.assign(possible_fp=[1, 2, 0, 0]),
         {"a": 0, "b": 0}, "possible_fp should be constant"),
        ("negative.labels", lambda e: e.assign(possible_fn=[0, 0, -1, -1]), {"a": 0, "b": 0},
         "non-negative"),
        ("fp.out.of.range", lambda e: e.assign(fp=[2, 0, 0, 0]), {"a": 0, "b": 0},
         "fp should be in"),
        ("no.negative.labels", lambda e: e.assign(possible_fp=0, fp=0), {"a": 0, "b": 0},
         "no negative labels"),
        ("no.positive.labels", lambda e: e.assign(possible_fn=0, fn=0), {"a": 0, "b": 0},
         "no positive labels"),
    ],
)
def test_roc_change_errors(key, mutate, pred, match):
    _ref_error(key)  # the case exists in the reference: R fails there too
    with pytest.raises((ValueError, TypeError), match=match):
        pl.roc_change(mutate(_simple_eval()), pred)


def test_two_predictions_for_one_sequence():
    _ref_error("two.predictions")
    preds = pd.DataFrame({"sequence_id": ["a", "a", "b"], "log_lambda": [0.0, 1.0, 0.0]})
    with pytest.raises(ValueError, match="more than one prediction for sequence 'a'"):
        pl.roc_change(_simple_eval(), preds)


def test_prediction_table_without_column():
    _ref_error("no.pred.column")
    with pytest.raises(ValueError, match="log_lambda"):
        pl.roc_change(_simple_eval(), pd.DataFrame({"sequence_id": ["a", "b"], "x": [0, 0]}))


def test_partial_auc_brute_force():
    """Partial AUC of a looping ROC equals a fine numerical integral of the clipped path."""
    ev = _simple_eval()
    res = pl.roc_change(ev, {"a": 0.5, "b": 0.5})
    assert res.partial_auc(1.0) == pytest.approx(res.auc)
    rng = np.random.default_rng(0)
    x = np.r_[0, np.sort(rng.uniform(0, 1, 6))[::-1][:3], rng.uniform(0, 1, 3), 1]
    y = np.r_[0, rng.uniform(0, 1, 6), 1]
    from penlearn.roc import partial_path_auc, path_auc

    for fmax in (0.1, 0.37, 0.8, 1.0):
        total = 0.0
        for x0, x1, y0, y1 in zip(x[:-1], x[1:], y[:-1], y[1:]):
            ts = np.linspace(0, 1, 20001)
            xs, ys = x0 + ts * (x1 - x0), y0 + ts * (y1 - y0)
            inside = xs <= fmax
            xs, ys = xs[inside], ys[inside]
            total += np.trapezoid(ys, xs) if len(xs) > 1 else 0.0
        assert partial_path_auc(x, y, fmax) == pytest.approx(total, abs=2e-4)
    assert partial_path_auc(x, y, 1.0) == pytest.approx(path_auc(x, y))
