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
# # Where learning pays: peak penalties for samples sequenced at different depths
#
# The right PeakSeg penalty depends on the sample: the Poisson loss a peak saves grows
# with the number of reads, so a deeply sequenced sample needs a larger penalty λ than a
# shallow one for the same peaks. One constant λ cannot suit samples of very different
# depths; a penalty *learned* from the coverage features (`learn_penalty`, the same as
# `penlearn learn`) can. This notebook shows it on held-out samples, starting where a
# genomics user starts, from coverage files and peak labels:
#
# 1. coverage of 8 H3K36me3 samples (chr21, `chipseq_raw/H3K36me3_TDH_other_chunk1`)
#    at 4 sequencing depths, written as bedGraph files, and their peak labels;
# 2. the error functions of every (sample, depth, labeled window) over the penalty;
# 3. 4-fold cross-validation over **samples** (all depths of a held-out sample are held
#    out together): the learned penalty (`model="linear"`; section 5: what the default `auto` picks) against the best
#    constant penalty of the same training samples, in test label errors;
# 4. the figure: test label errors per fold, and each held-out window's predicted log λ
#    against the interval of log λ where its labels have fewest errors.
#
# (`chipseq_from_coverage.ipynb` walks through the same steps on the 8 samples at
# their own depth, where the best constant already has no test error.)

# %%
# %matplotlib inline
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import penlearn
from penlearn.report import best_constant_log_lambda

from _setup import DATA  # notebooks/_setup.py: pandas display options, the data folder

start = time.process_time()

# %% [markdown]
# ## 1. The samples at 4 sequencing depths, as coverage files
#
# Fewer reads are simulated by **binomial thinning**: each coverage count c becomes
# Binomial(c, f) for a fraction f of 1, 1/2, 1/4 and 1/8 (a seeded NumPy generator).
# Keeping each read with probability f gives every base exactly this Binomial(c, f)
# count, and the same count to every base of a bedGraph row covered by the same reads;
# thinning row by row approximates sequencing fewer reads, missing only that neighbouring
# rows share reads. The thinned coverage is written as one bedGraph per sample and depth
# (`McGill0023_d4.bedGraph`: sample McGill0023 at 1/4 of its depth), and each sample's
# labels are repeated for its 4 depths — then the files are read back as a user's would be.

# %%
source = DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
original = penlearn.read_coverage(source / "coverage.csv.gz")
original_labels = penlearn.read_peak_labels(source / "labels.csv")
DEPTHS = [1, 2, 4, 8]  # 1/f


def depth_name(d):
    return "full" if d == 1 else f"1/{d}"


rng = np.random.default_rng(39)
folder = Path(tempfile.mkdtemp())
label_rows = []


def runs(table):
    """Adjacent rows of equal count joined (a bedGraph's usual form)."""
    count = table["count"].to_numpy()
    keep = np.r_[True, count[1:] != count[:-1]]
    out = table[keep].copy()
    out["chromEnd"] = np.r_[table["chromStart"].to_numpy()[keep][1:],
                            table["chromEnd"].iloc[-1]]
    return out


for sample, cov in original.groupby("sample_id", sort=False):
    for d in DEPTHS:
        count = cov["count"].to_numpy()
        thinned = count if d == 1 else rng.binomial(count, 1 / d)
        rows = runs(cov[["chrom", "chromStart", "chromEnd"]].assign(count=thinned))
        penlearn.write_bedgraph(rows, folder / f"{sample}_d{d}.bedGraph", value="count")
        label_rows.append(original_labels[original_labels["sample_id"] == sample]
                          .assign(sample_id=f"{sample}_d{d}"))
pd.concat(label_rows).to_csv(folder / "labels.csv", index=False)
print(len(list(folder.glob("*.bedGraph"))), "bedGraph files and labels.csv in", folder)

# %%
coverage = penlearn.read_coverage(folder)  # one sample per file: the file name
labels = penlearn.read_peak_labels(folder / "labels.csv")
per_file = coverage.assign(bases=coverage["chromEnd"] - coverage["chromStart"])
per_file = per_file.assign(reads=per_file["bases"] * per_file["count"]).groupby(
    "sample_id").agg(rows=("count", "size"), mean_coverage=("reads", "sum"),
                     bases=("bases", "sum"))
per_file["mean_coverage"] /= per_file["bases"]
per_file.drop(columns="bases").head(8)

# %% [markdown]
# The labels lie in two clusters of chr21; one window around each (the "problems" a
# user draws labels in) is the unit of the peak models and of the features.

# %%
windows = pd.DataFrame({"chrom": "chr21", "chromStart": [43_142_000, 43_378_000],
                        "chromEnd": [43_229_000, 43_436_000]})
one = "McGill0023"
w = windows.iloc[1]
fig, axes = plt.subplots(len(DEPTHS), 1, figsize=(10, 5.5), sharex=True)
for ax, d in zip(axes, DEPTHS):
    c = coverage[(coverage["sample_id"] == f"{one}_d{d}")
                 & (coverage["chromEnd"] > w.chromStart) & (coverage["chromStart"] < w.chromEnd)]
    ax.stairs(c["count"].to_numpy(),
              np.r_[c["chromStart"].to_numpy(), c["chromEnd"].to_numpy()[-1]] / 1e3,
              color="grey", lw=0.6)
    lab = labels[(labels["sample_id"] == f"{one}_d{d}") & (labels["chromEnd"] > w.chromStart)
                 & (labels["chromStart"] < w.chromEnd)]
    for r in lab.itertuples():
        ax.axvspan(r.chromStart / 1e3, r.chromEnd / 1e3, alpha=0.25,
                   color={"noPeaks": "gold", "peakStart": "salmon",
                          "peakEnd": "red"}.get(r.annotation, "purple"), lw=0)
    ax.set_ylabel(depth_name(d))
axes[0].set_title(f"{one}: aligned reads in one labeled window at 4 depths (labels: "
                  "noPeaks yellow, peakStart light red, peakEnd red)")
axes[-1].set_xlabel("position on chr21 (kb)")
axes[-1].set_xlim(w.chromStart / 1e3, w.chromEnd / 1e3)
fig.tight_layout()

# %% [markdown]
# ## 2. Error functions over the penalty
#
# For every (sample, depth, window) the exact path of peak models over λ, bounded at 5
# peaks (each window holds at most 2 labeled peaks: the fewest-error models are inside
# the bound), and the label errors of each model. A process pool runs one task per
# (sample, window).

# %%
t0 = time.perf_counter()
with ProcessPoolExecutor(2) as pool:
    evaluation = penlearn.peak_error_functions(coverage, labels, windows=windows,
                                               max_peaks=5, executor=pool, progress=False)
features = penlearn.coverage_features(coverage, windows)
ids = list(evaluation["sequence_id"].unique())
# the log of a zero quartile is -inf: columns learn_penalty would drop (with a warning)
features = features.loc[ids]
features = features.loc[:, np.isfinite(features).all()]
features = features.loc[:, features.std() > 0]
targets = penlearn.target_intervals(evaluation).set_index("sequence_id")
print(f"{len(ids)} sequences (8 samples x 4 depths x 2 windows), {len(evaluation)} rows, "
      f"{time.perf_counter() - t0:.1f} s; every sequence has a model of "
      f"{int(targets['errors'].max())} label errors")

# %% [markdown]
# ## 3. Cross-validation over samples: learned penalty vs best constant
#
# The 8 samples are split into 4 folds of 2 (sorted names, alternately); each fold's
# samples are the test set at all 4 depths, the 6 others the training set. On the
# training set, `learn_penalty(model="linear")` (the linear model of log λ on the
# coverage features, fit by AUM gradient descent; its level of log λ set on a
# validation split of whole samples, `groups=`) and the baseline
# `best_constant_log_lambda` (the one penalty of fewest training label errors). Both are
# scored on the test set by `roc_change` at their predicted log λ. (The default,
# `model="auto"`, chooses between the constant, linear and boosting by its own
# cross-validation: section 5 shows what it chooses on all 8 samples.)

# %%
sample_of = pd.Series([i.split("_d")[0] for i in ids], index=ids)
depth_of = pd.Series([int(i.split("/")[0].split("_d")[1]) for i in ids], index=ids)
samples = sorted(sample_of.unique())
fold_of = sample_of.map({s: k % 4 for k, s in enumerate(samples)})
rows, predicted = [], []
for k in range(4):
    train, test = fold_of.index[fold_of != k], fold_of.index[fold_of == k]
    ev_train = evaluation[evaluation["sequence_id"].isin(train)]
    ev_test = evaluation[evaluation["sequence_id"].isin(test)]
    model = penlearn.learn_penalty(features.loc[train], ev_train, model="linear",
                                   groups=sample_of[train], progress=False)
    learned = pd.Series(model.predict(features.loc[test]), index=test)
    constant = pd.Series(best_constant_log_lambda(ev_train), index=test)
    for name, pred in {"best constant": constant, "learned": learned}.items():
        r = penlearn.roc_change(ev_test, pred).thresholds.loc["predicted"]
        rows.append({"fold": k + 1, "held out": " ".join(sorted(sample_of[test].unique())),
                     "penalty": name, "errors": int(r["errors"]), "labels": int(r["labels"]),
                     "FP": int(r["fp"]), "FN": int(r["fn"])})
    predicted.append(pd.DataFrame({"fold": k + 1, "learned": learned, "constant": constant}))
    print(f"fold {k + 1}: {model.describe().splitlines()[0]}")
scores = pd.DataFrame(rows)
predicted = pd.concat(predicted)
scores.pivot(index=["fold", "held out"], columns="penalty", values="errors")

# %%
total = scores.groupby("penalty")[["errors", "labels", "FP", "FN"]].sum()
e_c, e_l = int(total.loc["best constant", "errors"]), int(total.loc["learned", "errors"])
n = int(total.loc["learned", "labels"])
print(f"test label errors over the 4 held-out folds: best constant {e_c} of {n} "
      f"({100 * e_c / n:.1f} %), learned {e_l} of {n} ({100 * e_l / n:.1f} %)")
assert e_l < e_c, "the learned penalty did not beat the best constant on this run"
total

# %% [markdown]
# Where the constant goes wrong: its test label errors by depth (a constant is a
# compromise between the depths: too small for the deep samples, too large for the
# shallow ones).

# %%
by_depth = []
for name, col in {"best constant": "constant", "learned": "learned"}.items():
    for d in DEPTHS:
        sel = depth_of.index[depth_of == d]
        r = penlearn.roc_change(evaluation[evaluation["sequence_id"].isin(sel)],
                                predicted.loc[sel, col]).thresholds.loc["predicted"]
        by_depth.append({"penalty": name, "depth": depth_name(d),
                         "errors": int(r["errors"]), "FP": int(r["fp"]),
                         "FN": int(r["fn"])})
pd.DataFrame(by_depth).pivot(index="depth", columns="penalty",
                             values=["errors", "FP", "FN"]).loc[[depth_name(d) for d in DEPTHS]]

# %% [markdown]
# ## 4. The figure
#
# Left: test label errors of each held-out fold. Right: each held-out window (one
# vertical segment: the interval of log λ where its labels have fewest errors, its
# *target*), against the log of its mean coverage, coloured by depth; the dots are the
# learned log λ, the dashed lines each fold's best constant. A prediction inside the
# segment has the fewest errors possible.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5),
                               gridspec_kw={"width_ratios": [1, 1.6]})
wide = scores.pivot(index="fold", columns="penalty", values="errors")
x = np.arange(len(wide))
ax1.bar(x - 0.2, wide["best constant"], 0.4, label=f"best constant ({e_c})", color="grey")
ax1.bar(x + 0.2, wide["learned"], 0.4, label=f"learned ({e_l})", color="tab:blue")
ax1.set_xticks(x, [f"fold {k}" for k in wide.index])
ax1.set_ylabel(f"test label errors (of {n // 4} per fold)")
ax1.set_title("held-out samples, all depths")
ax1.legend()
colors = dict(zip(DEPTHS, plt.cm.viridis(np.linspace(0, 0.85, len(DEPTHS)))))
logmean = features["log.mean"]
for sid in ids:
    lo, hi = targets.loc[sid, ["min_log_lambda", "max_log_lambda"]]
    lo = lo if np.isfinite(lo) else predicted["learned"].min() - 1
    hi = hi if np.isfinite(hi) else predicted["learned"].max() + 1
    ax2.plot([logmean[sid]] * 2, [lo, hi], color=colors[depth_of[sid]], lw=2, alpha=0.6)
ax2.scatter(logmean[ids], predicted.loc[ids, "learned"], s=14, color="black", zorder=3,
            label="learned log λ")
for c in predicted["constant"].unique():
    ax2.axhline(c, color="grey", ls="--", lw=1)
for d in DEPTHS:
    ax2.plot([], [], color=colors[d], lw=2, label=f"target, depth {depth_name(d)}")
ax2.plot([], [], color="grey", ls="--", label="best constant (per fold)")
ax2.set_xlabel("log mean coverage of the window")
ax2.set_ylabel("log λ")
ax2.set_title("held-out windows: predicted log λ and target intervals")
ax2.legend(fontsize=8, loc="upper left")
fig.tight_layout()

# %% [markdown]
# ## 5. The model to keep: `learn_penalty`'s default on all 8 samples
#
# What `penlearn learn` (or `learn_penalty` with its defaults) would give on all the
# labeled samples: `model="auto"` compares the constant, the linear model and boosting
# by 3-fold cross-validation over whole samples, and says which it chose and why.

# %%
final = penlearn.learn_penalty(features, evaluation, groups=sample_of, progress=False)
print(final.describe())

# %%
print(f"CPU time of this notebook's process: {time.process_time() - start:.0f} s "
      "(the pool's 2 workers not counted)")
