"""The command ``joint``: joint peaks of many samples and the peaks × samples matrix.

``penlearn joint COVERAGE --peaks DIR --out OUT`` takes the coverage of every sample and
the folder of single-sample peaks that ``penlearn peaks`` wrote, makes joint windows of
the clusters of overlapping peaks, fits the exact joint model of each window
(:func:`penlearn.joint_peak`) and chooses its number of samples up at a penalty: given
(``--penalty``), predicted by a model (``--model``), learned from labels (``--labels``),
or else the shipped zero-label model's, as ``penlearn peaks`` (each window's log λ the
mean of the model's over its samples). It writes, atomically, into the folder OUT:

* ``peaks_matrix_sample.tsv`` — ``chrom, chromStart, chromEnd``, one 0/1 column per sample;
* ``peaks_matrix_group.tsv`` — the same per group (a group is 1 when one of its samples
  is; without groups, each sample is its own group);
* ``peaks_summary.tsv`` — ``chrom, chromStart, chromEnd, samples_up, groups_up,
  loss_decrease``, then the window and its log λ;
* ``joint_peaks.bed`` — the joint peaks (name: samples up / samples, score: samples up);
* ``samples/<sample>.bed`` — each sample's joint peaks (where it is up), one BED per
  sample as ``penlearn peaks`` writes them: ``penlearn hub COVERAGE OUT/samples`` makes a
  track hub of them, ``penlearn errors OUT/samples LABELS`` scores them;
* ``windows.tsv`` — every window, its log λ and number of samples up;
* with labels: ``evaluation.tsv`` (error functions of the labeled windows),
  ``label_errors.tsv`` (each label's status with the single-sample and the joint peaks)
  and, when a penalty was learned, ``joint_model.json`` (for ``--model`` later);
* ``index.html`` — the matrix as a figure, the summary and the label errors.

``--jobs N`` fits the windows in N processes, ``--scheduler ADDRESS`` on a Dask cluster
(one task per window, as ``penlearn peaks``). Long runs resume as ``penlearn peaks``
does: each window's models are saved in ``OUT.penlearn-parts/`` as soon as they are
fitted (keyed by the window's coverage, the groups and ``--by``; not the penalty), and
the same command after an interruption fits only the others.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.atomic_files import check_output, staged_dir
from penlearn.cli._common import _load_model, _Reporter, groups_option, read_groups_file
from penlearn.cli._controls import add_control_arguments, split_controls
from penlearn.cli._peaks_samples import spill_samples, streamable
from penlearn.cli._workers import add_worker_arguments, workers
from penlearn.cli.peaks import _open_parts, parts_folder, sample_file_names
from penlearn.peaks.formats.bed import read_peak_labels, write_bed
from penlearn.peaks.formats.coverage import COVERAGE_COLUMNS, coverage_items, read_coverage
from penlearn.peaks.formats.peak_files import read_peak_files
from penlearn.peaks.joint.pipeline import JointPeaks, joint_peaks, label_error_comparison
from penlearn.peaks.joint.windows import DEFAULT_WIDEN, MAX_WIDEN
from penlearn.peaks.peakseg.parts import check_parts_folder
from penlearn.peaks.peakseg.penalty import log_penalty_of
from penlearn.peaks.pretrained import ZeroLabelModel
from penlearn.report.joint_page import joint_html

__all__ = ["add_joint_arguments", "cmd_joint", "write_joint_outputs"]


def _groups_arg(args, coverage: pd.DataFrame, table: pd.DataFrame | None = None):
    """``--groups FILE`` (sample_id, group; ``table``: read already) or ``--group-column
    COL`` or a ``group`` column of the coverage, or None."""
    given = table if table is not None else groups_option(args)
    if isinstance(given, str) and given not in coverage.columns:
        raise ValueError(f"--group-column {given!r} is not a column of the "
                         f"coverage (columns: {', '.join(map(str, coverage.columns))})")
    if given is None and "group" in coverage.columns:
        return "group"
    return given


def _check_peak_samples(peaks: pd.DataFrame, samples: list, folder) -> None:
    """Every sample of the coverage (``samples``) has a BED file in the peaks folder (no
    file: a typo or another run), and no BED file is of another sample."""
    have = set(peaks["sample_id"]) | set(peaks.attrs.get("samples", []))
    samples = [str(s) for s in samples]
    missing = [s for s in samples if s not in have]
    if missing:
        raise ValueError(f"--peaks {folder}: no BED file of sample {missing[0]!r} (expected "
                         "one <sample>.bed per sample of the coverage, as 'penlearn peaks' "
                         "writes)")


def cmd_joint(args) -> int:
    """coverage + single-sample peaks (+ labels) -> joint peaks, matrix, summary, HTML."""
    if not str(args.out).strip():
        raise ValueError("--out is empty (an unset shell variable?): give a folder")
    out = Path(args.out)
    # the one penalty check of peaks and joint (before any work)
    log_penalty = log_penalty_of(args.penalty, args.log_penalty, penalty_name="--penalty",
                                 log_name="--log-penalty")
    if log_penalty is not None and args.model is not None:
        raise ValueError("give at most one of --penalty P / --log-penalty LOG_λ and --model "
                         "MODEL.json")
    if not 0 <= args.widen <= MAX_WIDEN:  # caps before casts: no int64 overflow later
        raise ValueError(f"--widen must be a number from 0 to {MAX_WIDEN:g} (times a "
                         f"cluster's width), got {args.widen!r}")
    inputs = [args.coverage, args.peaks] + [p for p in (args.labels, args.model, args.groups,
                                                        args.control_sheet) if p] + [
        c.split("=", 1)[-1] for c in args.control or []]
    check_output(out, directory=True, force=args.force, inputs=inputs)  # inside one too
    check_parts_folder(parts_folder(out), inputs, fresh=args.no_resume)
    if args.groups and args.group_column:
        raise ValueError("give at most one of --groups FILE and --group-column COL")
    groups_table = read_groups_file(args.groups) if args.groups else None  # before work
    report = _Reporter(args.quiet)
    model = _load_model(args.model, task="joint") if args.model else None
    items = coverage_items(args.coverage)
    # one-sample files and no controls: each file cut by chromosome into a temporary
    # folder, the windows' rows read back a chromosome at a time (_peaks_samples)
    with spill_samples(items) if streamable(args, items, least=2) else \
            contextlib.nullcontext() as spilled:
        return _joint_of(args, out, spilled, groups_table, model, log_penalty, report)


def _joint_of(args, out: Path, spilled, groups_table, model, log_penalty,
              report: _Reporter) -> int:
    """:func:`cmd_joint` from reading its coverage on: the whole table, or (``spilled``)
    the samples' rows by chromosome (:mod:`penlearn.cli._peaks_samples`)."""
    coverage = spilled if spilled is not None else read_coverage(
        args.coverage, progress=not args.quiet)
    if spilled is None:
        coverage = _joint_samples(coverage, args, report)
    samples = list(spilled.samples) if spilled is not None else list(
        pd.unique(coverage["sample_id"]))
    if not Path(args.peaks).is_dir():
        raise ValueError(f"--peaks {args.peaks}: not a folder (give the folder 'penlearn "
                         "peaks --out' wrote, one <sample>.bed per sample)")
    peaks = read_peak_files(args.peaks)  # the reader of 'errors' and 'hub': one set of names
    _check_peak_samples(peaks, samples, args.peaks)
    labels = read_peak_labels(args.labels) if args.labels else None
    groups = _groups_arg(args, coverage if spilled is None else pd.DataFrame(
        columns=list(COVERAGE_COLUMNS)), groups_table)
    with _open_parts(args, out, report) as parts:  # removed once the outputs are written
        shipped = log_penalty is None and args.model is None and labels is None
        if shipped:  # said before the work, as penlearn peaks does
            report.notice("penlearn joint: no --penalty, --model or --labels: using "
                          f"{ZeroLabelModel('narrow').notice()}, averaged over each "
                          "window's samples")
        report("joint windows and models")
        with workers(args) as executor:
            res = joint_peaks(coverage, peaks, labels=labels, groups=groups, widen=args.widen,
                              log_penalty=log_penalty, model=model, by=args.by, executor=executor,
                              parts=parts, progress=not args.quiet, keep_fits=False)
        if not shipped:
            report(res.note)
        comparison = None
        if labels is not None:
            lab = res.labels
            comparison = label_error_comparison(peaks, res.sample_peaks(), lab)
        with staged_dir(out, replace=args.force) as tmp:
            write_joint_outputs(res, tmp, comparison=comparison)
    n = len(res.peaks)
    msg = f"penlearn joint: {n} joint peaks in {len(res.windows)} windows of " \
          f"{len(res.samples)} samples written to {out}/"
    if res.reused:
        msg += f" ({res.reused} of {len(res.windows)} windows from an interrupted run)"
    if comparison is not None:
        msg += (f"; label errors: single-sample {int((comparison['single'] != 'correct').sum())}"
                f", joint {int((comparison['joint'] != 'correct').sum())} of "
                f"{len(comparison)}")
    print(msg)
    return 0


def _joint_samples(coverage: pd.DataFrame, args, report: _Reporter) -> pd.DataFrame:
    """The joint samples of the coverage table: the controls left out (they act through
    --peaks, from 'penlearn peaks --control ...': no single-sample peak, no joint window
    there), at least two samples."""
    coverage, controls, _ = split_controls(coverage, args)
    if controls is not None:
        report(f"{controls['sample_id'].nunique()} control sample(s) left out of the joint "
               "model")
    if "sample_id" not in coverage.columns or coverage["sample_id"].nunique() < 2:
        raise ValueError(f"{args.coverage}: one sample only; joint peaks need several (a "
                         "folder of bedGraph / bigWig files, or a table with sample_id)")
    return coverage


def write_joint_outputs(res: JointPeaks, folder: Path, *,
                        comparison: pd.DataFrame | None = None) -> None:
    """Write the tables, BED, model and HTML page of a :class:`JointPeaks` into ``folder``
    (the caller makes it atomic)."""
    folder = Path(folder)
    tsv = dict(sep="\t", index=False)
    res.matrix("sample").to_csv(folder / "peaks_matrix_sample.tsv", **tsv)
    res.matrix("group").to_csv(folder / "peaks_matrix_group.tsv", **tsv)
    res.summary().to_csv(folder / "peaks_summary.tsv", float_format="%.6g", **tsv)
    res.windows.to_csv(folder / "windows.tsv", float_format="%.6g", **tsv)
    pk = res.peaks
    bed = pd.DataFrame({"chrom": pk["chrom"], "chromStart": pk["chromStart"],
                        "chromEnd": pk["chromEnd"],
                        "name": [f"{k}/{len(res.samples)}" for k in pk["samples_up"]],
                        # UCSC's integer 0-1000: the share of samples up
                        "score": np.rint(1000 * pk["samples_up"].to_numpy(float)
                                         / max(len(res.samples), 1)).astype(np.int64)})
    write_bed(bed, folder / "joint_peaks.bed")
    # each sample's joint peaks (where it is up), one BED per sample as 'penlearn peaks'
    # writes them: the folder 'penlearn hub' and 'penlearn errors' take
    per_sample = res.sample_peaks()
    (folder / "samples").mkdir()
    for sid, stem in sample_file_names(res.samples).items():
        rows = per_sample[per_sample["sample_id"] == sid]
        write_bed(rows[["chrom", "chromStart", "chromEnd"]], folder / "samples" / f"{stem}.bed")
    if res.evaluation is not None:
        res.evaluation.to_csv(folder / "evaluation.tsv", float_format="%.6g", **tsv)
    if comparison is not None:
        comparison.to_csv(folder / "label_errors.tsv", **tsv)
    if res.model is not None and res.features is not None and res.evaluation is not None:
        res.model.save(folder / "joint_model.json")
    (folder / "index.html").write_text(joint_html(res, comparison), encoding="utf-8")


def register(add) -> None:
    """``penlearn joint``: its subparser (``add(name, help, handler)``) and arguments."""
    add_joint_arguments(add("joint", "joint peaks of several samples from their coverage and "
                            "single-sample peaks: the peaks x samples matrix", cmd_joint))


def add_joint_arguments(p) -> None:
    """The arguments of ``penlearn joint``."""
    p.add_argument("coverage", metavar="COVERAGE",
                   help="coverage of several samples: a coverage.csv[.gz] with sample_id, "
                   "or a folder of *.bedGraph[.gz] / *.bw files (one per sample)")
    p.add_argument("--peaks", required=True, metavar="DIR",
                   help="the folder of single-sample peaks 'penlearn peaks --out DIR' wrote "
                   "(one <sample>.bed per sample)")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="peak labels (CSV with sample_id, BED, or the genome-browser text "
                   "format 'chr10:33,061,897-33,162,814 peakStart kidney bcell', unlisted "
                   "groups noPeaks): without --penalty / --model the joint penalty is "
                   "learned from them; label errors are reported either way")
    p.add_argument("--penalty", type=float, default=None, metavar="P",
                   help="the penalty λ per sample up of every window (>= 0; default, "
                   "without --model or --labels: the shipped zero-label model's, as "
                   "'penlearn peaks', averaged over each window's samples)")
    p.add_argument("--log-penalty", type=float, default=None, metavar="LOG_λ",
                   help="log λ (natural log) instead of --penalty")
    p.add_argument("--model", default=None, metavar="MODEL.json",
                   help="a joint_model.json of an earlier 'penlearn joint --labels' run")
    p.add_argument("--groups", default=None, metavar="FILE",
                   help="sample groups (cell types): a CSV / TSV with columns sample_id, "
                   "group (default: the coverage's 'group' column if any; else each "
                   "sample its own group)")
    p.add_argument("--group-column", default=None, metavar="COL",
                   help="a coverage column holding each sample's group (e.g. cell_type)")
    p.add_argument("--by", choices=("sample", "group"), default="sample",
                   help="choose the number of samples up (default) or of groups up (all "
                   "samples of a group up together)")
    p.add_argument("--widen", type=float, default=DEFAULT_WIDEN, metavar="F",
                   help="widen each cluster of peaks on both sides by F times its width "
                   f"(0 to {MAX_WIDEN:g}), up to the middle of the gap to the next cluster "
                   "and the covered bases (default: "
                   "%(default)s: as much background as peak on each side)")
    p.add_argument("--out", required=True, metavar="OUT",
                   help="output folder (peaks_matrix_sample.tsv, peaks_matrix_group.tsv, "
                   "peaks_summary.tsv, joint_peaks.bed, index.html, ...)")
    p.add_argument("--no-resume", action="store_true",
                   help="solve every window again: discard OUT.penlearn-parts/, where an "
                   "interrupted run saved its finished windows (by default the same "
                   "command reuses those whose coverage is unchanged, whatever the "
                   "penalty; the folder is removed once the outputs are written)")
    add_control_arguments(p)
    add_worker_arguments(p, task="joint window", tmpdir=False)  # no PeakSeg temporary files
