"""ChIP-seq peaks from coverage, in three rooms.

* :mod:`penlearn.peaks.formats` — files: coverage (bedGraph, bigWig, BAM, CSV), peak labels,
  BED / bedGraph / narrowPeak / bigWig writers, chromosome sizes, track hubs, and the one
  module that checks label and peak tables (:mod:`penlearn.peaks.formats.regions`).
* :mod:`penlearn.peaks.peakseg` — the single-sample model: PeakSeg, the up-down constrained
  Poisson peak model (Hocking et al. 2020, JMLR; Hocking et al. 2022, JSS), its exact path
  over penalties, peak label errors, peak error functions per (sample, window), coverage
  features, genome-scale prediction with resumable parts.
* :mod:`penlearn.peaks.joint` — the joint model of several samples in one window
  (PeakSegJoint; Hocking & Bourque 2020) and its pipeline: windows from single-sample peaks,
  joint models, their penalty learned from labels, the peaks × samples matrix.

Imports go ``joint`` → ``peakseg`` → ``formats`` (never the reverse); the rooms import
:mod:`penlearn.changepoint` (the shared functional-pruning core, model selection) and, for
the joint pipeline's penalty, :mod:`penlearn.learn`.
"""
