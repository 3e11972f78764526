"""Where numba caches the compiled kernels: a writable place, or a temporary folder.

The kernels are compiled with ``numba.njit(cache=True)``. numba looks for a writable
cache folder: ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the source, then the
user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``); with none of them writable (a
read-only install and a read-only home, as on clusters and in containers) it stops with
``RuntimeError: cannot cache function ...: no locator available``. :func:`configure`
runs once, when penlearn is imported (before numba compiles anything): when no such
place is writable it points ``NUMBA_CACHE_DIR`` to a folder under the system's
temporary folder and says so in one warning.

Compiling the kernels takes 6–18 CPU seconds per family on first use (minutes on a
loaded machine); a progress bar started meanwhile counts almost nothing for that long and
shows an ETA of hours, and a command without a bar is silent. :func:`warm_kernels`
compiles (or loads from the cache) a family of kernels before the caller starts its work,
saying so in one line, with the time to expect, only when they are not cached yet.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
#: The folders holding numba kernels (their ``__pycache__`` is numba's in-tree cache).
KERNEL_FOLDERS = ("changepoint", "peaks/formats", "peaks/peakseg", "peaks/joint")


def _writable(folder: Path) -> bool:
    """True when a file can be created in ``folder`` (made if missing), as numba tests."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _user_cache() -> Path:
    """numba's user-wide cache folder (as its ``appdirs``: an empty XDG_CACHE_HOME counts)."""
    return Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))) / "numba"


def cache_dir_needed() -> bool:
    """True when numba would find no writable cache folder for penlearn's kernels.

    Examples
    --------
    >>> isinstance(cache_dir_needed(), bool)
    True
    """
    if os.environ.get("NUMBA_CACHE_DIR") and _writable(Path(os.environ["NUMBA_CACHE_DIR"])):
        return False
    if all(_writable(_PACKAGE / sub / "__pycache__") for sub in KERNEL_FOLDERS):
        return False
    return not _writable(_user_cache())


def configure() -> str | None:
    """Point numba to a temporary cache folder when it has no writable one.

    Returns the folder chosen, or None when numba's own places work (nothing changed).

    Examples
    --------
    >>> import os
    >>> configure() is None or configure() == os.environ["NUMBA_CACHE_DIR"]
    True
    """
    if not cache_dir_needed():
        return None
    folder = Path(tempfile.gettempdir()) / f"penlearn-numba-cache-{os.getuid()}"
    if not _writable(folder):
        folder = Path(tempfile.mkdtemp(prefix="penlearn-numba-cache-"))
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # already imported: its config was read at import
        numba.config.CACHE_DIR = str(folder)
    # one line, without a source line (this runs while penlearn is imported)
    warnings.warn_explicit(f"no writable numba cache folder (read-only package and home): "
                           f"the compiled kernels are cached in {folder}", RuntimeWarning,
                           filename="penlearn", lineno=0, module="penlearn")
    return str(folder)


def cached(dispatchers: Iterable) -> bool:
    """True when every numba dispatcher is compiled in this process or cached on disk.

    A dispatcher counts as cached on disk when numba's cache index for it exists and
    matches its source file (numba's own staleness check); anything unreadable counts as
    not cached.

    Examples
    --------
    >>> cached([])
    True
    """
    for dispatcher in dispatchers:
        if dispatcher.signatures:
            continue
        try:  # numba's cache index, {} when missing or stale (source changed)
            if not dispatcher._cache._cache_file._load_index():
                return False
        except Exception:  # noqa: BLE001 (another numba version, no cache: not cached)
            return False
    return True


_WARMED: set[str] = set()

#: CPU seconds of the first compilation of each family of kernels (numba's cache empty),
#: measured on the development machine (2 cores; the wall time of an idle machine):
#: ``python benchmarks/compile_times.py`` (``benchmarks/RESULTS.md``, "compile_times":
#: 5.5 / 15.1 / 9.1 / 18.0 s on 2026-12-07, rounded up; the earlier 20–45 s made the
#: announcement say 80–180 s where runs took 25–43 s, issue 54).
COMPILE_SECONDS = {"coverage reader": 6.0, "PeakSeg": 16.0, "segmentation": 10.0,
                   "joint peak": 18.0}


def compile_eta(cpu_seconds: float, load: float | None = None, cores: int | None = None
                ) -> float:
    """Expected wall seconds of a compilation of ``cpu_seconds`` at this machine's load.

    The compiler runs on one core; with more runnable processes than cores it gets a
    share ``cores / (load + 1)`` of one (the 1-minute load average counts the others).

    Examples
    --------
    >>> compile_eta(30.0, load=0.0, cores=2)
    30.0
    >>> compile_eta(30.0, load=15.0, cores=2)
    240.0
    """
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = 0.0
    if cores is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:
            cores = os.cpu_count() or 1
    return float(cpu_seconds) * max(1.0, (load + 1.0) / max(cores, 1))


def _duration(seconds: float) -> str:
    """``"about 40 s"``, ``"about 4 min"``."""
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):d} s"
    return f"about {round(seconds / 60):d} min"


def warm_kernels(name: str, dispatchers: Iterable, run: Callable[[], object],
                 say: bool = True) -> bool:
    """Compile or load the kernels ``name`` once per process, before a progress bar starts.

    When they are not cached yet (:func:`cached`), one line on stderr says that they are
    being compiled (once: numba caches them for later runs) and how long that should take
    (:data:`COMPILE_SECONDS` at this machine's load, :func:`compile_eta`); then ``run()``
    (a call of the
    kernels on a tiny input) compiles them, or loads them from the cache. Later calls
    with the same ``name`` do nothing. Returns True when the kernels were compiled here.

    Examples
    --------
    >>> warm_kernels("doctest example", [], lambda: None)
    False
    """
    if name in _WARMED:
        return False
    compiling = not cached(dispatchers)
    if compiling and say:
        eta = _duration(compile_eta(COMPILE_SECONDS.get(name, 30.0)))
        print(f"penlearn: compiling the {name} kernels (once; numba caches them for later "
              f"runs): {eta} at this machine's load...", file=sys.stderr, flush=True)
    run()
    _WARMED.add(name)
    return compiling


configure()  # on import, before any kernel is compiled
