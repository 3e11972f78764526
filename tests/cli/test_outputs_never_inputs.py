"""An output is never an input, nor a folder holding one, nor inside an input folder,
``--force`` or not, for every command, checked before any input is read (with ``--force``,
``predict``/``learn``/``report`` once replaced files of the folder they read)."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pandas as pd
import pytest
from conftest import one_line_exit

from penlearn.cli import main
from penlearn.datasets import simulate


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def uci(tmp_path_factory):
    """A small UCI folder (features gzipped: inputs.csv.gz) and a model."""
    root = tmp_path_factory.mktemp("uci")
    data = simulate(12, seed=5, n_points=(60, 120))
    data.sequences.to_csv(root / "seq.csv", index=False)
    data.labels.to_csv(root / "labels.csv", index=False)
    d = root / "data"
    assert main(["segment", str(root / "seq.csv"), str(root / "labels.csv"), "--max-segments",
                 "4", "--out", str(d), "-q"]) == 0
    for name in ("inputs.csv", "evaluation.csv"):
        raw = (d / name).read_bytes()
        (d / name).unlink()
        (d / f"{name}.gz").write_bytes(gzip.compress(raw))
    model = root / "model.json"
    assert main(["learn", str(d), "--out", str(model), "--max-steps", "2", "-q"]) == 0
    return d, model


@pytest.mark.parametrize("victim", ["inputs.csv.gz", "evaluation.csv.gz", "new.csv",
                                    "cv/random/folds.csv"])
def test_predict_learn_report_never_write_inside_the_folder_they_read(uci, capsys, victim):
    d, model = uci
    before = snapshot(d)
    out = str(d / victim)
    for argv in (["predict", str(model), str(d), "--out", out],
                 ["learn", str(d), "--out", out, "--max-steps", "2"],
                 ["report", str(d), "--model", str(model), "--out", out]):
        code = main([*argv, "--force", "-q"])
        one_line_exit(capsys, code, "inside the input folder", str(d))
    assert snapshot(d) == before


def test_learn_on_a_coverage_folder_keeps_its_labels_and_coverage(tmp_path, capsys):
    d = tmp_path / "chip"
    d.mkdir()
    rows = [("a", "chr1", 10 * j, 10 * j + 10, c) for j, c in enumerate([1, 2, 30, 28, 2, 1])]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"]).to_csv(
        d / "coverage.csv", index=False)
    pd.DataFrame([("a", "chr1", 15, 25, "peakStart")], columns=[
        "sample_id", "chrom", "chromStart", "chromEnd", "annotation"]).to_csv(
        d / "labels.csv", index=False)
    before = snapshot(d)
    for victim in ("labels.csv", "coverage.csv"):
        code = main(["learn", str(d), "--out", str(d / victim), "--force", "-q", "--no-cache"])
        one_line_exit(capsys, code, "inside the input folder")
    assert snapshot(d) == before


def test_peaks_refuses_an_out_inside_the_coverage_folder_before_reading_it(tmp_path, capsys):
    d = tmp_path / "bigwigs"
    d.mkdir()
    (d / "a.bedGraph").write_text("not coverage at all\n")  # reading it would fail
    (d / "b.bw").write_bytes(b"\0" * 64)
    code = main(["peaks", str(d), "--penalty", "1", "--out", str(d / "out"), "--force", "-q"])
    one_line_exit(capsys, code, "inside the input folder")


def test_peaks_out_dot_with_force_says_why(tmp_path, capsys, monkeypatch):
    cov = tmp_path / "in" / "cov.csv"
    cov.parent.mkdir()
    n = 6
    pd.DataFrame({"sample_id": ["a"] * n + ["b"] * n, "chrom": "chr1",
                  "chromStart": list(range(0, 10 * n, 10)) * 2,
                  "chromEnd": list(range(10, 10 * n + 10, 10)) * 2,
                  "count": [1, 2, 30, 28, 2, 1] * 2}).to_csv(cov, index=False)
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "keep.txt").write_text("x")
    monkeypatch.chdir(work / "sub")
    for out in (".", ".."):
        code = main(["peaks", str(cov), "--penalty", "1", "--out", out, "--force", "-q"])
        one_line_exit(capsys, code, "current folder", "--force cannot replace it")
    assert (work / "keep.txt").read_text() == "x"
    # a new folder is fine
    assert main(["peaks", str(cov), "--penalty", "1", "--out", "peaks", "-q"]) == 0
    assert sorted(os.listdir("peaks")) == ["a.bed", "b.bed"]
