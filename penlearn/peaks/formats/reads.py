"""Reads as MACS3 reads them: fragments of BAM, BAMPE, BED and FRAG files, and their coverage.

MACS3 (Zhang et al. 2008, "Model-based analysis of ChIP-Seq (MACS)", *Genome Biology*
9:R137) piles up *fragments*, not aligned bases: this module reads the same fragments
(``penlearn callpeak -f``), and :func:`fragment_coverage` turns them into bedGraph rows
(``chrom, chromStart, chromEnd, count``) for the PeakSeg model.

Formats (``fmt``):

* ``BAM`` — single-end reads. Records unmapped (flag 0x4), secondary (0x100), QC-failed
  (0x200) or supplementary (0x800) are left out; of paired records, only the first mate
  (0x40) of a proper pair (0x2) whose mate is mapped counts, once (MACS3's rule). Each
  read is a 5′ end and a strand, extended 3′-ward to ``extsize`` bases: ``[5′, 5′ + d)``
  on ``+``, ``[3′end − d, 3′end)`` on ``−`` (``bedtools genomecov -fs d``); ``extsize``
  None: the read's own aligned span.
* ``BAMPE`` — fragments of proper pairs: from the first mate of each proper pair whose
  mate is mapped (the same filters), ``[min(pos, mate pos), + |TLEN|)`` — the span
  ``bedtools bamtobed -bedpe`` gives from the leftmost start to the rightmost end.
* ``BED`` — single-end reads as BED6 (``chrom, start, end, name, score, strand``;
  ``track`` / ``browser`` / ``#`` lines skipped), extended like ``BAM``.
* ``FRAG`` — ATAC-seq fragment files (``fragments.tsv.gz``: ``chrom, start, end, barcode,
  count``): each row one fragment ``count`` times (``max_count`` caps it; as MACS3,
  ``keep_dup`` does not apply).

Duplicates (``keep_dup``): at most ``n`` reads of the same 5′ position and strand
(single-end) or of the same fragment (BAMPE) are kept — ``1`` is MACS3's default; ``"all"``
keeps every read; ``"auto"`` takes the largest ``n`` whose chance under a uniform
Poisson scatter of the reads over ``genome_size`` bases is >= 1e-5 (MACS3's binomial
rule, with its Poisson limit). Duplicate flags (0x400) are not read: as in MACS3, filter
the BAM first and pass ``keep_dup="all"`` to count it as it is.
"""

from __future__ import annotations

import io
import math
import os
from array import array
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn.peaks.formats._text_files import read_bytes, string_column
from penlearn.peaks.formats.bam import _open, _reason, depth_runs

__all__ = ["NO_READS_HINTS", "READ_FORMATS", "Reads", "dedup_limit", "fragment_coverage",
           "read_reads"]

READ_FORMATS = ("BAM", "BAMPE", "BED", "FRAG")
#: flags never counted: unmapped, secondary, QC fail, supplementary
_SKIP = 0x4 | 0x100 | 0x200 | 0x800
#: why a file of each format can count no read, and what to try: the one hint table of
#: "no reads counted" (a single-end BAM read as BAMPE gets the count it would have as BAM)
NO_READS_HINTS = {
    "BAM": "BAM counts mapped reads that are not secondary, supplementary or QC-failed; "
           "this one has none (all unmapped? check with samtools flagstat)",
    "BAMPE": "BAMPE counts the first mates of proper pairs; a single-end BAM has none: "
             "give -f BAM",
    "BED": "BED counts rows chrom, start, end, name, score, strand (6 columns) outside "
           "comment / track lines; fragments (chrom, start, end[, barcode, count]) are "
           "-f FRAG",
    "FRAG": "FRAG counts rows chrom, start, end[, barcode, count]; reads with a strand "
            "column are -f BED",
}


@dataclass
class Reads:
    """The reads of one file, per chromosome.

    Attributes
    ----------
    paired : bool
        Fragments with both ends known (BAMPE, FRAG): ``start``/``end`` are the
        fragment; otherwise single-end reads: ``start``/``end`` the aligned span and
        ``reverse`` the strand.
    chroms : dict
        ``{chrom: (start, end, reverse, weight)}`` arrays (int64, int64, bool, int64),
        in the file's order.
    sizes : dict or None
        Chromosome lengths of the BAM header (None: BED / FRAG).
    """

    paired: bool
    chroms: dict = field(default_factory=dict)
    sizes: dict | None = None

    @property
    def total(self) -> int:
        """The number of reads (fragments), duplicates counted."""
        return int(sum(w.sum() for *_, w in self.chroms.values()))

    def five_prime(self) -> dict:
        """``{chrom: (5′ positions, reverse)}`` of single-end reads (0-based base)."""
        return {c: (np.where(r, e - 1, s), r) for c, (s, e, r, _) in self.chroms.items()}


def _flag_ok(flag: int) -> bool:
    """MACS3's filter: counted records (see the module docstring)."""
    if flag & _SKIP:
        return False
    return not flag & 0x1 or (flag & 0x2 and not flag & 0x8 and not flag & 0x80)


def _read_bam(path, paired: bool) -> Reads:
    cols: dict[int, tuple[array, array, array]] = {}
    with _open(path) as bam:
        names = list(bam.references)
        sizes = {str(n): int(k) for n, k in zip(bam.references, bam.lengths)}
        try:
            for rec in bam.fetch(until_eof=True):
                flag = rec.flag
                if not _flag_ok(flag) or (paired and not flag & 0x1):
                    continue
                tid = rec.reference_id
                if tid not in cols:
                    cols[tid] = (array("q"), array("q"), array("b"))
                s, e, r = cols[tid]
                if paired:
                    lo = min(rec.reference_start, rec.next_reference_start)
                    s.append(lo)
                    e.append(lo + abs(rec.template_length))
                    r.append(0)
                else:
                    s.append(rec.reference_start)
                    e.append(rec.reference_end)
                    r.append(1 if flag & 0x10 else 0)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: a damaged BAM file: its records cannot be read "
                             f"after the header ({_reason(exc)})") from None
    out = Reads(paired=paired, sizes=sizes)
    for tid in sorted(cols):
        s, e, r = (np.frombuffer(a, t) for a, t in zip(cols.pop(tid), (np.int64, np.int64,
                                                                        np.int8)))
        if paired:
            bad = e <= s
            if bad.any():
                raise ValueError(f"{path}: a proper pair on {names[tid]} at {s[bad][0]} has "
                                 "TLEN 0: not a fragment (is it really paired-end?)")
        out.chroms[str(names[tid])] = (s, e, r.astype(bool), np.ones(len(s), np.int64))
    return out


def _read_table(path, fmt: str) -> Reads:
    """BED6 reads or FRAG fragments (pandas parses; the errors name the file)."""
    usecols = [0, 1, 2, 5] if fmt == "BED" else [0, 1, 2, 4]
    lines = read_bytes(path).split(b"\n")
    body = b"\n".join(x for x in lines if x.strip() and not x.startswith(
        (b"#", b"track", b"browser")))
    try:
        table = pd.read_csv(io.BytesIO(body), sep="\t", header=None, usecols=usecols,
                            dtype={0: str})
    except (ValueError, pd.errors.ParserError) as exc:
        need = "6 columns (chrom, start, end, name, score, strand)" if fmt == "BED" else \
            "5 columns (chrom, start, end, barcode, count)"
        raise ValueError(f"{path}: not a {fmt} file of {need}: "
                         f"{' '.join(str(exc).split())}") from None
    table.columns = ["chrom", "start", "end", "last"]
    for c in ("start", "end"):
        table[c] = pd.to_numeric(table[c], errors="coerce")
    bad = table["start"].isna() | table["end"].isna() | (table["start"] < 0) | (
        table["end"] <= table["start"])
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{path}: row {i + 1}: start, end must be integers with "
                         f"0 <= start < end, got {table.iloc[i, 1]!r}, {table.iloc[i, 2]!r}")
    if fmt == "BED":
        strand = table["last"].astype(str)
        if not strand.isin(["+", "-"]).all():
            i = int(np.flatnonzero(~strand.isin(["+", "-"]).to_numpy())[0])
            raise ValueError(f"{path}: row {i + 1}: column 6 (strand) must be + or -, "
                             f"got {strand.iloc[i]!r}")
        rev, weight = (strand == "-").to_numpy(), np.ones(len(table), np.int64)
    else:
        count = pd.to_numeric(table["last"], errors="coerce")
        if count.isna().any() or (count < 1).any() or (count != count.round()).any():
            i = int(np.flatnonzero((count.isna() | (count < 1)).to_numpy())[0]) \
                if (count.isna() | (count < 1)).any() else 0
            raise ValueError(f"{path}: row {i + 1}: column 5 (count) must be an integer "
                             f">= 1, got {table['last'].iloc[i]!r}")
        rev, weight = np.zeros(len(table), bool), count.to_numpy(np.int64)
    out = Reads(paired=fmt == "FRAG")
    chrom = table["chrom"].to_numpy()
    s, e = table["start"].to_numpy(np.int64), table["end"].to_numpy(np.int64)
    for c in pd.unique(chrom):
        m = chrom == c
        out.chroms[str(c)] = (s[m], e[m], rev[m], weight[m])
    return out


def dedup_limit(keep_dup, n_reads: int, genome_size: float | None) -> int | None:
    """Reads kept at one location: ``"all"`` → None (no limit), an integer ``n >= 1``, or
    ``"auto"``: the largest count whose Poisson tail at the mean ``n_reads / genome_size``
    is >= 1e-5 (at least 1).

    Examples
    --------
    >>> dedup_limit("1", 10, None), dedup_limit("all", 10, None)
    (1, None)
    >>> dedup_limit("auto", 3_000_000, 3e6)   # one read per base on average
    8
    """
    text = str(keep_dup).strip().lower()
    if text == "all":
        return None
    if text == "auto":
        if not genome_size or genome_size <= 0:
            raise ValueError("--keep-dup auto needs the genome size (-g/--gsize)")
        mean = n_reads / float(genome_size)
        k, term, tail = 0, math.exp(-mean), 1.0  # tail = P(X >= k)
        while True:
            tail -= term  # P(X >= k + 1)
            if tail < 1e-5:
                return max(k, 1)
            k += 1
            term *= mean / k
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"--keep-dup must be 'auto', 'all' or an integer >= 1, got "
                         f"{keep_dup!r}")
    return n


def _dedup(reads: Reads, limit: int | None) -> Reads:
    if limit is None:
        return reads
    out = Reads(paired=reads.paired, sizes=reads.sizes)
    for c, (s, e, r, w) in reads.chroms.items():
        key0 = s if reads.paired else np.where(r, e - 1, s)
        key1 = e if reads.paired else r.astype(np.int64)
        order = np.lexsort((key1, key0))
        k0, k1 = key0[order], key1[order]
        new = np.r_[True, (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1])]
        group = np.cumsum(new) - 1
        rank = np.arange(len(order)) - np.flatnonzero(new)[group]  # rank within its location
        keep = np.sort(order[rank < limit])
        out.chroms[c] = (s[keep], e[keep], r[keep], w[keep])
    return out


def read_reads(path: str | os.PathLike, fmt: str = "BAM", *, keep_dup="1",
               genome_size: float | None = None, max_count: int | None = None) -> Reads:
    """The reads (fragments) of one file, as MACS3 reads them (module docstring).

    Parameters
    ----------
    path : path-like
        The file (BAM: by content; BED / FRAG: plain or gzip text).
    fmt : {"BAM", "BAMPE", "BED", "FRAG"}
        The format, as MACS3's ``-f``.
    keep_dup : {"1", "all", "auto"} or int
        Reads kept at one location (not for FRAG).
    genome_size : float, optional
        The effective genome size, for ``keep_dup="auto"``.
    max_count : int, optional
        FRAG: each row counts ``min(count, max_count)`` times.

    Returns
    -------
    Reads

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "r.bed"
    >>> _ = f.write_text("chr1\\t10\\t20\\tr\\t0\\t+\\nchr1\\t10\\t20\\tr\\t0\\t+\\n")
    >>> read_reads(f, "BED").total, read_reads(f, "BED", keep_dup="all").total
    (1, 2)
    """
    if fmt not in READ_FORMATS:
        raise ValueError(f"format must be one of {', '.join(READ_FORMATS)}, got {fmt!r}")
    if fmt in ("BAM", "BAMPE"):
        reads = _read_bam(path, fmt == "BAMPE")
    else:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{fmt} file not found: {path}")
        reads = _read_table(path, fmt)
    if not reads.chroms:
        hint = NO_READS_HINTS[fmt]
        if fmt == "BAMPE":
            single = _read_bam(path, False).total
            if single:
                hint = (f"BAMPE counts the first mates of proper pairs; this BAM holds "
                        f"{single} single-end read(s) and no proper pair: give -f BAM")
        raise ValueError(f"{path}: no reads counted as {fmt}: {hint}")
    if fmt == "FRAG":
        if max_count is not None:
            if max_count < 1:
                raise ValueError(f"--max-count must be >= 1, got {max_count}")
            reads.chroms = {c: (s, e, r, np.minimum(w, max_count))
                            for c, (s, e, r, w) in reads.chroms.items()}
        return reads
    return _dedup(reads, dedup_limit(keep_dup, reads.total, genome_size))


def fragment_coverage(reads: Reads, extsize: int | None = None) -> pd.DataFrame:
    """Fragment pileup as bedGraph rows ``chrom, chromStart, chromEnd, count``.

    Single-end reads are extended to ``extsize`` bases from their 5′ end (None: their
    aligned span); fragments (BAMPE, FRAG) are taken as they are.

    Examples
    --------
    >>> r = Reads(False, {"chr1": (np.array([0, 30]), np.array([10, 40]),
    ...                            np.array([False, True]), np.array([1, 1]))})
    >>> fragment_coverage(r, 25).values.tolist()
    [['chr1', 0, 15, 1], ['chr1', 15, 25, 2], ['chr1', 25, 40, 1]]
    """
    if extsize is not None and not reads.paired and extsize < 1:
        raise ValueError(f"the fragment size (--extsize) must be >= 1, got {extsize}")
    chroms, lengths, parts = [], [], ([], [], [])
    for c, (s, e, r, w) in reads.chroms.items():
        if not reads.paired and extsize is not None:
            s, e = np.where(r, e - extsize, s), np.where(r, e, s + extsize)
            s = np.maximum(s, 0)
            if reads.sizes and c in reads.sizes:
                e = np.minimum(e, reads.sizes[c])
        if (w != 1).any():
            s, e = np.repeat(s, w), np.repeat(e, w)
        runs = depth_runs(s, e)
        if len(runs[0]):
            chroms.append(c)
            lengths.append(len(runs[0]))
            for col, part in zip(parts, runs):
                col.append(part)
    if not chroms:
        raise ValueError("no reads: the coverage is empty")
    return pd.DataFrame({"chrom": string_column(chroms, np.array(lengths, np.int64)),
                         **{k: np.concatenate(v).astype(np.int64) for k, v in
                            zip(("chromStart", "chromEnd", "count"), parts)}}, copy=False)
