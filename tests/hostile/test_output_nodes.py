"""Outputs never replace a pipe, device or socket (issue 47, class g): one check of the
node (:func:`penlearn.atomic_files.check_replaceable`) in the commands' ``--out`` check
and in every atomic writer, so ``--out FIFO --force`` is one clear line and the FIFO is
still a FIFO."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from _hostile import Error, check_cases, coverage_table, peak_folder, run_cli, uci_folder

import penlearn as pl
from penlearn import atomic_files


def _fifo(folder: Path, name: str) -> Path:
    p = folder / name
    os.mkfifo(p)
    return p


def _still_fifo(call, path: Path):
    def run():
        try:
            return call()
        finally:
            assert stat.S_ISFIFO(os.lstat(path).st_mode), f"{path} is no longer a FIFO"
    return run


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_out_a_fifo_is_refused_and_left_a_fifo(tmp_path):
    d, model = uci_folder()
    peaks_in = peak_folder(tmp_path / "peaks_in")
    cov = tmp_path / "cov.csv"
    coverage_table(("a",)).to_csv(cov, index=False)
    out = tmp_path / "out"
    out.mkdir()
    runs = {
        "learn": lambda f: ["learn", d, "--out", f, "--max-steps", 1, "--model", "linear"],
        "predict": lambda f: ["predict", model, d, "--out", f],
        "peaks": lambda f: ["peaks", cov, "--penalty", 5, "--out", f],
        "peaks (folder)": lambda f: ["peaks", peaks_in / "coverage.csv", "--penalty", 5,
                                     "--out", f],
        "segment": lambda f: ["segment", d.parent / "seq.csv", d.parent / "labels.csv",
                              "--max-segments", 3, "--out", f],
        "errors": lambda f: ["errors", tmp_path / "nope", peaks_in / "labels.csv", "--out", f],
        "pretrain": lambda f: ["pretrain", peaks_in, "--out", f],
    }
    cases = []
    for name, argv in runs.items():
        fifo = _fifo(out, name.replace(" ", "_"))
        args = [*argv(fifo), "--force", "-q"]
        cases.append((f"{name} --out FIFO --force",
                      _still_fifo(lambda a=args: run_cli(a), fifo),
                      Error("pipe", str(fifo))))
    m = pl.PenaltyModel.load(model)
    py = _fifo(out, "py")
    cases += [
        ("PenaltyModel.save(FIFO)", _still_fifo(lambda: m.save(py), py), Error("pipe")),
        ("write_text_atomic(FIFO)",
         _still_fifo(lambda: atomic_files.write_text_atomic(py, "x"), py), Error("pipe")),
        ("staged_file(FIFO)", _still_fifo(lambda: atomic_files.staged_file(py).__enter__(), py),
         Error("pipe")),
        ("a device", lambda: atomic_files.check_replaceable("/dev/null", "--out"),
         Error("--out", "/dev/null", "device")),
        ("a regular file or a folder is fine",
         lambda: (atomic_files.check_replaceable(model),
                 atomic_files.check_replaceable(tmp_path)),
         lambda got: got == (None, None)),
    ]
    check_cases(cases, at_least=12)
