"""Shared test fixtures: where the real data and the R reference values live.

Tests that need ``../shared/data`` or ``../shared/reference`` (found as
:mod:`penlearn.datasets.locate` says, as the benchmarks and notebooks find them) call
:func:`need`;
it skips with a clear reason where the files are absent (a user's own clone), but
fails when ``PENLEARN_REQUIRE_DATA=1`` (as ``.ci/run`` sets it), so that in CI a
missing file is an error and never a silent skip.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from penlearn.datasets.locate import data_folder, reference_folder, shared_folder

REPO = Path(__file__).resolve().parents[1]
SHARED = shared_folder(REPO)
DATA = data_folder(REPO)
REFERENCE = reference_folder(REPO)
#: the environment variable naming the folder that this run's workers share
SHARED_RUN_ENV = "PENLEARN_TESTS_RUN_FOLDER"


#: the numba kernel families (``warm`` functions), compiled in two processes before the
#: xdist workers start (rough CPU seconds: 45 + 20 and 30 + 30, penlearn._numba_cache)
WARM_KERNELS = (
    "from penlearn.peaks.peakseg._store import warm; warm(say=False)\n"
    "from penlearn.peaks.formats.coverage import _warm_parsers; _warm_parsers()",
    "from penlearn.changepoint._fp_segment import warm; warm(say=False)\n"
    "from penlearn.peaks.joint.solver import warm; warm(say=False)",
)


def pytest_configure(config):
    """The controller (or a run without xdist) makes the run's shared folder; the xdist
    workers it starts inherit its name through the environment. Before it starts two or
    more workers, it has numba's kernels compiled into numba's cache (or finds them there):
    else every worker, and every process pool that a test starts, compiles the same kernels
    at once on a fresh checkout (20-45 CPU s a family)."""
    if hasattr(config, "workerinput"):
        return
    folder = tempfile.mkdtemp(prefix="penlearn-tests-run-")
    os.environ[SHARED_RUN_ENV] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    workers = config.getoption("numprocesses", None)
    if workers and workers != 0:
        import subprocess

        procs = [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE,
                                  text=True) for code in WARM_KERNELS]
        failed = [err for p in procs for err in [p.communicate()[1]] if p.returncode]
        if failed:
            raise pytest.UsageError("compiling penlearn's numba kernels failed:\n"
                                    + "\n".join(failed))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``: the costliest unit first (tests/_xdist_schedule.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from _xdist_schedule import LongestFirst

    return LongestFirst(config, log)


#: seconds (setup + call + teardown, on an idle core; scaled by the load) above which a
#: tier-1 test is named at the end of the run
TIER1_BUDGET = 20.0


def pytest_terminal_summary(terminalreporter, config):
    """Tier 1 (the README's command: ``-m 'not slow'``) names its tests that took longer
    than :data:`TIER1_BUDGET`, so that a new expensive test is shrunk or marked ``slow``
    (tier 2) rather than silently making every developer run longer."""
    if config.getoption("markexpr", "") != "not slow":
        return
    seconds: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for r in reports:
            if getattr(r, "when", None) and getattr(r, "duration", None) is not None:
                seconds[r.nodeid] = seconds.get(r.nodeid, 0.0) + r.duration
    from penlearn._numba_cache import compile_eta

    budget = compile_eta(TIER1_BUDGET)  # the wall time of 20 CPU s at this machine's load
    over = sorted(((t, n) for n, t in seconds.items() if t > budget), reverse=True)
    if over:
        terminalreporter.write_line(
            f"tier 1: {len(over)} test(s) took over {budget:.0f} s (a budget of "
            f"{TIER1_BUDGET:.0f} s on an idle core, scaled to this machine's load): shrink "
            "them or mark them slow (tier 2): "
            + "; ".join(f"{n} {t:.0f} s" for t, n in over[:10]))


def run_folder() -> Path:
    """The folder shared by every worker (and notebook kernel) of this test run, removed at
    its end: results that several tests compute alike are computed there once."""
    return Path(os.environ[SHARED_RUN_ENV])


@contextlib.contextmanager
def run_lock(name: str):
    """Hold the run-wide lock ``name``: the xdist workers that ask for it take turns (so a
    result that a cache keeps is computed by the first, read by the others)."""
    import fcntl

    with open(run_folder() / f"{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def error_functions_once(coverage, labels):
    """``peak_error_functions(coverage, labels)`` with its defaults, computed once per test
    run: the first caller computes each window's table (in 2 processes, the cores of CI)
    into the run's cache folder :func:`error_functions_cache`, later callers (other tests,
    other workers, the notebook kernels given ``PENLEARN_CACHE_DIR``) read it back (the
    cache's tables equal the computed ones: penlearn.peaks.peakseg.parts)."""
    from concurrent.futures import ProcessPoolExecutor

    import penlearn as pl

    with run_lock("error-functions"), ProcessPoolExecutor(2) as pool:
        return pl.peak_error_functions(coverage, labels, executor=pool, progress=False,
                                       cache=error_functions_cache())


def error_functions_cache() -> Path:
    """The run's cache folder of :func:`error_functions_once`."""
    return run_folder() / "error-functions"


def load_benchmark(name: str):
    """The module ``benchmarks/<name>.py`` (with ``benchmarks/`` on ``sys.path`` for its
    own helper imports), for tests of a benchmark's helpers."""
    folder = REPO / "benchmarks"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", folder / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def need(path: Path) -> Path:
    """Return ``path`` if it exists; otherwise skip (or fail under PENLEARN_REQUIRE_DATA=1)."""
    path = Path(path)
    if not path.exists():
        msg = f"real data / reference file not found: {path}"
        if os.environ.get("PENLEARN_REQUIRE_DATA") == "1":
            pytest.fail(msg + " (PENLEARN_REQUIRE_DATA=1)")
        pytest.skip(msg)
    return path


def decode_json_numbers(obj):
    """Turn the reference files' "Inf", "-Inf", "NaN" strings into floats, recursively."""
    special = {"Inf": float("inf"), "-Inf": float("-inf"), "NaN": float("nan")}
    if isinstance(obj, dict):
        return {k: decode_json_numbers(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode_json_numbers(v) for v in obj]
    if isinstance(obj, str) and obj in special:
        return special[obj]
    return obj


def load_reference_json(relpath: str):
    """Load ``../shared/reference/<relpath>`` with non-finite numbers decoded."""
    with open(need(REFERENCE / relpath)) as fh:
        return decode_json_numbers(json.load(fh))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return need(DATA)


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    return need(REFERENCE)


def default_sigint() -> None:
    """``preexec_fn`` for a child process the test interrupts with SIGINT.

    A non-interactive shell starts background jobs with SIGINT ignored, children inherit
    that, and Python then installs no KeyboardInterrupt handler: the child would never see
    the signal. Restoring the default makes the test independent of how it was started.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_main(argv, capsys) -> tuple[int, str, str]:
    """``penlearn argv`` run in this process (``penlearn.cli.main``, each argument as a
    string): its exit code, stdout and stderr."""
    from penlearn.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def demo():
    """The outcome of ``penlearn demo`` (run once per test run:
    ``_penlearn_demo.demo_run``), which must have succeeded."""
    from _penlearn_demo import demo_run

    run_ = demo_run()
    assert run_.returncode == 0, run_.stderr
    return run_


def one_line_exit(capsys, code, *needles) -> str:
    """The one stderr line of a command that failed on bad input (exit 1), holding
    ``needles``."""
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 1 and len(lines) == 1 and "error" in lines[0], err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def quiet(fn, *args, **kw):
    """``fn(*args, **kw)`` with its warnings ignored."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def peaks_coverage(seed: int = 0, lowest: float = 5.0):
    """1 Mb of 50 bp rows: Poisson background 4 and 40 peaks of 600 bp, heights
    ``lowest``-60 (geometric)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    starts = np.arange(0, 1_000_000, 50)
    mu = np.full(len(starts), 4.0)
    for k, h in enumerate(np.geomspace(lowest, 60, 40)):
        at = (starts >= 12_500 + 25_000 * k) & (starts < 13_100 + 25_000 * k)
        mu[at] += h
    return pd.DataFrame({"chrom": "chr1", "chromStart": starts, "chromEnd": starts + 50,
                         "count": rng.poisson(mu)})


def traced_peak(f, *args):
    """``f(*args)`` (run once before: compiled kernels, caches) and the tracemalloc peak
    (bytes) of the second run."""
    import tracemalloc

    f(*args)
    tracemalloc.start()
    out = f(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, peak
