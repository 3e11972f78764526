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
# # Tuning ruptures' `pen` from labels: `penlearn.SupervisedPenalty`
#
# Which `pen` should `rpt.Pelt(...).predict(pen=...)` get? One constant is rarely right
# for every signal: the penalty that finds the real changes grows with the noise variance
# and the length of the signal. This notebook labels a few simulated signals whose noise
# SD differs tenfold between signals, and compares on **held-out** signals:
#
# * the tuned detector, `penlearn.SupervisedPenalty(rpt.Pelt(model="l2"))`: the exact
#   path of Pelt's models over `pen` for each labeled signal (CROPS, Haynes, Eckley &
#   Fearnhead 2017), their label errors, and `learn_penalty` on built-in features
#   (length, robust noise SD, and the noise level in Pelt's own cost units: the cost
#   of short windows per sample); a 5-fold cross-validation on the training signals
#   keeps the learned function only if it beats the best constant there;
# * ruptures with the one constant `pen` that makes the fewest label errors on the
#   training signals;
# * ruptures with the BIC-style `pen = 2σ̂² log n` (σ̂ from the MAD of first differences).
#
# Every number below is computed when the notebook runs.

# %%
# %matplotlib inline
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import ruptures as rpt

import penlearn as pl
from penlearn.tune import (bic_penalty, detector_label_errors, path_error_functions,
                           signals_from_sequences)

warnings.filterwarnings("ignore", message="learn_penalty: dropped")
pd.set_option("display.width", 120)

sim = pl.simulate(40, seed=7, n_points=(150, 300))
signals = signals_from_sequences(sim.sequences)    # dict id -> np.ndarray
labels = sim.labels                                # sequence_id, start, end, annotation
ids = list(signals)
train, test = ids[:20], ids[20:]

def subset(keep):
    return {s: signals[s] for s in keep}, labels[labels["sequence_id"].isin(keep)]

(tr_sig, tr_lab), (te_sig, te_lab) = subset(train), subset(test)
truth = sim.truth.set_index("sequence_id")
print(f"{len(train)} training and {len(test)} held-out signals, {len(te_lab)} held-out labels;"
      f" noise SD from {truth['sd'].min():.2f} to {truth['sd'].max():.2f}")

# %% [markdown]
# A few of the signals with their labels (green: no change allowed; orange: exactly one
# change; purple: at least one). A label covers (start, end] in array indices: a change
# at t (a new segment starts at index t) is inside when start < t ≤ end.

# %%
colors = {"0changes": "tab:green", "1change": "tab:orange", ">0changes": "tab:purple"}
fig, axes = plt.subplots(3, 1, figsize=(10, 6), sharex=True)
for ax, sid in zip(axes, [train[0], train[1], train[2]]):
    ax.plot(signals[sid], ".", ms=2, color="k")
    for _, r in labels[labels["sequence_id"] == sid].iterrows():
        ax.axvspan(r["start"], r["end"], color=colors[r["annotation"]], alpha=0.3)
    ax.set_title(f"{sid}: noise SD {truth.loc[sid, 'sd']:.2f}", fontsize=9)
plt.tight_layout()

# %% [markdown]
# ## Fit the tuner
#
# `fit` finds, for each labeled signal, every model Pelt returns over `pen` and the
# `pen`-interval of each; the number of Pelt calls ("solves") stays within
# 4·(models on the path) + 2. It then compares, by 5-fold cross-validation over the
# training signals (whole signals held out), the learned penalty function (two ways of
# setting its level) with the best constant `pen`: `chosen_` is the one kept (a
# learned one only when it beats the constant by more than one standard error),
# `cv_errors_` the held-out label errors of each per fold.

# %%
detector = rpt.Pelt(model="l2")                     # ruptures' defaults: min_size 2, jump 5
t0 = time.perf_counter()
tuner = pl.SupervisedPenalty(detector).fit(tr_sig, tr_lab)
print(f"fit in {time.perf_counter() - t0:.1f} s; chosen by CV: {tuner.chosen_}")
print(tuner.cv_errors_)
paths = pd.DataFrame({"models": [len(p.models) for p in tuner.paths_.values()],
                      "solves": [p.n_solves for p in tuner.paths_.values()]},
                     index=list(tuner.paths_))
print(paths.describe().loc[["mean", "max"]])
assert (paths["solves"] <= 4 * paths["models"] + 2).all()

# the path is the detector's own output: check it at a few penalties of one signal
sid = train[0]
path = tuner.paths_[sid]
for lam in np.geomspace(path.stopped_at_lambda * 1.01, 1e4, 15):
    assert path.model_at(lam).tolist() == detector.fit(signals[sid]).predict(pen=lam)[:-1]
path.models[["n_changes", "min_lambda", "max_lambda"]].tail(6)

# %% [markdown]
# ## Three ways to choose `pen`, on the held-out signals
#
# The constant is the `pen` with the fewest label errors summed over the training
# signals (the middle of the minimum-error interval of their error functions,
# `tuner.constant_log_penalty_`).
# Label errors are counted by running ruptures itself at each signal's `pen`.

# %%
const_log = tuner.constant_log_penalty_
best = pl.roc_change(tuner.evaluation_, pd.Series(const_log, index=train)).predicted
assert best["errors"] == pl.roc_change(tuner.evaluation_, pd.Series(0.0, index=train)
                                       ).roc["errors"].min()  # fewest training errors

log_pens = {
    "tuned": tuner.predict_log_penalty(te_sig),
    "constant": pd.Series(const_log, index=test),
    "BIC": np.log(pd.Series({s: bic_penalty(x) for s, x in te_sig.items()})),
}
rows = {}
for how, lp in log_pens.items():
    err = detector_label_errors(detector, te_sig, te_lab, np.exp(lp))
    rows[how] = {"fp": err["fp"].sum(), "fn": err["fn"].sum(), "errors": err["errors"].sum(),
                 "% labels wrong": 100 * err["errors"].sum() / len(te_lab)}
errors = pd.DataFrame(rows).T
order = errors["errors"].sort_values()
print("fewest held-out label errors:", ", ".join(f"{k} {v:.0f}" for k, v in order.items()))
errors

# %% [markdown]
# With 20 training signals the ranking varies from draw to draw (a few labels decide
# it); `benchmarks/tune_detector.py` measures the three rules on 50 training and 50
# held-out signals for ruptures Pelt (l2, rbf) and skchange's PELT, and
# `benchmarks/RESULTS.md` records its numbers.

# %% [markdown]
# ## ROC curves
#
# The held-out signals' own paths give their error functions over log `pen`; adding one
# constant to every predicted log `pen` traces each method's ROC curve (`roc_change`,
# the generalized ROC of Hillman & Hocking 2023). A constant penalty has no ranking
# information: its curve is the one of a single threshold moved for all signals.

# %%
te_ev = path_error_functions(tuner.paths(te_sig, test), te_lab)
fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharey=True)
for ax, (how, lp) in zip(axes, log_pens.items()):
    roc = pl.roc_change(te_ev, lp)
    ax.plot(roc.roc["fpr"], roc.roc["tpr"], "-", color="k")
    at = roc.thresholds.loc["predicted"]
    ax.plot(at["fpr"], at["tpr"], "o", color="tab:red", label="its predictions")
    ax.set_title(f"{how}: AUC {roc.auc:.3f}, {errors.loc[how, 'errors']:.0f} errors")
    ax.set_xlabel("FPR")
    ax.legend(loc="lower right")
axes[0].set_ylabel("TPR")
plt.tight_layout()

# %% [markdown]
# ## The predicted penalty per signal
#
# The tuned `pen` follows the noise level, as the BIC-style rule does, but with the slope
# and level that fit the labels (when the CV keeps the learned function); the constant
# ignores it.

# %%
sd = truth.loc[test, "sd"]
fig, ax = plt.subplots(figsize=(6, 4))
for how, marker in zip(log_pens, ["o", "_", "x"]):
    ax.plot(sd, np.exp(log_pens[how].loc[test]), marker, ls="", label=how)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("true noise SD of the signal")
ax.set_ylabel("pen")
ax.legend()
plt.tight_layout()
if tuner.model_ is not None:
    print("correlation of log pen (tuned) with log SD:",
          round(float(np.corrcoef(np.log(sd), log_pens["tuned"].loc[test])[0, 1]), 3))
