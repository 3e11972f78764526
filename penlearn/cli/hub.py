"""The command ``hub``: a UCSC track hub folder of coverage, peaks and labels.

``penlearn hub COVERAGE PEAKS --genome hg19 --out HUB`` writes ``HUB/hub.txt``,
``genomes.txt`` and ``hg19/trackDb.txt`` with the coverage of every sample as bigWigs
in a multiWig container, the peaks (a file or a folder as ``penlearn peaks`` writes it,
or any caller's) as bigBeds and, with ``--labels``, the labels as bigBeds, one per
annotation (:func:`~penlearn.peaks.formats.hub.write_track_hub`). A separate command rather
than an option of ``peaks``: it takes any caller's peaks (and ``joint``'s), and a hub
can be made again without solving again.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from penlearn.atomic_files import check_output
from penlearn.cli._common import _Reporter
from penlearn.cli.errors import labels_for_samples
from penlearn.cli.peaks import output_chrom_sizes
from penlearn.peaks.formats.bed import read_peak_labels
from penlearn.peaks.formats.chrom_sizes import read_chrom_sizes
from penlearn.peaks.formats.coverage import read_coverage
from penlearn.peaks.formats.hub import check_assembly, write_track_hub
from penlearn.peaks.formats.peak_files import read_peak_files

__all__ = ["add_hub_arguments", "cmd_hub"]


def cmd_hub(args) -> int:
    """coverage + peaks (+ labels) -> a track hub folder."""
    if importlib.util.find_spec("pybigtools") is None:
        raise ValueError("penlearn hub needs pybigtools: pip install 'penlearn[hub]'")
    out = Path(args.out)
    inputs = [args.coverage, args.peaks, args.labels, args.chrom_sizes]
    check_output(out, directory=True, force=args.force, inputs=inputs)
    check_assembly(args.genome)
    given = None if args.chrom_sizes is None else read_chrom_sizes(args.chrom_sizes)
    report = _Reporter(args.quiet)
    coverage = read_coverage(args.coverage, progress=not args.quiet)
    samples = [str(s) for s in dict.fromkeys(coverage["sample_id"].astype(str))]
    peaks = read_peak_files(args.peaks)
    labels = None
    if args.labels:
        labels = read_peak_labels(args.labels)
        if "sample_id" in labels.columns or ("groups" in labels.columns
                                              and (labels["groups"] != "").any()):
            labels = labels_for_samples(labels, samples)
            extra = sorted(set(labels["sample_id"]) - set(samples))
            if extra:
                raise ValueError(f"labels of sample {extra[0]!r}, which the coverage does "
                                 "not have")
    sizes = output_chrom_sizes(args, given, {"coverage": coverage, "peaks": peaks,
                                             "labels": labels}, "the hub's files")
    report(f"writing the hub of {len(samples)} sample(s)")
    files = write_track_hub(out, args.genome, coverage, peaks, labels, chrom_sizes=sizes,
                            name=args.name, email=args.email, replace=args.force)
    print(f"penlearn hub: wrote {len(files)} files to {out}/ (give the URL of "
          f"{out / 'hub.txt'} to the genome browser)")
    return 0


def register(add) -> None:
    """``penlearn hub``: its subparser (``add(name, help, handler)``) and arguments."""
    add_hub_arguments(add("hub", "a UCSC track hub folder: coverage bigWigs (multiWig), "
                          "peaks and labels as bigBed", cmd_hub))


def add_hub_arguments(p) -> None:
    """The arguments of ``penlearn hub``."""
    p.add_argument("coverage", metavar="COVERAGE",
                   help="the coverage 'penlearn peaks' read (bedGraph / bigWig / BAM file, "
                   "coverage.csv[.gz], or a folder of them)")
    p.add_argument("peaks", metavar="PEAKS",
                   help="a BED / narrowPeak file (one sample) or a folder of <sample>.bed / "
                   ".narrowPeak files as 'penlearn peaks --out DIR' writes them")
    p.add_argument("--genome", required=True, metavar="ASSEMBLY",
                   help="the UCSC assembly of the coordinates (hg19, hg38, mm10, ...)")
    p.add_argument("--out", required=True, metavar="HUB",
                   help="hub folder to write (hub.txt, genomes.txt, ASSEMBLY/trackDb.txt "
                   "and the bigWig / bigBed files)")
    p.add_argument("--labels", default=None, metavar="LABELS",
                   help="peak labels to show (labels.csv, BED or the genome-browser text "
                   "format): one bigBed track per annotation (and sample)")
    p.add_argument("--chrom-sizes", default=None, metavar="FILE",
                   help="UCSC chrom.sizes file of the assembly (default: the bigWig / BAM "
                   "inputs' headers; bedGraph inputs: each chromosome's last covered base)")
    p.add_argument("--name", default="penlearn", help="hub name, one word (default: "
                   "%(default)s)")
    p.add_argument("--email", default="penlearn-user@localhost",
                   help="contact address written in hub.txt (default: %(default)s)")
