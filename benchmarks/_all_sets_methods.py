"""The methods ``all_sets.py`` measures: its baselines, the ``learn_penalty`` learners and
variants, the published figures it compares with, and the groups of them its tables and
figure use (a configuration table only; ``all_sets.py`` runs and reports them)."""

from __future__ import annotations

BASELINES = ["unsupervised", "constant", "interval_regression", "aft_xgboost"]
GROUPS = "<region of each training sequence>"  # a LEARNERS value replaced by the groups
# a LEARNERS value replaced by the zero-label model learned without the set (``penlearn
# pretrain --exclude SET``: nothing of the held-out set); None on a set without the
# ChIP-seq coverage features
PRIOR = "<the pretrained model, this set left out>"
# learn_penalty fit on all training sequences, as a user calls it (name -> keyword
# arguments); add a learner here (and to MAIN to run it by default)
LEARNERS: dict[str, dict] = {
    "default": {},
    # issue 25: the model classes of learn_penalty (the default is "boosting"); the linear
    # model with the split and level of before issue 25 (alternate ids, subtrain shift)
    "boosting": {"model": "boosting"},
    "linear_model": {"model": "linear"},
    "linear_paper_level": {"model": "linear", "groups": None, "level": "subtrain"},
    # issue 32: the default is model="auto" (CV over regions, cv_rule "1se-auc"); the
    # classic one-SE rule (the simplest of the tied candidates); the constant as a model
    "auto": {"model": "auto"},
    "auto_1se": {"model": "auto", "cv_rule": "1se"},
    "auto_cv2": {"model": "auto", "cv_folds": 2},  # cheaper: 2-fold CV
    "constant_model": {"model": "constant"},
    # issue 36: the default with the zero-label model learned without the set as a prior
    # (with <= 100 labeled sequences it takes the constant's place; penlearn.learn.prior)
    "default_prior": {"prior": PRIOR},
    "default_ir5": {"model": "linear", "ir_repeats": 5},
}
# a learner's model predicting with clip=True (name -> the learner)
CLIPPED: dict[str, str] = {"linear_model_clip": "linear_model",
                           "default_ir5_clip": "default_ir5"}
# the model each learner starts from (the same model class without AUM descent/boosting):
# the goal "the AUM learning itself pays" compares the two (boosting starts from the
# constant: stage 0)
START: dict[str, str] = {"boosting": "constant",
                         "linear_model": "interval_regression"}
VARIANTS = ["first_min", "linear", "quadratic", "max_auc", "grid"]
# other learn_penalty options measured against the default (name -> keyword arguments),
# each warm-started from the same interval-regression fit as the variants
# ("BIC" stands for the set's unsupervised column)
CANDIDATES: dict[str, dict] = {
    "paper_rule_valid_aum": {"select": "validation_aum", "min_improvement": 0.0, "l2": 0.0,
                             "shrink": False},
    "l2_only": {"l2": 0.1, "min_improvement": 0.0, "shrink": False},
    "min_improvement_only": {"l2": 0.0, "min_improvement": 0.01, "shrink": False},
    "previous_default": {"l2": 0.1, "min_improvement": 0.01, "shrink": False},
    "shrink_only": {"max_steps": 0, "shrink": True},
    "shrink_to_bic": {"shrink": "BIC"},
}
# The best published test label errors (%) per set on the sets' own folds (ChIP-seq
# `equal_labels`; neuroblastoma `profileID`), published predictions rescored with the rules
# of this script (issue 32): neuroblastoma-data / feature-learning-benchmark /
# aftXgboostPaper baselines, rescored. Only for `--folds given`.
PUBLISHED: dict[str, tuple[float, str]] = {
    "CTCF_TDH_ENCODE": (8.0, "AFT-XGBoost (logistic)"),
    "H3K27ac-H3K4me3_TDHAM_BP": (10.3, "AFT-XGBoost (logistic)"),
    "H3K36me3_AM_immune": (5.6, "AFT-XGBoost (logistic)"),
    "H3K27me3_RL_cancer": (31.7, "multi-task interval regression"),
    "H3K36me3_TDH_ENCODE": (25.2, "AFT-XGBoost (normal)"),
    "H3K4me3_PGP_immune": (22.8, "unregularised linear, 2 features"),
    "H3K4me3_TDH_immune": (18.0, "unregularised linear, 2 features"),
    "H3K36me3_TDH_immune": (3.6, "unregularised linear, 2 features"),
    "systematic": (1.9, "L1 interval regression"),
    "neuroblastoma_detailed": (4.5, "L1 interval regression"),
}
PUBLISHED_SOURCE = ("neuroblastoma-data / feature-learning-benchmark / aftXgboostPaper "
                    "baselines, rescored")
# the methods of the table an oracle picks from per set ("best of the table per set")
TABLE = ["constant", "interval_regression", "aft_xgboost", "linear_model", "boosting"]
METHODS = BASELINES + list(LEARNERS) + list(CLIPPED) + VARIANTS + list(CANDIDATES)
# run by default, drawn large in the figure
MAIN = ["unsupervised", "constant", "interval_regression", "aft_xgboost", "first_min",
        "linear_model", "default"]
