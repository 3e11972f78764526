"""Label errors of MACS3 and of penlearn on every labeled raw coverage of ``chipseq_raw/``.

MACS3 is an optional benchmark dependency, run as a command (penlearn never imports it).
Install it from PyPI in a venv of its own (it builds from its sdist, Cython and C: about
15 minutes and 440 CPU seconds here; it pins its own NumPy/SciPy)::

    python -m venv /path/macs3venv && /path/macs3venv/bin/pip install "macs3>=3.0.4"

then one command (``--macs3`` defaults to a ``macs3`` on the path)::

    python benchmarks/macs3.py --macs3 /path/macs3venv/bin/macs3 [--held-out] [--write]

For each labeled data set (``Mono27ac``: one sample, 6 labels; ``H3K36me3_TDH_other_chunk1``:
8 samples, 48 labels) and each of its samples:

* **MACS3** without a control, as ``macs3 callpeak`` would see the sample without one: the
  Poisson −log10 p-value of each base's coverage against the sample's own genome-wide
  mean (``macs3 bdgcmp -m ppois`` with a constant control bedGraph holding that mean),
  then ``macs3 bdgpeakcall`` on those scores — at its defaults (cutoff 5, i.e. p 1e-5;
  min length 200; max gap 30), and **tuned on the same labels** over cutoff × max gap ×
  min length (the setting of fewest label errors over the whole data set: an optimistic
  figure, no held-out labels);
* **penlearn zero-label**: ``penlearn peaks COVERAGE --out DIR`` (no penalty, no model: the
  shipped model; ``--broad`` on a broad mark's set, H3K36me3_TDH_other_chunk1);
* **penlearn learned**: ``penlearn learn FOLDER --out MODEL`` on the data set's own
  coverage and labels, then ``penlearn peaks COVERAGE --model MODEL`` (evaluated on the
  labels it learned from, as MACS3 tuned is).

Held out (fair: no label scores the choice made on it): MACS3 tuned on all samples but
one and scored on that one, summed over samples (a one-sample set: over its labels, one
window has nothing larger to leave out); with ``--held-out``, penlearn learned the same way
(one ``penlearn learn`` per sample or label).

Label errors (labels with a false positive or a false negative) by ``penlearn errors``.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PENLEARN_DATA") or next(
    (a / "shared" / "data" for a in HERE.parents if (a / "shared" / "data").is_dir()),
    HERE.parent.parent / "shared" / "data"))

#: The labeled raw coverage of chipseq_raw/: folder → coverage file in it.
SETS = {"Mono27ac": "coverage.bedGraph.gz",
        "H3K36me3_TDH_other_chunk1": "coverage.csv.gz"}

#: MACS3 bdgpeakcall defaults (cutoff on −log10 p, min length, max gap).
DEFAULTS = (5.0, 200, 30)
#: The tuning grid (cutoff × max gap × min length).
CUTOFFS = (1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 40.0)
MAX_GAPS = (30, 1000, 10000)
MIN_LENGTHS = (50, 200, 1000)


def penlearn_cmd() -> list[str]:
    """The ``penlearn`` command of this tree (``python -m penlearn.cli``)."""
    return [sys.executable, "-m", "penlearn.cli"]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}


def run(argv: list[str]) -> subprocess.CompletedProcess:
    out = subprocess.run(argv, capture_output=True, text=True, env=_env())
    if out.returncode:
        raise RuntimeError(f"{' '.join(map(str, argv[:4]))} … failed ({out.returncode}): "
                           f"{out.stderr.strip()[-1500:]}")
    return out


def samples_of(folder: Path) -> dict[str, pd.DataFrame]:
    """Each sample's bedGraph rows (chrom, chromStart, chromEnd, count); one sample named
    after the folder for a plain bedGraph."""
    f = folder / SETS[folder.name]
    if f.name.endswith(".csv.gz"):
        cov = pd.read_csv(f)
        return {str(s): g[["chrom", "chromStart", "chromEnd", "count"]]
                for s, g in cov.groupby("sample_id", sort=False)}
    with gzip.open(f, "rt") as fh:
        cov = pd.read_csv(fh, sep="\t", header=None,
                          names=["chrom", "chromStart", "chromEnd", "count"])
    return {folder.name: cov}


def macs3_scores(macs3: str, cov: pd.DataFrame, work: Path) -> Path:
    """The ``bdgcmp -m ppois`` scores of ``cov`` against its own genome-wide mean."""
    treat, ctrl, out = work / "treat.bdg", work / "ctrl.bdg", work / "ppois.bdg"
    cov.to_csv(treat, sep="\t", header=False, index=False)
    width = (cov["chromEnd"] - cov["chromStart"]).to_numpy(float)
    mean = float(np.dot(width, cov["count"].to_numpy(float)) / width.sum())
    # The control starts at base 1 of each chromosome: MACS3 (unlike MACS2) stops on a
    # zero Poisson mean ("Lambda must > 0") where the treatment's first row starts later
    # and both tracks would be empty before it.
    first = ~cov["chrom"].duplicated()
    cov.assign(count=mean, chromStart=cov["chromStart"].where(~first, 0)).to_csv(
        ctrl, sep="\t", header=False, index=False, float_format="%.10g")
    run([macs3, "bdgcmp", "-t", str(treat), "-c", str(ctrl), "-m", "ppois",
         "--outdir", str(work), "-o", out.name])
    return out


def macs3_peaks(macs3: str, scores: Path, setting, out: Path) -> Path:
    """``bdgpeakcall`` at ``setting`` = (cutoff, min length, max gap), as BED3 at ``out``."""
    cutoff, min_len, max_gap = setting
    raw = out.with_suffix(".narrowPeak")
    run([macs3, "bdgpeakcall", "-i", str(scores), "-c", str(cutoff), "-l", str(min_len),
         "-g", str(max_gap), "--outdir", str(raw.parent), "-o", raw.name])
    rows = [ln.split("\t")[:3] for ln in raw.read_text().splitlines()
            if ln.strip() and not ln.startswith(("track", "#", "browser"))]
    out.write_text("".join("\t".join(r) + "\n" for r in rows))
    raw.unlink()
    return out


def label_errors(peaks: Path, labels: Path) -> pd.Series:
    """Whether each label is wrong (a FP or a FN) for a peak file or folder, by ``penlearn
    errors`` (its parser and command function, in this process: no interpreter start per
    setting). Indexed by the held-out unit of :func:`held_out_units`."""
    import contextlib
    import io

    from penlearn.cli.main import build_parser

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "errors.csv"
        args = build_parser().parse_args(
            ["errors", str(peaks), str(labels), "--out", str(table), "--force", "--merge",
             "-q"])
        with contextlib.redirect_stdout(io.StringIO()):
            args.func(args)
        e = pd.read_csv(table)
    wrong = (e["fp"] > 0) | (e["fn"] > 0)
    return pd.Series(wrong.to_numpy(), index=held_out_units(e), name="wrong")


def held_out_units(labels: pd.DataFrame) -> pd.Index:
    """The unit left out by the held-out columns: the sample of a set with several
    samples, else the label (``chrom:chromStart``: one window of one sample has nothing
    larger to leave out)."""
    if "sample_id" in labels.columns and labels["sample_id"].nunique() > 1:
        return pd.Index(labels["sample_id"].astype(str), name="unit")
    return pd.Index(labels["chrom"].astype(str) + ":" + labels["chromStart"].astype(str),
                    name="unit")


def tuned_held_out(wrong: dict) -> int:
    """Label errors of tuning on all units but one, scored on that one, summed over units.

    ``wrong`` maps each setting (in grid order: ties go to the earlier one) to the
    :func:`label_errors` Series. A fair figure, unlike the best setting over all labels.

    >>> w = {"a": pd.Series([1, 0, 0], index=list("xyz")),
    ...      "b": pd.Series([0, 1, 1], index=list("xyz"))}
    >>> tuned_held_out(w)   # out x: a (0 wrong on y, z), 1 wrong on x; out y, z: a
    1
    """
    per_unit = {k: v.groupby(level=0, sort=False).sum() for k, v in wrong.items()}
    units = next(iter(per_unit.values())).index
    total = 0
    for u in units:
        best = min(per_unit, key=lambda k: (per_unit[k].drop(u).sum(), list(wrong).index(k)))
        total += int(per_unit[best][u])
    return total


def macs3_columns(macs3: str, folder: Path, work: Path, grid_axes=None) -> dict:
    """MACS3 at its defaults and tuned over the grid (``grid_axes`` = cutoffs, max gaps,
    min lengths): label errors over all samples, tuned on all labels and held out."""
    cutoffs, max_gaps, min_lengths = grid_axes or (CUTOFFS, MAX_GAPS, MIN_LENGTHS)
    labels = folder / "labels.csv"
    samples = samples_of(folder)
    scores = {}
    for s, cov in samples.items():
        d = work / "scores" / s
        d.mkdir(parents=True)
        scores[s] = macs3_scores(macs3, cov, d)
    grid = [DEFAULTS] + [(c, m, g) for c, g, m in
                         itertools.product(cutoffs, max_gaps, min_lengths)]
    from concurrent.futures import ThreadPoolExecutor

    dirs = {}
    jobs = []
    for setting in dict.fromkeys(grid):
        d = dirs[setting] = work / "macs3" / "_".join(map(str, setting))
        d.mkdir(parents=True)
        jobs += [(sc, setting, d / f"{s}.bed") for s, sc in scores.items()]
    with ThreadPoolExecutor(2) as pool:  # two MACS3 processes at a time (2 cores)
        list(pool.map(lambda j: macs3_peaks(macs3, *j), jobs))
    wrong = {setting: label_errors(_peaks_arg(d, samples), labels)
             for setting, d in dirs.items()}
    best = min(wrong, key=lambda k: (int(wrong[k].sum()), grid.index(k)))
    return {"labels": len(wrong[DEFAULTS]), "default": int(wrong[DEFAULTS].sum()),
            "tuned": int(wrong[best].sum()), "tuned setting": best,
            "tuned held out": tuned_held_out(wrong), "settings": len(wrong)}


def _peaks_arg(d: Path, samples: dict) -> Path:
    """The peak file of a one-sample set, else the folder."""
    return d / f"{next(iter(samples))}.bed" if len(samples) == 1 else d


def _learn_and_score(folder: Path, cov: Path, learn_labels: pd.DataFrame,
                     work: Path, one: bool) -> pd.Series:
    """``penlearn learn`` on ``cov`` with ``learn_labels``, ``peaks --model`` on ``cov``;
    each label of the folder wrong or not."""
    work.mkdir(parents=True, exist_ok=True)
    data = work / "data"
    data.mkdir()
    (data / cov.name).symlink_to(cov)
    learn_labels.to_csv(data / "labels.csv", index=False)
    model = work / "model.json"
    learned = work / ("learned.bed" if one else "learned")
    run([*penlearn_cmd(), "learn", str(data), "--out", str(model), "-q"])
    run([*penlearn_cmd(), "peaks", str(cov), "--model", str(model), "--out", str(learned),
         "-q"])
    return label_errors(learned, folder / "labels.csv")


def penlearn_columns(folder: Path, work: Path, held_out: bool = False) -> dict:
    """penlearn's zero-label default and a model learned on the set's own labels (and,
    with ``held_out``, learned without each unit of :func:`held_out_units` and scored on
    it)."""
    labels = folder / "labels.csv"
    cov = folder / SETS[folder.name]
    one = len(samples_of(folder)) == 1
    out = {}
    zero = work / ("zero.bed" if one else "zero")
    try:
        # the user says narrow (the default) or broad, as to MACS3 (issue 46 item 5)
        from penlearn.peaks.pretrained.fit import mark_class

        broad = ["--broad"] if mark_class(folder.name) == "broad" else []
        run([*penlearn_cmd(), "peaks", str(cov), "--out", str(zero), "-q", *broad])
        out["zero-label"] = int(label_errors(zero, labels).sum())
    except RuntimeError as e:  # no zero-label default in this tree yet
        out["zero-label"] = f"n/a ({str(e).splitlines()[-1][-80:]})"
    table = pd.read_csv(labels)
    try:
        out["learned"] = int(_learn_and_score(folder, cov, table, work / "all", one).sum())
    except RuntimeError as e:
        out["learned"] = f"n/a ({str(e).splitlines()[-1][-80:]})"
    if held_out:
        units = held_out_units(table)
        total = 0
        for k, u in enumerate(dict.fromkeys(units)):
            w = _learn_and_score(folder, cov, table[units != u], work / f"out{k}", one)
            total += int(w[w.index == u].sum())
        out["learned held out"] = total
    return out


def main(argv=None) -> int:
    sys.path.insert(0, str(HERE))
    from results_file import markdown_table, write_section

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--macs3", default=shutil.which("macs3") or "macs3")
    ap.add_argument("--sets", nargs="+", default=list(SETS))
    ap.add_argument("--cutoffs", nargs="+", type=float, default=list(CUTOFFS))
    ap.add_argument("--max-gaps", nargs="+", type=int, default=list(MAX_GAPS))
    ap.add_argument("--min-lengths", nargs="+", type=int, default=list(MIN_LENGTHS))
    ap.add_argument("--no-penlearn", action="store_true", help="the MACS3 columns only")
    ap.add_argument("--held-out", action="store_true",
                    help="also penlearn learned without each sample (a one-sample set: "
                    "each label) and scored on it (one `penlearn learn` per unit)")
    ap.add_argument("--write", action="store_true", help="write the RESULTS.md section")
    a = ap.parse_args(argv)
    version = run([a.macs3, "--version"]).stdout.strip()
    load0 = os.getloadavg()
    rows = []
    for name in a.sets:
        folder = a.data_dir / "chipseq_raw" / name
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            m = macs3_columns(a.macs3, folder, Path(tmp),
                              (a.cutoffs, a.max_gaps, a.min_lengths))
            p = ({"zero-label": "not run", "learned": "not run"} if a.no_penlearn
                 else penlearn_columns(folder, Path(tmp), a.held_out))
        c, ml, g = m["tuned setting"]
        rows.append({"data set": name, "labels": m["labels"],
                     "MACS3 default": m["default"],
                     "MACS3 tuned on these labels": m["tuned"],
                     "tuned (cutoff, min length, max gap)": f"({c:g}, {ml}, {g})",
                     "MACS3 tuned, held out": m["tuned held out"],
                     "penlearn zero-label": p["zero-label"],
                     "penlearn learned (these labels)": p["learned"],
                     "penlearn learned, held out": p.get("learned held out", "not run")})
        print(name, rows[-1], f"{time.perf_counter() - t0:.0f} s", flush=True)
    lines = markdown_table(rows)
    print("\n".join(lines))
    if a.write:
        head = [
            "## macs3",
            "",
            f"`python benchmarks/macs3.py` — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
            f", {version}, load average {load0[0]:.1f} (machine shared by other sessions; "
            "timings not reported). Label errors (labels with a FP or FN, by `penlearn "
            "errors`). MACS3: `bdgcmp -m ppois` against each sample's own genome-wide mean "
            "(callpeak's background without a control), then `bdgpeakcall`; default = "
            "cutoff 5, min length 200, max gap 30; tuned = the best of "
            f"{len(a.cutoffs) * len(a.max_gaps) * len(a.min_lengths)} settings (cutoff "
            f"{a.cutoffs} × max gap {a.max_gaps} × min length {a.min_lengths}) "
            "chosen on the same labels it is scored on; held out = tuned without each "
            "sample (a one-sample set: each label) and scored on it, summed. penlearn "
            "learned: `penlearn learn` on the set's folder, scored on the labels it learned "
            "from (as MACS3 tuned); held out (`--held-out`) as MACS3's.",
            "",
        ]
        write_section("## macs3", "\n".join(head + lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
