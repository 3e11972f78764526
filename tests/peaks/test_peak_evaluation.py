"""Error functions straight from coverage (peak_error_functions): against the R references
(Mono27ac: PDPA model selection and label errors), against independent solves at each
interval, and end to end on H3K36me3_TDH_other chunk 1 (8 samples, 48 labels)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, need

import penlearn as pl
from penlearn._checks import check_evaluation
from penlearn.peaks.peak_evaluation import window_error_functions

RAW = DATA / "chipseq_raw"
MONO = REFERENCE / "peakseg" / "mono27ac"


def _mono27ac():
    cov = pl.read_bedgraph(need(RAW / "Mono27ac" / "coverage.bedGraph.gz"))
    lab = pl.read_peak_labels(need(RAW / "Mono27ac" / "labels.csv"))
    return cov, lab


def test_mono27ac_matches_pdpa_model_selection_and_label_errors():
    """With max_peaks=20 the path is R's PDPA model selection (0..20 peaks) and each
    model's label errors are PeakError's."""
    cov, lab = _mono27ac()
    ev = window_error_functions(cov, lab, sequence_id="mono", max_peaks=20)
    sel = pd.read_csv(need(MONO / "pdpa_modelSelection_decreasing.csv"), na_values=["NA"])
    errs = pd.read_csv(need(MONO / "pdpa_loss_errors.csv")).set_index("peaks")
    sel = sel.sort_values("min.log.lambda", ascending=False).reset_index(drop=True)
    assert ev["peaks"].tolist() == sel["peaks"].tolist()
    np.testing.assert_allclose(ev["min_log_lambda"].to_numpy(), sel["min.log.lambda"], rtol=1e-9)
    np.testing.assert_allclose(ev["max_log_lambda"].to_numpy(), sel["max.log.lambda"], rtol=1e-9)
    ref = errs.loc[ev["peaks"]]
    for ours, theirs in (("fp", "fp"), ("fn", "fn"), ("possible_fp", "possible.fp"),
                         ("possible_fn", "possible.fn"), ("errors", "errors"),
                         ("labels", "labels")):
        assert ev[ours].tolist() == ref[theirs].tolist(), ours
    np.testing.assert_allclose(ev["total_loss"], ref["PoissonLoss"], rtol=1e-9)


def test_mono27ac_rows_agree_with_solves_inside_each_interval():
    """Every row is the model that peakseg selects inside its interval, with the label
    errors that peak_label_errors gives it (independent code paths)."""
    cov, lab = _mono27ac()
    ev = pl.peak_error_functions(cov.assign(sample_id="m"), lab, progress=False)
    check_evaluation(ev)
    assert ev["errors"].min() == 0  # the 17-peak model is perfect (R: penalty 1952.6)
    for r in ev.itertuples(index=False):
        # the last row's interval is extended down to -inf past where the path stopped:
        # solve just below its upper end there
        lo = r.min_log_lambda if math.isfinite(r.min_log_lambda) else r.max_log_lambda - 1e-6
        hi = r.max_log_lambda if math.isfinite(r.max_log_lambda) else lo + 1
        fit = pl.peakseg(cov, math.exp((lo + hi) / 2))
        assert fit.n_peaks == r.peaks
        tot = pl.peak_label_errors(fit.peaks, lab).totals.iloc[0]
        assert (int(tot["fp"]), int(tot["fn"])) == (r.fp, r.fn)
    # the last row has the errors of the most complex model (R, penalty 0: 5 FP, 0 FN)
    last = ev.iloc[-1]
    assert (last["fp"], last["fn"]) == (5, 0)
    assert last["min_log_lambda"] == -math.inf


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
    ev = pl.peak_error_functions(cov, lab, progress=False)
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
