"""``penlearn callpeak`` on a whole genome, against MACS3 in the same run: per phase.

One command (MACS3 optional: built as ``benchmarks/macs3.py`` says, in a venv of its own)::

    python benchmarks/callpeak_genome.py [--scale 0.1] [--kinds se-control pe-control]
        [--macs3 /path/macs3venv/bin/macs3] [--jobs N] [--cap-gb 4] [--write]

The data (:mod:`penlearn.datasets.chipseq_genome`, made once and cached in
``$PENLEARN_BENCH_CACHE``, else ``~/.cache/penlearn-bench``): hg19's chromosome sizes
(chr1–chr22, chrX; 3.04 Gb), each times ``--scale``; a treatment of 20 million 50 bp
single-end reads (19 M of uniform background, 50 per true peak on average at 20,000
planted peaks, 2,000 sticky regions of 4× extra coverage) and a control of as many
(background and sticky regions, no peaks); the paired-end variant has 10 million pairs
each. ``--scale 0.1``: a tenth of every chromosome, of the reads and of the peaks (the same
depth per base).

Each run is ``/usr/bin/time -v`` of ``penlearn callpeak -t T.bam [-c C.bam] -f BAM|BAMPE -g hs
-n x --outdir D`` (under ``prlimit --as`` of ``--cap-gb``), then the same ``macs3 callpeak``.
penlearn writes the wall and CPU seconds and the largest RSS of each phase (``read``: the
reads to compact arrays; ``fragment size``; ``pileup``: the run-length pileups;
``control model``: the control's PeakSeg models with their windows' penalties;
``background``: the genome-wide levels and each chromosome's background; ``features``:
the treatment's windows, features and penalties; ``solve``: the treatment's PeakSeg
solves; ``calls``: summits and peak columns; ``write``) to the file of its hidden
``--phase-times`` option; CPU is what matters here (the machine is shared).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from results_file import markdown_table, write_section  # noqa: E402

from penlearn.datasets.chipseq_genome import genome_design, write_genome_bam  # noqa: E402

READS = 20_000_000  # reads per sample at scale 1 (SE; PE: half as many pairs)
PER_PEAK = 50
STICKY_FOLD = 4.0
KINDS = ("se-control", "se", "pe-control", "pe")


def cache_dir() -> Path:
    """Where the BAM files are kept between runs (outside the repository)."""
    return Path(os.environ.get("PENLEARN_BENCH_CACHE")
                or Path.home() / ".cache" / "penlearn-bench")


def data(scale: float, paired: bool, report=print) -> tuple[Path, Path]:
    """(treatment, control) BAM files of ``scale``, made once."""
    folder = cache_dir() / f"callpeak_genome_s{scale:g}"
    folder.mkdir(parents=True, exist_ok=True)
    kind = "pe" if paired else "se"
    t, c = folder / f"treat_{kind}.bam", folder / f"control_{kind}.bam"
    design = genome_design(scale)
    n = int(READS * scale) // (2 if paired else 1)
    peak_reads = len(design.peaks) * PER_PEAK
    for path, bg, per_peak, seed in ((t, n - peak_reads, PER_PEAK, 1), (c, n, 0, 2)):
        if not (path.exists() and Path(str(path) + ".bai").exists()):
            report(f"writing {path.name} ({n:,} {'pairs' if paired else 'reads'})")
            write_genome_bam(path, design, background=bg, per_peak=per_peak,
                             sticky_fold=STICKY_FOLD, paired=paired, seed=seed)
    return t, c


def timed(argv: list[str], cwd: Path, cap_gb: float | None) -> dict:
    """``argv`` under ``/usr/bin/time -v`` (and ``prlimit --as``): wall, CPU, max RSS (MB)."""
    cap = ["prlimit", f"--as={int(cap_gb * 2**30)}", "--"] if cap_gb else []
    out = subprocess.run(["/usr/bin/time", "-v", *cap, *argv], cwd=cwd, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    err = out.stderr

    def field(name):
        m = re.search(rf"{re.escape(name)}: (.+)", err)
        return m.group(1).strip() if m else "0"
    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    failed = None
    if out.returncode:
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("\t")]
        failed = (lines[-1] if lines else f"exit {out.returncode}")[-200:]
    return {"wall": wall,
            "cpu": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "rss": int(field("Maximum resident set size (kbytes)")) / 1024, "failed": failed}


def run_kind(kind: str, scale: float, macs3: str | None, jobs: int, cap_gb: float,
             work: Path) -> tuple[list[dict], dict]:
    """The per-phase rows of penlearn, and the totals of both tools."""
    paired = kind.startswith("pe")
    t, c = data(scale, paired)
    fmt = "BAMPE" if paired else "BAM"
    common = ["-t", str(t), *(["-c", str(c)] if kind.endswith("control") else []),
              "-f", fmt, "-g", "hs", "-n", "x"]
    phases = work / f"{kind}_phases.json"
    pl = timed([sys.executable, "-m", "penlearn.cli", "callpeak", *common, "--outdir",
                str(work / f"pl_{kind}"), "--phase-times", str(phases),
                *(["--jobs", str(jobs)] if jobs > 1 else [])], work, cap_gb)
    totals = {"penlearn": pl}
    if macs3:
        totals["MACS3"] = timed([macs3, "callpeak", *common, "--outdir",
                                 str(work / f"macs_{kind}")], work, None)
    rows = []
    if phases.exists():
        for name, v in json.loads(phases.read_text()).items():
            rows.append({"run": kind, "phase": name, "wall s": v["wall"], "CPU s": v["cpu"],
                         "max RSS MB": v["rss_mb"]})
    for tool, v in totals.items():
        peaks = work / (("pl_" if tool == "penlearn" else "macs_") + kind) / \
            "x_peaks.narrowPeak"
        n = sum(1 for _ in open(peaks)) if peaks.exists() else 0
        v["peaks"] = n
    return rows, totals


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=["se-control"])
    p.add_argument("--macs3", default=None, help="the macs3 command (none: penlearn only)")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--cap-gb", type=float, default=4.0,
                   help="penlearn's address-space cap (prlimit --as), GiB")
    p.add_argument("--keep", default=None, metavar="DIR",
                   help="keep the output folders in DIR (default: a temporary folder)")
    p.add_argument("--write", action="store_true", help="record in RESULTS.md")
    args = p.parse_args(argv)
    all_rows, total_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        for kind in args.kinds:
            rows, totals = run_kind(kind, args.scale, args.macs3, args.jobs, args.cap_gb,
                                    work)
            all_rows += rows
            m = totals.get("MACS3")
            for tool, v in totals.items():
                r = {"run": kind, "tool": tool, "wall s": v["wall"], "CPU s": v["cpu"],
                     "max RSS MB": v["rss"], "peaks": v["peaks"]}
                if m and not m["failed"] and not v["failed"]:
                    r["CPU / MACS3"] = v["cpu"] / m["cpu"]
                    r["RSS / MACS3"] = v["rss"] / m["rss"]
                if v["failed"]:
                    r["failed"] = v["failed"]
                total_rows.append(r)
            if not args.keep:
                shutil.rmtree(work / f"pl_{kind}", ignore_errors=True)
                shutil.rmtree(work / f"macs_{kind}", ignore_errors=True)
    phase_md, total_md = markdown_table(all_rows) if all_rows else [], markdown_table(
        total_rows)
    print("\n".join(phase_md))
    print()
    print("\n".join(total_md))
    if args.write:
        cmd = "python benchmarks/callpeak_genome.py" + (
            f" --scale {args.scale:g}" if args.scale != 1 else "") + (
            " --kinds " + " ".join(args.kinds)) + (
            " --macs3 MACS3" if args.macs3 else "") + (
            f" --jobs {args.jobs}" if args.jobs > 1 else "")
        text = "\n".join([
            "## callpeak_genome", "",
            f"2-core shared VM, {datetime.date.today()}; `{cmd}` (hg19 sizes × {args.scale:g}, "
            f"{int(READS * args.scale):,} reads per sample; CPU = user + system).", "",
            "Per phase (penlearn's `--phase-times`; RSS: the largest so far at the phase's "
            "end):", "", *phase_md, "", "Totals (`/usr/bin/time -v`):", "", *total_md, ""])
        write_section("## callpeak_genome", text)


if __name__ == "__main__":
    main()
