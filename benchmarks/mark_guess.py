"""Can the mark (narrow or broad) be told from the coverage? A measurement.

``penlearn peaks`` defaults to the narrow-mark level of the shipped model; a broad mark
run without ``--broad`` gets too many peaks. This asks whether a simple statistic of a
sample's (or a run's) windows could choose the level instead. Each statistic is computed
per window from the 36 UCI features (as :func:`penlearn.peaks.peakseg.features.
coverage_features` computes them from coverage), then summarised per sample (median of
its windows) or per run (median over the samples of a set). A threshold is learned with
one set left out (fewest wrongly classed samples or runs, or fewest label errors, every
set weighing the same) and applied to the held-out set, whose samples then get the
shipped model's level of the guessed mark (no retraining).

Tables:

1. per statistic, unit and rule: % of samples/runs classed right (mean over sets), sets
   all right, label errors % acting on the guess, at the current default (narrow for
   all), at the right mark, and the worst set's change against the default;
2. per set, the best run statistic (log max/mean): its value, the threshold learned
   without the set, the guess, label errors;
3. runs of k samples of one set (k = 1, 3, 5, 10, 2000 random draws each): how often the
   run statistic says "broad" at the leave-one-set-out threshold;
4. the statistic on the raw coverage of ``chipseq_raw`` (mostly short regions around
   peaks), with the peaks' median width and the % of bases in peaks at the narrow default;
5. what a wrong guess costs.

    python benchmarks/mark_guess.py  # --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import results_file  # noqa: E402
from sharp_marks import _chunk  # noqa: E402

from penlearn.datasets.locate import data_folder  # noqa: E402
from penlearn.datasets.pretrain import chipseq_sets  # noqa: E402
from penlearn.datasets.uci import load_uci  # noqa: E402
from penlearn.peaks.peakseg.evaluation import predict_peaks  # noqa: E402
from penlearn.peaks.peakseg.features import coverage_features  # noqa: E402
from penlearn.peaks.pretrained import default_log_lambda, predict_log_lambda  # noqa: E402
from penlearn.peaks.pretrained.fit import mark_class  # noqa: E402
from penlearn.report.roc_report import errors_at_predictions  # noqa: E402


def _log_ratio(top: pd.Series, bottom: pd.Series) -> pd.Series:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(top / bottom)


#: Scale-free statistics of one window, from its UCI features (``+ 0.5``: quartiles of 0).
STATISTICS = {
    "dispersion": lambda X: 2 * np.log(X["sd"]) - np.log(X["mean"]),
    "log sd/mean": lambda X: _log_ratio(X["sd"], X["mean"]),
    "log max/mean": lambda X: _log_ratio(X["quartile.100%"], X["mean"]),
    "log max/sd": lambda X: _log_ratio(X["quartile.100%"], X["sd"]),
    "log q25/mean": lambda X: _log_ratio(X["quartile.25%"] + 0.5, X["mean"]),
    "log q50/mean": lambda X: _log_ratio(X["quartile.50%"] + 0.5, X["mean"]),
    "log q75/mean": lambda X: _log_ratio(X["quartile.75%"] + 0.5, X["mean"]),
    "log mean": lambda X: np.log(X["mean"]),
    "log rows/base": lambda X: _log_ratio(X["data"], X["bases"]),
}
BEST = "log max/mean"
#: Chunks of ``chipseq_raw`` and their mark.
CHUNKS = {"H3K36me3_TDH_other_chunk1": "broad",
          "peaksegjoint/H3K36me3.AM.immune.chunk21": "broad",
          "H3K4me3_XJ_immune_chunk1": "narrow",
          "peaksegjoint/H3K4me3.PGP.immune.chunk2": "narrow",
          "peaksegjoint/H3K4me3.TDH.other.chunk8": "narrow",
          "peaksegjoint/H3K27ac.TDH.MMM4": "narrow", "Mono27ac": "narrow",
          "deltarod_PeakSegDisk": "?"}


def window_table(root: Path) -> pd.DataFrame:
    """One row per labeled window of the 17 sets: set, mark, sample, the statistics, and
    its label errors at the narrow and at the broad level of the shipped model."""
    parts = []
    for s in chipseq_sets(root):
        ds = load_uci(root / s)
        ids = ds.inputs.index.intersection(ds.evaluation["sequence_id"].unique())
        X = ds.inputs.loc[ids]
        t = pd.DataFrame({name: f(X) for name, f in STATISTICS.items()}, index=ids)
        t.insert(0, "sample", ids.str.split("/").str[3])
        t.insert(0, "mark", mark_class(s))
        t.insert(0, "set", s)
        for mark in ("narrow", "broad"):
            at = errors_at_predictions(ds.evaluation, predict_log_lambda(X, mark=mark))
            at = at.set_index("sequence_id").reindex(ids)
            t[f"errors_{mark}"] = at["errors"].to_numpy(float)
            t["labels"] = at["labels"].to_numpy(float)
        parts.append(t)
    return pd.concat(parts)


def units(windows: pd.DataFrame, unit: str) -> pd.DataFrame:
    """Samples (median statistic of their windows, summed errors) or runs (median over a
    set's samples)."""
    how = {c: "median" for c in STATISTICS} | {"errors_narrow": "sum", "errors_broad": "sum",
                                                "labels": "sum"}
    samples = windows.groupby(["set", "mark", "sample"]).agg(how).reset_index()
    if unit == "sample":
        return samples
    return samples.groupby(["set", "mark"]).agg(how).reset_index()


def learn_threshold(t: pd.DataFrame, stat: str, rule: str) -> tuple[int, float]:
    """(sign, threshold): "broad" when sign·x > threshold, fewest wrongly classed units
    (``rule="class"``) or label errors (``rule="errors"``), every set weighing the same."""
    x = t[stat].to_numpy(float)
    broad = (t["mark"] == "broad").to_numpy()
    if rule == "class":
        n = t.groupby("set")["set"].transform("size").to_numpy(float)
        cost_narrow, cost_broad = broad / n, ~broad / n
    else:
        labels = t.groupby("set")["labels"].transform("sum").to_numpy(float)
        cost_narrow = t["errors_narrow"].to_numpy(float) / labels
        cost_broad = t["errors_broad"].to_numpy(float) / labels
    best = None
    for sign in (1, -1):
        order = np.argsort(sign * x, kind="stable")
        xs = sign * x[order]
        loss = (np.r_[0.0, np.cumsum(cost_narrow[order])]
                + np.r_[np.cumsum(cost_broad[order][::-1])[::-1], 0.0])
        loss[1:-1][xs[1:] == xs[:-1]] = np.inf  # no threshold between equal values
        k = int(np.argmin(loss))
        thr = xs[0] - 1 if k == 0 else xs[-1] + 1 if k == len(xs) else (xs[k - 1] + xs[k]) / 2
        if best is None or loss[k] < best[0] - 1e-12:
            best = (loss[k], sign, float(thr))
    return best[1], best[2]


def leave_one_set_out(t: pd.DataFrame, stat: str, rule: str) -> pd.DataFrame:
    """Per held-out set: value, threshold, share right, label errors % acting on the
    guess, at the narrow default and at the right mark."""
    rows = {}
    for s in pd.unique(t["set"]):
        test = t[t["set"] == s]
        sign, thr = learn_threshold(t[t["set"] != s], stat, rule)
        guess = sign * test[stat].to_numpy(float) > thr
        labels = test["labels"].sum()
        right_level = test["errors_broad" if test["mark"].iloc[0] == "broad"
                           else "errors_narrow"]
        rows[s] = {"mark": test["mark"].iloc[0], "value": float(test[stat].median()),
                   "broad_if": f"{'>' if sign > 0 else '<'} {sign * thr:.2f}",
                   "right_pct": 100.0 * float(np.mean(guess == (test["mark"] == "broad"))),
                   "acting": 100.0 * float(np.where(guess, test["errors_broad"],
                                                    test["errors_narrow"]).sum() / labels),
                   "default": 100.0 * float(test["errors_narrow"].sum() / labels),
                   "right_mark": 100.0 * float(right_level.sum() / labels)}
    return pd.DataFrame.from_dict(rows, orient="index")


def summary(windows: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for unit in ("sample", "run"):
        t = units(windows, unit)
        for rule in ("class", "errors"):
            for stat in STATISTICS:
                r = leave_one_set_out(t, stat, rule)
                rows.append({"statistic": stat, "unit": unit, "rule": rule,
                             "right_pct": r["right_pct"].mean(),
                             "sets_all_right": int((r["right_pct"] == 100).sum()),
                             "acting": r["acting"].mean(), "default": r["default"].mean(),
                             "right_mark": r["right_mark"].mean(),
                             "worst_vs_default": (r["acting"] - r["default"]).max()})
    return pd.DataFrame(rows)


def run_sizes(windows: pd.DataFrame, seed: int = 0, draws: int = 2000) -> pd.DataFrame:
    """How often a run of k samples of one set is called broad, at the threshold of the
    run statistic learned without that set."""
    samples, runs = units(windows, "sample"), units(windows, "run")
    rng = np.random.default_rng(seed)
    rows = []
    for s, g in samples.groupby("set"):
        sign, thr = learn_threshold(runs[runs["set"] != s], BEST, "class")
        x = g[BEST].to_numpy(float)
        row = {"set": s, "mark": g["mark"].iloc[0], "samples": len(x)}
        for k in (1, 3, 5, 10):
            if k > len(x):
                row[f"broad_pct_k{k}"] = float("nan")
                continue
            med = np.array([np.median(rng.choice(x, k, replace=False)) for _ in range(draws)])
            row[f"broad_pct_k{k}"] = 100.0 * float(np.mean(sign * med > thr))
        rows.append(row)
    return pd.DataFrame(rows).sort_values(["mark", "set"])


def _raw(root: Path, name: str) -> pd.DataFrame:
    cov = _chunk(root, name)
    if cov is not None:
        return cov
    cov = pd.read_csv(root / "chipseq_raw" / name / "coverage.bedGraph.gz", sep="\t",
                      header=None, names=["chrom", "chromStart", "chromEnd", "count"])
    return cov.assign(sample_id=name)


def chunk_statistics(root: Path) -> pd.DataFrame:
    """The statistic of each raw coverage's default windows (per sample: min, median,
    max), and its peaks at the narrow default: each sample's median peak width (min /
    median / max over the samples, kb), % of the windows' bases in peaks."""
    rows = []
    for name, mark in CHUNKS.items():
        cov = _raw(root, name)
        windows, log_lambda = default_log_lambda(cov, mark="narrow")
        X = coverage_features(cov, windows)
        per_sample = STATISTICS[BEST](X).groupby(windows["sample_id"].to_numpy()).median()
        peaks = predict_peaks(cov, log_penalty=log_lambda, windows=windows)
        width = peaks["chromEnd"] - peaks["chromStart"]
        widths = width.groupby(peaks["sample_id"].to_numpy()).median() / 1000
        bases = (windows["chromEnd"] - windows["chromStart"]).sum()
        rows.append({"coverage": name.split("/")[-1], "mark": mark,
                     "samples": len(per_sample),
                     "window_bases": int((windows["chromEnd"] - windows["chromStart"]).median()),
                     "min": float(per_sample.min()), "median": float(per_sample.median()),
                     "max": float(per_sample.max()), "narrow_peaks": len(peaks),
                     "samples_with_peaks": len(widths),
                     "width_kb": f"{widths.min():.1f} / {widths.median():.1f} / {widths.max():.1f}",
                     "in_peaks_pct": 100.0 * float(width.sum() / bases)})
    return pd.DataFrame(rows)


def wrong_guess_cost(windows: pd.DataFrame) -> pd.DataFrame:
    per_set = windows.groupby(["set", "mark"])[["errors_narrow", "errors_broad", "labels"]].sum()
    pct = per_set[["errors_narrow", "errors_broad"]].div(per_set["labels"], axis=0) * 100
    out = pct.groupby(level="mark").mean()
    return pd.DataFrame({"mark": out.index, "sets": per_set.groupby(level="mark").size().values,
                         "at_narrow_level": out["errors_narrow"].values,
                         "at_broad_level": out["errors_broad"].values})


def _print(table: pd.DataFrame) -> None:
    print("\n".join(results_file.markdown_table(table.to_dict("records"))) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(data_folder()))
    root = Path(ap.parse_args(argv).data_dir)
    warnings.simplefilter("ignore")
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    windows = window_table(root)
    _print(summary(windows))
    for unit in ("run", "sample"):
        print(f"{BEST} per {unit}, rule 'class', leave one set out:\n")
        _print(leave_one_set_out(units(windows, unit), BEST, "class").reset_index(
            names="set"))
    _print(run_sizes(windows))
    _print(chunk_statistics(root))
    _print(wrong_guess_cost(windows))
    print(f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} CPU s; "
          f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
