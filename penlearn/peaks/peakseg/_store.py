"""The PeakSeg solver in bounded memory: decoding information in RAM or in temporary files.

The backward decoding of the PeakSeg recursion (:mod:`penlearn.peaks.peakseg._kernel`)
needs, for every datum t and both cost functions, the right ends of their pieces and
where each piece's last segment started (``PREV_I`` / ``PREV_MEAN``); the forward pass
itself needs only the current two functions. As in PeakSegDisk (Hocking et al. 2022,
"Generalized functional pruning optimal partitioning (GFPOP) for constrained
changepoint detection in genomic data", JSS), that information is written out
sequentially, in chunks, and read back last chunk first for the decoding:

* the numba kernel fills preallocated chunk buffers (``CHUNK_PIECES`` pieces of 20
  bytes: right end float64, previous end int32, previous mean float64; and two int32
  piece counts for each of ``CHUNK_DATA`` data) and returns when they are full; they
  are then appended to a :class:`PieceStore`;
* the store keeps its chunks in RAM until they exceed ``MEMORY_BYTES`` (32 MiB, which
  problems of up to about 1.2·10^5 coverage rows stay under, at about 13 stored pieces
  per row: they never touch the disk), then writes everything to four anonymous
  temporary files (plain sequential writes) and appends every later chunk there (a
  problem of more rows than the limit holds at ``MIN_ROW_BYTES`` a row, which surely
  outgrows it, writes from its first chunk: the same files, without the limit's bytes
  held until then). The
  files cost no measurable time (10^6 rows: 2.24–2.29 CPU s either way, the files in
  the page cache; 2.5·10^5 rows: ~5 % more than in RAM); the limit only spares small
  problems (the many solves of a penalty path) the files. With the chunk buffers of
  2^18 pieces (5 MB; 2^20 made no difference of time), a solve holds ~40 MB at most
  beside its data (issue 55: ``callpeak``'s memory was 64 MiB + 22 MB here);
* the decoding visits the chunks last first, skips those that hold no datum it needs,
  and maps the others from the files one at a time (``numpy.memmap`` of that chunk
  only: the pages it touches, a few per segment, are all that is read and resident).

The files are made by :func:`tempfile.TemporaryFile` in ``tmpdir``, else
``$PENLEARN_TMPDIR``, else :mod:`tempfile`'s default (``$TMPDIR``, ``/tmp``, …); on
POSIX they have no name at all (removed as soon as they are made), so nothing is left
behind even when the process is killed, and they are closed (their space freed) on
success, error and interrupt. Memory is O(chunk + largest function); disk use is about
20 bytes per stored piece, of which there are at most ``2·PeakSegModel.mean_intervals``
per datum (5.1 GB for 2·10^7 rows of ``benchmarks/peakseg_memory.py``). As the kernel
returns to Python after every chunk (a fraction of a second), Ctrl-C stops a long
solve promptly.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from penlearn._interrupt import deferred_interrupts
from penlearn._numba_cache import warm_kernels

MEMORY_BYTES = 32 * 2**20
#: the fewest bytes a datum adds to the store: its two piece counts and at least one
#: piece of each of the two cost functions (20 bytes each)
MIN_ROW_BYTES = 8 + 2 * 20
PROGRESS_ROWS = 10**6  # a progress bar only from this many rows (about 4 s and up)
CHUNK_PIECES = 2**18
CHUNK_DATA = 2**16
# per chunk: piece counts (two int32 per datum), right ends, previous ends, previous means
_DTYPES = (np.dtype(np.int32), np.dtype(np.float64), np.dtype(np.int32),
           np.dtype(np.float64))
_WIDTH = (2, 1, 1, 1)  # values per row


def check_tmpdir(tmpdir, name: str = "tmpdir") -> str | None:
    """Validate the folder of the solver's temporary files; None stays None.

    None means ``$PENLEARN_TMPDIR``, else :mod:`tempfile`'s default (``$TMPDIR``,
    ``/tmp``, …). A folder given, or ``$PENLEARN_TMPDIR`` when set, must exist, be a
    directory and be writable.

    Examples
    --------
    >>> check_tmpdir(None) is None
    True
    >>> check_tmpdir("/no/such/folder")
    Traceback (most recent call last):
    ...
    ValueError: tmpdir '/no/such/folder' does not exist: give an existing, writable folder
    """
    if tmpdir is None:
        env = os.environ.get("PENLEARN_TMPDIR")
        if env:  # checked up front too, not when the first large solve opens a file
            check_tmpdir(env, "$PENLEARN_TMPDIR")
        return None
    if not isinstance(tmpdir, (str, os.PathLike)):
        raise TypeError(f"{name} must be a folder path (str or os.PathLike), got "
                        f"{type(tmpdir).__name__}")
    path = os.fsdecode(tmpdir)
    problem = ("does not exist" if not os.path.exists(path)
               else "is not a directory" if not os.path.isdir(path)
               else "is not writable" if not os.access(path, os.W_OK | os.X_OK)
               else None)
    if problem:
        raise ValueError(f"{name} {path!r} {problem}: give an existing, writable folder")
    return path


class PieceStore:
    """Chunks of decoding information, appended in data order and read back last first.

    Examples
    --------
    >>> cnt = np.array([[1, 0]], np.int32)
    >>> with PieceStore(memory_bytes=0) as store:
    ...     store.append(0, cnt, np.array([2.0]), np.array([-1], np.int32),
    ...                  np.array([np.nan]))
    ...     [(t_lo, read()[0].tolist()) for t_lo, read in store.backwards()]
    [(0, [[1, 0]])]
    """

    def __init__(self, memory_bytes: float = MEMORY_BYTES, tmpdir: str | None = None):
        self.memory_bytes = memory_bytes
        self.tmpdir = tmpdir if tmpdir is not None else os.environ.get("PENLEARN_TMPDIR")
        self._chunks: list[list] = []  # [t_lo, data rows, pieces, arrays or None]
        self._files: list | None = None
        self.nbytes = 0
        self.disk_bytes = 0

    def __enter__(self) -> PieceStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close (and so delete) the temporary files and drop the chunks held in RAM."""
        files, self._files = self._files, None
        self._chunks = []
        for f in files or ():
            f.close()

    def append(self, t_lo: int, cnt, hi, prev_i, prev_mean, copy: bool = True) -> None:
        """Add the chunk of data ``t_lo .. t_lo + len(cnt) − 1``.

        Kept in RAM, the arrays are copied unless ``copy=False`` (the caller will not
        reuse them).
        """
        arrays = (cnt, hi, prev_i, prev_mean)
        size = sum(a.nbytes for a in arrays)
        if self._files is None and self.nbytes + size > self.memory_bytes:
            self._spill()
        if self._files is None:
            kept = tuple(np.array(a) for a in arrays) if copy else arrays
        else:
            self._write(arrays)
            kept = None
        self._chunks.append([t_lo, len(cnt), len(hi), kept])
        self.nbytes += size

    def _spill(self) -> None:
        self._files = [
            tempfile.TemporaryFile(prefix="penlearn-peakseg-", dir=self.tmpdir)
            for _ in _DTYPES
        ]
        for chunk in self._chunks:
            self._write(chunk[3])
            chunk[3] = None

    def _write(self, arrays) -> None:
        try:
            for f, a in zip(self._files, arrays):
                f.write(memoryview(np.ascontiguousarray(a)).cast("B"))
                self.disk_bytes += a.nbytes
        except OSError as exc:
            where = self.tmpdir or tempfile.gettempdir()
            raise OSError(
                f"PeakSeg temporary files in {where} ({self.disk_bytes} bytes written): "
                f"{exc}; give a folder with more free space as tmpdir= (CLI: --tmpdir) or "
                "in PENLEARN_TMPDIR"
            ) from exc

    def _read(self, data: int, pieces: int, data_before: int, pieces_before: int):
        """One chunk's arrays, mapped from the files: only the pages the decoding touches
        are read (a few per segment), and they are unmapped with the arrays."""
        out = []
        for f, dt, width, rows, before in zip(
            self._files, _DTYPES, _WIDTH, (data, pieces, pieces, pieces),
            (data_before, pieces_before, pieces_before, pieces_before),
        ):
            if rows == 0:
                out.append(np.empty(0, dt))
                continue
            # copy-on-write: writable (the kernel's signature) but never written
            mm = np.memmap(f, dt, mode="c", offset=before * width * dt.itemsize,
                           shape=(rows * width,))
            out.append(np.asarray(mm))
        out[0] = out[0].reshape(-1, 2)
        return tuple(out)

    def backwards(self):
        """``(t_lo, read)`` for each chunk, last first; ``read()`` gives its four arrays."""
        for f in self._files or ():
            f.flush()
        data = sum(c[1] for c in self._chunks)
        pieces = sum(c[2] for c in self._chunks)
        for t_lo, k, p, kept in reversed(self._chunks):
            data -= k
            pieces -= p
            if kept is not None:
                yield t_lo, (lambda kept=kept: kept)
            else:
                yield t_lo, (lambda k=k, p=p, d=data, q=pieces: self._read(k, p, d, q))


def _interrupted(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt is among the causes of ``exc``."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _run(kernel, *args):
    """Call a numba kernel with SIGINT / SIGTERM deferred until it returns.

    A chunk takes a fraction of a second, so Ctrl-C stops a long solve promptly, as a
    ``KeyboardInterrupt`` raised between chunks. (A second Ctrl-C during one chunk acts
    at once: its ``KeyboardInterrupt`` is raised while numba boxes the kernel's results,
    which numba reports as a SystemError caused by it; that is mapped back here.)
    """
    try:
        with deferred_interrupts():
            return kernel(*args)
    except SystemError as exc:
        if _interrupted(exc):
            raise KeyboardInterrupt from None
        raise


class _NoBar:
    """A progress bar that shows nothing (``tqdm(..., disable=True)``'s part used here).

    Examples
    --------
    >>> with _NoBar(total=3) as bar:
    ...     bar.update(3)
    >>> bar.n
    0
    """

    n = 0

    def __init__(self, **_):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, _k) -> None:
        return None


def peakseg_solve(y: np.ndarray, w: np.ndarray, penalty: float, tie_tol: float = 0.0, *,
                  memory_bytes: float | None = None, chunk_pieces: int | None = None,
                  chunk_data: int | None = None, tmpdir: str | None = None,
                  progress: bool = False):
    """Solve the penalised up-down Poisson problem on weighted data (min y < max y).

    Parameters
    ----------
    y, w : float64 arrays
        Counts and weights (fewer than 2**31 data).
    penalty, tie_tol : float
        λ per peak, and the relative tolerance of cost ties (see the kernel).
    memory_bytes, chunk_pieces, chunk_data, tmpdir : optional
        The store's RAM limit (``MEMORY_BYTES``), the chunk sizes (``CHUNK_PIECES``,
        ``CHUNK_DATA``) and the directory of its temporary files (see the module).
    progress : bool
        Show tqdm progress bars (on stderr) counting the rows of the forward pass and of
        the decoding, updated after each chunk; only for problems of ``PROGRESS_ROWS``
        rows or more (smaller solves, e.g. of a penalty path, stay silent). The result
        does not depend on it.

    Returns
    -------
    cost, seg_start, seg_end, seg_peak, seg_mean, eq_prev, n_pieces_total, n_pieces_max
        The optimal penalised cost as the recursion computed it; each segment's 0-based
        first and last datum, peak flag, mean where the decoding read it, and whether it
        equals the previous segment's mean (active equality), in data order; the sum
        and maximum over t and both functions of the number of pieces.

    Examples
    --------
    >>> y = np.array([1.0, 3, 0, 4, 2])
    >>> out = peakseg_solve(y, np.ones(5), 0.0, memory_bytes=0, chunk_pieces=4,
    ...                     chunk_data=2)
    >>> out[3].tolist()
    [False, True, False, True, False]
    """
    from penlearn.changepoint._fp_core import N_COLS
    from penlearn.peaks.peakseg._kernel import decode_chunk, decode_start, forward_chunk

    n = len(y)
    # (buffers no larger than a small problem needs; they grow for a datum that needs more)
    chunk_pieces = min(CHUNK_PIECES, 16 * n + 1024) if chunk_pieces is None else chunk_pieces
    chunk_data = min(CHUNK_DATA, n) if chunk_data is None else chunk_data
    chunk_pieces, chunk_data = max(1, int(chunk_pieces)), max(1, int(chunk_data))
    y = np.ascontiguousarray(y, np.float64)
    w = np.ascontiguousarray(w, np.float64)
    st = np.zeros(5, np.int64)
    Bf, Pf, T1, T2 = (np.empty((64, N_COLS)) for _ in range(4))
    s_hi = np.empty(chunk_pieces)
    s_pi = np.empty(chunk_pieces, np.int32)
    s_pm = np.empty(chunk_pieces)
    cnt = np.empty((chunk_data, 2), np.int32)
    quiet = not progress or n < PROGRESS_ROWS
    if quiet:  # (no bar object: ~60 µs a solve, and callpeak makes ~10⁵ small ones)
        tqdm = _NoBar
    else:
        from penlearn._progress import tqdm
    if not quiet:
        warm()  # compile before the bars start: no ETA of hours meanwhile
    memory_bytes = MEMORY_BYTES if memory_bytes is None else memory_bytes
    if n * MIN_ROW_BYTES > memory_bytes:
        # a problem whose store surely outgrows the RAM limit goes to the files from its
        # first chunk: the same files, not ``memory_bytes`` held until they are made
        # (issue 55: 32 MiB at the solve of each 10^6-row window of callpeak)
        memory_bytes = 0
    with PieceStore(memory_bytes, tmpdir) as store:
        with tqdm(total=n, unit="rows", desc="PeakSeg forward", disable=quiet) as bar:
            while st[0] < n:
                t_lo = int(st[0])
                Bf, Pf, T1, T2, s_hi, s_pi, s_pm, pos, k = _run(
                    forward_chunk, y, w, float(penalty), float(tie_tol), st, Bf, Pf, T1,
                    T2, s_hi, s_pi, s_pm, cnt)
                last = bool(st[0] == n)  # the buffers are not reused after the last chunk
                store.append(t_lo, cnt[:k], s_hi[:pos], s_pi[:pos], s_pm[:pos],
                             copy=not last)
                bar.update(int(st[0]) - t_lo)
        del s_hi, s_pi, s_pm, cnt, T1, T2
        dst = np.zeros(5, np.int64)
        dstf = np.zeros(2)
        cost = decode_start(Bf, int(st[1]), n, dst, dstf)
        out = (np.empty(1024, np.int64), np.empty(1024, np.int64), np.empty(1024, np.bool_),
               np.empty(1024), np.zeros(1024, np.bool_))
        empty = (np.empty((0, 2), np.int32), np.empty(0), np.empty(0, np.int32), np.empty(0))
        out = decode_chunk(n, *empty, dst, dstf, *out)  # the last segment
        # (the decoding bar counts the rows of the chunks passed, skipped ones included)
        with tqdm(total=n, unit="rows", desc="PeakSeg decode", disable=quiet) as bar:
            for t_lo, read in store.backwards():
                if dst[4] == 2:
                    break
                if dst[0] >= t_lo:  # else nothing is needed from this chunk
                    out = _run(decode_chunk, t_lo, *read(), dst, dstf, *out)
                bar.update(n - t_lo - bar.n)
            if dst[4] == 2:
                bar.update(n - bar.n)
    if dst[4] != 2:
        raise RuntimeError("PeakSeg decoding did not reach the first datum")
    k = int(dst[3])
    starts, ends, peak, means, eq = (a[:k][::-1].copy() for a in out)
    total, biggest = int(st[3]), int(st[4])
    return cost, starts, ends, peak, means, eq, total, biggest


__all__ = ["CHUNK_DATA", "CHUNK_PIECES", "MEMORY_BYTES", "PieceStore", "peakseg_solve"]


def warm(say: bool = True) -> bool:
    """Compile (or load) the PeakSeg kernels before a progress bar starts (``warm_kernels``).

    Examples
    --------
    >>> warm(say=False) in (True, False)
    True
    """
    from penlearn.peaks.peakseg import _kernel as kernel

    return warm_kernels(
        "PeakSeg", (kernel.forward_chunk, kernel.decode_start, kernel.decode_chunk),
        lambda: peakseg_solve(np.array([1.0, 3, 0, 4, 2]), np.ones(5), 1.0), say)
