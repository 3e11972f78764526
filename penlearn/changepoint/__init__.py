"""Changepoint models and their label errors (pipeline stages 1–4).

Segmentation (optimal models with 1..K segments), the exact model-selection path over
penalties, label errors of every model, the evaluation table of error functions, target
intervals and sequence features. Modules here import only from :mod:`penlearn._checks`,
:mod:`penlearn.atomic_files`, :mod:`penlearn.breakpoints` and each other.
"""
