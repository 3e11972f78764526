"""Supervised penalty tuning for ruptures and skchange detectors.

* :mod:`penlearn.tune.detectors` — one interface over their penalised detectors;
* :mod:`penlearn.tune.path` — the path of a detector's models over its penalty (CROPS,
  Haynes, Eckley & Fearnhead 2017, for exact detectors; a checked scan otherwise);
* :mod:`penlearn.tune.features` — built-in features of array signals (noise levels in
  the detector's own cost units among them), BIC-style penalty;
* :mod:`penlearn.tune.selection` — the CV fall-back between learned penalty functions
  and the best constant;
* :mod:`penlearn.tune.estimator` — :class:`SupervisedPenalty`, the meta-estimator.

Neither ruptures nor skchange is imported until a detector of theirs is used.
"""

from penlearn.tune.estimator import (
    SupervisedPenalty,
    detector_label_errors,
    path_error_functions,
)
from penlearn.tune.features import (
    bic_penalty,
    cost_features,
    noise_sd,
    signal_features,
    signals_from_sequences,
)
from penlearn.tune.path import DetectorPath, detector_path

__all__ = [
    "DetectorPath",
    "SupervisedPenalty",
    "bic_penalty",
    "cost_features",
    "detector_label_errors",
    "detector_path",
    "noise_sd",
    "path_error_functions",
    "signal_features",
    "signals_from_sequences",
]
