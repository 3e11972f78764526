"""ChIP-seq files: read coverage and labels, write peaks, segments and track hubs.

Readers never guess silently: a malformed line is named by file and line. Label and peak
tables are checked in one place, :mod:`penlearn.peaks.formats.regions`, which readers,
writers and the label errors share.
"""

from penlearn.peaks.formats.bam import read_bam
from penlearn.peaks.formats.bed import (
    read_bed,
    read_peak_labels,
    write_bed,
    write_bedgraph,
    write_bigwig,
)
from penlearn.peaks.formats.chrom_sizes import read_chrom_sizes, write_chrom_sizes
from penlearn.peaks.formats.coverage import (
    coverage_files,
    read_bedgraph,
    read_bigwig,
    read_coverage,
)
from penlearn.peaks.formats.hub import write_track_hub
from penlearn.peaks.formats.narrowpeak import (
    narrowpeak_table,
    write_broadpeak,
    write_narrowpeak,
    write_summits,
)
from penlearn.peaks.formats.peak_columns import peak_columns, summit_offsets, ucsc_scores
from penlearn.peaks.formats.peak_files import read_peak_files
from penlearn.peaks.formats.regions import (
    PEAK_ANNOTATIONS,
    check_peak_labels,
    check_peaks,
)

__all__ = [
    "PEAK_ANNOTATIONS", "check_peak_labels", "check_peaks", "coverage_files", "narrowpeak_table",
    "read_bam", "read_bed", "read_bedgraph", "read_bigwig", "read_chrom_sizes", "read_coverage",
    "peak_columns", "read_peak_files", "read_peak_labels", "summit_offsets", "ucsc_scores",
    "write_bed", "write_bedgraph", "write_bigwig", "write_broadpeak", "write_chrom_sizes",
    "write_narrowpeak", "write_summits", "write_track_hub",
]
