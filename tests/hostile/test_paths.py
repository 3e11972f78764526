"""Hostile paths: outputs that would replace or sit among the inputs (with ``--force`` too),
``--out .``, ``--out ""``, symlinks, and sample ids that are not file names. Every case is
refused with one clear line and leaves the inputs byte for byte unchanged, or (sample ids)
writes only inside ``--out``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from _hostile import ERROR, Error, check_cases, coverage_table, run_cli, uci_folder

import penlearn as pl

#: BED names of the sample ids that hold whitespace, quotes or '%' (percent-encoded)
NAMES = {"a%2Fb": "a%252Fb", "a b": "a%20b", 'q"x': "q%22x"}


def _chip_folder(root: Path) -> Path:
    """12 samples of one window, a peak of 4x the background (1..1000), labelled."""
    import numpy as np
    import pandas as pd

    d = root / "chip"
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


def _outputs_among_inputs(tmp: Path):
    """``--out`` (with ``--force``) naming a file inside an input folder, or the folder the
    command runs in."""
    d, model = uci_folder()
    chip = _chip_folder(tmp)
    for i, (what, cmd, folder, victim) in enumerate([
        ("predict M DATA --out DATA/inputs.csv.gz", ["predict", model], d, "inputs.csv.gz"),
        ("predict M DATA --out DATA/evaluation.csv.gz", ["predict", model], d,
         "evaluation.csv.gz"),
        ("learn CHIP --out CHIP/labels.csv", ["learn"], chip, "labels.csv"),
        ("learn CHIP --out CHIP/coverage.csv", ["learn"], chip, "coverage.csv"),
        ("learn DATA --out DATA/evaluation.csv.gz", ["learn"], d, "evaluation.csv.gz"),
        ("report DATA --out DATA/evaluation.csv.gz", ["report"], d, "evaluation.csv.gz"),
    ]):
        f = tmp / "copies" / f"case{i}"
        shutil.copytree(folder, f)  # a fresh copy: a case may destroy it
        extra = ["--no-cache"] if cmd == ["learn"] and folder == chip else []
        extra += ["--model", model] if cmd == ["report"] else []
        yield (f"{what} --force",
               lambda a=[*cmd, f, "--out", f / victim, *extra]: run_cli([*a, "--force", "-q"]),
               Error("inside the input folder", inputs=[f]))
    bw = tmp / "bigwigs"
    bw.mkdir()
    (bw / "a.bedGraph").write_text("not coverage\n")  # reading it first would fail
    yield ("peaks bigwigs/ --out bigwigs/out (refused before reading)",
           lambda: run_cli(["peaks", bw, "--penalty", 1, "--out", bw / "out", "-q"]),
           Error("inside the input folder", inputs=[bw]))
    cov2 = tmp / "two.csv"
    coverage_table(("a", "b")).to_csv(cov2, index=False)
    work = tmp / "work"
    work.mkdir()

    def out_dot():
        old = os.getcwd()
        os.chdir(work)
        try:
            return run_cli(["peaks", cov2, "--penalty", 1, "--out", ".", "--force", "-q"])
        finally:
            os.chdir(old)
    yield "peaks --out . --force (EBUSY)", out_dot, Error("current folder")


def _sample_ids_and_out_paths(tmp: Path):
    """Sample ids that are not file names; --out naming an input, a link to one, its folder,
    nothing; a --means file beside an input."""
    d = tmp / "cli"
    d.mkdir()
    ids = {"dotdot": "../../victim", "absolute": str(tmp / "abs"), "syntax": "sub/../A",
           "dot": ".", "hidden": ".x", "percent": "a%2Fb", "space": "a b", "unicode": "échantillon",
           "quote": 'q"x'}
    for name, sid in ids.items():
        cov = d / f"{name}.csv"
        coverage_table((sid, "A")).to_csv(cov, index=False)
        out = d / f"out_{name}" / "p"

        def command(cov=cov, out=out):
            before = set(tmp.rglob("*"))
            run_cli(["peaks", cov, "--penalty", 5, "--out", out, "-q"])
            return sorted(set(tmp.rglob("*")) - before)

        def check(new, out=out, sid=sid):
            inside = [p for p in new if p.is_file()]
            names = {pl.read_bed(p)["name"].iloc[0] for p in inside}
            return (all(out in p.parents or p in out.parents or p == out for p in new)
                    and len(inside) == 2 and names == {NAMES.get(sid, sid), "A"}
                    and not any(p.name.startswith(".") for p in inside))

        yield f"peaks sample id {name}", command, check
    collide = d / "collide.csv"
    coverage_table(("A", "a")).to_csv(collide, index=False)
    yield ("peaks ids differing in case",
           lambda: run_cli(["peaks", collide, "--penalty", 5, "--out", d / "oc", "-q"]), ERROR)
    one = d / "one.bedGraph"
    coverage_table().drop(columns="sample_id").to_csv(one, sep="\t", header=False, index=False)
    os.symlink(one, d / "link.bedGraph")
    for name, out in {"itself": one, "symlink": d / "link.bedGraph", "empty": "",
                      "its folder": d}.items():
        yield (f"peaks --out {name} --force",
               (lambda o=out: run_cli(["peaks", one, "--penalty", 5, "--out", o, "--force", "-q"])),
               ERROR)
    yield ("peaks --track with a quote",
           lambda: run_cli(["peaks", one, "--penalty", 5, "--out", d / "q.bed", "--track", 'a"b',
                         "-q"]), ERROR)
    yield ("peaks --out naming the --model",
           lambda: run_cli(["peaks", one, "--model", one, "--out", one, "--force", "-q"]), ERROR)
    folder = d / "folder"
    folder.mkdir()
    coverage_table(("s1", "s2")).to_csv(folder / "coverage.csv", index=False)
    (folder / "labels.txt").write_text("chr1:16-25 peakStart s1 s3\n")
    yield ("learn FOLDER, browser label naming no sample",
           lambda: run_cli(["learn", folder, "--out", d / "m.json", "-q"]), ERROR)
    yield ("peaks --means bedGraph beside an input name",
           lambda: run_cli(["peaks", one, "--penalty", 5, "--out", d / "one.bed", "--means",
                         "bedGraph", "--force", "-q"]), ERROR)


@pytest.mark.slow  # segment + learn of a small folder, then 8 commands in-process
def test_outputs_among_the_inputs_are_refused(tmp_path):
    check_cases(_outputs_among_inputs(tmp_path), at_least=8)


def test_sample_ids_name_files_only_inside_out_and_bad_outs_are_refused(tmp_path):
    check_cases(_sample_ids_and_out_paths(tmp_path), at_least=18)
