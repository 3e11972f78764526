"""Self-contained HTML reports of penalty predictions (ROC-change reports).

:func:`roc_change_report` evaluates one or several sets of predicted log λ against the
error functions of labeled sequences with :func:`penlearn.roc.roc_change` and writes a
single HTML file: a summary table (AUC, AUM, partial AUC, FP / FN / errors at the
predicted threshold), the generalized ROC curves, error functions of a few sequences,
the learning curves of a model and per-sequence tables. Figures are embedded as PNG
data URIs, so the file needs no network access and no other file.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_evaluation
from penlearn._version import package_version
from penlearn.atomic_files import write_text_atomic
from penlearn.roc import (  # noqa: F401 (best_constant_log_lambda: re-exported)
    _predictions_series,
    best_constant_log_lambda,
    roc_change_checked,
)

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1100px;padding:0 1em;color:#222}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.2em;margin-top:1.8em;
border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}
.meta{color:#666;font-size:.85em} figure{margin:1em 0} figcaption{font-size:.85em;color:#555}
img{max-width:100%;height:auto} .wide{overflow-x:auto}
"""


def _is_single_prediction(log_lambda) -> bool:
    """True when ``log_lambda`` is one set of predictions, not a mapping of several."""
    if isinstance(log_lambda, Mapping) and not isinstance(log_lambda, pd.Series):
        values = list(log_lambda.values())
        if values and all(np.ndim(v) >= 1 or isinstance(v, Mapping) for v in values):
            return False
    return True


def errors_at_predictions(evaluation: pd.DataFrame, log_lambda) -> pd.DataFrame:
    """Per sequence, the row of the error functions selected by each predicted log λ.

    A prediction on the boundary of two intervals selects the model with the smaller
    penalty (the interval with ``min_log_lambda < log λ <= max_log_lambda``), as
    ``penaltyLearning::ROChange`` does for its ``predicted`` threshold.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions.
    log_lambda : Series, dict, DataFrame or array
        One predicted log λ per sequence (as for :func:`penlearn.roc.roc_change`).

    Returns
    -------
    DataFrame
        ``sequence_id, log_lambda, fp, fn, errors`` and ``possible_fp, possible_fn,
        labels, n_segments`` when present, plus ``min_errors`` (the fewest errors any
        penalty gives that sequence), in the evaluation's sequence order.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...                    "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 1]})
    >>> errors_at_predictions(ev, {"a": 0.0})[["fp", "fn"]].to_numpy().tolist()
    [[1.0, 0.0]]
    """
    ev = check_evaluation(evaluation)
    if "errors" not in ev.columns:
        ev["errors"] = ev["fp"] + ev["fn"]
    ids = pd.Index(pd.unique(ev["sequence_id"]))
    pred = _predictions_series(log_lambda, ids)
    p = pred.reindex(ev["sequence_id"]).to_numpy()
    sel = (ev["min_log_lambda"].to_numpy() < p) & (p <= ev["max_log_lambda"].to_numpy())
    rows = ev[sel].copy()
    rows.insert(1, "log_lambda", pred.reindex(rows["sequence_id"]).to_numpy())
    best = ev.groupby("sequence_id", sort=False)["errors"].min()
    rows["min_errors"] = best.reindex(rows["sequence_id"]).to_numpy()
    cols = ["sequence_id", "log_lambda", "fp", "fn", "errors", "min_errors"]
    cols += [c for c in ("possible_fp", "possible_fn", "labels", "n_segments")
             if c in rows.columns]
    return rows[cols].reset_index(drop=True)


def summary_table(results: Mapping[str, object], *, fpr_max: float = 0.1) -> pd.DataFrame:
    """One row per prediction: AUC, AUM, partial AUC and errors at the predicted threshold.

    Parameters
    ----------
    results : Mapping of str to ROCChange
        Values of :func:`penlearn.roc.roc_change`.
    fpr_max : float
        Upper FPR limit of the partial AUC.

    Returns
    -------
    DataFrame
        Indexed by prediction name: ``auc, aum, partial_auc, fp, fn, errors,
        error_percent, min_errors``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from penlearn import roc_change
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-np.inf, 0.0],
    ...                    "max_log_lambda": [0.0, np.inf], "fp": [1, 0], "fn": [0, 1],
    ...                    "possible_fp": 1, "possible_fn": 1, "labels": 2, "errors": 1})
    >>> t = summary_table({"constant": roc_change(ev, [0.5])})
    >>> list(t.index), t[["auc", "errors"]].values.tolist()
    (['constant'], [[0.5, 1.0]])
    """
    rows = {}
    for name, res in results.items():
        pred = res.thresholds.loc["predicted"]
        best = res.thresholds.loc["min_error"]
        rows[name] = {
            "auc": float(res.auc),
            "aum": float(res.aum),
            "partial_auc": float(res.partial_auc(fpr_max)),
            "fp": float(pred["fp"]),
            "fn": float(pred["fn"]),
            "errors": float(pred["errors"]),
            "error_percent": float(pred["error_percent"]),
            "min_errors": float(best["errors"]),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def _img(fig, element_id: str, alt: str, caption: str) -> str:
    from penlearn.plotting import figure_png

    data = base64.b64encode(figure_png(fig)).decode("ascii")
    return (
        f'<figure><img id="{element_id}" alt="{html.escape(alt)}" '
        f'src="data:image/png;base64,{data}"><figcaption>{html.escape(caption)}</figcaption>'
        "</figure>"
    )


def _table(df: pd.DataFrame, element_id: str, *, index: bool = True) -> str:
    return df.to_html(
        table_id=element_id, index=index, float_format=lambda v: f"{v:.4g}", border=0,
        na_rep="", escape=True,
    )


def roc_change_report(
    evaluation: pd.DataFrame,
    log_lambda,
    out: str | os.PathLike,
    *,
    title: str = "penlearn ROC-change report",
    model=None,
    sequences: pd.DataFrame | None = None,
    labels: pd.DataFrame | None = None,
    changes: pd.DataFrame | None = None,
    fpr_max: float = 0.1,
    n_error_panels: int = 4,
    notes: str | None = None,
) -> Path:
    """Write a self-contained HTML report of how well predicted penalties do.

    Parameters
    ----------
    evaluation : DataFrame
        Error functions of the sequences to evaluate on.
    log_lambda : predictions, or Mapping of str to predictions
        One set of predicted log λ per sequence (Series / dict keyed by sequence id,
        DataFrame ``sequence_id, log_lambda``, or array in the evaluation's order), or a
        mapping from a name (e.g. ``"initialisation"``, ``"learned"``, ``"BIC"``) to such
        predictions, to compare several in one report.
    out : str or PathLike
        The HTML file to write (atomically: a temporary file, then ``os.replace``).
    title : str
        Page title.
    model : PenaltyModel, optional
        A fitted model; its learning curves (``history_``) are shown.
    sequences, labels : DataFrame, optional
        The raw sequences and labels; when both are given, a few labeled sequences are
        plotted.
    changes : DataFrame, optional
        ``sequence_id, n_segments, position`` of the models (as
        :func:`penlearn.segment_sequences` returns); with an ``n_segments`` column in
        ``evaluation``, the plotted sequences show the model selected by the first
        prediction.
    fpr_max : float
        Upper FPR limit of the partial AUC.
    n_error_panels : int
        How many sequences' error functions to plot (those with the most errors under
        the first prediction).
    notes : str, optional
        A paragraph of text shown under the title (escaped).

    Returns
    -------
    Path
        The written file.

    Examples
    --------
    >>> import numpy as np, pandas as pd, tempfile, pathlib
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a", "b", "b"],
    ...     "min_log_lambda": [-np.inf, 0.0, -np.inf, 1.0],
    ...     "max_log_lambda": [0.0, np.inf, 1.0, np.inf],
    ...     "fp": [1, 0, 0, 0], "fn": [0, 0, 0, 1],
    ...     "possible_fp": [1, 1, 0, 0], "possible_fn": [0, 0, 1, 1]})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report.html"
    >>> p = roc_change_report(ev, {"zero": {"a": 0.0, "b": 0.0}, "good": {"a": 0.5, "b": 0.5}},
    ...                       out)
    >>> 'id="auc-table"' in p.read_text()
    True
    """
    out = Path(out)
    ev = check_evaluation(evaluation)  # validated once; the sections below trust it
    if _is_single_prediction(log_lambda):
        predictions = {"prediction": log_lambda}
    else:
        predictions = dict(log_lambda)
    results = {str(name): roc_change_checked(ev, pred) for name, pred in predictions.items()}
    per_seq = {
        name: errors_at_predictions(ev, pred)
        for name, pred in zip(results, predictions.values(), strict=True)
    }
    first_name = next(iter(results))
    first = per_seq[first_name]
    worst = first.sort_values(["errors", "sequence_id"], ascending=[False, True], kind="stable")
    show = list(worst["sequence_id"].head(n_error_panels))
    parts = _header(title, notes, ev, results)
    parts += _summary_section(results, fpr_max)
    parts += _error_functions_section(ev, first, first_name, show)
    if model is not None and isinstance(getattr(model, "history_", None), pd.DataFrame):
        parts += _learning_section(model)
    if sequences is not None and labels is not None:
        parts += _sequences_section(sequences, labels, changes, first, first_name, show)
    parts += _per_sequence_section(ev, per_seq, first)
    write_text_atomic(out, "\n".join(parts))
    return out


def _header(title: str, notes: str | None, ev: pd.DataFrame, results: dict) -> list[str]:
    first = next(iter(results.values()))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">penlearn {html.escape(package_version())} — '
        f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M UTC} — "
        f"{ev['sequence_id'].nunique()} sequences, "
        f"{int(first.roc['possible_fp'].iloc[0])} negative and "
        f"{int(first.roc['possible_fn'].iloc[0])} positive label possibilities</p>",
    ]
    if notes:
        parts.append(f"<p>{html.escape(notes)}</p>")
    return parts


def _summary_section(results: dict, fpr_max: float) -> list[str]:
    from penlearn.plotting import plot_roc  # matplotlib: imported only for a report

    summary = summary_table(results, fpr_max=fpr_max)
    summary.index.name = "prediction"
    summary = summary.rename(columns={"partial_auc": f"partial_auc (FPR≤{fpr_max:g})"})
    return [
        "<h2>Summary</h2>",
        "<p>AUC is the signed area under the generalized ROC curve (it can leave [0, 1] "
        "when error functions are not monotone), AUM the area under min(FP, FN) over the "
        "constant added to every predicted log λ; FP, FN and errors are counted at the "
        "predictions themselves, min_errors at the best constant.</p>",
        _table(summary.reset_index(), "auc-table", index=False),
        "<h2>ROC curves</h2>",
        _img(
            plot_roc(results if len(results) > 1 else next(iter(results.values()))),
            "roc-figure",
            "ROC curve",
            "Generalized ROC curve: one point per interval of the constant added to the "
            "predicted log λ; circles mark the predictions themselves.",
        ),
    ]


def _error_functions_section(ev, first, first_name: str, show: list) -> list[str]:
    from penlearn.plotting import plot_error_functions  # matplotlib

    if not show:
        return []
    pred_map = dict(zip(first["sequence_id"], first["log_lambda"], strict=True))
    return [
        "<h2>Error functions</h2>",
        _img(
            plot_error_functions(ev, show, log_lambda=pred_map),
            "error-functions-figure",
            "error functions",
            f"FP, FN and errors over log λ for the {len(show)} sequences with the most "
            f"errors under '{first_name}'; the vertical line is its prediction.",
        ),
    ]


def _learning_section(model) -> list[str]:
    from penlearn.plotting import plot_learning_curves  # matplotlib

    steps = pd.to_numeric(model.history_.get("step", pd.Series(dtype=float)),
                          errors="coerce")
    if not (steps > 0).any():  # a constant, a shifted prior: nothing was descended
        return ["<h2>Learning curves</h2>",
                "<p id='learning-curves-none'>No learning curve: this model took no "
                "gradient-descent step (" + html.escape(model.describe()) + ").</p>"]
    return [
        "<h2>Learning curves</h2>",
        _img(
            plot_learning_curves(model),
            "learning-curves-figure",
            "learning curves",
            "AUM and AUC per gradient-descent step on the subtrain and validation sets.",
        ),
    ]


def _sequences_section(sequences, labels, changes, first, first_name: str,
                       show: list) -> list[str]:
    from penlearn.plotting import plot_segmentation  # matplotlib

    parts: list[str] = []
    lab_ids = [s for s in show if s in set(labels["sequence_id"])][:3]
    selected = first.set_index("sequence_id")
    for j, sid in enumerate(lab_ids):
        if j == 0:
            parts.append("<h2>Labeled sequences</h2>")
        k = None
        if changes is not None and "n_segments" in selected.columns:
            k = int(selected.loc[sid, "n_segments"])
        fig = plot_segmentation(sequences, sid, labels=labels,
                                changes=None if k is None else changes, n_segments=k)
        caption = f"Sequence {sid} and its labels"
        if k is not None:
            caption += (f", with the model selected by '{first_name}' ({k} segments, "
                        f"{int(selected.loc[sid, 'errors'])} label errors)")
        parts.append(_img(fig, f"sequence-{j}", f"sequence {sid}", caption + "."))
    return parts


def _per_sequence_section(ev, per_seq: dict, first) -> list[str]:
    table = pd.DataFrame({"sequence_id": pd.unique(ev["sequence_id"])})
    extra = [c for c in ("labels", "possible_fp", "possible_fn", "min_errors") if c in first]
    table = table.merge(first[["sequence_id", *extra]], on="sequence_id", how="left")
    for name, df in per_seq.items():
        sub = df[["sequence_id", "log_lambda", "fp", "fn", "errors"]].rename(
            columns={c: f"{name}: {c}" for c in ("log_lambda", "fp", "fn", "errors")}
        )
        table = table.merge(sub, on="sequence_id", how="left")
    return [
        "<h2>Per-sequence errors</h2>",
        f"<details open><summary>{len(table)} sequences</summary>",
        '<div class="wide">', _table(table, "sequence-table", index=False), "</div>",
        "</details>",
        "</body></html>",
    ]
