"""Labeled sequences to the tables a penalty is learned from, in one call.

:func:`sequence_tables` runs the first stages of the pipeline on a long table of
sequences: the optimal models with 1..K segments (:func:`segment_sequences`), with labels
the error functions over log λ and the target intervals (:func:`error_functions`,
:func:`target_intervals`), and the features of every sequence (:func:`feature_matrix`):
the tables of a UCI-format folder, which ``penlearn segment`` writes and ``penlearn demo``
learns from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from penlearn.changepoint.evaluation import error_functions, target_intervals
from penlearn.changepoint.features import feature_matrix
from penlearn.changepoint.segmentation import segment_sequences

__all__ = ["SequenceTables", "sequence_tables"]


@dataclass(frozen=True)
class SequenceTables:
    """The tables of :func:`sequence_tables`.

    Attributes
    ----------
    models, changes : DataFrame
        As :func:`~penlearn.changepoint.segmentation.segment_sequences` returns them.
    evaluation, targets : DataFrame or None
        The error functions and target intervals of the labeled sequences (None without
        labels).
    features : DataFrame
        One row of features per sequence (indexed by sequence id).
    """

    models: pd.DataFrame
    changes: pd.DataFrame
    evaluation: pd.DataFrame | None
    targets: pd.DataFrame | None
    features: pd.DataFrame


def sequence_tables(sequences: pd.DataFrame, labels: pd.DataFrame | None, max_segments: int,
                    *, loss: str = "l2", feature_set: str = "penaltyLearning",
                    progress: bool = True,
                    report: Callable[[str], None] | None = None) -> SequenceTables:
    """Segment, evaluate against the labels and featurise sequences.

    Parameters
    ----------
    sequences : DataFrame
        Long table ``sequence_id, position, value``.
    labels : DataFrame or None
        ``sequence_id, start, end, annotation``, checked against the data by the caller
        (:func:`~penlearn.changepoint.labels.labels_with_data`); None: no evaluation.
    max_segments : int
        Largest number of segments.
    loss : {"l2", "poisson"}
        Segment loss.
    feature_set : str
        One of :data:`~penlearn.changepoint.features.FEATURE_SETS`.
    progress : bool
        Progress bar of the segmentation.
    report : callable, optional
        Called with one line before each stage (a command's progress messages).

    Returns
    -------
    SequenceTables

    Examples
    --------
    >>> import penlearn as pl
    >>> data = pl.simulate(4, seed=1, n_points=(40, 60))
    >>> t = sequence_tables(data.sequences, data.labels, 3, progress=False)
    >>> sorted(t.models["n_segments"].unique().tolist()), len(t.features)
    ([1, 2, 3], 4)
    >>> t.evaluation.equals(pl.error_functions(t.models, t.changes, data.labels))
    True
    """
    def say(msg: str) -> None:
        if report is not None:
            report(msg)

    say(f"segmenting {sequences['sequence_id'].nunique()} sequences "
        f"(1..{max_segments} segments, {loss} loss)")
    models, changes = segment_sequences(sequences, max_segments, loss=loss, progress=progress)
    evaluation = targets = None
    if labels is not None:
        say("error functions over log λ")
        evaluation = error_functions(models, changes, labels)
        targets = target_intervals(evaluation)
    say(f"features ({feature_set})")
    features = feature_matrix(sequences, feature_set)
    return SequenceTables(models, changes, evaluation, targets, features)
