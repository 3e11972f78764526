"""Reads as compact per-chromosome arrays, for whole-genome peak calling in bounded memory.

:func:`~penlearn.peaks.formats.reads.read_reads` keeps every read's aligned span, strand
and weight as int64 / bool arrays (25 bytes a read). A single-end fragment extended to
``d`` bases depends only on the read's 5′ end and strand, and a paired-end one on its two
ends, so :func:`compact_reads` keeps just those: ``(five, reverse)`` (int32, bool: 5 bytes
a read) or ``(start, end)`` (int32, int32), with a weight only where a file has counts
(FRAG). The pileup of a chromosome (:func:`chrom_pileup`) equals
:func:`~penlearn.peaks.formats.reads.fragment_coverage`'s rows of that chromosome.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from penlearn.peaks.formats.bam import depth_runs
from penlearn.peaks.formats.reads import Reads

__all__ = ["ReadArrays", "chrom_pileup", "compact_reads", "fragments"]


@dataclass
class ReadArrays:
    """The reads of one sample, per chromosome, in compact arrays.

    Attributes
    ----------
    paired : bool
        Fragments (``start, end``) or single-end reads (``five, reverse``).
    chroms : dict
        ``{chrom: (a, b, weight or None)}``: single-end ``(five int32, reverse bool)``,
        paired ``(start int32, end int32)``; ``weight`` int64 counts (FRAG) or None (1).
    sizes : dict or None
        Chromosome lengths (BAM header), None for BED / FRAG.
    """

    paired: bool
    chroms: dict = field(default_factory=dict)
    sizes: dict | None = None

    @property
    def total(self) -> int:
        """Reads (fragments) counted, weights included."""
        return int(sum(len(a) if w is None else w.sum() for a, _, w in self.chroms.values()))

    def as_reads(self) -> Reads:
        """A :class:`~penlearn.peaks.formats.reads.Reads` view for the fragment-size
        estimate (single-end: one-base spans at the 5′ ends)."""
        out = Reads(self.paired, sizes=self.sizes)
        for c, (a, b, w) in self.chroms.items():
            ones = np.broadcast_to(np.int64(1), len(a)) if w is None else w
            out.chroms[c] = (a, a + 1, b, ones) if not self.paired else (a, b, np.zeros(
                len(a), bool), ones)
        return out


def compact_reads(reads: Reads) -> ReadArrays:
    """:class:`ReadArrays` of :func:`~penlearn.peaks.formats.reads.read_reads`' reads
    (the same reads, counted and deduplicated as it does).

    Examples
    --------
    >>> r = Reads(False, {"chr1": (np.array([10]), np.array([20]), np.array([True]),
    ...                            np.array([1]))})
    >>> a, b, w = compact_reads(r).chroms["chr1"]
    >>> a.tolist(), b.tolist(), w
    ([19], [True], None)
    """
    out = ReadArrays(reads.paired, sizes=reads.sizes)
    for c in list(reads.chroms):
        s, e, r, w = reads.chroms[c]
        weight = None if (w == 1).all() else w
        out.chroms[c] = ((s.astype(np.int32), e.astype(np.int32), weight) if reads.paired
                         else (np.where(r, e - 1, s).astype(np.int32), r.astype(bool),
                               weight))
    return out


def fragments(reads: ReadArrays, chrom: str, extsize: int | None, shift: int = 0
              ) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) int64 of the fragments of one chromosome: single-end reads moved
    ``shift`` bases 3′-ward and extended to ``extsize`` bases (clipped to the chromosome),
    weights repeated.

    Examples
    --------
    >>> r = ReadArrays(False, {"chr1": (np.array([5, 39], np.int32), np.array([False, True]),
    ...                                 None)})
    >>> [x.tolist() for x in fragments(r, "chr1", 25)]
    [[5, 15], [30, 40]]
    """
    a, b, w = reads.chroms[chrom]
    if reads.paired:
        s, e = a.astype(np.int64), b.astype(np.int64)
    else:
        if extsize is None or extsize < 1:
            raise ValueError(f"the fragment size (--extsize) must be >= 1, got {extsize}")
        five = a.astype(np.int64)
        if shift:
            five = five + np.where(b, -shift, shift)
        s = np.where(b, five + 1 - extsize, five)
        e = np.where(b, five + 1, five + extsize)
    # clipped to the chromosome; none of it left inside: left out (fragment_coverage)
    s = np.maximum(s, 0)
    if reads.sizes and chrom in reads.sizes:
        e = np.minimum(e, reads.sizes[chrom])
    if not (inside := e > s).all():
        s, e = s[inside], e[inside]
        w = None if w is None else w[inside]
    if w is not None:
        s, e = np.repeat(s, w), np.repeat(e, w)
    return s, e


def chrom_pileup(reads: ReadArrays, chrom: str, extsize: int | None, shift: int = 0
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fragment pileup of one chromosome as run-length arrays ``(start, end, count)``
    (int64; depth > 0, equal neighbours merged), as
    :func:`~penlearn.peaks.formats.reads.fragment_coverage`'s rows of ``chrom``.

    Examples
    --------
    >>> r = ReadArrays(False, {"chr1": (np.array([0, 39], np.int32), np.array([False, True]),
    ...                                 None)})
    >>> [x.tolist() for x in chrom_pileup(r, "chr1", 25)]
    [[0, 15, 25], [15, 25, 40], [1, 2, 1]]
    """
    if chrom not in reads.chroms:
        z = np.zeros(0, np.int64)
        return z, z, z
    s, e = fragments(reads, chrom, extsize, shift)
    return depth_runs(s, e)
