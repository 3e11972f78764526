"""Sequence features: penaltyLearning::featureVector, neuroblastomaProcessed, UCI chipseq."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
import segmentation_neuroblastoma as nb
from conftest import DATA, load_reference_json, need

from penlearn import feature_matrix, feature_vector
from penlearn.changepoint.features import hall_sd, median_abs_diff, quantile_type7


@pytest.mark.parametrize("case", ["featureVector.small", "featureVector.two"])
def test_feature_vector_reference(case):
    ref = load_reference_json("penaltyLearning/features/cases.json")
    c = ref[case]
    names = c.get("names", ref["featureVector.small"]["names"])
    fv = feature_vector(c["input"])
    assert list(fv.index) == names and len(names) == ref["n.features"] == 365
    want = np.array(c["values"], dtype=float)
    got = fv.to_numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.isinf(got[ok]), np.isinf(want[ok]))
    fin = ok & np.isfinite(want)
    # R sums/means in long double: last-bit differences only
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "values", [[1.0], [1.0, np.nan], [1.0, np.inf], "ab", [[1.0, 2.0]]],
)
def test_feature_vector_errors(values):
    errors = load_reference_json("penaltyLearning/features/cases.json")["errors"]
    assert errors["one.element"] and errors["na"] and errors["inf"]
    with pytest.raises(ValueError, match="at least two elements"):
        feature_vector(values)


def test_feature_vector_integers_ok():
    assert load_reference_json("penaltyLearning/features/cases.json")["errors"][
        "integer.ok"] is None
    pd.testing.assert_series_equal(feature_vector([1, 2, 4]), feature_vector([1.0, 2.0, 4.0]))


def test_feature_matrix_rows_are_feature_vectors_and_errors():
    seqs = pd.DataFrame({"sequence_id": ["a"] * 4 + ["b"] * 3,
                         "position": [1, 2, 3, 4, 10, 20, 30],
                         "value": [0.5, 1.0, -2.0, 3.0, 1.0, 1.0, 2.0]})
    fm = feature_matrix(seqs)
    assert fm.index.tolist() == ["a", "b"] and fm.shape == (2, 365)
    pd.testing.assert_series_equal(fm.loc["b"], feature_vector([1.0, 1.0, 2.0]),
                                   check_names=False)
    one = pd.concat([seqs, pd.DataFrame({"sequence_id": ["c"], "position": [1],
                                         "value": [1.0]})])
    with pytest.raises(ValueError, match="sequence 'c' has 1 point"):
        feature_matrix(one)
    with pytest.raises(ValueError, match="features must be one of"):
        feature_matrix(seqs, "nope")
    with pytest.raises(ValueError, match="missing column"):
        feature_matrix(seqs.drop(columns="value"))


def test_quantile_type7_and_hall():
    rng = np.random.default_rng(0)
    x = rng.normal(size=13)
    np.testing.assert_allclose(quantile_type7(x, [0, 0.1, 0.5, 0.9, 1]),
                               np.quantile(x, [0, 0.1, 0.5, 0.9, 1]), rtol=1e-14)
    w = np.array([0.1942, 0.2809, 0.3832, -0.8582])
    d = [w @ x[i:i + 4] for i in range(len(x) - 3)]
    assert hall_sd(x) == pytest.approx(np.sqrt(np.mean(np.square(d))), rel=1e-14)


def test_chipseq_feature_names_match_uci_inputs():
    path = need(DATA / "H3K4me3_TDH_immune" / "inputs.csv.gz")
    with gzip.open(path, "rt") as fh:
        header = fh.readline().strip().split(",")[1:]
    seqs = pd.DataFrame({"sequence_id": "p", "position": [100, 150, 175, 400],
                         "value": [0.0, 3.0, 1.0, 8.0]})
    fm = feature_matrix(seqs, "chipseq")
    assert fm.columns.tolist() == header
    row = fm.loc["p"]
    assert row["quartile.50%"] == 2.0 and row["mean"] == 3.0
    assert row["bases"] == 300 and row["data"] == 4
    assert row["log+1.quartile.100%"] == pytest.approx(np.log(9.0))
    assert row["log.log.bases"] == pytest.approx(np.log(np.log(300.0)))
    assert row["log.quartile.0%"] == -np.inf and np.isnan(row["log.log.quartile.0%"])


def _processed_header() -> list[str]:
    path = need(DATA / "neuroblastoma" / "processed_features.csv.gz")
    with gzip.open(path, "rt") as fh:
        return fh.readline().strip().split(",")[3:]  # after sequenceID, profile.id, chromosome


def test_median_abs_diff_brute_force():
    rng = np.random.default_rng(1)
    for n in (2, 3, 8, 9):
        x = rng.normal(size=n)
        d = sorted(abs(x[i + 1] - x[i]) for i in range(n - 1))
        m = len(d)
        want = d[m // 2] if m % 2 else (d[m // 2 - 1] + d[m // 2]) / 2
        assert median_abs_diff(x) == pytest.approx(want, rel=1e-15)
    assert np.isnan(median_abs_diff([1.0]))


def test_neuroblastoma_columns_and_chromosome_argument():
    header = _processed_header()
    assert len(header) == 117
    seqs = pd.DataFrame({"sequence_id": ["a"] * 4 + ["b"] * 3 + ["c"] * 2,
                         "position": [1, 2, 3, 4, 10, 20, 30, 5, 9],
                         "value": [0.5, 1.0, -2.0, 3.0, 1.0, 1.0, 2.0, 0.0, 4.0]})
    plain = feature_matrix(seqs, "neuroblastoma")
    assert plain.columns.tolist() == header[:94]  # no chromosome: no indicators
    assert plain.loc["a", "mad"] == 3.0 and plain.loc["b", "log.mad"] == np.log(0.5)
    assert plain.loc["c", "emilie"] == pytest.approx(np.log(5 + 2 * np.log(2)), rel=1e-15)
    # numbers, strings, "chr" prefix and lower-case x all name the same chromosomes
    for chrom in ([1] * 4 + [17] * 3 + ["X"] * 2, ["chr1"] * 4 + ["17"] * 3 + ["x"] * 2,
                  [1.0] * 4 + [17.0] * 3 + ["chrX"] * 2):
        fm = feature_matrix(seqs.assign(chromosome=chrom), "neuroblastoma")
        assert fm.columns.tolist() == header
        pd.testing.assert_frame_equal(fm[header[:94]], plain)
        ind = fm[header[94:]]
        assert (ind.sum(axis=1) == 1).all() and set(np.unique(ind)) == {0.0, 1.0}
        assert ind.idxmax(axis=1).tolist() == ["chr1", "chr17", "chrX"]
    # the other feature sets ignore the column
    pd.testing.assert_frame_equal(
        feature_matrix(seqs.assign(chromosome="1"), "chipseq"), feature_matrix(seqs, "chipseq"))
    for chrom, match in ((["1"] * 3 + ["2"] * 6, "sequence 'a' has several chromosomes"),
                         (["1"] * 7 + ["Y"] * 2, "sequence 'c' has 'Y'"),
                         ([1.0] * 4 + [np.nan] * 3 + [2.0] * 2, "sequence 'b' has"),
                         ([1.5] * 9, "sequence 'a' has")):
        with pytest.raises(ValueError, match=match):
            feature_matrix(seqs.assign(chromosome=chrom), "neuroblastoma")


@pytest.mark.slow
def test_neuroblastoma_processed_features():
    """All 117 columns of neuroblastomaProcessed$feature.mat on the 154 raw sequences."""
    seqs = nb.sequences()
    profiles = pd.read_csv(need(DATA / "neuroblastoma" / "profiles.csv.gz"),
                           usecols=["profile.id", "chromosome"], dtype={"chromosome": str})
    assert (nb.sequence_ids(profiles["profile.id"], profiles["chromosome"]).to_numpy()
            == seqs["sequence_id"].to_numpy()).all()
    fm = feature_matrix(seqs.assign(chromosome=profiles["chromosome"].to_numpy()),
                        "neuroblastoma")
    ref = pd.read_csv(need(DATA / "neuroblastoma" / "processed_features.csv.gz"))
    ref = ref.set_index("sequenceID").loc[fm.index]
    assert len(fm) == 154 and fm.columns.tolist() == _processed_header()
    assert ref["chromosome"].nunique() == 6  # indicators of several chromosomes are checked
    for col in fm.columns:
        np.testing.assert_allclose(fm[col].to_numpy(), ref[col].to_numpy(), rtol=1e-9,
                                   atol=0, err_msg=col)
