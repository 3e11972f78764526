"""The control as the background (``--control-rule background``; issue 53 item 10):
a control equal to the treatment leaves no peak, a region up only in the control makes no
peak beside it, a flat control changes nothing, and narrowPeak summits are those of
treatment − scaled control (``penlearn peaks --control``, as ``callpeak``'s)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from _hostile import run_cli


def _bins(counts, width=50):
    s = np.arange(len(counts)) * width
    return pd.DataFrame({"chrom": "chr1", "chromStart": s, "chromEnd": s + width,
                         "count": np.asarray(counts, np.int64)})


def _write(table: pd.DataFrame, path):
    table.to_csv(path, sep="\t", header=False, index=False)
    return path


def _peaks(tmp_path, treatment, control=None, *extra) -> pd.DataFrame:
    d = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
    d.mkdir()
    argv = ["peaks", _write(treatment, d / "t.bedGraph"), "--out", d / "p.bed", "--quiet",
            *extra]
    if control is not None:
        argv += ["--control", _write(control, d / "c.bedGraph")]
    run_cli(argv)
    p = d / "p.bed"
    return pd.read_csv(p, sep="\t", header=None) if p.stat().st_size else pd.DataFrame(
        columns=range(10))


def _peak_rich(seed=0, n=8000):
    """Poisson(2) in 50 bp bins with 40 strong peaks holding most of the coverage."""
    rng = np.random.default_rng(seed)
    x = rng.poisson(2, n)
    for k in rng.choice(np.arange(10, n - 10, 150), 40, replace=False):
        x[k:k + 8] += rng.poisson(rng.integers(60, 120), 8)
    return _bins(x)


def test_a_control_equal_to_the_treatment_leaves_no_peak(tmp_path):
    t = _peak_rich()
    alone = _peaks(tmp_path, t, None, "--penalty", "2000")
    assert len(alone) >= 35  # the peaks are there
    same = _peaks(tmp_path, t, t, "--penalty", "2000")
    assert len(same) == 0, same  # no fold over the control, so no peak


def test_a_region_up_only_in_the_control_makes_no_peak_beside_it(tmp_path):
    rng = np.random.default_rng(3)
    t = _bins(rng.poisson(3, 8000))  # 400 kb, no peak
    c = rng.poisson(3, 8000)
    c[3000:3500] += rng.poisson(12, 500)  # 25 kb up in the control only
    assert len(_peaks(tmp_path, t, None, "--penalty", "1000")) == 0
    with_control = _peaks(tmp_path, t, _bins(c), "--penalty", "1000")
    assert len(with_control) == 0, with_control


def test_a_flat_control_changes_no_peak(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.poisson(3, 20_000)  # 1 Mb in 50 bp bins: equal neighbours are common
    for k in rng.choice(20_000 - 20, 150, replace=False):
        x[k:k + 10] += rng.poisson(rng.integers(3, 30), 10)
    t = _bins(x)
    flat = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [1_000_000],
                         "count": [5]})
    for penalty in ("100", "300"):
        alone = _peaks(tmp_path, t, None, "--penalty", penalty)
        with_flat = _peaks(tmp_path, t, flat, "--penalty", penalty)
        assert alone.iloc[:, :3].values.tolist() == with_flat.iloc[:, :3].values.tolist()


def test_narrowpeak_summits_are_of_treatment_minus_scaled_control(tmp_path):
    # a flat plateau 25-35 kb; the control has no reads at 32000-32100 only: treatment -
    # scaled control is highest there (without the control: the plateau's middle)
    t = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 25_000, 35_000],
                      "chromEnd": [25_000, 35_000, 200_000], "count": [2, 20, 2]})
    c = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 32_100],
                      "chromEnd": [32_000, 200_000], "count": [2, 2]})
    fmt = ("--format", "narrowPeak", "--penalty", "100")
    alone = _peaks(tmp_path, t, None, *fmt)
    with_control = _peaks(tmp_path, t, c, *fmt)
    assert alone[[1, 2]].values.tolist() == [[25_000, 35_000]]
    assert with_control[[1, 2]].values.tolist() == [[25_000, 35_000]]
    assert int(alone[9].iloc[0]) == 5_000
    assert int(with_control[9].iloc[0]) == 7_050, with_control
