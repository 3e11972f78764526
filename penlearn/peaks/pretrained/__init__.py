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

The level depends on the mark, as MACS3's ``--broad`` does (issue 46 item 5): ``mark=
"narrow"`` (the default, as MACS3's; H3K4me3, H3K27ac, CTCF, ATAC, factors) adds the
narrow level learned on the narrow-mark sets (``provenance["marks"]``), ``mark="broad"``
keeps the level of all 17 sets. Windows shorter than the shortest training window are
named in a warning, and a narrow mark's are lowered by :data:`SHORT_WINDOW_SHIFT`
(:func:`short_window_shift`): their coverage dispersion comes mostly from the peaks in
them, which puts λ above the same sample's on whole chromosomes.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, text_ids
from penlearn._warnings import caller_stacklevel
from penlearn.fitting.model_file import write_model_file
from penlearn.learn.model import PenaltyModel
from penlearn.peaks.peakseg.contigs import coverage_problems
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.pretrained._file_keys import (
    MARKS,
    PROVENANCE_KEYS,
    check_provenance,
    check_rule,
    keep_unknown_keys,
)

__all__ = ["DEFAULT_MODEL_PATH", "MARKS", "MIN_GAP", "PROVENANCE_KEYS", "Pretrained",
           "check_provenance", "check_rule", "cut_from_long_windows", "default_log_lambda",
           "default_windows", "keep_unknown_keys", "load_pretrained", "mark_offset",
           "predict_log_lambda", "save_pretrained", "short_window_shift", "SHORT_WINDOW_SHIFT",
           "shipped_model", "whole_chromosome_windows", "zero_label_log_lambda",
           "ZeroLabelModel"]

#: The shipped model file.
DEFAULT_MODEL_PATH = Path(__file__).with_name("default.json")
#: Zero-coverage runs at least this long separate two windows (bases).
MIN_GAP = 50_000
#: Added to the log λ of a narrow mark's window shorter than every training window
#: (:func:`short_window_shift`): minus the median excess, rounded to 0.01, of such
#: windows' log λ over their samples' training windows' (``benchmarks/sharp_marks.py``).
SHORT_WINDOW_SHIFT = -0.58


@dataclass(frozen=True)
class Pretrained:
    """A pretrained penalty model and what it was learned on."""

    model: PenaltyModel
    provenance: dict
    path: str
    #: the file's ``zero_label_rule`` (:func:`check_rule`): per mark, the ``shift`` of
    #: log λ whose peaks are kept at q-value <= ``qvalue`` (empty: none)
    rule: dict = field(default_factory=dict)

    def note(self, mark: str = "narrow") -> str:
        """One line: which model, learned on what, at which mark's level, its
        leave-one-set-out error.

        Examples
        --------
        >>> load_pretrained().note().startswith("the shipped zero-label penalty model")
        True
        """
        p = self.provenance
        marks = p.get("marks", {})
        loso = marks.get("leave_one_set_out", p.get("leave_one_set_out", {})).get("mean")
        err = (f"; {loso:.1f} % of labels wrong on a set it never saw (mean of "
               f"{len(p.get('sets', []))}, leave one set out)") if loso is not None else ""
        level = ""
        if mark in marks:
            level = (", at the narrow-mark level (--broad: broad marks)" if mark == "narrow"
                     else ", at the broad-mark level of all the sets")
        which = ("the shipped zero-label penalty model" if Path(self.path) ==
                 DEFAULT_MODEL_PATH else f"the pretrained penalty model {self.path}")
        return (f"{which} (log λ from each window's coverage dispersion, learned on "
                f"{p.get('labels', '?')} labels of {len(p.get('sets', []))} public ChIP-seq "
                f"sets{level}{err})")


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
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a pretrained model file: not a JSON object")
    model = PenaltyModel.from_dict(data, source=str(path), task="peaks")
    model.task_ = "peaks"  # (a file of penlearn 0.x: learned on ChIP-seq windows too)
    provenance = check_provenance(data.get("provenance"), str(path))
    model.provenance_ = provenance
    model.prior_name_ = ("the shipped zero-label penalty model" if path == DEFAULT_MODEL_PATH
                         else f"the pretrained penalty model {path}")
    return Pretrained(model, provenance, str(path),
                      check_rule(data.get("zero_label_rule"), str(path)))



def save_pretrained(model: PenaltyModel, path) -> list[str]:
    """Write a model of :func:`penlearn.datasets.pretrain.pretrain` with its provenance
    (atomically). Over an existing model file, the keys that the writer does not own
    (:data:`PROVENANCE_KEYS`, and the model's own fields) are kept from it; returns
    their dotted names.

    Examples
    --------
    >>> import json, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> data = json.loads(DEFAULT_MODEL_PATH.read_text())
    >>> data["provenance"]["marks"]["narrow"]["note"] = "kept"
    >>> _ = open(path, "w").write(json.dumps(data))
    >>> shipped = load_pretrained()
    >>> shipped.model.provenance_ = shipped.provenance
    >>> save_pretrained(shipped.model, path)
    ['provenance.marks.narrow.note', 'zero_label_rule']
    """
    model.task_ = "peaks"  # learned on ChIP-seq windows: what 'penlearn peaks' computes
    data = {**model.to_dict(), "provenance": getattr(model, "provenance_", {})}
    kept: list[str] = []
    if Path(path).is_file():
        try:
            old = json.loads(Path(path).read_text())
        except (OSError, UnicodeDecodeError, ValueError):
            old = None
        if isinstance(old, dict):
            owned = {**{k: True for k in data}, "provenance": PROVENANCE_KEYS}
            data, kept = keep_unknown_keys(old, data, owned)
            kept.sort()
    write_model_file(path, data)
    return kept


def _stretches(start: np.ndarray, end: np.ndarray, count: np.ndarray) -> tuple:
    """(starts, ends, counts) of a problem's rows and of the zero gaps between them, sorted."""
    gap = start[1:] > end[:-1]
    if not (start[1:] < start[:-1]).any() and not (end < start).any():
        # sorted rows: each gap's stretch right after the row it follows (the stable
        # sort's order), in one compiled copy per column
        from penlearn.peaks.formats._pileup_kernel import insert_rows

        after = np.flatnonzero(gap)
        at = after + 1
        return (insert_rows(start, at, end[after]), insert_rows(end, at, start[at]),
                insert_rows(count, at, 0))
    s = np.r_[start, end[:-1][gap]]
    order = np.argsort(s, kind="stable")
    return (s[order], np.r_[end, start[1:][gap]][order],
            np.r_[count, np.zeros(int(gap.sum()), count.dtype)][order])


def _first_least(keys: tuple) -> int:
    """``np.lexsort(keys[::-1])[0]``: the first row of the least ``keys[0]``, ties broken
    by ``keys[1]``, then ``keys[2]``..., without sorting (a pass per key)."""
    rows = np.arange(len(keys[0]))
    for key in keys:
        k = key[rows]
        rows = rows[k == k.min()]
        if len(rows) == 1:
            break
    return int(rows[0])


def _long_piece_edges(a: int, b: int, max_bases: float, rows: tuple) -> list[int]:
    """Edges of a piece ``[a, b)`` longer than ``max_bases``: near equal parts, each edge
    moved, within an eighth of a part, into the lowest-coverage stretch there (the
    longest, then the nearest, of equals): a peak is not cut unless the coverage is as
    high everywhere around the cut. Parts have at most ``max_bases`` bases. ``rows``:
    the problem's ``(start, end, count)``; the stretches (:func:`_stretches`) are made
    around each edge only (those of a whole chromosome: ~60 bytes a row at once)."""
    start, end, count = rows
    k = math.ceil((b - a) / (0.8 * max_bases))
    part = (b - a) / k
    radius = part / 8
    edges = [a]
    for i in range(1, k):
        t = a + (b - a) * i // k
        lo, hi = math.ceil(t - radius), math.floor(t + radius)
        # the rows around [lo, hi) and one more each side: the stretches there are those
        # of the whole problem (the gap before the first / after the last is outside)
        r0 = max(0, int(np.searchsorted(end, lo, side="right")) - 1)
        r1 = min(len(start), int(np.searchsorted(start, hi)) + 1)
        starts, ends, counts = _stretches(start[r0:r1], end[r0:r1], count[r0:r1])
        first, last = np.searchsorted(ends, lo, side="right"), np.searchsorted(starts, hi)
        s = np.maximum(starts[first:last], lo)
        e = np.minimum(ends[first:last], hi)
        if not len(s):
            edges.append(t)
            continue
        mid = (s + e) // 2
        best = _first_least((counts[first:last], s - e, np.abs(mid - t)))
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
    require_columns(coverage, ["chrom", "chromStart", "chromEnd", "count"], "coverage")
    coverage = text_ids(coverage, "coverage")
    rows = []
    for sid, chrom, g in coverage_problems(coverage):
        start = g["chromStart"].to_numpy(np.int64)
        end = g["chromEnd"].to_numpy(np.int64)
        covered = g["count"].to_numpy() > 0
        if not covered.any():
            pieces = [(int(start.min()), int(end.max()))]
        else:
            # (a pileup's rows all have reads: its own columns, not copies of them;
            # issue 55, ~60 MB at chr1's features)
            s, e = (start, end) if covered.all() else (start[covered], end[covered])
            cut = np.flatnonzero(s[1:] - e[:-1] >= min_gap)
            firsts, lasts = np.r_[0, cut + 1], np.r_[cut, len(s) - 1]
            pieces = [(int(s[a]), int(e[b])) for a, b in zip(firsts, lasts)]
        for a, b in pieces:
            if b - a <= max_bases:
                rows.append((sid, chrom, a, b))
                continue
            edges = _long_piece_edges(a, b, max_bases, (start, end, g["count"].to_numpy()))
            rows += [(sid, chrom, edges[i], edges[i + 1]) for i in range(len(edges) - 1)]
    out = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd"])
    return out if "sample_id" in coverage.columns else out.drop(columns="sample_id")


def mark_offset(pretrained: Pretrained | None = None, mark: str = "narrow") -> float:
    """What ``mark`` adds to the model's log λ: its level (``provenance["marks"]``) minus
    the model's intercept; 0 for ``"broad"`` and for a model file without levels.

    Examples
    --------
    >>> mark_offset(mark="broad"), round(mark_offset(mark="narrow"), 2)
    (0.0, -0.88)
    """
    if mark not in MARKS:
        raise ValueError(f"mark must be one of {list(MARKS)} (MACS3's default or its "
                         f"--broad), got {mark!r}")
    pretrained = load_pretrained() if pretrained is None else pretrained
    level = pretrained.provenance.get("marks", {}).get(mark, {}).get("intercept")
    return 0.0 if level is None else float(level) - float(pretrained.model.intercept_)


def predict_log_lambda(features: pd.DataFrame, pretrained: Pretrained | None = None, *,
                       mark: str = "narrow") -> pd.Series:
    """The pretrained model's log λ of each window at the level of ``mark``
    (:func:`mark_offset`), its features clipped to the training range; one warning names
    the windows clipped (and the features).

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [1.0], "log.mean": [0.0]}, index=["w"])
    >>> narrow, broad = predict_log_lambda(X), predict_log_lambda(X, mark="broad")
    >>> round(float(narrow.loc["w"] - broad.loc["w"]), 2)
    -0.88
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    offset = mark_offset(pretrained, mark)
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
                      f"{shown}", stacklevel=caller_stacklevel())
        A = np.where(np.isnan(A), model.scaling_.mean, A)
        features = pd.DataFrame(np.clip(A, low, high), index=features.index, columns=cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reported above
        return pd.Series(model.predict(features.loc[:, cols]) + offset,
                         index=features.index, name="log_lambda")


def short_window_shift(features: pd.DataFrame, pretrained: Pretrained | None = None, *,
                       mark: str = "narrow", whole=None) -> pd.Series:
    """What a window shorter than the shortest training window adds to its log λ:
    :data:`SHORT_WINDOW_SHIFT` for a narrow mark, 0 otherwise (and for longer windows);
    one warning names the short windows.

    The training windows are gap-separated regions of whole chromosomes (0.2–116 Mb).
    A short region cut around a sharp mark's peaks has a larger coverage dispersion than
    the same sample's genome-scale windows (the peaks fill more of it), so its λ comes
    out too high: by a median of +0.58 log units on the 37 samples of the H3K4me3 chunks
    ``H3K4me3.PGP.immune.chunk2`` and ``H3K4me3.TDH.other.chunk8`` (15–19 kb windows,
    against the same samples' training windows; +0.56 with the issue-36 model of slope
    0.68); +0.44 (issue-36 model) on the 27 samples of
    ``H3K4me3_XJ_immune_chunk1`` (8.4 kb, not used to set it); about 0 on broad-mark
    chunks (``benchmarks/sharp_marks.py``).

    ``whole`` (a boolean per window, or None) marks the windows of a chromosome known
    to be whole (:func:`whole_chromosome_windows`: its length, from a BAM header or a
    chrom sizes file, shorter than the shortest training window): such a window is not
    a region cut around peaks, so it is neither named nor shifted.

    Examples
    --------
    >>> X = pd.DataFrame({"bases": [8_000.0, 1e6]}, index=["short", "long"])
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     short_window_shift(X).tolist()
    [-0.58, 0.0]
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    shortest = pretrained.provenance.get("windows", {}).get("min_bases")
    out = pd.Series(0.0, index=features.index, name="log_lambda")
    if shortest is None or "bases" not in features.columns:
        return out
    short = features["bases"].to_numpy(float) < float(shortest)
    if whole is not None:
        short &= ~np.asarray(whole, bool)
    if short.any():
        names = [str(i) for i in features.index[short]]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3
                                        else "")
        what = (f"their log λ lowered by {-SHORT_WINDOW_SHIFT} (a short region around a "
                "narrow mark's peaks overstates the coverage dispersion)" if mark == "narrow"
                else "their λ may be off")
        warnings.warn(f"{len(names)} window(s) are shorter than the shortest window the "
                      f"pretrained model learned on ({shortest:,.0f} bases): {shown}; "
                      f"{what}; give whole chromosomes where you can",
                      stacklevel=caller_stacklevel())
        if mark == "narrow":
            out[short] = SHORT_WINDOW_SHIFT
    return out


def whole_chromosome_windows(windows: pd.DataFrame, chrom_sizes: dict | None,
                             pretrained: Pretrained | None = None) -> np.ndarray | None:
    """Which ``windows`` lie on a chromosome that is whole and shorter than the shortest
    training window: its length known (``chrom_sizes``: a BAM header's, a chrom sizes
    file's) and below ``provenance["windows"]["min_bases"]``. None without sizes.

    Examples
    --------
    >>> w = pd.DataFrame({"chrom": ["chrS", "chr1"], "chromStart": [0, 0],
    ...                   "chromEnd": [90_000, 90_000]})
    >>> whole_chromosome_windows(w, {"chrS": 100_000, "chr1": 249_000_000}).tolist()
    [True, False]
    """
    if not chrom_sizes:
        return None
    pretrained = load_pretrained() if pretrained is None else pretrained
    shortest = pretrained.provenance.get("windows", {}).get("min_bases")
    if shortest is None:
        return None
    length = windows["chrom"].astype(str).map(
        {str(k): float(v) for k, v in dict(chrom_sizes).items()})
    return (length < float(shortest)).fillna(False).to_numpy(bool)


def cut_from_long_windows(windows: pd.DataFrame, coverage: pd.DataFrame,
                          pretrained: Pretrained | None = None) -> np.ndarray:
    """Which ``windows`` (``sample_id, chrom, chromStart, chromEnd``) are pieces of a
    stretch of their sample's coverage at least as long as the shortest training window:
    they overlap one of the coverage's own training-like windows (:func:`default_windows`,
    ``penlearn peaks``' windows) of that length. A piece the labeling page cut for display
    (200 kb) from such a stretch is no region cut around peaks: no short-window shift.

    Examples
    --------
    >>> starts = np.arange(0, 600_000, 1000)
    >>> cov = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": starts,
    ...                     "chromEnd": starts + 1000, "count": 1})
    >>> w = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": [0, 400_000],
    ...                   "chromEnd": [200_000, 600_000]})
    >>> cut_from_long_windows(w, cov).tolist()
    [True, True]
    >>> cut_from_long_windows(w, cov[cov.chromStart < 8000]).tolist()
    [False, False]
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    prov = pretrained.provenance.get("windows", {})
    out = np.zeros(len(windows), bool)
    if prov.get("min_bases") is None or not len(windows):
        return out
    if "sample_id" not in coverage.columns:
        coverage = coverage.assign(sample_id=windows["sample_id"].iat[0])
    own = default_windows(coverage, max_bases=prov.get("max_bases", np.inf))
    own = own[(own["chromEnd"] - own["chromStart"]) >= float(prov["min_bases"])]
    w = pd.DataFrame({"row": np.arange(len(windows)),
                      "sample_id": windows["sample_id"].astype(str).to_numpy(),
                      "chrom": windows["chrom"].astype(str).to_numpy(),
                      "s": windows["chromStart"].to_numpy(np.int64),
                      "e": windows["chromEnd"].to_numpy(np.int64)})
    pairs = w.merge(pd.DataFrame({"sample_id": own["sample_id"].astype(str).to_numpy(),
                                  "chrom": own["chrom"].astype(str).to_numpy(),
                                  "a": own["chromStart"].to_numpy(np.int64),
                                  "b": own["chromEnd"].to_numpy(np.int64)}),
                    on=["sample_id", "chrom"])
    hit = pairs.loc[(pairs["s"] < pairs["b"]) & (pairs["a"] < pairs["e"]), "row"]
    out[hit.to_numpy(np.int64)] = True
    return out


def zero_label_log_lambda(features: pd.DataFrame, pretrained: Pretrained | None = None, *,
                          mark: str = "narrow", whole=None) -> pd.Series:
    """THE zero-label penalty: log λ of each window (rows of ``features``, the columns of
    :func:`~penlearn.peaks.peakseg.features.coverage_features`) without labels.

    The one formula every surface uses (``penlearn peaks``, ``callpeak``, ``joint``,
    ``propose``, the labeling page, ``learn``'s prior: through :class:`ZeroLabelModel`):
    the pretrained model's log λ at the level of ``mark`` (:func:`predict_log_lambda`)
    plus the short-window shift (:func:`short_window_shift`; ``whole``: the windows of a
    chromosome known to be whole, not shifted). A change of the penalty's form is made
    here, and only here.

    Examples
    --------
    >>> X = pd.DataFrame({"log.sd": [1.0], "log.mean": [0.0], "bases": [1e6]}, index=["w"])
    >>> round(float(zero_label_log_lambda(X).loc["w"] - predict_log_lambda(X).loc["w"]), 2)
    0.0
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    shift = short_window_shift(features, pretrained, mark=mark, whole=whole)
    return predict_log_lambda(features, pretrained, mark=mark) + shift


def default_log_lambda(coverage: pd.DataFrame, pretrained: Pretrained | None = None, *,
                       windows: pd.DataFrame | None = None, mark: str = "narrow",
                       chrom_sizes: dict | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """(windows, log λ per window) of coverage under the pretrained model at the level of
    ``mark`` (``"narrow"``, MACS3's default, or ``"broad"``): ``windows`` if given, else
    :func:`default_windows`; the log λ of :func:`zero_label_log_lambda` (``chrom_sizes``:
    the chromosome lengths known, for :func:`whole_chromosome_windows`).

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> w, ll = default_log_lambda(cov, chrom_sizes={"chr1": 60})
    >>> ll.index.tolist()
    ['chr1:0-60']
    """
    pretrained = load_pretrained() if pretrained is None else pretrained
    mark_offset(pretrained, mark)  # checks mark before any work
    if windows is None:
        windows = default_windows(coverage,
                                  max_bases=pretrained.provenance["windows"]["max_bases"])
    features = coverage_features(coverage, windows)
    whole = whole_chromosome_windows(windows, chrom_sizes, pretrained)
    return windows, zero_label_log_lambda(features, pretrained, mark=mark, whole=whole)


# the object every surface uses (after the functions it calls)
from penlearn.peaks.pretrained.zero_label import ZeroLabelModel, shipped_model  # noqa: E402
