"""The command ``errors``: the label errors of any peak caller's peaks.

``penlearn errors PEAKS LABELS`` counts the false positive and false negative labels of
the peaks (Hocking et al. 2017, *Bioinformatics* 33(4): a ``noPeaks`` label with a peak
is a false positive, a ``peakStart`` label without exactly one peak start a false
negative if none, a false positive if several, and so on), exactly as
:func:`~penlearn.peaks.peakseg.labels.peak_label_errors`. PEAKS is a BED / narrowPeak /
broadPeak file (MACS3's, penlearn's, any caller's) or a folder of ``<sample>.bed`` /
``.narrowPeak`` files as ``penlearn peaks --out DIR`` writes them.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd

from penlearn.atomic_files import check_output, write_bytes_atomic
from penlearn.cli._common import read_groups_file
from penlearn.cli._controls import _names
from penlearn.peaks.formats._label_text import check_sample_groups, expand_groups
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.peak_files import merge_overlapping_peaks, read_peak_files
from penlearn.peaks.peakseg.labels import peak_label_errors

__all__ = ["add_errors_arguments", "cmd_errors", "labels_for_samples"]

ALL_SAMPLES = "(all samples)"


def _group(sid: str) -> str:
    """A sample's group: the folder above it in ``samples/<group>/<sample>`` ids."""
    parts = sid.split("/")
    return parts[-2] if len(parts) > 1 else sid


def labels_for_samples(labels: pd.DataFrame, samples: list[str] | None,
                       groups: pd.DataFrame | None = None) -> pd.DataFrame:
    """The labels of ``samples`` (None: one unnamed sample), one row per (sample, label).

    Labels with a ``sample_id`` keep theirs; labels of the genome-browser text format
    (a ``groups`` column) hold for the samples or groups they list (a sample's group: the
    folder above it in a ``<group>/<sample>`` id, or its ``group`` in ``groups``, a table
    ``sample_id, group`` as ``--groups FILE``), ``noPeaks`` for the others; labels
    with neither hold for every sample.

    Examples
    --------
    >>> lab = pd.DataFrame({"chrom": "chr1", "chromStart": [0], "chromEnd": [9],
    ...                     "annotation": ["peaks"], "groups": ["kidney"], "window": 0})
    >>> out = labels_for_samples(lab, ["kidney/A", "bcell/B"])
    >>> out[["sample_id", "annotation"]].values.tolist()
    [['kidney/A', 'peaks'], ['bcell/B', 'noPeaks']]
    """
    cols = ["chrom", "chromStart", "chromEnd", "annotation"]
    if "sample_id" in labels.columns:
        lab = labels.assign(sample_id=labels["sample_id"].astype(str))
        if samples is None:
            ids = list(pd.unique(lab["sample_id"]))
            if len(ids) != 1:
                raise ValueError(f"the labels are of {len(ids)} samples ({', '.join(ids[:5])}"
                                 f"{', ...' if len(ids) > 5 else ''}): give --sample ID for "
                                 "a single peaks file, or a folder of <sample> peak files")
            return lab[cols]
        return lab[["sample_id", *cols]]
    if "groups" in labels.columns and (labels["groups"] != "").any():
        if samples is None:
            raise ValueError("the labels list samples or groups: give --sample ID (a "
                             "'<group>/<sample>' id names the group too)")
        per = None if groups is None else check_sample_groups(groups)
        given = {} if per is None else dict(zip(per["sample_id"], per["group"]))
        return expand_groups(labels, {s: given.get(s, _group(s)) for s in samples}
                             )[["sample_id", *cols]]
    if samples is None:
        return labels[cols]
    return pd.concat([labels[cols].assign(sample_id=s) for s in samples],
                     ignore_index=True)[["sample_id", *cols]]


def cmd_errors(args) -> int:
    """peaks + labels -> FP / FN per label (``--out``) and per sample and in total."""
    out = Path(args.out) if args.out else None
    if out is not None:
        check_output(out, directory=False, force=args.force,
                     inputs=[args.peaks, args.labels])
    peaks = read_peak_files(args.peaks)
    folder = "sample_id" in peaks.columns
    if folder and args.sample is not None:
        raise ValueError("--sample names the sample of a single peaks file; a folder's "
                         "samples are its file names")
    samples = peaks.attrs["samples"] if folder else \
        (None if args.sample is None else [str(args.sample)])
    groups = read_groups_file(args.groups) if args.groups else None
    labels = labels_for_samples(read_peak_labels(args.labels), samples, groups)
    if folder:
        missing = sorted(set(labels["sample_id"]) - set(samples))
        if missing:
            raise ValueError(f"labels of sample {missing[0]!r} but no peak file of it in "
                             f"{args.peaks} ({len(missing)} such samples)")
    elif "sample_id" in labels.columns:
        labels = labels[labels["sample_id"] == samples[0]].drop(columns="sample_id")
        if labels.empty:
            raise ValueError(f"the labels have no sample {samples[0]!r}")
    if args.merge:
        peaks, n = merge_overlapping_peaks(peaks)
        if n and not args.quiet:
            print(f"penlearn errors: {n} overlapping peak rows merged", file=sys.stderr)
    else:
        _refuse_overlaps(peaks)
    _warn_unshared_chroms(peaks, labels, args.peaks)
    res = peak_label_errors(peaks, labels)
    if out is not None:
        write_bytes_atomic(out, res.label_errors.to_csv(index=False).encode())
    totals = res.totals
    if folder and len(totals) > 1:
        all_row = {c: int(totals[c].sum()) for c in totals.columns if c != "sample_id"}
        totals = pd.concat([totals, pd.DataFrame([{"sample_id": ALL_SAMPLES, **all_row}])],
                           ignore_index=True)
    sys.stdout.write(totals.to_csv(index=False))
    return 0


def _warn_unshared_chroms(peaks: pd.DataFrame, labels: pd.DataFrame, where) -> None:
    """Peaks on no chromosome the labels name (``1`` vs ``chr1``: another naming or
    genome build) make every label a missed peak: a warning naming both sets of names."""
    p = [str(c) for c in pd.unique(peaks["chrom"])]
    lab = [str(c) for c in pd.unique(labels["chrom"])]
    if p and lab and not set(p) & set(lab):
        warnings.warn(f"the peaks of {where} share no chromosome name with the labels "
                      f"(peaks: {_names(p)}; labels: {_names(lab)}): every label is scored "
                      "as a region without peaks (another chromosome naming, '1' vs 'chr1', "
                      "or genome build?)", stacklevel=2)


def _refuse_overlaps(peaks: pd.DataFrame) -> None:
    n = merge_overlapping_peaks(peaks)[1]
    if n:
        raise ValueError(f"{n} peak rows overlap others (several rows per region, as MACS3 "
                         "--call-summits writes): give --merge to score their union")


def register(add) -> None:
    """``penlearn errors``: its subparser (``add(name, help, handler)``) and arguments."""
    add_errors_arguments(add(
        "errors", "false positive / negative labels of a peak file (or a folder of them: "
        "any peak caller's) per label, per sample and in total", cmd_errors,
        force_help="replace an existing --out ERRORS.csv file (without it: an error)"))


def add_errors_arguments(p) -> None:
    """The arguments of ``penlearn errors``."""
    p.add_argument("peaks", metavar="PEAKS",
                   help="a BED / narrowPeak / broadPeak file (plain or gzip; the first 3 "
                   "columns are read) or a folder of <sample>.bed / .narrowPeak files as "
                   "'penlearn peaks --out DIR' writes them (sample ids percent-decoded)")
    p.add_argument("labels", metavar="LABELS",
                   help="peak labels: labels.csv (chrom, chromStart, chromEnd, annotation[, "
                   "sample_id]), BED, or the genome-browser labels text format "
                   "('chr1:1,001-2,000 peakStart kidney')")
    p.add_argument("--sample", default=None, metavar="ID",
                   help="the sample of a single PEAKS file: its labels are used (labels "
                   "with sample_id), or the labels listing it or its group ('<group>/<id>')")
    p.add_argument("--groups", default=None, metavar="FILE",
                   help="the group of each sample (a CSV / TSV with columns sample_id, "
                   "group), for labels of the genome-browser text format that name groups "
                   "(default: the folder above a '<group>/<sample>' id, else the id)")
    p.add_argument("--merge", action="store_true",
                   help="score the union of overlapping peaks (default: overlaps are an "
                   "error)")
    p.add_argument("--out", default=None, metavar="ERRORS.csv",
                   help="also write one row per label: its fp, fn, possible_fp, "
                   "possible_fn and status")
