"""load_uci on every real data set, and its errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
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


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts reads in /proc/self/io")
def test_load_uci_reads_each_whole_rows_file_once(tmp_path):
    """The short-row check counts the bytes pandas parsed: each file is read once (it
    was read twice, once by pandas and once more for the check)."""
    rng = np.random.default_rng(0)
    n = 20000  # ~2 MB of evaluation and inputs rows: far above the reads of anything else
    ids = np.repeat([f"s{i}" for i in range(n // 2)], 2)
    ev = pd.DataFrame({"sequenceID": ids, "min.log.lambda": np.tile([-np.inf, 0.0], n // 2),
                       "max.log.lambda": np.tile([0.0, np.inf], n // 2), "possible.fp": 1,
                       "fp": np.tile([1, 0], n // 2), "possible.fn": 1,
                       "fn": np.tile([0, 1], n // 2), "labels": 2, "errors": 1})
    ev.to_csv(tmp_path / "evaluation.csv", index=False)
    feats = pd.DataFrame(rng.normal(size=(n // 2, 8)), columns=[f"f{k}" for k in range(8)])
    feats.insert(0, "sequenceID", ids[::2])
    feats.to_csv(tmp_path / "inputs.csv", index=False)
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    pl.load_uci(tmp_path)  # imports and caches warm

    def rchar() -> int:
        text = Path("/proc/self/io").read_text()
        return int(next(ln.split()[1] for ln in text.splitlines() if ln.startswith("rchar")))

    before = rchar()
    ds = pl.load_uci(tmp_path)
    read = rchar() - before
    assert len(ds.evaluation) == n and ds.inputs.shape == (n // 2, 8)
    assert size <= read < 1.25 * size, (read, size)
