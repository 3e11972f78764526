"""The command ``peaks``: peaks of ChIP-seq coverage at a penalty or a learned model's.

``penlearn peaks COVERAGE --penalty P --out peaks.bed`` solves the PeakSeg model of every
(sample, window) at λ = P; ``--model model.json`` predicts each window's log λ from its
36 coverage features first. One sample gives one BED file; several samples give a
folder with one ``<sample_id>.bed`` each. ``--jobs N`` solves the (sample, window)
problems in N processes (``--scheduler ADDRESS``: on a Dask cluster).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from penlearn.atomic_files import check_output, staged_dir
from penlearn.cli._common import _load_model, _Reporter
from penlearn.cli._workers import add_worker_arguments, workers
from penlearn.peaks.bed_io import write_bed
from penlearn.peaks.coverage_features import coverage_features
from penlearn.peaks.coverage_io import read_coverage
from penlearn.peaks.peak_evaluation import predict_peaks

__all__ = ["add_peaks_arguments", "cmd_peaks"]


def _log_lambda(args, coverage: pd.DataFrame, report: _Reporter):
    if (args.penalty is None) == (args.model is None):
        raise ValueError("give exactly one of --penalty P or --model MODEL.json")
    if args.penalty is not None:
        if not (args.penalty >= 0):
            raise ValueError(f"--penalty must be a number >= 0, got {args.penalty!r}")
        return math.log(args.penalty) if args.penalty > 0 else -math.inf
    model = _load_model(args.model)
    report("coverage features of every (sample, window)")
    features = coverage_features(coverage)
    return pd.Series(model.predict(features), index=features.index)


def cmd_peaks(args) -> int:
    """coverage -> (log λ per window) -> PeakSeg peaks -> BED."""
    out = Path(args.out)
    report = _Reporter(args.quiet)
    coverage = read_coverage(args.coverage, progress=not args.quiet)
    samples = list(pd.unique(coverage["sample_id"])) if "sample_id" in coverage else [None]
    several = len(samples) > 1
    check_output(out, directory=several, force=args.force, inputs=[args.coverage])
    log_lambda = _log_lambda(args, coverage, report)
    report(f"peak models of {len(samples)} sample(s)")
    with workers(args) as executor:
        peaks = predict_peaks(coverage, log_lambda, executor=executor,
                              progress=not args.quiet)
    bed = ["chrom", "chromStart", "chromEnd"]
    if not several:
        write_bed(peaks[bed], out)  # atomic
        print(f"penlearn peaks: wrote {len(peaks)} peaks to {out}")
        return 0
    with staged_dir(out, replace=args.force) as tmp:
        for s in samples:
            write_bed(peaks.loc[peaks["sample_id"] == s, bed], tmp / f"{s}.bed")
    print(f"penlearn peaks: wrote {len(peaks)} peaks of {len(samples)} samples to {out}/")
    return 0


def add_peaks_arguments(p) -> None:
    """The arguments of ``penlearn peaks``."""
    p.add_argument("coverage", metavar="COVERAGE",
                   help="a bedGraph file (chrom, chromStart, chromEnd, count; plain or gzip), "
                   "a bigWig file, a coverage.csv[.gz] with sample_id, or a folder of "
                   "*.bedGraph[.gz] / *.bw files")
    p.add_argument("--penalty", type=float, default=None, metavar="P",
                   help="the penalty λ of every window (λ per peak, >= 0)")
    p.add_argument("--model", default=None, metavar="MODEL.json",
                   help="a model from 'penlearn learn' on ChIP-seq features: each window's "
                   "log λ is predicted from its coverage features")
    p.add_argument("--out", required=True, metavar="OUT",
                   help="BED file to write (one sample), or folder of <sample_id>.bed files")
    add_worker_arguments(p)
