"""Joint peaks of several samples: the model of one window and the pipeline around it.

:func:`joint_peak` solves the joint model of one window (PeakSegJoint; Hocking & Bourque
2020, PSB); :func:`joint_windows` makes the windows from single-sample peaks;
:func:`joint_peaks` runs the PeakSegPipeline workflow (windows → joint models → a penalty
learned from labels → the peaks × samples matrix) in one call, ``penlearn joint`` on the
command line.
"""

from penlearn.peaks.joint.pipeline import (
    MIN_LEARN_WINDOWS,
    JointPeaks,
    joint_features,
    joint_peaks,
    label_error_comparison,
    learn_joint_penalty,
    min_error_log_lambda,
)
from penlearn.peaks.joint.solver import JointPeakFit, joint_peak
from penlearn.peaks.joint.windows import joint_windows

__all__ = [
    "MIN_LEARN_WINDOWS", "JointPeakFit", "JointPeaks", "joint_features", "joint_peak",
    "joint_peaks", "joint_windows", "label_error_comparison", "learn_joint_penalty",
    "min_error_log_lambda",
]
