"""``penlearn report FOLDER --model M`` on coverage + peak labels: it reads the
model paths ``penlearn learn`` cached instead of computing them again, takes ``--jobs``,
and says what it evaluates on (training sequences without ``--fold``)."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd

import penlearn.datasets.peaks as dpeaks
from penlearn.cli import main


def _folder(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    rng = np.random.default_rng(5)
    start = np.arange(300) * 10
    for k in range(6):
        peak = np.where((start >= 1000) & (start < 1300), 10 + 3 * k, 2)
        pd.DataFrame({"chrom": "chr1", "chromStart": start, "chromEnd": start + 10,
                      "count": rng.poisson(peak)}).to_csv(
            folder / f"s{k}.bedGraph", sep="\t", header=False, index=False)
    pd.DataFrame({"chrom": "chr1", "chromStart": [900, 1250, 2000],
                  "chromEnd": [1050, 1400, 2600],
                  "annotation": ["peakStart", "peakEnd", "noPeaks"]}).to_csv(
        folder / "labels.csv", index=False)
    return folder


def _main(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_report_reads_learns_cache_takes_jobs_and_says_training(tmp_path, monkeypatch):
    folder, cache = _folder(tmp_path), tmp_path / "cache"
    model = tmp_path / "m.json"
    code, _, err = _main("learn", folder, "--out", model, "--cache-dir", cache,
                         "--max-steps", 5, "-q")
    assert code == 0, err
    assert len(list(cache.glob("peaks-*.csv.gz"))) == 1

    def refuse(*a, **k):
        raise AssertionError("model paths computed again")

    monkeypatch.setattr(dpeaks, "peak_error_functions", refuse)
    code, out, err = _main("report", folder, "--model", model, "--out", tmp_path / "r.html",
                           "--cache-dir", cache, "--jobs", 2, "-q")
    assert code == 0, err
    assert "evaluated on all 6 labeled sequences of data" in out and "training" in out
    html = (tmp_path / "r.html").read_text()
    assert "training errors (optimistic)" in html
    code, out, err = _main("report", folder, "--model", model, "--out", tmp_path / "f.html",
                           "--cache-dir", cache, "--fold", 1, "-q")
    assert code == 0 and "sequences of test fold 1 (cv/random)" in out, err
    # the cache is what made it fast: without it the paths are computed (here: refused)
    code, _, err = _main("report", folder, "--model", model, "--out", tmp_path / "n.html",
                         "--no-cache", "-q")
    assert code != 0 and "computed again" in err
