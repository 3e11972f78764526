"""Groups (issue 47, class h): one check of every ``sample_id, group`` table
(:func:`penlearn.peaks.formats._label_text.check_sample_groups`) behind ``errors
--groups``, ``joint --groups`` and ``joint_peaks(groups=...)``: a sample under two groups,
a blank group or sample id and an empty file are one clear line naming the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from _hostile import Error, check_cases, run_cli

import penlearn as pl

GROUPS = {"s1": "kidney", "s2": "kidney", "s3": "bcell"}


def _peaks_folder(root: Path) -> Path:
    d = root / "peaks"
    d.mkdir()
    for s in GROUPS:
        (d / f"{s}.bed").write_text("chr1\t1200\t1500\nchr2\t2500\t2600\n")
    (root / "labels.txt").write_text(
        "chr1:1,001-6,000 peaks kidney\nchr1:7,001-9,000 noPeaks\n\n"
        "chr2:2,001-5,000 peakStart bcell\n")
    return d


def _groups_files(root: Path) -> dict:
    texts = {
        "a sample under two groups": "sample_id,group\ns1,kidney\ns2,kidney\ns3,bcell\n"
                                     "s1,bcell\n",
        "a blank group": "sample_id,group\ns1,kidney\ns2,\ns3,bcell\n",
        "a blank sample id": "sample_id,group\ns1,kidney\n,kidney\ns3,bcell\n",
        "an empty file": "",
        "a header only": "sample_id,group\n",
    }
    needles = {"a sample under two groups": ("s1", "two groups"),
               "a blank group": ("row 2", "group"), "a blank sample id": ("row 2", "sample_id"),
               "an empty file": ("empty",), "a header only": ("no rows",)}
    out = {}
    for k, (name, text) in enumerate(texts.items()):
        p = root / f"groups{k}.csv"
        p.write_text(text)
        out[name] = (p, needles[name])
    return out


def test_one_check_of_every_groups_table(tmp_path):
    peaks = _peaks_folder(tmp_path)
    inputs = tmp_path / "in"
    files = _groups_files(tmp_path)
    ok = tmp_path / "ok.csv"
    pd.DataFrame({"sample_id": list(GROUPS), "group": list(GROUPS.values())}).to_csv(
        ok, index=False)
    cases = [("errors --groups a good file",
              lambda: run_cli(["errors", peaks, tmp_path / "labels.txt", "--groups", ok]),
              lambda got: True)]
    for name, (path, needles) in files.items():
        cases.append((f"errors --groups {name}",
                      lambda p=path: run_cli(["errors", peaks, tmp_path / "labels.txt",
                                              "--groups", p]),
                      Error(str(path), *needles, inputs=[peaks])))
        cases.append((f"joint --groups {name}",
                      lambda p=path: run_cli(["joint", inputs, "--peaks", peaks, "--penalty",
                                              1, "--groups", p, "--out", tmp_path / "j"]),
                      Error(str(path), *needles)))
    rows = []
    for s in GROUPS:
        rows += [(s, "chr1", 0, 1000, 1), (s, "chr1", 1000, 2000, 9), (s, "chr1", 2000, 3000, 1)]
    cov = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"])
    bed = pd.DataFrame({"sample_id": ["s1"], "chrom": ["chr1"], "chromStart": [1000],
                        "chromEnd": [2000]})
    for name, groups, needles in [
            ("a mapping with a None group", {"s1": "k", "s2": None, "s3": "b"}, ("group",)),
            ("a table with a NaN group",
             pd.DataFrame({"sample_id": list(GROUPS), "group": ["k", np.nan, "b"]}),
             ("row 2", "group")),
            ("a table with a sample under two groups",
             pd.DataFrame({"sample_id": ["s1", "s2", "s3", "s1"],
                           "group": ["k", "k", "b", "b"]}), ("s1", "two groups")),
            ("an empty table", pd.DataFrame({"sample_id": [], "group": []}), ("no rows",))]:
        cases.append((f"joint_peaks groups= {name}",
                      lambda g=groups: pl.joint_peaks(cov, bed, penalty=1.0, groups=g),
                      Error(*needles)))
    check_cases(cases, at_least=15)
