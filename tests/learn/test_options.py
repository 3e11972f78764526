"""One place per option and one validator: every option of
``learn_penalty`` / ``fit_penalty`` / ``PenaltyModel`` is a field of ``LearnOptions``,
checked by ``learn_options`` before any work. Each bad value below was accepted (or
failed deep inside) before the validator."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest
from test_learn import synthetic

from penlearn.learn import PenaltyModel, fit_penalty, learn_penalty
from penlearn.learn.options import LearnOptions, learn_options


def test_the_three_signatures_come_from_the_options():
    names = [f.name for f in fields(LearnOptions)]
    for fn in (learn_penalty, fit_penalty, PenaltyModel):
        params = inspect.signature(fn).parameters
        assert all(params[n].default == getattr(LearnOptions(), n) for n in names), fn
    assert list(PenaltyModel().get_params()) == names
    assert PenaltyModel(l2=0.3).get_params()["l2"] == 0.3


@pytest.mark.parametrize("options, exc, needle", [
    ({"boosting": {"patience": -1}}, ValueError, "boosting: patience must be an integer >= 1"),
    ({"boosting": {"patience": 0}}, ValueError, "patience must be an integer >= 1"),
    ({"boosting": 5}, TypeError, "boosting must be a dict of options"),
    ({"boosting": {"depth": 2}}, ValueError, "boosting options must be among"),
    ({"boosting": {"learning_rate": 0}}, ValueError, "learning_rate must be"),
    ({"random_state": -1}, ValueError, "random_state must be an integer >= 0 or None"),
    ({"random_state": 1.5}, ValueError, "random_state"),
    ({"max_steps": -2}, ValueError, "max_steps must be an integer >= 0"),
    ({"init": "ones"}, ValueError, "init must be one of"),
    ({"model": "trees"}, ValueError, "model must be one of"),
    ({"progress": "yes"}, TypeError, "progress must be True or False"),
    ({"ir_repeats": 0}, ValueError, "ir_repeats must be an integer >= 1"),
    ({"l2": float("nan")}, ValueError, "l2 must be a finite number"),
    ({"max_stages": 3}, TypeError, "unknown option(s) ['max_stages']"),
])
def test_bad_options_name_the_option_before_any_work(options, exc, needle):
    with pytest.raises(exc) as info:
        learn_options(**options)
    assert needle in str(info.value)
    feats, ev = synthetic(n=20)
    with pytest.raises(exc) as info:  # the same message from every entry point
        learn_penalty(feats, ev, **{"progress": False, **options})
    assert needle in str(info.value)


def test_patience_one_still_learns_trees():
    """The smallest valid patience is a working model (the bound is not too strict)."""
    feats, ev = synthetic(n=60)
    m = learn_penalty(feats, ev, model="boosting", boosting={"patience": 1,
                                                             "min_samples_leaf": 3})
    assert m.trees_ is not None and m.level_["model"] == "boosting"
