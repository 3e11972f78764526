"""What a peak is on output (issue 47, classes (b) and (g)): the peaks and segments that
``predict_peaks``, ``penlearn peaks`` and ``penlearn hub`` report.

(b) a model's "peak" whose mean is pooled with its background by an active equality
constraint is no reported peak; every reported peak is strictly above both neighbours,
its mean its own; coverage longer than a training window is cut where the coverage is
lowest, not through a peak; the zero rows before the first read and after the last get a
segment. (g) the hub's scores follow BED's 0-1000 rule.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import penlearn as pl
from penlearn.cli.main import main
from penlearn.peaks.pretrained import default_windows

# the PeakSeg model at λ = 0.5 has three peaks; the first, [10, 20), is pooled with its
# background [0, 10) (an active constraint: both 9.5) and its own data (7) lie below that
# background's (12)
POOLED = [12, 7, 8, 15, 11, 5, 6, 1]


def _coverage(counts, width: int = 10, start: int = 0) -> pd.DataFrame:
    n = len(counts)
    return pd.DataFrame({"chrom": "chr1", "chromStart": start + np.arange(n) * width,
                         "chromEnd": start + np.arange(1, n + 1) * width, "count": counts})


def _own_mean(cov: pd.DataFrame, a: int, b: int) -> float:
    inside = cov[(cov["chromStart"] >= a) & (cov["chromEnd"] <= b)]
    w = inside["chromEnd"] - inside["chromStart"]
    return float((inside["count"] * w).sum() / w.sum())


def test_pooled_peak_is_not_reported_and_peaks_stand_above_their_neighbours():
    cov = _coverage(POOLED)
    model = pl.peakseg(cov, 0.5)
    assert model.loss["equality_constraints"].item() == 1  # the model keeps its 3 peaks
    assert model.n_peaks == 3
    peaks = pl.predict_peaks(cov, penalty=0.5)
    assert peaks[["chromStart", "chromEnd"]].values.tolist() == [[30, 50], [60, 70]]
    segs = pl.predict_peaks(cov, penalty=0.5, segments=True)
    mean, status = segs["mean"].to_numpy(), segs["status"].to_numpy()
    for i in np.flatnonzero(status == "peak"):
        assert mean[i] > mean[i - 1] and mean[i] > mean[i + 1]
        row = segs.iloc[i]
        assert mean[i] == _own_mean(cov, row["chromStart"], row["chromEnd"])
    # consecutive segments never share a mean: equal-mean runs are one segment
    assert (mean[1:] != mean[:-1]).all()
    assert segs["chromStart"].tolist()[1:] == segs["chromEnd"].tolist()[:-1]


def test_bed_and_narrowpeak_report_the_same_peaks(tmp_path):
    bg = tmp_path / "s.bedGraph"
    cov = _coverage(POOLED)
    bg.write_text("".join(f"chr1\t{a}\t{b}\t{c}\n" for a, b, c in
                          cov[["chromStart", "chromEnd", "count"]].values))
    for fmt in ("bed", "narrowPeak"):
        out = tmp_path / f"p.{fmt}"
        main(["peaks", str(bg), "--penalty", "0.5", "--format", fmt,
                          "--out", str(out), "-q"])
        rows = [ln.split("\t") for ln in out.read_text().splitlines()]
        assert [[int(r[1]), int(r[2])] for r in rows] == [[30, 50], [60, 70]]
        if fmt == "bed":  # BED6+1: the peak's own mean in column 7
            assert [float(r[6]) for r in rows] == [13.0, 6.0]


def test_long_coverage_is_cut_in_its_lowest_stretch_not_through_a_peak():
    # 12,000 bases of background 2 with one high block across the middle (5,900-6,100):
    # equal halves would cut it at 6,000, into two peaks and half of it background
    counts = np.full(1200, 2)
    counts[590:610] = 40
    counts[650:670] = 0  # the lowest stretch near the middle
    cov = _coverage(counts)
    windows = default_windows(cov, max_bases=8000)
    edges = windows["chromEnd"].tolist()[:-1]
    assert edges and all(not (5900 < e < 6100) for e in edges)
    assert all(b - a <= 8000 for a, b in windows[["chromStart", "chromEnd"]].values)
    assert 6500 <= edges[0] < 6700  # inside the zero stretch
    peaks = pl.predict_peaks(cov, penalty=200.0, windows=windows)
    assert peaks[["chromStart", "chromEnd"]].values.tolist() == [[5900, 6100]]


def test_zero_rows_before_the_first_read_and_after_the_last_get_segments(tmp_path):
    counts = np.r_[np.zeros(200, int), np.tile([1, 3, 2, 9, 30, 28, 2, 1], 5),
                   np.zeros(300, int)]
    cov = _coverage(counts, start=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the shipped model's note
        segs = pl.predict_peaks(cov, segments=True)
    assert segs["chromStart"].iloc[0] == 1000 and segs["chromEnd"].iloc[-1] == 1000 + 5400
    assert segs["chromStart"].tolist()[1:] == segs["chromEnd"].tolist()[:-1]
    assert segs["mean"].iloc[0] == 0 and segs["mean"].iloc[-1] == 0
    # the command's bedGraph of means, too
    bg = tmp_path / "s.bedGraph"
    bg.write_text("".join(f"chr1\t{a}\t{b}\t{c}\n" for a, b, c in
                          cov[["chromStart", "chromEnd", "count"]].values))
    out = tmp_path / "peaks.bed"
    assert main(["peaks", str(bg), "--out", str(out), "--means", "bedGraph",
                             "-q"]) == 0
    lines = (tmp_path / "peaks.bedGraph").read_text().splitlines()
    assert lines[0].split("\t")[1] == "1000" and lines[-1].split("\t")[2] == "6400"


def test_hub_scores_follow_the_bed_rule(tmp_path):
    pytest.importorskip("pybigtools")
    pybigwig = pytest.importorskip("pyBigWig")
    cov = _coverage(np.tile([1, 5, 9, 12], 20)).assign(sample_id="s1")
    folder = tmp_path / "peaks"
    folder.mkdir()
    # integer peak means as a BED5's scores: not UCSC scores, scaled like BED's
    (folder / "s1.bed").write_text("chr1\t10\t20\ts1\t5\nchr1\t50\t60\ts1\t9\n"
                                   "chr1\t90\t100\ts1\t12\n")
    pl.write_track_hub(tmp_path / "hub", "hg19", cov, pl.read_peak_files(folder),
                       chrom_sizes={"chr1": 1000})
    bb = pybigwig.open(str(tmp_path / "hub" / "hg19" / "peaks" / "1.bb"))
    try:
        scores = [int(rest.split("\t")[1]) for _, _, rest in bb.entries("chr1", 0, 1000)]
    finally:
        bb.close()
    assert scores == [417, 750, 1000] == pl.ucsc_scores([5, 9, 12]).tolist()
