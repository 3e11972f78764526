"""Issue 52 item 4, the labels' turf of a learned model's narrow rule: learn from a few
labels of real coverage (``penlearn learn``), predict held-out labels (``penlearn peaks
--model``), test label errors %.

The labeled raw coverages of ``../shared/data/chipseq_raw`` (the 17 UCI sets carry no
coverage, so no q-value):

* ``H3K36me3_TDH_other_chunk1`` (a broad mark; 8 samples, 6 labels each): each sample in
  turn is the one labeled sample (6 labels); test: the 42 labels of the other 7;
* ``Mono27ac`` (a narrow mark; one sample, 6 labels in one window): the labels in two
  folds of 3 (alternate labels by position); learn on one fold, test on the other.

Methods, each as a user runs it (commands in-process, their defaults): ``learned`` (the
model of ``penlearn learn``, in ``penlearn peaks --model M``: with its narrow rule when
its labels took it), ``learned, own λ`` (``--no-filter``), ``learned, rule forced`` (the
rule applied even where the labels refused it), ``constant`` (``learn --model
constant``: the best constant of the training labels, its own λ), ``shipped`` (no model:
the zero-label narrow rule) and ``shipped --broad``.

    python benchmarks/learned_rule.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from penlearn.cli.main import main as cli  # noqa: E402
from penlearn.peaks.formats.coverage import read_bedgraph  # noqa: E402
from penlearn.peaks.peakseg.labels import peak_label_errors  # noqa: E402


def _quiet(argv: list) -> None:
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        code = cli([str(a) for a in argv])
    if code:
        raise RuntimeError(f"penlearn {' '.join(map(str, argv))}: exit {code}")


def problems(raw: Path) -> list[tuple]:
    """(set, mark, split name, training coverage, training labels, test coverage, test
    labels) of every split."""
    out = []
    k36 = raw / "H3K36me3_TDH_other_chunk1"
    cov = pd.read_csv(k36 / "coverage.csv.gz").drop(columns="cell_type")
    lab = pd.read_csv(k36 / "labels.csv").drop(columns="cell_type")
    for sid in pd.unique(cov["sample_id"]):
        out.append(("H3K36me3_TDH_other_chunk1", "broad", f"train {sid}",
                    cov[cov["sample_id"] == sid], lab[lab["sample_id"] == sid],
                    cov[cov["sample_id"] != sid], lab[lab["sample_id"] != sid]))
    mono = raw / "Mono27ac"
    cov = read_bedgraph(mono / "coverage.bedGraph.gz").assign(sample_id="Mono1")
    lab = pd.read_csv(mono / "labels.csv").assign(sample_id="Mono1")
    lab = lab.sort_values("chromStart").reset_index(drop=True)
    for fold in (0, 1):
        train = lab.index % 2 == fold
        out.append(("Mono27ac", "narrow", f"fold {fold + 1}", cov, lab[train], cov,
                    lab[~train]))
    return out


def _errors(bed: Path, labels: pd.DataFrame) -> int:
    peaks = pd.DataFrame(columns=["chrom", "chromStart", "chromEnd"])
    files = sorted(bed.glob("*.bed")) if bed.is_dir() else [bed]
    parts = []
    for f in files:
        if f.stat().st_size:
            t = pd.read_csv(f, sep="\t", header=None)
            parts.append(pd.DataFrame({"sample_id": t[3].astype(str), "chrom": t[0],
                                       "chromStart": t[1], "chromEnd": t[2]}))
    peaks = pd.concat(parts, ignore_index=True) if parts else peaks.assign(sample_id=[])
    labels = labels.assign(sample_id=labels["sample_id"].astype(str))
    return peak_label_errors(peaks, labels).errors


def run_split(work: Path, train_cov, train_lab, test_cov, test_lab) -> dict:
    folder = work / "train"
    folder.mkdir()
    cols = ["sample_id", "chrom", "chromStart", "chromEnd"]
    train_cov[cols + ["count"]].to_csv(folder / "coverage.csv", index=False)
    train_lab[cols + ["annotation"]].to_csv(folder / "labels.csv", index=False)
    test = work / "test.csv"
    test_cov[cols + ["count"]].to_csv(test, index=False)
    learned, const = work / "learned.json", work / "constant.json"
    _quiet(["learn", folder, "--out", learned, "--no-cache", "--quiet"])
    _quiet(["learn", folder, "--out", const, "--model", "constant", "--no-cache", "--quiet"])
    data = json.loads(learned.read_text())
    rule = data.get("level", {}).get("narrow_rule", {})
    forced = work / "forced.json"
    data.setdefault("level", {})["narrow_rule"] = {**rule, "applied": "yes",
                                                   "shift": rule.get("shift", -2.5),
                                                   "qvalue": rule.get("qvalue", 0.05)}
    forced.write_text(json.dumps(data))
    runs = {"learned": ["--model", learned], "learned, own λ": ["--model", learned,
                                                                "--no-filter"],
            "learned, rule forced": ["--model", forced],
            "constant": ["--model", const, "--no-filter"], "shipped": [],
            "shipped --broad": ["--broad"]}
    out = {"rule": rule.get("applied", "-"), "shift": data["level"].get("shift")}
    for name, extra in runs.items():
        dest = work / f"{len(out)}/"
        _quiet(["peaks", test, "--out", dest, "--quiet", *extra])
        out[name] = _errors(dest, test_lab)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    args = ap.parse_args(argv)
    methods = ["learned", "learned, own λ", "learned, rule forced", "constant", "shipped",
               "shipped --broad"]
    print("| set | mark | split | rule (labels) | test labels | "
          + " | ".join(f"{m} (errors)" for m in methods) + " |")
    print("|---" * (5 + len(methods)) + "|")
    totals: dict = {}
    t0 = time.process_time()
    for name, mark, split, tc, tl, vc, vl in problems(Path(args.data_dir) / "chipseq_raw"):
        with tempfile.TemporaryDirectory() as tmp:
            r = run_split(Path(tmp), tc, tl, vc, vl)
        tot = totals.setdefault((name, mark), {"labels": 0, **{m: 0 for m in methods}})
        tot["labels"] += len(vl)
        for m in methods:
            tot[m] += r[m]
        print(f"| {name} | {mark} | {split} | {r['rule']} | {len(vl)} | "
              + " | ".join(str(r[m]) for m in methods) + " |", flush=True)
    print()
    print("| set | mark | test labels | " + " | ".join(f"{m} (%)" for m in methods) + " |")
    print("|---" * (3 + len(methods)) + "|")
    for (name, mark), tot in totals.items():
        n = tot["labels"]
        print(f"| {name} | {mark} | {n} | "
              + " | ".join(f"{100 * tot[m] / n:.1f}" for m in methods) + " |")
    print(f"\nCPU seconds (this process): {time.process_time() - t0:.0f}")


if __name__ == "__main__":
    main()
