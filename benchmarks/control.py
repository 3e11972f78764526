"""Control samples: penlearn without and with a control, and MACS3 ``callpeak -t -c``, on
simulated reads.

One command (MACS3 optional: built as ``benchmarks/macs3.py`` says, in a venv of its own)::

    python benchmarks/control.py [--macs3 /path/macs3venv/bin/macs3] [--write]

The simulation (:mod:`penlearn.datasets.chipseq_reads`): a 10 Mb genome (chr1 6 Mb, chr2
4 Mb) with 200 true peaks (binding sites: fragments centred on the site, sd 30 bp; in the
treatment only) and 120 *sticky* regions (1-5 kb of 5× the background coverage, in the
treatment **and** the control: amplified or open chromatin), at three depths (background
fragments 50 000 / 100 000 / 200 000 per sample, 20 / 40 / 80 fragments per true peak
on average; the control has the same background and sticky regions, no peaks), as
single-end (``-f BAM``, 50 bp reads of 200 bp fragments) and paired-end (``-f BAMPE``)
BAM files.

Methods, each as a command timed by ``/usr/bin/time`` (wall, CPU = user + system, max
RSS):

* ``penlearn callpeak -t T.bam -f FMT`` (no control; the shipped zero-label penalty);
* ``penlearn callpeak -t T.bam -c C.bam -f FMT`` (the control as the model's background:
  ``--control-rule background``, the default) and ``--control-rule filter``;
* ``macs3 callpeak -t T.bam -c C.bam -f FMT -g 1e7`` (its defaults but the genome size,
  which is the simulated genome's).

Scores: true peaks found (a peak holding the planted centre), sticky regions called (a
peak overlapping one), other peaks (neither), and of the true peaks found, the share whose
summit (narrowPeak column 10) is within 50 bp of the planted centre.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from results_file import markdown_table, write_section  # noqa: E402

from penlearn.datasets.chipseq_reads import plant_regions, write_reads_bam  # noqa: E402

CHROMS = {"chr1": 6_000_000, "chr2": 4_000_000}
N_PEAKS, N_STICKY = 200, 120
DEPTHS = ((50_000, 20), (100_000, 40), (200_000, 80))  # background fragments, per peak
STICKY_FOLD = 4.0  # extra coverage: 5x the background in all


def timed(argv: list[str], cwd: Path) -> dict:
    """Run ``argv`` under ``/usr/bin/time``: wall and CPU seconds, max RSS (MB)."""
    fmt = "%e %U %S %M"
    out = subprocess.run(["/usr/bin/time", "-f", fmt, *argv], cwd=cwd, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    if out.returncode:
        raise RuntimeError(f"{' '.join(argv[:3])} failed: {out.stderr[-1500:]}")
    wall, user, sys_, rss = out.stderr.strip().splitlines()[-1].split()
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "rss": int(rss) / 1024}


def score(peaks: pd.DataFrame, design) -> dict:
    """True peaks found, sticky regions called, other peaks, summits within 50 bp."""
    found = near = 0
    hit = pd.Series(False, index=peaks.index)
    for c, x in design.peaks.itertuples(index=False):
        m = (peaks[0] == c) & (peaks[1] <= x) & (peaks[2] > x)
        if m.any():
            found += 1
            hit |= m
            summit = peaks.loc[m, 1] + peaks.loc[m, 9]
            near += bool((summit - x).abs().min() <= 50)
    sticky = 0
    for c, s, e in design.sticky.itertuples(index=False):
        m = (peaks[0] == c) & (peaks[1] < e) & (peaks[2] > s)
        sticky += bool(m.any())
        hit |= m
    return {"true found": found, "sticky called": sticky, "other peaks": int((~hit).sum()),
            "summit <= 50 bp (%)": round(100 * near / found, 1) if found else float("nan")}


def read_narrowpeak(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame(columns=range(10))
    return pd.read_csv(path, sep="\t", header=None)


def methods(macs3: str | None, fmt: str, t: Path, c: Path) -> dict:
    penlearn = [sys.executable, "-m", "penlearn.cli", "callpeak", "-t", str(t), "-f", fmt,
                "--quiet"]
    out = {"penlearn, no control": penlearn,
           "penlearn -c (background)": penlearn + ["-c", str(c)],
           "penlearn -c (filter)": penlearn + ["-c", str(c), "--control-rule", "filter"]}
    if macs3:
        out["MACS3 -c (defaults)"] = [macs3, "callpeak", "-t", str(t), "-c", str(c), "-f",
                                      fmt, "-g", "1e7"]
    return out


def run(work: Path, macs3: str | None) -> list[dict]:
    design = plant_regions(CHROMS, N_PEAKS, N_STICKY, seed=46)
    rows = []
    for depth, (background, per_peak) in enumerate(DEPTHS, 1):
        for fmt in ("BAM", "BAMPE"):
            paired = fmt == "BAMPE"
            t, c = work / f"t{depth}{fmt}.bam", work / f"c{depth}{fmt}.bam"
            write_reads_bam(t, design, background=background, per_peak=per_peak,
                            sticky_fold=STICKY_FOLD, paired=paired, seed=depth)
            write_reads_bam(c, design, background=background, sticky_fold=STICKY_FOLD,
                            paired=paired, seed=100 + depth)
            for name, argv in methods(macs3, fmt, t, c).items():
                d = work / f"{depth}{fmt}{len(rows)}"
                d.mkdir()
                argv = argv + ["-n", "x", "--outdir", str(d)]
                m = timed(argv, work)
                peaks = read_narrowpeak(d / "x_peaks.narrowPeak")
                rows.append({"depth (bg / per peak)": f"{background:,} / {per_peak}",
                             "reads": fmt, "method": name, "peaks": len(peaks),
                             **score(peaks, design), "wall s": m["wall"],
                             "CPU s": m["cpu"], "max RSS MB": round(m["rss"], 1)})
                print(rows[-1], flush=True)
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--macs3", default=shutil.which("macs3"),
                    help="the macs3 command (default: one on the path; none: MACS3 left out)")
    ap.add_argument("--write", action="store_true", help="write the control section of "
                    "benchmarks/RESULTS.md")
    args = ap.parse_args(argv)
    t0 = time.time()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        rows = run(Path(tmp), args.macs3)
    lines = markdown_table(rows)
    print("\n".join(lines))
    if args.write:
        version = "not run" if not args.macs3 else subprocess.run(
            [args.macs3, "--version"], capture_output=True, text=True).stdout.strip()
        head = [
            "## control", "",
            f"`python benchmarks/control.py --macs3 MACS3 --write` on {time.strftime('%Y-%m-%d')}, "
            f"{platform.machine()} Linux, {os.cpu_count()} cores shared with other jobs "
            f"(load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the "
            f"end: wall seconds are inflated, CPU seconds are the figure to compare); "
            f"{time.time() - t0:.0f} s in all; MACS3: {version}.", "",
            f"Simulated genome {sum(CHROMS.values()) / 1e6:g} Mb, {N_PEAKS} true peaks "
            f"(treatment only), {N_STICKY} sticky regions (1-5 kb at {STICKY_FOLD + 1:g}x the "
            "background, in treatment and control); see the module docstring.", ""]
        write_section("## control", "\n".join(head + lines))


if __name__ == "__main__":
    main()
