"""Few labels (issue 36 item 3): one labeled window, one label class, starting from a
prior model (the shipped zero-label model on ChIP-seq features); many labels: the prior
changes nothing."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, need

from penlearn.cli import main
from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.prior import constant_model, nearest_min_error_shift, too_few_labels


def _ev(rows):
    ev = pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda", "fp",
                                     "fn", "possible_fp", "possible_fn"])
    ev["errors"] = ev["fp"] + ev["fn"]
    ev["labels"] = ev["possible_fp"] + ev["possible_fn"]
    return ev


def _prior():
    p = constant_model(["x"], 0.0)  # made linear: log λ = 1 + 2x
    p.model = "linear"
    p.coef_ = pd.Series([2.0], index=["x"])
    p.intercept_ = 1.0
    p.prior_name_ = "the test prior"
    return p


def test_one_window_shifts_the_prior_to_its_labels():
    # one sequence: 0 errors for log λ in [3, 6); the prior predicts 1 + 2·0.5 = 2
    ev = _ev([("a", -np.inf, 3.0, 0, 1, 1, 1), ("a", 3.0, 6.0, 0, 0, 1, 1),
              ("a", 6.0, np.inf, 1, 0, 1, 1)])
    X = pd.DataFrame({"x": [0.5]}, index=["a"])
    assert "1 labeled sequence" in too_few_labels(ev)
    m = learn_penalty(X, ev, prior=_prior(), progress=False)
    # inside [3, 6), from the prior's 2: the shift of largest weight (issue 44,
    # penlearn.learn.level_shift: errors smoothed over ±0.25, a N(0, 2²) prior on the shift)
    assert m.predict(X)[0] == 3.42
    assert m.coef_.tolist() == [2.0]  # the prior's ranking kept
    assert m.describe().startswith("the test prior, its log λ shifted by +1.42 to fit the "
                                   "2 labels given")
    again = PenaltyModel.from_dict(m.to_dict())
    assert again.predict(X)[0] == 3.42 and again.describe() == m.describe()
    # without a prior: the best constant of the labels
    c = learn_penalty(X, ev, progress=False)
    assert c.predict(pd.DataFrame({"x": [9.0]}))[0] == 4.5
    assert "best constant penalty" in c.describe()


def test_one_label_class_keeps_the_prior_level_unless_contradicted():
    # only noPeaks labels (possible_fn = 0): any log λ above each FP boundary is right
    ev = _ev([(s, -np.inf, b, 1, 0, 1, 0) for s, b in (("a", 1.0), ("b", 2.5))]
             + [(s, b, np.inf, 0, 0, 1, 0) for s, b in (("a", 1.0), ("b", 2.5))])
    X = pd.DataFrame({"x": [0.5, 1.0]}, index=["a", "b"])  # prior: 2 and 3
    assert "one label class" in too_few_labels(ev)
    m = learn_penalty(X, ev, prior=_prior(), progress=False)
    # the prior is already right on both: it moves only off the nearest jump (b's, 0.5
    # below its prior log λ 3) by a fraction of the smoothing width
    assert m.level_["shift"] == 0.16
    X2 = pd.DataFrame({"x": [0.0, 0.0]}, index=["a", "b"])  # prior: 1 and 1
    m2 = learn_penalty(X2, ev, prior=_prior(), progress=False)
    assert m2.predict(X2).tolist() == [2.88, 2.88]  # raised past 2.5, not further


def test_nearest_shift_is_a_min_error_shift_by_brute_force():
    rng = np.random.default_rng(5)
    rows = []
    for i in range(5):
        cuts = np.sort(rng.uniform(-4, 4, 3))
        lo, hi = np.r_[-np.inf, cuts], np.r_[cuts, np.inf]
        fp, fn = [2, 1, 1, 0], [0, 0, 1, 2]
        rows += [(f"s{i}", a, b, p, n, 2, 2) for a, b, p, n in zip(lo, hi, fp, fn)]
    ev = _ev(rows)
    base = pd.Series(rng.normal(size=5), index=[f"s{i}" for i in range(5)])

    def errors(s):
        p = (base + s).reindex(ev["sequence_id"]).to_numpy()
        inside = (ev["min_log_lambda"].to_numpy() <= p) & (p < ev["max_log_lambda"].to_numpy())
        return int(ev["errors"].to_numpy()[inside].sum())

    s = nearest_min_error_shift(ev, base)
    grid = np.linspace(-12, 12, 24001)
    assert errors(s) == min(errors(g) for g in grid)


def test_many_labels_do_not_use_the_prior():
    rng = np.random.default_rng(0)
    ids = [f"s{i:02d}" for i in range(30)]
    x = rng.normal(size=30)
    ev = _ev([r for i, xi in zip(ids, x) for r in [
        (i, -np.inf, xi - 1, 1, 0, 1, 1), (i, xi - 1, xi + 1, 0, 0, 1, 1),
        (i, xi + 1, np.inf, 0, 1, 1, 1)]])
    X = pd.DataFrame({"x": x}, index=ids)
    assert too_few_labels(ev) is None
    a = learn_penalty(X, ev, model="linear", progress=False)
    b = learn_penalty(X, ev, model="linear", prior=_prior(), progress=False)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert b.level_.get("rule") != "prior"


def _constant_set(n, seed=3):
    """Labels right for log λ in (y − 1, y + 1), y = 0.3x + noise."""
    rng = np.random.default_rng(seed)
    ids = [f"s{i:03d}" for i in range(n)]
    x = rng.normal(size=n)
    y = 0.3 * x + rng.normal(scale=2.0, size=n)
    ev = _ev([r for i, yi in zip(ids, y) for r in [
        (i, -np.inf, yi - 1, 1, 0, 1, 1), (i, yi - 1, yi + 1, 0, 0, 1, 1),
        (i, yi + 1, np.inf, 0, 1, 1, 1)]])
    return pd.DataFrame({"x": x}, index=ids), ev


def test_few_labels_put_the_prior_in_place_of_the_constant():
    from penlearn.learn.prior import PRIOR_MAX_SEQUENCES

    X, ev = _constant_set(PRIOR_MAX_SEQUENCES)
    a = learn_penalty(X, ev, candidates=["constant"], progress=False)
    assert a.level_["model"] == "constant"  # the learned candidates' choice
    b = learn_penalty(X, ev, candidates=["constant"],
                      prior=_fitted_prior(0.3, 5.0), progress=False)
    assert b.level_["model"] == "prior"  # the prior's ranking, the labels' level
    assert b.coef_.to_dict() == {"x": 0.3}
    # its level: the shift of fewest label errors of all the labels (a brute-force grid)
    row = ev["sequence_id"].map({i: k for k, i in enumerate(X.index)}).to_numpy()
    lo, hi = ev["min_log_lambda"].to_numpy(), ev["max_log_lambda"].to_numpy()
    err = ev["errors"].to_numpy()

    def errors(log_lambda):
        p = log_lambda[row]
        return int(err[(lo <= p) & (p < hi)].sum())

    base = 0.3 * X["x"].to_numpy()
    assert errors(b.predict(X)) == min(errors(base + g) for g in np.linspace(-8, 8, 3201))
    assert b.describe().startswith("the test prior, its log λ shifted by")


def test_more_than_100_labeled_sequences_do_not_use_the_prior():
    from penlearn.learn.prior import PRIOR_MAX_SEQUENCES

    X, ev = _constant_set(PRIOR_MAX_SEQUENCES + 1)  # the same kind of set, one more
    a = learn_penalty(X, ev, candidates=["constant"], progress=False)
    assert a.level_["model"] == "constant"
    b = learn_penalty(X, ev, candidates=["constant"],
                      prior=_fitted_prior(0.3, 5.0), progress=False)
    assert b.level_["model"] == "constant" and "prior" not in b.choice_["errors"]
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_cli_learn_on_one_labeled_window(tmp_path, capsys):
    folder = need(DATA / "chipseq_raw" / "Mono27ac")
    out = tmp_path / "m.json"
    code = main(["learn", str(folder), "--out", str(out), "--no-cache"])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert out.is_file()
    assert "starting from the shipped zero-label penalty model" in stderr
    assert "learned the shipped zero-label penalty model, its log λ shifted by" in stdout
    m = PenaltyModel.load(out)
    assert m.level_["rule"] == "prior" and m.level_["labels"] == 6


def _linear_set(n=40, seed=1):
    """Sequences whose labels are all right for log λ in (3x − 1, 3x + 1)."""
    rng = np.random.default_rng(seed)
    ids = [f"s{i:02d}" for i in range(n)]
    x = rng.normal(size=n)
    ev = _ev([r for i, xi in zip(ids, x) for r in [
        (i, -np.inf, 3 * xi - 1, 1, 0, 1, 1), (i, 3 * xi - 1, 3 * xi + 1, 0, 0, 1, 1),
        (i, 3 * xi + 1, np.inf, 0, 1, 1, 1)]])
    return pd.DataFrame({"x": x, "noise": rng.normal(size=n)}, index=ids), ev


def _fitted_prior(slope, intercept):
    from penlearn.fitting.scaling import FeatureScaling

    p = _prior()
    p.coef_ = pd.Series([float(slope)], index=["x"])
    p.intercept_ = float(intercept)
    p.scaling_ = FeatureScaling(("x",), np.zeros(1), np.ones(1), (), np.array([-10.0]),
                                np.array([10.0]))
    return p


def test_auto_tries_the_prior_and_takes_it_shifted_to_the_labels():
    X, ev = _linear_set()
    # the right slope, a wrong level; against the constant, which errs on most folds
    m = learn_penalty(X, ev, prior=_fitted_prior(3.0, 5.0), candidates=["constant"],
                      progress=False)
    assert set(m.choice_["errors"]) == {"constant", "prior"}
    assert m.choice_["errors"]["prior"] == 0.0  # its ranking is right in every fold
    assert m.choice_["errors"]["constant"] - m.choice_["se"]["constant"] > 0.0
    assert m.choice_["prior"] == "the test prior"
    assert m.level_["model"] == "prior"
    # the prior's weights kept, only its level moved: to 0 errors on every sequence
    assert m.coef_.to_dict() == {"x": 3.0}
    pred = m.predict(X)
    np.testing.assert_array_equal(pred, 3.0 * X["x"].to_numpy() + m.intercept_)
    assert np.all(np.abs(pred - 3.0 * X["x"].to_numpy()) < 1.0)
    assert m.describe().startswith("the test prior, its log λ shifted by")


def test_a_wrong_prior_changes_nothing_with_many_labels():
    X, ev = _linear_set()
    a = learn_penalty(X, ev, progress=False)
    b = learn_penalty(X, ev, prior=_fitted_prior(-3.0, 0.0), progress=False)  # wrong way
    assert b.choice_["errors"]["prior"] > b.choice_["errors"][b.level_["model"]]
    assert b.level_["model"] == a.level_["model"]


def test_a_prior_tied_with_the_learners_is_not_taken():
    X, ev = _linear_set()  # the prior as right as the linear model: 0 errors both
    a = learn_penalty(X, ev, progress=False)
    b = learn_penalty(X, ev, prior=_fitted_prior(3.0, 5.0), progress=False)
    assert b.choice_["errors"]["prior"] == 0.0
    assert b.choice_["errors"][a.level_["model"]] - b.choice_["se"][a.level_["model"]] <= 0
    assert b.level_["model"] == a.level_["model"] != "prior"
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_a_prior_on_other_features_is_refused_by_auto():
    X, ev = _linear_set()
    p = _fitted_prior(1.0, 0.0)
    p.coef_ = pd.Series([1.0], index=["log.sd"])
    with pytest.raises(ValueError, match=r"prior: its feature column\(s\) \['log.sd'\]"):
        learn_penalty(X, ev, prior=p, progress=False)


def test_cli_learn_with_few_labeled_sequences_passes_the_shipped_model(tmp_path, capsys):
    # 40 labeled sequences (5 regions × 8 samples): the shipped model is cross-validated
    # beside the learners; on all 40 the learners choose the linear model (on 3/4 of them,
    # all_sets.py's own folds, the constant, where the prior then takes its place)
    folder = need(DATA / "H3K36me3_TDH_other")
    out = tmp_path / "m.json"
    code = main(["learn", str(folder), "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert "at most 100 labeled sequences: the shipped zero-label penalty model" in stderr
    m = PenaltyModel.load(out)
    assert set(m.choice_["errors"]) == {"constant", "prior", "linear", "boosting"}
    assert m.choice_["prior"].startswith("the shipped zero-label penalty model")
    assert m.level_["model"] == "linear"  # the learners' choice: the prior stays out


# --------------------------------------------------------------------------- issue 48 item 1


def test_two_labeled_sequences_learn_by_the_few_labels_rule():
    # each 0 errors for log λ in (y − 1, y + 1): y = 0 and 3 share no such log λ
    X, ev = _constant_set(2)
    ev = _ev([r for i, y in (("s000", 0.0), ("s001", 3.0)) for r in [
        (i, -np.inf, y - 1, 1, 0, 1, 1), (i, y - 1, y + 1, 0, 0, 1, 1),
        (i, y + 1, np.inf, 0, 1, 1, 1)]])
    assert too_few_labels(ev) is None  # a linear model can learn on 1, validate on 1 ...
    reason = too_few_labels(ev, "auto")  # ... auto cannot cross-validate
    assert reason == ("2 labeled sequences (at least 3 are needed to choose a model by "
                      "cross-validation: each fold learns on 2 and tests on 1)")
    m = learn_penalty(X, ev, progress=False)
    assert m.level_["rule"] == "prior" and m.level_["reason"] == reason
    # the best constant (1 error: inside (−1, 1) or (2, 4)), left where it is
    assert m.predict(X).tolist() == [3.0, 3.0]
    assert m.describe() == ("the best constant penalty of the labels, its log λ shifted by "
                            f"+0 to fit the 4 labels given; learned nothing more: {reason}")
    p = learn_penalty(X, ev, prior=_fitted_prior(1.0, 5.0), progress=False)  # level_shift
    assert p.coef_.to_dict() == {"x": 1.0} and p.level_["rule"] == "prior"
    # the same two sequences given as training + validation: counted together
    v = learn_penalty(X.iloc[:1], ev[ev["sequence_id"] == "s000"], progress=False,
                      validation=(X.iloc[1:], ev[ev["sequence_id"] == "s001"]))
    assert v.predict(X).tolist() == [3.0, 3.0] and v.level_["reason"] == reason


def test_auto_leaves_one_out_when_its_folds_leave_too_few_to_learn_on():
    X, ev = _linear_set(3)
    m = learn_penalty(X, ev, cv_folds=2, progress=False)  # 2 folds: one learns on 1
    assert m.choice_["folds"] == 3
    assert m.choice_["groups"].startswith("sequences (left one out")
    assert all(len(e) == 3 for e in m.choice_["fold_errors"].values())


def test_segment_folder_with_two_labeled_sequences_learns(tmp_path, capsys):
    from penlearn.datasets.simulate import simulate

    data = simulate(2, seed=5, n_points=(60, 80))
    data.sequences.to_csv(tmp_path / "s.csv", index=False)
    data.labels.to_csv(tmp_path / "l.csv", index=False)
    assert main(["segment", str(tmp_path / "s.csv"), str(tmp_path / "l.csv"),
                 "--max-segments", "4", "--out", str(tmp_path / "seg"), "-q"]) == 0
    code = main(["learn", str(tmp_path / "seg"), "--out", str(tmp_path / "m.json")])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    m = PenaltyModel.load(tmp_path / "m.json")
    assert m.level_["rule"] == "prior" and m.level_["reason"].startswith("2 labeled sequences")
    assert "the best constant penalty of the labels" in stdout


def test_describe_names_a_prior_that_was_only_a_candidate():
    X, ev = _linear_set()
    b = learn_penalty(X, ev, prior=_fitted_prior(-3.0, 0.0), progress=False)
    assert b.level_["model"] != "prior"
    assert ("; prior: the test prior, a candidate in the constant's place "
            "(learn_penalty(prior=...))") in b.describe()
