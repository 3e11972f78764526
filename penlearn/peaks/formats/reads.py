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

import csv
import io
import math
import os
import re
import warnings
from array import array
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from penlearn.peaks.formats._text_files import read_bytes, string_column
from penlearn.peaks.formats.bam import BAM_MAGIC, _damaged, _open, depth_runs, is_bam

__all__ = ["NO_READS_HINTS", "READ_FORMATS", "Reads", "dedup_limit", "fragment_coverage",
           "read_reads", "shift_reads"]

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
    no_cigar = 0
    with _open(path) as bam:
        names = list(bam.references)
        sizes = {str(n): int(k) for n, k in zip(bam.references, bam.lengths)}
        try:
            for rec in bam.fetch(until_eof=True):
                flag = rec.flag
                if not _flag_ok(flag) or (paired and not flag & 0x1):
                    continue
                if rec.reference_end is None:  # mapped, but CIGAR '*': no aligned base
                    no_cigar += 1
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
            raise _damaged(path, exc) from None
    if no_cigar:
        warnings.warn(f"{path}: {no_cigar} mapped record(s) without a CIGAR ('*': no aligned "
                      "base) left out", UserWarning, stacklevel=3)
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


#: the columns of a read table: (columns needed, their names)
_TABLE_COLUMNS = {"BED": (6, "6 columns (chrom, start, end, name, score, strand)"),
                  "FRAG": (5, "5 columns (chrom, start, end, barcode, count)")}
_COLUMN_NAMES = {2: "start", 3: "end", 5: "count", 6: "strand"}
_SAM_HEADER = (b"@HD", b"@SQ", b"@RG", b"@PG", b"@CO")


_SKIPPED = (b"#", b"track", b"browser")


def _is_data(line: bytes) -> bool:
    return bool(line.strip()) and not line.startswith(_SKIPPED)


def _other_format(path, data: bytes, fmt: str) -> str | None:
    """What a file given as BED / FRAG is instead (a one-line reason), or None."""
    what = f"read as {fmt}"
    if data[:4] == b"CRAM":
        return f"{path}: a CRAM file, {what}: convert it to BAM first (samtools view -b)"
    if data[:4] == BAM_MAGIC:
        return f"{path}: a BAM file, {what}: give it as -f BAM (or BAMPE)"
    if data[:4096].lstrip()[:3] in _SAM_HEADER:
        return (f"{path}: a SAM file (its '@' header lines), {what}: convert it to BAM "
                "(samtools view -b) and give it as -f BAM")
    first = next((x for x in data[:1 << 16].split(b"\n") if _is_data(x)), None)
    if first is None:
        return (f"{path}: no reads: the file is empty" if not data.strip() else
                f"{path}: no reads: only header / comment lines")
    f = first.split(b"\t")
    if len(f) >= 11 and f[1].strip().isdigit() and f[3].strip().isdigit() and \
            not f[2].strip().isdigit():
        return (f"{path}: a SAM file (11+ columns: name, flag, chrom, pos, ...), {what}: "
                "convert it to BAM (samtools view -b) and give it as -f BAM")
    return None


def _bad_line(path, data: bytes, fmt: str) -> ValueError:
    """The first line of a BED / FRAG table that is not a read, named by its line number
    (1-based, every line counted) and column; the values as the file writes them."""
    need, what = _TABLE_COLUMNS[fmt]
    for no, raw in enumerate(data.split(b"\n"), start=1):
        if not _is_data(raw):
            continue
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        f = [x.strip() for x in line.split("\t")]
        where = f"{path}: line {no}"
        if len(f) < need:
            return ValueError(f"{where}: {len(f)} tab-separated column(s); a {fmt} file has "
                              f"{what}")
        if not f[0]:
            return ValueError(f"{where}: column 1 (chrom) is empty")
        for col in ((2, 3, 5) if fmt == "FRAG" else (2, 3)):
            if not _DIGITS.fullmatch(f[col - 1]) or len(f[col - 1]) > _MAX_DIGITS:
                kind = "an integer >= 1" if col == 5 else "an integer >= 0"
                name = f"column {col} ({_COLUMN_NAMES[col]})"
                if _DIGITS.fullmatch(f[col - 1]):
                    return ValueError(f"{where}: {name} {f[col - 1]} is too large (at most "
                                      f"{_MAX_DIGITS} digits: an extended read stays in the "
                                      "64-bit integer range)")
                return ValueError(f"{where}: {name} must be {kind}, got {f[col - 1]!r}")
        if int(f[2]) <= int(f[1]):
            return ValueError(f"{where}: columns 2, 3 (start, end) must be 0 <= start < end, "
                              f"got {f[1]}, {f[2]}")
        if fmt == "BED" and f[5] not in ("+", "-"):
            return ValueError(f"{where}: column 6 (strand) must be + or -, got {f[5]!r}")
        if fmt == "FRAG" and int(f[4]) < 1:
            return ValueError(f"{where}: column 5 (count) must be an integer >= 1, got "
                              f"{f[4]!r}")
    return ValueError(f"{path}: not a {fmt} file of {what}")


_DIGITS = re.compile(r"[0-9]+")
#: digits of a coordinate or count: below 10^18, so that an extended or shifted read
#: (--extsize, --shift < 2^31) and a pileup stay inside int64
_MAX_DIGITS = 18


def _read_table(path, fmt: str) -> Reads:
    """BED6 reads or FRAG fragments (pandas parses; a line that is not a read is named by
    :func:`_bad_line`)."""
    data = read_bytes(path)
    other = _other_format(path, data, fmt)
    if other is not None:
        raise ValueError(other)
    usecols = [0, 1, 2, 5] if fmt == "BED" else [0, 1, 2, 4]
    body = b"\n".join(x for x in data.split(b"\n")  # (inline: _is_data per line costs)
                      if x.strip() and not x.startswith(_SKIPPED))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas' casts: the bad line is named instead
            # na_filter off: a chromosome 'NA', 'null' or 'None' is a name, not a
            # missing value (its reads were dropped)
            table = pd.read_csv(io.BytesIO(body), sep="\t", header=None, usecols=usecols,
                                quoting=csv.QUOTE_NONE, na_filter=False, dtype={
                                    0: str, 1: np.int64, 2: np.int64,
                                    usecols[3]: str if fmt == "BED" else np.int64})
    except (ValueError, OverflowError, pd.errors.ParserError):
        raise _bad_line(path, data, fmt) from None
    table.columns = ["chrom", "start", "end", "last"]
    s, e = table["start"].to_numpy(np.int64), table["end"].to_numpy(np.int64)
    last = table["last"]
    if fmt == "BED":
        ok = last.isin(["+", "-"]).to_numpy()
        if not ok.all():  # (" +": the strand stripped)
            last = last.str.strip()
            ok = last.isin(["+", "-"]).to_numpy()
        rev = (last == "-").to_numpy()
        weight = np.ones(len(table), np.int64)
    else:
        weight = last.to_numpy(np.int64)
        ok = weight >= 1
        rev = np.zeros(len(table), bool)
    if not (ok & (s >= 0) & (e > s) & (e < 10**_MAX_DIGITS)).all() or (
            table["chrom"] == "").any():
        raise _bad_line(path, data, fmt)
    del data, body
    out = Reads(paired=fmt == "FRAG")
    chrom = table["chrom"].to_numpy()
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


def _pool(parts: list[tuple[str, Reads]]) -> Reads:
    """The reads of several files as one sample (MACS3's ``-t A B``): per chromosome in
    the order first seen; chromosome lengths of every BAM header (two headers giving one
    chromosome two lengths: an error)."""
    (_, out), rest = parts[0], parts[1:]
    out = Reads(out.paired, dict(out.chroms), dict(out.sizes) if out.sizes else None)
    for path, r in rest:
        if out.paired != r.paired:
            raise ValueError(f"{path}: paired and single-end reads cannot be pooled")
        for c, cols in r.chroms.items():
            old = out.chroms.get(c)
            out.chroms[c] = cols if old is None else tuple(
                np.concatenate([a, b]) for a, b in zip(old, cols))
        for c, n in (r.sizes or {}).items():
            if out.sizes and out.sizes.get(c, n) != n:
                raise ValueError(f"{path}: chromosome {c!r} is {n} bases long, {out.sizes[c]} "
                                 "in an earlier file: reads of two genomes cannot be pooled")
        if r.sizes:
            out.sizes = {**(out.sizes or {}), **r.sizes}
    return out


def _no_reads_hint(path, fmt: str) -> str:
    """What :data:`NO_READS_HINTS` says of ``fmt``; a BAM read as BAMPE that holds
    single-end reads gets their count and ``-f BAM``."""
    if fmt == "BAMPE":
        single = _read_bam(path, False).total
        if single:
            return (f"BAMPE counts the first mates of proper pairs; this BAM holds {single} "
                    "single-end read(s) and no proper pair: give -f BAM")
    return NO_READS_HINTS[fmt]


def read_reads(path, fmt: str = "BAM", *, keep_dup="1",
               genome_size: float | None = None, max_count: int | None = None) -> Reads:
    """The reads (fragments) of one file, or of several pooled into one sample, as MACS3
    reads them (module docstring).

    Parameters
    ----------
    path : path-like or list of path-like
        The file (BAM: by content; BED / FRAG: plain or gzip text), or several: their
        reads pooled *before* the duplicates are counted (MACS3's ``-t A B``: a read in
        two files is a duplicate).
    fmt : {"BAM", "BAMPE", "BED", "FRAG", "AUTO"}
        The format, as MACS3's ``-f`` (``AUTO``: each file BAM by content, else BED).
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
    >>> read_reads([f, f], "BED").total   # pooled, then one read per location
    1
    """
    if fmt not in (*READ_FORMATS, "AUTO"):
        raise ValueError(f"format must be one of {', '.join(READ_FORMATS)} or AUTO, got "
                         f"{fmt!r}")
    paths = [path] if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") \
        else list(path)
    if not paths:
        raise ValueError("no read files given")
    if fmt != "FRAG":
        dedup_limit(keep_dup, 0, genome_size)  # its syntax, before any file is read
    if fmt == "FRAG" and max_count is not None and max_count < 1:
        raise ValueError(f"--max-count must be >= 1, got {max_count}")
    parts = []
    for p in paths:
        f = fmt if fmt != "AUTO" else ("BAM" if os.path.isfile(p) and is_bam(p) else "BED")
        if f in ("BAM", "BAMPE"):
            reads = _read_bam(p, f == "BAMPE")
        else:
            if not os.path.isfile(p):
                raise FileNotFoundError(f"{f} file not found: {p}")
            reads = _read_table(p, f)
        if not reads.chroms:
            raise ValueError(f"{p}: no reads counted as {f}: {_no_reads_hint(p, f)}")
        parts.append((p, reads))
    reads = _pool(parts) if len(parts) > 1 else parts[0][1]
    if fmt == "FRAG":
        if max_count is not None:
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
        # every fragment clipped to its chromosome (a BAMPE TLEN or an extension past
        # its end, a shifted read before its start); none left of it: left out
        s = np.maximum(s, 0)
        if reads.sizes and c in reads.sizes:
            e = np.minimum(e, reads.sizes[c])
        if not (inside := e > s).all():
            s, e, w = s[inside], e[inside], w[inside]
        runs = depth_runs(s, e, w if (w != 1).any() else None)
        if len(runs[0]):
            chroms.append(c)
            lengths.append(len(runs[0]))
            for col, part in zip(parts, runs):
                col.append(part)
    if not chroms:
        raise ValueError("no reads: the coverage is empty (no fragment inside its "
                         "chromosome)")
    return pd.DataFrame({"chrom": string_column(chroms, np.array(lengths, np.int64)),
                         **{k: np.concatenate(v).astype(np.int64) for k, v in
                            zip(("chromStart", "chromEnd", "count"), parts)}}, copy=False)


def shift_reads(reads: Reads, shift: int) -> Reads:
    """Single-end reads with their 5′ ends moved ``shift`` bases 3′-ward (MACS3's
    ``--shift``; negative: 5′-ward); fragments (paired) as they are. A shift that moves
    every read off its chromosome (before base 0, or past its end: the BAM header's
    length, else, for BED reads, the last read's end) is a ``ValueError`` naming it.

    Examples
    --------
    >>> r = Reads(False, {"chr1": (np.array([100]), np.array([150]), np.array([True]),
    ...                            np.array([1]))})
    >>> shift_reads(r, 20).chroms["chr1"][:2]   # a − read: 5′ end 149 moves to 129
    (array([80]), array([130]))
    """
    if not shift or reads.paired:
        return reads
    chroms, inside = {}, 0
    for c, (s, e, r, w) in reads.chroms.items():
        n = (reads.sizes or {}).get(c, e.max() if len(e) else 0)
        d = np.where(r, -shift, shift)
        s, e = s + d, e + d
        five = np.where(r, e - 1, s)
        inside += int(((five >= 0) & (five < n)).sum())
        chroms[c] = (s, e, r, w)
    if not inside:
        raise ValueError(f"--shift {shift} moves the 5' end of every read off its chromosome "
                         "(before its start or past its end): no read left")
    return Reads(reads.paired, chroms, reads.sizes)
