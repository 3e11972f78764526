"""Hostile arguments of the peak models: ``predict_peaks`` log λ of the wrong type, shape or
value, ``peak_error_functions`` peak bounds, ``peakseg_search`` peak counts beyond the path
or of the wrong type."""

from __future__ import annotations

import numpy as np
import pandas as pd
from _hostile import ERROR, check_cases, coverage_table

import penlearn as pl


def _predict_cases():
    cov = coverage_table(("a", "b"))
    for name, ll in {"list": [1.0, 2.0], "dict": {"a": 1.0}, "ndarray": np.array([1.0, 2.0]),
                     "str": "1", "NaN": np.nan, "bool": True,
                     "Series missing id": pd.Series({"a": 1.0}),
                     "Series NaN": pd.Series({"a": 1.0, "b": np.nan})}.items():
        yield (f"predict_peaks log_lambda {name}",
               (lambda v=ll: pl.predict_peaks(cov, log_penalty=v)), ERROR)
    lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [0],
                        "chromEnd": [60], "annotation": ["peaks"]})
    yield ("predict_peaks log_penalty=None is no penalty given: the shipped default model",
           lambda: (pl.predict_peaks(cov, log_penalty=None), pl.predict_peaks(cov)),
           lambda r: r[0].equals(r[1]))
    yield ("predict_peaks log_penalty inf: an error naming the unit",
           lambda: pl.predict_peaks(cov, log_penalty=np.inf), ERROR)
    yield ("peak_error_functions max_peaks=2**70 = None",
           lambda: (pl.peak_error_functions(cov, lab, max_peaks=2**70, progress=False),
                    pl.peak_error_functions(cov, lab, max_peaks=None, progress=False)),
           lambda r: r[0].drop(columns="bounded", errors="ignore").equals(
               r[1].drop(columns="bounded", errors="ignore")))
    for bad in (-1, 2.5, True, "3", np.nan):
        yield (f"peak_error_functions max_peaks={bad!r}",
               (lambda b=bad: pl.peak_error_functions(cov, lab, max_peaks=b, progress=False)),
               ERROR)
    yield ("peak_error_functions max_peaks=0",
           lambda: pl.peak_error_functions(cov.query("sample_id == 'a'"), lab, max_peaks=0,
                                           progress=False),
           lambda r: len(r) >= 1)


def _search_cases():
    """``peakseg_search`` beyond the model path and with bad peak counts."""
    y = [12, 10, 1, 0, 3, 5, 0, 2, 10, 16, 11, 11]
    small = pd.DataFrame({"chrom": "chr1", "chromStart": range(12), "chromEnd": range(1, 13),
                          "count": y})
    top = pl.peakseg(small, 0.0).n_peaks
    yield ("peakseg_search beyond the path", lambda: pl.peakseg_search(small, 5),
           lambda r: r.n_peaks == top)
    for bad in (None, -1, 2.5, True, "3", 6):
        yield (f"peakseg_search peaks={bad!r}", (lambda b=bad: pl.peakseg_search(small, b)),
               ERROR)


def test_predict_peaks_and_peak_bounds():
    check_cases(_predict_cases(), at_least=16)


def test_peakseg_search_counts():
    check_cases(_search_cases(), at_least=7)
