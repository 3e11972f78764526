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
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import optional_import
from penlearn.peaks.formats._text_files import GZIP_MAGIC, string_column

__all__ = ["bam_chrom_sizes", "is_bam", "read_bam"]

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
    starts: dict[int, array] = {}
    ends: dict[int, array] = {}
    no_cigar = 0
    with _open(path) as bam:
        names = list(bam.references)
        try:
            for read in bam.fetch(until_eof=True):
                if read.is_unmapped:
                    continue
                if read.cigartuples is None:  # mapped, CIGAR '*': no aligned base
                    no_cigar += 1
                    continue
                tid = read.reference_id
                if tid not in starts:
                    starts[tid], ends[tid] = array("q"), array("q")
                s, e = starts[tid], ends[tid]
                for a, b in read.get_blocks():  # gapless blocks: split at N, D (and I)
                    s.append(a)
                    e.append(b)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: a damaged BAM file: its records cannot be read "
                             f"after the header ({_reason(exc)})") from None
    if no_cigar:
        warnings.warn(f"{path}: {no_cigar} mapped record(s) without a CIGAR ('*': no aligned "
                      "base) left out", UserWarning, stacklevel=2)
    if not starts:
        raise ValueError(f"{path}: the BAM file has no mapped reads (no coverage)")
    chroms, lengths, columns = [], [], ([], [], [])
    for tid in sorted(starts):
        runs = depth_runs(np.frombuffer(starts.pop(tid), np.int64),
                          np.frombuffer(ends.pop(tid), np.int64))
        if len(runs[0]):
            chroms.append(str(names[tid]))
            lengths.append(len(runs[0]))
            for col, part in zip(columns, runs):
                col.append(part)
    return pd.DataFrame({"chrom": string_column(chroms, np.array(lengths, np.int64)),
                         **{k: np.concatenate(v).astype(np.int64) for k, v in
                            zip(("chromStart", "chromEnd", "count"), columns)}},
                        copy=False)
