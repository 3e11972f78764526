"""Model choice by cross-validation over whole regions (``model="auto"``): the
constant where the features are noise, the linear model where log λ is linear in them;
what was chosen and why is said (``describe``, ``choice_``, the model file)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_learn import synthetic

from penlearn.learn import PenaltyModel, learn_penalty
from penlearn.learn.choice import group_folds, one_se_choice


def _regional(feats, ev, n_regions=12):
    """ChIP-seq style ids ``s<k>/problems/chr<r>:1-100``: 12 regions (groups)."""
    new = {sid: f"s{i // n_regions}/problems/chr{i % n_regions + 1}:1-100"
           for i, sid in enumerate(feats.index)}
    return feats.rename(index=new), ev.assign(sequence_id=ev["sequence_id"].map(new))


@pytest.fixture(scope="module")
def linear_set():
    return _regional(*synthetic(n=120, seed=3))


def test_informative_linear_features_choose_the_linear_model(linear_set):
    m = learn_penalty(*linear_set, model="auto", progress=False)
    c = m.choice_
    assert c["chosen"] == "linear" and m.level_["model"] == "linear"
    assert c["groups"] == "regions" and c["folds"] == 3
    # linear by far: its CV errors below the constant's by many standard errors
    assert c["errors"]["linear"] + 3 * c["se"]["constant"] < c["errors"]["constant"]
    # the final model is the linear model refit on all: the same as model="linear"
    lin = learn_penalty(*linear_set, model="linear", progress=False)
    assert np.allclose(m.coef_, lin.coef_) and m.intercept_ == lin.intercept_
    assert "a linear model of log λ" in m.describe() and "chosen by 3-fold" in m.describe()
    assert repr(m).startswith("PenaltyModel('linear', ")


def test_pure_noise_features_choose_the_constant_and_say_so(linear_set, tmp_path):
    feats, ev = linear_set
    noise = pd.DataFrame(np.random.default_rng(7).normal(size=feats.shape),
                         index=feats.index, columns=feats.columns)
    m = learn_penalty(noise, ev, model="auto", progress=False)
    assert m.choice_["chosen"] == "constant"
    assert not np.any(m.coef_.to_numpy())
    pred = m.predict(noise)
    assert np.all(pred == pred[0])
    # the constant is the log λ of fewest training label errors: as model="constant"
    const = learn_penalty(noise, ev, model="constant", progress=False)
    assert m.intercept_ == const.intercept_
    text = m.describe()
    assert "learning fell back to a constant penalty" in text and "constant penalty" in text
    m.save(tmp_path / "m.json")  # the choice is kept in the model file
    back = PenaltyModel.load(tmp_path / "m.json")
    assert back.choice_["chosen"] == "constant" and back.describe() == text


def test_group_folds_keep_groups_whole_and_balanced():
    rng = np.random.default_rng(0)
    g = pd.Series(rng.integers(0, 9, size=200), index=[f"s{i}" for i in range(200)])
    f = group_folds(g, 3, np.random.default_rng(1))
    assert (f.groupby(g).nunique() == 1).all()  # every group in one fold
    sizes = f.value_counts()
    assert len(sizes) == 3 and sizes.max() - sizes.min() <= g.value_counts().max()
    # fewer groups than folds: the sequences themselves are dealt
    f2 = group_folds(pd.Series(0, index=g.index), 3, np.random.default_rng(1))
    assert sorted(f2.value_counts().tolist()) == [66, 67, 67]


def test_one_se_rule_by_hand():
    e = pd.DataFrame({"constant": [0.30, 0.20, 0.25], "linear": [0.20, 0.16, 0.18],
                      "boosting": [0.19, 0.15, 0.17]})
    pick, table = one_se_choice(e)
    se_best = e["boosting"].std(ddof=1) / np.sqrt(3)
    assert table.loc["boosting", "se"] == pytest.approx(se_best)
    # linear (0.18) is within 0.17 + SE (0.01155...) of the best, and simpler
    assert pick == "linear"
    # a candidate that failed on a fold is out of the choice
    assert one_se_choice(e.assign(linear=[0.2, np.nan, 0.18]))[0] == "boosting"
