"""The HTML page of ``penlearn joint``: the peaks × samples matrix, the summary, the label
errors of a :class:`~penlearn.peaks.joint.pipeline.JointPeaks` run."""

from __future__ import annotations

import base64
import html

import pandas as pd

from penlearn.peaks.joint.pipeline import JointPeaks

__all__ = ["joint_html", "matrix_figure", "matrix_png"]


def matrix_png(res: JointPeaks) -> bytes | None:
    """The peaks × samples matrix as a PNG (samples grouped by group), or None without
    peaks."""
    from penlearn.plotting import figure_png

    fig = matrix_figure(res)
    return None if fig is None else figure_png(fig)


def matrix_figure(res: JointPeaks):
    """The matplotlib Figure of :func:`matrix_png` (None without peaks): wide enough for
    its title whatever the number of peaks.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> mat = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20],
    ...                     "a": [1], "b": [0]})
    >>> res = SimpleNamespace(matrix=lambda kind: mat, samples=["a", "b"],
    ...                       groups={"a": "a", "b": "b"})
    >>> bool(matrix_figure(res).get_figwidth() >= 5.5)
    True
    """
    mat = res.matrix("sample")
    if len(mat) == 0:
        return None
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    order = sorted(res.samples, key=lambda s: (res.groups[s], res.samples.index(s)))
    values = mat[order].to_numpy(dtype=float).T
    # at least 5.5 inches: the title (two lines) is never clipped by a narrow matrix
    fig = Figure(figsize=(min(max(2.0 + 0.5 * len(mat), 5.5), 14.0),
                          1.6 + 0.3 * len(order)))
    ax = fig.subplots()
    ax.imshow(values, aspect="auto", cmap="Greys", vmin=0, vmax=1, interpolation="nearest")
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels([s if res.groups[s] == s else f"{s} ({res.groups[s]})"
                        for s in order], fontsize=8)
    if len(mat) <= 60:  # beyond, the labels would overlap: peaks in genome order
        ax.set_xticks(range(len(mat)))
        ax.set_xticklabels([f"{c}:{s:,}-{e:,}" for c, s, e in
                            zip(mat["chrom"], mat["chromStart"], mat["chromEnd"])],
                           rotation=60, ha="right", fontsize=7)
    else:
        ax.set_xlabel(f"{len(mat)} joint peaks in genome order")
    ax.set_title("joint peaks (columns) × samples (rows)\nblack = peak", fontsize=10)
    fig.tight_layout()
    return fig


def joint_html(res: JointPeaks, comparison: pd.DataFrame | None = None) -> str:
    """The HTML page of a joint run: the matrix figure, the summary, the label errors.

    Parameters
    ----------
    res : JointPeaks
        The result of :func:`~penlearn.peaks.joint.pipeline.joint_peaks`.
    comparison : DataFrame, optional
        Each label's status with the single-sample and with the joint peaks
        (:func:`~penlearn.peaks.joint.comparison.label_error_comparison`).

    Returns
    -------
    str
        A self-contained HTML page (the figure embedded as a PNG data URI).
    """
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>penlearn joint peaks</title><style>body{font-family:sans-serif;"
             "max-width:70em;margin:2em auto}table{border-collapse:collapse}"
             "td,th{padding:2px 8px;text-align:right}</style></head><body>",
             "<h1>penlearn joint peaks</h1>",
             f"<p>{len(res.peaks)} joint peaks in {len(res.windows)} windows of "
             f"{len(res.samples)} samples. {html.escape(res.note)}.</p>"]
    png = matrix_png(res)
    if png is not None:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<figure><img id="peaks-matrix" alt="peaks by samples matrix" '
                     f'src="data:image/png;base64,{data}"><figcaption>The peaks × samples '
                     "matrix (peaks_matrix_sample.tsv).</figcaption></figure>")
    parts.append("<h2>Joint peaks</h2>")
    parts.append(res.summary().to_html(table_id="summary", index=False, border=0,
                                       float_format=lambda v: f"{v:.4g}"))
    if comparison is not None:
        parts.append("<h2>Label errors</h2><p>Each label's status with the single-sample "
                     "peaks (--peaks) and with the joint peaks; on the labels that chose "
                     "the penalty these are train errors.</p>")
        tot = pd.DataFrame({"peaks": ["single-sample", "joint"],
                            "labels": [len(comparison)] * 2,
                            "errors": [int((comparison["single"] != "correct").sum()),
                                       int((comparison["joint"] != "correct").sum())]})
        parts.append(tot.to_html(table_id="label-error-totals", index=False, border=0))
        parts.append(comparison.to_html(table_id="label-errors", index=False, border=0))
    parts.append("</body></html>")
    return "\n".join(parts)
