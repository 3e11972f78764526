"""Adversarial probe of the label / BED / output surfaces of the ChIP-seq path (issue 23).

Each case feeds one hostile or edge-case input to the library (``read_bed``,
``read_peak_labels``, ``write_bed``, ``write_bedgraph``, ``peak_label_errors``,
``check_labels_in_coverage``, ``peakseg_search``) or to ``penlearn peaks`` (in-process
through ``main``) and classifies the outcome:

* ``ok``      — the expected result, or a one-line ``ValueError`` / ``TypeError``;
* ``unclear`` — another exception, or a message over several lines;
* ``silent``  — no error where the input is wrong, or a wrong result.

Run: ``python benchmarks/probe_rel23.py`` (prints the counts and every case not ``ok``).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import penlearn as pl
from penlearn.cli import main
from penlearn.peaks.peakseg.labels import check_labels_in_coverage

ERROR = object()  # the case must raise a one-line ValueError / TypeError
TMP = Path(tempfile.mkdtemp(prefix="probe-rel23-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
BIG = 2**62
#: BED names of the sample ids that hold whitespace, quotes or '%' (percent-encoded)
NAMES = {"a%2Fb": "a%252Fb", "a b": "a%20b", 'q"x': "q%22x"}


def _file(name: str, data: str | bytes) -> Path:
    p = TMP / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def _cov(samples=("a",), counts=(1, 2, 30, 28, 2, 1)):
    n = len(counts)
    return pd.DataFrame({"sample_id": [s for s in samples for _ in range(n)], "chrom": "chr1",
                         "chromStart": list(range(0, 10 * n, 10)) * len(samples),
                         "chromEnd": list(range(10, 10 * n + 10, 10)) * len(samples),
                         "count": list(counts) * len(samples)})


def _peaks(**cols):
    base = {"chrom": ["chr1", "chr1"], "chromStart": [1, 10], "chromEnd": [5, 20]}
    base.update(cols)
    return pd.DataFrame(base)


def _labels(**cols):
    base = {"chrom": ["chr1"], "chromStart": [1], "chromEnd": [5], "annotation": ["peaks"]}
    base.update(cols)
    return pd.DataFrame(base)


def cases():
    """(name, callable, expected): expected is ERROR or a predicate of the result."""
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
        yield f"read_bed {name}", (lambda t=text, n=name: pl.read_bed(_file(f"{n}.bed", t))), want

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
               (lambda t=text, n=name, e=ext: pl.read_peak_labels(_file(n.replace(" ", "_") + e,
                                                                          t))), want)
    groups = _file("groups.txt", "chr1:11-20 peakStart kidnee\n")
    yield ("read_peak_labels unknown group",
           lambda: pl.read_peak_labels(groups, samples={"a": "kidney"}), ERROR)
    yield ("read_peak_labels sample id as group",
           lambda: pl.read_peak_labels(_file("g2.txt", "chr1:11-20 peakStart a\n"),
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
        yield f"write_bed {name}", (lambda t=table: pl.write_bed(t, TMP / "w.bed")), ERROR
    exact = _peaks(chromStart=[BIG, BIG + 2], chromEnd=[BIG + 1, BIG + 3])
    yield ("write_bed 2^62 exact", lambda: (pl.write_bed(exact, TMP / "x.bed"),
                                            pl.read_bed(TMP / "x.bed"))[1],
           lambda d: d["chromStart"].tolist() == [BIG, BIG + 2])
    yield ("write_bed track quote", lambda: pl.write_bed(_peaks(), TMP / "t.bed", track='a"b'),
           ERROR)
    seg = _peaks(mean=[1.0, np.nan])
    yield "write_bedgraph NaN mean", lambda: pl.write_bedgraph(seg, TMP / "g.bedGraph"), ERROR
    yield ("write_bedgraph missing column",
           lambda: pl.write_bedgraph(_peaks(), TMP / "g.bedGraph"), ERROR)

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

    cov = _cov(("a", "b"))
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

    y = [12, 10, 1, 0, 3, 5, 0, 2, 10, 16, 11, 11]
    small = pd.DataFrame({"chrom": "chr1", "chromStart": range(12), "chromEnd": range(1, 13),
                          "count": y})
    top = pl.peakseg(small, 0.0).n_peaks
    yield ("peakseg_search beyond the path", lambda: pl.peakseg_search(small, 5),
           lambda r: r.n_peaks == top)
    for bad in (None, -1, 2.5, True, "3", 6):
        yield (f"peakseg_search peaks={bad!r}", (lambda b=bad: pl.peakseg_search(small, b)),
               ERROR)

    yield from _more_cases()
    yield from _cli_cases()


def _bigwig_intervals(path):
    import pyBigWig

    bw = pyBigWig.open(str(path))
    try:
        return list(bw.intervals("chr1"))
    finally:
        bw.close()


def _more_cases():
    segs = _peaks(mean=[1.0, 2.0])
    yield ("write_bigwig chrom_sizes too small",
           lambda: pl.write_bigwig(segs, TMP / "s.bw", chrom_sizes={"chr1": 10}), ERROR)
    yield ("write_bigwig overlapping",
           lambda: pl.write_bigwig(_peaks(chromStart=[1, 4], mean=[1.0, 2.0]), TMP / "o.bw"),
           ERROR)
    yield ("write_bigwig round trip",
           lambda: (pl.write_bigwig(segs, TMP / "r.bw"), _bigwig_intervals(TMP / "r.bw"))[1],
           lambda d: d == [(1, 5, 1.0), (10, 20, 2.0)])
    yield ("write_bed gzip round trip",
           lambda: (pl.write_bed(_peaks(), TMP / "p.bed.gz"), pl.read_bed(TMP / "p.bed.gz"))[1],
           lambda d: d["chromEnd"].tolist() == [5, 20])
    yield ("check_labels_in_coverage outside='x'",
           lambda: check_labels_in_coverage(_cov(), _labels(), outside="x"), ERROR)
    yield ("read_peak_labels coordinates='x'",
           lambda: pl.read_peak_labels(_file("c.txt", "chr1:1-5 peaks\n"), coordinates="x"),
           ERROR)
    yield ("read_peak_labels samples=list",
           lambda: pl.read_peak_labels(_file("c2.txt", "chr1:1-5 peaks a\n"), samples=["a"]),
           ERROR)
    yield ("read_peak_labels samples= on a CSV",
           lambda: pl.read_peak_labels(_file("c3.csv", "chrom,chromStart,chromEnd,annotation\n"
                                              "chr1,1,5,peaks\n"), samples={"a": "g"}), ERROR)
    yield ("read_peak_labels TSV header",
           lambda: pl.read_peak_labels(_file("t.tsv", "chrom\tchromStart\tchromEnd\t"
                                             "annotation\nchr1\t1\t5\tpeaks\n")),
           lambda d: d["chromEnd"].tolist() == [5])
    yield ("peak_error_functions labels sample_id, coverage none",
           lambda: pl.peak_error_functions(_cov().drop(columns="sample_id"),
                                           _labels(sample_id=["a"]), progress=False), ERROR)
    yield ("peak_error_functions browser groups, single-sample coverage",
           lambda: pl.peak_error_functions(_cov().drop(columns="sample_id"),
                                           pl.read_peak_labels(_file("g3.txt",
                                                                     "chr1:2-5 peaks a\n")),
                                           progress=False), ERROR)
    yield ("peak_label_errors annotation NaN",
           lambda: pl.peak_label_errors(_peaks(), _labels(annotation=[np.nan])), ERROR)


def _cli(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # a usage error (argparse)
            code = exc.code
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    if code == 1 and len(lines) == 1:
        raise ValueError(lines[0])
    if code != 0:
        raise RuntimeError(f"exit {code}: {err.getvalue()}")
    return code


def _cli_cases():
    d = TMP / "cli"
    d.mkdir()
    ids = {"dotdot": "../../victim", "absolute": str(TMP / "abs"), "syntax": "sub/../A",
           "dot": ".", "hidden": ".x", "percent": "a%2Fb", "space": "a b", "unicode": "échantillon",
           "quote": 'q"x'}
    for name, sid in ids.items():
        cov = d / f"{name}.csv"
        _cov((sid, "A")).to_csv(cov, index=False)
        out = d / f"out_{name}" / "p"

        def command(cov=cov, out=out):
            before = set(TMP.rglob("*"))
            _cli(["peaks", cov, "--penalty", 5, "--out", out, "-q"])
            return sorted(set(TMP.rglob("*")) - before)

        def check(new, out=out, sid=sid):
            inside = [p for p in new if p.is_file()]
            names = {pl.read_bed(p)["name"].iloc[0] for p in inside}
            return (all(out in p.parents or p in out.parents or p == out for p in new)
                    and len(inside) == 2 and names == {NAMES.get(sid, sid), "A"}
                    and not any(p.name.startswith(".") for p in inside))

        yield f"peaks sample id {name}", command, check
    collide = d / "collide.csv"
    _cov(("A", "a")).to_csv(collide, index=False)
    yield ("peaks ids differing in case",
           lambda: _cli(["peaks", collide, "--penalty", 5, "--out", d / "oc", "-q"]), ERROR)
    one = d / "one.bedGraph"
    _cov().drop(columns="sample_id").to_csv(one, sep="\t", header=False, index=False)
    os.symlink(one, d / "link.bedGraph")
    for name, out in {"itself": one, "symlink": d / "link.bedGraph", "empty": "",
                      "its folder": d}.items():
        yield (f"peaks --out {name} --force",
               (lambda o=out: _cli(["peaks", one, "--penalty", 5, "--out", o, "--force", "-q"])),
               ERROR)
    yield ("peaks --track with a quote",
           lambda: _cli(["peaks", one, "--penalty", 5, "--out", d / "q.bed", "--track", 'a"b',
                         "-q"]), ERROR)
    yield ("peaks --out naming the --model",
           lambda: _cli(["peaks", one, "--model", one, "--out", one, "--force", "-q"]), ERROR)
    folder = d / "folder"
    folder.mkdir()
    _cov(("s1", "s2")).to_csv(folder / "coverage.csv", index=False)
    (folder / "labels.txt").write_text("chr1:16-25 peakStart s1 s3\n")
    yield ("learn FOLDER, browser label naming no sample",
           lambda: _cli(["learn", folder, "--out", d / "m.json", "-q"]), ERROR)
    yield ("peaks --means bedGraph beside an input name",
           lambda: _cli(["peaks", one, "--penalty", 5, "--out", d / "one.bed", "--means",
                         "bedGraph", "--force", "-q"]), ERROR)


def classify(fn, want) -> tuple[str, str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fn()
    except (ValueError, TypeError) as exc:
        text = str(exc)
        if want is ERROR:
            return ("ok" if text and "\n" not in text.strip() else "unclear"), text[:160]
        return "unclear", f"{type(exc).__name__}: {text[:160]}"
    except Exception as exc:  # noqa: BLE001 - the probe records every failure
        return "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
    if want is ERROR:
        return "silent", f"no error; got {str(got)[:120]!r}"
    try:
        good = bool(want(got))
    except Exception as exc:  # noqa: BLE001
        return "silent", f"result check failed: {type(exc).__name__}: {exc}"
    return ("ok" if good else "silent"), ("" if good else f"wrong result: {str(got)[:160]!r}")


def run(cases_fn=None, classify_fn=None) -> pd.DataFrame:
    """One row per case: ``case, verdict, detail`` (``cases`` / ``classify`` of this probe
    unless others are given, as ``probe_scale.py`` does)."""
    cases_fn, classify_fn = cases_fn or cases, classify_fn or classify
    rows = []
    for name, fn, want in cases_fn():
        verdict, detail = classify_fn(fn, want)
        rows.append({"case": name, "verdict": verdict, "detail": detail})
    return pd.DataFrame(rows)


def print_table(table: pd.DataFrame) -> None:
    """The counts line, then every case that is not ok."""
    counts = table["verdict"].value_counts()
    print(f"{len(table)} cases: " + ", ".join(f"{counts.get(v, 0)} {v}"
                                             for v in ("ok", "unclear", "silent")))
    bad = table[table["verdict"] != "ok"]
    if len(bad):
        print(bad.to_string(index=False, max_colwidth=110))


if __name__ == "__main__":
    print_table(run())
