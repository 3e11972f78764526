"""Tests of the L1 squared-hinge interval regression (penaltyLearning IntervalRegression*)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, load_reference_json, need
from scipy.optimize import minimize

from penlearn.learn.interval_regression import (
    IntervalRegression,
    _loss_grad,
    interval_regression_objective,
    interval_regression_path,
    squared_hinge,
    standardize_features,
)


def _problem(n=60, p=4, seed=0, censor=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, 1] += 0.8 * X[:, 0]  # correlated columns
    y = 1.5 * X[:, 0] - X[:, 2] + rng.normal(scale=0.5, size=n)
    lo, hi = y - rng.uniform(0.2, 2, n), y + rng.uniform(0.2, 2, n)
    lo[rng.random(n) < censor] = -np.inf
    hi[rng.random(n) < censor] = np.inf
    both = ~np.isfinite(lo) & ~np.isfinite(hi)
    lo[both] = y[both] - 1
    return X, np.column_stack([lo, hi])


def _scipy_objective_min(Xs, T, reg, margin=1.0):
    """Reference optimum: split w = u − v (u, v ≥ 0), smooth objective, L-BFGS-B."""
    n, p = Xs.shape
    lo, hi = T[:, 0], T[:, 1]

    def f(z):
        b, u, v = z[0], z[1 : p + 1], z[p + 1 :]
        loss, g = _loss_grad(Xs @ (u - v) + b, lo, hi, margin)
        gw = Xs.T @ g
        return loss + reg * (u.sum() + v.sum()), np.r_[g.sum(), gw + reg, -gw + reg]

    bounds = [(None, None)] + [(0, None)] * (2 * p)
    res = minimize(f, np.zeros(2 * p + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
    return res.fun


def test_squared_hinge_reference():
    ref = load_reference_json("penaltyLearning/IntervalRegression/squared_hinge.json")
    x = np.array(ref["x"])
    np.testing.assert_allclose(squared_hinge(x, 1.0), ref["e1"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(squared_hinge(x, 0.0), ref["e0"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(squared_hinge(x, 2.0), ref["e2"], rtol=1e-12, atol=1e-15)


def test_unregularized_two_features_matches_penaltylearning():
    ref = load_reference_json(
        "penaltyLearning/IntervalRegression/unregularized_two_features.json"
    )
    nb = DATA / "neuroblastoma"
    feats = pd.read_csv(need(nb / "processed_features.csv.gz"),
                        usecols=["sequenceID", "log.hall", "log.n"])
    targ = pd.read_csv(need(nb / "processed_targets.csv.gz"))
    assert (feats["sequenceID"] == targ["sequenceID"]).all()
    X = feats[["log.hall", "log.n"]]
    T = targ[["min.log.lambda", "max.log.lambda"]].to_numpy()
    c = ref["coef"]
    w_ref = np.array([c["log.hall"], c["log.n"]])
    pred_ref = X.to_numpy() @ w_ref + c["(Intercept)"]
    np.testing.assert_allclose(pred_ref[:5], ref["pred.first5"], rtol=1e-12)

    m = IntervalRegression(regularization=0.0).fit(X, T)
    sc = standardize_features(X)
    Xs = sc.transform(X)
    # objective (mean squared hinge) at the reference solution vs ours, same features
    obj = {}
    for name, w, b in (("ref", w_ref, c["(Intercept)"]), ("ours", m.coef_.to_numpy(),
                                                           m.intercept_)):
        ws = w * sc.scale
        obj[name] = interval_regression_objective(Xs, T, ws, b + w @ sc.mean, 0.0)
    # penaltyLearning stops at a subgradient criterion of 1e-3, so its objective sits a
    # few 1e-6 above the optimum; ours must never be worse, and agree closely
    assert obj["ours"] <= obj["ref"] + 1e-12
    assert obj["ref"] - obj["ours"] < 1e-5
    np.testing.assert_allclose(m.coef_.to_numpy(), w_ref, atol=1e-2)
    assert abs(m.intercept_ - c["(Intercept)"]) < 5e-2
    # with penaltyLearning's own stopping threshold the objectives agree to ~1e-6
    m3 = IntervalRegression(regularization=0.0, final_tol=1e-3).fit(X, T)
    ws = m3.coef_.to_numpy() * sc.scale
    o3 = interval_regression_objective(Xs, T, ws, m3.intercept_ + ws @ (sc.mean / sc.scale),
                                       0.0)
    assert abs(o3 - obj["ref"]) < 5e-6


@pytest.mark.parametrize("reg", [0.0, 0.01, 0.1])
@pytest.mark.parametrize("seed", [0, 1])
def test_fista_reaches_optimum(reg, seed):
    X, T = _problem(seed=seed)
    Xs = standardize_features(X).transform(X)
    path = interval_regression_path(Xs, T, initial_regularization=reg,
                                    factor_regularization=None, tol=1e-9)
    row = path.iloc[0]
    best = _scipy_objective_min(Xs, T, reg)
    assert row["objective"] <= best + 1e-9
    assert row["objective"] >= best - 1e-6  # scipy is near-optimal too
    assert row["objective"] == pytest.approx(
        interval_regression_objective(Xs, T, row["weights"], row["intercept"], reg), abs=1e-12
    )


def test_path_grows_until_all_weights_vanish():
    X, T = _problem(n=80, seed=3)
    Xs = standardize_features(X).transform(X)
    path = interval_regression_path(Xs, T, tol=1e-7)
    regs = path["regularization"].to_numpy()
    np.testing.assert_allclose(regs, 0.001 * 1.2 ** np.arange(len(regs)), rtol=1e-12)
    assert path["nonzero"].iloc[-1] == 0
    assert (path["nonzero"].iloc[:-1] > 0).all()
    # KKT at the last point: zero weights are optimal iff |gradient| <= reg
    last = path.iloc[-1]
    _, g = _loss_grad(Xs @ last["weights"] + last["intercept"], T[:, 0], T[:, 1], 1.0)
    assert np.abs(Xs.T @ g).max() <= last["regularization"] + 1e-6
    # ... and not at the previous one
    prev = path.iloc[-2]
    assert np.abs(Xs.T @ g).max() > prev["regularization"] - 1e-6


def test_cv_selects_from_path_and_predicts():
    X, T = _problem(n=100, seed=4)
    Xdf = pd.DataFrame(X, columns=list("abcd"))
    m = IntervalRegression(random_state=0).fit(Xdf, T)
    cv = m.cv_results_
    assert cv["selected"].sum() == 1
    sel = cv.loc[cv["selected"]].iloc[0]
    assert sel["regularization"] == m.regularization_
    assert sel["incorrect_intervals"] == cv["incorrect_intervals"].min()
    pred = m.predict(Xdf)
    assert pred.shape == (100,)
    # same seed, same fit; explicit folds are honoured
    m2 = IntervalRegression(random_state=0).fit(Xdf, T)
    np.testing.assert_array_equal(m2.coef_.to_numpy(), m.coef_.to_numpy())
    fold = np.arange(100) % 5 + 1
    m3 = IntervalRegression().fit(Xdf, T, fold=fold)
    m4 = IntervalRegression().fit(Xdf, T, fold=fold)
    assert m3.regularization_ == m4.regularization_
    with pytest.raises(ValueError, match="missing feature"):
        m.predict(Xdf.drop(columns="a"))


def test_not_converging_problem():
    df = pd.read_csv(need(DATA / "neuroblastoma" / "notConverging.csv.gz"))
    X = df.iloc[:, 4:]
    T = df[["min.log.lambda", "max.log.lambda"]].to_numpy()
    m = IntervalRegression().fit(X, T, fold=df["fold"].to_numpy())
    assert np.all(np.isfinite(m.coef_)) and np.isfinite(m.intercept_)
    assert np.all(np.isfinite(m.predict(X)))


def test_standardize_drops_nonfinite_and_constant():
    X = pd.DataFrame({"a": [1.0, 2.0, 4.0], "nan": [1.0, np.nan, 2.0],
                      "inf": [-np.inf, 1.0, 2.0], "const": [3.0, 3.0, 3.0]})
    sc = standardize_features(X)
    assert sc.columns == ("a",)
    assert set(sc.dropped) == {"nan", "inf", "const"}
    np.testing.assert_allclose(sc.transform(X).ravel(),
                               (X["a"] - X["a"].mean()) / X["a"].std(ddof=1))


def test_bad_inputs():
    ref = load_reference_json("penaltyLearning/IntervalRegression/errors.json")
    assert "two columns" in ref["target.three.cols"]
    X, T = _problem()
    with pytest.raises(ValueError, match="two columns"):
        IntervalRegression(regularization=0.1).fit(X, np.c_[T, T[:, 0]])
    with pytest.raises(ValueError, match="rows"):
        IntervalRegression(regularization=0.1).fit(X[:-1], T)
    with pytest.raises(ValueError, match="no finite lower"):
        IntervalRegression(regularization=0.1).fit(X, np.c_[np.full(len(T), -np.inf), T[:, 1]])
    with pytest.raises(ValueError, match="no finite upper"):
        IntervalRegression(regularization=0.1).fit(X, np.c_[T[:, 0], np.full(len(T), np.inf)])
    with pytest.raises(ValueError, match="none remain"):
        IntervalRegression(regularization=0.1).fit(np.ones_like(X), T)
    with pytest.raises(ValueError, match="none remain"):
        IntervalRegression(regularization=0.1).fit(np.full_like(X, np.nan), T)
    with pytest.raises(ValueError, match="NaN"):
        IntervalRegression(regularization=0.1).fit(X, np.where(T == np.inf, np.nan, T))
    with pytest.raises(ValueError, match="not fitted"):
        IntervalRegression().predict(X)
    with pytest.raises(ValueError, match="margin"):
        interval_regression_path(X, T, margin=np.inf)
