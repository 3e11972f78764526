"""Empty inputs are named as empty by every command: a coverage file with a header and
no rows (``hub``, ``peaks``, ``joint``: "coverage FILE has no rows", not "one sample
only" nor a complaint about the peaks), a labels file without labels (``errors``, ``hub
--labels``: "labels file FILE has no labels", not exit 0 with a bare header)."""

from __future__ import annotations

import pytest
from conftest import one_line_exit

from penlearn.cli.main import main
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.coverage import read_coverage

HEADER = "sample_id,chrom,chromStart,chromEnd,count\n"


@pytest.fixture
def files(tmp_path):
    cov = tmp_path / "cov"
    cov.mkdir()
    for s, k in (("a", 1), ("b", 2)):
        (cov / f"{s}.bedGraph").write_text("".join(
            f"chr1\t{10 * i}\t{10 * i + 10}\t{9 * k if 5 <= i < 9 else k}\n" for i in range(20)))
    peaks = tmp_path / "peaks.bed"
    peaks.write_text("chr1\t50\t90\n")
    return tmp_path, cov, peaks


@pytest.mark.parametrize("text", [HEADER, HEADER + "\n\n", HEADER.replace(",", "\t")])
def test_header_only_coverage_is_named_by_every_command(files, capsys, text):
    tmp, cov, peaks = files
    empty = tmp / "coverage.csv"
    empty.write_text(text)
    with pytest.raises(ValueError, match=f"coverage {empty} has no rows"):
        read_coverage(empty)
    argvs = [["peaks", empty, "--penalty", "1", "--out", tmp / "o.bed"],
             ["joint", empty, "--peaks", peaks, "--penalty", "1", "--out", tmp / "j"]]
    if __import__("importlib.util").util.find_spec("pybigtools"):
        argvs.append(["hub", empty, peaks, "--genome", "hg19", "--out", tmp / "hub"])
    for argv in argvs:
        code = main([str(a) for a in argv] + ["-q"])
        one_line_exit(capsys, code, str(empty), "has no rows")


def test_one_empty_sample_in_a_folder_is_named_not_dropped(files, capsys):
    tmp, cov, _ = files
    (cov / "coverage.csv").write_text(HEADER)  # the folder's table of more samples
    with pytest.raises(ValueError, match="coverage.csv has no rows"):
        read_coverage(cov)
    code = main(["peaks", str(cov), "--penalty", "1", "--out", str(tmp / "o"), "-q"])
    one_line_exit(capsys, code, "coverage.csv", "has no rows")
    assert not (tmp / "o").exists()


@pytest.mark.parametrize("text", ["", "\n\n", "# a comment only\n",
                                  "chrom,chromStart,chromEnd,annotation\n",
                                  "chrom\tchromStart\tchromEnd\tannotation\n\n",
                                  "track name=labels\n"])
def test_a_labels_file_without_labels_is_refused(files, capsys, text):
    tmp, cov, peaks = files
    lab = tmp / "labels.txt"
    lab.write_text(text)
    with pytest.raises(ValueError, match=f"labels file {lab} has no labels"):
        read_peak_labels(lab)
    code = main(["errors", str(peaks), str(lab), "-q"])
    one_line_exit(capsys, code, f"labels file {lab} has no labels")
    code = main(["errors", str(peaks), str(lab), "--out", str(tmp / "e.csv"), "-q"])
    one_line_exit(capsys, code, f"labels file {lab} has no labels")
    assert not (tmp / "e.csv").exists()
