"""The command ``callpeak``: penlearn in MACS3's place, with MACS3's command shape.

``penlearn callpeak -t T.bam [T2.bam ...] [-c C.bam ...] -f BAM|BAMPE|BED|FRAG -n NAME
--outdir DIR`` reads the reads as MACS3 does (:mod:`penlearn.peaks.formats.reads`: several
treatments pooled into one sample, several controls into one), estimates the fragment
size of single-end reads (:mod:`penlearn.peaks.formats.fragment_size`) unless given,
calls the PeakSeg peaks of the treatment's fragment pileup at the shipped zero-label
penalty (or ``--model`` / ``--penalty``), with the control as the background of the model
(:mod:`penlearn.peaks.peakseg.controls`), and writes MACS3's files:

* ``NAME_peaks.narrowPeak`` (``--broad``: ``NAME_peaks.broadPeak``);
* ``NAME_summits.bed``: one summit per peak;
* ``NAME_peaks.xls``: the peaks table (tab-separated, ``#`` comment lines first, as MACS3's);
* ``-B``/``--bdg``: ``NAME_treat_pileup.bdg`` and, with a control,
  ``NAME_control_lambda.bdg`` (``--SPMR``: per million fragments).

The number of peaks is the penalty's choice; ``-q/--qvalue Q`` and ``-p/--pvalue P`` then
keep those of q-value <= Q (p-value <= P: ``-p`` replaces ``-q``), the values being
MACS3's kind (:func:`~penlearn.peaks.formats.peak_columns.peak_columns`: fragments at the
summit against the local background). By default (the shipped model, a narrow mark) the
model's narrow rule applies, MACS3-like: peaks proposed at a lowered penalty (its log λ +
δ, :class:`~penlearn.peaks.pretrained.ZeroLabelModel`'s ``shift``), kept where their
q-value <= 0.05 (MACS3's default cutoff); ``-q 1`` keeps every proposed peak,
``--no-filter`` gives the model's own peaks (its λ, no cutoff). With ``--penalty``,
``--log-penalty``, ``--model`` or ``--broad`` no cutoff applies unless given.
MACS3's other cutoffs have no place here: they are refused with one line saying what
penlearn does instead; options that only tune what penlearn does not do are accepted and
ignored (:data:`IGNORED`), each with a warning.
The table in ``docs/chipseq.md`` ("Coming from MACS3") lists every option.
"""

from __future__ import annotations

import argparse
import math
import re
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.atomic_files import check_output, write_text_atomic
from penlearn.cli._callpeak_stream import call_genome, control_genome_mean, write_bedgraphs
from penlearn.cli._common import _Reporter, probability
from penlearn.cli._controls import check_shared_chroms
from penlearn.cli._phases import PhaseClock, _return_freed_memory, print_phases
from penlearn.cli._workers import add_worker_arguments, workers
from penlearn.cli.peaks import (
    broad_finer,
    check_penalty_options,
    model_rule_notice,
    narrow_rule,
    zero_label_notice,
)
from penlearn.peaks.formats.fragment_size import MAX_FRAGMENT, estimate_fragment_size
from penlearn.peaks.formats.narrowpeak import (
    narrowpeak_table,
    write_broadpeak,
    write_narrowpeak,
    write_summits,
)
from penlearn.peaks.formats.read_arrays import (
    ReadArrays,
    compact_reads,
    read_bam_arrays,
    read_bam_samples,
)
from penlearn.peaks.formats.reads import dedup_limit, read_reads, shift_reads
from penlearn.peaks.peakseg.controls import CONTROL_RULES

__all__ = ["GENOME_SIZES", "IGNORED", "REFUSED", "cmd_callpeak", "genome_size"]

#: the largest --extsize / --shift: BAM positions are below 2^31
MAX_BASES = 2**31 - 1

#: MACS3's shortcuts of -g (effective genome sizes of MACS3 3.0)
GENOME_SIZES = {"hs": 2.9e9, "mm": 2.7e9, "ce": 1e8, "dm": 1.2e8}

_PENALTY = ("the penalty (the shipped zero-label model's, or --model MODEL.json learned "
            "from labels with 'penlearn learn', or --penalty λ)")
#: option -> what penlearn does instead (refused: exit 2 with this line)
REFUSED = {
    "--min-length": f"peak lengths are the model's: chosen by {_PENALTY}",
    "--max-gap": f"nearby peaks are merged or not by the model: chosen by {_PENALTY}",
    "--cutoff-analysis": "no cutoff to analyse: learn the penalty from labels instead "
                         "('penlearn learn')",
    "--nolambda": "the control is the background of the model (--control-rule); without "
                  "-c the treatment alone is modelled",
    "--down-sample": "the control is a relative background: no depth scaling is needed",
    "--barcodes": "not supported: filter the fragment file to the barcodes first",
    "--trackline": "not supported by callpeak: use 'penlearn peaks --track NAME'",
}
#: option -> why ignoring it is harmless (accepted with a warning)
IGNORED = {
    "--call-summits": "penlearn writes one summit per peak (no sub-peaks)",
    "--broad-cutoff": "with --broad the peaks are the model's, no second cutoff",
    "-s/--tsize": "read lengths are taken from the alignments",
    "--bw": "the fragment size is estimated in 1 kb enriched windows",
    "--scale-to": "the control is a relative background: no depth scaling is needed",
    "--ratio": "the control is a relative background: no depth scaling is needed",
    "--buffer-size": "no buffer to size",
    "--seed": "nothing random",
    "--tempdir": "no temporary files of reads",
    "--verbose": "use --quiet for no progress lines",
    "--slocal": "the model's background is the control's PeakSeg segments; the pValue's "
                "λ_local takes fixed 1, 5 and 10 kb windows",
    "--llocal": "the model's background is the control's PeakSeg segments; the pValue's "
                "λ_local takes fixed 1, 5 and 10 kb windows",
}


def genome_size(text: str) -> float:
    """``-g``: a MACS3 shortcut (hs, mm, ce, dm) or a number (``2.7e9``).

    Examples
    --------
    >>> genome_size("hs"), genome_size("1.2e7")
    (2900000000.0, 12000000.0)
    """
    if str(text).lower() in GENOME_SIZES:
        return GENOME_SIZES[str(text).lower()]
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be hs, mm, ce, dm or a number of bases, "
                                         f"got {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a number of bases > 0, got {text!r}")
    return value


def _pooled(paths, fmt: str, args) -> ReadArrays:
    """The reads of several files as one sample: MACS3 pools ``-t A B`` first, then
    counts the duplicates (:func:`~penlearn.peaks.formats.reads.read_reads`); kept as
    compact arrays (:func:`~penlearn.peaks.formats.read_arrays.compact_reads`), the
    ``--shift`` checked."""
    if fmt in ("BAM", "BAMPE") and not args.shift:  # compact from the first record
        return read_bam_arrays(list(paths), fmt == "BAMPE", keep_dup=args.keep_dup,
                               genome_size=args.gsize)
    reads = read_reads(list(paths), fmt, keep_dup=args.keep_dup, genome_size=args.gsize,
                       max_count=args.max_count)
    shift_reads(reads, args.shift)  # a shift that moves every read off: an error here
    return compact_reads(reads)


def _fragment_size(reads: ReadArrays, args, report) -> int | None:
    if reads.paired:
        return None
    if args.extsize is not None or args.nomodel:
        return 200 if args.extsize is None else args.extsize
    try:
        d = estimate_fragment_size(reads, mfold=tuple(args.mfold), min_size=args.d_min)
    except ValueError:
        if not args.fix_bimodal:
            raise
        d = 200 if args.extsize is None else args.extsize
        report(f"fragment size not estimated: --fix-bimodal, {d} bp")
        return d
    report(f"fragment size {d} bp (strand cross-correlation in enriched windows)")
    return d


def _inputs(args, report, clock, executor) -> tuple:
    """``(treatment, control or None, fragment size)``: BAM files read by the compiled
    reader, the treatment and the control at once on ``executor``'s workers
    (:func:`~penlearn.peaks.formats.read_arrays.read_bam_samples`); other files one
    after the other (:func:`_pooled`)."""
    samples = [args.treatment, *([args.control] if args.control else [])]
    report(f"reading {len(args.treatment)} treatment file(s)"
           + (f" and {len(args.control)} control file(s)" if args.control else "")
           + f" as {args.format}")
    if args.format in ("BAM", "BAMPE") and not args.shift:
        names = ("treatment", "control")
        with clock("read"):
            reads = read_bam_samples(
                [list(p) for p in samples], args.format == "BAMPE", keep_dup=args.keep_dup,
                genome_size=args.gsize, executor=executor,
                progress=lambda k, n: report(f"{names[k]}: {n} read(s)"))
    else:
        reads = []
        for paths in samples:
            with clock("read"):
                reads.append(_pooled(paths, args.format, args))
    with clock("fragment size"):
        d = _fragment_size(reads[0], args, report)
    return reads[0], (reads[1] if args.control else None), d


def _xls(table: pd.DataFrame, summit: np.ndarray, pileup: np.ndarray, path: Path,
         header: list[str], control_up=None) -> None:
    """MACS3's ``NAME_peaks.xls``: ``#`` lines, then chr, start (1-based), end, length,
    abs_summit (1-based), pileup, -log10(pvalue), fold_enrichment, -log10(qvalue), name."""
    xls = pd.DataFrame({
        "chr": table["chrom"].to_numpy(), "start": table["chromStart"].to_numpy() + 1,
        "end": table["chromEnd"].to_numpy(),
        "length": (table["chromEnd"] - table["chromStart"]).to_numpy(),
        "abs_summit": summit + 1, "pileup": pileup,
        "-log10(pvalue)": table["pValue"].to_numpy(),
        "fold_enrichment": table["signalValue"].to_numpy(),
        "-log10(qvalue)": table["qValue"].to_numpy(), "name": table["name"].to_numpy()})
    if control_up is not None:
        xls["control_up"] = control_up
    text = "".join(f"# {h}\n" for h in header) + "\n" + xls.to_csv(
        sep="\t", index=False, lineterminator="\n")
    write_text_atomic(path, text)


def _outputs(args) -> dict:
    out = Path(args.outdir)
    kind = "broadPeak" if args.broad else "narrowPeak"
    files = {"peaks": out / f"{args.name}_peaks.{kind}",
             "summits": out / f"{args.name}_summits.bed",
             "xls": out / f"{args.name}_peaks.xls"}
    if args.bdg:
        files["treat"] = out / f"{args.name}_treat_pileup.bdg"
        if args.control:
            files["lambda"] = out / f"{args.name}_control_lambda.bdg"
    return files


def _refuse(args) -> None:
    """One line for the first MACS3 option penlearn refuses; a warning for each ignored."""
    for opt, why in REFUSED.items():
        if getattr(args, _dest(opt)) not in (None, False):
            raise ValueError(f"{opt.split('/')[-1]} is MACS3's, not penlearn's: {why}")
    for opt, why in IGNORED.items():
        if getattr(args, _dest(opt)) not in (None, False):
            warnings.warn(f"{opt.split('/')[-1]} ignored: {why}", stacklevel=2)


def _dest(opt: str) -> str:
    return "macs_" + re.sub(r"\W", "_", opt.split("/")[-1].lstrip("-"))


def _check_options(args) -> None:
    """The options' values, before any file is read (one line naming the option)."""
    if args.format in ("BAMPE", "FRAG") and (args.extsize is not None or args.nomodel
                                             or args.shift):
        raise ValueError(f"-f {args.format}: the fragments are read as they are; "
                         "--extsize, --nomodel and --shift apply to single-end reads")
    if not re.fullmatch(r"[^/\x00-\x1f\x7f\s]+", args.name):
        raise ValueError(f"-n/--name {args.name!r} must be a file-name prefix (no '/', no "
                         "spaces, no control characters)")
    if args.extsize is not None and args.extsize < 1:  # as MACS3: "--extsize must >= 1"
        raise ValueError(f"--extsize must be >= 1 (the fragment size in bases), got "
                         f"{args.extsize}")
    for opt, v in (("--extsize", args.extsize), ("--shift", args.shift)):
        if v is not None and abs(v) > MAX_BASES:  # (past it: int64 overflows, not reads)
            raise ValueError(f"{opt} must be at most {MAX_BASES} bases (a BAM position's "
                             f"bound) in size, got {v}")
    low, high = args.mfold
    if not (0 <= low <= high < math.inf):
        raise ValueError(f"-m/--mfold LOW HIGH must be numbers with 0 <= LOW <= HIGH, got "
                         f"{low:g} {high:g}")
    if not 1 <= args.d_min <= MAX_FRAGMENT:
        raise ValueError(f"--d-min must be from 1 to {MAX_FRAGMENT} (bases), got "
                         f"{args.d_min}")
    if args.format != "FRAG":
        dedup_limit(args.keep_dup, 0, args.gsize)
    if args.max_count is not None and args.max_count < 1:
        raise ValueError(f"--max-count must be >= 1, got {args.max_count}")
    for opt, paths in (("-t/--treatment", args.treatment), ("-c/--control",
                                                             args.control or [])):
        for p in paths:
            if not Path(p).is_file():
                what = "not a file" if Path(p).exists() else "not found"
                raise FileNotFoundError(f"{opt} {p}: {what}")


def cmd_callpeak(args) -> int:
    """reads -> fragment pileup (+ control background) -> PeakSeg peaks -> MACS3's files."""
    _refuse(args)
    _check_options(args)
    files = _outputs(args)
    inputs = [*args.treatment, *(args.control or []), args.model]
    for f in files.values():
        check_output(f, directory=False, force=True, inputs=inputs, option="--outdir/-n")
    report = _Reporter(args.quiet)
    # --broad is MACS3's broad-peak file; it picks the shipped model's level of broad
    # marks only where no penalty is given (a given one is the penalty of the broad calls)
    given = any(x is not None for x in (args.penalty, args.log_penalty, args.model))
    penalty_args = argparse.Namespace(**{**vars(args), "broad": args.broad and not given,
                                         # a --model's narrow rule is not for --broad
                                         "no_filter": args.no_filter or (
                                             args.broad and args.model is not None)})
    check_penalty_options(penalty_args)  # before the reads
    clock = PhaseClock()
    _return_freed_memory()
    with workers(args) as executor:
        treat, ctrl, d = _inputs(args, report, clock, executor)
        # the reader's freed buffers (~100 MB at 20 M reads, held in glibc's heap) back
        # to the system before the first pileup, not after the first chromosome
        _return_freed_memory(trim=True)
        fallbacks, sizes = None, treat.sizes
        if ctrl is not None:
            check_shared_chroms(treat.chroms, ctrl.chroms, "-c/--control")
            # MACS3 extends the control's reads by the treatment's fragment size too
            sizes = {**(ctrl.sizes or {}), **(sizes or {})} or None
            with clock("background"):
                fallbacks = control_genome_mean(treat, ctrl, d, args.shift, sizes)
        return _call(args, penalty_args, files, report, clock, executor,
                     (treat, ctrl, d, fallbacks, sizes))


def _call(args, penalty_args, files: dict, report, clock: PhaseClock, executor,
          inputs: tuple) -> int:
    """:func:`cmd_callpeak` once the reads are in: the peaks, the files."""
    treat, ctrl, d, fallbacks, sizes = inputs
    if penalty_args.model is None and check_penalty_options(penalty_args) is None:
        report.notice(zero_label_notice(argparse.Namespace(
            **{**vars(penalty_args), "command": getattr(args, "command", "callpeak")})))
    elif model_rule_notice(penalty_args):  # a learned model's narrow rule
        report.notice(model_rule_notice(argparse.Namespace(
            **{**vars(penalty_args), "command": getattr(args, "command", "callpeak")})))
    # the zero-label model's narrow rule: its cutoff unless -q / -p is given
    rule = narrow_rule(penalty_args) if args.qvalue is None and args.pvalue is None else None
    report(f"peaks of {len(treat.chroms)} chromosome(s), one at a time"
           + (f" on {args.jobs} workers" if args.jobs > 1 else ""))
    n_frag = treat.total
    with tempfile.TemporaryDirectory(prefix="penlearn-callpeak-") as bdg_dir:
        opts = {"d": d, "shift": args.shift, "penalty_args": penalty_args,
                "rule": args.control_rule, "fallbacks": fallbacks, "sizes": sizes,
                "solve": args.solve,
                "control_scale": None if ctrl is None else n_frag / ctrl.total,
                "bdg_dir": bdg_dir if args.bdg else None,
                "qvalue": args.qvalue if rule is None else rule, "pvalue": args.pvalue,
                # --broad: each broad domain one call (penlearn.peaks.peakseg.broad)
                "broad": args.broad, "finer": broad_finer(args) if args.broad else None}
        calls, dropped, info = call_genome(treat, ctrl, opts, report, clock, executor)
        if ctrl is not None and args.control_rule == "filter":
            report(f"{dropped} peak(s) where the control is up: dropped")
        with clock("write"):
            table = narrowpeak_table(calls, args.name, number_sep="_")  # MACS3's NAME_peak_1
            for f in files.values():  # an earlier run's files: none left beside this run's
                f.unlink(missing_ok=True)  # (a run stopped while writing leaves only its own)
            summit = table["chromStart"].to_numpy() + table["peak"].to_numpy()
            (write_broadpeak if args.broad else write_narrowpeak)(table, files["peaks"])
            write_summits(table, files["summits"])
            header = [f"This file is generated by penlearn callpeak ({len(table)} peaks)",
                      f"treatment files: {' '.join(args.treatment)}",
                      f"control files: {' '.join(args.control or []) or 'none'}",
                      f"format: {args.format}; fragments: {n_frag}; fragment size: "
                      f"{d if d is not None else 'paired (as read)'}",
                      f"control rule: {args.control_rule if args.control else 'no control'}"]
            _xls(table, summit, info["pileup"], files["xls"], header, None)
            if args.bdg:
                write_bedgraphs(Path(bdg_dir), info["chroms"], files, info,
                                1e6 / n_frag if args.SPMR else 1.0)
    if args.phase_times:
        print_phases(clock, args.phase_times)
    print(f"penlearn callpeak: wrote {len(table)} peaks to {files['peaks']}")
    return 0


def register(add) -> None:
    """``penlearn callpeak``: its subparser and arguments."""
    p = add("callpeak", "MACS3's callpeak command shape: peaks of ChIP-seq / ATAC-seq reads "
            "(BAM, BAMPE, BED, FRAG) with an optional control, written as MACS3 writes them "
            "(NAME_peaks.narrowPeak, NAME_summits.bed, NAME_peaks.xls)", cmd_callpeak,
            force_help="accepted (MACS3 replaces its outputs: so does callpeak)",
            short_quiet=False)  # -q is MACS3's --qvalue
    p.add_argument("-t", "--treatment", nargs="+", required=True, metavar="FILE",
                   help="treatment reads (several files are pooled into one sample)")
    p.add_argument("-c", "--control", nargs="+", default=None, metavar="FILE",
                   help="control (input) reads, pooled")
    p.add_argument("-f", "--format", default="AUTO",
                   choices=("AUTO", "BAM", "BAMPE", "BED", "FRAG"),
                   help="BAM: single-end reads (first mates of proper pairs); BAMPE: "
                   "fragments of proper pairs; BED: BED6 reads; FRAG: fragments.tsv.gz "
                   "(chrom, start, end, barcode, count); AUTO: BAM or BED by content "
                   "(default: %(default)s)")
    p.add_argument("-g", "--gsize", type=genome_size, default=GENOME_SIZES["hs"],
                   metavar="SIZE", help="effective genome size (hs, mm, ce, dm or a number): "
                   "for --keep-dup auto only (the background is taken over the BAM "
                   "header's chromosomes) (default: hs)")
    p.add_argument("-n", "--name", default="NA", help="prefix of the output files "
                   "(default: %(default)s)")
    p.add_argument("--outdir", default=".", help="output folder (default: the current one)")
    p.add_argument("--keep-dup", default="1", metavar="N",
                   help="reads kept at one location: an integer, 'all' or 'auto' (FRAG: "
                   "not applied) (default: %(default)s)")
    p.add_argument("--max-count", type=int, default=None, metavar="N",
                   help="FRAG: count each fragment at most N times")
    p.add_argument("--nomodel", action="store_true",
                   help="no fragment-size estimate: extend reads to --extsize (200 if not "
                   "given)")
    p.add_argument("--extsize", type=int, default=None, metavar="D",
                   help="the fragment size of single-end reads (default: estimated)")
    p.add_argument("--shift", type=int, default=0, metavar="S",
                   help="move each read's 5' end S bases 3'-ward before extending "
                   "(negative: 5'-ward, e.g. --shift -100 --extsize 200 for ATAC cut sites)")
    p.add_argument("-m", "--mfold", nargs=2, type=float, default=[5.0, 50.0],
                   metavar=("LOW", "HIGH"), help="enriched windows of the fragment-size "
                   "estimate: LOW-HIGH times the mean reads (default: 5 50)")
    p.add_argument("--d-min", type=int, default=20, metavar="D",
                   help="smallest fragment size estimated (default: %(default)s)")
    p.add_argument("--fix-bimodal", action="store_true",
                   help="when the fragment size cannot be estimated use --extsize (200 if "
                   "not given) instead of failing")
    p.add_argument("-q", "--qvalue", type=probability, default=None, metavar="Q",
                   help="keep only the model's peaks of q-value <= Q (MACS3's kind: Poisson "
                   "of the fragments at the summit against the local background, "
                   "Benjamini-Hochberg; see docs/chipseq.md) (default: with the shipped "
                   "model, narrow marks: 0.05 of peaks proposed at a lowered penalty, as "
                   "MACS3's default; -q 1: every peak of the lowered penalty; --model: "
                   "the same rule when 'penlearn learn' gave it to the model; --penalty, "
                   "--log-penalty, --broad: no cutoff)")
    p.add_argument("-p", "--pvalue", type=probability, default=None, metavar="P",
                   help="keep only the model's peaks of p-value <= P (replaces -q) "
                   "(default: no cutoff)")
    p.add_argument("--no-filter", action="store_true",
                   help="the shipped zero-label model's (or the --model's) own peaks: its "
                   "penalty without the narrow rule's lowering and q-value cutoff (penlearn "
                   "before issue 52)")
    p.add_argument("--broad", action="store_true",
                   help="a broad mark: write NAME_peaks.broadPeak (BED6+3) instead of "
                   ".narrowPeak, each broad domain one call (nearby calls linked across "
                   "still-enriched dips), at the penalty given (--penalty / --log-penalty / "
                   "--model), else at the shipped model's level of broad marks plus the "
                   "wider domains of its narrow level (as 'penlearn peaks --broad')")
    p.add_argument("-B", "--bdg", action="store_true",
                   help="also write NAME_treat_pileup.bdg (and NAME_control_lambda.bdg)")
    p.add_argument("--SPMR", action="store_true",
                   help="-B: the pileups per million fragments")
    p.add_argument("--control-rule", choices=CONTROL_RULES, default="background",
                   help="how the control enters (see 'penlearn peaks --help') (default: "
                   "%(default)s)")
    p.add_argument("--solve", choices=("candidates", "whole"), default="candidates",
                   help="candidates: solve PeakSeg only on the stretches where a call could "
                   "pass -q / -p (each widened by 5 kb and 200 rows; the rest background); "
                   "whole: every pileup row of every window (the exact model of 'penlearn "
                   "peaks', ~2x the solve's CPU) (default: %(default)s)")
    p.add_argument("--penalty", type=float, default=None, metavar="λ",
                   help="the penalty λ of every window")
    p.add_argument("--log-penalty", type=float, default=None, metavar="LOG_λ",
                   help="log λ of every window")
    p.add_argument("--model", default=None, metavar="MODEL.json",
                   help="a model from 'penlearn learn': each window's log λ predicted from "
                   "its coverage features (none: the shipped zero-label model)")
    add_worker_arguments(p, "chromosome", tmpdir=False)
    p.add_argument("--phase-times", default=None, help=argparse.SUPPRESS)
    for opt in REFUSED:
        p.add_argument(*opt.split("/"), dest=_dest(opt), nargs="?", const=True,
                       default=None, help=argparse.SUPPRESS)
    for opt in IGNORED:
        if opt == "--verbose":
            p.add_argument("--verbose", dest=_dest(opt), default=None, help=argparse.SUPPRESS)
        elif opt == "--call-summits":
            p.add_argument(opt, dest=_dest(opt), action="store_true",
                           help="accepted: " + IGNORED[opt])
        else:
            p.add_argument(*opt.split("/"), dest=_dest(opt), default=None,
                           help=argparse.SUPPRESS)
