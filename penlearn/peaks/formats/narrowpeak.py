"""Peaks as ENCODE narrowPeak (BED 6+4), the format peak callers such as MACS2/3 write.

The ten tab-separated columns (UCSC / ENCODE "narrowPeak" format): ``chrom, chromStart,
chromEnd, name, score, strand, signalValue, pValue, qValue, peak``. What penlearn puts in
them, for a PeakSeg model (Hocking et al. 2020, *JMLR* 21(87)), which gives each peak a
mean coverage and no statistical test:

* ``name``: unique in the file (``<sample>_peak<k>``, k = 1, 2, ... in file order);
* ``score``: integer 0-1000 for the browser's shading, ``round(1000 * signalValue /
  max signalValue)`` of the file (the strongest peak 1000);
* ``strand``: ``.``;
* ``signalValue``: the peak segment's mean coverage (reads per base);
* ``pValue``, ``qValue``: ``-1`` (not computed: the model is chosen by a learned
  penalty, not by a test);
* ``peak``: ``-1`` (no point source: the model is a segment of constant mean).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.bed import _text_column, _write_text
from penlearn.peaks.formats.regions import check_peaks

__all__ = ["NARROWPEAK_COLUMNS", "narrowpeak_table", "write_narrowpeak"]

NARROWPEAK_COLUMNS = ("chrom", "chromStart", "chromEnd", "name", "score", "strand",
                      "signalValue", "pValue", "qValue", "peak")


def narrowpeak_table(peaks: pd.DataFrame, prefix: str = "") -> pd.DataFrame:
    """The ten narrowPeak columns of peaks ``chrom, chromStart, chromEnd, signalValue``.

    Parameters
    ----------
    peaks : DataFrame
        One sample's peaks and their ``signalValue`` (mean coverage), finite, >= 0.
    prefix : str
        Start of the names: ``f"{prefix}_peak{k}"`` (``peak{k}`` when empty).

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [10, 50], "chromEnd": [20, 70],
    ...                   "signalValue": [2.0, 8.0]})
    >>> narrowpeak_table(t, "s1")[["name", "score", "signalValue", "pValue"]].values.tolist()
    [['s1_peak1', 250, 2.0, -1], ['s1_peak2', 1000, 8.0, -1]]
    """
    require_columns(peaks, ["chrom", "chromStart", "chromEnd", "signalValue"], "peaks")
    clean = check_peaks(peaks[["chrom", "chromStart", "chromEnd"]])
    clean["chrom"] = _text_column(peaks["chrom"].to_numpy(), "chrom")
    signal = pd.to_numeric(peaks["signalValue"], errors="coerce").to_numpy(float)
    if not (np.isfinite(signal) & (signal >= 0)).all():
        raise ValueError("peaks column 'signalValue' must hold finite numbers >= 0")
    top = signal.max() if len(signal) else 0.0
    score = np.rint(1000 * signal / top).astype(np.int64) if top > 0 \
        else np.zeros(len(signal), np.int64)
    stem = f"{prefix}_peak" if prefix else "peak"
    names = [f"{stem}{k}" for k in range(1, len(clean) + 1)]
    return pd.DataFrame({"chrom": clean["chrom"].to_numpy(),
                         "chromStart": clean["chromStart"].to_numpy(),
                         "chromEnd": clean["chromEnd"].to_numpy(),
                         "name": _text_column(names, "name"), "score": score,
                         "strand": ".", "signalValue": signal, "pValue": -1, "qValue": -1,
                         "peak": -1})


def write_narrowpeak(table: pd.DataFrame, path: str | os.PathLike, *, track=None) -> None:
    """Write a :func:`narrowpeak_table` as a narrowPeak file, atomically.

    Parameters
    ----------
    table : DataFrame
        The ten :data:`NARROWPEAK_COLUMNS`.
    path : path-like
        Output file (gzip when the name ends in ``.gz``).
    track : str, optional
        A ``track type=narrowPeak name="..."`` line first.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s1.narrowPeak"
    >>> t = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20],
    ...                   "signalValue": [2.5]})
    >>> write_narrowpeak(narrowpeak_table(t, "s1"), p)
    >>> p.read_text()
    'chr1\\t10\\t20\\ts1_peak1\\t1000\\t.\\t2.5\\t-1\\t-1\\t-1\\n'
    """
    require_columns(table, list(NARROWPEAK_COLUMNS), "narrowPeak table")
    if table["name"].duplicated().any():
        dup = table["name"][table["name"].duplicated()].iloc[0]
        raise ValueError(f"narrowPeak names must be unique; {dup!r} is repeated")
    if track is not None:
        track = {"type": "narrowPeak", "name": track}
    text = table[list(NARROWPEAK_COLUMNS)].to_csv(sep="\t", header=False, index=False,
                                                   lineterminator="\n")
    _write_text(text, path, track)
