"""The joint peak model of several samples in one window, solved exactly.

The model (PeakSegJoint: Hocking & Bourque 2015, "PeakSegJoint: fast supervised peak
detection via joint segmentation of multiple count data samples", arXiv:1506.01286;
Hocking & Bourque 2020, PSB, "Machine learning algorithms for simultaneous supervised
detection of peaks in multiple samples and cell types"; the design document,
``docs/design.md``, joint peaks). S samples cover one window of N bases. A model with k
samples up has one common peak ``[a, b)``, ``1 <= a < b <= N − 1``: each up sample has
three segments (before, inside, after the peak), each fitted by its average, and the
averages must be *strictly* up-down (inside > before and inside > after); every other
sample has one flat mean. The loss is the Poisson loss Σ (m − y log m) per base, as in
the rest of penlearn (no log y! term). A sample whose averages at ``[a, b)`` are not
strictly up-down cannot be up there (no pooled fit, no one-sided step), so a model with k
samples up exists only where one peak has k up-down samples; otherwise its loss is NaN
and model selection skips it. With a ``group`` column the same is done over groups: a
group is up when all its samples are, each strictly up-down, its decrease the sum of
theirs.

What PeakSegJoint computes. Its solvers (``PeakSegJointHeuristic``,
``PeakSegJointFaster``, ``PeakSegJointSeveral``) give, by their documentation, "an
approximate solution" of this model: a pyramid of bins (every pair of coarse bin
boundaries, then, for each k, a zoom to base resolution around its best peak), over
several bin factors (2..7), keeping the most likely feasible model found for each k.
``method="heuristic"`` here is a search of that kind with one bin factor (2); the exact
solver starts from its peaks, so it is never worse, and then either proves each k
optimal or finds a better peak. On the same model (``benchmarks/RESULTS.md``,
``## joint_peaks``): on PeakSegJoint's five test windows and its README example every k
is proven; the heuristic's loss is above the optimum on 30 of their 112 models (by up to
2.8·10^5 when its zoom keeps a poor peak), and PeakSegJoint's own published losses for
the README example are above it by 704 at k = 1; on simulated windows with a peak in 1
or 7 of 21 samples the heuristic finds no model for 7 or 8 of the 22 k, which exist.

Where the optimum can be. Write Y(x) for a sample's count sum before base x and T for
its total. Inside > before is mean[0, b) > mean[0, a) (the pooled mean of before and
inside lies between them) and inside > after is mean[a, N) > mean[b, N). Fix b and let
a move inside a run ``[p, q)`` of bases where no sample's count changes (count c in the
sample), so that Y(a) = Y(p) + c (a − p). Then::

    inside > before  <=>  Y(b) a − Y(a) b > 0
    inside > after   <=>  (T − Y(a)) (N − b) − (T − Y(b)) (N − a) > 0

are *linear* in a: the sample is up-down on an interval of the run, whose ends are the
roots (where two averages are equal)::

    a1 = b (Y(p) − c p) / (Y(b) − c b)
    a2 = [N (T − Y(b)) − (N − b) (T − Y(p) + c p)] / [(T − Y(b)) − c (N − b)]

and likewise for b inside a run with a fixed::

    b1 = a (Y(p) − c p) / (Y(a) − c a)
    b2 = [(N − a) (T − Y(p) + c p) − N (T − Y(a))] / [c (N − a) − (T − Y(a))]

For a fixed set of up samples the total decrease is convex in a (the segment loss
f(W, Y) = Y − Y log(Y / W) is jointly concave, and W, Y move linearly with a), so
between two consecutive roots its maximum is at an end: at a run's end, or at the base
next to a root, where one sample's averages are about to become equal. That base is in
general strictly inside a run, at no row boundary of any sample (the tests hold such
windows). The non-strict model could be searched at row boundaries only, because its
limit fits pool segments; the strict model must be searched at every base.

The search, exact at base resolution. A branch and bound covers every peak of bases: a
block is a range of bases for a and one for b (or both ends in one range), between
points of a grid (the row boundaries of every sample, with extra points so that no cell
is longer than :data:`MAX_CELL` bases). Each sample's decrease is bounded above over the
whole block by lower bounds of its loss (each segment's loss is at least the sum of its
parts fitted alone): the parts where a or b can fall at their saturated loss, or, tighter
on wide blocks, the inside cut at the block's inner ends A1 and B0, so that the loss is
at least min over a of [f[0, a) + f[a, A1)] + f[A1, B0) + min over b of [f[B0, b) +
f[b, N)] (each minimum at a grid point where the sample's count changes, f being concave
between them; kept per range of the search tree). The bounds respect feasibility: a
sample that cannot be up-down at any peak of the block (the two conditions above, each
side's average at its extreme over the block, at grid points) cannot be up, so a block
where fewer than k samples can be up holds no model with k. A block whose top-k bound
cannot beat the best model found for any k is dropped; the others are split until small,
then searched base by base. Every reported model is therefore optimal, up to the pruning tolerance
``1e-12 (1 + log N) Σ T``, which is relative to the scale of the losses: the decreases
are homogeneous of degree 1 in the counts (for counts × s the terms in log s cancel
between a sample's segments), so counts × 1e-14 give the peaks of counts × 1. After
``max_blocks`` bounds the search stops and says, per k, whether the model is still
proven (``proven``; ``exact`` when all are).

Samples that do not start or end at the same base: by default the window spans all rows
(from the first ``chromStart`` to the last ``chromEnd`` of all samples) and the bases a
sample has no row for are zeros, as zero-coverage gaps between a sample's rows are;
PeakSegJoint does the same, so losses compare with its. ``extent="common"`` fits only
the bases all samples cover; ``region`` fits given bases, which every sample must cover
(else a ``ValueError``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, sequence_label
from penlearn._repr import compact_repr
from penlearn.changepoint.model_selection import model_selection
from penlearn.peaks.formats.regions import _integer_column

__all__ = ["JointPeakFit", "joint_peak"]

WINDOW_COLUMNS = ("sample_id", "chromStart", "chromEnd", "count")


@dataclass(frozen=True)
class JointPeakFit:
    """The joint peak models of one window, for every number of samples (groups) up.

    Attributes
    ----------
    loss : Series
        Minimum total Poisson loss with k samples up, indexed by k = 0..S.
    peak : DataFrame
        ``chromStart, chromEnd`` of the common peak of the model with k samples up,
        indexed by k = 1..S.
    up : DataFrame
        Bool, indexed by k = 0..S (row 0 all False), one column per sample: which
        samples carry the peak in the model with k samples up.
    selection : DataFrame
        The model-selection table over k (:func:`~penlearn.model_selection`):
        ``min_lambda, max_lambda, min_log_lambda, max_log_lambda, k, loss``.
    exact : bool
        True when every model (samples and groups) is proven optimal.
    proven : Series
        Bool, indexed by k = 0..S: whether the model with k samples up is proven optimal
        (all True when ``exact``).
    chromStart, chromEnd : int
        The bases the models are fitted on (``[chromStart, chromEnd)``).
    group_loss, group_peak, group_up, group_selection, group_proven
        The same over groups (k = number of groups up), when the input has a ``group``
        column; else None.
    groups : Series or None
        The group of each sample (index ``sample_id``).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [("a", 0, 4, 0), ("a", 4, 6, 5), ("a", 6, 9, 0),
    ...         ("b", 0, 5, 1), ("b", 5, 6, 3), ("b", 6, 9, 1)]
    >>> window = pd.DataFrame(rows, columns=["sample_id", "chromStart", "chromEnd", "count"])
    >>> fit = joint_peak(window.assign(group=["g", "g", "g", "h", "h", "h"]))
    >>> fit.group_peak.loc[1].tolist(), fit.group_up.loc[1].tolist()
    ([4, 6], [True, False])
    >>> fit.exact
    True
    """

    loss: pd.Series
    peak: pd.DataFrame
    up: pd.DataFrame
    selection: pd.DataFrame
    exact: bool
    proven: pd.Series
    chromStart: int
    chromEnd: int
    group_loss: pd.Series | None = None
    group_peak: pd.DataFrame | None = None
    group_up: pd.DataFrame | None = None
    group_selection: pd.DataFrame | None = None
    group_proven: pd.Series | None = None
    groups: pd.Series | None = None


@dataclass(frozen=True)
class _Grid:
    """Samples on the common grid of positions ``P`` (0 .. N, relative to ``start``).

    Cell i = ``[P[i], P[i + 1])`` has count ``cnt[i, s]`` in sample s at every base;
    ``cyT[i, s]`` is sample s's count sum over ``[0, P[i])`` and ``csat[i, s]`` the sum of
    the saturated losses of the cells before ``P[i]``."""

    start: int
    P: np.ndarray
    cnt: np.ndarray
    cyT: np.ndarray
    csat: np.ndarray
    tot: np.ndarray  # (S,) count sums over the window
    flat: np.ndarray  # (S,) flat loss of each sample
    bidx: np.ndarray  # grid indices where sample s's count changes: bidx[boff[s]:boff[s+1]]
    boff: np.ndarray


def _refuse_kind(values: pd.Series, col: str) -> None:
    """TypeError for boolean, complex or text values (which pandas would convert)."""
    kind = values.dtype.kind
    bad = None
    if kind in "bc":
        bad = 0
    elif kind == "O":
        for i, v in enumerate(values):
            if isinstance(v, (bool, np.bool_, complex, np.complexfloating, str, bytes)):
                bad = i
                break
    if bad is not None:
        raise TypeError(f"window column {col!r} must hold real numbers; row {bad} has "
                        f"{sequence_label(values.iloc[bad])!r}")


def _positions(window: pd.DataFrame, col: str) -> np.ndarray:
    """int64 coordinates, checked as integers (no float round trip)."""
    _refuse_kind(window[col], col)
    return _integer_column(window, col, "window", lambda i: f"row {i}")


def _counts(window: pd.DataFrame) -> np.ndarray:
    values = window["count"]
    _refuse_kind(values, "count")
    try:
        vals = np.asarray(values.to_numpy(), dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError("window column 'count' must be numeric") from exc
    bad = ~np.isfinite(vals) | (vals < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"window column 'count' must be finite and >= 0; row {i} has "
                         f"{sequence_label(values.iloc[i])!r}")
    return vals


def _check_region(region):
    if region is None:
        return None
    try:
        pair = tuple(region)
    except TypeError:
        pair = ()
    ok = len(pair) == 2 and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
        or isinstance(v, (float, np.floating)) and math.isfinite(v) and v == int(v)
        for v in pair)
    if not ok:
        raise TypeError(f"region must be two integers (chromStart, chromEnd), got {region!r}")
    lo, hi = (int(v) for v in pair)
    if not 0 <= lo < 2**63 or not 0 <= hi < 2**63:
        raise ValueError(f"region {region!r} must lie in 0 .. 2**63 − 1")
    return lo, hi


def _samples(window: pd.DataFrame, region, extent: str = "union"):
    """Validated rows of each sample (sorted, gap-free, clipped) and the window bounds
    (int64 positions throughout)."""
    if not isinstance(window, pd.DataFrame):
        raise TypeError(f"window must be a pandas DataFrame, got {type(window).__name__}")
    require_columns(window, WINDOW_COLUMNS, "window")
    if len(window) == 0:
        raise ValueError("window has no rows")
    if window["sample_id"].isna().any():
        raise ValueError("window column 'sample_id' has missing values")
    if "chrom" in window.columns and window["chrom"].nunique(dropna=False) > 1:
        raise ValueError(f"window must be on one chromosome; column 'chrom' has "
                         f"{list(pd.unique(window['chrom']))[:3]}")
    start = _positions(window, "chromStart")
    end = _positions(window, "chromEnd")
    count = _counts(window)
    if (end <= start).any():
        i = int(np.argmax(end <= start))
        raise ValueError(f"window row {i} has chromEnd {end[i]} <= chromStart {start[i]}")
    ids = window["sample_id"].to_numpy()
    samples = list(pd.unique(ids))
    codes = pd.Categorical(ids, categories=samples).codes
    groups = None
    if "group" in window.columns:
        if window["group"].isna().any():
            raise ValueError("window column 'group' has missing values")
        per = window.groupby("sample_id", sort=False)["group"].nunique()
        if (per > 1).any():
            sid = per.index[int(np.argmax(per.to_numpy() > 1))]
            raise ValueError(f"window sample {sid!r} has several values in column 'group'")
        first = window.drop_duplicates("sample_id").set_index("sample_id")["group"]
        groups = [first.loc[s] for s in samples]
    rows = []
    order = np.lexsort((start, codes))
    bounds = np.searchsorted(codes[order], np.arange(len(samples) + 1))
    for s in range(len(samples)):
        o = order[bounds[s]:bounds[s + 1]]
        st, en, c = start[o], end[o], count[o]
        if (st[1:] < en[:-1]).any():
            r = int(np.argmax(st[1:] < en[:-1]))
            raise ValueError(f"window sample {samples[s]!r} has overlapping rows: one ends "
                             f"at {en[r]}, the next starts at {st[r + 1]}")
        gap = st[1:] > en[:-1]
        if gap.any():  # zero-coverage gaps are zeros
            gs, ge = en[:-1][gap], st[1:][gap]
            st = np.concatenate([st, gs])
            en = np.concatenate([en, ge])
            c = np.concatenate([c, np.zeros(int(gap.sum()))])
            o = np.argsort(st, kind="stable")
            st, en, c = st[o], en[o], c[o]
        rows.append((st, en, c))
    firsts = np.array([r[0][0] for r in rows], dtype=np.int64)
    lasts = np.array([r[1][-1] for r in rows], dtype=np.int64)
    if region is not None:
        lo, hi = region
        if hi - lo < 3:
            raise ValueError(f"region {region!r} must span at least 3 bases")
        bad = (firsts > lo) | (lasts < hi)
        if bad.any():
            s = int(np.argmax(bad))
            raise ValueError(f"window sample {samples[s]!r} covers {firsts[s]}-"
                             f"{lasts[s]}, not all of the region {lo}-{hi}")
    elif extent == "union":
        lo, hi = int(firsts.min()), int(lasts.max())
        if hi - lo < 3:
            raise ValueError(f"window spans only {hi - lo} bases; a peak needs at least 3")
        for s, (st, en, c) in enumerate(rows):  # bases before / after a sample's rows: zeros
            pre, post = int(st[0] > lo), int(en[-1] < hi)
            rows[s] = (np.concatenate([np.array([lo] * pre, np.int64), st, en[-1:][:post]]),
                       np.concatenate([st[:pre], en, np.array([hi] * post, np.int64)]),
                       np.concatenate([[0.0] * pre, c, [0.0] * post]))
    else:
        lo, hi = int(firsts.max()), int(lasts.min())
        if hi - lo < 3:
            raise ValueError(
                f"window samples share only {max(hi - lo, 0)} bases (the common range "
                f"of all samples, {lo}-{hi}); a peak needs at least 3")
    if hi - lo > 2**52:
        raise ValueError(f"window spans {hi - lo} bases; at most 2**52 are supported")
    clipped = []
    for st, en, c in rows:
        keep = (en > lo) & (st < hi)
        clipped.append((np.maximum(st[keep], lo) - lo, np.minimum(en[keep], hi) - lo,
                        c[keep]))
    return samples, groups, clipped, lo, hi


#: The longest grid cell (bases): longer runs get extra grid points, so that the branch
#: and bound's blocks shrink to few bases.
MAX_CELL = 8
#: Default number of blocks the branch and bound may bound before it stops.
MAX_BLOCKS = 2_000_000
#: Blocks with at most this many peaks are searched base by base.
LEAF_PAIRS = 256
#: The heuristic's pyramid: bin sizes are powers of BIN_FACTOR, the coarsest level has at
#: least COARSE_BINS bins.
BIN_FACTOR = 2
COARSE_BINS = 40
#: The branch and bound's pruning tolerance, relative to the losses' scale (see above).
REL_TOL = 1e-12


def _grid(rows, N: int, start: int) -> _Grid:
    """The grid: row boundaries of every sample, the bases next to the window ends, and
    extra points so that no cell is longer than :data:`MAX_CELL` bases (positions
    relative to the window start)."""
    from penlearn.peaks.joint import _kernel as kern  # numba: on first use only

    P = np.unique(np.concatenate([st[1:] for st, _, _ in rows]
                                 + [np.array([0, 1, N - 1, N], np.int64)]))
    long = np.flatnonzero(np.diff(P) > MAX_CELL)
    if len(long):
        extra = [np.arange(P[i] + MAX_CELL, P[i + 1], MAX_CELL) for i in long]
        P = np.unique(np.concatenate([P, *extra]))
    P = P.astype(float)
    off = np.cumsum([0] + [len(st) for st, _, _ in rows])
    cnt, cyT, csat = kern.build_grid(
        P, np.concatenate([st for st, _, _ in rows]).astype(float),
        np.concatenate([en for _, en, _ in rows]).astype(float),
        np.concatenate([c for _, _, c in rows]).astype(float), off)
    tot = cyT[-1].copy()
    flat = np.array([kern.seg_loss(float(N), t) for t in tot])
    change = np.diff(cnt, axis=0).T != 0  # (S, G − 1): the count changes at grid point g + 1
    bidx = np.flatnonzero(change) % max(change.shape[1], 1) + 1
    boff = np.r_[0, np.cumsum(change.sum(axis=1))].astype(np.int64)
    return _Grid(int(start), P, cnt, cyT, csat, tot, flat, bidx.astype(np.int64), boff)


def _solve_units(grid: _Grid, unit: np.ndarray, n_units: int, method: str,
                 max_blocks: int, leaf: int = LEAF_PAIRS, cut: int = 1,
                 tries: np.ndarray | None = None):
    """Best top-k decrease (−inf: no model), its peak, and whether proven, k = 0..n
    (``leaf``: blocks with at most this many peaks are searched base by base; ``cut``:
    the cut bound never (0), where it pays (1) or always (2); ``tries``, (64, 3) int64:
    receives per block size the cut bound's tries, drops and skips)."""
    from penlearn.peaks.joint import _heuristic  # numba: on first use only
    from penlearn.peaks.joint import _kernel as kern

    best = np.full(n_units + 1, -np.inf)
    best[0] = 0.0
    ba = np.full(n_units + 1, np.nan)
    bb = np.full(n_units + 1, np.nan)
    args = (grid.P, grid.cyT, grid.cnt, grid.tot, grid.flat, unit)
    _heuristic.heuristic(*args, float(BIN_FACTOR), float(COARSE_BINS), best, ba, bb)
    proven = np.full(n_units + 1, method == "exact")
    proven[0] = True
    if method == "exact":
        N = float(grid.P[-1])
        tol = REL_TOL * (1.0 + math.log(N)) * float(grid.tot.sum())
        kern.branch_and_bound(grid.P, grid.cyT, grid.cnt, grid.csat, grid.bidx, grid.boff,
                              grid.tot, grid.flat, unit, best, ba, bb, leaf,
                              max_blocks, tol, proven, cut,
                              np.zeros((64, 3), np.int64) if tries is None else tries)
    return best, ba, bb, proven


def _up_matrix(grid: _Grid, unit: np.ndarray, n: int, best, bi, bj) -> np.ndarray:
    """Which units are up in each model (row k = 0..n; all False where no model)."""
    from penlearn.peaks.joint import _kernel as kern  # numba: on first use only

    up = np.zeros((n + 1, n), dtype=bool)
    dec = np.empty(n)
    for k in range(1, n + 1):
        if np.isfinite(best[k]):
            kern.peak_decreases(grid.P, grid.cyT, grid.cnt, grid.tot, grid.flat, unit,
                                bi[k], bj[k], dec)
            up[k, np.argsort(-dec, kind="stable")[:k]] = True
    return up


def _models(grid: _Grid, unit: np.ndarray, names: list, best, bi, bj, proven):
    """Loss, peak, up, selection and proven for one kind of unit (samples or groups)."""
    n = len(names)
    ks = pd.RangeIndex(n + 1, name="k")
    found = np.isfinite(best)
    loss = pd.Series(np.where(found, float(grid.flat.sum()) - best, np.nan), index=ks,
                     name="loss")
    up = _up_matrix(grid, unit, n, best, bi, bj)
    ends = {}
    for col, at in (("chromStart", bi), ("chromEnd", bj)):
        vals = [grid.start + int(v) if f else pd.NA for v, f in zip(at[1:], found[1:])]
        ends[col] = pd.array(vals, dtype="Int64")
    peak = pd.DataFrame(ends, index=pd.RangeIndex(1, n + 1, name="k"))
    up_df = pd.DataFrame(up, index=ks, columns=pd.Index(names))
    table = pd.DataFrame({"k": np.arange(n + 1), "loss": loss.to_numpy()})[found]
    sel = model_selection("loss", "k", table)
    sel = sel[["min_lambda", "max_lambda", "min_log_lambda", "max_log_lambda", "k", "loss"]]
    return loss, peak, up_df, sel.reset_index(drop=True), pd.Series(proven, index=ks,
                                                                     name="proven")


def joint_peak(window: pd.DataFrame, *, region=None, extent: str = "union",
               method: str = "exact", max_blocks: int = MAX_BLOCKS) -> JointPeakFit:
    """Exact joint peak models (PeakSegJoint's strict model) of one window, every k.

    Parameters
    ----------
    window : DataFrame
        Coverage rows ``sample_id, chromStart, chromEnd, count`` (0-based half-open
        ``[chromStart, chromEnd)`` integers, weight ``chromEnd − chromStart``; counts
        real numbers >= 0), optional ``group`` (one value per sample). Rows need not be
        sorted; gaps within a sample are zeros.
    region : (int, int), optional
        The bases ``[chromStart, chromEnd)`` to fit; every sample must cover them (else a
        ``ValueError``); rows beyond are clipped.
    extent : {"union", "common"}
        Without ``region``, the bases to fit when samples start or end at different
        bases: ``"union"`` (default) from the first ``chromStart`` to the last
        ``chromEnd`` of all samples, the bases a sample has no row for counting as
        zeros (as gaps do, and as PeakSegJoint does); ``"common"`` only the bases every
        sample covers.
    method : {"exact", "heuristic"}
        ``"exact"``: the heuristic's peaks first, then a branch and bound over every
        peak of bases. ``"heuristic"``: the bin-pyramid search only (PeakSegJoint's kind
        of search); ``fit.exact`` is then False.
    max_blocks : int
        The branch and bound stops after bounding this many blocks of peaks (about a
        microsecond each), keeping the best peaks found (never worse than the
        heuristic's); ``fit.proven`` then says which k are still proven optimal and
        ``fit.exact`` is False.

    Returns
    -------
    JointPeakFit
        ``loss`` (k = 0..S; NaN where no peak has k samples strictly up-down), ``peak``
        (k = 1..S, nullable integers, missing where the loss is NaN), ``up`` (all False
        where the loss is NaN), ``selection`` (over the k that exist), ``exact``,
        ``proven``; with groups also ``group_loss``, ``group_peak``, ``group_up``,
        ``group_selection``, ``group_proven``.

    Raises
    ------
    TypeError
        A window that is not a DataFrame; boolean, complex or text values in a numeric
        column; a ``region`` that is not two integers (``(2.5, 20.5)`` is refused, not
        truncated).
    ValueError
        Missing columns, non-integer or negative coordinates, coordinates beyond the
        64-bit range, negative or non-finite counts, overlapping rows, a window of fewer
        than 3 bases, a region some sample does not cover.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [("a", 0, 10, 1), ("a", 10, 20, 9), ("a", 20, 30, 1),
    ...         ("b", 0, 12, 2), ("b", 12, 30, 2)]
    >>> window = pd.DataFrame(rows, columns=["sample_id", "chromStart", "chromEnd", "count"])
    >>> fit = joint_peak(window)
    >>> fit.peak.loc[1].tolist(), fit.up.loc[1].tolist()
    ([10, 20], [True, False])
    >>> bool(fit.loss.isna()[2])  # b is flat: never strictly up-down, no model with 2 up
    True
    """
    if isinstance(max_blocks, bool) or not isinstance(max_blocks, (int, np.integer)) \
            or max_blocks < 1:
        raise ValueError(f"max_blocks must be a positive integer, got {max_blocks!r}")
    if method not in ("exact", "heuristic"):
        raise ValueError(f"method must be 'exact' or 'heuristic', got {method!r}")
    if extent not in ("union", "common"):
        raise ValueError(f"extent must be 'union' or 'common', got {extent!r}")
    samples, groups, rows, lo, hi = _samples(window, _check_region(region), extent)
    grid = _grid(rows, hi - lo, lo)
    S = len(samples)
    unit = np.arange(S, dtype=np.int64)
    best, bi, bj, proven = _solve_units(grid, unit, S, method, max_blocks)
    loss, peak, up, sel, proven = _models(grid, unit, samples, best, bi, bj, proven)
    exact = bool(proven.all())
    g = {}
    if groups is not None:
        names = list(pd.unique(np.asarray(groups, dtype=object)))
        gunit = np.array([names.index(x) for x in groups], dtype=np.int64)
        gb, gi, gj, gproven = _solve_units(grid, gunit, len(names), method, max_blocks)
        gl, gp, gu, gs, gproven = _models(grid, gunit, names, gb, gi, gj, gproven)
        exact = exact and bool(gproven.all())
        g = dict(group_loss=gl, group_peak=gp, group_up=gu, group_selection=gs,
                 group_proven=gproven,
                 groups=pd.Series(groups, index=pd.Index(samples, name="sample_id"),
                                  name="group"))
    return JointPeakFit(loss=loss, peak=peak, up=up, selection=sel, exact=exact, proven=proven,
                        chromStart=int(lo), chromEnd=int(hi), **g)


def warm(say: bool = True) -> bool:
    """Compile (or load) the joint model's kernels before a progress bar starts
    (:func:`penlearn._numba_cache.warm_kernels`).

    Examples
    --------
    >>> warm(say=False) in (True, False)
    True
    """
    from penlearn._numba_cache import warm_kernels
    from penlearn.peaks.joint import _heuristic  # numba: on first use only
    from penlearn.peaks.joint import _kernel as kern

    window = pd.DataFrame({"sample_id": ["a"] * 3 + ["b"] * 3, "chromStart": [0, 10, 20] * 2,
                           "chromEnd": [10, 20, 30] * 2, "count": [1, 5, 1, 0, 6, 0]})
    kernels = (kern.branch_and_bound, _heuristic.heuristic, kern.seg_loss)
    return warm_kernels("joint peak", kernels,
                        lambda: joint_peak(window), say)


JointPeakFit.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
