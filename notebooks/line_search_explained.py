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
# # The exact AUM line search, explained on small examples
#
# Fowler & Hocking (2024), *Efficient line search for optimizing Area Under the ROC
# Curve in gradient descent*, compute AUM and AUC **exactly** as functions of the step
# size of a gradient-descent step. This notebook walks through their two kinds of small
# example with penlearn:
#
# 1. a binary classification problem with **four labels**;
# 2. **two labeled changepoint sequences** (neuroblastoma copy-number profiles), whose
#    label-error functions are not monotone.
#
# For each we draw the threshold lines $T_b(s)$, the AUM and AUC paths, and the step
# sizes chosen by the three stopping rules of the paper (first min, linear, quadratic),
# and we check every one of them against a brute-force computation done here in the
# notebook.

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import penlearn

from _setup import DATA  # notebooks/_setup.py: pandas display options, the data folder

from penlearn import line_search
from penlearn.plotting import plot_error_functions, plot_roc, plot_segmentation


def breakpoint_lines(bp, scores, slopes):
    """Threshold lines T_b(s) = (v_b - score[I_b]) + s * (-slope[I_b]) (the paper's eq. 2)."""
    return (bp.value - scores[bp.example], -slopes[bp.example], bp.fp_diff, bp.fn_diff)


# %% [markdown]
# ## Tools: brute force and a picture
#
# The brute force does not use the line-search engine at all. For a step size $s$ the
# scores are $\hat y(s) = \hat y(0) + s\,d$; we recompute AUM with `penlearn.aum`
# (one sort of all thresholds) and AUC with `penlearn.breakpoints_auc` from scratch.
# The candidate event step sizes are **all** pairwise intersections of the threshold
# lines, $O(B^2)$ of them.

# %%
RULES = {"first min": "first_min", "linear": "linear", "quadratic": "all"}


def brute_force_events(intercept, slope):
    """All positive step sizes at which two threshold lines cross (O(B^2) pairs)."""
    i, j = np.triu_indices(len(intercept), k=1)
    ds = slope[i] - slope[j]
    ok = ds != 0
    s = (intercept[j][ok] - intercept[i][ok]) / ds[ok]
    return np.unique(np.round(s[s > 0], 12))


def brute_aum(bp, scores, slopes, s):
    return penlearn.aum(bp, scores + s * slopes).aum


def brute_auc(bp, scores, slopes, s):
    return penlearn.breakpoints_auc(bp, scores + s * slopes)


def brute_force_stops(bp, scores, slopes, events):
    """Step size intervals (lo, hi) of the minimum each rule looks for, from brute force."""
    pts = np.r_[0.0, events]
    aum_pts = np.array([brute_aum(bp, scores, slopes, s) for s in pts])
    out = {}
    for rule, last in (("first min", None), ("linear", len(bp)), ("quadratic", len(pts) - 1)):
        if rule == "first min":  # first k whose next AUM value is larger
            k = next((k for k in range(len(pts) - 1) if aum_pts[k + 1] > aum_pts[k] + 1e-12),
                     len(pts) - 1)
            best = aum_pts[: k + 1].min()
        else:
            best = aum_pts[: last + 1].min()
            k = last
        at = np.flatnonzero(np.isclose(aum_pts[: k + 1], best, atol=1e-12))
        lo, hi = pts[at[0]], pts[at[-1]]
        if rule == "first min" and k == len(pts) - 1:
            hi = np.inf  # flat to the end of the path
        out[rule] = (best, lo, hi)
    return out, pts, aum_pts


def check_against_brute_force(bp, scores, slopes):
    """Run the engine with each rule and compare everything with brute force."""
    intercept, slope, _, _ = breakpoint_lines(bp, scores, slopes)
    events = brute_force_events(intercept, slope)
    full = line_search(bp, scores, slopes, stop="all")
    path = full.path
    # 1. the events: the same step sizes
    assert np.allclose(path["step_size"].to_numpy()[1:], events), "event step sizes differ"
    # 2. AUM at every event, AUC at every event and in between
    at = path["step_size"].to_numpy()
    assert np.allclose(path["aum"], [brute_aum(bp, scores, slopes, s) for s in at])
    # AUC after each event: at the midpoint to the next event (after the last: one further)
    between = np.r_[(at[:-1] + at[1:]) / 2, at[-1] + 1.0]
    after = np.array([brute_auc(bp, scores, slopes, s) for s in between])
    assert np.allclose(path["auc_after"], after), "AUC after an event differs"
    # AUC exactly at an event: two tied thresholds form one diagonal ROC segment, whose
    # area is the mean of the areas just before and just after the swap. (Brute force at
    # the rounded step size cannot see the exact tie: one side or the other wins.)
    assert np.isclose(path["auc"].iloc[0], brute_auc(bp, scores, slopes, 0.0))
    swap = path["intervals"].to_numpy()[1:] == 1
    at_event = path["auc"].to_numpy()[1:][swap]
    assert np.allclose(at_event, ((after[:-1] + after[1:]) / 2)[swap]), "AUC at an event differs"
    # 3. the stopping rules
    expected, pts, aum_pts = brute_force_stops(bp, scores, slopes, events)
    rows = []
    for rule, stop in RULES.items():
        r = line_search(bp, scores, slopes, stop=stop)
        best, lo, hi = expected[rule]
        aum_there = brute_aum(bp, scores, slopes, r.step_size)
        ok = np.isclose(aum_there, best) and lo - 1e-12 <= r.step_size <= hi + 1e-12
        rows.append({"rule": rule, "events explored": r.iterations,
                     "step size": r.step_size, "AUM (engine)": r.aum,
                     "AUM (brute force)": aum_there, "min AUM (brute force)": best,
                     "argmin interval": f"[{lo:.4g}, {hi:.4g}]",
                     "AUC (engine)": r.auc, "agrees": bool(ok)})
    table = pd.DataFrame(rows).set_index("rule")
    assert table["agrees"].all(), table
    return full, table, (pts, aum_pts)


def draw(bp, scores, slopes, full, table, names, title):
    """Threshold lines T_b(s), AUM(s) and AUC(s), with the three stopping points."""
    intercept, slope, _, _ = breakpoint_lines(bp, scores, slopes)
    path = full.path
    s_max = max(path["step_size"].max() * 1.25, 1.0)
    s = np.linspace(0, s_max, 400)
    fig, axes = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    for b in range(len(intercept)):
        axes[0].plot(s, intercept[b] + s * slope[b], label=names[b])
        axes[0].annotate(names[b], (0, intercept[b]), xytext=(-12, 0),
                         textcoords="offset points", va="center")
    axes[0].set_ylabel("threshold $T_b(s)$")
    axes[1].plot(s, [brute_aum(bp, scores, slopes, x) for x in s], color="0.7", lw=4,
                 label="brute force")
    axes[1].plot(np.r_[path["step_size"], s_max],
                 np.r_[path["aum"], path["aum"].iloc[-1]
                       + path["aum_slope_after"].iloc[-1] * (s_max - path["step_size"].iloc[-1])],
                 "k.-", label="line search")
    axes[1].set_ylabel("AUM")
    axes[1].legend()
    axes[2].step(np.r_[path["step_size"], s_max],
                 np.r_[path["auc_after"], path["auc_after"].iloc[-1]], where="post", color="k")
    axes[2].plot(path["step_size"], path["auc"], "ko", ms=4)
    axes[2].set_ylabel("AUC")
    axes[2].set_xlabel("step size s")
    styles = {"first min": ("tab:purple", ":"), "linear": ("tab:green", "--"),
              "quadratic": ("tab:red", "-.")}
    for rule, row in table.iterrows():
        color, ls = styles[rule]
        for ax in axes:
            ax.axvline(row["step size"], color=color, ls=ls, lw=1.5,
                       label=f"{rule}: s = {row['step size']:.4g}" if ax is axes[2] else None)
    axes[2].legend(fontsize=8, loc="best")
    for x in path["step_size"].iloc[1:]:
        axes[0].axvline(x, color="0.85", lw=0.8, zorder=0)
    axes[0].set_title(title)
    fig.tight_layout()
    return fig


# %% [markdown]
# ## 1. Four binary labels
#
# Two negative and two positive examples with scores $\hat y = (2, 0.5, -1, 1)$: the
# first negative is scored above both positives, so the AUC is poor. For binary labels
# every example gives one breakpoint at $v = 0$: a negative one adds a false positive
# ($\Delta FP = 1$), a positive one removes a false negative ($\Delta FN = -1$).

# %%
y = np.array([0, 0, 1, 1])
scores = np.array([2.0, 0.5, -1.0, 1.0])
bp = penlearn.breakpoints_from_labels(y)
res = penlearn.aum(bp, scores)
print("AUM at step 0:", res.aum, "  AUC at step 0:", penlearn.breakpoints_auc(bp, scores))
direction = -res.derivatives.mean(axis=1)  # minus the mean of the left/right derivatives
pd.DataFrame({"y": y, "score": scores, "d AUM/d score (left)": res.derivatives[:, 0],
              "(right)": res.derivatives[:, 1], "descent direction": direction})

# %% [markdown]
# Along the descent direction the scores move as $\hat y(s) = \hat y + s\,d$, so the
# threshold of breakpoint $b$ moves on the line
# $T_b(s) = (v_b - \hat y_{I_b}) + s\,(-d_{I_b})$ (the paper's eq. 2). Between two
# crossings of these lines their order is fixed, AUM is linear and AUC constant.

# %%
names = list("abcd")
intercept, slope, fp_diff, fn_diff = breakpoint_lines(bp, scores, direction)
pd.DataFrame({"line": names, "example": bp.example, "intercept": intercept, "slope": slope,
              "fp_diff": fp_diff, "fn_diff": fn_diff}).set_index("line")

# %% [markdown]
# The full path (`stop="all"`, the paper's *quadratic* variant) lists every event: the
# step size, AUM there and the slope of AUM after it, AUC exactly at the event (tied
# thresholds form a diagonal ROC segment) and after it. Then the three stopping rules,
# each compared with the brute force (the cell fails if any number disagrees).

# %%
full, table, _ = check_against_brute_force(bp, scores, direction)
display(full.path)
table

# %%
fig = draw(bp, scores, direction, full, table, names, "four binary labels")

# %% [markdown]
# *First min* stops at the first step size after which AUM would increase; *linear*
# explores as many events as there are breakpoints (B = 4); *quadratic* explores all of
# them. Here AUM reaches 0 (AUC = 1: every positive above every negative) and stays flat,
# so all three agree on the AUM; quadratic picks the middle of the flat stretch it saw.

# %% [markdown]
# ## 2. Two labeled changepoint sequences
#
# Two neuroblastoma copy-number profiles (profile 1 chromosome 1 and profile 4
# chromosome 2, the two sequences of the `aum` package's line-search example), each
# with one label: a `normal` region on 1.1 (no change allowed) and a `breakpoint`
# region on 4.2 (at least one change). We run the whole pipeline on the raw data:
# optimal segmentations, the exact penalty path, label errors and error functions.

# %%
nb = DATA / "neuroblastoma"
profiles = pd.read_csv(nb / "profiles.csv.gz")
annotations = pd.read_csv(nb / "annotations.csv.gz")
pairs = [(1, 1), (4, 2)]


def sequence_id(profile, chromosome):
    return f"{profile}_chr{chromosome}"


keep = profiles.set_index(["profile.id", "chromosome"]).index.isin(pairs)
sequences = pd.DataFrame({
    "sequence_id": [sequence_id(p, c) for p, c in
                    zip(profiles["profile.id"][keep], profiles["chromosome"][keep])],
    "position": profiles["position"][keep].to_numpy(),
    "value": profiles["logratio"][keep].to_numpy(),
})
lab = annotations[annotations.set_index(["profile.id", "chromosome"]).index.isin(pairs)]
labels = pd.DataFrame({"sequence_id": [sequence_id(p, c) for p, c in
                                       zip(lab["profile.id"], lab["chromosome"])],
                       "start": lab["min"].to_numpy(), "end": lab["max"].to_numpy(),
                       "annotation": lab["annotation"].to_numpy()})
print(sequences.groupby("sequence_id").size().rename("data points").to_string())
labels

# %%
models, changes = penlearn.segment_sequences(sequences, max_segments=20, progress=False)
evaluation = penlearn.error_functions(models, changes, labels)
evaluation[["sequence_id", "n_segments", "min_log_lambda", "max_log_lambda", "fp", "fn"]]

# %% [markdown]
# The same error functions are in penaltyLearning's `neuroblastomaProcessed$errors`
# (copied to `processed_errors.csv.gz`); ours, computed from the raw profiles, agree:

# %%
ref = pd.read_csv(nb / "processed_errors.csv.gz")
ref = ref[ref["sequenceID"].isin(["1_chr1", "4_chr2"])]
mine = evaluation.set_index(["sequence_id", "n_segments"])
theirs = ref.set_index(["sequenceID", "n.segments"])
common = mine.index.intersection(theirs.index)
assert len(common) == len(theirs) == len(mine), (len(common), len(theirs), len(mine))
assert (mine.loc[common, "fp"].to_numpy() == theirs.loc[common, "fp"].to_numpy()).all()
assert (mine.loc[common, "fn"].to_numpy() == theirs.loc[common, "fn"].to_numpy()).all()
assert np.allclose(mine.loc[common, "min_log_lambda"], theirs.loc[common, "min.log.lambda"])
print(f"{len(common)} selected models: FP, FN and the log λ intervals agree")

# %% [markdown]
# The models with 1 to 3 segments and the labels. On 4.2 the single change of the
# 2-segment model falls inside the `breakpoint` label, but the 3-segment model moves its
# changes out of it: the false negative comes back. The FN function is **not monotone**
# in the penalty, and neither is the ROC curve.

# %%
fig, axes = plt.subplots(3, 2, figsize=(11, 6), sharex="col")
for col, sid in enumerate(["1_chr1", "4_chr2"]):
    for row, k in enumerate(range(1, 4)):
        plot_segmentation(sequences, sid, labels=labels, changes=changes, n_segments=k,
                          ax=axes[row, col])
        axes[row, col].set_title(f"{sid}: {k} segment(s)", fontsize=9)
fig.tight_layout()

# %%
scores2 = np.array([1.0, -1.0])  # predicted -log λ of 1_chr1 and 4_chr2
ids = list(pd.unique(evaluation["sequence_id"]))
display(plot_error_functions(evaluation, log_lambda=dict(zip(ids, -scores2))))

# %% [markdown]
# Each jump of an error function at a penalty λ > 0 is a breakpoint $(v = -\log\lambda,
# \Delta FP, \Delta FN)$ in score units.

# %%
bp2 = penlearn.breakpoints_from_errors(evaluation)
res2 = penlearn.aum(bp2, scores2)
direction2 = -res2.derivatives.mean(axis=1)
print("AUM at step 0:", res2.aum, "  descent direction:", direction2)
bp2.to_frame().assign(sequence=[ids[i] for i in bp2.example])

# %%
full2, table2, _ = check_against_brute_force(bp2, scores2, direction2)
display(full2.path)
table2

# %%
names2 = [f"{'abcdefgh'[b]} ({ids[e]})" for b, e in enumerate(bp2.example)]
fig = draw(bp2, scores2, direction2, full2, table2, names2, "two labeled changepoint sequences")

# %% [markdown]
# AUC is not monotone along the line: it goes 0 → 1 → 0 → 1 as the lines of 4.2 swap
# with the line of 1.1, because the FN function of 4.2 goes down, up and down again.
# With such non-monotone error functions the ROC "curve" can have loops, and its signed
# area is not bounded by [0, 1] in general (Hillman & Hocking, 2023). The ROC curves
# (`roc_change`, which takes predicted log λ = −score) at step 0 and at the step chosen
# by each rule:

# %%
rocs = {"step 0": penlearn.roc_change(evaluation, -scores2)}
for rule, row in table2.iterrows():
    rocs[f"{rule} (s={row['step size']:.3g})"] = penlearn.roc_change(
        evaluation, -(scores2 + row["step size"] * direction2))
display(plot_roc(rocs))
pd.DataFrame({name: {"AUC": r.auc, "AUM (count)": r.aum} for name, r in rocs.items()}).T

# %% [markdown]
# ## Summary
#
# - Between intersections of the threshold lines, AUM is linear and AUC constant in the
#   step size, so both are known exactly along the whole line.
# - The engine's events, AUM and AUC agree with a brute-force recomputation at every
#   event and between events, for binary and for non-monotone changepoint error
#   functions.
# - *First min* needs the fewest events; *quadratic* explores all of them; on these
#   examples the three rules reach the same minimum AUM.
