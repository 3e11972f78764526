"""Figures: error functions, generalized ROC curves, line searches, segmentations.

Every function returns a :class:`matplotlib.figure.Figure` made without ``pyplot`` (no
global state, no GUI backend needed), so figures can be made in threads, saved with
``fig.savefig(...)`` or turned into PNG bytes with :func:`figure_png`. The figures follow
those of Fowler & Hocking (2024), "Efficient line search for optimizing Area Under the
ROC Curve in gradient descent" (Fowler & Hocking 2024): error functions of a sequence over
log λ (their Figure 2), ROC curves with loops and lettered points (Figures 1, 3), and
AUM / AUC as functions of the step size (Figures 3-4).
"""

from __future__ import annotations

import io
import string
from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from penlearn._checks import check_evaluation, id_list, require_columns

#: Colour of each label annotation (as in penaltyLearning's plots) and of FP / FN.
ANNOTATION_COLORS = {
    "0breakpoints": "#f6f4bf",
    "0changes": "#f6f4bf",
    "normal": "#f6f4bf",
    "1breakpoint": "#ff7d7d",
    "1change": "#ff7d7d",
    ">0breakpoints": "#a445ee",
    ">0changes": "#a445ee",
    "breakpoint": "#a445ee",
}
ERROR_COLORS = {"fp": "#d62728", "fn": "#1f77b4", "errors": "black"}
_OTHER_COLORS = ["#8dd3c7", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5"]


def figure_png(fig: Figure, *, dpi: int = 100) -> bytes:
    """Render a figure to PNG bytes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> figure_png(Figure(figsize=(1, 1)))[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _finite_limits(values, margin: float = 0.15, default=(-1.0, 1.0)) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return default
    lo, hi = float(v.min()), float(v.max())
    pad = max(margin * (hi - lo), 0.5)
    return lo - pad, hi + pad


def _figure_axes(ax, figsize: tuple[float, float]) -> tuple[Figure, Axes, bool]:
    """``(figure, axes, own)``: a new figure of ``figsize`` and its one axes when ``ax``
    is None (``own``: the plot lays it out), else ``ax`` and the figure holding it.

    Examples
    --------
    >>> fig, ax, own = _figure_axes(None, (2.0, 2.0))
    >>> own, _figure_axes(ax, (9.0, 9.0))[0] is fig
    (True, True)
    """
    if ax is None:
        fig = Figure(figsize=figsize)
        return fig, fig.subplots(), True
    return ax.figure, ax, False


# --------------------------------------------------------------------------------------
# Error functions (Figure 2, right)
# --------------------------------------------------------------------------------------


def plot_error_functions(
    evaluation: pd.DataFrame,
    sequence_ids=None,
    *,
    log_lambda=None,
    max_panels: int = 6,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Plot FP, FN and errors as functions of log λ, one panel per sequence.

    The error functions are piecewise constant over log λ; each is drawn as a
    step function, with a vertical line at the predicted log λ of the sequence when
    ``log_lambda`` is given (as the purple lines of Figure 2 in Fowler & Hocking 2024).

    Parameters
    ----------
    evaluation : DataFrame
        Error functions ``sequence_id, min_log_lambda, max_log_lambda, fp, fn`` (and
        ``errors``; computed as fp + fn when absent).
    sequence_ids : sequence, optional
        Sequences to plot; default the first ``max_panels`` of the table.
    log_lambda : Mapping or Series, optional
        Predicted log λ per sequence id, marked with a vertical line.
    max_panels : int
        Largest number of panels when ``sequence_ids`` is not given.
    figsize : (float, float), optional
        Figure size in inches.

    Returns
    -------
    Figure
        One axes per sequence, each with the lines ``fp``, ``fn`` and ``errors``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...                    "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 1]})
    >>> fig = plot_error_functions(ev, log_lambda={"a": 0.5})
    >>> [ln.get_label() for ln in fig.axes[0].get_lines()][:3]
    ['fp', 'fn', 'errors']
    """
    ev = check_evaluation(evaluation)
    if "errors" not in ev.columns:
        ev["errors"] = ev["fp"] + ev["fn"]
    all_ids = list(pd.unique(ev["sequence_id"]))
    if sequence_ids is None:
        ids = all_ids[:max_panels]
    else:
        ids = list(sequence_ids)
        missing = [s for s in ids if s not in set(all_ids)]
        if missing:
            raise ValueError(f"sequence_ids: {id_list(list(missing))} are not in evaluation")
    if not ids:
        raise ValueError("sequence_ids is empty: nothing to plot")
    if log_lambda is not None and not isinstance(log_lambda, (Mapping, pd.Series)):
        raise TypeError("log_lambda must be a Mapping or a Series indexed by sequence id")
    sub = ev[ev["sequence_id"].isin(ids)]
    xlim = _finite_limits(np.r_[sub["min_log_lambda"], sub["max_log_lambda"]])
    if log_lambda is not None:
        pred = [float(log_lambda[s]) for s in ids if s in log_lambda]
        xlim = (min([xlim[0], *pred]) - 0.2, max([xlim[1], *pred]) + 0.2)
    fig = Figure(figsize=figsize or (6.0, 1.9 * len(ids) + 0.6))
    axes = np.atleast_1d(fig.subplots(len(ids), 1, sharex=True, squeeze=False)[:, 0])
    for ax, sid in zip(axes, ids, strict=True):
        rows = sub[sub["sequence_id"] == sid].sort_values("min_log_lambda")
        lo = np.clip(rows["min_log_lambda"].to_numpy(), *xlim)
        hi = np.clip(rows["max_log_lambda"].to_numpy(), *xlim)
        for col in ("fp", "fn", "errors"):
            y = rows[col].to_numpy(dtype=float)
            xs = np.r_[lo, hi[-1]]
            ys = np.r_[y, y[-1]]
            ax.step(
                xs,
                ys,
                where="post",
                color=ERROR_COLORS[col],
                label=col,
                lw=2.2 if col == "errors" else 1.4,
                ls="-" if col == "errors" else "--",
            )
        if log_lambda is not None and sid in log_lambda:
            ax.axvline(float(log_lambda[sid]), color="#7b3294", lw=1.5, label="predicted")
        ax.set_ylabel("labels")
        ax.set_title(str(sid), fontsize=9, loc="left")
        ax.set_xlim(*xlim)
    axes[0].legend(loc="upper right", fontsize=8, ncol=4)
    axes[-1].set_xlabel("log λ (penalty)")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------
# Generalized ROC curve (Figures 1, 3; penaltyLearning::ROChange)
# --------------------------------------------------------------------------------------


def _point_names(n: int) -> list[str]:
    letters = string.ascii_uppercase
    if n <= len(letters):
        return list(letters[:n])
    return [str(i + 1) for i in range(n)]


def _predicted_point(result) -> tuple[float, float] | None:
    thr = getattr(result, "thresholds", None)
    if not isinstance(thr, pd.DataFrame):
        return None
    if "threshold" in thr.columns:
        thr = thr.set_index("threshold")
    if "predicted" not in thr.index:
        return None
    row = thr.loc["predicted"]
    return float(row["fpr"]), float(row["tpr"])


def plot_roc(
    result,
    *,
    label_points: bool = True,
    max_labels: int = 26,
    ax=None,
    figsize: tuple[float, float] = (4.8, 4.6),
) -> Figure:
    """Plot a generalized ROC curve (with its loops) from :func:`penlearn.roc_change`.

    The path follows the ROC points in threshold order, so non-monotone error functions
    show as loops (Hillman & Hocking 2023; AUC may then leave [0, 1]).
    Points are lettered A, B, ... in that order (as in Figure 1 of Fowler & Hocking 2024) when
    there are at most ``max_labels`` of them; the point of the predicted threshold
    (constant 0 added to the predictions) is marked; dashed lines close the path with
    (0, 0) and (1, 1) where its ends miss them, as the AUC does; the title gives AUC and
    AUM.

    Parameters
    ----------
    result : ROC result or Mapping of str to ROC result
        The value of ``roc_change``: ``.roc`` (with ``fpr, tpr``), ``.auc``, ``.aum``
        and ``.thresholds`` (a ``threshold == "predicted"`` row). A mapping overlays
        several predictions, one colour each, named in the legend and the title.
    label_points : bool
        Letter the points (only when there are at most ``max_labels``).
    max_labels : int
        Largest number of points that are lettered.
    ax : Axes, optional
        Draw into this axes instead of a new figure.
    figsize : (float, float)
        Size of a new figure.

    Returns
    -------
    Figure

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from penlearn.roc import roc_change
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...                    "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...                    "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...                    "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...                    "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]})
    >>> fig = plot_roc(roc_change(ev, pd.Series({"a": 0.5, "b": 0.5})))
    >>> fig.axes[0].get_title().startswith("AUC")
    True
    """
    results = dict(result) if isinstance(result, Mapping) else {None: result}
    if not results:
        raise ValueError("result is empty: nothing to plot")
    fig, ax, own_figure = _figure_axes(ax, figsize)
    ax.plot([0, 1], [0, 1], color="0.75", ls=":", lw=1, label="_diagonal")
    titles = []
    colors = ["black", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e"]
    for i, (name, res) in enumerate(results.items()):
        for attr in ("roc", "auc", "aum"):
            if not hasattr(res, attr):
                raise TypeError(
                    f"result must be the value of roc_change (with .roc, .auc, .aum); "
                    f"{type(res).__name__} has no .{attr}"
                )
        require_columns(res.roc, ["fpr", "tpr"], "result.roc")
        color = colors[i % len(colors)]
        fpr = res.roc["fpr"].to_numpy(dtype=float)
        tpr = res.roc["tpr"].to_numpy(dtype=float)
        label = "ROC" if name is None else str(name)
        ax.plot(fpr, tpr, color=color, lw=1.4, marker="o", ms=3 if len(fpr) <= 60 else 0,
                label=label)
        # the AUC closes the path with (0, 0) and (1, 1) when its ends miss them
        ends = sorted([(fpr[0], tpr[0]), (fpr[-1], tpr[-1])])
        for end, corner in zip(ends, [(0.0, 0.0), (1.0, 1.0)], strict=True):
            if end != corner:
                ax.plot([end[0], corner[0]], [end[1], corner[1]], color=color, lw=1,
                        ls="--", alpha=0.6, label="_closure")
        if label_points and len(results) == 1 and len(fpr) <= max_labels:
            for txt, x, y in zip(_point_names(len(fpr)), fpr, tpr, strict=True):
                ax.annotate(
                    txt, (x, y), xytext=(4, -10), textcoords="offset points", fontsize=8
                )
        pt = _predicted_point(res)
        if pt is not None:
            ax.plot(
                [pt[0]],
                [pt[1]],
                marker="o",
                ms=11,
                mfc="none",
                mec=color if name is not None else "#d62728",
                mew=2,
                ls="none",
                label="predicted" if name is None else f"{name} (predicted)",
            )
        auc_txt = f"AUC = {float(res.auc):.4g}, AUM = {float(res.aum):.4g}"
        titles.append(auc_txt if name is None else f"{name}: {auc_txt}")
    ax.set_xlabel("False positive rate")
    ax.set_ylabel("True positive rate")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_aspect("equal")
    ax.set_title("\n".join(titles), fontsize=9)
    ax.legend(loc="lower right", fontsize=7)
    if own_figure:  # a caller's figure is laid out by the caller
        fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------
# Line search (Figures 3-4, right)
# --------------------------------------------------------------------------------------


def plot_line_search(result, *, figsize: tuple[float, float] = (6.0, 4.8)) -> Figure:
    """Plot AUM and AUC as functions of the step size, from a line search result.

    AUM is piecewise linear in the step size and AUC piecewise constant between the
    events (intersections of the threshold lines, Fowler & Hocking 2024, Theorems 1-2);
    each event is marked by a grey vertical line and the chosen step size by a red one,
    as in Figure 4 of Fowler & Hocking 2024.

    Parameters
    ----------
    result : LineSearchResult or DataFrame
        ``.path`` (or the path itself) with ``step_size, aum, aum_slope_after, auc,
        auc_after``; ``.step_size`` is marked when present.
    figsize : (float, float)
        Figure size.

    Returns
    -------
    Figure
        Two axes (AUM on top, AUC below) sharing the step-size axis.

    Examples
    --------
    >>> import pandas as pd
    >>> path = pd.DataFrame({"step_size": [0.0, 1.0], "aum": [2.0, 0.0],
    ...                      "aum_slope_after": [-2.0, 1.0], "auc": [0.5, 0.75],
    ...                      "auc_after": [0.5, 1.0]})
    >>> fig = plot_line_search(path)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['AUM', 'AUC']
    """
    path = result if isinstance(result, pd.DataFrame) else getattr(result, "path", None)
    if not isinstance(path, pd.DataFrame):
        raise TypeError(
            f"result must be a LineSearchResult or its path DataFrame, got {type(result).__name__}"
        )
    require_columns(path, ["step_size", "aum", "aum_slope_after", "auc", "auc_after"], "path")
    if len(path) == 0:
        raise ValueError("path has no rows")
    path = path.sort_values("step_size", kind="stable")
    s = path["step_size"].to_numpy(dtype=float)
    aum = path["aum"].to_numpy(dtype=float)
    slope = path["aum_slope_after"].to_numpy(dtype=float)
    auc = path["auc"].to_numpy(dtype=float)
    auc_after = path["auc_after"].to_numpy(dtype=float)
    chosen = None if isinstance(result, pd.DataFrame) else getattr(result, "step_size", None)
    span = s[-1] - s[0]
    ext = span * 0.15 if span > 0 else 1.0
    if chosen is not None and np.isfinite(chosen):
        ext = max(ext, (float(chosen) - s[-1]) * 1.2)
    s_end = s[-1] + ext
    fig = Figure(figsize=figsize)
    ax_aum, ax_auc = fig.subplots(2, 1, sharex=True)
    x = np.r_[s, s_end]
    y = np.r_[aum, aum[-1] + slope[-1] * ext]
    ax_aum.plot(x, y, color="black", lw=1.6, label="AUM")
    ax_aum.plot(s, aum, ls="none", marker="o", ms=4, color="black", label="_events")
    # AUC: value `auc` at each event, `auc_after` on the open interval after it
    for k in range(len(s)):
        right = s[k + 1] if k + 1 < len(s) else s_end
        ax_auc.plot([s[k], right], [auc_after[k], auc_after[k]], color="#1b9e77", lw=1.6,
                    label="AUC" if k == 0 else "_auc")
    ax_auc.plot(s, auc, ls="none", marker="o", ms=4, color="#1b9e77", label="_events")
    for ax in (ax_aum, ax_auc):
        for k, sk in enumerate(s[1:] if len(s) > 1 else []):
            ax.axvline(sk, color="0.8", lw=0.8, zorder=0, label="event" if k == 0 else "_ev")
        if chosen is not None and np.isfinite(chosen):
            ax.axvline(float(chosen), color="#d62728", lw=1.5, label="chosen step")
    ax_aum.set_ylabel("AUM")
    ax_auc.set_ylabel("AUC")
    ax_auc.set_xlabel("step size")
    ax_aum.set_title(f"Line search: {len(s) - 1} events", fontsize=9)
    ax_aum.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------
# A sequence with its segmentation and labels (Figure 2, left)
# --------------------------------------------------------------------------------------


def _segment_means(pos: np.ndarray, val: np.ndarray, change_pos: np.ndarray):
    cuts = np.searchsorted(pos, np.sort(change_pos), side="right")
    bounds = np.r_[0, cuts, len(pos)]
    out = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if b > a:
            out.append((pos[a], pos[b - 1], float(np.mean(val[a:b]))))
    return out


def plot_segmentation(
    sequences: pd.DataFrame,
    sequence_id=None,
    *,
    labels: pd.DataFrame | None = None,
    changes: pd.DataFrame | None = None,
    n_segments: int | None = None,
    ax=None,
    figsize: tuple[float, float] = (7.0, 2.8),
) -> Figure:
    """Plot one sequence, its labels as coloured regions and a segmentation.

    Labels cover (start, end] and are drawn as shaded regions, one colour per
    annotation (``ANNOTATION_COLORS``); changes are dashed vertical lines and the segment
    means of the data between them solid horizontal lines.

    Parameters
    ----------
    sequences : DataFrame
        ``sequence_id, position, value`` (long format).
    sequence_id : optional
        The sequence to plot; may be omitted when ``sequences`` holds only one.
    labels : DataFrame, optional
        ``sequence_id, start, end, annotation``.
    changes : DataFrame, optional
        ``sequence_id, position`` of the changes to draw, with ``n_segments`` when it
        holds several models (then ``n_segments`` selects one).
    n_segments : int, optional
        Which model of ``changes`` to draw.
    ax : Axes, optional
        Draw into this axes.
    figsize : (float, float)
        Size of a new figure.

    Returns
    -------
    Figure

    Examples
    --------
    >>> import pandas as pd
    >>> seq = pd.DataFrame({"sequence_id": "s", "position": range(1, 7),
    ...                     "value": [0.0, 0.1, 0.0, 3.0, 3.1, 2.9]})
    >>> lab = pd.DataFrame({"sequence_id": ["s"], "start": [2], "end": [5],
    ...                     "annotation": ["1change"]})
    >>> fig = plot_segmentation(seq, labels=lab,
    ...                         changes=pd.DataFrame({"sequence_id": ["s"], "position": [3]}))
    >>> len(fig.axes[0].patches)
    1
    """
    require_columns(sequences, ["sequence_id", "position", "value"], "sequences")
    ids = pd.unique(sequences["sequence_id"])
    if sequence_id is None:
        if len(ids) != 1:
            raise ValueError(
                f"sequences holds {len(ids)} sequences; pass sequence_id to choose one"
            )
        sequence_id = ids[0]
    seq = sequences[sequences["sequence_id"] == sequence_id].sort_values("position")
    if len(seq) == 0:
        raise ValueError(f"sequence_id {sequence_id!r} is not in sequences")
    pos = seq["position"].to_numpy()
    val = seq["value"].to_numpy(dtype=float)
    fig, ax, own_figure = _figure_axes(ax, figsize)
    handles = []
    if labels is not None:
        require_columns(labels, ["sequence_id", "start", "end", "annotation"], "labels")
        lab = labels[labels["sequence_id"] == sequence_id]
        seen: dict[str, str] = {}
        for _, row in lab.iterrows():
            ann = str(row["annotation"])
            if ann not in seen:
                seen[ann] = ANNOTATION_COLORS.get(
                    ann, _OTHER_COLORS[len(seen) % len(_OTHER_COLORS)]
                )
            ax.axvspan(float(row["start"]), float(row["end"]), color=seen[ann], alpha=0.6,
                       lw=0, zorder=0)
        handles += [Patch(color=c, alpha=0.6, label=a) for a, c in seen.items()]
    ax.plot(pos, val, ls="none", marker=".", ms=3, color="0.35", label="data")
    if changes is not None:
        require_columns(changes, ["sequence_id", "position"], "changes")
        ch = changes[changes["sequence_id"] == sequence_id]
        if "n_segments" in ch.columns:
            if n_segments is None:
                if ch["n_segments"].nunique() > 1:
                    raise ValueError(
                        "changes holds several models (n_segments); pass n_segments to "
                        "choose one"
                    )
            else:
                ch = ch[ch["n_segments"] == n_segments]
        cp = ch["position"].to_numpy()
        for j, c in enumerate(np.sort(cp)):
            ax.axvline(c + 0.5, color="#1f78b4", ls="--", lw=1.2,
                       label="change" if j == 0 else "_change")
        for k, (a, b, m) in enumerate(_segment_means(pos, val, cp)):
            ax.plot([a - 0.5, b + 0.5], [m, m], color="#1f78b4", lw=2,
                    label="segment mean" if k == 0 else "_segment")
    ax.set_xlabel("position")
    ax.set_ylabel("value")
    title = str(sequence_id)
    if n_segments is not None:
        title += f" ({n_segments} segments)"
    ax.set_title(title, fontsize=9, loc="left")
    line_handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=line_handles + handles, fontsize=7, loc="upper left",
              bbox_to_anchor=(1.0, 1.0))
    if own_figure:  # a caller's figure is laid out by the caller
        fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------
# Learning curves of PenaltyModel.history_
# --------------------------------------------------------------------------------------


def plot_learning_curves(history, *, figsize: tuple[float, float] = (6.0, 4.8)) -> Figure:
    """Plot AUM and AUC per gradient-descent step, subtrain and validation.

    Parameters
    ----------
    history : DataFrame or PenaltyModel
        ``PenaltyModel.history_`` (or a fitted model): ``step, subtrain_aum,
        subtrain_auc`` and, when a validation set was used, ``validation_aum,
        validation_auc``. The step with the best validation AUC is marked.
    figsize : (float, float)
        Figure size.

    Returns
    -------
    Figure
        Two axes (AUM, AUC) sharing the step axis; one line per set.

    Examples
    --------
    >>> import pandas as pd
    >>> h = pd.DataFrame({"step": [0, 1, 2], "subtrain_aum": [3.0, 2.0, 1.5],
    ...                   "subtrain_auc": [0.6, 0.7, 0.8]})
    >>> fig = plot_learning_curves(h)
    >>> [ln.get_label() for ln in fig.axes[0].get_lines()]
    ['subtrain']
    """
    hist = getattr(history, "history_", history)
    if not isinstance(hist, pd.DataFrame):
        raise TypeError(
            f"history must be a DataFrame or a fitted PenaltyModel, got {type(history).__name__}"
        )
    require_columns(hist, ["step", "subtrain_aum", "subtrain_auc"], "history")
    if len(hist) == 0:
        raise ValueError("history has no rows")
    fig = Figure(figsize=figsize)
    ax_aum, ax_auc = fig.subplots(2, 1, sharex=True)
    colors = {"subtrain": "black", "validation": "#d95f02"}
    for part in ("subtrain", "validation"):
        cols = [f"{part}_aum", f"{part}_auc"]
        if not all(c in hist.columns for c in cols) or hist[cols].isna().all().all():
            continue
        for ax, col in zip((ax_aum, ax_auc), cols, strict=True):
            ax.plot(hist["step"], hist[col], marker="o", ms=3, color=colors[part], label=part)
    if "validation_auc" in hist.columns and hist["validation_auc"].notna().any():
        best = hist.loc[hist["validation_auc"].idxmax(), "step"]
        for ax in (ax_aum, ax_auc):
            ax.axvline(best, color="#7570b3", ls="--", lw=1.2, label="best validation AUC")
    ax_aum.set_ylabel("AUM")
    ax_auc.set_ylabel("AUC")
    ax_auc.set_xlabel("gradient descent step")
    ax_aum.legend(fontsize=7)
    ax_aum.set_title("Learning curves", fontsize=9)
    fig.tight_layout()
    return fig
