"""``penlearn peaks --model`` and ``penlearn predict`` on coverage whose log-log features
are missing or infinite and on model files that would predict inf: the shipped Mono27ac
coverage (mean 0.35 reads per base), an all-zero chromosome and a one-row chromosome, with
a constant, a boosted and a linear model.

The expected peaks are those of :func:`penlearn.predict_peaks` at log λ computed here by
hand from the documented rules (a tree stops a NaN at the node splitting on it, with that
node's value; the linear model takes the training mean for NaN and the training range
for ±inf).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl
from penlearn.cli import main
from penlearn.learn.descent import HISTORY_COLUMNS

FEATS = ["log.log.mean", "log.mean", "log.quartile.50%", "mean"]
MEAN = [0.5, 1.0, 1.0, 3.0]
LOW, HIGH = [-1.0, -2.0, -1.0, 0.0], [2.0, 4.0, 4.0, 50.0]
COEF = [0.6, -0.4, 0.3, 0.01]
# two trees on FEATS; node values are those of the nodes (inner: their training mean)
TREES = [
    {"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
     "threshold": [0.3, -2.0, -2.0], "value": [0.7, 0.25, 1.5]},
    {"left": [1, 3, -1, -1, -1], "right": [2, 4, -1, -1, -1], "feature": [3, 2, -2, -2, -2],
     "threshold": [4.0, 0.5, -2.0, -2.0, -2.0], "value": [-0.2, -0.5, 0.4, -1.0, 0.1]},
]


def _model(path: Path, kind: str, intercept: float) -> Path:
    data = {"format": "penlearn.PenaltyModel", "version": 1, "kind": "penalty",
            "params": {"model": "linear" if kind == "linear" else "boosting"},
            "features": FEATS, "coef": COEF if kind == "linear" else [0.0] * len(FEATS),
            "intercept": intercept,
            "scaling": {"mean": MEAN, "scale": [1.0] * len(FEATS), "low": LOW, "high": HIGH},
            "dropped_features": [], "best_step": 0,
            "history": {c: [0.0] for c in HISTORY_COLUMNS}}
    if kind != "linear":
        data["trees"] = TREES if kind == "boosting" else []
        n = len(data["trees"])  # a consistent file: best_step = the trees kept, steps 0..n
        data["best_step"] = n
        data["history"] = {c: [float(k) if c == "step" else 0.0 for k in range(n + 1)]
                           for c in HISTORY_COLUMNS}
    data["task"] = "peaks"
    path.write_text(json.dumps(data))
    return path


def _expected(kind: str, intercept: float, features: pd.DataFrame) -> pd.Series:
    A = features[FEATS].to_numpy(float)
    out = []
    for x in A:
        if kind == "linear":
            x = np.where(np.isnan(x), MEAN, np.where(x == np.inf, HIGH,
                                                     np.where(x == -np.inf, LOW, x)))
            out.append(intercept + float(np.dot(COEF, x)))
            continue
        total = intercept
        for t in TREES if kind == "boosting" else []:
            i = 0
            while t["left"][i] != -1 and not np.isnan(x[t["feature"][i]]):
                v = x[t["feature"][i]]
                i = t["left"][i] if v <= t["threshold"][i] else t["right"][i]
            total += t["value"][i]
        out.append(total)
    return pd.Series(out, index=features.index)


def _peaks_cli(coverage: Path, model: Path, out: Path, capsys) -> tuple[list, str]:
    code = main(["peaks", str(coverage), "--model", str(model), "--out", str(out), "--bed3"])
    _, err = capsys.readouterr()
    assert code == 0, err
    err = "\n".join(ln for ln in err.splitlines() if "warning" in ln)  # not the progress
    rows = [ln.split("\t") for ln in out.read_text().splitlines()]
    return [[c, int(a), int(b)] for c, a, b in rows], err


def _check_peaks(coverage: Path, kind: str, intercept: float, tmp_path, capsys):
    cov = pl.read_coverage(coverage)
    features = pl.coverage_features(cov)
    want_ll = _expected(kind, intercept, features)
    assert np.all(np.isfinite(want_ll))
    want = pl.predict_peaks(cov, want_ll)[["chrom", "chromStart", "chromEnd"]]
    bed, err = _peaks_cli(coverage, _model(tmp_path / f"{kind}.json", kind, intercept),
                          tmp_path / f"{kind}.bed", capsys)
    assert bed == want.values.tolist()
    return features, err


@pytest.mark.parametrize("kind", ["constant", "boosting", "linear"])
def test_peaks_model_on_the_shipped_mono27ac_coverage(kind, tmp_path, capsys):
    coverage = need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz")
    features, err = _check_peaks(coverage, kind, 8.0, tmp_path, capsys)
    assert features["log.log.mean"].isna().all()  # a NaN log-log mean: the case that once failed
    assert (err == "") == (kind == "constant")  # a constant model reads no feature
    if kind != "constant":
        assert err.startswith("penlearn peaks: warning: 1 row(s) ['Mono27ac/chr11:60000-58")
        assert "log.log.mean" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("kind", ["constant", "boosting", "linear"])
def test_peaks_model_on_an_all_zero_and_a_one_row_chromosome(kind, tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows, pos = [], 0
    for i in range(300):
        w = int(rng.integers(5, 50))
        rows.append(("chrA", pos, pos + w, int(rng.poisson(20 if 100 <= i < 140 else 3))))
        pos += w
    rows += [("chrY", 100 * i, 100 * i + 100, 0) for i in range(5)]  # no coverage at all
    rows.append(("chrM", 0, 16569, 7))  # one row
    path = tmp_path / "cov.bedGraph"
    pd.DataFrame(rows).to_csv(path, sep="\t", header=False, index=False)
    features, err = _check_peaks(path, kind, 2.0, tmp_path, capsys)
    assert features.loc["cov/chrY:0-500", "log.log.mean"] != features.loc[
        "cov/chrY:0-500", "log.log.mean"]  # NaN
    assert np.isneginf(features.loc["cov/chrY:0-500", "log.mean"])
    if kind != "constant":
        assert "cov/chrY:0-500" in err and "cov/chrA" not in err


def test_a_model_file_that_would_predict_inf_stops_predict_and_peaks(tmp_path, capsys):
    model = _model(tmp_path / "m.json", "boosting", 0.0)
    data = json.loads(model.read_text())
    data["trees"][0]["value"] = [1.5e308] * 3  # finite leaves, sum inf
    data["trees"][1]["value"] = [1.5e308] * 5
    model.write_text(json.dumps(data))
    inputs = tmp_path / "inputs.csv"
    pd.DataFrame([[1.0, 1.0, 1.0, 1.0]], columns=FEATS,
                 index=pd.Index(["s1"], name="sequenceID")).to_csv(inputs)
    for argv in (["predict", model, inputs, "--out", tmp_path / "pred.csv"],
                 ["peaks", tmp_path / "cov.bedGraph", "--model", model, "--out",
                  tmp_path / "peaks.bed", "--quiet"]):
        (tmp_path / "cov.bedGraph").write_text("chr1\t0\t100\t3\nchr1\t100\t200\t9\n")
        code = main([str(a) for a in argv])
        _, err = capsys.readouterr()
        assert code == 1, err
        assert "m.json is not a valid penlearn model file" in err and "beyond" in err
        assert not (tmp_path / "pred.csv").exists() and not (tmp_path / "peaks.bed").exists()


def test_a_model_path_that_is_a_fifo_is_one_line_error(tmp_path, capsys):
    import os

    fifo = tmp_path / "m.json"
    os.mkfifo(fifo)
    (tmp_path / "cov.bedGraph").write_text("chr1\t0\t100\t3\n")
    code = main(["peaks", str(tmp_path / "cov.bedGraph"), "--model", str(fifo), "--out",
                 str(tmp_path / "p.bed"), "--quiet"])
    _, err = capsys.readouterr()
    assert code == 1 and "not a regular file" in err and len(err.strip().splitlines()) == 1


def test_a_learned_model_on_mono27ac_with_counts_divided_by_3(tmp_path, capsys):
    """As a user would: ``penlearn learn`` on a shipped data set, then ``penlearn peaks
    --model`` on the shipped Mono27ac coverage with its counts divided by 3 (mean ~0.1
    reads per base: NaN and -inf log features)."""
    train = need(DATA / "H3K36me3_TDH_other")
    cov = pl.read_coverage(need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz"))
    cov["count"] = cov["count"] // 3
    path = tmp_path / "mono3.bedGraph"
    cov[["chrom", "chromStart", "chromEnd", "count"]].to_csv(path, sep="\t", header=False,
                                                             index=False)
    model_path = tmp_path / "model.json"
    assert main(["learn", str(train), "--out", str(model_path), "--quiet"]) == 0
    capsys.readouterr()
    model = pl.PenaltyModel.load(model_path)
    features = pl.coverage_features(pl.read_coverage(path))
    assert features.isna().any(axis=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        log_lambda = pd.Series(model.predict(features), index=features.index)
    assert any("have NaN" in str(w.message) for w in caught) == _uses_nan(model, features)
    assert np.all(np.isfinite(log_lambda))
    want = pl.predict_peaks(pl.read_coverage(path), log_lambda)
    bed, err = _peaks_cli(path, model_path, tmp_path / "peaks.bed", capsys)
    assert bed == want[["chrom", "chromStart", "chromEnd"]].values.tolist()
    assert ("have NaN" in err) == _uses_nan(model, features)


def _uses_nan(model, features) -> bool:
    """Whether a row of ``features`` reaches a NaN in a column the model reads."""
    from penlearn.learn.boosting import predict_trees

    A = features[list(model.coef_.index)].to_numpy(float)
    if model.trees_ is not None:
        return bool(predict_trees(model.trees_, A, return_missing=True)[1].any())
    return bool(np.isnan(A[:, model.coef_.to_numpy() != 0]).any())

