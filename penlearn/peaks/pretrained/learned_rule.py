"""The narrow rule for a learned model: a few labels never flood and lose no peak the
default finds (issue 52 item 4).

The shipped default of a narrow mark is the zero-label model's narrow rule
(:class:`~penlearn.peaks.pretrained.ZeroLabelModel`): peaks proposed at its log λ + δ,
kept where their q-value <= ``qvalue``. A model ``penlearn learn`` makes from labeled
coverage sets its own level of log λ on the labels. Unfiltered, that level is a trade:
a few labels (one sample, ``noPeaks`` over a few kb) either drag it down to where the
unlabeled bases fill with noise peaks (the flood :mod:`penlearn.learn.flood` bounds) or
leave it where the weak true peaks the default finds are lost (benchmarks/RESULTS.md,
"control": 156 / 143 of the 180 the default finds at the lowest depth).

So a learned model carries the same rule, with the same δ and cutoff as the zero-label
model's (one rule, read from its file): ``penlearn peaks`` / ``callpeak --model M``
propose peaks at M's log λ + δ and keep those of q-value <= ``qvalue`` (``-q`` / ``-p`` /
``--qvalue`` replace the cutoff; ``--no-filter`` gives M's own peaks). The labels set the
level the rule starts from; the calibrated q-value, not the labels' few ``noPeaks``, is
what keeps the noise out of the unlabeled bases.

The labels also say whether the rule applies at all: :func:`choose_rule` (``penlearn
learn``, on its labeled coverage) computes the peaks of the training windows as
``peaks --model`` would write them, with and without the rule, and keeps the rule when
it makes no more label errors than the model's own λ. A broad mark's labels refuse it
(the summit's q-value drops the true parts of broad domains: RESULTS "sensitivity, the
shipped narrow rule", H3K36me3) and keep the model's own λ, no filter.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from penlearn.learn.model import PenaltyModel
from penlearn.peaks.formats.peak_columns import significant
from penlearn.peaks.peakseg.calls import peak_calls
from penlearn.peaks.peakseg.evaluation import predict_peaks
from penlearn.peaks.peakseg.features import coverage_features
from penlearn.peaks.peakseg.labels import peak_label_errors
from penlearn.peaks.pretrained._file_keys import check_rule

__all__ = ["RULE_KEY", "attach_rule", "choose_rule", "learned_rule", "rule_notice"]

#: The key of a learned model's ``level_`` that holds its narrow rule.
RULE_KEY = "narrow_rule"


def learned_rule(model: PenaltyModel) -> dict | None:
    """The narrow rule a learned model applies, ``{"shift": δ, "qvalue": q}``, or None
    (no rule: the model's own λ, no filter; a model learned before the rule, on a UCI
    folder, or whose labels refused it). A malformed rule is a ``ValueError``.

    Examples
    --------
    >>> from penlearn.learn.prior import constant_model
    >>> m = constant_model(["x"], 5.0)
    >>> learned_rule(m) is None
    True
    >>> m.level_ = {RULE_KEY: {"applied": "yes", "shift": -2.5, "qvalue": 0.05}}
    >>> learned_rule(m)
    {'shift': -2.5, 'qvalue': 0.05}
    """
    rule = (getattr(model, "level_", None) or {}).get(RULE_KEY)
    if not isinstance(rule, dict) or rule.get("applied") != "yes":
        return None
    return check_rule({"narrow": rule}, "the model file's level.narrow_rule")["narrow"]


def rule_notice(rule: dict) -> str:
    """What a learned model's rule does, said by ``peaks`` / ``callpeak --model``.

    Examples
    --------
    >>> rule_notice({"shift": -2.5, "qvalue": 0.05})  # doctest: +ELLIPSIS
    "the model's narrow rule: peaks proposed at its log λ -2.5 and kept where ... <= 0.05 ..."
    """
    return (f"the model's narrow rule: peaks proposed at its log λ {rule['shift']:+g} and "
            f"kept where their q-value <= {rule['qvalue']:g} (--no-filter: the model's "
            "own peaks)")


def _calls(coverage: pd.DataFrame, log_lambda: pd.Series, qvalue: float | None,
           summits: dict | None, tmpdir, segments_map=None) -> pd.DataFrame:
    """The peaks ``penlearn peaks`` writes at ``log_lambda`` (one sample at a time, its
    control's summits and q-values), of q-value <= ``qvalue`` (None: all)."""
    segs = predict_peaks(coverage, log_penalty=log_lambda, segments=True, tmpdir=tmpdir)
    if segments_map is not None:
        segs = segments_map(segs)
    if "sample_id" not in segs.columns:
        segs, coverage = segs.assign(sample_id=""), coverage.assign(sample_id="")
    parts = []
    for sid, part in segs.groupby("sample_id", sort=False):
        cov = coverage[coverage["sample_id"] == sid]
        ctrl = (summits or {}).get(str(sid))
        kw = {} if ctrl is None else {"control": ctrl[0], "control_scale": ctrl[1]}
        calls = peak_calls(part, cov, **kw)
        parts.append(calls if qvalue is None else significant(calls, qvalue=qvalue))
    out = pd.concat(parts, ignore_index=True) if parts else segs.iloc[:0]
    return out.assign(sample_id=out["sample_id"].astype(str))


def _sample_chrom(window_id: str) -> tuple[str, str]:
    """(sample, chromosome) of a feature id ``[sample/]chrom:start-end``."""
    head = str(window_id).rsplit(":", 1)[0]
    sid, _, chrom = head.rpartition("/")
    return sid, chrom


def _among(table: pd.DataFrame, pairs: set) -> pd.DataFrame:
    """The rows of ``table`` on the (sample, chromosome) ``pairs`` (no ``sample_id``: "")."""
    sids = table["sample_id"].astype(str) if "sample_id" in table.columns else [""] * len(table)
    keys = zip(sids, table["chrom"].astype(str))
    return table[np.fromiter((k in pairs for k in keys), bool, len(table))]


def _per_mb(calls: pd.DataFrame, bases: float) -> float:
    return round(len(calls) / bases * 1e6, 3) if bases > 0 else math.nan


def choose_rule(model: PenaltyModel, coverage: pd.DataFrame, labels: pd.DataFrame, *,
                plain: pd.DataFrame | None = None, summits: dict | None = None,
                ids=None, segments_map=None, tmpdir=None) -> dict:
    """Whether a learned model applies the narrow rule, by its labels: the block
    ``penlearn learn`` writes into ``model.level_[RULE_KEY]``.

    Parameters
    ----------
    model : PenaltyModel
        The learned model (of ChIP-seq coverage features).
    coverage : DataFrame
        The labeled samples' coverage the peak models see (``sample_id, chrom,
        chromStart, chromEnd, count[, background]``: a control's background column when
        there is one).
    labels : DataFrame
        Their peak labels (``sample_id, chrom, chromStart, chromEnd, annotation``).
    plain : DataFrame, optional
        The treatments' own coverage, for the features (default: ``coverage``).
    summits : dict, optional
        ``{sample id: (its control's coverage, scale)}`` for the summits and q-values.
    ids : list, optional
        The training windows (feature ids ``sample/chrom:start-end``): only their labels
        and peaks count (default: all).
    segments_map : callable, optional
        Segments -> segments before the peaks are reported (``--control-rule filter``:
        the peaks where the control is up turned to background, as ``peaks`` does).

    Returns
    -------
    dict
        ``applied`` ("yes" when the rule makes no more label errors than the model's own
        λ on these labels, else "no"; "no" without a label on the windows), the rule's
        ``shift`` and ``qvalue`` (the zero-label model's narrow rule), ``label_errors``
        / ``label_errors_own`` (with and without it), and the expected peaks per Mb of
        the labeled samples as the files give them: ``peaks_per_mb_default`` (the
        shipped default's rule), ``peaks_per_mb`` (the model as it will be applied).

    Examples
    --------
    >>> from penlearn.learn.prior import constant_model
    >>> rng = np.random.default_rng(1)
    >>> n = 2000
    >>> count = rng.poisson(2, n); count[900:950] += 40
    >>> cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
    ...     "chromStart": np.arange(n) * 50, "chromEnd": np.arange(1, n + 1) * 50,
    ...     "count": count})
    >>> lab = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
    ...     "chromStart": [44_000, 10_000], "chromEnd": [46_000, 20_000],
    ...     "annotation": ["peakStart", "noPeaks"]})
    >>> r = choose_rule(constant_model(["bases"], 9.0), cov, lab)
    >>> r["applied"], r["shift"], r["label_errors"], r["label_errors_own"]
    ('yes', -2.5, 0, 0)
    """
    from penlearn.peaks.pretrained import ZeroLabelModel

    zero = ZeroLabelModel("narrow")
    out = {"applied": "no", "shift": zero.shift,
           "qvalue": zero.qvalue if zero.qvalue is not None else 1.0}
    if zero.qvalue is None:  # a model file without the rule: nothing to apply
        return out
    features = coverage_features(coverage if plain is None else plain)
    labels = labels.assign(sample_id=labels["sample_id"].astype(str)) \
        if "sample_id" in labels.columns else labels.assign(sample_id="")
    kept = features.index if ids is None else features.index[features.index.isin(ids)]
    pairs = {_sample_chrom(i) for i in kept}
    # only the training windows are solved (each a whole (sample, chromosome))
    features, coverage, labels = features.loc[kept], _among(coverage, pairs), \
        _among(labels, pairs)
    if not len(labels):  # no label to judge by: the model's own λ
        return out
    own = pd.Series(model.predict(features), index=features.index)
    with warnings.catch_warnings():  # (the short-window notice: the default's level)
        warnings.simplefilter("ignore")
        default = zero.predict(features, filtered=True)
    bases = float(features["bases"].sum()) if "bases" in features.columns else 0.0
    calls = {k: _calls(coverage, ll, q, summits, tmpdir, segments_map) for k, ll, q in (
        ("own", own, None), ("rule", own + zero.shift, zero.qvalue),
        ("default", default, zero.qvalue))}
    errors = {k: int(peak_label_errors(v[["sample_id", "chrom", "chromStart", "chromEnd"]],
                                       labels).errors)
              for k, v in calls.items() if k != "default"}
    applied = errors["rule"] <= errors["own"]
    out.update(applied="yes" if applied else "no", label_errors=errors["rule"],
               label_errors_own=errors["own"],
               peaks_per_mb_default=_per_mb(calls["default"], bases),
               peaks_per_mb=_per_mb(calls["rule" if applied else "own"], bases))
    return out


def attach_rule(model: PenaltyModel, coverage: pd.DataFrame, labels: pd.DataFrame,
                **kw) -> dict:
    """:func:`choose_rule` written into ``model.level_[RULE_KEY]`` (what ``penlearn
    learn`` and the labeling page's *Save model* do); returns it.

    Examples
    --------
    >>> from penlearn.learn.prior import constant_model
    >>> cov = pd.DataFrame({"sample_id": "s", "chrom": "chr1",
    ...     "chromStart": np.arange(400) * 50, "chromEnd": np.arange(1, 401) * 50,
    ...     "count": 2})
    >>> lab = pd.DataFrame({"sample_id": ["s"], "chrom": "chr1", "chromStart": [100],
    ...     "chromEnd": [900], "annotation": ["noPeaks"]})
    >>> m = constant_model(["bases"], 9.0)
    >>> attach_rule(m, cov, lab)["applied"], learned_rule(m)
    ('yes', {'shift': -2.5, 'qvalue': 0.05})
    """
    r = choose_rule(model, coverage, labels, **kw)
    model.level_ = {**(getattr(model, "level_", None) or {}), RULE_KEY: r}
    return r
