"""``penlearn peaks`` of one-sample files (bedGraph, bigWig, BAM) one chromosome of
every sample at a time: each file is read in turn, cut by chromosome into arrays in a
temporary folder and dropped (:func:`spill_samples`), then each chromosome's rows of
every sample are read back, solved and dropped (:func:`~penlearn.cli._peaks_stream.
predict_chunks`), and each sample's file is written from its own rows read back a
chromosome at a time (:func:`sample_chromosomes`). The memory is one chromosome's rows,
not every sample's table; the files are those of the whole table at once
(``tests/cli/test_peaks_stream.py``). ``penlearn joint`` reads its windows' rows from the
same folder, one sample's chromosome at a time (:meth:`Spilled.sample_table`).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.cli._phases import _return_freed_memory
from penlearn.peaks.formats._text_files import string_column
from penlearn.peaks.formats.chrom_sizes import check_chrom_sizes
from penlearn.peaks.formats.coverage import is_table_file
from penlearn.peaks.formats.coverage_chromosomes import (
    CHROMOSOME_COLUMNS,
    coverage_file_chromosomes,
)
from penlearn.peaks.formats.peak_columns import level_sums

__all__ = ["Spilled", "chromosome_table", "sample_chromosomes", "sample_segments",
           "spill_samples", "streamable"]


@dataclass
class Spilled:
    """Where :func:`spill_samples` put the samples' rows: ``folder/<k>-<j>.npz`` the
    rows (``rows[k][j]`` of them) of sample ``samples[k]``'s ``chroms[k][j]``; and, once
    solved, each chromosome's segments of sample k (:meth:`keep_segments`)."""

    folder: Path
    samples: list = field(default_factory=list)
    chroms: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    dtypes: list = field(default_factory=list)
    levels: list = field(default_factory=list)  # level_sums of each (k, j)
    segments: list = field(default_factory=list)  # (chrom, file) of sample k's segments
    spans: list = field(default_factory=list)  # first start, last end of each (k, j)

    def order(self) -> list:
        """Every chromosome once, in the order of the samples' first rows of it (that
        of the samples' concatenated table)."""
        return list(dict.fromkeys(c for cs in self.chroms for c in cs))

    def level(self, k: int) -> tuple[float, float, float]:
        """Sample ``samples[k]``'s ``(total, bases, fragment length)`` over its genome:
        its chromosomes' :func:`~penlearn.peaks.formats.peak_columns.level_sums` in its
        rows' order (the level :func:`~penlearn.peaks.formats.peak_columns.peak_columns`
        gives its whole table)."""
        total = bases = rises = 0.0
        for t, b, r in self.levels[k]:
            total, bases, rises = total + t, bases + b, rises + r
        return total, bases, (total / rises if rises > 0 else 1.0)

    def keep_segments(self, segs: pd.DataFrame) -> None:
        """Save one chromosome's segments (:func:`~penlearn.cli._peaks_stream.
        predict_chunks`' ``keep``): each sample's rows in a file of its own, read back
        when its peak file is written (:func:`sample_chromosomes`)."""
        codes, names = pd.factorize(segs["sample_id"], sort=False)
        for i, sid in enumerate(names):
            k = self.samples.index(str(sid))
            rows = segs.iloc[np.flatnonzero(codes == i)].reset_index(drop=True)
            path = self.folder / f"segments-{k}-{len(self.segments[k])}.pkl"
            rows.to_pickle(path)
            self.segments[k].append((str(rows["chrom"].iat[0]), path))

    def sample_table(self, chrom: str, sample: str) -> pd.DataFrame | None:
        """Sample ``sample``'s rows of ``chrom`` (None without any), as the rows of
        that sample in :func:`chromosome_table` (the source :func:`~penlearn.peaks.
        joint.pipeline.joint_peaks` reads one sample's chromosome at a time)."""
        k = self.samples.index(str(sample))
        if chrom not in self.chroms[k]:
            return None
        return _table(self, [(k, self.chroms[k].index(chrom))])

    def spans_table(self) -> pd.DataFrame:
        """``sample_id, chrom, first, last``: the first and last covered base of each
        (sample, chromosome), as :func:`~penlearn.peaks.joint.windows.coverage_spans`
        of the samples' concatenated table."""
        rows = [(s, c, a, b) for s, cs, sp in zip(self.samples, self.chroms, self.spans)
                for c, (a, b) in zip(cs, sp)]
        return pd.DataFrame(rows, columns=["sample_id", "chrom", "first", "last"]).astype(
            {"first": np.int64, "last": np.int64})


def streamable(args, items: list, least: int = 1) -> bool:
    """Whether ``penlearn peaks`` (``joint``: ``least=2``) takes the inputs ``items``
    (:func:`~penlearn.peaks.formats.coverage.coverage_items`) one chromosome at a time:
    ``least`` files or more, each one sample's bedGraph / bigWig / BAM (no CSV table),
    and no controls."""
    return (len(items) >= least and not getattr(args, "control", None)
            and not getattr(args, "control_sheet", None)
            and all(p.is_file() and not is_table_file(p) for _, p in items))


@contextlib.contextmanager
def spill_samples(items: list, tmpdir=None, sizes: dict | None = None
                  ) -> Iterator[Spilled]:
    """The files ``items`` read one at a time (as :func:`~penlearn.peaks.formats.
    coverage.read_coverage` reads them, with its checks), each cut by chromosome into
    a temporary folder (in ``tmpdir``) removed at the end: a bedGraph, bigWig or BAM
    file read a chromosome at a time (:func:`~penlearn.peaks.formats.
    coverage_chromosomes.coverage_file_chromosomes`); ``sizes``: the chromosome
    lengths each sample is checked against."""
    with tempfile.TemporaryDirectory(prefix="penlearn-peaks-", dir=tmpdir) as folder:
        spilled, first = Spilled(Path(folder)), {}
        for k, (sid, path) in enumerate(items):
            s, chroms = coverage_file_chromosomes(path, sid)  # (not read yet)
            if s in first:
                raise ValueError(f"sample id {s!r} is in both {first[s]} and {path}")
            first[s] = path
            names, rows, levels, spans, dtypes = [], [], [], [], None
            for j, (chrom, columns) in enumerate(chroms):  # one chromosome's rows at once
                start, end = columns["chromStart"], columns["chromEnd"]
                if sizes is not None:
                    check_chrom_sizes(sizes, pd.DataFrame({"chrom": [chrom], "chromEnd": [
                        end.max()]}), "coverage")
                np.savez(spilled.folder / f"{k}-{j}.npz", **columns)
                names.append(chrom)
                rows.append(len(start))
                levels.append(_level(start, end, columns["count"]))
                spans.append((int(start.min()), int(end.max())))
                dtypes = [columns[c].dtype for c in CHROMOSOME_COLUMNS]
                del columns, start, end
            spilled.samples.append(s)
            spilled.chroms.append(names)
            spilled.rows.append(rows)
            spilled.dtypes.append(dtypes)
            spilled.levels.append(levels)
            spilled.spans.append(spans)
            spilled.segments.append([])
            _return_freed_memory(trim=True)
        yield spilled


def _level(start, end, count) -> tuple[float, float, float]:
    """:func:`~penlearn.peaks.formats.peak_columns.level_sums` of one chromosome's rows
    (sorted by start as the summits' tests sort them)."""
    start, end, count = (np.asarray(start, np.int64), np.asarray(end, np.int64),
                         np.asarray(count, float))
    if len(start) > 1 and (start[1:] < start[:-1]).any():
        order = np.argsort(start, kind="stable")
        start, end, count = start[order], end[order], count[order]
    return level_sums((start, end, count))


def _table(spilled: Spilled, parts: list) -> pd.DataFrame:
    """The coverage table of ``parts`` ((sample k, chromosome j) pairs), in their order."""
    lengths = np.array([spilled.rows[k][j] for k, j in parts], dtype=np.int64)
    bounds = np.r_[0, np.cumsum(lengths)]
    columns = {
        "sample_id": string_column([spilled.samples[k] for k, _ in parts], lengths),
        "chrom": string_column([spilled.chroms[k][j] for k, j in parts], lengths)}
    # each column of every sample's dtype, as the concatenated table's (pd.concat's)
    numbers = {c: np.empty(bounds[-1], np.result_type(*(d[n] for d in spilled.dtypes)))
               for n, c in enumerate(CHROMOSOME_COLUMNS)}
    for i, (k, j) in enumerate(parts):
        with np.load(spilled.folder / f"{k}-{j}.npz") as got:
            for c in CHROMOSOME_COLUMNS:
                numbers[c][bounds[i]:bounds[i + 1]] = got[c]
    columns.update(numbers)
    return pd.DataFrame(columns, copy=False)


def chromosome_table(spilled: Spilled, chrom: str) -> pd.DataFrame:
    """Every sample's rows of ``chrom`` (the samples in their order), as the rows of
    ``chrom`` of their concatenated table.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for s in ("a", "b"):
    ...     _ = (d / f"{s}.bedGraph").write_text("chr1\\t0\\t5\\t2\\nchr2\\t0\\t5\\t1\\n")
    >>> with spill_samples([(None, d / "a.bedGraph"), (None, d / "b.bedGraph")]) as sp:
    ...     chromosome_table(sp, "chr2")[["sample_id", "count"]].values.tolist()
    [['a', 1], ['b', 1]]
    """
    return _table(spilled, [(k, cs.index(chrom)) for k, cs in enumerate(spilled.chroms)
                            if chrom in cs])


def sample_chromosomes(spilled: Spilled, k: int) -> Iterator[tuple]:
    """``(segments, coverage)`` of sample ``samples[k]``, one chromosome at a time in
    the order its segments were kept (:meth:`Spilled.keep_segments`), each read back
    when asked: the chunks :func:`~penlearn.cli._stream_calls.calls_by_chromosome`
    takes."""
    for chrom, path in spilled.segments[k]:
        yield pd.read_pickle(path), _table(spilled, [(k, spilled.chroms[k].index(chrom))])


def sample_segments(spilled: Spilled, k: int) -> pd.DataFrame:
    """Every segment of sample ``samples[k]`` (its chromosomes in the order kept): the
    sample's rows of the segments of every sample at once."""
    parts = [pd.read_pickle(path) for _, path in spilled.segments[k]]
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
