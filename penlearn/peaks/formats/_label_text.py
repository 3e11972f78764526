"""The labels text format of genome-browser users (helpers of ``read_peak_labels``).

One label per line, ``chrom:first-last annotation [group ...]`` with thousands commas,
blank lines between windows (the regions viewed together when labelling), as in the
labelling protocol of Hocking et al. (2017), "Optimizing ChIP-seq peak detectors using
visual labels and supervised machine learning", *Bioinformatics* 33(4):491-499.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pandas as pd

from penlearn._checks import require_columns

#: ``chrom:first-last annotation [groups]``; positions in ASCII digits, either plain or
#: with thousands commas in their places (``33,456,000``, not ``3,3456,000``).
_POSITION = r"([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)"
BROWSER_LINE = re.compile(r"^\s*([^\s:]+):" + _POSITION + "-" + _POSITION
                          + r"\s+(\S+)((?:\s+\S+)*)\s*$")
#: Any line of the browser format, well-formed or not (tells the format apart).
BROWSER_LIKE = re.compile(r"^\s*[^\s:]+:[\d,]+-[\d,]+\s")


def browser_labels(path, text: str, coordinates: str) -> tuple[pd.DataFrame, list[int]]:
    """The genome-browser labels text format (one window per block of lines)."""
    rows, numbers = [], []
    window, in_block = -1, False
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            in_block = False
            continue
        if stripped.startswith("#"):
            continue
        m = BROWSER_LINE.match(line)
        if m is None:
            raise ValueError(
                f"{path}, line {lineno}: expected 'chrom:start-end annotation [groups]' "
                f"(for example 'chr10:33,456,000-33,484,755 peakStart kidney'), got {line!r}"
            )
        if not in_block:
            window, in_block = window + 1, True
        first, last = (int(m.group(k).replace(",", "")) for k in (2, 3))
        if max(first, last) >= 2**63:
            raise ValueError(f"{path}, line {lineno}: position {max(first, last)} is beyond "
                             "the 64-bit integer range")
        start = first - 1 if coordinates == "browser" else first
        rows.append((m.group(1), start, last, m.group(4), " ".join(m.group(5).split()),
                     window))
        numbers.append(lineno)
    cols = ["chrom", "chromStart", "chromEnd", "annotation", "groups", "window"]
    return pd.DataFrame(rows, columns=cols), numbers


def row_where(labels: pd.DataFrame):
    """``where(i)``: the file and line of row ``i`` of a labels table read by
    :func:`~penlearn.peaks.formats.bed.read_peak_labels` (its ``attrs["source_lines"]``),
    else ``label <i + 1>`` (1-based, as a user counts).

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": ["chr1", "chr1"]}, index=[3, 7])
    >>> t.attrs["source_lines"] = ("labels.txt", {3: 5, 7: 9})
    >>> row_where(t)(1), row_where(t.iloc[1:])(0), row_where(pd.DataFrame({"a": [1]}))(0)
    ('labels.txt, line 9', 'labels.txt, line 9', 'label 1')
    """
    source = labels.attrs.get("source_lines")

    def where(i: int) -> str:
        if source is not None:
            line = source[1].get(labels.index[i])
            if line is not None:
                return f"{source[0]}, line {line}"
            return f"{source[0]}, label {i + 1}"
        return f"label {i + 1}"
    return where


def expand_groups(labels: pd.DataFrame, samples, where=None) -> pd.DataFrame:
    """One row per (sample, label): the annotation where the sample's group (or id) is
    listed or nothing is listed, ``noPeaks`` elsewhere. A listed word that is no sample
    id and no group is an error (a typo would otherwise make the label ``noPeaks`` for
    every sample); ``where(i)`` names label ``i`` in that message (default:
    :func:`row_where`, the file and line the row was read from)."""
    if isinstance(samples, pd.DataFrame):
        require_columns(samples, ["sample_id", "group"], "samples")
        groups = dict(zip(samples["sample_id"].astype(str), samples["group"].astype(str)))
    elif isinstance(samples, Mapping):
        groups = {str(k): str(v) for k, v in samples.items()}
    else:
        raise TypeError("samples must be a mapping sample_id -> group or a DataFrame with "
                        f"columns sample_id, group; got {type(samples).__name__}")
    where = where or row_where(labels)
    parts = []
    listed = labels["groups"].str.split()
    known = set(groups) | set(groups.values())
    for i, words in enumerate(listed):
        unknown = [w for w in words if w not in known]
        if unknown:
            raise ValueError(f"{where(i)}: {unknown[0]!r} is no sample id or group of the samples "
                             f"({', '.join(sorted(known)[:10])}"
                             f"{', ...' if len(known) > 10 else ''})")
    for sid, group in groups.items():
        hit = listed.map(lambda g, sid=sid, group=group: not g or sid in g or group in g)
        parts.append(labels.assign(
            sample_id=sid, annotation=labels["annotation"].where(hit.to_numpy(), "noPeaks")))
    out = pd.concat(parts, ignore_index=True) if parts else labels.iloc[:0].assign(sample_id="")
    return out[["sample_id", "chrom", "chromStart", "chromEnd", "annotation", "window"]]


def check_sample_groups(table: pd.DataFrame, where: str = "groups") -> pd.DataFrame:
    """The one check of a ``sample_id, group`` table (``--groups FILE`` of ``errors`` and
    ``joint``, ``joint_peaks(groups=...)``): rows there, no blank sample id or group, and
    no sample under two groups (never the last row silently); ``where`` names the table.
    Returns the distinct ``sample_id, group`` rows as text.

    Examples
    --------
    >>> t = pd.DataFrame({"sample_id": ["A", "B", "A"], "group": ["k", "b", "k"]})
    >>> check_sample_groups(t).values.tolist()
    [['A', 'k'], ['B', 'b']]
    >>> check_sample_groups(t.assign(group=["k", "b", "x"]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: groups: sample 'A' is under two groups, 'k' and 'x'; ...
    """
    require_columns(table, ["sample_id", "group"], where)
    if len(table) == 0:
        raise ValueError(f"{where} has no rows: give one 'sample_id, group' row per sample")
    text = {}
    for col in ("sample_id", "group"):
        values = table[col]
        blank = values.isna().to_numpy() | (values.astype(str).str.strip() == "").to_numpy()
        if blank.any():
            i = int(blank.argmax())
            raise ValueError(f"{where}: row {i + 1} has no {col} (every row names a sample "
                             "and its group)")
        text[col] = values.astype(str).str.strip().to_numpy()
    per = pd.DataFrame(text).drop_duplicates(ignore_index=True)
    dup = per["sample_id"].duplicated(keep=False)
    if dup.any():  # one sample, two groups: never the last row silently
        sid = per["sample_id"][dup].iloc[0]
        both = per.loc[per["sample_id"] == sid, "group"].tolist()[:2]
        raise ValueError(
            f"{where}: sample {sid!r} is under two groups, {both[0]!r} and {both[1]!r}; a "
            "sample id names one sample (one coverage): if these are two samples (as in "
            "PeakSegJoint's demo.profiles), give each its own id, e.g. "
            f"'{both[0]}/{sid}' and '{both[1]}/{sid}'")
    return per
