"""``penlearn joint`` without --penalty, --model or --labels (issue 48 item 5): the
shipped zero-label model's penalty, as ``penlearn peaks`` uses it, averaged over each
window's samples, and said on stdout."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from test_joint_cli import check_matrix_against_models, make_inputs

from penlearn.cli.main import main
from penlearn.peaks.pretrained import default_log_lambda


def test_joint_without_a_penalty_uses_the_shipped_model(tmp_path, capsys):
    f = make_inputs(tmp_path)
    out = tmp_path / "out"
    code = main(["joint", str(f["coverage"]), "--peaks", str(f["peaks"]), "--out", str(out),
                 "--no-resume"])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert ("penlearn joint: no --penalty, --model or --labels: using the shipped "
            "zero-label penalty model") in stdout
    windows = pd.read_csv(out / "windows.tsv", sep="\t")
    assert len(windows) == 2
    cov = f["cov"]
    # each window's log λ: the mean over the samples of the peaks command's log λ of the
    # sample's coverage over that window (bases without rows: zeros, as in the model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (600-base windows: features clipped)
        want = [np.mean([float(default_log_lambda(
            cov[cov["sample_id"] == s].drop(columns=["sample_id", "group"]),
            windows=pd.DataFrame([w[["chrom", "chromStart", "chromEnd"]]]))[1].iloc[0])
            for s in ("a", "b", "c")]) for _, w in windows.iterrows()]
    assert windows["log_lambda"].tolist() == [float(f"{x:.6g}") for x in want]  # (%.6g)
    check_matrix_against_models(out, cov)
