"""Keys taken as given (issue 47, class a): sample ids and chromosome names that are not
text, or missing, reach every coverage entry point through one normaliser
(:func:`penlearn._checks.text_ids`): numbers are read as their text, missing keys and
other objects (bytes, tuples) are refused naming the column — never a silent drop."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases

import penlearn as pl


def _coverage(ids=("s",)):
    rng = np.random.default_rng(1)
    y = rng.poisson([2] * 40 + [40] * 10 + [2] * 40)
    one = pd.DataFrame({"chrom": "chr1", "chromStart": np.arange(90) * 1000,
                        "chromEnd": np.arange(1, 91) * 1000, "count": y})
    return pd.concat([one.assign(sample_id=pd.Series([s] * 90, dtype=object))
                      for s in ids], ignore_index=True)


def _peaks(ids, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pl.predict_peaks(_coverage(ids), **kw)


@pytest.fixture(scope="module")
def text_peaks():
    return _peaks(("s",))[["chrom", "chromStart", "chromEnd"]].values.tolist()


def _same_peaks(expected, ids):
    def want(got):
        per = [got[got["sample_id"] == s][["chrom", "chromStart", "chromEnd"]].values.tolist()
               for s in ids]
        return len(expected) > 0 and all(p == expected for p in per)
    return want


def test_ids_that_are_numbers_are_read_as_their_text(text_peaks):
    cases = [(f"predict_peaks ids {ids!r}", lambda ids=ids: _peaks(ids),
              _same_peaks(text_peaks, [str(i) for i in ids]))
             for ids in [(1,), (1.5,), (True,), (np.int64(3),), (1, 2), (1, "x")]]
    cases.append(("predict_peaks penalty= ids (1, 2)",
                  lambda: _peaks((1, 2), log_penalty=11.0), _same_peaks(text_peaks, ["1", "2"])))
    check_cases(cases, at_least=7)


def _with(col, value, row=5):
    cov = _coverage(("a", "b"))
    cov[col] = cov[col].astype(object)
    cov.loc[row, col] = value
    return cov


def test_missing_or_unusable_keys_are_refused_by_every_entry_point():
    labels = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [40000],
                           "chromEnd": [50000], "annotation": ["peaks"]})
    entry = {
        "predict_peaks": lambda c: pl.predict_peaks(c, log_penalty=11.0),
        "predict_peaks (shipped model)": pl.predict_peaks,
        "coverage_features": pl.coverage_features,
        "peak_error_functions": lambda c: pl.peak_error_functions(c, labels, progress=False),
        "peakseg": lambda c: pl.peakseg(c, 10.0),
    }
    bad = {"sample_id NA": (("sample_id", None), Error("sample_id", "missing", "row 5")),
           "sample_id NaN": (("sample_id", np.nan), Error("sample_id", "missing")),
           "chrom NA": (("chrom", None), Error("chrom", "missing", "row 5")),
           "sample_id bytes": (("sample_id", b"a"), Error("sample_id", "bytes", "row 5")),
           "sample_id tuple": (("sample_id", ("a", "b")), Error("sample_id", "tuple")),
           "chrom tuple": (("chrom", ("chr1",)), Error("chrom", "tuple"))}
    cases = [(f"{fn} {what}", lambda f=f, cv=cv: f(_with(*cv)), want)
             for fn, f in entry.items() for what, (cv, want) in bad.items()]
    check_cases(cases, at_least=30)


def test_labels_and_coverage_with_integer_ids_meet():
    cov = _coverage((1, 2))
    cov["sample_id"] = cov["sample_id"].astype(int)
    labels = pd.DataFrame({"sample_id": [1, 2], "chrom": "chr1", "chromStart": [40000] * 2,
                           "chromEnd": [50000] * 2, "annotation": "peaks"})
    ev = pl.peak_error_functions(cov, labels, progress=False, max_peaks=2)
    assert sorted(ev["sequence_id"].unique()) == ["1/chr1:0-90000", "2/chr1:0-90000"]
