"""The single-sample peak model, PeakSeg, from coverage to predicted peaks.

The up-down constrained Poisson model solved exactly by functional pruning (Hocking et al.
2020, JMLR; Hocking et al. 2022, JSS), its exact path over penalties and the search for a
peak count, peak label errors (Hocking et al. 2017, Bioinformatics), the peak error
functions per (sample, window) that penalty learning starts from, coverage features, and
genome-scale prediction with resumable parts, and broad domains as one call (``--broad``).
"""

from penlearn.peaks.peakseg.broad import broad_segments, link_peaks, predict_broad
from penlearn.peaks.peakseg.calls import peak_calls, reported_segments
from penlearn.peaks.peakseg.contigs import fill_gaps
from penlearn.peaks.peakseg.evaluation import (
    evaluation_bounds,
    peak_error_functions,
    predict_peaks,
)
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.peakseg.labels import PeakLabelErrors, peak_label_errors
from penlearn.peaks.peakseg.search import PeakSegSearch, peakseg_search
from penlearn.peaks.peakseg.solver import PeakSegModel, PeakSegPath, peakseg, peakseg_path

__all__ = [
    "PeakLabelErrors", "PeakSegModel", "PeakSegPath", "PeakSegSearch", "broad_segments",
    "coverage_features", "evaluation_bounds", "fill_gaps", "link_peaks", "peak_calls",
    "peak_error_functions", "peak_label_errors", "peakseg", "peakseg_path", "peakseg_search",
    "predict_broad", "predict_peaks", "reported_segments",
]
