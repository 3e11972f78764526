"""Hostile inputs to the commands ``errors``, ``hub``, ``joint`` and resumed ``peaks`` runs,
and to ``--chrom-sizes`` / ``--format narrowPeak``: bad peak files, labels and groups, outputs
among the inputs, odd sample ids, tampered resume parts. Each gives the result of a clean
run or one clear line, and no input changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import (
    ERROR,
    Error,
    bounded_cli,
    check_cases,
    coverage_table,
    joint_folders,
    run_cli,
    uci_folder,
)

import penlearn as pl


def error(call, *needles, inputs=()):
    """(call, want) of a case that must fail with one line naming ``needles``."""
    return call, Error(*needles, inputs=inputs)


def result(call, check):
    """(call, want) of a case whose result passes ``check`` (which returns (ok, why))."""
    return call, lambda got: check(got)[0]


def _triples(cases):
    for name, (call, want) in cases:
        yield name, call, want


def _bed(path: Path, rows) -> Path:
    path.write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
    return path


def _joint_cases(d: Path):
    root = joint_folders(d)
    cov, peaks = root / "cov", root / "peaks"

    def joint(*extra, out=None):
        return run_cli(["joint", cov, "--peaks", peaks, "--out", out or root / "out", *extra,
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
    coverage_table().drop(columns="sample_id").to_csv(one, sep="\t", header=False, index=False)
    yield ("joint on one sample",
           error(lambda: run_cli(["joint", one, "--peaks", peaks, "--penalty", 1, "--out",
                              root / "o1", "-q"])))
    lacking = root / "peaks_lacking"
    shutil.copytree(peaks, lacking)
    next(lacking.glob("*.bed")).unlink()
    yield ("joint: a sample without its peak file",
           error(lambda: run_cli(["joint", cov, "--peaks", lacking, "--penalty", 1, "--out",
                              root / "o2", "-q"])))
    groups = root / "groups.csv"
    groups.write_text("sample,cell\na,x\n")
    yield "joint --groups without sample_id, group", error(lambda: joint(
        "--penalty", 1, "--groups", groups, out=root / "o3"))
    yield ("joint --groups /dev/zero", (lambda: bounded_cli(
        ["joint", cov, "--peaks", peaks, "--penalty", 1, "--groups", "/dev/zero", "--out",
         root / "o4"], d), ERROR))
    labels = root / "labels.csv"
    labels.write_text("sample_id,chrom,chromStart,chromEnd,annotation\n"
                      "zz,chr1,100,160,peaks\n")
    yield "joint --labels of a sample not in the coverage", error(lambda: joint(
        "--labels", labels, out=root / "o5"))
    model = uci_folder()[1]
    yield "joint --model a single-sample model", error(lambda: joint(
        "--model", model, out=root / "o6"))
    odd = root / "odd"
    odd.mkdir()
    table = pd.concat([coverage_table(("x/1", "y 2"), counts=(2, 2, 30, 28, 2, 2)),
                       coverage_table(("z",))], ignore_index=True)
    table.to_csv(odd / "cov.csv", index=False)

    def odd_ids():
        run_cli(["peaks", odd / "cov.csv", "--penalty", 5, "--out", odd / "peaks", "-q"])
        run_cli(["joint", odd / "cov.csv", "--peaks", odd / "peaks", "--penalty", 5, "--out",
             odd / "j", "-q"])
        return pl.read_bed(odd / "j" / "joint_peaks.bed")
    yield "joint: sample ids with '/' and ' '", result(odd_ids, lambda b: (
        len(b) == 1 and b["name"].iloc[0] == "3/3", b.to_string()))
    two = root / "twochrom"
    two.mkdir()
    mixed = coverage_table(("a", "b"))
    mixed.loc[mixed["sample_id"] == "b", "chrom"] = "chr2"
    mixed.to_csv(two / "cov.csv", index=False)

    def two_chroms():
        run_cli(["peaks", two / "cov.csv", "--penalty", 5, "--out", two / "peaks", "-q"])
        run_cli(["joint", two / "cov.csv", "--peaks", two / "peaks", "--penalty", 5,
                 "--out", two / "j", "-q"])
        return pl.read_bed(two / "j" / "joint_peaks.bed")
    # a sample without rows on a window's chromosome is zeros there (as bedtools genomecov
    # omits zero runs): each window has its one covered sample up, never both
    yield "joint: samples on different chromosomes", result(two_chroms, lambda b: (
        len(b) >= 1 and set(b["name"]) == {"1/2"}, b.to_string()))
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
    coverage_table(("a", "b", "c")).to_csv(cov, index=False)
    fresh = root / "fresh"
    run_cli(["peaks", cov, "--penalty", 2, "--out", fresh, "--no-resume", "-q"])
    want = {p.name: p.read_bytes() for p in fresh.iterdir()}

    def again(out, *extra):
        run_cli(["peaks", cov, "--penalty", 2, "--out", out, *extra, "-q"])
        return {p.name: p.read_bytes() for p in out.iterdir()}
    out = root / "r1"
    again(out)
    parts = out.with_name(out.name + ".penlearn-parts")
    yield "peaks resumed: same output", result(lambda: again(out, "--force"),
                                               lambda r: (r == want, str(sorted(r))))
    table = coverage_table(("a", "b", "c"))
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
    coverage_table(("a", "b", "c"), counts=(1, 30, 2, 28, 2, 1)).to_csv(other, index=False)

    def changed():
        run_cli(["peaks", other, "--penalty", 2, "--out", out, "--force", "-q"])
        fresh2 = root / "fresh2"
        run_cli(["peaks", other, "--penalty", 2, "--out", fresh2, "--no-resume", "-q"])
        return ({p.name: p.read_bytes() for p in out.iterdir()},
                {p.name: p.read_bytes() for p in fresh2.iterdir()})
    yield "peaks resumed after the coverage changed", result(changed, lambda r: (
        r[0] == r[1], "resumed == fresh"))
    victim = root / "x.penlearn-parts"
    victim.mkdir()
    coverage_table(("a", "b")).to_csv(victim / "coverage.csv", index=False)
    yield ("peaks --no-resume where OUT.penlearn-parts is the coverage folder",
           error(lambda: run_cli(["peaks", victim, "--penalty", 2, "--out", root / "x",
                              "--no-resume", "-q"]), inputs=[victim]))
    link = root / "z.penlearn-parts"
    link.symlink_to(victim)
    yield ("peaks --no-resume where OUT.penlearn-parts links to the coverage folder",
           error(lambda: run_cli(["peaks", victim, "--penalty", 2, "--out", root / "z",
                              "--no-resume", "-q"]), inputs=[victim]))
    blocker = root / "y.penlearn-parts"
    blocker.write_text("a file where the parts folder goes")
    yield ("peaks: OUT.penlearn-parts is a file",
           error(lambda: run_cli(["peaks", cov, "--penalty", 2, "--out", root / "y", "-q"])))


def _errors_cases(d: Path):
    labels = d / "labels.csv"
    pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 300], "chromEnd": [50, 200, 400],
                  "annotation": ["noPeaks", "peaks", "peakStart"]}).to_csv(labels, index=False)
    peaks = _bed(d / "p.bed", [("chr1", 10, 20), ("chr1", 120, 150)])
    want = pl.peak_label_errors(pl.read_bed(peaks), pl.read_peak_labels(labels)).label_errors

    def errors_table():
        run_cli(["errors", peaks, labels, "--out", d / "errors.csv", "-q"])
        return pd.read_csv(d / "errors.csv")
    yield ("errors: FP/FN equal peak_label_errors",
           result(errors_table, lambda t: (t[["fp", "fn"]].to_numpy().tolist()
                                           == want[["fp", "fn"]].to_numpy().tolist(),
                                           str(t[["fp", "fn"]].to_numpy().tolist()))))
    empty = _bed(d / "empty.bed", [])

    def no_peaks():
        run_cli(["errors", empty, labels, "--out", d / "e0.csv", "-q"])
        return pd.read_csv(d / "e0.csv")
    yield ("errors: an empty peaks file", result(no_peaks, lambda t: (
        t["fp"].tolist() == [0, 0, 0] and t["fn"].tolist() == [0, 1, 1], str(t.values))))
    for name, rows in {"end < start": [("chr1", 20, 10)],
                       "text coordinate": [("chr1", "x", 10)],
                       "overlapping peaks": [("chr1", 10, 30), ("chr1", 20, 40)],
                       "2 fields": [("chr1", 10)]}.items():
        f = _bed(d / f"bad_{len(name)}_{name[:3]}.bed", rows)
        yield f"errors: peaks {name}", error(lambda f=f: run_cli(["errors", f, labels, "-q"]))
    yield ("errors --out the peaks file --force",
           error(lambda: run_cli(["errors", peaks, labels, "--out", peaks, "--force", "-q"]),
                 "is the input", inputs=[d]))
    folder = d / "peakdir"
    folder.mkdir()
    _bed(folder / "a.bed", [("chr1", 10, 20)])
    yield ("errors --out inside the peaks folder --force",
           error(lambda: run_cli(["errors", folder, labels, "--out", folder / "b.bed", "--force",
                              "-q"]), "inside the input folder", inputs=[folder]))
    empty_dir = d / "nopeakfiles"
    empty_dir.mkdir()
    yield ("errors: a folder without peak files",
           error(lambda: run_cli(["errors", empty_dir, labels, "-q"])))
    garbage = d / "garbage_labels.txt"
    garbage.write_text("this is not a label file\n")
    yield ("errors: labels in no known format",
           error(lambda: run_cli(["errors", peaks, garbage, "-q"])))


def _sizes_and_narrowpeak_cases(d: Path):
    cov = d / "cov.bedGraph"
    coverage_table().drop(columns="sample_id").to_csv(cov, sep="\t", header=False, index=False)
    for name, text in {"duplicate chrom": "chr1 100\nchr1 100\n", "size 0": "chr1 0\n",
                       "text size": "chr1 big\n", "too short": "chr1 30\n",
                       "empty": ""}.items():
        f = d / f"sizes_{name.replace(' ', '_')}.txt"
        f.write_text(text)
        yield (f"peaks --chrom-sizes {name}", error(lambda f=f: run_cli([
            "peaks", cov, "--penalty", 1, "--chrom-sizes", f, "--means", "bigWig", "--out",
            d / f"o_{f.stem}.bed", "-q"])))
    sizes = d / "ok.sizes"
    sizes.write_text("chr1 1000\n")
    yield ("peaks --out the --chrom-sizes file --force",
           error(lambda: run_cli(["peaks", cov, "--penalty", 1, "--chrom-sizes", sizes, "--out",
                              sizes, "--force", "-q"]), "is the input", inputs=[d]))
    yield ("peaks --format narrowPeak --bed3",
           error(lambda: run_cli(["peaks", cov, "--penalty", 1, "--format", "narrowPeak",
                              "--bed3", "--out", d / "x.narrowPeak", "-q"])))

    def narrow():
        run_cli(["peaks", cov, "--penalty", 1, "--format", "narrowPeak", "--out",
             d / "np.narrowPeak", "-q"])
        return pl.read_bed(d / "np.narrowPeak"), pl.read_bed(
            (run_cli(["peaks", cov, "--penalty", 1, "--out", d / "np.bed", "-q"]), d / "np.bed")[1])
    yield ("peaks narrowPeak = BED peaks", result(narrow, lambda r: (
        r[0][["chrom", "chromStart", "chromEnd"]].equals(r[1][["chrom", "chromStart",
                                                                 "chromEnd"]]),
        f"{len(r[0])} vs {len(r[1])} peaks")))
    bad_np = _bed(d / "bad.narrowPeak", [("chr1", 10, 20, "p", 0, ".", "x", -1, -1, 5)])
    labels = d / "labels.csv"
    yield ("errors: narrowPeak with text signalValue",
           result(lambda: (run_cli(["errors", bad_np, labels, "--out", d / "np.csv", "-q"]),
                           pd.read_csv(d / "np.csv"))[1],
                  lambda t: (len(t) == 3, "first three columns read")))


def _hub_cases(d: Path):
    covdir = d / "hubcov"
    covdir.mkdir()
    for s in ("a", "b"):
        coverage_table().drop(columns="sample_id").to_csv(covdir / f"{s}.bedGraph", sep="\t",
                                                    header=False, index=False)
    peaks = d / "hubpeaks"
    peaks.mkdir()
    for s in ("a", "b"):
        _bed(peaks / f"{s}.bed", [("chr1", 10, 30)])

    def hub(*extra, out=None):
        return run_cli(["hub", covdir, peaks, "--genome", "hg19", "--out",
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
           error(lambda: run_cli(["hub", covdir, other, "--genome", "hg19", "--out",
                              d / "hub_chr9", "-q"])))
    small = d / "small.sizes"
    small.write_text("chr1 20\n")
    yield ("hub --chrom-sizes shorter than the coverage",
           error(lambda: hub("--chrom-sizes", small)))


def test_errors_command(tmp_path):
    check_cases(_triples(_errors_cases(tmp_path)), at_least=10)


def test_chrom_sizes_and_narrowpeak(tmp_path):
    _errors_cases_inputs(tmp_path)
    check_cases(_triples(_sizes_and_narrowpeak_cases(tmp_path)), at_least=9)


def test_hub_command(tmp_path):
    pytest.importorskip("pybigtools")
    check_cases(_triples(_hub_cases(tmp_path)), at_least=7)


@pytest.mark.slow  # single-sample peaks, a UCI folder and ~20 joint runs in-process
def test_joint_command(tmp_path):
    check_cases(_triples(_joint_cases(tmp_path)), at_least=20)


@pytest.mark.slow  # ~10 peaks runs in-process
def test_resumed_peaks_runs(tmp_path):
    check_cases(_triples(_resume_cases(tmp_path)), at_least=7)


def _errors_cases_inputs(d: Path) -> None:
    """The labels.csv the narrowPeak case scores (written by the errors cases in a shared
    folder before)."""
    pd.DataFrame({"chrom": "chr1", "chromStart": [0, 100, 300], "chromEnd": [50, 200, 400],
                  "annotation": ["noPeaks", "peaks", "peakStart"]}).to_csv(d / "labels.csv",
                                                                           index=False)
