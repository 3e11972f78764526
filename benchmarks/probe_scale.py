"""Adversarial probe of the genome-scale and learning surfaces of the ChIP-seq path
(issue 23's closing re-run): bigWig inputs, gapped bedGraphs, ``--jobs`` /
``--scheduler``, the learn cache, boosting model files, ``predict_peaks`` and
``peak_error_functions(max_peaks=...)``.

Same verdicts as ``benchmarks/probe_rel23.py`` (whose ``classify`` and ``_cli`` it uses):

* ``ok``      — the expected result, or a one-line ``ValueError`` / ``TypeError``
  (a missing file: a one-line ``FileNotFoundError`` naming it);
* ``unclear`` — another exception, or a message over several lines;
* ``silent``  — no error where the input is wrong, or a wrong result.

Run: ``python benchmarks/probe_scale.py`` (prints the counts and every case not ``ok``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd

import penlearn as pl
from penlearn.datasets.peaks import load_peak_folder
from penlearn.learn.model import PenaltyModel

_spec = importlib.util.spec_from_file_location("probe_rel23",
                                               Path(__file__).with_name("probe_rel23.py"))
rel23 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rel23)
ERROR, TMP, _file = rel23.ERROR, rel23.TMP, rel23._file
MISSING = object()  # a one-line FileNotFoundError is the right answer


def _cli(argv):
    """``penlearn ARGV`` in-process; a usage error (exit 2) whose message is one
    ``error:`` line after argparse's usage line counts as a one-line error too."""
    try:
        return rel23._cli(argv)
    except RuntimeError as exc:
        text = str(exc)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if text.startswith("exit 2:") and len(lines) <= 2 and "error:" in lines[-1]:
            raise ValueError(lines[-1]) from exc
        raise


def _bw(name: str, chroms: dict, intervals: list) -> Path:
    """A bigWig file: intervals (chrom, start, end, value)."""
    import pyBigWig

    p = TMP / name
    bw = pyBigWig.open(str(p), "w")
    bw.addHeader(list(chroms.items()))
    for c, s, e, v in intervals:
        bw.addEntries([c], [s], ends=[e], values=[float(v)])
    bw.close()
    return p


def _bigwig_cases():
    good = _bw("good.bw", {"chr1": 100, "chr2": 50},
               [("chr1", 0, 10, 1), ("chr1", 10, 30, 5), ("chr1", 50, 60, 2), ("chr2", 0, 5, 3)])
    data = good.read_bytes()
    files = {"text": _file("t.bw", "chr1\t0\t10\t1\n"), "empty": _file("e.bw", b""),
             "truncated": _file("tr.bw", data[: len(data) // 2]),
             "magic only": _file("m.bw", data[:4]),
             "corrupt body": _file("c.bw", data[:64] + bytes(len(data) - 64)),
             "folder": TMP}
    for name, p in files.items():
        yield f"read_bigwig {name}", (lambda p=p: pl.read_bigwig(p)), ERROR
    yield "read_bigwig missing", lambda: pl.read_bigwig(TMP / "nope.bw"), MISSING
    yield "read_bigwig empty path", lambda: pl.read_bigwig(""), ERROR
    yield ("read_bigwig region clipped, gap left out",  # (10, 30, 5) cut to 15; 30-50 a gap
           lambda: pl.read_bigwig(good, "chr1", 15, 55),
           lambda d: d[["chromStart", "chromEnd", "count"]].values.tolist()
           == [[15, 30, 5], [50, 55, 2]])
    yield ("read_bigwig whole file",
           lambda: pl.read_bigwig(good),
           lambda d: d[d["chrom"] == "chr1"]["count"].tolist()[:2] == [1, 5]
           and d["chrom"].unique().tolist() == ["chr1", "chr2"])
    for name, args in {"chrom absent": ("chr9",), "start > end": ("chr1", 40, 20),
                       "start = end": ("chr1", 20, 20), "end past chrom": ("chr1", 0, 101),
                       "start negative": ("chr1", -1, 20), "start float": ("chr1", 2.5, 20),
                       "start str": ("chr1", "5", 20), "start bool": ("chr1", True, 20),
                       "chrom int": (1,), "start without chrom": (None, 5, 10),
                       "start 2^64": ("chr1", 0, 2**64)}.items():
        yield f"read_bigwig {name}", (lambda a=args: pl.read_bigwig(good, *a)), ERROR
    frac = _bw("frac.bw", {"chr1": 20}, [("chr1", 0, 10, 1.5)])
    neg = _bw("neg.bw", {"chr1": 20}, [("chr1", 0, 10, -1)])
    nan = _bw("nan.bw", {"chr1": 20}, [("chr1", 0, 10, np.nan)])
    for name, p in {"fractional": frac, "negative": neg, "NaN": nan}.items():
        yield f"read_bigwig value {name}", (lambda p=p: pl.read_bigwig(p)), ERROR
    yield ("read_coverage same bigWig twice", lambda: pl.read_coverage([good, good]), ERROR)
    gap = pl.read_bigwig(good, "chr1")
    yield ("peakseg bigWig gaps='error'", lambda: pl.peakseg(gap, 1.0, gaps="error"), ERROR)


def _gap_cases():
    def bg(rows):
        return pd.DataFrame(rows, columns=["chrom", "chromStart", "chromEnd", "count"])

    filled = bg([("chr1", 0, 10, 1), ("chr1", 10, 20, 30), ("chr1", 20, 30, 0),
                 ("chr1", 30, 40, 29), ("chr1", 40, 50, 1)])
    gapped = filled.drop(index=2).reset_index(drop=True)
    ref = pl.peakseg(filled, 5.0)
    yield ("peakseg gap filled = explicit zeros", lambda: pl.peakseg(gapped, 5.0),
           lambda r: r.n_peaks == ref.n_peaks and np.allclose(r.loss, ref.loss))
    yield "peakseg gaps='error'", lambda: pl.peakseg(gapped, 5.0, gaps="error"), ERROR
    yield "peakseg gaps='zero'", lambda: pl.peakseg(gapped, 5.0, gaps="zero"), ERROR
    yield "peakseg gaps=None", lambda: pl.peakseg(gapped, 5.0, gaps=None), ERROR
    over = bg([("chr1", 0, 10, 1), ("chr1", 5, 20, 3), ("chr1", 30, 40, 2)])
    yield "peakseg overlap after a gap", lambda: pl.peakseg(over, 5.0), ERROR
    unsorted = bg([("chr1", 30, 40, 2), ("chr1", 0, 10, 1), ("chr1", 10, 20, 3)])
    text = unsorted.to_csv(sep="\t", header=False, index=False)
    yield ("read_coverage bedGraph unsorted after a gap",
           lambda: pl.peakseg(pl.read_coverage(_file("u.bedGraph", text)), 5.0), ERROR)
    ov_text = over.to_csv(sep="\t", header=False, index=False)
    yield ("read_coverage bedGraph overlap",
           lambda: pl.peakseg(pl.read_coverage(_file("o.bedGraph", ov_text)), 5.0), ERROR)
    cov = rel23._cov(("a",)).drop(index=2).reset_index(drop=True)
    yield ("predict_peaks gaps='error'",
           lambda: pl.predict_peaks(cov, 1.0, gaps="error"), ERROR)
    lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [0],
                        "chromEnd": [60], "annotation": ["peaks"]})
    yield ("peak_error_functions gaps='error'",
           lambda: pl.peak_error_functions(cov, lab, gaps="error", progress=False), ERROR)


def _peak_folder(name: str, samples=("s1", "s2", "s3", "s4")) -> Path:
    folder = TMP / name
    folder.mkdir()
    rng = np.random.default_rng(1)
    rows = []
    for k, s in enumerate(samples):
        y = rng.poisson([2] * 10 + [20 + 5 * k] * 5 + [2] * 10)
        rows += [(s, "chr1", 10 * i, 10 * i + 10, int(c)) for i, c in enumerate(y)]
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"]
                 ).to_csv(folder / "coverage.csv", index=False)
    labs = [(s, "chr1", 0, 80, "noPeaks") for s in samples]
    labs += [(s, "chr1", 90, 160, "peaks") for s in samples]
    pd.DataFrame(labs, columns=["sample_id", "chrom", "chromStart", "chromEnd", "annotation"]
                 ).to_csv(folder / "labels.csv", index=False)
    return folder


def _worker_cases():
    folder = _peak_folder("jobs")
    cov = folder / "coverage.csv"
    for bad in ("0", "-1", "1.5", "two", "", "1e3"):
        yield (f"peaks --jobs {bad!r}",
               (lambda b=bad: _cli(["peaks", cov, "--penalty", 5, "--out", TMP / "j" / "p",
                                    "--jobs", b, "-q"])), ERROR)
    yield ("learn --jobs 0",
           lambda: _cli(["learn", folder, "--out", TMP / "j0.json", "--jobs", 0, "-q"]), ERROR)
    yield ("peaks --jobs 2 = --jobs 1",
           lambda: (_cli(["peaks", cov, "--penalty", 5, "--out", TMP / "j1", "-q"]),
                    _cli(["peaks", cov, "--penalty", 5, "--out", TMP / "j2", "--jobs", 2, "-q"]),
                    )[1],
           lambda _: all((TMP / "j1" / f"{s}.bed").read_bytes()
                         == (TMP / "j2" / f"{s}.bed").read_bytes() for s in ("s1", "s4")))
    yield ("peaks --jobs 10**30",
           lambda: _cli(["peaks", cov, "--penalty", 5, "--out", TMP / "jh", "--jobs", 10**30,
                         "-q"]), ERROR)
    for name, addr in {"garbage": "not an address", "refused": "tcp://127.0.0.1:1",
                       "empty": ""}.items():
        yield (f"peaks --scheduler {name}",
               (lambda a=addr: _cli(["peaks", cov, "--penalty", 5, "--out", TMP / "s",
                                     "--scheduler", a, "-q"])), ERROR)
    yield ("peaks --scheduler with --jobs 2",
           lambda: _cli(["peaks", cov, "--penalty", 5, "--out", TMP / "s2", "--scheduler",
                         "tcp://127.0.0.1:1", "--jobs", 2, "-q"]), ERROR)


def _coef(path: Path) -> list:
    return json.loads(path.read_text())["coef"]


def _cache_cases():
    folder = _peak_folder("cached")
    ref = TMP / "ref.json"
    _cli(["learn", folder, "--out", ref, "--no-cache", "-q"])
    ro = TMP / "ro-cache"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)

    def learn(out, cache_dir, env=None):
        old = os.environ.get("PENLEARN_CACHE_DIR")
        if env is not None:
            os.environ["PENLEARN_CACHE_DIR"] = str(env)
        try:
            extra = ["--cache-dir", cache_dir] if cache_dir else []
            _cli(["learn", folder, "--out", out, "-q", *extra])
        finally:
            if env is not None:
                if old is None:
                    os.environ.pop("PENLEARN_CACHE_DIR")
                else:
                    os.environ["PENLEARN_CACHE_DIR"] = old
        return _coef(out)

    same = lambda c: c == _coef(ref)  # noqa: E731
    yield ("learn PENLEARN_CACHE_DIR read-only",
           lambda: learn(TMP / "c1.json", None, env=ro), same)
    yield ("learn --cache-dir read-only", lambda: learn(TMP / "c2.json", ro), same)
    # as root a read-only mode is not enforced: /proc refuses every new folder, even root's
    yield ("learn PENLEARN_CACHE_DIR unwritable (/proc)",
           lambda: learn(TMP / "c2p.json", None, env="/proc/penlearn-cache"), same)
    cdir = TMP / "cache"
    yield "learn cache store", lambda: learn(TMP / "c3.json", cdir), same
    yield "learn cache hit", lambda: learn(TMP / "c4.json", cdir), same

    def tamper(how):
        def run():
            files = [p for p in cdir.rglob("*") if p.is_file()]
            if not files:
                raise RuntimeError("no cache file was written")
            for p in files:
                data = p.read_bytes()
                p.write_bytes(data[: len(data) // 3] if how == "truncate"
                              else b"" if how == "empty" else b"\x00garbage" * 50)
            return learn(TMP / f"c-{how}.json", cdir)
        return run

    for how in ("truncate", "garbage", "empty"):
        yield f"learn cache file {how}", tamper(how), same

    def changed():
        learn(TMP / "c5.json", cdir)
        cov = pd.read_csv(folder / "coverage.csv")
        cov.loc[cov["sample_id"] == "s1", "count"] = 3  # s1 loses its peak
        cov.to_csv(folder / "coverage.csv", index=False)
        _cli(["learn", folder, "--out", TMP / "c6-ref.json", "--no-cache", "-q"])
        return learn(TMP / "c6.json", cdir) == _coef(TMP / "c6-ref.json")

    yield "learn cache after changed coverage", changed, lambda ok: ok is True
    yield ("learn --cache-dir a file",  # an input file, inside the input: refused (issue 38)
           lambda: learn(TMP / "c7.json", folder / "labels.csv"), ERROR)


def _boost_cases():
    folder = _peak_folder("boost", samples=tuple(f"s{i}" for i in range(12)))
    ds = load_peak_folder(folder)
    x = ds.inputs[[c for c in ds.inputs if np.isfinite(ds.inputs[c]).all()]]
    model = PenaltyModel(model="boosting", boosting={"min_samples_leaf": 2}).fit(
        x, ds.evaluation, scale_features=x)
    good = TMP / "boost.json"
    base = model.to_dict()
    if not base.get("trees"):  # the easy toy data stops boosting at stage 0: add one tree
        base["trees"] = [{"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
                          "threshold": [0.0, -2.0, -2.0], "value": [0.0, -0.5, 0.5]}]
        base["best_step"] = 1  # the file's count of kept trees must agree with its trees
        base["history"] = {c: v + v[-1:] for c, v in base["history"].items()}
        base["history"]["step"][-1] = 1
    good.write_text(json.dumps(base))
    model = PenaltyModel.load(good)
    nf = len(base["features"])
    cov = folder / "coverage.csv"
    t0 = base["trees"][0]
    split = int(np.flatnonzero(np.asarray(t0["left"]) != -1)[0]) if any(
        v != -1 for v in t0["left"]) else None

    def edit(fn):
        data = json.loads(json.dumps(base))
        fn(data)
        return data

    def set_node(field, value, node=None):
        def fn(d):
            d["trees"][0][field][split if node is None else node] = value
        return fn

    tamperings = {
        "left child out of range": set_node("left", 10**6),
        "left child = itself": set_node("left", split or 0),
        "left child -5": set_node("left", -5),
        "threshold NaN": set_node("threshold", float("nan")),
        "threshold inf": set_node("threshold", float("inf")),
        "threshold string": set_node("threshold", "x"),
        "value NaN": set_node("value", float("nan"), node=-1),
        "feature out of range": set_node("feature", nf),
        "feature negative": set_node("feature", -1),
        "feature float": set_node("feature", 0.5),
        "child bool": set_node("right", True),
        "arrays of unequal length": lambda d: d["trees"][0]["value"].append(0.0),
        "empty tree": lambda d: d["trees"].__setitem__(0, {k: [] for k in t0}),
        "missing key": lambda d: d["trees"][0].pop("threshold"),
        "extra key": lambda d: d["trees"][0].__setitem__("extra", [1]),
        "trees a dict": lambda d: d.__setitem__("trees", {"0": t0}),
        "tree a list": lambda d: d["trees"].__setitem__(0, [1, 2]),
        "nested lists": lambda d: d["trees"][0].__setitem__("value",
                                                            [[v] for v in t0["value"]]),
        "shrinkage NaN": lambda d: d.__setitem__("shrinkage", float("nan")),
        "shrinkage string": lambda d: d.__setitem__("shrinkage", "x"),
        "model kind wrong": lambda d: d["params"].__setitem__("model", "forest"),
    }
    if split is None:
        raise RuntimeError("the first tree has no split")
    for name, fn in tamperings.items():
        path = TMP / f"boost-{name.replace(' ', '_')}.json"
        with open(path, "w") as fh:
            json.dump(edit(fn), fh)  # NaN written as the JSON extension NaN
        yield f"PenaltyModel.load boosting {name}", (lambda p=path: PenaltyModel.load(p)), ERROR
        if name in ("left child out of range", "threshold NaN", "feature out of range",
                    "missing key", "arrays of unequal length", "model kind wrong"):
            yield (f"peaks --model boosting {name}",
                   (lambda p=path: _cli(["peaks", cov, "--model", p, "--out",
                                         TMP / "bm" / p.stem, "-q"])), ERROR)
    cli_model = TMP / "boost-cli.json"

    def learn_then_tamper():
        _cli(["learn", folder, "--model", "boosting", "--out", cli_model, "--no-cache", "-q"])
        d = json.loads(cli_model.read_text())
        PenaltyModel.load(cli_model)  # the file as written loads
        d.setdefault("trees", [])  # (it may stop at stage 0 on this toy folder)
        d["trees"].append({"left": [1, -1, -1], "right": [2, -1, -1], "feature": [0, -2, -2],
                           "threshold": [float("nan"), -2.0, -2.0], "value": [0.0, -1.0, 1.0]})
        cli_model.write_text(json.dumps(d))
        return _cli(["peaks", cov, "--model", cli_model, "--out", TMP / "bcli", "-q"])

    yield "learn --model boosting, tampered NaN threshold, peaks --model", learn_then_tamper, ERROR
    inputs = TMP / "inputs.csv"
    ds.inputs.rename_axis("sequenceID").to_csv(inputs)
    bad = TMP / "boost-threshold_NaN.json"
    yield ("predict boosting threshold NaN",
           lambda: _cli(["predict", bad, inputs, "--out", TMP / "pr.csv"]), ERROR)
    yield ("predict boosting round trip",
           lambda: (_cli(["predict", good, inputs, "--out", TMP / "pg.csv"]),
                    pd.read_csv(TMP / "pg.csv"))[1],
           lambda d: np.allclose(d["log_lambda"].to_numpy(),
                                 model.predict(ds.inputs.loc[d.iloc[:, 0]]))
           and d["log_lambda"].nunique() == 2)


def _predict_cases():
    cov = rel23._cov(("a", "b"))
    for name, ll in {"list": [1.0, 2.0], "dict": {"a": 1.0}, "ndarray": np.array([1.0, 2.0]),
                     "None": None, "str": "1", "NaN": np.nan, "bool": True,
                     "Series missing id": pd.Series({"a": 1.0}),
                     "Series NaN": pd.Series({"a": 1.0, "b": np.nan})}.items():
        yield (f"predict_peaks log_lambda {name}",
               (lambda v=ll: pl.predict_peaks(cov, v)), ERROR)
    lab = pd.DataFrame({"sample_id": ["a"], "chrom": ["chr1"], "chromStart": [0],
                        "chromEnd": [60], "annotation": ["peaks"]})
    yield ("predict_peaks log_lambda inf: no peaks", lambda: pl.predict_peaks(cov, np.inf),
           lambda d: len(d) == 0)
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


def cases():
    """(name, callable, expected) of every surface above."""
    for group in (_bigwig_cases, _gap_cases, _worker_cases, _cache_cases, _boost_cases,
                  _predict_cases):
        try:
            yield from group()
        except Exception as exc:  # noqa: BLE001 - a broken setup is a probe failure
            yield f"{group.__name__} setup", (lambda e=exc: (_ for _ in ()).throw(e)), None


def classify(fn, want) -> tuple[str, str]:
    if want is MISSING:
        try:
            fn()
        except FileNotFoundError as exc:
            one = "\n" not in str(exc).strip()
            return ("ok" if one else "unclear"), str(exc)[:160]
        except Exception as exc:  # noqa: BLE001
            return "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
        return "silent", "no error"
    return rel23.classify(fn, want)


def run() -> pd.DataFrame:
    return rel23.run(cases, classify)


if __name__ == "__main__":
    rel23.print_table(run())
