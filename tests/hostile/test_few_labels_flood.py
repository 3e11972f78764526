"""A few labels never flood (issue 52 item 4): one labeled sample, noPeaks covering little
of it, must not drag the prior's level to where the unlabeled bases fill with peaks.

The case of issue 52: ``benchmarks/control.py``'s 38 labels of one 2 Mb sample made
``penlearn learn`` shift the shipped model by −2.98 (ten times the peaks): its labeled
window's model path was computed down to log λ 6.7 (100 peaks) and below that end the
labels counted no error at all, so the unknown region looked error-free."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _hostile import run_cli

import penlearn as pl
from penlearn.learn.prior import constant_model


def _path(rows):
    """One labeled window's error function: rows (min log λ, peaks, fp, fn), highest
    λ first; 10 labels wanting a peak, 20 noPeaks."""
    lo = [r[0] for r in rows]
    hi = [np.inf] + lo[:-1]
    return pd.DataFrame({"sequence_id": "T/chr1", "min_log_lambda": lo,
                         "max_log_lambda": hi, "peaks": [r[1] for r in rows],
                         "fp": [r[2] for r in rows], "fn": [r[3] for r in rows],
                         "possible_fp": 20, "possible_fn": 10, "labels": 30,
                         "errors": [r[2] + r[3] for r in rows],
                         "bounded": [False] * (len(rows) - 1) + [True]})


def _learned_shift(ev: pd.DataFrame, **kw) -> float:
    prior = constant_model(["bases"], 6.0)
    x = pd.DataFrame({"bases": [2e6]}, index=["T/chr1"])
    return pl.learn_penalty(x, ev, prior=prior, **kw).intercept_ - 6.0


def _peaks_at(ev: pd.DataFrame, log_lambda: float) -> float:
    row = ev[(ev["min_log_lambda"] <= log_lambda) & (ev["max_log_lambda"] > log_lambda)]
    return float(row["peaks"].iloc[0]) if len(row) else np.inf  # past the path: unknown


def test_the_end_of_the_computed_path_is_not_error_free():
    # the path stops at log λ 2 with 6 errors; below it nothing is known
    ev = _path([(5.0, 0, 0, 10), (3.0, 10, 0, 5), (2.0, 30, 6, 0)])
    s = _learned_shift(ev)
    assert 6.0 + s >= 2.0, f"shift {s}: log λ below the path's end (errors unknown there)"


def test_error_free_but_flooded_levels_are_not_chosen():
    # no noPeaks label is hit even at 500 peaks (they cover a few kb of 2 Mb): the
    # labels support ~10 peaks here, not 500
    ev = _path([(5.0, 0, 0, 10), (2.0, 10, 0, 4), (1.0, 500, 0, 0), (0.5, 900, 3, 0)])
    for kw in ({}, {"model": "linear"}):  # level_shift and the nearest-min-error rule
        s = _learned_shift(ev, **kw)
        assert _peaks_at(ev, 6.0 + s) <= 20, (kw, s)


def test_learn_says_the_peaks_per_mb_before_and_after():
    ev = _path([(5.0, 0, 0, 10), (3.0, 10, 0, 5), (2.0, 30, 6, 0)])
    prior = constant_model(["bases"], 6.0)
    x = pd.DataFrame({"bases": [2e6]}, index=["T/chr1"])
    model = pl.learn_penalty(x, ev, prior=prior)
    text = model.describe()
    assert "expected peaks per Mb of the labeled windows: 0.0 before the labels, 5.0 after" \
        in text, text


@pytest.mark.slow
def test_38_labels_of_one_simulated_sample_call_no_false_peaks(tmp_path):
    """benchmarks/control.py's 38-label row at its lowest depth, on the labeled sample
    itself: 10 true peaks labeled, 8 sticky regions and 20 empty windows noPeaks; the
    learned model calls at most 5 peaks that are neither true nor sticky (the flood:
    hundreds), and finds every true peak the shipped default finds (its narrow rule,
    which the labels took: at its own λ it lost weak ones)."""
    from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam
    from penlearn.peaks.formats.reads import fragment_coverage, read_reads

    n = 2_000_000
    design = plant_regions({"chr1": n}, 10, 10, in_sticky=2, seed=7)
    folder = tmp_path / "train"
    folder.mkdir()
    tables = []
    for sid, per_peak, seed in (("T", 20, 11), ("C", 0, 12)):
        bam = tmp_path / f"{sid}.bam"
        write_reads_bam(bam, design, background=10_000, per_peak=per_peak, sticky_fold=4.0,
                        paired=True, seed=seed)
        tables.append(fragment_coverage(read_reads(bam, "BAMPE"), None).assign(sample_id=sid))
    pd.concat(tables)[["sample_id", "chrom", "chromStart", "chromEnd", "count"]].to_csv(
        folder / "coverage.csv", index=False)
    rows = [("T", "chr1", x - 300, x + 300, "peakStart") for x in design.peaks["centre"]]
    rows += [("T", "chr1", a, b, "noPeaks") for a, b, has in design.sticky[
        ["chromStart", "chromEnd", "peak"]].itertuples(index=False) if not has]
    rows += [("T", "chr1", x, x + 2000, "noPeaks") for x in range(n // 20 + 2000, n, n // 20)
             ][:20]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                "annotation"]).to_csv(folder / "labels.csv", index=False)
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("sample_id,control\nT,C\n")
    model = tmp_path / "model.json"
    run_cli(["learn", folder, "--out", model, "--control-sheet", sheet, "--no-cache",
             "--quiet"])
    level = json.loads(model.read_text())["level"]
    assert {"peaks_per_mb_prior", "peaks_per_mb"} <= set(level), level
    assert level["narrow_rule"]["applied"] == "yes", level

    def called(extra):
        out = tmp_path / f"peaks{len(extra)}.bed"
        run_cli(["peaks", folder / "coverage.csv", *extra, "--control-sheet", sheet,
                 "--out", out, "--quiet"])
        calls = pd.read_csv(out, sep="\t", header=None) if out.stat().st_size else \
            pd.DataFrame(columns=range(7))
        hit = np.zeros(len(calls), bool)
        true = set()
        for x in design.peaks["centre"]:
            m = (calls[1] <= x).to_numpy() & (calls[2] > x).to_numpy()
            true |= {int(x)} if m.any() else set()
            hit |= (calls[1] < x + 300).to_numpy() & (calls[2] > x - 300).to_numpy()
        for a, b in zip(design.sticky["chromStart"], design.sticky["chromEnd"]):
            hit |= (calls[1] < b).to_numpy() & (calls[2] > a).to_numpy()
        return true, int((~hit).sum())

    learned, other = called(["--model", model])
    assert other <= 5, f"{other} peaks neither true nor sticky"
    default, _ = called([])
    assert default <= learned, f"true peaks the default finds, lost: {default - learned}"
