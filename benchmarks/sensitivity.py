"""Sensitivity on simulated reads: ``penlearn callpeak`` and MACS3 side by side (issue 52).

One command (MACS3 optional: built as ``benchmarks/macs3.py`` says, in a venv of its own)::

    python benchmarks/sensitivity.py [--quick] [--macs3 PATH/macs3] [--write]

The simulation suite (:mod:`penlearn.datasets.chipseq_suite`): a genome of 4 Mb
(``--quick``: 2 Mb; ``--size long``: 16 Mb, chromosomes 4× longer at the same depth and
feature density) with narrow peaks of fold 2-80 (one per 5 / 33 / 100 kb: the densities
``dense``, ``default``, ``sparse``; 120 at the default density of the default size), broad
domains of 5-30 kb (one per 133 kb), sticky regions of 1-5 kb enriched in treatment and
control alike (one per 100 kb), a GC-like wobbling background (regions of 100 kb-1 Mb,
sd 0.15 of the log level, the same in treatment and control) and 10 % PCR duplicates, at
the depth ladder ``low`` / ``mid`` / ``high`` (background coverage 0.5 / 1.5 / 5 fragments
per base), single-end (``-f BAM``, 50 bp reads of ~200 bp fragments) and paired-end
(``-f BAMPE``). The control has the same depth, background and sticky regions, no peaks.
BAM files are generated once and cached outside the repository (``--cache``, default
``$PENLEARN_BENCH_CACHE`` or ``~/.cache/penlearn-bench``), with each file's truth table
(``*.truth.tsv``).

Each tool runs at its defaults on the same files, with and without the control:
``penlearn callpeak -t T.bam [-c C.bam] -f FMT`` and ``macs3 callpeak -t T.bam [-c C.bam]
-f FMT -g GENOME`` (``-g``: the simulated genome's size, which MACS3's genome-wide
background needs; single-end reads: ``--fix-bimodal`` for both tools, since MACS3 stops
where its fragment-size model finds too few paired peaks, as it does on this suite, and
then both extend reads to 200 bp), each timed by ``/usr/bin/time`` (CPU = user + system
seconds, max RSS).
``--broad`` gives both tools ``--broad``.

Scores (every call of the narrowPeak / broadPeak file):

* narrow peaks found: a call overlapping the planted centre ± 100 bp, by fold bin;
* false calls: calls overlapping no planted feature (narrow peak: centre ± 250 bp, broad
  domain, sticky region), per 10 Mb of genome;
* broad domains found (a call overlaps it) and found as one call (exactly one call
  overlaps it and it covers at least half of the domain);
* sticky regions called (a call overlaps it: expected without a control);
* the median pValue (narrowPeak column 8) of the calls that found a narrow peak, and
  ``(both)``: over the narrow peaks that every tool of the row's cell found (the pValue of
  the strongest call finding each), the figure to compare between tools.

``--json FILE`` writes every row (for scripts); ``--write`` records the tables in
``benchmarks/RESULTS.md`` ("sensitivity"). ``--null`` checks the q-values instead: null
pairs (treatment and control drawn alike), the calls at q <= 0.05 of each tool and of
penlearn at ``--penalty 50`` (thousands of candidates), and how many of them lie outside
every sticky region (false by construction; "sensitivity, null" in RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from results_file import markdown_table, write_section  # noqa: E402

from penlearn.datasets.chipseq_suite import (  # noqa: E402
    DENSITIES,
    DEPTHS,
    FOLD_BINS,
    SIZES,
    suite_design,
    write_suite_bam,
)

#: bumped whenever the simulation changes (the cache's folder names carry it)
SUITE_VERSION = 1
READS = {"SE": "BAM", "PE": "BAMPE"}
BINS = [f"{lo:g}-{hi:g}" for lo, hi in FOLD_BINS]


def cache_dir(given: str | None) -> Path:
    """Where the BAM files are kept (outside the repository)."""
    return Path(given or os.environ.get("PENLEARN_BENCH_CACHE")
                or Path.home() / ".cache" / "penlearn-bench")


WOBBLE_LENGTH = (100_000, 1_000_000)


def design_of(size: str, density: str, seed: int, wobble_sd: float = 0.15,
              wobble_length=WOBBLE_LENGTH):
    return suite_design(SIZES[size], narrow_every=DENSITIES[density], seed=seed,
                        wobble_sd=wobble_sd, wobble_length=tuple(wobble_length))


def sample_files(cache: Path, size: str, density: str, depth: str, reads: str,
                 seed: int, wobble_sd: float = 0.15, wobble_length=WOBBLE_LENGTH
                 ) -> tuple[Path, Path, pd.DataFrame]:
    """The treatment and control BAM files of one cell of the suite (made if missing) and
    the treatment's truth table."""
    wob = "" if wobble_sd == 0.15 else f"-wobble{wobble_sd:g}"
    if tuple(wobble_length) != WOBBLE_LENGTH:
        wob += f"-wl{wobble_length[0]}-{wobble_length[1]}"
    folder = cache / f"sensitivity-v{SUITE_VERSION}-{size}-{density}-seed{seed}{wob}"
    folder.mkdir(parents=True, exist_ok=True)
    design = design_of(size, density, seed, wobble_sd, wobble_length)
    k = list(DEPTHS).index(depth)
    out = []
    for sample, sseed in (("treatment", 1000 + 10 * k + seed), ("control", 2000 + 10 * k
                                                                 + seed)):
        bam = folder / f"{depth}-{reads}-{sample}.bam"
        truth = bam.with_suffix(".truth.tsv")
        if not (bam.exists() and truth.exists()):
            tmp = bam.with_suffix(f".tmp{os.getpid()}.bam")
            t = write_suite_bam(tmp, design, coverage=DEPTHS[depth], sample=sample,
                                paired=reads == "PE", seed=sseed)
            t.to_csv(truth.with_suffix(f".tmp{os.getpid()}"), sep="\t", index=False)
            os.replace(tmp, bam)
            os.replace(truth.with_suffix(f".tmp{os.getpid()}"), truth)
        out.append(bam)
    truth = pd.read_csv(out[0].with_suffix(".truth.tsv"), sep="\t",
                        keep_default_na=False)
    return out[0], out[1], truth


def timed(argv: list[str]) -> dict:
    """Run ``argv`` under ``/usr/bin/time``: wall and CPU seconds, max RSS (MB)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *argv], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    lines = out.stderr.strip().splitlines()
    wall, user, sys_, rss = lines[-1].split()
    failed = None
    if out.returncode:
        why = [ln for ln in lines if "WARNING" in ln or "rror" in ln]
        failed = (why[-1] if why else lines[-2] if len(lines) > 1 else "?")[-160:]
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "rss": int(rss) / 1024,
            "failed": failed}


def read_calls(folder: Path) -> pd.DataFrame:
    """The calls of ``x_peaks.narrowPeak`` (or ``.broadPeak``) in ``folder``."""
    for kind in ("narrowPeak", "broadPeak"):
        p = folder / f"x_peaks.{kind}"
        if p.exists() and p.stat().st_size:
            t = pd.read_csv(p, sep="\t", header=None)
            return pd.DataFrame({"chrom": t[0].astype(str), "chromStart": t[1],
                                 "chromEnd": t[2], "pValue": t[7]})
    return pd.DataFrame({"chrom": pd.Series(dtype=str), "chromStart": pd.Series(dtype=int),
                         "chromEnd": pd.Series(dtype=int), "pValue": pd.Series(dtype=float)})


def _overlaps(calls: pd.DataFrame, chrom, a, b) -> np.ndarray:
    """Per feature ``[a, b)``: the indices of the calls overlapping it."""
    out = []
    by = {c: g for c, g in calls.groupby("chrom", sort=False)}
    for c, s, e in zip(chrom, a, b):
        g = by.get(c)
        if g is None:
            out.append(np.empty(0, np.int64))
            continue
        m = (g["chromStart"].to_numpy() < e) & (g["chromEnd"].to_numpy() > s)
        out.append(g.index.to_numpy()[m])
    return out


def score(calls: pd.DataFrame, truth: pd.DataFrame, genome: int) -> dict:
    """The module's scores of ``calls`` against the planted ``truth``."""
    calls = calls.reset_index(drop=True)
    hit = np.zeros(len(calls), bool)
    row = {}
    nar = truth[truth["kind"] == "narrow"]
    found = _overlaps(calls, nar["chrom"], nar["centre"] - 100, nar["centre"] + 100)
    ok = np.array([len(f) > 0 for f in found])
    true_calls = np.unique(np.concatenate(found)) if found else np.empty(0, np.int64)
    row["narrow found"] = f"{ok.sum()}/{len(nar)}"
    for b in BINS:
        m = (nar["fold_bin"] == b).to_numpy()
        row[b] = f"{ok[m].sum()}/{m.sum()}"
    for kind in ("narrow", "broad", "sticky"):
        t = truth[truth["kind"] == kind]
        for f in _overlaps(calls, t["chrom"], t["chromStart"], t["chromEnd"]):
            hit[f] = True
    row["false /10 Mb"] = round(float((~hit).sum()) * 1e7 / genome, 1)
    br = truth[truth["kind"] == "broad"]
    ov = _overlaps(calls, br["chrom"], br["chromStart"], br["chromEnd"])
    one = 0
    for f, s, e in zip(ov, br["chromStart"], br["chromEnd"]):
        if len(f) == 1:
            c = calls.loc[f[0]]
            one += (min(c["chromEnd"], e) - max(c["chromStart"], s)) >= (e - s) / 2
    row["broad found"] = f"{sum(len(f) > 0 for f in ov)}/{len(br)}"
    row["broad as one"] = f"{one}/{len(br)}"
    st = truth[truth["kind"] == "sticky"]
    row["sticky called"] = f"{sum(len(f) > 0 for f in _overlaps(calls, st['chrom'], st['chromStart'], st['chromEnd']))}/{len(st)}"  # noqa: E501
    row["calls"] = len(calls)
    row["median pValue (true)"] = (round(float(calls.loc[true_calls, "pValue"].median()), 1)
                                   if len(true_calls) else float("nan"))
    # per narrow peak found: the largest pValue of the calls finding it
    row["_found_p"] = {int(i): float(calls.loc[f, "pValue"].max())
                       for i, f in zip(nar.index, found) if len(f)}
    return row


def _both_found(cell: list[dict]) -> None:
    """``median pValue (both)``: over the narrow peaks every tool of a cell found."""
    common = set.intersection(*(set(r["_found_p"]) for r in cell)) if cell else set()
    for r in cell:
        v = [r["_found_p"][i] for i in common]
        r["median pValue (both)"] = round(float(np.median(v)), 1) if v else float("nan")


def commands(tool: str, macs3: str | None, t: Path, c: Path | None, fmt: str, genome: int,
             broad: bool, extra: list[str]) -> list[str]:
    ctl = ["-c", str(c)] if c is not None else []
    more = (["--broad"] if broad else []) + (["--fix-bimodal"] if fmt == "BAM" else [])
    if tool == "penlearn":
        return [sys.executable, "-m", "penlearn.cli", "callpeak", "-t", str(t), *ctl, "-f",
                fmt, "--quiet", *more, *extra]
    return [macs3, "callpeak", "-t", str(t), *ctl, "-f", fmt, "-g", str(genome), *more]


def run(args) -> list[dict]:
    size = args.size
    genome = int(sum(SIZES[size].values()))
    cache = cache_dir(args.cache)
    tools = ["penlearn"] + (["MACS3"] if args.macs3 else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for reads in args.reads:
            for density in args.densities:
                for depth in args.depths:
                    t, c, truth = sample_files(cache, size, density, depth, reads, args.seed,
                                               args.wobble_sd, args.wobble_length)
                    for control in args.controls:
                        cell = []
                        for tool in tools:
                            out = Path(tmp) / f"{len(rows)}"
                            out.mkdir()
                            argv = commands(tool, args.macs3, t,
                                            c if control == "with" else None, READS[reads],
                                            genome, args.broad, args.penlearn_arg) + [
                                "-n", "x", "--outdir", str(out)]
                            m = timed(argv)
                            row = {"reads": reads, "density": density, "depth": depth,
                                   "control": control, "tool": tool + (" (failed)" if
                                                                       m["failed"] else "")}
                            row.update(score(read_calls(out), truth, genome))
                            row["median pValue (both)"] = float("nan")
                            row.update({"CPU s": round(m["cpu"], 1),
                                        "max RSS MB": round(m["rss"], 1)})
                            if m["failed"]:
                                row["failed"] = m["failed"]
                            rows.append(row)
                            cell.append(row)
                            shutil.rmtree(out)
                        _both_found(cell)
                        for row in cell:
                            row.pop("_found_p")
                            print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def null_files(cache: Path, size: str, depth: str, reads: str, seed: int):
    """A null pair (treatment and control drawn alike: background, wobble and sticky
    regions, no peak) and its truth table."""
    folder = cache / f"sensitivity-v{SUITE_VERSION}-{size}-null-seed{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    design = suite_design(SIZES[size], narrow_every=10**12, broad_every=10**12, seed=seed)
    k = list(DEPTHS).index(depth)
    out = []
    for sample, sseed in (("null", 3000 + 10 * k + seed), ("control", 4000 + 10 * k + seed)):
        bam = folder / f"{depth}-{reads}-{sample}.bam"
        if not bam.exists():
            tmp = bam.with_suffix(f".tmp{os.getpid()}.bam")
            write_suite_bam(tmp, design, coverage=DEPTHS[depth], sample=sample,
                            paired=reads == "PE", seed=sseed)
            os.replace(tmp, bam)
        out.append(bam)
    return out[0], out[1], design.features


def run_null(args) -> list[dict]:
    """``--null``: calls, calls at q <= 0.05 and those of them outside every sticky region
    (false by construction), per tool, on null pairs; penlearn at its default penalty and
    at ``--penalty 50`` (thousands of candidates: the q-values' calibration)."""
    size = args.size
    genome = int(sum(SIZES[size].values()))
    cache = cache_dir(args.cache)
    rows = []
    runs = [("penlearn", []), ("penlearn --penalty 50", ["--penalty", "50"])] + (
        [("MACS3", [])] if args.macs3 else [])
    with tempfile.TemporaryDirectory() as tmp:
        for reads in args.reads:
            for depth in args.depths:
                t, c, truth = null_files(cache, size, depth, reads, args.seed)
                for control in args.controls:
                    for name, extra in runs:
                        out = Path(tmp) / f"{len(rows)}"
                        out.mkdir()
                        tool = "MACS3" if name == "MACS3" else "penlearn"
                        argv = commands(tool, args.macs3, t, c if control == "with" else None,
                                        READS[reads], genome, args.broad,
                                        args.penlearn_arg + extra)
                        m = timed(argv + ["-n", "x", "--outdir", str(out)])
                        calls = read_calls(out)
                        qcol = out / "x_peaks.narrowPeak"
                        q = (pd.read_csv(qcol, sep="\t", header=None)[8].to_numpy()
                             if qcol.exists() and qcol.stat().st_size else np.empty(0))
                        sig = calls[q >= -np.log10(0.05)].reset_index(drop=True)
                        st = truth[truth["kind"] == "sticky"]
                        hit = np.zeros(len(sig), bool)
                        for f in _overlaps(sig, st["chrom"], st["chromStart"], st["chromEnd"]):
                            hit[f] = True
                        rows.append({"reads": reads, "depth": depth, "control": control,
                                     "tool": name + (" (failed)" if m["failed"] else ""),
                                     "calls": len(calls), "q <= 0.05": len(sig),
                                     "q <= 0.05 outside sticky": int((~hit).sum()),
                                     "CPU s": round(m["cpu"], 1)})
                        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
                        shutil.rmtree(out)
    return rows


def tables(rows: list[dict]) -> list[str]:
    """One markdown table per kind of reads."""
    lines = []
    for reads in dict.fromkeys(r["reads"] for r in rows):
        sub = [{k: v for k, v in r.items() if k not in ("reads", "failed")}
               for r in rows if r["reads"] == reads]
        lines += ["", f"{reads} ({READS[reads]}):", ""] + markdown_table(sub)
    fails = [f"- {r['reads']} {r['density']} {r['depth']} {r['control']} control, "
             f"{r['tool']}: {r['failed']}" for r in rows if "failed" in r]
    return lines + ([""] + fails if fails else [])


def _lengths(text: str) -> tuple[int, int]:
    try:
        lo, hi = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO,HI (bases), got {text!r}") from None
    if not 0 < lo <= hi:
        raise argparse.ArgumentTypeError(f"expected 0 < LO <= HI, got {text!r}")
    return lo, hi


def _list(choices):
    def parse(text: str) -> list[str]:
        out = [x.strip() for x in text.split(",") if x.strip()]
        bad = [x for x in out if x not in choices]
        if bad or not out:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of "
                                             f"{', '.join(choices)}; got {text!r}")
        return out
    return parse


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--macs3", default=None, metavar="PATH",
                    help="the macs3 command (none: MACS3 left out)")
    ap.add_argument("--quick", action="store_true", help="the 2 Mb genome (iteration): "
                    "--size quick")
    ap.add_argument("--size", choices=list(SIZES), default=None,
                    help="the genome: quick (2 Mb), default (4 Mb), long (16 Mb: chromosomes "
                    "4x longer, features as dense) (default: default)")
    ap.add_argument("--depths", type=_list(list(DEPTHS)), default=list(DEPTHS),
                    help="comma-separated, of low, mid, high (default: all)")
    ap.add_argument("--densities", type=_list(list(DENSITIES)), default=list(DENSITIES),
                    help="comma-separated, of dense, default, sparse (default: all)")
    ap.add_argument("--reads", type=_list(list(READS)), default=["PE", "SE"],
                    help="comma-separated, of PE, SE (default: PE,SE)")
    ap.add_argument("--controls", type=_list(["with", "without"]),
                    default=["with", "without"],
                    help="comma-separated, of with, without (default: both)")
    ap.add_argument("--broad", action="store_true", help="both tools with --broad")
    ap.add_argument("--null", action="store_true",
                    help="the q-values' calibration instead: null pairs (treatment and "
                    "control drawn alike), calls at q <= 0.05 (those outside sticky regions "
                    "are false)")
    ap.add_argument("--penlearn-arg", action="append", default=[], metavar="ARG",
                    help="an extra argument of penlearn callpeak (repeat for several; "
                    "e.g. --penlearn-arg=--penalty --penlearn-arg=1000)")
    ap.add_argument("--seed", type=int, default=52, help="the suite's seed (default: 52)")
    ap.add_argument("--wobble-sd", type=float, default=0.15, metavar="SD",
                    help="sd of the background's log level by region (default: 0.15)")
    ap.add_argument("--wobble-length", type=_lengths, default=WOBBLE_LENGTH, metavar="LO,HI",
                    help="lengths of the background's regions, log-uniform (default: "
                    "100000,1000000)")
    ap.add_argument("--cache", default=None, metavar="DIR", help="the BAM cache (default: "
                    "$PENLEARN_BENCH_CACHE or ~/.cache/penlearn-bench)")
    ap.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    ap.add_argument("--write", action="store_true",
                    help="record the tables in benchmarks/RESULTS.md (sensitivity; with "
                    "--broad: 'sensitivity, --broad')")
    args = ap.parse_args(argv)
    if args.quick and args.size not in (None, "quick"):
        ap.error("--quick is --size quick: give one of them")
    args.size = args.size or ("quick" if args.quick else "default")
    if args.macs3 and not shutil.which(args.macs3):
        ap.error(f"--macs3 {args.macs3}: not an executable")
    t0, load = time.time(), os.getloadavg()
    if args.null:
        rows = run_null(args)
        lines = markdown_table(rows)
        print("\n".join(lines))
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        if args.write:
            cmd = "python benchmarks/sensitivity.py --null" + (
                f" --size {args.size}" if args.size != "default" else "") + (
                " --macs3 MACS3" if args.macs3 else "")
            write_section("## sensitivity, null (issue 52: q-values' calibration)", "\n".join(
                ["## sensitivity, null (issue 52: q-values' calibration)", "",
                 f"`{cmd} --write` on {time.strftime('%Y-%m-%d')}, 2-core shared VM; "
                 f"suite seed {args.seed}. Treatment and control drawn alike (background, "
                 "wobble, sticky regions; no peak): every call at q <= 0.05 outside a "
                 "sticky region is false; without the control a sticky region is real "
                 "enrichment over the genome.", ""] + lines))
        return
    rows = run(args)
    lines = tables(rows)
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.write:
        version = "not run" if not args.macs3 else subprocess.run(
            [args.macs3, "--version"], capture_output=True, text=True).stdout.strip()
        cmd = "python benchmarks/sensitivity.py" + (
            f" --size {args.size}" if args.size != "default" else "") + (
            " --macs3 MACS3" if args.macs3 else "") + (" --broad" if args.broad else "") + (
            f" --wobble-sd {args.wobble_sd:g}" if args.wobble_sd != 0.15 else "") + (
            " --wobble-length {},{}".format(*args.wobble_length)
            if tuple(args.wobble_length) != WOBBLE_LENGTH else "")
        heading = ("## sensitivity, --broad (issue 52 item 5)" if args.broad
                   else "## sensitivity")  # --broad: its own section
        head = [heading, "",
                f"`{cmd} --write` on {time.strftime('%Y-%m-%d')}, 2-core shared VM "
                f"({platform.machine()} Linux; load average {load[0]:.1f} at the start, "
                f"{os.getloadavg()[0]:.1f} at the end: CPU seconds are the figure to "
                f"compare); {time.time() - t0:.0f} s in all; MACS3: {version}; suite seed "
                f"{args.seed}, genome {sum(SIZES[args.size].values()) / 1e6:g} Mb "  # noqa: E501
                "(see the script's docstring for the simulation and the scores)."]
        write_section(heading, "\n".join(head + lines))


if __name__ == "__main__":
    main()
