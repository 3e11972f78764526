"""The descent options of fit_aum_linear are checked by the one validator that
learn_penalty's options use (penlearn.fitting.descent.descent_options)."""

from __future__ import annotations

import numpy as np
import pytest

from penlearn.binary import fit_aum_linear
from penlearn.learn.options import learn_options


@pytest.mark.parametrize(("option", "value", "message"), [
    ("max_steps", True, "max_steps must be an integer >= 0, got True"),
    ("max_steps", 2.0, "max_steps must be an integer >= 0, got 2.0"),
    ("line_search", "best", "line_search must be one of"),
    ("normalize", "ratio", "normalize must be one of"),
    ("tol", -1.0, "tol must be a finite number >= 0"),
])
def test_fit_aum_linear_and_learn_options_refuse_the_same_values(option, value, message):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), np.tile([0, 1], 10)
    with pytest.raises(ValueError, match=message):
        fit_aum_linear(X, y, progress=False, **{option: value})
    with pytest.raises(ValueError, match=message):
        learn_options(**{option: value})
