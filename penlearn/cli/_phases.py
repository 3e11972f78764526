"""Phases of a long command: wall and CPU seconds and the largest RSS of each
(``callpeak --phase-times``, ``benchmarks/callpeak_genome.py``), and giving freed memory
back to the system between chromosomes."""

from __future__ import annotations

import contextlib
import resource
import sys
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
