"""Fitting machinery shared by the learners, below :mod:`penlearn.learn` and :mod:`penlearn.binary`.

- :mod:`~penlearn.fitting.descent`: the AUM gradient-descent core (a plain function);
- :mod:`~penlearn.fitting.scaling`: the one feature standardiser and the map of
  standardised weights back to the original scale;
- :mod:`~penlearn.fitting.model_file`: the validated model-file reader and writer (and the
  segmentation settings a penalty model records).
"""

from penlearn.fitting.descent import LINE_SEARCHES, SELECTIONS, descend
from penlearn.fitting.model_file import read_model_file, write_model_file
from penlearn.fitting.scaling import FeatureScaling, standardize_features

__all__ = [
    "LINE_SEARCHES",
    "SELECTIONS",
    "FeatureScaling",
    "descend",
    "read_model_file",
    "standardize_features",
    "write_model_file",
]
