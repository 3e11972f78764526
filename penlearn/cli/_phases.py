"""Phases of a long command: wall and CPU seconds and the largest RSS of each
(``callpeak --phase-times``, ``benchmarks/callpeak_genome.py``), and giving freed memory
back to the system between chromosomes."""

from __future__ import annotations

import contextlib
import resource
import sys
import threading
import time
from pathlib import Path

__all__ = ["PhaseClock", "print_phases"]


def _return_freed_memory(trim: bool = False) -> None:
    """glibc only: large blocks by ``mmap`` (1 MiB and up, not a threshold that grows
    with each block freed), so the tables of a chromosome go back to the system when
    dropped, not into a heap whose high-water mark the next chromosome inherits;
    ``trim``: give back the heap's free top now. Elsewhere nothing happens."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
        if trim:
            libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PhaseClock:
    """Wall and CPU seconds and the largest RSS (MB) of named phases, summed over their
    occurrences.

    Examples
    --------
    >>> clock = PhaseClock()
    >>> with clock("read"):
    ...     _ = sum(range(1000))
    >>> sorted(clock.times)
    ['read']
    """

    def __init__(self) -> None:
        self.times: dict[str, dict] = {}

    @contextlib.contextmanager
    def __call__(self, name: str):
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - w0, time.process_time() - c0, _rss_mb())

    def add(self, name: str, wall: float, cpu: float, rss_mb: float) -> None:
        """Add one occurrence (or a worker's totals) of ``name``."""
        t = self.times.setdefault(name, {"wall": 0.0, "cpu": 0.0, "rss_mb": 0.0})
        t["wall"] += wall
        t["cpu"] += cpu
        t["rss_mb"] = max(t["rss_mb"], rss_mb)

    def merge(self, times: dict) -> None:
        """Add another clock's :attr:`times` (a worker's)."""
        for name, t in times.items():
            self.add(name, t["wall"], t["cpu"], t["rss_mb"])


def print_phases(clock: PhaseClock, path) -> None:
    """``--phase-times FILE``: the phases as JSON (for ``benchmarks/callpeak_genome.py``)."""
    import json

    Path(path).write_text(json.dumps(clock.times, indent=1))
    sys.stderr.flush()


#: seconds between progress lines at most while tasks run (a "working" line between)
PROGRESS_EVERY = 10.0


class _Progress:
    """A line per task done (a chromosome; a batch of them when reading), with the
    share of the bases done and an ETA by bases; a "working" line whenever ``every``
    seconds (:data:`PROGRESS_EVERY`) pass without one (plain lines: no ``\\r``).
    ``clock``: the time (a test's fake clock).

    Examples
    --------
    >>> lines = []
    >>> with _Progress(lines.append, {"chr1": 30, "chr2": 10}, "control") as p:
    ...     p.chromosome("chr1", 2)
    >>> lines[0].split(", ETA")[0]
    'control chr1: 2 peak(s); 1/2 chromosomes, 75 % of the bases'
    """

    def __init__(self, report, sizes: dict, what: str = "", every: float | None = None,
                 clock=time.perf_counter) -> None:
        self.report, self.sizes, self.clock = report, sizes, clock
        self.every = PROGRESS_EVERY if every is None else every
        self.what = f"{what} " if what else ""
        self.total = float(sum(sizes.values())) or 1.0
        self.done_share, self.done = 0.0, 0
        self.t0 = self.last = clock()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def _eta(self) -> str:
        if not self.done_share:
            return ""
        el = self.clock() - self.t0
        left = el * max(0.0, 1.0 - self.done_share) / self.done_share
        return f", ETA {left:.0f} s"

    def _say(self, msg: str) -> None:
        with self.lock:
            self.report(msg)
            self.last = self.clock()

    def _count(self) -> str:
        return f"{self.done}/{len(self.sizes)} chromosomes, " if self.sizes else ""

    def chromosome(self, chrom: str, n_peaks: int) -> None:
        """Report one chromosome done."""
        self.advance(f"{chrom}: {n_peaks} peak(s)", self.sizes.get(chrom, 0) / self.total)

    def advance(self, text: str, share: float) -> None:
        """Report one task done: ``text``, and ``share`` of the bases more done."""
        self.done += 1
        self.done_share += share
        self._say(f"{self.what}{text}; {self._count()}"
                  f"{100 * self.done_share:.0f} % of the bases{self._eta()}")

    def _beat(self) -> None:
        tick = max(0.05, min(1.0, self.every / 4))
        while not self.stop.wait(tick):
            if self.clock() - self.last >= self.every:
                self._say(f"{self.what}working: {self._count()}"
                          f"{100 * self.done_share:.0f} % of the bases done{self._eta()}")
