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
# # ChIP-seq peaks from coverage: labels → peak models → errors → learned penalty
#
# A genomics user starts from aligned-read **coverage** (bedGraph) and **peak
# labels** drawn in a genome browser. This notebook goes from there to peaks on
# held-out samples, in Python alone:
#
# 1. read the coverage of 8 samples (H3K36me3, chr21) and their 48 labels;
# 2. the PeakSeg model (up-down constrained Poisson segmentation; Hocking et al.
#    2020, 2022) of one sample at a penalty, drawn as a genome browser would;
# 3. every sample's path of peak models over the penalty and its label errors:
#    the error functions (`peak_error_functions`);
# 4. the 36 coverage features, a penalty learned on 6 samples (`learn_penalty`'s
#    default, `model="auto"`), its ROC-change report, and its test label
#    errors against the best constant penalty;
# 5. the predicted penalty of the 2 held-out samples → their peaks (BED) and label
#    errors.
#
# Data: `chipseq_raw/H3K36me3_TDH_other_chunk1` of the shared data folder
# (`PENLEARN_DATA`).

# %%
# %matplotlib inline
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import penlearn

from _setup import CACHE, DATA  # notebooks/_setup.py: pandas display, data folder, cache

# %%
from concurrent.futures import ProcessPoolExecutor

folder = DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
coverage = penlearn.read_coverage(folder / "coverage.csv.gz")
labels = penlearn.read_peak_labels(folder / "labels.csv")
print(coverage.groupby("sample_id", sort=False).size().rename("bedGraph rows"))
labels.head(6)

# %% [markdown]
# ## 1. One sample's peak model at a penalty
#
# `peakseg(coverage, penalty)` minimises the Poisson loss + λ·(number of peaks)
# over segmentations that alternate background / peak (exactly, by functional
# pruning). Below, the coverage of one sample, its labels (coloured regions) and
# the peaks of the model at λ = 20,000.

# %%
COLORS = {"noPeaks": "#f6f4bf", "peakStart": "#ffafaf", "peakEnd": "#ff4c4c",
          "peaks": "#a445ee"}


def browser(sample, peaks, title):
    cov = coverage[coverage["sample_id"] == sample]
    lab = labels[labels["sample_id"] == sample]
    fig, ax = plt.subplots(figsize=(11, 3))
    for r in lab.itertuples():
        ax.axvspan(r.chromStart / 1e3, r.chromEnd / 1e3, color=COLORS[r.annotation],
                   alpha=0.7, lw=0)
    x = np.r_[cov["chromStart"].to_numpy(), cov["chromEnd"].to_numpy()[-1]] / 1e3
    ax.stairs(cov["count"].to_numpy(), x, color="grey", lw=0.6)
    top = cov["count"].max()
    for r in peaks.itertuples():
        ax.plot([r.chromStart / 1e3, r.chromEnd / 1e3], [top * 1.05] * 2,
                color="deepskyblue", lw=4, solid_capstyle="butt")
    ax.set_xlabel(f"position on {cov['chrom'].iloc[0]} (kb)")
    ax.set_ylabel("aligned reads")
    ax.set_title(title)
    ax.set_ylim(0, top * 1.12)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLORS.values()]
    handles.append(plt.Line2D([], [], color="deepskyblue", lw=4))
    # outside the axes, right of them: no label or peak under the legend
    ax.legend(handles, [*COLORS, "model's peaks"], fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1), borderaxespad=0)
    fig.tight_layout()
    return fig


one = "McGill0019"
cov1 = coverage[coverage["sample_id"] == one].drop(columns=["sample_id", "cell_type"])
fit = penlearn.peakseg(cov1, 20_000.0)
print(fit.loss.T)
errs = penlearn.peak_label_errors(fit.peaks, labels[labels["sample_id"] == one]
                                  .drop(columns="sample_id"))
browser(one, fit.peaks, f"{one}: {fit.n_peaks} peaks at λ = 20,000, "
        f"{int(errs.totals['errors'].iloc[0])} label errors");

# %% [markdown]
# ## 2. Error functions of every sample, from coverage
#
# For each (sample, window) the exact path of peak models over λ (the models on
# the lower convex hull of (peaks, loss), found with O(models) penalised solves),
# stopped where every label has the errors of the most complex model, and the
# label errors of each model: one row per interval of log λ. A process pool runs
# one task per sample. With `$PENLEARN_CACHE_DIR` set (`CACHE`), each sample's table
# is kept there and a rerun reads it back.

# %%
t0 = time.perf_counter()
with ProcessPoolExecutor(2) as pool:
    evaluation = penlearn.peak_error_functions(coverage, labels, executor=pool,
                                               progress=False, cache=CACHE)
print(f"{evaluation['sequence_id'].nunique()} sequences, {len(evaluation)} rows, "
      f"{time.perf_counter() - t0:.1f} s")
per_seq = evaluation.groupby("sequence_id").agg(
    models=("peaks", "size"), most_peaks=("peaks", "max"), min_errors=("errors", "min"),
    labels=("labels", "first"))
assert (per_seq["min_errors"] == 0).all()  # every sample has a model with no error
per_seq

# %%
from penlearn.plotting import plot_error_functions

first = evaluation[evaluation["sequence_id"] == evaluation["sequence_id"].iloc[0]]
display(plot_error_functions(first, [first["sequence_id"].iloc[0]]))

# %% [markdown]
# ## 3. Features, a learned penalty, and its ROC
#
# The 36 coverage features of the UCI ChIP-seq sets per (sample, window); 2 samples
# (one kidney, one muscle) are held out as the test set, the 6 others are split
# alternately into subtrain and validation, as in Fowler & Hocking (2024).

# %%
features = penlearn.coverage_features(coverage)
ids = sorted(evaluation["sequence_id"].unique())
test = [i for i in ids if i.split("/")[0] in ("McGill0023", "McGill0037")]
rest = [i for i in ids if i not in test]
sub, val = rest[0::2], rest[1::2]


def part(s):
    return features.loc[s], evaluation[evaluation["sequence_id"].isin(s)]


model = penlearn.learn_penalty(*part(sub), validation=part(val), model="boosting",
                               progress=False, random_state=1,
                               scale_features=features.loc[rest])
model.history_[["step", "subtrain_aum", "validation_auc"]].tail()

# %%
log_lambda = pd.Series(model.predict(features.loc[test]), index=test)
roc = penlearn.roc_change(evaluation[evaluation["sequence_id"].isin(test)], log_lambda)
print(f"test AUC {roc.auc:.3f}, AUM {roc.aum:.3g}")
roc.thresholds

# %% [markdown]
# ### Did learning pay? Learned penalties against the best constant one
#
# The model above is AUM gradient boosting (`model="boosting"`; `learn_penalty`'s
# default, `model="auto"`, chooses among the constant, the linear model and boosting by
# cross-validation over whole regions, which 6 training samples are too few for): it
# starts from a constant log λ and keeps a tree only if it raises the validation AUC; the level of
# log λ is then set for validation label errors. The baseline is the one penalty of
# fewest label errors on the 6 training samples (`best_constant_log_lambda`). The
# cell below says, with this run's numbers, whether learning changed the model and
# whether it lowered the test label errors, and if not, why. (This chunk has one
# window per sample: 8 sequences are few to learn from. Where learning pays on
# many labeled regions: the README's "does learning pay?" row,
# `benchmarks/all_sets.py`; on simulated data: `penlearn demo`; on these 8 samples at
# 4 sequencing depths, where it beats the best constant: `chipseq_learning_pays.ipynb`.)

# %%
from penlearn.learn.penalty import BOOSTING_OPTIONS
from penlearn.report import best_constant_log_lambda

ev_test = evaluation[evaluation["sequence_id"].isin(test)]
constant = best_constant_log_lambda(evaluation[evaluation["sequence_id"].isin(rest)])
compare = {"learned": log_lambda, "best constant": pd.Series(constant, index=test)}
rows = {}
for name, pred in compare.items():
    r = penlearn.roc_change(ev_test, pred).thresholds.loc["predicted"]
    rows[name] = {"label errors": int(r["errors"]), "labels": int(r["labels"]),
                  "FP": int(r["fp"]), "FN": int(r["fn"])}
v = model.history_["validation_auc"]
print(f"{model.level_['model']}: {len(model.trees_)} of {len(v) - 1} trees kept, "
      f"validation AUC {v.iloc[0]:.4f} (constant start) -> "
      f"{v.iloc[model.best_step_]:.4f}; level scale {model.level_['scale']:g}")
e_l, e_c = rows["learned"]["label errors"], rows["best constant"]["label errors"]
leaf = BOOSTING_OPTIONS["min_samples_leaf"]
if len(v) == 1:
    print(f"learning did not change the model: no tree was fit, since the {len(sub)} "
          f"subtrain sequences (one per sample: this chunk is one window) are fewer "
          f"than two leaves of {leaf}; the model is the constant start, its level "
          "set on validation")
elif not model.trees_:
    print("learning did not change the model: no tree raised the validation AUC")
if e_l < e_c:
    print(f"learning lowered the test label errors: {e_l} vs {e_c}")
elif e_c == 0:
    print("the best constant penalty already has no test label error: nothing for "
          "learning to lower on these 2 samples")
else:
    print(f"learning did not lower the test label errors ({e_l} vs {e_c})")
pd.DataFrame(rows).T

# %%
import tempfile

report = penlearn.roc_change_report(
    evaluation[evaluation["sequence_id"].isin(test)], {"learned": log_lambda},
    Path(tempfile.mkdtemp()) / "chipseq_report.html", model=model,
    title="H3K36me3 chr21: learned peak penalties on held-out samples")
print("report:", report)

# %% [markdown]
# ## 4. Peaks of the held-out samples at their predicted penalties
#
# `predict_peaks` solves one PeakSeg model per window at its predicted λ; the peaks
# go to BED files. Their label errors must be those of the error functions at the
# predicted log λ (two independent computations).

# %%
from penlearn.peaks.peakseg.evaluation import predict_peaks

peaks = predict_peaks(
    coverage[coverage["sample_id"].isin([t.split("/")[0] for t in test])],
    log_penalty=log_lambda)
out = Path(tempfile.mkdtemp())
for sample, p in peaks.groupby("sample_id"):
    penlearn.write_bed(p[["chrom", "chromStart", "chromEnd"]], out / f"{sample}.bed")
print(sorted(f.name for f in out.iterdir()))
for sid, p in peaks.groupby("sequence_id"):
    sample = sid.split("/")[0]
    got = penlearn.peak_label_errors(p[["chrom", "chromStart", "chromEnd"]],
                                     labels[labels["sample_id"] == sample]
                                     .drop(columns="sample_id")).totals
    ev = evaluation[evaluation["sequence_id"] == sid]
    row = ev[(ev["min_log_lambda"] < log_lambda[sid])
             & (log_lambda[sid] <= ev["max_log_lambda"])].iloc[0]
    assert int(got["errors"].iloc[0]) == row["errors"], sid
    print(f"{sid}: {len(p)} peaks, {int(row['errors'])} label errors")

# %%
sample = test[0].split("/")[0]
browser(sample, peaks[peaks["sample_id"] == sample],
        f"held-out {sample}: peaks at the learned penalty");
