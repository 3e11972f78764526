"""Bad inputs of :func:`penlearn.joint_peak` get one-line errors naming what is wrong."""

from __future__ import annotations

import pandas as pd
import pytest

from penlearn import joint_peak


def window(rows, group=None):
    df = pd.DataFrame(rows, columns=["sample_id", "chromStart", "chromEnd", "count"])
    if group is not None:
        df["group"] = group
    return df


GOOD = [("a", 0, 5, 1), ("a", 5, 9, 4), ("a", 9, 20, 1),
        ("b", 2, 6, 0), ("b", 6, 12, 3), ("b", 12, 18, 0)]


@pytest.mark.parametrize(
    ("df", "kwargs", "match"),
    [
        (window(GOOD).drop(columns="count"), {}, "count"),
        (window(GOOD[:1] + [("a", 4, 9, 1)]), {}, "overlapping rows"),
        (window(GOOD).assign(count=[1, -1, 1, 1, 1, 1]), {}, "'count' must be >= 0"),
        (window(GOOD).assign(chromEnd=[5, 5, 20, 6, 12, 18]), {}, "chromEnd 5 <= chromStart 5"),
        (window(GOOD), {"region": (0, 20)}, "sample 'b' covers 2-18, not all of the region"),
        (window(GOOD), {"region": (5, 7)}, "at least 3 bases"),
        (window([("a", 0, 5, 1), ("b", 3, 9, 1)]), {"extent": "common"}, "share only 2"),
        (window(GOOD), {"extent": "all"}, "extent must be 'union' or 'common'"),
        (window(GOOD, group=list("xyxzzz")), {}, "sample 'a' has several values"),
        (window(GOOD).iloc[:0], {}, "no rows"),
        (window(GOOD).assign(chrom=["chr1"] * 5 + ["chr2"]), {}, "one chromosome"),
        (window(GOOD), {"max_blocks": 0}, "max_blocks must be a positive integer"),
        (window(GOOD), {"method": "fast"}, "method must be 'exact' or 'heuristic'"),
    ],
)
def test_bad_window_one_line_error(df, kwargs, match):
    with pytest.raises(ValueError, match=match) as err:
        joint_peak(df, **kwargs)
    assert "\n" not in str(err.value)


def test_type_errors():
    with pytest.raises(TypeError, match="window must be a pandas DataFrame"):
        joint_peak(GOOD)
    with pytest.raises(TypeError, match="'count' must be numeric"):
        joint_peak(window(GOOD).assign(count="x"))


def test_extents_and_gaps():
    """By default the window spans all rows, bases without rows being zeros (as a gap
    inside a sample is); ``extent="common"`` keeps the bases all samples cover."""
    fit = joint_peak(window(GOOD))
    assert (fit.chromStart, fit.chromEnd) == (0, 20)
    padded = window(GOOD + [("b", 0, 2, 0), ("b", 18, 20, 0)])
    pd.testing.assert_series_equal(fit.loss, joint_peak(padded).loss)
    common = joint_peak(window(GOOD), extent="common")
    assert (common.chromStart, common.chromEnd) == (2, 18)
    gapped = window([("a", 2, 5, 1), ("a", 9, 18, 1), ("b", 2, 18, 1)])
    filled = window([("a", 2, 5, 1), ("a", 5, 9, 0), ("a", 9, 18, 1), ("b", 2, 18, 1)])
    pd.testing.assert_series_equal(joint_peak(gapped).loss, joint_peak(filled).loss)
    inside = joint_peak(window(GOOD), region=(4, 16))
    assert (inside.chromStart, inside.chromEnd) == (4, 16)
