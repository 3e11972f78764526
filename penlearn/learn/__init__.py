"""Learning penalties (pipeline stage 6).

- :mod:`~penlearn.learn.interval_regression`: L1 squared-hinge interval regression (the
  initialisation and a baseline);
- :mod:`~penlearn.learn.options`: every option of :func:`learn_penalty`, defined once
  (:class:`~penlearn.learn.options.LearnOptions`), and its one validator;
- :mod:`~penlearn.learn.penalty`: :func:`fit_penalty`, the functional core of
  :func:`learn_penalty`;
- :mod:`~penlearn.learn.model`: :class:`PenaltyModel` (thin estimator, JSON I/O);
  :mod:`~penlearn.learn.learner`: :func:`learn_penalty`;
- :mod:`~penlearn.learn.boosting`: AUM gradient boosting (trees, exact line search);
- :mod:`~penlearn.learn.level`: the level of log λ, set for validation label errors;
- :mod:`~penlearn.learn.groups`: validation holding out whole groups (genomic regions);
- :mod:`~penlearn.learn.shrink`: after descent, the mixture with a model that learns
  nothing (the constant) of largest validation AUC (``shrink=``);
- :mod:`~penlearn.learn.level_shift`: a handful of labels: a prior model's ranking, the
  level the labels say (``learn_penalty(prior=...)`` up to 20 labeled sequences);
- :mod:`~penlearn.learn.propose`: the windows worth labeling next (from paths and the
  labels so far, never an unlabeled window's errors);

The fitting machinery shared with :mod:`penlearn.binary` (the descent core, the
standardiser, model files) lives below, in :mod:`penlearn.fitting`.
"""

from penlearn.fitting.descent import LINE_SEARCHES
from penlearn.learn.interval_regression import IntervalRegression
from penlearn.learn.learner import learn_penalty
from penlearn.learn.model import PenaltyModel
from penlearn.learn.penalty import fit_penalty, subtrain_validation_split

__all__ = [
    "LINE_SEARCHES",
    "IntervalRegression",
    "PenaltyModel",
    "fit_penalty",
    "learn_penalty",
    "subtrain_validation_split",
]
