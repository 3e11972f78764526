"""The fragment size of single-end reads, by strand cross-correlation (MACS3's model).

Single-end ChIP-seq reads are the ends of longer fragments: around a binding site the
``+`` strand's 5′ ends pile up upstream and the ``−`` strand's downstream, one fragment
length apart. As MACS (Zhang et al. 2008, *Genome Biology* 9:R137) builds its model, the
estimate looks only where the reads are enriched — windows of 600 bp (twice MACS3's
default bandwidth, 300) holding between
``mfold[0]`` and ``mfold[1]`` times the genome's mean number of reads (MACS3's ``-m 5 50``)
— and takes the lag of the largest cross-correlation of the two strands' 5′ ends there:
the histogram of (``−`` 5′ end − ``+`` 5′ end + 1) over the pairs of reads of a window
and its two neighbours, less the count that as many reads scattered uniformly over those
1800 bp would give (so that regions up as a whole, amplified or open chromatin, add
nothing but noise), smoothed over 11 bp, between ``min_size`` and ``max_size``.
"""

from __future__ import annotations

import numpy as np

from penlearn.peaks.formats.reads import Reads

__all__ = ["MAX_FRAGMENT", "estimate_fragment_size"]

_BIN = 600  # 2 x MACS3's default --bw (300)
_SMOOTH = 11


#: the longest fragment size estimated (bases)
MAX_FRAGMENT = 1000


def _five_ends(reads) -> dict:
    """``{chrom: (5′ positions, reverse, weight or None)}`` of single-end reads: those of
    :class:`~penlearn.peaks.formats.reads.Reads`, or the arrays a
    :class:`~penlearn.peaks.formats.read_arrays.ReadArrays` holds (its ``five`` and
    ``reverse``: nothing copied; ``callpeak``'s 20 million reads, issue 55)."""
    if isinstance(reads, Reads):
        return {c: (pos, r, reads.chroms[c][3]) for c, (pos, r) in reads.five_prime().items()}
    return {c: (a, b, w) for c, (a, b, w) in reads.chroms.items()}


def estimate_fragment_size(reads, *, mfold=(5.0, 50.0), min_size: int = 20,
                           max_size: int = MAX_FRAGMENT, max_windows: int = 1000,
                           genome_size: float | None = None) -> int:
    """The fragment length of single-end reads (module docstring).

    Parameters
    ----------
    reads : Reads or ReadArrays
        Single-end reads (:func:`~penlearn.peaks.formats.reads.read_reads`, or
        :class:`~penlearn.peaks.formats.read_arrays.ReadArrays`).
    mfold : (float, float)
        The enriched windows: between these multiples of the mean reads per 600 bp window.
    min_size, max_size : int
        The range of fragment lengths searched.
    max_windows : int
        At most this many enriched windows (the most enriched first) are used.
    genome_size : float, optional
        The mean is over this many bases (default: the chromosomes' lengths, else the
        span of the reads).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Paired reads (their fragments are known), or fewer than 10 enriched windows
        (give the fragment size instead: ``--extsize``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = np.sort(rng.integers(0, 200, 4000) + 1000 * rng.integers(0, 40, 4000))
    >>> rev = rng.random(4000) < 0.5
    >>> start = np.where(rev, s + 150 - 36, s)
    >>> r = Reads(False, {"chr1": (start, start + 36, rev, np.ones(4000, np.int64))},
    ...           {"chr1": 2_000_000})
    >>> abs(estimate_fragment_size(r) - 150) <= 10
    True
    """
    if reads.paired:
        raise ValueError("the fragment size of paired reads is known: no estimate needed")
    fives = _five_ends(reads)
    counts, lo_hi = {}, []
    for c, (five, _, w) in fives.items():
        # (no weights: integer counts, the same numbers as the float sums of ones)
        counts[c] = np.bincount(five // _BIN, weights=w)
    if genome_size is None:
        genome_size = sum((reads.sizes or {}).get(c, len(v) * _BIN) for c, v in counts.items())
    mean = reads.total / (genome_size / _BIN)
    for c, v in counts.items():
        hit = np.flatnonzero((v >= mfold[0] * mean) & (v <= mfold[1] * mean))
        lo_hi.extend((v[i], c, i) for i in hit)
    if len(lo_hi) < 10:
        raise ValueError(f"cannot estimate the fragment size: {len(lo_hi)} windows of {_BIN} bp "
                         f"hold {mfold[0]:g}-{mfold[1]:g} times the mean reads (10 needed); "
                         "give it with --extsize")
    lo_hi.sort(key=lambda t: -t[0])
    hist = _window_histogram({c: (pos, rev) for c, (pos, rev, _) in fives.items()},
                             lo_hi[:max_windows], max_size)
    smooth = np.convolve(hist, np.ones(_SMOOTH) / _SMOOTH, mode="same")
    smooth[:min_size] = -1
    return int(np.argmax(smooth))


def _window_histogram(fives: dict, used: list, max_size: int) -> np.ndarray:
    """The sum over the windows ``used`` (``(reads, chrom, index)``, in that order) of the
    histogram of (− 5′ end − + 5′ end + 1) over the pairs of reads of a window and its
    two neighbours, less the uniform pairs' count (the module's rule); ``fives``:
    ``{chrom: (5′ positions, reverse)}``."""
    # each window's term, a chromosome at a time (its reads sorted once, each window's
    # found by bisection), then summed in the windows' order
    terms: list = [None] * len(used)
    by_chrom: dict = {}
    for k, (_, c, i) in enumerate(used):
        by_chrom.setdefault(c, []).append((k, i))
    span = 3 * _BIN
    for c, wins in by_chrom.items():
        pos, rev = fives[c]
        order = np.argsort(pos, kind="stable")
        pos, rev = pos[order], rev[order]
        del order
        # (the bounds in the positions' own type: no copy of them per search)
        top_lo, top_hi = (np.iinfo(pos.dtype).min, np.iinfo(pos.dtype).max) if \
            pos.dtype.kind in "iu" else (-np.inf, np.inf)
        for k, i in wins:
            lo, hi = np.searchsorted(pos, np.clip([(i - 1) * _BIN, (i + 2) * _BIN], top_lo,
                                                  top_hi).astype(pos.dtype), side="left")
            p, r = pos[lo:hi], rev[lo:hi]
            plus, minus = p[~r], p[r]
            if not len(plus) or not len(minus):
                continue
            d = (minus[None, :] - plus[:, None]).ravel() + 1
            d = d[(d >= 0) & (d <= max_size)]
            # less the pairs that reads scattered uniformly over the span would give: a
            # region up as a whole (amplified, open) then adds nothing but noise
            terms[k] = np.bincount(d, minlength=max_size + 1) - len(plus) * len(minus) * (
                span - np.arange(max_size + 1)) / span**2
        del pos, rev
    hist = np.zeros(max_size + 1)
    for term in terms:
        if term is not None:
            hist += term
    return hist
