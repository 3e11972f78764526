"""Tampered boosting model files: children out of range or cyclic, NaN / inf / text
thresholds, features out of range, arrays of unequal length, missing or extra keys, a
wrong model kind. ``PenaltyModel.load``, ``penlearn peaks --model`` and ``penlearn
predict`` refuse each with one line; the untampered file round-trips."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import ERROR, check_cases, peak_folder, run_cli

from penlearn.datasets.peaks import load_peak_folder
from penlearn.learn.model import PenaltyModel


def _boost_cases(tmp: Path):
    folder = peak_folder(tmp / "boost", samples=tuple(f"s{i}" for i in range(12)))
    ds = load_peak_folder(folder)
    x = ds.inputs[[c for c in ds.inputs if np.isfinite(ds.inputs[c]).all()]]
    model = PenaltyModel(model="boosting", boosting={"min_samples_leaf": 2}).fit(
        x, ds.evaluation, scale_features=x)
    good = tmp / "boost.json"
    base = model.to_dict()
    if not base.get("trees"):  # the easy toy data stops boosting at stage 0: add one tree
        base["trees"] = [{"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
                          "threshold": [0.0, -2.0, -2.0], "value": [0.0, -0.5, 0.5]}]
        base["best_step"] = 1  # the file's count of kept trees must agree with its trees
        base["history"] = {c: v + v[-1:] for c, v in base["history"].items()}
        base["history"]["step"][-1] = 1
    good.write_text(json.dumps(base))
    model = PenaltyModel.load(good)
    nf = len(base["features"])
    cov = folder / "coverage.csv"
    t0 = base["trees"][0]
    split = int(np.flatnonzero(np.asarray(t0["left"]) != -1)[0]) if any(
        v != -1 for v in t0["left"]) else None

    def edit(fn):
        data = json.loads(json.dumps(base))
        fn(data)
        return data

    def set_node(field, value, node=None):
        def fn(d):
            d["trees"][0][field][split if node is None else node] = value
        return fn

    tamperings = {
        "left child out of range": set_node("left", 10**6),
        "left child = itself": set_node("left", split or 0),
        "left child -5": set_node("left", -5),
        "threshold NaN": set_node("threshold", float("nan")),
        "threshold inf": set_node("threshold", float("inf")),
        "threshold string": set_node("threshold", "x"),
        "value NaN": set_node("value", float("nan"), node=-1),
        "feature out of range": set_node("feature", nf),
        "feature negative": set_node("feature", -1),
        "feature float": set_node("feature", 0.5),
        "child bool": set_node("right", True),
        "arrays of unequal length": lambda d: d["trees"][0]["value"].append(0.0),
        "empty tree": lambda d: d["trees"].__setitem__(0, {k: [] for k in t0}),
        "missing key": lambda d: d["trees"][0].pop("threshold"),
        "extra key": lambda d: d["trees"][0].__setitem__("extra", [1]),
        "trees a dict": lambda d: d.__setitem__("trees", {"0": t0}),
        "tree a list": lambda d: d["trees"].__setitem__(0, [1, 2]),
        "nested lists": lambda d: d["trees"][0].__setitem__("value",
                                                            [[v] for v in t0["value"]]),
        "shrinkage NaN": lambda d: d.__setitem__("shrinkage", float("nan")),
        "shrinkage string": lambda d: d.__setitem__("shrinkage", "x"),
        "model kind wrong": lambda d: d["params"].__setitem__("model", "forest"),
    }
    if split is None:
        raise RuntimeError("the first tree has no split")
    for name, fn in tamperings.items():
        path = tmp / f"boost-{name.replace(' ', '_')}.json"
        with open(path, "w") as fh:
            json.dump(edit(fn), fh)  # NaN written as the JSON extension NaN
        yield f"PenaltyModel.load boosting {name}", (lambda p=path: PenaltyModel.load(p)), ERROR
        if name in ("left child out of range", "threshold NaN", "feature out of range",
                    "missing key", "arrays of unequal length", "model kind wrong"):
            yield (f"peaks --model boosting {name}",
                   (lambda p=path: run_cli(["peaks", cov, "--model", p, "--out",
                                         tmp / "bm" / p.stem, "-q"])), ERROR)
    cli_model = tmp / "boost-cli.json"

    def learn_then_tamper():
        run_cli(["learn", folder, "--model", "boosting", "--out", cli_model, "--no-cache", "-q"])
        d = json.loads(cli_model.read_text())
        PenaltyModel.load(cli_model)  # the file as written loads
        d.setdefault("trees", [])  # (it may stop at stage 0 on this toy folder)
        d["trees"].append({"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
                           "threshold": [float("nan"), -2.0, -2.0], "value": [0.0, -1.0, 1.0]})
        cli_model.write_text(json.dumps(d))
        return run_cli(["peaks", cov, "--model", cli_model, "--out", tmp / "bcli", "-q"])

    yield "learn --model boosting, tampered NaN threshold, peaks --model", learn_then_tamper, ERROR
    inputs = tmp / "inputs.csv"
    ds.inputs.rename_axis("sequenceID").to_csv(inputs)
    bad = tmp / "boost-threshold_NaN.json"
    yield ("predict boosting threshold NaN",
           lambda: run_cli(["predict", bad, inputs, "--out", tmp / "pr.csv"]), ERROR)
    yield ("predict boosting round trip",
           lambda: (run_cli(["predict", good, inputs, "--out", tmp / "pg.csv"]),
                    pd.read_csv(tmp / "pg.csv"))[1],
           lambda d: np.allclose(d["log_lambda"].to_numpy(),
                                 model.predict(ds.inputs.loc[d.iloc[:, 0]]))
           and d["log_lambda"].nunique() == 2)


@pytest.mark.slow  # a boosting fit, ~30 tampered files, 8 commands in-process
def test_tampered_boosting_model_files_are_refused(tmp_path):
    check_cases(_boost_cases(tmp_path), at_least=30)
