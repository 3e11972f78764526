"""The zero-label model's learner (issue 52 item 1): the slope of fewest training errors
averaged over a window of slopes, the leave-one-set-out figures of the shipped file
recomputed, and ``penlearn pretrain`` over an existing model file keeping the keys it
does not write."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn as pl
from penlearn.cli import main
from penlearn.datasets.pretrain import chipseq_sets, pretrain
from penlearn.peaks.pretrained import (
    DEFAULT_MODEL_PATH,
    PROVENANCE_KEYS,
    load_pretrained,
    save_pretrained,
)
from penlearn.peaks.pretrained.fit import (
    FEATURES,
    SLOPE_SMOOTH,
    fit_dispersion_model,
    leave_one_set_out,
    min_error_intercept,
    slope_errors,
    smoothed_slope,
)


def test_smoothed_slope_equals_brute_force():
    rng = np.random.default_rng(5)
    slopes = np.round(np.arange(0, 1.001, 0.01), 10)
    for _ in range(20):
        errors = rng.integers(0, 6, len(slopes)).astype(float)
        for smooth in (0.0, 0.03, 0.05):
            k = int(round(smooth / 0.01))
            means = [errors[max(0, i - k):i + k + 1].mean() for i in range(len(slopes))]
            best = min(means)
            first = next(i for i, m in enumerate(means) if m <= best + 1e-9)
            assert smoothed_slope(slopes, errors, smooth) == first
    with pytest.raises(ValueError, match="smooth must be"):
        fit_dispersion_model(pd.DataFrame(), pd.DataFrame(), pd.Series(dtype=str),
                             smooth=-1.0)


def test_a_narrow_dip_of_the_training_errors_loses_to_a_wide_one():
    # training errors as a function of the slope: low at one slope only (a few labels'
    # luck), or a little higher on a range of slopes
    slopes = np.round(np.arange(0, 1.001, 0.01), 10)
    errors = np.full(len(slopes), 3.0)
    errors[20] = 0.0  # a dip one grid step wide
    errors[60:75] = 1.0  # a wide one
    assert slopes[smoothed_slope(slopes, errors, 0.0)] == 0.2
    assert 0.6 <= slopes[smoothed_slope(slopes, errors, SLOPE_SMOOTH)] < 0.75


def _load_sets(names):
    X, evs, groups = [], [], []
    for s in names:
        ds = pl.load_uci(DATA / s)
        ev = ds.evaluation
        ids = ds.inputs.index.intersection(pd.Index(ev["sequence_id"].unique()))
        X.append(ds.inputs.loc[ids, list(FEATURES)])
        evs.append(ev[ev["sequence_id"].isin(ids)])
        groups.append(pd.Series(s, index=ids))
    return pd.concat(X), pd.concat(evs, ignore_index=True), pd.concat(groups)


def test_fit_is_the_smoothed_minimum_of_exact_training_errors():
    names = ["H3K36me3_TDH_other", "H3K4me3_TDH_ENCODE", "H3K27me3_TDH_some"]
    for s in names:
        need(DATA / s)
    X, ev, g = _load_sets(names)
    table = slope_errors(X, ev, g)
    fit = fit_dispersion_model(X, ev, g)
    i = smoothed_slope(table["slope"].to_numpy(), table["errors_pct"].to_numpy())
    assert fit["slope"] == table["slope"].iloc[i]
    # the intercept: of fewest set-weighted errors at that slope (brute-force checked in
    # test_pretrained), and those errors recounted from the error functions
    offset = pd.Series(fit["slope"] * (2 * X["log.sd"] - X["log.mean"]).to_numpy(),
                       index=X.index)
    labels = ev.groupby("sequence_id")["labels"].first()
    weight = 1.0 / labels.groupby(g.reindex(labels.index)).transform("sum")
    c, e = min_error_intercept(ev, offset, weight)
    assert fit["intercept"] == c
    assert fit["train_errors_pct"] == pytest.approx(100 * e / len(names))
    pred = fit["intercept"] + offset
    per_set = []
    for s in names:
        ids = g.index[g.to_numpy() == s]
        e_s = ev[ev["sequence_id"].isin(ids)]
        p = pred.reindex(e_s["sequence_id"]).to_numpy()
        inside = (e_s["min_log_lambda"].to_numpy() <= p) & (p < e_s["max_log_lambda"].to_numpy())
        per_set.append(100 * e_s["errors"].to_numpy()[inside].sum() / labels.loc[ids].sum())
    assert fit["train_errors_pct"] == pytest.approx(np.mean(per_set))


@pytest.mark.slow
def test_leave_one_set_out_figures_of_the_shipped_file_recomputed():
    """Each held-out set's errors with the model learned without it (its mark level also
    learned without it), recomputed: the figures the shipped file and RESULTS state, and
    issue 52's goal (≤ 20.1 % at the mark level, the all-sets level no worse than 21.85)."""
    need(DATA / "H3K4me3_TDH_immune")
    names = chipseq_sets(DATA)
    assert len(names) == 17
    X, ev, g = _load_sets(names)
    table = leave_one_set_out(X, ev, g, marks=True)
    p = load_pretrained().provenance
    for column, block in (("all_sets", p["leave_one_set_out"]),
                          ("mark", p["marks"]["leave_one_set_out"])):
        shipped = pd.Series(block["test_errors_pct"])
        np.testing.assert_allclose(table[column].reindex(shipped.index), shipped, atol=1e-4)
        assert table[column].mean() == pytest.approx(block["mean"], abs=1e-4)
    assert table["mark"].mean() <= 20.1
    assert table["all_sets"].mean() <= 21.85


def _three_sets(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    for s in ("H3K36me3_TDH_other", "H3K4me3_TDH_ENCODE", "H3K36me3_TDH_ENCODE"):
        (root / s).symlink_to(need(DATA / s), target_is_directory=True)
    return root


def test_pretrain_over_a_model_file_keeps_the_keys_it_does_not_write(tmp_path, capsys):
    root = _three_sets(tmp_path)
    out = tmp_path / "m.json"
    old = json.loads(DEFAULT_MODEL_PATH.read_text())
    old["narrow_shift"] = {"log_lambda": -1.0}  # keys another tool added
    old["provenance"]["marks"]["narrow"]["qvalue"] = 0.05
    old["provenance"]["kept_note"] = "x"
    out.write_text(json.dumps(old))
    code = main(["pretrain", str(root), "--out", str(out), "--force", "--no-loso"])
    stdout = capsys.readouterr().out
    assert code == 0, stdout
    assert ("kept from the file it replaced (not written by pretrain): narrow_shift, "
            "provenance.kept_note, provenance.marks.narrow.qvalue") in stdout
    data = json.loads(out.read_text())
    assert data["narrow_shift"] == {"log_lambda": -1.0}
    assert data["provenance"]["marks"]["narrow"]["qvalue"] == 0.05
    assert data["provenance"]["kept_note"] == "x"
    # what pretrain owns is its own: the new fit, and no stale leave-one-set-out figures
    assert data["provenance"]["sets"] == ["H3K36me3_TDH_ENCODE", "H3K36me3_TDH_other",
                                          "H3K4me3_TDH_ENCODE"]
    assert "leave_one_set_out" not in data["provenance"]
    assert "leave_one_set_out" not in data["provenance"]["marks"]
    assert data["intercept"] != old["intercept"]
    assert pl.PenaltyModel.from_dict(data, source="m.json").coef_.size == 2


def test_every_provenance_key_pretrain_writes_is_owned(tmp_path):
    model = pretrain(_three_sets(tmp_path))
    p = model.provenance_
    assert set(p) <= set(PROVENANCE_KEYS)
    for mark, block in p["marks"].items():
        assert mark in PROVENANCE_KEYS["marks"]
        if isinstance(PROVENANCE_KEYS["marks"][mark], dict):
            assert set(block) <= set(PROVENANCE_KEYS["marks"][mark])
    # and written anew over a file of the same keys, nothing is kept
    path = tmp_path / "m.json"
    assert save_pretrained(model, path) == []
    assert save_pretrained(model, path) == []
