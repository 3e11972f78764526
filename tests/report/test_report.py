"""roc_change_report: one self-contained HTML file whose numbers are roc_change's."""

from __future__ import annotations

import base64
import html
import io
import re

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from _penlearn_demo import parse_report, table_frame

from penlearn.changepoint.evaluation import error_functions
from penlearn.changepoint.segmentation import segment_sequences
from penlearn.datasets import simulate
from penlearn.report import errors_at_predictions, roc_change_report, summary_table
from penlearn.roc import roc_change

INF = np.inf


@pytest.fixture(scope="module")
def pipeline():
    """Error functions of 16 simulated labeled sequences (the real pipeline)."""
    data = simulate(16, seed=7, n_points=(80, 150))
    models, changes = segment_sequences(data.sequences, 6, progress=False)
    ev = error_functions(models, changes, data.labels)
    return data, ev, changes


def predictions(ev: pd.DataFrame, seed: int) -> pd.Series:
    ids = pd.unique(ev["sequence_id"])
    rng = np.random.default_rng(seed)
    return pd.Series(rng.normal(2.0, 2.0, size=len(ids)), index=ids)


def test_report_table_is_roc_change(pipeline, tmp_path):
    data, ev, changes = pipeline
    preds = {"zero": predictions(ev, 0) * 0, "random": predictions(ev, 1),
             "other": predictions(ev, 2)}
    out = roc_change_report(ev, preds, tmp_path / "r.html", title="T & <b>", model=None,
                            sequences=data.sequences, labels=data.labels, changes=changes,
                            fpr_max=0.2)
    text = out.read_text()
    # the plotted sequences show the model that the first prediction selects
    sel = errors_at_predictions(ev, preds["zero"]).set_index("sequence_id")
    captions = re.findall(r"Sequence (\S+) and its labels, with the model selected by "
                          r"'zero' \((\d+) segments, (\d+) label errors\)", html.unescape(text))
    assert len(captions) >= 1
    for sid, k, err in captions:
        assert int(k) == sel.loc[sid, "n_segments"] and int(err) == sel.loc[sid, "errors"]
    assert "<title>T &amp; &lt;b&gt;</title>" in text
    page = parse_report(out)
    summary = table_frame(page.tables["auc-table"]).set_index("prediction")
    assert list(summary.index) == list(preds)
    for name, p in preds.items():
        res = roc_change(ev, p)
        row = summary.loc[name]
        assert float(row["auc"]) == pytest.approx(res.auc, rel=1e-3, abs=1e-4)
        assert float(row["aum"]) == pytest.approx(res.aum, rel=1e-3, abs=1e-4)
        assert float(row["partial_auc (FPR≤0.2)"]) == pytest.approx(res.partial_auc(0.2),
                                                                     rel=1e-3, abs=1e-4)
        pr = res.thresholds.loc["predicted"]
        for col in ("fp", "fn", "errors"):
            assert float(row[col]) == pr[col]
        assert float(row["min_errors"]) == res.roc["errors"].min()
    # per-sequence table: one row per sequence, each prediction's FP/FN add up to the
    # ROC's predicted row
    seq = table_frame(page.tables["sequence-table"])
    assert sorted(seq["sequence_id"]) == sorted(pd.unique(ev["sequence_id"]))
    for name, p in preds.items():
        pr = roc_change(ev, p).thresholds.loc["predicted"]
        assert seq[f"{name}: fp"].astype(float).sum() == pr["fp"]
        assert seq[f"{name}: fn"].astype(float).sum() == pr["fn"]
        got = seq.set_index("sequence_id")[f"{name}: log_lambda"].astype(float)
        assert np.allclose(got.loc[p.index], p.to_numpy(), rtol=1e-3, atol=1e-3)


def test_report_is_self_contained(pipeline, tmp_path):
    data, ev, _ = pipeline
    out = roc_change_report(ev, predictions(ev, 3), tmp_path / "r.html",
                            sequences=data.sequences, labels=data.labels)
    text = out.read_text()
    # no external resource: every src is a data URI, no links, no scripts, no stylesheets
    srcs = re.findall(r'src="([^"]*)"', text)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "href=" not in text and "<script" not in text and "http://" not in text
    assert "https://" not in text and "<link" not in text
    page = parse_report(out)
    assert {"roc-figure", "error-functions-figure", "sequence-0"} <= set(page.images)
    for src in page.images.values():
        img = mpimg.imread(io.BytesIO(base64.b64decode(src.split(",", 1)[1])), format="png")
        assert img.shape[0] > 100 and img.shape[1] > 100
    summary = table_frame(page.tables["auc-table"])
    assert list(summary["prediction"]) == ["prediction"]


def test_errors_at_predictions_brute_force(pipeline):
    """Per sequence, the selected row is found by scanning the intervals; predictions
    exactly on a boundary select the smaller-penalty model, as roc_change does."""
    _, ev, _ = pipeline
    ids = pd.unique(ev["sequence_id"])
    rng = np.random.default_rng(11)
    finite = ev.loc[np.isfinite(ev["min_log_lambda"]), ["sequence_id", "min_log_lambda"]]
    for trial in range(6):
        p = {}
        for sid in ids:
            bounds = finite.loc[finite["sequence_id"] == sid, "min_log_lambda"].to_numpy()
            if trial % 2 == 0 and len(bounds):
                p[sid] = float(rng.choice(bounds))  # exactly on a boundary
            else:
                p[sid] = float(rng.normal(2, 3))
        got = errors_at_predictions(ev, p).set_index("sequence_id")
        for sid in ids:
            rows = ev[ev["sequence_id"] == sid]
            hit = rows[(rows["min_log_lambda"] < p[sid]) & (p[sid] <= rows["max_log_lambda"])]
            assert len(hit) == 1
            assert got.loc[sid, "fp"] == hit["fp"].iloc[0]
            assert got.loc[sid, "fn"] == hit["fn"].iloc[0]
            assert got.loc[sid, "min_errors"] == rows["errors"].min()
            assert got.loc[sid, "n_segments"] == hit["n_segments"].iloc[0]
        pr = roc_change(ev, p).thresholds.loc["predicted"]
        assert got["fp"].sum() == pr["fp"] and got["fn"].sum() == pr["fn"]


def test_summary_table_single_and_loop():
    """The summary table reports roc_change's AUC (checked by hand) and predicted errors."""
    ev = pd.DataFrame({
        "sequence_id": ["a"] * 3 + ["b"] * 3,
        "min_log_lambda": [-INF, -1.0, 1.0, -INF, 0.0, 2.0],
        "max_log_lambda": [-1.0, 1.0, INF, 0.0, 2.0, INF],
        "fp": [0, 1, 0, 1, 0, 0], "fn": [0, 1, 1, 0, 0, 1],
        "possible_fp": [1] * 6, "possible_fn": [1] * 6, "labels": [2] * 6,
    })
    res = {"x": roc_change(ev, {"a": 0.0, "b": 1.0})}
    table = summary_table(res)
    assert table.loc["x", "auc"] == res["x"].auc
    # by hand: the path (1, 1) -> (0.5, 1) -> (0.5, 0.5) -> (0, 0) has area 0.5 + 0 + 0.125
    assert table.loc["x", "auc"] == pytest.approx(0.625, abs=1e-15)
    assert table.loc["x", "errors"] == res["x"].thresholds.loc["predicted", "errors"]


def test_report_with_a_model_shows_its_learning_curves(pipeline, tmp_path):
    from penlearn.changepoint.features import feature_matrix
    from penlearn.learn import learn_penalty

    data, ev, _ = pipeline
    feats = feature_matrix(data.sequences, "neuroblastoma")
    feats = feats[["log.hall", "log.n", "log2.n"]]
    model = learn_penalty(feats, ev, init="zero", progress=False, max_steps=5)
    out = roc_change_report(ev, pd.Series(model.predict(feats), index=feats.index),
                            tmp_path / "m.html", model=model)
    page = parse_report(out)
    assert "learning-curves-figure" in page.images


def test_write_is_atomic(pipeline, tmp_path):
    """A failing report leaves the previous file untouched and no temporary file."""
    _, ev, _ = pipeline
    out = tmp_path / "r.html"
    out.write_text("previous report")
    bad = predictions(ev, 4).iloc[1:]  # a sequence without prediction
    with pytest.raises(ValueError, match="no prediction"):
        roc_change_report(ev, bad, out)
    assert out.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
    roc_change_report(ev, predictions(ev, 4), out)
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
