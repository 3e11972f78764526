"""load_uci on every real data set, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, need

import penlearn as pl
from penlearn.datasets import finite_feature_columns, snake_case


def _sets():
    if not DATA.exists():
        return []
    return sorted(p.name for p in DATA.iterdir() if (p / "evaluation.csv.gz").exists())


def test_all_sets_present():
    need(DATA)
    assert len(_sets()) >= 19  # 17 chipseq + systematic + detailed


@pytest.mark.parametrize("name", _sets())
def test_load_every_set(name):
    ds = pl.load_uci(DATA / name)
    assert list(ds.evaluation.columns[:3]) == ["sequence_id", "min_log_lambda", "max_log_lambda"]
    bp = pl.breakpoints_from_errors(ds.evaluation)
    assert bp.n_examples == len(ds.sequence_ids)
    if ds.inputs is not None:
        assert set(ds.inputs.index) >= set(ds.sequence_ids)
    for table in ds.folds.values():
        assert list(table.columns) == ["sequence_id", "fold"]


def test_h3k4me3_finite_features():
    ds = pl.load_uci(need(DATA / "H3K4me3_TDH_immune"))
    # the data README: 26 of 36 features are finite for every sequence
    assert len(finite_feature_columns(ds.inputs)) == 26
    assert np.isneginf(ds.inputs["log.quartile.0%"]).any()


def test_snake_case():
    assert snake_case("possible.fp") == "possible_fp"
    assert snake_case("labelStart") == "start"
    assert snake_case("profile.id") == "profile_id"


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        pl.load_uci(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="no evaluation"):
        pl.load_uci(tmp_path)
    (tmp_path / "evaluation.csv").write_text("sequenceID,min.log.lambda,fp,fn\na,-Inf,0,0\n")
    with pytest.raises(ValueError, match="max_log_lambda"):
        pl.load_uci(tmp_path)
