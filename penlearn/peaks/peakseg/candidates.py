"""The stretches of a window worth a PeakSeg solve in ``penlearn callpeak``: those where a
call could pass ``-q`` / ``-p`` (issue 55).

``callpeak``'s zero-label penalty segments the pileup finely (a change every few kb at
1× coverage), then keeps the calls whose p-value passes the cutoff: at 20 M reads ~99 %
of the model's peaks fail it, and the solve over every pileup row was ~60 % of the run's
CPU. ``callpeak --solve candidates`` (the default) solves each window only on its
**candidate stretches** (:func:`candidate_ranges`): the rows that could hold the summit
of a passing call, and the blocks of 4, 16 and 64 fragments whose fragments could pass
the whole peak's test, each widened by :data:`FLANK_BASES` bases and :data:`FLANK` rows
on both sides, merged where they touch; each stretch is solved alone at the window's penalty
(:func:`ranges_segments`) and the rows between stretches are background segments
(:func:`~penlearn.peaks.peakseg._flanks.uncovered_segments`, as between windows).

It is a change of the model, not a proof of the same one: a stretch solved alone has
its own first and last background means, and so could place a change near its ends
elsewhere than the whole window's solve. The flank keeps such changes away from the
calls (and a stretch is widened again where a peak that could pass has the cut's run for
its background): at 5 kb and 200 rows, the files of ``benchmarks/callpeak_genome.py``
(four kinds, full size and ``--scale 0.1``) are byte for byte those of ``--solve whole``
(``benchmarks/RESULTS.md``, "candidate stretches"), and the tests compare both on
simulated reads and on real coverage.

The bound on the cutoff: among ``m`` Benjamini–Hochberg tests with at most ``N`` calls
that pass ``q``, a passing call's p-value is at most ``q · N / m`` (Benjamini and
Hochberg, 1995); a call's p-value is at least twice the least of its summit's test and
its whole peak's test (:func:`~penlearn.peaks.peakseg.calls.screened_out`), each summit
test at least that of the call's highest count against the genome's level. ``N`` is at
most the rows of such counts (each passing call holds one), which makes the bound a
fixed point (:func:`cutoff_bound`). The blocks stand for the whole peak's test (a broad
call need not hold a high count); they are not a bound.

A row is a summit seed only where its test could pass against the call's own local λ
(session 18): the summit's test counts the level it *holds* over half a fragment
(:func:`_held_bound`: at most its row's count) against ``λ_local``, never below the
windows' means around it (the treatment's own 5 and 10 kb without a control, the
control's 1, 5 and 10 kb times its scale with one), which :func:`row_floors` bounds from
below from whole bins of the chromosome's coverage (:func:`local_floor`); a block is
tested against its rows' least bound. Both are lower bounds of what the calls test, so
no row that could be a passing summit is dropped; the stretches were ~40 % fewer rows
at genome size (the files byte for byte the same, ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["BLOCK_FRAGMENTS", "FLANK", "FLANK_BASES", "FLOOR_BIN", "candidate_ranges",
           "candidate_segments", "count_histogram", "cutoff_bound", "least_count",
           "local_floor",
           "ranges_segments", "row_floors", "seed_rows", "summit_threshold"]

#: the block sizes of the whole peak's test, in fragments (half overlapping)
BLOCK_FRAGMENTS = (4, 16, 64)

#: the rows each candidate stretch is widened by on both sides, past its bases' flank
FLANK = 200

#: the bases each candidate stretch is widened by on both sides (then FLANK rows more)
FLANK_BASES = 5000

#: a stretch is widened where a peak that could pass is among its first (last)
#: ``EDGE_RUNS`` runs (2: next to the run its cut ends; more cost more than a flank
#: that much wider, ``benchmarks/RESULTS.md``)
EDGE_RUNS = 2

#: how many times a stretch is widened at most (:func:`ranges_segments`)
GROW = 8

#: the bases of :func:`local_floor`'s bins (a window's bound misses at most two bins)
FLOOR_BIN = 250

#: counts at or above it share the last bin of :func:`count_histogram`
HISTOGRAM_BINS = 4096


def count_histogram(counts: np.ndarray) -> np.ndarray:
    """How many pileup rows have each count (``HISTOGRAM_BINS - 1`` and above: the
    last bin), for :func:`cutoff_bound`; fractional counts (weighted reads) floored.

    Examples
    --------
    >>> count_histogram(np.array([0, 2, 2, 5000]))[[0, 1, 2, 4095]].tolist()
    [1, 0, 2, 1]
    """
    from penlearn.peaks.peakseg._seed_kernel import counts_histogram

    # (one compiled pass: chr1's first pass holds every read, and the floored, clipped
    # copies of its pileup's counts were callpeak's high-water mark without a control)
    return counts_histogram(np.asarray(counts), HISTOGRAM_BINS)


def least_count(mean: float, log10_p: float) -> int:
    """The least count ``h`` with ``2 P(X >= h) <= 10 ** log10_p``, X Poisson(``mean``)
    (by the p-values' own function; bisection).

    Examples
    --------
    >>> least_count(1.0, -2.0)  # P(X >= 5) = 0.0037, P(X >= 4) = 0.019
    5
    >>> least_count(200.0, -6.0)
    274
    """
    from penlearn.peaks.formats.peak_stats import _poisson_log10_sf

    mean = max(float(mean), 1e-9)

    def passes(h):
        return _poisson_log10_sf(np.array([float(h)]), np.array([mean]))[0] + math.log10(
            2.0) <= log10_p
    lo, hi = 0, max(16, int(math.ceil(mean)))  # (0 never passes: P(X >= 0) = 1)
    while not passes(hi):
        lo, hi = hi, 2 * hi
        if hi > 2**52:
            return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if passes(mid) else (mid, hi)
    return hi


def summit_threshold(level: float, log10_p: float) -> int:
    """:func:`least_count` of the genome's ``level`` (at most 4096: the last bin of
    :func:`count_histogram`).

    Examples
    --------
    >>> summit_threshold(1.0, -2.0)  # P(X >= 5) = 0.0037, P(X >= 4) = 0.019
    5
    """
    return min(least_count(level, log10_p), 4096)


def cutoff_bound(histogram: np.ndarray, level: float, tests: float, qvalue: float,
                 ) -> float:
    """log10 of a bound on the p-value of any call that passes ``qvalue`` among
    ``tests`` Benjamini–Hochberg tests, from ``histogram[h]``, the number of pileup rows
    of count ``h`` (the last entry: that count and above) over the genome.

    Examples
    --------
    >>> hist = np.zeros(20); hist[0], hist[1], hist[12] = 1e6, 1e6, 10
    >>> round(cutoff_bound(hist, 1.0, 1e6, 0.05), 2)  # q · 10 / 1e6
    -6.3
    """
    tail = np.cumsum(np.asarray(histogram, float)[::-1])[::-1]  # rows of count >= h
    log_p = math.log10(qvalue)
    for _ in range(64):
        h = min(summit_threshold(level, log_p), len(tail) - 1)
        n = max(float(tail[h]), 1.0)
        new = math.log10(qvalue * min(n, tests) / tests)
        if new >= log_p - 1e-9:
            break
        log_p = new
    return log_p


def local_floor(runs, widths: tuple, scale: float = 1.0, bin_size: int = FLOOR_BIN,
                span: tuple | None = None) -> tuple:
    """What :func:`row_floors` needs to bound the local λ of a chromosome's calls from
    below: the coverage ``runs`` ``(starts, ends, counts)`` of the chromosome (the
    treatment's own without a control, the control's with one) summed over whole bins
    of ``bin_size`` bases (over ``span = (lo, hi)`` bases only, when given: a window
    and its windows' reach; a bin out of it counts none, a lower bound still), with the
    window ``widths`` and the ``scale`` of the local λ of
    :func:`~penlearn.peaks.formats.peak_columns.summit_tests` (``len / bin_size``
    floats: ~8 MB for chr1 whole).

    Examples
    --------
    >>> runs = (np.array([0, 500]), np.array([500, 1000]), np.array([1.0, 3.0]))
    >>> local_floor(runs, (1000,), bin_size=250)[1].tolist()
    [0.0, 250.0, 500.0, 1250.0, 2000.0]
    """
    from penlearn.peaks.peakseg._seed_kernel import bin_areas

    starts, ends, counts = (np.asarray(runs[0], np.int64), np.asarray(runs[1], np.int64),
                            np.asarray(runs[2]))
    lo, hi = (0, int(ends[-1]) if len(ends) else 0) if span is None else span
    origin = max(int(lo), 0) // bin_size * bin_size
    if span is not None:  # (the rows that reach the span)
        a, b = np.searchsorted(ends, origin, "right"), np.searchsorted(starts, hi, "left")
        starts, ends, counts = starts[a:b], ends[a:b], counts[a:b]
    n_bins = max(-(-(int(hi) - origin) // bin_size), 0)
    area = bin_areas(starts, ends, counts, origin, int(bin_size), n_bins)
    return int(bin_size), area, tuple(int(w) for w in widths), float(scale), origin


def row_floors(starts: np.ndarray, ends: np.ndarray, floor: tuple) -> np.ndarray:
    """A lower bound of the local λ (without the genome's level) of any base of each row
    ``[starts, ends)``, from :func:`local_floor`'s ``floor``: for each window width ``w``,
    every window of ``w`` bases centred on a base of the row holds the bases common to
    all of them, whose whole bins' coverage, over ``w`` (a clipped window is shorter:
    its mean only larger), times the scale, is at most that window's mean.

    Examples
    --------
    >>> runs = (np.array([0, 500]), np.array([500, 1000]), np.array([1.0, 3.0]))
    >>> row_floors(np.array([490]), np.array([510]), local_floor(runs, (1000,), bin_size=250))
    array([1.])
    """
    from penlearn.peaks.peakseg._seed_kernel import floors_of_rows

    bin_size, area, widths, scale, origin = floor
    out = np.zeros(len(starts))
    floors_of_rows(np.asarray(starts, np.int64), np.asarray(ends, np.int64), area,
                   int(origin), int(bin_size), np.asarray(widths, np.int64), out)
    # (rounding: never above the windows' own means; in place: no second array)
    return np.multiply(out, scale * (1.0 - 1e-9), out=out)


def _held_bound(starts, ends, counts, rows, width: int) -> np.ndarray:
    """An upper bound of the level (:func:`~penlearn.peaks.formats._summit_kernel.
    held_levels`) any base of each of ``rows`` holds over ``width`` bases in the whole
    chromosome, from one window's rows: the level on the window's rows (where touching
    rows of one count are split, the level is that of their run merged: the grown
    stretch takes a neighbour at least as high as any lower base, so the same bases and
    the same least count), but a row's own count within ``width`` bases of the window's
    ends (what lies past them is not known here). Memory: a few floats per row of
    ``rows``, none per row of the window (issue 55: the runs' five arrays of a window's
    rows were the peak of ``callpeak``'s memory).

    Examples
    --------
    >>> s = np.array([0, 10, 20, 30, 40]); c = np.array([1.0, 9, 9, 3, 1])
    >>> _held_bound(s, s + 10, c, np.array([1, 2, 3]), 15).tolist()
    [9.0, 9.0, 3.0]
    >>> _held_bound(s, s + 10, c, np.array([1]), 30).tolist()  # near the start: its count
    [9.0]
    """
    from penlearn.peaks.formats._summit_kernel import held_levels

    out = counts[rows].astype(float)
    if not len(rows):
        return out
    inner = (starts[rows] >= starts[0] + width) & (ends[rows] <= ends[-1] - width)
    at = rows[inner]
    out[inner] = held_levels(np.asarray(starts, np.int64), np.asarray(ends, np.int64),
                             np.asarray(counts, float), np.asarray(starts[at], np.int64),
                             int(width))
    return out


def seed_rows(starts: np.ndarray, ends: np.ndarray, counts: np.ndarray, *,
              level: float, fragment: float, log10_p: float,
              floor: np.ndarray | None = None) -> np.ndarray:
    """True for the rows of one window that could be in a passing call: rows whose held
    level (:func:`_held_bound`) passes the summit's test (its summit), and the rows of
    the blocks of :data:`BLOCK_FRAGMENTS` fragments (half overlapping) whose fragments
    (coverage summed / ``fragment``) pass the whole peak's Poisson test at ``log10_p`` (twice
    the p-value), both against the genome's ``level``, or against each row's local
    λ bound ``floor`` (:func:`row_floors`) where it is higher (a block: its rows' least).

    Examples
    --------
    >>> s = np.arange(0, 1000, 10); c = np.ones(100); c[50] = 30
    >>> seed = seed_rows(s, s + 10, c, level=1.0, fragment=10.0, log10_p=-6.0)
    >>> seed.nonzero()[0][[0, -1]]  # row 50's count, and the blocks that hold it
    array([40, 63])
    >>> seed_rows(s, s + 10, c, level=1.0, fragment=10.0, log10_p=-6.0,
    ...           floor=np.full(100, 20.0)).any()  # a level of 20 around: no call
    np.False_
    """
    from penlearn.peaks.formats._summit_kernel import running_sums
    from penlearn.peaks.formats.peak_columns import _integral, held_width
    from penlearn.peaks.formats.peak_stats import _poisson_log10_sf

    starts = np.asarray(starts, np.int64)
    ends = np.asarray(ends, np.int64)
    counts = np.asarray(counts, float)
    n = len(starts)
    seed = counts >= summit_threshold(level, log10_p)
    if not n:
        return seed
    # a summit's test counts the level it holds over held_width bases (at most its
    # row's count): tested at the rows high enough for the genome's level
    at = np.flatnonzero(seed)
    top = _held_bound(starts, ends, counts, at, held_width(fragment))
    lam, floored = level, floor is not None
    if floored:  # (+inf past the last row, for the blocks' least: no copy)
        lam = np.empty(n + 1)
        np.maximum(np.asarray(floor, float), level, out=lam[:n])
        lam[n] = np.inf
        floor = None  # (the caller's rows' floors, when only this call holds them)
    seed[at] = _poisson_log10_sf(top, np.broadcast_to(lam[:n] if floored else lam,
                                                      (n,))[at]) + math.log10(2.0) <= log10_p
    delta = np.zeros(n + 1, np.int32)  # (+1 at each block's first row, -1 past its last)
    cum = running_sums(starts, ends, counts)
    rows = (starts, ends, counts)
    for k in BLOCK_FRAGMENTS:
        size = max(int(round(k * fragment)), 2)
        b_lo = np.arange(starts[0], ends[-1], size // 2, dtype=np.int64)
        b_hi = np.minimum(b_lo + size, ends[-1])
        frags = np.floor((_integral(rows, b_hi, cum) - _integral(rows, b_lo, cum))
                         / fragment)
        # a whole block's λ is never below the genome's level: it needs this many
        # fragments to pass (2 fewer: a margin for rounding); a shorter block is tested
        need = least_count(level * size / fragment, log10_p) - 2
        maybe = np.flatnonzero((frags >= need) | (b_hi - b_lo < size))
        b_lo, b_hi, frags = b_lo[maybe], b_hi[maybe], frags[maybe]
        first = np.searchsorted(ends, b_lo, side="right")  # the block's rows
        last = np.searchsorted(starts, b_hi, side="left")
        block_lam = np.full(len(b_lo), float(level))
        if floored:
            pairs = np.column_stack([np.minimum(first, n),
                                     np.minimum(np.maximum(last, first + 1), n)])
            low = np.minimum.reduceat(lam, pairs.ravel())[::2]
            block_lam = np.maximum(block_lam, low)
        whole = _poisson_log10_sf(frags, block_lam * (b_hi - b_lo) / fragment)
        up = whole + math.log10(2.0) <= log10_p
        np.add.at(delta, first[up], 1)
        np.add.at(delta, last[up], -1)
    cum = lam = None  # (in place: no copy of a window's rows at the end, issue 55)
    seed |= np.cumsum(delta, out=delta)[:-1] > 0
    return seed


def candidate_ranges(starts: np.ndarray, ends: np.ndarray, counts: np.ndarray, *,
                     level: float, fragment: float, log10_p: float, flank: int = FLANK,
                     flank_bases: int = FLANK_BASES, seed: np.ndarray | None = None
                     ) -> np.ndarray:
    """The row ranges ``[lo, hi)`` of one window worth a solve, as rows ``(lo, hi)``,
    sorted, none touching another: the runs of :func:`seed_rows` (``seed``, when
    given), each widened by ``flank_bases`` bases and then ``flank`` rows on both
    sides.

    Examples
    --------
    >>> s = np.arange(0, 1000, 10); e = s + 10; c = np.ones(100); c[50] = 30
    >>> candidate_ranges(s, e, c, level=1.0, fragment=10.0, log10_p=-6.0, flank=5,
    ...                  flank_bases=0)
    array([[35, 69]])
    """
    starts = np.asarray(starts, np.int64)
    ends = np.asarray(ends, np.int64)
    n = len(starts)
    if seed is None:
        seed = seed_rows(starts, ends, counts, level=level, fragment=fragment,
                         log10_p=log10_p)
    if not n or not seed.any():
        return np.zeros((0, 2), np.int64)
    edge = np.diff(np.r_[0, seed.astype(np.int8), 0])
    lo, hi = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)  # the seeds' runs
    if flank_bases:  # the rows within flank_bases of the runs' ends
        lo = np.searchsorted(ends, starts[lo] - flank_bases, side="right")
        hi = np.searchsorted(starts, ends[hi - 1] + flank_bases, side="left")
    lo = np.maximum(lo - flank, 0)
    hi = np.minimum(hi + flank, n)
    hi = np.maximum.accumulate(hi)  # (lo is sorted: the runs are)
    first = np.flatnonzero(np.r_[True, lo[1:] > hi[:-1]])  # (touching rows: one range)
    last = np.r_[first[1:] - 1, len(lo) - 1]
    return np.column_stack([lo[first], hi[last]]).astype(np.int64)


def candidate_segments(coverage, log_penalty: float, *, level: float, fragment: float,
                       log10_p: float, flank: int = FLANK,
                       flank_bases: int = FLANK_BASES, floor: tuple | None = None,
                       floor_runs: tuple | None = None):
    """The reported segments of one window's ``coverage`` (or its solver's ``_Data``)
    solved on its :func:`candidate_ranges` alone (:func:`ranges_segments`); no rows
    where it has none.
    ``floor``: its chromosome's :func:`local_floor`; or ``floor_runs = (runs, widths,
    scale)``, :func:`local_floor`'s arguments, made for the window's span only (its
    own coverage's bound: no chromosome's bins held); neither: the genome's ``level``.

    Examples
    --------
    >>> import pandas as pd
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 1000, 10),
    ...                     "chromEnd": range(10, 1010, 10), "count": [1] * 100})
    >>> cov.loc[50:52, "count"] = 30
    >>> seg = candidate_segments(cov, 3.0, level=1.0, fragment=10.0, log10_p=-6.0,
    ...                          flank=5)
    >>> seg[seg["status"] == "peak"][["chromStart", "chromEnd"]].values.tolist()
    [[500, 530]]
    """
    from penlearn.peaks.peakseg.solver import _Data

    # (gaps filled; a background's rows weighed; or the caller's, its frame dropped)
    data = coverage if isinstance(coverage, _Data) else _Data.from_coverage(coverage)
    width = data.w if data.width is None else data.width
    # the treatment's counts (y / b at weight w·b where a background b is given)
    counts = data.y if data.width is None else np.round(data.y * (data.w / width))
    ends = data.start + width.astype(np.int64)
    if floor_runs is not None and len(ends):
        runs, widths, scale = floor_runs
        reach = max(widths)
        floor = local_floor(runs, widths, scale, span=(int(data.start[0]) - reach,
                                                       int(ends[-1]) + reach))
    seed = seed_rows(data.start, ends, counts, level=level, fragment=fragment,
                     log10_p=log10_p, floor=None if floor is None else row_floors(
                         data.start, ends, floor))
    floor = None  # (a window's bins: not held under its solves)
    ranges = candidate_ranges(data.start, ends, counts, level=level, fragment=fragment,
                              log10_p=log10_p, flank=flank, flank_bases=flank_bases,
                              seed=seed)
    return ranges_segments(data, log_penalty, ranges, grow_rows=flank,
                           grow_bases=flank_bases, seed=seed)


def _edge_peaks(first, last, peak, eq_prev, y, w, seed) -> tuple[bool, bool]:
    """Whether a reported peak of one range's model (its segments ``first``, ``last``,
    ``peak``, ``eq_prev``; its rows ``y``, ``w``) that holds a ``seed`` row (one that
    could be a passing summit) has the range's first (last) run for its background on
    that side (:func:`~penlearn.peaks.peakseg.calls.peak_calls`' ``background``: a run
    the cut ends).

    Examples
    --------
    >>> y, w = np.array([1.0, 9, 1, 1, 7, 1]), np.ones(6)
    >>> seg = (np.array([0, 1, 2, 4, 5]), np.array([0, 1, 3, 4, 5]),
    ...        np.array([False, True, False, True, False]), np.zeros(5, bool))
    >>> _edge_peaks(*seg, y, w, y >= 8)
    (True, False)
    """
    if len(first) < 3:
        return False, False
    run = np.cumsum(~eq_prev) - 1  # (segments an active constraint joins: one mean)
    m = np.bincount(run, np.add.reduceat(w * y, first)) / np.bincount(
        run, np.add.reduceat(w, first))
    has = np.bincount(run, peak.astype(float)) > 0
    new = np.r_[True, m[1:] != m[:-1]]  # (runs of one mean: one reported run)
    rid = np.cumsum(new) - 1
    m, has = m[new], np.bincount(rid, has.astype(float)) > 0
    if len(m) < 3:
        return False, False
    seg_of_run = np.flatnonzero(new[run])  # each reported run's first segment
    starts = first[seg_of_run]
    stops = np.r_[starts[1:], len(y)]  # (rows of reported run r: starts[r]..stops[r])
    reported = np.r_[False, has[1:-1] & (m[1:-1] > m[:-2]) & (m[1:-1] > m[2:]), False]
    near = min(EDGE_RUNS, len(m) - 1)

    def seeded(r):
        return bool(reported[r] and seed[starts[r]:stops[r]].any())
    return (any(seeded(r) for r in range(1, near)),
            any(seeded(len(m) - 1 - r) for r in range(1, near)))


def ranges_segments(data, log_penalty: float, ranges: np.ndarray, *,
                    grow_rows: int = FLANK, grow_bases: int = FLANK_BASES,
                    seed: np.ndarray | None = None):
    """The reported segments (:func:`~penlearn.peaks.peakseg.calls.reported_segments`)
    of each row range ``[lo, hi)`` of one window's rows (``data``: the solver's
    ``_Data`` of its coverage) solved alone at ``log_penalty``: the rows of
    ``_solve_window(coverage.iloc[lo:hi], ...)`` of every range, one after the other,
    without a table per range (a genome has ~10⁴ ranges). ``ranges``: sorted rows
    ``(lo, hi)`` (:func:`candidate_ranges`'), none touching another.

    A range whose first (last) run is the background of a reported peak that holds a
    ``seed`` row (True where a row could be a passing summit; None: no such check;
    :func:`_edge_peaks`: the peak's fold would be that of the cut) is widened on that
    side by ``grow_bases`` bases and ``grow_rows`` rows and solved again, up to
    :data:`GROW` times; ranges that come to touch are one. ``grow_bases=grow_rows=0``
    with one range per piece: each piece's own model, as given.

    Examples
    --------
    >>> import pandas as pd
    >>> from penlearn.peaks.peakseg.solver import _Data
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 100, 10),
    ...                     "chromEnd": range(10, 110, 10),
    ...                     "count": [1, 1, 9, 1, 1, 1, 1, 8, 1, 1]})
    >>> data = _Data.from_coverage(cov)
    >>> seg = ranges_segments(data, 0.0, [[0, 5], [6, 10]], grow_rows=0, grow_bases=0)
    >>> seg[["chromStart", "chromEnd", "status"]].values.tolist()[:3]
    [[0, 20, 'background'], [20, 30, 'peak'], [30, 50, 'background']]
    >>> seed = data.y >= 8
    >>> len(ranges_segments(data, 0.0, [[0, 5], [6, 10]], grow_rows=1, seed=seed))
    5
    """
    import pandas as pd

    from penlearn._interrupt import deferred_interrupts
    from penlearn.peaks.peakseg._store import peakseg_solve
    from penlearn.peaks.peakseg.calls import reported_segments
    from penlearn.peaks.peakseg.solver import _TIE_TOL, _Data, _model

    penalty = math.exp(min(float(log_penalty), 700.0))
    ranges = np.asarray(ranges, np.int64).reshape(-1, 2)
    if len(ranges) > 1 and not (ranges[1:, 0] > ranges[:-1, 1]).all():
        raise ValueError("ranges must be sorted rows, none touching another")
    n = len(data.y)
    width = data.w if data.width is None else data.width
    ends = data.start + width.astype(np.int64)

    def solve(lo, hi):
        y, w = data.y[lo:hi], data.w[lo:hi]
        if math.isinf(penalty) or hi - lo < 3 or y.min() == y.max():
            f, la, p, e = [0], [hi - lo - 1], [False], [False]
        else:
            _, f, la, p, _, e, _, _ = peakseg_solve(y, w, penalty, _TIE_TOL)
        return (np.asarray(f, np.int64), np.asarray(la, np.int64), np.asarray(p, bool),
                np.asarray(e, bool))

    queue, done = ranges.tolist(), []  # done: (lo, hi, solution)
    k = 0
    with deferred_interrupts():  # (one block for the window's ~10³ small solves)
        while k < len(queue):
            lo, hi = queue[k]
            k += 1
            for attempt in range(GROW + 1):
                if done and lo <= done[-1][1]:  # touches the range before: one range
                    lo = done.pop()[0]
                while k < len(queue) and queue[k][0] <= hi:  # touches the next: one
                    hi = max(hi, queue[k][1])
                    k += 1
                sol = solve(lo, hi)
                left, right = (False, False) if seed is None else _edge_peaks(
                    *sol, data.y[lo:hi], data.w[lo:hi], seed[lo:hi])
                left, right = left and lo > 0, right and hi < n
                if attempt == GROW or not (left or right) or not (grow_rows or grow_bases):
                    break
                if left:  # a reported peak whose background is the cut's own run
                    lo = int(np.searchsorted(ends, data.start[lo] - grow_bases,
                                             side="right"))
                    lo = max(lo - grow_rows, 0)
                if right:
                    hi = int(np.searchsorted(data.start, ends[hi - 1] + grow_bases,
                                             side="left"))
                    hi = min(hi + grow_rows, n)
            done.append((lo, hi, sol))
    if not done:
        return pd.DataFrame({"chrom": pd.Series([], dtype=object),
                             "chromStart": np.zeros(0, np.int64),
                             "chromEnd": np.zeros(0, np.int64),
                             "status": pd.Series([], dtype=object),
                             "mean": np.zeros(0)})
    # the ranges' rows side by side: the solver's model of them (its pooled means, its
    # sums over each segment's own rows), each range's segments at their rows there
    rows = np.concatenate([np.arange(lo, hi) for lo, hi, _ in done])
    offsets = np.cumsum([0] + [hi - lo for lo, hi, _ in done[:-1]])
    sub = _Data(chrom=data.chrom, start=data.start[rows], y=data.y[rows], w=data.w[rows],
                width=None if data.width is None else data.width[rows])
    model = _model(sub, penalty, *(np.concatenate([d[2][k] + (o if k < 2 else 0) for d, o
                                                   in zip(done, offsets)])
                                   for k in range(4)))
    return reported_segments(model.segments).drop(columns=["first_row", "last_row"])
