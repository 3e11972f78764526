"""Read coverage of a BAM file (through the optional ``pysam``), as ``bedtools genomecov
-bg -split`` reports it.

The semantics, those documented for ``bedtools genomecov`` (Quinlan & Hall 2010,
*Bioinformatics* 26(6)) with ``-bg -split``:

* every **mapped** alignment record counts once, at each reference base its CIGAR aligns
  (``M``, ``=``, ``X``); unmapped records (flag 0x4) are left out, and nothing else is
  filtered (secondary, supplementary, duplicate or QC-fail records and every mapping
  quality count, as bedtools counts them: filter the BAM first, e.g. ``samtools view -b
  -F 0xD04 -q 10``, to count otherwise);
* ``-split``: the reference bases skipped by ``N`` (introns of spliced reads) **and**
  ``D`` (deletions) are not covered by the read (bedtools: "uses the CIGAR 'N' and 'D'
  operations to infer the blocks"); ``I``, ``S``, ``H``, ``P`` cover no reference base;
* ``-bg``: bedGraph rows of equal depth merged, zero-depth runs left out (gaps, filled
  with zero counts by the PeakSeg solvers as for any ``genomecov -bg`` file);
  chromosomes in the header's order, those without reads left out; pairs are not joined
  into fragments (each mate counts).

The rows equal those of ``bedtools genomecov -ibam X -bg -split`` (checked against bedtools
2.30.0 on random BAMs of every flag and CIGAR operation). A BAM file is recognised by its
content (BGZF-compressed, starting ``BAM\\1``), never by its name.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import warnings
import zlib
from array import array
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import optional_import
from penlearn.peaks.formats._text_files import GZIP_MAGIC, string_column

__all__ = ["bam_chrom_sizes", "bam_chromosomes", "is_bam", "read_bam"]

BAM_MAGIC = b"BAM\x01"


def is_bam(path: str | os.PathLike) -> bool:
    """True when the file is gzip (BGZF) data starting with ``BAM\\1``.

    Examples
    --------
    >>> import tempfile, pathlib, gzip
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.bam"
    >>> _ = p.write_bytes(gzip.compress(b"chr1\\t0\\t1\\t1\\n"))
    >>> is_bam(p)
    False
    """
    with open(path, "rb") as fh:
        if fh.read(2) != GZIP_MAGIC:
            return False
    try:
        with gzip.open(path, "rb") as fh:
            return fh.read(4) == BAM_MAGIC
    except (OSError, EOFError, zlib.error):
        return False


@contextlib.contextmanager
def _open(path: str | os.PathLike):
    """The open BAM file, htslib's own ``[E::...]`` messages silenced while it is read
    (the error raised names the file and says what failed) and its closing never
    hiding that error (htslib reports a damaged file again, as "Closing failed")."""
    pysam = optional_import("pysam", "reading BAM files", "bam")
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"BAM file not found: {p}")
    if not is_bam(p):
        raise ValueError(f"{p}: not a BAM file (no BGZF data starting 'BAM\\1')")
    verbosity = pysam.set_verbosity(0)
    try:
        try:
            bam = pysam.AlignmentFile(str(p), "rb", check_sq=False)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{p}: cannot open as a BAM file ({_reason(exc)})") from None
        try:
            yield bam
        finally:
            with contextlib.suppress(OSError, ValueError):
                bam.close()
    finally:
        pysam.set_verbosity(verbosity)


def _reason(exc: BaseException) -> str:
    """An htslib error in words, without errno noise ("No such file or directory" of a
    file that exists)."""
    text = " ".join(str(exc).split())
    return text.replace(": No such file or directory", "") or type(exc).__name__


def bam_chrom_sizes(path: str | os.PathLike) -> dict[str, int]:
    """The reference sequences of a BAM file's header and their lengths.

    Examples
    --------
    >>> bam_chrom_sizes("reads.bam")  # doctest: +SKIP
    {'chr1': 248956422, ...}
    """
    with _open(path) as bam:
        return {str(n): int(k) for n, k in zip(bam.references, bam.lengths)}


def depth_runs(starts: np.ndarray, ends: np.ndarray, weights: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """bedGraph runs (start, end, depth > 0; equal neighbours merged) of the depth of
    half-open blocks ``[starts[i], ends[i])``, each counted ``weights[i]`` times (None:
    once; a weight is never expanded into copies, so a FRAG count of 10^15 costs one row).

    Examples
    --------
    >>> s, e, d = depth_runs(np.array([0, 5, 10]), np.array([10, 10, 12]))
    >>> s.tolist(), e.tolist(), d.tolist()
    ([0, 5, 10], [5, 10, 12], [1, 2, 1])
    >>> depth_runs(np.array([0, 5]), np.array([10, 10]), np.array([3, 1]))[2].tolist()
    [3, 4]
    """
    if weights is None:  # (one merge of the sorted starts and ends, in numba)
        from penlearn.peaks.formats._pileup_kernel import unit_depth_runs

        return unit_depth_runs(starts, ends)
    pos = np.concatenate([starts, ends])
    one = (np.ones(len(starts), np.int64) if weights is None
           else np.asarray(weights, np.int64))
    step = np.concatenate([one, -one])
    del one
    order = np.argsort(pos, kind="stable")
    pos, depth = pos[order], np.cumsum(step[order])
    del order, step
    last = np.r_[pos[1:] != pos[:-1], True]  # the depth after all steps at a position
    pos, depth = pos[last], depth[last]
    change = np.r_[True, depth[1:] != depth[:-1]]  # a position where the depth changes
    pos, depth = pos[change], depth[change]
    keep = depth[:-1] > 0
    return pos[:-1][keep], pos[1:][keep], depth[:-1][keep]


def read_bam(path: str | os.PathLike) -> pd.DataFrame:
    """Read-depth coverage of a BAM file, as ``bedtools genomecov -bg -split`` reports it.

    Needs the optional dependency ``pysam`` (``pip install 'penlearn[bam]'``). Sorted or
    not, indexed or not: the records are read once, in file order. The semantics (which
    records count, ``N`` and ``D`` not covered) are those of the module docstring.

    Parameters
    ----------
    path : path-like
        The BAM file (recognised by its content).

    Returns
    -------
    DataFrame
        ``chrom, chromStart, chromEnd, count`` (int64), as a bedGraph file: one row per
        run of equal non-zero depth, chromosomes in the header's order.

    Raises
    ------
    ValueError
        A file that is not a BAM file or cannot be read, or a BAM without mapped reads.
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> read_bam("reads.bam").head()  # doctest: +SKIP
    """
    chroms, lengths, columns = [], [], ([], [], [])
    for chrom, runs in _depth_chromosomes(path, _file_blocks(path)):
        chroms.append(chrom)
        lengths.append(len(runs[0]))
        for col, part in zip(columns, runs):
            col.append(part)
    return pd.DataFrame({"chrom": string_column(chroms, np.array(lengths, np.int64)),
                         **{k: np.concatenate(v).astype(np.int64) for k, v in
                            zip(("chromStart", "chromEnd", "count"), columns)}},
                        copy=False)


def bam_chromosomes(path: str | os.PathLike) -> Iterator[tuple[str, list]]:
    """The rows of :func:`read_bam` a chromosome at a time: ``(chrom, [starts, ends,
    counts])`` (int64) of each chromosome with coverage, in the header's order, with
    its warnings and errors. An indexed file (``.bai`` / ``.csi`` beside it) is read a
    chromosome at a time (pysam's ``fetch`` of each reference: one chromosome's
    alignment blocks held); another is read once in file order (every record's blocks,
    16 bytes each, are held), then each chromosome's depth made when asked (one
    chromosome's rows held, not the file's).

    Examples
    --------
    >>> [c for c, _ in bam_chromosomes("reads.bam")]  # doctest: +SKIP
    ['chr1', 'chr2']
    """
    with _open(path) as bam:
        indexed = _indexed(bam)
    blocks = _contig_blocks(path) if indexed else _file_blocks(path)
    for chrom, runs in _depth_chromosomes(path, blocks):
        yield chrom, [x.astype(np.int64, copy=False) for x in runs]


def _indexed(bam) -> bool:
    """Whether an open BAM file has an index pysam can use (``fetch`` by reference)."""
    try:
        return bool(bam.has_index() and bam.check_index())
    except (ValueError, AttributeError, OSError):
        return False


def _add_blocks(read, tid_blocks: dict) -> bool:
    """Append the aligned blocks of one record to ``tid_blocks[tid]`` (two ``array``s of
    starts and ends); False for a mapped record without a CIGAR (no aligned base)."""
    if read.cigartuples is None:  # mapped, CIGAR '*': no aligned base
        return False
    tid = read.reference_id
    if tid not in tid_blocks:
        tid_blocks[tid] = (array("q"), array("q"))
    s, e = tid_blocks[tid]
    for a, b in read.get_blocks():  # gapless blocks: split at N, D (and I)
        s.append(a)
        e.append(b)
    return True


def _damaged(path, exc: BaseException) -> ValueError:
    """The error of a BAM file whose records cannot be read after its header (every
    reader's: :func:`read_bam`, ``reads.read_reads``, ``read_arrays.read_bam_arrays``)."""
    return ValueError(f"{path}: a damaged BAM file: its records cannot be read after the "
                      f"header ({_reason(exc)})")


def _file_blocks(path):
    """``(reference names, iterator of (tid, starts, ends), records without a CIGAR)``
    (the last a function, its count once the iterator is done): every record read once
    in file order, then each reference's blocks given in the header's order."""
    blocks: dict[int, tuple] = {}
    no_cigar = 0
    with _open(path) as bam:
        names = [str(n) for n in bam.references]
        try:
            for read in bam.fetch(until_eof=True):
                if not read.is_unmapped and not _add_blocks(read, blocks):
                    no_cigar += 1
        except (OSError, ValueError) as exc:
            raise _damaged(path, exc) from None

    def each():
        for tid in sorted(blocks):
            s, e = blocks.pop(tid)
            yield tid, s, e
    return names, each(), lambda: no_cigar


def _contig_blocks(path):
    """:func:`_file_blocks` of an indexed file: each reference's records fetched when
    asked (one reference's blocks held)."""
    with _open(path) as bam:
        names = [str(n) for n in bam.references]
    no_cigar = [0]

    def each():
        with _open(path) as bam:
            for tid, name in enumerate(names):
                got: dict[int, tuple] = {}
                try:
                    for read in bam.fetch(name):
                        if not read.is_unmapped and not _add_blocks(read, got):
                            no_cigar[0] += 1
                except (OSError, ValueError) as exc:
                    raise _damaged(path, exc) from None
                if tid in got:
                    yield tid, *got.pop(tid)
                del got
    return names, each(), lambda: no_cigar[0]


def _depth_chromosomes(path, blocks) -> Iterator[tuple[str, tuple]]:
    """``(chrom, (starts, ends, depths))`` of each reference with coverage, in the
    header's order, from ``blocks`` (:func:`_file_blocks` or :func:`_contig_blocks`);
    after the last, the warning of the records without a CIGAR, and the error of a file
    without mapped reads."""
    names, each, no_cigar = blocks
    seen = False
    for tid, s, e in each:
        seen = True
        runs = depth_runs(np.frombuffer(s, np.int64), np.frombuffer(e, np.int64))
        del s, e
        if len(runs[0]):
            yield str(names[tid]), runs
    if no_cigar():
        warnings.warn(f"{path}: {no_cigar()} mapped record(s) without a CIGAR ('*': no "
                      "aligned base) left out", UserWarning, stacklevel=3)
    if not seen:
        raise ValueError(f"{path}: the BAM file has no mapped reads (no coverage)")
