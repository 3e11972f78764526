"""Benchmark: ChIP-seq coverage at chromosome scale — reading, peaks, gaps, workers.

Run: python benchmarks/genome_scale.py [--quick] [--results] [--sizes 5e6 2e7]
     [--peaks-max-rows 5e6] [--samples 8] [--sample-rows 2e5] [--repeats 3]
     [--readers-only]

* synthetic coverage (one chromosome per file): background counts 0–3 in runs of 1–50
  bases, plus planted peaks (counts 10–40 over 200–2000 bases, one every ~20 kb), as
  bedGraph (plain and gzip), a CSV table with ``sample_id`` and a bigWig (pyBigWig);
* each reader (:func:`penlearn.read_bedgraph`, :func:`penlearn.read_coverage`,
  :func:`penlearn.read_bigwig`) against ``pandas.read_csv`` on the same file (a bigWig:
  on the same rows as bedGraph.gz): wall time and peak memory, each run in its own
  subprocess (``VmHWM`` of the child, minus that of a child that only imports the same
  modules), penlearn and pandas alternated ``--repeats`` times (default 3) and the
  median reported, with the range of the per-pair time ratios; and the bytes of the
  arrays returned. Each child reads twice: cold (the first numba use of the process:
  numba's one-time runtime load is in it; memory is taken after this read) and warm
  (the same file again), so the table tells the one-time cost from the reading;
* ``penlearn peaks FILE --penalty P`` wall time and max RSS (a subprocess), on the filled
  coverage and on the gapped one (zero-count rows left out, as ``bedtools genomecov
  -bg`` writes it);
* ``penlearn peaks FOLDER --jobs 1`` vs ``--jobs 2`` on 8 samples.

Big files are written to a temporary folder and removed. ``--quick`` uses small sizes
(a smoke test of the script). With ``--results`` the tables go to the
``## genome_scale`` section of benchmarks/RESULTS.md; with ``--readers-only`` only the
reading table is measured, printed and replaced there (the recorded ``penlearn peaks``
subsection is kept as it is).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402
from _measure import run_command, run_python  # noqa: E402

SECTION = "## genome_scale"
PEAKS_HEADING = "### genome_scale: penlearn peaks"
CHROM = "chr1"


def synthetic_coverage(n_rows: int, seed: int = 1) -> pd.DataFrame:
    """Contiguous rows: background runs (1–50 bases, counts 0–3) with planted peaks."""
    rng = np.random.default_rng(seed)
    widths = rng.integers(1, 51, n_rows)
    counts = rng.integers(0, 4, n_rows)
    # a peak every ~20 kb: 20 rows of high counts over 200-2000 bases
    starts = np.arange(rng.integers(0, 500), n_rows - 20, 800)
    for k in range(20):
        counts[starts + k] = rng.integers(10, 41, len(starts))
        widths[starts + k] = rng.integers(10, 101, len(starts))
    ends = np.cumsum(widths, dtype=np.int64)
    return pd.DataFrame({"chrom": CHROM, "chromStart": ends - widths, "chromEnd": ends,
                         "count": counts.astype(np.int64)})


def write_files(cov: pd.DataFrame, folder: Path, name: str) -> dict[str, Path]:
    """The coverage as bedGraph (plain, gzip), a CSV table and a bigWig; plus gapped."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"bedGraph": folder / f"{name}.bedGraph"}
    cov.to_csv(files["bedGraph"], sep="\t", header=False, index=False)
    files["bedGraph.gz"] = folder / f"{name}.bedGraph.gz"
    with open(files["bedGraph"], "rb") as src, gzip.open(files["bedGraph.gz"], "wb", 3) as dst:
        shutil.copyfileobj(src, dst, 1 << 24)
    files["csv"] = folder / f"{name}.csv"
    cov.assign(sample_id=name)[["sample_id", "chrom", "chromStart", "chromEnd", "count"]] \
        .to_csv(files["csv"], index=False)
    gapped = cov[cov["count"] > 0]
    files["gapped"] = folder / f"{name}.gapped.bedGraph"
    gapped.to_csv(files["gapped"], sep="\t", header=False, index=False)
    try:
        import pyBigWig
    except ImportError:
        return files
    files["bigWig"] = folder / f"{name}.bw"
    bw = pyBigWig.open(str(files["bigWig"]), "w")
    bw.addHeader([(CHROM, int(cov["chromEnd"].iloc[-1]))], maxZooms=0)
    step = 1_000_000
    for i in range(0, len(cov), step):
        part = cov.iloc[i:i + step]
        bw.addEntries([CHROM] * len(part), part["chromStart"].tolist(),
                      ends=part["chromEnd"].tolist(),
                      values=part["count"].astype(float).tolist())
    bw.close()
    return files


_CHILD = r"""
import json, sys, time
import numpy as np, pandas as pd, numba
import penlearn
from penlearn.peaks.formats.coverage import read_bedgraph, read_coverage
from penlearn.peaks.formats._bigwig import read_bigwig
how, path = sys.argv[1], sys.argv[2]
read_bedgraph  # every child imports the same modules (numba too), so the baseline does
from _measure import max_rss_bytes  # VmHWM: not the (large) parent's size after fork + exec


def read():
    if how == "baseline":
        return pd.DataFrame({"x": np.zeros(1)})
    if how == "pandas":
        return pd.read_csv(path, sep="\t", header=None,
                           names=["chrom", "chromStart", "chromEnd", "count"])
    if how == "pandas-csv":
        return pd.read_csv(path)
    if how == "bigwig":
        return read_bigwig(path)
    return read_coverage([path])


t0 = time.perf_counter()
df = read()  # cold: the first numba use of the process loads numba's runtime
wall = time.perf_counter() - t0
arrays = int(df.memory_usage(index=False, deep=False).sum())
rows, maxrss = len(df), max_rss_bytes()  # the memory of the first read
del df
t0 = time.perf_counter()
df = read()  # warm: the same file again, in the same process
warm = time.perf_counter() - t0
print(json.dumps({"wall": wall, "warm": warm, "rows": rows, "arrays": arrays,
                  "maxrss": maxrss}))
"""


def measure_read(how: str, path: Path | str) -> dict:
    """Wall time, rows, bytes of the returned columns, max RSS of a child process."""
    return run_python(["-c", _CHILD, how, str(path)])


def measure_pair(how: str, path: Path, ref_how: str, ref_path: Path, repeats: int
                 ) -> tuple[dict, dict, list[float]]:
    """The reader and pandas alternated ``repeats`` times (each run a fresh child): the
    median of each figure for both, and the per-pair time ratios."""
    runs = [(measure_read(how, path), measure_read(ref_how, ref_path))
            for _ in range(repeats)]

    def median(k: int) -> dict:  # rows and arrays are the same in every run
        return {**runs[0][k], **{key: float(np.median([r[k][key] for r in runs]))
                                 for key in ("wall", "warm", "maxrss")}}

    return (median(0), median(1), [a["wall"] / b["wall"] for a, b in runs],
            [a["warm"] / b["warm"] for a, b in runs])


def run_penlearn(argv: list[str]) -> dict:
    """``penlearn ARGV -q`` measured alone (:func:`_measure.run_command`)."""
    return run_command([sys.executable, "-m", "penlearn.cli", *argv, "-q"])


def mb(x: float) -> str:
    return f"{x / 2**20:,.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument("--results", action="store_true", help="write benchmarks/RESULTS.md")
    ap.add_argument("--sizes", type=float, nargs="+", default=[5e6, 2e7])
    ap.add_argument("--peaks-max-rows", type=float, default=5e6,
                    help="run 'penlearn peaks' only on files up to this many rows "
                    "(the solver's memory grows with N)")
    ap.add_argument("--penalty", type=float, default=1e4)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--sample-rows", type=float, default=2e5)
    ap.add_argument("--readers-only", action="store_true",
                    help="only the reading table (no 'penlearn peaks' runs)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="runs of each reader and of pandas (the median is reported)")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.peaks_max_rows, args.sample_rows = [2e5], 2e5, 2e4
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    tmp = Path(tempfile.mkdtemp(prefix="penlearn-genome-"))
    rows_out: list[list[str]] = []
    peak_rows: list[list[str]] = []
    try:
        base = measure_read("baseline", "")
        print(f"baseline child (imports only): max RSS {mb(base['maxrss'])} MB", flush=True)
        for n in (int(s) for s in args.sizes):
            files = write_files(synthetic_coverage(n), tmp / f"n{n}", f"s{n}")
            for kind, how in [("bedGraph.gz", "penlearn"), ("bedGraph", "penlearn"),
                              ("csv", "penlearn"), ("bigWig", "bigwig"),
                              ("gapped", "penlearn")]:
                if kind not in files:
                    continue
                ref = files["bedGraph.gz"] if kind == "bigWig" else files[kind]
                r, p, ratios, warm = measure_pair(how, files[kind],
                                            "pandas-csv" if kind == "csv" else "pandas", ref,
                                            args.repeats)
                extra = r["maxrss"] - base["maxrss"]
                rows_out.append([f"{r['rows']:,}", kind, f"{r['wall']:.2f}",
                                 f"{p['wall']:.2f}", f"{r['wall'] / p['wall']:.2f}",
                                 f"{min(ratios):.2f}–{max(ratios):.2f}",
                                 f"{r['warm']:.2f}", f"{p['warm']:.2f}",
                                 f"{r['warm'] / p['warm']:.2f}",
                                 f"{min(warm):.2f}–{max(warm):.2f}",
                                 mb(extra), mb(r["arrays"]), f"{extra / r['arrays']:.2f}",
                                 mb(p["maxrss"] - base["maxrss"])])
                print(" | ".join(rows_out[-1]), flush=True)
            if n <= args.peaks_max_rows and not args.readers_only:
                for kind in ("bedGraph.gz", "gapped"):
                    out = tmp / f"peaks-{kind}.bed"
                    r = run_penlearn(["peaks", str(files[kind]), "--penalty",
                                     str(args.penalty), "--out", str(out), "--force"])
                    peaks = sum(1 for _ in open(out)) if r["code"] == 0 else None
                    peak_rows.append([f"{n:,}", kind, "1", f"{r['wall']:.1f}",
                                      mb(r["maxrss"]),
                                      str(peaks) if peaks is not None else
                                      f"error: {r['error'][:80]}"])
                    print(" | ".join(peak_rows[-1]), flush=True)
            shutil.rmtree(tmp / f"n{n}")
        folder = tmp / "samples"
        folder.mkdir()
        if args.readers_only:
            args.samples = 0
        m = int(args.sample_rows)
        for k in range(args.samples):
            synthetic_coverage(m, seed=k + 10).to_csv(folder / f"sample{k}.bedGraph",
                                                      sep="\t", header=False, index=False)
        for jobs in (1, 2) if args.samples else ():
            out = tmp / f"peaks-jobs{jobs}"
            r = run_penlearn(["peaks", str(folder), "--penalty", str(args.penalty), "--out",
                             str(out), "--force", "--jobs", str(jobs)])
            peaks = sum(1 for f in out.glob("*.bed") for _ in open(f)) if r["code"] == 0 \
                else None
            peak_rows.append([f"{args.samples} × {m:,}", "bedGraph", str(jobs),
                              f"{r['wall']:.1f}", mb(r["maxrss"]),
                              str(peaks) if peaks is not None else f"error: {r['error']}"])
            print(" | ".join(peak_rows[-1]), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = _table(args, base, rows_out)
    peaks = None if args.readers_only else _peaks_table(args, peak_rows)
    print(text if peaks is None else text + "\n" + peaks)
    if args.results:
        if peaks is None:  # keep the recorded 'penlearn peaks' runs
            old = results_file.RESULTS.read_text()
            start = old.find(SECTION + "\n")
            at = old.find(PEAKS_HEADING, start) if start >= 0 else -1
            end = old.find("\n## ", at)
            peaks = old[at:end if end >= 0 else len(old)] if at >= 0 else ""
        results_file.write_section(SECTION, text + "\n" + peaks, results_file.RESULTS)
    return 0


def _machine(args) -> str:
    return (f"`python benchmarks/genome_scale.py {' '.join(sys.argv[1:])}` on "
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
            f"{os.cpu_count()} CPUs shared with other sessions (load average at the end "
            f"{os.getloadavg()[0]:.1f}), Python {platform.python_version()}.")


def _table(args, base, rows_out) -> str:
    head = [
        SECTION, "",
        f"{_machine(args)} Each reader and `pandas.read_csv` ran {args.repeats} times, "
        "alternated, each run in a fresh child process; the table gives the medians (and "
        "the range of the per-pair time ratios); memory is the child's max RSS minus that "
        f"of a child that only imports the same modules ({mb(base['maxrss'])} MB).", "",
        "Reading (penlearn vs `pandas.read_csv` on the same file, for bigWig on the same "
        "rows as bedGraph.gz; 'arrays' is the memory of the columns returned). Each child "
        "reads the file twice: the first read ('penlearn (s)', 'pandas (s)', 'time ratio', "
        "and the memory, taken after it) is cold, the first numba use of the process "
        "(numba's one-time runtime load included); the second ('warm') is the same file "
        "again in the same process:", "",
        "| rows | file | penlearn (s) | pandas (s) | time ratio | ratio range "
        "| warm (s) | pandas warm (s) | warm ratio | warm range "
        "| penlearn MB | arrays MB | memory / arrays | pandas MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    return "\n".join(head + ["| " + " | ".join(r) + " |" for r in rows_out]) + "\n"


def _peaks_table(args, peak_rows) -> str:
    lines = [PEAKS_HEADING, "", f"{_machine(args)} One run each.", "",
             f"`penlearn peaks ... --penalty {args.penalty:g}` (wall time and max RSS "
             "of the command):", "",
             "| rows | input | jobs | wall (s) | max RSS MB | peaks |",
             "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in peak_rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
