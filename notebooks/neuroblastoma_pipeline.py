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
# # From raw copy-number profiles to predicted changepoints: the whole pipeline
#
# Neuroblastoma tumours are characterised by gains and losses of chromosome parts. In
# each array-CGH copy-number profile a biologist marked regions where the DNA copy
# number changes (`1breakpoint`, `>0breakpoints`) or does not (`normal`) (Hocking et
# al., 2013). From these labels we learn a penalty function that predicts, for a new
# profile, how many changepoints to report. Every step is a penlearn call:
#
# raw profiles → optimal segmentations → labels → error functions → learned penalty →
# predicted changepoints, plotted with the labels → ROC-change report.

# %%
# %matplotlib inline
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import penlearn

from _setup import DATA  # notebooks/_setup.py: pandas display options, the data folder

from penlearn.plotting import (
    plot_error_functions,
    plot_learning_curves,
    plot_roc,
    plot_segmentation,
)
from penlearn.report import errors_at_predictions, summary_table

# %% [markdown]
# ## 1. Raw profiles and labels
#
# `profiles.csv.gz` holds 154 raw profiles (one per patient and chromosome; log2 copy
# number ratios at probe positions in base pairs). To keep this notebook quick we use
# the 150 profiles with at most 1000 probes. The labels are the *detailed* annotations
# (`bams::neuroblastomaDetailed`); a label covers the positions in (start, end].

# %%
nb = DATA / "neuroblastoma"
profiles = pd.read_csv(nb / "profiles.csv.gz")
profiles["sequence_id"] = (profiles["profile.id"].astype(str) + "_chr"
                           + profiles["chromosome"].astype(str))
sequences = profiles.rename(columns={"logratio": "value"})[["sequence_id", "position", "value"]]
sizes = sequences.groupby("sequence_id").size()
sequences = sequences[sequences["sequence_id"].isin(sizes.index[sizes <= 1000])]

ann = pd.read_csv(nb / "annotations_detailed.csv.gz")
ann["sequence_id"] = ann["profile.id"].astype(str) + "_chr" + ann["chromosome"].astype(str)
labels = (ann[ann["sequence_id"].isin(sequences["sequence_id"])]
          .rename(columns={"min": "start", "max": "end"})
          [["sequence_id", "start", "end", "annotation"]].reset_index(drop=True))
labels = penlearn.check_labels(labels)  # validates: no overlaps, known annotations
print(f"{sequences['sequence_id'].nunique()} sequences, {len(sequences)} data points, "
      f"{len(labels)} labels")
labels["annotation"].value_counts()

# %% [markdown]
# ## 2. Optimal segmentations
#
# For each profile, the best models with 1 to 20 segments (square loss: a change in
# mean), computed exactly by dynamic programming. `changes` holds the change positions
# of every model, placed halfway between the two probes they separate.

# %%
t0 = time.perf_counter()
models, changes = penlearn.segment_sequences(sequences, max_segments=20, progress=False)
print(f"{len(models)} models in {time.perf_counter() - t0:.1f} s")
models.head()

# %% [markdown]
# ## 3. Labels → label errors → error functions
#
# Each model gets false positives (too many changes in a label) and false negatives
# (too few). The exact penalty path of each profile turns them into piecewise-constant
# functions of log λ: the *evaluation* table.

# %%
evaluation = penlearn.error_functions(models, changes, labels)
targets = penlearn.target_intervals(evaluation)
print(f"{len(evaluation)} intervals of log λ over {evaluation['sequence_id'].nunique()} sequences")
evaluation.head(8)

# %%
most_labels = labels["sequence_id"].value_counts().index[:3].tolist()
display(plot_error_functions(evaluation, most_labels))

# %% [markdown]
# ## 4. Features, train and test sets
#
# Features of each profile, reproduced from the raw data as in penaltyLearning
# (number of probes, Hall's noise estimate, the residual sums of squares of the 1..20
# segment models, and their logs). Folds: the `profileID` cross-validation split of
# the neuroblastoma-data repository (all chromosomes of a patient in one fold); fold 3
# is the test set.

# %%
features = penlearn.feature_matrix(sequences, "neuroblastoma")
folds = pd.read_csv(nb / "folds.csv.gz")
folds = folds[(folds["labels"] == "detailed") & (folds["split"] == "profileID")]
fold = folds.set_index("sequenceID")["fold"].reindex(features.index)
test_ids = fold.index[fold == 3]
train_ids = fold.index[fold != 3]
ev_train = evaluation[evaluation["sequence_id"].isin(train_ids)]
ev_test = evaluation[evaluation["sequence_id"].isin(test_ids)]
print(f"{features.shape[1]} features; {len(train_ids)} train and {len(test_ids)} test sequences")
features.loc[train_ids[:3], ["n", "log.n", "hall", "log.hall", "rss.1", "log.rss.1"]]

# %% [markdown]
# ## 5. Learning the penalty
#
# `learn_penalty(model="linear", groups=None)` splits the training sequences into
# subtrain and validation sets (sorted by id, alternately), standardises the finite
# features, initialises with L1-regularised interval regression on the target intervals
# (`max_steps=0` stops right there), then runs AUM gradient descent with the exact
# line search and keeps the iterate with the best validation AUC. (Its default model,
# AUM gradient boosting, is described in the docs' "Learning" page.)

# %%
t0 = time.perf_counter()
init_model = penlearn.learn_penalty(features.loc[train_ids], ev_train, max_steps=0,
                                    model="linear", groups=None, random_state=1,
                                    progress=False)
print(f"interval regression in {time.perf_counter() - t0:.1f} s: "
      f"{int((init_model.coef_ != 0).sum())} non-zero weights, validation AUC "
      f"{init_model.history_['validation_auc'].iloc[0]:.4f}")
init_model.coef_[init_model.coef_ != 0]

# %% [markdown]
# Here the interval-regression solution is already a **stationary point of the AUM**:
# every directional derivative of the subtrain AUM is zero, so gradient descent from it
# cannot move. (AUM is piecewise linear; a sequence whose FN function goes down and up
# again opens a window of positive min(FP, FN) whose two ends both move with that
# sequence's score, leaving the area unchanged.) We check it on the subtrain
# breakpoints, with the analytic derivatives and with finite differences:

# %%
subtrain = sorted(train_ids, key=str)[0::2]  # learn_penalty's default split
bp_sub = penlearn.breakpoints_from_errors(ev_train[ev_train["sequence_id"].isin(subtrain)],
                                          normalize="rate")
scores = -init_model.predict(features.loc[list(bp_sub.example_ids)])  # score = -log λ
at_init = penlearn.aum(bp_sub, scores)
eps = 1e-6
finite_diff = [(penlearn.aum(bp_sub, scores + eps * e).aum
                - penlearn.aum(bp_sub, scores - eps * e).aum) / (2 * eps)
               for e in np.eye(len(scores))]
print(f"subtrain AUM {at_init.aum:.5f}; largest |derivative| {np.abs(at_init.derivatives).max()}; "
      f"largest |finite difference| {np.max(np.abs(finite_diff)):.2g}")

# %% [markdown]
# So we also learn from a zero initialisation (constant penalty), where the AUM
# gradient is informative, with the exact first-min line search:

# %%
t0 = time.perf_counter()
model = penlearn.learn_penalty(features.loc[train_ids], ev_train, init="zero",
                               line_search="first_min", model="linear", groups=None,
                               random_state=1, progress=False)
print(f"{len(model.history_) - 1} gradient steps in {time.perf_counter() - t0:.1f} s; "
      f"best validation AUC {model.history_['validation_auc'].max():.4f} at step "
      f"{model.best_step_}")
display(plot_learning_curves(model.history_))
model.history_[["step", "step_size", "subtrain_aum", "validation_aum", "validation_auc",
                "events"]]

# %% [markdown]
# ## 6. Predicted changepoints on test profiles
#
# `PenaltyModel.segment` predicts log λ from a profile's features, computes its
# optimal models and returns the changes of the model selected by that penalty. We
# plot them with the labels (which the model never saw) for the test profiles with the
# most labels.

# %%
test_labels = labels[labels["sequence_id"].isin(test_ids)]
show = test_labels["sequence_id"].value_counts().index[:3]
fig, axes = plt.subplots(len(show), 1, figsize=(9, 2.6 * len(show)))
for ax, sid in zip(axes, show):
    seq = sequences[sequences["sequence_id"] == sid]
    pos = model.segment(seq, features.loc[sid], max_segments=20)
    plot_segmentation(seq, sid, labels=test_labels,
                      changes=pd.DataFrame({"sequence_id": sid, "position": pos}), ax=ax)
    ax.set_title(f"{sid}: {len(pos)} predicted change(s)", fontsize=9, loc="left")
fig.tight_layout()

# %%
bic = np.log(np.log(features.loc[test_ids, "n"]))  # BIC-like: λ = log n
predictions = {
    "BIC (λ = log n)": bic,
    "interval regression": pd.Series(init_model.predict(features.loc[test_ids]),
                                     index=test_ids),
    "AUM gradient descent (zero init)": pd.Series(model.predict(features.loc[test_ids]),
                                                  index=test_ids),
}
errors_at_predictions(ev_test, predictions["AUM gradient descent (zero init)"]).head(10)

# %% [markdown]
# ## 7. ROC-change report on the test set
#
# For each set of predictions, the generalized ROC curve (a constant added to every
# predicted log λ), its AUC, the AUM and the label errors at the predicted penalties.
# `roc_change_report` writes the same as a self-contained HTML page.

# %%
rocs = {name: penlearn.roc_change(ev_test, pred) for name, pred in predictions.items()}
display(plot_roc(rocs, label_points=False))
summary_table(rocs)

# %%
import tempfile

report = penlearn.roc_change_report(
    ev_test, predictions, Path(tempfile.mkdtemp()) / "neuroblastoma_report.html",
    title="Neuroblastoma: test fold 3", model=model,
    sequences=sequences[sequences["sequence_id"].isin(test_ids)], labels=test_labels)
print("report written to", report, f"({report.stat().st_size // 1024} kB)")

# %%
table = summary_table(rocs)
best = table["errors"].idxmin()
print(f"test labels: {int(ev_test.groupby('sequence_id')['labels'].first().sum())}")
for name, row in table.iterrows():
    print(f"{name:34s} {int(row['errors']):3d} label errors at the predicted penalties "
          f"(FP {int(row['fp'])}, FN {int(row['fn'])}), AUC {row['auc']:.4f}")
print(f"fewest errors: {best}")

# %% [markdown]
# The BIC-like penalty ignores how noisy each profile is and misses many labeled
# changes (false negatives). Both learned penalties do much better. Which of the two
# learned models wins depends on the data: with about a hundred training profiles, AUM
# gradient descent from zero drives the subtrain AUM to 0 within a few steps (it can
# overfit), whereas the margin of interval regression regularises; the printout above
# gives this run's numbers.
