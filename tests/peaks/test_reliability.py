"""No silent wrong answers on the ChIP-seq surfaces, library side.

Each test failed before its fix: numbers in label / BED files, labels without coverage,
sample groups, BED validity, ``peakseg_search`` beyond the path, interrupts inside a
numba kernel and a read-only numba cache (the last two as subprocesses).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, default_sigint

import penlearn as pl
from penlearn.peaks.formats.bed import write_bedgraph
from penlearn.peaks.peakseg.labels import check_labels_in_coverage

BIG = 2**62  # positions near 2^62: float64 cannot tell them apart


def _cov(samples=("a",), counts=(1, 2, 30, 28, 2, 1)):
    n = len(counts)
    return pd.DataFrame({"sample_id": [s for s in samples for _ in range(n)], "chrom": "chr1",
                         "chromStart": list(range(0, 10 * n, 10)) * len(samples),
                         "chromEnd": list(range(10, 10 * n + 10, 10)) * len(samples),
                         "count": list(counts) * len(samples)})


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text and text, text
    return text


# ---------------------------------------------------------------- numbers in files


def test_byte_order_mark_is_not_part_of_the_first_field(tmp_path):
    bed = tmp_path / "p.bed"
    bed.write_bytes(b"\xef\xbb\xbfchr1\t10\t20\n")
    assert pl.read_bed(bed)["chrom"].tolist() == ["chr1"]
    lab = tmp_path / "labels.csv"
    lab.write_bytes(b"\xef\xbb\xbfchrom,chromStart,chromEnd,annotation\nchr1,1,5,peaks\n")
    assert pl.read_peak_labels(lab)[["chrom", "chromStart"]].values.tolist() == [["chr1", 1]]


def test_positions_near_2_62_are_exact_integers(tmp_path):
    lab = tmp_path / "labels.csv"
    lab.write_text(f"chrom,chromStart,chromEnd,annotation\nchr1,{BIG},{BIG + 1},peaks\n")
    got = pl.read_peak_labels(lab)
    assert got["chromStart"].tolist() == [BIG] and got["chromEnd"].tolist() == [BIG + 1]
    bed = tmp_path / "p.bed"
    bed.write_text(f"chr1\t{BIG + 1}\t{BIG + 3}\n")
    assert pl.read_bed(bed)["chromEnd"].tolist() == [BIG + 3]
    table = pd.DataFrame({"chrom": ["chr1"], "chromStart": [BIG], "chromEnd": [BIG + 1],
                          "annotation": ["peaks"]})
    assert pl.peak_label_errors(table[["chrom", "chromStart", "chromEnd"]],
                                table).totals["errors"].tolist() == [0]


@pytest.mark.parametrize("token", ["9223372036854775808", "-9223372036854775809",
                                   "99999999999999999999999"])
def test_integers_beyond_int64_are_one_line_errors(tmp_path, token):
    bed = tmp_path / "p.bed"
    bed.write_text(f"chr1\t1\t5\nchr1\t{token}\t20\n")
    with pytest.raises(ValueError) as exc:
        pl.read_bed(bed)
    assert "line 2" in _one_line(exc) and "chromStart" in str(exc.value)
    lab = tmp_path / "labels.csv"
    lab.write_text(f"chrom,chromStart,chromEnd,annotation\nchr1,1,{token},peaks\n")
    with pytest.raises(ValueError, match="line 2.*chromEnd"):
        pl.read_peak_labels(lab)
    txt = tmp_path / "labels.txt"
    txt.write_text(f"chr1:1-{token.lstrip('-')} peaks\n")
    with pytest.raises(ValueError, match="line 1.*64-bit"):
        pl.read_peak_labels(txt)
    big = pd.DataFrame({"chrom": ["chr1"], "chromStart": [1], "chromEnd": [int(token)],
                        "annotation": ["peaks"]})
    with pytest.raises((ValueError, TypeError), match="chromEnd"):
        pl.peak_label_errors(big[["chrom", "chromStart", "chromEnd"]].assign(chromEnd=[2]), big)


@pytest.mark.parametrize("token", ["1_000", "+10", "١٢", "1e3", "0x10"])
def test_integer_forms_a_bed_file_does_not_have_are_refused(tmp_path, token):
    bed = tmp_path / "p.bed"
    bed.write_text(f"chr1\t{token}\t20000\n")
    with pytest.raises(ValueError, match="line 1: chromStart must be an integer"):
        pl.read_bed(bed)


@pytest.mark.parametrize("where", ["1,0,00-2,000", "1,000-2,0000", ",1000-2000"])
def test_commas_out_of_place_in_browser_labels_are_refused(tmp_path, where):
    txt = tmp_path / "labels.txt"
    txt.write_text(f"chr1:500-900 noPeaks\nchr1:{where} peaks\n")
    with pytest.raises(ValueError, match="line 2: expected 'chrom:start-end"):
        pl.read_peak_labels(txt)


# ---------------------------------------------------------------- BED validity


@pytest.mark.parametrize("column,value", [("name", "a\tb"), ("name", "a\nb"), ("name", ""),
                                          ("name", np.nan), ("chrom", ""), ("chrom", np.nan),
                                          ("chrom", "chr 1"), ("score", np.inf)])
def test_write_bed_refuses_what_makes_invalid_bed(tmp_path, column, value):
    peaks = pd.DataFrame({"chrom": ["chr1", "chr1"], "chromStart": [1, 10],
                          "chromEnd": [5, 20], "name": ["p1", "p2"], "score": [1.0, 2.0]})
    peaks[column] = peaks[column].astype(object)
    peaks.loc[1, column] = value
    out = tmp_path / "p.bed"
    with pytest.raises(ValueError) as exc:
        pl.write_bed(peaks, out)
    assert column in _one_line(exc) and "row 1" in str(exc.value)
    assert not out.exists()


@pytest.mark.parametrize("text,needle", [
    ("chr1\t-5\t20\n", "chromStart must be >= 0"),
    ("chr1\t1\t5\tp1\nchr1\t10\t20\n", "every line of a BED file has the same fields"),
    ("chr1\t1\t5\tp1\t3\nchr1\t10\t20\tp2\tabc\n", "score must be a number"),
])
def test_read_bed_refuses_invalid_lines(tmp_path, text, needle):
    bed = tmp_path / "p.bed"
    bed.write_text(text)
    with pytest.raises(ValueError, match=needle) as exc:
        pl.read_bed(bed)
    assert str(bed) in _one_line(exc)


def test_track_lines_and_bedgraph_round_trip(tmp_path):
    """Written files are read back by the coverage / BED readers, a track line first."""
    model = pl.peakseg(_cov().drop(columns="sample_id"), 3.0)
    bed = tmp_path / "p.bed"
    pl.write_bed(model.peaks.assign(name="s1", score=29.0), bed, track="my peaks")
    assert bed.read_text().splitlines()[0] == 'track name="my peaks"'
    assert pl.read_bed(bed).values.tolist() == [["chr1", 20, 40, "s1", 29.0]]
    graph = tmp_path / "means.bedGraph"
    write_bedgraph(model.segments, graph, track="m")
    assert graph.read_text().startswith('track type=bedGraph name="m"\n')
    lines = [ln.split("\t") for ln in graph.read_text().splitlines()[1:]]
    assert [float(x[3]) for x in lines] == model.segments["mean"].tolist()
    with pytest.raises(ValueError, match="quotes or newlines"):
        pl.write_bed(model.peaks, bed, track='a"b')


# ---------------------------------------------------------------- labels without coverage


@pytest.mark.parametrize("label,why", [
    ({"sample_id": "a", "chrom": "chr1", "chromStart": 50, "chromEnd": 70}, "beyond"),
    ({"sample_id": "a", "chrom": "chr2", "chromStart": 5, "chromEnd": 15}, "chromosome"),
    ({"sample_id": "zz", "chrom": "chr1", "chromStart": 5, "chromEnd": 15}, "sample"),
])
def test_labels_without_coverage_are_errors_not_dropped(label, why):
    cov = _cov(("a", "b"))
    labels = pd.DataFrame([{"sample_id": "a", "chrom": "chr1", "chromStart": 15,
                            "chromEnd": 25, "annotation": "peakStart"},
                           {**label, "annotation": "noPeaks"}])
    with pytest.raises(ValueError, match=f"1 of 2 labels .*row 1.*{why}"):
        pl.peak_error_functions(cov, labels, progress=False)
    with pytest.warns(UserWarning, match="1 of 2 labels"):
        kept = check_labels_in_coverage(cov, labels, outside="warn")
    ev = pl.peak_error_functions(cov, kept, progress=False)
    assert ev["labels"].max() == 1


def test_labels_across_two_windows_or_in_none_are_errors():
    cov = _cov(("a",))
    windows = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 30], "chromEnd": [30, 50]})
    good = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": [15],
                         "chromEnd": [25], "annotation": ["peakStart"]})
    ev = pl.peak_error_functions(cov, good, windows=windows, progress=False)
    assert ev["labels"].tolist() == [1] * len(ev)
    for start, end in [(25, 35), (52, 58)]:  # across the two windows; in none
        bad = pd.concat([good, good.assign(chromStart=start, chromEnd=end,
                                           annotation="noPeaks")], ignore_index=True)
        with pytest.raises(ValueError, match="1 of 2 labels .*row 1.*inside no window"):
            pl.peak_error_functions(cov, bad, windows=windows, progress=False)


def test_a_group_that_names_no_sample_is_an_error(tmp_path):
    txt = tmp_path / "labels.txt"
    txt.write_text("chr1:11-20 peakStart kidnee\n")
    with pytest.raises(ValueError, match="line 1: 'kidnee' is no sample id or group"):
        pl.read_peak_labels(txt, samples={"a": "kidney", "b": "bcell"})
    # without samples=: the words name samples of the coverage (peak folders)
    labels = pl.read_peak_labels(txt)
    with pytest.raises(ValueError, match="'kidnee' is no sample id"):
        pl.peak_error_functions(_cov(("a", "b")), labels, progress=False)
    ev = pl.peak_error_functions(_cov(("a", "b")), labels.assign(groups="a"), progress=False)
    # sample a has the peakStart label (0 errors possible), b a noPeaks label there
    per = ev.groupby("sequence_id")["possible_fn"].max()
    assert per.to_dict() == {"a/chr1:0-60": 1, "b/chr1:0-60": 0}


# ---------------------------------------------------------------- peakseg_search


def test_peakseg_search_beyond_the_path_returns_its_most_complex_model():
    y = [12, 10, 1, 0, 3, 5, 0, 2, 10, 16, 11, 11]
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(12), "chromEnd": range(1, 13),
                        "count": y})
    top = pl.peakseg(cov, 0.0)
    assert top.n_peaks < 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = pl.peakseg_search(cov, peaks=5)
    assert not found.reached
    assert found.n_peaks == top.n_peaks
    assert found.total_loss == pytest.approx(top.total_loss, rel=1e-12)


# ---------------------------------------------------------------- interrupts and cache

ENV = {**os.environ, "PYTHONPATH": str(REPO)}

_KERNEL_SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    import numpy as np, pandas as pd
    import penlearn as pl
    rng = np.random.default_rng(1)
    n = int(sys.argv[1])
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": np.arange(n) * 10,
                        "chromEnd": np.arange(n) * 10 + 10, "count": rng.poisson(3, n)})
    pl.peakseg(cov.iloc[:50], 10.0)  # compiled / loaded from the cache
    t = time.perf_counter()
    pl.peakseg(cov, 1000.0)
    solve = time.perf_counter() - t
    timer = threading.Timer(solve / 3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        pl.peakseg(cov, 1000.0)
    except KeyboardInterrupt as exc:
        print("KeyboardInterrupt", type(exc.__context__).__name__, flush=True)
""")


def test_interrupt_inside_the_numba_kernel_is_a_plain_keyboard_interrupt(tmp_path):
    """Before: SystemError (CPUDispatcher returned a result with an exception set) or a
    segmentation fault, depending on where in the result boxing the handler ran."""
    script = tmp_path / "kernel.py"
    script.write_text(_KERNEL_SCRIPT)
    r = subprocess.run([sys.executable, str(script), "60000"], capture_output=True,
                       text=True, env=ENV, timeout=300, preexec_fn=default_sigint)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "KeyboardInterrupt NoneType", (r.stdout, r.stderr[-2000:])


_RO_SCRIPT = textwrap.dedent("""
    import pandas as pd, penlearn as pl
    cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
                        "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    print(pl.__file__, pl.peakseg(cov, 3.0).peaks.values.tolist())
""")


@pytest.mark.slow  # compiles the kernels once into the temporary cache (~30 s)
def test_read_only_package_and_home_fall_back_to_a_temporary_numba_cache(tmp_path):
    """A copy of the package and a home on a read-only bind mount (a private mount
    namespace); before: ``RuntimeError: cannot cache function ...: no locator``."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs unshare and root to make a read-only mount (a private namespace)")
    ro = tmp_path / "ro"
    shutil.copytree(REPO / "penlearn", ro / "pkg" / "penlearn",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (ro / "home").mkdir()
    (tmp_path / "ro.py").write_text(_RO_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",
                                                            "XDG_CACHE_HOME")}
    env.update(HOME=str(ro / "home"), PYTHONPATH=str(ro / "pkg"), PYTHONDONTWRITEBYTECODE="1")
    cmd = (f"mount --bind {ro} {ro} && mount -o remount,bind,ro {ro} && "
           f"! touch {ro}/home/x 2>/dev/null && exec {sys.executable} {tmp_path}/ro.py")
    r = subprocess.run(["unshare", "-m", "sh", "-c", cmd], capture_output=True, text=True,
                       env=env, timeout=300, cwd=tmp_path)
    if "mount" in r.stderr and r.returncode != 0 and "penlearn" not in r.stderr:
        pytest.skip(f"no read-only bind mount here: {r.stderr.strip()[:200]}")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == f"{ro}/pkg/penlearn/__init__.py [['chr1', 20, 40]]"
    warning = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(warning) == 1 and "no writable numba cache folder" in warning[0], r.stderr
    folder = Path(warning[0].rsplit(" ", 1)[1])
    assert any(folder.rglob("*.nbi")), folder  # the kernels were cached there


def test_sigterm_inside_the_kernel_is_deferred_too(tmp_path):
    """The CLI's SIGTERM handler raises Terminated (a KeyboardInterrupt) after the kernel."""
    script = tmp_path / "kernel.py"
    script.write_text(_KERNEL_SCRIPT.replace("signal.SIGINT", "signal.SIGTERM").replace(
        "import penlearn as pl", "import penlearn as pl\n"
        "from penlearn.atomic_files import sigterm_unwinds\n"
        "_unwind = sigterm_unwinds()\n_unwind.__enter__()"))
    r = subprocess.run([sys.executable, str(script), "60000"], capture_output=True,
                       text=True, env=ENV, timeout=300, preexec_fn=default_sigint)
    assert r.returncode == 0 and r.stdout.strip() == "KeyboardInterrupt NoneType", \
        (r.returncode, r.stdout, r.stderr[-2000:])
