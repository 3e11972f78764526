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
import gzip
import hashlib
import io
import os
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
            with warnings.catch_warnings():
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
            with warnings.catch_warnings():
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


def _uci_folder() -> tuple[Path, Path]:
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
    d, model = _uci_folder()
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
        got = pl.predict_peaks(cov, 0.0, executor=pool)
        n = getattr(pool, "workers", None)
    ok = got.equals(pl.predict_peaks(cov, 0.0)) and n is not None and n <= 3
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
    """The surfaces that landed on main in the same session (added as they land)."""
    return iter(())


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
