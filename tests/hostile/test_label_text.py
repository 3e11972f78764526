"""The labels text format of genome-browser users: every error names the file and the
1-based line of the file (comments and blank lines counted), whichever command reads it
and however late the problem is found (a group that is no sample's, read by ``errors``
or by ``read_peak_labels(samples=...)``), never "label row 1"."""

from __future__ import annotations

import pytest
from conftest import one_line_exit

from penlearn.cli.errors import labels_for_samples
from penlearn.cli.main import main
from penlearn.peaks.formats._label_text import expand_groups
from penlearn.peaks.formats.bed import read_peak_labels

TEXT = ("# labels of two windows\n"
        "chr1:1-100 noPeaks\n"
        "chr1:201-300 peakStart kidney\n"
        "\n"
        "chr1:1,001-2,000 peaks {word}\n")


@pytest.mark.parametrize("word", ["kidnye", "Kidney", "bcell/x", "%"])
def test_an_unknown_group_names_file_and_line(tmp_path, capsys, word):
    lab = tmp_path / "labels.txt"
    lab.write_text(TEXT.format(word=word))
    where = f"{lab}, line 5: {word!r} is no sample id or group"
    with pytest.raises(ValueError, match=f"line 5: {word!r}"):
        read_peak_labels(lab, samples={"A": "kidney", "B": "bcell"})
    table = read_peak_labels(lab)
    with pytest.raises(ValueError) as err:
        labels_for_samples(table, ["kidney/A", "bcell/B"])
    assert where in str(err.value)
    kept = table[table["annotation"] != "noPeaks"]  # a filtered table still knows its lines
    with pytest.raises(ValueError, match=f"{lab}, line 5"):
        expand_groups(kept, {"A": "kidney"})
    peaks = tmp_path / "samples"
    (peaks / "kidney").mkdir(parents=True)
    (peaks / "kidney" / "A.bed").write_text("chr1\t210\t280\n")
    code = main(["errors", str(peaks / "kidney" / "A.bed"), str(lab), "--sample", "kidney/A",
                 "-q"])
    one_line_exit(capsys, code, where)


@pytest.mark.parametrize("line, needle", [
    ("chr1:1-100", "expected 'chrom:start-end annotation"),
    ("chr1:100-1 noPeaks", "chromStart"),
    ("chr1:1-100 maybe", "annotation"),
    ("chr1:1,00-200 noPeaks", "expected 'chrom:start-end annotation"),
    ("chr1:1-99999999999999999999 noPeaks", "64-bit"),
    ("chr1:50-150 noPeaks", "overlap"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, needle):
    lab = tmp_path / "labels.txt"
    lab.write_text(TEXT.format(word="kidney") + "\n\n" + line + "\n")
    with pytest.raises(ValueError) as err:
        read_peak_labels(lab)
    msg = str(err.value)
    assert f"{lab}, line 8" in msg and needle in msg, msg


def test_a_table_built_in_memory_counts_rows_from_one():
    import pandas as pd

    t = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [0, 10], "chromEnd": [5, 20],
                      "annotation": ["peaks", "peaks"], "groups": ["", "nobody"],
                      "window": [0, 0]})
    with pytest.raises(ValueError, match=r"^label 2: 'nobody'"):
        expand_groups(t, {"A": "kidney"})
