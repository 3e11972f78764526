"""The strict joint peak model on PeakSegJoint's windows (real data): proven optimal,
never worse than PeakSegJoint's numbers and than the bin-pyramid heuristic on any k
they report, every model re-scored from the coverage (each up sample strictly up-down,
the loss that of its peak and up samples)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

from penlearn import joint_peak

RAW = DATA / "chipseq_raw"

# PeakSegJoint's README example (its heuristic, PeakSegJointFaster): loss by number of
# samples up, and by number of cell types up
PSJ_SAMPLES = [-11629.27, -107441.16, -153158.30, -155067.18, -156567.99, -157782.12,
               -158949.32, -159249.38]
PSJ_GROUPS = [-11629.27, -107441.16, -153158.30, -156581.37]


def chunk1_window() -> pd.DataFrame:
    cov = pd.read_csv(need(RAW / "H3K36me3_TDH_other_chunk1" / "coverage.csv.gz"))
    cov = cov[(cov["chromEnd"] > 43_000_000) & (cov["chromStart"] < 43_200_000)]
    return cov.rename(columns={"cell_type": "group"})


def test_chunk1_never_worse_than_peaksegjoint():
    fit = joint_peak(chunk1_window())
    assert fit.exact and fit.proven.all() and fit.group_proven.all()
    # same data, same loss: the flat model agrees to the printed digits (samples that
    # start or end early count zeros up to the window's ends, as in PeakSegJoint)
    assert fit.loss[0] == pytest.approx(PSJ_SAMPLES[0], abs=0.005)
    assert (fit.loss.to_numpy()[:8] <= np.array(PSJ_SAMPLES) + 0.005).all()
    assert (fit.group_loss.to_numpy()[:4] <= np.array(PSJ_GROUPS) + 0.005).all()
    # strictly better where the heuristic missed the optimum (k = 1: by ~700)
    assert fit.loss[1] < PSJ_SAMPLES[1] - 100
    rescore(chunk1_window(), fit)
    assert len(fit.loss) == 9 and len(fit.group_loss) == 5
    # the selection covers every log λ, from the most complex model selected to k = 0
    sel = fit.selection
    assert sel["min_log_lambda"].iloc[0] == -np.inf and sel["k"].iloc[-1] == 0
    assert (sel["max_log_lambda"].to_numpy()[:-1] == sel["min_log_lambda"].to_numpy()[1:]).all()
    # a sample's group is up in the group model exactly when all its samples are
    up = fit.group_up.loc[2]
    assert sorted(up[up].index) == ["kidney", "kidneyCancer"]


@pytest.mark.parametrize("name", ["H3K27ac.TDH.MMM4", "H3K36me3.AM.immune.chunk21",
                                  "H3K4me3.PGP.immune.chunk2", "H3K4me3.TDH.other.chunk8",
                                  "demo.profiles"])
def test_peaksegjoint_windows_exact_and_never_worse_than_heuristic(name):
    cov = pd.read_csv(need(RAW / "peaksegjoint" / name / "coverage.csv.gz"))
    if "group" in cov.columns:  # demo.profiles: one profile per (group, sample)
        cov["sample_id"] = cov["group"] + "/" + cov["sample_id"]
    fit = joint_peak(cov)
    heur = joint_peak(cov, method="heuristic")
    assert fit.exact and not heur.exact
    tol = 1e-9 * abs(fit.loss[0])
    for loss, heur_loss in ((fit.loss, heur.loss), (fit.group_loss, heur.group_loss)):
        if loss is None:
            continue
        has = heur_loss.notna().to_numpy()
        assert loss[has].notna().all()  # every k the heuristic reports exists
        assert (loss[has] <= heur_loss[has] + tol).all()
    rescore(cov, fit)


def segment_sums(rows: pd.DataFrame, cuts) -> np.ndarray:
    """Count sums of one sample's rows over the segments between ``cuts``."""
    st, en, c = (rows[k].to_numpy(np.int64) for k in ("chromStart", "chromEnd", "count"))
    return np.array([float((c * np.clip(np.minimum(en, hi) - np.maximum(st, lo), 0, None)
                            ).sum()) for lo, hi in zip(cuts[:-1], cuts[1:])])


def seg_loss(W: float, Y: float) -> float:
    return Y - Y * np.log(Y / W) if Y > 0 else 0.0


def rescore(cov: pd.DataFrame, fit) -> None:
    """Every model: its up samples strictly up-down at its peak (segment averages from
    the coverage rows, bases without rows zeros), its loss recomputed from them."""
    lo, hi = fit.chromStart, fit.chromEnd
    by_sample = {s: r for s, r in cov.groupby("sample_id")}
    flat = {s: seg_loss(hi - lo, segment_sums(r, [lo, hi])[0]) for s, r in by_sample.items()}
    for k in fit.loss.index[1:]:
        if np.isnan(fit.loss[k]):
            continue
        a, b = (int(v) for v in fit.peak.loc[k])
        up = fit.up.loc[k]
        total = 0.0
        for s, rows in by_sample.items():
            if not up[s]:
                total += flat[s]
                continue
            ys = segment_sums(rows, [lo, a, b, hi])
            means = ys / np.diff([lo, a, b, hi])
            assert means[1] > means[0] and means[1] > means[2], (k, s, means)
            total += sum(seg_loss(w, y) for w, y in zip(np.diff([lo, a, b, hi]), ys))
        assert total == pytest.approx(fit.loss[k], rel=1e-11), k
