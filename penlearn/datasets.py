"""Data sets: the UCI / neuroblastoma-data folder format, and a simulator.

The UCI "chipseq" data and the neuroblastoma benchmark come as folders with
``inputs.csv`` (features per ``sequenceID``), ``outputs.csv`` (target intervals of
log λ), ``evaluation.csv`` (error functions) and ``cv/<type>/folds.csv``, each possibly
compressed (``.gz``, ``.xz``). :func:`load_uci` reads such a folder into DataFrames with
penlearn's snake_case column names (SPEC §2, §6). No third-party data ships with
penlearn; point :func:`load_uci` at your copy (see ``data/README.md``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

#: Column renames applied to every structural (non-feature) table.
_RENAME = {
    "sequenceID": "sequence_id",
    "labelStart": "start",
    "labelEnd": "end",
}

_SUFFIXES = (".csv", ".csv.gz", ".csv.xz", ".csv.bz2")


def snake_case(name: str) -> str:
    """Map an R-style column name to penlearn's snake_case.

    Examples
    --------
    >>> snake_case("min.log.lambda"), snake_case("sequenceID"), snake_case("n.segments")
    ('min_log_lambda', 'sequence_id', 'n_segments')
    """
    if name in _RENAME:
        return _RENAME[name]
    name = name.replace(".", "_")
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return name.lower()


def snake_case_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Return ``df`` with every column renamed by :func:`snake_case`."""
    return df.rename(columns={c: snake_case(c) for c in df.columns})


def default_data_dir() -> Path:
    """Where the real data sets are: ``$PENLEARN_DATA``, else ``../shared/data``.

    Examples
    --------
    >>> isinstance(default_data_dir(), Path)
    True
    """
    env = os.environ.get("PENLEARN_DATA")
    if env:
        return Path(env)
    return Path.cwd().parent / "shared" / "data"


def _find(folder: Path, stem: str) -> Path | None:
    for suf in _SUFFIXES:
        p = folder / (stem + suf)
        if p.exists():
            return p
    return None


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, na_values=["NA"], keep_default_na=True)
    except Exception as exc:  # pandas raises many kinds; name the file
        raise ValueError(f"could not read {path}: {exc}") from exc


@dataclass
class UCIDataSet:
    """A labeled data set in the UCI / neuroblastoma-data format.

    Attributes
    ----------
    name : str
        Folder name.
    path : Path
        The folder.
    inputs : DataFrame or None
        Features, indexed by ``sequence_id`` (feature names kept verbatim, e.g.
        ``log+1.mean``); None when the folder has no inputs file.
    outputs : DataFrame or None
        Target intervals ``sequence_id, min_log_lambda, max_log_lambda``.
    evaluation : DataFrame
        Error functions ``sequence_id, min_log_lambda, max_log_lambda, possible_fp, fp,
        possible_fn, fn, labels, errors``.
    folds : dict of str to DataFrame
        ``cv/<type>/folds``: per CV type a table ``sequence_id, fold``.
    extra : dict of str to DataFrame
        Other tables found (``labels``, ``errors``), snake_case columns.
    """

    name: str
    path: Path
    inputs: pd.DataFrame | None
    outputs: pd.DataFrame | None
    evaluation: pd.DataFrame
    folds: dict[str, pd.DataFrame] = field(default_factory=dict)
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def sequence_ids(self) -> pd.Index:
        """Sequence ids of the evaluation table, in order of first appearance."""
        return pd.Index(pd.unique(self.evaluation["sequence_id"]))

    def __repr__(self) -> str:
        n_in = None if self.inputs is None else self.inputs.shape
        return (
            f"UCIDataSet({self.name!r}, sequences={len(self.sequence_ids)}, inputs={n_in}, "
            f"evaluation_rows={len(self.evaluation)}, cv={sorted(self.folds)})"
        )


def load_uci(path: str | os.PathLike) -> UCIDataSet:
    """Read a data set folder in the UCI / neuroblastoma-data format.

    Parameters
    ----------
    path : str or PathLike
        Folder holding ``evaluation.csv`` and usually ``inputs.csv``, ``outputs.csv``
        and ``cv/<type>/folds.csv``; each may be ``.csv``, ``.csv.gz`` or ``.csv.xz``.

    Returns
    -------
    UCIDataSet

    Raises
    ------
    FileNotFoundError
        If the folder or its evaluation file is missing.
    ValueError
        If a file lacks its required columns or cannot be parsed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "evaluation.csv").write_text(
    ...     "sequenceID,min.log.lambda,max.log.lambda,possible.fp,fp,possible.fn,fn,"
    ...     "labels,errors\\na,-Inf,0,1,1,1,0,2,1\\na,0,Inf,1,0,1,1,2,1\\n")
    >>> ds = load_uci(d)
    >>> list(ds.evaluation.columns[:3])
    ['sequence_id', 'min_log_lambda', 'max_log_lambda']
    """
    from penlearn.errors import check_evaluation, require_columns

    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"data set folder not found: {folder}")
    ev_path = _find(folder, "evaluation")
    if ev_path is None:
        raise FileNotFoundError(f"{folder} has no evaluation.csv(.gz|.xz)")
    evaluation = snake_case_columns(_read_csv(ev_path))
    check_evaluation(evaluation, name=f"{ev_path.name}")

    inputs = None
    in_path = _find(folder, "inputs")
    if in_path is not None:
        raw = _read_csv(in_path)
        if "sequenceID" not in raw.columns and "sequence_id" not in raw.columns:
            raise ValueError(f"{in_path} has no sequenceID column")
        raw = raw.rename(columns={"sequenceID": "sequence_id"})
        inputs = raw.set_index("sequence_id")
        non_numeric = [c for c in inputs.columns if not pd.api.types.is_numeric_dtype(inputs[c])]
        if non_numeric:
            raise ValueError(f"{in_path}: feature column(s) {non_numeric[:5]} are not numeric")
        inputs = inputs.astype(float)

    outputs = None
    out_path = _find(folder, "outputs")
    if out_path is not None:
        outputs = snake_case_columns(_read_csv(out_path))
        outputs = outputs.rename(
            columns={"min_log_penalty": "min_log_lambda", "max_log_penalty": "max_log_lambda"}
        )
        require_columns(outputs, ["sequence_id", "min_log_lambda", "max_log_lambda"], out_path.name)

    folds: dict[str, pd.DataFrame] = {}
    cv_dir = folder / "cv"
    if cv_dir.is_dir():
        for sub in sorted(p for p in cv_dir.iterdir() if p.is_dir()):
            f = _find(sub, "folds")
            if f is not None:
                table = snake_case_columns(_read_csv(f))
                require_columns(table, ["sequence_id", "fold"], str(f))
                folds[sub.name] = table

    extra = {}
    for stem in ("labels", "errors"):
        p = _find(folder, stem)
        if p is not None:
            extra[stem] = snake_case_columns(_read_csv(p))
    return UCIDataSet(folder.name, folder, inputs, outputs, evaluation, folds, extra)


def finite_feature_columns(inputs: pd.DataFrame, drop_constant: bool = True) -> list[str]:
    """Names of the feature columns usable for a linear model.

    A column is kept when it is finite for every row and, with ``drop_constant``, not
    constant (standardising a constant column divides by a zero standard deviation).
    This is the paper's rule: R's ``scale()`` then keep the all-finite columns, which
    leaves 26 of the 36 features of H3K4me3_TDH_immune.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> finite_feature_columns(pd.DataFrame({"a": [1.0, 2.0], "b": [np.inf, 0.0],
    ...                                      "c": [3.0, 3.0]}))
    ['a']
    """
    arr = inputs.to_numpy(dtype=float)
    ok = np.isfinite(arr).all(axis=0)
    if drop_constant and len(arr) > 0:
        with np.errstate(invalid="ignore"):
            ok &= np.nanmax(np.where(np.isfinite(arr), arr, np.nan), axis=0, initial=-np.inf) > \
                np.nanmin(np.where(np.isfinite(arr), arr, np.nan), axis=0, initial=np.inf)
    return [c for c, k in zip(inputs.columns, ok) if k]
