"""Control samples: penlearn without and with a control, and MACS3 ``callpeak -t -c``, on
simulated reads.

One command (MACS3 optional: built as ``benchmarks/macs3.py`` says, in a venv of its own)::

    python benchmarks/control.py [--macs3 /path/macs3venv/bin/macs3] [--write]

The simulation (:mod:`penlearn.datasets.chipseq_reads`): a 10 Mb genome (chr1 6 Mb, chr2
4 Mb) with 200 true peaks (binding sites: fragments centred on the site, sd 30 bp; in the
treatment only) and 120 *sticky* regions (1-5 kb of 5× the background coverage, in the
treatment **and** the control: amplified or open chromatin); 20 of the true peaks are at
the centre of a sticky region (a binding site on amplified DNA), 180 alone; at three
depths (background fragments 50 000 / 100 000 / 200 000 per sample, 20 / 40 / 80
fragments per true peak on average; the control has the same background and sticky
regions, no peaks), as single-end (``-f BAM``, 50 bp reads of 200 bp fragments) and
paired-end (``-f BAMPE``) BAM files.

Methods, each as a command timed by ``/usr/bin/time`` (wall, CPU = user + system, max
RSS):

* ``penlearn callpeak -t T.bam -f FMT`` (no control; the shipped zero-label penalty);
* ``penlearn callpeak -t T.bam -c C.bam -f FMT`` (the control as the model's background:
  ``--control-rule background``, the default) and ``--control-rule filter``;
* ``penlearn callpeak ... -c C.bam --model MODEL.json``: the penalty learned by ``penlearn
  learn --control-sheet`` from 38 labels of a training sample of the same depth and kind
  (another simulated 2 Mb genome: 10 true peaks labeled ``peakStart``, 8 sticky regions
  and 20 empty windows ``noPeaks``), as a user labels a few regions of their own data
  (with the narrow rule when its labels took it: ``penlearn.peaks.pretrained.
  learned_rule``), and the same with ``--no-filter`` (the model's own λ);
* ``macs3 callpeak -t T.bam -c C.bam -f FMT -g 1e7`` (its defaults but the genome size,
  which is the simulated genome's).

Scores: true peaks found (a peak holding the planted centre; of the 180 alone, and of the
20 inside sticky regions), sticky regions called (a peak overlapping one of the 100
without a true peak), other peaks (neither), and of the true peaks found, the share whose
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
N_PEAKS, N_STICKY, IN_STICKY = 200, 120, 20
DEPTHS = ((50_000, 20), (100_000, 40), (200_000, 80))  # background fragments, per peak
STICKY_FOLD = 4.0  # extra coverage: 5x the background in all
TRAIN_BASES = 2_000_000  # the labeled training sample's genome


def timed(argv: list[str], cwd: Path) -> dict:
    """Run ``argv`` under ``/usr/bin/time``: wall and CPU seconds, max RSS (MB)."""
    fmt = "%e %U %S %M"
    out = subprocess.run(["/usr/bin/time", "-f", fmt, *argv], cwd=cwd, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    lines = out.stderr.strip().splitlines()
    wall, user, sys_, rss = lines[-1].split()
    failed = None
    if out.returncode:  # MACS3 at its defaults can stop (too few paired peaks for its model)
        why = [ln for ln in lines if "WARNING" in ln or "error" in ln.lower()]
        failed = (why[0] if why else lines[-3])[-160:]
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "rss": int(rss) / 1024,
            "failed": failed}


def score(peaks: pd.DataFrame, design) -> dict:
    """True peaks found (alone / inside a sticky region), sticky regions without a true
    peak called, other peaks, summits within 50 bp of the planted centre."""
    found = {False: 0, True: 0}
    near = 0
    hit = pd.Series(False, index=peaks.index)
    for c, x, inside in design.peaks[["chrom", "centre", "in_sticky"]].itertuples(index=False):
        m = (peaks[0] == c) & (peaks[1] <= x) & (peaks[2] > x)
        if m.any():
            found[bool(inside)] += 1
            hit |= m
            summit = peaks.loc[m, 1] + peaks.loc[m, 9]
            near += bool((summit - x).abs().min() <= 50)
    sticky = 0
    for c, s, e, has in design.sticky.itertuples(index=False):
        m = (peaks[0] == c) & (peaks[1] < e) & (peaks[2] > s)
        sticky += bool(m.any()) and not has
        hit |= m
    n = found[False] + found[True]
    return {"true found": found[False], "in sticky found": found[True],
            "sticky called": sticky, "other peaks": int((~hit).sum()),
            "summit <= 50 bp (%)": round(100 * near / n, 1) if n else float("nan")}


def read_narrowpeak(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame(columns=range(10))
    return pd.read_csv(path, sep="\t", header=None)


def learned_model(work: Path, fmt: str, background: int, per_peak: int) -> Path:
    """``penlearn learn`` on a training sample of the same depth and kind (another 2 Mb
    genome and seed) with 38 labels, as a user would label a few regions of their own
    data: 10 true peaks (``peakStart``; 2 inside sticky regions), 8 sticky regions and 20
    empty windows (``noPeaks``), the control named (``--control-sheet``). Returns the
    model file."""
    from penlearn.peaks.formats.fragment_size import estimate_fragment_size
    from penlearn.peaks.formats.reads import fragment_coverage, read_reads

    folder = work / f"train{fmt}{background}"
    folder.mkdir()
    scale = sum(CHROMS.values()) / TRAIN_BASES
    design = plant_regions({"chr1": TRAIN_BASES}, 10, 10, in_sticky=2, seed=7)
    tables = []
    for sid, peaks in (("T", per_peak), ("C", 0)):
        bam = folder / f"{sid}.bam"
        write_reads_bam(bam, design, background=int(background / scale), per_peak=peaks,
                        sticky_fold=STICKY_FOLD, paired=fmt == "BAMPE",
                        seed=11 if peaks else 12)
        reads = read_reads(bam, fmt)
        if sid == "T":
            d = None if reads.paired else estimate_fragment_size(reads)
        tables.append(fragment_coverage(reads, d).assign(sample_id=sid))
        bam.unlink()
    pd.concat(tables)[["sample_id", "chrom", "chromStart", "chromEnd", "count"]].to_csv(
        folder / "coverage.csv", index=False)
    rows = [("T", "chr1", x - 300, x + 300, "peakStart") for _, x, _ in
            design.peaks.itertuples(index=False)]
    rows += [("T", "chr1", a, b, "noPeaks") for _, a, b, has in
             design.sticky.itertuples(index=False) if not has]
    rows += [("T", "chr1", x, x + 2000, "noPeaks") for x in
             range(TRAIN_BASES // 20 + 2000, TRAIN_BASES, TRAIN_BASES // 20)][:20]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                "annotation"]).to_csv(folder / "labels.csv", index=False)
    sheet = work / f"sheet{fmt}{background}.csv"
    sheet.write_text("sample_id,control\nT,C\n")
    model = work / f"model{fmt}{background}.json"
    subprocess.run([sys.executable, "-m", "penlearn.cli", "learn", str(folder), "--out",
                    str(model), "--control-sheet", str(sheet), "--no-cache", "--quiet"],
                   check=True, capture_output=True, env={**os.environ,
                                                         "PYTHONPATH": str(HERE.parent)})
    return model


def methods(macs3: str | None, fmt: str, t: Path, c: Path, model: Path) -> dict:
    penlearn = [sys.executable, "-m", "penlearn.cli", "callpeak", "-t", str(t), "-f", fmt,
                "--quiet"]
    out = {"penlearn, no control": penlearn,
           "penlearn -c (background)": penlearn + ["-c", str(c)],
           "penlearn -c (filter)": penlearn + ["-c", str(c), "--control-rule", "filter"],
           "penlearn -c, 38 labels (background)": penlearn + ["-c", str(c), "--model",
                                                             str(model)],
           # the learned model's own λ, without its narrow rule (issue 52 item 4)
           "penlearn -c, 38 labels, --no-filter": penlearn + ["-c", str(c), "--model",
                                                             str(model), "--no-filter"]}
    if LEARNED_RULE is not None:  # the narrow rule on the learned model (a measurement)
        import json

        data = json.loads(model.read_text())
        data["intercept"] += LEARNED_RULE
        low = model.with_name(f"{model.stem}-rule.json")
        low.write_text(json.dumps(data))
        out[f"penlearn -c, 38 labels, log λ {LEARNED_RULE:+g}, q <= 0.05"] = penlearn + [
            "-c", str(c), "--model", str(low), "-q", "0.05"]
    if macs3:
        out["MACS3 -c (defaults)"] = [macs3, "callpeak", "-t", str(t), "-c", str(c), "-f",
                                      fmt, "-g", "1e7"]
    return out


#: ``--learned-rule DELTA``: also the learned model's log λ + DELTA with -q 0.05 (the
#: shipped narrow rule applied to it; not what penlearn does with a learned model)
LEARNED_RULE: float | None = None


#: the runs that stopped with an error (their line), of the last :func:`run`
failures: list[str] = []


def run(work: Path, macs3: str | None) -> list[dict]:
    design = plant_regions(CHROMS, N_PEAKS, N_STICKY, in_sticky=IN_STICKY, seed=46)
    rows = []
    failures.clear()
    for depth, (background, per_peak) in enumerate(DEPTHS, 1):
        for fmt in ("BAM", "BAMPE"):
            paired = fmt == "BAMPE"
            t, c = work / f"t{depth}{fmt}.bam", work / f"c{depth}{fmt}.bam"
            write_reads_bam(t, design, background=background, per_peak=per_peak,
                            sticky_fold=STICKY_FOLD, paired=paired, seed=depth)
            write_reads_bam(c, design, background=background, sticky_fold=STICKY_FOLD,
                            paired=paired, seed=100 + depth)
            model = learned_model(work, fmt, background, per_peak)
            for name, argv in methods(macs3, fmt, t, c, model).items():
                d = work / f"{depth}{fmt}{len(rows)}"
                d.mkdir()
                argv = argv + ["-n", "x", "--outdir", str(d)]
                m = timed(argv, work)
                if m["failed"]:
                    failures.append(f"{name}, depth {depth}, {fmt}: exit != 0: {m['failed']}")
                    name += " (failed)"
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
    ap.add_argument("--learned-rule", type=float, default=None, metavar="DELTA",
                    help="also run the learned model at its log λ + DELTA with -q 0.05 "
                    "(the shipped narrow rule applied to it; issue 52 item 1)")
    ap.add_argument("--write", action="store_true", help="write the control section of "
                    "benchmarks/RESULTS.md")
    args = ap.parse_args(argv)
    global LEARNED_RULE
    LEARNED_RULE = args.learned_rule
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
            f"(treatment only; {IN_STICKY} of them inside a sticky region), {N_STICKY} "
            f"sticky regions (1-5 kb at {STICKY_FOLD + 1:g}x the background, in treatment "
            f"and control; {N_STICKY - IN_STICKY} without a true peak); see the module "
            "docstring.", ""]
        notes = [""] + [f"- failed: {f}" for f in failures]
        write_section("## control", "\n".join(head + lines + notes))


if __name__ == "__main__":
    main()
