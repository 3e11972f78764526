"""AUC baselines: logistic, all-pairs squared hinge, polynomial AUC, structural SVM pAUC."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from penlearn.binary.baselines import (
    fit_logistic,
    fit_squared_hinge_pairs,
    logistic_loss,
    squared_hinge_pairs_loss,
)
from penlearn.binary.metrics import partial_auc, roc_auc
from penlearn.binary.model import BinaryLinearModel, balanced_intercept
from penlearn.binary.ranking import _most_violated, fit_polynomial_auc, fit_svm_pauc

FITTERS = [fit_logistic, fit_squared_hinge_pairs, fit_polynomial_auc, fit_svm_pauc]


def make_data(n=200, p=4, seed=0, shift=1.0, frac=0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < frac).astype(int)
    X = rng.normal(size=(n, p))
    X[:, 0] += shift * y
    X[:, 1] -= 0.5 * shift * y
    X = X * [1.0, 10.0, 0.1, 3.0][:p] + [5.0, -2.0, 0.0, 1.0][:p]  # unequal scales
    return X, y


# ------------------------------------------------------------------ squared hinge


def brute_squared_hinge(y, s, margin):
    y, s = np.asarray(y), np.asarray(s, float)
    sp, sn = s[y == 1], s[y == 0]
    z = np.maximum(0.0, margin - (sp[:, None] - sn[None, :]))
    loss = float((z**2).mean())
    g = np.zeros(len(s))
    g[y == 1] = -2 * z.sum(axis=1) / z.size
    g[y == 0] = 2 * z.sum(axis=0) / z.size
    return loss, g


@settings(max_examples=100, deadline=None)
@given(
    st.integers(2, 30).flatmap(
        lambda n: st.tuples(
            st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda v: 0 < sum(v) < n),
            st.lists(st.integers(-6, 6), min_size=n, max_size=n),
        )
    ),
    st.sampled_from([0.5, 1.0, 2.0]),
)
def test_squared_hinge_sorted_equals_all_pairs(ys, margin):
    y, s = ys
    s = np.asarray(s, float) / 2  # half-integers: differences hit the margin exactly
    loss, g = squared_hinge_pairs_loss(y, s, margin)
    bl, bg = brute_squared_hinge(y, s, margin)
    assert loss == pytest.approx(bl, abs=1e-12)
    assert np.allclose(g, bg, atol=1e-12)


# ------------------------------------------------------------------------ logistic


def test_logistic_gradient_and_sklearn_agreement():
    from sklearn.linear_model import LogisticRegression

    X, y = make_data(300, 4, seed=1)
    for balanced in (False, True):
        lam = 0.05
        m = fit_logistic(X, y, balanced=balanced, l2=lam)
        Z = (X - X.mean(0)) / X.std(0)
        sk = LogisticRegression(C=1.0 / (len(y) * lam), tol=1e-10, max_iter=10000,
                                class_weight="balanced" if balanced else None).fit(Z, y)
        # measured: 1e-6 (coefficients), 4e-6 (scores); the bounds leave room for solvers
        assert np.allclose(m.coef_ * X.std(0), sk.coef_[0], rtol=0, atol=1e-5)
        assert np.allclose(m.decision_function(X), sk.decision_function(Z), rtol=0, atol=1e-4)
    # analytic gradient of the objective
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(30, 3))
    sign = np.where(rng.random(30) < 0.4, 1.0, -1.0)
    weight = rng.random(30)
    w = rng.normal(size=4)
    f, g = logistic_loss(w, Z, sign, weight, 0.3)
    for i in range(4):
        e = np.zeros(4)
        e[i] = 1e-6
        fd = (logistic_loss(w + e, Z, sign, weight, 0.3)[0]
              - logistic_loss(w - e, Z, sign, weight, 0.3)[0]) / 2e-6
        assert g[i] == pytest.approx(fd, rel=1e-6)


def test_squared_hinge_fit_is_optimal():
    X, y = make_data(120, 3, seed=3)
    m = fit_squared_hinge_pairs(X, y, l2=0.01)
    Z = (X - X.mean(0)) / X.std(0)

    def obj(w):
        return brute_squared_hinge(y, Z @ w, 1.0)[0] + 0.005 * w @ w

    w_fit = m.coef_ * X.std(0)
    w_ref = minimize(obj, np.zeros(3), method="Nelder-Mead",
                     options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000}).x
    assert obj(w_fit) <= obj(w_ref) + 1e-8
    assert np.allclose(w_fit, w_ref, rtol=0, atol=1e-4)  # measured 1.4e-6


# ---------------------------------------------------------------------------- SVM


def brute_hinge_pauc(s, y, j_beta):
    """papers/004 eq. (15): max over subsets Z of j_β negatives of the mean pair hinge."""
    sp, sn = s[y == 1], s[y == 0]
    best = -np.inf
    for Z in itertools.combinations(range(len(sn)), j_beta):
        h = np.maximum(0.0, 1.0 - (sp[:, None] - sn[list(Z)][None, :])).mean()
        best = max(best, h)
    return best


def test_most_violated_constraint_brute_force():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(11, 3))
    y = np.array([1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1])
    pos = y == 1
    for trial in range(5):
        w = rng.normal(size=3) * (0.3 + trial)
        s = X @ w
        for j_beta in (1, 3, 7):
            delta, a = _most_violated(s, pos, X, j_beta)
            # Algorithm 2 by explicit matrices
            neg = np.flatnonzero(~pos)
            top = neg[np.argsort(-s[neg], kind="stable")[:j_beta]]
            pi = (s[pos][:, None] - s[top][None, :] <= 1).astype(float)
            norm = pos.sum() * j_beta
            assert delta == pytest.approx(pi.sum() / norm)
            diff = X[pos][:, None, :] - X[top][None, :, :]
            assert np.allclose(a, (pi[:, :, None] * diff).sum((0, 1)) / norm)
            # Theorem 5: H at the most violated constraint = hinge surrogate, max over Z
            assert delta - w @ a == pytest.approx(brute_hinge_pauc(s, y, j_beta), abs=1e-12)


@pytest.mark.parametrize("fpr_max", [0.25, 1.0])
def test_svm_pauc_minimises_regularised_hinge_surrogate(fpr_max):
    X, y = make_data(60, 2, seed=5, frac=0.4)
    C_val, eps = 10.0, 1e-4
    m = fit_svm_pauc(X, y, fpr_max=fpr_max, C=C_val, epsilon=eps)
    assert bool(m.history_["converged"].iloc[0])
    Z = (X - X.mean(0)) / X.std(0)
    n_neg = int((y == 0).sum())
    j_beta = math.ceil(n_neg * fpr_max - 1e-9)

    def surrogate(w):  # eq. (10): hinge over the top j_β negatives by w
        s = Z @ w
        sn = np.sort(s[y == 0])[::-1][:j_beta]
        return np.maximum(0.0, 1.0 - (s[y == 1][:, None] - sn[None, :])).mean()

    def obj(w):
        return 0.5 * w @ w + C_val * surrogate(w)

    w_fit = m.coef_ * X.std(0)
    best = min(
        (minimize(obj, w0, method="Nelder-Mead",
                  options={"xatol": 1e-9, "fatol": 1e-12, "maxiter": 20000})
         for w0 in (np.zeros(2), w_fit, np.array([1.0, -1.0]))),
        key=lambda r: r.fun,
    )
    # the cutting plane stops within ε of the surrogate: objective within C·ε
    assert obj(w_fit) <= best.fun + C_val * eps + 1e-8
    assert obj(w_fit) >= best.fun - 1e-8


def test_svm_pauc_targets_the_left_of_the_roc_curve():
    X, y = make_data(400, 4, seed=6, frac=0.25, shift=3.0)
    m = fit_svm_pauc(X, y, fpr_max=0.1, C=10.0)
    s = m.decision_function(X)
    assert partial_auc(y, s, 0, 0.1, normalize=True) > 0.8
    assert m.params["j_beta"] == math.ceil(0.1 * (y == 0).sum() - 1e-9)


def test_svm_pauc_degenerate_solution_is_a_clear_error():
    """Overlapping classes: the hinge pAUC surrogate is ≥ 1 = its value at w = 0."""
    X, y = make_data(400, 4, seed=6, frac=0.25, shift=1.0)
    with pytest.raises(ValueError, match="degenerate scores: the partial-AUC SVM"):
        fit_svm_pauc(X, y, fpr_max=0.1, C=10.0)


# --------------------------------------------------------------------- polynomial


def test_polynomial_auc_fit_improves_and_keeps_best_validation():
    X, y = make_data(300, 4, seed=7)
    Xv, yv = make_data(200, 4, seed=8)
    m = fit_polynomial_auc(X, y, degree=20, max_iter=8, validation=(Xv, yv))
    h = m.history_
    assert h["iteration"].iloc[0] == 0
    assert h["train_auc"].iloc[-1] >= h["train_auc"].iloc[0] - 1e-9
    # the chosen iterate is the one of best validation AUC
    assert roc_auc(yv, m.decision_function(Xv)) == pytest.approx(h["valid_auc"].max())
    soft = fit_polynomial_auc(X, y, degree=20, max_iter=4, objective="soft_auc", beta=5.0)
    assert roc_auc(y, soft.decision_function(X)) > 0.7


# ------------------------------------------------------------------- common shape


@pytest.mark.parametrize("fit", FITTERS)
def test_common_fit_predict_shape_and_save_load(fit, tmp_path):
    X, y = make_data(150, 3, seed=9, shift=3.0)
    Xv, yv = make_data(100, 3, seed=10, shift=3.0)
    kw = {"max_iter": 5, "degree": 15} if fit is fit_polynomial_auc else {}
    m = fit(X, 2 * y - 1, validation=(Xv, yv), **kw)  # {-1, 1} labels work too
    assert isinstance(m, BinaryLinearModel)
    s = m.decision_function(Xv)
    assert s.shape == (100,)
    assert set(np.unique(m.predict(Xv))) <= {0, 1}
    assert np.array_equal(m.predict(Xv), (s > 0).astype(int))
    assert roc_auc(yv, s) > 0.9
    assert len(m.history_) >= 1 and m.seconds_ > 0
    path = tmp_path / "model.json"
    m.save(path)
    back = BinaryLinearModel.load(path)
    assert np.array_equal(back.decision_function(Xv), s)
    assert back.method == m.method and back.params == m.params
    assert back.history_.shape == m.history_.shape


@pytest.mark.parametrize("fit", FITTERS)
def test_bad_input_errors(fit):
    X, y = make_data(40, 3, seed=11)
    with pytest.raises(ValueError, match="only one class"):
        fit(X, np.ones(40, int))
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="X must be finite: row 3, column 2"):
        fit(Xn, y)
    with pytest.raises(ValueError, match="40 rows but y has 39"):
        fit(X, y[:-1])
    with pytest.raises(ValueError, match="constant"):
        fit(np.ones((40, 3)), y)
    with pytest.raises(ValueError, match="validation X has 2 features"):
        fit(X, y, validation=(X[:, :2], y))
    with pytest.raises(ValueError, match="validation y has only one class"):
        fit(X, y, validation=(X, np.zeros(40)))
    with pytest.raises(TypeError, match="validation must be a pair"):
        fit(X, y, validation=X)
    m = BinaryLinearModel(np.ones(3), 0.0, "manual")
    with pytest.raises(ValueError, match="X has 2 features, expected 3"):
        m.decision_function(X[:, :2])


def test_option_errors():
    X, y = make_data(40, 2, seed=12)
    with pytest.raises(ValueError, match="l2 must be a positive"):
        fit_logistic(X, y, l2=-1.0)
    with pytest.raises(ValueError, match="needs validation"):
        fit_squared_hinge_pairs(X, y, l2=[0.1, 1.0])
    with pytest.raises(ValueError, match=r"fpr_max must be in \(0, 1\]"):
        fit_svm_pauc(X, y, fpr_max=0.0)
    with pytest.raises(ValueError, match="objective must be"):
        fit_polynomial_auc(X, y, objective="aum")
    with pytest.raises(ValueError, match="degree must be in"):
        fit_polynomial_auc(X, y, degree=100)


def test_balanced_intercept_brute_force():
    rng = np.random.default_rng(13)
    for _ in range(20):
        n = int(rng.integers(3, 25))
        pos = rng.random(n) < 0.4
        if pos.all() or not pos.any():
            continue
        s = rng.integers(0, 5, n).astype(float)
        b = balanced_intercept(s, pos)
        got = (~pos & (s + b > 0)).mean() / (~pos).mean() + (pos & (s + b <= 0)).mean() / pos.mean()
        cuts = np.r_[s.min() - 1, np.unique(s)]  # predict positive when s > cut
        best = min((~pos & (s > c)).sum() / (~pos).sum() + (pos & (s <= c)).sum() / pos.sum()
                   for c in cuts)
        assert got == pytest.approx(best)
