"""``penlearn peaks`` one chromosome at a time, as ``callpeak`` calls a genome
(:mod:`penlearn.cli._callpeak_stream`): each chromosome's windows, features, penalties
and solves made and dropped before the next."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from penlearn.cli._callpeak_stream import _emit_warnings
from penlearn.cli._phases import _return_freed_memory

__all__ = ["chromosome_rows", "predict_by_chromosome", "predict_chunks",
           "sample_tables"]


def chromosome_rows(table: pd.DataFrame) -> dict:
    """``{chrom: row positions}`` of a coverage table, the chromosomes in their first
    rows' order (one pass over the ``chrom`` column).

    Examples
    --------
    >>> t = pd.DataFrame({"chrom": ["chr2", "chr2", "chr1", "chr2"]})
    >>> {c: i.tolist() for c, i in chromosome_rows(t).items()}
    {'chr2': [0, 1, 3], 'chr1': [2]}
    """
    codes, names = pd.factorize(table["chrom"], sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    return {str(names[k]): order[bounds[k]:bounds[k + 1]] for k in range(len(names))}


def sample_tables(table: pd.DataFrame, samples: list) -> dict:
    """``{sample: its rows of table}`` (``sample_id``): a slice (no copy) where a
    sample's rows are together, as :func:`~penlearn.peaks.formats.coverage.read_coverage`
    gives them, else a copy of its rows.

    Examples
    --------
    >>> t = pd.DataFrame({"sample_id": ["a", "a", "b"], "count": [1, 2, 3]})
    >>> {s: g["count"].tolist() for s, g in sample_tables(t, ["a", "b"]).items()}
    {'a': [1, 2], 'b': [3]}
    """
    codes, names = pd.factorize(table["sample_id"], sort=False)
    together = len(codes) < 2 or bool((np.diff(codes) >= 0).all())
    bounds = np.searchsorted(codes, np.arange(len(names) + 1)) if together else None
    out = {}
    for k, name in enumerate(names):
        if name not in samples:
            continue
        out[name] = table.iloc[bounds[k]:bounds[k + 1]] if together else \
            table[codes == k]
    return out


def predict_by_chromosome(coverage: pd.DataFrame, plain: pd.DataFrame, log_lambda_of,
                          predict=None, **predict_kw) -> pd.DataFrame:
    """``penlearn peaks``' segments one chromosome at a time (as :func:`call_chromosome`
    does for ``callpeak``): each chromosome's rows of ``plain`` (the samples' own
    coverage) to ``log_lambda_of(rows, first)`` → ``(log λ, windows)`` (the windows and
    their features are of one chromosome), then ``predict(rows, log_penalty=,
    windows=, **predict_kw)`` of its rows of ``coverage`` (default:
    :func:`~penlearn.peaks.peakseg.evaluation.predict_peaks` with ``segments=True``),
    the chromosome's tables dropped before the next one; the segments of every
    chromosome, each sample's together in the samples' order. The segments of the whole
    table at once (``tests/cli/test_peaks_stream.py``), in a chromosome's memory
    instead of the genome's.
    """
    rows = chromosome_rows(coverage)
    plain_rows = None if plain is coverage else chromosome_rows(plain)

    def chunk(chrom, idx):
        cov = coverage.iloc[idx].reset_index(drop=True)
        return cov, cov if plain_rows is None else plain.iloc[
            plain_rows.get(chrom, np.zeros(0, np.intp))].reset_index(drop=True)
    chunks = (chunk(chrom, idx) for chrom, idx in rows.items())  # none kept here
    first = pd.unique(coverage["sample_id"]) if "sample_id" in coverage.columns else []
    return predict_chunks(chunks, log_lambda_of, predict, first, **predict_kw)


def predict_chunks(chunks, log_lambda_of, predict, samples, keep=None, **predict_kw
                   ) -> pd.DataFrame:
    """:func:`predict_by_chromosome` of the chromosomes' tables ``chunks`` (an iterable
    of ``(coverage rows, the samples' own rows)`` of one chromosome each, made when
    asked and dropped once solved); the segments each sample's together in the order of
    ``samples``. ``keep``: each chromosome's segments are given to it instead (e.g. saved
    to disk), none held here: an empty table then, with the ``attrs``."""
    from penlearn.peaks.peakseg.evaluation import predict_peaks

    parts, reused, windows, caught, attrs = [], 0, 0, [], None
    for k, (cov, own) in enumerate(chunks):
        with warnings.catch_warnings(record=True) as got:  # each kind once, at the end
            warnings.simplefilter("always")
            log_lambda, wins = log_lambda_of(own, k == 0)
            segs = predict(cov, log_penalty=log_lambda, windows=wins, **predict_kw) \
                if predict is not None else predict_peaks(
                    cov, log_penalty=log_lambda, windows=wins, segments=True, **predict_kw)
        caught += [(w.category, str(w.message)) for w in got]
        reused += segs.attrs.get("parts_reused", 0)
        windows += segs.attrs.get("windows", 0)
        attrs = segs.attrs if attrs is None else attrs
        if keep is None:
            parts.append(segs)
        else:
            keep(segs)
        del cov, own, log_lambda, wins, segs
        _return_freed_memory(trim=True)
    _emit_warnings(caught)
    out = pd.DataFrame() if keep is not None else pd.concat(
        parts, ignore_index=True) if len(parts) > 1 else parts[0]
    if "sample_id" in out.columns and len(parts) > 1:  # each sample's rows together
        rank = pd.Series(np.arange(len(samples)), index=list(samples))
        out = out.iloc[np.argsort(rank.loc[out["sample_id"]].to_numpy(), kind="stable")
                       ].reset_index(drop=True)
    out.attrs = {**attrs, **({"parts_reused": reused, "windows": windows}
                             if "windows" in attrs else {})}
    return out
