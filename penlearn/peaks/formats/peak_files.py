"""Peak files of any caller, one sample or a folder of them, for scoring against labels.

A folder holds one file per sample, as ``penlearn peaks --out DIR`` writes it: BED,
narrowPeak or broadPeak (plain or gzip), the sample id being the file name without its
extension, percent-decoded (``kidney%2FMS1.bed`` is sample ``kidney/MS1``; the inverse
of :func:`penlearn.cli.peaks.sample_file_names`).
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.peaks.formats.bed import read_bed

__all__ = ["PEAK_FILE_SUFFIXES", "merge_overlapping_peaks", "read_peak_files"]

PEAK_FILE_SUFFIXES = (".bed", ".narrowpeak", ".broadpeak")


def _stem(name: str) -> str | None:
    low = name.lower()
    low, name = (low[:-3], name[:-3]) if low.endswith(".gz") else (low, name)
    for suffix in PEAK_FILE_SUFFIXES:
        if low.endswith(suffix):
            return name[: -len(suffix)]
    return None


def read_peak_files(path: str | os.PathLike) -> pd.DataFrame:
    """Peaks of one file (``chrom, chromStart, chromEnd[, name, score]``) or of a folder of
    per-sample files (with a ``sample_id`` column first).

    Each file is read by :func:`~penlearn.peaks.formats.bed.read_bed`: ``name`` and
    ``score`` are kept where the file has them (BED4/5/6, narrowPeak, broadPeak), so a
    track hub of the peaks shows them; in a folder mixing BED3 with wider files, the
    BED3 samples' names and scores are missing (``NaN``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "kidney%2FMS1.narrowPeak").write_text("chr1\\t10\\t20\\tp1\\t700\\n")
    >>> _ = (d / "MS2.bed").write_text("")
    >>> read_peak_files(d)[["sample_id", "chromStart", "name", "score"]].values.tolist()
    [['kidney/MS1', 10, 'p1', 700.0]]
    >>> sorted(read_peak_files(d).attrs["samples"])
    ['MS2', 'kidney/MS1']
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"peaks file or folder not found: {p}")
    if not p.is_dir():
        return read_bed(p)
    found = {}
    for f in sorted(p.iterdir()):
        stem = _stem(f.name)
        if stem is None or not f.is_file():
            continue
        sid = urllib.parse.unquote(stem)
        if sid in found:
            raise ValueError(f"{p}: two files give sample {sid!r}: {found[sid].name}, {f.name}")
        found[sid] = f
    if not found:
        raise ValueError(f"{p}: no peak files (*.bed, *.narrowPeak, *.broadPeak, optionally "
                         ".gz) in the folder")
    parts = [read_bed(f).assign(sample_id=sid) for sid, f in found.items()]
    extra = [c for c in ("name", "score") if any(c in t.columns for t in parts)]
    out = pd.concat(parts, ignore_index=True)[["sample_id", "chrom", "chromStart",
                                                "chromEnd", *extra]]
    out["sample_id"] = out["sample_id"].astype(str)
    out.attrs["samples"] = list(found)
    return out


def merge_overlapping_peaks(peaks: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The union of overlapping peaks of each (sample, chromosome), and how many rows were
    merged away (touching peaks stay apart).

    Examples
    --------
    >>> p = pd.DataFrame({"chrom": "chr1", "chromStart": [5, 1, 30], "chromEnd": [20, 10, 40]})
    >>> m, n = merge_overlapping_peaks(p)
    >>> m.values.tolist(), n
    ([['chr1', 1, 20], ['chr1', 30, 40]], 1)
    """
    keys = [c for c in ("sample_id", "chrom") if c in peaks.columns]
    df = peaks.sort_values([*keys, "chromStart", "chromEnd"], kind="stable")
    df = df.reset_index(drop=True)
    s, e = df["chromStart"].to_numpy(np.int64), df["chromEnd"].to_numpy(np.int64)
    group = pd.MultiIndex.from_frame(df[keys].astype(str)).factorize()[0] if keys else \
        np.zeros(len(df), np.int64)
    # running max of the ends within a group: a row overlaps the ones before it when its
    # start is below that
    reach = pd.Series(e).groupby(group).cummax().to_numpy()
    new = np.r_[True, (group[1:] != group[:-1]) | (s[1:] >= reach[:-1])][:len(df)]
    out = df.loc[new, [*keys, "chromStart"]].reset_index(drop=True)
    out["chromEnd"] = np.maximum.reduceat(e, np.flatnonzero(new)) if len(e) else e
    return out, len(df) - len(out)
