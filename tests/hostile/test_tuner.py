"""``SupervisedPenalty`` beyond its training signals: a signal 1000 times noisier or quieter
than the training ones, a constant labeled signal, a fractional ``cv_folds``, nested
detector parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
from _hostile import Error, check_cases


def _train_signals():
    """8 signals, noise SD 0.5..3.5, a 3-SD step at 40, labelled around it and before."""
    rng = np.random.default_rng(0)
    sds = [0.5 + i % 4 for i in range(8)]
    signals = {i: np.r_[np.zeros(40), np.full(40 + 4 * i, 3 * sd)]
               + rng.normal(0, sd, 80 + 4 * i) for i, sd in enumerate(sds)}
    labels = pd.DataFrame({"sequence_id": np.repeat(list(signals), 2),
                           "start": [30, 0] * 8, "end": [50, 25] * 8,
                           "annotation": ["1breakpoint", "0breakpoints"] * 8})
    return signals, labels


def _cases():
    import ruptures as rpt

    from penlearn.tune import SupervisedPenalty

    signals, labels = _train_signals()
    step = np.r_[np.zeros(50), np.full(50, 3.0)] + np.random.default_rng(1).normal(0, 1, 100)

    def noisy():
        t = SupervisedPenalty(rpt.Pelt(model="l2"), choose=None).fit(signals, labels)
        return {c: t.predict({"x": step * c})["x"].tolist() for c in (1e-3, 1.0, 1e3)}
    yield ("SupervisedPenalty: signal 1000x noisier / quieter than training", noisy,
           lambda r: all(v == [50] for v in r.values()))
    yield ("SupervisedPenalty(cv_folds=2.5)",
           lambda: SupervisedPenalty(rpt.Pelt(model="l2"), cv_folds=2.5).fit(signals, labels),
           Error("cv_folds"))
    flat_sig = {**signals, "flat": np.ones(60)}
    flat_lab = pd.concat([labels, pd.DataFrame([("flat", 0, 30, "0breakpoints")],
                                               columns=labels.columns)], ignore_index=True)
    yield ("SupervisedPenalty: a constant labeled signal",
           lambda: SupervisedPenalty(rpt.Pelt(model="l2"), choose=None).fit(
               flat_sig, flat_lab).predict({"f": np.ones(50)})["f"].tolist(),
           lambda r: r == [])

    def nested():
        t = SupervisedPenalty(rpt.Pelt(model="l2")).set_params(detector__min_size=3,
                                                               detector__jump=1)
        return t.detector.min_size, t.detector.jump
    yield "SupervisedPenalty.set_params(detector__min_size=3)", nested, lambda r: r == (3, 1)


def test_tuner_beyond_its_training_signals():
    check_cases(_cases(), at_least=4)
