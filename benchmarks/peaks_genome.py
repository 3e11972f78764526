"""``penlearn peaks`` and ``penlearn joint`` on a whole genome's coverage: wall, CPU, max RSS.

One command::

    python benchmarks/peaks_genome.py [--scale 1] [--cap-gb 8] [--jobs 1] [--bigwig]
        [--runs "peaks 1" "peaks 2" "joint 2"] [--keep DIR]

The coverage (made once and cached beside the BAM files of ``benchmarks/callpeak_genome.py``,
in ``$PENLEARN_BENCH_CACHE``, else ``~/.cache/penlearn-bench``): the fragment pileups
(reads extended to 200 bp) of that benchmark's treatment and control (hg19's chromosome
sizes times ``--scale``, 20 million single-end reads each at scale 1), written as bedGraph
files of the nonzero runs (as ``bedtools genomecov -bg``), and with ``--bigwig`` as bigWig
files (pyBigWig; made from the cached bedGraph when it is there, a chromosome at a time,
the chromosome sizes of the BAM's header). The runs, each under ``/usr/bin/time -v`` and
``prlimit --as`` of ``--cap-gb``, their outputs kept in ``--keep DIR`` when given (to
compare two versions' files):

* ``peaks 1``: ``penlearn peaks treatment.bedGraph --out t.bed`` (one sample, the shipped
  zero-label penalty);
* ``peaks 2``: ``penlearn peaks FOLDER --out peaks/`` (the two samples);
* ``joint 2``: ``penlearn joint FOLDER --peaks peaks/ --out joint/``;
* with ``--bigwig``: ``peaks 1`` of the bigWig (``peaks 1 bigWig``; ``--runs`` may name it
  alone);
* ``peaks 1 BAM`` (only when ``--runs`` names it): ``penlearn peaks`` of the treatment's
  BAM file itself (indexed; its read depth, as ``bedtools genomecov -bg -split``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from callpeak_genome import cache_dir, data, timed  # noqa: E402
from results_file import markdown_table  # noqa: E402

EXTSIZE = 200


def _write_pileup(bam: Path, out: Path, bigwig: Path | None) -> int:
    """The fragment pileup of ``bam`` as a bedGraph (and a bigWig); its rows."""
    import numpy as np
    import pandas as pd

    from penlearn.peaks.formats.read_arrays import chrom_pileup, read_bam_arrays

    reads = read_bam_arrays([str(bam)], False)
    rows = 0
    tmp = out.with_name(out.name + ".tmp")
    bw = None
    if bigwig is not None:
        import pyBigWig

        bw = pyBigWig.open(str(bigwig), "w")
        bw.addHeader([(c, int(reads.sizes[c])) for c in reads.chroms])
    with open(tmp, "w") as fh:
        for c in reads.chroms:
            s, e, n = chrom_pileup(reads, c, EXTSIZE)
            rows += len(s)
            pd.DataFrame({"c": c, "s": s, "e": e, "n": n}).to_csv(
                fh, sep="\t", header=False, index=False, lineterminator="\n")
            if bw is not None:
                bw.addEntries([c] * len(s), s.tolist(), ends=e.tolist(),
                              values=n.astype(np.float64).tolist())
    if bw is not None:
        bw.close()
    tmp.replace(out)
    return rows


def _bedgraph_to_bigwig(bdg: Path, bigwig: Path, sizes: dict) -> None:
    """A bigWig of the bedGraph ``bdg``'s rows, read a chromosome at a time (its
    chromosomes in the order of ``sizes``, the BAM header's, as its pileup wrote them);
    written to a temporary name, then renamed."""
    import numpy as np
    import pyBigWig

    from penlearn.peaks.formats._text_parse import parse_bedgraph_chromosomes

    tmp = bigwig.with_name(bigwig.name + ".tmp")
    bw = pyBigWig.open(str(tmp), "w")
    bw.addHeader([(c, int(n)) for c, n in sizes.items()])
    for c, _, (s, e, n) in parse_bedgraph_chromosomes(bdg):
        bw.addEntries([c] * len(s), s.astype(np.int64), ends=e.astype(np.int64),
                      values=n.astype(np.float64))
    bw.close()
    tmp.replace(bigwig)


def coverage(scale: float, bigwig: bool, report=print) -> tuple[Path, dict]:
    """The folder of the two samples' bedGraph files (and bigWig files), made once."""
    t_bam, c_bam = data(scale, False, report)
    folder = cache_dir() / f"peaks_genome_s{scale:g}"
    (folder / "bedGraph").mkdir(parents=True, exist_ok=True)
    rows = {}
    for name, bam in (("treatment", t_bam), ("control", c_bam)):
        bdg = folder / "bedGraph" / f"{name}.bedGraph"
        bw = folder / f"{name}.bw"
        if not bdg.exists():
            report(f"writing {bdg.name}{' and ' + bw.name if bigwig else ''}")
            _write_pileup(bam, bdg, bw if bigwig else None)
        elif bigwig and not bw.exists():
            from penlearn.peaks.formats.bam import bam_chrom_sizes

            report(f"writing {bw.name} of {bdg.name}")
            _bedgraph_to_bigwig(bdg, bw, bam_chrom_sizes(bam))
        with open(bdg, "rb") as fh:
            rows[name] = sum(1 for _ in fh)
    return folder, rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--cap-gb", type=float, default=8.0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--bigwig", action="store_true")
    p.add_argument("--runs", nargs="+", default=["peaks 1", "peaks 2", "joint 2"])
    p.add_argument("--keep", default=None, metavar="DIR",
                   help="run in DIR and keep the outputs there (default: a temporary folder)")
    args = p.parse_args(argv)
    if "peaks 1 bigWig" in args.runs:
        args.bigwig = True
    folder, rows = coverage(args.scale, args.bigwig)
    pl = [sys.executable, "-m", "penlearn.cli"]
    jobs = ["--jobs", str(args.jobs)] if args.jobs > 1 else []
    cov = folder / "bedGraph"
    table = []
    with tempfile.TemporaryDirectory() if args.keep is None else \
            contextlib.nullcontext(args.keep) as tmp:
        work = Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        runs = {
            "peaks 1": [*pl, "peaks", str(cov / "treatment.bedGraph"), "--out",
                        str(work / "t.bed"), *jobs],
            "peaks 2": [*pl, "peaks", str(cov), "--out", str(work / "peaks"), *jobs],
            "joint 2": [*pl, "joint", str(cov), "--peaks", str(work / "peaks"), "--out",
                        str(work / "joint"), *jobs],
            "peaks 1 bigWig": [*pl, "peaks", str(folder / "treatment.bw"), "--out",
                               str(work / "tbw.bed"), *jobs],
            "peaks 1 BAM": [*pl, "peaks", str(data(args.scale, False)[0]), "--out",
                            str(work / "tbam.bed"), *jobs],
        }
        wanted = list(dict.fromkeys([*args.runs, *(["peaks 1 bigWig"] if args.bigwig
                                                   else [])]))
        for name in wanted:
            v = timed(runs[name], work, args.cap_gb)
            out = {"peaks 1": work / "t.bed", "peaks 1 bigWig": work / "tbw.bed",
                   "peaks 1 BAM": work / "tbam.bed",
                   "joint 2": work / "joint" / "joint_peaks.bed"}.get(name)
            n = sum(1 for _ in open(out)) if out and out.exists() else None
            table.append({"run": name, "rows": None if name.endswith("BAM") else rows[
                "treatment"] * (2 if name.endswith("2") else 1), "wall s": v["wall"],
                "CPU s": v["cpu"],
                "max RSS MB": v["rss"], "peaks": n, "failed": v["failed"] or ""})
            print(table[-1], flush=True)
    md = markdown_table(table)
    print("\n".join(md))


if __name__ == "__main__":
    main()
