"""Region labels and the label errors (false positives / negatives) of changepoint models.

A label is a region (start, end] of one sequence with an annotation giving the number of
changes it allows (Hocking et al. 2013, *BMC Bioinformatics* 14:164, and the
"labeled changepoint" setup of Hillman & Hocking 2023, Section 2):

=============================================  =============  =====================
annotation                                     changes        errors possible
=============================================  =============  =====================
``0breakpoints``, ``0changes``, ``normal``     [0, 0]         FP
``1breakpoint``, ``1change``                   [1, 1]         FP and FN
``>0breakpoints``, ``>0changes``,              [1, ∞)         FN
``breakpoint``
=============================================  =============  =====================

A model commits a false positive in a label when it predicts more changes there than
the maximum, and a false negative when fewer than the minimum. A change at position p is
inside the label when start < p <= end. Labels can carry a positive ``weight``: the
error counts of a model are then weighted sums (as ``penaltyLearning::labelError``).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from penlearn._checks import id_list, require_columns, require_ids
from penlearn._repr import compact_repr
from penlearn._warnings import caller_stacklevel

#: The annotation rules: minimum and maximum number of changes per annotation.
ANNOTATIONS = pd.DataFrame(
    {
        "annotation": ["0breakpoints", "0changes", "normal", "1breakpoint", "1change",
                       ">0breakpoints", ">0changes", "breakpoint"],
        "min_changes": [0, 0, 0, 1, 1, 1, 1, 1],
        "max_changes": [0, 0, 0, 1, 1, np.inf, np.inf, np.inf],
    }
)
ANNOTATIONS["possible_fp"] = np.isfinite(ANNOTATIONS["max_changes"]).astype(int)
ANNOTATIONS["possible_fn"] = (ANNOTATIONS["min_changes"] > 0).astype(int)


class LabelErrors(NamedTuple):
    """Result of :func:`label_errors`: one row per model, and one per (label, model).

    Examples
    --------
    >>> import pandas as pd
    >>> models = pd.DataFrame({"sequence_id": "a", "n_segments": [1, 2]})
    >>> changes = pd.DataFrame({"sequence_id": "a", "n_segments": [2], "position": [5]})
    >>> labels = pd.DataFrame({"sequence_id": ["a"], "start": [0], "end": [10],
    ...                        "annotation": ["1change"]})
    >>> res = label_errors(models, changes, labels)
    >>> res.model_errors["fn"].tolist(), res.label_errors["status"].tolist()
    ([1.0, 0.0], ['false negative', 'correct'])
    """

    model_errors: pd.DataFrame
    label_errors: pd.DataFrame


def _model_vars(model_vars) -> list[str]:
    if isinstance(model_vars, str):
        return [model_vars]
    mv = list(model_vars)
    if not mv or not all(isinstance(v, str) for v in mv):
        raise TypeError("model_vars must be a column name or a list of column names")
    return mv


def check_labels(labels: pd.DataFrame, name: str = "labels") -> pd.DataFrame:
    """Validate labels and join them with the annotation rules.

    Returns a copy sorted by sequence (order of first appearance) and start, with columns
    ``sequence_id, start, end, annotation, weight, min_changes, max_changes,
    possible_fp, possible_fn``.

    Examples
    --------
    >>> import pandas as pd
    >>> lab = pd.DataFrame({"sequence_id": ["a", "a"], "start": [10, 0], "end": [20, 10],
    ...                     "annotation": ["1change", "normal"]})
    >>> check_labels(lab)[["start", "min_changes", "max_changes"]].values.tolist()
    [[0.0, 0.0, 0.0], [10.0, 1.0, 1.0]]
    """
    require_columns(labels, ["sequence_id", "start", "end", "annotation"], name)
    if len(labels) == 0:
        raise ValueError(f"{name} has no rows: at least one label is needed")
    require_ids(labels, name)
    lab = labels.copy()
    for col in ("start", "end"):
        try:
            lab[col] = pd.to_numeric(lab[col])
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} column {col!r} must be numeric") from exc
        bad = lab[col].isna()
        if bad.any():
            sid = lab["sequence_id"][bad].iloc[0]
            raise ValueError(f"{name} column {col!r} has a missing value in sequence {sid!r}")
    bad = ~(lab["start"] < lab["end"])
    if bad.any():
        row = lab[bad].iloc[0]
        raise ValueError(
            f"{name}: label start must be less than end; sequence {row['sequence_id']!r} has "
            f"start={row['start']!r}, end={row['end']!r}"
        )
    if "weight" in lab.columns:
        w = pd.to_numeric(lab["weight"], errors="coerce")
        bad = ~(np.isfinite(w.to_numpy(dtype=float)) & (w.to_numpy(dtype=float) > 0))
        if bad.any():
            sid = lab["sequence_id"][bad].iloc[0]
            raise ValueError(f"{name} column 'weight' must be finite and > 0 (sequence {sid!r})")
        lab["weight"] = w.astype(float)
    else:
        lab["weight"] = 1.0
    known = set(ANNOTATIONS["annotation"])
    bad = ~lab["annotation"].isin(known)
    if bad.any():
        row = lab[bad].iloc[0]
        raise ValueError(
            f"{name}: unknown annotation {row['annotation']!r} in sequence "
            f"{row['sequence_id']!r}; expected one of {sorted(known)}"
        )
    lab = lab.drop(columns=[c for c in ANNOTATIONS.columns if c != "annotation"
                            and c in lab.columns])
    lab = lab.merge(ANNOTATIONS, on="annotation", how="left", sort=False)
    lab["_seq"] = pd.factorize(lab["sequence_id"])[0]
    lab = lab.sort_values(["_seq", "start"], kind="stable").reset_index(drop=True)
    same = lab["_seq"].to_numpy()[1:] == lab["_seq"].to_numpy()[:-1]
    overlap = same & (lab["end"].to_numpy()[:-1] > lab["start"].to_numpy()[1:])
    if overlap.any():
        i = int(np.flatnonzero(overlap)[0])
        raise ValueError(
            f"{name}: labels of sequence {lab['sequence_id'].iloc[i]!r} overlap: "
            f"({lab['start'].iloc[i]}, {lab['end'].iloc[i]}] and "
            f"({lab['start'].iloc[i + 1]}, {lab['end'].iloc[i + 1]}]; each label end must "
            "be <= the next label start"
        )
    return lab.drop(columns="_seq")


def id_type_hint(missing, known) -> str:
    """A hint when ids differ only by type (e.g. ``1`` in labels, ``"1"`` in models).

    Examples
    --------
    >>> "missing ids are int but the known ids are str" in id_type_hint([1, 2], ["1", "2"])
    True
    >>> id_type_hint(["a"], ["b"])
    ''
    """
    def kinds(ids):
        return sorted({type(i.item() if isinstance(i, np.generic) else i).__name__
                       for i in ids})

    k_missing, k_known = kinds(missing), kinds(known)
    if not k_known or k_missing == k_known:
        return ""
    as_str = {str(i) for i in known}
    if not any(str(i) in as_str for i in missing) and set(k_missing) & set(k_known):
        return ""
    return (f"; the missing ids are {'/'.join(k_missing)} but the known ids are "
            f"{'/'.join(k_known)}: ids must have one type (read id columns as strings, "
            "e.g. pd.read_csv(..., dtype={'sequence_id': str}))")


def labels_outside_data(sequences: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Labels that no change can ever fall in: a sign of labels in other units.

    A change between consecutive data at positions p_i < p_{i+1} is located at
    ⌊(p_i + p_{i+1})/2⌋, so a label (start, end] that holds none of these positions
    (e.g. a label past the last position, or in kilobases on data in bases) can never
    contain a change: a ``1change`` label there is a false negative for every penalty.
    Labels of sequences that are not in ``sequences`` are not checked here.

    Parameters
    ----------
    sequences : DataFrame
        ``sequence_id, position`` (the long sequences table).
    labels : DataFrame
        ``sequence_id, start, end, annotation``.

    Returns
    -------
    DataFrame
        The offending rows of ``labels`` (with their original index), plus
        ``first_position, last_position`` of their sequence.

    Examples
    --------
    >>> seqs = pd.DataFrame({"sequence_id": "a", "position": [1, 2, 3, 4]})
    >>> lab = pd.DataFrame({"sequence_id": "a", "start": [1, 400], "end": [3, 500],
    ...                     "annotation": ["1change", "1change"]})
    >>> labels_outside_data(seqs, lab)[["start", "end", "last_position"]].values.tolist()
    [[400, 500, 4]]
    """
    require_columns(sequences, ["sequence_id", "position"], "sequences")
    require_columns(labels, ["sequence_id", "start", "end"], "labels")
    # unusable values are left to the checks of segmentation and labels
    seqs = sequences.assign(position=pd.to_numeric(sequences["position"], errors="coerce"))
    seqs = seqs[np.isfinite(seqs["position"].to_numpy(dtype=float))]
    pos = seqs.groupby("sequence_id", sort=False)["position"]
    rows, first, last = [], [], []
    for sid, lab in labels.groupby("sequence_id", sort=False):
        if sid not in pos.groups:
            continue
        p = np.unique(pos.get_group(sid).to_numpy())
        if p.dtype.kind == "i":
            mid = p[:-1] + (p[1:] - p[:-1]) // 2
        else:
            mid = np.floor((p[:-1] + p[1:]) / 2)
        start = pd.to_numeric(lab["start"], errors="coerce").to_numpy(dtype=float)
        end = pd.to_numeric(lab["end"], errors="coerce").to_numpy(dtype=float)
        n_in = np.searchsorted(mid, end, side="right") - np.searchsorted(mid, start, "right")
        out = lab.index[(n_in <= 0) & (start < end)]
        rows.extend(out)
        first.extend([p[0]] * len(out))
        last.extend([p[-1]] * len(out))
    res = labels.loc[rows].copy()
    res["first_position"] = np.asarray(first, dtype=np.int64)
    res["last_position"] = np.asarray(last, dtype=np.int64)
    return res


def labels_with_data(sequences: pd.DataFrame, labels: pd.DataFrame, *,
                     unmatched: str = "error", outside: str = "warn") -> pd.DataFrame:
    """Check labels against the data before any work; return the labels to use.

    Two silent sources of wrong error functions are caught here: labeled sequences that
    are not in ``sequences`` (``unmatched="error"`` raises, ``"warn"`` warns and drops
    their labels), and labels that no change can fall in (:func:`labels_outside_data`,
    e.g. a label past the last position or in other units; ``outside="warn"`` warns,
    ``"error"`` raises). Messages give the count and the first ids.

    Examples
    --------
    >>> seqs = pd.DataFrame({"sequence_id": "a", "position": [1, 2, 3, 4]})
    >>> lab = pd.DataFrame({"sequence_id": ["a", "b"], "start": [1, 1], "end": [3, 3],
    ...                     "annotation": "1change"})
    >>> labels_with_data(seqs, lab)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: labels: 1 labeled sequence(s) ['b'] have no data in sequences (1 of 2 ...)
    """
    for arg, v in (("unmatched", unmatched), ("outside", outside)):
        if v not in ("error", "warn"):
            raise ValueError(f"{arg} must be 'error' or 'warn', got {v!r}")
    require_columns(labels, ["sequence_id", "start", "end", "annotation"], "labels")
    have = set(pd.unique(sequences["sequence_id"]))
    labeled = pd.unique(labels["sequence_id"])
    missing = [s for s in labeled if s not in have]
    if missing:
        msg = (f"labels: {id_list(missing, 'labeled sequence(s)')} have no data in sequences "
               f"({len(labeled) - len(missing)} of {len(labeled)} labeled sequences have "
               f"data){id_type_hint(missing, have)}")
        if unmatched == "error" or len(missing) == len(labeled):
            raise ValueError(msg)
        warnings.warn(msg + "; their labels are left out", UserWarning,
                      stacklevel=caller_stacklevel())
        labels = labels[~labels["sequence_id"].isin(set(missing))]
    out = labels_outside_data(sequences, labels)
    if len(out):
        ids = pd.unique(out["sequence_id"])
        r = out.iloc[0]
        msg = (f"labels: {len(out)} label(s) of {id_list(ids)} contain no "
               f"position where a change can be (e.g. ({r['start']}, {r['end']}] of "
               f"sequence {r['sequence_id']!r}, whose data span {r['first_position']}.."
               f"{r['last_position']}): labels outside the data, or in other units? A label "
               "needing a change there is a false negative at every penalty")
        if outside == "error":
            raise ValueError(msg)
        warnings.warn(msg, UserWarning, stacklevel=caller_stacklevel())
    return labels


def label_errors(
    models: pd.DataFrame,
    changes: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    model_vars="n_segments",
) -> LabelErrors:
    """False positives and false negatives of every model of every labeled sequence.

    Parameters
    ----------
    models : DataFrame
        ``sequence_id`` and the ``model_vars`` columns identifying each model (unique
        within a sequence); other columns are kept.
    changes : DataFrame
        ``sequence_id``, the ``model_vars`` and ``position``: one row per predicted
        change of a model (a model may have none).
    labels : DataFrame
        ``sequence_id, start, end, annotation`` and an optional positive ``weight``;
        regions (start, end], not overlapping within a sequence.
    model_vars : str or list of str
        The columns identifying a model within a sequence.

    Returns
    -------
    LabelErrors
        ``model_errors``: the models of labeled sequences (in input order) with
        ``possible_fp, fp, possible_fn, fn, labels, errors`` (weighted sums);
        ``label_errors``: one row per (label, model) with ``n_changes`` in the label,
        its ``min_changes, max_changes, possible_fp, possible_fn`` (0/1), ``weight``,
        ``fp, fn`` (the label's weight if the error occurs, else 0) and ``status``
        ("correct", "false positive", "false negative").
        Sequences without labels are left out.

    Examples
    --------
    >>> import pandas as pd
    >>> models = pd.DataFrame({"sequence_id": "a", "n_segments": [1, 2, 3]})
    >>> changes = pd.DataFrame({"sequence_id": "a", "n_segments": [2, 3, 3],
    ...                         "position": [75, 75, 50]})
    >>> labels = pd.DataFrame({"sequence_id": "a", "start": [70, 20], "end": [80, 60],
    ...                        "annotation": ["1change", "0changes"]})
    >>> label_errors(models, changes, labels).model_errors[["fp", "fn"]].values.tolist()
    [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    """
    mv = _model_vars(model_vars)
    key = ["sequence_id", *mv]
    require_columns(models, key, "models")
    require_columns(changes, [*key, "position"], "changes")
    lab = check_labels(labels)
    dup = models.duplicated(key)
    if dup.any():
        sid = models["sequence_id"][dup].iloc[0]
        raise ValueError(
            f"models: each model of a sequence must have distinct {mv}; sequence {sid!r} "
            "has duplicates"
        )
    model_ids = models[key].assign(_model=np.arange(len(models)))
    ch = changes[[*key, "position"]].merge(model_ids, on=key, how="left")
    if ch["_model"].isna().any():
        sid = ch["sequence_id"][ch["_model"].isna()].iloc[0]
        raise ValueError(f"changes of sequence {sid!r} refer to models that are not in models")
    pos = pd.to_numeric(ch["position"], errors="coerce")
    if pos.isna().any():
        sid = ch["sequence_id"][pos.isna()].iloc[0]
        raise ValueError(f"changes column 'position' must be numeric (sequence {sid!r})")
    labeled = pd.unique(lab["sequence_id"])
    has_models = pd.Index(pd.unique(models["sequence_id"]))
    missing = [s for s in labeled if s not in has_models]
    if missing:
        raise ValueError(
            f"{id_list(missing, 'labeled sequence(s)')} have no models (no data segmented?); "
            f"every labeled sequence needs models{id_type_hint(missing, has_models)}"
        )
    lab = lab.assign(_label=np.arange(len(lab)))
    pairs = lab.merge(model_ids, on="sequence_id", how="inner", sort=False)
    inside = ch[["sequence_id", "_model"]].assign(position=pos.to_numpy()).merge(
        lab[["sequence_id", "start", "end", "_label"]], on="sequence_id", how="inner"
    )
    inside = inside[(inside["start"] < inside["position"]) & (inside["position"] <= inside["end"])]
    counts = inside.groupby(["_label", "_model"]).size().rename("n_changes").reset_index()
    pairs = pairs.merge(counts, on=["_label", "_model"], how="left")
    pairs["n_changes"] = pairs["n_changes"].fillna(0).astype(np.int64)
    is_fp = (pairs["n_changes"] > pairs["max_changes"]).to_numpy()
    is_fn = (pairs["n_changes"] < pairs["min_changes"]).to_numpy()
    w = pairs["weight"].to_numpy()
    pairs["fp"] = w * is_fp
    pairs["fn"] = w * is_fn
    pairs["status"] = np.where(is_fp, "false positive",
                               np.where(is_fn, "false negative", "correct"))
    pairs = pairs.sort_values(["_label", "_model"], kind="stable")
    w = pairs["weight"].to_numpy()
    sums = pd.DataFrame(
        {
            "_model": pairs["_model"].to_numpy(),
            "possible_fp": w * pairs["possible_fp"].to_numpy(),
            "fp": pairs["fp"].to_numpy(),
            "possible_fn": w * pairs["possible_fn"].to_numpy(),
            "fn": pairs["fn"].to_numpy(),
            "labels": w,
        }
    ).groupby("_model").sum()
    sums["errors"] = sums["fp"] + sums["fn"]
    taken = [c for c in sums.columns if c in models.columns]
    model_errors = models.drop(columns=taken).iloc[sums.index.to_numpy()].copy()
    for col in sums.columns:
        model_errors[col] = sums[col].to_numpy()
    model_errors = model_errors.reset_index(drop=True)
    label_cols = [*key, "start", "end", "annotation", "min_changes", "max_changes",
                  "possible_fp", "possible_fn", "weight", "n_changes", "fp", "fn", "status"]
    extra = [c for c in lab.columns if c not in label_cols and not c.startswith("_")
             and c not in models.columns]
    label_table = pairs[label_cols + extra].reset_index(drop=True)
    return LabelErrors(model_errors, label_table)


LabelErrors.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
