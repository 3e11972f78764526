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
  chromosome from 0 to its last covered base).
  Without ``coverage`` (no summit): k the peak's mean coverage rounded, λ its
  ``background``;
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

__all__ = ["PEAK_VALUE_COLUMNS", "genome_level", "peak_columns", "rescore", "significant",
           "summit_offsets", "summit_tests", "trim_level_shifts", "ucsc_scores"]

#: The columns :func:`peak_columns` adds.
PEAK_VALUE_COLUMNS = ("score", "signalValue", "pValue", "qValue", "summit")


def ucsc_scores(values) -> np.ndarray:
    """Integer 0-1000 scores: ``round(1000 * v / max v)`` (all 0 when max v is 0).

    The one score rule of every peak file penlearn writes and of its track hubs: the
    strongest peak 1000, the others in proportion. Scores that already follow it (a
    file whose strongest is 1000) are returned unchanged.

    Examples
    --------
    >>> ucsc_scores([5, 9, 12]).tolist()
    [417, 750, 1000]
    >>> ucsc_scores([417, 750, 1000]).tolist()
    [417, 750, 1000]
    """
    v = np.asarray(values, dtype=float)
    if len(v) and not (np.isfinite(v) & (v >= 0)).all():
        i = int(np.flatnonzero(~(np.isfinite(v) & (v >= 0)))[0])
        raise ValueError(f"peak scores must be finite numbers >= 0; peak {i} has {v[i]!r}")
    top = v.max() if len(v) else 0.0
    if top <= 0:
        return np.zeros(len(v), np.int64)
    return np.clip(np.rint(1000 * v / top), 0, 1000).astype(np.int64)


def _poisson_log10_sf(k: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """log10 P(X >= k), X ~ Poisson(mu); far tails (below 1e-300) by the leading term
    ``pmf(k) / (1 - mu / k)`` of the series, finite for any k > mu."""
    from scipy import special, stats  # here: `import penlearn` stays light (no SciPy)

    with np.errstate(divide="ignore"):
        out = stats.poisson.logsf(k - 1, mu) / math.log(10)
    far = ~np.isfinite(out) | (out < -300)
    if far.any():
        kf, mf = k[far], mu[far]
        log_pmf = kf * np.log(mf) - mf - special.gammaln(kf + 1)
        out[far] = (log_pmf - np.log1p(-mf / kf)) / math.log(10)
    return np.minimum(out, 0.0)


def _bh_log10(log10_p: np.ndarray, m: float | None = None) -> np.ndarray:
    """log10 of the Benjamini-Hochberg adjusted p-values, from log10 p-values, among
    ``m`` tests (default: as many as p-values; the others count as p = 1)."""
    n = len(log10_p)
    if not n:
        return log10_p
    m = max(float(m or n), n)
    order = np.argsort(log10_p, kind="stable")
    adj = log10_p[order] + math.log10(m) - np.log10(np.arange(1, n + 1))
    adj = np.minimum.accumulate(adj[::-1])[::-1]
    out = np.empty(n)
    out[order] = np.minimum(adj, 0.0)
    return out


#: λ_local's windows (bases, centred on the summit): of a control (and its fragment's
#: window d), of the treatment alone
CONTROL_WINDOWS = (1_000, 5_000, 10_000)
OWN_WINDOWS = (5_000, 10_000)


def _integral(rows, x: np.ndarray, cum: np.ndarray) -> np.ndarray:
    """The coverage summed over the bases ``[0, x)`` (rows sorted, not overlapping;
    ``cum``: the rows' running sums, from 0)."""
    starts, ends, counts = rows
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
    cum = np.r_[0.0, np.cumsum(counts * (ends - starts))]
    out = []
    for w in widths:
        a = np.maximum(x - w // 2, 0)
        b = np.maximum(np.minimum(x + (w - w // 2), ends[-1]), a + 1)
        out.append((_integral(rows, b, cum) - _integral(rows, a, cum)) / (b - a))
    return out


def _genome_level(problems: list) -> tuple[float, float, float]:
    """Total coverage, genome bases (each chromosome to its last covered base) and
    fragment length (total over the coverage's rises) of one sample's rows."""
    total = bases = rises = 0.0
    for starts, ends, counts in problems:
        if not len(starts):
            continue
        total += float((counts * (ends - starts)).sum())
        bases += float(ends[-1])
        prev = np.r_[0.0, np.where(starts[1:] == ends[:-1], counts[:-1], 0.0)]
        rises += float(np.maximum(counts - prev, 0.0).sum())
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
    total, bases, d = _genome_level([runs])
    return total, bases, d


def rescore(peaks: pd.DataFrame, tests: float) -> pd.DataFrame:
    """``score`` and ``qValue`` over all ``peaks`` of one sample (made a chromosome at a
    time by :func:`peak_columns` with ``genome_level``), ``tests`` the size of the
    q-value population (``summit_tests``' ``tests``); ``pValue`` as it is.

    Examples
    --------
    >>> pk = pd.DataFrame({"mean": [2.0, 4.0], "pValue": [3.0, 6.0]})
    >>> rescore(pk, 10.0)[["score", "qValue"]].round(2).values.tolist()
    [[500.0, 2.3], [1000.0, 5.0]]
    """
    out = peaks.copy()
    out["score"] = ucsc_scores(out["mean"].to_numpy(float))
    out["qValue"] = -_bh_log10(-out["pValue"].to_numpy(float), float(tests)) + 0.0
    return out


def summit_tests(peaks: pd.DataFrame, coverage: pd.DataFrame, summit: np.ndarray, *,
                 control: pd.DataFrame | None = None, control_scale: float = 1.0,
                 genome_level: tuple[float, float, float] | None = None) -> pd.DataFrame:
    """What each peak's pValue tests (the module's rule): ``k`` (fragments at the summit),
    ``lambda_local`` and ``tests`` (the size of its sample's q-value population).

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
    lam = np.zeros(len(peaks))
    tests = np.zeros(len(peaks))
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
        if control is None:
            local = _window_means(t, x[m], OWN_WINDOWS)
        else:
            c = ctrl.get((None, chrom) if shared else (sid, chrom))
            local = [control_scale * v for v in _window_means(
                c, x[m], (max(int(round(d)), 1), *CONTROL_WINDOWS))]
        lam[m] = np.maximum.reduce([np.full(len(m), lam_g), *local])
        tests[m] = 4 * bases / d if bases > 0 else 1.0
    lam = np.maximum(lam, 1e-9)
    return pd.DataFrame({"k": k, "lambda_local": lam, "tests": tests})


def _rows_by_problem(coverage: pd.DataFrame | None) -> dict:
    if coverage is None:
        return {}
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    cov = coverage if "sample_id" in coverage.columns else coverage.assign(sample_id=None)
    out = {}
    for (sid, chrom), g in cov.groupby(["sample_id", "chrom"], sort=False, dropna=False):
        g = g.sort_values("chromStart", kind="stable")
        out[(None if pd.isna(sid) else sid, chrom)] = (
            g["chromStart"].to_numpy(np.int64), g["chromEnd"].to_numpy(np.int64),
            g["count"].to_numpy(float))
    return out


def _values_at(rows, x: np.ndarray) -> np.ndarray:
    """The coverage of the bases ``x`` (0 where no row covers them)."""
    if rows is None:
        return np.zeros(len(x))
    starts, ends, counts = rows
    i = np.searchsorted(starts, x, side="right") - 1
    ok = (i >= 0) & (ends[np.maximum(i, 0)] > x)
    return np.where(ok, counts[np.maximum(i, 0)], 0.0)


def _edges(rows, a: int, b: int) -> np.ndarray:
    if rows is None:
        return np.empty(0, np.int64)
    starts, ends, _ = rows
    lo, hi = np.searchsorted(ends, a, side="right"), np.searchsorted(starts, b, side="left")
    return np.r_[starts[lo:hi], ends[lo:hi]]


def _summit(treat, control, scale: float, a: int, b: int) -> int:
    """Offset of the summit base of ``[a, b)`` (see the module's rule)."""
    cuts = np.r_[a, b, _edges(treat, a, b), _edges(control, a, b)]
    cuts = np.unique(cuts[(cuts >= a) & (cuts <= b)])
    lo, hi = cuts[:-1], cuts[1:]
    value = _values_at(treat, lo)
    if control is not None:
        value = value - scale * _values_at(control, lo)
    top = value == value.max()
    # runs of consecutive pieces at the top value (pieces are contiguous by construction)
    first = top & ~np.r_[False, top[:-1]]
    run = np.cumsum(first) - 1
    idx = np.flatnonzero(top)
    length = np.bincount(run[idx], weights=(hi - lo)[idx])
    best = int(np.argmax(length))  # the longest run, the first of equals
    members = idx[run[idx] == best]
    s, e = int(lo[members[0]]), int(hi[members[-1]])
    return (s + e) // 2 - a


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
    out = np.empty(len(peaks), np.int64)
    for i, (sid, chrom, a, b) in enumerate(zip(
            sids, peaks["chrom"].tolist(), peaks["chromStart"].tolist(),
            peaks["chromEnd"].tolist())):
        t = treat.get((sid, chrom)) or treat.get((None, chrom))
        c = None if control is None else ctrl.get((None, chrom) if shared else (sid, chrom))
        out[i] = _summit(t, c, float(control_scale), int(a), int(b))
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
        k, lam, m = (tests[c].to_numpy() for c in ("k", "lambda_local", "tests"))
    else:
        k, lam, m = np.rint(mean), bg, np.zeros(len(out))
    score = np.zeros(len(out), np.int64)
    log10_p = _poisson_log10_sf(k, lam) if len(out) else mean
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


def significant(peaks: pd.DataFrame, *, qvalue: float | None = None,
                pvalue: float | None = None) -> pd.DataFrame:
    """The peaks of q-value <= ``qvalue`` (``qValue >= -log10 qvalue``), or of p-value
    <= ``pvalue`` (MACS3's ``-p``, which replaces ``-q`` when given); their values are
    kept as they are (the q-values stay those of the whole population).

    Examples
    --------
    >>> pk = pd.DataFrame({"pValue": [1.0, 3.0, 8.0], "qValue": [0.5, 1.5, 6.0]})
    >>> significant(pk, qvalue=0.01)["qValue"].tolist()  # -log10 0.01 = 2
    [6.0]
    >>> significant(pk, pvalue=0.01)["pValue"].tolist()  # -log10 0.01 = 2
    [3.0, 8.0]
    """
    for name, v in (("qvalue", qvalue), ("pvalue", pvalue)):
        if v is not None and not (isinstance(v, (int, float, np.integer, np.floating))
                                  and 0 < v <= 1):
            raise ValueError(f"{name} must be a number > 0 and <= 1, got {v!r}")
    if pvalue is not None:
        require_columns(peaks, ["pValue"], "peaks")
        keep = peaks["pValue"].to_numpy(float) >= -math.log10(pvalue)
    elif qvalue is not None:
        require_columns(peaks, ["qValue"], "peaks")
        keep = peaks["qValue"].to_numpy(float) >= -math.log10(qvalue)
    else:
        return peaks
    return peaks[keep].reset_index(drop=True)


#: The level-shift rule (:func:`trim_level_shifts`): the calls tested (bases, at least),
#: the fold over their local background they need, the flanks (bases each side) whose
#: level can be that background, and the significance (-log10 p) of the whole call and of
#: each base of its significant part.
SHIFT_MIN_WIDTH = 10_000
SHIFT_MIN_FOLD = 1.5
SHIFT_FLANKS = (10_000, 100_000)
SHIFT_LOG10P = 5.0


def _mean_over(rows, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mean coverage over each ``[a, b)`` (``b > a``; 0 where no rows)."""
    if rows is None or not len(rows[0]):
        return np.zeros(len(a))
    starts, ends, counts = rows
    cum = np.r_[0.0, np.cumsum(counts * (ends - starts))]
    b = np.maximum(b, a + 1)
    return (_integral(rows, b, cum) - _integral(rows, a, cum)) / (b - a)


def _local_levels(t, c, scale: float, a: np.ndarray, b: np.ndarray, lam_g: float
                  ) -> np.ndarray:
    """λ_local of each call ``[a, b)``: the largest of the genome's level and, without a
    control (``c`` None), the level of its lower side: on each side, the larger of the
    treatment's means over the :data:`SHIFT_FLANKS` bases next to the call (a side
    without bases, at a chromosome's end, left out); with one, the scaled control's
    over the call itself and over the call with those flanks on both sides."""
    out = [np.full(len(a), lam_g)]
    last = max(int(t[1][-1]) if t is not None and len(t[0]) else 0, int(b.max()))
    if c is None:
        left = np.maximum.reduce([_mean_over(t, np.maximum(a - w, 0), a)
                                  for w in SHIFT_FLANKS])
        right = np.maximum.reduce([_mean_over(t, b, np.minimum(b + w, last))
                                   for w in SHIFT_FLANKS])
        left = np.where(a > 0, left, np.inf)
        right = np.where(b < last, right, np.inf)
        lower = np.minimum(left, right)
        out.append(np.where(np.isfinite(lower), lower, 0.0))
    else:
        out.append(scale * _mean_over(c, a, b))
        for w in SHIFT_FLANKS:
            out.append(scale * _mean_over(c, np.maximum(a - w, 0), np.minimum(b + w, last)))
    return np.maximum.reduce(out)


def _significant_parts(t, a: int, b: int, lam: float, d: float, log10p: float) -> list:
    """``(start, end, mean)`` of the runs of ``[a, b)`` whose coverage k has ``-log10
    P(X >= k) >= log10p`` under Poisson(``lam``), runs less than ``d`` apart joined."""
    if t is None or not len(t[0]):
        return []
    starts, ends, counts = t
    lo, hi = np.searchsorted(ends, a, side="right"), np.searchsorted(starts, b, side="left")
    s, e, k = (np.clip(starts[lo:hi], a, b), np.clip(ends[lo:hi], a, b), counts[lo:hi])
    if not len(k):
        return []
    top = np.unique(k[k > lam])
    if not len(top):
        return []
    ok = top[_poisson_log10_sf(top.astype(float), np.full(len(top), lam)) <= -log10p]
    if not len(ok):
        return []
    keep = k >= ok.min()
    s, e, k = s[keep], e[keep], k[keep]
    new = np.r_[True, s[1:] - e[:-1] >= max(d, 1.0)]
    grp = np.cumsum(new) - 1
    first, last = np.flatnonzero(new), np.r_[np.flatnonzero(new)[1:] - 1, len(s) - 1]
    ps, pe = s[first], e[last]
    # each part's mean over its whole extent (the bases between its runs counted)
    area = np.bincount(grp, weights=k * (e - s))
    inner = _mean_over(t, ps, pe) * (pe - ps)
    return [(int(x), int(y), float(max(z, w) / max(y - x, 1)))
            for x, y, z, w in zip(ps, pe, inner, area)]


def trim_level_shifts(peaks: pd.DataFrame, coverage: pd.DataFrame, *,
                      control: pd.DataFrame | None = None, control_scale: float = 1.0,
                      genome_level: tuple[float, float, float] | None = None,
                      min_width: int = SHIFT_MIN_WIDTH, min_fold: float = SHIFT_MIN_FOLD,
                      log10p: float = SHIFT_LOG10P) -> pd.DataFrame:
    """The calls with each *level shift* replaced by its significant part.

    A call of ``min_width`` bases or more is a level shift — a change of the background's
    level (a wobble over 100 kb–1 Mb, GC content, copy number), not a peak — when the
    treatment's mean over its whole extent is less than ``min_fold`` times its
    ``λ_local``, or not significantly above it (``-log10 P(X >= n) < log10p``, X Poisson
    of the fragments ``λ_local`` gives the call's bases, ``n`` the call's fragments: its
    coverage summed over its bases over the fragment length). ``λ_local`` is the largest
    of the sample's genome-wide level and, as MACS3's local λ (Zhang et al. 2008,
    *Genome Biology* 9:R137) at the call's scale: without a control, the treatment's own
    level beside the call on its lower side (each side's level the larger of its means
    over the 10 kb and the 100 kb next to the call: a raised region stands above both
    its sides, a domain among others above one at least); with one, the control's
    (times ``control_scale``) over the call and over the call with 10 kb and 100 kb
    more on both sides. A level shift is replaced by the runs of its bases whose coverage alone is
    significant under ``λ_local`` (``-log10 p >= log10p``, MACS3's per-base test; runs
    less than a fragment apart joined: a real peak on a raised background stays), each
    with its own mean and ``λ_local`` as its background; none: it is dropped. Shorter
    calls and the others are kept as they are.

    Parameters
    ----------
    peaks : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, mean, background`` (other columns are
        kept, a part taking its call's).
    coverage, control, control_scale, genome_level
        As :func:`peak_columns`.
    min_width, min_fold, log10p
        The rule's constants (module's :data:`SHIFT_MIN_WIDTH`, :data:`SHIFT_MIN_FOLD`,
        :data:`SHIFT_LOG10P`).

    Examples
    --------
    A 200 kb call 1.3 times the genome's level holding one real peak (base 150,000):

    >>> cov = pd.DataFrame({"chrom": "chr1",
    ...                     "chromStart": [0, 500_000, 600_000, 600_300, 700_000],
    ...                     "chromEnd": [500_000, 600_000, 600_300, 700_000, 2_000_000],
    ...                     "count": [10, 13, 40, 13, 10]})
    >>> pk = pd.DataFrame({"chrom": ["chr1"], "chromStart": [500_000],
    ...                    "chromEnd": [700_000], "mean": [13.0], "background": [10.0]})
    >>> trim_level_shifts(pk, cov)[["chromStart", "chromEnd", "mean"]].values.tolist()
    [[600000.0, 600300.0, 40.0]]
    """
    require_columns(peaks, ["chrom", "chromStart", "chromEnd", "mean", "background"], "peaks")
    for name, v in (("min_width", min_width), ("min_fold", min_fold), ("log10p", log10p)):
        if not (isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(v)
                and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    width = (peaks["chromEnd"] - peaks["chromStart"]).to_numpy(np.int64)
    long_ = np.flatnonzero(width >= min_width)
    if not len(long_) or coverage is None:
        return peaks
    treat, ctrl = _rows_by_problem(coverage), _rows_by_problem(control)
    shared = control is not None and "sample_id" not in control.columns
    sids = peaks["sample_id"].tolist() if "sample_id" in peaks.columns else [None] * len(peaks)
    level: dict = {}
    parts: dict = {}
    chroms = peaks["chrom"].tolist()
    for i in long_:
        sid, chrom = sids[i], chroms[i]
        if sid not in level:
            mine = [v for (s, _), v in treat.items() if s == sid or s is None]
            level[sid] = genome_level or _genome_level(mine or list(treat.values()))
        total, bases, d = level[sid]
        t = treat.get((sid, chrom)) or treat.get((None, chrom))
        c = None if control is None else ctrl.get((None, chrom) if shared else (sid, chrom))
        if control is not None and c is None:
            c = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        a = np.array([int(peaks["chromStart"].iat[i])])
        b = np.array([int(peaks["chromEnd"].iat[i])])
        lam = float(_local_levels(t, c, float(control_scale), a, b,
                                  total / bases if bases > 0 else 0.0)[0])
        inside = float(_mean_over(t, a, b)[0])
        n, mu = inside * (b - a) / d, max(lam, 1e-9) * (b - a) / d
        strong = (inside >= min_fold * lam
                  and -float(_poisson_log10_sf(np.floor(n), mu)[0]) >= log10p)
        if not strong:
            parts[i] = (_significant_parts(t, int(a[0]), int(b[0]), max(lam, 1e-9), d,
                                           log10p), lam)
    if not parts:
        return peaks
    rows = []
    for i in range(len(peaks)):
        if i not in parts:
            rows.append((i, None))
        else:
            rows += [(i, p) for p in parts[i][0]]
    idx = np.array([r[0] for r in rows], np.int64)
    out = peaks.iloc[idx].reset_index(drop=True)
    sub = np.array([r[1] is not None for r in rows], bool)
    if sub.any():
        new = np.array([r[1] for r in rows if r[1] is not None], float)
        for col, k in (("chromStart", 0), ("chromEnd", 1)):
            v = out[col].to_numpy().copy()
            v[sub] = new[:, k].astype(v.dtype)
            out[col] = v
        mean = out["mean"].to_numpy(float).copy()
        mean[sub] = new[:, 2]
        out["mean"] = mean
        bg = out["background"].to_numpy(float).copy()
        bg[sub] = [parts[i][1] for i in idx[sub]]
        out["background"] = bg
    return out
