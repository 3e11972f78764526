"""check_evaluation's sorting and the group codes it uses (one block of rows per sequence is
found by comparing neighbours; other orders fall back to hashing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from penlearn._checks import check_evaluation, group_codes


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "10", "2"]), max_size=30))
def test_group_codes_equal_factorize(ids):
    arr = np.array(ids, dtype=object)
    codes, uniques = group_codes(arr)
    want_codes, want_uniques = pd.factorize(arr)
    assert codes.tolist() == want_codes.tolist()
    assert list(uniques) == list(want_uniques)


def _evaluation(rng, n_seq=5):
    rows = []
    for i in range(n_seq):
        cuts = np.sort(rng.choice(np.arange(-20, 20), size=int(rng.integers(0, 4)),
                              replace=False)).astype(float)
        bounds = np.r_[-np.inf, cuts, np.inf]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            rows.append((f"s{i}", lo, hi, float(rng.integers(0, 2)), float(rng.integers(0, 2))))
    return pd.DataFrame(rows, columns=["sequence_id", "min_log_lambda", "max_log_lambda",
                                       "fp", "fn"])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_check_evaluation_any_row_order(seed):
    """Any permutation of the rows gives the table sorted by first appearance of the
    sequence in the input, λ decreasing within each."""
    rng = np.random.default_rng(seed)
    ev = _evaluation(rng)
    shuffled = ev.sample(frac=1, random_state=int(rng.integers(0, 1000)))
    out = check_evaluation(shuffled)
    order = list(pd.unique(shuffled["sequence_id"]))
    want = (shuffled.assign(_k=shuffled["sequence_id"].map(order.index))
            .sort_values(["_k", "min_log_lambda"], ascending=[True, False])
            .drop(columns="_k").reset_index(drop=True))
    pd.testing.assert_frame_equal(out, want, check_dtype=False)


def test_check_evaluation_missing_sequence_id():
    """A row without a sequence id is an error naming the column and row (it used to be
    sorted in as a sequence of its own)."""
    import pytest

    ev = pd.DataFrame({"sequence_id": ["a", "a", None], "min_log_lambda": [-np.inf, 0.0, -np.inf],
                       "max_log_lambda": [0.0, np.inf, np.inf], "fp": [1, 0, 0], "fn": [0, 0, 1]})
    msg = r"'sequence_id' has 1 missing value\(s\) \(first at row 3\)"
    with pytest.raises(ValueError, match=msg):
        check_evaluation(ev)
