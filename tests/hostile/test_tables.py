"""Hostile tables: text in the numeric columns of sequences, evaluation.csv and
outputs.csv, a UCI folder holding changepoint labels but no evaluation table, a missing
sequence id. Each is refused with one line naming the column (or what to run)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases, run_cli, uci_folder

import penlearn as pl


def _cases(tmp: Path):
    d, _ = uci_folder()
    seq = pd.read_csv(d.parent / "seq.csv")
    seq["position"] = seq["position"].astype(object)
    seq.loc[3, "position"] = "x"
    seq.to_csv(tmp / "seq_text.csv", index=False)
    yield ("segment: text in 'position'",
           lambda: run_cli(["segment", tmp / "seq_text.csv", "--max-segments", 3, "--out",
                            tmp / "o_text", "-q"]), Error("position"))
    bad = tmp / "badfp"
    shutil.copytree(d, bad)
    ev = pd.read_csv(bad / "evaluation.csv.gz")
    ev["fp"] = ev["fp"].astype(object)
    ev.loc[2, "fp"] = "x"
    ev.to_csv(bad / "evaluation.csv.gz", index=False, compression="gzip")
    yield ("learn: text in 'fp'",
           lambda: run_cli(["learn", bad, "--out", tmp / "m_fp.json", "-q"]), Error("fp"))
    out_txt = tmp / "badout"
    shutil.copytree(d, out_txt)
    out = pd.read_csv(out_txt / "outputs.csv")
    out["min.log.lambda"] = out["min.log.lambda"].astype(object)
    out.loc[1, "min.log.lambda"] = "x"
    out.to_csv(out_txt / "outputs.csv", index=False)
    yield ("learn (boosting): text in outputs.csv",
           lambda: run_cli(["learn", out_txt, "--out", tmp / "m_out.json", "-q"]),
           Error("min_log_lambda"))
    uci_lab = tmp / "uci_labels"
    uci_lab.mkdir()
    shutil.copy(d.parent / "labels.csv", uci_lab / "labels.csv")
    shutil.copy(d / "inputs.csv.gz", uci_lab / "inputs.csv.gz")
    yield ("learn: UCI folder, changepoint labels.csv, no evaluation.csv",
           lambda: run_cli(["learn", uci_lab, "--out", tmp / "m_lab.json", "-q"]),
           Error("penlearn segment"))
    nan_id = pd.DataFrame({"sequence_id": ["q0"] * 3 + [None] + ["q1"] * 3,
                           "position": [1, 2, 3, 4, 1, 2, 3], "value": np.arange(7.0)})
    yield ("segment_sequences: a missing sequence_id",
           lambda: pl.segment_sequences(nan_id, 2), Error("missing value"))


@pytest.mark.slow  # segment + learn of a small folder, then 3 learn runs in-process
def test_text_in_numeric_columns_is_named(tmp_path):
    check_cases(_cases(tmp_path), at_least=5)
