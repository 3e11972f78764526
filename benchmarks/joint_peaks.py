"""Benchmark: the exact strict joint peak model (``penlearn.joint_peak``) against its
heuristic.

Run: python benchmarks/joint_peaks.py [--results]

The model is PeakSegJoint's: a sample is up only where its three segment averages are
strictly up-down; a k that no peak can have has no model (NaN). Three tables.
(1) PeakSegJoint's windows (``chipseq_raw/peaksegjoint/*`` and the README example of
``H3K36me3_TDH_other_chunk1``): time of the exact solver and of the bin-pyramid
heuristic (``method="heuristic"``, PeakSegJoint's kind of search, same model), whether
every k is proven optimal, the models each reports, for how many k the exact loss is
lower than the heuristic's (and by how much at most), and every exact model re-scored
from the coverage rows (``strict``: each up sample strictly up-down at its peak, the
loss that of its peak and up samples); for chunk1 also against PeakSegJoint's own numbers.
(2) Time against rows × samples: sub-windows of ``H3K36me3.AM.immune.chunk21`` (21
samples, 121 kb). (3) Simulated windows (runs of ~10 bases, Poisson counts of mean 5,
3× that in a peak): with a peak in some samples, and pure noise (no peak: the hard case
for the bounds). Times are the better of two runs, after a warm-up (numba compilation).

With ``--results`` the tables go to the ``## joint_peaks`` section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn import joint_peak
from penlearn.datasets.locate import data_folder
from penlearn.peaks.joint.solver import MAX_BLOCKS

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import results_file  # noqa: E402

SECTION = "## joint_peaks"
RAW = data_folder() / "chipseq_raw"
PSJ = ["H3K27ac.TDH.MMM4", "H3K36me3.AM.immune.chunk21", "H3K4me3.PGP.immune.chunk2",
       "H3K4me3.TDH.other.chunk8", "demo.profiles"]
# PeakSegJoint's README example, loss by number of samples up 0..7 (issue 29)
PSJ_CHUNK1 = [-11629.27, -107441.16, -153158.30, -155067.18, -156567.99, -157782.12,
              -158949.32, -159249.38]


def load(name: str) -> pd.DataFrame:
    if name == "H3K36me3_TDH_other_chunk1":
        cov = pd.read_csv(RAW / name / "coverage.csv.gz")
        cov = cov[(cov["chromEnd"] > 43_000_000) & (cov["chromStart"] < 43_200_000)]
        return cov.rename(columns={"cell_type": "group"})
    cov = pd.read_csv(RAW / "peaksegjoint" / name / "coverage.csv.gz")
    if "group" in cov.columns:  # one profile per (group, sample)
        cov["sample_id"] = cov["group"] + "/" + cov["sample_id"]
    return cov


def timed(window: pd.DataFrame, **kw):
    """(CPU seconds, fit): the better of two runs, in process CPU time (the machine is
    shared: wall time there measures the other processes)."""
    best, fit = np.inf, None
    for _ in range(2):
        t = time.process_time()
        fit = joint_peak(window, **kw)
        best = min(best, time.process_time() - t)
    return best, fit


def describe(window: pd.DataFrame) -> dict:
    return {"rows": len(window), "samples": window["sample_id"].nunique(),
            "kb": round((window["chromEnd"].max() - window["chromStart"].min()) / 1e3, 1)}


def _seg_loss(W: float, Y: float) -> float:
    return Y - Y * np.log(Y / W) if Y > 0 else 0.0


def rescore(window: pd.DataFrame, fit) -> tuple[int, int, float]:
    """(models, up samples not strictly up-down, largest |loss − re-scored loss|) of the
    sample models, from the coverage rows alone (bases without rows: zeros)."""
    lo, hi = fit.chromStart, fit.chromEnd
    sums = {}
    for sid, rows in window.groupby("sample_id"):
        st, en = rows["chromStart"].to_numpy(np.int64), rows["chromEnd"].to_numpy(np.int64)
        c = rows["count"].to_numpy(float)
        sums[sid] = lambda cuts, st=st, en=en, c=c: np.array([
            float((c * np.clip(np.minimum(en, b) - np.maximum(st, a), 0, None)).sum())
            for a, b in zip(cuts[:-1], cuts[1:])])
    flat = {sid: _seg_loss(hi - lo, f([lo, hi])[0]) for sid, f in sums.items()}
    models = bad = 0
    worst = 0.0
    for k in fit.loss.index[1:]:
        if np.isnan(fit.loss[k]):
            continue
        models += 1
        a, b = (int(v) for v in fit.peak.loc[k])
        widths = np.diff([lo, a, b, hi])
        total = 0.0
        for sid, f in sums.items():
            if not fit.up.loc[k, sid]:
                total += flat[sid]
                continue
            ys = f([lo, a, b, hi])
            m = ys / widths
            bad += not (m[1] > m[0] and m[1] > m[2])
            total += sum(_seg_loss(w, y) for w, y in zip(widths, ys))
        worst = max(worst, abs(total - fit.loss[k]))
    return models, bad, worst


def compare(name: str, window: pd.DataFrame) -> dict:
    t_ex, ex = timed(window)
    t_h, h = timed(window, method="heuristic")
    losses = [(ex.loss, h.loss)]
    if ex.group_loss is not None:
        losses.append((ex.group_loss, h.group_loss))
    ex_all = np.concatenate([ee.to_numpy() for ee, _ in losses])
    h_all = np.concatenate([hh.to_numpy() for _, hh in losses])
    has = ~np.isnan(h_all)
    gain = h_all[has] - ex_all[has]
    models, bad, worst = rescore(window, ex)
    row = {"window": name, **describe(window), "groups": "yes" if len(losses) > 1 else "no",
           "exact s": t_ex, "heuristic s": t_h, "proven": ex.exact,
           "k (exact / heur.)": f"{int((~np.isnan(ex_all)).sum())}/{int(has.sum())}",
           "k better": f"{int((gain > 1e-6).sum())}/{len(gain)}",
           "max gain": float(np.nanmax(gain)),
           "worse": bool((np.isnan(gain) | (gain < -1e-6)).any()),
           "strict": f"{models}/{models}" if bad == 0 else f"{bad} samples not up-down",
           "rescore diff": f"{worst:.1e}"}
    row["vs PeakSegJoint"] = ""
    if name == "H3K36me3_TDH_other_chunk1":
        row["vs PeakSegJoint"] = f"{(np.array(PSJ_CHUNK1) - ex.loss.to_numpy()[:8]).max():.2f}"
    return row


def scaling() -> list[dict]:
    cov = load("H3K36me3.AM.immune.chunk21")
    ids = list(pd.unique(cov["sample_id"]))
    start = cov.groupby("sample_id")["chromStart"].min().max()
    rows = []
    for width in (25_000, 50_000, 100_000):
        for n in (3, 7, 14, 21):
            w = cov[cov["sample_id"].isin(ids[:n]) & (cov["chromStart"] < start + width)]
            t_ex, ex = timed(w, region=(start, start + width))
            t_h, _ = timed(w, region=(start, start + width), method="heuristic")
            rows.append({**describe(w), "kb": width / 1e3, "exact s": t_ex,
                         "heuristic s": t_h, "proven": ex.exact})
    return rows


def simulate(samples: int, bases: int, peak=None, seed: int = 0) -> pd.DataFrame:
    """Runs of geometric length (mean 10) with Poisson counts of mean 5; ``peak =
    (start, end, n)``: mean 15 there in the first n samples."""
    rng = np.random.default_rng(seed)
    out = []
    for s in range(samples):
        ends = np.cumsum(rng.geometric(0.1, bases // 5))
        ends = np.r_[ends[ends < bases], bases]
        starts = np.r_[0, ends[:-1]]
        lam = np.full(len(starts), 5.0)
        if peak is not None and s < peak[2]:
            mid = (starts + ends) / 2
            lam[(mid >= peak[0]) & (mid < peak[1])] *= 3
        out.append(pd.DataFrame({"sample_id": f"s{s}", "chromStart": starts,
                                 "chromEnd": ends, "count": rng.poisson(lam)}))
    return pd.concat(out, ignore_index=True)


def simulated() -> list[dict]:
    rows = []
    for label, samples, bases, peak in (
            ("peak in 7 of 21 samples (3 kb)", 21, 100_000, (40_000, 43_000, 7)),
            ("peak in 21 of 21 samples (20 kb)", 21, 100_000, (40_000, 60_000, 21)),
            ("peak in 1 of 21 samples (1 kb)", 21, 100_000, (40_000, 41_000, 1)),
            ("noise, no peak", 4, 20_000, None),
            ("noise, no peak", 21, 100_000, None)):
        w = simulate(samples, bases, peak)
        t_ex, ex = timed(w)
        t_h, h = timed(w, method="heuristic")
        gain = (h.loss - ex.loss).to_numpy()
        gain = gain[~np.isnan(h.loss.to_numpy())]
        rows.append({"window": label, **describe(w), "exact s": t_ex, "heuristic s": t_h,
                     "proven": ex.exact, "k proven": f"{int(ex.proven.sum())}/{len(ex.proven)}",
                     "max gain": float(gain.max()) if len(gain) else float("nan")})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", action="store_true")
    args = ap.parse_args()
    joint_peak(load("H3K4me3.TDH.other.chunk8"))  # warm-up: numba compilation
    joint_peak(load("demo.profiles"), method="heuristic")
    real = [compare(n, load(n)) for n in ["H3K36me3_TDH_other_chunk1", *PSJ]]
    t_ex = sum(r["exact s"] for r in real)
    t_h = sum(r["heuristic s"] for r in real)
    scale = scaling()
    sim = simulated()
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_avg = os.getloadavg()[0]
    text = "\n".join([
        SECTION, "",
        f"`python benchmarks/joint_peaks.py` on {when}; {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average at the "
        f"end {load_avg:.1f} (machine shared with other engineers: seconds are indicative). "
        f"Seconds: process CPU time, the better of two runs of `joint_peak` "
        f"(validation, grid, heuristic, branch and bound, models; samples and, with "
        f"groups, groups), one thread; on an idle machine wall time is about the same. "
        f"`proven`: every k proven optimal (`fit.exact`; work budget max_blocks = "
        f"{MAX_BLOCKS:,}). The model is PeakSegJoint's strict one (an up sample's three "
        f"segment averages strictly up-down; a k no peak can have is NaN). "
        f"`k (exact / heur.)`: models (samples, then groups) each reports; `k better`: "
        f"of the heuristic's, those where the exact loss is below it; `max gain`: the "
        f"largest loss difference; `worse`: any k the heuristic reports where the exact "
        f"solver has no model or a higher loss (never, by construction: the heuristic's "
        f"peaks are its first incumbents); `strict`: sample models re-scored from the "
        f"coverage rows whose up samples are all strictly up-down at the peak; `rescore "
        f"diff`: the largest difference between a reported loss and its re-scored "
        f"model's.",
        "",
        "PeakSegJoint's windows (exact vs bin-pyramid heuristic):", "",
        *results_file.markdown_table(real), "",
        f"Summed over these windows: exact {t_ex:.2f} s, heuristic {t_h:.2f} s "
        f"(ratio {t_ex / t_h:.2f}; goal <= 2).", "",
        "`vs PeakSegJoint` (chunk1, the README example): the largest of PeakSegJoint's "
        "loss minus ours over k = 0..7 (>= 0: never worse; k = 0 agrees to its printed "
        "digits).", "",
        "Time against rows x samples (sub-windows of H3K36me3.AM.immune.chunk21):", "",
        *results_file.markdown_table(scale), "",
        "Simulated windows:", "",
        *results_file.markdown_table(sim), "",
        "Pure noise has no clear optimum: many peaks are near the best for large k, and "
        "models with many samples up that few peaks allow must be ruled out everywhere. The"
        " cut bound (the inside cut at the block's inner ends, each end's best over its "
        "range) and the exact extreme averages per range prove every k of 21 samples x 100 "
        "kb of noise (before them: the work budget stopped the search after 31.5 s, "
        "unproven). Issue 37's time goals, before this run's solver (RESULTS of "
        "2026-11-28 01:53): exact 1.97 s vs heuristic 0.71 s on PeakSegJoint's windows "
        "(ratio 2.76), noise 21 x 100 kb 10.5 s. Changes: the cut bound reuses the cheap "
        "bound's per-sample terms instead of recomputing them; it is skipped (but for one "
        "block in 16) on blocks of more than 2^17 peaks, where computing each range's best "
        "cut (a logarithm per count change per sample) cost most of the time and seldom "
        "dropped a block; leaves compute each sample's loss before a / after b once, and "
        "only for samples up-down at an evaluated peak. The branch and bound alone, old and"
        " new kernels back to back in one process (same blocks within 3 %, same losses): "
        "PeakSegJoint's windows 1.24 -> 0.76 s, noise 21 x 100 kb 11.0 -> 7.9 s CPU. Tried "
        "and dropped: depth-first search, most promising child first (noise: the work "
        "budget ran out, unproven; it chases k that no peak can have), a per-grid-point "
        "memo of the prefix / suffix losses (memory traffic cost more than the logarithms "
        "saved), leaves of 1,024 or 4,096 peaks (slower). Left: the noise window (goal 2 "
        "s) needs fewer blocks (1.6 M bounded, 0.67 M of them dropped only by the cut "
        "bound), not "
        "cheaper ones.",
    ])
    print(text)
    if args.results:
        results_file.write_section(SECTION, text)


if __name__ == "__main__":
    main()
