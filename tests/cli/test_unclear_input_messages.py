"""One clear line for unclear inputs: a UCI folder with changepoint labels
and no evaluation table (was read as peak labels), missing sequence ids (an IndexError, or
"rows of q0 must be contiguous"), text in outputs.csv (bare float conversion error)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import one_line_exit

import penlearn as pl
from penlearn.cli import main


def test_uci_folder_with_changepoint_labels_and_no_evaluation(tmp_path, capsys):
    d = tmp_path / "uci"
    d.mkdir()
    pd.DataFrame({"sequence_id": ["a", "b"], "start": [0, 0], "end": [10, 10],
                  "annotation": ["1change", "0changes"]}).to_csv(d / "labels.csv", index=False)
    pd.DataFrame({"sequenceID": ["a", "b"], "f": [1.0, 2.0]}).to_csv(d / "inputs.csv",
                                                                     index=False)
    for argv in (["learn", str(d), "--out", str(tmp_path / "m.json")],
                 ["report", str(d), "--predictions", str(d / "inputs.csv"), "--out",
                  str(tmp_path / "r.html")]):
        one_line_exit(capsys, main(argv), "changepoint labels", "no evaluation.csv",
                 "penlearn segment")
    # peak labels in the same place still make a coverage folder
    (d / "labels.csv").write_text("chrom,chromStart,chromEnd,annotation\nchr1,0,10,noPeaks\n")
    assert pl.datasets.is_peak_folder(d)


@pytest.mark.parametrize("missing", [None, np.nan])
def test_missing_sequence_ids_are_named(missing):
    seq = pd.DataFrame({"sequence_id": ["q0"] * 3 + [missing] + ["q1"] * 3,
                        "position": [1, 2, 3, 4, 1, 2, 3], "value": np.arange(7.0)})
    for f in (lambda: pl.segment_sequences(seq, 2), lambda: pl.feature_matrix(seq)):
        with pytest.raises(ValueError, match=r"'sequence_id' has 1 missing value\(s\) "
                                             r"\(first at row 4\)"):
            f()
    lab = pd.DataFrame({"sequence_id": ["q0", missing], "start": [0, 0], "end": [2, 2],
                        "annotation": ["0changes"] * 2})
    with pytest.raises(ValueError, match="labels column 'sequence_id' has 1 missing"):
        pl.check_labels(lab)


def test_text_in_outputs_csv_names_file_column_and_row(tmp_path, capsys):
    data = pl.simulate(12, seed=5, n_points=(60, 120))
    data.sequences.to_csv(tmp_path / "seq.csv", index=False)
    data.labels.to_csv(tmp_path / "labels.csv", index=False)
    d = tmp_path / "data"
    assert main(["segment", str(tmp_path / "seq.csv"), str(tmp_path / "labels.csv"),
                 "--max-segments", "3", "--out", str(d), "-q"]) == 0
    out = pd.read_csv(d / "outputs.csv")
    out["min.log.lambda"] = out["min.log.lambda"].astype(object)
    out.loc[1, "min.log.lambda"] = "x"
    out.to_csv(d / "outputs.csv", index=False)
    for model in ("boosting", "linear"):  # boosting read the text in silence
        code = main(["learn", str(d), "--model", model, "--out", str(tmp_path / "m.json"),
                     "--max-steps", "2", "-q"])
        one_line_exit(capsys, code, "outputs.csv", "'min_log_lambda' must be numeric", "row 2",
                 "'x'")


def test_non_finite_value_message_is_plain(tmp_path):
    seq = pd.DataFrame({"sequence_id": ["a"] * 3, "position": [1, 2, 3],
                        "value": [0.0, np.nan, 1.0]})
    with pytest.raises(ValueError, match="sequence 'a' has nan$"):
        pl.segment_sequences(seq, 2)


def _bounded_run(argv, cwd):
    """A penlearn command in a child with 2 GB of address space and a minute."""
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run([sys.executable, "-m", "penlearn.cli", *map(str, argv), "-q"],
                          capture_output=True, text=True, timeout=60, cwd=cwd,
                          preexec_fn=limit)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "fifo"])
def test_devices_and_pipes_are_refused_as_data_files(tmp_path, device):
    """/dev/zero was read without bound (all the memory; here: out of memory), a pipe
    opened twice (its format told by its first bytes)."""
    import os

    if device == "fifo":
        device = tmp_path / "fifo"
        os.mkfifo(device)
    bed = tmp_path / "p.bed"
    bed.write_text("chr1\t10\t20\n")
    labels = tmp_path / "l.csv"
    labels.write_text("chrom,chromStart,chromEnd,annotation\nchr1,0,5,noPeaks\n")
    for argv in (["peaks", device, "--penalty", 1, "--out", tmp_path / "o.bed"],
                 ["errors", bed, device], ["errors", device, labels],
                 ["segment", device, "--max-segments", 2, "--out", tmp_path / "seg"]):
        r = _bounded_run(argv, tmp_path)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert r.returncode == 1 and len(lines) == 1, r.stderr[-500:]
        assert f"{device} is a " in lines[0] and "not a regular file" in lines[0], lines[0]


def test_joint_groups_device_and_one_sample(tmp_path, capsys):
    """joint --groups /dev/zero was read without bound; one sample's coverage was told it
    lacked its peak file."""
    n = 6
    pd.DataFrame({"sample_id": ["a"] * n + ["b"] * n, "chrom": "chr1",
                  "chromStart": list(range(0, 10 * n, 10)) * 2,
                  "chromEnd": list(range(10, 10 * n + 10, 10)) * 2,
                  "count": [1, 2, 30, 28, 2, 1] * 2}).to_csv(tmp_path / "cov.csv", index=False)
    assert main(["peaks", str(tmp_path / "cov.csv"), "--penalty", "1", "--out",
                 str(tmp_path / "peaks"), "-q"]) == 0
    r = _bounded_run(["joint", tmp_path / "cov.csv", "--peaks", tmp_path / "peaks",
                      "--penalty", 1, "--groups", "/dev/zero", "--out", tmp_path / "j"],
                     tmp_path)
    assert r.returncode == 1 and "/dev/zero is a device" in r.stderr, r.stderr[-300:]
    one = tmp_path / "one.csv"
    pd.read_csv(tmp_path / "cov.csv").query("sample_id == 'a'").to_csv(one, index=False)
    code = main(["joint", str(one), "--peaks", str(tmp_path / "peaks"), "--penalty", "1",
                 "--out", str(tmp_path / "j1"), "-q"])
    one_line_exit(capsys, code, "one sample only")
