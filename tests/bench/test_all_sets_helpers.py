"""Helpers of benchmarks/all_sets.py: region folds, the AFT-XGBoost baseline, the goals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, load_benchmark, need

pytest.importorskip("xgboost", reason="the bench / test extra installs xgboost-cpu")

bench = load_benchmark("all_sets")
import _baselines  # noqa: E402  (benchmarks/ is on the path now)
import _sets  # noqa: E402


def test_region_of_reads_the_three_id_forms_and_rejects_others():
    assert _sets.region_of("S/samples/bcell/McGill0091/problems/chr10:60000-17974675") \
        == "chr10:60000-17974675"
    assert _sets.region_of("McGill0012/chr21:43118550-43459313") == "chr21:43118550-43459313"
    assert _sets.region_of("100_chr17") == "chr17"
    for bad in ["no_region_here", "", 3]:
        with pytest.raises(ValueError, match="sequence id"):
            _sets.region_of(bad)


def test_region_folds_keep_regions_whole_and_balance_labels():
    rng = np.random.default_rng(5)
    ids, labels = [], []
    for r in range(13):  # 13 regions of 1-6 samples with 1-9 labels each
        for s in range(rng.integers(1, 7)):
            ids.append(f"set/samples/g/s{s}/problems/chr{r}:1-100")
            labels.append(int(rng.integers(1, 10)))
    lab = pd.Series(labels, index=ids)
    f = _sets.region_folds(lab, n_folds=4, seed=3)
    assert sorted(f["sequence_id"]) == sorted(ids) and set(f["fold"]) == {1, 2, 3, 4}
    region = f["sequence_id"].map(_sets.region_of)
    assert (f.groupby(region)["fold"].nunique() == 1).all()
    # greedy dealing to the lightest fold: loads differ by at most the largest region
    load = f.assign(n=f["sequence_id"].map(lab)).groupby("fold")["n"].sum()
    biggest = lab.groupby(lab.index.map(_sets.region_of)).sum().max()
    assert load.max() - load.min() <= biggest
    assert f.equals(_sets.region_folds(lab, n_folds=4, seed=3))  # fixed seed, same folds
    other = _sets.region_folds(lab, n_folds=4, seed=4)
    assert not (other.groupby(region)["fold"].first()
                == f.groupby(region)["fold"].first()).all()
    # fewer regions than K: one fold per region; K < 2 or one region: an error
    two = pd.Series(1, index=["a_chr1", "b_chr1", "a_chr2"])
    assert sorted(_sets.region_folds(two, n_folds=4)["fold"]) == [1, 1, 2]
    with pytest.raises(ValueError, match="n_folds"):
        _sets.region_folds(lab, n_folds=1)
    with pytest.raises(ValueError, match="region"):
        _sets.region_folds(pd.Series(1, index=["a_chr1", "b_chr1"]))


def test_real_folds_hold_out_whole_regions():
    data = str(need(DATA))
    for scheme in ["given", "regions"]:  # equal_labels folds are whole regions too
        f = _sets.fold_table(data, "H3K4me3_TDH_immune", scheme)
        region = f["sequence_id"].map(_sets.region_of)
        assert (f.groupby(region)["fold"].nunique() == 1).all(), scheme
        assert f["fold"].nunique() == 4 and len(f) == 378
    with pytest.raises(ValueError, match="one genomic region"):
        _sets.fold_table(data, "H3K36me3_TDH_other_chunk1", "regions")
    given = _sets.fold_table(data, "H3K4me3_TDH_immune", "given")
    ours = _sets.fold_table(data, "H3K4me3_TDH_immune", "regions")
    assert not given.merge(ours, on="sequence_id").pipe(
        lambda m: (m.groupby("fold_x")["fold_y"].nunique() == 1).all())


def _evaluation(targets: dict) -> pd.DataFrame:
    """Error functions with 0 errors exactly on each sequence's (lo, hi) target."""
    rows = []
    for sid, (lo, hi) in targets.items():
        cuts = [-np.inf] + [c for c in (lo, hi) if np.isfinite(c)] + [np.inf]
        for a, b in zip(cuts[:-1], cuts[1:]):
            rows.append({"sequence_id": sid, "min_log_lambda": a, "max_log_lambda": b,
                         "errors": 0 if (a, b) == (lo, hi) or (a >= lo and b <= hi) else 1})
    return pd.DataFrame(rows)


def test_aft_bounds_are_the_target_intervals_on_the_lambda_scale():
    ev = _evaluation({"a": (1.0, 3.0), "b": (-np.inf, 2.0), "c": (0.5, np.inf)})
    lo, hi = _baselines.aft_bounds(ev, ["c", "a", "b"])
    np.testing.assert_allclose(lo, [np.exp(0.5), np.exp(1.0), 0.0])
    np.testing.assert_allclose(hi, [np.inf, np.exp(3.0), np.exp(2.0)])
    with pytest.raises(ValueError, match="'z'"):
        _baselines.aft_bounds(ev, ["a", "z"])


def test_aft_xgboost_predicts_log_lambda_inside_the_learned_targets():
    # target log λ in [f(x) - 0.5, f(x) + 0.5] with a step f: 4 below x = 0, 9 above
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 120)
    ids = [f"s{i}" for i in range(len(x))]
    mid = np.where(x < 0, 4.0, 9.0)
    ev = _evaluation({i: (m - 0.5, m + 0.5) for i, m in zip(ids, mid)})
    X = pd.DataFrame({"x": x, "noise": rng.normal(size=len(x))}, index=ids)
    train, test = ids[:80], ids[80:]
    pred = _baselines.aft_xgboost(X.loc[train], ev, X.loc[test])
    inside = np.abs(pred - mid[80:]) < 0.5
    assert inside.mean() > 0.9  # the margin is log λ itself, not λ
    with pytest.raises(ValueError, match="same feature columns"):
        _baselines.aft_xgboost(X.loc[train], ev, X.loc[test, ["x"]])


def _rows(values: dict) -> pd.DataFrame:
    """Rows of two sets × 2 folds from {method: (errors %, AUC) per (set, fold)}."""
    keys = [("A", 1), ("A", 2), ("B", 1), ("B", 2)]
    return pd.DataFrame([{"data": d, "fold": f, "folds": "regions", "method": m,
                          "test_errors_pct": float(e[k]), "test_auc": a[k], "test_aum": 0.0,
                          "seconds": 1.0}
                         for m, (e, a) in values.items() for k, (d, f) in enumerate(keys)])


def test_goals_compare_with_constant_aft_and_start_per_set(monkeypatch):
    monkeypatch.setattr(bench, "ALL_SETS", ["A", "B"])
    monkeypatch.setattr(bench, "START", {"default": "interval_regression"})  # a linear one
    rows = _rows({
        "constant": ([20, 20, 10, 10], [0.90, 0.90, 0.90, 0.90]),
        "aft_xgboost": ([15, 15, 12, 12], [0.92, 0.92, 0.92, 0.92]),
        "interval_regression": ([30, 30, 30, 30], [0.93, 0.93, 0.93, 0.93]),
        "default": ([10, 12, 11, 12], [0.95, 0.93, 0.94, 0.94]),
    })
    g = bench.goals(rows, "default")
    assert g["errors"] == pytest.approx(11.25)
    assert g["errors_vs_constant"] == pytest.approx(11.25 - 15)
    assert g["errors_vs_aft"] == pytest.approx(11.25 - 13.5)
    assert (g["worst_errors_set"], g["worst_errors_gap"]) == ("B", pytest.approx(1.5))
    assert g["auc_vs_start"] == pytest.approx(0.94 - 0.93)
    assert g["worst_auc_set"] in {"A", "B"} and g["worst_auc_gap"] == pytest.approx(0.01)
    assert not g["met"]  # set B: 1.5 points above the constant (goal: at most 1)
    rows.loc[(rows["method"] == "default") & (rows["data"] == "B"), "test_errors_pct"] = 10.5
    assert bench.goals(rows, "default")["met"]
    table = bench.report(rows)
    assert "### folds: regions" in table and "| default | 0.9400 | 10.75 |" in table


def test_cli_runs_a_subset_of_sets_methods_and_folds(tmp_path, capsys):
    data = need(DATA)
    csv = tmp_path / "rows.csv"
    assert bench.main(["--data-dir", str(data), "--sets", "H3K36me3_TDH_other",
                       "--methods", "constant", "aft_xgboost", "--folds", "regions",
                       "--workers", "1", "--csv", str(csv)]) == 0
    rows = pd.read_csv(csv)
    assert set(rows["method"]) == {"constant", "aft_xgboost"}
    assert set(rows["folds"]) == {"regions"} and rows["fold"].nunique() == 4
    assert rows["test_errors_pct"].between(0, 100).all()
    assert "Test label errors" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["--methods", "no_such_method"])
