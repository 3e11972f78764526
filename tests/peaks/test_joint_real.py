"""The joint peak model on PeakSegJoint's windows (real data): never worse than the
PeakSegJoint numbers and than the bin-pyramid heuristic, proven optimal."""

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
    assert (fit.loss <= heur.loss + tol).all()
    if "group" in cov.columns:
        assert (fit.group_loss <= heur.group_loss + tol).all()
    # non-increasing in k (an up sample may have equal means: the constraint is >=)
    assert (np.diff(fit.loss.to_numpy()) <= tol).all()
