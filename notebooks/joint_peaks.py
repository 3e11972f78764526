# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Joint peaks of 8 samples: which samples share each peak
#
# Single-sample peak calling answers "where are this sample's peaks?"; a study of
# several samples and cell types asks "which samples have a peak here, and where do
# they differ?". This notebook goes from a coverage file of 8 samples to the
# **peaks × samples matrix**, with two commands:
#
# 1. `penlearn peaks` — single-sample peaks of every sample (PeakSeg), one BED file each;
# 2. `penlearn joint` — clusters of overlapping peaks become joint windows; in each, the
#    exact joint model (PeakSegJoint's: one common peak, each up sample's averages
#    strictly up-down, the others flat; `penlearn.joint_peak`) chooses how many samples
#    carry the peak, at a penalty learned from the labels.
#
# Then: the matrix as a figure, the coverage of one window with its joint peak, and
# the label errors of single-sample and joint peaks. Data:
# `chipseq_raw/H3K36me3_TDH_other_chunk1` of the shared data folder (H3K36me3, chr21,
# 8 samples of 4 cell types, 48 labels in one 283-kb region).

# %%
# %matplotlib inline
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import penlearn as pl

from _setup import DATA  # notebooks/_setup.py: pandas display options, the data folder

folder = DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
work = Path(tempfile.mkdtemp(prefix="penlearn-joint-"))


def penlearn_cli(*args):
    """Run the `penlearn` command (this Python's), print its one-line result."""
    r = subprocess.run([sys.executable, "-m", "penlearn.cli", *map(str, args), "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    print(r.stdout.strip())


# %% [markdown]
# ## 1. The two commands
#
# The single-sample penalty λ = 10,000 is the order of magnitude the labels choose for
# these samples (a learned single-sample model, `penlearn learn`, predicts log λ ≈ 9.9
# here; section 4 tries others). The coverage table's `cell_type` column gives the
# groups; `--labels` makes `penlearn joint` learn its penalty from the labels.

# %%
coverage_file = folder / "coverage.csv.gz"
penlearn_cli("peaks", coverage_file, "--penalty", 10000, "--out", work / "peaks")
penlearn_cli("joint", coverage_file, "--peaks", work / "peaks", "--labels",
             folder / "labels.csv", "--group-column", "cell_type", "--out", work / "joint")
sorted(p.name for p in (work / "joint").iterdir())

# %% [markdown]
# The peaks × samples matrix and the summary (samples and groups up, loss decrease of
# each joint peak over no peak):

# %%
matrix = pd.read_csv(work / "joint" / "peaks_matrix_sample.tsv", sep="\t")
summary = pd.read_csv(work / "joint" / "peaks_summary.tsv", sep="\t")
windows = pd.read_csv(work / "joint" / "windows.tsv", sep="\t")
print(pd.read_csv(work / "joint" / "peaks_matrix_group.tsv", sep="\t").to_string())
matrix

# %%
summary

# %% [markdown]
# ## 2. The matrix as a figure
#
# Rows are samples, ordered by cell type; columns are the joint peaks of the strict
# model. Four joint peaks: the first is carried by the two kidney samples only, the next
# two by every sample, the last by one skeletal-muscle control (McGill0036). The README
# shows a copy of this figure, `docs/img/joint_matrix.png`: run the notebook with
# `PENLEARN_SAVE_FIGURES=1` in the environment to rewrite it (otherwise, as when the tests
# run it, no file is written).

# %%
cov = pl.read_coverage(coverage_file)
groups = dict(zip(cov["sample_id"], cov["cell_type"]))
samples = sorted(matrix.columns[3:], key=lambda s: (groups[s], s))
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.imshow(matrix[samples].to_numpy().T, cmap="Greys", vmin=0, vmax=1, aspect="auto")
ax.set_yticks(range(len(samples)), [f"{s} ({groups[s]})" for s in samples], fontsize=8)
ax.set_xticks(range(len(matrix)), [f"{s:,}-{e:,}" for s, e in
                                   zip(matrix["chromStart"], matrix["chromEnd"])],
              rotation=30, ha="right", fontsize=8)
ax.set_title("joint peaks × samples (black: peak)")
fig.tight_layout()
if os.environ.get("PENLEARN_SAVE_FIGURES") == "1":  # the README's copy of this figure
    fig.savefig(Path.cwd().parent / "docs" / "img" / "joint_matrix.png", dpi=72)

# %% [markdown]
# ## 3. The matrix is the joint model of each window
#
# Each row comes from one window's joint model at the window's log λ: solving
# `penlearn.joint_peak` again on the window's coverage and choosing the number of
# samples up k of least loss + λ·k (over the k that exist: a k no peak can have, with
# that many samples strictly up-down, has loss NaN) gives the same peak and samples.

# %%
from penlearn.peaks.joint.windows import window_coverage

fits = {}
for (wid, win), w in zip(window_coverage(cov, windows), windows.itertuples()):
    fit = pl.joint_peak(win)
    fits[wid] = (win, fit)
    k = int(np.nanargmin(fit.loss.to_numpy() + np.exp(w.log_lambda) * fit.loss.index))
    assert k == w.k and fit.exact
    if k:
        row = matrix[matrix["chromStart"] == fit.peak.loc[k, "chromStart"]].iloc[0]
        assert row["chromEnd"] == fit.peak.loc[k, "chromEnd"]
        assert (row[fit.up.columns].astype(bool) == fit.up.loc[k]).all()
    print(f"{wid}: {len(win):>6} rows, k = {k} of {fit.up.shape[1]} samples up, "
          f"loss by k: {np.round(fit.loss.to_numpy()[:4], 0)} ...")

# %% [markdown]
# The first window, drawn: every sample's coverage (one panel each), the single-sample
# peaks of `penlearn peaks` (blue) and the joint peak (orange, on the samples that carry
# it), with the labels' regions shaded.

# %%
single = pl.read_peak_files(work / "peaks")
labels = pl.read_peak_labels(folder / "labels.csv")
wid = windows["window_id"].iloc[0]
win, fit = fits[wid]
k = int(windows["k"].iloc[0])
a, b = fit.peak.loc[k, ["chromStart", "chromEnd"]] if k else (None, None)
colors = {"noPeaks": "#f6d0d0", "peakStart": "#d7c0ee", "peakEnd": "#bcd6f5",
          "peaks": "#c9e8c9"}
fig, axes = plt.subplots(len(samples), 1, figsize=(8, 1.0 * len(samples)), sharex=True)
for ax, s in zip(axes, samples):
    g = win[win["sample_id"] == s]
    ax.step(g["chromStart"], g["count"], where="post", color="black", lw=0.5)
    for r in labels[labels["sample_id"] == s].itertuples():
        ax.axvspan(r.chromStart, r.chromEnd, color=colors[r.annotation], zorder=0)
    top = g["count"].max()
    for r in single[single["sample_id"] == s].itertuples():
        ax.hlines(top * 1.05, r.chromStart, r.chromEnd, color="tab:blue", lw=3)
    if k and fit.up.loc[k, s]:
        ax.hlines(top * 1.2, a, b, color="tab:orange", lw=3)
    ax.set_ylim(0, top * 1.35)
    ax.set_ylabel(f"{s}\n{groups[s]}", rotation=0, ha="right", fontsize=7)
    ax.set_yticks([])
axes[0].set_xlim(win["chromStart"].min(), win["chromEnd"].max())
axes[-1].set_xlabel(f"chr21 position (window {wid})")
fig.tight_layout()

# %% [markdown]
# ## 4. Label errors: single-sample vs joint peaks
#
# The labels chose the joint penalty (train errors: all 48 labels lie in one 283-kb
# region, so there is no held-out region here). `label_errors.tsv` gives each label's
# status with the single-sample and the joint peaks.

# %%
comparison = pd.read_csv(work / "joint" / "label_errors.tsv", sep="\t")
print((comparison[["single", "joint"]] != "correct").sum().rename("errors of 48"))
comparison.groupby(["annotation", "single", "joint"]).size()

# %% [markdown]
# Single-sample peaks depend on their penalty; so do the joint windows (they are made
# from those peaks). Below, for four single-sample penalties: the label errors of the
# single-sample peaks and of the joint peaks made from them (the joint penalty learned
# from the labels each time; a constant below 10 labeled windows). Too low a single
# penalty gives hundreds of noisy single-sample peaks, which the joint model largely
# cleans up; too high a one gives single peaks that run across both large peak
# regions, so their clusters merge into one window whose one common peak must span
# both (the noPeaks label between them is then a false positive in every sample).

# %%
from penlearn.peaks.joint.pipeline import label_error_comparison

rows = []
for lam in (1000, 3000, 10000, 100000):
    sp = pl.predict_peaks(cov, log_penalty=np.log(lam))[["sample_id", "chrom", "chromStart", "chromEnd"]]
    res = pl.joint_peaks(cov, sp, labels=labels, groups="cell_type")
    cmp = label_error_comparison(sp, res.sample_peaks(), res.labels)
    rows.append({"single penalty": lam, "single peaks": len(sp), "windows": len(res.windows),
                 "joint peaks": len(res.peaks),
                 "single errors": int((cmp["single"] != "correct").sum()),
                 "joint errors": int((cmp["joint"] != "correct").sum()),
                 "joint penalty": res.note.split(":")[0]})
sweep = pd.DataFrame(rows)
sweep

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.2))
ax.plot(sweep["single penalty"], sweep["single errors"], "o-", label="single-sample peaks")
ax.plot(sweep["single penalty"], sweep["joint errors"], "s-", label="joint peaks")
ax.set_xscale("log")
ax.set_xlabel("single-sample penalty λ of penlearn peaks")
ax.set_ylabel("label errors (of 48, train)")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## Summary
#
# * Two commands take a coverage file of 8 samples to the peaks × samples matrix; each
#   matrix row is the exact joint model of its window at the window's penalty (checked
#   above by solving it again).
# * At the single-sample penalty the labels prefer (λ ≈ 10,000) both kinds of
#   peaks make no label error; at lower single penalties the joint model removes most
#   of the single-sample errors (table above); at higher ones the windows themselves
#   merge two peak regions, which one common peak per window cannot separate.
# * All these are **train** errors: the 48 labels lie in one region and chose the joint
#   penalty. With labels in ≥ 10 windows `penlearn joint` learns a penalty function of
#   the window features instead of a constant (`joint_model.json`, reused with
#   `--model`).
