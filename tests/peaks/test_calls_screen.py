"""The screen of ``peak_calls(..., screen=)`` (issue 55): candidates whose best possible
p-value cannot pass the cutoff get no summit nor local λ, and the peaks the cutoff keeps
are the same, every column, as without the screen; and the fast path of one sorted
chromosome's rows in ``_rows_by_problem`` is the general one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.peaks.formats.peak_columns import (
    _rows_by_problem,
    genome_level,
    least_kept_log10p,
    rescore,
    significant,
)
from penlearn.peaks.peakseg.calls import peak_calls, screened_out
from penlearn.peaks.peakseg.evaluation import predict_peaks


def _coverage(rng, chrom: str, n: int, level: float) -> pd.DataFrame:
    """Run-length rows of a Poisson background with bumps of many heights."""
    counts = rng.poisson(level, n)
    for c in rng.choice(n - 40, n // 60, replace=False):
        counts[c:c + rng.integers(3, 30)] += rng.integers(1, 12)
    widths = rng.integers(5, 60, n)
    ends = np.cumsum(widths)
    return pd.DataFrame({"chrom": chrom, "chromStart": ends - widths, "chromEnd": ends,
                         "count": counts})


def _calls(segs, treat, ctrl, level, screen):
    parts = []
    for c in ("chr1", "chr2"):
        t = treat[treat["chrom"] == c].reset_index(drop=True)
        scale = {} if ctrl is None else {
            "control": ctrl[ctrl["chrom"] == c].reset_index(drop=True),
            "control_scale": 0.8}
        parts.append(peak_calls(segs[segs["chrom"] == c], t, genome_level=level,
                                screen=screen, **scale))
    calls = pd.concat(parts, ignore_index=True)
    return rescore(calls, 4 * level[1] / level[2])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("with_control", [False, True])
def test_screen_keeps_the_peaks_a_cutoff_keeps(seed, with_control):
    rng = np.random.default_rng(seed)
    treat = pd.concat([_coverage(rng, "chr1", 3000, 2.0), _coverage(rng, "chr2", 2000, 1.5)],
                      ignore_index=True)
    ctrl = None
    if with_control:
        ctrl = treat.assign(count=rng.poisson(1.5, len(treat)))
    totals = [genome_level(tuple(g[k].to_numpy() for k in ("chromStart", "chromEnd",
                                                             "count")))
              for _, g in treat.groupby("chrom", sort=False)]
    t_, b_ = sum(x[0] for x in totals), sum(x[1] for x in totals)
    level = (t_, b_, t_ / sum(x[0] / x[2] for x in totals))
    segs = predict_peaks(treat, log_penalty=np.log(8.0), segments=True)  # many candidates
    full = _calls(segs, treat, ctrl, level, None)
    p = np.sort(full["pValue"].to_numpy())
    assert len(p) > 100
    # cutoffs at the peaks' own p-values (a peak exactly at the cutoff is kept), -q and -p
    for cut in (p[len(p) // 2], p[-len(p) // 10], p[-5], 1.3):
        for kind in ("qvalue", "pvalue"):
            screen = least_kept_log10p(**{kind: 10 ** -cut})
            kept = significant(full, **{kind: 10 ** -cut})
            new = significant(_calls(segs, treat, ctrl, level, screen), **{kind: 10 ** -cut})
            pd.testing.assert_frame_equal(new, kept)
    # not vacuous: many candidates screened out at the 90th percentile's cutoff (most
    # candidates' pValue is 0: the median's screens none), and one screened too hard (a
    # cutoff above the one applied) loses peaks
    cut = p[-len(p) // 10]
    out = sum(screened_out(g, treat[treat["chrom"] == c], level, cut).sum()
              for c, g in full.groupby("chrom", sort=False))
    assert out > len(p) // 10
    harsh = significant(_calls(segs, treat, ctrl, level, cut + 2.0), pvalue=10 ** -cut)
    assert len(harsh) < len(significant(full, pvalue=10 ** -cut))


def test_no_cutoff_no_screen():
    assert least_kept_log10p() is None
    assert least_kept_log10p(qvalue=1.0) == 0.0  # every p-value passes: nothing screened


def test_one_sorted_chromosome_rows_are_the_general_ones():
    rng = np.random.default_rng(3)
    cov = _coverage(rng, "chr1", 500, 2.0)
    fast = _rows_by_problem(cov)
    # the general path: a shuffled copy (sorted there) and a categorical chrom
    general = _rows_by_problem(cov.sample(frac=1.0, random_state=1))
    cat = _rows_by_problem(cov.astype({"chrom": "category"}).assign(sample_id="s"))
    assert list(fast) == list(general) == [(None, "chr1")] and list(cat) == [("s", "chr1")]
    for a, b, c in zip(fast[(None, "chr1")], general[(None, "chr1")], cat[("s", "chr1")]):
        assert a.dtype == b.dtype == c.dtype
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
