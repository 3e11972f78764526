"""A missing optional package is the user's setup, not a bug: one line, exit 1."""

from __future__ import annotations

import gzip
import sys

import pytest

from penlearn.cli import main


@pytest.mark.parametrize("module", ["pysam"])
def test_missing_optional_package_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys,
                                                         module):
    bam = tmp_path / "reads.bam"
    bam.write_bytes(gzip.compress(b"BAM\1" + b"\0" * 60))  # recognised by its first bytes
    monkeypatch.setitem(sys.modules, module, None)  # import of it raises ImportError
    code = main(["peaks", str(bam), "--penalty", "10", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1, err
    assert err[-1].startswith("penlearn peaks: error: ")
    assert f"optional package {module}: pip install 'penlearn[bam]'" in err[-1]
    assert "internal error" not in "\n".join(err)
