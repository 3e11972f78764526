"""The zero-label model: one object that every surface asks for the penalty without labels.

``penlearn peaks``, ``callpeak``, ``joint``, ``propose``, the labeling page and
``penlearn learn``'s prior all take their zero-label log λ, their level (the mark's:
narrow or broad) and their notice from a :class:`ZeroLabelModel`; the formula is
:func:`~penlearn.peaks.pretrained.zero_label_log_lambda` (one function: a change of the
penalty's form reaches them all). In Python: :func:`penlearn.shipped_model`.

The narrow rule (issue 52 item 1): for a narrow mark the model file's
``zero_label_rule`` gives a ``shift`` δ and a ``qvalue``. The surfaces that write peak
files with their q-values (``penlearn peaks``, ``callpeak``) propose peaks at log λ + δ
(:meth:`~ZeroLabelModel.log_lambda` with ``filtered=True``) and keep those of q-value
<= ``qvalue`` (MACS3's default cutoff): a lower penalty finds the weak peaks MACS3
finds, the calibrated q-value drops the noise it lets through. Surfaces without
q-values (``joint``, ``propose``, the labeling page, ``learn``'s prior,
:func:`~penlearn.peaks.peakseg.evaluation.predict_peaks`) take the model's own λ
(``filtered=False``, the default): lowered without the filter, λ would call noise. A
broad mark keeps the model's λ with no filter.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import pandas as pd

from penlearn.learn.model import PenaltyModel

__all__ = ["ZeroLabelModel", "shipped_model"]


class ZeroLabelModel:
    """The shipped (or a pretrained) penalty model at the level of a mark.

    Parameters
    ----------
    mark : {"narrow", "broad"}
        ``"narrow"`` (MACS3's default: H3K4me3, H3K27ac, CTCF, ATAC, factors) or
        ``"broad"`` (MACS3's ``--broad``: H3K36me3, H3K27me3, H3K9me3, H3K4me1).
    path : path, optional
        A model file of ``penlearn pretrain`` (default: the shipped one).

    Attributes
    ----------
    mark : str
    pretrained : Pretrained
        The model file read (:func:`~penlearn.peaks.pretrained.load_pretrained`).
    shift : float
        δ added to log λ where the peaks are then kept at q-value <= :attr:`qvalue` (the
        file's ``zero_label_rule``; 0 for a broad mark or a file without the rule).
    qvalue : float or None
        The q-value cutoff of the rule (None: no rule, every peak of the model's λ).

    Examples
    --------
    >>> import pandas as pd
    >>> m = ZeroLabelModel("narrow")
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 300_000, 100),
    ...                     "chromEnd": range(100, 300_100, 100), "count": 3})
    >>> windows, log_lambda = m.log_lambda(cov)
    >>> log_lambda.index.tolist(), m.notice().startswith("the shipped zero-label")
    (['chr1:0-300000'], True)
    """

    def __init__(self, mark: str = "narrow", path=None):
        from penlearn.peaks.pretrained import load_pretrained, mark_offset

        self.pretrained = load_pretrained(path)
        mark_offset(self.pretrained, mark)  # a ValueError naming mark
        self.mark = mark
        rule = self.pretrained.rule.get(mark, {})
        self.shift = float(rule.get("shift", 0.0))
        self.qvalue = rule.get("qvalue")

    def __repr__(self) -> str:
        from penlearn.peaks.pretrained import DEFAULT_MODEL_PATH

        path = self.pretrained.path
        which = "the shipped model" if Path(path) == DEFAULT_MODEL_PATH else repr(path)
        return f"ZeroLabelModel(mark={self.mark!r}, {which})"

    def notice(self) -> str:
        """The one line every surface says when it uses this model (which model, learned
        on what, at which level, its leave-one-set-out error)."""
        return self.pretrained.note(self.mark)

    def rule_notice(self, cutoff: str | None = None) -> str:
        """What the narrow rule does, for the surfaces that apply it ("" without a rule;
        ``cutoff``: the user's, e.g. ``"p-value <= 1e-05"``, in place of the rule's).

        Examples
        --------
        >>> ZeroLabelModel("narrow").rule_notice().startswith("; peaks proposed at log λ")
        True
        >>> ZeroLabelModel("broad").rule_notice()
        ''
        """
        if self.qvalue is None:
            return ""
        kept = (f"their q-value <= {self.qvalue:g} (MACS3's default cutoff; --no-filter: "
                "the model's own peaks)") if cutoff is None else f"their {cutoff}"
        return f"; peaks proposed at log λ {self.shift:+g} and kept where {kept}"

    @cached_property
    def model(self) -> PenaltyModel:
        """The linear model at this mark's level, a :class:`~penlearn.PenaltyModel` (the
        prior of ``penlearn learn``, of ``propose --labels`` and of the labeling page's
        refits: it ranks windows, labels set its level). It is :meth:`predict` without the
        short-window shift (a step in the window's length, not a feature weight)."""
        from penlearn.peaks.pretrained import mark_offset

        base = self.pretrained.model
        model = PenaltyModel.from_dict(base.to_dict(), source=self.pretrained.path,
                                       task="peaks")
        model.task_ = "peaks"
        model.intercept_ = float(base.intercept_) + mark_offset(self.pretrained, self.mark)
        model.provenance_ = self.pretrained.provenance
        model.prior_name_ = base.prior_name_  # (the notice says the level)
        return model

    def windows(self, coverage: pd.DataFrame) -> pd.DataFrame:
        """Windows of ``coverage`` like the training windows
        (:func:`~penlearn.peaks.pretrained.default_windows`)."""
        from penlearn.peaks.pretrained import default_windows

        return default_windows(coverage,
                               max_bases=self.pretrained.provenance["windows"]["max_bases"])

    def predict(self, features: pd.DataFrame, *, whole=None,
                filtered: bool = False) -> pd.Series:
        """log λ of each row of ``features`` (coverage features of windows):
        :func:`~penlearn.peaks.pretrained.zero_label_log_lambda` at this mark's level
        (``filtered``: plus :attr:`shift`, for a caller that then keeps only the peaks of
        q-value <= :attr:`qvalue`)."""
        from penlearn.peaks.pretrained import zero_label_log_lambda

        ll = zero_label_log_lambda(features, self.pretrained, mark=self.mark, whole=whole)
        return ll + self.shift if filtered else ll

    def log_lambda(self, coverage: pd.DataFrame, windows: pd.DataFrame | None = None, *,
                   chrom_sizes: dict | None = None,
                   filtered: bool = False) -> tuple[pd.DataFrame, pd.Series]:
        """(windows, log λ of each window) of ``coverage``: ``windows`` if given (rows
        ``[sample_id,] chrom, chromStart, chromEnd[, sequence_id]``), else
        :meth:`windows`. ``chrom_sizes``: chromosome lengths known (a BAM header's, a
        chrom sizes file's); a whole chromosome shorter than every training window gets
        no short-window shift and no warning. ``filtered``: the narrow rule's λ (plus
        :attr:`shift`), for a caller that keeps only the peaks of q-value <=
        :attr:`qvalue` (``penlearn peaks``, ``callpeak``); never without that filter."""
        from penlearn.peaks.pretrained import default_log_lambda

        windows, ll = default_log_lambda(coverage, self.pretrained, windows=windows,
                                         mark=self.mark, chrom_sizes=chrom_sizes)
        return windows, (ll + self.shift if filtered else ll)


def shipped_model(mark: str = "narrow", path=None) -> ZeroLabelModel:
    """The shipped zero-label penalty model at the level of ``mark``: what ``penlearn
    peaks`` uses without ``--penalty`` or ``--model`` (``mark="broad"``: its ``--broad``).

    Examples
    --------
    >>> import penlearn as pl
    >>> m = pl.shipped_model()
    >>> m.mark, type(m.model).__name__
    ('narrow', 'PenaltyModel')
    """
    return ZeroLabelModel(mark, path)
