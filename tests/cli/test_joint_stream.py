"""``penlearn joint`` of a folder of one-sample files, read a chromosome at a time
(``cli/_peaks_samples.py``, issue 55): the outputs of the samples' whole table at once
(:func:`~penlearn.peaks.joint.pipeline.joint_peaks` of ``read_coverage``), each window's
rows cut from one chromosome's rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.cli.joint import write_joint_outputs
from penlearn.cli.main import main
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.coverage import read_coverage
from penlearn.peaks.formats.peak_files import read_peak_files
from penlearn.peaks.joint.pipeline import joint_peaks, label_error_comparison

#: chromosome -> (length, planted peaks (start, samples up)); chr2 first in every file,
#: sample c has no row on chrX and covers less of chr1
CHROMS = {"chr2": (6_000, ((1_000, "ab"), (4_000, "abc"))),
          "chr1": (9_000, ((2_000, "c"), (6_000, "ab"), (7_500, "abc"))),
          "chrX": (4_000, ((2_000, "ab"),))}


def _sample(s: str, rng) -> pd.DataFrame:
    """Runs of 10 bases, Poisson counts around 2 (15 in its peaks of 300 bases), zero
    runs left out as ``bedtools genomecov -bg`` leaves them."""
    out = []
    for chrom, (size, planted) in CHROMS.items():
        if s == "c" and chrom == "chrX":
            continue
        size = size - 1_000 if s == "c" and chrom == "chr1" else size
        mean = np.full(size // 10, 2.0)
        for start, up in planted:
            if s in up:
                mean[start // 10:(start + 300) // 10] = 15.0
        count = rng.poisson(mean)
        starts = np.arange(0, size, 10)
        keep = count > 0
        out.append(pd.DataFrame({"chrom": chrom, "chromStart": starts[keep],
                                 "chromEnd": starts[keep] + 10, "count": count[keep]}))
    return pd.concat(out, ignore_index=True)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("joint-stream")
    rng = np.random.default_rng(55)
    (tmp / "cov").mkdir()
    (tmp / "peaks").mkdir()
    for s in "abc":
        _sample(s, rng).to_csv(tmp / "cov" / f"{s}.bedGraph", sep="\t", header=False,
                               index=False)
        rows = [f"{c}\t{a + 20}\t{a + 280}\n" for c, (_, planted) in CHROMS.items()
                for a, up in planted if s in up]
        (tmp / "peaks" / f"{s}.bed").write_text("".join(rows))
    (tmp / "labels.txt").write_text(
        "chr2:900-1400 peakStart a b\nchr1:5800-6400 peakStart a b\n"
        "chrX:1000-1500 noPeaks a b\n")
    return tmp


def _files(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(
        folder.rglob("*")) if p.is_file() and p.suffix in (".tsv", ".bed")}


@pytest.mark.parametrize("extra", [["--penalty", "50"], [], ["--labels", "labels.txt"]])
def test_folder_read_by_chromosome_equals_the_whole_table(inputs, tmp_path, monkeypatch,
                                                          extra):
    from penlearn.cli._peaks_samples import Spilled

    real, seen = Spilled.sample_table, []

    def spy(self, chrom, sample):  # every window's rows cut from one sample's chromosome
        got = real(self, chrom, sample)
        seen.append((sample, chrom, None if got is None else tuple(pd.unique(
            got["chrom"].astype(str))), None if got is None else tuple(pd.unique(
                got["sample_id"].astype(str)))))
        return got
    monkeypatch.setattr(Spilled, "sample_table", spy)
    extra = [str(inputs / a) if a.endswith(".txt") else a for a in extra]
    assert main(["joint", str(inputs / "cov"), "--peaks", str(inputs / "peaks"), "--out",
                 str(tmp_path / "new"), *extra, "--quiet"]) == 0
    # each sample's rows of each chromosome asked once (c has none on chrX)
    assert sorted(seen, key=str) == sorted(
        [(s, c, (c,), (s,)) for s in "abc" for c in ("chr1", "chr2", "chrX")
         if (s, c) != ("c", "chrX")] + [("c", "chrX", None, None)], key=str)
    peaks = read_peak_files(inputs / "peaks")
    options = {"penalty": 50.0} if "--penalty" in extra else {
        "labels": read_peak_labels(extra[1])} if extra else {}
    res = joint_peaks(read_coverage(inputs / "cov"), peaks, **options)
    (tmp_path / "old").mkdir()
    write_joint_outputs(res, tmp_path / "old", comparison=None if res.labels is None else
                        label_error_comparison(peaks, res.sample_peaks(), res.labels))
    old, new = _files(tmp_path / "old"), _files(tmp_path / "new")
    assert old.keys() == new.keys() and len(old) >= 8
    for name in old:
        assert new[name] == old[name], name
    if "--penalty" in extra:  # (the shipped penalty calls none of these small peaks)
        matrix = pd.read_csv(tmp_path / "new" / "peaks_matrix_sample.tsv", sep="\t")
        assert len(matrix) >= 4 and set(matrix["chrom"]) == {"chr1", "chr2", "chrX"}


def test_fits_are_kept_only_when_asked(inputs):
    """``keep_fits=False`` (the command's): no fit held, the rest the same."""
    cov, peaks = read_coverage(inputs / "cov"), read_peak_files(inputs / "peaks")
    kept = joint_peaks(cov, peaks, penalty=50.0)
    lean = joint_peaks(cov, peaks, penalty=50.0, keep_fits=False)
    assert lean.fits == {} and len(kept.fits) == len(kept.windows) >= 6
    pd.testing.assert_frame_equal(lean.calls, kept.calls)
    pd.testing.assert_frame_equal(lean.windows, kept.windows)
