"""trim_level_shifts (issue 52, item 6): a long call that is only a change of the
background's level is trimmed to its significant part or dropped; a domain is kept."""

from __future__ import annotations

import pandas as pd
import pytest

from penlearn.peaks.formats.level_shifts import trim_level_shifts


def _cov(rows):
    s, e, k = zip(*rows)
    return pd.DataFrame({"chrom": "chr1", "chromStart": s, "chromEnd": e, "count": k})


#: (total, bases, fragment length): a genome at 10 fragments per base, 200 bp fragments
LEVEL = (10.0 * 4e6, 4e6, 200.0)


def _call(a, b, mean=13.0, bg=10.0):
    return pd.DataFrame({"chrom": ["chr1"], "chromStart": [a], "chromEnd": [b],
                         "mean": [mean], "background": [bg], "name": ["p"]})


def test_raised_megabase_without_a_peak_is_dropped():
    cov = _cov([(0, 1_000_000, 10), (1_000_000, 2_000_000, 12), (2_000_000, 4_000_000, 10)])
    assert len(trim_level_shifts(_call(1_000_000, 2_000_000), cov, genome_level=LEVEL)) == 0


def test_raised_megabase_holding_one_peak_keeps_the_peak_only():
    cov = _cov([(0, 1_000_000, 10), (1_000_000, 1_500_000, 12), (1_500_000, 1_500_400, 60),
                (1_500_400, 2_000_000, 12), (2_000_000, 4_000_000, 10)])
    out = trim_level_shifts(_call(1_000_000, 2_000_000), cov, genome_level=LEVEL)
    assert out[["chromStart", "chromEnd"]].values.tolist() == [[1_500_000, 1_500_400]]
    assert out["mean"].tolist() == [60.0] and out["name"].tolist() == ["p"]
    # its background: λ_local, the largest of the genome's level and its flanks' (10)
    assert out["background"].iloc[0] == pytest.approx(10.0)


def test_domain_three_times_its_flanks_is_kept():
    cov = _cov([(0, 1_000_000, 10), (1_000_000, 1_020_000, 30), (1_020_000, 2_000_000, 10)])
    call = _call(1_000_000, 1_020_000, 30.0)
    pd.testing.assert_frame_equal(trim_level_shifts(call, cov, genome_level=LEVEL), call)


def test_with_a_control_its_level_is_the_background():
    # treatment and control both raised 2x over 500 kb: a level shift with the control,
    # a domain (twice its flanks, significant) without it
    rows = [(0, 1_000_000, 10), (1_000_000, 1_500_000, 20), (1_500_000, 4_000_000, 10)]
    cov, ctl = _cov(rows), _cov(rows)
    call = _call(1_000_000, 1_500_000, 20.0)
    assert len(trim_level_shifts(call, cov, control=ctl, genome_level=LEVEL)) == 0
    assert len(trim_level_shifts(call, cov, genome_level=LEVEL)) == 1


def test_short_calls_are_not_tested():
    cov = _cov([(0, 1_000_000, 10), (1_000_000, 1_005_000, 11), (1_005_000, 2_000_000, 10)])
    call = _call(1_000_000, 1_005_000, 11.0)
    assert len(trim_level_shifts(call, cov, genome_level=LEVEL)) == 1


@pytest.mark.parametrize("arg", ["min_width", "min_fold", "log10p"])
def test_bad_constants_are_refused(arg):
    with pytest.raises(ValueError, match=arg):
        trim_level_shifts(_call(0, 10), _cov([(0, 10, 1)]), **{arg: -1})


@pytest.mark.parametrize("fmt", ["bed", "narrowPeak"])
def test_peaks_files_of_every_format_trim_a_level_shift(tmp_path, fmt):
    # a raised megabase holding one peak: PeakSeg at a low penalty calls the megabase
    from penlearn.cli import main

    cov = _cov([(0, 1_000_000, 10), (1_000_000, 1_500_000, 13), (1_500_000, 1_500_400, 60),
                (1_500_400, 2_000_000, 13), (2_000_000, 4_000_000, 10)])
    bg = tmp_path / "c.bedGraph"
    cov.to_csv(bg, sep="\t", header=False, index=False)
    out = tmp_path / f"p.{fmt}"
    assert main(["peaks", str(bg), "--penalty", "1000", "--format", fmt, "--out", str(out),
                 "--quiet"]) == 0
    rows = [ln.split("\t") for ln in out.read_text().splitlines()
            if ln and not ln.startswith("track")]
    assert [(int(r[1]), int(r[2])) for r in rows] == [(1_500_000, 1_500_400)]
