"""Simulated ChIP-seq reads of a treatment and its control, written as BAM files.

A genome of ``chroms`` (name → length) gets fragments from three sources: a uniform
background, *true peaks* (in the treatment only: binding sites, fragments centred on the
site ± a normal spread), and *sticky regions* (amplified or open chromatin: up in the
treatment **and** the control, as wide regions of raised uniform coverage). Single-end
reads are the fragment's 5′ end on a random strand (``read_length`` bases); paired-end
reads are both ends of the fragment, written as proper pairs (mate 1 then mate 2).
Used by ``benchmarks/control.py`` and the tests of ``penlearn callpeak``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from penlearn._checks import optional_import

__all__ = ["ChipSeqDesign", "plant_regions", "write_fragments_bam", "write_reads_bam"]


@dataclass(frozen=True)
class ChipSeqDesign:
    """Where the true peaks and sticky regions are.

    Attributes
    ----------
    chroms : dict
        ``{name: length}``.
    peaks : DataFrame
        ``chrom, centre`` of the true peaks (binding sites).
    sticky : DataFrame
        ``chrom, chromStart, chromEnd`` of the sticky regions.
    """

    chroms: dict
    peaks: pd.DataFrame
    sticky: pd.DataFrame


def plant_regions(chroms: dict, n_peaks: int, n_sticky: int, *, sticky_width=(1000, 5000),
                  in_sticky: int = 0, seed: int = 0) -> ChipSeqDesign:
    """True peak centres and sticky regions, 20 kb apart; ``in_sticky`` of the peaks are
    at the centre of a sticky region (a binding site on amplified DNA: up more in the
    treatment than in the control), the others alone.

    ``peaks`` has a column ``in_sticky``, ``sticky`` a column ``peak`` (True where a true
    peak is inside).

    Examples
    --------
    >>> d = plant_regions({"chr1": 2_000_000}, 10, 5)
    >>> len(d.peaks), len(d.sticky)
    (10, 5)
    >>> int(plant_regions({"chr1": 2_000_000}, 10, 5, in_sticky=2).sticky["peak"].sum())
    2
    """
    rng = np.random.default_rng(seed)
    names = list(chroms)
    total = sum(chroms.values())
    if not 0 <= in_sticky <= min(n_peaks, n_sticky):
        raise ValueError(f"in_sticky must be from 0 to {min(n_peaks, n_sticky)}")
    need = n_peaks - in_sticky + n_sticky
    slots = total // 20_000
    if need > slots:
        raise ValueError(f"{need} regions do not fit {total} bases 20 kb apart")
    pick = np.sort(rng.choice(slots, need, replace=False))
    offsets = np.cumsum([0] + [chroms[n] // 20_000 for n in names])
    rows = []
    for k in pick:
        ci = int(np.searchsorted(offsets, k, side="right") - 1)
        rows.append((names[ci], int((k - offsets[ci]) * 20_000 + 10_000)))
    kind = rng.permutation(np.r_[np.zeros(n_peaks - in_sticky, bool), np.ones(n_sticky, bool)])
    alone = pd.DataFrame([r for r, s in zip(rows, kind) if not s], columns=["chrom", "centre"])
    half = rng.integers(sticky_width[0], sticky_width[1] + 1, n_sticky) // 2
    sticky = pd.DataFrame([r for r, s in zip(rows, kind) if s], columns=["chrom", "centre"])
    with_peak = np.zeros(n_sticky, bool)
    with_peak[rng.choice(n_sticky, in_sticky, replace=False)] = True
    peaks = pd.concat([alone.assign(in_sticky=False),
                       sticky[with_peak].assign(in_sticky=True)], ignore_index=True)
    sticky = pd.DataFrame({"chrom": sticky["chrom"], "chromStart": sticky["centre"] - half,
                           "chromEnd": sticky["centre"] + half, "peak": with_peak})
    return ChipSeqDesign(dict(chroms), peaks, sticky)


def _fragments(design: ChipSeqDesign, rng, *, background: int, per_peak: int,
               sticky_fold: float, fragment: int, spread: float):
    """(chrom index, start, end) of every fragment."""
    names = list(design.chroms)
    lengths = np.array([design.chroms[n] for n in names])
    total = lengths.sum()
    chrom = rng.choice(len(names), background, p=lengths / total)
    mid = (rng.random(background) * lengths[chrom]).astype(np.int64)
    parts = [(chrom, mid)]
    if per_peak and len(design.peaks):
        ci = design.peaks["chrom"].map(names.index).to_numpy()
        k = rng.poisson(per_peak, len(ci))
        c = np.repeat(ci, k)
        m = np.repeat(design.peaks["centre"].to_numpy(), k) + rng.normal(
            0, spread, k.sum()).astype(np.int64)
        parts.append((c, m))
    if sticky_fold > 0 and len(design.sticky):
        rate = background / total * sticky_fold  # extra fragments per base
        width = (design.sticky["chromEnd"] - design.sticky["chromStart"]).to_numpy()
        k = rng.poisson(rate * width)
        c = np.repeat(design.sticky["chrom"].map(names.index).to_numpy(), k)
        m = np.repeat(design.sticky["chromStart"].to_numpy(), k) + (
            rng.random(k.sum()) * np.repeat(width, k)).astype(np.int64)
        parts.append((c, m))
    c = np.concatenate([p[0] for p in parts])
    m = np.concatenate([p[1] for p in parts])
    length = np.maximum(rng.normal(fragment, fragment / 10, len(m)).astype(np.int64), 60)
    s = np.clip(m - length // 2, 0, lengths[c] - length)
    return c, s, s + length


def write_reads_bam(path: str | os.PathLike, design: ChipSeqDesign, *, background: int,
                    per_peak: int = 0, sticky_fold: float = 0.0, paired: bool = False,
                    fragment: int = 200, spread: float = 30.0, read_length: int = 50,
                    seed: int = 0) -> int:
    """Write simulated reads as a coordinate-sorted BAM file; returns the fragments.

    Parameters
    ----------
    design : ChipSeqDesign
        The genome, true peaks and sticky regions (:func:`plant_regions`).
    background : int
        Fragments scattered uniformly over the genome.
    per_peak : int
        Mean fragments at each true peak (0: a control).
    sticky_fold : float
        Extra coverage of the sticky regions, in multiples of the background's.
    paired : bool
        Proper pairs (``-f BAMPE``) instead of single-end reads.
    fragment, spread, read_length : number
        Mean fragment length, the spread of fragment centres at a peak (sd), read length.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = plant_regions({"chr1": 200_000}, 2, 1)
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.bam"
    >>> write_reads_bam(f, d, background=500, per_peak=50, sticky_fold=3)  # doctest: +SKIP
    """
    rng = np.random.default_rng(seed)
    c, s, e = _fragments(design, rng, background=background, per_peak=per_peak,
                         sticky_fold=sticky_fold, fragment=fragment, spread=spread)
    rev = None  # drawn by write_fragments_bam from the same generator, after the order
    return write_fragments_bam(path, design.chroms, c, s, e, reverse=rev, paired=paired,
                               read_length=read_length, rng=rng)


def write_fragments_bam(path: str | os.PathLike, chroms: dict, chrom_index, start, end, *,
                        reverse=None, paired: bool = False, read_length: int = 50,
                        rng=None) -> int:
    """Write fragments as a coordinate-sorted BAM file of reads; returns the fragments.

    Parameters
    ----------
    chroms : dict
        ``{name: length}``: the header, in order; ``chrom_index`` indexes it.
    chrom_index, start, end : array_like
        The fragments ``[start, end)`` (0-based), any order.
    reverse : array_like of bool, optional
        The strand of each fragment's read (single-end) or first mate (paired-end); None:
        drawn from ``rng`` after sorting.
    paired : bool
        Both ends as a proper pair (``-f BAMPE``) instead of the 5′ read only.
    read_length : int
        Bases of each read (fragments shorter than it are read whole).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "f.bam"
    >>> write_fragments_bam(f, {"chr1": 1000}, [0, 0], [10, 300], [210, 500],
    ...                     reverse=[False, True])  # doctest: +SKIP
    2
    """
    pysam = optional_import("pysam", "writing BAM files", "bam")
    c = np.asarray(chrom_index, np.int64)
    s = np.asarray(start, np.int64)
    e = np.asarray(end, np.int64)
    order = np.lexsort((s, c))
    c, s, e = c[order], s[order], e[order]
    if reverse is None:
        rev = (rng if rng is not None else np.random.default_rng(0)).random(len(s)) < 0.5
    else:
        rev = np.asarray(reverse, bool)[order]
    header = {"HD": {"VN": "1.6", "SO": "coordinate"},
              "SQ": [{"SN": n, "LN": int(k)} for n, k in chroms.items()]}
    records = []
    for i in range(len(s)):
        span = min(read_length, int(e[i] - s[i]))
        lo, hi = int(s[i]), int(e[i]) - span
        if paired:
            # mate 1 on the strand drawn, mate 2 on the other; both as records
            f1 = 0x1 | 0x2 | 0x40 | (0x10 if rev[i] else 0x20)
            f2 = 0x1 | 0x2 | 0x80 | (0x20 if rev[i] else 0x10)
            p1, p2 = (hi, lo) if rev[i] else (lo, hi)
            tl = int(e[i] - s[i])
            records.append((int(c[i]), p1, i, f1, p2, tl if p1 <= p2 else -tl, span))
            records.append((int(c[i]), p2, i, f2, p1, tl if p2 < p1 else -tl, span))
        else:
            records.append((int(c[i]), hi if rev[i] else lo, i, 16 if rev[i] else 0,
                            -1, 0, span))
    records.sort(key=lambda r: (r[0], r[1]))
    quals = {}
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for tid, pos, name, flag, mpos, tlen, span in records:
            a = pysam.AlignedSegment()
            a.query_name = f"f{name}"
            a.flag = flag
            a.reference_id = tid
            a.reference_start = pos
            a.mapping_quality = 40
            a.cigartuples = [(0, span)]
            a.query_sequence = "A" * span
            if span not in quals:
                quals[span] = pysam.qualitystring_to_array("I" * span)
            a.query_qualities = quals[span]
            if mpos >= 0:
                a.next_reference_id = tid
                a.next_reference_start = mpos
                a.template_length = tlen
            out.write(a)
    return len(s)
