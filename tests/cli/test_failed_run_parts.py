"""A failed ``penlearn peaks`` / ``penlearn joint`` leaves nothing new behind: no
``OUT.penlearn-parts`` folder (nor the parent folders made for it) when it fails before
saving a part; a run that fails after saving parts keeps them, and the same command
resumes from them (the design of :mod:`penlearn.peaks.peakseg.parts`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from test_joint_cli import make_inputs

import penlearn.cli.peaks as cli_peaks
from penlearn.cli.main import main


def _coverage(path):
    """One sample, two chromosomes of 200 runs of 10 bases, a peak on each."""
    start = np.arange(200) * 10
    count = np.where((start >= 800) & (start < 1000), 30, 2)
    pd.concat([pd.DataFrame({"chrom": c, "chromStart": start, "chromEnd": start + 10,
                             "count": count}) for c in ("chr1", "chr2")]).to_csv(
        path, sep="\t", header=False, index=False)
    return path


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_joint_error_after_opening_the_parts_leaves_no_folder(tmp_path, capsys):
    inp = make_inputs(tmp_path)
    far = tmp_path / "far"  # peaks beyond the coverage: refused inside the joint model
    far.mkdir()
    for s in "abc":
        (far / f"{s}.bed").write_text("chr1\t195\t305\n" + ("chr1\t900\t950\n" if s == "c"
                                                              else ""))
    before = _names(tmp_path)
    code = main(["joint", str(inp["coverage"]), "--peaks", str(far), "--penalty", "1",
                 "--out", str(tmp_path / "new" / "sub" / "out"), "-q"])
    assert code == 1 and "beyond the coverage" in capsys.readouterr().err
    assert _names(tmp_path) == before  # no new/sub/out.penlearn-parts, no new/


def test_peaks_error_before_any_part_leaves_no_folder(tmp_path, capsys, monkeypatch):
    cov = _coverage(tmp_path / "s.bedGraph")

    def fails(*args, **kwargs):
        raise ValueError("coverage rejected by the solver")

    monkeypatch.setattr(cli_peaks, "predict_peaks", fails)
    code = main(["peaks", str(cov), "--penalty", "100", "--out", str(tmp_path / "p.bed"),
                 "-q"])
    assert code == 1 and "coverage rejected" in capsys.readouterr().err
    assert _names(tmp_path) == ["s.bedGraph"]


def test_peaks_error_after_parts_keeps_them_and_resumes(tmp_path, capsys, monkeypatch):
    cov = _coverage(tmp_path / "s.bedGraph")
    out, parts = tmp_path / "p.bed", tmp_path / "p.bed.penlearn-parts"
    argv = ["peaks", str(cov), "--penalty", "100", "--out", str(out)]
    with monkeypatch.context() as m:
        def fails(*args, **kwargs):
            raise OSError("disk full")

        m.setattr(cli_peaks, "_write_sample", fails)
        assert main(argv + ["-q"]) == 1
    assert "disk full" in capsys.readouterr().err
    assert not out.exists() and len(list(parts.glob("peaks-*.npz"))) == 2
    assert main(argv) == 0
    assert "(2 of 2 windows from an interrupted run)" in capsys.readouterr().out
    assert _names(tmp_path) == ["p.bed", "s.bedGraph"]


def test_peaks_failure_keeps_an_earlier_runs_folder(tmp_path, monkeypatch):
    cov = _coverage(tmp_path / "s.bedGraph")
    parts = tmp_path / "p.bed.penlearn-parts"
    parts.mkdir()  # an earlier run's (killed before its first part): not this run's

    def fails(*args, **kwargs):
        raise ValueError("no")

    monkeypatch.setattr(cli_peaks, "predict_peaks", fails)
    assert main(["peaks", str(cov), "--penalty", "100", "--out", str(tmp_path / "p.bed"),
                 "-q"]) == 1
    assert _names(parts) == ["manifest.json"]

