"""Label errors of peak calls: false positives and false negatives of predicted peaks.

A peak label is a genomic region ``chrom, chromStart, chromEnd`` (BED coordinates: it
covers the bases ``chromStart+1 .. chromEnd``) with one of four annotations, the visual
labels of Hocking et al. (2017), "Optimizing ChIP-seq peak detectors using visual labels
and supervised machine learning", *Bioinformatics* 33(4):491-499, and the label error of
Hocking et al. (2020), "Constrained dynamic programming and supervised penalty learning
algorithms for peak detection in genomic data", *JMLR* 21(87):

=============  ==================================================  =====  =====
annotation     correct when                                        FP     FN
=============  ==================================================  =====  =====
``noPeaks``    no peak overlaps the region                         yes    no
``peakStart``  exactly one peak starts in the region (first base)  yes    yes
``peakEnd``    exactly one peak ends in the region (last base)     yes    yes
``peaks``      at least one peak overlaps the region               no     yes
=============  ==================================================  =====  =====

For ``peakStart`` / ``peakEnd``, no start (end) inside is a false negative and two or
more are a false positive. Exact ends, in base coordinates: a peak ``(s, e)`` (bases
s+1..e) overlaps the region ``(a, b)`` when ``s < b`` and ``e > a``; it starts in the
region when its first base s+1 is in a+1..b (``a <= s < b``) and ends in it when its last
base e is in a+1..b (``a < e <= b``).

Per label the table has ``tp, possible_tp`` (a peak / start / end was wanted and found),
``fp, possible_fp``, ``fn = possible_tp - tp, possible_fn = possible_tp`` and ``status``
(correct / false positive / false negative).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from penlearn._checks import require_columns
from penlearn._warnings import caller_stacklevel
from penlearn.peaks.formats._label_text import expand_groups
from penlearn.peaks.formats.regions import (
    PEAK_ANNOTATIONS,
    check_peak_labels,
    check_peaks,
    region_keys,
)

_POSSIBLE_TP = np.array([0, 1, 1, 1])
_POSSIBLE_FP = np.array([1, 1, 1, 0])
TOTAL_COLUMNS = ("labels", "possible_fp", "fp", "possible_fn", "fn", "errors")


class PeakLabelErrors(NamedTuple):
    """Result of :func:`peak_label_errors`.

    Attributes
    ----------
    label_errors : DataFrame
        One row per label, in the input order: ``[sample_id,] chrom, chromStart, chromEnd,
        annotation, tp, possible_tp, fp, possible_fp, fn, possible_fn, status``.
    totals : DataFrame
        ``[sample_id,] labels, possible_fp, fp, possible_fn, fn, errors``: one row, or one
        per sample when the labels have a ``sample_id`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> labels = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20],
    ...                        "annotation": ["peaks"]})
    >>> peaks = pd.DataFrame({"chrom": ["chr1"], "chromStart": [15], "chromEnd": [30]})
    >>> peak_label_errors(peaks, labels).totals["errors"].tolist()
    [0]
    >>> print(peak_label_errors(peaks, labels))  # doctest: +ELLIPSIS
    PeakLabelErrors: 0 of 1 label(s) wrong (0 false positive, 0 false negative; 0.0 %)
    ...
    """

    label_errors: pd.DataFrame
    totals: pd.DataFrame

    @property
    def errors(self) -> int:
        """Labels wrong in all (false positives + false negatives)."""
        return int(self.totals["errors"].sum())


def peak_label_counts(peak_start, peak_end, label_start, label_end, annotation):
    """Label errors of the peaks of one chromosome (the functional core, on arrays).

    Parameters
    ----------
    peak_start, peak_end : array_like of int
        Peaks sorted by start and not overlapping (so both arrays are sorted).
    label_start, label_end : array_like of int
        The labels' regions.
    annotation : array_like of int
        Codes into :data:`PEAK_ANNOTATIONS` (0 noPeaks, 1 peakStart, 2 peakEnd, 3 peaks).

    Returns
    -------
    tp, possible_tp, fp, possible_fp : ndarray of int
        Per label; ``fn = possible_tp - tp``.

    Examples
    --------
    >>> tp, ptp, fp, pfp = peak_label_counts([30, 35], [33, 38], [30], [40], [1])
    >>> int(tp[0]), int(fp[0])
    (1, 1)
    """
    ps = np.asarray(peak_start, dtype=np.int64)
    pe = np.asarray(peak_end, dtype=np.int64)
    ls = np.asarray(label_start, dtype=np.int64)
    le = np.asarray(label_end, dtype=np.int64)
    code = np.asarray(annotation, dtype=np.int64)
    started_before_end = np.searchsorted(ps, le, side="left")  # peaks with s < b
    # starts: a <= s < b;  ends: a < e <= b;  overlap: s < b and e > a
    n_start = started_before_end - np.searchsorted(ps, ls, side="left")
    n_end = np.searchsorted(pe, le, side="right") - np.searchsorted(pe, ls, side="right")
    n_overlap = started_before_end - np.searchsorted(pe, ls, side="right")
    inside = np.select([code == 1, code == 2], [n_start, n_end], default=n_overlap)
    possible_tp = _POSSIBLE_TP[code]
    possible_fp = _POSSIBLE_FP[code]
    tp = possible_tp * (inside >= 1)
    # noPeaks: one overlapping peak is already too many; peakStart/End: two or more
    fp = possible_fp * np.where(code == 0, inside >= 1, inside >= 2)
    return tp.astype(np.int64), possible_tp, fp.astype(np.int64), possible_fp


def check_labels_in_coverage(coverage: pd.DataFrame, labels: pd.DataFrame, *,
                             windows: pd.DataFrame | None = None,
                             outside: str = "error") -> pd.DataFrame:
    """The labels, each checked to lie inside its sample's coverage of its chromosome.

    A label of a sample without coverage, on a chromosome that sample has no coverage
    of, or reaching beyond the first / last covered base of that chromosome can have no
    label error computed from the coverage; leaving it out in silence would make the
    error functions count fewer labels than the user gave (``penlearn segment`` refuses
    such labels too). Labels without ``sample_id`` hold for every sample. Labels of the
    genome-browser text format that list samples (a ``groups`` column, see
    :func:`~penlearn.peaks.formats.bed.read_peak_labels`) are expanded over the coverage's
    sample ids: the listed samples get the annotation, the others ``noPeaks``; a listed
    word that is no sample id is an error.

    Parameters
    ----------
    coverage : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, ...``.
    labels : DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd, annotation``.
    windows : DataFrame, optional
        ``[sample_id,] chrom, chromStart, chromEnd``: the windows the error functions are
        computed on; each label must then lie inside one window of its sample too (a
        label in no window, or across two, would be dropped or split).
    outside : {"error", "warn"}
        Unmatched labels raise ``ValueError``, or are left out with one warning giving
        their counts.

    Returns
    -------
    DataFrame
        The labels to use (all of them, or those matched with ``outside="warn"``).

    Examples
    --------
    >>> import pandas as pd
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10], "chromEnd": [10, 50]})
    >>> lab = pd.DataFrame({"chrom": ["chr1", "chr2"], "chromStart": [5, 5],
    ...                     "chromEnd": [20, 20], "annotation": ["peaks", "noPeaks"]})
    >>> check_labels_in_coverage(cov, lab)
    Traceback (most recent call last):
    ...
    ValueError: 1 of 2 labels have no coverage to be evaluated on: labels row 1 (chr2, 5, 20) \
is on a chromosome without coverage
    """
    if outside not in ("error", "warn"):
        raise ValueError(f"outside must be 'error' or 'warn', got {outside!r}")
    require_columns(coverage, ["chrom", "chromStart", "chromEnd"], "coverage")
    per_sample = "sample_id" in coverage.columns
    if "sample_id" in labels.columns and not per_sample:
        raise ValueError("labels have a sample_id column but coverage has none")
    samples = [str(s) for s in pd.unique(coverage["sample_id"])] if per_sample else [""]
    if "groups" in labels.columns and "sample_id" not in labels.columns \
            and (labels["groups"].astype(str).str.strip() != "").any():
        if not per_sample:
            raise ValueError("labels list samples after their annotations, but the coverage "
                             "has one sample (no sample_id)")
        labels = expand_groups(labels, {s: s for s in samples})
    cov = pd.DataFrame({"sample_id": coverage["sample_id"].astype(str) if per_sample else "",
                        "chrom": coverage["chrom"].astype(str),
                        "chromStart": coverage["chromStart"], "chromEnd": coverage["chromEnd"]})
    span = cov.groupby(["sample_id", "chrom"], sort=False).agg(
        first=("chromStart", "min"), last=("chromEnd", "max")).reset_index()
    clean = check_peak_labels(labels)  # integer coordinates, known annotations
    lab = pd.DataFrame({"row": np.arange(len(labels)), "chrom": clean["chrom"].to_numpy(),
                        "chromStart": clean["chromStart"].to_numpy(),
                        "chromEnd": clean["chromEnd"].to_numpy()})
    if "sample_id" in labels.columns:
        lab["sample_id"] = labels["sample_id"].astype(str).to_numpy()
    else:
        lab = lab.merge(pd.DataFrame({"sample_id": samples}), how="cross")
    m = lab.merge(span, on=["sample_id", "chrom"], how="left")
    no_sample = ~m["sample_id"].isin(samples).to_numpy()
    no_chrom = m["first"].isna().to_numpy() & ~no_sample
    beyond = ~(no_sample | no_chrom) & ((m["chromStart"] < m["first"])
                                        | (m["chromEnd"] > m["last"])).to_numpy()
    no_window = np.zeros(len(m), dtype=bool)
    if windows is not None:
        no_window = ~(no_sample | no_chrom | beyond) & ~_in_a_window(m, windows, samples)
    bad = no_sample | no_chrom | beyond | no_window
    if not bad.any():
        return labels
    rows = np.unique(m["row"].to_numpy()[bad])
    j = int(np.flatnonzero(bad)[0])
    r = m.iloc[j]
    who = f"sample {r['sample_id']!r}, " if per_sample else ""
    what = (f"{who}{r['chrom']}, {r['chromStart']}, {r['chromEnd']}")
    why = ("is of a sample without coverage" if no_sample[j]
           else "is on a chromosome without coverage" if no_chrom[j]
           else "is inside no window (or across two)" if no_window[j]
           else f"reaches beyond the coverage of {r['chrom']} "
                f"({int(r['first'])}-{int(r['last'])})")
    msg = (f"{len(rows)} of {len(labels)} labels have no coverage to be evaluated on: "
           f"labels row {int(r['row'])} ({what}) {why}")
    if outside == "error":
        raise ValueError(msg)
    warnings.warn(msg + "; those labels are left out", UserWarning, stacklevel=caller_stacklevel())
    return labels.iloc[np.setdiff1d(np.arange(len(labels)), rows)]


def _in_a_window(m: pd.DataFrame, windows: pd.DataFrame, samples) -> np.ndarray:
    """Per row of ``m`` (sample_id, chrom, chromStart, chromEnd): inside one window?"""
    require_columns(windows, ["chrom", "chromStart", "chromEnd"], "windows")
    win = pd.DataFrame({"chrom": windows["chrom"].astype(str).to_numpy(),
                        "w_start": windows["chromStart"].to_numpy(),
                        "w_end": windows["chromEnd"].to_numpy()})
    if "sample_id" in windows.columns:
        win["sample_id"] = windows["sample_id"].astype(str).to_numpy()
    else:
        win = win.merge(pd.DataFrame({"sample_id": samples}), how="cross")
    pairs = m.reset_index().merge(win, on=["sample_id", "chrom"])
    inside = (pairs["w_start"] <= pairs["chromStart"]) & (pairs["chromEnd"] <= pairs["w_end"])
    hit = np.zeros(len(m), dtype=bool)
    hit[pairs.loc[inside.to_numpy(), "index"].to_numpy()] = True
    return hit


def peak_label_errors(peaks: pd.DataFrame, labels: pd.DataFrame) -> PeakLabelErrors:
    """False positive / negative labels of predicted peaks.

    Parameters
    ----------
    peaks : DataFrame
        ``chrom, chromStart, chromEnd`` (0-based half-open, as BED), not overlapping
        within a chromosome. Peaks on chromosomes without labels are ignored.
    labels : DataFrame
        ``chrom, chromStart, chromEnd, annotation`` (see :data:`PEAK_ANNOTATIONS`), not
        overlapping within a chromosome. When both tables have a ``sample_id`` column,
        the peaks of each sample are matched with the labels of that sample only (ids
        compared as strings); a labelled sample without peaks has zero peaks.

    Returns
    -------
    PeakLabelErrors
        ``label_errors`` (one row per label, input order) and ``totals``.

    Raises
    ------
    ValueError
        On invalid tables (see :func:`check_peak_labels`, :func:`check_peaks`), or when
        only one of the two tables has a ``sample_id`` column.

    Examples
    --------
    >>> import pandas as pd
    >>> labels = pd.DataFrame({"chrom": "chr1", "chromStart": [10, 30],
    ...                        "chromEnd": [20, 40], "annotation": ["noPeaks", "peakStart"]})
    >>> peaks = pd.DataFrame({"chrom": ["chr1"], "chromStart": [15], "chromEnd": [35]})
    >>> res = peak_label_errors(peaks, labels)
    >>> res.label_errors["status"].tolist()
    ['false positive', 'false negative']
    >>> res.totals[["fp", "fn", "errors"]].values.tolist()
    [[1, 1, 2]]
    """
    lab = check_peak_labels(labels)
    pk = check_peaks(peaks)
    per_sample = "sample_id" in lab.columns
    if per_sample != ("sample_id" in pk.columns):
        has, lacks = ("labels", "peaks") if per_sample else ("peaks", "labels")
        how = ("" if per_sample else
               ": labels of every sample are labels.merge(pd.DataFrame({'sample_id': "
               "SAMPLES}), how='cross') (every sample, those without a peak too); peaks of "
               "one sample are peaks.drop(columns='sample_id')")
        raise ValueError(
            f"{has} have a sample_id column but {lacks} do not; give sample_id in both "
            f"tables (per-sample matching) or in neither{how}"
        )
    codes = pd.Categorical(lab["annotation"], categories=PEAK_ANNOTATIONS).codes
    n = len(lab)
    tp = np.zeros(n, np.int64)
    possible_tp = np.zeros(n, np.int64)
    fp = np.zeros(n, np.int64)
    possible_fp = np.zeros(n, np.int64)
    # one integer per (sample, chromosome), shared by labels and peaks
    key = pd.factorize(np.concatenate([region_keys(lab, per_sample).to_numpy(dtype=object),
                                       region_keys(pk, per_sample).to_numpy(dtype=object)]))[0]
    label_key, peak_key = key[:n], key[n:]
    ps, pe = pk["chromStart"].to_numpy(), pk["chromEnd"].to_numpy()
    order = np.lexsort((ps, peak_key))
    ps, pe, peak_key = ps[order], pe[order], peak_key[order]
    ls, le = lab["chromStart"].to_numpy(), lab["chromEnd"].to_numpy()
    for k in np.unique(label_key):
        rows = np.flatnonzero(label_key == k)
        lo, hi = np.searchsorted(peak_key, [k, k + 1])
        out = peak_label_counts(ps[lo:hi], pe[lo:hi], ls[rows], le[rows], codes[rows])
        tp[rows], possible_tp[rows], fp[rows], possible_fp[rows] = out
    fn = possible_tp - tp
    status = np.where(fp > 0, "false positive", np.where(fn > 0, "false negative", "correct"))
    table = lab.assign(tp=tp, possible_tp=possible_tp, fp=fp, possible_fp=possible_fp,
                       fn=fn, possible_fn=possible_tp, status=status)
    return PeakLabelErrors(table, _totals(table, per_sample))


def _totals(table: pd.DataFrame, per_sample: bool) -> pd.DataFrame:
    cols = ["possible_fp", "fp", "possible_fn", "fn"]
    if per_sample:
        group, samples = pd.factorize(table["sample_id"])
        tot = pd.DataFrame({"sample_id": np.asarray(samples, dtype=object),
                            "labels": np.bincount(group, minlength=len(samples))})
        for c in cols:
            tot[c] = np.bincount(group, weights=table[c].to_numpy(), minlength=len(samples))
    else:
        tot = pd.DataFrame({"labels": [len(table)],
                            **{c: [int(table[c].sum())] for c in cols}})
    tot["errors"] = tot["fp"] + tot["fn"]
    return tot.astype({c: np.int64 for c in TOTAL_COLUMNS})


#: samples shown in a PeakLabelErrors' repr (more: the first ones and a count)
REPR_SAMPLES = 6


def _label_errors_repr(res: PeakLabelErrors) -> str:
    """The counts first (what ``print(pl.peak_label_errors(...))`` is for), then the
    totals per sample (at most :data:`REPR_SAMPLES`), then where the tables are; at most
    10 lines."""
    t = res.totals
    n, fp, fn = (int(t[c].sum()) for c in ("labels", "fp", "fn"))
    lines = [f"PeakLabelErrors: {fp + fn} of {n} label(s) wrong ({fp} false positive, "
             f"{fn} false negative; {100 * (fp + fn) / n if n else 0:.1f} %)"]
    if "sample_id" in t.columns and len(t) > 1:
        shown = t.head(REPR_SAMPLES).assign(sample_id=[
            s if len(s) <= 30 else s[:29] + "…" for s in t["sample_id"].head(
                REPR_SAMPLES).astype(str)])
        lines += ["  " + ln for ln in shown.to_string(index=False).splitlines()]
        if len(t) > REPR_SAMPLES:
            lines.append(f"  … and {len(t) - REPR_SAMPLES} more samples")
    lines.append(f"  .label_errors: {len(res.label_errors):,} rows (one per label), "
                 f".totals: {len(t):,} row(s)")
    return "\n".join(lines)


PeakLabelErrors.__repr__ = _label_errors_repr
PeakLabelErrors.__str__ = _label_errors_repr
