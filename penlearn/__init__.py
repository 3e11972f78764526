"""penlearn: supervised changepoint detection by learning penalties with AUM.

See ``SPEC.md`` §3 for the public API. Papers: Fowler & Hocking (2024), "Efficient line
search for optimizing Area Under the ROC Curve in gradient descent"; Hillman & Hocking
(2023), "Optimizing ROC curves with a sort-based surrogate loss for binary classification
and changepoint detection".
"""

from penlearn.aum import AUMResult, aum
from penlearn.breakpoints import Breakpoints, breakpoints_from_errors, breakpoints_from_labels
from penlearn.datasets import SimulatedDataSet, UCIDataSet, load_uci, simulate
from penlearn.report import roc_change_report
from penlearn.roc import ROCChange, breakpoints_auc, roc_change

__version__ = "0.1.0"

__all__ = [
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
]
