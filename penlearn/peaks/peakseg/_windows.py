"""Each (sample, window) of a coverage table, its rows gap-filled and clipped
(:func:`_windows_of`; the windows' iteration of :mod:`penlearn.peaks.peakseg.evaluation`,
``callpeak`` and the control's model, split out of the evaluation module)."""

from __future__ import annotations

import pandas as pd

from penlearn.peaks.peakseg._background import BACKGROUND
from penlearn.peaks.peakseg._coverage_checks import COVERAGE_COLUMNS
from penlearn.peaks.peakseg.contigs import (
    clipped_rows,
    fill_gaps,
    filled_window,
    one_problem,
    sorted_rows,
    window_rows,
)
from penlearn.peaks.peakseg.features import sample_windows, window_id


def _windows_of(coverage: pd.DataFrame, windows, gaps: str = "fill"):
    """(sequence_id, sample_id, window coverage) of every (sample, window).

    Gaps are filled per (sample, chromosome) before the window is cut out, so that a
    window starting inside a gap sees the zeros there, as in the filled file."""
    if len(coverage) and one_problem(coverage):  # one whole chromosome: no copy of it
        sid0 = coverage["sample_id"].iloc[0] if "sample_id" in coverage.columns else ""
        by_sample = {(sid0, coverage["chrom"].iloc[0]): coverage}
        # its windows from its extent (no sample_id column of its every row added)
        cov = coverage.iloc[:1].assign(chromStart=[coverage["chromStart"].min()],
                                       chromEnd=[coverage["chromEnd"].max()])
        if "sample_id" not in cov.columns:
            cov = cov.assign(sample_id="")
    else:
        cov = coverage if "sample_id" in coverage.columns else coverage.assign(sample_id="")
        by_sample = dict(list(cov.groupby(["sample_id", "chrom"], sort=False)))
    filled: dict = {}
    tidy: dict = {}
    for w in sample_windows(cov, windows).itertuples(index=False):
        sid = w.sample_id if "sample_id" in coverage.columns else None
        key = (w.sample_id, w.chrom)
        if key not in by_sample:
            continue
        where = f"coverage of {'' if sid is None else f'sample {sid!r}, '}{w.chrom}"
        if key not in tidy:  # (once per chromosome, not per window)
            tidy[key] = gaps == "fill" and sorted_rows(by_sample[key])
            tidy[key] = tidy[key] and (2 if one_problem(by_sample[key]) else 1)
        if tidy[key] == 2:  # the window's rows filled and clipped in one pass
            columns = [*COVERAGE_COLUMNS, *([BACKGROUND] if BACKGROUND in coverage else [])]
            gw = filled_window(by_sample[key], w.chromStart, w.chromEnd, columns)
            if gw is not None:
                name = getattr(w, "sequence_id", None) or window_id(
                    sid, w.chrom, w.chromStart, w.chromEnd)
                # (handed over, not held here too: the caller may drop the window's
                # rows while it is solved, issue 55)
                box, gw = [gw], None
                yield name, sid, box.pop()
                continue
        g = window_rows(by_sample[key], w.chromStart, w.chromEnd) if tidy[key] else None
        if g is None:  # (the chromosome filled once, kept for its next windows)
            if key not in filled:
                filled[key] = fill_gaps(by_sample[key], gaps, name=where)
            gw = _clipped(filled[key], w.chromStart, w.chromEnd, sliced=False)
        else:  # (only the window's rows filled: nothing of it held past the window)
            gw = _clipped(fill_gaps(g, gaps, name=where), w.chromStart, w.chromEnd)
        g = None
        name = getattr(w, "sequence_id", None) or window_id(sid, w.chrom, w.chromStart,
                                                            w.chromEnd)
        box, gw = [gw], None
        yield name, sid, box.pop()


def _clipped(g: pd.DataFrame, start: int, end: int, sliced: bool = True) -> pd.DataFrame:
    """:func:`~penlearn.peaks.peakseg.contigs.clipped_rows` of the filled ``g`` with the
    coverage columns (and ``background``) only."""
    g = clipped_rows(g, start, end, sliced)
    columns = [*COVERAGE_COLUMNS, *([BACKGROUND] if BACKGROUND in g else [])]
    return g if list(g.columns) == columns else g[columns]
