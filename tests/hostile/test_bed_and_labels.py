"""Hostile inputs to the BED / peak-label / bedGraph / bigWig readers and writers and to the
label checks: every case gives the expected result or one clear line (a ``ValueError`` /
``TypeError``), never a silent wrong answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from _hostile import ERROR, check_cases, coverage_table, write_file

import penlearn as pl
from penlearn.peaks.peakseg.labels import check_labels_in_coverage

BIG = 2**62


def _peaks(**cols):
    base = {"chrom": ["chr1", "chr1"], "chromStart": [1, 10], "chromEnd": [5, 20]}
    base.update(cols)
    return pd.DataFrame(base)


def _labels(**cols):
    base = {"chrom": ["chr1"], "chromStart": [1], "chromEnd": [5], "annotation": ["peaks"]}
    base.update(cols)
    return pd.DataFrame(base)


def _reader_writer_cases(tmp: Path):
    """BED, peak labels (CSV, BED, browser text), BED / bedGraph writers, label errors."""
    bed_texts = {
        "bom": (b"\xef\xbb\xbfchr1\t10\t20\n", lambda d: d["chrom"].tolist() == ["chr1"]),
        "crlf": ("chr1\t10\t20\r\nchr1\t30\t40\r\n", lambda d: len(d) == 2),
        "track+comment": ("track name=x\n#c\nchr1\t1\t2\n", lambda d: len(d) == 1),
        "empty": ("", lambda d: len(d) == 0),
        "spaces": ("chr1 10 20\n", lambda d: d["chromEnd"].tolist() == [20]),
        "2^62": (f"chr1\t{BIG}\t{BIG + 1}\n", lambda d: d["chromEnd"].tolist() == [BIG + 1]),
        "int64 max": (f"chr1\t1\t{2**63 - 1}\n", lambda d: d["chromEnd"].tolist() == [2**63 - 1]),
        "overflow": (f"chr1\t1\t{2**63}\n", ERROR),
        "huge": ("chr1\t1\t" + "9" * 40 + "\n", ERROR),
        "neg overflow": (f"chr1\t{-(2**63) - 1}\t5\n", ERROR),
        "negative": ("chr1\t-5\t20\n", ERROR),
        "underscore": ("chr1\t1_0\t20\n", ERROR),
        "plus": ("chr1\t+1\t20\n", ERROR),
        "arabic digits": ("chr1\t١\t20\n", ERROR),
        "float": ("chr1\t1.0\t20\n", ERROR),
        "exp": ("chr1\t1e1\t20\n", ERROR),
        "comma": ("chr1\t1,000\t2000\n", ERROR),
        "start=end": ("chr1\t5\t5\n", ERROR),
        "two fields": ("chr1\t5\n", ERROR),
        "mixed fields": ("chr1\t1\t5\tp\nchr1\t6\t9\n", ERROR),
        "bad score": ("chr1\t1\t5\tp\tx\n", ERROR),
        "dot score": ("chr1\t1\t5\tp\t.\n", lambda d: np.isnan(d["score"].iloc[0])),
        "latin-1": (b"chr1\t1\t5\tp\xe9\n", ERROR),
        "gzip corrupt": (b"\x1f\x8bxxxx", ERROR),
    }
    for name, (text, want) in bed_texts.items():
        yield (f"read_bed {name}",
               (lambda t=text, n=name: pl.read_bed(write_file(tmp, f"{n}.bed", t))), want)

    lab_texts = {
        "csv bom": (b"\xef\xbb\xbfchrom,chromStart,chromEnd,annotation\nchr1,1,5,peaks\n",
                    lambda d: d["chrom"].tolist() == ["chr1"]),
        "csv 2^62": (f"chrom,chromStart,chromEnd,annotation\nchr1,{BIG},{BIG + 1},peaks\n",
                     lambda d: d["chromEnd"].tolist() == [BIG + 1]),
        "csv overflow": (f"chrom,chromStart,chromEnd,annotation\nchr1,1,{2**64},peaks\n", ERROR),
        "csv float": ("chrom,chromStart,chromEnd,annotation\nchr1,1.5,5,peaks\n", ERROR),
        "csv ragged": ("chrom,chromStart,chromEnd,annotation\nchr1,1,5,peaks,x,y\n", ERROR),
        "csv empty chrom": ("chrom,chromStart,chromEnd,annotation\n,1,5,peaks\n", ERROR),
        "csv bad annotation": ("chrom,chromStart,chromEnd,annotation\nchr1,1,5,peak\n", ERROR),
        "csv overlap": ("chrom,chromStart,chromEnd,annotation\nchr1,1,5,peaks\n"
                        "chr1,4,8,noPeaks\n", ERROR),
        "bed 5 fields": ("chr1\t1\t5\tpeaks\tx\n", ERROR),
        "bed overflow": (f"chr1\t1\t{2**63}\tpeaks\n", ERROR),
        "browser ok": ("chr1:1,001-2,000 peaks\n",
                       lambda d: d[["chromStart", "chromEnd"]].values.tolist() == [[1000, 2000]]),
        "browser commas": ("chr1:1,0,01-2,000 peaks\n", ERROR),
        "browser overflow": (f"chr1:1-{2**64} peaks\n", ERROR),
        "browser first > last": ("chr1:2,000-1,000 peaks\n", ERROR),
        "browser bad line 2": ("chr1:1-100 peaks\nchr1 200 300 peaks\n", ERROR),
    }
    for name, (text, want) in lab_texts.items():
        ext = ".csv" if name.startswith("csv") else ".bed" if name.startswith("bed") else ".txt"
        yield (f"read_peak_labels {name}",
               (lambda t=text, n=name, e=ext: pl.read_peak_labels(
                   write_file(tmp, n.replace(" ", "_") + e, t))), want)
    groups = write_file(tmp, "groups.txt", "chr1:11-20 peakStart kidnee\n")
    yield ("read_peak_labels unknown group",
           lambda: pl.read_peak_labels(groups, samples={"a": "kidney"}), ERROR)
    yield ("read_peak_labels sample id as group",
           lambda: pl.read_peak_labels(write_file(tmp, "g2.txt", "chr1:11-20 peakStart a\n"),
                                       samples={"a": "kidney", "b": "x"}),
           lambda d: d["annotation"].tolist() == ["peakStart", "noPeaks"])

    bad_tables = {
        "name tab": _peaks(name=["a", "b\tc"]), "name newline": _peaks(name=["a", "b\n"]),
        "name empty": _peaks(name=["a", ""]), "name NaN": _peaks(name=["a", np.nan]),
        "name space": _peaks(name=["a", "b c"]), "chrom empty": _peaks(chrom=["chr1", ""]),
        "chrom NaN": _peaks(chrom=["chr1", np.nan]), "chrom None": _peaks(chrom=["chr1", None]),
        "chrom tab": _peaks(chrom=["chr1", "c\t1"]), "score NaN": _peaks(score=[1.0, np.nan]),
        "score inf": _peaks(score=[1.0, np.inf]), "score text": _peaks(score=[1.0, "x"]),
        "start float": _peaks(chromStart=[1.5, 10]), "start negative": _peaks(chromStart=[-1, 10]),
        "start bool": _peaks(chromStart=[True, False]), "start >= end": _peaks(chromEnd=[1, 20]),
        "overlap": _peaks(chromStart=[1, 4]), "two samples": _peaks(sample_id=["a", "b"]),
        "start NaN": _peaks(chromStart=[1, np.nan]),
        "start object big": _peaks(chromStart=pd.Series([1, 2**64], dtype=object)),
    }
    for name, table in bad_tables.items():
        yield f"write_bed {name}", (lambda t=table: pl.write_bed(t, tmp / "w.bed")), ERROR
    exact = _peaks(chromStart=[BIG, BIG + 2], chromEnd=[BIG + 1, BIG + 3])
    yield ("write_bed 2^62 exact", lambda: (pl.write_bed(exact, tmp / "x.bed"),
                                            pl.read_bed(tmp / "x.bed"))[1],
           lambda d: d["chromStart"].tolist() == [BIG, BIG + 2])
    yield ("write_bed track quote", lambda: pl.write_bed(_peaks(), tmp / "t.bed", track='a"b'),
           ERROR)
    seg = _peaks(mean=[1.0, np.nan])
    yield "write_bedgraph NaN mean", lambda: pl.write_bedgraph(seg, tmp / "g.bedGraph"), ERROR
    yield ("write_bedgraph missing column",
           lambda: pl.write_bedgraph(_peaks(), tmp / "g.bedGraph"), ERROR)

    lab = _labels()
    for name, col in {"object 2^64": pd.Series([2**64], dtype=object),
                      "uint64 2^63": pd.Series([2**63], dtype=np.uint64),
                      "float inf": [np.inf], "string": ["x"], "bool": [True]}.items():
        yield (f"peak_label_errors chromEnd {name}",
               (lambda c=col: pl.peak_label_errors(_peaks(), lab.assign(chromEnd=c))), ERROR)
    yield ("peak_label_errors int64 2^62 exact",
           lambda: pl.peak_label_errors(_peaks().iloc[:0], _labels(chromStart=[BIG],
                                                                    chromEnd=[BIG + 1])),
           lambda r: r.totals["fn"].tolist() == [1])

    cov = coverage_table(("a", "b"))
    for name, row in {"beyond": ("a", "chr1", 50, 70), "other chrom": ("a", "chr2", 5, 15),
                      "other sample": ("z", "chr1", 5, 15), "before": ("a", "chr1", 0, 70)
                      }.items():
        labels = pd.DataFrame([dict(zip(["sample_id", "chrom", "chromStart", "chromEnd"], row),
                                    annotation="noPeaks")])
        yield (f"peak_error_functions label {name}",
               (lambda la=labels: pl.peak_error_functions(cov, la, progress=False)), ERROR)
    yield ("check_labels_in_coverage inside",
           lambda: check_labels_in_coverage(cov, _labels(chromStart=[0], chromEnd=[60])),
           lambda d: len(d) == 1)


def _bigwig_intervals(path):
    import pyBigWig

    bw = pyBigWig.open(str(path))
    try:
        return list(bw.intervals("chr1"))
    finally:
        bw.close()


def _more_cases(tmp: Path):
    segs = _peaks(mean=[1.0, 2.0])
    yield ("write_bigwig chrom_sizes too small",
           lambda: pl.write_bigwig(segs, tmp / "s.bw", chrom_sizes={"chr1": 10}), ERROR)
    yield ("write_bigwig overlapping",
           lambda: pl.write_bigwig(_peaks(chromStart=[1, 4], mean=[1.0, 2.0]), tmp / "o.bw"),
           ERROR)
    yield ("write_bigwig round trip",
           lambda: (pl.write_bigwig(segs, tmp / "r.bw"), _bigwig_intervals(tmp / "r.bw"))[1],
           lambda d: d == [(1, 5, 1.0), (10, 20, 2.0)])
    yield ("write_bed gzip round trip",
           lambda: (pl.write_bed(_peaks(), tmp / "p.bed.gz"), pl.read_bed(tmp / "p.bed.gz"))[1],
           lambda d: d["chromEnd"].tolist() == [5, 20])
    yield ("check_labels_in_coverage outside='x'",
           lambda: check_labels_in_coverage(coverage_table(), _labels(), outside="x"), ERROR)
    yield ("read_peak_labels coordinates='x'",
           lambda: pl.read_peak_labels(write_file(tmp, "c.txt", "chr1:1-5 peaks\n"),
                                       coordinates="x"),
           ERROR)
    yield ("read_peak_labels samples=list",
           lambda: pl.read_peak_labels(write_file(tmp, "c2.txt", "chr1:1-5 peaks a\n"),
                                       samples=["a"]),
           ERROR)
    yield ("read_peak_labels samples= on a CSV",
           lambda: pl.read_peak_labels(write_file(tmp, "c3.csv",
                                                  "chrom,chromStart,chromEnd,annotation\n"
                                                  "chr1,1,5,peaks\n"), samples={"a": "g"}),
           ERROR)
    yield ("read_peak_labels TSV header",
           lambda: pl.read_peak_labels(write_file(tmp, "t.tsv", "chrom\tchromStart\tchromEnd\t"
                                             "annotation\nchr1\t1\t5\tpeaks\n")),
           lambda d: d["chromEnd"].tolist() == [5])
    yield ("peak_error_functions labels sample_id, coverage none",
           lambda: pl.peak_error_functions(coverage_table().drop(columns="sample_id"),
                                           _labels(sample_id=["a"]), progress=False), ERROR)
    yield ("peak_error_functions browser groups, single-sample coverage",
           lambda: pl.peak_error_functions(coverage_table().drop(columns="sample_id"),
                                           pl.read_peak_labels(write_file(tmp, "g3.txt",
                                                                     "chr1:2-5 peaks a\n")),
                                           progress=False), ERROR)
    yield ("peak_label_errors annotation NaN",
           lambda: pl.peak_label_errors(_peaks(), _labels(annotation=[np.nan])), ERROR)


def test_readers_writers_and_label_checks(tmp_path):
    check_cases(_reader_writer_cases(tmp_path), at_least=76)


def test_bigwig_writer_and_reader_options(tmp_path):
    check_cases(_more_cases(tmp_path), at_least=12)
