"""``pretrain`` reads its folders with the one reader of UCI tables (issue 47, class d):
a set written otherwise than penlearn writes it (R's quoted header, columns reordered, an
extra column, spaces after the commas, gzip under a plain name) is read, not left out;
an evaluation table the fit cannot trust (no ``errors``, NaN errors, no label, a short
row) is one clear line naming it, never a model."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _hostile import Error, check_cases, run_cli

from penlearn.peaks.peakseg.features import FEATURE_COLUMNS


def _set(folder: Path, seed: int) -> None:
    """A labeled set of 8 windows: 36 features and 3-interval error functions."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    n = 8
    feats = pd.DataFrame(rng.normal(size=(n, len(FEATURE_COLUMNS))),
                         columns=list(FEATURE_COLUMNS))
    feats.insert(0, "sequenceID", [f"{folder.name}-{i}" for i in range(n)])
    feats.to_csv(folder / "inputs.csv", index=False)
    rows = []
    for i in range(n):
        a = 2 * feats["log.sd"].iloc[i] - feats["log.mean"].iloc[i] + rng.normal()
        for lo, hi, fp, fn in ((-np.inf, a, 1, 0), (a, a + 1, 0, 0), (a + 1, np.inf, 0, 1)):
            rows.append((f"{folder.name}-{i}", lo, hi, 1, fp, 1, fn, 2, fp + fn))
    pd.DataFrame(rows, columns=["sequenceID", "min.log.lambda", "max.log.lambda",
                                "possible.fp", "fp", "possible.fn", "fn", "labels",
                                "errors"]).to_csv(folder / "evaluation.csv", index=False)


def _pretrain(root: Path, out: Path) -> dict:
    run_cli(["pretrain", root, "--out", out, "--no-loso", "--force", "-q"])
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    root = tmp_path_factory.mktemp("pretrain")
    for k, name in enumerate(("setA", "setB")):
        _set(root / "clean" / name, k)
    model = _pretrain(root / "clean", root / "clean.json")
    return root, model


def _variant(root: Path, name: str, change) -> Path:
    d = root / name
    shutil.copytree(root / "clean", d)
    change(d / "setB")
    return d


def _rewrite(file: str, fn):
    def change(d: Path) -> None:
        fn(d / file)
    return change


def _text(fn):
    return lambda p: p.write_text(fn(p.read_text()))


def _quoted(p: Path) -> None:  # as R's write.csv: names and text quoted
    df = pd.read_csv(p)
    df.to_csv(p, index=False, quoting=1)


def _same_model(clean_model):
    def want(got):
        return (got["provenance"]["sets"] == ["setA", "setB"]
                and got["coef"] == clean_model["coef"]
                and got["intercept"] == clean_model["intercept"])
    return want


def test_sets_written_otherwise_are_read_not_left_out(clean):
    root, model = clean
    changes = {
        "R's quoted header": _rewrite("inputs.csv", _quoted),
        "columns reordered": _rewrite("inputs.csv", lambda p: pd.read_csv(p).iloc[:, ::-1]
                                      .to_csv(p, index=False)),
        "an extra column": _rewrite("inputs.csv", lambda p: pd.read_csv(p).assign(
            extra=1.5).to_csv(p, index=False)),
        "spaces after commas": _rewrite("inputs.csv", _text(lambda t: t.replace(",", ", "))),
        "evaluation spaces after commas": _rewrite("evaluation.csv", _text(
            lambda t: t.replace(",", ", "))),
        "gzip named inputs.csv": _rewrite("inputs.csv", lambda p: p.write_bytes(
            gzip.compress(p.read_bytes()))),
    }
    cases = [(name, lambda n=name, c=c: _pretrain(_variant(root, f"ok-{len(n)}-{n[:3]}", c),
                                                   root / "m.json"), _same_model(model))
             for name, c in changes.items()]
    check_cases(cases, at_least=6)


def test_evaluations_the_fit_cannot_trust_are_refused(clean):
    root, _ = clean

    def ev_change(fn):
        return _rewrite("evaluation.csv", lambda p: fn(pd.read_csv(p)).to_csv(p, index=False))

    changes = {
        "no errors column": (ev_change(lambda e: e.drop(columns="errors")), ("errors",
                                                                             "setB")),
        "NaN errors": (ev_change(lambda e: e.assign(errors=np.nan)), ("errors",)),
        "errors not fp + fn": (ev_change(lambda e: e.assign(errors=5)), ("errors",)),
        "an extra text column": (_rewrite("inputs.csv", lambda p: pd.read_csv(p).assign(
            note="x").to_csv(p, index=False)), ("note", "inputs.csv")),
        "no labels column": (ev_change(lambda e: e.drop(columns="labels")), ("labels",)),
        "zero labels": (ev_change(lambda e: e.assign(labels=0)), ("setB", "label")),
        "a short evaluation row": (_rewrite("evaluation.csv", _text(
            lambda t: t.replace(",2,1\n", ",2\n", 1))), ("evaluation.csv", "line")),
        "a short inputs row": (_rewrite("inputs.csv", _text(
            lambda t: "\n".join(t.split("\n")[:2] + [t.split("\n")[2].rsplit(",", 3)[0]]
                                + t.split("\n")[3:]))), ("inputs.csv", "line")),
    }
    cases = []
    for k, (name, (change, needles)) in enumerate(changes.items()):
        d = _variant(root, f"bad{k}", change)
        cases.append((name, lambda d=d: _pretrain(d, root / "bad.json"),
                       Error(*needles, inputs=[d])))
    check_cases(cases, at_least=8)
