"""One chromosome's single-end fragments held between ``callpeak``'s two passes as
their sorted unclipped starts, delta-coded in two bytes a fragment (issue 55).

``callpeak`` makes each chromosome's pileup twice: once for the genome's level, once
for its peaks, the chromosomes of the genome in turn. Between the two, every
chromosome still to come was held as its reads (:class:`~penlearn.peaks.formats.
read_arrays.ReadArrays`: a 5′ end and a strand, 5 bytes a read), ~70 MB of a 20
million-read genome's at the largest tables of its middle chromosomes. The pileup
of extended single-end reads needs only the fragments' sorted unclipped starts
(:func:`~penlearn.peaks.formats._pileup_kernel.extended_starts`): sorted, their
differences are mostly small (~150 bases at 20 million reads on 3 Gb), so each is
held as a ``uint16`` and the few larger ones apart. :meth:`FragmentStarts.pileup` is
:func:`~penlearn.peaks.formats.read_arrays.chrom_pileup`'s, value for value (the same
starts, the same merge), without its sort.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

__all__ = ["FragmentStarts", "pack_starts", "packable", "packed_pileup"]

#: a difference at or above it is held apart (``uint16`` holds those below)
_SMALL = 1 << 16


@numba.njit(cache=True, nogil=True)
def _large_deltas(lo):
    """How many of the sorted ``lo``'s differences are at least :data:`_SMALL` (-1:
    ``lo`` is not sorted; one pass checks both)."""
    k = 0
    for i in range(1, len(lo)):
        d = np.int64(lo[i]) - np.int64(lo[i - 1])
        if d < 0:
            return -1
        if d >= _SMALL:
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _pack(lo, small, at, large):
    """The differences of the sorted ``lo`` into ``small`` (``uint16``; 0 where the
    difference is large) and the large ones' places ``at`` and values ``large``."""
    k = 0
    for i in range(1, len(lo)):
        d = np.int64(lo[i]) - np.int64(lo[i - 1])
        if d >= _SMALL:
            at[k] = i - 1
            large[k] = d
            k += 1
            small[i - 1] = 0
        else:
            small[i - 1] = d


@numba.njit(cache=True, nogil=True)
def _unpack(first, small, at, large, out):
    """``out`` (``len(small) + 1``): ``first``, then the running sums of the
    differences (exact in int64, written in ``out``'s dtype)."""
    x = np.int64(first)
    out[0] = x
    k = 0
    for i in range(len(small)):
        if k < len(at) and at[k] == i:
            x += large[k]
            k += 1
        else:
            x += np.int64(small[i])
        out[i + 1] = x


@dataclass
class FragmentStarts:
    """A chromosome's sorted unclipped fragment starts (:func:`pack_starts`) and what
    its pileup needs: the fragment length ``extsize`` and the chromosome's ``size``
    (None: no end)."""

    first: int
    small: np.ndarray
    at: np.ndarray
    large: np.ndarray
    n: int
    dtype: str
    extsize: int
    size: int | None

    def starts(self) -> np.ndarray:
        """The sorted starts, as they were packed (their dtype too)."""
        out = np.empty(self.n, self.dtype)
        if self.n:
            _unpack(np.int64(self.first), self.small, self.at, self.large, out)
        return out

    def pileup(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The fragments' depth runs (:func:`~penlearn.peaks.formats._pileup_kernel.
        starts_depth_runs`): ``chrom_pileup``'s of the reads packed."""
        from penlearn.peaks.formats._pileup_kernel import starts_depth_runs

        return starts_depth_runs(self.starts(), self.extsize, self.size)

    @property
    def nbytes(self) -> int:
        """The bytes held (~2 a fragment)."""
        return int(self.small.nbytes + self.at.nbytes + self.large.nbytes)


def pack_starts(lo: np.ndarray, extsize: int, size: int | None) -> FragmentStarts:
    """``lo`` (sorted: :func:`~penlearn.peaks.formats._pileup_kernel.extended_starts`)
    held as its first value and its differences, two bytes each (the large ones
    apart).

    Examples
    --------
    >>> lo = np.array([-22, 5, 15, 70000, 70001], np.int32)
    >>> p = pack_starts(lo, 25, None)
    >>> p.starts().tolist(), p.starts().dtype == lo.dtype, p.large.tolist()
    ([-22, 5, 15, 70000, 70001], True, [69985])
    """
    lo = np.asarray(lo)
    k = _large_deltas(lo) if len(lo) else 0
    if k < 0:
        raise ValueError("the fragment starts must be sorted")
    small = np.empty(max(len(lo) - 1, 0), np.uint16)
    at, large = np.empty(k, np.int64), np.empty(k, np.int64)
    if len(lo):
        _pack(lo, small, at, large)
    return FragmentStarts(int(lo[0]) if len(lo) else 0, small, at, large, len(lo),
                          lo.dtype.str, int(extsize), None if size is None else int(size))


def packed_pileup(five: np.ndarray, reverse: np.ndarray, extsize: int, shift: int,
                  size: int | None) -> tuple[tuple, FragmentStarts]:
    """:func:`~penlearn.peaks.formats._pileup_kernel.extended_depth_runs` of single-end
    reads and their fragments' starts packed (:func:`pack_starts`): the second pileup
    made from them (:meth:`FragmentStarts.pileup`) is the first.

    Examples
    --------
    >>> runs, p = packed_pileup(np.array([5, 39, 2], np.int32),
    ...                         np.array([False, True, True]), 25, 0, 40)
    >>> [x.tolist() for x in runs] == [x.tolist() for x in p.pileup()]
    True
    """
    from penlearn.peaks.formats._pileup_kernel import extended_starts, starts_depth_runs

    lo = extended_starts(five, reverse, extsize, shift, size)
    return starts_depth_runs(lo, extsize, size), pack_starts(lo, extsize, size)


def packable(reads, extsize) -> bool:
    """Whether :func:`packed_pileup` makes the pileup of ``reads``
    (:class:`~penlearn.peaks.formats.read_arrays.ReadArrays`) at ``extsize``:
    single-end reads of one weight each, extended to a fragment size.

    Examples
    --------
    >>> from penlearn.peaks.formats.read_arrays import ReadArrays
    >>> r = ReadArrays(False, {"c": (np.array([5], np.int32), np.array([False]), None)})
    >>> packable(r, 200), packable(r, None)
    (True, False)
    """
    return (not reads.paired and extsize is not None and extsize >= 1
            and all(w is None for _, _, w in reads.chroms.values()))
