"""Options checked before the work, by every path (issue 47, class f): ``model="auto"``
checks the linear model's options before its candidates run (there, a ValueError only
drops a candidate), ``learn_penalty`` names a missing evaluation column, and a chromosome
name no BED file can carry is refused where the windows are made, not by the writer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases, coverage_table, run_cli

import penlearn as pl
from penlearn.learn import learn_penalty
from penlearn.learn.prior import constant_model


@pytest.fixture(scope="module")
def data():
    sim = pl.simulate(n_sequences=12, seed=4)
    models, changes = pl.segment_sequences(sim.sequences, 4, progress=False)
    ev = pl.error_functions(models, changes, sim.labels)
    return pl.feature_matrix(sim.sequences, "chipseq"), ev


def test_auto_checks_the_linear_options_before_its_candidates(data):
    feats, ev = data
    other = constant_model(["other"], 1.0)
    other.coef_ = pd.Series([1.0], index=["other"])  # a model of a column not there
    fast = dict(max_steps=1, progress=False)
    cases = []
    for model in ("auto", "linear"):
        cases += [
            (f"{model} shrink= a column not there",
             lambda m=model: learn_penalty(feats, ev, model=m, shrink="nope", **fast),
             Error("shrink", "nope")),
            (f"{model} init= an array of the wrong length",
             lambda m=model: learn_penalty(feats, ev, model=m, init=np.zeros(99), **fast),
             Error("init", "weights")),
            (f"{model} init= a model of other features",
             lambda m=model: learn_penalty(feats, ev, model=m, init=other, **fast),
             Error("init", "other")),
        ]
    cases.append(("learn_penalty: no sequence_id in the evaluation",
                  lambda: learn_penalty(feats, ev.drop(columns="sequence_id"), **fast),
                  Error("sequence_id", "evaluation")))
    cases.append(("learn_penalty: no fp in the evaluation",
                  lambda: learn_penalty(feats, ev.drop(columns="fp"), **fast),
                  Error("fp", "evaluation")))
    check_cases(cases, at_least=8)


def test_a_chromosome_name_with_a_space_is_refused_before_the_work(tmp_path):
    cov = coverage_table(("a", "b")).assign(chrom="chr 1")
    (tmp_path / "in").mkdir()
    cov.to_csv(tmp_path / "in" / "coverage.csv", index=False)
    tab = coverage_table(("a",)).assign(chrom="chr\t1")
    cases = [
        ("predict_peaks", lambda: pl.predict_peaks(cov, penalty=1.0),
         Error("chromosome name", "chr 1")),
        ("predict_peaks (shipped model)", lambda: pl.predict_peaks(cov),
         Error("chromosome name")),
        ("coverage_features", lambda: pl.coverage_features(cov), Error("chromosome name")),
        ("a tab", lambda: pl.predict_peaks(tab, penalty=1.0), Error("chromosome name")),
        ("penlearn peaks", lambda: run_cli(["peaks", tmp_path / "in" / "coverage.csv", "--penalty",
                                            1, "--out", tmp_path / "out", "-q"]),
         Error("chromosome name", inputs=[tmp_path / "in"])),
    ]
    check_cases(cases, at_least=5)
