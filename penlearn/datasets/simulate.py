"""The simulator of labeled sequences (the built-in default data set) and a binary
timing problem."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn._repr import compact_repr

__all__ = ["SimulatedDataSet", "binary_timing_problem", "simulate"]

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


SimulatedDataSet.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
