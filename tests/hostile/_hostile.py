"""The harness of the hostile-input tests (see README.md beside this file).

A case is ``(name, call, want)``; :func:`classify` runs ``call()`` and names the outcome:

* ``ok``        — the expected result, or the one clear line that ``want`` asks for;
* ``data-loss`` — an input folder of ``Error(..., inputs=...)`` changed;
* ``silent``    — no error where the input is wrong, or a wrong result;
* ``unclear``   — another exception, a message over several lines, or one lacking the
  words it must name.

:func:`check_cases` asserts that every case of a list is ``ok`` and lists the others.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import io
import shutil
import tempfile
import warnings
from pathlib import Path


class Error:
    """``want`` of a case that must fail with one line naming every ``needle``, leaving the
    ``inputs`` folders byte for byte unchanged."""

    def __init__(self, *needles: str, inputs=()) -> None:
        self.needles, self.inputs = needles, [Path(p) for p in inputs]

    def __repr__(self) -> str:
        return f"Error{self.needles!r}"


#: any one-line ``ValueError`` / ``TypeError``
ERROR = Error()
#: a one-line ``FileNotFoundError`` (a missing file, named)
MISSING = object()


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (relative path -> SHA-1 of its bytes)."""
    return {str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def run_cli(argv) -> str:
    """``penlearn ARGV`` in-process. Exit 0 returns stderr; a failure with one ``error:``
    line on stderr (exit 1: bad input, exit 2: usage) raises ``ValueError`` with that
    line; anything else (exit 70, a traceback, several lines) raises ``RuntimeError``."""
    from penlearn.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            code = exc.code
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    if code in (1, 2) and len(lines) == 1 and "error:" in lines[0]:
        raise ValueError(lines[0])
    if code != 0:
        raise RuntimeError(f"exit {code}: {err.getvalue()[-300:]}")
    return err.getvalue()


def classify(call, want) -> tuple[str, str]:
    """``(verdict, detail)`` of one case (see the module docstring)."""
    if want is MISSING:
        try:
            call()
        except FileNotFoundError as exc:
            return ("ok" if "\n" not in str(exc).strip() else "unclear"), str(exc)[:160]
        except Exception as exc:  # noqa: BLE001 - every failure is recorded
            return "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
        return "silent", "no error"
    inputs = want.inputs if isinstance(want, Error) else []
    before = [snapshot(d) for d in inputs]
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            got = call()
    except (ValueError, TypeError) as exc:
        text = str(exc)
        if not isinstance(want, Error):
            verdict, detail = "unclear", f"{type(exc).__name__}: {text[:160]}"
        elif not text or "\n" in text.strip():
            verdict, detail = "unclear", text[:160]
        elif not all(n in text for n in want.needles):
            verdict, detail = "unclear", f"message lacks {want.needles}: {text[:160]}"
        else:
            verdict, detail = "ok", text[:160]
    except Exception as exc:  # noqa: BLE001 - every failure is recorded
        verdict, detail = "unclear", f"{type(exc).__name__}: {str(exc)[:160]}"
    else:
        if isinstance(want, Error):
            verdict, detail = "silent", f"no error; got {str(got)[:120]!r}"
        else:
            try:
                good = bool(want(got))
            except Exception as exc:  # noqa: BLE001
                good, got = False, f"result check failed: {type(exc).__name__}: {exc}"
            verdict, detail = ("ok", "") if good else ("silent", f"wrong: {str(got)[:160]!r}")
    if any(snapshot(d) != b for d, b in zip(inputs, before)):
        return "data-loss", f"input changed ({detail[:120]})"
    return verdict, detail


def check_cases(cases, *, at_least: int = 1) -> None:
    """Every case of ``cases`` (an iterable of ``(name, call, want)``) is ``ok``; there are
    at least ``at_least`` of them (a setup that yields nothing cannot pass)."""
    bad, n = [], 0
    for name, call, want in cases:
        n += 1
        verdict, detail = classify(call, want)
        if verdict != "ok":
            bad.append(f"{verdict:9s} {name}: {detail}")
    assert n >= at_least, f"{n} cases, expected at least {at_least}"
    assert not bad, f"{len(bad)} of {n} cases not handled:\n" + "\n".join(bad)


def bounded_cli(argv, cwd: Path, seconds: float = 60) -> str:
    """``penlearn ARGV -q`` in a child process with 2 GB of address space (an input that
    never ends, e.g. ``/dev/zero``): exit 1 with one line raises ``ValueError``; running
    past ``seconds``, running out of memory (an unbounded read) or any other failure raises
    ``RuntimeError``; exit 0 returns stderr."""
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    try:
        r = subprocess.run([sys.executable, "-m", "penlearn.cli", *map(str, argv), "-q"],
                           capture_output=True, text=True, timeout=seconds, cwd=cwd,
                           preexec_fn=limit)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"hang: still running after {seconds} s") from None
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    text = " ".join(lines)[-200:]
    if "memory" in text.lower():
        raise RuntimeError(f"unbounded read: {text}")
    if r.returncode == 1 and len(lines) == 1:
        raise ValueError(text)
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {text}")
    return r.stderr


# --------------------------------------------------------------------------- inputs


def write_file(folder: Path, name: str, data: str | bytes) -> Path:
    """``folder/name`` holding ``data`` (text is UTF-8)."""
    p = Path(folder) / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def coverage_table(samples=("a",), counts=(1, 2, 30, 28, 2, 1)):
    """A long coverage table: every sample on chr1 in 10-base runs of ``counts``."""
    import pandas as pd

    n = len(counts)
    return pd.DataFrame({"sample_id": [s for s in samples for _ in range(n)], "chrom": "chr1",
                         "chromStart": list(range(0, 10 * n, 10)) * len(samples),
                         "chromEnd": list(range(10, 10 * n + 10, 10)) * len(samples),
                         "count": list(counts) * len(samples)})


@functools.lru_cache(maxsize=1)
def uci_folder() -> tuple[Path, Path]:
    """A small UCI folder made by ``penlearn segment`` (inputs and evaluation gzipped), and
    a model learned on it by ``penlearn learn``; ``seq.csv`` and ``labels.csv`` beside it.
    Made once per test session (in a temporary folder removed at exit): callers that
    change it work on a copy."""
    import gzip

    import penlearn as pl

    root = Path(tempfile.mkdtemp(prefix="penlearn-hostile-uci-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    data = pl.simulate(12, seed=5, n_points=(60, 120))
    data.sequences.to_csv(root / "seq.csv", index=False)
    data.labels.to_csv(root / "labels.csv", index=False)
    d = root / "data"
    run_cli(["segment", root / "seq.csv", root / "labels.csv", "--max-segments", 4, "--out",
             d, "-q"])
    for name in ("inputs.csv", "evaluation.csv"):
        raw = (d / name).read_bytes()
        (d / name).unlink()
        (d / f"{name}.gz").write_bytes(gzip.compress(raw))
    run_cli(["learn", d, "--out", root / "model.json", "--max-steps", 2, "-q"])
    return d, root / "model.json"


def peak_folder(folder: Path, samples=("s1", "s2", "s3", "s4")) -> Path:
    """A coverage + peak labels folder: one window per sample, a peak of 20 + 5k over a
    background of 2, labelled noPeaks before it and peaks over it."""
    import numpy as np
    import pandas as pd

    folder.mkdir(parents=True)
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


def joint_folders(d: Path) -> Path:
    """``d/joint``: coverage of 3 samples (``cov/<s>.bedGraph``, 2 with a peak at 100-160)
    and their single-sample peaks (``peaks/``, by ``penlearn peaks --penalty 20``)."""
    import numpy as np
    import pandas as pd

    root = d / "joint"
    (root / "cov").mkdir(parents=True)
    rng = np.random.default_rng(7)
    for s, peak in (("a", True), ("b", True), ("c", False)):
        mu = np.r_[np.full(10, 2.0), np.full(6, 20.0 if peak else 2.0), np.full(14, 2.0)]
        rows = [("chr1", 10 * j, 10 * j + 10, int(c)) for j, c in enumerate(rng.poisson(mu))]
        pd.DataFrame(rows).to_csv(root / "cov" / f"{s}.bedGraph", sep="\t", header=False,
                                  index=False)
    run_cli(["peaks", root / "cov", "--penalty", 20, "--out", root / "peaks", "-q"])
    return root
