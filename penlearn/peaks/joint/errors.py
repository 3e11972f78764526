"""Joint peak models over log λ, their label errors, and the model chosen at a penalty.

A joint fit of one window (:func:`penlearn.joint_peak`; PeakSegJoint, Hocking & Bourque,
arXiv:1506.01286) holds, for every number k of samples (or groups) up, the model of
minimum Poisson loss: one common peak ``[chromStart, chromEnd)`` carried by the up
samples, the others flat. The model chosen at a penalty λ minimises loss + λ·k.

* :func:`joint_path` — the models selected by some λ, each with its log λ interval, its
  peak and the samples up (groups up: all their samples up);
* :func:`joint_error_functions` — their FP/FN against the samples' peak labels: every
  up sample has one peak, the others none, and each sample's labels are counted with the
  unchanged single-sample rules (:func:`~penlearn.peaks.peakseg.labels.peak_label_counts`;
  Hocking et al. 2017, *Bioinformatics*): the evaluation table of one window, which
  :func:`penlearn.learn_penalty` takes like any other;
* :func:`joint_selected` — the model of each window at its predicted log λ.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.changepoint.model_selection import model_selection
from penlearn.peaks.formats.regions import PEAK_ANNOTATIONS, check_peak_labels
from penlearn.peaks.peakseg.evaluation import EVALUATION_COLUMNS
from penlearn.peaks.peakseg.labels import peak_label_counts

__all__ = ["PATH_COLUMNS", "joint_error_functions", "joint_path", "joint_selected"]

PATH_COLUMNS = ["min_log_lambda", "max_log_lambda", "k", "loss", "loss_decrease",
                "chromStart", "chromEnd", "samples_up", "groups_up", "up"]


def _up_rows(up: pd.DataFrame, k) -> list:
    """The names marked True in row k of an up table (k = 0 may be absent: none)."""
    if k not in up.index:
        if k == 0:
            return []
        raise ValueError(f"the fit has no 'up' row for k = {k}")
    row = up.loc[k]
    return [str(c) for c in row.index[row.to_numpy(dtype=bool)]]


def joint_path(fit, *, by: str = "sample", groups: dict | None = None) -> pd.DataFrame:
    """The joint models selected by some penalty, with their peaks and samples up.

    Parameters
    ----------
    fit : joint fit
        The result of :func:`penlearn.joint_peak` on one window: ``loss`` (Series by
        k = 0..S), ``peak`` (chromStart, chromEnd by k = 1..S), ``up`` (k × sample, bool);
        with ``by="group"``, ``group_loss``, ``group_peak`` and ``group_up`` (k × group).
    by : {"sample", "group"}
        Select over the number of samples up, or of groups up (all samples of a group
        up together).
    groups : dict, optional
        ``sample_id -> group`` (needed with ``by="group"``; with ``by="sample"`` it fills
        the ``groups_up`` column: a group is up when one of its samples is).

    Returns
    -------
    DataFrame
        :data:`PATH_COLUMNS`, one row per selected model, λ increasing (most samples up
        first): its log λ interval, ``k`` (samples or groups up), ``loss``,
        ``loss_decrease`` (loss of no peak − loss), the peak (``chromStart, chromEnd``,
        -1 for k = 0), ``samples_up`` and ``groups_up`` (counts) and ``up`` (a tuple of
        the sample ids up).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> fit = SimpleNamespace(loss=pd.Series([0.0, -10.0, -11.0]),
    ...     peak=pd.DataFrame({"chromStart": [5, 4], "chromEnd": [9, 9]}, index=[1, 2]),
    ...     up=pd.DataFrame({"a": [False, True, True], "b": [False, False, True]}))
    >>> joint_path(fit)[["k", "max_log_lambda", "up"]].values.tolist()
    [[2, 0.0, ('a', 'b')], [1, 2.302585092994046, ('a',)], [0, inf, ()]]
    """
    if by not in ("sample", "group"):
        raise ValueError(f"by must be 'sample' or 'group', got {by!r}")
    if by == "group":
        if groups is None:
            raise ValueError("by='group' needs groups (sample_id -> group)")
        loss, peak, up = fit.group_loss, fit.group_peak, fit.group_up
    else:
        loss, peak, up = fit.loss, fit.peak, fit.up
    loss = pd.Series(loss).dropna()  # NaN: no peak has k samples (groups) up-down
    ks = np.asarray(loss.index, dtype=np.int64)
    sel = model_selection(loss.to_numpy(dtype=float), ks)
    loss0 = float(loss.loc[0]) if 0 in loss.index else float("nan")
    rows = []
    for r in sel.itertuples(index=False):
        k = int(r.complexity)
        names = _up_rows(up, k)
        if by == "group":
            samples = tuple(s for s, g in groups.items() if g in set(names))
        else:
            samples = tuple(names)
        if k == 0:
            start = end = -1
        else:
            start, end = (int(peak.loc[k, "chromStart"]), int(peak.loc[k, "chromEnd"]))
        n_groups = len({groups[s] for s in samples}) if groups else (k if by == "group"
                                                                      else 0)
        rows.append((float(r.min_log_lambda), float(r.max_log_lambda), k, float(r.loss),
                     loss0 - float(r.loss), start, end, len(samples), n_groups, samples))
    return pd.DataFrame(rows, columns=PATH_COLUMNS)


def joint_error_functions(path: pd.DataFrame, labels: pd.DataFrame, *,
                          sequence_id: str) -> pd.DataFrame:
    """The error functions of one joint window: FP/FN of every selected model.

    In the model of a path row every up sample has one peak, ``[chromStart, chromEnd)``,
    and every other sample none; each sample's labels are counted against its own
    peaks with the single-sample rules (noPeaks / peakStart / peakEnd / peaks), and the
    counts are summed over samples.

    Parameters
    ----------
    path : DataFrame
        From :func:`joint_path`.
    labels : DataFrame
        ``sample_id, chromStart, chromEnd, annotation`` (``chrom`` optional): the labels
        of the window's samples that overlap the window. A label of a sample not in the
        window is an error.
    sequence_id : str
        The window's id in the ``sequence_id`` column.

    Returns
    -------
    DataFrame
        :data:`~penlearn.peaks.peakseg.evaluation.EVALUATION_COLUMNS` (``peaks`` holds the
        number of samples up), one row per path row, λ decreasing; the intervals cover
        all log λ (the path is complete: ``bounded`` False).

    Examples
    --------
    >>> path = pd.DataFrame({"min_log_lambda": [-np.inf, 1.0], "max_log_lambda": [1.0, np.inf],
    ...     "k": [1, 0], "loss": [-5.0, 0.0], "chromStart": [10, -1], "chromEnd": [20, -1],
    ...     "up": [("a",), ()]})
    >>> lab = pd.DataFrame({"sample_id": ["a", "b"], "chromStart": [5, 5],
    ...                     "chromEnd": [15, 15], "annotation": ["peakStart", "noPeaks"]})
    >>> joint_error_functions(path, lab, sequence_id="w")[["peaks", "fp", "fn"]
    ...                                                   ].values.tolist()
    [[0, 0, 1], [1, 0, 0]]
    """
    require_columns(labels, ["sample_id", "chromStart", "chromEnd", "annotation"], "labels")
    lab = labels if "chrom" in labels.columns else labels.assign(chrom="window")
    clean = check_peak_labels(lab)
    sid = clean["sample_id"].to_numpy()
    ls, le = clean["chromStart"].to_numpy(np.int64), clean["chromEnd"].to_numpy(np.int64)
    code = pd.Categorical(clean["annotation"], categories=PEAK_ANNOTATIONS).codes
    none = np.zeros(0, np.int64)
    rows = []
    for r in path.sort_values("min_log_lambda", ascending=False).itertuples(index=False):
        up = set(r.up)
        has = np.array([s in up for s in sid], dtype=bool)
        tp = np.zeros(len(sid), np.int64)
        ptp, fp, pfp = tp.copy(), tp.copy(), tp.copy()
        for mask, (ps, pe) in ((has, ([r.chromStart], [r.chromEnd])), (~has, (none, none))):
            if mask.any():
                out = peak_label_counts(ps, pe, ls[mask], le[mask], code[mask])
                tp[mask], ptp[mask], fp[mask], pfp[mask] = out
        fn = ptp - tp
        rows.append((sequence_id, float(r.min_log_lambda), float(r.max_log_lambda),
                     int(fp.sum()), int(pfp.sum()), int(fn.sum()), int(ptp.sum()), len(sid),
                     int(fp.sum() + fn.sum()), len(up), float(r.loss), False))
    return pd.DataFrame(rows, columns=EVALUATION_COLUMNS)


def joint_selected(path: pd.DataFrame, log_lambda: float) -> pd.Series:
    """The row of a :func:`joint_path` selected at ``log_lambda``.

    A model is selected on ``(min_log_lambda, max_log_lambda]``; log λ = −∞ (λ = 0)
    selects the most complex model.

    Examples
    --------
    >>> path = pd.DataFrame({"min_log_lambda": [-np.inf, 1.0], "max_log_lambda": [1.0, np.inf],
    ...                      "k": [2, 0]})
    >>> int(joint_selected(path, 0.5)["k"]), int(joint_selected(path, 3.0)["k"])
    (2, 0)
    """
    v = float(log_lambda)
    if math.isnan(v):
        raise ValueError("log_lambda is NaN")
    lo = path["min_log_lambda"].to_numpy(float)
    hi = path["max_log_lambda"].to_numpy(float)
    hit = np.flatnonzero((lo < v) & (v <= hi)) if v > -math.inf else \
        np.flatnonzero(lo == -math.inf)
    if len(hit) == 0:
        raise ValueError(f"no model of the path is selected at log λ = {v}")
    return path.iloc[int(hit[0])]
