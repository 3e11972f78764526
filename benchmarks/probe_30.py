"""Hostile probe of issue 30: outputs among inputs, worker counts, the tuner beyond its
training signals, clear messages; and the surfaces that landed in the same session.

Each case feeds one hostile or edge-case input to the library or to a ``penlearn`` command
(in-process through ``main``) and is classed as:

* ``handled``      — the expected result, or one clear line (a one-line ``ValueError`` /
  ``TypeError``; a command's exit 1 with one line on stderr);
* ``data-loss``    — an input file changed or vanished;
* ``silent-wrong`` — no error where the input is wrong, or a wrong result;
* ``hang``         — a run past its time bound, or one that would start far more
  processes than tasks (not started: it is recorded, not run);
* ``unclear``      — another exception, a traceback, a message over several lines, or
  an exit code other than 1.

Run: ``python benchmarks/probe_30.py`` (prints the counts per class and every case not
``handled``). ``--group issue`` or ``--group new`` runs one half.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import gzip
import hashlib
import io
import os
import re
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import penlearn as pl
from penlearn.cli import main

CLASSES = ("handled", "data-loss", "silent-wrong", "hang", "unclear")
TMP = Path(tempfile.mkdtemp(prefix="probe-30-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


class Clear(Exception):
    """A clear one-line error (the expected outcome of a bad input)."""


# --------------------------------------------------------------------------- helpers


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def cli(argv) -> str:
    """Run a command in-process: its one stderr line on exit 1 raises ``Clear``; any other
    failure (exit 70, a traceback, several lines) raises ``RuntimeError``."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            code = exc.code
        except Exception as exc:  # noqa: BLE001 - escaped main: a traceback for the user
            raise RuntimeError(f"traceback: {type(exc).__name__}: {exc}") from exc
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    errors = [ln for ln in lines if ": error:" in ln]
    if code == 1 and len(errors) == 1 and not any("Traceback" in ln for ln in lines):
        raise Clear(errors[0])
    if code == 2 and len(lines) == 1:
        raise Clear(lines[0])
    if code != 0:
        raise RuntimeError(f"exit {code}: {err.getvalue()[-300:]}")
    return err.getvalue()


def error(fn, *needles, inputs=(), loss="data-loss"):
    """A case that must fail with one clear line (naming ``needles``) and leave the
    ``inputs`` folders unchanged."""
    def run():
        before = [snapshot(d) for d in inputs]
        try:
            with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                got = fn()
        except Clear as exc:
            verdict, text = "handled", str(exc)
        except (ValueError, TypeError) as exc:
            text = str(exc)
            verdict = "handled" if text and "\n" not in text.strip() else "unclear"
            text = f"{type(exc).__name__}: {text}"
        except Exception as exc:  # noqa: BLE001 - the probe records every failure
            verdict, text = "unclear", f"{type(exc).__name__}: {exc}"
        else:
            verdict, text = "silent-wrong", f"no error; got {str(got)[:100]!r}"
        if any(snapshot(d) != b for d, b in zip(inputs, before)):
            return loss, f"input changed ({text[:120]})"
        if verdict == "handled" and not all(n in text for n in needles):
            return "unclear", f"message lacks {needles}: {text[:160]}"
        return verdict, text[:200]
    return run


def result(fn, check, *, fail="silent-wrong"):
    """A case whose result must pass ``check`` (else ``fail``)."""
    def run():
        try:
            with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                got = fn()
        except Exception as exc:  # noqa: BLE001
            return "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
        try:
            ok, why = check(got)
        except Exception as exc:  # noqa: BLE001
            return fail, f"check failed: {type(exc).__name__}: {exc}"
        return ("handled", why) if ok else (fail, why)
    return run


# --------------------------------------------------------------------------- fixtures


@functools.lru_cache(maxsize=1)
def _uci() -> tuple[Path, Path]:
    """A small UCI folder (inputs and evaluation gzipped) and a model learned on it."""
    root = TMP / "uci"
    root.mkdir()
    data = pl.simulate(12, seed=5, n_points=(60, 120))
    data.sequences.to_csv(root / "seq.csv", index=False)
    data.labels.to_csv(root / "labels.csv", index=False)
    d = root / "data"
    cli(["segment", root / "seq.csv", root / "labels.csv", "--max-segments", 4, "--out", d,
         "-q"])
    for name in ("inputs.csv", "evaluation.csv"):
        raw = (d / name).read_bytes()
        (d / name).unlink()
        (d / f"{name}.gz").write_bytes(gzip.compress(raw))
    cli(["learn", d, "--out", root / "model.json", "--max-steps", 2, "-q"])
    return d, root / "model.json"


def _coverage(samples=("a",), counts=(1, 2, 30, 28, 2, 1)) -> pd.DataFrame:
    n = len(counts)
    return pd.DataFrame({
        "sample_id": [s for s in samples for _ in range(n)], "chrom": "chr1",
        "chromStart": list(range(0, 10 * n, 10)) * len(samples),
        "chromEnd": list(range(10, 10 * n + 10, 10)) * len(samples),
        "count": list(counts) * len(samples)})


def _chip_folder() -> Path:
    """12 samples of one window, a peak of 4x the background (1..1000), labelled."""
    d = TMP / "chip"
    d.mkdir()
    rng = np.random.default_rng(3)
    rows, labels = [], []
    for i in range(12):
        s, b = f"s{i:02d}", (1, 10, 100, 1000)[i % 4]
        mu = np.r_[np.full(15, b), np.full(10, 4 * b), np.full(15, b)]
        rows += [(s, "chr1", 10 * j, 10 * j + 10, int(c)) for j, c in enumerate(rng.poisson(mu))]
        labels += [(s, "chr1", 140, 160, "peakStart"), (s, "chr1", 240, 260, "peakEnd"),
                   (s, "chr1", 300, 380, "noPeaks")]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"]).to_csv(
        d / "coverage.csv", index=False)
    pd.DataFrame(labels, columns=["sample_id", "chrom", "chromStart", "chromEnd",
                                  "annotation"]).to_csv(d / "labels.csv", index=False)
    return d


def _copy(folder: Path, name: str) -> Path:
    """A fresh copy of an input folder for one case (a case may destroy it)."""
    out = TMP / "copies" / name
    shutil.copytree(folder, out)
    return out


def _train_signals():
    """8 signals, noise SD 0.5..3.5, a 3-SD step at 40, labelled around it and before."""
    rng = np.random.default_rng(0)
    sds = [0.5 + i % 4 for i in range(8)]
    signals = {i: np.r_[np.zeros(40), np.full(40 + 4 * i, 3 * sd)]
               + rng.normal(0, sd, 80 + 4 * i) for i, sd in enumerate(sds)}
    labels = pd.DataFrame({"sequence_id": np.repeat(list(signals), 2),
                           "start": [30, 0] * 8, "end": [50, 25] * 8,
                           "annotation": ["1breakpoint", "0breakpoints"] * 8})
    return signals, labels


# --------------------------------------------------------------------------- issue 30


def issue_cases():
    """rel30's share of the cases issue 30 lists (learn32 and predict32 hold the rest)."""
    d, model = _uci()
    chip = _chip_folder()
    for i, (what, cmd, folder, victim) in enumerate([
        ("predict M DATA --out DATA/inputs.csv.gz", ["predict", model], d, "inputs.csv.gz"),
        ("predict M DATA --out DATA/evaluation.csv.gz", ["predict", model], d,
         "evaluation.csv.gz"),
        ("learn CHIP --out CHIP/labels.csv", ["learn"], chip, "labels.csv"),
        ("learn CHIP --out CHIP/coverage.csv", ["learn"], chip, "coverage.csv"),
        ("learn DATA --out DATA/evaluation.csv.gz", ["learn"], d, "evaluation.csv.gz"),
        ("report DATA --out DATA/evaluation.csv.gz", ["report"], d, "evaluation.csv.gz"),
    ]):
        f = _copy(folder, f"case{i}")
        extra = ["--no-cache"] if cmd == ["learn"] and folder == chip else []
        extra += ["--model", model] if cmd == ["report"] else []
        yield (f"{what} --force", error(
            lambda a=[*cmd, f, "--out", f / victim, *extra]: cli([*a, "--force", "-q"]),
            "inside the input folder", inputs=[f]))
    bw = TMP / "bigwigs"
    bw.mkdir()
    (bw / "a.bedGraph").write_text("not coverage\n")  # reading it first would fail
    yield ("peaks bigwigs/ --out bigwigs/out (refused before reading)",
           error(lambda: cli(["peaks", bw, "--penalty", 1, "--out", bw / "out", "-q"]),
                 "inside the input folder", inputs=[bw]))
    cov2 = TMP / "two.csv"
    _coverage(("a", "b")).to_csv(cov2, index=False)
    work = TMP / "work"
    work.mkdir()

    def out_dot():
        old = os.getcwd()
        os.chdir(work)
        try:
            return cli(["peaks", cov2, "--penalty", 1, "--out", ".", "--force", "-q"])
        finally:
            os.chdir(old)
    yield "peaks --out . --force (EBUSY)", error(out_dot, "current folder")
    yield ("--jobs 4096 on 3 tasks", _jobs_case)

    # text in numeric columns through the CLI
    seq = pd.read_csv(TMP / "uci" / "seq.csv")
    seq["position"] = seq["position"].astype(object)
    seq.loc[3, "position"] = "x"
    seq.to_csv(TMP / "seq_text.csv", index=False)
    yield ("segment: text in 'position'",
           error(lambda: cli(["segment", TMP / "seq_text.csv", "--max-segments", 3, "--out",
                              TMP / "o_text", "-q"]), "position"))
    bad = TMP / "badfp"
    shutil.copytree(d, bad)
    ev = pd.read_csv(bad / "evaluation.csv.gz")
    ev["fp"] = ev["fp"].astype(object)
    ev.loc[2, "fp"] = "x"
    ev.to_csv(bad / "evaluation.csv.gz", index=False, compression="gzip")
    yield ("learn: text in 'fp'", error(lambda: cli(["learn", bad, "--out", TMP / "m_fp.json",
                                                     "-q"]), "fp"))
    out_txt = TMP / "badout"
    shutil.copytree(d, out_txt)
    out = pd.read_csv(out_txt / "outputs.csv")
    out["min.log.lambda"] = out["min.log.lambda"].astype(object)
    out.loc[1, "min.log.lambda"] = "x"
    out.to_csv(out_txt / "outputs.csv", index=False)
    yield ("learn (boosting): text in outputs.csv",
           error(lambda: cli(["learn", out_txt, "--out", TMP / "m_out.json", "-q"]),
                 "min_log_lambda"))
    uci_lab = TMP / "uci_labels"
    uci_lab.mkdir()
    shutil.copy(TMP / "uci" / "labels.csv", uci_lab / "labels.csv")
    shutil.copy(d / "inputs.csv.gz", uci_lab / "inputs.csv.gz")
    yield ("learn: UCI folder, changepoint labels.csv, no evaluation.csv",
           error(lambda: cli(["learn", uci_lab, "--out", TMP / "m_lab.json", "-q"]),
                 "penlearn segment"))
    nan_id = pd.DataFrame({"sequence_id": ["q0"] * 3 + [None] + ["q1"] * 3,
                           "position": [1, 2, 3, 4, 1, 2, 3], "value": np.arange(7.0)})
    yield ("segment_sequences: a missing sequence_id",
           error(lambda: pl.segment_sequences(nan_id, 2), "missing value"))
    yield from _tuner_cases()


def _jobs_case():
    """3 tasks at --jobs 4096: how many worker processes start?"""
    from concurrent.futures import ProcessPoolExecutor

    from penlearn.cli._workers import workers

    cov = _coverage(("a", "b", "c"))
    args = argparse.Namespace(jobs=4096, scheduler=None, oversubscribe=True)
    with workers(args) as pool:
        if isinstance(pool, ProcessPoolExecutor) and pool._max_workers > 64:
            return "hang", (f"not run: a pool of {pool._max_workers} processes for 3 tasks "
                            "(issue 30: > 60 s, ~2,000 processes, 6-9 GB)")
        t0 = time.perf_counter()
        got = pl.predict_peaks(cov, log_penalty=0.0, executor=pool)
        n = getattr(pool, "workers", None)
    ok = got.equals(pl.predict_peaks(cov, log_penalty=0.0)) and n is not None and n <= 3
    return ("handled" if ok else "hang"), f"{n} workers, {time.perf_counter() - t0:.1f} s"


def _tuner_cases():
    import ruptures as rpt

    from penlearn.tune import SupervisedPenalty

    signals, labels = _train_signals()
    step = np.r_[np.zeros(50), np.full(50, 3.0)] + np.random.default_rng(1).normal(0, 1, 100)

    def noisy():
        t = SupervisedPenalty(rpt.Pelt(model="l2"), choose=None).fit(signals, labels)
        return {c: t.predict({"x": step * c})["x"].tolist() for c in (1e-3, 1.0, 1e3)}
    yield ("SupervisedPenalty: signal 1000x noisier / quieter than training",
           result(noisy, lambda r: (all(v == [50] for v in r.values()), str(r))))
    yield ("SupervisedPenalty(cv_folds=2.5)",
           error(lambda: SupervisedPenalty(rpt.Pelt(model="l2"), cv_folds=2.5).fit(
               signals, labels), "cv_folds"))
    flat_sig = {**signals, "flat": np.ones(60)}
    flat_lab = pd.concat([labels, pd.DataFrame([("flat", 0, 30, "0breakpoints")],
                                               columns=labels.columns)], ignore_index=True)
    yield ("SupervisedPenalty: a constant labeled signal",
           result(lambda: SupervisedPenalty(rpt.Pelt(model="l2"), choose=None).fit(
               flat_sig, flat_lab).predict({"f": np.ones(50)})["f"].tolist(),
               lambda r: (r == [], str(r)), fail="unclear"))

    def nested():
        t = SupervisedPenalty(rpt.Pelt(model="l2")).set_params(detector__min_size=3,
                                                               detector__jump=1)
        return t.detector.min_size, t.detector.jump
    yield ("SupervisedPenalty.set_params(detector__min_size=3)",
           result(nested, lambda r: (r == (3, 1), str(r)), fail="unclear"))


# --------------------------------------------------------------------------- new surfaces


def new_cases():
    """The surfaces that landed on main in the same session: ``penlearn errors``,
    ``penlearn hub``, BAM input, narrowPeak output, ``--chrom-sizes`` (formats31), and
    joint peaks and resumed ``penlearn peaks`` runs when present."""
    d = TMP / "new"
    d.mkdir()
    yield from _errors_cases(d)
    yield from _sizes_and_narrowpeak_cases(d)
    yield from _bam_cases(d)
    yield from _hub_cases(d)
    yield from _device_cases(d)
    commands = _subcommands()
    if "joint" in commands:
        yield from _joint_cases(d)
    if "--no-resume" in commands.get("peaks", ""):
        yield from _resume_cases(d)


def _subcommands() -> dict:
    """Command name -> its help text (what has landed)."""
    from penlearn.cli import build_parser

    sub = build_parser()._subparsers._group_actions[0].choices
    return {name: p.format_help() for name, p in sub.items()}


def _joint_folders(d: Path):
    """Coverage of 3 samples (2 with a peak at 100-160), their single-sample peaks."""
    root = d / "joint"
    (root / "cov").mkdir(parents=True)
    rng = np.random.default_rng(7)
    for s, peak in (("a", True), ("b", True), ("c", False)):
        mu = np.r_[np.full(10, 2.0), np.full(6, 20.0 if peak else 2.0), np.full(14, 2.0)]
        rows = [("chr1", 10 * j, 10 * j + 10, int(c)) for j, c in enumerate(rng.poisson(mu))]
        pd.DataFrame(rows).to_csv(root / "cov" / f"{s}.bedGraph", sep="\t", header=False,
                                  index=False)
    cli(["peaks", root / "cov", "--penalty", 20, "--out", root / "peaks", "-q"])
    return root


def _joint_cases(d: Path):
    root = _joint_folders(d)
    cov, peaks = root / "cov", root / "peaks"

    def joint(*extra, out=None):
        return cli(["joint", cov, "--peaks", peaks, "--out", out or root / "out", *extra,
                    "-q"])

    def run_ok():
        joint("--penalty", 5, out=root / "ok")
        return pl.read_bed(root / "ok" / "joint_peaks.bed")
    yield "joint: two samples with a peak", result(run_ok, lambda b: (
        ((b["chromStart"] < 160) & (b["chromEnd"] > 100) & (b["name"] == "2/3")).sum() == 1,
        b.head(3).to_string()))
    for name, extra in {"--penalty -1": ["--penalty", -1], "--penalty nan": ["--penalty", "nan"],
                        "--widen inf": ["--penalty", 1, "--widen", "inf"],
                        "--widen -1": ["--penalty", 1, "--widen", -1],
                        "no penalty, model nor labels": [],
                        "--group-column absent": ["--penalty", 1, "--group-column", "cell"],
                        }.items():
        yield f"joint {name}", error(lambda e=extra: joint(*e, out=root / "o_bad"))
    yield ("joint --out inside the coverage folder --force",
           error(lambda: joint("--penalty", 1, "--force", out=cov / "joint"),
                 "inside the input folder", inputs=[cov, peaks]))
    yield ("joint --out the peaks folder --force",
           error(lambda: joint("--penalty", 1, "--force", out=peaks), "is the input",
                 inputs=[cov, peaks]))
    one = d / "one.bedGraph"
    _coverage().drop(columns="sample_id").to_csv(one, sep="\t", header=False, index=False)
    yield ("joint on one sample",
           error(lambda: cli(["joint", one, "--peaks", peaks, "--penalty", 1, "--out",
                              root / "o1", "-q"])))
    lacking = root / "peaks_lacking"
    shutil.copytree(peaks, lacking)
    next(lacking.glob("*.bed")).unlink()
    yield ("joint: a sample without its peak file",
           error(lambda: cli(["joint", cov, "--peaks", lacking, "--penalty", 1, "--out",
                              root / "o2", "-q"])))
    groups = root / "groups.csv"
    groups.write_text("sample,cell\na,x\n")
    yield "joint --groups without sample_id, group", error(lambda: joint(
        "--penalty", 1, "--groups", groups, out=root / "o3"))
    yield ("joint --groups /dev/zero", bounded(["joint", cov, "--peaks", peaks, "--penalty", 1,
                                                 "--groups", "/dev/zero", "--out",
                                                 root / "o4"], d))
    labels = root / "labels.csv"
    labels.write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                      "zz,chr1,100,160,peaks\n")
    yield "joint --labels of a sample not in the coverage", error(lambda: joint(
        "--labels", labels, out=root / "o5"))
    model = _uci()[1]
    yield "joint --model a single-sample model", error(lambda: joint(
        "--model", model, out=root / "o6"))
    odd = root / "odd"
    odd.mkdir()
    table = pd.concat([_coverage(("x/1", "y 2"), counts=(2, 2, 30, 28, 2, 2)),
                       _coverage(("z",))], ignore_index=True)
    table.to_csv(odd / "cov.csv", index=False)

    def odd_ids():
        cli(["peaks", odd / "cov.csv", "--penalty", 5, "--out", odd / "peaks", "-q"])
        cli(["joint", odd / "cov.csv", "--peaks", odd / "peaks", "--penalty", 5, "--out",
             odd / "j", "-q"])
        return pl.read_bed(odd / "j" / "joint_peaks.bed")
    yield "joint: sample ids with '/' and ' '", result(odd_ids, lambda b: (
        len(b) == 1 and b["name"].iloc[0] == "3/3", b.to_string()))
    two = root / "twochrom"
    two.mkdir()
    mixed = _coverage(("a", "b"))
    mixed.loc[mixed["sample_id"] == "b", "chrom"] = "chr2"
    mixed.to_csv(two / "cov.csv", index=False)

    def two_chroms():
        cli(["peaks", two / "cov.csv", "--penalty", 5, "--out", two / "peaks", "-q"])
        return cli(["joint", two / "cov.csv", "--peaks", two / "peaks", "--penalty", 5,
                    "--out", two / "j", "-q"])
    # every sample must cover every joint window (PeakSegJoint's model): a clear refusal
    yield "joint: samples on different chromosomes", error(two_chroms, "no coverage of")
    overlap = root / "overlap.csv"
    overlap.write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                       "a,chr1,100,160,peaks\na,chr1,150,200,noPeaks\n")
    yield "joint --labels overlapping", error(lambda: joint("--labels", overlap,
                                                             out=root / "o7"))
    window = pd.DataFrame({"sample_id": ["a", "a", "b"], "chromStart": [0, 10, 0],
                           "chromEnd": [10, 20, 20], "count": [1, np.nan, 2]})
    yield "joint_peak: a NaN count", error(lambda: pl.joint_peak(window))
    yield "joint_peak: a negative count", error(lambda: pl.joint_peak(
        window.fillna(-3)))
    yield "joint_peak: no rows", error(lambda: pl.joint_peak(window.iloc[:0]))

    def brute():
        rows = [("a", 0, 10, 1), ("a", 10, 20, 9), ("a", 20, 30, 1),
                ("b", 0, 10, 1), ("b", 10, 20, 9), ("b", 20, 30, 1)]
        fit = pl.joint_peak(pd.DataFrame(rows, columns=["sample_id", "chromStart",
                                                        "chromEnd", "count"]))
        return fit
    yield "joint_peak: the obvious common peak", result(brute, lambda f: (
        tuple(map(int, np.asarray(f.peak)[-1][:2])) == (10, 20) if hasattr(f, "peak")
        else False, str(getattr(f, "peak", f))))


def _resume_cases(d: Path):
    root = d / "resume"
    root.mkdir()
    cov = root / "cov.csv"
    _coverage(("a", "b", "c")).to_csv(cov, index=False)
    fresh = root / "fresh"
    cli(["peaks", cov, "--penalty", 2, "--out", fresh, "--no-resume", "-q"])
    want = {p.name: p.read_bytes() for p in fresh.iterdir()}

    def again(out, *extra):
        cli(["peaks", cov, "--penalty", 2, "--out", out, *extra, "-q"])
        return {p.name: p.read_bytes() for p in out.iterdir()}
    out = root / "r1"
    again(out)
    parts = out.with_name(out.name + ".penlearn-parts")
    yield "peaks resumed: same output", result(lambda: again(out, "--force"),
                                               lambda r: (r == want, str(sorted(r))))
    table = _coverage(("a", "b", "c"))
    folder = root / "lib-parts"
    first = pl.predict_peaks(table, log_penalty=1.0, parts=folder)

    def tampered(how):
        for f in sorted(folder.glob("*.npz")):
            f.write_bytes(b"garbage" if how == "garbage" else f.read_bytes()[:40])
        return pl.predict_peaks(table, log_penalty=1.0, parts=folder)
    for how in ("garbage", "truncated"):
        yield (f"predict_peaks(parts=) on {how} parts", result(
            lambda h=how: tampered(h), lambda r: (r.reset_index(drop=True).equals(
                first.reset_index(drop=True)), f"{len(r)} rows")))
    del parts
    other = root / "cov_other.csv"
    _coverage(("a", "b", "c"), counts=(1, 30, 2, 28, 2, 1)).to_csv(other, index=False)

    def changed():
        cli(["peaks", other, "--penalty", 2, "--out", out, "--force", "-q"])
        fresh2 = root / "fresh2"
        cli(["peaks", other, "--penalty", 2, "--out", fresh2, "--no-resume", "-q"])
        return ({p.name: p.read_bytes() for p in out.iterdir()},
                {p.name: p.read_bytes() for p in fresh2.iterdir()})
    yield "peaks resumed after the coverage changed", result(changed, lambda r: (
        r[0] == r[1], "resumed == fresh"))
    victim = root / "x.penlearn-parts"
    victim.mkdir()
    _coverage(("a", "b")).to_csv(victim / "coverage.csv", index=False)
    yield ("peaks --no-resume where OUT.penlearn-parts is the coverage folder",
           error(lambda: cli(["peaks", victim, "--penalty", 2, "--out", root / "x",
                              "--no-resume", "-q"]), inputs=[victim]))
    link = root / "z.penlearn-parts"
    link.symlink_to(victim)
    yield ("peaks --no-resume where OUT.penlearn-parts links to the coverage folder",
           error(lambda: cli(["peaks", victim, "--penalty", 2, "--out", root / "z",
                              "--no-resume", "-q"]), inputs=[victim]))
    blocker = root / "y.penlearn-parts"
    blocker.write_text("a file where the parts folder goes")
    yield ("peaks: OUT.penlearn-parts is a file",
           error(lambda: cli(["peaks", cov, "--penalty", 2, "--out", root / "y", "-q"])))


def bounded(argv, cwd: Path, seconds: float = 60):
    """A penlearn command in a child with 2 GB of address space: one clear line (exit 1)
    is handled; out of memory (an unbounded read) or past ``seconds`` is a hang."""
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    def run():
        try:
            r = subprocess.run([sys.executable, "-m", "penlearn.cli", *map(str, argv), "-q"],
                               capture_output=True, text=True, timeout=seconds, cwd=cwd,
                               preexec_fn=limit)
        except subprocess.TimeoutExpired:
            return "hang", f"still running after {seconds} s"
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        text = " ".join(lines)[-200:]
        if "memory" in text.lower():
            return "hang", f"unbounded read: {text}"
        if r.returncode == 1 and len(lines) == 1:
            return "handled", text
        return ("silent-wrong" if r.returncode == 0 else "unclear"), f"exit {r.returncode}: {text}"
    return run


def _device_cases(d: Path):
    """Devices and pipes given as data files (endless, or opened twice)."""
    fifo = d / "fifo"
    os.mkfifo(fifo)
    bed, labels = d / "p.bed", d / "labels.csv"
    cov = d / "cov.bedGraph"
    for dev in ("/dev/zero", "/dev/urandom", fifo):
        name = Path(dev).name
        for what, argv in [
            ("peaks COVERAGE", ["peaks", dev, "--penalty", 1, "--out", d / "dev.bed"]),
            ("peaks --chrom-sizes", ["peaks", cov, "--penalty", 1, "--chrom-sizes", dev,
                                     "--means", "bigWig", "--out", d / "dev2.bed"]),
            ("errors PEAKS", ["errors", dev, labels]),
            ("errors LABELS", ["errors", bed, dev]),
            ("segment SEQUENCES", ["segment", dev, "--max-segments", 2, "--out", d / "dseg"]),
        ]:
            yield f"{what} = {name}", bounded(argv, d)


def _bed(path: Path, rows) -> Path:
    path.write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
    return path


def _errors_cases(d: Path):
    labels = d / "labels.csv"
    pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 300], "chromEnd": [50, 200, 400],
                  "annotation": ["noPeaks", "peaks", "peakStart"]}).to_csv(labels, index=False)
    peaks = _bed(d / "p.bed", [("chr1", 10, 20), ("chr1", 120, 150)])
    want = pl.peak_label_errors(pl.read_bed(peaks), pl.read_peak_labels(labels)).label_errors

    def errors_table():
        cli(["errors", peaks, labels, "--out", d / "errors.csv", "-q"])
        return pd.read_csv(d / "errors.csv")
    yield ("errors: FP/FN equal peak_label_errors",
           result(errors_table, lambda t: (t[["fp", "fn"]].to_numpy().tolist()
                                           == want[["fp", "fn"]].to_numpy().tolist(),
                                           str(t[["fp", "fn"]].to_numpy().tolist()))))
    empty = _bed(d / "empty.bed", [])

    def no_peaks():
        cli(["errors", empty, labels, "--out", d / "e0.csv", "-q"])
        return pd.read_csv(d / "e0.csv")
    yield ("errors: an empty peaks file", result(no_peaks, lambda t: (
        t["fp"].tolist() == [0, 0, 0] and t["fn"].tolist() == [0, 1, 1], str(t.values))))
    for name, rows in {"end < start": [("chr1", 20, 10)],
                       "text coordinate": [("chr1", "x", 10)],
                       "overlapping peaks": [("chr1", 10, 30), ("chr1", 20, 40)],
                       "2 fields": [("chr1", 10)]}.items():
        f = _bed(d / f"bad_{len(name)}_{name[:3]}.bed", rows)
        yield f"errors: peaks {name}", error(lambda f=f: cli(["errors", f, labels, "-q"]))
    yield ("errors --out the peaks file --force",
           error(lambda: cli(["errors", peaks, labels, "--out", peaks, "--force", "-q"]),
                 "is the input", inputs=[d]))
    folder = d / "peakdir"
    folder.mkdir()
    _bed(folder / "a.bed", [("chr1", 10, 20)])
    yield ("errors --out inside the peaks folder --force",
           error(lambda: cli(["errors", folder, labels, "--out", folder / "b.bed", "--force",
                              "-q"]), "inside the input folder", inputs=[folder]))
    empty_dir = d / "nopeakfiles"
    empty_dir.mkdir()
    yield ("errors: a folder without peak files",
           error(lambda: cli(["errors", empty_dir, labels, "-q"])))
    garbage = d / "garbage_labels.txt"
    garbage.write_text("this is not a label file\n")
    yield ("errors: labels in no known format",
           error(lambda: cli(["errors", peaks, garbage, "-q"])))


def _sizes_and_narrowpeak_cases(d: Path):
    cov = d / "cov.bedGraph"
    _coverage().drop(columns="sample_id").to_csv(cov, sep="\t", header=False, index=False)
    for name, text in {"duplicate chrom": "chr1 100\nchr1 100\n", "size 0": "chr1 0\n",
                       "text size": "chr1 big\n", "too short": "chr1 30\n",
                       "empty": ""}.items():
        f = d / f"sizes_{name.replace(' ', '_')}.txt"
        f.write_text(text)
        yield (f"peaks --chrom-sizes {name}", error(lambda f=f: cli([
            "peaks", cov, "--penalty", 1, "--chrom-sizes", f, "--means", "bigWig", "--out",
            d / f"o_{f.stem}.bed", "-q"])))
    sizes = d / "ok.sizes"
    sizes.write_text("chr1 1000\n")
    yield ("peaks --out the --chrom-sizes file --force",
           error(lambda: cli(["peaks", cov, "--penalty", 1, "--chrom-sizes", sizes, "--out",
                              sizes, "--force", "-q"]), "is the input", inputs=[d]))
    yield ("peaks --format narrowPeak --bed3",
           error(lambda: cli(["peaks", cov, "--penalty", 1, "--format", "narrowPeak",
                              "--bed3", "--out", d / "x.narrowPeak", "-q"])))

    def narrow():
        cli(["peaks", cov, "--penalty", 1, "--format", "narrowPeak", "--out",
             d / "np.narrowPeak", "-q"])
        return pl.read_bed(d / "np.narrowPeak"), pl.read_bed(
            (cli(["peaks", cov, "--penalty", 1, "--out", d / "np.bed", "-q"]), d / "np.bed")[1])
    yield ("peaks narrowPeak = BED peaks", result(narrow, lambda r: (
        r[0][["chrom", "chromStart", "chromEnd"]].equals(r[1][["chrom", "chromStart",
                                                                 "chromEnd"]]),
        f"{len(r[0])} vs {len(r[1])} peaks")))
    bad_np = _bed(d / "bad.narrowPeak", [("chr1", 10, 20, "p", 0, ".", "x", -1, -1, 5)])
    labels = d / "labels.csv"
    yield ("errors: narrowPeak with text signalValue",
           result(lambda: (cli(["errors", bad_np, labels, "--out", d / "np.csv", "-q"]),
                           pd.read_csv(d / "np.csv"))[1],
                  lambda t: (len(t) == 3, "first three columns read")))


def _bam_cases(d: Path):
    try:
        import pysam
    except ImportError:
        return
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "chr1", "LN": 1000}]}
    bam = d / "reads.bam"
    with pysam.AlignmentFile(str(bam), "wb", header=header) as out:
        for i, (pos, cigar) in enumerate([(10, "20M"), (15, "5M10N5M"), (40, "10M2D3M")]):
            a = pysam.AlignedSegment()
            a.query_name, a.reference_id, a.reference_start = f"r{i}", 0, pos
            a.cigarstring = cigar
            a.query_sequence = "A" * sum(int(n) for n, _ in re.findall(r"(\d+)([MIS=X])",
                                                                        cigar))
            a.flag, a.mapping_quality = 0, 30
            out.write(a)
    want = [(10, 15, 1), (15, 20, 2), (20, 35, 1), (40, 50, 1), (52, 55, 1)]  # by hand

    def bam_rows(path=bam):
        t = pl.read_coverage(path)
        return [tuple(map(int, r)) for r in t[["chromStart", "chromEnd", "count"]].values]
    yield "read_coverage of a BAM (N and D not covered)", result(
        bam_rows, lambda r: (r == want, str(r)))
    disguised = d / "reads.bedGraph"
    shutil.copy(bam, disguised)
    yield "a BAM named .bedGraph", result(lambda: bam_rows(disguised),
                                          lambda r: (r == want, str(r)))
    for name, data in {"truncated": bam.read_bytes()[:60], "text": b"not a bam", "empty": b"",
                       "gzip not BAM": gzip.compress(b"hello")}.items():
        f = d / f"bad_{name.replace(' ', '_')}.bam"
        f.write_bytes(data)
        yield (f"read_coverage: {name} .bam", error(lambda f=f: pl.read_coverage(f)))
    unmapped = d / "unmapped.bam"
    with pysam.AlignmentFile(str(unmapped), "wb", header=header) as out:
        a = pysam.AlignedSegment()
        a.query_name, a.flag, a.query_sequence = "u", 4, "ACGT"
        out.write(a)
    yield "read_coverage: a BAM of unmapped reads", error(lambda: pl.read_coverage(unmapped))
    yield ("peaks on a BAM, --out the BAM --force",
           error(lambda: cli(["peaks", bam, "--penalty", 1, "--out", bam, "--force", "-q"]),
                 "is the input", inputs=[d]))


def _hub_cases(d: Path):
    try:
        import pybigtools  # noqa: F401
    except ImportError:
        return
    covdir = d / "hubcov"
    covdir.mkdir()
    for s in ("a", "b"):
        _coverage().drop(columns="sample_id").to_csv(covdir / f"{s}.bedGraph", sep="\t",
                                                    header=False, index=False)
    peaks = d / "hubpeaks"
    peaks.mkdir()
    for s in ("a", "b"):
        _bed(peaks / f"{s}.bed", [("chr1", 10, 30)])

    def hub(*extra, out=None):
        return cli(["hub", covdir, peaks, "--genome", "hg19", "--out",
                    out or d / f"hub{abs(hash(extra)) % 10**6}", *extra, "-q"])
    yield "hub: a hub folder", result(lambda: (hub(out=d / "hub_ok"), sorted(
        p.name for p in (d / "hub_ok").rglob("*") if p.is_file()))[1],
        lambda names: ("hub.txt" in names and any(n.endswith(".bw") for n in names),
                       str(names[:6])))
    yield ("hub --out inside the coverage folder --force",
           error(lambda: hub("--force", out=covdir / "hub"), "inside the input folder",
                 inputs=[covdir]))
    yield ("hub --out the peaks folder --force",
           error(lambda: hub("--force", out=peaks), "is the input", inputs=[peaks]))
    yield "hub --genome with a slash", error(lambda: hub("--genome", "hg/19"))
    yield "hub --name with spaces", error(lambda: hub("--name", "my hub"))
    other = d / "otherpeaks.bed"
    _bed(other, [("chr9", 10, 30)])
    yield ("hub: peaks on a chromosome the coverage lacks",
           error(lambda: cli(["hub", covdir, other, "--genome", "hg19", "--out",
                              d / "hub_chr9", "-q"])))
    small = d / "small.sizes"
    small.write_text("chr1 20\n")
    yield ("hub --chrom-sizes shorter than the coverage",
           error(lambda: hub("--chrom-sizes", small)))


# --------------------------------------------------------------------------- driver


def run(groups=("issue", "new")) -> pd.DataFrame:
    """One row per case: ``group, case, verdict, detail``."""
    rows = []
    for group in groups:
        for name, fn in (issue_cases() if group == "issue" else new_cases()):
            verdict, detail = fn()
            rows.append({"group": group, "case": name, "verdict": verdict,
                         "detail": " ".join(str(detail).split())})
    return pd.DataFrame(rows, columns=["group", "case", "verdict", "detail"])


def print_table(table: pd.DataFrame) -> None:
    """Counts per class and group, then every case not handled."""
    for group, part in table.groupby("group", sort=False):
        counts = part["verdict"].value_counts()
        print(f"{group}: {len(part)} cases: "
              + ", ".join(f"{counts.get(c, 0)} {c}" for c in CLASSES))
    bad = table[table["verdict"] != "handled"]
    if len(bad):
        print(bad.to_string(index=False, max_colwidth=100))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", choices=("issue", "new"), default=None)
    a = ap.parse_args()
    print_table(run((a.group,) if a.group else ("issue", "new")))
