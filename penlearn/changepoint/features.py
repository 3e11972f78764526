"""Sequence features: the inputs x_i of the learned penalty log λ_i = f(x_i).

Three feature sets, one row per sequence:

* ``"penaltyLearning"`` (default): the 365 features of ``penaltyLearning::featureVector``
  / ``featureMatrix`` (Hocking et al. 2013, ICML; used by the AUM papers' neuroblastoma
  experiments). For the number of data n: n, √n, log n, log log n, n². For each of the
  series *data* x, *residual* x − mean(x) and *diff* x_{i+1} − x_i, under each of the
  maps orig / abs / square: its sum, mean, sd and 0, 25, 50, 75, 100% quantiles (R's
  default "type 7"), each statistic then reported under identity / sqrt / log / loglog /
  square. ``"data abs.log.quantile.25%"`` is log(25% quantile of |x|). NaN where a
  transform is undefined (√ or log of a negative number), −inf from log 0.
* ``"chipseq"``: the 36 features of the UCI ChIP-seq sets (Hocking et al. 2017,
  *Bioinformatics* 33(4)): ``quartile.0%``…``quartile.100%``, ``mean``, ``sd``,
  ``bases`` (last − first position) and ``data`` (number of points) of the values, each
  also under the transforms ``log+1.``, ``log.`` and ``log.log.``.
* ``"neuroblastoma"``: the 117 columns of ``penaltyLearning::neuroblastomaProcessed$feature.mat``
  (Rigaill, Hocking, Vert & Bach 2013, ICML), each reproduced exactly from the raw profiles:
  ``mad`` = median |x_{i+1} − x_i| (median absolute difference of consecutive values, no
  scale constant), ``hall`` (Hall's difference-based noise estimate), ``emilie`` =
  log(5 + 2 log n) (the factor 2 log(n/D) + 5 of Lebarbier's 2005 model-selection penalty
  at D = 1; there is no ``log.emilie``), ``n``, ``log.n``, ``log2.n`` (= log log n, the
  BIC feature), ``bases``, ``probes.per.base``, ``bases.per.probe`` (``mad``, ``hall``
  and these three each with its ``log.``), ``rss.k``, ``mse.k`` = rss.k / n and their
  logs for k = 1..20 (rss.k = the optimal square loss with k segments), and, only when
  the sequences table has a ``chromosome`` column, the 0/1 indicators ``chr1``…``chr22``,
  ``chrX``. Without that column the set has the first 94 columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from penlearn.changepoint.segmentation import _check_sequences, segment

FEATURE_SETS = ("penaltyLearning", "chipseq", "neuroblastoma")
_MAPS1 = ("orig", "abs", "square")
_MAPS2 = ("identity", "sqrt", "log", "loglog", "square")
_STATS = ("sum", "mean", "sd", "quantile.0%", "quantile.25%", "quantile.50%",
          "quantile.75%", "quantile.100%")
_PROBS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Hall, Kay & Titterington (1990) optimal difference weights (order 3).
_HALL_WEIGHTS = np.array([0.1942, 0.2809, 0.3832, -0.8582])


def _apply(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        if name in ("orig", "identity"):
            return x
        if name == "abs":
            return np.abs(x)
        if name == "square":
            return x * x
        if name == "sqrt":
            return np.sqrt(x)
        if name == "log":
            return np.log(x)
        if name == "loglog":
            return np.log(np.log(x))
    raise ValueError(name)


def quantile_type7(x: np.ndarray, probs) -> np.ndarray:
    """R's default quantile (type 7), including its handling of infinite values.

    Examples
    --------
    >>> quantile_type7(np.array([1.0, 2.0, 4.0, 8.0]), [0.25, 0.5]).tolist()
    [1.75, 3.0]
    """
    xs = np.sort(x)
    n = len(xs)
    index = np.asarray(probs, dtype=float) * (n - 1)
    lo = np.floor(index).astype(int)
    hi = np.ceil(index).astype(int)
    qs = xs[lo].astype(float)
    h = index - lo
    interp = (index > lo) & (xs[hi] != qs)
    with np.errstate(invalid="ignore"):
        qs[interp] = (1 - h[interp]) * qs[interp] + h[interp] * xs[hi[interp]]
    return qs


def _stats(v: np.ndarray) -> list[float]:
    with np.errstate(invalid="ignore", over="ignore"):
        total = float(np.sum(v))
        mean = float(np.mean(v))
        sd = float(np.std(v, ddof=1)) if len(v) > 1 else np.nan
    return [total, mean, sd, *quantile_type7(v, _PROBS).tolist()]


def feature_vector(values) -> pd.Series:
    """The 365 ``penaltyLearning::featureVector`` features of one sequence.

    Parameters
    ----------
    values : array_like
        At least two finite numbers.

    Returns
    -------
    Series
        Indexed by the reference feature names.

    Examples
    --------
    >>> fv = feature_vector([0.0, 1.0])
    >>> len(fv), float(fv["n.identity"]), float(fv["data orig.identity.mean"])
    (365, 2.0, 0.5)
    """
    x = np.asarray(values)
    if x.ndim != 1 or len(x) < 2 or not np.issubdtype(x.dtype, np.number):
        raise ValueError(
            "values must be a numeric data sequence with at least two elements, all finite"
        )
    x = x.astype(float)
    if not np.isfinite(x).all():
        raise ValueError(
            "values must be a numeric data sequence with at least two elements, all finite"
        )
    n = float(len(x))
    names = [f"n.{t}" for t in _MAPS2]
    vals = [_apply(t, np.array(n)).item() for t in _MAPS2]
    series = {"data": x, "residual": x - x.mean(), "diff": np.diff(x)}
    for sname, s in series.items():
        for m1 in _MAPS1:
            st = np.array(_stats(_apply(m1, s)))
            for m2 in _MAPS2:
                names += [f"{sname} {m1}.{m2}.{stat}" for stat in _STATS]
                vals += _apply(m2, st).tolist()
    return pd.Series(vals, index=names, dtype=float)


def _chipseq_features(values: np.ndarray, positions: np.ndarray) -> list[float]:
    q = quantile_type7(values, _PROBS)
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else np.nan
    base = [*q, values.mean(), sd, float(positions[-1] - positions[0]), float(len(values))]
    base = np.array(base, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return [*base, *np.log(base + 1), *np.log(base), *np.log(np.log(base))]


def _chipseq_names() -> list[str]:
    stats = [f"quartile.{p}%" for p in (0, 25, 50, 75, 100)] + ["mean", "sd", "bases", "data"]
    return [f"{pre}{s}" for pre in ("", "log+1.", "log.", "log.log.") for s in stats]


def hall_sd(values) -> float:
    """Hall's difference-based estimate of the noise standard deviation.

    sqrt(mean over i of (Σ_j w_j x_{i+j})²) with the optimal order-3 weights of Hall,
    Kay & Titterington (1990, *Biometrika* 77(3)); the ``hall`` feature of
    ``neuroblastomaProcessed``.

    Examples
    --------
    >>> round(hall_sd([0.0, 0.0, 0.0, 0.0, 1.0]), 4)
    0.6068
    """
    x = np.asarray(values, dtype=float)
    if len(x) < 4:
        return np.nan
    d = np.convolve(x, _HALL_WEIGHTS[::-1], mode="valid")
    return float(np.sqrt(np.mean(d * d)))


def median_abs_diff(values) -> float:
    """Median of the absolute differences of consecutive values, median |x_{i+1} − x_i|.

    A robust noise scale that ignores the few jumps at changepoints; the ``mad`` feature of
    ``neuroblastomaProcessed`` (without the 1.4826 normal-consistency constant and without
    centring the differences). NaN for fewer than two values.

    Examples
    --------
    >>> median_abs_diff([0.0, 1.0, 3.0, 3.5, 10.0])
    1.5
    """
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return np.nan
    return float(np.median(np.abs(np.diff(x))))


#: Chromosome names of the ``chr1``…``chrX`` indicator columns, in column order.
CHROMOSOMES = tuple(str(c) for c in range(1, 23)) + ("X",)


def _chromosome_of(sid, chrom: np.ndarray) -> str:
    """The normalized chromosome name ("1".."22", "X") of one sequence's rows."""
    names = set()
    for c in pd.unique(chrom):
        if isinstance(c, (int, np.integer, float, np.floating)) and not isinstance(c, bool):
            if np.isfinite(c) and float(c).is_integer():
                c = str(int(c))
        name = str(c).strip()
        if name[:3].lower() == "chr":
            name = name[3:]
        name = name.upper()
        if name not in CHROMOSOMES:
            raise ValueError(
                f"sequences column 'chromosome': sequence {sid!r} has {c!r}; expected one of "
                "1..22, X (optionally prefixed by 'chr')"
            )
        names.add(name)
    if len(names) != 1:
        raise ValueError(
            f"sequences column 'chromosome': sequence {sid!r} has several chromosomes "
            f"{sorted(names)}; expected one per sequence"
        )
    return names.pop()


def _neuroblastoma_features(values, positions, k_max: int = 20) -> list[float]:

    n = float(len(values))
    bases = float(positions[-1] - positions[0])
    rss = np.full(k_max, np.nan)
    k = min(k_max, len(values))
    rss[:k] = segment(values, k).loss
    with np.errstate(divide="ignore", invalid="ignore"):
        mad = median_abs_diff(values)
        hall = hall_sd(values)
        base = [mad, np.log(mad), hall, np.log(hall), np.log(5 + 2 * np.log(n)),
                n, np.log(n), np.log(np.log(n)), bases, np.log(bases),
                n / bases, np.log(n / bases), bases / n, np.log(bases / n)]
        mse = rss / n
        return [*base, *rss, *np.log(rss), *mse, *np.log(mse)]


def _neuroblastoma_names(k_max: int = 20) -> list[str]:
    ks = range(1, k_max + 1)
    return (["mad", "log.mad", "hall", "log.hall", "emilie", "n", "log.n", "log2.n",
             "bases", "log.bases", "probes.per.base", "log.probes.per.base",
             "bases.per.probe", "log.bases.per.probe"]
            + [f"rss.{k}" for k in ks] + [f"log.rss.{k}" for k in ks]
            + [f"mse.{k}" for k in ks] + [f"log.mse.{k}" for k in ks])


def feature_matrix(sequences: pd.DataFrame, features: str = "penaltyLearning") -> pd.DataFrame:
    """Features of every sequence of a long table.

    Parameters
    ----------
    sequences : DataFrame
        ``sequence_id, position, value`` (positions strictly increasing per sequence),
        optionally ``chromosome`` (one per sequence: 1..22 or X, as numbers or strings,
        with or without a ``chr`` prefix). The chromosome is used only by the
        ``"neuroblastoma"`` set, which then appends the indicators ``chr1``…``chrX``;
        other columns are ignored.
    features : {"penaltyLearning", "chipseq", "neuroblastoma"}
        The feature set (see the module docstring).

    Returns
    -------
    DataFrame
        Indexed by ``sequence_id`` (order of first appearance), one column per feature,
        with the reference feature names.

    Raises
    ------
    ValueError
        For an unknown feature set, a bad sequences table, or (``"neuroblastoma"``) a
        chromosome that is missing, unknown or not constant within a sequence.

    Examples
    --------
    >>> import pandas as pd
    >>> seqs = pd.DataFrame({"sequence_id": ["a"] * 3 + ["b"] * 2,
    ...                      "position": [1, 2, 3, 1, 5], "value": [0.0, 1.0, 2.0, 3.0, 3.0]})
    >>> fm = feature_matrix(seqs)
    >>> fm.shape, fm.loc["b", "data orig.identity.sd"]
    ((2, 365), np.float64(0.0))
    >>> feature_matrix(seqs, "chipseq").loc["a", "bases"]
    np.float64(2.0)
    >>> nb = feature_matrix(seqs.assign(chromosome=["1"] * 3 + ["chrX"] * 2), "neuroblastoma")
    >>> nb.shape, nb.loc["a", "mad"], nb.loc["b", ["chr1", "chrX"]].tolist()
    ((2, 117), np.float64(1.0), [0.0, 1.0])
    """
    if features not in FEATURE_SETS:
        raise ValueError(f"features must be one of {FEATURE_SETS}, got {features!r}")
    seq = _check_sequences(sequences)
    sid = seq["sequence_id"].to_numpy()
    codes = pd.factorize(sid)[0]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    ids = pd.Index(sid[starts], name="sequence_id")
    values = np.split(seq["value"].to_numpy(), starts[1:])
    positions = np.split(seq["position"].to_numpy(), starts[1:])
    rows = []
    for i, v, p in zip(ids, values, positions, strict=True):
        if features == "penaltyLearning":
            if len(v) < 2:
                raise ValueError(
                    f"sequences: sequence {i!r} has {len(v)} point(s); the penaltyLearning "
                    "features need at least two"
                )
            rows.append(feature_vector(v).to_numpy())
        elif features == "chipseq":
            rows.append(_chipseq_features(v, p))
        else:
            rows.append(_neuroblastoma_features(v, p))
    if features == "penaltyLearning":
        names = list(feature_vector([0.0, 1.0]).index)
    elif features == "chipseq":
        names = _chipseq_names()
    else:
        names = _neuroblastoma_names()
    fm = pd.DataFrame(np.array(rows, dtype=float), index=ids, columns=names)
    if features == "neuroblastoma" and "chromosome" in sequences.columns:
        # _check_sequences keeps the row order, so the split points apply to the column too
        chrom = np.split(sequences["chromosome"].to_numpy(), starts[1:])
        names = [_chromosome_of(i, c) for i, c in zip(ids, chrom, strict=True)]
        indicators = np.equal.outer(names, CHROMOSOMES).astype(float)
        fm = pd.concat([fm, pd.DataFrame(indicators, index=ids,
                                         columns=[f"chr{c}" for c in CHROMOSOMES])], axis=1)
    return fm
