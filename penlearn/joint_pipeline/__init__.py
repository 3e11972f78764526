"""Joint peaks of many samples: windows from single-sample peaks, the joint model of each
window, its penalty learned from labels, and the peaks × samples matrix (SPEC §8).

The PeakSegPipeline workflow (Hocking & Bourque, PSB 2020) on penlearn's exact joint model
(:func:`penlearn.joint_peak`): :func:`joint_peaks` runs it in one call;
``penlearn joint`` is its command line. It sits above :mod:`penlearn.peaks` (windows, joint
models, label errors) and :mod:`penlearn.learn` (the penalty).
"""

from penlearn.joint_pipeline.pipeline import (
    MIN_LEARN_WINDOWS,
    JointPeaks,
    joint_features,
    joint_peaks,
    label_error_comparison,
    learn_joint_penalty,
    min_error_log_lambda,
)

__all__ = ["MIN_LEARN_WINDOWS", "JointPeaks", "joint_features", "joint_peaks",
           "label_error_comparison", "learn_joint_penalty", "min_error_log_lambda"]
