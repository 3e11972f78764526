"""Two or more coverage files joined column by column (``concat_dropping``, issue 55:
the rows twice at once for one column only): the table ``pd.concat`` gives."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.cli._peaks_stream import sample_tables
from penlearn.peaks.formats.coverage import concat_dropping, read_coverage


def _tables():
    a = pd.DataFrame({"sample_id": pd.array(["a"] * 3, dtype=str),
                      "chrom": pd.array(["chr1", "chr1", "chr2"], dtype=str),
                      "chromStart": np.array([0, 5, 0]), "chromEnd": np.array([5, 9, 4]),
                      "count": np.array([1, 2, 3])})
    b = a.assign(sample_id=pd.array(["b"] * 3, dtype=str), count=np.array([4, 5, 6]))
    return a, b


def test_concat_dropping_equals_pd_concat():
    a, b = _tables()
    want = pd.concat([a, b], ignore_index=True)
    tables = [a, b]
    got = concat_dropping(tables)
    pd.testing.assert_frame_equal(got, want)
    assert tables == [] and list(a.columns) == []  # the sources' columns dropped


def test_concat_dropping_of_other_columns_is_pd_concat():
    a, b = _tables()
    b = b.assign(extra=1.5)  # a table's extra column: rows of the others get NaN
    want = pd.concat([a, b], ignore_index=True)
    pd.testing.assert_frame_equal(concat_dropping([a, b]), want)


def test_read_coverage_of_a_folder_and_its_samples(tmp_path):
    (tmp_path / "a.bedGraph").write_text("chr1\t0\t5\t1\nchr1\t5\t9\t2\nchr2\t0\t4\t3\n")
    (tmp_path / "b.bedGraph").write_text("chr1\t0\t5\t4\nchr2\t0\t4\t6\n")
    cov = read_coverage(tmp_path)
    assert cov["sample_id"].tolist() == ["a"] * 3 + ["b"] * 2
    assert cov["count"].tolist() == [1, 2, 3, 4, 6] and cov["count"].dtype == np.int64
    parts = sample_tables(cov, ["a", "b"])
    assert parts["b"]["count"].tolist() == [4, 6]
    mixed = cov.iloc[[0, 3, 1, 4, 2]].reset_index(drop=True)  # not together: copies
    parts = sample_tables(mixed, ["a", "b"])
    assert parts["a"]["count"].tolist() == [1, 2, 3] and parts["b"]["count"].tolist() == [4, 6]
