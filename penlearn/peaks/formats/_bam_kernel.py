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
import itertools
import struct
import zlib

import numba
import numpy as np

CHUNK = 1 << 24  # the parser's buffer of decompressed bytes (reused; grown for a larger record)
#: the gzip header of a BGZF block (SAM/BAM format specification, section 4.1): magic,
#: deflate, FEXTRA only
_BGZF_START = b"\x1f\x8b\x08\x04"


def _inflater():
    """``(inflate(raw, size) -> bytes, crc32)``: ISA-L's (the optional ``isal``, 2x
    zlib's speed) when installed, else the standard library's zlib."""
    try:
        from isal import isal_zlib
    except ImportError:
        return (lambda raw, size: zlib.decompress(raw, -15, max(size, 1))), zlib.crc32
    return (lambda raw, size: isal_zlib.decompress(raw, -15, max(size, 1))), isal_zlib.crc32


def _block_size(buf, pos: int) -> int:
    """The whole size of the BGZF block at ``buf[pos:]`` (its ``BC`` extra subfield's
    ``BSIZE`` + 1); -1 when it is not one (another gzip member)."""
    if bytes(buf[pos:pos + 4]) != _BGZF_START or len(buf) - pos < 12:
        return -1
    xlen = buf[pos + 10] | (buf[pos + 11] << 8)
    x, end = pos + 12, pos + 12 + xlen
    while x + 4 <= end and x + 4 <= len(buf):
        slen = buf[x + 2] | (buf[x + 3] << 8)
        if buf[x] == 66 and buf[x + 1] == 67 and slen == 2 and x + 6 <= len(buf):
            return (buf[x + 4] | (buf[x + 5] << 8)) + 1
        x += 4 + slen
    return -1


def decompressed_blocks(path, inflater=None):
    """The decompressed bytes of a BGZF (or gzip) file, a block (at most 64 KiB) at a time.

    Each BGZF block is inflated whole (its raw deflate data; ``inflater``: a pair of
    :func:`_inflater`'s kind) and checked against its footer (``ISIZE``, ``CRC32``), as
    :mod:`gzip` checks each member; a file whose first member is not a BGZF block is
    read by :mod:`gzip`. Raises ValueError on a damaged or truncated block.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.gz"
    >>> _ = p.write_bytes(gzip.compress(b"abc") + gzip.compress(b"def"))
    >>> b"".join(decompressed_blocks(p))
    b'abcdef'
    """
    inflate, crc32 = inflater or _inflater()
    with open(path, "rb") as fh:
        buf = fh.read(1 << 22)
        if _block_size(buf, 0) < 0:
            fh.seek(0)
            with gzip.open(fh, "rb") as gz:
                while data := gz.read(1 << 16):
                    yield data
            return
        view, pos, done = memoryview(buf), 0, 0  # done: the bytes of the file before buf
        while True:
            if len(buf) - pos < (1 << 17):  # a block is at most 64 KiB: keep two
                more = fh.read(1 << 22)
                if more:
                    done += pos
                    buf = bytes(view[pos:]) + more
                    view, pos = memoryview(buf), 0
            if pos >= len(buf):
                return
            whole = _block_size(buf, pos)
            if whole < 0:
                raise ValueError(f"not a BGZF block at byte {done + pos} of the file")
            end = pos + whole
            if end > len(buf) or whole < 26:
                raise ValueError("a truncated BGZF block at the end of the file")
            crc, isize = struct.unpack_from("<II", buf, end - 8)
            head = 12 + (buf[pos + 10] | (buf[pos + 11] << 8))
            try:
                data = inflate(view[pos + head:end - 8], isize)
            except Exception as exc:  # (zlib.error, isal's IsalError: named alike)
                raise ValueError(f"a damaged BGZF block at byte {done + pos} of the file "
                                 f"({exc})") from None
            if len(data) != isize or crc32(data) != crc:
                raise ValueError(f"a damaged BGZF block at byte {done + pos} of the file "
                                 "(its size or CRC32 does not match)")
            pos = end
            if isize:
                yield data


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


@numba.njit(cache=True, nogil=True)
def _first_of_keys(a, b, order, limit, keep):
    run = 0
    for i in range(len(order)):
        j = order[i]
        if i and a[j] == a[order[i - 1]] and b[j] == b[order[i - 1]]:
            run += 1
        else:
            run = 0
        if run < limit:
            keep[j] = True


def first_of_keys(a: np.ndarray, b: np.ndarray, order: np.ndarray, limit: int) -> np.ndarray:
    """A mask of the rows kept when at most ``limit`` rows of one ``(a, b)`` key are, the
    first in row order; ``order``: the rows sorted by key, stably
    (``np.lexsort((b, a))``). One pass, no array beyond the mask.

    Examples
    --------
    >>> a, b = np.array([5, 3, 5, 5, 3]), np.array([0, 0, 0, 1, 0])
    >>> first_of_keys(a, b, np.lexsort((b, a)), 1).tolist()
    [True, True, False, True, False]
    """
    keep = np.zeros(len(order), np.bool_)
    _first_of_keys(a, b, order, np.int64(limit), keep)
    return keep


class _Stream:
    """``read(n)`` over an iterator of byte blocks (the header's fields), then
    :meth:`left` (the bytes of the blocks read not yet read) and :attr:`blocks` (the
    blocks after them)."""

    def __init__(self, blocks) -> None:
        self.blocks, self.buf, self.pos = iter(blocks), b"", 0

    def read(self, n: int) -> bytes:
        if len(self.buf) - self.pos < n:
            more = [self.buf[self.pos:]]
            held = len(more[0])
            while held < n and (block := next(self.blocks, b"")):
                more.append(block)
                held += len(block)
            self.buf, self.pos = b"".join(more), 0
        out = self.buf[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def left(self) -> bytes:
        return self.buf[self.pos:]


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


def _parse(buf, n: int, paired: bool, counts, parts: dict) -> int | None:
    """:func:`parse_records` of ``buf[:n]``, the kept rows added to ``parts`` (``{tid:
    [(a, b), ...]}``); the bytes used, or None on a ``CG``-tag CIGAR."""
    rows = n // 36 + 1  # a record has at least 36 bytes
    tid = np.empty(rows, np.int32)
    a = np.empty(rows, np.int32)
    # single-end: the strand in a byte (5 bytes a read held until the file is read, not
    # 8: ~60 MB less at 20 M reads; issue 55)
    b = np.empty(rows, np.int32 if paired else np.uint8)
    counts[0] = 0
    used = parse_records(buf, n, paired, tid, a, b, counts)
    if counts[2]:
        return None
    k = int(counts[0])
    tid, a, b = tid[:k], a[:k], b[:k]
    if k and (tid[1:] < tid[:-1]).any():  # (a sorted file's are in order)
        order = np.argsort(tid, kind="stable")
        tid, a, b = tid[order], a[order], b[order]
    firsts = np.flatnonzero(np.r_[True, tid[1:] != tid[:-1]]) if k else []
    for lo, hi in zip(firsts, [*firsts[1:], k]):
        parts.setdefault(int(tid[lo]), []).append((a[lo:hi].copy(), b[lo:hi].copy()))
    return int(used)


def read_bam_columns(path, paired: bool):
    """``(names, {tid: (a, b)}, no_cigar)`` of the counted records of a BAM file, each
    chromosome's rows in file order (int32 ``a``; ``b`` int32, or uint8 0 / 1 for
    single-end reads); None when a record keeps its CIGAR in a ``CG`` tag.

    Examples
    --------
    >>> read_bam_columns("reads.bam", False)  # doctest: +SKIP
    """
    parts: dict = {}
    counts = np.zeros(3, np.int64)
    stream = _Stream(decompressed_blocks(path))
    names = _header(stream)
    # the blocks copied into one buffer, used again (no new pages per chunk), parsed
    # whenever the next block does not fit; a record cut at its end moved to its start
    buf = np.empty(CHUNK, np.uint8)
    rest = stream.left()
    n = len(rest)
    if n > len(buf):
        buf = np.empty(2 * n, np.uint8)
    buf[:n] = np.frombuffer(rest, np.uint8)
    del rest
    for block in itertools.chain(stream.blocks, [None]):  # (None: the end)
        if block is not None and n + len(block) <= len(buf):
            buf[n:n + len(block)] = np.frombuffer(block, np.uint8)
            n += len(block)
            continue
        used = _parse(buf, n, paired, counts, parts)
        if used is None:
            return None
        buf[:n - used] = buf[used:n]  # (a part of one record: short)
        n -= used
        if block is None:
            if n:
                raise ValueError("a truncated BAM record at the end of the file")
            break
        if n + len(block) > len(buf):  # a record larger than the buffer
            buf = np.concatenate([buf[:n], np.empty(max(len(buf), len(block)), np.uint8)])
        buf[n:n + len(block)] = np.frombuffer(block, np.uint8)
        n += len(block)
    no_cigar = int(counts[1])
    out = {}
    for t in list(parts):  # each chromosome's chunks dropped once joined: one copy at once
        ps = parts.pop(t)
        out[t] = (np.concatenate([p[0] for p in ps]), np.concatenate([p[1] for p in ps]))
        del ps
    return names, out, no_cigar
