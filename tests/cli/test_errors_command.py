"""``penlearn errors PEAKS LABELS``: the label errors of any caller's peak files
equal ``peak_label_errors`` on the same tables, per label, per sample and in total."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, REFERENCE, need

import penlearn as pl
from penlearn.cli.main import main

ANNOTATIONS = ["noPeaks", "peakStart", "peakEnd", "peaks"]


def test_peakerror_example_equals_the_r_reference(tmp_path, capsys):
    raw = DATA / "chipseq_raw" / "PeakError_exampleData"
    ref = REFERENCE / "peakseg" / "peakerror"
    code, out, _ = _run(["errors", need(raw / "peaks.bed"), need(raw / "labels.bed"),
                         "--out", tmp_path / "e.csv"], capsys)
    assert code == 0
    got = pd.read_csv(tmp_path / "e.csv")
    want = pd.read_csv(need(ref / "exampleData_errors.csv"))
    for ours, theirs in [("chromStart", "chromStart"), ("annotation", "annotation"),
                         ("status", "status"), ("fp", "fp"), ("fn", "fn"),
                         ("possible_fp", "possible.fp"), ("possible_fn", "possible.tp")]:
        assert got[ours].tolist() == want[theirs].tolist(), ours
    tot = pd.read_csv(io.StringIO(out)).iloc[0]
    assert [tot[c] for c in ("labels", "fp", "possible_fp", "fn", "possible_fn", "errors")] \
        == [20, 7, 15, 4, 15, 11]


def _random_peaks(rng, n=40) -> pd.DataFrame:
    cuts = np.sort(rng.choice(np.arange(1, 20_000), 2 * n, replace=False))
    chrom = np.where(np.arange(n) < n // 2, "chr1", "chr2")
    return pd.DataFrame({"chrom": chrom, "chromStart": cuts[::2], "chromEnd": cuts[1::2]})


def _random_labels(rng, n=30) -> pd.DataFrame:
    cuts = np.sort(rng.choice(np.arange(1, 20_000), 2 * n, replace=False))
    return pd.DataFrame({"chrom": np.where(np.arange(n) % 2, "chr1", "chr2"),
                         "chromStart": cuts[::2], "chromEnd": cuts[1::2],
                         "annotation": rng.choice(ANNOTATIONS, n)})


def _narrowpeak(df: pd.DataFrame, path) -> None:
    t = df.assign(name=[f"p{i}" for i in range(len(df))], score=0, strand=".",
                  signalValue=1.5, pValue=-1, qValue=-1, peak=-1)
    t.to_csv(path, sep="\t", header=False, index=False)


def _run(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_folder_of_samples_equals_peak_label_errors(tmp_path, capsys):
    rng = np.random.default_rng(31)
    ids = ["s1", "group/s2", "s3"]
    peaks = {s: _random_peaks(rng) for s in ids}
    d = tmp_path / "peaks"
    d.mkdir()
    for s, p in peaks.items():  # the names penlearn peaks writes: '/' percent-encoded
        _narrowpeak(p, d / (s.replace("/", "%2F") + ".narrowPeak"))
    labels = pd.concat([_random_labels(rng).assign(sample_id=s) for s in ids[:2]],
                       ignore_index=True)
    labels.to_csv(tmp_path / "labels.csv", index=False)
    code, out, _ = _run(["errors", d, tmp_path / "labels.csv", "--out",
                         tmp_path / "e.csv"], capsys)
    assert code == 0
    all_peaks = pd.concat([p.assign(sample_id=s) for s, p in peaks.items()],
                          ignore_index=True)
    want = pl.peak_label_errors(all_peaks, labels)
    got = pd.read_csv(tmp_path / "e.csv", dtype={"sample_id": str})
    cols = ["sample_id", "chrom", "chromStart", "chromEnd", "annotation", "fp", "fn",
            "possible_fp", "possible_fn", "status"]
    pd.testing.assert_frame_equal(got[cols], want.label_errors[cols].astype({"chrom": object}),
                                  check_dtype=False)
    assert want.totals["errors"].sum() > 0 and (want.label_errors["status"] == "correct").any()
    totals = pd.read_csv(io.StringIO(out), dtype={"sample_id": str})
    assert totals["sample_id"].tolist() == ["s1", "group/s2", "(all samples)"]
    num = ["labels", "possible_fp", "fp", "possible_fn", "fn", "errors"]
    assert totals[num].iloc[:2].values.tolist() == want.totals[num].values.tolist()
    assert totals[num].iloc[2].tolist() == want.totals[num].sum().tolist()


def test_a_single_file_by_hand_and_with_sample(tmp_path, capsys):
    peaks = tmp_path / "macs3_peaks.narrowPeak"
    _narrowpeak(pd.DataFrame({"chrom": "chr1", "chromStart": [15, 100, 300],
                              "chromEnd": [35, 120, 310]}), peaks)
    lab = pd.DataFrame({"chrom": "chr1", "chromStart": [10, 30, 90, 200],
                        "chromEnd": [20, 40, 130, 250],
                        "annotation": ["noPeaks", "peakEnd", "peaks", "peakStart"]})
    lab.to_csv(tmp_path / "labels.csv", index=False)
    code, out, _ = _run(["errors", peaks, tmp_path / "labels.csv", "--out",
                         tmp_path / "e.csv"], capsys)
    assert code == 0
    # noPeaks with a peak: FP; one peak end in (30, 40]: correct; a peak: correct;
    # no peak start in (200, 250]: FN
    assert pd.read_csv(tmp_path / "e.csv")["status"].tolist() == \
        ["false positive", "correct", "correct", "false negative"]
    assert pd.read_csv(io.StringIO(out)).iloc[0][["fp", "fn", "errors"]].tolist() == [1, 1, 2]
    # labels of several samples: --sample picks one; without it, an error
    both = pd.concat([lab.assign(sample_id="A"),
                      lab.assign(sample_id="B", annotation="noPeaks")])
    both.to_csv(tmp_path / "both.csv", index=False)
    code, _, err = _run(["errors", peaks, tmp_path / "both.csv"], capsys)
    assert code == 1 and "--sample" in err
    code, out, _ = _run(["errors", peaks, tmp_path / "both.csv", "--sample", "B"], capsys)
    assert code == 0
    # all noPeaks for B: three of the four labels hold a peak
    assert pd.read_csv(io.StringIO(out)).iloc[0][["fp", "fn"]].tolist() == [3, 0]


def test_genome_browser_labels_with_groups(tmp_path, capsys):
    d = tmp_path / "peaks"
    d.mkdir()
    pd.DataFrame({"chrom": ["chr1"], "chromStart": [1500], "chromEnd": [1600]}).to_csv(
        d / "kidney%2FA.bed", sep="\t", header=False, index=False)
    (d / "bcell%2FB.bed").write_text("")
    txt = tmp_path / "labels.txt"
    txt.write_text("chr1:1,001-2,000 peaks kidney\nchr1:3,001-4,000 noPeaks\n")
    code, out, _ = _run(["errors", d, txt, "--out", tmp_path / "e.csv"], capsys)
    assert code == 0
    want = pl.peak_label_errors(
        pd.DataFrame({"sample_id": ["kidney/A"], "chrom": ["chr1"], "chromStart": [1500],
                      "chromEnd": [1600]}),
        pl.read_peak_labels(txt, samples={"bcell/B": "bcell", "kidney/A": "kidney"}))
    got = pd.read_csv(tmp_path / "e.csv")
    assert got[["sample_id", "annotation", "status"]].values.tolist() == \
        want.label_errors[["sample_id", "annotation", "status"]].values.tolist()
    assert got["annotation"].tolist() == ["noPeaks", "noPeaks", "peaks", "noPeaks"]
    assert int(pd.read_csv(io.StringIO(out))["errors"].iloc[-1]) == 0


def test_overlapping_peaks_are_refused_or_merged(tmp_path, capsys):
    peaks = tmp_path / "summits.bed"
    peaks.write_text("chr1\t10\t50\nchr1\t10\t50\nchr1\t40\t80\nchr1\t80\t90\n")
    lab = tmp_path / "labels.csv"
    lab.write_text("chrom,chromStart,chromEnd,annotation\nchr1,0,60,peakStart\n"
                   "chr1,70,100,peakEnd\n")
    code, _, err = _run(["errors", peaks, lab], capsys)
    assert code == 1 and "--merge" in err
    code, out, err = _run(["errors", peaks, lab, "--merge"], capsys)
    assert code == 0 and "2 overlapping peak rows merged" in err
    # the union: [10, 80) and [80, 90): one start in (0, 60], two ends in (70, 100]
    want = pl.peak_label_errors(pd.DataFrame({"chrom": "chr1", "chromStart": [10, 80],
                                              "chromEnd": [80, 90]}), pl.read_peak_labels(lab))
    assert pd.read_csv(io.StringIO(out))[["fp", "fn"]].values.tolist() == \
        want.totals[["fp", "fn"]].values.tolist() == [[1, 0]]


def test_labels_of_a_sample_without_a_peak_file_are_an_error(tmp_path, capsys):
    d = tmp_path / "peaks"
    d.mkdir()
    (d / "s1.bed").write_text("chr1\t10\t20\n")
    lab = tmp_path / "labels.csv"
    lab.write_text("sample_id,chrom,chromStart,chromEnd,annotation\ns2,chr1,0,60,peaks\n")
    code, _, err = _run(["errors", d, lab], capsys)
    assert code == 1 and "'s2'" in err


@pytest.mark.parametrize("argv", [["--sample", "x"]])
def test_sample_with_a_folder_is_refused(tmp_path, capsys, argv):
    d = tmp_path / "peaks"
    d.mkdir()
    (d / "s1.bed").write_text("chr1\t10\t20\n")
    lab = tmp_path / "labels.csv"
    lab.write_text("chrom,chromStart,chromEnd,annotation\nchr1,0,60,peaks\n")
    code, _, err = _run(["errors", d, lab, *argv], capsys)
    assert code == 1 and "--sample" in err
