"""The command ``propose``: the next windows worth labeling, as a BED file.

``penlearn propose COVERAGE --out windows.bed`` cuts the coverage into the labeling
page's windows (``--window-size``, as ``penlearn label``'s), and writes the (sample,
window) whose labels would pin the penalty's level fastest
(:func:`penlearn.propose_windows`; ``--n N``: a batch of N spread over the prior's
ranking), each with its reason; ``--labels LABELS`` gives the labels so far (the
(sample, window)s holding one are never proposed, their errors steer the next
proposals: the same candidates as the page's "Next"); ``--model M`` another prior
model. One window at a time (label it, propose again) learns most per label
(:data:`N_HELP`, ``benchmarks/RESULTS.md``, "few_labels"). The BED file has the sample
(when several) and rank as name, the rank as score (1000 for the first, down to 1) and
the reason in a ``#`` comment line above each window, so it loads in a genome browser as
it is.
"""

from __future__ import annotations

from pathlib import Path

from penlearn.atomic_files import check_output, write_text_atomic
from penlearn.cli._common import _load_model, _Reporter, non_negative_int, positive_int
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.coverage import read_coverage
from penlearn.peaks.label_windows import DEFAULT_WINDOW_BASES
from penlearn.peaks.pretrained import ZeroLabelModel
from penlearn.peaks.propose import propose_windows

__all__ = ["N_HELP", "bed_text", "cmd_propose"]

#: ``--n``'s help: what a batch gives and what one window at a time gains (measured:
#: leave one set out over the 17 UCI ChIP-seq sets, ``benchmarks/few_labels.py``).
N_HELP = ("how many windows (default: %(default)s: label it, then propose again with "
          "--labels). A batch of N is spread over the prior's ranking and beats N random "
          "windows; one at a time learns more per label: after 5 labeled windows, "
          "16.8 %% of test labels wrong one at a time, 17.4 %% in one batch, 17.9 %% "
          "random; after 10: 16.3, 16.5, 17.2 (17 public sets, leave one out)")


def bed_text(table) -> str:
    """The BED text of proposed windows: a ``#`` line with each window's reason above it.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"chrom": ["chr1"], "chromStart": [0], "chromEnd": [60],
    ...                   "reason": ["2 model changes"]})
    >>> bed_text(t).splitlines()
    ['# 1: 2 model changes', 'chr1\\t0\\t60\\t1\\t1000']
    """
    lines = []
    n = len(table)
    for rank, r in enumerate(table.itertuples(index=False), start=1):
        sample = getattr(r, "sample_id", None)
        name = f"{sample}:{rank}" if sample is not None else str(rank)
        name = "".join(c if c.isprintable() and not c.isspace() else "_" for c in name)
        score = int(round(1000 - 999 * (rank - 1) / max(n - 1, 1)))
        reason = " ".join(str(r.reason).split())
        lines.append(f"# {rank}: {reason}")
        lines.append(f"{r.chrom}\t{int(r.chromStart)}\t{int(r.chromEnd)}\t{name}\t{score}")
    return "\n".join(lines) + ("\n" if lines else "")


def cmd_propose(args) -> int:
    """coverage (+ labels so far) -> the next windows worth labeling (BED)."""
    out = Path(args.out)
    inputs = [*args.coverage, args.labels, args.model]
    check_output(out, directory=False, force=args.force, inputs=[i for i in inputs if i])
    if args.n < 1:
        raise ValueError(f"--n must be at least 1, got {args.n}")
    model = _load_model(args.model, task="peaks") if args.model else None  # before the work
    report = _Reporter(args.quiet)
    if model is None:  # the notice of every command on the zero-label model
        report.notice(f"penlearn propose: no --model: ranking with "
                      f"{ZeroLabelModel('narrow').notice()}")
    coverage = read_coverage(args.coverage[0] if len(args.coverage) == 1 else args.coverage,
                             progress=not args.quiet)
    labels = read_peak_labels(args.labels) if args.labels else None
    report("cutting windows, predicting their penalties and sketching their paths")
    table = propose_windows(coverage, args.n, labeled=labels, model=model,
                            random_state=args.seed, window_bases=args.window_size)
    write_text_atomic(out, bed_text(table))
    print(f"penlearn propose: wrote {len(table)} window(s) worth labeling to {out}")
    return 0


def register(add) -> None:
    """``penlearn propose``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("propose", "the next windows worth labeling (BED, best first, with reasons)",
            cmd_propose, force_help="replace an existing --out file (without it: an error)")
    p.add_argument("coverage", metavar="COVERAGE", nargs="+",
                   help="coverage (bedGraph / bigWig / BAM file, coverage.csv[.gz], or a "
                   "folder of them)")
    p.add_argument("--n", type=non_negative_int, default=1, metavar="N", help=N_HELP)
    p.add_argument("--labels", default=None, metavar="LABELS",
                   help="the labels so far (labels.csv, BED or the genome-browser text "
                   "format): a sample's window holding one is not proposed (its other "
                   "samples are: as the labeling page's Next), their errors steer the rest")
    p.add_argument("--model", default=None, metavar="MODEL.json",
                   help="the prior penalty model (default: the shipped zero-label model)")
    p.add_argument("--window-size", type=positive_int, default=DEFAULT_WINDOW_BASES,
                   metavar="BASES", help="longest window, as penlearn label's (default: "
                   "%(default)s)")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="breaks ties (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="WINDOWS.bed", help="BED file to write")
