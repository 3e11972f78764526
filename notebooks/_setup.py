"""The first lines of the notebooks that read the real data (``from _setup import DATA``).

Display options for pandas, no tqdm warning without ipywidgets, and the data folder:
``$PENLEARN_DATA``, else the first ``shared/data`` folder found from the notebook's folder
upwards (``../shared/data`` seen from the repository root).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pandas as pd

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 20)
warnings.filterwarnings("ignore", message="IProgress not found")


def find_data_dir() -> Path:
    """$PENLEARN_DATA, else the first `shared/data` folder found from here upwards."""
    env = os.environ.get("PENLEARN_DATA")
    if env:
        return Path(env)
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "shared" / "data").is_dir():
            return folder / "shared" / "data"
    raise FileNotFoundError("no data folder: set PENLEARN_DATA to your copy of the data sets")


DATA = find_data_dir()
print("data folder:", DATA)
