"""``penlearn callpeak`` on a whole genome, against MACS3 in the same run: per phase.

One command (MACS3 optional: built as ``benchmarks/macs3.py`` says, in a venv of its own)::

    python benchmarks/callpeak_genome.py [--scale 0.1] [--kinds se-control pe-control]
        [--macs3 /path/macs3venv/bin/macs3] [--jobs N] [--cap-gb 4] [--write]
        [--sim suite|plain] [--wobble-sd 0.15] [--penlearn-arg=--log-penalty=X ...]
        [--macs3-arg=-B ...]

The data (:mod:`penlearn.datasets.chipseq_genome`, made once and cached in
``$PENLEARN_BENCH_CACHE``, else ``~/.cache/penlearn-bench``; the folder's name carries
the simulation's version and parameters). ``--sim suite`` (the default): the truth is
known and scored (issue 52) — :func:`~penlearn.datasets.chipseq_genome.genome_suite`,
hg19's chromosome sizes × ``--scale`` with 20,000 narrow peaks of fold 2–80, 2,000 broad
domains of 5–30 kb, 2,000 sticky regions (in treatment and control) and a background
whose level wobbles by 500 kb bins (σ ``--wobble-sd`` of its log, 0.15; the same in
treatment and control), 10 % PCR duplicates, ~20 million single-end reads (10 million
pairs) per sample, all × ``--scale``. Each tool's calls are scored beside each other
(:func:`score_calls`): narrow peaks found (a call overlapping the centre ± 100 bp, by
fold bin), false calls (overlapping no planted feature), broad domains found / as one
call, and the calls over 100 kb and over 1 Mb that overlap no planted broad domain, with
the bases they cover; ``narrow found ≤ 100 kb``: found by a call of at most 100 kb (a
megabase call over a background holds peaks by chance).

``--sim plain`` (the data of issue 55's timings): hg19's chromosome sizes (chr1–chr22,
chrX; 3.04 Gb), each times ``--scale``; a treatment of 20 million 50 bp
single-end reads (19 M of uniform background, 50 per true peak on average at 20,000
planted peaks, 2,000 sticky regions of 4× extra coverage) and a control of as many
(background and sticky regions, no peaks); the paired-end variant has 10 million pairs
each. ``--scale 0.1``: a tenth of every chromosome, of the reads and of the peaks (the same
depth per base).

Each run is ``/usr/bin/time -v`` of ``penlearn callpeak -t T.bam [-c C.bam] -f BAM|BAMPE
-g G -n x --outdir D`` (``G``: ``hs`` at full size, else the simulated genome's length;
under ``prlimit --as`` of ``--cap-gb``), then the same ``macs3 callpeak``.
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

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from results_file import markdown_table, write_section  # noqa: E402
from sensitivity import _overlaps, score  # noqa: E402

from penlearn.datasets.chipseq_genome import (  # noqa: E402
    genome_design,
    genome_suite,
    write_genome_bam,
    write_genome_suite_bam,
)

READS = 20_000_000  # reads per sample at scale 1 (SE; PE: half as many pairs)
PER_PEAK = 50
STICKY_FOLD = 4.0
KINDS = ("se-control", "se", "pe-control", "pe")
#: bumped whenever the suite's simulation changes (the cache folder's name carries it)
SIM_VERSION = 1
FRAGMENT = 200
DUPLICATES = 0.1
HG19_BASES = 3_036_303_846


def cache_dir() -> Path:
    """Where the BAM files are kept between runs (outside the repository)."""
    return Path(os.environ.get("PENLEARN_BENCH_CACHE")
                or Path.home() / ".cache" / "penlearn-bench")


def suite_folder(scale: float, wobble_sd: float) -> Path:
    """The cache folder of the suite's files: its name carries every parameter."""
    return cache_dir() / (f"callpeak_genome-suite-v{SIM_VERSION}_s{scale:g}_w{wobble_sd:g}"
                          f"_r{READS}_d{DUPLICATES:g}")


def suite_data(scale: float, paired: bool, wobble_sd: float = 0.15, report=print
               ) -> tuple[Path, Path, pd.DataFrame]:
    """(treatment, control, truth) of the suite at ``scale``, made once: the background
    coverage makes ~``READS`` reads (pairs: half) per sample with the duplicates."""
    folder = suite_folder(scale, wobble_sd)
    folder.mkdir(parents=True, exist_ok=True)
    kind = "pe" if paired else "se"
    design = genome_suite(scale, wobble_sd=wobble_sd)
    coverage = (1 - DUPLICATES) * READS * FRAGMENT / HG19_BASES / (2 if paired else 1)
    out = []
    for sample, seed in (("treatment", 1), ("control", 2)):
        bam = folder / f"{sample}_{kind}.bam"
        truth = folder / f"{sample}_{kind}.truth.tsv"
        if not (bam.exists() and Path(str(bam) + ".bai").exists() and truth.exists()):
            report(f"writing {bam.name} (coverage {coverage:.3f})")
            t = write_genome_suite_bam(bam, design, coverage=coverage, sample=sample,
                                       paired=paired, seed=seed, fragment=FRAGMENT,
                                       duplicates=DUPLICATES)
            tmp = truth.with_suffix(".tmp")
            t.to_csv(tmp, sep="\t", index=False)
            os.replace(tmp, truth)
        out.append(bam)
    truth = pd.read_csv(folder / f"treatment_{kind}.truth.tsv", sep="\t",
                        keep_default_na=False)
    return out[0], out[1], truth


def plain_truth(scale: float) -> pd.DataFrame:
    """The truth of ``--sim plain``: its peaks (centre ± 250) and sticky regions."""
    d = genome_design(scale)
    p, st = d.peaks, d.sticky
    return pd.concat([
        pd.DataFrame({"kind": "narrow", "chrom": p["chrom"], "chromStart": p["centre"] - 250,
                      "chromEnd": p["centre"] + 250, "centre": p["centre"],
                      "fold_bin": ""}),
        pd.DataFrame({"kind": "sticky", "chrom": st["chrom"], "chromStart": st["chromStart"],
                      "chromEnd": st["chromEnd"], "centre": 0, "fold_bin": ""})],
        ignore_index=True)


def read_peaks(path: Path) -> pd.DataFrame:
    """The calls of a narrowPeak file (none when missing or empty)."""
    if path.exists() and path.stat().st_size:
        t = pd.read_csv(path, sep="\t", header=None)
        return pd.DataFrame({"chrom": t[0].astype(str), "chromStart": t[1],
                             "chromEnd": t[2], "pValue": t[7]})
    return pd.DataFrame({"chrom": pd.Series(dtype=str), "chromStart": pd.Series(dtype=int),
                         "chromEnd": pd.Series(dtype=int), "pValue": pd.Series(dtype=float)})


def score_calls(calls: pd.DataFrame, truth: pd.DataFrame, genome: int) -> dict:
    """:func:`sensitivity.score` of ``calls``, with ``false calls`` (overlapping no
    planted feature) and the calls over 100 kb / 1 Mb overlapping no broad domain
    (``> 100 kb empty``, ``Mb in them``).

    Examples
    --------
    >>> t = pd.DataFrame({"kind": ["narrow", "broad"], "chrom": "c", "chromStart": [0, 1000],
    ...                   "chromEnd": [500, 9000], "centre": [250, 5000],
    ...                   "fold_bin": ["2-5", ""]})
    >>> c = pd.DataFrame({"chrom": "c", "chromStart": [200, 20_000], "chromEnd": [300, 220_000],
    ...                   "pValue": 1.0})
    >>> r = score_calls(c, t, 10**6)
    >>> r["narrow found"], r["false calls"], r["> 100 kb empty"], r["> 1 Mb empty"]
    ('1/1', 1, 1, 0)
    """
    row = score(calls, truth, genome)
    width = (calls["chromEnd"] - calls["chromStart"]).to_numpy()
    # found by a call of at most 100 kb (a megabase call over a peak finds it by chance)
    row["narrow found ≤ 100 kb"] = score(calls[width <= 100_000], truth, genome)[
        "narrow found"]
    row.pop("_found_p", None)
    row.pop("median pValue (true)", None)
    row.pop("false /10 Mb")  # (rounded to 0.1 per 10 Mb: 30 calls at hg19's size)
    hit = np.zeros(len(calls), bool)
    for kind in ("narrow", "broad", "sticky"):
        t = truth[truth["kind"] == kind]
        for f in _overlaps(calls.reset_index(drop=True), t["chrom"], t["chromStart"],
                           t["chromEnd"]):
            hit[f] = True
    row["false calls"] = int((~hit).sum())
    br = truth[truth["kind"] == "broad"]
    holds = np.zeros(len(calls), bool)
    for c, g in calls.reset_index(drop=True).groupby("chrom", sort=False):
        b = br[br["chrom"] == c]
        bs, be = np.sort(b["chromStart"].to_numpy()), np.sort(b["chromEnd"].to_numpy())
        holds[g.index.to_numpy()] = (np.searchsorted(bs, g["chromEnd"].to_numpy())
                                     - np.searchsorted(be, g["chromStart"].to_numpy(),
                                                       side="right")) > 0
    for lim, name in ((100_000, "100 kb"), (1_000_000, "1 Mb")):
        big = (width > lim) & ~holds
        row[f"> {name} empty"] = int(big.sum())
        row[f"Mb in > {name} empty"] = round(float(width[big].sum()) / 1e6, 2)
    row["calls > 100 kb"] = int((width > 100_000).sum())
    return row


def data(scale: float, paired: bool, report=print) -> tuple[Path, Path]:
    """(treatment, control) BAM files of ``scale`` (``--sim plain``), made once."""
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
             work: Path, sim: str = "suite", wobble_sd: float = 0.15,
             extra: tuple = (), macs3_extra: tuple = ()) -> tuple[list[dict], dict]:
    """The per-phase rows of penlearn, and the totals of both tools (with their scores
    against the truth under ``"score"``)."""
    paired = kind.startswith("pe")
    if sim == "suite":
        t, c, truth = suite_data(scale, paired, wobble_sd)
    else:
        (t, c), truth = data(scale, paired), plain_truth(scale)
    fmt = "BAMPE" if paired else "BAM"
    # -g: hs at full size, else the simulated genome's size (MACS3's λ_bg needs it)
    gsize = "hs" if scale == 1 else str(int(HG19_BASES * scale))
    common = ["-t", str(t), *(["-c", str(c)] if kind.endswith("control") else []),
              "-f", fmt, "-g", gsize, "-n", "x"]
    phases = work / f"{kind}_phases.json"
    pl = timed([sys.executable, "-m", "penlearn.cli", "callpeak", *common, "--outdir",
                str(work / f"pl_{kind}"), "--phase-times", str(phases),
                *(["--jobs", str(jobs)] if jobs > 1 else []), *extra], work, cap_gb)
    totals = {"penlearn": pl}
    if macs3:
        totals["MACS3"] = timed([macs3, "callpeak", *common, "--outdir",
                                 str(work / f"macs_{kind}"), *macs3_extra], work, None)
    rows = []
    if phases.exists():
        for name, v in json.loads(phases.read_text()).items():
            rows.append({"run": kind, "phase": name, "wall s": v["wall"], "CPU s": v["cpu"],
                         "max RSS MB": v["rss_mb"]})
    for tool, v in totals.items():
        peaks = work / (("pl_" if tool == "penlearn" else "macs_") + kind) / \
            "x_peaks.narrowPeak"
        calls = read_peaks(peaks)
        v["peaks"] = len(calls)
        v["score"] = score_calls(calls, truth, int(HG19_BASES * scale))
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
    p.add_argument("--sim", choices=("suite", "plain"), default="suite",
                   help="suite: the truth planted and scored (default); plain: issue 55's "
                   "data")
    p.add_argument("--wobble-sd", type=float, default=0.15,
                   help="sd of the log background level per 500 kb bin (suite; 0: flat)")
    p.add_argument("--penlearn-arg", action="append", default=[], metavar="ARG",
                   help="an argument more for penlearn callpeak (repeat; e.g. "
                   "--penlearn-arg=-q --penlearn-arg=0.05)")
    p.add_argument("--macs3-arg", action="append", default=[], metavar="ARG",
                   help="an argument more for macs3 callpeak (repeat; e.g. --macs3-arg=-B "
                   "beside --penlearn-arg=-B: both write their bedGraphs)")
    p.add_argument("--json", default=None, help="write the score rows to this JSON file")
    p.add_argument("--label", default="", help="a name for penlearn's rows (the rule)")
    args = p.parse_args(argv)
    all_rows, total_rows, score_rows = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        for kind in args.kinds:
            rows, totals = run_kind(kind, args.scale, args.macs3, args.jobs, args.cap_gb,
                                    work, args.sim, args.wobble_sd, tuple(args.penlearn_arg),
                                    tuple(args.macs3_arg))
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
                name = f"penlearn {args.label}".strip() if tool == "penlearn" else tool
                score_rows.append({"run": kind, "tool": name, "CPU s": v["cpu"],
                                   **v["score"]})
            if not args.keep:
                shutil.rmtree(work / f"pl_{kind}", ignore_errors=True)
                shutil.rmtree(work / f"macs_{kind}", ignore_errors=True)
    phase_md, total_md = markdown_table(all_rows) if all_rows else [], markdown_table(
        total_rows)
    print("\n".join(phase_md))
    print()
    print("\n".join(total_md))
    score_md = markdown_table(score_rows)
    print()
    print("\n".join(score_md))
    if args.json:
        Path(args.json).write_text(json.dumps(score_rows, indent=1, default=str))
    if args.write:
        cmd = "python benchmarks/callpeak_genome.py" + (
            f" --scale {args.scale:g}" if args.scale != 1 else "") + (
            " --kinds " + " ".join(args.kinds)) + (
            " --macs3 MACS3" if args.macs3 else "") + (
            f" --jobs {args.jobs}" if args.jobs > 1 else "") + "".join(
            f" --penlearn-arg={a}" for a in args.penlearn_arg) + "".join(
            f" --macs3-arg={a}" for a in args.macs3_arg)
        text = "\n".join([
            "## callpeak_genome", "",
            f"2-core shared VM, {datetime.date.today()}; `{cmd}` (hg19 sizes × {args.scale:g}, "
            f"{int(READS * args.scale):,} reads per sample; CPU = user + system).", "",
            "Per phase (penlearn's `--phase-times`; RSS: the largest so far at the phase's "
            "end):", "", *phase_md, "", "Totals (`/usr/bin/time -v`):", "", *total_md, "",
            "Scores against the planted truth:", "", *score_md, ""])
        write_section("## callpeak_genome", text)


if __name__ == "__main__":
    main()
