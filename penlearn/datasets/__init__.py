"""Data sets: the UCI / neuroblastoma-data folder format, ChIP-seq coverage + label
folders, and a simulator.

The UCI "chipseq" data and the neuroblastoma benchmark come as folders with
``inputs.csv`` (features per ``sequenceID``), ``outputs.csv`` (target intervals of
log λ), ``evaluation.csv`` (error functions) and ``cv/<type>/folds.csv``
(:mod:`~penlearn.datasets.uci`); a folder of coverage and peak labels is computed into
the same tables (:mod:`~penlearn.datasets.peaks`); :func:`simulate` makes the built-in
default data set (:mod:`~penlearn.datasets.simulate`). No third-party data ships with
penlearn; point the loaders at your copy (see ``data/README.md``).
"""

from penlearn.datasets.peaks import is_peak_folder, load_data, load_peak_folder
from penlearn.datasets.simulate import SimulatedDataSet, binary_timing_problem, simulate
from penlearn.datasets.uci import (
    SETTINGS_FILE,
    UCIDataSet,
    _find,
    _read_csv,
    assign_folds,
    data_dir,
    finite_feature_columns,
    load_uci,
    read_inputs,
    read_predictions,
    read_table,
    snake_case,
    snake_case_columns,
    uci_names,
    write_uci,
)

__all__ = ["SETTINGS_FILE", "SimulatedDataSet", "UCIDataSet", "assign_folds",
           "binary_timing_problem", "data_dir", "finite_feature_columns", "is_peak_folder",
           "load_data", "load_peak_folder", "load_uci", "read_inputs", "read_predictions",
           "read_table", "simulate", "snake_case", "snake_case_columns", "uci_names",
           "write_uci"]
_PRIVATE = (_find, _read_csv)  # re-exported for the command line and tests
