"""The command ``peaks``: peaks of ChIP-seq coverage at a penalty or a learned model's.

``penlearn peaks COVERAGE... --penalty P --out peaks.bed`` solves the PeakSeg model of
every (sample, window) at λ = P; ``--model model.json`` predicts each window's log λ from
its 36 coverage features first. Several COVERAGE files are one sample each. ``--out``
is a folder with one ``<sample>.bed`` per sample, the sample id encoded into a safe
file name (:func:`sample_file_names`), when it ends in ``/``, is a folder already or
there are several samples; else the one sample's file. Peaks are those reported
(:mod:`penlearn.peaks.peakseg.calls`), their columns computed in one place
(:func:`~penlearn.peaks.peakseg.calls.peak_calls`): BED6+1 files have the sample as
name, a 0-1000 score, strand ``.`` and the peak's mean; ``--means bedGraph|bigWig`` also
writes every segment's mean from the coverage's first base to its last, the model a
genome browser shows beside the coverage; ``--format narrowPeak|broadPeak`` writes
ENCODE narrowPeak / broadPeak instead (:mod:`penlearn.peaks.formats.narrowpeak`; narrowPeak
with its ``<name>_summits.bed`` beside it, as ``callpeak``), and
bigWig outputs declare the chromosome lengths of ``--chrom-sizes`` or of the input
headers. ``--jobs N`` solves the (sample, window) problems in N processes
(``--scheduler ADDRESS``: on a Dask cluster).

Long runs resume: each (sample, window)'s result is saved as soon as it is solved, in
``OUT.penlearn-parts/`` beside the output (one file per window, written atomically,
named by a digest of the window's coverage rows, its log λ and the options; see
:mod:`penlearn.peaks.peakseg.parts`), with a ``manifest.json`` of the run's inputs (each file's
size and mtime, the model file's BLAKE2 digest, the penalty). The same command after an
interruption (Ctrl-C, a crash, a killed job) takes the saved windows back and solves only
the others; the outputs are those of an uninterrupted run, and the folder is removed once
they are written (a run that fails before saving a window leaves none:
:func:`~penlearn.peaks.peakseg.parts.run_parts_folder`). A window whose coverage or log λ
changed (other inputs, another model or penalty) is solved again; ``--no-resume``
discards the folder first.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re
import urllib.parse
import warnings
from pathlib import Path

import pandas as pd

from penlearn.atomic_files import check_output, derived_path, staged_dir
from penlearn.cli._common import _load_model, _Reporter, plural, probability
from penlearn.cli._controls import (
    Controlled,
    add_control_arguments,
    apply_controls,
    drop_control_peaks,
)
from penlearn.cli._peaks_parts import _coverage_paths, _open_parts, parts_folder
from penlearn.cli._peaks_samples import (
    chromosome_table,
    sample_chromosomes,
    sample_segments,
    spill_samples,
    streamable,
)
from penlearn.cli._peaks_stream import predict_by_chromosome, predict_chunks, sample_tables
from penlearn.cli._stream_calls import calls_by_chromosome
from penlearn.cli._workers import add_worker_arguments, workers
from penlearn.peaks.formats.bed import track_line, write_bed, write_bedgraph, write_bigwig
from penlearn.peaks.formats.chrom_sizes import (
    check_chrom_sizes,
    coverage_chrom_sizes,
    read_chrom_sizes,
)
from penlearn.peaks.formats.coverage import coverage_items, read_coverage
from penlearn.peaks.formats.narrowpeak import (
    narrowpeak_table,
    write_broadpeak,
    write_narrowpeak,
    write_summits,
)
from penlearn.peaks.formats.peak_columns import significant
from penlearn.peaks.peakseg.broad import TRIM_LEVEL_SHIFTS, predict_broad
from penlearn.peaks.peakseg.broad_control import above_control
from penlearn.peaks.peakseg.calls import peak_calls
from penlearn.peaks.peakseg.evaluation import predict_peaks
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.peakseg.parts import check_parts_folder
from penlearn.peaks.peakseg.penalty import log_penalty_of
from penlearn.peaks.peakseg.solver import check_tmpdir
from penlearn.peaks.pretrained import ZeroLabelModel, mark_offset
from penlearn.peaks.pretrained.learned_rule import learned_rule, rule_notice

__all__ = ["add_peaks_arguments", "cmd_peaks", "output_chrom_sizes", "sample_file_names"]

MEANS_SUFFIX = {"bedGraph": ".bedGraph", "bigWig": ".bw"}
PEAKS_SUFFIX = {"bed": ".bed", "narrowPeak": ".narrowPeak", "broadPeak": ".broadPeak"}
_MAX_NAME = 200  # bytes of a file name's stem (file systems allow 255)


def sample_file_names(samples) -> dict:
    """A safe, distinct file-name stem for every sample id (ids are not paths).

    Every character but ASCII letters, digits and ``_ - ~ .`` is percent-encoded
    (``%`` itself too, so two ids never share a name), and a leading ``.`` as well (no
    hidden files, no ``..``): ``../../victim`` becomes ``%2E.%2F..%2Fvictim``, and ``A``
    and ``sub/../A`` stay two files. Empty ids, ids whose names differ only in case (one
    file on macOS / Windows) and names longer than 200 bytes are refused.

    Examples
    --------
    >>> sample_file_names(["A", "sub/../A", "../x"])
    {'A': 'A', 'sub/../A': 'sub%2F..%2FA', '../x': '%2E.%2Fx'}
    """
    names, seen = {}, {}
    for sid in samples:
        text = str(sid)
        if not text:
            raise ValueError("a sample id is empty: it cannot name an output file "
                             "(give every sample a non-empty id)")
        stem = urllib.parse.quote(text, safe="-_~.")
        if stem.startswith("."):
            stem = "%2E" + stem[1:]
        if len(stem.encode()) > _MAX_NAME:
            raise ValueError(f"sample id {text[:40]!r}... is too long to name an output file")
        other = seen.setdefault(stem.casefold(), text)
        if other != text:
            raise ValueError(f"sample ids {other!r} and {text!r} differ only in case: their "
                             "files would be one on case-insensitive file systems")
        names[text] = stem
    return names


def check_penalty_options(args):
    """The penalty options (``--penalty / --log-penalty / --model / --broad``) checked
    before any input is read: the log λ given, the model given (loaded), or None."""
    given = [x for x in (args.penalty, args.log_penalty, args.model) if x is not None]
    if len(given) > 1:
        raise ValueError("give one of --penalty λ, --log-penalty LOG_λ or --model "
                         "MODEL.json (none: the shipped zero-label model)")
    if given and args.broad:
        raise ValueError("--broad picks the shipped zero-label model's level for broad "
                         "marks; with --penalty, --log-penalty or --model the penalty is "
                         "the one given: drop --broad (broadPeak files: --format broadPeak)")
    if getattr(args, "no_filter", False) and (args.penalty is not None
                                              or args.log_penalty is not None):
        raise ValueError("--no-filter turns off the narrow rule (lowered penalty, q-value "
                         "filter) of the shipped zero-label model or of a --model learned "
                         "with it; with --penalty or --log-penalty no filter applies unless "
                         "you give one: drop --no-filter")
    if args.model is not None:
        return _load_model(args.model, task="peaks")
    return log_penalty_of(args.penalty, args.log_penalty, penalty_name="--penalty",
                          log_name="--log-penalty")


def broad_finer(args) -> float | None:
    """``--broad`` without a penalty given: what the finer model adds to the broad level's
    log λ (the narrow-mark level minus the broad one, by
    :func:`~penlearn.peaks.pretrained.mark_offset`); None with a penalty or model given
    (its calls are linked only: :func:`~penlearn.peaks.peakseg.broad.predict_broad`)."""
    if any(x is not None for x in (args.penalty, args.log_penalty, args.model)):
        return None
    return mark_offset(mark="narrow") - mark_offset(mark="broad")


def zero_label_model(args):
    """The zero-label model of a command's options (``--broad``: the broad-mark level)."""
    return ZeroLabelModel("broad" if getattr(args, "broad", False) else "narrow")


def narrow_rule(args) -> float | None:
    """The q-value cutoff of the zero-label model's narrow rule when it applies to a
    command's options, else None: no ``--penalty / --log-penalty / --model``, no
    ``--broad``, no ``--no-filter`` and a shipped model file with the rule
    (:class:`~penlearn.peaks.pretrained.ZeroLabelModel`'s ``shift`` and ``qvalue``), or a
    ``--model`` that carries it (:mod:`penlearn.peaks.pretrained.learned_rule`). A
    cutoff the user gives (``-q``, ``-p``, ``--qvalue``) replaces it; the lowered λ stays.

    Examples
    --------
    >>> import argparse
    >>> ns = dict(penalty=None, log_penalty=None, model=None, broad=False)
    >>> narrow_rule(argparse.Namespace(**ns))
    0.05
    >>> narrow_rule(argparse.Namespace(**{**ns, "broad": True})) is None
    True
    >>> narrow_rule(argparse.Namespace(**{**ns, "penalty": 1e4})) is None
    True
    """
    if getattr(args, "no_filter", False) or any(
            getattr(args, k, None) is not None for k in ("penalty", "log_penalty")):
        return None
    if getattr(args, "model", None) is not None:  # a learned model's rule, if it has one
        rule = _model_rule(args.model)
        return None if rule is None else rule["qvalue"]
    return zero_label_model(args).qvalue


@functools.lru_cache(maxsize=4)
def _model_rule_of(path: str, mtime: int) -> dict | None:
    return learned_rule(_load_model(path))


def _model_rule(path) -> dict | None:
    """The narrow rule of the model file ``path``
    (:func:`~penlearn.peaks.pretrained.learned_rule.learned_rule`; None: its own λ)."""
    return _model_rule_of(str(path), Path(path).stat().st_mtime_ns)


def zero_label_notice(args) -> str:
    """The line a command says when it uses the zero-label model (and its narrow rule)."""
    zero = zero_label_model(args)
    q, pv = getattr(args, "qvalue", None), getattr(args, "pvalue", None)
    cutoff = None if q is None and pv is None else (
        f"p-value <= {pv:g}" if pv is not None else f"q-value <= {q:g}")
    rule = zero.rule_notice(cutoff) if narrow_rule(args) is not None else ""
    return (f"penlearn {getattr(args, 'command', 'peaks')}: no --penalty or --model: using "
            f"{zero.notice()}{rule}")


def model_rule_notice(args) -> str:
    """The line a command says when its ``--model`` applies its narrow rule ("": none)."""
    if getattr(args, "model", None) is None or narrow_rule(args) is None:
        return ""
    return f"penlearn {getattr(args, 'command', 'peaks')}: {rule_notice(_model_rule(args.model))}"


def _log_lambda(args, coverage: pd.DataFrame, report: _Reporter, chrom_sizes=None,
                whose: str = "samples", filtered: bool = True):
    """(log λ of every window, the windows or None for one per (sample, chromosome)).
    ``chrom_sizes``: the chromosome lengths known (BAM header, ``--chrom-sizes``);
    ``whose``: the coverage's part the progress line names (controls, treatments);
    ``filtered``: the narrow rule's lowered λ where it applies (:func:`narrow_rule`: the
    caller keeps the peaks of q-value <= its cutoff), else the model's own λ."""
    choice = check_penalty_options(args)
    if args.model is None:
        value = choice
        if value is not None:
            return value, None
        zero = zero_label_model(args)
        if filtered:
            report.notice(zero_label_notice(args))
        report(f"coverage features of every window of the {whose}, cut like the model's "
               "training windows")
        return zero.log_lambda(coverage, chrom_sizes=chrom_sizes, filtered=filtered and (
            narrow_rule(args) is not None))[::-1]
    model = choice
    rule = learned_rule(model) if filtered and narrow_rule(args) is not None else None
    if rule is not None:
        report.notice(model_rule_notice(args))
    report(f"coverage features of every window of the {whose}")
    features = coverage_features(coverage)
    shift = 0.0 if rule is None else rule["shift"]
    return pd.Series(model.predict(features), index=features.index) + shift, None


def control_segments(args, controls: pd.DataFrame, report: _Reporter, tmpdir=None,
                     chrom_sizes=None) -> pd.DataFrame:
    """The PeakSeg segments of the control samples, at the penalty the treatments get
    (``--penalty``, ``--model`` or the shipped model's, from the controls' own coverage;
    the model's own λ, never the narrow rule's lowered one: no q-value filters them),
    solved on 1 kb bins, each change then moved to the best row edge near it
    (:func:`~penlearn.peaks.peakseg.controls.binned_segments`)."""
    from penlearn.peaks.peakseg.controls import CONTROL_BIN, binned_segments

    log_lambda, windows = _log_lambda(args, controls, report, chrom_sizes, "controls",
                                      filtered=False)
    return binned_segments(controls, log_lambda, windows, CONTROL_BIN, tmpdir=tmpdir)


def summits_path(out: Path) -> Path:
    """``peaks.narrowPeak[.gz]`` -> ``peaks_summits.bed`` beside it (MACS3's
    ``NAME_peaks.narrowPeak`` / ``NAME_summits.bed`` pair).

    Examples
    --------
    >>> summits_path(Path("out/s1.narrowPeak")).as_posix()
    'out/s1_summits.bed'
    """
    name = out.name
    for suffix in (".gz", ".narrowPeak"):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    return derived_path(out.with_name(name), "_summits.bed")


def _means_path(out: Path, fmt: str) -> Path:
    """``peaks.bed[.gz]`` -> ``peaks.bedGraph`` / ``peaks.bw`` beside it."""
    name = out.name
    for suffix in (".gz", ".bed", ".narrowPeak"):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    return derived_path(out.with_name(name), MEANS_SUFFIX[fmt])


def out_is_folder(text: str) -> bool:
    """Whether ``--out`` names a folder before any input is read: it ends in ``/`` or is
    an existing folder (else a folder only when there are several samples).

    Examples
    --------
    >>> out_is_folder("peaks/"), out_is_folder("peaks.bed")
    (True, False)
    """
    if str(text).endswith(("/", os.sep)):
        return True
    try:  # a name too long for the file system is refused by the output check, not here
        return Path(text).is_dir()
    except OSError:
        return False


def _check_outputs(args, outs: list[Path], directory: bool | None) -> None:
    """Fail on outputs that would replace or sit among the inputs (``directory=None``:
    before reading, when the number of samples, so the kind of ``--out``, is not known)."""
    inputs = [*_coverage_paths(args), args.model, getattr(args, "chrom_sizes", None),
              *(c.split("=", 1)[-1] for c in getattr(args, "control", None) or []),
              getattr(args, "control_sheet", None)]
    for out in outs:
        check_output(out, directory=directory, force=args.force, inputs=inputs)


def _write_sample(segs: pd.DataFrame, sid, path: Path, args, means: Path | None,
                  sizes: dict | None = None, coverage: pd.DataFrame | None = None,
                  control: tuple | None = None, chunks: tuple | None = None) -> int:
    """The peak file (BED6+1: name = sample, score 0-1000, strand, the peak's mean;
    narrowPeak; broadPeak) and the means of one sample, its columns from
    :func:`~penlearn.peaks.peakseg.calls.peak_calls` (bigWig: chromosome lengths
    ``sizes``, else each one's last end; ``control``: (its control's coverage, scale),
    the summits then of treatment − scaled control, as ``callpeak``'s; ``chunks``:
    instead of ``coverage``, (its ``(segments, coverage)`` by chromosome, its genome's
    level): the calls made a chromosome at a time, :func:`calls_by_chromosome`)."""
    cutoff = getattr(args, "qvalue", None)
    if cutoff is None:
        cutoff = narrow_rule(args)  # the zero-label model's narrow rule
    # the coverage gives the summits and the p-values' fragments at them, and tells a
    # level shift from a peak (every format: one set of peaks whatever the file)
    with_coverage = coverage is not None
    summits = {} if control is None or not with_coverage else {
        "control": control[0], "control_scale": control[1]}
    # --broad's linked calls are not trimmed as level shifts (peakseg.broad)
    trim = TRIM_LEVEL_SHIFTS or not getattr(args, "broad", False)
    calls = calls_by_chromosome(*chunks, cutoff, level_shifts=trim) if chunks else \
        peak_calls(segs, coverage if with_coverage else None, level_shifts=trim, **summits)
    if getattr(args, "broad", False) and summits:  # not up in the control as much
        calls = calls[above_control(calls, coverage, control[0])].reset_index(drop=True)
    if cutoff is not None:
        calls = significant(calls, qvalue=cutoff)
    # BED names and track lines hold no whitespace / quotes: those are percent-encoded
    label = "." if sid is None else re.sub(r'[\s"%]', lambda m: f"%{ord(m.group()):02X}",
                                           str(sid))
    name = None if args.track is None else " ".join(
        x for x in (args.track, "" if sid is None else label) if x) or "penlearn peaks"
    if args.format in ("narrowPeak", "broadPeak"):
        table = narrowpeak_table(calls, "" if sid is None else label)
        writer = write_narrowpeak if args.format == "narrowPeak" else write_broadpeak
        writer(table, path, track=name)
        if args.format == "narrowPeak":  # as callpeak (and MACS3): each peak's summit
            write_summits(table, summits_path(path))
    elif args.bed3:
        write_bed(calls[["chrom", "chromStart", "chromEnd"]], path, track=name)
    else:
        write_bed(calls.assign(name=label, strand="."), path, track=name, extra=["mean"])
    if means is not None:
        track = None if name is None else f"{name} means"
        if args.means == "bigWig":
            write_bigwig(segs, means, chrom_sizes=sizes)
        else:
            write_bedgraph(segs, means, track=track)
    return len(calls)


def output_chrom_sizes(args, given: dict | None, tables: dict, files: str | None
                       ) -> dict | None:
    """Chromosome lengths of big-file outputs: ``--chrom-sizes`` (read as ``given``), else
    the input headers (bigWig, BAM), checked against ``tables`` ({what: table}); else
    None, with a warning naming the ``files`` that will end at the last covered base."""
    cov = args.coverage
    sizes = given if given is not None else coverage_chrom_sizes(
        cov[0] if isinstance(cov, (list, tuple)) and len(cov) == 1 else cov)
    if sizes is not None:
        for what, table in tables.items():
            if table is not None and len(table):
                check_chrom_sizes(sizes, table, what)
    elif files is not None:
        warnings.warn(f"the coverage does not say how long the chromosomes are (bedGraph / "
                      f"CSV): {files} declare each one to end at its last covered base; "
                      "give --chrom-sizes FILE for the real lengths", stacklevel=2)
    return sizes


def cmd_peaks(args) -> int:
    """coverage -> (log λ per window) -> PeakSeg peaks -> BED (+ segment means)."""
    if not str(args.out).strip():
        raise ValueError("--out is empty (an unset shell variable?): give a file or folder")
    out = Path(args.out)
    if args.track:
        track_line(args.track)  # a bad name fails now, not after the work
    tmpdir = check_tmpdir(args.tmpdir, "--tmpdir")
    if args.means == "bigWig" and importlib.util.find_spec("pyBigWig") is None:
        raise ValueError("--means bigWig needs pyBigWig: pip install 'penlearn[bigwig]'")
    if args.bed3 and args.format != "bed":
        raise ValueError("--bed3 applies to --format bed only")
    folder = out_is_folder(args.out)
    _check_outputs(args, [out], True if folder else None)  # before reading any input
    check_penalty_options(args)
    paths = _coverage_paths(args)
    check_parts_folder(parts_folder(out), [*paths, args.model, args.chrom_sizes],
                       fresh=args.no_resume)
    given = None if args.chrom_sizes is None else read_chrom_sizes(args.chrom_sizes)
    report = _Reporter(args.quiet)
    items = coverage_items(paths[0] if len(paths) == 1 else paths)
    sizes = given if args.means != "bigWig" else output_chrom_sizes(
        args, given, {}, "the bigWig files")
    # the chromosome lengths known: whole short chromosomes are no short-window cut
    known = given if given is not None else coverage_chrom_sizes(
        paths[0] if len(paths) == 1 else paths)
    # one-sample files: read one at a time, then a chromosome of all at once
    with spill_samples(items, tmpdir, sizes) if streamable(args, items) else \
            contextlib.nullcontext() as spilled:
        return _peaks_of(args, out, folder, spilled, (given, sizes, known), report, tmpdir)


def _peaks_of(args, out: Path, folder: bool, spilled, lengths: tuple, report: _Reporter,
              tmpdir) -> int:
    """:func:`cmd_peaks` from reading its coverage on: the whole table, or (``spilled``)
    the samples' rows by chromosome (:mod:`._peaks_samples`); ``lengths``: the
    chromosome lengths given, of the outputs and known."""
    given, sizes, known = lengths
    paths = _coverage_paths(args)
    coverage = None if spilled is not None else read_coverage(
        paths[0] if len(paths) == 1 else paths, progress=not args.quiet)
    if sizes is not None and coverage is not None:
        check_chrom_sizes(sizes, coverage, "coverage")
    named = args.control or args.control_sheet or (
        coverage is not None and "control" in coverage.columns)
    controlled = Controlled(None, None, None, {}) if spilled is not None else \
        apply_controls(coverage, args, report, lambda c: control_segments(
            args, c, report, tmpdir, chrom_sizes=known),
            given if given is not None or not named else known)
    coverage, plain, controls, pairs = controlled[:4]
    summit_of = controlled.summits or {}  # narrowPeak summits of treatment - scaled control
    samples = list(spilled.samples) if spilled is not None else list(pd.unique(
        coverage["sample_id"])) if "sample_id" in coverage else [None]
    several = len(samples) > 1 or folder
    means = _means_path(out, args.means) if args.means and not several else None
    summits = summits_path(out) if args.format == "narrowPeak" and not several else None
    _check_outputs(args, [out] + [p for p in (means, summits) if p], several)
    names = sample_file_names(["sample" if s is None else s for s in samples]) \
        if several else {}
    whose = "treatments" if named else "samples"

    def log_lambda_of(rows, first):  # the features' line once, of the first chromosome
        return _log_lambda(args, rows, report if first else _Reporter(True), known, whose)
    with _open_parts(args, out, report) as parts:  # kept after a failure only with parts
        report(f"peak models of {plural(len(samples), 'sample')}")
        with workers(args) as executor:
            solve = {"executor": executor, "progress": not args.quiet, "tmpdir": tmpdir,
                     "parts": parts}
            if getattr(args, "broad", False):  # each broad domain one call
                predict = functools.partial(  # its finer level: without narrow bumps
                    predict_broad, finer=broad_finer(args),
                    penalty_of=lambda rows: log_lambda_of(rows, False)[0])
            else:
                predict = functools.partial(predict_peaks, segments=True)
            # one chromosome at a time: its windows' features and solves
            # (spilled: each chromosome's segments saved beside its rows, none held)
            segs = predict_chunks(map(_pair, map(functools.partial(
                chromosome_table, spilled), spilled.order())), log_lambda_of, predict,
                samples, keep=spilled.keep_segments, **solve) if spilled is not None \
                else predict_by_chromosome(coverage, plain, log_lambda_of, predict, **solve)
        if pairs and args.control_rule == "filter":
            segs, dropped = drop_control_peaks(segs, controls, pairs)
            report(f"{dropped} peak(s) dropped: the control is up there")
        reused = segs.attrs.get("parts_reused", 0)
        note = f" ({reused} of {segs.attrs['windows']} windows from an interrupted run)" \
            if reused else ""
        if not several:  # each file is written atomically
            segs, chunks = _sample_segments(args, spilled, 0, segs)
            n = _write_sample(segs, samples[0], out, args, means, sizes, coverage,
                              summit_of.get("" if samples[0] is None else str(samples[0])),
                              chunks)
            print(f"penlearn peaks: wrote {n} peaks to {out}{note}")
            return 0
        n = 0
        one = "sample_id" not in segs.columns or len(samples) == 1
        by_sample = {} if one or spilled is not None else sample_tables(coverage, samples)
        with staged_dir(out, replace=args.force) as tmp:
            for k, s in enumerate(samples):  # (one sample's rows at once)
                stem = names["sample" if s is None else str(s)]
                part, chunks = _sample_segments(args, spilled, k, segs if one or (
                    spilled is not None) else segs[segs["sample_id"] == s])
                cov = None if spilled is not None else coverage if one else by_sample.pop(s)
                m = tmp / f"{stem}{MEANS_SUFFIX[args.means]}" if args.means else None
                n += _write_sample(part, s, tmp / f"{stem}{PEAKS_SUFFIX[args.format]}", args,
                                   m, sizes, cov, summit_of.get("" if s is None else str(s)),
                                   chunks)
                del part, cov, chunks
        print(f"penlearn peaks: wrote {n} peaks of {plural(len(samples), 'sample')} to "
              f"{out}/{note}")
        return 0


def _sample_segments(args, spilled, k: int, segs: pd.DataFrame) -> tuple:
    """(sample k's segments, its ``(segments, coverage)`` by chromosome and level):
    ``segs`` and None, or (``spilled``) the segments read back only for ``--means``, and
    each chromosome's read back when its calls are made (:func:`sample_chromosomes`)."""
    if spilled is None:
        return segs, None
    return (sample_segments(spilled, k) if args.means else None,
            (sample_chromosomes(spilled, k), spilled.level(k)))


def _pair(table: pd.DataFrame) -> tuple:
    """(coverage rows, the samples' own rows) of a chromosome without controls."""
    return table, table


def register(add) -> None:
    """``penlearn peaks``: its subparser (``add(name, help, handler)``) and arguments."""
    add_peaks_arguments(add(
        "peaks", "ChIP-seq peaks of coverage (PeakSeg model) at a penalty, a learned "
        "model's predicted penalty or (neither given) the shipped zero-label model's, as "
        "BED or narrowPeak", cmd_peaks,
        force_help="replace an existing --out: the peak file (and its --means file) of one "
        "sample, or the folder of one file per sample as a whole (without it: an error)"))


def add_peaks_arguments(p) -> None:
    """The arguments of ``penlearn peaks``."""
    p.add_argument("coverage", metavar="COVERAGE", nargs="+",
                   help="one or several (one sample each, ids from the file names, as "
                   "MACS3's -t a b) of: a bedGraph file (chrom, chromStart, chromEnd, "
                   "count; plain or gzip), "
                   "a bigWig file (.bw or .bigWig), a BAM file (read depth as bedtools "
                   "genomecov -bg -split), a coverage.csv[.gz] with sample_id, or a folder of "
                   "*.bedGraph[.gz] / *.bw / *.bigWig / *.bam files (one per sample) or "
                   "holding coverage.csv[.gz]")
    p.add_argument("--penalty", type=float, default=None, metavar="λ",
                   help="the penalty λ of every window (the cost of one peak, >= 0, e.g. "
                   "10000)")
    p.add_argument("--log-penalty", type=float, default=None, metavar="LOG_λ",
                   help="log λ (natural log, <= 50) of every window instead, e.g. 9.2")
    p.add_argument("--model", default=None, metavar="MODEL.json",
                   help="a model from 'penlearn learn' on ChIP-seq features: each window's "
                   "log λ is predicted from its coverage features (none of --penalty, "
                   "--log-penalty, --model: the shipped zero-label model, learned on 17 "
                   "public labeled ChIP-seq sets, on windows cut like its training "
                   "problems)")
    p.add_argument("--broad", action="store_true",
                   help="a broad mark (H3K27me3, H3K36me3, H3K9me3, H3K4me1; MACS3's "
                   "--broad): the shipped model's level of all its sets, plus the wider "
                   "domains of the narrow level's model, nearby calls linked across "
                   "still-enriched dips: each broad domain one call (docs/chipseq.md). "
                   "Default: a narrow mark (H3K4me3, H3K27ac, CTCF, ATAC, factors), its "
                   "level of the narrow-mark sets. Only without --penalty, --log-penalty, "
                   "--model")
    p.add_argument("--out", required=True, metavar="OUT",
                   help="a folder of <sample>.bed files when OUT ends in '/' or is a folder "
                   "already, or when there are several samples (sample ids "
                   "percent-encoded into file names: '/' is %%2F); else the one sample's "
                   "file")
    p.add_argument("--format", choices=tuple(PEAKS_SUFFIX), default="bed",
                   help="bed: BED6+1 (name = sample, score 0-1000 = the peak mean scaled "
                   "to the sample's strongest, strand '.', the peak mean); narrowPeak: "
                   "ENCODE narrowPeak, names <sample>_peak<k>, the same score, "
                   "signalValue = fold over the flanking background, pValue / qValue = "
                   "-log10 Poisson p of the fragments at the summit against the local "
                   "background (MACS3's) / Benjamini-Hochberg q, peak = summit offset, "
                   "and each file's <name>_summits.bed beside it, as callpeak's; "
                   "broadPeak: narrowPeak without the summit (default: %(default)s; any "
                   "case)")
    p.add_argument("--qvalue", type=probability, default=None, metavar="Q",
                   help="keep only the peaks of q-value <= Q (narrowPeak column 9 >= "
                   "-log10 Q; the q-value is MACS3's kind: see docs/chipseq.md, "
                   "'pValue and qValue') (default: with the shipped model of a narrow "
                   "mark, its rule: a lowered penalty, peaks of q-value <= 0.05 kept; "
                   "--qvalue 1 keeps every peak of the lowered penalty; with --penalty, "
                   "--log-penalty or --broad: every peak of the model; with --model: its "
                   "own rule, which 'penlearn learn' gives it when its labels take it)")
    p.add_argument("--no-filter", action="store_true",
                   help="the shipped zero-label model's (or the --model's) own peaks: its "
                   "penalty without the narrow rule's lowering and q-value filter (the "
                   "peaks the labeling page and 'propose' use)")
    p.add_argument("--chrom-sizes", default=None, metavar="FILE",
                   help="UCSC chrom.sizes file (name, length): the chromosome lengths the "
                   "bigWig outputs declare (default: those of the bigWig / BAM inputs' "
                   "headers; bedGraph inputs: each chromosome's last covered base)")
    p.add_argument("--bed3", action="store_true",
                   help="BED with 3 columns only (default: also name = sample, score "
                   "0-1000, strand and the peak's mean coverage)")
    p.add_argument("--track", default=None, metavar="NAME", nargs="?", const="",
                   help="start each file with a genome-browser 'track' line named NAME "
                   "and the sample")
    p.add_argument("--means", default=None, choices=tuple(MEANS_SUFFIX),
                   help="also write every segment's mean: OUT's name with .bedGraph / .bw "
                   "(one sample) or <sample>.bedGraph / .bw in the folder (bigWig needs "
                   "pyBigWig)")
    p.add_argument("--no-resume", action="store_true",
                   help="solve every window again: discard OUT.penlearn-parts/, where an "
                   "interrupted run saved its finished windows (by default the same "
                   "command reuses those whose coverage and log λ are unchanged; the "
                   "folder is removed once the outputs are written)")
    add_control_arguments(p)
    add_worker_arguments(p)
