"""The shipped zero-label penalty model: peaks for coverage nobody labeled.

``default.json`` beside this file is a :class:`penlearn.PenaltyModel` learned from the
labeled windows of the 17 UCI ChIP-seq sets (Hocking et al. 2017, *Bioinformatics*
33(4):491-499; rebuilt by ``penlearn pretrain DATA_DIR --out MODEL.json``, see
:mod:`penlearn.datasets.pretrain`, learner :mod:`penlearn.peaks.pretrained.fit`). Its
``provenance`` block says what it was learned on and its test label errors when each
set is left out. ``penlearn peaks COVERAGE --out DIR`` without ``--penalty`` or
``--model`` uses it, and so does :func:`predict_default_peaks`.

It learned on the UCI problems: gap-separated regions of hg19 chromosomes
(10^5–10^8 bases), not whole chromosomes. :func:`default_windows` cuts a user's
coverage alike — each (sample, chromosome) at zero-coverage runs of 50 kb or more (hg19's
assembly gaps are at least that long), and pieces longer than the longest training
window into near-equal parts cut in their lowest coverage — and
:func:`predict_log_lambda` clips features outside the training range to it, naming those
windows in one warning.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.fitting.model_file import write_model_file
from penlearn.learn.model import PenaltyModel
from penlearn.peaks.peakseg.contigs import coverage_problems
from penlearn.peaks.peakseg.features import coverage_features

__all__ = ["DEFAULT_MODEL_PATH", "MIN_GAP", "Pretrained", "default_log_lambda", "default_windows",
           "load_pretrained", "predict_log_lambda", "save_pretrained"]

#: The shipped model file.
DEFAULT_MODEL_PATH = Path(__file__).with_name("default.json")
#: Zero-coverage runs at least this long separate two windows (bases).
MIN_GAP = 50_000


@dataclass(frozen=True)
class Pretrained:
    """A pretrained penalty model and what it was learned on."""

    model: PenaltyModel
    provenance: dict
    path: str

    def note(self) -> str:
        """One line: which model, learned on what, its leave-one-set-out error.

        Examples
        --------
        >>> load_pretrained().note().startswith("the shipped zero-label penalty model")
        True
        """
        p = self.provenance
        loso = p.get("leave_one_set_out", {}).get("mean")
        err = (f"; {loso:.1f} % of labels wrong on a set it never saw (mean of "
               f"{len(p.get('sets', []))}, leave one set out)") if loso is not None else ""
        which = ("the shipped zero-label penalty model" if Path(self.path) ==
                 DEFAULT_MODEL_PATH else f"the pretrained penalty model {self.path}")
        return (f"{which} (log λ from each window's coverage dispersion, learned on "
                f"{p.get('labels', '?')} labels of {len(p.get('sets', []))} public ChIP-seq "
                f"sets{err})")


@lru_cache(maxsize=4)
def _read(path: str) -> tuple[str, dict]:
    text = Path(path).read_text()
    return text, json.loads(text)


def load_pretrained(path=None) -> Pretrained:
    """The shipped model (default) or a model file written by ``penlearn pretrain``.

    Examples
    --------
    >>> m = load_pretrained()
    >>> m.model.coef_.index.tolist(), len(m.provenance["sets"])
    (['log.sd', 'log.mean'], 17)
    """
    path = DEFAULT_MODEL_PATH if path is None else Path(path)
    _, data = _read(str(path))
    model = PenaltyModel.from_dict(data, source=str(path))
    provenance = data.get("provenance")
    if not isinstance(provenance, dict):
        raise ValueError(f"{path} is not a pretrained model file: no 'provenance' block "
                         "(write one with penlearn pretrain)")
    model.provenance_ = provenance
    model.prior_name_ = ("the shipped zero-label penalty model" if path == DEFAULT_MODEL_PATH
                         else f"the pretrained penalty model {path}")
    return Pretrained(model, provenance, str(path))


def save_pretrained(model: PenaltyModel, path) -> None:
    """Write a model of :func:`penlearn.datasets.pretrain.pretrain` with its provenance
    (atomically)."""
    write_model_file(path, {**model.to_dict(), "provenance": model.provenance_})


def _stretches(start: np.ndarray, end: np.ndarray, count: np.ndarray) -> tuple:
    """(starts, ends, counts) of a problem's rows and of the zero gaps between them, sorted."""
    gap = start[1:] > end[:-1]
    s = np.r_[start, end[:-1][gap]]
    order = np.argsort(s, kind="stable")
    return (s[order], np.r_[end, start[1:][gap]][order],
            np.r_[count, np.zeros(int(gap.sum()), count.dtype)][order])


def _long_piece_edges(a: int, b: int, max_bases: float, stretches: tuple) -> list[int]:
    """Edges of a piece ``[a, b)`` longer than ``max_bases``: near equal parts, each edge
    moved, within an eighth of a part, into the lowest-coverage stretch there (the
    longest, then the nearest, of equals): a peak is not cut unless the coverage is as
    high everywhere around the cut. Parts have at most ``max_bases`` bases."""
    starts, ends, counts = stretches
    k = math.ceil((b - a) / (0.8 * max_bases))
    part = (b - a) / k
    radius = part / 8
    edges = [a]
    for i in range(1, k):
        t = a + (b - a) * i // k
        lo, hi = math.ceil(t - radius), math.floor(t + radius)
        first, last = np.searchsorted(ends, lo, side="right"), np.searchsorted(starts, hi)
        s = np.maximum(starts[first:last], lo)
        e = np.minimum(ends[first:last], hi)
        if not len(s):
            edges.append(t)
            continue
        mid = (s + e) // 2
        best = np.lexsort((np.abs(mid - t), s - e, counts[first:last]))[0]
        edges.append(int(mid[best]))
    return edges + [b]


def default_windows(coverage: pd.DataFrame, *, min_gap: int = MIN_GAP,
                    max_bases: float | None = None) -> pd.DataFrame:
    """Windows like the pretrained model's training problems.

    Each (sample, chromosome) is cut at every zero-coverage run (missing rows or count
    0) of ``min_gap`` bases or more; a piece longer than ``max_bases`` (default: the
    longest training window) is cut into near-equal parts, each cut moved (within an
    eighth of a part) into the lowest-coverage stretch around it, so that no peak is cut
    in two where a lower stretch is near (parts of at most ``max_bases``, at least 3/4
    of the equal part). A chromosome without any read is one window. The bases before
    the first read, after the last and in the long zero runs are in no window
    (:func:`~penlearn.peaks.peakseg.evaluation.predict_peaks` reports them as
    background segments).

    Returns
    -------
    DataFrame
        ``[sample_id,] chrom, chromStart, chromEnd`` (``sample_id`` when the coverage
        has it), the ``windows`` of :func:`~penlearn.peaks.peakseg.features.coverage_features`
        and :func:`~penlearn.peaks.peakseg.evaluation.predict_peaks`.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": [0, 10, 100_000],
    ...                     "chromEnd": [10, 20, 100_050], "count": [3, 0, 2]})
    >>> default_windows(cov).values.tolist()
    [['chr1', 0, 10], ['chr1', 100000, 100050]]
    """
    if max_bases is None:
        max_bases = load_pretrained().provenance["windows"]["max_bases"]
    rows = []
    for sid, chrom, g in coverage_problems(coverage):
        start = g["chromStart"].to_numpy(np.int64)
        end = g["chromEnd"].to_numpy(np.int64)
        reads = np.flatnonzero(g["count"].to_numpy() > 0)
        if len(reads) == 0:
            pieces = [(int(start.min()), int(end.max()))]
        else:
            s, e = start[reads], end[reads]
            cut = np.flatnonzero(s[1:] - e[:-1] >= min_gap)
            firsts, lasts = np.r_[0, cut + 1], np.r_[cut, len(reads) - 1]
            pieces = [(int(s[a]), int(e[b])) for a, b in zip(firsts, lasts)]
        stretches = None
        for a, b in pieces:
            if b - a <= max_bases:
                rows.append((sid, chrom, a, b))
                continue
            if stretches is None:
                stretches = _stretches(start, end, g["count"].to_numpy())
            edges = _long_piece_edges(a, b, max_bases, stretches)
            rows += [(sid, chrom, edges[i], edges[i + 1]) for i in range(len(edges) - 1)]
    out = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd"])
    return out if "sample_id" in coverage.columns else out.drop(columns="sample_id")


def predict_log_lambda(features: pd.DataFrame, pretrained: Pretrained | None = None
                       ) -> pd.Series:
    """The pretrained model's log λ of each window, its features clipped to the training
    range; one warning names the windows clipped (and the features).

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [1.0], "log.mean": [0.0]}, index=["w"])
    >>> bool(np.isfinite(predict_log_lambda(X).loc["w"]))
    True
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    model = pretrained.model
    cols = list(model.coef_.index)
    A = features.loc[:, cols].to_numpy(float)
    low, high = model.scaling_.low, model.scaling_.high
    with np.errstate(invalid="ignore"):
        outside = ~((A >= low) & (A <= high))
    rows = outside.any(axis=1)
    if rows.any():
        names = [str(i) for i in features.index[rows]]
        which = [c for c, o in zip(cols, outside.any(axis=0)) if o]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5
                                        else "")
        warnings.warn(f"{len(names)} window(s) have coverage features {which} outside the "
                      f"range of the pretrained model's training windows, clipped to it: "
                      f"{shown}", stacklevel=2)
        A = np.where(np.isnan(A), model.scaling_.mean, A)
        features = pd.DataFrame(np.clip(A, low, high), index=features.index, columns=cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reported above
        return pd.Series(model.predict(features.loc[:, cols]), index=features.index,
                         name="log_lambda")


def default_log_lambda(coverage: pd.DataFrame, pretrained: Pretrained | None = None, *,
                       windows: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """(windows, log λ per window) of coverage under the pretrained model: ``windows``
    if given, else :func:`default_windows`.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> w, ll = default_log_lambda(cov)
    >>> ll.index.tolist()
    ['chr1:0-60']
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    if windows is None:
        windows = default_windows(coverage,
                                  max_bases=pretrained.provenance["windows"]["max_bases"])
    features = coverage_features(coverage, windows)
    return windows, predict_log_lambda(features, pretrained)
