"""penlearn: supervised changepoint detection by learning penalties with AUM.

The pipeline, one subpackage per part: :mod:`penlearn.changepoint` (segmentations,
penalty paths, label errors, error functions, features), :mod:`penlearn.peaks` (ChIP-seq
coverage, the PeakSeg peak model, peak labels), :mod:`penlearn.aum` and
:mod:`penlearn.roc` (metrics), :mod:`penlearn.line_search` (the exact AUM line search),
:mod:`penlearn.learn` (penalty learning), :mod:`penlearn.binary` (the same machinery for
binary classification), :mod:`penlearn.datasets`, :mod:`penlearn.report`,
:mod:`penlearn.tune` (supervised penalties for ruptures and skchange detectors). Papers:
Fowler & Hocking (2024), "Efficient line search for optimizing Area Under the ROC Curve
in gradient descent"; Hillman & Hocking (2023), "Optimizing ROC curves with a sort-based
surrogate loss for binary classification and changepoint detection".
"""

# first: a Ctrl-C of the command during the imports below prints one line, not a traceback
from penlearn import _interrupt  # noqa: F401, I001
from penlearn import _numba_cache  # noqa: F401, I001  (a writable numba cache, first)
from penlearn._version import package_version
from penlearn.aum import AUMResult, aum
from penlearn.binary import (
    BinaryLinearModel,
    fit_aum_linear,
    fit_logistic,
    fit_polynomial_auc,
    fit_squared_hinge_pairs,
    fit_svm_pauc,
    partial_auc,
    roc_auc,
    soft_auc,
)
from penlearn.breakpoints import Breakpoints, breakpoints_from_errors, breakpoints_from_labels
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.formats.bed import (
    read_bed,
    read_peak_labels,
    write_bed,
    write_bedgraph,
    write_bigwig,
)
from penlearn.peaks.formats.coverage import read_bedgraph, read_bigwig, read_coverage
from penlearn.peaks.formats.bam import read_bam
from penlearn.peaks.formats.chrom_sizes import read_chrom_sizes
from penlearn.peaks.formats.hub import write_track_hub
from penlearn.peaks.formats.narrowpeak import (
    narrowpeak_table,
    write_broadpeak,
    write_narrowpeak,
    write_summits,
)
from penlearn.peaks.formats.peak_columns import ucsc_scores
from penlearn.peaks.formats.peak_files import read_peak_files
from penlearn.changepoint.evaluation import error_functions, target_intervals
from penlearn.changepoint.features import feature_matrix, feature_vector
from penlearn.changepoint.labels import ANNOTATIONS, LabelErrors, check_labels, label_errors
from penlearn.changepoint.model_selection import model_selection
from penlearn.peaks.peakseg.contigs import fill_gaps
from penlearn.peaks.propose import propose_windows
from penlearn.peaks.pretrained import ZeroLabelModel, shipped_model
from penlearn.peaks.joint.solver import JointPeakFit, joint_peak
from penlearn.peaks.joint.windows import joint_windows
from penlearn.peaks.joint.pipeline import JointPeaks, joint_peaks
from penlearn.peaks.peakseg.calls import peak_calls, reported_segments
from penlearn.peaks.peakseg.evaluation import evaluation_bounds, peak_error_functions, predict_peaks
from penlearn.peaks.peakseg.labels import PeakLabelErrors, peak_label_errors
from penlearn.peaks.peakseg.solver import PeakSegModel, PeakSegPath, peakseg, peakseg_path
from penlearn.peaks.peakseg.search import PeakSegSearch, peakseg_search
from penlearn.changepoint.segmentation import (
    PenalizedSegmentation,
    Segmentation,
    SequenceSegmentations,
    segment,
    segment_sequences,
)
from penlearn.datasets import SimulatedDataSet, UCIDataSet, load_uci, simulate
from penlearn.learn import (
    IntervalRegression,
    PenaltyModel,
    learn_penalty,
    subtrain_validation_split,
)
from penlearn.line_search import (
    FirstMinResult,
    LineSearchResult,
    first_min_monotone,
    grid_search,
    line_search,
    line_search_linear,
    line_search_lines,
)
from penlearn.report import roc_change_report
from penlearn.label import LabelPage, label_page
from penlearn.tune import SupervisedPenalty, detector_path
from penlearn.roc import ROCChange, breakpoints_auc, changepoint_auc, roc_change

__version__ = package_version()

__all__ = [
    "shipped_model",
    "ZeroLabelModel",
    "LabelPage",
    "label_page",
    "SupervisedPenalty",
    "detector_path",
    "predict_peaks",
    "propose_windows",
    "PenalizedSegmentation",
    "PeakSegModel",
    "PeakSegPath",
    "PeakSegSearch",
    "peak_error_functions",
    "peakseg",
    "peakseg_path",
    "evaluation_bounds",
    "fill_gaps",
    "peakseg_search",
    "JointPeakFit",
    "joint_peak",
    "joint_peaks",
    "JointPeaks",
    "joint_windows",
    "read_peak_files",
    "PeakLabelErrors",
    "coverage_features",
    "peak_label_errors",
    "read_bed",
    "read_bedgraph",
    "read_bigwig",
    "read_coverage",
    "read_bam",
    "read_chrom_sizes",
    "write_track_hub",
    "narrowpeak_table",
    "write_narrowpeak",
    "write_broadpeak",
    "write_summits",
    "ucsc_scores",
    "peak_calls",
    "reported_segments",
    "read_peak_labels",
    "write_bed",
    "write_bedgraph",
    "write_bigwig",
    "FirstMinResult",
    "first_min_monotone",
    "IntervalRegression",
    "PenaltyModel",
    "changepoint_auc",
    "fit_aum_linear",
    "learn_penalty",
    "subtrain_validation_split",
    "AUMResult",
    "Breakpoints",
    "aum",
    "breakpoints_from_errors",
    "breakpoints_from_labels",
    "load_uci",
    "roc_change",
    "ROCChange",
    "breakpoints_auc",
    "UCIDataSet",
    "SimulatedDataSet",
    "simulate",
    "roc_change_report",
    "segment",
    "segment_sequences",
    "Segmentation",
    "SequenceSegmentations",
    "model_selection",
    "label_errors",
    "LabelErrors",
    "check_labels",
    "ANNOTATIONS",
    "error_functions",
    "target_intervals",
    "feature_matrix",
    "feature_vector",
    "LineSearchResult",
    "grid_search",
    "line_search",
    "line_search_linear",
    "line_search_lines",
    "BinaryLinearModel",
    "fit_logistic",
    "fit_squared_hinge_pairs",
    "fit_polynomial_auc",
    "fit_svm_pauc",
    "roc_auc",
    "partial_auc",
    "soft_auc",
]
