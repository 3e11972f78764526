"""One penalty vocabulary (issue 36 item 4): ``penalty=`` is λ, ``log_penalty=`` is log λ,
in Python and on the command line (``--penalty`` / ``--log-penalty``); a value no
coverage supports is an error naming the unit expected, never a silent 0 peaks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import penlearn as pl
from penlearn.cli import main
from penlearn.peaks.peakseg.penalty import MAX_LOG_PENALTY, check_log_penalty, log_penalty_of

COV = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
                    "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})


def _spans(peaks):
    return peaks[["chromStart", "chromEnd"]].values.tolist()


def test_penalty_and_log_penalty_are_the_same_model():
    by_lambda = pl.predict_peaks(COV, penalty=20.0)
    by_log = pl.predict_peaks(COV, log_penalty=math.log(20.0))
    assert _spans(by_lambda) == _spans(by_log) == [[20, 40]]
    assert by_lambda["log_lambda"].iloc[0] == math.log(20.0)
    series = pl.predict_peaks(COV, penalty=pd.Series({"chr1:0-60": 20.0}))
    assert _spans(series) == [[20, 40]]


def test_positional_log_lambda_is_deprecated_but_kept():
    with pytest.warns(DeprecationWarning, match="log_penalty=x"):
        old = pl.predict_peaks(COV, math.log(20.0))
    assert _spans(old) == [[20, 40]]
    with pytest.raises(TypeError, match="not also by position"):
        pl.predict_peaks(COV, 1.0, penalty=2.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"log_penalty": 10000.0}, r"log_penalty = 10000 is log λ .* give penalty=10000"),
    ({"log_penalty": MAX_LOG_PENALTY + 0.5}, r"log λ must be <= 50"),
    ({"log_penalty": math.inf}, r"log_penalty = inf is log λ"),
    ({"log_penalty": math.nan}, r"log_penalty is NaN: give log λ"),
    ({"penalty": -1.0}, r"penalty = -1.0 is the penalty λ: a finite number >= 0"),
    ({"penalty": math.inf}, r"penalty = inf is the penalty λ"),
    ({"penalty": math.nan}, r"penalty = nan is the penalty λ"),
    ({"penalty": 1e30}, r"beyond e\^50"),
    ({"penalty": 1.0, "log_penalty": 0.0}, r"not both"),
    ({"log_penalty": pd.Series({"chr1:0-60": 60.0})}, r"log_penalty = 60 is log λ"),
])
def test_unsupported_values_are_errors_naming_the_unit(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pl.predict_peaks(COV, **kwargs)


def test_check_functions():
    assert check_log_penalty(-math.inf) == -math.inf  # λ = 0: every base a peak, allowed
    assert log_penalty_of(penalty=0.0) == -math.inf
    assert log_penalty_of(penalty=math.e) == pytest.approx(1.0)
    with pytest.raises(TypeError, match="penalty must be a number"):
        log_penalty_of(penalty="10")


def test_cli_penalty_units(tmp_path, capsys):
    bed = tmp_path / "c.bedGraph"
    COV.to_csv(bed, sep="\t", header=False, index=False)
    assert main(["peaks", str(bed), "--out", str(tmp_path / "a.bed"), "--penalty", "20",
                 "-q"]) == 0
    assert main(["peaks", str(bed), "--out", str(tmp_path / "b.bed"), "--log-penalty",
                 str(math.log(20.0)), "-q"]) == 0
    capsys.readouterr()
    assert (tmp_path / "a.bed").read_text() == (tmp_path / "b.bed").read_text()
    assert (tmp_path / "a.bed").read_text().startswith("chr1\t20\t40")
    for argv, needle in [(["--log-penalty", "10000"], "give penalty=10000 (penlearn peaks "
                                                       "--penalty 10000)"),
                         (["--penalty", "-5"], "--penalty = -5.0 is the penalty λ"),
                         (["--penalty", "nan"], "--penalty = nan is the penalty λ"),
                         (["--penalty", "1", "--log-penalty", "0"], "give one of --penalty")]:
        code = main(["peaks", str(bed), "--out", str(tmp_path / "x.bed"), *argv])
        err = capsys.readouterr().err
        assert code == 1 and needle in err, err
        assert not (tmp_path / "x.bed").exists()
    assert np.isfinite(MAX_LOG_PENALTY)
