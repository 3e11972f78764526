"""aum(), the breakpoint builders and their errors against the R package ``aum``."""

from __future__ import annotations

import glob
import json
import os

import numpy as np
import pandas as pd
import pytest
from conftest import REFERENCE, load_reference_json, need

import penlearn as pl

CASES = sorted(
    os.path.basename(p)
    for p in glob.glob(str(REFERENCE / "aum" / "*.json"))
    if not os.path.basename(p).startswith(("raw_", "errors", "aum_only", "linear_model"))
)


def _builder_cases() -> list[str]:
    """Cases that record the builders' inputs (errors_df or labels), not only the diffs."""
    out = []
    for case in CASES:
        with open(REFERENCE / "aum" / case) as fh:
            inp = json.load(fh)["inputs"]
        if "errors_df" in inp or "labels" in inp:
            out.append(case)
    return out


BUILDER_CASES = _builder_cases()


def _breakpoints(diffs: dict, n_examples: int) -> pl.Breakpoints:
    return pl.Breakpoints(
        diffs["example"], diffs["pred"], diffs["fp_diff"], diffs["fn_diff"], n_examples=n_examples
    )


def _assert_rel(actual, expected, rtol=1e-12):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape
    scale = np.maximum(1.0, np.abs(expected))
    assert np.all(np.abs(actual - expected) <= rtol * scale), (actual, expected)


def test_reference_cases_present():
    need(REFERENCE / "aum")
    assert len(CASES) >= 10
    assert len(BUILDER_CASES) >= 10


@pytest.mark.parametrize("case", CASES)
def test_aum_matches_reference(case):
    d = load_reference_json(f"aum/{case}")
    inp = d["inputs"]
    bp = _breakpoints(inp["diffs"], inp["n_examples"])
    res = pl.aum(bp, d["aum"]["pred_vec"])
    _assert_rel(res.aum, d["aum"]["aum"])
    _assert_rel(res.derivatives, np.array(d["aum"]["derivative_mat"], float).reshape(-1, 2))


def _evaluation_from_errors_df(errors_df: dict) -> pd.DataFrame:
    """Turn aum's errors.df (example, min.lambda, fp, fn) into an evaluation table."""
    df = pd.DataFrame(errors_df).rename(
        columns={"example": "sequence_id", "min.lambda": "min_lambda"})
    rows = []
    for sid, g in df.groupby("sequence_id", sort=False):
        g = g.sort_values("min_lambda")
        with np.errstate(divide="ignore"):
            lo = np.log(g["min_lambda"].to_numpy(float))
        hi = np.r_[lo[1:], np.inf]
        rows.append(pd.DataFrame({"sequence_id": sid, "min_log_lambda": lo, "max_log_lambda": hi,
                                  "fp": g["fp"].to_numpy(float), "fn": g["fn"].to_numpy(float)}))
    return pd.concat(rows, ignore_index=True)


@pytest.mark.parametrize("case", BUILDER_CASES)
def test_builders_reproduce_reference_diffs(case):
    d = load_reference_json(f"aum/{case}")
    inp = d["inputs"]
    if "errors_df" in inp:
        ev = _evaluation_from_errors_df(inp["errors_df"])
        names = inp.get("pred_name_vec")
        if names is None:  # integer example ids are used as 0-based indices
            names = [str(i) for i in range(inp["n_examples"])]
        ev["sequence_id"] = ev["sequence_id"].astype(str)
        ev = ev[ev["sequence_id"].isin(names)]
        bp = pl.breakpoints_from_errors(ev, normalize=inp["denominator"], sequence_ids=names)
    elif "labels" in inp:
        bp = pl.breakpoints_from_labels(inp["labels"], normalize=inp["denominator"])
    else:
        pytest.fail(f"{case} records no builder inputs")
    ref = inp["diffs"]
    got = bp.to_frame()
    order = np.lexsort((ref["pred"], ref["example"]))
    np.testing.assert_array_equal(got["example"], np.asarray(ref["example"])[order])
    _assert_rel(got["value"], np.asarray(ref["pred"], float)[order])
    _assert_rel(got["fp_diff"], np.asarray(ref["fp_diff"], float)[order])
    _assert_rel(got["fn_diff"], np.asarray(ref["fn_diff"], float)[order])


def test_aum_only_cases():
    d = load_reference_json("aum/aum_only.json")
    for case in d["cases"]:
        diffs = case["diffs"]
        pred = np.asarray(case["pred_vec"], float)
        bp = pl.Breakpoints(diffs["example"], diffs["pred"], diffs["fp_diff"], diffs["fn_diff"],
                            n_examples=len(pred))
        res = pl.aum(bp, pred)
        _assert_rel(res.aum, case["aum"])
        _assert_rel(res.derivatives, np.array(case["derivative_mat"], float).reshape(-1, 2))


ERROR_CASES = {
    # name: (breakpoint args, scores, expected substring of our message)
    "aum_fn_negative": (([0], [0.0], [1.0], [1.0], 3), [1, 0, 0], "fn should be non-negative"),
    "aum_fp_negative": (([0], [0.0], [-1.0], [-1.0], 3), [1, 0, 0], "fp should be non-negative"),
    "aum_example_too_large": (([2, 3], [-1.0, 1.0], [1, 0], [0, -1], 3), [0, 0, 0],
                              "example must be in [0, n_examples=3)"),
    "aum_example_negative": (([-1, 0], [-1.0, 1.0], [1, 0], [0, -1], 3), [0, 0, 0],
                             "example must be in [0, n_examples=3)"),
    "aum_no_predictions": (([0, 1], [-1.0, 1.0], [1, 0], [0, -1], None), [],
                           "has length 0"),
    "aum_nonfinite_NA": (([0, 1], [-1.0, 1.0], [1, 0], [0, -1], None), [0, np.nan],
                         "must be finite"),
    "aum_nonfinite_Inf": (([0, 1], [-1.0, 1.0], [1, 0], [0, -1], None), [0, np.inf],
                          "must be finite"),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_reference_error_cases(name):
    ref = {c["name"]: c for c in load_reference_json("aum/errors.json")["cases"]}
    assert name in ref, f"reference error case {name} missing"
    args, scores, message = ERROR_CASES[name]
    with pytest.raises(ValueError, match=_re(message)):
        bp = pl.Breakpoints(*args[:4], n_examples=args[4])
        pl.aum(bp, scores)


@pytest.mark.parametrize("scores", [[0.0, 1.0], [0.0, 1.0, 2.0, 3.0]])
def test_scores_of_the_wrong_length(scores):
    bp = pl.Breakpoints([0, 1], [0.0, 1.0], [1, 0], [0, -1], n_examples=3)
    with pytest.raises(ValueError, match=f"scores has length {len(scores)}, expected 3"):
        pl.aum(bp, scores)


def test_reference_error_binary_labels():
    ref = {c["name"]: c for c in load_reference_json("aum/errors.json")["cases"]}
    assert "c(-1,1,2)" in ref["diffs_binary_bad_labels"]["r_code"]
    with pytest.raises(ValueError, match="labels in"):
        pl.breakpoints_from_labels([-1, 1, 2])


def test_reference_error_penalty_tables():
    """aum_diffs_penalty errors: no λ = 0 row, a repeated λ; ours name the sequence."""
    ref = {c["name"]: c for c in load_reference_json("aum/errors.json")["cases"]}
    assert "need min.lambda=0" in ref["diffs_penalty_no_zero"]["error"]
    # min.lambda = exp(1:4): intervals do not reach -inf
    ev = pd.DataFrame({"sequence_id": 1, "min_log_lambda": [1.0, 2, 3, 4],
                       "max_log_lambda": [2.0, 3, 4, np.inf], "fp": [10, 4, 4, 0],
                       "fn": [0, 2, 2, 10]})
    with pytest.raises(ValueError, match="sequence 1 do not partition"):
        pl.breakpoints_from_errors(ev)
    # min.lambda = c(0,1,1,2): a repeated λ gives an empty interval
    lo = np.array([-np.inf, 0.0, 0.0, np.log(2)])
    ev = pd.DataFrame({"sequence_id": 1, "min_log_lambda": lo,
                       "max_log_lambda": [0.0, 0.0, np.log(2), np.inf], "fp": [10, 4, 4, 0],
                       "fn": [0, 2, 2, 10]})
    with pytest.raises(ValueError, match="sequence 1"):
        pl.breakpoints_from_errors(ev)


def _re(text: str) -> str:
    import re

    return re.escape(text)
