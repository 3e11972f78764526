"""One penalty vocabulary (issue 47, class c): ``peaks`` and ``joint``, command and Python,
check a penalty by one rule (:func:`penlearn.peaks.peakseg.penalty.log_penalty_of`), and
every command takes a negative number written with an exponent or as ``-inf`` as an
option's value (argparse alone reads ``-2.5e0`` as an option)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from _hostile import Error, check_cases, joint_folders, run_cli

import penlearn as pl


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> Path:
    """Coverage of 3 samples (2 with a peak) and their single-sample peaks."""
    return joint_folders(tmp_path_factory.mktemp("vocab"))


def _n_bed(folder: Path, name: str) -> int:
    return len(pl.read_bed(folder / name))


def test_one_penalty_rule_for_peaks_and_joint(folders):
    cov, peaks = folders / "cov", folders / "peaks"

    def joint(*extra):
        return run_cli(["joint", cov, "--peaks", peaks, "--out", folders / "j_bad", *extra,
                        "-q"])

    def peaks_cmd(*extra):
        return run_cli(["peaks", cov, "--out", folders / "p_bad", *extra, "-q"])

    cases = []
    for value in ("inf", "1e300", "1e22", "-1", "nan"):
        for name, fn in (("joint", joint), ("peaks", peaks_cmd)):
            cases.append((f"{name} --penalty {value}", lambda f=fn, v=value: f("--penalty", v),
                          Error("--penalty", inputs=[cov, peaks])))
    for value in ("inf", "60", "nan"):
        for name, fn in (("joint", joint), ("peaks", peaks_cmd)):
            cases.append((f"{name} --log-penalty {value}",
                          lambda f=fn, v=value: f("--log-penalty", v),
                          Error("--log-penalty", inputs=[cov, peaks])))
    cases.append(("joint --log-penalty with --penalty",
                  lambda: joint("--penalty", 1, "--log-penalty", 0), Error("--penalty")))
    cov_df = pl.read_coverage(cov)
    peaks_df = pd.concat([pl.read_bed(peaks / f"{s}.bed").assign(sample_id=s)
                          for s in ("a", "b")], ignore_index=True)
    for kw in ({"penalty": math.inf}, {"penalty": 1e300}, {"penalty": 1e22},
               {"penalty": -1.0}, {"log_penalty": math.inf}, {"log_penalty": 60.0},
               {"penalty": "1"}, {"penalty": pd.Series([1.0])}):
        cases.append((f"joint_peaks {kw}", lambda kw=kw: pl.joint_peaks(cov_df, peaks_df, **kw),
                      Error(*kw)))
        cases.append((f"predict_peaks {kw}",
                      lambda kw=kw: pl.predict_peaks(cov_df, **kw), Error(*kw)))
    check_cases(cases, at_least=33)


def test_negative_numbers_with_an_exponent_are_option_values(folders):
    cov, peaks = folders / "cov", folders / "peaks"
    cases = []
    for value in ("-2.5e0", "-1e-3", "-inf", "-1E+1", "-.5"):
        out = folders / f"p{value}"
        cases.append((f"peaks --log-penalty {value}",
                      lambda o=out, v=value: (run_cli(["peaks", cov, "--out", o,
                                                       "--log-penalty", v, "-q"]),
                                              _n_bed(o, "a.bed"))[1],
                      lambda n: n >= 1))
        jout = folders / f"j{value}"
        cases.append((f"joint --log-penalty {value}",
                      lambda o=jout, v=value: (run_cli(["joint", cov, "--peaks", peaks,
                                                        "--out", o, "--log-penalty", v,
                                                        "-q"]),
                                               _n_bed(o, "joint_peaks.bed"))[1],
                      lambda n: n >= 1))
    check_cases(cases, at_least=10)
