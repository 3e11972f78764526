"""The zero-label penalty model, learned from every labeled UCI ChIP-seq set of a folder.

``penlearn pretrain DATA_DIR --out MODEL.json`` (and :func:`pretrain`) reads each
sub-folder of ``DATA_DIR`` in the UCI format whose ``inputs.csv`` has the 36 ChIP-seq
coverage features (the 17 sets of Hocking et al. 2017, "Optimizing ChIP-seq peak
detectors using visual labels and supervised machine learning", *Bioinformatics*
33(4):491-499; the UCI "chipseq" benchmark; neuroblastoma and other feature sets are
skipped), learns the model of :mod:`penlearn.peaks.pretrained.fit` on all of them and
writes it with a provenance block: the sets, the features, the learner, the level of
narrow and of broad marks, the penlearn version and each set's test label errors when it
is left out. The model shipped in
``penlearn/peaks/pretrained/default.json`` is this command's output on the 17 sets.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import check_error_counts
from penlearn._tables import ID_COLUMNS, _find, table_columns
from penlearn._version import package_version
from penlearn.datasets.uci import load_uci
from penlearn.learn.model import PenaltyModel
from penlearn.peaks.peakseg.features import FEATURE_COLUMNS
from penlearn.peaks.pretrained.fit import (
    FEATURES,
    fit_dispersion_model,
    leave_one_set_out,
    mark_class,
    mark_intercept,
    model_data,
    slope_grid,
)

__all__ = ["SOURCES", "chipseq_sets", "pretrain"]

#: What the shipped model was learned from, cited in its provenance.
SOURCES = [
    "Hocking TD, Goerner-Potvin P, Morin A, Shao X, Pastinen T, Bourque G (2017). "
    "Optimizing ChIP-seq peak detectors using visual labels and supervised machine "
    "learning. Bioinformatics 33(4):491-499.",
    "UCI Machine Learning Repository, 'chipseq' data set (labeled ChIP-seq problems of "
    "github.com/tdhock/feature-learning-benchmark), in the UCI format of "
    "github.com/tdhock/neuroblastoma-data (data/<set>/{inputs,evaluation}.csv).",
]
LEARNER = ("log λ = intercept + b·(2·log.sd − log.mean) (log index of dispersion of the "
           "window's per-base coverage); b on a grid of step 0.01 in [-0.5, 2], the one of "
           "fewest label errors averaged over b ± {smooth}; intercept by an exact sweep; "
           "fewest label errors with every set weighing the same; features clipped to their "
           "training range at prediction")


def chipseq_sets(data_dir) -> list[str]:
    """The sub-folders of ``data_dir`` that are labeled UCI ChIP-seq sets: an
    ``evaluation.csv`` and an ``inputs.csv`` with a sequence id column and the 36
    coverage features (in any order, beside other columns; the header read by the one
    reader of UCI tables, :func:`penlearn.datasets.load_uci`'s: quoted as R's
    ``write.csv`` writes it, compressed whatever its name).

    Examples
    --------
    >>> import tempfile
    >>> chipseq_sets(tempfile.mkdtemp())
    []
    """
    root = Path(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"data folder {str(root)!r} does not exist")
    out = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        inputs, evaluation = _find(d, "inputs"), _find(d, "evaluation")
        if inputs is None or evaluation is None:
            continue
        columns = set(table_columns(inputs))
        if columns & set(ID_COLUMNS) and set(FEATURE_COLUMNS) <= columns:
            out.append(d.name)
    return out


def _load(root: Path, names: list[str]):
    X, evs, groups = [], [], []
    for name in names:
        ds = load_uci(root / name)  # the one reader of UCI tables: whole rows, checked
        ev = ds.evaluation
        check_error_counts(ev, f"set {name!r}: evaluation")  # what the fit counts
        ids = ds.inputs.index.intersection(pd.Index(ev["sequence_id"].unique()))
        n_labels = ev[ev["sequence_id"].isin(ids)].groupby("sequence_id")["labels"].first()
        if not n_labels.sum() > 0:
            raise ValueError(f"set {name!r} has no label on a sequence of its inputs "
                             "(labels is 0 everywhere, or no sequence id is in both "
                             "tables): it cannot weigh in the fit")
        X.append(ds.inputs.loc[ids, list(FEATURES)])
        evs.append(ev[ev["sequence_id"].isin(ids)])
        groups.append(pd.Series(name, index=ids))
    features = pd.concat(X)
    if features.index.has_duplicates:
        raise ValueError(f"sequence {features.index[features.index.duplicated()][0]!r} is "
                         "in two data sets")
    return features, pd.concat(evs, ignore_index=True), pd.concat(groups)


def pretrain(data_dir, *, exclude=(), loso: bool = True) -> PenaltyModel:
    """Learn the zero-label penalty model from every labeled ChIP-seq set of ``data_dir``.

    Parameters
    ----------
    data_dir : path
        A folder of UCI-format sets (e.g. the neuroblastoma-data ``data/`` folder).
    exclude : sequence of str
        Set (folder) names to leave out, e.g. to evaluate the model on them.
    loso : bool
        Also measure each set's test label errors when it is left out (one fit per set),
        recorded in the provenance.

    Returns
    -------
    PenaltyModel
        A linear model of log λ on ``log.sd`` and ``log.mean`` (clipped to the training
        range), with ``provenance_`` (dict, also written into the model file by
        :func:`penlearn.peaks.pretrained.save_pretrained`); its ``marks`` block holds
        the level of narrow marks (learned on the narrow-mark sets at the same slope) and
        of broad ones (the model's), and with ``loso`` each set's test errors at its
        mark's level.

    Examples
    --------
    >>> import tempfile
    >>> pretrain(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    ValueError: no labeled ChIP-seq set (UCI format with the 36 coverage features) in ...
    """
    root = Path(data_dir)
    found = chipseq_sets(root)
    exclude = [str(s) for s in exclude]
    unknown = sorted(set(exclude) - set(found))
    if unknown:
        raise ValueError(f"--exclude: no ChIP-seq set named {unknown} in {str(root)!r} "
                         f"(sets: {found})")
    names = [s for s in found if s not in exclude]
    if not names:
        raise ValueError("no labeled ChIP-seq set (UCI format with the 36 coverage "
                         f"features) in {str(root)!r}" + (" once the excluded sets are "
                                                          "left out" if found else ""))
    t0 = time.perf_counter()
    features, evaluation, groups = _load(root, names)
    fit = fit_dispersion_model(features, evaluation, groups)
    seconds = time.perf_counter() - t0
    bases = {}
    for name in names:  # the window sizes it learned on
        b = load_uci(root / name).inputs["bases"]
        bases[name] = [float(b.min()), float(b.median()), float(b.max())]
    all_bases = np.concatenate([[v[0], v[2]] for v in bases.values()])
    provenance = {
        "sources": SOURCES,
        "sets": names, "excluded": exclude,
        "sequences": int(len(features)),
        "labels": int(evaluation.groupby("sequence_id")["labels"].first().sum()),
        "features": list(FEATURES), "learner": LEARNER.format(smooth=fit["smooth"]),
        "slope": fit["slope"], "slope_grid": [float(x) for x in slope_grid()[[0, -1]]],
        "slope_smooth": fit["smooth"],
        "train_errors_pct": round(fit["train_errors_pct"], 4),
        "windows": {"min_bases": float(all_bases.min()), "max_bases": float(all_bases.max()),
                    "note": "gap-separated regions of hg19 chromosomes (the UCI problems)"},
        "penlearn": package_version(), "fit_seconds": round(seconds, 2),
    }
    narrow = [s for s in names if mark_class(s) == "narrow"]
    marks = {"broad": {"intercept": fit["intercept"], "sets": names,
                       "rule": "the level of all the sets (also for a mark of neither class)"}}
    if narrow:
        ids = groups.index[groups.isin(narrow).to_numpy()]
        marks["narrow"] = {
            "intercept": mark_intercept(features.loc[ids], evaluation, groups.loc[ids],
                                        fit["slope"]),
            "sets": narrow, "rule": "fewest label errors of the narrow-mark sets (every "
            "set weighing the same) at the slope of all the sets"}
    provenance["marks"] = marks
    if loso and len(names) > 1:
        table = leave_one_set_out(features, evaluation, groups, marks=True)

        def block(errs):
            return {"test_errors_pct": {k: round(float(v), 4) for k, v in errs.items()},
                    "mean": round(float(errs.mean()), 4)}

        provenance["leave_one_set_out"] = block(table["all_sets"])
        provenance["marks"]["leave_one_set_out"] = block(table["mark"])
    data = model_data(fit, features, provenance)
    model = PenaltyModel.from_dict(data, source="pretrain")
    model.task_ = "peaks"  # ChIP-seq windows' coverage features
    model.provenance_ = provenance
    return model
