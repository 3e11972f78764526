"""BAM coverage: seconds and memory of ``read_bam`` on a synthetic BAM (issue 31).

Writes a coordinate-sorted BAM of N single-end 50-base reads on one 50 Mb chromosome
(5 % spliced ``25M200N25M``, 5 % with a deletion ``20M3D30M``) into a temporary folder,
then times ``read_bam`` (the depth of ``bedtools genomecov -bg -split``) and, for
scale, ``read_bedgraph`` of the bedGraph it gives. Run:
``python benchmarks/bam_coverage.py [--reads N]``; prints a Markdown table.
"""

from __future__ import annotations

import argparse
import platform
import resource
import tempfile
import time
from pathlib import Path

import numpy as np


def write_bam(path: Path, n: int, seed: int = 0) -> None:
    import pysam

    rng = np.random.default_rng(seed)
    header = {"HD": {"VN": "1.6", "SO": "coordinate"},
              "SQ": [{"SN": "chr1", "LN": 50_000_000}]}
    starts = np.sort(rng.integers(0, 49_999_000, n))
    kind = rng.random(n)
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for i, s in enumerate(starts):
            a = pysam.AlignedSegment()
            a.query_name, a.reference_id, a.reference_start = f"r{i}", 0, int(s)
            a.mapping_quality = 30
            a.cigarstring = "25M200N25M" if kind[i] < 0.05 else (
                "20M3D30M" if kind[i] < 0.10 else "50M")
            a.query_sequence = "A" * 50
            out.write(a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reads", type=int, default=1_000_000)
    args = parser.parse_args()
    from penlearn.peaks.formats.bam import read_bam
    from penlearn.peaks.formats.bed import write_bedgraph
    from penlearn.peaks.formats.coverage import read_bedgraph

    with tempfile.TemporaryDirectory() as d:
        bam = Path(d) / "reads.bam"
        t = time.perf_counter()
        write_bam(bam, args.reads)
        t_write = time.perf_counter() - t
        t = time.perf_counter()
        cov = read_bam(bam)
        t_bam = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        bg = Path(d) / "reads.bedGraph"
        write_bedgraph(cov, bg, value="count")
        read_bedgraph(bg)  # compile the parser first
        t = time.perf_counter()
        read_bedgraph(bg)
        t_bg = time.perf_counter() - t
        size = bam.stat().st_size / 1e6
    print(f"{platform.machine()}, Python {platform.python_version()}; BAM written in "
          f"{t_write:.1f} s ({size:.1f} MB)\n")
    print("| reads | bedGraph rows | read_bam s | µs per read | read_bedgraph s (same rows) "
          "| max RSS MB |")
    print("|---|---|---|---|---|---|")
    print(f"| {args.reads:,} | {len(cov):,} | {t_bam:.2f} | {1e6 * t_bam / args.reads:.2f} "
          f"| {t_bg:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
