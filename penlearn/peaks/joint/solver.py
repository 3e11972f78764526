"""The exact joint peak model of several samples in one window (docs/design.md §8).

S samples cover one window. A model with k samples up has one common peak ``[a, b)``:
each up sample has three Poisson means (before, inside, after the peak) with the inside
mean >= both outside means (non-strict, as PeakSeg's up-down constraint, docs/design.md §7); every
other sample has one flat mean. The loss is PeakSeg's Poisson loss Σ w (m − y log m)
(Hocking et al. 2020, JMLR). For each k = 0..S, :func:`joint_peak` gives the model of
minimum total loss, *exactly*: PeakSegJoint (Hocking & Bourque 2015, "PeakSegJoint: fast
supervised peak detection via joint segmentation of multiple count data samples",
arXiv:1506.01286) computes the same models approximately, on a pyramid of bins. With a
``group`` column the same is done over groups (all samples of a group up together).

Where the optimum can be. For a fixed peak, a sample's best constrained loss is the
least loss among the feasible ones of four fits (free 3 means, segments 1-2 pooled,
segments 2-3 pooled, flat); its loss decrease d_s(a, b) >= 0, and the best model with k
samples up at ``[a, b)`` takes the k largest decreases, so
``loss(k) = flat − max over (a, b) of (sum of the k largest d_s(a, b))``. Inside a run
of bases where no sample's count changes, moving ``a`` (or ``b``, or both together when
the peak is one base wide) changes only weights: each fit's loss is then concave in the
move (the perspective ``Y log(Y/W)`` is jointly convex and Y, W move linearly), and each
fit is feasible on an interval (its constraints are linear in the move). At a feasibility
limit inside the run a constraint is tight and the fit's loss equals that of a simpler
fit (free → pooled → flat) that is feasible there; repeating the argument, an optimum
exists with both ``a`` and ``b`` at *grid points* (row boundaries of any sample, or the
bases next to the window's ends), or a one-base peak next to a grid point. Only those
peaks are searched; tests compare with a search over every base position. Non-strict
inequalities matter: the feasible sets are then closed, so the optimum is attained.

The search. A bin-pyramid heuristic like PeakSegJoint's (every pair of coarse bin
boundaries, then for each k a zoom to base resolution around its best peak) gives first
peaks for every k. A branch and bound then covers every candidate peak: a block of peaks
(a in one range of grid points, b in another; or both ends in one range, which also holds
the one-base peaks of its cells) gets, for each sample, an upper bound of its loss
decrease over the block (each segment's loss is at least the sum of the losses of its
parts fitted alone, a part inside the range where a or b can fall at least its saturated
loss; and a fit that the up-down constraint rules out for every peak of the block, as
its mean ranges show, is left out); a block whose top-k sum of bounds cannot beat the
best peak found for any k is dropped, the others are split until small enough to search
exhaustively. After ``max_blocks`` bounds the search stops and says, per k, whether the
model is still proven (no block left could improve it). Losses are compared in
floating point, so "exact" is up to rounding (1e-12 of the total flat loss).

Samples that do not start or end at the same base: by default the window spans all rows
(from the first ``chromStart`` to the last ``chromEnd`` of all samples) and the bases a
sample has no row for are zeros, as zero-coverage gaps between a sample's rows are
(docs/design.md §7); PeakSegJoint does the same, so losses compare with its. ``extent="common"``
fits only the bases all samples cover; ``region`` fits given bases, which every sample
must cover (else a ``ValueError``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn._checks import require_columns, sequence_label
from penlearn._repr import compact_repr
from penlearn.changepoint.model_selection import model_selection

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


def _numeric(df: pd.DataFrame, col: str) -> np.ndarray:
    try:
        vals = np.asarray(df[col].to_numpy(), dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"window column {col!r} must be numeric") from exc
    bad = ~np.isfinite(vals)
    if bad.any():
        raise ValueError(f"window column {col!r} must be finite; row {int(np.argmax(bad))} "
                         f"has {sequence_label(df[col].iloc[int(np.argmax(bad))])!r}")
    return vals


def _check_region(region):
    if region is None:
        return None
    try:
        lo, hi = (int(v) for v in region)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"region must be (chromStart, chromEnd), got {region!r}") from exc
    return lo, hi


def _samples(window: pd.DataFrame, region, extent: str = "union"):
    """Validated rows of each sample (sorted, gap-free, clipped) and the window bounds."""
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
    start = _numeric(window, "chromStart")
    end = _numeric(window, "chromEnd")
    count = _numeric(window, "count")
    for col, v in (("chromStart", start), ("chromEnd", end)):
        if (v != np.round(v)).any():
            raise ValueError(f"window column {col!r} must hold integers")
    if (end <= start).any():
        i = int(np.argmax(end <= start))
        raise ValueError(f"window row {i} has chromEnd {end[i]:g} <= chromStart {start[i]:g}")
    if (count < 0).any():
        i = int(np.argmax(count < 0))
        raise ValueError(f"window column 'count' must be >= 0; row {i} has {count[i]:g}")
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
                             f"at {en[r]:g}, the next starts at {st[r + 1]:g}")
        gap = st[1:] > en[:-1]
        if gap.any():  # zero-coverage gaps are zeros (docs/design.md §7)
            gs, ge = en[:-1][gap], st[1:][gap]
            st = np.concatenate([st, gs])
            en = np.concatenate([en, ge])
            c = np.concatenate([c, np.zeros(int(gap.sum()))])
            o = np.argsort(st, kind="stable")
            st, en, c = st[o], en[o], c[o]
        rows.append((st, en, c))
    firsts = np.array([r[0][0] for r in rows])
    lasts = np.array([r[1][-1] for r in rows])
    if region is not None:
        lo, hi = float(region[0]), float(region[1])
        if hi - lo < 3:
            raise ValueError(f"region {region!r} must span at least 3 bases")
        bad = (firsts > lo) | (lasts < hi)
        if bad.any():
            s = int(np.argmax(bad))
            raise ValueError(f"window sample {samples[s]!r} covers {firsts[s]:g}-"
                             f"{lasts[s]:g}, not all of the region {lo:g}-{hi:g}")
    elif extent == "union":
        lo, hi = float(firsts.min()), float(lasts.max())
        if hi - lo < 3:
            raise ValueError(f"window spans only {hi - lo:g} bases; a peak needs at least 3")
        for s, (st, en, c) in enumerate(rows):  # bases before / after a sample's rows: zeros
            pre, post = int(st[0] > lo), int(en[-1] < hi)
            rows[s] = (np.concatenate([[lo] * pre, st, [en[-1]] * post]),
                       np.concatenate([[st[0]] * pre, en, [hi] * post]),
                       np.concatenate([[0.0] * pre, c, [0.0] * post]))
    else:
        lo, hi = float(firsts.max()), float(lasts.min())
        if hi - lo < 3:
            raise ValueError(
                f"window samples share only {max(hi - lo, 0):g} bases (the common range "
                f"of all samples, {lo:g}-{hi:g}); a peak needs at least 3")
    clipped = []
    for st, en, c in rows:
        keep = (en > lo) & (st < hi)
        clipped.append((np.maximum(st[keep], lo), np.minimum(en[keep], hi), c[keep]))
    return samples, groups, clipped, lo, hi


def _grid(rows, lo, hi) -> _Grid:
    """The grid: row boundaries of every sample, and the bases next to the window ends."""
    from penlearn.peaks.joint import _kernel as kern  # numba: on first use only

    N = hi - lo
    P = np.unique(np.concatenate([st[1:] - lo for st, _, _ in rows]
                                 + [np.array([0.0, 1.0, N - 1.0, N])]))
    off = np.cumsum([0] + [len(st) for st, _, _ in rows])
    cnt, cyT, csat = kern.build_grid(
        P, np.concatenate([st for st, _, _ in rows]) - lo,
        np.concatenate([en for _, en, _ in rows]) - lo,
        np.concatenate([c for _, _, c in rows]).astype(float), off)
    tot = cyT[-1].copy()
    flat = np.array([kern.seg_loss(N, t) for t in tot])
    return _Grid(int(lo), P, cnt, cyT, csat, tot, flat)


#: Default number of blocks the branch and bound may bound before it stops.
MAX_BLOCKS = 500_000
#: Blocks with at most this many peaks are searched exhaustively.
LEAF_PAIRS = 16


#: The heuristic's pyramid: bin sizes are powers of BIN_FACTOR, the coarsest level has at
#: least COARSE_BINS bins.
BIN_FACTOR = 2
COARSE_BINS = 40


def _solve_units(grid: _Grid, unit: np.ndarray, n_units: int, method: str,
                 max_blocks: int):
    """Best top-k decrease, its peak, and whether proven, for k = 0..n_units."""
    from penlearn.peaks.joint import _kernel as kern  # numba: on first use only

    best = np.full(n_units + 1, -np.inf)
    best[0] = 0.0
    ba = np.full(n_units + 1, np.nan)
    bb = np.full(n_units + 1, np.nan)
    args = (grid.P, grid.cyT, grid.cnt, grid.tot, grid.flat, unit)
    kern.heuristic(*args, float(BIN_FACTOR), float(COARSE_BINS), best, ba, bb)
    proven = np.full(n_units + 1, method == "exact")
    proven[0] = True
    if method == "exact":
        tol = 1e-12 * max(1.0, float(np.abs(grid.flat).sum()))
        kern.branch_and_bound(grid.P, grid.cyT, grid.cnt, grid.csat, grid.tot, grid.flat,
                              unit, best, ba, bb, LEAF_PAIRS, max_blocks, tol, proven)
    return best, ba, bb, proven


def _models(grid: _Grid, unit: np.ndarray, names: list, best, bi, bj, proven):
    """Loss, peak, up, selection and proven for one kind of unit (samples or groups)."""
    from penlearn.peaks.joint import _kernel as kern  # numba: on first use only

    n = len(names)
    ks = pd.RangeIndex(n + 1, name="k")
    loss = pd.Series(float(grid.flat.sum()) - best, index=ks, name="loss")
    up = np.zeros((n + 1, n), dtype=bool)
    dec = np.empty(n)
    for k in range(1, n + 1):
        kern.peak_decreases(grid.P, grid.cyT, grid.cnt, grid.tot, grid.flat, unit, bi[k],
                            bj[k], dec)
        up[k, np.argsort(-dec, kind="stable")[:k]] = True
    peak = pd.DataFrame({
        "chromStart": (grid.start + bi[1:]).astype(np.int64),
        "chromEnd": (grid.start + bj[1:]).astype(np.int64),
    }, index=pd.RangeIndex(1, n + 1, name="k"))
    up_df = pd.DataFrame(up, index=ks, columns=pd.Index(names))
    table = pd.DataFrame({"k": np.arange(n + 1), "loss": loss.to_numpy()})
    sel = model_selection("loss", "k", table)
    sel = sel[["min_lambda", "max_lambda", "min_log_lambda", "max_log_lambda", "k", "loss"]]
    return loss, peak, up_df, sel.reset_index(drop=True), pd.Series(proven, index=ks,
                                                                     name="proven")


def joint_peak(window: pd.DataFrame, *, region=None, extent: str = "union",
               method: str = "exact", max_blocks: int = MAX_BLOCKS) -> JointPeakFit:
    """Exact joint peak models of several samples in one window, for every k.

    Parameters
    ----------
    window : DataFrame
        Coverage rows ``sample_id, chromStart, chromEnd, count`` (0-based half-open
        ``[chromStart, chromEnd)``, weight ``chromEnd − chromStart``), optional ``group``
        (one value per sample). Rows need not be sorted; gaps within a sample are zeros.
    region : (chromStart, chromEnd), optional
        The bases to fit; every sample must cover them (else a ``ValueError``); rows
        beyond are clipped.
    extent : {"union", "common"}
        Without ``region``, the bases to fit when samples start or end at different
        bases: ``"union"`` (default) from the first ``chromStart`` to the last
        ``chromEnd`` of all samples, the bases a sample has no row for counting as
        zeros (as gaps do, docs/design.md §7, and as PeakSegJoint does); ``"common"`` only the
        bases every sample covers.
    method : {"exact", "heuristic"}
        ``"exact"``: the heuristic's peaks first, then a branch and bound over every
        candidate peak. ``"heuristic"``: the bin-pyramid search only (PeakSegJoint's kind
        of search); ``fit.exact`` is then False.
    max_blocks : int
        The branch and bound stops after bounding this many blocks of peaks (about a
        microsecond each), keeping the best peaks found (never worse than the
        heuristic's); ``fit.proven`` then says which k are still proven optimal and
        ``fit.exact`` is False. Windows with a clear peak need a few thousand blocks;
        pure noise (no peak anywhere, many near-equal models) may need more than 10^6.

    Returns
    -------
    JointPeakFit
        ``loss`` (k = 0..S), ``peak`` (k = 1..S), ``up``, ``selection``, ``exact``; with
        groups also ``group_loss``, ``group_peak``, ``group_up``, ``group_selection``.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [("a", 0, 10, 1), ("a", 10, 20, 9), ("a", 20, 30, 1),
    ...         ("b", 0, 12, 2), ("b", 12, 30, 2)]
    >>> window = pd.DataFrame(rows, columns=["sample_id", "chromStart", "chromEnd", "count"])
    >>> fit = joint_peak(window)
    >>> fit.peak.loc[1].tolist(), fit.up.loc[1].tolist()
    ([10, 20], [True, False])
    >>> bool(fit.loss[2] == fit.loss[1])  # b is flat: up with equal means, no decrease
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
    grid = _grid(rows, lo, hi)
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
    from penlearn.peaks.joint import _kernel as kern  # numba: on first use only

    window = pd.DataFrame({"sample_id": ["a"] * 3 + ["b"] * 3, "chromStart": [0, 10, 20] * 2,
                           "chromEnd": [10, 20, 30] * 2, "count": [1, 5, 1, 0, 6, 0]})
    return warm_kernels("joint peak", (kern.branch_and_bound, kern.heuristic, kern.seg_loss),
                        lambda: joint_peak(window), say)


JointPeakFit.__repr__ = compact_repr  # a few lines: figures and shapes (penlearn._repr)
