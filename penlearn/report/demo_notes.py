"""The prose of the ``penlearn demo`` report: what learning did, said with this run's numbers.

The demo (:mod:`penlearn.cli.demo`) learns a penalty model on simulated sequences and
compares it on held-out test sequences with its start (the best constant penalty for
boosting, interval regression for the linear model) and with BIC. These functions write
the paragraphs of its report: whether learning changed the model and why (not), whether
that lowered the test label errors, and how the model compares with BIC. Each says the
outcome plainly either way.
"""

from __future__ import annotations

import pandas as pd

from penlearn.roc import roc_change

__all__ = ["MODEL_NAMES", "bic_note", "boosting_note", "learning_note"]

#: How the demo's report names each model class.
MODEL_NAMES = {"boosting": "AUM gradient boosting", "linear": "AUM line search",
               "constant": "constant chosen by CV"}


def bic_note(ev_test: pd.DataFrame, learned: pd.Series, bic: pd.Series) -> str:
    """Is the learned model at least as good as BIC on the test sequences (test AUC, label
    errors at the predicted penalty and at the best shift)? Said plainly either way.

    Parameters
    ----------
    ev_test : DataFrame
        The error functions (evaluation table) of the test sequences.
    learned, bic : Series
        Predicted log λ per test sequence of the learned model and of BIC.

    Returns
    -------
    str
        One paragraph.

    Examples
    --------
    >>> ev = pd.DataFrame({"sequence_id": ["a", "a"], "min_log_lambda": [-float("inf"), 0.0],
    ...                    "max_log_lambda": [0.0, float("inf")], "fp": [1, 0], "fn": [0, 1],
    ...                    "possible_fp": [1, 1], "possible_fn": [1, 1], "labels": [2, 2],
    ...                    "errors": [1, 1]})
    >>> bic_note(ev, pd.Series([1.0], index=["a"]), pd.Series([1.0], index=["a"]))[:60]
    'Against BIC (λ = log n, no learning) the learned model is at'
    """
    r_l, r_b = roc_change(ev_test, learned), roc_change(ev_test, bic)
    e_l, e_b = (int(r.thresholds.loc["predicted", "errors"]) for r in (r_l, r_b))
    m_l, m_b = (int(r.thresholds.loc["min_error", "errors"]) for r in (r_l, r_b))
    nums = (f"test AUC {r_l.auc:.4f} (learned) against {r_b.auc:.4f} (BIC), label errors "
            f"{e_l} against {e_b} at the predicted penalties and {m_l} against {m_b} at "
            "each one's best shift")
    if r_l.auc >= r_b.auc and e_l <= e_b and m_l <= m_b:
        return ("Against BIC (λ = log n, no learning) the learned model is at least as "
                f"good: {nums}.")
    return (f"Against BIC (λ = log n, no learning) the learned model is NOT at least as good "
            f"on every measure: {nums}. On these Gaussian sequences the BIC penalty is linear "
            "in log n and log σ̂², which a linear model represents exactly and small trees "
            "do not; with few training sequences the learned level and ranking are also "
            "noisy.")


def boosting_note(model, ev_test, x_test, constant: pd.Series, n_val: int) -> str:
    """One paragraph for the demo report: what boosting kept, and whether it lowered the
    test label errors of the best constant penalty (numbers of this run).

    Parameters
    ----------
    model : PenaltyModel
        The learned boosting (or CV-chosen constant) model, with its ``history_``.
    ev_test : DataFrame
        The error functions of the test sequences.
    x_test : DataFrame
        Their features.
    constant : Series
        The best constant log λ of the training sequences, per test sequence.
    n_val : int
        The number of validation sequences (said in the text).

    Returns
    -------
    str
        One paragraph.
    """
    h = model.history_
    v = h["validation_auc"].to_numpy()
    learned = roc_change(ev_test, pd.Series(model.predict(x_test), index=x_test.index))
    const = roc_change(ev_test, constant)
    e_l, e_c = (int(r.thresholds.loc["predicted", "errors"]) for r in (learned, const))
    n_labels = int(learned.thresholds.loc["predicted", "labels"])
    scale = model.level_.get("scale", 1.0)
    level = (f"the level of log λ (scale {scale:g}, shift of fewest errors) was chosen on "
             f"the {n_val} validation sequences")
    if model.level_.get("model") == "constant":
        changed = ("Learning did not change the model: cross-validation over the training "
                   "sequences chose the constant penalty (no learned model made fewer label "
                   "errors with a better ranking); its log λ is the one of fewest training "
                   "label errors.")
    elif len(h) == 1:
        changed = ("Learning did not change the model: AUM gradient boosting fit no tree "
                   "(too few subtrain sequences for the trees' leaves, or a zero AUM "
                   f"gradient), so the constant start is kept; {level}.")
    elif not model.trees_:
        changed = (f"Learning did not change the model: AUM gradient boosting fit "
                   f"{len(h) - 1} tree(s) but none raised the validation AUC above the "
                   f"constant start's ({v[0]:.4f}), so the constant penalty is kept; {level}.")
    else:
        changed = (f"Learning changed the model: AUM gradient boosting kept "
                   f"{len(model.trees_)} of {len(h) - 1} trees (each step by the exact AUM "
                   f"line search), raising the validation AUC from {v[0]:.4f} (constant "
                   f"start) to {v[model.best_step_]:.4f}; {level}.")
    if e_l < e_c:
        verdict = "learning lowered the test label errors"
    elif e_c == 0:
        verdict = "the constant has no test label error, so there is nothing to lower"
    elif e_l == e_c:
        verdict = "learning did not lower the test label errors (a tie)"
    else:
        verdict = ("learning did not lower the test label errors: the learned ranking "
                   "did not carry over to these test sequences at this level")
    return (f"{changed} On the {len(x_test)} test sequences: {e_l} of {n_labels} labels "
            f"wrong with the learned penalties against {e_c} with the best constant penalty "
            f"of the training sequences (log λ = {float(constant.iloc[0]):.3g}): {verdict}; "
            f"test AUC {learned.auc:.4f} against {const.auc:.4f}.")


def learning_note(model, paper, init, ev_test, x_test, n_val: int) -> str:
    """One paragraph for the demo report: did learning change the linear model, and why
    (not).

    Parameters
    ----------
    model : PenaltyModel
        The learned linear model (with ``history_``, ``best_step_``, ``shrink``).
    paper : PenaltyModel
        The papers' protocol from the same start (plain AUM, largest validation AUC).
    init : PenaltyModel
        The start (interval regression).
    ev_test, x_test : DataFrame
        The error functions and features of the test sequences.
    n_val : int
        The number of validation sequences.

    Returns
    -------
    str
        One paragraph.
    """
    def test_auc(m):
        return roc_change(ev_test, pd.Series(m.predict(x_test), index=x_test.index)).auc

    note = _descent_note(model, paper, init, test_auc, n_val)
    alpha = getattr(model, "shrinkage_", 1.0)
    toward = "the constant model" if model.shrink is True else f"log λ = {model.shrink}"
    if model.shrink is False:
        return note
    if alpha == 1.0:
        return (note + f" Shrinking the weights toward {toward} (shrink={model.shrink!r}) "
                "did not raise the validation AUC, so they are kept.")
    if model.best_step_ == 0:
        note = note.replace("Learning did not change the model", "Descent did not change "
                            "the model", 1)
    return (note + f" Learning changed the model by shrinking: {alpha:.1f} × the weights + "
            f"{1 - alpha:.1f} × {toward} (shrink={model.shrink!r}) had the largest "
            f"validation AUC; test AUC {test_auc(init):.4f} (start) -> "
            f"{test_auc(model):.4f} (returned model).")


def _descent_note(model, paper, init, test_auc, n_val: int) -> str:
    """What gradient descent and the iterate selection did."""
    h = model.history_
    v = h["validation_auc"].to_numpy()
    a = h["subtrain_aum"].to_numpy()
    n_steps = int(h["step"].iloc[-1])
    j = 1 + int(v[1:].argmax()) if n_steps else 0  # the best step after the start
    init_auc = test_auc(init)
    done = f"gradient descent ran {n_steps} steps (subtrain AUM {a[0]:.4g} -> {a[-1]:.4g})"
    if model.best_step_ > 0:
        return (f"Learning changed the model: {done}, and step {model.best_step_} raised the "
                f"validation AUC from {v[0]:.4f} to {v[model.best_step_]:.4f}, more than "
                f"min_improvement={model.min_improvement}; test AUC {init_auc:.4f} (start) -> "
                f"{test_auc(model):.4f} (learned).")
    if n_steps == 0:
        return f"Learning did not change the model: {done}; the start is kept."
    gain = v[j] - v[0]
    why = ("no step raised the validation AUC above the start's" if gain <= 0 else
           f"the best step raised the validation AUC by only {gain:.4f}, not more than "
           f"min_improvement={model.min_improvement}")
    paper_says = ("also keeps the start." if paper.best_step_ == 0 else
                  f"takes step {paper.best_step_}: test AUC {test_auc(paper):.4f} against the "
                  f"start's {init_auc:.4f}.")
    return (f"Learning did not change the model: {done}, but on the {n_val} validation "
            f"sequences {why} (start {v[0]:.5f}, best later step {j}: {v[j]:.5f}), so "
            "descent keeps the interval-regression start: the lower subtrain AUM did not "
            "carry over to new sequences. The papers' protocol (plain AUM, l2=0, the largest "
            f"validation AUC, min_improvement=0, shrink=False) {paper_says}")
