"""Error functions straight from coverage (peak_error_functions): against the R references
(Mono27ac: PDPA model selection and label errors), against independent solves at each
interval, and end to end on H3K36me3_TDH_other chunk 1 (8 samples, 48 labels)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, error_functions_once, need

import penlearn as pl
from penlearn._checks import check_evaluation
from penlearn.peaks.peakseg.evaluation import (
    DEFAULT_MAX_PEAKS,
    evaluation_bounds,
    window_error_functions,
)

RAW = DATA / "chipseq_raw"
MONO = REFERENCE / "peakseg" / "mono27ac"


def _mono27ac():
    cov = pl.read_bedgraph(need(RAW / "Mono27ac" / "coverage.bedGraph.gz"))
    lab = pl.read_peak_labels(need(RAW / "Mono27ac" / "labels.csv"))
    return cov, lab


def test_mono27ac_matches_pdpa_model_selection_and_label_errors():
    """With max_peaks=20 the path is R's PDPA model selection (0..20 peaks) and each
    model's label errors are PeakError's. R extends the 20-peak model down to λ = 0; ours
    stops where the 21-peak model takes over (the bound), found by a deeper path."""
    cov, lab = _mono27ac()
    ev = window_error_functions(cov, lab, sequence_id="mono", max_peaks=20)
    sel = pd.read_csv(need(MONO / "pdpa_modelSelection_decreasing.csv"), na_values=["NA"])
    errs = pd.read_csv(need(MONO / "pdpa_loss_errors.csv")).set_index("peaks")
    sel = sel.sort_values("min.log.lambda", ascending=False).reset_index(drop=True)
    assert ev["peaks"].tolist() == sel["peaks"].tolist()
    np.testing.assert_allclose(ev["min_log_lambda"].to_numpy()[:-1],
                               sel["min.log.lambda"].to_numpy()[:-1], rtol=1e-9)
    assert sel["min.log.lambda"].iloc[-1] == -math.inf
    deeper = pl.peakseg_path(cov, max_peaks=25).models.set_index("peaks")
    assert 21 in deeper.index and math.isfinite(ev["min_log_lambda"].iloc[-1])
    assert ev["min_log_lambda"].iloc[-1] == pytest.approx(deeper.loc[20, "min_log_lambda"],
                                                          rel=1e-12)
    np.testing.assert_allclose(ev["max_log_lambda"].to_numpy(), sel["max.log.lambda"], rtol=1e-9)
    ref = errs.loc[ev["peaks"]]
    for ours, theirs in (("fp", "fp"), ("fn", "fn"), ("possible_fp", "possible.fp"),
                         ("possible_fn", "possible.fn"), ("errors", "errors"),
                         ("labels", "labels")):
        assert ev[ours].tolist() == ref[theirs].tolist(), ours
    np.testing.assert_allclose(ev["total_loss"], ref["PoissonLoss"], rtol=1e-9)


def test_mono27ac_rows_agree_with_solves_inside_each_interval():
    """Every row is the model that peakseg selects inside its interval (both ends
    included, the bound too), with the label errors that peak_label_errors gives it
    (independent code paths); the default table is bounded and says where."""
    cov, lab = _mono27ac()
    ev = pl.peak_error_functions(cov.assign(sample_id="m"), lab, max_peaks=40,
                                 progress=False)
    check_evaluation(ev)
    assert ev.attrs["max_peaks"] == 40 and ev["peaks"].max() <= 40
    assert ev["errors"].min() == 0  # the 17-peak model is perfect (R: penalty 1952.6)
    bound = ev["min_log_lambda"].iloc[-1]
    assert math.isfinite(bound) and evaluation_bounds(ev).tolist() == [bound]
    for r in ev.itertuples(index=False):
        lo = r.min_log_lambda
        hi = r.max_log_lambda if math.isfinite(r.max_log_lambda) else lo + 1
        for log_lam in ((lo + hi) / 2, lo + 1e-9 * (hi - lo)):
            fit = pl.peakseg(cov, math.exp(log_lam))
            assert fit.n_peaks == r.peaks
            tot = pl.peak_label_errors(fit.peaks, lab).totals.iloc[0]
            assert (int(tot["fp"]), int(tot["fn"])) == (r.fp, r.fn)
    # just below the bound the optimal model has more peaks than the bound
    assert pl.peakseg(cov, math.exp(bound - 1e-6)).n_peaks > 40


def test_error_functions_feed_learning_and_roc(tmp_path):
    """The table is the evaluation table of the rest of the pipeline, ids = features' ids."""
    cov, lab = _mono27ac()
    c2 = pd.concat([cov.assign(sample_id="a"), cov.assign(sample_id="b",
                                                          count=cov["count"] * 2)])
    ev = pl.peak_error_functions(c2, lab, max_peaks=30, progress=False)
    feats = pl.coverage_features(c2)
    assert sorted(ev["sequence_id"].unique()) == sorted(feats.index)
    roc = pl.roc_change(ev, pd.Series(np.log(2000.0), index=feats.index))
    assert roc.thresholds.loc["predicted", "errors"] == 0


def test_bad_inputs_are_named():
    cov, lab = _mono27ac()
    with pytest.raises(ValueError, match="chromosome without coverage"):
        pl.peak_error_functions(cov, lab.assign(chrom="chr1"), progress=False)
    with pytest.raises(ValueError, match="sample_id"):
        pl.peak_error_functions(cov, lab.assign(sample_id="x"), progress=False)


@pytest.mark.slow
def test_h3k36me3_chunk1_end_to_end():
    """8 samples from raw coverage: a partition per sample, ids of coverage_features, errors
    consistent with independent solves at a few penalties, and a zero-error model each."""
    folder = RAW / "H3K36me3_TDH_other_chunk1"
    cov = pl.read_coverage(need(folder / "coverage.csv.gz"))
    lab = pl.read_peak_labels(need(folder / "labels.csv"))
    ev = error_functions_once(cov, lab)  # the notebook chipseq_from_coverage's too
    check_evaluation(ev)
    feats = pl.coverage_features(cov)
    assert sorted(ev["sequence_id"].unique()) == sorted(feats.index)
    assert len(feats) == 8 and ev["labels"].groupby(ev["sequence_id"]).first().eq(6).all()
    for sid, g in ev.groupby("sequence_id"):
        sample = sid.split("/")[0]
        c = cov[cov["sample_id"] == sample][["chrom", "chromStart", "chromEnd", "count"]]
        lab_s = lab[lab["sample_id"] == sample]
        assert g["errors"].min() == 0
        for r in g.iloc[[0, len(g) // 2, -2]].itertuples(index=False):
            fit = pl.peakseg(c, math.exp((r.min_log_lambda + r.max_log_lambda) / 2)
                             if math.isfinite(r.max_log_lambda) else 1e12)
            assert fit.n_peaks == r.peaks
            tot = pl.peak_label_errors(fit.peaks, lab_s.drop(columns="sample_id")).totals
            assert int(tot["errors"].iloc[0]) == r.errors


def _h3k36me3_sample(sample: str):
    folder = RAW / "H3K36me3_TDH_other_chunk1"
    cov = pl.read_coverage(need(folder / "coverage.csv.gz"))
    lab = pl.read_peak_labels(need(folder / "labels.csv"))
    c = cov[cov["sample_id"] == sample][["chrom", "chromStart", "chromEnd", "count"]]
    return c, lab[lab["sample_id"] == sample].drop(columns=["sample_id", "cell_type"],
                                                   errors="ignore")


@pytest.mark.slow
# the smallest sample only: a 3x deeper path costs minutes of CPU
@pytest.mark.parametrize("sample", ["McGill0019"])
def test_default_table_is_exact_against_a_much_deeper_path(sample):
    """The default (bounded) table equals a 3× deeper exact path row for row on every
    interval above its bound, its lowest row stops exactly where the deeper path's next
    model takes over, and every minimum-error interval of the deeper path lies above the
    default bound (the default reaches past them)."""
    c, lab = _h3k36me3_sample(sample)
    ev = window_error_functions(c, lab, sequence_id=sample)
    deep = window_error_functions(c, lab, sequence_id=sample,
                                  max_peaks=3 * DEFAULT_MAX_PEAKS)
    bound = ev["min_log_lambda"].iloc[-1]
    assert math.isfinite(bound) and ev["bounded"].all() and ev["peaks"].max() <= 100
    assert deep["min_log_lambda"].iloc[-1] < bound and deep["peaks"].max() > 200
    above = deep[deep["max_log_lambda"] > bound].reset_index(drop=True)
    assert len(above) == len(ev)
    for col in ("peaks", "fp", "fn", "errors", "possible_fp", "possible_fn", "labels"):
        assert above[col].tolist() == ev[col].tolist(), col
    for col in ("min_log_lambda", "max_log_lambda", "total_loss"):
        np.testing.assert_allclose(above[col], ev[col], rtol=1e-12, err_msg=col)
    assert (deep.loc[len(ev):, "peaks"] > DEFAULT_MAX_PEAKS).all()  # below: beyond the bound
    best = deep[deep["errors"] == deep["errors"].min()]
    assert (best["min_log_lambda"] > bound).all()
    target = pl.target_intervals(deep).iloc[0]
    assert target["min_log_lambda"] > bound + 1.0  # well inside (log λ units)


def test_bounded_tables_downstream():
    """A bounded table is refused unless marked; marked, target intervals stop at the
    bound, breakpoints lie above it, and roc_change's `exact` says which ROC rows need
    nothing below any bound (brute force over the rows)."""
    ev = pd.DataFrame({"sequence_id": ["a", "a", "a", "b", "b"],
                       "min_log_lambda": [2.0, 1.0, -0.5, 0.0, -np.inf],
                       "max_log_lambda": [np.inf, 2.0, 1.0, np.inf, 0.0],
                       "fp": [0, 1, 0, 0, 1], "fn": [1, 0, 0, 1, 0],
                       "possible_fp": 1, "possible_fn": 1, "labels": 2,
                       "bounded": [True, True, True, False, False]})
    with pytest.raises(ValueError, match="sequence 'a' do not partition.*bounded=True"):
        check_evaluation(ev.drop(columns="bounded"))
    with pytest.raises(ValueError, match="column 'bounded' must hold True/False; row 1"):
        check_evaluation(ev.assign(bounded="yes"))
    assert evaluation_bounds(ev).to_dict() == {"a": -0.5, "b": -np.inf}
    target = pl.target_intervals(ev).set_index("sequence_id")
    assert target.loc["a"].tolist() == [-0.5, 1.0, 0.0]  # the run stops at the bound
    bp = pl.breakpoints_from_errors(ev)
    assert (bp.value[bp.example == 0] < 0.5).all() and len(bp.value) == 3
    pred = {"a": 0.3, "b": -1.0}
    roc = pl.roc_change(ev, pred).roc
    bounds = evaluation_bounds(ev)
    for r in roc.itertuples(index=False):  # every log λ of the row at or above its bound
        assert r.exact == all(pred[s] + r.min_thresh >= bounds[s] for s in pred)
    assert roc["exact"].any() and not roc["exact"].all()
    assert "exact" not in pl.roc_change(ev.drop(columns="bounded").assign(
        min_log_lambda=[2.0, 1.0, -np.inf, 0.0, -np.inf]), pred).roc.columns
