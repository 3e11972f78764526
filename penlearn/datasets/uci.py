"""The UCI / neuroblastoma-data folder format: reading and writing.

The UCI "chipseq" data and the neuroblastoma benchmark come as folders with
``inputs.csv`` (features per ``sequenceID``), ``outputs.csv`` (target intervals of
log λ), ``evaluation.csv`` (error functions) and ``cv/<type>/folds.csv``, each possibly
compressed (``.gz``, ``.xz``). :func:`load_uci` reads such a folder into DataFrames with
penlearn's snake_case column names. No third-party data ships with
penlearn; point :func:`load_uci` at your copy (see ``data/README.md``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_evaluation, require_columns
from penlearn._repr import compact_repr
from penlearn._tables import (
    _features_table,
    _find,
    _read_csv,
    assign_folds,
    numeric_column,
    read_inputs,
    read_predictions,
    read_table,
)
from penlearn.fitting.scaling import standardize_features

__all__ = ["SETTINGS_FILE", "UCIDataSet", "assign_folds", "data_dir",
           "finite_feature_columns", "load_uci", "read_inputs", "read_predictions",
           "read_table", "snake_case", "snake_case_columns", "uci_names", "write_uci"]

#: Column renames applied to every structural (non-feature) table.
_RENAME = {
    "sequenceID": "sequence_id",
    "labelStart": "start",
    "labelEnd": "end",
}

#: The file of a UCI-format folder that records how ``penlearn segment`` made it.
SETTINGS_FILE = "segment.json"


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
    """Return ``df`` with every column renamed by :func:`snake_case`.

    Examples
    --------
    >>> list(snake_case_columns(pd.DataFrame(columns=["sequenceID", "min.log.lambda"])).columns)
    ['sequence_id', 'min_log_lambda']
    """
    return df.rename(columns={c: snake_case(c) for c in df.columns})


def data_dir(path: str | os.PathLike | None = None) -> Path:
    """The folder of the real data sets: ``path`` if given, else ``$PENLEARN_DATA``.

    The library ships no data and guesses no location; benchmarks and tests pass the
    folder (or set ``PENLEARN_DATA``).

    Raises
    ------
    ValueError
        When neither is given.

    Examples
    --------
    >>> data_dir("/data/penlearn")
    PosixPath('/data/penlearn')
    """
    if path is not None:
        return Path(path)
    env = os.environ.get("PENLEARN_DATA")
    if env:
        return Path(env)
    raise ValueError("no data folder: pass one or set the PENLEARN_DATA environment variable")


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
    segmentation : dict or None
        How the models were made (``loss``, ``max_segments``, ``feature_set``), from the
        folder's ``segment.json`` (written by ``penlearn segment``); None without it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "evaluation.csv").write_text(
    ...     "sequenceID,min.log.lambda,max.log.lambda,possible.fp,fp,possible.fn,fn,"
    ...     "labels,errors\\na,-Inf,0,1,1,1,0,2,1\\na,0,Inf,1,0,1,1,2,1\\n")
    >>> ds = load_uci(d)
    >>> list(ds.sequence_ids), ds.inputs is None
    (['a'], True)
    """

    name: str
    path: Path
    inputs: pd.DataFrame | None
    outputs: pd.DataFrame | None
    evaluation: pd.DataFrame
    folds: dict[str, pd.DataFrame] = field(default_factory=dict)
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)
    segmentation: dict | None = None

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
        If a file lacks its required columns, repeats a sequence in inputs, has more
        errors than possible (``fp > possible_fp``) or cannot be parsed.

    Notes
    -----
    Sequence ids are read as strings in every file (``0001`` stays ``0001``; ``1`` and
    ``1.0`` are two sequences). Gzip data is recognised whatever the file name.

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

    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"data set folder not found: {folder}")
    ev_path = _find(folder, "evaluation")
    if ev_path is None:
        raise FileNotFoundError(f"{folder} has no evaluation.csv(.gz|.xz)")
    evaluation = snake_case_columns(_read_csv(ev_path, ["sequenceID"], whole_rows=True))
    check_evaluation(evaluation, name=f"{ev_path.name}")

    inputs = None
    in_path = _find(folder, "inputs")
    if in_path is not None:
        inputs = _features_table(_read_csv(in_path, ["sequenceID"], whole_rows=True),
                                 in_path)

    outputs = None
    out_path = _find(folder, "outputs")
    if out_path is not None:
        outputs = snake_case_columns(_read_csv(out_path, ["sequenceID"]))
        outputs = outputs.rename(
            columns={"min_log_penalty": "min_log_lambda", "max_log_penalty": "max_log_lambda"}
        )
        require_columns(outputs, ["sequence_id", "min_log_lambda", "max_log_lambda"], out_path.name)
        for col in ("min_log_lambda", "max_log_lambda"):
            outputs[col] = numeric_column(outputs, col, str(out_path))

    folds: dict[str, pd.DataFrame] = {}
    cv_dir = folder / "cv"
    if cv_dir.is_dir():
        for sub in sorted(p for p in cv_dir.iterdir() if p.is_dir()):
            f = _find(sub, "folds")
            if f is not None:
                table = snake_case_columns(_read_csv(f, ["sequenceID"]))
                require_columns(table, ["sequence_id", "fold"], str(f))
                folds[sub.name] = table

    extra = {}
    for stem in ("labels", "errors"):
        p = _find(folder, stem)
        if p is not None:
            extra[stem] = snake_case_columns(_read_csv(p))
    settings = None
    if (folder / SETTINGS_FILE).is_file():
        try:
            settings = json.loads((folder / SETTINGS_FILE).read_text())
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{folder / SETTINGS_FILE} is not valid JSON: {exc}") from exc
        if not isinstance(settings, dict):
            raise ValueError(f"{folder / SETTINGS_FILE} must hold a JSON object")
    return UCIDataSet(folder.name, folder, inputs, outputs, evaluation, folds, extra,
                      settings)


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
    if drop_constant:

        try:
            return list(standardize_features(inputs).columns)
        except ValueError:  # no usable column at all
            return []
    ok = np.isfinite(inputs.to_numpy(dtype=float)).all(axis=0)
    return [c for c, k in zip(inputs.columns, ok) if k]


# --------------------------------------------------------------------------- writing


def _to_csv(df: pd.DataFrame, path: Path, *, index: bool = False) -> None:
    df.to_csv(path, index=index)


def _r_infinities(df: pd.DataFrame) -> pd.DataFrame:
    """Write ±inf as R does ("Inf", "-Inf"), so that R reads the files too."""
    out = df.copy()
    for c in out.columns:
        if pd.api.types.is_float_dtype(out[c]) and np.isinf(out[c].to_numpy()).any():
            v = out[c].to_numpy()
            out[c] = np.where(v == np.inf, "Inf", np.where(v == -np.inf, "-Inf", v.astype(str)))
    return out


def uci_names(df: pd.DataFrame) -> pd.DataFrame:
    """snake_case -> the UCI / neuroblastoma-data dotted names (and R's infinities)."""
    return _r_infinities(
        df.rename(columns=lambda c: "sequenceID" if c == "sequence_id" else c.replace("_", "."))
    )


def write_uci(folder: Path, *, evaluation, targets, features, folds=None,
              segmentation: dict | None = None) -> None:
    """Write the tables of a UCI-format folder (what :func:`load_uci` reads).

    ``evaluation.csv``, ``outputs.csv`` (targets), ``inputs.csv`` (features indexed by
    sequence id), with ``folds=(cv_type, table)`` ``cv/<cv_type>/folds.csv``, and with
    ``segmentation`` (a dict: ``loss``, ``max_segments``, ...) ``segment.json``; dotted
    column names and R's ``Inf``/``-Inf``, so that R reads them too. The caller stages
    the folder (:func:`penlearn.atomic_files.staged_dir`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> ev = pd.DataFrame({"sequence_id": ["a"], "min_log_lambda": [-np.inf],
    ...     "max_log_lambda": [np.inf], "fp": [0], "fn": [0]})
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> write_uci(out, evaluation=ev, targets=ev.iloc[:, :3],
    ...           features=pd.DataFrame({"x": [1.0]}, index=["a"]))
    >>> sorted(p.name for p in out.iterdir())
    ['evaluation.csv', 'inputs.csv', 'outputs.csv']
    """
    if evaluation is not None:
        _to_csv(uci_names(evaluation), folder / "evaluation.csv")
        _to_csv(uci_names(targets), folder / "outputs.csv")
    if segmentation is not None:
        (folder / SETTINGS_FILE).write_text(json.dumps(segmentation, indent=1) + "\n")
    inputs = _r_infinities(features)
    inputs.index.name = "sequenceID"
    inputs.to_csv(folder / "inputs.csv")
    if folds is not None:
        (folder / "cv" / folds[0]).mkdir(parents=True, exist_ok=True)
        _to_csv(uci_names(folds[1]), folder / "cv" / folds[0] / "folds.csv")


UCIDataSet.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
