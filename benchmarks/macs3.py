"""Label errors of MACS3 and of penlearn on every labeled raw coverage of ``chipseq_raw/``.

One command (needs the optional ``bench`` extra: ``pip install -e .[bench]`` installs
MACS3 from PyPI; the ``macs3`` command must be on the path, or give ``--macs3 PATH``)::

    python benchmarks/macs3.py [--data-dir DIR] [--write]

For each labeled data set (``Mono27ac``: one sample, 6 labels; ``H3K36me3_TDH_other_chunk1``:
8 samples, 48 labels) and each of its samples:

* **MACS3** without a control, as ``macs3 callpeak`` would see the sample without one: the
  Poisson −log10 p-value of each base's coverage against the sample's own genome-wide
  mean (``macs3 bdgcmp -m ppois`` with a constant control bedGraph holding that mean),
  then ``macs3 bdgpeakcall`` on those scores — at its defaults (cutoff 5, i.e. p 1e-5;
  min length 200; max gap 30), and **tuned on the same labels** over cutoff × max gap ×
  min length (the setting of fewest label errors over the whole data set: an optimistic
  figure, no held-out labels);
* **penlearn zero-label**: ``penlearn peaks COVERAGE --out DIR`` (no penalty, no model: the
  shipped model);
* **penlearn learned**: ``penlearn learn FOLDER --out MODEL`` on the data set's own
  coverage and labels, then ``penlearn peaks COVERAGE --model MODEL`` (evaluated on the
  labels it learned from, as MACS3 tuned is).

Label errors (labels with a false positive or a false negative) by ``penlearn errors``.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PENLEARN_DATA") or next(
    (a / "shared" / "data" for a in HERE.parents if (a / "shared" / "data").is_dir()),
    HERE.parent.parent / "shared" / "data"))

#: The labeled raw coverage of chipseq_raw/: folder → coverage file in it.
SETS = {"Mono27ac": "coverage.bedGraph.gz",
        "H3K36me3_TDH_other_chunk1": "coverage.csv.gz"}

#: MACS3 bdgpeakcall defaults (cutoff on −log10 p, min length, max gap).
DEFAULTS = (5.0, 200, 30)
#: The tuning grid (cutoff × max gap × min length).
CUTOFFS = (1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 40.0)
MAX_GAPS = (30, 1000, 10000)
MIN_LENGTHS = (50, 200, 1000)


def penlearn_cmd() -> list[str]:
    """The ``penlearn`` command of this tree (``python -m penlearn.cli``)."""
    return [sys.executable, "-m", "penlearn.cli"]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}


def run(argv: list[str]) -> subprocess.CompletedProcess:
    out = subprocess.run(argv, capture_output=True, text=True, env=_env())
    if out.returncode:
        raise RuntimeError(f"{' '.join(map(str, argv[:4]))} … failed ({out.returncode}): "
                           f"{out.stderr.strip()[-1500:]}")
    return out


def samples_of(folder: Path) -> dict[str, pd.DataFrame]:
    """Each sample's bedGraph rows (chrom, chromStart, chromEnd, count); one sample named
    after the folder for a plain bedGraph."""
    f = folder / SETS[folder.name]
    if f.name.endswith(".csv.gz"):
        cov = pd.read_csv(f)
        return {str(s): g[["chrom", "chromStart", "chromEnd", "count"]]
                for s, g in cov.groupby("sample_id", sort=False)}
    with gzip.open(f, "rt") as fh:
        cov = pd.read_csv(fh, sep="\t", header=None,
                          names=["chrom", "chromStart", "chromEnd", "count"])
    return {folder.name: cov}


def macs3_scores(macs3: str, cov: pd.DataFrame, work: Path) -> Path:
    """The ``bdgcmp -m ppois`` scores of ``cov`` against its own genome-wide mean."""
    treat, ctrl, out = work / "treat.bdg", work / "ctrl.bdg", work / "ppois.bdg"
    cov.to_csv(treat, sep="\t", header=False, index=False)
    width = (cov["chromEnd"] - cov["chromStart"]).to_numpy(float)
    mean = float(np.dot(width, cov["count"].to_numpy(float)) / width.sum())
    cov.assign(count=mean).to_csv(ctrl, sep="\t", header=False, index=False,
                                  float_format="%.10g")
    run([macs3, "bdgcmp", "-t", str(treat), "-c", str(ctrl), "-m", "ppois",
         "--outdir", str(work), "-o", out.name])
    return out


def macs3_peaks(macs3: str, scores: Path, setting, out: Path) -> Path:
    """``bdgpeakcall`` at ``setting`` = (cutoff, min length, max gap), as BED3 at ``out``."""
    cutoff, min_len, max_gap = setting
    raw = out.with_suffix(".narrowPeak")
    run([macs3, "bdgpeakcall", "-i", str(scores), "-c", str(cutoff), "-l", str(min_len),
         "-g", str(max_gap), "--outdir", str(raw.parent), "-o", raw.name])
    rows = [ln.split("\t")[:3] for ln in raw.read_text().splitlines()
            if ln.strip() and not ln.startswith(("track", "#", "browser"))]
    out.write_text("".join("\t".join(r) + "\n" for r in rows))
    raw.unlink()
    return out


def label_errors(peaks: Path, labels: Path) -> tuple[int, int]:
    """(labels wrong, labels) of a peak file or folder, by ``penlearn errors`` (its command
    function, in this process: no interpreter start per setting)."""
    import contextlib
    import io
    from types import SimpleNamespace

    from penlearn.cli.errors import cmd_errors

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "errors.csv"
        args = SimpleNamespace(peaks=str(peaks), labels=str(labels), out=str(table),
                               force=True, sample=None, merge=True, quiet=True)
        with contextlib.redirect_stdout(io.StringIO()):
            cmd_errors(args)
        e = pd.read_csv(table)
    wrong = int(((e["fp"] > 0) | (e["fn"] > 0)).sum())
    return wrong, len(e)


def macs3_columns(macs3: str, folder: Path, work: Path, grid_axes=None) -> dict:
    """MACS3 at its defaults and tuned over the grid (``grid_axes`` = cutoffs, max gaps,
    min lengths): label errors over all samples."""
    cutoffs, max_gaps, min_lengths = grid_axes or (CUTOFFS, MAX_GAPS, MIN_LENGTHS)
    labels = folder / "labels.csv"
    samples = samples_of(folder)
    scores = {}
    for s, cov in samples.items():
        d = work / "scores" / s
        d.mkdir(parents=True)
        scores[s] = macs3_scores(macs3, cov, d)
    grid = [DEFAULTS] + [(c, m, g) for c, g, m in
                         itertools.product(cutoffs, max_gaps, min_lengths)]
    by_setting = {}
    from concurrent.futures import ThreadPoolExecutor

    dirs = {}
    jobs = []
    for setting in dict.fromkeys(grid):
        d = dirs[setting] = work / "macs3" / "_".join(map(str, setting))
        d.mkdir(parents=True)
        jobs += [(sc, setting, d / f"{s}.bed") for s, sc in scores.items()]
    with ThreadPoolExecutor(2) as pool:  # two MACS3 processes at a time (2 cores)
        list(pool.map(lambda j: macs3_peaks(macs3, *j), jobs))
    for setting, d in dirs.items():
        by_setting[setting] = label_errors(_peaks_arg(d, samples), labels)
    best = min(by_setting, key=lambda k: (by_setting[k][0], grid.index(k)))
    return {"labels": by_setting[DEFAULTS][1], "default": by_setting[DEFAULTS][0],
            "tuned": by_setting[best][0], "tuned setting": best,
            "settings": len(by_setting)}


def _peaks_arg(d: Path, samples: dict) -> Path:
    """The peak file of a one-sample set, else the folder."""
    return d / f"{next(iter(samples))}.bed" if len(samples) == 1 else d


def penlearn_columns(folder: Path, work: Path) -> dict:
    """penlearn's zero-label default and a model learned on the set's own labels."""
    labels = folder / "labels.csv"
    cov = folder / SETS[folder.name]
    one = len(samples_of(folder)) == 1
    out = {}
    zero = work / ("zero.bed" if one else "zero")
    try:
        run([*penlearn_cmd(), "peaks", str(cov), "--out", str(zero), "-q"])
        out["zero-label"] = label_errors(zero, labels)[0]
    except RuntimeError as e:  # no zero-label default in this tree yet
        out["zero-label"] = f"n/a ({str(e).splitlines()[-1][-80:]})"
    model = work / "model.json"
    learned = work / ("learned.bed" if one else "learned")
    try:
        run([*penlearn_cmd(), "learn", str(folder), "--out", str(model), "-q"])
        run([*penlearn_cmd(), "peaks", str(cov), "--model", str(model), "--out",
             str(learned), "-q"])
        out["learned"] = label_errors(learned, labels)[0]
    except RuntimeError as e:
        out["learned"] = f"n/a ({str(e).splitlines()[-1][-80:]})"
    return out


def main(argv=None) -> int:
    sys.path.insert(0, str(HERE))
    from results_file import markdown_table, write_section

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--macs3", default=shutil.which("macs3") or "macs3")
    ap.add_argument("--sets", nargs="+", default=list(SETS))
    ap.add_argument("--cutoffs", nargs="+", type=float, default=list(CUTOFFS))
    ap.add_argument("--max-gaps", nargs="+", type=int, default=list(MAX_GAPS))
    ap.add_argument("--min-lengths", nargs="+", type=int, default=list(MIN_LENGTHS))
    ap.add_argument("--no-penlearn", action="store_true", help="the MACS3 columns only")
    ap.add_argument("--write", action="store_true", help="write the RESULTS.md section")
    a = ap.parse_args(argv)
    version = run([a.macs3, "--version"]).stdout.strip()
    load0 = os.getloadavg()
    rows = []
    for name in a.sets:
        folder = a.data_dir / "chipseq_raw" / name
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            m = macs3_columns(a.macs3, folder, Path(tmp),
                              (a.cutoffs, a.max_gaps, a.min_lengths))
            p = ({"zero-label": "not run", "learned": "not run"} if a.no_penlearn
                 else penlearn_columns(folder, Path(tmp)))
        c, ml, g = m["tuned setting"]
        rows.append({"data set": name, "labels": m["labels"],
                     "MACS3 default": m["default"],
                     "MACS3 tuned on these labels": m["tuned"],
                     "tuned (cutoff, min length, max gap)": f"({c:g}, {ml}, {g})",
                     "penlearn zero-label": p["zero-label"],
                     "penlearn learned (these labels)": p["learned"]})
        print(name, rows[-1], f"{time.perf_counter() - t0:.0f} s", flush=True)
    lines = markdown_table(rows)
    print("\n".join(lines))
    if a.write:
        head = [
            "## macs3",
            "",
            f"`python benchmarks/macs3.py` — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f", {version}, load average {load0[0]:.1f} (machine shared by 8 helpers; "
            "timings not reported). Label errors (labels with a FP or FN, by `penlearn "
            "errors`). MACS3: `bdgcmp -m ppois` against each sample's own genome-wide mean "
            "(callpeak's background without a control), then `bdgpeakcall`; default = "
            "cutoff 5, min length 200, max gap 30; tuned = the best of "
            f"{len(a.cutoffs) * len(a.max_gaps) * len(a.min_lengths)} settings (cutoff "
            f"{a.cutoffs} × max gap {a.max_gaps} × min length {a.min_lengths}) "
            "chosen on the same labels it is scored on. penlearn learned: `penlearn learn` "
            "on the set's folder, scored on the labels it learned from (as MACS3 tuned).",
            "",
        ]
        write_section("## macs3", "\n".join(head + lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
