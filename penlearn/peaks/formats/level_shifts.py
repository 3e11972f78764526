"""Level shifts are not peaks (issue 52): a long call that is only a change of the
background's level is trimmed to its significant part (:func:`trim_level_shifts`, applied
by :func:`~penlearn.peaks.peakseg.calls.peak_calls` to every peak file's calls).

A Poisson segmentation of megabases of reads finds a region whose background is raised
by a few tens of percent (GC content, copy number, mappability: a "wobble" of 100 kb–1
Mb, in the treatment and its control alike) significant at any penalty; MACS3 does not
call it because its local λ (Zhang et al. 2008, *Genome Biology* 9:R137) follows the
background over 1–10 kb. Here the call itself is tested against a local λ at its own
scale, and only what is significant base by base is kept of a call that fails.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.peak_columns import (
    _genome_level,
    _integral,
    _poisson_log10_sf,
    _rows_by_problem,
)

__all__ = ["SHIFT_FLANKS", "SHIFT_LOG10P", "SHIFT_MIN_FOLD", "SHIFT_MIN_WIDTH",
           "trim_level_shifts"]

#: The level-shift rule (:func:`trim_level_shifts`): the calls tested (bases, at least),
#: the fold over their local background they need, the flanks (bases each side) whose
#: level can be that background, and the significance (-log10 p) of the whole call and of
#: each base of its significant part.
SHIFT_MIN_WIDTH = 10_000
SHIFT_MIN_FOLD = 1.5
SHIFT_FLANKS = (10_000, 100_000)
SHIFT_LOG10P = 5.0


def _with_sums(rows):
    """``rows`` (starts, ends, counts) with their running sums of coverage (from 0)."""
    if rows is None:
        return None
    from penlearn.peaks.formats._summit_kernel import running_sums  # numba: on first use

    starts, ends, counts = rows
    return starts, ends, counts, running_sums(starts, ends, counts)


def _mean_over(rows, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mean coverage over each ``[a, b)`` (``b > a``; 0 where no rows); ``rows`` from
    :func:`_with_sums`."""
    if rows is None or not len(rows[0]):
        return np.zeros(len(a))
    cum = rows[3]
    b = np.maximum(b, a + 1)
    return (_integral(rows[:3], b, cum) - _integral(rows[:3], a, cum)) / (b - a)


def _local_levels(t, c, scale: float, a: np.ndarray, b: np.ndarray, lam_g: float
                  ) -> np.ndarray:
    """λ_local of each call ``[a, b)``: the largest of ``lam_g`` (the chromosome's
    background: its mean outside the calls) and, without a control (``c`` None), the
    level of its lower side: on each side, the smaller of the treatment's means over the
    :data:`SHIFT_FLANKS` bases next to the call (a side without bases, at a chromosome's
    end, left out); with one, the scaled control's over the call itself and over the
    call with those flanks on both sides."""
    out = [np.full(len(a), lam_g)]
    last = max(int(t[1][-1]) if t is not None and len(t[0]) else 0, int(b.max()))
    if c is None:
        left = np.minimum.reduce([_mean_over(t, np.maximum(a - w, 0), a)
                                  for w in SHIFT_FLANKS])
        right = np.minimum.reduce([_mean_over(t, b, np.minimum(b + w, last))
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


def _background(t, peaks: pd.DataFrame, sid, chrom, sids: list, chroms: list,
                fallback: float) -> float:
    """The mean coverage of a chromosome outside its calls (``fallback``: the sample's
    genome-wide level, where the calls cover it all): the background the calls stand on.
    The sample's mean, calls and all, stands well above it where features are dense (a
    domain every 60 kb), and true domains failed against it."""
    if t is None or not len(t[0]):
        return fallback
    mine = np.flatnonzero([(x == sid and y == chrom) for x, y in zip(sids, chroms)])
    a = peaks["chromStart"].to_numpy(np.int64)[mine]
    b = peaks["chromEnd"].to_numpy(np.int64)[mine]
    inside = float((_mean_over(t, a, b) * (b - a)).sum()) if len(mine) else 0.0
    bases = float(t[1][-1]) - float((b - a).sum())
    return (float(t[3][-1]) - inside) / bases if bases > 0 else fallback


def _significant_parts(t, a: int, b: int, lam: float, d: float, log10p: float) -> list:
    """``(start, end, mean)`` of the runs of ``[a, b)`` whose coverage k has ``-log10
    P(X >= k) >= log10p`` under Poisson(``lam``), runs less than ``d`` apart joined."""
    if t is None or not len(t[0]):
        return []
    starts, ends, counts = t[:3]
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
    of the chromosome's background (its mean coverage outside the calls) and, as MACS3's
    local λ (Zhang et al. 2008, *Genome Biology* 9:R137) at the call's scale: without a
    control, the treatment's own level beside the call on its lower side (each side's
    level the smaller of its means over the 10 kb and the 100 kb next to the call: a
    domain among others has background within 10 kb of it); with one, the control's
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
    sums: dict = {}  # each chromosome's running sums, once
    chroms = peaks["chrom"].tolist()
    for i in long_:
        sid, chrom = sids[i], chroms[i]
        if sid not in level:
            mine = [v for (s, _), v in treat.items() if s == sid or s is None]
            level[sid] = genome_level or _genome_level(mine or list(treat.values()))
        total, bases, d = level[sid]
        if (sid, chrom) not in sums:
            t = treat.get((sid, chrom)) or treat.get((None, chrom))
            c = None if control is None else ctrl.get((None, chrom) if shared else (sid,
                                                                                   chrom))
            if control is not None and c is None:
                c = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
            t = _with_sums(t)
            sums[(sid, chrom)] = (t, _with_sums(c), _background(
                t, peaks, sid, chrom, sids, chroms, total / bases if bases > 0 else 0.0))
        t, c, floor = sums[(sid, chrom)]
        a = np.array([int(peaks["chromStart"].iat[i])])
        b = np.array([int(peaks["chromEnd"].iat[i])])
        lam = float(_local_levels(t, c, float(control_scale), a, b, floor)[0])
        inside = float(_mean_over(t, a, b)[0])
        n, mu = inside * (b - a) / d, max(lam, 1e-9) * (b - a) / d
        strong = (inside >= min_fold * lam
                  and -float(_poisson_log10_sf(np.floor(n), mu)[0]) >= log10p)
        if not strong:
            parts[i] = (_significant_parts(t, int(a[0]), int(b[0]), max(lam, 1e-9), d,
                                           log10p), lam)
    if not parts:
        return peaks
    # each call one row, a level shift its parts' rows (none: dropped), in order
    done = sorted(parts)
    counts = np.ones(len(peaks), np.int64)
    counts[done] = [len(parts[i][0]) for i in done]
    idx = np.repeat(np.arange(len(peaks)), counts)
    out = peaks.iloc[idx].reset_index(drop=True)
    shifted = np.zeros(len(peaks), bool)
    shifted[done] = True
    sub = shifted[idx]
    if sub.any():
        new = np.array([x for i in done for x in parts[i][0]], float)
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
