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

__all__ = ["ReadArrays", "chrom_pileup", "compact_reads", "read_bam_arrays",
           "read_bam_samples", "weighted_fragments"]


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


def weighted_fragments(reads: ReadArrays, chrom: str, extsize: int | None, shift: int = 0
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(start, end, weight) of the fragments of one chromosome (int64; weight None: each
    once): single-end reads moved ``shift`` bases 3′-ward and extended to ``extsize``
    bases (clipped to the chromosome).

    Examples
    --------
    >>> r = ReadArrays(False, {"chr1": (np.array([5, 39], np.int32), np.array([False, True]),
    ...                                 None)})
    >>> s, e, w = weighted_fragments(r, "chr1", 25)
    >>> s.tolist(), e.tolist(), w
    ([5, 15], [30, 40], None)
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
    return s, e, w


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
    a, b, w = reads.chroms[chrom]
    if w is not None:
        return depth_runs(*weighted_fragments(reads, chrom, extsize, shift))
    from penlearn.peaks.formats._pileup_kernel import extended_depth_runs, unit_depth_runs

    size = reads.sizes.get(chrom) if reads.sizes else None
    if reads.paired:  # (weighted_fragments' clipping, without its int64 copies)
        s, e = np.maximum(a, 0), b if size is None else np.minimum(b, size)
        if not (inside := e > s).all():
            s, e = s[inside], e[inside]
    else:
        if extsize is None or extsize < 1:
            raise ValueError(f"the fragment size (--extsize) must be >= 1, got {extsize}")
        # (one sort of the fragments' starts: their ends follow the same order)
        return extended_depth_runs(a, b, int(extsize), int(shift), size)
    return unit_depth_runs(s, e)


def _dedup(a: np.ndarray, b: np.ndarray, limit: int | None):
    """At most ``limit`` reads of one (a, b) key, the first in file order (the rule of
    :func:`~penlearn.peaks.formats.reads.read_reads`)."""
    if limit is None or not len(a):
        return a, b
    from penlearn.peaks.formats._bam_kernel import first_of_keys

    # the sort's order and a mask in file order (9 bytes a read; the ranks, groups and
    # sorted keys of every read, ~46 bytes, were the read phase's high-water: issue 55)
    keep = first_of_keys(a, b, np.lexsort((b, a)), limit)
    return a[keep], b[keep]


def _compiled_read(path, paired: bool, names: list):
    """``({tid: (a, b)}, no_cigar)`` of :mod:`penlearn.peaks.formats._bam_kernel` (3x
    faster than a Python loop over pysam's records), or None where it cannot tell (a
    ``CG``-tag CIGAR, other reference names than pysam's, a damaged file: pysam's loop
    then reads it and names the problem)."""
    import zlib

    from penlearn.peaks.formats._bam_kernel import read_bam_columns

    try:
        got = read_bam_columns(path, paired)
    except (OSError, EOFError, ValueError, zlib.error):
        return None
    if got is None or got[0] != names:
        return None
    return got[1], got[2]


def _bam_contigs(path, paired: bool):
    """``(sizes, {chrom: (a, b)}, records without a CIGAR)`` of one BAM file: the
    records :func:`~penlearn.peaks.formats.reads.read_reads` counts, as compact arrays,
    read chromosome by chromosome when the file is indexed."""
    from array import array

    from penlearn.peaks.formats.bam import _damaged, _indexed, _open
    from penlearn.peaks.formats.reads import _flag_ok

    out, no_cigar = {}, 0
    with _open(path) as bam:
        names = [str(n) for n in bam.references]
        sizes = {n: int(k) for n, k in zip(names, bam.lengths)}
        indexed = _indexed(bam)
        cols: dict = {}
        fast = _compiled_read(path, paired, names)
        if fast is not None:  # the same records, parsed in a compiled loop
            cols, no_cigar = fast
        try:
            for rec in () if fast is not None else (
                    x for n in names for x in bam.fetch(n)) if indexed else \
                    bam.fetch(until_eof=True):
                flag = rec.flag
                if not _flag_ok(flag) or (paired and not flag & 0x1):
                    continue
                end = rec.reference_end
                if end is None:
                    no_cigar += 1
                    continue
                tid = rec.reference_id
                if tid not in cols:
                    cols[tid] = (array("i"), array("i"))
                s, e = cols[tid]
                if paired:
                    lo = min(rec.reference_start, rec.next_reference_start)
                    s.append(lo)
                    e.append(lo + abs(rec.template_length))
                elif flag & 0x10:
                    s.append(end - 1)
                    e.append(1)
                else:
                    s.append(rec.reference_start)
                    e.append(0)
        except (OSError, ValueError) as exc:
            raise _damaged(path, exc) from None
    for tid in sorted(cols):
        a, b = (x if isinstance(x, np.ndarray) else np.frombuffer(x, np.int32)
                for x in cols.pop(tid))
        if paired and (bad := b <= a).any():
            raise ValueError(f"{path}: a proper pair on {names[tid]} at {a[bad][0]} has "
                             "TLEN 0: not a fragment (is it really paired-end?)")
        # (the compiled reader's single-end strands: uint8 0 / 1, seen as bool, no copy)
        out[names[tid]] = (a, b if paired else b.view(bool) if b.dtype == np.uint8
                           else b.astype(bool))
    return sizes, out, no_cigar


def read_bam_arrays(paths: list, paired: bool, *, keep_dup="1",
                    genome_size: float | None = None) -> ReadArrays:
    """The reads of BAM files pooled into one sample, then deduplicated, as
    :func:`~penlearn.peaks.formats.reads.read_reads` counts them (``-f BAM`` /
    ``BAMPE``), kept as :class:`ReadArrays` from the start (5 or 8 bytes a read).

    Examples
    --------
    >>> read_bam_arrays(["reads.bam"], False).total  # doctest: +SKIP
    """
    import warnings

    from penlearn.peaks.formats.reads import _no_reads_hint, dedup_limit

    dedup_limit(keep_dup, 0, genome_size)  # its syntax, before any file is read
    out = ReadArrays(paired, sizes=None)
    for p in paths:
        sizes, chroms, no_cigar = _bam_contigs(p, paired)
        if no_cigar:
            warnings.warn(f"{p}: {no_cigar} mapped record(s) without a CIGAR ('*': no "
                          "aligned base) left out", UserWarning, stacklevel=2)
        if not chroms:
            raise ValueError(f"{p}: no reads counted as {'BAMPE' if paired else 'BAM'}: "
                             f"{_no_reads_hint(p, 'BAMPE' if paired else 'BAM')}")
        for c, n in sizes.items():
            if out.sizes and out.sizes.get(c, n) != n:
                raise ValueError(f"{p}: chromosome {c!r} is {n} bases long, {out.sizes[c]} "
                                 "in an earlier file: reads of two genomes cannot be pooled")
        out.sizes = {**(out.sizes or {}), **sizes}
        for c in list(chroms):  # (moved, not also held by ``chroms``: the reads before
            a, b = chroms.pop(c)  # their deduplication are freed by it; issue 55)
            old = out.chroms.get(c)
            out.chroms[c] = (a, b, None) if old is None else (
                np.concatenate([old[0], a]), np.concatenate([old[1], b]), None)
        del chroms, a, b
    limit = dedup_limit(keep_dup, out.total, genome_size)
    for c in list(out.chroms):  # in place: one chromosome's reads twice at once, at most
        a, b, _ = out.chroms.pop(c)
        out.chroms[c] = (*_dedup(a, b, limit), None)
        del a, b
    return out


def _read_sample(paths: list, paired: bool, keep_dup, genome_size
                 ) -> tuple[ReadArrays, list]:
    """A worker's :func:`read_bam_arrays`: the reads and the warnings it gave."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reads = read_bam_arrays(paths, paired, keep_dup=keep_dup, genome_size=genome_size)
    return reads, [(w.category, str(w.message)) for w in caught]


def read_bam_samples(samples: list, paired: bool, *, keep_dup="1",
                     genome_size: float | None = None, executor=None, progress=None
                     ) -> list[ReadArrays]:
    """:func:`read_bam_arrays` of several samples (each a list of BAM files): one after
    the other without ``executor``, else each sample on a worker of its own
    (:func:`penlearn._executor.run_tasks`; a treatment and its control read at once),
    their warnings given here; ``progress(sample_index, reads)`` as each one is in.

    Examples
    --------
    >>> t, c = read_bam_samples([["t.bam"], ["c.bam"]], False)  # doctest: +SKIP
    """
    import warnings

    from penlearn._executor import run_tasks

    got: dict = {}

    def finish(k, res):
        got[k] = res
        if progress is not None:
            progress(k, res[0].total)
    run_tasks(executor, _read_sample, {k: ((list(p), paired, keep_dup, genome_size), {})
                                       for k, p in enumerate(samples)}, finish)
    for k in range(len(samples)):
        for cat, msg in got[k][1]:
            warnings.warn(msg, cat, stacklevel=2)
    return [got[k][0] for k in range(len(samples))]
