"""Data sets: the UCI / neuroblastoma-data folder format, and a simulator.

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
from penlearn._tables import (
    _features_table,
    _find,
    _read_csv,
    assign_folds,
    read_inputs,
    read_predictions,
    read_table,
)
from penlearn.learn.scaling import standardize_features

__all__ = ["SETTINGS_FILE", "SimulatedDataSet", "UCIDataSet", "assign_folds", "data_dir",
           "finite_feature_columns", "load_uci", "read_inputs", "read_predictions",
           "read_table", "simulate", "snake_case", "snake_case_columns", "uci_names",
           "write_uci", "binary_timing_problem"]

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
    evaluation = snake_case_columns(_read_csv(ev_path, ["sequenceID"]))
    check_evaluation(evaluation, name=f"{ev_path.name}")

    inputs = None
    in_path = _find(folder, "inputs")
    if in_path is not None:
        inputs = _features_table(_read_csv(in_path, ["sequenceID"]), in_path)

    outputs = None
    out_path = _find(folder, "outputs")
    if out_path is not None:
        outputs = snake_case_columns(_read_csv(out_path, ["sequenceID"]))
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


# --------------------------------------------------------------------------------------
# Simulator: the built-in default data set
# --------------------------------------------------------------------------------------


@dataclass
class SimulatedDataSet:
    """Labeled piecewise-constant sequences made by :func:`simulate`.

    Attributes
    ----------
    sequences : DataFrame
        ``sequence_id, position, value`` (positions 1..n per sequence).
    labels : DataFrame
        ``sequence_id, start, end, annotation``; each label covers (start, end].
    changes : DataFrame
        The true changes ``sequence_id, position`` (convention: a change between
        positions p and p + 1 is located at p).
    segments : DataFrame
        The true signal: ``sequence_id, first, last, mean`` per segment (positions
        first..last).
    truth : DataFrame
        Per sequence: ``sequence_id, n_points, n_changes, sd, heavy_tails`` (the noise
        standard deviation used, and whether the noise is Student t).
    seed : int
        The seed that made it.

    Examples
    --------
    >>> sim = simulate(n_sequences=3, seed=1)
    >>> len(sim.sequence_ids), list(sim.labels.columns)
    (3, ['sequence_id', 'start', 'end', 'annotation'])
    """

    sequences: pd.DataFrame
    labels: pd.DataFrame
    changes: pd.DataFrame
    segments: pd.DataFrame
    truth: pd.DataFrame
    seed: int

    @property
    def sequence_ids(self) -> pd.Index:
        """Sequence ids, in order."""
        return pd.Index(self.truth["sequence_id"])

    def __repr__(self) -> str:
        return (
            f"SimulatedDataSet(sequences={len(self.truth)}, points={len(self.sequences)}, "
            f"labels={len(self.labels)}, true_changes={len(self.changes)}, seed={self.seed})"
        )


def _draw_labels(rng: np.random.Generator, n: int, true_changes: np.ndarray, n_labels: int):
    """Draw up to ``n_labels`` non-overlapping labels (start, end] from the true changes."""
    chosen: list[tuple[int, int, str]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e, _ in chosen)

    for _ in range(20 * n_labels):
        if len(chosen) >= n_labels:
            break
        positive = true_changes.size > 0 and rng.random() < 0.5
        width = int(rng.integers(10, 41))
        if positive:
            c = int(rng.choice(true_changes))
            left = int(rng.integers(3, width - 2))  # the change is >= 3 inside the label
            start, end = c - left, c - left + width
        else:
            start = int(rng.integers(0, max(1, n - width)))
            end = start + width
        start, end = max(start, 0), min(end, n)
        if end - start < 5 or not free(start, end):
            continue
        inside = int(np.sum((true_changes > start) & (true_changes <= end)))
        if positive and inside == 0:
            continue
        if inside == 0:
            annotation = "0changes"
        elif inside == 1 and rng.random() < 0.7:
            annotation = "1change"
        else:
            annotation = ">0changes"
        chosen.append((start, end, annotation))
    return sorted(chosen)


def simulate(
    n_sequences: int = 100,
    seed: int = 0,
    *,
    n_points: tuple[int, int] = (200, 400),
    max_changes: int = 6,
    sd_range: tuple[float, float] = (0.3, 3.0),
    n_labels: tuple[int, int] = (2, 6),
    jump_range: tuple[float, float] = (1.0, 4.0),
    heavy_tails: float = 0.5,
) -> SimulatedDataSet:
    """Simulate labeled piecewise-constant Gaussian sequences (the default data set).

    Each sequence has a random length, a random number of true changes at random
    positions (segments of at least 10 points), segment means that jump by
    ``jump_range`` noise standard deviations (a random sign each time), and a noise
    standard deviation drawn log-uniformly from ``sd_range``; a share ``heavy_tails`` of
    the sequences has Student t noise (3 degrees of freedom, same SD), whose outliers
    fool penalties made for Gaussian noise. So the penalty that recovers the true changes
    differs between sequences and is predictable from their features (the setting of
    supervised penalty learning, Rigaill et al. 2013; Hocking et al. 2013). Labels
    (start, end] are drawn from the true changes as an annotator would: positive
    regions around a true change, at least 3 positions inside (``1change`` or
    ``>0changes``), and negative regions without one (``0changes``); labels never
    overlap.

    Parameters
    ----------
    n_sequences : int
        Number of sequences.
    seed : int
        Seed of the random generator; the same seed gives the same data set.
    n_points : (int, int)
        Inclusive range of sequence lengths.
    max_changes : int
        Largest number of true changes in a sequence.
    sd_range : (float, float)
        Range of the noise standard deviation (drawn log-uniformly).
    n_labels : (int, int)
        Inclusive range of the number of labels drawn per sequence (fewer when the
        sequence has no room for them).
    jump_range : (float, float)
        Range of the absolute mean changes, in noise standard deviations.
    heavy_tails : float
        Probability that a sequence has Student t (3 df) noise instead of Gaussian.

    Returns
    -------
    SimulatedDataSet
        ``sequences``, ``labels``, true ``changes`` and per-sequence ``truth``.

    Examples
    --------
    >>> data = simulate(5, seed=1)
    >>> data.sequences.columns.tolist()
    ['sequence_id', 'position', 'value']
    >>> data.labels.columns.tolist()
    ['sequence_id', 'start', 'end', 'annotation']
    >>> simulate(5, seed=1).sequences.equals(data.sequences)
    True
    """
    if isinstance(n_sequences, bool) or not isinstance(n_sequences, (int, np.integer)):
        raise TypeError(f"n_sequences must be an int, got {type(n_sequences).__name__}")
    if n_sequences < 1:
        raise ValueError(f"n_sequences must be >= 1, got {n_sequences}")
    lo_n, hi_n = (int(v) for v in n_points)
    if not 20 <= lo_n <= hi_n:
        raise ValueError(f"n_points must be (low, high) with 20 <= low <= high, got {n_points}")
    if max_changes < 0:
        raise ValueError(f"max_changes must be >= 0, got {max_changes}")
    sd_lo, sd_hi = (float(v) for v in sd_range)
    if not 0 < sd_lo <= sd_hi:
        raise ValueError(f"sd_range must be (low, high) with 0 < low <= high, got {sd_range}")
    lab_lo, lab_hi = (int(v) for v in n_labels)
    if not 0 <= lab_lo <= lab_hi:
        raise ValueError(f"n_labels must be (low, high) with 0 <= low <= high, got {n_labels}")

    j_lo, j_hi = (float(v) for v in jump_range)
    if not 0 < j_lo <= j_hi:
        raise ValueError(f"jump_range must be (low, high) with 0 < low <= high, got {jump_range}")
    if not 0 <= heavy_tails <= 1:
        raise ValueError(f"heavy_tails must be a probability in [0, 1], got {heavy_tails}")
    rng = np.random.default_rng(seed)
    width = len(str(n_sequences))
    seq_frames, label_rows, change_rows, truth_rows, seg_rows = [], [], [], [], []
    min_seg = 10
    for i in range(n_sequences):
        sid = f"sim{i + 1:0{width}d}"
        n = int(rng.integers(lo_n, hi_n + 1))
        k = int(rng.integers(0, min(max_changes, n // min_seg - 1) + 1))
        # k change positions with segments of >= min_seg points: stars and bars
        slack = n - min_seg * (k + 1)
        cuts = np.sort(rng.integers(0, slack + 1, size=k))
        ends = cuts + min_seg * np.arange(1, k + 1)  # last position of segments 1..k
        sd = float(np.exp(rng.uniform(np.log(sd_lo), np.log(sd_hi))))
        jumps = rng.uniform(j_lo, j_hi, size=k) * rng.choice([-1.0, 1.0], size=k) * sd
        means = np.concatenate([[rng.normal(0, 2 * sd)], jumps]).cumsum()
        seg_len = np.diff(np.concatenate([[0], ends, [n]]))
        signal = np.repeat(means, seg_len)
        if rng.random() < heavy_tails:  # Student t noise (3 df), scaled to SD sd
            noise = rng.standard_t(3, size=n) * sd / np.sqrt(3.0)
            tails = True
        else:
            noise = rng.normal(0, sd, size=n)
            tails = False
        values = signal + noise
        positions = np.arange(1, n + 1)
        seq_frames.append(
            pd.DataFrame({"sequence_id": sid, "position": positions, "value": values})
        )
        change_rows += [(sid, int(e)) for e in ends]
        firsts = np.r_[1, ends + 1]
        lasts = np.r_[ends, n]
        seg_rows += [(sid, int(a), int(b), float(m)) for a, b, m in
                     zip(firsts, lasts, means, strict=True)]
        n_lab = int(rng.integers(lab_lo, lab_hi + 1))
        for start, end, ann in _draw_labels(rng, n, ends, n_lab):
            label_rows.append((sid, start, end, ann))
        truth_rows.append((sid, n, k, sd, tails))
    sequences = pd.concat(seq_frames, ignore_index=True)
    labels = pd.DataFrame(label_rows, columns=["sequence_id", "start", "end", "annotation"])
    labels[["start", "end"]] = labels[["start", "end"]].astype(np.int64)
    changes = pd.DataFrame(change_rows, columns=["sequence_id", "position"])
    changes["position"] = changes["position"].astype(np.int64)
    segments = pd.DataFrame(seg_rows, columns=["sequence_id", "first", "last", "mean"])
    truth = pd.DataFrame(truth_rows, columns=["sequence_id", "n_points", "n_changes", "sd",
                                         "heavy_tails"])
    return SimulatedDataSet(sequences, labels, changes, segments, truth, int(seed))


def binary_timing_problem(n: int, p: int = 10):
    """The random binary problem of the ``aum`` reference timings (seed = ``n``).

    Standard normal features, labels from a random linear rule plus noise, and a random
    starting weight vector: the generator written down in the reference README, so the
    Python inputs are bit-identical to those R timed.

    Returns
    -------
    X : ndarray (n, p)
    labels : ndarray (n,) of 0.0/1.0
    w : ndarray (p,)
        The random starting weights.
    beta : ndarray (p,)
        The "true" coefficients (a good starting point).

    Examples
    --------
    >>> X, y, w, beta = binary_timing_problem(1000)
    >>> X.shape, int(y.sum())
    ((1000, 10), 507)
    """
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, p))
    beta = rng.standard_normal(p)
    noise = rng.standard_normal(n)
    labels = (X @ beta + noise > 0).astype(float)
    w = rng.standard_normal(p)
    return X, labels, w, beta


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
    >>> d = simulate(6, seed=0)
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
