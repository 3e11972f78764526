"""ChIP-seq peaks from coverage (SPEC §7).

Coverage I/O (bedGraph, bigWig, CSV), the PeakSeg up-down constrained Poisson peak model
(Hocking et al. 2020, JMLR; Hocking et al. 2022, JSS) and its exact path over penalties,
peak labels and their errors, peak error functions per (sample, window), coverage
features and peak prediction; the exact joint peak model of several samples in one window
(:mod:`penlearn.peaks.joint`, SPEC §8). Modules here import from
:mod:`penlearn.changepoint` (the shared functional-pruning core, model selection) and the
bottom layers, never the reverse.
"""
