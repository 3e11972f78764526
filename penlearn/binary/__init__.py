"""Binary classification with the same machinery (AUM, ROC, exact line search).

- :mod:`~penlearn.binary.metrics`: ROC AUC, partial AUC, soft AUC of labels and scores;
- :mod:`~penlearn.binary.model`: :class:`BinaryLinearModel`, the one binary model type;
- :mod:`~penlearn.binary.aum_linear`: :func:`fit_aum_linear` (AUM gradient descent);
- :mod:`~penlearn.binary.baselines`, :mod:`~penlearn.binary.ranking`: logistic
  regression, all-pairs squared hinge, polynomial AUC and partial-AUC SVM baselines;
- :mod:`~penlearn.binary.polynomial_auc`: the polynomial approximation of AUC.
"""

from penlearn.binary.aum_linear import fit_aum_linear
from penlearn.binary.baselines import fit_logistic, fit_squared_hinge_pairs
from penlearn.binary.metrics import partial_auc, roc_auc, soft_auc
from penlearn.binary.model import BinaryLinearModel
from penlearn.binary.ranking import fit_polynomial_auc, fit_svm_pauc

__all__ = [
    "BinaryLinearModel",
    "fit_aum_linear",
    "fit_logistic",
    "fit_polynomial_auc",
    "fit_squared_hinge_pairs",
    "fit_svm_pauc",
    "partial_auc",
    "roc_auc",
    "soft_auc",
]
