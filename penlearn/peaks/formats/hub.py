"""A UCSC track hub of coverage, peaks and labels, written without UCSC binaries.

A track hub (Raney et al. 2014, *Bioinformatics* 30(7)) is a folder a genome browser
loads by the URL of its ``hub.txt``::

    HUB/hub.txt                  hub name, labels, contact, genomesFile
    HUB/genomes.txt              genome <assembly>, trackDb <assembly>/trackDb.txt
    HUB/<assembly>/trackDb.txt   the tracks:
        coverage   a multiWig container: one bigWig of read counts per sample, overlaid
        peaks      a composite: one bigBed of peaks per sample
        labels     a composite: one bigBed per annotation (and sample, when the labels
                   have samples), coloured as in the labelling protocol
    HUB/<assembly>/coverage/*.bw, peaks/*.bb, labels/*.bb

The bigWig and bigBed files (Kent et al. 2010, *Bioinformatics* 26(17)) are written by
the optional ``pybigtools`` (``pip install 'penlearn[hub]'``; Python bindings of the Rust
bigtools library). Peaks are BED6 (declared by an autoSql, :data:`BED6_AUTOSQL`): the peak file's
name where it has them (a narrowPeak's), else ``<sample>_peak<k>``; the score by the
rule of every peak file penlearn writes (the file's score, else the peak's mean,
scaled so that the sample's strongest peak is 1000); strand ``.``; labels are BED3 and carry
their annotation in the file and track they are in. pybigtools reports bad input by a
message and a broken file, not an exception, so the input is checked here first (sorted,
no overlaps in a bigWig, inside the chromosome sizes) and every file is opened again
after writing. It cannot write an empty file: a sample without peaks (or coverage) has no
track of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._checks import optional_import
from penlearn.atomic_files import check_file_name, staged_dir
from penlearn.peaks.formats.peak_columns import ucsc_scores
from penlearn.peaks.formats.regions import PEAK_ANNOTATIONS

__all__ = ["LABEL_COLORS", "check_assembly", "write_track_hub"]

#: trackDb colours of the annotations (R,G,B)
LABEL_COLORS = {"noPeaks": "246,244,191", "peakStart": "255,175,175",
                "peakEnd": "255,76,76", "peaks": "164,69,238"}
_BLOCK = 1 << 16  # rows turned into Python tuples at a time
_PALETTE = ["31,119,180", "255,127,14", "44,160,44", "214,39,40", "148,103,189",
            "140,86,75", "227,119,194", "127,127,127", "188,189,34", "23,190,207"]


def _pybigtools():
    return optional_import("pybigtools", "writing a track hub", "hub")


def _sorted_rows(table: pd.DataFrame, sizes: dict[str, int], what: str,
                 overlaps: bool) -> pd.DataFrame:
    """Rows ordered by chromosome (as in ``sizes``) and start; checked inside ``sizes``
    and, unless ``overlaps``, not overlapping."""
    unknown = sorted(set(table["chrom"].astype(str)) - set(sizes))
    if unknown:
        raise ValueError(f"{what}: chromosome {unknown[0]!r} is not in the chromosome sizes")
    order = {c: k for k, c in enumerate(sizes)}
    df = table.assign(_k=table["chrom"].astype(str).map(order))
    df = df.sort_values(["_k", "chromStart", "chromEnd"], kind="stable").drop(columns="_k")
    c = df["chrom"].astype(str).to_numpy()
    s, e = df["chromStart"].to_numpy(np.int64), df["chromEnd"].to_numpy(np.int64)
    past = e > np.array([sizes[x] for x in c], dtype=np.int64)
    if past.any():
        i = int(np.flatnonzero(past)[0])
        raise ValueError(f"{what}: {c[i]}:{s[i]}-{e[i]} is past the end of {c[i]} "
                         f"({sizes[c[i]]} bases)")
    if not overlaps and len(c) > 1:
        bad = (c[1:] == c[:-1]) & (s[1:] < e[:-1])
        if bad.any():
            i = int(np.flatnonzero(bad)[0]) + 1
            raise ValueError(f"{what}: {c[i]}:{s[i]}-{e[i]} overlaps the row before it")
    return df


def _write_big(path: Path, sizes: dict[str, int], rows, kind: str,
               autosql: str | None = None) -> None:
    """One bigWig (``kind="bigWig"``) or bigBed through pybigtools, then opened again."""
    pbt = _pybigtools()
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = pbt.open(str(path), "w")
    if autosql is None:
        writer.write(dict(sizes), rows)
    else:
        writer.write(dict(sizes), rows, autosql=autosql)
    try:
        with pbt.open(str(path)) as f:
            ok = f.is_bigwig if kind == "bigWig" else f.is_bigbed
    except Exception as exc:  # pybigtools raises its own error types
        raise ValueError(f"pybigtools wrote an unreadable {kind} file {path.name}") from exc
    if not ok:
        raise ValueError(f"pybigtools wrote {path.name}, but it is no {kind} file")


def _rows(df: pd.DataFrame, last) -> Iterator[tuple]:
    """``(chrom, start, end, last[i])`` tuples, made a block of rows at a time (never a
    Python object a row of the whole table at once)."""
    chrom = df["chrom"].astype(str).to_numpy()
    start, end = df["chromStart"].to_numpy(), df["chromEnd"].to_numpy()
    for a in range(0, len(df), _BLOCK):
        b = a + _BLOCK
        yield from zip(chrom[a:b].tolist(), start[a:b].tolist(), end[a:b].tolist(),
                       last[a:b].tolist())


def _bigwig(path: Path, coverage: pd.DataFrame, sizes: dict[str, int], what: str) -> bool:
    cov = coverage[coverage["count"] > 0]  # zero runs are gaps, as in genomecov -bg
    if cov.empty:
        return False
    df = _sorted_rows(cov, sizes, what, overlaps=False)
    _write_big(path, sizes, _rows(df, df["count"].to_numpy(float)), "bigWig")
    return True


#: The autoSql of the peaks' bigBed files: BED6 (UCSC's score is an integer 0-1000).
BED6_AUTOSQL = """table bed6
"Peaks: BED6, the peak file's name, its score (else mean) scaled to 0-1000"
(
    string chrom;      "Reference sequence chromosome or scaffold"
    uint   chromStart; "Start position in chromosome"
    uint   chromEnd;   "End position in chromosome"
    string name;       "Name of the peak: the file's, else <sample>_peak<k>"
    uint   score;      "Score from 0-1000"
    char[1] strand;    "+ or - or . for unknown"
)
"""


def _peak_fields(df: pd.DataFrame, sample: str) -> np.ndarray:
    """``name\tscore\t.`` of each peak.

    The name is the peak file's (``name`` column) when it names every peak of the sample
    apart (a narrowPeak's), else ``<sample>_peak<k>`` (k in genome order; ``penlearn
    peaks`` BED files name every peak after the sample). The score follows the one rule
    of every peak file penlearn writes (:func:`~penlearn.peaks.formats.peak_columns.
    ucsc_scores`): the file's ``score`` (else the peak's ``mean``, else its
    ``signalValue``) scaled so that the sample's strongest peak is 1000 (``.``, missing
    or negative values count 0; scores a ``penlearn peaks`` file holds are unchanged);
    1000 for every peak when nothing is known.
    """
    value = next((df[c] for c in ("score", "mean", "signalValue") if c in df.columns), None)
    score = np.full(len(df), 1000, dtype=np.int64)
    if value is not None:
        v = pd.to_numeric(value, errors="coerce").to_numpy(float)
        v = np.where(np.isfinite(v) & (v > 0), v, 0.0)
        if v.max(initial=0.0) > 0:
            score = ucsc_scores(v)
    names = [f"{_label(sample, 200)}_peak{k}" for k in range(1, len(df) + 1)]
    if "name" in df.columns:
        own = df["name"].astype(object).where(df["name"].notna(), ".").astype(str)
        own = [_label(n, 200) for n in own]
        if "." not in own and len(set(own)) == len(own):
            names = own
    return np.array([f"{n}\t{sc}\t." for n, sc in zip(names, score)], dtype=object)


def _bigbed(path: Path, regions: pd.DataFrame, sizes: dict[str, int], what: str,
            sample: str | None = None) -> bool:
    """A bigBed of ``regions``: BED6 peaks named after ``sample``, else BED3."""
    if regions.empty:
        return False
    df = _sorted_rows(regions, sizes, what, overlaps=True)
    if sample is None:
        _write_big(path, sizes, _rows(df, np.full(len(df), "", dtype=object)), "bigBed")
    else:
        _write_big(path, sizes, _rows(df, _peak_fields(df, sample)), "bigBed",
                   autosql=BED6_AUTOSQL)
    return True


def _stanza(**kv) -> str:
    return "".join(f"{k} {v}\n" for k, v in kv.items())


def _label(text: str, limit: int) -> str:
    """A one-line label (no newlines), at most ``limit`` characters."""
    text = " ".join(str(text).split()) or "."
    return text if len(text) <= limit else text[: limit - 1] + "~"


def _by_sample(table: pd.DataFrame | None, samples: list[str]) -> dict[str, pd.DataFrame]:
    if table is None:
        return {}
    if "sample_id" not in table.columns:
        if len(samples) != 1:
            raise ValueError("peaks without sample ids, but the coverage has "
                             f"{len(samples)} samples")
        return {samples[0]: table}
    ids = table["sample_id"].astype(str)
    extra = sorted(set(ids) - set(samples))
    if extra:
        raise ValueError(f"peaks of sample {extra[0]!r}, which the coverage does not have")
    return {s: table[ids.to_numpy() == s] for s in samples if (ids == s).any()}


def check_assembly(genome: str, option: str = "--genome") -> None:
    """Refuse an assembly name that cannot name the hub's folder of it: not letters,
    digits, ``_ . -``, or ``.`` / ``..``, or longer than a file name
    (:func:`~penlearn.atomic_files.check_file_name`); ``option`` names it in the message.
    Commands call it before any work.

    Examples
    --------
    >>> check_assembly("hg19")
    >>> check_assembly("..")
    Traceback (most recent call last):
    ...
    ValueError: --genome '..' cannot name a folder: '.' and '..' are not names
    """
    check_file_name(str(genome), option)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", str(genome)):
        raise ValueError(f"{option} must be a UCSC assembly name such as hg19, got "
                         f"{str(genome)[:60]!r}")


def write_track_hub(out: str | os.PathLike, genome: str, coverage: pd.DataFrame,
                    peaks: pd.DataFrame | None = None, labels: pd.DataFrame | None = None,
                    *, chrom_sizes: dict[str, int] | None = None, name: str = "penlearn",
                    email: str = "penlearn-user@localhost", replace: bool = False
                    ) -> list[Path]:
    """Write a UCSC track hub folder of coverage, peaks and labels (atomically).

    Parameters
    ----------
    out : path-like
        The hub folder to create (replaced as a whole with ``replace``).
    genome : str
        The UCSC assembly name the coordinates are on (``hg19``, ``hg38``, ``mm10``...).
    coverage : DataFrame
        ``sample_id, chrom, chromStart, chromEnd, count`` (as
        :func:`~penlearn.peaks.formats.coverage.read_coverage` reads it).
    peaks : DataFrame, optional
        ``[sample_id,] chrom, chromStart, chromEnd`` (one sample without ``sample_id``),
        optionally ``name`` and ``score`` (a peak file's, as
        :func:`~penlearn.peaks.formats.peak_files.read_peak_files` reads them) or
        ``signalValue`` / ``mean``: the bigBeds' names and scores.
    labels : DataFrame, optional
        ``[sample_id,] chrom, chromStart, chromEnd, annotation``.
    chrom_sizes : mapping, optional
        Chromosome lengths of the files' headers; default: each chromosome's last end
        over the tables (a browser then shows nothing past it).
    name, email : str
        The hub's name (one word) and contact (``hub.txt``).
    replace : bool
        Replace an existing ``out``.

    Returns
    -------
    list of Path
        The files written, relative to ``out``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> cov = pd.DataFrame({"sample_id": "s1", "chrom": "chr1", "chromStart": [0, 10],
    ...                     "chromEnd": [10, 20], "count": [1, 5]})
    >>> peaks = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20]})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "hub"
    >>> [str(p) for p in write_track_hub(out, "hg19", cov, peaks)]
    ['genomes.txt', 'hg19/coverage/1.bw', 'hg19/peaks/1.bb', 'hg19/trackDb.txt', 'hub.txt']
    """
    check_assembly(genome, "genome")
    if not re.fullmatch(r"\w+", str(name)):
        raise ValueError(f"the hub name must be one word (letters, digits, _), got {name!r}")
    if "\n" in email or not email.strip():
        raise ValueError("email must be one non-empty line")
    _pybigtools()
    samples = [str(s) for s in pd.unique(coverage["sample_id"].astype(str))]
    sizes = dict(chrom_sizes) if chrom_sizes is not None else _last_ends(
        [t for t in (coverage, peaks, labels) if t is not None])
    peak_sets = _by_sample(peaks, samples)
    written: list[Path] = []
    with staged_dir(Path(out), replace=replace) as tmp:
        root = tmp / genome
        root.mkdir()
        cov_tracks, peak_tracks = [], []
        for k, s in enumerate(samples, start=1):
            part = coverage[coverage["sample_id"].astype(str).to_numpy() == s]
            if _bigwig(root / "coverage" / f"{k}.bw", part, sizes, f"coverage of {s}"):
                cov_tracks.append((k, s))
            if s in peak_sets and _bigbed(root / "peaks" / f"{k}.bb", peak_sets[s], sizes,
                                          f"peaks of {s}", sample=s):
                peak_tracks.append((k, s))
        label_tracks = _label_files(root / "labels", labels, sizes)
        text = _track_db(cov_tracks, peak_tracks, label_tracks)
        (root / "trackDb.txt").write_text(text)
        (tmp / "genomes.txt").write_text(_stanza(genome=genome,
                                                 trackDb=f"{genome}/trackDb.txt"))
        (tmp / "hub.txt").write_text(_stanza(
            hub=name, shortLabel=_label(f"{name} peaks", 17),
            longLabel=_label(f"{name}: coverage, peaks and labels", 80),
            genomesFile="genomes.txt", email=email.strip()))
        for p in sorted(tmp.rglob("*")):
            if p.is_file():
                written.append(p.relative_to(tmp))
    return written


def _last_ends(tables: list[pd.DataFrame]) -> dict[str, int]:
    ends = pd.concat([t[["chrom", "chromEnd"]].astype({"chrom": str}) for t in tables])
    return {str(c): int(e) for c, e in ends.groupby("chrom", sort=False)["chromEnd"].max()
            .items()}


def _label_files(folder: Path, labels: pd.DataFrame | None, sizes: dict[str, int]
                 ) -> list[tuple[str, str, str]]:
    """One bigBed per (sample,) annotation; (file, short label, annotation) of each."""
    if labels is None:
        return []
    per_sample = "sample_id" in labels.columns
    groups = labels.groupby(["sample_id", "annotation"] if per_sample else ["annotation"],
                            sort=False)
    out = []
    for k, (key, part) in enumerate(groups, start=1):
        key = key if isinstance(key, tuple) else (key,)
        ann = str(key[-1])
        if ann not in PEAK_ANNOTATIONS:
            raise ValueError(f"labels: unknown annotation {ann!r}")
        who = f"{key[0]} " if per_sample else ""
        if _bigbed(folder / f"{k}.bb", part, sizes, f"labels {who}{ann}"):
            out.append((f"labels/{k}.bb", f"{who}{ann}", ann))
    return out


def _track_db(cov_tracks, peak_tracks, label_tracks) -> str:
    blocks = []
    if cov_tracks:
        blocks.append(_stanza(track="coverage", container="multiWig",
                              shortLabel="coverage",
                              longLabel="read coverage of every sample (overlaid)",
                              type="bigWig", aggregate="transparentOverlay",
                              showSubtrackColorOnUi="on", autoScale="on",
                              maxHeightPixels="100:50:8", visibility="full"))
        for k, s in cov_tracks:
            blocks.append(_indent(_stanza(
                track=f"coverage_{k}", parent="coverage", shortLabel=_label(s, 17),
                longLabel=_label(f"{s} read coverage", 80), type="bigWig",
                bigDataUrl=f"coverage/{k}.bw", color=_PALETTE[(k - 1) % len(_PALETTE)])))
    if peak_tracks:
        blocks.append(_stanza(track="peaks", compositeTrack="on", shortLabel="peaks",
                              longLabel="peaks of every sample", type="bigBed 6",
                              visibility="dense"))
        for k, s in peak_tracks:
            blocks.append(_indent(_stanza(
                track=f"peaks_{k}", parent="peaks on", shortLabel=_label(f"{s} peaks", 17),
                longLabel=_label(f"{s} peaks", 80), type="bigBed 6",
                bigDataUrl=f"peaks/{k}.bb", color=_PALETTE[(k - 1) % len(_PALETTE)])))
    if label_tracks:
        blocks.append(_stanza(track="labels", compositeTrack="on", shortLabel="labels",
                              longLabel="peak labels (noPeaks, peakStart, peakEnd, peaks)",
                              type="bigBed 3", visibility="dense"))
        for k, (url, short, ann) in enumerate(label_tracks, start=1):
            blocks.append(_indent(_stanza(
                track=f"labels_{k}", parent="labels on", shortLabel=_label(short, 17),
                longLabel=_label(f"{short} labels", 80), type="bigBed 3", bigDataUrl=url,
                color=LABEL_COLORS[ann])))
    return "\n".join(blocks)


def _indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.splitlines())

