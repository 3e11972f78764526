"""peak_label_errors: PeakError reference cases, Mono27ac at every penalty, brute force."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, need
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn.peaks.formats.regions import PEAK_ANNOTATIONS, check_peak_labels
from penlearn.peaks.peakseg.labels import peak_label_errors

PEAKERROR = REFERENCE / "peakseg" / "peakerror"
MONO = REFERENCE / "peakseg" / "mono27ac"
COUNT_COLUMNS = ["tp", "possible_tp", "fp", "possible_fp", "fn"]


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({k: list(v) for k, v in columns.items()})


def _bed(path, names) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", header=None, names=names,
                       dtype={"chrom": str, "annotation": str})


def test_peakerror_example_data():
    labels = _bed(need(DATA / "chipseq_raw" / "PeakError_exampleData" / "labels.bed"),
                  ["chrom", "chromStart", "chromEnd", "annotation"])
    peaks = _bed(DATA / "chipseq_raw" / "PeakError_exampleData" / "peaks.bed",
                 ["chrom", "chromStart", "chromEnd"])
    expected = pd.read_csv(need(PEAKERROR / "exampleData_errors.csv"))
    res = peak_label_errors(peaks, labels)
    got = res.label_errors
    for col in ("chrom", "annotation", "status"):
        assert got[col].tolist() == expected[col].tolist()
    for ours, theirs in [("tp", "tp"), ("possible_tp", "possible.tp"), ("fp", "fp"),
                         ("possible_fp", "possible.fp"), ("fn", "fn")]:
        assert got[ours].tolist() == expected[theirs].tolist(), ours
    summary = json.loads(need(PEAKERROR / "exampleData_summary.json").read_text())
    tot = res.totals.iloc[0]
    assert (tot["labels"], tot["errors"]) == (summary["labels"], summary["errors"]) == (20, 11)
    assert (tot["fp"], tot["possible_fp"]) == (summary["fp"], summary["possible_fp"]) == (7, 15)
    assert (tot["fn"], tot["possible_fn"]) == (summary["fn"], summary["possible_fn"]) == (4, 15)


def _unit_cases():
    path = PEAKERROR / "unit_cases.json"
    if not path.exists():
        return [pytest.param(None, id="missing")]
    cases = json.loads(path.read_text())["cases"]
    return [pytest.param(c, id=f"{i}-{c['group']}") for i, c in enumerate(cases)]


@pytest.mark.parametrize("case", _unit_cases())
@pytest.mark.parametrize("offset", [0, 249_250_000])
def test_peakerror_unit_cases(case, offset):
    if case is None:
        need(PEAKERROR / "unit_cases.json")
    regions = _frame(case["regions"])
    peaks = _frame(case["peaks"])
    if offset and not case["same_with_offset_249250000"]:
        pytest.skip("the reference differs with this offset")
    for df in (regions, peaks):
        for col in ("chromStart", "chromEnd"):
            df[col] = df[col].astype(np.int64) + offset
    got = peak_label_errors(peaks, regions).label_errors
    out = case["output_offset0"]
    assert got["tp"].tolist() == case["expected_tp"] == out["tp"]
    assert got["fp"].tolist() == case["expected_fp"] == out["fp"]
    assert got["possible_tp"].tolist() == out["possible.tp"]
    assert got["possible_fp"].tolist() == out["possible.fp"]
    assert got["fn"].tolist() == out["fn"]
    assert got["status"].tolist() == out["status"]
    assert got["chrom"].tolist() == out["chrom"]


def test_peakerror_error_cases():
    cases = json.loads(need(PEAKERROR / "unit_cases.json").read_text())["error_cases"]
    expected_fragment = {
        "unknown annotation": "annotations must be one of: noPeaks, peakStart, peakEnd, peaks",
        "overlapping regions": "overlapping labels",
        "overlapping peaks": "overlapping peaks",
    }
    assert {c["case"] for c in cases} == set(expected_fragment)
    for case in cases:
        peaks = _frame(case["peaks"]).astype({"chromStart": np.int64, "chromEnd": np.int64})
        with pytest.raises(ValueError, match=expected_fragment[case["case"]]):
            peak_label_errors(peaks, _frame(case["regions"]))


def _mono_labels():
    return pd.read_csv(need(DATA / "chipseq_raw" / "Mono27ac" / "labels.csv"))


@pytest.mark.parametrize("kind", ["fpop", "pdpa"])
def test_mono27ac_every_model(kind):
    """Mono27ac: the peaks of every FPOP penalty / PDPA peak count against PeakError."""
    labels = _mono_labels()
    if kind == "fpop":
        segs = pd.read_csv(need(MONO / "fpop_segments.csv"))
        key = "penalty"
        per_label = pd.read_csv(need(MONO / "fpop_label_errors.csv"))
        summary = pd.read_csv(need(MONO / "fpop_error_summary.csv"))
    else:
        segs = pd.read_csv(need(MONO / "pdpa_segments.csv")).assign(chrom="chr11")
        key = "peaks"
        per_label = pd.read_csv(need(MONO / "pdpa_label_errors.csv"))
        summary = pd.read_csv(need(MONO / "pdpa_loss_errors.csv"))
    assert len(summary) >= 6
    for value, row in summary.set_index(key).iterrows():
        peaks = segs[(segs[key] == value) & (segs["status"] == "peak")]
        res = peak_label_errors(peaks[["chrom", "chromStart", "chromEnd"]], labels)
        exp = per_label[per_label[key] == value]
        got = res.label_errors
        assert got["chromStart"].tolist() == exp["chromStart"].tolist()
        for ours, theirs in zip(COUNT_COLUMNS, ["tp", "possible.tp", "fp", "possible.fp", "fn"]):
            assert got[ours].tolist() == exp[theirs].tolist(), (value, ours)
        assert got["status"].tolist() == exp["status"].tolist()
        tot = res.totals.iloc[0]
        for col in ("labels", "fp", "fn", "errors"):
            assert tot[col] == row[col], (value, col)
        assert tot["possible_fp"] == row["possible.fp"]
        assert tot["possible_fn"] == row["possible.fn"]


def test_mono27ac_sequential_search_19_peaks():
    segs = pd.read_csv(need(MONO / "sequentialSearch_19peaks_segments.csv"))
    exp = pd.read_csv(need(MONO / "sequentialSearch_19peaks_label_errors.csv"))
    peaks = segs[segs["status"] == "peak"]
    assert len(peaks) == 19
    got = peak_label_errors(peaks, _mono_labels()).label_errors
    assert got["status"].tolist() == exp["status"].tolist() == ["correct"] * 6


# ---- brute force: the rules applied base by base --------------------------------------


def _brute_force(peaks, labels):
    """Per label, the PeakError rules on explicit sets of bases (s+1..e)."""
    rows = []
    for lab in labels:
        chrom, a, b, ann = lab
        bases = set(range(a + 1, b + 1))
        mine = [(s, e) for (c, s, e) in peaks if c == chrom]
        overlap = sum(bool(bases & set(range(s + 1, e + 1))) for s, e in mine)
        starts = sum((s + 1) in bases for s, e in mine)
        ends = sum(e in bases for s, e in mine)
        if ann == "noPeaks":
            tp, ptp, fp, pfp = 0, 0, int(overlap > 0), 1
        elif ann == "peaks":
            tp, ptp, fp, pfp = int(overlap > 0), 1, 0, 0
        else:
            n = starts if ann == "peakStart" else ends
            tp, ptp, fp, pfp = int(n >= 1), 1, int(n >= 2), 1
        rows.append((tp, ptp, fp, pfp, ptp - tp))
    return rows


@st.composite
def _tiling(draw, kind):
    """Non-overlapping intervals on [0, 40) of two chromosomes (touching allowed)."""
    out = []
    for chrom in ("chr1", "chr2"):
        cuts = sorted(draw(st.sets(st.integers(0, 40), max_size=12)))
        keep = draw(st.lists(st.booleans(), min_size=len(cuts), max_size=len(cuts)))
        for s, e, k in zip(cuts[:-1], cuts[1:], keep):
            if k:
                item = (chrom, s, e)
                if kind == "labels":
                    item += (draw(st.sampled_from(PEAK_ANNOTATIONS)),)
                out.append(item)
    return out


@settings(max_examples=300, deadline=None)
@given(peaks=_tiling("peaks"), labels=_tiling("labels"))
def test_matches_brute_force(peaks, labels):
    lab = pd.DataFrame(labels, columns=["chrom", "chromStart", "chromEnd", "annotation"])
    pk = pd.DataFrame(peaks, columns=["chrom", "chromStart", "chromEnd"])
    # shuffle the peaks: the function must not rely on input order
    pk = pk.sample(frac=1.0, random_state=len(peaks))
    got = peak_label_errors(pk, lab).label_errors
    want = _brute_force(peaks, labels)
    assert [tuple(r) for r in got[COUNT_COLUMNS].to_numpy().tolist()] == want
    status = ["false positive" if fp else "false negative" if fn else "correct"
              for (_, _, fp, _, fn) in want]
    assert got["status"].tolist() == status


# ---- samples, validation --------------------------------------------------------------


def test_per_sample_matching_and_string_ids():
    labels = pd.DataFrame({"sample_id": ["0001", "0002", "0002"], "chrom": "chr1",
                           "chromStart": [10, 10, 30], "chromEnd": [20, 20, 40],
                           "annotation": ["peaks", "peaks", "noPeaks"]})
    peaks = pd.DataFrame({"sample_id": ["0001", "9"], "chrom": "chr1",
                          "chromStart": [12, 32], "chromEnd": [18, 35]})
    res = peak_label_errors(peaks, labels)
    assert res.label_errors["status"].tolist() == ["correct", "false negative", "correct"]
    assert res.label_errors["sample_id"].tolist() == ["0001", "0002", "0002"]
    tot = res.totals.set_index("sample_id")
    assert tot.loc["0001", "errors"] == 0 and tot.loc["0002", "errors"] == 1
    assert tot.loc["0002", "labels"] == 2 and tot.loc["0002", "possible_fp"] == 1
    # the same peaks without sample ids: an error naming the mismatch
    with pytest.raises(ValueError, match="labels have a sample_id column but peaks do not"):
        peak_label_errors(peaks.drop(columns="sample_id"), labels)


def test_overlapping_labels_of_different_samples_are_fine():
    labels = pd.DataFrame({"sample_id": ["a", "b"], "chrom": "chr1", "chromStart": [0, 5],
                           "chromEnd": [10, 15], "annotation": ["peaks", "noPeaks"]})
    peaks = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [6],
                          "chromEnd": [8]})
    got = peak_label_errors(peaks, labels).label_errors
    assert got["status"].tolist() == ["correct", "correct"]
    with pytest.raises(ValueError, match="overlapping labels of sample 'a'"):
        check_peak_labels(labels.assign(sample_id="a"))


@pytest.mark.parametrize(
    "change, error, match",
    [
        ({"chromStart": [20]}, ValueError, r"labels row 0: chromStart must be < chromEnd"),
        ({"chromEnd": [-1]}, ValueError, r"'chromEnd' must hold non-negative integers"),
        ({"chromStart": [1.5]}, ValueError, r"'chromStart' must hold non-negative integers"),
        ({"chromStart": ["x"]}, TypeError, r"'chromStart' must hold integers; labels row 0"),
        ({"annotation": ["peak"]}, ValueError, r"unknown annotation 'peak'"),
    ],
)
def test_bad_labels(change, error, match):
    labels = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20],
                           "annotation": ["peaks"]})
    for k, v in change.items():
        labels[k] = v
    with pytest.raises(error, match=match):
        peak_label_errors(pd.DataFrame({"chrom": [], "chromStart": [], "chromEnd": []}),
                          labels)


def test_missing_columns():
    labels = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20]})
    with pytest.raises(ValueError, match=r"labels is missing column\(s\) \['annotation'\]"):
        peak_label_errors(pd.DataFrame(columns=["chrom", "chromStart", "chromEnd"]), labels)
    with pytest.raises(TypeError, match="peaks must be a pandas DataFrame"):
        peak_label_errors([(1, 2)], labels.assign(annotation="peaks"))
