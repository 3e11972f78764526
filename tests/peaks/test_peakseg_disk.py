"""The PeakSeg solver's on-disk store: the same models as in RAM, and no file left behind.

The decoding information of large inputs goes to temporary files in chunks
(:mod:`penlearn.peaks.peakseg._store`); here tiny chunk sizes and a zero RAM limit force
that path on small inputs, whose models must be bit-identical to the in-memory ones
(which the reference tests of ``test_peakseg_model.py`` check against R).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

import penlearn.peaks.peakseg._kernel as kernel
import penlearn.peaks.peakseg._store as store
from penlearn.peaks.peakseg.solver import peakseg


def random_coverage(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    count = rng.integers(0, 4, n) + np.where((np.arange(n) // 40) % 3 == 1, rng.poisson(6, n), 0)
    end = np.cumsum(rng.integers(1, 20, n))
    return pd.DataFrame({"chrom": "chrR", "chromStart": np.r_[0, end[:-1]], "chromEnd": end,
                         "count": count})


@pytest.fixture
def stores(monkeypatch):
    """Record every PieceStore made (to see whether it wrote to disk)."""
    made = []

    class Recorded(store.PieceStore):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(store, "PieceStore", Recorded)
    return made


def force_disk(monkeypatch, pieces: int, data: int) -> None:
    monkeypatch.setattr(store, "MEMORY_BYTES", 0)
    monkeypatch.setattr(store, "CHUNK_PIECES", pieces)
    monkeypatch.setattr(store, "CHUNK_DATA", data)


def assert_same_model(a, b) -> None:
    pd.testing.assert_frame_equal(a.segments, b.segments, check_exact=True)
    pd.testing.assert_frame_equal(a.loss, b.loss, check_exact=True)
    assert (a.mean_intervals, a.max_intervals) == (b.mean_intervals, b.max_intervals)


@pytest.mark.parametrize("pieces, data", [(1, 1), (37, 5), (1000, 64)])
def test_disk_store_gives_bit_identical_models(monkeypatch, stores, pieces, data):
    cases = [(random_coverage(seed), pen) for seed in range(6) for pen in (0.0, 30.0, 300.0)]
    in_ram = [peakseg(cov, pen) for cov, pen in cases]
    assert all(s.disk_bytes == 0 for s in stores)  # small problems stay in RAM
    stores.clear()
    force_disk(monkeypatch, pieces, data)
    on_disk = [peakseg(cov, pen) for cov, pen in cases]
    assert len(stores) == len(cases) and all(s.disk_bytes > 0 for s in stores)
    for a, b in zip(in_ram, on_disk):
        assert_same_model(a, b)
    assert {m.n_peaks for m in in_ram} != {0}  # the cases do have peaks


def test_disk_store_on_mono27ac(monkeypatch, stores):
    cov = pd.read_csv(need(DATA / "chipseq_raw" / "Mono27ac" / "coverage.bedGraph.gz"),
                      sep="\t", header=None, names=["chrom", "chromStart", "chromEnd", "count"])
    pens = (0.0, 100.0, 1952.6)  # 1467, 13 and 1 active equality constraints (R's models)
    in_ram = [peakseg(cov, pen) for pen in pens]
    force_disk(monkeypatch, 500, 97)
    for pen, a in zip(pens, in_ram):
        assert_same_model(a, peakseg(cov, pen))
    assert all(s.disk_bytes > 0 for s in stores[len(pens):])


def open_files_under(folder: Path) -> list[str]:
    """Paths of this process's open file descriptors that lie in ``folder`` (Linux)."""
    fds = Path("/proc/self/fd")
    out = []
    for fd in os.listdir(fds):
        try:
            target = os.readlink(fds / fd)
        except OSError:
            continue
        if target.startswith(str(folder) + os.sep):
            out.append(target)
    return out


@pytest.mark.parametrize("where", ["forward_chunk", "decode_chunk", None])
@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_temp_files_are_removed(monkeypatch, stores, tmp_path, where, error):
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd (Linux) to see the open temporary files")
    monkeypatch.setenv("PENLEARN_TMPDIR", str(tmp_path))
    force_disk(monkeypatch, 50, 7)
    seen = []
    if where is not None:
        real = getattr(kernel, where)

        def failing(*args):
            seen.append(open_files_under(tmp_path))
            if len(seen) == 3:  # mid-way, with the files open
                del args  # (the traceback would keep chunks mapped from the files alive)
                raise error("stopped mid-way")
            return real(*args)

        monkeypatch.setattr(kernel, where, failing)
        with pytest.raises(error, match="mid-way"):
            peakseg(random_coverage(7), 30.0)
        assert len(set(seen[-1])) == 4  # the four files were open, in PENLEARN_TMPDIR
    else:
        assert peakseg(random_coverage(7), 30.0).n_peaks > 0
    assert len(stores) == 1  # still referenced here, so only an explicit close frees them
    assert open_files_under(tmp_path) == []
    assert os.listdir(tmp_path) == []


def test_store_reads_back_what_was_written(tmp_path):
    rng = np.random.default_rng(3)
    chunks = []
    with store.PieceStore(memory_bytes=100, tmpdir=str(tmp_path)) as st:
        t = 0
        for k, p in [(3, 5), (1, 0), (4, 9), (2, 2)]:
            arrays = (rng.integers(0, 9, (k, 2)).astype(np.int32), rng.normal(size=p),
                      rng.integers(-1, 50, p).astype(np.int32), rng.normal(size=p))
            st.append(t, *arrays)
            chunks.append((t, arrays))
            t += k
        assert st.disk_bytes > 0  # spilled after the first chunk
        back = [(t_lo, read()) for t_lo, read in st.backwards()]
    assert [t for t, _ in back] == [t for t, _ in reversed(chunks)]
    for (_, got), (_, want) in zip(back, reversed(chunks)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_write_error_names_the_folder_and_the_way_out(monkeypatch, tmp_path):
    class Full:
        def write(self, data):
            raise OSError(28, "No space left on device")

        def close(self):
            pass

    monkeypatch.setattr(store.tempfile, "TemporaryFile", lambda **kw: Full())
    force_disk(monkeypatch, 50, 7)
    monkeypatch.setenv("PENLEARN_TMPDIR", str(tmp_path))
    with pytest.raises(OSError, match=f"in {tmp_path} .*No space left.*PENLEARN_TMPDIR"):
        peakseg(random_coverage(7), 30.0)


CHILD = """
import os, signal, sys, numpy as np, pandas as pd
signal.signal(signal.SIGINT, signal.default_int_handler)  # (ignored if started in background)
import penlearn.peaks.peakseg._store as store
from penlearn.peaks.peakseg.solver import peakseg
store.MEMORY_BYTES = 0
n = 2_000_000
rng = np.random.default_rng(1)
end = np.cumsum(rng.integers(1, 51, n))
cov = pd.DataFrame({"chrom": "c", "chromStart": np.r_[0, end[:-1]], "chromEnd": end,
                    "count": rng.integers(0, 4, n) + 20 * ((np.arange(n) % 10_000) < 200)})
peakseg(cov.iloc[:1000], 1e5)  # (loads the compiled kernels)
print("start", flush=True)
try:
    peakseg(cov, 1e5)
    print("finished")
except KeyboardInterrupt:
    fds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            fds.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:  # the listing's own descriptor, closed by now
            pass
    print("interrupted", sum(f.startswith(os.environ["PENLEARN_TMPDIR"]) for f in fds))
"""


def test_ctrl_c_during_a_long_solve_is_a_keyboard_interrupt(tmp_path):
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd (Linux) to see the open temporary files")
    env = dict(os.environ, PENLEARN_TMPDIR=str(tmp_path))
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout.readline().strip() == "start"
        time.sleep(1.0)  # inside the forward pass (about 6 CPU s), files open
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
    finally:
        child.kill()
    assert out.split() == ["interrupted", "0"]  # a KeyboardInterrupt, no file left open
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("pieces, data", [(1, 1), (37, 5)])
def test_progress_bars_count_the_rows_per_chunk_and_change_nothing(monkeypatch, capsys,
                                                                   pieces, data):
    cov = random_coverage(3)  # 300 rows
    quiet = peakseg(cov, 30.0)
    force_disk(monkeypatch, pieces, data)
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")  # (capsys is no terminal)
    monkeypatch.setattr(store, "PROGRESS_ROWS", len(cov))
    capsys.readouterr()
    shown = peakseg(cov, 30.0, progress=True)
    err = capsys.readouterr().err
    assert_same_model(quiet, shown)
    assert quiet.n_peaks > 0
    for bar in ("PeakSeg forward", "PeakSeg decode"):
        assert bar in err and f"{len(cov)}/{len(cov)}" in err.split(bar)[-1].split("\n")[0]
    # below the threshold, or without progress=True, nothing is shown
    monkeypatch.setattr(store, "PROGRESS_ROWS", len(cov) + 1)
    assert_same_model(quiet, peakseg(cov, 30.0, progress=True))
    monkeypatch.setattr(store, "PROGRESS_ROWS", 0)
    assert_same_model(quiet, peakseg(cov, 30.0))
    assert "PeakSeg" not in capsys.readouterr().err


def test_predict_peaks_threads_progress_into_a_large_solve(monkeypatch, capsys):
    from penlearn.peaks.peakseg.evaluation import predict_peaks

    cov = random_coverage(4)
    monkeypatch.setattr(store, "PROGRESS_ROWS", len(cov))
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")  # (capsys is no terminal)
    capsys.readouterr()
    quiet = predict_peaks(cov, log_penalty=3.0)
    assert "PeakSeg" not in capsys.readouterr().err
    shown = predict_peaks(cov, log_penalty=3.0, progress=True)
    pd.testing.assert_frame_equal(quiet, shown, check_exact=True)
    err = capsys.readouterr().err
    assert "PeakSeg forward" in err and f"{len(cov)}/{len(cov)}" in err


def record_temp_dirs(monkeypatch) -> list:
    """The ``dir=`` of every temporary file the store makes (the real files are made)."""
    seen = []
    real = store.tempfile.TemporaryFile

    def recording(*args, **kwargs):
        seen.append(kwargs.get("dir"))
        return real(*args, **kwargs)

    monkeypatch.setattr(store.tempfile, "TemporaryFile", recording)
    return seen


def test_tmpdir_argument_puts_the_files_there(monkeypatch, tmp_path):
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd (Linux) to see the open temporary files")
    mine, env = tmp_path / "mine", tmp_path / "env"
    mine.mkdir()
    env.mkdir()
    monkeypatch.setenv("PENLEARN_TMPDIR", str(env))  # the argument wins over the variable
    force_disk(monkeypatch, 1, 1)  # one row per chunk: every row goes through the files
    real = kernel.decode_chunk
    during = []

    def watching(*args):
        during.append((open_files_under(mine), open_files_under(env)))
        return real(*args)

    monkeypatch.setattr(kernel, "decode_chunk", watching)
    cov = random_coverage(7)
    want = peakseg(cov, 30.0)  # (files in env)
    during.clear()
    got = peakseg(cov, 30.0, tmpdir=mine)
    assert_same_model(want, got)
    assert during and all(len(set(m)) == 4 and e == [] for m, e in during)
    assert os.listdir(mine) == [] and open_files_under(mine) == []


def test_tmpdir_reaches_the_store_from_every_entry_point(monkeypatch, tmp_path):
    from penlearn.peaks.peakseg.evaluation import peak_error_functions, predict_peaks
    from penlearn.peaks.peakseg.search import peakseg_search
    from penlearn.peaks.peakseg.solver import peakseg_path

    force_disk(monkeypatch, 50, 7)
    seen = record_temp_dirs(monkeypatch)
    cov = random_coverage(3, n=120)
    lab = pd.DataFrame({"chrom": "chrR", "chromStart": [int(cov["chromStart"].iloc[45])],
                        "chromEnd": [int(cov["chromEnd"].iloc[80])], "annotation": ["peaks"]})
    calls = {
        "peakseg_path": lambda d: peakseg_path(cov, max_peaks=2, tmpdir=d),
        "peakseg_search": lambda d: peakseg_search(cov, 1, tmpdir=d),
        "predict_peaks": lambda d: predict_peaks(cov, log_penalty=3.0, tmpdir=d),
        "peak_error_functions": lambda d: peak_error_functions(cov, lab, max_peaks=2,
                                                               progress=False, tmpdir=d),
    }
    for name, call in calls.items():
        seen.clear()
        call(tmp_path)
        assert seen and set(seen) == {str(tmp_path)}, name


def test_bad_tmpdir_is_one_line_naming_it(tmp_path):
    from penlearn.peaks.peakseg.evaluation import predict_peaks

    cov = random_coverage(3, n=20)
    a_file = tmp_path / "f"
    a_file.write_text("")
    for where, what in ((tmp_path / "missing", "does not exist"),
                        (a_file, "is not a directory")):
        with pytest.raises(ValueError, match=f"^tmpdir '{where}' {what}: give an existing"):
            peakseg(cov, 1.0, tmpdir=where)
        with pytest.raises(ValueError, match=what):
            predict_peaks(cov, log_penalty=0.0, tmpdir=str(where))
    with pytest.raises(TypeError, match="tmpdir must be a folder path"):
        peakseg(cov, 1.0, tmpdir=3)
    if os.geteuid() != 0:  # (root may write anywhere)
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(ValueError, match="is not writable"):
            peakseg(cov, 1.0, tmpdir=locked)


def test_bad_penlearn_tmpdir_is_refused_before_any_work(monkeypatch, tmp_path):
    """``$PENLEARN_TMPDIR`` is checked up front like the argument (a small problem, which
    would never open a temporary file, still names the bad variable); the argument wins."""
    cov = random_coverage(4, n=20)
    monkeypatch.setenv("PENLEARN_TMPDIR", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match=r"^\$PENLEARN_TMPDIR '.*missing' does not exist"):
        peakseg(cov, 1.0)
    assert peakseg(cov, 1.0, tmpdir=tmp_path).n_peaks >= 0
    monkeypatch.setenv("PENLEARN_TMPDIR", str(tmp_path))
    assert peakseg(cov, 1.0).n_peaks >= 0


def test_a_problem_that_surely_outgrows_the_ram_limit_writes_from_its_first_chunk(
        monkeypatch, stores):
    """A problem of more rows than the RAM limit holds at ``MIN_ROW_BYTES`` a row (it
    will spill) holds no chunk in RAM before its files are made (issue 55: 32 MiB held
    at the solve of each 10^6-row window of ``callpeak``, then written anyway); one
    that may fit keeps its chunks in RAM; the models are the same bit for bit."""
    cov = random_coverage(3, 400)
    in_ram = peakseg(cov, 30.0)
    assert stores[-1].disk_bytes == 0
    held = []
    real = store.PieceStore.append

    def append(self, *a, **k):
        real(self, *a, **k)
        held.append(sum(c[3] is not None for c in self._chunks))
    monkeypatch.setattr(store.PieceStore, "append", append)
    monkeypatch.setattr(store, "CHUNK_PIECES", 64)
    monkeypatch.setattr(store, "CHUNK_DATA", 16)
    monkeypatch.setattr(store, "MEMORY_BYTES", 400 * store.MIN_ROW_BYTES - 1)
    assert_same_model(peakseg(cov, 30.0), in_ram)
    assert stores[-1].disk_bytes > 0 and len(held) > 3 and max(held) == 0
    held.clear()
    monkeypatch.setattr(store, "MEMORY_BYTES", 400 * store.MIN_ROW_BYTES)  # (may fit)
    assert_same_model(peakseg(cov, 30.0), in_ram)
    assert max(held) > 0  # (it fills the limit, then spills: as before)
