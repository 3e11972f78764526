"""BAM records to compact read arrays in a compiled loop (numba), without a Python object
per record.

A BAM file is BGZF (gzip members) holding a header and then records, each
``block_size`` (int32) followed by fixed fields (SAM/BAM format specification, section
4.2: ``refID, pos, l_read_name, mapq, bin, n_cigar_op, flag, l_seq, next_refID,
next_pos, tlen``), the read name and the CIGAR operations (uint32 each: length << 4 |
op). The decompressed bytes are read in chunks (:mod:`gzip`, zlib in C) and
:func:`parse_records` walks the whole records of each chunk, keeping those that
:func:`penlearn.peaks.formats.reads._flag_ok` counts, as ``_bam_contigs`` of
:mod:`penlearn.peaks.formats.read_arrays` keeps them from pysam's records: single-end
``(5′ end, reverse)``, paired ``(leftmost start, start + |TLEN|)``. The reference end is
the position plus the CIGAR's reference-consuming lengths (M, D, N, =, X); a record with
no CIGAR operation is counted apart (pysam's ``reference_end`` None). A record whose
CIGAR is kept in its ``CG`` tag (more than 65,535 operations: a placeholder ``kSmN``)
makes :func:`read_bam_columns` return None: the caller then reads the file with pysam.
"""

from __future__ import annotations

import gzip

import numba
import numpy as np

CHUNK = 1 << 24  # decompressed bytes per read


@numba.njit(cache=True, inline="always")
def _u32(buf, p):
    return (np.int64(buf[p]) | (np.int64(buf[p + 1]) << 8) | (np.int64(buf[p + 2]) << 16)
            | (np.int64(buf[p + 3]) << 24))


@numba.njit(cache=True, inline="always")
def _i32(buf, p):
    v = _u32(buf, p)
    return v - (np.int64(1) << 32) if v >= (np.int64(1) << 31) else v


@numba.njit(cache=True, nogil=True)
def parse_records(buf, n, paired, tid, a, b, counts):
    """Walk the whole records in ``buf[:n]``; the kept ones go to ``tid, a, b`` from row
    ``counts[0]`` (which is updated; the arrays must hold one row per record the
    chunk can hold). ``counts[1]`` adds the mapped records without a CIGAR; ``counts[2]``
    is set to 1 on a ``CG``-tag CIGAR. Returns the bytes consumed."""
    off = np.int64(0)
    k = counts[0]
    while off + 4 <= n:
        size = _u32(buf, off)
        if off + 4 + size > n:
            break
        r = off + 4
        off = r + size
        flag = np.int64(buf[r + 14]) | (np.int64(buf[r + 15]) << 8)
        if flag & (0x4 | 0x100 | 0x200 | 0x800):
            continue
        if flag & 0x1 and not (flag & 0x2 and not flag & 0x8 and not flag & 0x80):
            continue
        if paired and not flag & 0x1:
            continue
        pos = _i32(buf, r + 4)
        l_name = np.int64(buf[r + 8])
        n_cigar = np.int64(buf[r + 12]) | (np.int64(buf[r + 13]) << 8)
        if n_cigar == 0:
            counts[1] += 1
            continue
        c0 = r + 32 + l_name
        span = np.int64(0)
        for j in range(n_cigar):
            v = _u32(buf, c0 + 4 * j)
            op = v & 0xF
            if op == 0 or op == 2 or op == 3 or op == 7 or op == 8:
                span += v >> 4
        if n_cigar == 2:
            v0 = _u32(buf, c0)
            if (_u32(buf, c0 + 4) & 0xF) == 3 and (v0 & 0xF) == 4 \
                    and (v0 >> 4) == _i32(buf, r + 16):
                counts[2] = 1  # the real CIGAR is in the CG tag
        end = pos + span
        tid[k] = _i32(buf, r)
        if paired:
            lo = min(pos, _i32(buf, r + 24))
            a[k] = lo
            b[k] = lo + abs(_i32(buf, r + 28))
        elif flag & 0x10:
            a[k] = end - 1
            b[k] = 1
        else:
            a[k] = pos
            b[k] = 0
        k += 1
    counts[0] = k
    return off


def _header(fh) -> list[str]:
    """Skip the header; the reference names."""
    def take(n):
        data = fh.read(n)
        if len(data) != n:
            raise ValueError("a truncated BAM header")
        return data
    if take(4) != b"BAM\1":
        raise ValueError("not a BAM file")
    take(int(np.frombuffer(take(4), "<i4")[0]))
    names = []
    for _ in range(int(np.frombuffer(take(4), "<i4")[0])):
        name = take(int(np.frombuffer(take(4), "<i4")[0]))
        take(4)
        names.append(name.rstrip(b"\0").decode())
    return names


def read_bam_columns(path, paired: bool):
    """``(names, {tid: (a, b)}, no_cigar)`` of the counted records of a BAM file, each
    chromosome's rows in file order; None when a record keeps its CIGAR in a ``CG`` tag.

    Examples
    --------
    >>> read_bam_columns("reads.bam", False)  # doctest: +SKIP
    """
    parts: dict = {}
    no_cigar = 0
    counts = np.zeros(3, np.int64)
    with gzip.open(path, "rb") as fh:
        names = _header(fh)
        rest = b""
        while True:
            data = fh.read(CHUNK)
            buf = np.frombuffer(rest + data, np.uint8) if rest else np.frombuffer(data, np.uint8)
            if not len(buf):
                break
            rows = len(buf) // 36 + 1  # a record has at least 36 bytes
            tid = np.empty(rows, np.int32)
            a = np.empty(rows, np.int32)
            b = np.empty(rows, np.int32)
            counts[0] = 0
            used = parse_records(buf, len(buf), paired, tid, a, b, counts)
            if counts[2]:
                return None
            k = int(counts[0])
            tid, a, b = tid[:k], a[:k], b[:k]
            order = np.argsort(tid, kind="stable")
            tid, a, b = tid[order], a[order], b[order]
            firsts = np.flatnonzero(np.r_[True, tid[1:] != tid[:-1]]) if k else []
            for lo, hi in zip(firsts, [*firsts[1:], k]):
                parts.setdefault(int(tid[lo]), []).append((a[lo:hi].copy(), b[lo:hi].copy()))
            rest = bytes(buf[used:])
            if not data:
                if rest:
                    raise ValueError("a truncated BAM record at the end of the file")
                break
        no_cigar = int(counts[1])
    out = {}
    for t in list(parts):  # each chromosome's chunks dropped once joined: one copy at once
        ps = parts.pop(t)
        out[t] = (np.concatenate([p[0] for p in ps]), np.concatenate([p[1] for p in ps]))
        del ps
    return names, out, no_cigar
