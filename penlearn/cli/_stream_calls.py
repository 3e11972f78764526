"""The calls of ``penlearn callpeak``'s chromosomes held to the end of the genome (issue
55): only those that may pass ``-q`` / ``-p`` (:func:`_candidates`), with every call's
``mean`` and ``pValue`` for the genome-wide score and q-values (:func:`genome_columns`):
the columns :func:`~penlearn.peaks.formats.peak_columns.rescore` gives every call, in a
few bytes per call dropped instead of the ~200 of its row."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.peaks.formats.peak_columns import (
    WINDOWS_PER_FRAGMENT,
    least_kept_log10p,
    score_columns,
    ucsc_scores,
)

__all__ = ["calls_by_chromosome", "genome_columns"]


#: a margin under ``-log10`` of the cutoff: a call this close may still pass (its
#: q-value is at most its p-value up to the rounding of ``rescore``'s sums)
_CUTOFF_MARGIN = 1e-6


def _candidates(calls: pd.DataFrame, opts: dict) -> tuple[pd.DataFrame, dict]:
    """The calls of one chromosome that may pass ``opts``' ``-p`` (``pvalue``) or ``-q``
    (``qvalue``) cutoff, and the population of the genome-wide columns: the top
    ``mean`` (the UCSC score's), the count of calls ``n`` and the ``pValue`` of every
    call, or under ``-q`` alone only the kept ones' (the q-values' population: those
    dropped change no q-value of a call that passes ``-q``, :func:`genome_columns`) and
    the rows kept among them (``keep``). A call's q-value is never above its p-value,
    so a call whose p-value is below
    :func:`~penlearn.peaks.formats.peak_columns.least_kept_log10p` of the cutoffs is
    no peak whatever the other chromosomes hold: most of the zero-label rule's
    proposed calls (about a hundred per peak kept) are dropped here, not held to the
    end of the genome (:func:`genome_columns`).

    Examples
    --------
    >>> calls = pd.DataFrame({"mean": [3.0, 9.0], "pValue": [0.5, 4.0]})
    >>> kept, pop = _candidates(calls, {"qvalue": 0.01, "pvalue": None})
    >>> kept["pValue"].tolist(), pop["keep"].tolist(), pop["pValue"].tolist(), pop["n"]
    ([4.0], [0], [4.0], 2)
    """
    p = calls["pValue"].to_numpy(float)
    mean = calls["mean"].to_numpy(float)
    ucsc_scores(mean)  # (the score's checks of every call's mean: it names a bad one)
    # the score needs only the top mean; the q-values every call's pValue, or, under
    # -q, only the kept ones' and the count: see genome_columns
    population = {"top": float(mean.max()) if len(mean) else 0.0, "n": len(calls)}
    cut = opts.get("pvalue")
    cut = opts.get("qvalue") if cut is None else cut
    if isinstance(cut, (int, float, np.integer, np.floating)) and 0 < cut <= 1:
        least = least_kept_log10p(qvalue=opts.get("qvalue"), pvalue=opts.get("pvalue"))
        keep = np.flatnonzero(p >= least - _CUTOFF_MARGIN)
        if len(keep) < len(calls):
            calls = calls.iloc[keep].reset_index(drop=True)
    else:  # no cutoff (or a wrong one: significant() names it) — every call
        keep = np.arange(len(calls))
    q_only = opts.get("pvalue") is None and len(keep) < len(p) and cut is not None
    return calls, {**population, "pValue": p[keep] if q_only else p,
                   "keep": np.arange(len(keep)) if q_only else keep}


def genome_columns(calls: pd.DataFrame, population: dict, tests: float) -> pd.DataFrame:
    """The calls that may pass (:func:`_candidates`' rows of every chromosome, in order)
    with ``score`` and ``qValue`` over the whole ``population`` (its ``top`` mean, its
    count ``n``, the ``pValue`` held; ``keep``: the rows of ``calls`` among them): the
    columns and values of :func:`~penlearn.peaks.formats.peak_columns.rescore` of every
    call, at the kept rows, those that pass the cutoff. Under ``-q`` the calls dropped
    rank below every kept one (lower p-values) and their Benjamini-Hochberg values are
    at least their p-values, above the cutoff: a kept call whose q-value they would
    lower fails ``-q`` either way, so only the kept calls' p-values are held.

    Examples
    --------
    >>> calls = pd.DataFrame({"mean": [3.0, 9.0], "pValue": [0.5, 4.0]})
    >>> kept, pop = _candidates(calls, {"qvalue": 0.01, "pvalue": None})
    >>> genome_columns(kept, pop, 10.0)[["score", "qValue"]].round(2).values.tolist()
    [[1000.0, 3.0]]
    """
    # (rescore's columns from the arrays: no table of a genome's millions of calls)
    keep = population["keep"]
    score, q = score_columns(calls["mean"].to_numpy(float), population["pValue"], tests,
                             top=population["top"], calls=population["n"])
    out = calls.copy()
    out["score"] = score
    out["qValue"] = q[keep] if len(keep) < len(q) else q
    return out


def _population(results: dict, chroms: list, n_kept: int) -> dict:
    """Every chromosome's :func:`_candidates` population as one (the kept rows
    numbered in the chromosomes' order of ``call_genome``'s concatenated calls)."""
    pops = [results[c]["population"] for c in chroms]
    offsets = np.cumsum([0] + [len(p["pValue"]) for p in pops[:-1]])
    out = {"top": max([0.0] + [p["top"] for p in pops]), "n": sum(p["n"] for p in pops),
           "pValue": np.concatenate([p["pValue"] for p in pops])}
    out["keep"] = np.concatenate([p["keep"] + o for p, o in zip(pops, offsets)])
    if len(out["keep"]) != n_kept:
        raise AssertionError("the calls kept and their population disagree")
    return out


def calls_by_chromosome(chunks, level: tuple, qvalue: float | None = None, **options
                        ) -> pd.DataFrame:
    """One sample's :func:`~penlearn.peaks.peakseg.calls.peak_calls` a chromosome at a
    time: ``chunks`` yields ``(segments, coverage)`` of one chromosome each (made when
    asked, dropped once its calls are made), ``level`` is the sample's ``(total, bases,
    fragment length)`` over its whole genome (:func:`~penlearn.peaks.formats.
    peak_columns.level_sums` summed in its rows' order); each chromosome's calls that
    may pass ``qvalue`` are kept (:func:`_candidates`; those surely below it get no
    summit: ``screen``), the score and q-value columns made over every call of the
    genome (:func:`genome_columns`). The calls and columns of ``peak_calls`` of the
    whole sample's segments and coverage at once, before ``significant``
    (``tests/cli/test_peaks_stream.py``), in one chromosome's memory; ``options``:
    ``peak_calls``' (``level_shifts``).

    Examples
    --------
    >>> seg = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 20],
    ...                     "chromEnd": [10, 20, 40], "status": ["background", "peak",
    ...                     "background"], "mean": [1.0, 8.0, 2.5]})
    >>> cov = seg[["chrom", "chromStart", "chromEnd"]].assign(count=[1, 8, 2])
    >>> calls = calls_by_chromosome([(seg, cov)], (170.0, 40.0, 17.0))
    >>> calls[["chromStart", "chromEnd", "score", "summit"]].values.tolist()
    [[10, 20, 1000, 5]]
    """
    from penlearn.peaks.peakseg.calls import peak_calls

    opts = {"qvalue": qvalue, "pvalue": None}
    screen = least_kept_log10p(qvalue=qvalue)
    parts, pops, columns = [], {}, None
    for k, (segs, cov) in enumerate(chunks):
        calls = peak_calls(segs, cov, genome_level=level, screen=screen, **options)
        del segs, cov  # (the chunk's tables dropped before the next is made)
        columns = list(calls.columns)
        calls, pops[k] = _candidates(calls.drop(columns=["score", "qValue"]), opts)
        pops[k] = {"population": pops[k]}  # (the form of callpeak's results)
        parts.append(calls)
    if columns is None:
        raise ValueError("no chromosome: a sample without coverage has no calls")
    kept = [c for c in parts if len(c)] or parts[:1]
    calls = pd.concat(kept, ignore_index=True) if len(kept) > 1 else kept[0]
    tests = WINDOWS_PER_FRAGMENT * level[1] / level[2] if level[1] > 0 else 1.0
    return genome_columns(calls, _population(pops, list(pops), len(calls)), tests)[columns]
