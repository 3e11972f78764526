"""Per label, single-sample peaks against joint peaks."""

from __future__ import annotations

import pandas as pd

from penlearn.peaks.peakseg.labels import peak_label_errors

__all__ = ["label_error_comparison"]


def label_error_comparison(single: pd.DataFrame, joint: pd.DataFrame,
                           labels: pd.DataFrame) -> pd.DataFrame:
    """Per label, the status of single-sample and joint peaks (``single``, ``joint``).

    Both peak tables are ``sample_id, chrom, chromStart, chromEnd``; labels per sample
    (as :func:`joint_peaks` checked them). Labels outside every joint window count with
    no joint peak.

    Examples
    --------
    >>> lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["c"], "chromStart": [0],
    ...                     "chromEnd": [10], "annotation": ["peaks"]})
    >>> pk = pd.DataFrame({"sample_id": ["a"], "chrom": ["c"], "chromStart": [5],
    ...                    "chromEnd": [8]})
    >>> label_error_comparison(pk, pk.iloc[:0], lab)[["single", "joint"]].values.tolist()
    [['correct', 'false negative']]
    """
    s = peak_label_errors(single, labels).label_errors
    j = peak_label_errors(joint, labels).label_errors
    out = s[["sample_id", "chrom", "chromStart", "chromEnd", "annotation"]].copy()
    out["single"] = s["status"].to_numpy()
    out["joint"] = j["status"].to_numpy()
    return out
