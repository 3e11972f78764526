"""SupervisedPenalty: fit / predict, error functions checked against the detector, the
scikit-learn protocol (clone, pickle) and one-line errors on bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import ruptures as rpt
from sklearn.base import clone

import penlearn as pl
from penlearn.tune import (
    SupervisedPenalty,
    bic_penalty,
    detector_label_errors,
    signal_features,
    signals_from_sequences,
)


@pytest.fixture(scope="module")
def data():
    sim = pl.simulate(16, seed=3, n_points=(100, 160), heavy_tails=0.0)
    return signals_from_sequences(sim.sequences), sim.labels


@pytest.fixture(scope="module")
def tuner(data):
    signals, labels = data
    return SupervisedPenalty(rpt.Pelt(model="l2", jump=2), max_changes=12).fit(signals, labels)


def test_error_functions_are_the_detector_label_errors_at_each_interval(data, tuner):
    """Each evaluation row: the errors of the detector itself run inside its interval."""
    signals, labels = data
    ev = tuner.evaluation_
    assert set(ev["sequence_id"]) == set(labels["sequence_id"])
    inner = ev[np.isfinite(ev["max_log_lambda"]) & np.isfinite(ev["min_log_lambda"])]
    rows = inner.groupby("sequence_id").head(3)  # 3 intervals per signal keep it fast
    for _, r in rows.iterrows():
        lam = float(np.exp((r["min_log_lambda"] + r["max_log_lambda"]) / 2))
        lab = labels[labels["sequence_id"] == r["sequence_id"]]
        got = detector_label_errors(tuner.detector, {r["sequence_id"]: signals[r["sequence_id"]]},
                                    lab, lam)
        assert got[["fp", "fn"]].iloc[0].tolist() == [r["fp"], r["fn"]]


def test_predict_runs_the_detector_at_the_predicted_penalty(data, tuner):
    signals, _ = data
    pen = tuner.predict_penalty(signals)
    assert list(pen.index) == list(signals) and (pen > 0).all()
    assert np.allclose(np.log(pen), tuner.predict_log_penalty(signals))
    changes = tuner.predict(signals)
    for sid in list(signals)[:4]:
        ref = rpt.Pelt(model="l2", jump=2).fit(signals[sid]).predict(pen=float(pen[sid]))[:-1]
        assert changes[sid].tolist() == ref


def test_tuned_penalty_follows_the_noise(data, tuner):
    """The learned penalty grows with the noise variance (the signals' sd varies 10x)."""
    signals, _ = data
    pen = tuner.predict_penalty(signals)
    bic = pd.Series({s: bic_penalty(x) for s, x in signals.items()})
    assert np.corrcoef(np.log(pen), np.log(bic))[0, 1] > 0.8


def test_clone_and_pickle(data, tuner):
    signals, _ = data
    fresh = clone(tuner)
    assert not hasattr(fresh, "model_")
    assert fresh.get_params(deep=False).keys() == tuner.get_params(deep=False).keys()
    assert fresh.max_changes == 12
    back = pickle.loads(pickle.dumps(tuner))
    pd.testing.assert_series_equal(back.predict_penalty(signals), tuner.predict_penalty(signals))
    # learn options are parameters: clone keeps them, set_params changes them
    t2 = SupervisedPenalty(rpt.Pelt(), l2=0.5)
    assert clone(t2).get_params()["l2"] == 0.5
    assert t2.set_params(l2=0.0, max_changes=5).learn_options == {"l2": 0.0}
    assert t2.max_changes == 5


def test_skchange_detector_is_clone_able_with_nested_params():
    from skchange.detectors import PELT

    t = SupervisedPenalty(PELT(min_segment_length=3))
    assert t.get_params()["detector__min_segment_length"] == 3
    t.set_params(detector__min_segment_length=4)
    assert clone(t).detector.min_segment_length == 4


def test_features_callable_and_dataframe(data):
    signals, labels = data
    ids = list(pd.unique(labels["sequence_id"]))[:8]
    sub = {s: signals[s] for s in ids}
    labels = labels[labels["sequence_id"].isin(ids)]

    def feats(x):
        return {"log.var": np.log(np.var(np.diff(x))), "log.n": np.log(len(x))}

    # choose=None: the learned function in use (it reads the features; a chosen constant
    # would not)
    a = SupervisedPenalty(rpt.Pelt(jump=2), features=feats, max_changes=12,
                          choose=None).fit(sub, labels)
    table = pd.DataFrame({s: feats(x) for s, x in sub.items()}).T
    b = SupervisedPenalty(rpt.Pelt(jump=2), features=table, max_changes=12,
                          choose=None).fit(sub, labels)
    pd.testing.assert_series_equal(a.predict_penalty(sub), b.predict_penalty(sub))
    assert list(a.feature_names_in_) == ["log.var", "log.n"]
    with pytest.raises(ValueError, match="features: no row for 1 signal") as exc:
        b.predict_penalty({"new": signals[ids[0]]})
    assert "\n" not in str(exc.value)


def test_signal_features_track_the_noise():
    rng = np.random.default_rng(0)
    sig = {sd: np.r_[np.zeros(300), np.full(300, 5 * sd)] + rng.normal(0, sd, 600)
           for sd in (0.5, 2.0)}
    f = signal_features(sig)
    for sd in sig:
        assert f.loc[sd, "sd.mad"] == pytest.approx(sd, rel=0.15)
        assert f.loc[sd, "sd.hall"] == pytest.approx(sd, rel=0.15)
    assert f.loc[2.0, "log.log.n"] == pytest.approx(np.log(np.log(600)))


def _one_line(exc_info):
    assert "\n" not in str(exc_info.value)


def test_bad_input_one_line_errors(data):
    signals, labels = data
    t = SupervisedPenalty(rpt.Pelt(jump=2))
    with pytest.raises(ValueError, match="are not in signals") as exc:
        t.fit({k: v for k, v in list(signals.items())[:3]}, labels)
    _one_line(exc)
    sid = labels["sequence_id"].iloc[0]
    far = labels.copy()
    far.loc[far.index[0], ["start", "end"]] = [len(signals[sid]) + 5, len(signals[sid]) + 40]
    with pytest.raises(ValueError, match=f"of signal '{sid}' is outside the signal") as exc:
        t.fit(signals, far)
    _one_line(exc)
    with pytest.raises(TypeError, match="takes no penalty") as exc:
        SupervisedPenalty(rpt.Dynp()).fit(signals, labels)
    _one_line(exc)
    with pytest.raises(TypeError, match="unknown option") as exc:
        SupervisedPenalty(rpt.Pelt(), learning_rate=0.1)
    _one_line(exc)
    with pytest.raises(ValueError, match="not fitted yet"):
        t.predict_penalty(signals)
    with pytest.raises(ValueError, match=r"signals\[0\] must be a finite") as exc:
        t.fit([np.array([1.0, np.nan, 2.0])], labels)
    _one_line(exc)


def test_import_penlearn_does_not_import_ruptures_skchange_or_sklearn():
    import subprocess
    import sys

    code = ("import sys, penlearn; penlearn.SupervisedPenalty; "
            "bad = [m for m in ('ruptures', 'skchange', 'sklearn', 'scipy', 'matplotlib', "
            "'numba') if m in sys.modules]; assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_repr_shows_the_detector_parameters_and_the_fitted_state(data, tuner):
    fresh = SupervisedPenalty(rpt.Pelt(model="l2", jump=2), max_changes=12)
    assert repr(fresh) == "SupervisedPenalty(Pelt(model='l2', min_size=2, jump=2), max_changes=12)"
    text = repr(tuner)
    assert text.startswith(repr(fresh) + " [fitted on 16 signals: chosen_=")
    assert f"chosen_={tuner.chosen_!r}" in text
    assert f"constant_log_penalty_={tuner.constant_log_penalty_:.4g}]" in text


def test_fit_progress_bar_counts_paths_folds_and_the_final_fit(data, capsys, monkeypatch):
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")  # (capsys is no terminal)
    signals, labels = data
    few = list(signals)[:6]
    sig, lab = {s: signals[s] for s in few}, labels[labels["sequence_id"].isin(few)]
    SupervisedPenalty(rpt.Pelt(model="l2", jump=2), max_changes=8, cv_folds=3).fit(sig, lab)
    err = capsys.readouterr().err
    assert "fit: paths" in err and "fit: cross-validation" in err
    assert "10/10" in err  # 6 paths + 3 folds + the final fit
    SupervisedPenalty(rpt.Pelt(model="l2", jump=2), max_changes=8, choose=None).fit(
        sig, lab, progress=False)
    assert capsys.readouterr().err == ""
