"""The peak files' statistics: UCSC scores, Poisson and binomial tails, Benjamini &
Hochberg's q-values over a population of tests, and the cutoffs of ``-q`` / ``-p``
(the rules: :mod:`penlearn.peaks.formats.peak_columns`, which uses them and re-exports
the public ones).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn._checks import require_columns

__all__ = ["least_kept_log10p", "rescore", "score_columns", "significant", "ucsc_scores"]


def ucsc_scores(values, top: float | None = None) -> np.ndarray:
    """Integer 0-1000 scores: ``round(1000 * v / max v)`` (all 0 when max v is 0).

    The one score rule of every peak file penlearn writes and of its track hubs: the
    strongest peak 1000, the others in proportion. Scores that already follow it (a
    file whose strongest is 1000) are returned unchanged. ``top``: the max of a larger
    population ``values`` are among (default: their own max).

    Examples
    --------
    >>> ucsc_scores([5, 9, 12]).tolist()
    [417, 750, 1000]
    >>> ucsc_scores([417, 750, 1000]).tolist()
    [417, 750, 1000]
    >>> ucsc_scores([5, 9], top=12.0).tolist()
    [417, 750]
    """
    v = np.asarray(values, dtype=float)
    if len(v) and not (np.isfinite(v) & (v >= 0)).all():
        i = int(np.flatnonzero(~(np.isfinite(v) & (v >= 0)))[0])
        raise ValueError(f"peak scores must be finite numbers >= 0; peak {i} has {v[i]!r}")
    if top is None:
        top = v.max() if len(v) else 0.0
    if top <= 0:
        return np.zeros(len(v), np.int64)
    return np.clip(np.rint(1000 * v / top), 0, 1000).astype(np.int64)


def _poisson_logsf(x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """``scipy.stats.poisson.logsf(x, mu)``, value for value, from ``scipy.special``
    alone: ``scipy.stats`` costs a process ~50 MB more (``callpeak``'s memory, issue 55).
    As SciPy: ``log(pdtrc(floor(x), mu))`` where ``0 <= x < inf``, 0 below the support,
    −inf at +inf, NaN where ``x`` is NaN or ``mu`` is not >= 0.

    Examples
    --------
    >>> _poisson_logsf(np.array([-1.0, 0.0, 2.0, np.inf]), np.full(4, 1.0)).round(4).tolist()
    [0.0, -0.4587, -2.522, -inf]
    """
    from scipy import special  # here: `import penlearn` stays light (no SciPy)

    x, mu = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(mu, dtype=float))
    ok = mu >= 0
    out = np.full(x.shape, -np.inf)
    out[~ok | np.isnan(x)] = np.nan
    out[(x < 0) & ok] = 0.0
    inside = ok & (x >= 0) & (x < np.inf)
    with np.errstate(divide="ignore"):
        out[inside] = np.log(special.pdtrc(np.floor(x[inside]), mu[inside]))
    return out


def _poisson_log10_sf(k: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """log10 P(X >= k), X ~ Poisson(mu); far tails (below 1e-300) by the leading term
    ``pmf(k) / (1 - mu / k)`` of the series, finite for any k > mu."""
    from scipy import special  # here: `import penlearn` stays light (no SciPy)

    with np.errstate(divide="ignore"):
        out = _poisson_logsf(k - 1, mu) / math.log(10)
    far = ~np.isfinite(out) | (out < -300)
    if far.any():
        kf, mf = k[far], mu[far]
        log_pmf = kf * np.log(mf) - mf - special.gammaln(kf + 1)
        out[far] = (log_pmf - np.log1p(-mf / kf)) / math.log(10)
    return np.minimum(out, 0.0)


def _binomial_logsf(x: np.ndarray, n: np.ndarray, prob: float) -> np.ndarray:
    """``scipy.stats.binom.logsf(x, n, prob)``, value for value, without importing
    ``scipy.stats`` (~40 MB of a ``callpeak`` process with a control, issue 55): its
    survival function ``_binom_sf`` (the ufunc of ``scipy.special`` that ``binom``
    calls; ``scipy.stats`` where a SciPy lacks it) and its edges: NaN where ``n`` is not
    a whole number >= 0, ``prob`` not in [0, 1] or ``x`` NaN, 0 below the support, −inf
    from ``n`` up.

    Examples
    --------
    >>> _binomial_logsf(np.array([-1.0, 0.0, 2.0, 3.0]), np.full(4, 3.0), 0.5).round(4)
    array([ 0.    , -0.1335, -2.0794,    -inf])
    """
    try:
        from scipy.special._ufuncs import _binom_sf
    except ImportError:  # (another SciPy: its stats module)
        from scipy import stats

        with np.errstate(divide="ignore"):
            return stats.binom.logsf(x, n, prob)
    x, n = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(n, dtype=float))
    p_ok = 0.0 <= prob <= 1.0
    ok = (n >= 0) & (n == np.round(n)) & p_ok
    out = np.full(x.shape, -np.inf)
    out[~ok | np.isnan(x)] = np.nan
    out[(x < 0) & ok] = 0.0
    inside = ok & (x >= 0) & (x < n)
    with np.errstate(divide="ignore"):
        out[inside] = np.log(_binom_sf(np.floor(x[inside]), n[inside], prob))
    return out


def _binomial_log10_sf(k: np.ndarray, n: np.ndarray, prob: float) -> np.ndarray:
    """log10 P(X >= k), X ~ Binomial(n, prob): the treatment's k of the n fragments of
    treatment and control together, when both come from one level (``prob``: the
    treatment's share of the depth)."""
    with np.errstate(divide="ignore"):
        out = _binomial_logsf(k - 1, n, prob) / math.log(10)
    return np.minimum(np.where(np.isnan(out), 0.0, out), 0.0)


def _bh_log10(log10_p: np.ndarray, m: float | None = None) -> np.ndarray:
    """log10 of the Benjamini-Hochberg adjusted p-values, from log10 p-values, among
    ``m`` tests (default: as many as p-values; the others count as p = 1)."""
    n = len(log10_p)
    if not n:
        return log10_p
    m = max(float(m or n), n)
    order = np.argsort(log10_p, kind="stable")
    # (in place: a genome's millions of calls at the end of callpeak, issue 55; the
    # same operations, in the same order, as log10_p[order] + log10(m) - log10(rank))
    adj = log10_p[order]
    adj += math.log10(m)
    rank = np.arange(1, n + 1, dtype=float)
    adj -= np.log10(rank, out=rank)
    del rank
    back = adj[::-1]
    np.minimum.accumulate(back, out=back)
    out = np.empty(n)
    out[order] = np.minimum(adj, 0.0, out=adj)
    return out


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
    out["score"], out["qValue"] = score_columns(out["mean"], out["pValue"], tests)
    return out


def score_columns(mean, pvalue, tests: float, *, top: float | None = None,
                  calls: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rescore`'s ``score`` and ``qValue`` of every peak, from their ``mean`` and
    ``pValue`` arrays (no table of them). ``top`` and ``calls``: the top mean and the
    count of a larger population of peaks these are among, those left out the least
    significant ones (``callpeak`` holds only the peaks that may pass ``-q``, issue
    55): the scores then exact, and the q-values of those that pass ``-q``.

    Examples
    --------
    >>> s, q = score_columns(np.array([2.0, 4.0]), np.array([3.0, 6.0]), 10.0)
    >>> s.tolist(), q.round(2).tolist()
    ([500, 1000], [2.3, 5.0])
    >>> s, q = score_columns(np.array([4.0]), np.array([6.0]), 10.0, top=4.0, calls=2)
    >>> s.tolist(), q.round(2).tolist()
    ([1000], [5.0])
    """
    score = ucsc_scores(np.asarray(mean, float), top=top)
    m = float(tests)
    if calls is not None:  # (as _bh_log10's m of every call)
        m = max(float(tests or calls), float(calls))
    q = _bh_log10(-np.asarray(pvalue, float), m)
    np.negative(q, out=q)
    q += 0.0
    return score, q


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



def least_kept_log10p(*, qvalue: float | None = None, pvalue: float | None = None
                      ) -> float | None:
    """The least ``pValue`` (``-log10 p``) of a peak :func:`significant` can keep with
    these cutoffs, whatever the other peaks: ``-log10 pvalue``, else ``-log10 qvalue``
    (a Benjamini-Hochberg q-value is never below its p-value, :func:`rescore`); None when
    no cutoff (every peak kept). A peak whose p-value is surely above it (its best
    possible summit) needs no summit nor local λ: ``peak_calls(..., screen=)``.

    Examples
    --------
    >>> least_kept_log10p(qvalue=0.01), least_kept_log10p(qvalue=0.05, pvalue=0.001)
    (2.0, 3.0)
    """
    if pvalue is not None:
        return -math.log10(pvalue)
    if qvalue is not None:
        return -math.log10(qvalue)
    return None
