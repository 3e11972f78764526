"""pValue / qValue mean what MACS3's mean (issue 52 item 3): fragments at the summit against
λ_local, Benjamini-Hochberg among the genome's windows; calibrated on null simulations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import penlearn as pl
from penlearn.datasets.chipseq_suite import suite_design, suite_fragments
from penlearn.peaks.formats.peak_columns import peak_columns, significant, summit_tests
from penlearn.peaks.formats.reads import Reads, fragment_coverage


def _coverage(frags: pd.DataFrame, chroms: dict) -> pd.DataFrame:
    names = list(chroms)
    reads = {n: tuple(frags.loc[frags["chrom"] == i, c].to_numpy() for c in
                      ("start", "end", "reverse")) + ((frags["chrom"] == i).sum() * [1],)
             for i, n in enumerate(names)}
    reads = {n: (s, e, r, np.asarray(w, np.int64)) for n, (s, e, r, w) in reads.items()}
    return fragment_coverage(Reads(True, reads, dict(chroms)), None)


def _per_base(cov: pd.DataFrame, n: int) -> np.ndarray:
    y = np.zeros(n)
    for a, b, v in cov[["chromStart", "chromEnd", "count"]].itertuples(index=False):
        y[a:b] = v
    return y


def test_summit_tests_equal_brute_force_on_per_base_coverage():
    rng = np.random.default_rng(3)
    n = 30_000
    frags = pd.DataFrame({"chrom": 0, "start": np.sort(rng.integers(0, n - 300, 400))})
    frags["end"] = frags["start"] + rng.integers(150, 250, len(frags))
    frags["reverse"] = False
    ctl = pd.DataFrame({"chrom": 0, "start": np.sort(rng.integers(0, n - 300, 300))})
    ctl["end"] = ctl["start"] + 200
    ctl["reverse"] = False
    tc, cc = _coverage(frags, {"chr1": n}), _coverage(ctl, {"chr1": n})
    y, c = _per_base(tc, n), _per_base(cc, n)
    last = int(tc["chromEnd"].max())
    rises = np.maximum(np.diff(np.r_[0.0, y[:last]]), 0).sum()
    d = y.sum() / rises
    assert d == pytest.approx((frags["end"] - frags["start"]).mean(), rel=0.05)
    peaks = pd.DataFrame({"chrom": "chr1", "chromStart": [100, 9000, 25_000],
                          "chromEnd": [400, 9500, 25_300]})
    summit = np.array([150, 20, 299])
    scale = 400 / 300

    def window(v, x, w):
        a, b = max(x - w // 2, 0), min(x + w - w // 2, last)
        return v[a:b].sum() / (b - a)

    for control in (None, cc):
        got = summit_tests(peaks, tc, summit, control=control, control_scale=scale)
        for i, x in enumerate(peaks["chromStart"].to_numpy() + summit):
            lam_g = y.sum() / last
            if control is None:
                lam = max(lam_g, window(y, x, 5000), window(y, x, 10_000))
            else:
                lam = max([lam_g] + [scale * window(c, x, w) for w in
                                     (int(round(d)), 1000, 5000, 10_000)])
            assert got["k"][i] == y[x]
            w = max(int(round(d / 2)), 1)  # half a fragment: its best window around x
            assert got["held"][i] == max(y[a:a + w].min() for a in range(max(x - w + 1, 0),
                                                                         x + 1))
            assert got["lambda_local"][i] == pytest.approx(lam, rel=1e-12)
            a, b = peaks["chromStart"][i], peaks["chromEnd"][i]  # the whole peak
            assert got["fragments"][i] == pytest.approx(y[a:b].sum() / d, rel=1e-12)
            whole = lam if control is None else max(lam, scale * c[a:b].mean())
            assert got["expected"][i] == pytest.approx(whole * (b - a) / d, rel=1e-12)
            if control is not None:
                assert got["control_fragments"][i] == pytest.approx(c[a:b].sum() / d)
            assert got["tests"][i] == pytest.approx(4 * last / d, rel=1e-12)
            # the lengths (quarter fragments) the whole peak's test chose among
            assert got["lengths"][i] == pytest.approx(max(4 * (b - a) / d, 1.0), rel=1e-12)
    # peak_columns: the Poisson tail of k at λ_local, BH among `tests` windows
    t = peak_columns(peaks.assign(mean=5.0, background=1.0), tc, control=cc,
                     control_scale=scale)
    st = summit_tests(peaks, tc, t["summit"].to_numpy(), control=cc, control_scale=scale)
    nt, nc = np.floor(st["fragments"]), np.floor(st["control_fragments"])
    whole = np.maximum(stats.poisson.sf(nt - 1, st["expected"]),
                       stats.binom.sf(nt - 1, nt + nc, scale / (1 + scale)))
    p = np.minimum(1, 2 * np.minimum(  # with a control: the summit's and the whole's
        stats.poisson.sf(st["held"] - 1, st["lambda_local"]), whole))
    assert t["pValue"].to_numpy() == pytest.approx(-np.log10(p), rel=1e-9)
    m = st["tests"].iloc[0]
    order = np.argsort(p)
    adj = np.minimum.accumulate((p[order] * m / np.arange(1, 4))[::-1])[::-1]
    q = np.empty(3)
    q[order] = np.minimum(adj, 1)
    assert t["qValue"].to_numpy() == pytest.approx(-np.log10(q), rel=1e-9)


def _pair(depth: float, seed: int, peaks: bool):
    """(design, treatment's coverage, control's, treatment's fragments / control's)."""
    chroms = {"chr1": 1_000_000}
    d = suite_design(chroms, narrow_every=20_000 if peaks else 10**9, broad_every=10**9,
                     sticky_every=100_000, seed=seed)
    t = suite_fragments(d, coverage=depth, sample="treatment" if peaks else "null",
                        duplicates=0.0, seed=100 + seed)
    c = suite_fragments(d, coverage=depth, sample="control", duplicates=0.0, seed=200 + seed)
    return d, _coverage(t, chroms), _coverage(c, chroms), len(t) / len(c)


def _calls(depth: float, seed: int, *, peaks: bool, control: bool, penalty: float):
    """Candidate peaks far beyond what a caller reports (a low penalty), their values."""
    d, tc, cc, scale = _pair(depth, seed, peaks)
    segs = pl.peakseg(tc, penalty).segments
    calls = (pl.peak_calls(segs, tc, control=cc, control_scale=scale) if control
             else pl.peak_calls(segs, tc))
    f = d.features[(d.features["kind"] == "narrow") | (not control)]  # sticky: real if alone
    true = np.zeros(len(calls), bool)
    for s, e in f[["chromStart", "chromEnd"]].itertuples(index=False):
        true |= (calls["chromStart"] < e).to_numpy() & (calls["chromEnd"] > s).to_numpy()
    return calls, true


@pytest.mark.parametrize("depth", [0.5, 1.5, 5.0])
def test_null_simulations_give_no_call_at_q_005(depth):
    """Treatment and control drawn alike (background, wobble and sticky regions, no
    peak): of thousands of candidate peaks, none at q <= 0.05 (the BH population is the
    genome's windows, not the candidates the model picked for their coverage)."""
    for seed in (0, 1):
        calls, _ = _calls(depth, seed, peaks=False, control=True, penalty=20 * depth)
        assert len(calls) > 500
        assert (calls["qValue"] < -np.log10(0.05)).all()


def test_a_binding_site_holds_its_summit_a_chance_bump_does_not():
    """k fragments over one base: centred on a site (a binding site's pileup, its top
    about a fragment wide) or staggered (a chance bump of the background: the top is
    the few bases they all share). MACS3's min-length asks the significance of a
    fragment's bases; pValue asks it of the half fragment the summit holds."""
    n, k = 20_000, 12
    rng = np.random.default_rng(0)
    bg = np.sort(rng.integers(0, n - 200, 60))
    site = np.r_[np.full(k, 5_000 - 100), bg]
    bump = np.r_[5_000 - 200 + np.linspace(1, 199, k).astype(int), bg]  # top ~1 bp
    pv = []
    for starts in (site, bump):
        cov = _coverage(pd.DataFrame({"chrom": 0, "start": np.sort(starts),
                                      "end": np.sort(starts) + 200,
                                      "reverse": False}), {"chr1": n})
        pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [4_900], "chromEnd": [5_100],
                           "mean": 5.0, "background": 1.0})
        t = peak_columns(pk, cov)
        st = summit_tests(pk, cov, t["summit"].to_numpy())
        assert st["k"][0] >= k
        held = st["held"][0]
        assert held >= k if starts is site else held <= st["k"][0] - 2
        pv.append(float(t["pValue"][0]))
        p_summit = stats.poisson.sf(st["held"][0] - 1, st["lambda_local"][0])
        p_whole = stats.poisson.sf(np.floor(st["fragments"][0]) - 1, st["expected"][0])
        bonferroni = 1 + st["lengths"][0]
        assert pv[-1] == pytest.approx(-np.log10(bonferroni * min(p_summit, p_whole)))
    assert pv[0] > pv[1] + 1  # staggered: the top is a few bases wide


def test_a_wide_enrichment_is_judged_as_a_whole():
    """A 2 kb plateau (coverage 8-9) over a background of 0.5: no base of it stands out
    against lambda_local (the treatment's own 10 kb around it, the plateau most of it),
    but its ~84 fragments against the ~20 that level gives 2 kb do (issue 52 item 3: "at
    the summit ... or for the whole peak"; a broad H3K27ac peak of the labeled Mono27ac
    set has a summit of a few reads)."""
    n = 40_000
    rng = np.random.default_rng(1)
    bg = rng.integers(0, n - 200, 100)
    plateau = np.arange(10_000 - 100, 12_000 - 100, 24)  # 84 fragments, coverage 8-9
    starts = np.sort(np.r_[bg, plateau])
    cov = _coverage(pd.DataFrame({"chrom": 0, "start": starts, "end": starts + 200,
                                  "reverse": False}), {"chr1": n})
    pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10_000], "chromEnd": [12_000],
                       "mean": 8.0, "background": 1.0})
    t = peak_columns(pk, cov)
    st = summit_tests(pk, cov, t["summit"].to_numpy())
    p_summit = stats.poisson.sf(st["held"][0] - 1, st["lambda_local"][0])
    p_whole = stats.poisson.sf(np.floor(st["fragments"][0]) - 1, st["expected"][0])
    assert st["fragments"][0] >= 80 and p_summit > 1e-4
    assert p_whole < 1e-10
    assert t["pValue"][0] == pytest.approx(-np.log10((1 + st["lengths"][0]) * p_whole))


def test_the_calls_screen_keeps_a_wide_enrichment():
    """``peak_calls(..., screen=)`` skips the candidates whose best pValue cannot pass:
    its bound must hold the whole peak's test too, not only the highest count's."""
    from penlearn.peaks.formats.peak_columns import genome_level
    from penlearn.peaks.peakseg.calls import screened_out

    n = 40_000
    rng = np.random.default_rng(1)
    starts = np.sort(np.r_[rng.integers(0, n - 200, 100),
                           np.arange(10_000 - 100, 12_000 - 100, 24)])
    cov = _coverage(pd.DataFrame({"chrom": 0, "start": starts, "end": starts + 200,
                                  "reverse": False}), {"chr1": n})
    level = genome_level(tuple(cov[k].to_numpy() for k in ("chromStart", "chromEnd",
                                                            "count")))
    segs = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10_000, 12_000],
                         "chromEnd": [10_000, 12_000, n], "mean": [0.5, 8.0, 0.5],
                         "status": ["background", "peak", "background"]})
    full = pl.peak_calls(segs, cov, genome_level=level)
    cut = float(full["pValue"][0]) - 1.0
    top = -np.log10(stats.poisson.sf(cov["count"].max() - 1, level[0] / level[1]))
    assert top < cut  # its highest count alone could not pass
    assert not screened_out(full, cov, level, cut).any()
    kept = pl.peak_calls(segs, cov, genome_level=level, screen=cut)
    pd.testing.assert_frame_equal(kept, full)


def test_a_wide_peak_against_its_control_counts_the_control_s_noise():
    """60 kb at 1.3 times the control's level (~620 control fragments there, ~800 of the
    treatment's): against the control's mean taken as exact, p ~ 1e-6; but the control's
    count is itself a Poisson draw, and two counts from one level split as a binomial:
    p ~ 1e-3. On the whole-genome simulation, calls of 1-7 kb tested the first way were
    false calls at q just under 0.05 (issue 52)."""
    n = 200_000
    ctl_starts = np.arange(0, n - 200, 97)  # coverage ~2 (no end on a start: d is 200)
    extra = np.arange(60_000 + 13, 120_000 - 200, 331)  # +0.6 over 60-120 kb
    t_starts = np.sort(np.r_[ctl_starts, extra])
    cov = {name: _coverage(pd.DataFrame({"chrom": 0, "start": st, "end": st + 200,
                                         "reverse": False}), {"chr1": n})
           for name, st in (("t", t_starts), ("c", ctl_starts))}
    scale = len(t_starts) / len(ctl_starts)
    pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [60_000], "chromEnd": [120_000],
                       "mean": 2.6, "background": 2.0})
    t = peak_columns(pk, cov["t"], control=cov["c"], control_scale=scale)
    st = summit_tests(pk, cov["t"], t["summit"].to_numpy(), control=cov["c"],
                      control_scale=scale)
    nt, nc = np.floor(st["fragments"][0]), np.floor(st["control_fragments"][0])
    assert 600 <= nc <= 640 and 780 <= nt <= 820
    p_pois = stats.poisson.sf(nt - 1, st["expected"][0])
    p_binom = stats.binom.sf(nt - 1, nt + nc, scale / (1 + scale))
    p_summit = stats.poisson.sf(st["held"][0] - 1, st["lambda_local"][0])
    assert p_pois < 1e-5 and 100 * p_pois < p_binom < p_summit
    assert t["pValue"][0] == pytest.approx(-np.log10(2 * p_binom))  # (with a control)


@pytest.mark.parametrize("depth", [1.5, 5.0])
def test_null_windows_p_values_are_conservative_in_the_genome_wide_tail(depth):
    """The q-values' population is the genome's windows of a quarter fragment; at
    whole-genome size, q <= 0.05 reaches p ~ 1e-5. Tested at its base of highest
    coverage, a window of a null pileup (uniform fragments, 20 Mb) had p <= 1e-4 about
    as often as 1e-4 (its bases' maximum), and calls at the edge of q <= 0.05 where
    thousands of true peaks let BH go that far (issue 52); at the level the summit holds
    over half a fragment, far less often."""
    rng = np.random.default_rng(int(depth * 10))
    n, w = 20_000_000, 50
    start = np.sort(rng.integers(0, n - 200, int(depth * n / 200)))
    frags = pd.DataFrame({"chrom": 0, "start": start, "end": start + 200, "reverse": False})
    cov = _coverage(frags, {"chr1": n})
    windows = pd.DataFrame({"chrom": "chr1", "chromStart": np.arange(0, n - w, w)})
    windows["chromEnd"] = windows["chromStart"] + w
    t = peak_columns(windows.assign(mean=1.0, background=1.0), cov)
    st = summit_tests(windows, cov, t["summit"].to_numpy())
    assert (st["held"] <= st["k"]).all() and (st["held"] < st["k"]).any()
    held = 10 ** -t["pValue"].to_numpy()
    for a in (1e-2, 1e-3, 1e-4):
        assert (held <= a).mean() <= 0.5 * a
    assert (held <= 1e-5).sum() == 0


@pytest.mark.parametrize("control", [True, False])
def test_planted_peaks_among_candidates_q_005_keeps_fdr_under_5_percent(control):
    calls, true = _calls(1.5, 3, peaks=True, control=control, penalty=30)
    sig = significant(calls, qvalue=0.05)
    kept = (calls["qValue"] >= -np.log10(0.05)).to_numpy()
    assert len(sig) == kept.sum()
    assert kept.sum() >= 25  # half the 50 planted peaks (folds 2-80: 15 of 2-5) or more
    assert (kept & ~true).sum() <= 0.05 * kept.sum()
    pvals = significant(calls, pvalue=1e-5)
    assert (pvals["pValue"] >= 5).all() and len(pvals) == (calls["pValue"] >= 5).sum()


def test_significant_refuses_bad_cutoffs():
    pk = pd.DataFrame({"pValue": [1.0], "qValue": [0.5]})
    with pytest.raises(ValueError, match="qvalue"):
        significant(pk, qvalue=0.0)
    with pytest.raises(ValueError, match="pvalue"):
        significant(pk, pvalue=2)
    assert significant(pk) is pk


def test_a_peak_whose_length_the_data_chose_counts_every_length_it_could_have_had():
    """The segmentation puts a peak's ends where the coverage is in excess, so its whole
    peak's count is the best of the lengths it could have had. On a null pileup (uniform
    fragments, the whole-genome simulation's level), the best length's Poisson p-value
    is <= a about 1.5-1.9 times as often as a; 2 x (the summit's or the whole's) still
    let such peaks through at whole-genome size (issue 52, session 16: a 544 bp
    call of 17 fragments where its level gives 4.1, chr4 of the SE-without-control run).
    Counted as one of 1 + lengths tests (the summit's and one per length, in quarter
    fragments), pValue >= -log10(a) is far rarer than a."""
    rng = np.random.default_rng(52)
    n, d, lam = 4_000_000, 200, 1.24
    start = np.sort(rng.integers(0, n - d, int(lam * n / d)))
    cov = _coverage(pd.DataFrame({"chrom": 0, "start": start, "end": start + d,
                                  "reverse": False}), {"chr1": n})
    cum = np.r_[0.0, np.cumsum(_per_base(cov, n))]
    at = np.arange(0, n - 2_000, 50)  # one interval per window: its best length
    best, length = np.zeros(len(at)), np.full(len(at), 50)
    for w in range(50, 2_001, 50):
        p = stats.poisson.logsf(np.floor((cum[at + w] - cum[at]) / d) - 1, lam * w / d)
        length = np.where(p < best, w, length)
        best = np.minimum(best, p)
    chosen = pd.DataFrame({"chrom": "chr1", "chromStart": at, "chromEnd": at + length,
                           "mean": 1.0, "background": 1.0})
    for a in (1e-2, 1e-3):  # the length chosen: p <= a more often than a
        assert (np.exp(best) <= a).mean() > 1.2 * a
    p = 10 ** -peak_columns(chosen, cov)["pValue"].to_numpy()
    for a in (1e-2, 1e-3):
        assert (p <= a).mean() <= 0.5 * a, (a, (p <= a).mean())
