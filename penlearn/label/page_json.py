"""The labeling page's JSON pieces, as plain functions: a window's coverage rows in the
compact form the page draws, and each label's status under the peaks shown."""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.peaks.formats.regions import PEAK_ANNOTATIONS
from penlearn.peaks.peakseg.labels import peak_label_counts

__all__ = ["coverage_columns", "label_statuses", "window_view"]


def coverage_columns(cov: pd.DataFrame) -> dict:
    """A window's coverage rows, compact for JSON: the first start, then each row's width
    and count (the rows are contiguous: gaps are filled with zeros; the page adds the
    widths up into igv.js features).

    Examples
    --------
    >>> coverage_columns(pd.DataFrame({"chromStart": [0, 5], "chromEnd": [5, 9], "count": [1, 0]}))
    {'start': 0, 'width': [5, 4], 'count': [1, 0]}
    """
    lo = cov["chromStart"].to_numpy(np.int64)
    hi = cov["chromEnd"].to_numpy(np.int64)
    if len(lo) > 1 and not np.array_equal(lo[1:], hi[:-1]):
        raise ValueError("coverage rows of a window must be contiguous")
    return {"start": int(lo[0]) if len(lo) else 0, "width": (hi - lo).tolist(),
            "count": cov["count"].to_numpy().tolist()}


def label_statuses(labels: pd.DataFrame, peaks: pd.DataFrame) -> list[str]:
    """``correct`` / ``FP`` / ``FN`` of each label (``chromStart, chromEnd,
    annotation``) under ``peaks`` (``chromStart, chromEnd``) of one sample and chromosome,
    by the label-error rules of :func:`~penlearn.peaks.peakseg.labels.peak_label_counts`.

    Examples
    --------
    >>> lab = pd.DataFrame({"chromStart": [0, 100], "chromEnd": [50, 200],
    ...                     "annotation": ["noPeaks", "peaks"]})
    >>> label_statuses(lab, pd.DataFrame({"chromStart": [10], "chromEnd": [20]}))
    ['FP', 'FN']
    """
    if len(labels) == 0:
        return []
    codes = {a: i for i, a in enumerate(PEAK_ANNOTATIONS)}
    tp, ptp, fp, _ = peak_label_counts(
        peaks["chromStart"].to_numpy(np.int64), peaks["chromEnd"].to_numpy(np.int64),
        labels["chromStart"].to_numpy(np.int64), labels["chromEnd"].to_numpy(np.int64),
        np.array([codes[a] for a in labels["annotation"]], dtype=np.int64))
    return ["FP" if f > 0 else "FN" if p - t > 0 else "correct"
            for t, p, f in zip(tp, ptp, fp)]


def window_view(state, window: int, coverage: bool = True) -> dict:
    """Everything the page draws of one window of ``state`` (a
    :class:`~penlearn.label.state.LabelState`; JSON-ready; ``coverage=False``: the
    coverage rows left out, for a redraw after a label)."""
    if not 0 <= window < len(state.windows):
        raise ValueError(f"window must be in 0..{len(state.windows) - 1}")
    w = state.windows.iloc[window]
    chrom, a, b = str(w["chrom"]), int(w["chromStart"]), int(w["chromEnd"])
    with state.lock:
        state.solve_missing(window)
        lab = state.labels
        samples = []
        errors = 0
        for s in state.samples:
            cov = state.cov.get((s, window))
            pk = state.peaks(s, window)
            la = lab[(lab["sample_id"] == s) & (lab["chrom"] == chrom)
                     & (lab["chromStart"] < b) & (lab["chromEnd"] > a)]
            status = label_statuses(la, pk)
            errors += sum(x != "correct" for x in status)
            sid = state.ids_by[(s, window)]
            samples.append({
                "id": s,
                "log_lambda": float(state.log_lambda[sid]) if sid in state.log_lambda
                else None,
                "coverage": coverage_columns(cov) if cov is not None and coverage else None,
                "peaks": pk.to_numpy().tolist(),
                "labels": [[int(r.chromStart), int(r.chromEnd), r.annotation, st]
                           for r, st in zip(la.itertuples(index=False), status)]})
        labeled = sorted({int(i) for i in state.learn_labels()["window"] if i >= 0})
        state.prepare(window)
        return {"window": {"index": window, "chrom": chrom, "start": a, "end": b,
                           "count": len(state.windows)},
                "samples": samples, "version": state.version,
                "model": state.model_note, "errors": errors,
                "labels": len(lab), "labeled_windows": labeled,
                "undo": state.can_undo, "model_version": state.model_version,
                "paths_ready": state.paths_ready(window)}
