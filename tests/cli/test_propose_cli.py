"""``penlearn propose`` (issue 44): a BED file of the windows worth labeling, best first,
each with its reason, never a window holding a label."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.cli.main import main
from penlearn.peaks.propose import coverage_sequences


def _coverage() -> pd.DataFrame:
    """2 samples × 3 chromosomes of 80 rows, a few peaks each (one window each)."""
    rng = np.random.default_rng(1)
    rows = []
    for s in ("s1", "s2"):
        for c in ("chr1", "chr2", "chr3"):
            mean = np.full(80, 2.0)
            for p in rng.choice(70, 2, replace=False):
                mean[p:p + 5] = 30.0
            rows.append(pd.DataFrame({"sample_id": s, "chrom": c,
                                      "chromStart": np.arange(80) * 100,
                                      "chromEnd": np.arange(1, 81) * 100,
                                      "count": rng.poisson(mean)}))
    return pd.concat(rows, ignore_index=True)


def _bed(path):
    lines = path.read_text().splitlines()
    reasons = [ln for ln in lines if ln.startswith("# ")]
    windows = [ln.split("\t") for ln in lines if not ln.startswith("#")]
    return reasons, windows


def test_propose_writes_windows_with_reasons_never_a_labeled_one(tmp_path, capsys):
    cov = _coverage()
    cov.to_csv(tmp_path / "cov.csv", index=False)
    pd.DataFrame({"sample_id": ["s1"], "chrom": ["chr2"], "chromStart": [1000],
                  "chromEnd": [3000], "annotation": ["peaks"]}).to_csv(
        tmp_path / "labels.csv", index=False)
    out = tmp_path / "windows.bed"
    assert main(["propose", str(tmp_path / "cov.csv"), "--n", "3", "--labels",
                 str(tmp_path / "labels.csv"), "--out", str(out), "-q"]) == 0
    assert "wrote 3 window(s) worth labeling" in capsys.readouterr().out
    reasons, windows = _bed(out)
    assert len(reasons) == len(windows) == 3
    assert [r.split(":")[0] for r in reasons] == ["# 1", "# 2", "# 3"]
    assert all("model change" in r for r in reasons)
    cut = coverage_sequences(cov)
    known = {(r.sample_id, r.chrom, r.chromStart, r.chromEnd) for r in cut.itertuples()}
    for i, (chrom, start, end, name, _score) in enumerate(windows, start=1):
        sample, rank = name.split(":")
        assert (sample, chrom, int(start), int(end)) in known  # the labeling page's
        assert rank == str(i)
        assert (sample, chrom) != ("s1", "chr2")  # the labeled window
    assert [int(w[4]) for w in windows] == [1000, 500, 1]
    # all but the labeled window, once each
    assert main(["propose", str(tmp_path / "cov.csv"), "--n", "10", "--labels",
                 str(tmp_path / "labels.csv"), "--out", str(out), "--force", "-q"]) == 0
    _, windows = _bed(out)
    names = {(w[3].split(":")[0], w[0]) for w in windows}
    assert len(windows) == len(names) == 5 and ("s1", "chr2") not in names


def test_propose_refuses_to_replace_an_output_and_bad_n(tmp_path, capsys):
    _coverage().to_csv(tmp_path / "cov.csv", index=False)
    out = tmp_path / "w.bed"
    out.write_text("keep")
    assert main(["propose", str(tmp_path / "cov.csv"), "--out", str(out), "-q"]) == 1
    assert "error:" in capsys.readouterr().err and out.read_text() == "keep"
    assert main(["propose", str(tmp_path / "cov.csv"), "--n", "0", "--out",
                 str(tmp_path / "x.bed"), "-q"]) == 1
    assert "--n must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "x.bed").exists()


def test_propose_refuses_a_label_outside_the_coverage(tmp_path, capsys):
    _coverage().to_csv(tmp_path / "cov.csv", index=False)
    pd.DataFrame({"chrom": ["chr9"], "chromStart": [10], "chromEnd": [20],
                  "annotation": ["noPeaks"]}).to_csv(tmp_path / "labels.csv", index=False)
    assert main(["propose", str(tmp_path / "cov.csv"), "--labels",
                 str(tmp_path / "labels.csv"), "--out", str(tmp_path / "w.bed"), "-q"]) == 1
    assert "label chr9:10-20 lies in no window of the coverage" in capsys.readouterr().err
    assert not (tmp_path / "w.bed").exists()
