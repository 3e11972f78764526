"""Joint windows (clusters of overlapping peaks, widened), window coverage, and the label
errors of joint models: each against a plain brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.joint.errors import joint_error_functions, joint_path, joint_selected
from penlearn.peaks.joint.windows import (
    joint_clusters,
    joint_windows,
    window_coverage,
)
from penlearn.peaks.peakseg.labels import peak_label_errors


def random_peaks(rng, n, length=300):
    rows = []
    for _ in range(n):
        s = int(rng.integers(0, length))
        rows.append((f"s{rng.integers(0, 3)}", str(rng.choice(["chr1", "chr2"])), s,
                     s + int(rng.integers(1, 30))))
    return pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd"])


def brute_clusters(peaks):
    """Union of peaks sharing a base, by repeated merging (no sorting)."""
    groups = [{i} for i in range(len(peaks))]
    rows = list(peaks.itertuples(index=False))

    def overlap(a, b):
        return any(rows[i].chrom == rows[j].chrom and rows[i].chromStart < rows[j].chromEnd
                   and rows[j].chromStart < rows[i].chromEnd for i in a for j in b)
    merged = True
    while merged:
        merged = False
        for x in range(len(groups)):
            for y in range(x + 1, len(groups)):
                if overlap(groups[x], groups[y]):
                    groups[x] |= groups.pop(y)
                    merged = True
                    break
            if merged:
                break
    return sorted((rows[min(g)].chrom, min(rows[i].chromStart for i in g),
                   max(rows[i].chromEnd for i in g), len(g),
                   len({rows[i].sample_id for i in g})) for g in groups)


@pytest.mark.parametrize("seed", range(8))
def test_clusters_equal_brute_force(seed):
    peaks = random_peaks(np.random.default_rng(seed), 25)
    got = sorted(map(tuple, joint_clusters(peaks).values.tolist()))
    assert got == brute_clusters(peaks)


@pytest.mark.parametrize("widen", [0.0, 0.5, 1.0, 3.0])
def test_windows_hold_their_cluster_never_overlap_and_widen_as_documented(widen):
    peaks = random_peaks(np.random.default_rng(11), 30)
    cl = joint_clusters(peaks)
    win = joint_windows(peaks, widen=widen)
    assert len(win) == len(cl)
    assert (win["chromStart"] <= win["clusterStart"]).all()
    assert (win["clusterEnd"] <= win["chromEnd"]).all()
    for _, g in win.groupby("chrom"):
        assert (g["chromEnd"].to_numpy()[:-1] <= g["chromStart"].to_numpy()[1:]).all()
        for i, r in enumerate(g.itertuples()):
            grow = int(np.floor((r.clusterEnd - r.clusterStart) * widen))
            left = max(0, r.clusterStart - grow)
            right = r.clusterEnd + grow
            if i > 0:  # capped at the middle of the gap to the previous cluster
                prev = g.iloc[i - 1]
                left = max(left, (prev["clusterEnd"] + r.clusterStart) // 2)
            if i + 1 < len(g):
                nxt = g.iloc[i + 1]
                right = min(right, (r.clusterEnd + nxt["clusterStart"]) // 2)
            assert (r.chromStart, r.chromEnd) == (left, right)


def _coverage(spans):
    rows = []
    for sid, (a, b) in spans.items():
        rows += [(sid, "chr1", a, (a + b) // 2, 1), (sid, "chr1", (a + b) // 2, b, 4)]
    return pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"])


def test_windows_are_clipped_to_the_bases_some_sample_covers_and_beyond_them_refused():
    cov = _coverage({"a": (0, 1000), "b": (50, 900)})
    peaks = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1",
                          "chromStart": [100, 700], "chromEnd": [200, 800]})
    win = joint_windows(peaks, cov, widen=1.0)
    assert win[["chromStart", "chromEnd"]].values.tolist() == [[0, 300], [600, 900]]
    # a cluster past b's last row: b is zeros there (genomecov leaves trailing zeros out)
    far = pd.concat([peaks, pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"],
                                          "chromStart": [920], "chromEnd": [950]})])
    assert joint_windows(far, cov, widen=1.0)[["chromStart", "chromEnd"]].values.tolist() \
        == [[0, 300], [600, 860], [890, 980]]
    beyond = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [990],
                           "chromEnd": [1010]})
    with pytest.raises(ValueError, match="beyond the coverage of every sample"):
        joint_windows(beyond, cov)
    other = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr2"], "chromStart": [1],
                          "chromEnd": [5]})
    with pytest.raises(ValueError, match="which no sample of the coverage covers"):
        joint_windows(other, cov)
    with pytest.raises(ValueError, match="no single-sample peaks"):
        joint_windows(peaks.iloc[:0], cov)


@pytest.mark.parametrize("widen", [1e16, -1.0, float("nan"), float("inf"), True])
def test_widen_is_refused_before_any_arithmetic_beyond_its_cap(widen):
    peaks = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [100],
                          "chromEnd": [200]})
    with pytest.raises(ValueError, match="widen must be a number from 0 to 1e"):
        joint_windows(peaks, widen=widen)


def test_the_largest_widen_stays_within_int64():
    peaks = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [2 ** 61],
                          "chromEnd": [2 ** 62]})
    win = joint_windows(peaks, widen=1e6)
    assert win[["chromStart", "chromEnd"]].values.tolist() == [[0, 2 ** 63 - 1]]


def test_window_coverage_cuts_every_sample_to_the_window_and_fills_gaps():
    cov = pd.DataFrame({"sample_id": ["a", "a", "b"], "chrom": "chr1",
                        "chromStart": [0, 20, 0], "chromEnd": [10, 40, 40],
                        "count": [3, 5, 2]})
    win = pd.DataFrame({"window_id": ["w"], "chrom": ["chr1"], "chromStart": [5],
                        "chromEnd": [30]})
    (wid, table), = list(window_coverage(cov, win, groups={"a": "g", "b": "h"}))
    assert wid == "w"
    for _sid, g in table.groupby("sample_id"):
        assert g["chromStart"].iloc[0] == 5 and g["chromEnd"].iloc[-1] == 30
        assert (g["chromEnd"].to_numpy()[:-1] == g["chromStart"].to_numpy()[1:]).all()
    a = table[table["sample_id"] == "a"]
    assert a[["chromStart", "chromEnd", "count"]].values.tolist() == [
        [5, 10, 3], [10, 20, 0], [20, 30, 5]]
    assert table.set_index("sample_id")["group"].to_dict() == {"a": "g", "b": "h"}
    # bases past a sample's last row, or a sample without rows there: zeros
    (_, longer), = list(window_coverage(cov, win.assign(chromEnd=45)))
    assert longer[longer["sample_id"] == "b"][["chromStart", "chromEnd", "count"]
                                               ].values.tolist() == [[5, 40, 2], [40, 45, 0]]
    (_, past), = list(window_coverage(cov, win.assign(chromStart=50, chromEnd=60)))
    assert past[["sample_id", "chromStart", "chromEnd", "count"]].values.tolist() == [
        ["a", 50, 60, 0], ["b", 50, 60, 0]]
    with pytest.raises(ValueError, match="does not cover all of the joint window"):
        list(window_coverage(cov[cov["sample_id"] == "b"], win.assign(chromEnd=45),
                             gaps="error"))


class _Fit:
    """A joint fit with the API of penlearn.joint_peak, from given numbers."""

    def __init__(self, loss, peaks, ups, samples):
        self.loss = pd.Series(loss)
        self.peak = pd.DataFrame(peaks, columns=["chromStart", "chromEnd"],
                                 index=range(1, len(loss)))
        self.up = pd.DataFrame([[s in u for s in samples] for u in ups], columns=samples)


def test_joint_error_functions_equal_peak_label_errors_of_each_model():
    rng = np.random.default_rng(3)
    samples = ["a", "b", "c"]
    fit = _Fit([0.0, -50.0, -70.0, -72.0], [(100, 200), (110, 190), (90, 210)],
               [(), ("b",), ("a", "b"), ("a", "b", "c")], samples)
    path = joint_path(fit)
    assert path["k"].tolist() == [3, 2, 1, 0]
    labels = []
    for s in samples:
        cuts = np.sort(rng.choice(np.arange(50, 260, 10), 6, replace=False))
        for lo, hi in zip(cuts[::2], cuts[1::2]):
            labels.append((s, "chr1", int(lo), int(hi),
                           str(rng.choice(["noPeaks", "peakStart", "peakEnd", "peaks"]))))
    lab = pd.DataFrame(labels, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                        "annotation"])
    ev = joint_error_functions(path, lab, sequence_id="w")
    assert ev["min_log_lambda"].iloc[-1] == -np.inf and ev["max_log_lambda"].iloc[0] == np.inf
    for row in ev.itertuples():
        model = joint_selected(path, (row.min_log_lambda + row.max_log_lambda) / 2
                               if np.isfinite(row.min_log_lambda + row.max_log_lambda)
                               else (row.max_log_lambda - 1 if np.isfinite(row.max_log_lambda)
                                     else row.min_log_lambda + 1))
        pk = pd.DataFrame([(s, "chr1", model["chromStart"], model["chromEnd"])
                           for s in model["up"]],
                          columns=["sample_id", "chrom", "chromStart", "chromEnd"])
        tot = peak_label_errors(pk, lab).label_errors
        assert row.peaks == model["k"]
        assert (row.fp, row.fn) == (int(tot["fp"].sum()), int(tot["fn"].sum()))
        assert (row.possible_fp, row.possible_fn) == (int(tot["possible_fp"].sum()),
                                                      int(tot["possible_fn"].sum()))


def test_joint_path_selects_minimum_of_loss_plus_penalty_times_k():
    fit = _Fit([0.0, -50.0, -70.0, -72.0], [(1, 2)] * 3, [(), ("a",), ("a", "b"),
                                                          ("a", "b", "c")], ["a", "b", "c"])
    path = joint_path(fit)
    for log_lam in np.linspace(-3, 5, 41):
        lam = np.exp(log_lam)
        best = int(np.argmin(fit.loss.to_numpy() + lam * np.arange(4)))
        assert int(joint_selected(path, log_lam)["k"]) == best


@pytest.mark.parametrize("seed", range(5))
def test_min_error_log_lambda_has_the_fewest_total_errors_of_a_fine_grid(seed):
    from penlearn.peaks.joint.pipeline import min_error_log_lambda
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(4):
        cuts = np.sort(rng.choice(np.arange(-20, 20), 3, replace=False)) / 2.0
        edges = np.r_[-np.inf, cuts, np.inf]
        for lo, hi in zip(edges[:-1], edges[1:]):
            rows.append((f"w{s}", lo, hi, int(rng.integers(0, 4))))
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                     "errors"])

    def total(v):
        return sum(g.loc[(g["min_log_lambda"] < v) & (v <= g["max_log_lambda"]),
                         "errors"].iloc[0] for _, g in ev.groupby("sequence_id"))
    grid = np.arange(-12, 12, 0.25) + 0.125  # the cuts are multiples of 0.5
    best = min(total(v) for v in grid)
    c = min_error_log_lambda(ev)
    assert total(c) == best
