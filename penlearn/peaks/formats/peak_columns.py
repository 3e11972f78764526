"""What every peak file says about a peak: one function computes the columns.

BED, narrowPeak, broadPeak, the summits file and the track hub's bigBeds all take their
per-peak values from :func:`peak_columns`, so one peak has one score, one fold, one
p-value and one summit whatever the format:

* ``score``: an integer 0-1000 for genome browsers (UCSC's BED score),
  ``round(1000 * mean / strongest mean)`` of the peaks of one sample
  (:func:`ucsc_scores`: the strongest peak 1000, proportional below it);
* ``signalValue``: the fold of the peak's mean coverage over its background (the mean
  of the flanking background, given per peak as ``background``); with a ``control``,
  MACS3's fold at the summit instead: ``(k + 1) / (λ_local + 1)`` (k and λ_local of the
  pValue, below: the treatment's fragments at the summit over the control's local level,
  pseudocount 1), so a control identical to the treatment gives folds near 1 whatever
  the penalty;
* ``pValue``: MACS3's significance (Zhang et al. 2008, *Genome Biology* 9:R137): ``-log10
  P(X >= k)``, X Poisson with mean ``λ_local``, k the fragments (reads or pairs)
  overlapping the peak's summit (the treatment's coverage at the summit, rounded) and
  ``λ_local = max(λ_genome, λ_d, λ_1k, λ_5k, λ_10k)``: λ_w the mean coverage over the
  ``w`` bases centred on the summit of the control scaled to the treatment's depth
  (``control_scale``; ``d`` the fragment length, below: the control's pileup at the
  summit, as MACS3 adds to the windows of Zhang et al.), or, without a control, of the
  treatment itself over 5 and 10 kb only (no d or 1 kb: the peak would be its own
  background); ``λ_genome`` the treatment's mean coverage over its genome (each
  chromosome from 0 to its last covered base). k is tested as the level the summit
  *holds* over half a fragment (``held``; :func:`held_width`: ``d / 2`` bases): the
  largest L such that that many consecutive bases around the summit have coverage >= L.
  A binding site's fragments all cross its centre and nearly all cover the half
  fragment around it; a chance bump of k background fragments shares only a few bases
  (~``2d / (k + 1)``), and its single base made calls at the edge of q <= 0.05 on
  whole-genome simulations (issue 52); MACS3 asks every base of ``d`` (its minimum
  length) to be significant. The pValue is that of the summit or that of the whole
  peak, the smaller, times the number of tests (Bonferroni): without a control ``1 +
  w`` (``w`` = :func:`peak_lengths`, the peak's length in quarter fragments: its ends
  were set by the data, so the whole peak's test is the best of ``w`` lengths), with
  one 2: the whole peak's n fragments (its coverage
  summed over its bases / d) against Poisson(λ × length / d), λ its ``λ_local`` (with a
  control, at least the scaled control's mean over the peak: the summit sits where the
  control is low by its rule; and the larger of that and the binomial split of the
  treatment's and the control's fragments over the peak, the control's count being a
  draw too); a wide enrichment has no base that stands out. Without
  ``coverage`` (no summit): k the peak's mean coverage rounded, λ its ``background``;
* ``qValue``: ``-log10`` of the Benjamini & Hochberg (1995) adjusted p-value, per sample,
  over a population of ``m = max(peaks, 4 * genome / d)`` tests: the genome cut into
  windows of a quarter fragment (``d``: the coverage's total over its number of rises,
  i.e. the mean fragment length of a fragment pileup), of which the candidate peaks'
  summits are the ones the caller tested and every other window counts as tested and
  not called (p = 1). A peak is thus significant against every place of the genome the
  caller could have called, not only against the other calls (which the model chose
  for their coverage: their own p-values are far from uniform under no enrichment). A
  quarter fragment: the summit is picked at base resolution, and a pileup's top is
  about that wide (MACS3 ranks bases: for narrow peaks, about the same m); with one
  window per fragment, null simulations gave calls at q <= 0.05. Without
  ``coverage``: ``m`` the number of peaks;
* ``summit``: the offset from ``chromStart`` of the base of highest coverage in the
  peak (with a control: of treatment minus scaled control); ties: the middle base
  ``floor((s + e) / 2)`` of the longest run ``[s, e)`` of bases at the highest value
  (the first such run).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.peak_stats import (
    _bh_log10,
    _binomial_log10_sf,
    _poisson_log10_sf,
    least_kept_log10p,
    rescore,
    score_columns,
    significant,
    ucsc_scores,
)

__all__ = ["PEAK_VALUE_COLUMNS", "genome_level", "least_kept_log10p", "level_sums",
           "peak_columns", "peak_lengths", "rescore", "score_columns", "significant",
           "summit_offsets", "summit_tests", "ucsc_scores"]

#: The columns :func:`peak_columns` adds.
PEAK_VALUE_COLUMNS = ("score", "signalValue", "pValue", "qValue", "summit")


#: λ_local's windows (bases, centred on the summit): of a control (and its fragment's
#: window d), of the treatment alone
CONTROL_WINDOWS = (1_000, 5_000, 10_000)
OWN_WINDOWS = (5_000, 10_000)
#: the q-values' population: windows of a fragment / this many bases, as many per
#: fragment
WINDOWS_PER_FRAGMENT = 4
#: the share of a fragment over which the summit's level must hold (``held``)
HELD_SHARE = 0.5


def _integral(rows, x: np.ndarray, cum: np.ndarray) -> np.ndarray:
    """The coverage summed over the bases ``[0, x)`` (rows sorted, not overlapping;
    ``cum``: the rows' running sums, from 0)."""
    starts, ends, counts = rows
    if (len(starts) and starts.dtype == np.int64 and counts.dtype == np.float64
            and cum.dtype == np.float64 and np.asarray(x).dtype == np.int64):
        from penlearn.peaks.formats._summit_kernel import integrals  # numba: on first use

        return integrals(starts, ends, counts, cum, np.asarray(x))
    i = np.searchsorted(starts, x, side="right") - 1
    j = np.maximum(i, 0)
    inside = counts[j] * (np.clip(x, starts[j], ends[j]) - starts[j])
    return np.where(i >= 0, cum[j] + inside, 0.0)


def _window_means(rows, x: np.ndarray, widths) -> list[np.ndarray]:
    """Mean coverage over the ``w`` bases centred on each ``x`` (clipped to ``[0, the
    last covered base)``), for each ``w`` of ``widths``."""
    if rows is None or not len(rows[0]):
        return [np.zeros(len(x)) for _ in widths]
    starts, ends, counts = rows
    from penlearn.peaks.formats._summit_kernel import running_sums  # numba: on first use

    cum = running_sums(starts, ends, counts)
    out = []
    for w in widths:
        a = np.maximum(x - w // 2, 0)
        b = np.maximum(np.minimum(x + (w - w // 2), ends[-1]), a + 1)
        out.append((_integral(rows, b, cum) - _integral(rows, a, cum)) / (b - a))
    return out


def level_sums(runs) -> tuple[float, float, float]:
    """Total coverage, bases (to the last covered base) and rises of one chromosome's
    sorted runs ``(starts, ends, counts)`` (int64, int64, float): summed over a sample's
    chromosomes in its rows' order, the sums :func:`peak_columns` takes its genome's
    level from (the fragment length is total over rises), so a sample read chromosome by
    chromosome gets the same level to the last bit.

    Examples
    --------
    >>> level_sums((np.array([0, 10]), np.array([10, 30]), np.array([1.0, 2.0])))
    (50.0, 30.0, 2.0)
    """
    starts, ends, counts = runs
    if not len(starts):
        return 0.0, 0.0, 0.0
    prev = np.r_[0.0, np.where(starts[1:] == ends[:-1], counts[:-1], 0.0)]
    return (float((counts * (ends - starts)).sum()), float(ends[-1]),
            float(np.maximum(counts - prev, 0.0).sum()))


def _genome_level(problems: list) -> tuple[float, float, float]:
    """Total coverage, genome bases (each chromosome to its last covered base) and
    fragment length (total over the coverage's rises) of one sample's rows."""
    total = bases = rises = 0.0
    for runs in problems:
        t, b, r = level_sums(runs)
        total, bases, rises = total + t, bases + b, rises + r
    return total, bases, (total / rises if rises > 0 else 1.0)


def genome_level(runs) -> tuple[float, float, float]:
    """Total coverage, bases (to the last covered base) and fragment length of one
    chromosome's pileup runs ``(starts, ends, counts)``; summed over chromosomes (total
    and bases added, the fragment length as total over rises) they are the sample's
    level of :func:`summit_tests`.

    Examples
    --------
    >>> genome_level((np.array([0, 10]), np.array([10, 30]), np.array([1, 2])))
    (50.0, 30.0, 25.0)
    """
    starts, ends, counts = runs
    if len(starts) and all(np.asarray(x).dtype == np.int64 for x in runs):
        # integer runs (callpeak's pileups): the same sums in one compiled pass, without
        # a chromosome's temporary arrays (integer sums: exact in any order)
        from penlearn.peaks.formats._pileup_kernel import level_sums

        total, rises = level_sums(starts, ends, counts)
        total, rises = 0.0 + float(total), 0.0 + float(rises)
        return total, 0.0 + float(ends[-1]), (total / rises if rises > 0 else 1.0)
    total, bases, d = _genome_level([runs])
    return total, bases, d


def summit_tests(peaks: pd.DataFrame, coverage: pd.DataFrame, summit: np.ndarray, *,
                 control: pd.DataFrame | None = None, control_scale: float = 1.0,
                 genome_level: tuple[float, float, float] | None = None) -> pd.DataFrame:
    """What each peak's pValue tests (the module's rule): ``k`` (fragments at the summit),
    ``held`` (the level the summit holds over :func:`held_width` bases: the k tested),
    ``lambda_local``, ``tests`` (the size of its sample's q-value population), the
    whole peak's test: ``fragments`` (its coverage summed / d) and ``expected`` (its
    level's fragments over its length), and ``lengths`` (:func:`peak_lengths`: the
    lengths the whole peak's test chose among).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 5000, 5200],
    ...                     "chromEnd": [5000, 5200, 20000], "count": [1, 11, 1]})
    >>> pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [5000], "chromEnd": [5200]})
    >>> t = summit_tests(pk, cov, np.array([100]))
    >>> int(t["k"][0]), round(float(t["lambda_local"][0]), 2)  # 5 kb: 7,000 / 5,000
    (11, 1.4)
    """
    treat, ctrl = _rows_by_problem(coverage), _rows_by_problem(control)
    shared = control is not None and "sample_id" not in control.columns
    sids = peaks["sample_id"].tolist() if "sample_id" in peaks.columns else [None] * len(peaks)
    level = {}
    for sid in dict.fromkeys(sids):  # genome_level: given when coverage is one chromosome
        mine = [v for (s, _), v in treat.items() if s == sid or s is None]
        level[sid] = genome_level or _genome_level(mine or list(treat.values()))
    x = peaks["chromStart"].to_numpy(np.int64) + np.asarray(summit, np.int64)
    k = np.zeros(len(peaks))
    held = np.zeros(len(peaks))
    lam = np.zeros(len(peaks))
    tests = np.zeros(len(peaks))
    frags = np.zeros(len(peaks))
    span = np.zeros(len(peaks))
    ctl = np.full(len(peaks), np.nan)  # the control's fragments over the peak
    dee = np.ones(len(peaks))
    a = peaks["chromStart"].to_numpy(np.int64)
    b = peaks["chromEnd"].to_numpy(np.int64)
    where: dict = {}
    for i, key in enumerate(zip(sids, peaks["chrom"].tolist())):
        where.setdefault(key, []).append(i)
    for key, m in where.items():
        m = np.asarray(m, np.int64)
        sid, chrom = key
        t = treat.get(key) or treat.get((None, chrom))
        total, bases, d = level[sid]
        lam_g = total / bases if bases > 0 else 0.0
        k[m] = np.rint(_values_at(t, x[m]))
        held[m] = np.rint(_held_at(t, x[m], d))
        frags[m] = _sums(t, a[m], b[m]) / d
        if control is None:
            local = _window_means(t, x[m], OWN_WINDOWS)
        else:
            c = ctrl.get((None, chrom) if shared else (sid, chrom))
            local = [control_scale * v for v in _window_means(
                c, x[m], (max(int(round(d)), 1), *CONTROL_WINDOWS))]
        lam[m] = np.maximum.reduce([np.full(len(m), lam_g), *local])
        # the whole peak's level: with a control, also the control's over the peak (the
        # summit sits where the control is low, by its rule)
        if control is not None:
            ctl[m] = _sums(c, a[m], b[m]) / d
        span[m] = lam[m] if control is None else np.maximum(
            lam[m], control_scale * ctl[m] * d / np.maximum(b[m] - a[m], 1))
        tests[m] = WINDOWS_PER_FRAGMENT * bases / d if bases > 0 else 1.0
        dee[m] = d
    lam = np.maximum(lam, 1e-9)
    return pd.DataFrame({"k": k, "held": held, "lambda_local": lam, "tests": tests,
                         "fragments": frags,
                         "expected": np.maximum(span, 1e-9) * (b - a) / dee,
                         "control_fragments": ctl, "lengths": peak_lengths(b - a, dee)})


def peak_lengths(length, d) -> np.ndarray:
    """The lengths a peak's whole-peak test chose among: its length in windows of the
    q-value population (a quarter fragment, :data:`WINDOWS_PER_FRAGMENT` per ``d``), at
    least 1. The peak's ends were set by the same coverage that the test counts (the
    segmentation put them where the excess is), so its test is one of this many, one
    per length it could have had, and without a control the pValue's Bonferroni
    counts them all: ``1 + lengths`` tests with the summit's.

    Examples
    --------
    >>> peak_lengths(np.array([30, 200, 544]), 200.0).tolist()
    [1.0, 4.0, 10.88]
    """
    return np.maximum(WINDOWS_PER_FRAGMENT * np.asarray(length, float)
                      / np.asarray(d, float), 1.0)


def _sums(rows, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The coverage summed over each ``[a, b)`` (0 without rows)."""
    if rows is None or not len(rows[0]):
        return np.zeros(len(a))
    starts, ends, counts = rows
    from penlearn.peaks.formats._summit_kernel import running_sums  # numba: on first use

    cum = running_sums(starts, ends, counts)
    return _integral(rows, b, cum) - _integral(rows, a, cum)


def held_width(d: float) -> int:
    """The bases a summit's level must hold (``held``): half a fragment
    (:data:`HELD_SHARE`), at least 1. A binding site's fragments all cross its centre,
    and with their centres within ~d/4 of it (a spread of ~d/6 or less) nearly all of
    them cover the half fragment around it; the k fragments of a chance bump of the
    background share only ~2d/(k + 1) bases.

    Examples
    --------
    >>> held_width(196.0), held_width(1.0)
    (98, 1)
    """
    return max(int(round(d * HELD_SHARE)), 1)


def _held_at(rows, x: np.ndarray, d: float) -> np.ndarray:
    """The level the bases ``x`` hold over :func:`held_width` bases (0 without rows)."""
    if rows is None or not len(rows[0]):
        return np.zeros(len(x))
    from penlearn.peaks.formats._summit_kernel import held_levels  # numba: on first use

    starts, ends, counts = rows
    return held_levels(starts, ends, np.asarray(counts, float), np.asarray(x, np.int64),
                       held_width(d))


def _rows_by_problem(coverage: pd.DataFrame | None) -> dict:
    if coverage is None:
        return {}
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    one = _one_sorted_problem(coverage)
    if one is not None:  # one chromosome's sorted rows (callpeak's): views, no grouping
        return {one: (coverage["chromStart"].to_numpy(np.int64),
                      coverage["chromEnd"].to_numpy(np.int64),
                      coverage["count"].to_numpy(float))}
    cov = coverage if "sample_id" in coverage.columns else coverage.assign(sample_id=None)
    out = {}
    for (sid, chrom), g in cov.groupby(["sample_id", "chrom"], sort=False, dropna=False):
        g = g.sort_values("chromStart", kind="stable")
        out[(None if pd.isna(sid) else sid, chrom)] = (
            g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64),
            g["count"].to_numpy(float))
    return out


def _one_sorted_problem(coverage: pd.DataFrame):
    """The ``(sample_id or None, chrom)`` key when every row has the first row's (no
    missing value) and ``chromStart`` never decreases; else None (the general case)."""
    if not len(coverage):
        return None
    key = []
    for col in ("sample_id", "chrom"):
        if col not in coverage.columns:
            key.append(None)
            continue
        column = coverage[col]
        if isinstance(column.dtype, pd.CategoricalDtype):  # by the codes: no strings
            values = column.cat.codes.to_numpy()
            if values[0] < 0:
                return None
        else:
            values = column.to_numpy()
            if pd.isna(values[0]):
                return None
        if (values != values[0]).any():
            return None
        key.append(column.iloc[0])
    start = coverage["chromStart"].to_numpy()
    if (start[1:] < start[:-1]).any():
        return None
    return key[0], key[1]


def _values_at(rows, x: np.ndarray) -> np.ndarray:
    """The coverage of the bases ``x`` (0 where no row covers them)."""
    if rows is None:
        return np.zeros(len(x))
    starts, ends, counts = rows
    i = np.searchsorted(starts, x, side="right") - 1
    ok = (i >= 0) & (ends[np.maximum(i, 0)] > x)
    return np.where(ok, counts[np.maximum(i, 0)], 0.0)


def summit_offsets(peaks: pd.DataFrame, coverage: pd.DataFrame, *,
                   control: pd.DataFrame | None = None,
                   control_scale: float = 1.0) -> np.ndarray:
    """The summit of every peak: offset from ``chromStart`` (narrowPeak column 10).

    Parameters
    ----------
    peaks : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd``.
    coverage : DataFrame
        The treatment's per-base coverage, ``[sample_id,] chrom, chromStart, chromEnd,
        count`` (bedGraph rows; bases without a row count 0).
    control : DataFrame, optional
        A control's coverage, the same columns (with ``sample_id``: the control of each
        treatment sample under that sample's id; without: one control for all). The
        summit is then that of ``treatment - control_scale * control``.
    control_scale : float
        The factor of the control (e.g. treatment depth / control depth).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 14, 20],
    ...                     "chromEnd": [10, 14, 20, 30], "count": [1, 9, 9, 2]})
    >>> pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [5], "chromEnd": [25]})
    >>> summit_offsets(pk, cov).tolist()  # bases 10-19 at 9: base 15
    [10]
    >>> ctl = cov.assign(count=[0, 8, 0, 0])
    >>> summit_offsets(pk, cov, control=ctl).tolist()  # 1, 9, 2 left: bases 14-19
    [12]
    """
    require_columns(peaks, ["chrom", "chromStart", "chromEnd"], "peaks")
    if not (isinstance(control_scale, (int, float, np.integer, np.floating))
            and math.isfinite(control_scale) and control_scale >= 0):
        raise ValueError(f"control_scale must be a finite number >= 0, got {control_scale!r}")
    treat, ctrl = _rows_by_problem(coverage), _rows_by_problem(control)
    shared = control is not None and "sample_id" not in control.columns
    sids = peaks["sample_id"].tolist() if "sample_id" in peaks.columns else [None] * len(peaks)
    from penlearn.peaks.formats._summit_kernel import summits  # numba: on first use

    out = np.empty(len(peaks), np.int64)
    starts = peaks["chromStart"].to_numpy(np.int64)
    ends = peaks["chromEnd"].to_numpy(np.int64)
    none = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    groups: dict = {}
    for i, key in enumerate(zip(sids, peaks["chrom"].tolist())):
        groups.setdefault(key, []).append(i)
    for (sid, chrom), rows in groups.items():
        t = treat.get((sid, chrom)) or treat.get((None, chrom)) or none
        c = (None if control is None else ctrl.get((None, chrom) if shared else (sid, chrom))
             ) or none
        for rows_, what in ((t, "coverage"), (c, "control")):
            if (rows_[0][1:] < rows_[1][:-1]).any():
                raise ValueError(f"{what} rows overlap on {chrom}: bedGraph rows must not "
                                 "overlap (each base one value)")
        idx = np.array(rows, np.int64)
        out[idx] = summits(*t, *c, float(control_scale), starts[idx], ends[idx])
    return out


def peak_columns(peaks: pd.DataFrame, coverage: pd.DataFrame | None = None, *,
                 control: pd.DataFrame | None = None,
                 control_scale: float = 1.0,
                 genome_level: tuple[float, float, float] | None = None) -> pd.DataFrame:
    """The peaks with ``score, signalValue, pValue, qValue, summit`` (module's rules).
    ``genome_level``: the sample's (total coverage, bases, fragment length) of
    :func:`genome_level` when ``coverage`` holds part of the genome (then the scores and
    q-values are those of these peaks alone: :func:`rescore` sets them over all).

    Parameters
    ----------
    peaks : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, mean, background``: the peak's mean
        coverage and its background's (reads per base; ``background > 0``). Scores and
        q-values are per sample (``sample_id``), else over all rows.
    coverage, control, control_scale
        For the summits (:func:`summit_offsets`); without ``coverage`` the summit is
        ``-1`` (unknown, as narrowPeak allows).

    Returns
    -------
    DataFrame
        A copy of ``peaks`` with :data:`PEAK_VALUE_COLUMNS` added.

    Examples
    --------
    >>> pk = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100], "chromEnd": [10, 120],
    ...                    "mean": [6.0, 12.0], "background": [2.0, 1.0]})
    >>> t = peak_columns(pk)
    >>> t[["score", "signalValue", "summit"]].values.tolist()
    [[500.0, 3.0, -1.0], [1000.0, 12.0, -1.0]]
    >>> bool((t["pValue"] >= t["qValue"]).all() and (t["qValue"] > 0).all())
    True
    """
    require_columns(peaks, ["chrom", "chromStart", "chromEnd", "mean", "background"], "peaks")
    out = peaks.copy()
    mean = pd.to_numeric(out["mean"], errors="coerce").to_numpy(float)
    bg = pd.to_numeric(out["background"], errors="coerce").to_numpy(float)
    if len(out) and not (np.isfinite(mean).all() and np.isfinite(bg).all() and (bg > 0).all()
                         and (mean >= 0).all()):
        raise ValueError("peaks columns 'mean' (>= 0) and 'background' (> 0) must be finite")
    group = (pd.factorize(out["sample_id"])[0] if "sample_id" in out.columns
             else np.zeros(len(out), np.int64))
    summit = (summit_offsets(out, coverage, control=control, control_scale=control_scale)
              if coverage is not None else np.full(len(out), -1, np.int64))
    if coverage is not None and len(out):
        tests = summit_tests(out, coverage, summit, control=control,
                             control_scale=float(control_scale), genome_level=genome_level)
        k, held, lam, m, n, mu, nc, lengths = (tests[c].to_numpy() for c in (
            "k", "held", "lambda_local", "tests", "fragments", "expected",
            "control_fragments", "lengths"))
        whole = _poisson_log10_sf(np.floor(n), mu)
        if control is not None:  # and against the control's own count there, noise and all
            whole = np.maximum(whole, _binomial_log10_sf(
                np.floor(n), np.floor(n) + np.floor(nc), control_scale / (1 + control_scale)))
        # the smaller of the summit's and the whole peak's p-values, times the number of
        # tests (Bonferroni): without a control, 1 + lengths (the summit's, the whole
        # peak's at each length it could have had); with one, 2 (its λ_local's d and 1 kb
        # windows and the binomial split bound the tests already; issue 52, session 16)
        log10_p = np.minimum(np.minimum(_poisson_log10_sf(held, lam), whole)
                             + (np.log10(1.0 + lengths) if control is None
                                else math.log10(2)), 0.0)
    else:
        k, lam, m = np.rint(mean), bg, np.zeros(len(out))
        log10_p = _poisson_log10_sf(k, lam) if len(out) else mean
    score = np.zeros(len(out), np.int64)
    log10_q = np.zeros(len(out))
    for g in np.unique(group):
        rows = np.flatnonzero(group == g)
        score[rows] = ucsc_scores(mean[rows])
        log10_q[rows] = _bh_log10(log10_p[rows], float(m[rows].max()))
    out["score"] = score
    out["signalValue"] = ((k + 1.0) / (lam + 1.0) if control is not None and len(out)
                          else mean / bg)
    out["pValue"] = -log10_p + 0.0
    out["qValue"] = -log10_q + 0.0
    out["summit"] = summit
    return out
