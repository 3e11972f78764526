"""Every figure is rendered to PNG and its contents checked structurally."""

from __future__ import annotations

import io

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from matplotlib.lines import Line2D

from penlearn.datasets import simulate
from penlearn.plotting import (
    ANNOTATION_COLORS,
    figure_png,
    plot_error_functions,
    plot_learning_curves,
    plot_line_search,
    plot_roc,
    plot_segmentation,
)
from penlearn.roc import roc_change

INF = np.inf


def render(fig) -> np.ndarray:
    """PNG bytes -> RGBA array; the image must be a real, non-blank picture."""
    png = figure_png(fig)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = mpimg.imread(io.BytesIO(png), format="png")
    assert img.shape[0] > 100 and img.shape[1] > 100
    rgb = img[..., :3].reshape(-1, 3)
    # mostly white background, but a clear share of drawn (non-white) pixels
    nonwhite = np.mean(rgb.min(axis=1) < 0.9)
    assert 0.01 < nonwhite < 0.9
    return img


def lines_by_label(ax) -> dict[str, Line2D]:
    return {ln.get_label(): ln for ln in ax.get_lines()}


def vlines(ax) -> list[float]:
    """x of the vertical lines (axvline) of an axes."""
    out = []
    for ln in ax.get_lines():
        x = np.asarray(ln.get_xdata(), float)
        trans = ln.get_transform()
        if len(x) == 2 and x[0] == x[1] and trans.contains_branch_seperately(ax.transData)[0] \
                and not trans.contains_branch_seperately(ax.transData)[1]:
            out.append(float(x[0]))
    return out


def step_value(line: Line2D, x: float) -> float:
    """Value of a steps-post line at x."""
    xs, ys = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    assert line.get_drawstyle() == "steps-post"
    i = np.searchsorted(xs, x, side="right") - 1
    return float(ys[i])


# Two sequences with non-monotone error functions (FP goes up then down), as Figure 2.
EVAL = pd.DataFrame({
    "sequence_id": ["a"] * 3 + ["b"] * 3,
    "min_log_lambda": [-INF, -1.0, 1.0, -INF, 0.0, 2.0],
    "max_log_lambda": [-1.0, 1.0, INF, 0.0, 2.0, INF],
    "fp": [0, 1, 0, 1, 0, 0],
    "fn": [0, 1, 1, 0, 0, 1],
    "possible_fp": [1] * 6,
    "possible_fn": [1] * 6,
    "labels": [2] * 6,
})


def test_error_functions_figure():
    fig = plot_error_functions(EVAL, log_lambda={"a": 0.25, "b": 1.5})
    render(fig)
    assert len(fig.axes) == 2
    for ax, sid in zip(fig.axes, ["a", "b"], strict=True):
        assert ax.get_title(loc="left") == sid
        lines = lines_by_label(ax)
        assert {"fp", "fn", "errors"} <= set(lines)
        rows = EVAL[EVAL["sequence_id"] == sid]
        for _, r in rows.iterrows():
            lo = max(r["min_log_lambda"], -10.0)
            hi = min(r["max_log_lambda"], 10.0)
            mid = (max(lo, ax.get_xlim()[0]) + min(hi, ax.get_xlim()[1])) / 2
            assert step_value(lines["fp"], mid) == r["fp"]
            assert step_value(lines["fn"], mid) == r["fn"]
            assert step_value(lines["errors"], mid) == r["fp"] + r["fn"]
        assert vlines(ax) == [{"a": 0.25, "b": 1.5}[sid]]
    assert fig.axes[-1].get_xlabel().startswith("log")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["fp", "fn", "errors", "predicted"]


def test_error_functions_bad_input():
    with pytest.raises(ValueError, match="sequence_ids"):
        plot_error_functions(EVAL, ["zzz"])
    with pytest.raises(ValueError, match="missing column"):
        plot_error_functions(EVAL.drop(columns="fn"))


def test_roc_figure_with_loop():
    res = roc_change(EVAL, {"a": 0.0, "b": 0.0})
    fig = plot_roc(res)
    render(fig)
    (ax,) = fig.axes
    curve = lines_by_label(ax)["ROC"]
    assert np.allclose(curve.get_xdata(), res.roc["fpr"])
    assert np.allclose(curve.get_ydata(), res.roc["tpr"])
    # non-monotone FP: the path goes back in FPR somewhere (a loop)
    assert (np.diff(res.roc["fpr"]) > 0).any() and (np.diff(res.roc["fpr"]) < 0).any()
    # points lettered in order
    texts = [t.get_text() for t in ax.texts]
    assert texts == [chr(ord("A") + i) for i in range(len(res.roc))]
    for t, (x, y) in zip(ax.texts, zip(res.roc["fpr"], res.roc["tpr"], strict=True),
                         strict=True):
        assert t.xy == (x, y)
    # dashed closure to (0, 0) / (1, 1), as the AUC closes the path
    fpr, tpr = res.roc["fpr"].to_numpy(), res.roc["tpr"].to_numpy()
    ends = sorted([(fpr[0], tpr[0]), (fpr[-1], tpr[-1])])
    want = [(e, c) for e, c in zip(ends, [(0.0, 0.0), (1.0, 1.0)], strict=True) if e != c]
    assert want  # this example's path stops at FPR 0.5
    closures = [ln for ln in ax.get_lines() if ln.get_label() == "_closure"]
    assert [((ln.get_xdata()[0], ln.get_ydata()[0]), (ln.get_xdata()[1], ln.get_ydata()[1]))
            for ln in closures] == want
    pred = lines_by_label(ax)["predicted"]
    p = res.thresholds.loc["predicted"]
    assert (pred.get_xdata()[0], pred.get_ydata()[0]) == (p["fpr"], p["tpr"])
    assert f"AUC = {res.auc:.4g}" in ax.get_title() and f"AUM = {res.aum:.4g}" in ax.get_title()
    assert ax.get_xlabel() == "False positive rate" and ax.get_ylabel() == "True positive rate"


def test_roc_figure_overlay():
    good = roc_change(EVAL, {"a": 0.0, "b": 1.0})
    bad = roc_change(EVAL, {"a": 5.0, "b": -5.0})
    fig = plot_roc({"good": good, "bad": bad})
    render(fig)
    (ax,) = fig.axes
    lines = lines_by_label(ax)
    assert {"good", "bad", "good (predicted)", "bad (predicted)"} <= set(lines)
    assert np.allclose(lines["bad"].get_xdata(), bad.roc["fpr"])
    assert ax.texts == [] or len(ax.texts) == 0  # no letters when overlaid
    title = ax.get_title()
    assert f"good: AUC = {good.auc:.4g}" in title and f"bad: AUC = {bad.auc:.4g}" in title


def line_search_result(kind: str):
    """A real LineSearchResult: the changepoint example above, or 8 binary labels."""
    from penlearn.breakpoints import breakpoints_from_errors, breakpoints_from_labels
    from penlearn.line_search import line_search

    if kind == "changepoint":
        # scores = -log lambda; slopes that make the thresholds of a and b cross
        bp = breakpoints_from_errors(EVAL)
        return line_search(bp, np.array([-3.0, 3.0]), np.array([1.0, -1.0]), stop="all")
    rng = np.random.default_rng(2)
    bp = breakpoints_from_labels(np.array([0, 1, 0, 1, 1, 0, 0, 1]))
    return line_search(bp, rng.normal(size=8), stop="all")


@pytest.mark.parametrize("kind", ["changepoint", "binary"])
def test_line_search_figure(kind):
    res = line_search_result(kind)
    assert len(res.path) >= 4 and res.path["aum"].nunique() >= 2  # a path worth drawing
    fig = plot_line_search(res)
    render(fig)
    ax_aum, ax_auc = fig.axes
    path = res.path.sort_values("step_size")
    aum_line = lines_by_label(ax_aum)["AUM"]
    xs, ys = np.asarray(aum_line.get_xdata()), np.asarray(aum_line.get_ydata())
    # the AUM line passes through every event of the path
    assert np.allclose(xs[: len(path)], path["step_size"])
    assert np.allclose(ys[: len(path)], path["aum"])
    # after the last event it follows aum_slope_after
    slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    assert np.isclose(slope, path["aum_slope_after"].iloc[-1])
    chosen = float(res.step_size)
    events = sorted(set(vlines(ax_aum)) - {chosen})
    assert np.allclose(events, sorted(set(path["step_size"].iloc[1:]) - {chosen}))
    assert chosen in vlines(ax_auc) and chosen in vlines(ax_aum)
    assert ax_aum.get_ylabel() == "AUM" and ax_auc.get_ylabel() == "AUC"
    assert ax_auc.get_xlabel() == "step size"
    # AUC after each event drawn as a constant segment starting at that event
    auc_segments = [ln for ln in ax_auc.get_lines() if ln.get_label() in ("AUC", "_auc")]
    assert len(auc_segments) == len(path)
    for seg, (_, row) in zip(auc_segments, path.iterrows(), strict=True):
        assert seg.get_xdata()[0] == row["step_size"]
        assert seg.get_ydata()[0] == seg.get_ydata()[1] == row["auc_after"]
    dots = [ln for ln in ax_auc.get_lines() if ln.get_label() == "_events"][0]
    assert np.allclose(dots.get_ydata(), path["auc"])


def test_line_search_figure_rejects_other_objects():
    with pytest.raises(TypeError, match="LineSearchResult"):
        plot_line_search(object())
    with pytest.raises(ValueError, match="missing column"):
        plot_line_search(pd.DataFrame({"step_size": [0.0]}))


def test_segmentation_figure():
    data = simulate(3, seed=11)
    sid = data.truth["sequence_id"].iloc[
        int(np.argmax(data.labels.groupby("sequence_id").size().reindex(
            data.truth["sequence_id"]).to_numpy()))]
    lab = data.labels[data.labels["sequence_id"] == sid]
    ch = data.changes[data.changes["sequence_id"] == sid]
    fig = plot_segmentation(data.sequences, sid, labels=data.labels, changes=data.changes)
    render(fig)
    (ax,) = fig.axes
    # one shaded region per label, with the annotation's colour, spanning (start, end]
    assert len(ax.patches) == len(lab)
    for patch, (_, row) in zip(ax.patches, lab.iterrows(), strict=True):
        x0, x1 = patch.get_x(), patch.get_x() + patch.get_width()
        assert (x0, x1) == (row["start"], row["end"])
        want = np.array(mpl_rgb(ANNOTATION_COLORS[row["annotation"]]))
        assert np.allclose(patch.get_facecolor()[:3], want)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert set(lab["annotation"]) <= set(legend) and "data" in legend
    assert sorted(vlines(ax)) == sorted(ch["position"] + 0.5)
    seg = [ln for ln in ax.get_lines() if ln.get_label() in ("segment mean", "_segment")]
    assert len(seg) == len(ch) + 1
    v = data.sequences.loc[data.sequences["sequence_id"] == sid, "value"].to_numpy()
    bounds = np.r_[0, np.sort(ch["position"]), len(v)]
    for ln, a, b in zip(seg, bounds[:-1], bounds[1:], strict=True):
        assert np.isclose(ln.get_ydata()[0], v[a:b].mean())
    data_line = lines_by_label(ax)["data"]
    assert np.allclose(data_line.get_ydata(), v)


def mpl_rgb(color):
    from matplotlib.colors import to_rgb

    return to_rgb(color)


def test_segmentation_needs_a_sequence_id():
    data = simulate(2, seed=1)
    with pytest.raises(ValueError, match="sequence_id"):
        plot_segmentation(data.sequences)
    with pytest.raises(ValueError, match="not in sequences"):
        plot_segmentation(data.sequences, "nope")


def test_learning_curves_figure():
    hist = pd.DataFrame({
        "step": [0, 1, 2, 3],
        "step_size": [0.0, 0.5, 0.2, 0.1],
        "subtrain_aum": [5.0, 3.0, 2.5, 2.4],
        "subtrain_auc": [0.6, 0.8, 0.85, 0.86],
        "validation_aum": [5.5, 3.5, 3.4, 3.6],
        "validation_auc": [0.55, 0.75, 0.8, 0.78],
    })
    fig = plot_learning_curves(hist)
    render(fig)
    ax_aum, ax_auc = fig.axes
    for ax, what in ((ax_aum, "aum"), (ax_auc, "auc")):
        lines = lines_by_label(ax)
        for part in ("subtrain", "validation"):
            assert np.array_equal(lines[part].get_ydata(), hist[f"{part}_{what}"])
            assert np.array_equal(lines[part].get_xdata(), hist["step"])
        assert vlines(ax) == [2.0]  # best validation AUC
    assert ax_aum.get_ylabel() == "AUM" and ax_auc.get_ylabel() == "AUC"


def test_learning_curves_of_a_real_model():
    """The curves of a PenaltyModel fitted by learn_penalty are its history_."""
    from penlearn.learn import learn_penalty

    rng = np.random.default_rng(0)
    ids = [f"s{i:02d}" for i in range(40)]
    x = rng.normal(size=40)
    ev = pd.DataFrame(
        [r for i, xi in zip(ids, x, strict=True) for r in [
            (i, -np.inf, xi - 1, 1, 0), (i, xi - 1, xi + 1, 0, 0), (i, xi + 1, np.inf, 0, 1)]],
        columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp", "fn"],
    ).assign(possible_fp=1, possible_fn=1)
    feats = pd.DataFrame({"x": x, "noise": rng.normal(size=40)}, index=ids)
    model = learn_penalty(feats, ev, init="zero", progress=False)
    hist = model.history_
    assert len(hist) >= 2
    fig = plot_learning_curves(model)
    render(fig)
    ax_aum, ax_auc = fig.axes
    for ax, what in ((ax_aum, "aum"), (ax_auc, "auc")):
        lines = lines_by_label(ax)
        assert np.allclose(lines["subtrain"].get_ydata(), hist[f"subtrain_{what}"])
        assert np.allclose(lines["validation"].get_ydata(), hist[f"validation_{what}"])
        assert vlines(ax) == [float(hist["step"].iloc[model.best_step_])]
