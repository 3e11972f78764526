"""Peaks as ENCODE narrowPeak (BED6+4) and broadPeak (BED6+3), and a summits BED file.

The formats peak callers such as MACS2/3 write, and that pipelines (IDR, consensus peaks,
annotation) take. Columns: ``chrom, chromStart, chromEnd, name, score, strand,
signalValue, pValue, qValue[, peak]``. Every value comes from
:func:`~penlearn.peaks.formats.peak_columns.peak_columns` (for a PeakSeg model:
:func:`penlearn.peaks.peakseg.calls.peak_calls`), so BED, narrowPeak, broadPeak and the
track hub say the same of a peak:

* ``name``: unique in the file (``<sample>_peak<k>``, k = 1, 2, ... in genomic order);
* ``score``: integer 0-1000, the peak's mean scaled to the file's strongest (1000);
* ``strand``: ``.``;
* ``signalValue``: the fold of the peak's mean coverage over its flanking background;
* ``pValue``: MACS3's: ``-log10`` Poisson p-value of the fragments at the summit against
  the local background (the control's, or the treatment's over 5 and 10 kb);
* ``qValue``: ``-log10`` Benjamini-Hochberg q-value among the genome's quarter-fragment
  windows (the module :mod:`~penlearn.peaks.formats.peak_columns` says exactly);
* ``peak`` (narrowPeak only): the summit's offset from ``chromStart``.

Files are in genomic order (as ``bedToBigBed``, ``bedtools`` and genome browsers want);
rank them by column 7 or 8 (``sort -k8,8gr``), as IDR does with ``--rank signal.value``
or ``p.value``: both are finite for every peak, never ``-1``.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn.peaks.formats.bed import _text_column, _write_text
from penlearn.peaks.formats.peak_columns import PEAK_VALUE_COLUMNS, peak_columns
from penlearn.peaks.formats.regions import check_peaks

__all__ = ["BROADPEAK_COLUMNS", "NARROWPEAK_COLUMNS", "narrowpeak_table", "write_broadpeak",
           "write_narrowpeak", "write_summits"]

NARROWPEAK_COLUMNS = ("chrom", "chromStart", "chromEnd", "name", "score", "strand",
                      "signalValue", "pValue", "qValue", "peak")
BROADPEAK_COLUMNS = NARROWPEAK_COLUMNS[:-1]


def narrowpeak_table(peaks: pd.DataFrame, prefix: str = "", *, number_sep: str = ""
                     ) -> pd.DataFrame:
    """The ten narrowPeak columns of one sample's peaks.

    Parameters
    ----------
    peaks : DataFrame
        ``chrom, chromStart, chromEnd`` and either the columns of
        :func:`~penlearn.peaks.formats.peak_columns.peak_columns` (``score, signalValue,
        pValue, qValue, summit``) or the ``mean`` and ``background`` they are computed
        from (then without a summit: ``peak`` is ``-1``).
    prefix : str
        Start of the names: ``f"{prefix}_peak{k}"`` (``peak{k}`` when empty).
    number_sep : str
        Between ``peak`` and ``k``: ``"_"`` gives MACS3's names, ``NAME_peak_1``
        (``penlearn callpeak``).

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": "chr1", "chromStart": [10, 50], "chromEnd": [20, 70],
    ...                   "mean": [2.0, 8.0], "background": [1.0, 1.0]})
    >>> narrowpeak_table(t, "s1")[["name", "score", "signalValue", "peak"]].values.tolist()
    [['s1_peak1', 250, 2.0, -1], ['s1_peak2', 1000, 8.0, -1]]
    """
    require_columns(peaks, ["chrom", "chromStart", "chromEnd"], "peaks")
    if not set(PEAK_VALUE_COLUMNS) <= set(peaks.columns):
        if not {"mean", "background"} <= set(peaks.columns):
            raise ValueError("peaks need the columns of peak_columns() (score, signalValue, "
                             "pValue, qValue, summit) or 'mean' and 'background' to compute "
                             "them (penlearn.peaks.peakseg.calls.peak_calls gives both)")
        peaks = peak_columns(peaks)
    clean = check_peaks(peaks[["chrom", "chromStart", "chromEnd"]])
    clean["chrom"] = _text_column(peaks["chrom"].to_numpy(), "chrom")
    values = {}
    for col in ("score", "signalValue", "pValue", "qValue", "summit"):
        v = pd.to_numeric(peaks[col], errors="coerce").to_numpy(float)
        if not (np.isfinite(v) & (v >= (-1 if col == "summit" else 0))).all():
            raise ValueError(f"peaks column {col!r} must hold finite numbers >= 0")
        values[col] = v
    score = values["score"]
    if not ((score <= 1000) & (score == np.rint(score))).all():
        raise ValueError("peaks column 'score' must hold integers 0-1000")
    bases = clean["chromEnd"].to_numpy() - clean["chromStart"].to_numpy()
    if (values["summit"] >= bases).any():
        raise ValueError("peaks column 'summit' must be an offset inside the peak")
    stem = (f"{prefix}_peak" if prefix else "peak") + number_sep
    names = [f"{stem}{k}" for k in range(1, len(clean) + 1)]
    return pd.DataFrame({"chrom": clean["chrom"].to_numpy(),
                         "chromStart": clean["chromStart"].to_numpy(),
                         "chromEnd": clean["chromEnd"].to_numpy(),
                         "name": _text_column(names, "name"),
                         "score": score.astype(np.int64), "strand": ".",
                         "signalValue": values["signalValue"], "pValue": values["pValue"],
                         "qValue": values["qValue"],
                         "peak": values["summit"].astype(np.int64)})


def _write(table: pd.DataFrame, columns, path, kind: str, track) -> None:
    require_columns(table, list(columns), f"{kind} table")
    if table["name"].duplicated().any():
        dup = table["name"][table["name"].duplicated()].iloc[0]
        raise ValueError(f"{kind} names must be unique; {dup!r} is repeated")
    if track is not None:
        track = {"type": kind, "name": track}
    text = table[list(columns)].to_csv(sep="\t", header=False, index=False,
                                       lineterminator="\n", float_format="%.6g")
    _write_text(text, path, track)


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
    ...                   "mean": [2.5], "background": [0.5]})
    >>> write_narrowpeak(narrowpeak_table(t, "s1"), p)
    >>> p.read_text().split("\\t")[:7]
    ['chr1', '10', '20', 's1_peak1', '1000', '.', '5']
    """
    _write(table, NARROWPEAK_COLUMNS, path, "narrowPeak", track)


def write_broadpeak(table: pd.DataFrame, path: str | os.PathLike, *, track=None) -> None:
    """Write peaks as broadPeak (BED6+3: narrowPeak without the summit), atomically.

    ``table`` is a :func:`narrowpeak_table` (its ``peak`` column is left out).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s2.broadPeak"
    >>> peaks = pd.DataFrame({"chrom": "chr2", "chromStart": [5, 90], "chromEnd": [60, 99],
    ...                       "mean": [4.0, 1.0], "background": [1.0, 0.5]})
    >>> write_broadpeak(narrowpeak_table(peaks), p)
    >>> [line.count("\\t") + 1 for line in p.read_text().splitlines()]
    [9, 9]
    """
    _write(table, BROADPEAK_COLUMNS, path, "broadPeak", track)


def write_summits(table: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write each peak's summit as MACS's ``NAME_summits.bed``: one base per peak, BED5
    ``chrom, summit, summit + 1, name, score`` with score the peak's ``qValue``
    (``-log10 q``, as MACS writes it), in genomic order, atomically.

    ``table`` is a :func:`narrowpeak_table` whose ``peak`` (summit) is known (>= 0).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s1_summits.bed"
    >>> t = narrowpeak_table(pd.DataFrame({
    ...     "chrom": ["chr1"], "chromStart": [10], "chromEnd": [20], "score": [1000],
    ...     "signalValue": [5.0], "pValue": [3.0], "qValue": [2.5], "summit": [4]}), "s1")
    >>> write_summits(t, p)
    >>> p.read_text()
    'chr1\\t14\\t15\\ts1_peak1\\t2.5\\n'
    """
    require_columns(table, list(NARROWPEAK_COLUMNS), "narrowPeak table")
    summit = table["peak"].to_numpy(np.int64)
    if (summit < 0).any():
        raise ValueError("write_summits needs every peak's summit (narrowPeak column "
                         "'peak' >= 0): give peak_columns() the coverage")
    at = table["chromStart"].to_numpy(np.int64) + summit
    out = pd.DataFrame({"chrom": table["chrom"].to_numpy(), "start": at, "end": at + 1,
                        "name": table["name"].to_numpy(), "score": table["qValue"].to_numpy()})
    _write_text(out.to_csv(sep="\t", header=False, index=False, lineterminator="\n",
                           float_format="%.6g"), path, None)
