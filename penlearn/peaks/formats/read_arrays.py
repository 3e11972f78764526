"""Reads as compact per-chromosome arrays, for whole-genome peak calling in bounded memory.

:func:`~penlearn.peaks.formats.reads.read_reads` keeps every read's aligned span, strand
and weight as int64 / bool arrays (25 bytes a read). A single-end fragment extended to
``d`` bases depends only on the read's 5′ end and strand, and a paired-end one on its two
ends, so :func:`read_arrays` keeps just those: ``(five, reverse)`` (int32, bool: 5 bytes a
read) or ``(start, end)`` (int32, int32), with a weight only where a file has counts
(FRAG). The same records are counted (the flag filter of
:mod:`~penlearn.peaks.formats.reads`), the same duplicates dropped (per file, before
pooling), so the pileup of a chromosome (:func:`chrom_pileup`) equals
:func:`~penlearn.peaks.formats.reads.fragment_coverage`'s rows of that chromosome.

A coordinate-sorted BAM file with an index is read chromosome by chromosome (pysam's
``fetch(contig)``); without an index, in one pass in file order.
"""

from __future__ import annotations

import os
from array import array
from dataclasses import dataclass, field

import numpy as np

from penlearn.peaks.formats.bam import _open, _reason, depth_runs
from penlearn.peaks.formats.reads import Reads, _flag_ok, dedup_limit, read_reads

__all__ = ["ReadArrays", "chrom_pileup", "pool_read_arrays", "read_arrays"]


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


def _dedup(a: np.ndarray, b: np.ndarray, w, limit: int | None):
    """At most ``limit`` reads of one (a, b) key, the first in file order (as
    :func:`~penlearn.peaks.formats.reads.read_reads`)."""
    if limit is None or not len(a):
        return a, b, w
    order = np.lexsort((b, a))
    k0, k1 = a[order], b[order]
    new = np.r_[True, (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1])]
    group = np.cumsum(new) - 1
    rank = np.arange(len(order)) - np.flatnonzero(new)[group]
    keep = np.sort(order[rank < limit])
    return a[keep], b[keep], None if w is None else w[keep]


def _bam_chrom(bam, contig, paired: bool, path):
    """(a, b) int32 / bool arrays of one contig (``contig`` None: the whole file, as a
    dict by reference id)."""
    s, e = array("i"), array("i")
    by_tid: dict[int, tuple[array, array]] = {}
    try:
        it = bam.fetch(contig) if contig is not None else bam.fetch(until_eof=True)
        for rec in it:
            flag = rec.flag
            if not _flag_ok(flag) or (paired and not flag & 0x1):
                continue
            if contig is None:
                tid = rec.reference_id
                if tid not in by_tid:
                    by_tid[tid] = (array("i"), array("i"))
                s, e = by_tid[tid]
            if paired:
                lo = min(rec.reference_start, rec.next_reference_start)
                s.append(lo)
                e.append(lo + abs(rec.template_length))
            elif flag & 0x10:
                s.append(rec.reference_end - 1)
                e.append(1)
            else:
                s.append(rec.reference_start)
                e.append(0)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: a damaged BAM file: its records cannot be read "
                         f"after the header ({_reason(exc)})") from None
    parts = by_tid if contig is None else {contig: (s, e)}
    out = {}
    for key, (s, e) in parts.items():
        a = np.frombuffer(s, np.int32)
        b = np.frombuffer(e, np.int32)
        out[key] = (a, b if paired else b.astype(bool))
    return out


def _read_bam(path, paired: bool) -> ReadArrays:
    with _open(path) as bam:
        names = [str(n) for n in bam.references]
        sizes = {n: int(k) for n, k in zip(names, bam.lengths)}
        out = ReadArrays(paired, sizes=sizes)
        indexed = False
        try:
            indexed = bam.has_index() and bam.check_index()
        except (ValueError, AttributeError, OSError):
            indexed = False
        if indexed:
            parts = {}
            for n in names:
                parts.update(_bam_chrom(bam, n, paired, path))
        else:
            raw = _bam_chrom(bam, None, paired, path)
            parts = {names[t]: raw[t] for t in sorted(raw)}
    for n, (a, b) in parts.items():
        if not len(a):
            continue
        if paired:
            bad = b <= a
            if bad.any():
                raise ValueError(f"{path}: a proper pair on {n} at {a[bad][0]} has "
                                 "TLEN 0: not a fragment (is it really paired-end?)")
        out.chroms[n] = (a, b, None)
    return out


def read_arrays(path: str | os.PathLike, fmt: str = "BAM", *, keep_dup="1",
                genome_size: float | None = None, max_count: int | None = None
                ) -> ReadArrays:
    """The reads of one file as :class:`ReadArrays`, counted as
    :func:`~penlearn.peaks.formats.reads.read_reads` counts them (the same arguments).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "r.bed"
    >>> _ = f.write_text("chr1\\t10\\t20\\tr\\t0\\t-\\nchr1\\t10\\t20\\tr\\t0\\t-\\n")
    >>> r = read_arrays(f, "BED")
    >>> r.total, r.chroms["chr1"][0].tolist(), r.chroms["chr1"][1].tolist()
    (1, [19], [True])
    """
    if fmt not in ("BAM", "BAMPE"):  # text formats: parsed as before, then compacted
        reads = read_reads(path, fmt, keep_dup=keep_dup, genome_size=genome_size,
                           max_count=max_count)
        out = ReadArrays(reads.paired, sizes=reads.sizes)
        for c, (s, e, r, w) in reads.chroms.items():
            weight = None if (w == 1).all() else w
            out.chroms[c] = ((s.astype(np.int32), e.astype(np.int32), weight) if reads.paired
                             else (np.where(r, e - 1, s).astype(np.int32), r, weight))
        return out
    out = _read_bam(path, fmt == "BAMPE")
    if not out.chroms:
        raise ValueError(f"{path}: no reads counted (format {fmt}: all records filtered "
                         "out or none there)")
    limit = dedup_limit(keep_dup, out.total, genome_size)
    out.chroms = {c: _dedup(a, b, w, limit) for c, (a, b, w) in out.chroms.items()}
    return out


def pool_read_arrays(parts: list[ReadArrays], names: list[str]) -> ReadArrays:
    """Several files' reads as one sample (MACS3 pools ``-t A B``), chromosomes in the
    order first seen.

    Examples
    --------
    >>> one = ReadArrays(True, {"chr1": (np.array([1], np.int32), np.array([9], np.int32),
    ...                                  None)})
    >>> pool_read_arrays([one, one], ["a", "b"]).total
    2
    """
    out = parts[0]
    for p, name in zip(parts[1:], names[1:]):
        if out.paired != p.paired:
            raise ValueError(f"{name}: paired and single-end reads cannot be pooled")
        for c, (a, b, w) in p.chroms.items():
            old = out.chroms.get(c)
            if old is None:
                out.chroms[c] = (a, b, w)
                continue
            wo, wn = old[2], w
            weight = None if wo is None and wn is None else np.concatenate([
                np.ones(len(old[0]), np.int64) if wo is None else wo,
                np.ones(len(a), np.int64) if wn is None else wn])
            out.chroms[c] = (np.concatenate([old[0], a]), np.concatenate([old[1], b]), weight)
        if p.sizes:
            out.sizes = {**(out.sizes or {}), **p.sizes}
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
        s = np.maximum(s, 0)
        if reads.sizes and chrom in reads.sizes:
            e = np.minimum(e, reads.sizes[chrom])
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
