"""The first lines of the notebooks that read the real data (``from _setup import DATA``).

Display options for pandas, no tqdm warning without ipywidgets, the data folder:
``$PENLEARN_DATA``, else the first ``shared/data`` folder found from the notebook's folder
upwards (``../shared/data`` seen from the repository root), as
:func:`penlearn.datasets.locate.data_folder` finds it for the tests and benchmarks too;
and ``CACHE``, the ``cache=`` of the notebooks' ``peak_error_functions`` calls:
``$PENLEARN_CACHE_DIR`` when set (a rerun then reads each window's error functions back;
the test suite computes them once for its tests and notebooks there), else False (the
notebooks write no files).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pandas as pd

from penlearn.datasets.locate import data_folder

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
warnings.filterwarnings("ignore", message="IProgress not found")


def find_data_dir() -> Path:
    """$PENLEARN_DATA, else ``shared/data`` found from here upwards (as
    :func:`penlearn.datasets.locate.data_folder` finds it)."""
    folder = data_folder(Path.cwd())
    if not folder.is_dir():
        raise FileNotFoundError(f"no data folder ({folder}): set PENLEARN_DATA to your copy "
                                "of the data sets")
    return folder


DATA = find_data_dir()
CACHE = os.environ.get("PENLEARN_CACHE_DIR") or False
print("data folder:", DATA)
