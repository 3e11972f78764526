"""Bad inputs of :func:`penlearn.joint_peak` get one-line errors naming what is wrong."""

from __future__ import annotations

import numpy as np
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
        (window(GOOD).assign(count=[1, -1, 1, 1, 1, 1]), {}, "'count' must be finite and >= 0"),
        (window(GOOD).assign(count=[1, float("nan"), 1, 1, 1, 1]), {}, "row 1 has nan"),
        (window(GOOD).assign(chromStart=[0, 5, 9, 2.5, 6, 12]), {},
         "'chromStart' must hold non-negative integers; row 3"),
        (window(GOOD).assign(chromStart=[0, 5, 9, -2, 6, 12]), {}, "non-negative integers"),
        (window(GOOD).assign(chromEnd=pd.Series([5, 9, 20, 6, 12, 2**64 + 5], dtype=object)),
         {}, "row 5 has 18446744073709551621, beyond the 64-bit integer range"),
        (window(GOOD).assign(chromEnd=np.array([5, 9, 20, 6, 12, 2**63 + 1], dtype=np.uint64)),
         {}, "beyond the 64-bit integer range"),
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


@pytest.mark.parametrize(
    ("df", "kwargs", "match"),
    [
        (GOOD, {}, "window must be a pandas DataFrame"),
        (window(GOOD).assign(count="x"), {}, "'count' must hold real numbers; row 0 has 'x'"),
        (window(GOOD).assign(count=[1 + 1j] * 6), {}, "'count' must hold real numbers"),
        (window(GOOD).assign(count=[True, False] * 3), {}, "'count' must hold real numbers"),
        (window(GOOD).assign(count=pd.Series([1, 2, 3, 4, 5, True], dtype=object)), {},
         "'count' must hold real numbers; row 5 has True"),
        (window(GOOD).assign(chromStart=[False, True] * 3), {},
         "'chromStart' must hold real numbers"),
        (window(GOOD), {"region": (2.5, 20.5)}, "region must be two integers"),
        (window(GOOD), {"region": (True, 20)}, "region must be two integers"),
        (window(GOOD), {"region": (2, 9, 20)}, "region must be two integers"),
    ],
)
def test_type_errors(df, kwargs, match):
    with pytest.raises(TypeError, match=match.replace("(", r"\(").replace(")", r"\)")):
        joint_peak(df, **kwargs)


def test_large_coordinates_exact():
    """Integer coordinates never pass through float64: 2**62 + 1 stays itself (a float
    round trip would give 2**62), and the peak is at its exact bases."""
    base = 2**62 + 1
    rows = [("a", base + s, base + e, c) for s, e, c in
            [(0, 5, 1), (5, 9, 8), (9, 20, 1)]]
    fit = joint_peak(window(rows))
    assert (fit.chromStart, fit.chromEnd) == (base, base + 20)
    assert fit.peak.loc[1].tolist() == [base + 5, base + 9]
    as_objects = window(rows).astype({"chromStart": object, "chromEnd": object})
    assert joint_peak(as_objects).peak.loc[1].tolist() == [base + 5, base + 9]
    region = joint_peak(window(rows), region=(np.int64(base + 2), base + 18))
    assert (region.chromStart, region.chromEnd) == (base + 2, base + 18)


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
