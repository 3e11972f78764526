"""Low (issue 47, class i): the clipped-features warning of the shipped model names the
caller's line (:func:`penlearn._warnings.caller_stacklevel`), and the resume parts say
what their checksum guards against (accidents, not intent) instead of "never trusted"."""

from __future__ import annotations

import warnings
from pathlib import Path

import penlearn as pl
from penlearn.peaks.peakseg import parts
from penlearn.peaks.pretrained import default_log_lambda

DOCS = Path(__file__).resolve().parents[2] / "docs" / "chipseq.md"


def _far_coverage():
    """One window far outside the training range (10^6 reads a base)."""
    import pandas as pd

    return pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
                         "chromEnd": range(10, 70, 10),
                         "count": [10**6, 2 * 10**6, 10**6, 3 * 10**6, 10**6, 10**6]})


def test_the_clipped_features_warning_points_at_the_caller():
    for call in (lambda: pl.predict_peaks(_far_coverage()),
                 lambda: default_log_lambda(_far_coverage())):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        clipped = [w for w in seen if "clipped" in str(w.message)]
        assert clipped and all(w.filename == __file__ for w in clipped), \
            [(w.filename, w.lineno) for w in clipped]


def test_the_parts_say_what_their_checksum_guards_against():
    for text in (parts.__doc__, DOCS.read_text()):
        flat = " ".join(text.split())
        assert "never trusted" not in flat
        assert "not against intent" in flat and "recomputed checksum" in flat
