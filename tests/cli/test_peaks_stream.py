"""``penlearn peaks`` one chromosome at a time (``cli/_peaks_stream.py``): the files of
the whole-coverage tables at once (the pipeline before streaming, rebuilt here from the
library's functions)."""

from __future__ import annotations

import functools
import shlex

import numpy as np
import pandas as pd
import pytest

from penlearn.cli._common import _Reporter
from penlearn.cli._peaks_stream import predict_by_chromosome, sample_tables
from penlearn.cli.main import build_parser, main
from penlearn.cli.peaks import _log_lambda, _write_sample, broad_finer
from penlearn.peaks.formats.coverage import read_coverage
from penlearn.peaks.peakseg.broad import predict_broad
from penlearn.peaks.peakseg.evaluation import predict_peaks


def _coverage(seed: int, sizes: dict) -> pd.DataFrame:
    """Runs of 20-200 bases, Poisson counts around 2, a few 8× peaks; zero runs left
    out (as ``bedtools genomecov -bg``)."""
    rng = np.random.default_rng(seed)
    out = []
    for chrom, size in sizes.items():
        ends = np.cumsum(rng.integers(20, 200, size // 60))
        ends = ends[ends < size]
        starts = np.r_[0, ends[:-1]]
        mean = np.full(len(ends), 2.0)
        for c in rng.integers(0, len(ends) - 20, 6):
            mean[c:c + 12] = 16.0
        count = rng.poisson(mean)
        keep = count > 0
        out.append(pd.DataFrame({"chrom": chrom, "chromStart": starts[keep],
                                 "chromEnd": ends[keep], "count": count[keep]}))
    return pd.concat(out, ignore_index=True)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("cov")
    sizes = {"chr2": 120_000, "chr1": 200_000, "chrX": 60_000}  # not sorted: kept as is
    for k, name in enumerate(("a", "b")):
        _coverage(k, sizes).to_csv(d / f"{name}.bedGraph", sep="\t", header=False,
                                   index=False)
    return d


def _whole(argv: list[str], path, out) -> None:
    """The peak files of one coverage file from its whole table at once."""
    args = build_parser().parse_args(argv)
    cov = read_coverage(path)
    log_lambda, windows = _log_lambda(args, cov, _Reporter(True))
    if getattr(args, "broad", False):
        segs = predict_broad(cov, log_penalty=log_lambda, windows=windows,
                             finer=broad_finer(args), penalty_of=lambda rows: _log_lambda(
                                 args, rows, _Reporter(True))[0])
    else:
        segs = predict_peaks(cov, log_penalty=log_lambda, windows=windows, segments=True)
    _write_sample(segs, str(cov['sample_id'].iloc[0]), out, args, None, None, cov)


@pytest.mark.parametrize("extra", ["", "--penalty 3000", "--format narrowPeak",
                                   "--penalty 2000 --jobs 2 --oversubscribe", "--broad"])
def test_streamed_peaks_equal_the_whole_table(folder, tmp_path, extra, capsys):
    cov = folder / "a.bedGraph"
    argv = shlex.split(f"peaks {cov} --out {tmp_path / 'new.bed'} {extra}")
    assert main([*argv, "--quiet"]) == 0
    _whole([a for a in argv if a not in ("--jobs", "2", "--oversubscribe")], cov,
           tmp_path / "old.bed")
    new = (tmp_path / "new.bed").read_text()
    assert new == (tmp_path / "old.bed").read_text()
    if not extra:  # the short windows' warning once, naming every chromosome's
        capsys.readouterr()
        assert main([*argv[:3], str(tmp_path / "again.bed")]) == 0
        short = [ln for ln in capsys.readouterr().err.splitlines() if "shorter than" in ln]
        assert len(short) == 1 and "2 more chromosome(s)" in short[0]
    chroms = [ln.split("\t")[0] for ln in new.splitlines() if not ln.startswith("track")]
    assert len(chroms) >= 6 and list(dict.fromkeys(chroms)) == ["chr2", "chr1", "chrX"]


def _whole_folder(argv: list[str], paths: list, out) -> None:
    """The peak files of several coverage files from their whole table at once: the
    pipeline before reading by chromosome (``read_coverage`` of all, then
    ``predict_by_chromosome`` and each sample's rows of the table)."""
    args = build_parser().parse_args(argv)
    cov = read_coverage(paths)
    report = _Reporter(True)
    segs = predict_by_chromosome(cov, cov, lambda rows, first: _log_lambda(
        args, rows, report), functools.partial(predict_peaks, segments=True))
    out.mkdir()
    for s, rows in sample_tables(cov, list(pd.unique(cov["sample_id"]))).items():
        suffix = ".narrowPeak" if args.format == "narrowPeak" else ".bed"
        _write_sample(segs[segs["sample_id"] == s], s, out / f"{s}{suffix}", args, None,
                      None, rows)


@pytest.mark.parametrize("extra", ["--penalty 3000", "", "--format narrowPeak"])
def test_samples_read_by_chromosome_equal_the_whole_table(folder, tmp_path, extra):
    """Two samples, read one chromosome of both at a time (``cli/_peaks_samples.py``):
    each file that of the two samples' whole table (chrX only in b, chr1 first in b)."""
    _coverage(7, {"chr1": 150_000, "chr2": 90_000, "chrX": 60_000}).query(
        "chrom != 'chr2'").to_csv(tmp_path / "c.bedGraph", sep="\t", header=False,
                                  index=False)
    paths = [folder / "a.bedGraph", tmp_path / "c.bedGraph", folder / "b.bedGraph"]
    argv = shlex.split(f"peaks {' '.join(map(str, paths))} --out {tmp_path / 'new'} {extra}")
    assert main([*argv, "--quiet"]) == 0
    _whole_folder(argv, paths, tmp_path / "old")
    files = sorted(f.name for f in (tmp_path / "old").iterdir())
    assert files == sorted(f.name for f in (tmp_path / "new").iterdir()) and len(files) >= 3
    for name in files:
        new = (tmp_path / "new" / name).read_text()
        assert new == (tmp_path / "old" / name).read_text()
    assert sum(len(ln) > 0 for ln in new.splitlines()) >= 6


def test_streamed_samples_folder_equals_each_sample_alone(folder, tmp_path):
    """A folder of two samples: each sample's file is that sample's whole-table file."""
    assert main(["peaks", str(folder), "--out", str(tmp_path / "both"), "--penalty",
                 "3000", "--quiet"]) == 0
    for name in ("a", "b"):
        _whole(["peaks", str(folder / f"{name}.bedGraph"), "--out", "x", "--penalty",
                "3000"], folder / f"{name}.bedGraph", tmp_path / f"{name}.bed")
        old = (tmp_path / f"{name}.bed").read_text()
        assert (tmp_path / "both" / f"{name}.bed").read_text() == old


def test_samples_read_by_chromosome_refuse_one_id_twice(tmp_path, capsys):
    """Two files of one sample id (one name in two folders): refused, naming both, as
    the whole table's reader does."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.bedGraph").write_text("chr1\t0\t10\t1\n")
    assert main(["peaks", str(tmp_path / "a" / "x.bedGraph"), str(tmp_path / "b" /
                 "x.bedGraph"), "--out", str(tmp_path / "o"), "--penalty", "10"]) == 1
    assert "sample id 'x' is in both" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("extra", ["", "--penalty 3000 --means bedGraph"])
def test_two_samples_calls_are_made_a_chromosome_at_a_time(folder, tmp_path, monkeypatch,
                                                           extra):
    """Each sample's file is written from one chromosome's rows at a time (issue 55: at
    3 Gb one sample's whole table in ``peak_calls`` was the peak of memory): every
    ``peak_calls`` gets the rows of one sample and one chromosome, once per (sample,
    chromosome); the files are those of the whole table (the tests above)."""
    import penlearn.peaks.peakseg.calls as calls_module

    real, seen = calls_module.peak_calls, []

    def spy(segs, coverage=None, **kw):
        seen.append((tuple(pd.unique(coverage["sample_id"])),
                     tuple(pd.unique(coverage["chrom"]))))
        assert set(pd.unique(segs["chrom"])) <= set(seen[-1][1])
        return real(segs, coverage, **kw)
    monkeypatch.setattr(calls_module, "peak_calls", spy)
    monkeypatch.setattr("penlearn.cli.peaks.peak_calls", spy)  # (the whole table's)
    argv = ["peaks", str(folder), "--out", str(tmp_path / "o"), "--format", "narrowPeak",
            *shlex.split(extra), "--quiet"]
    assert main(argv) == 0
    assert sorted(seen) == sorted(((s,), (c,)) for s in "ab" for c in ("chr1", "chr2",
                                                                        "chrX"))
    assert len(list((tmp_path / "o").glob("*.narrowPeak"))) == 2
