"""``penlearn learn`` on a coverage folder (issue 48): two labeled sequences learn by the
few-labels rule (item 1), labels naming a group resolve it from ``--groups``, a
``--group-column`` or a ``group`` / ``cell_type`` column of the coverage (item 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from penlearn.cli import main
from penlearn.learn import PenaltyModel

LABELS = ("chr1:1-100 noPeaks\nchr1:141-160 peakStart kidney\n"
          "chr1:241-260 peakEnd kidney\nchr1:301-380 noPeaks\n")


def _folder(root, samples, labels=LABELS, cell_types=None):
    """One 400 bp window per sample (a peak of 4× its background at 150-250)."""
    d = root / "data"
    d.mkdir()
    rng = np.random.default_rng(3)
    rows = []
    for k, s in enumerate(samples):
        b = 10 * (k + 1)
        mu = np.r_[np.full(15, b), np.full(10, 4 * b), np.full(15, b)]
        rows += [(s, "chr1", 10 * j, 10 * j + 10, int(c)) for j, c in enumerate(rng.poisson(mu))]
    cov = pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "count"])
    if cell_types is not None:
        cov["cell_type"] = cov["sample_id"].map(dict(zip(samples, cell_types)))
    cov.to_csv(d / "coverage.csv", index=False)
    (d / "labels.txt").write_text(labels)
    return d


def _learn(folder, out, capsys, *extra):
    code = main(["learn", str(folder), "--out", str(out), "--no-cache", "--jobs", "1",
                 *map(str, extra)])
    stdout, stderr = capsys.readouterr()
    return code, stdout, stderr


def _window_labels(model_file):
    return PenaltyModel.load(model_file).level_["labels"]


def test_two_labeled_sequences_learn_by_the_few_labels_rule(tmp_path, capsys):
    folder = _folder(tmp_path, ["A", "B"], labels=LABELS.replace(" kidney", ""))
    code, stdout, stderr = _learn(folder, tmp_path / "m.json", capsys)
    assert code == 0, stderr
    m = PenaltyModel.load(tmp_path / "m.json")
    assert m.level_["rule"] == "prior" and m.level_["labels"] == 8
    assert m.level_["reason"] == ("2 labeled sequences (at most 20): the prior ranks the "
                                  "windows, the labels set its level")
    assert "learned the shipped zero-label penalty model, its log λ shifted by" in stdout
    assert "2 labeled sequences" in m.describe()


def test_labels_naming_a_group_use_the_cell_type_column(tmp_path, capsys):
    folder = _folder(tmp_path, ["A", "B"], cell_types=["kidney", "bcell"])
    code, _, stderr = _learn(folder, tmp_path / "m.json", capsys)
    assert code == 0, stderr
    assert _window_labels(tmp_path / "m.json") == 8  # 4 labels of A (kidney), 4 of B


def test_labels_naming_a_group_use_groups_file_or_column(tmp_path, capsys):
    folder = _folder(tmp_path, ["A", "B"], cell_types=["bcell", "bcell"])
    groups = tmp_path / "groups.csv"
    groups.write_text("sample_id,group\nA,kidney\nB,bcell\n")
    code, _, stderr = _learn(folder, tmp_path / "m.json", capsys, "--groups", groups)
    assert code == 0, stderr
    a = PenaltyModel.load(tmp_path / "m.json")
    # the column says both are bcell: 'kidney' names no sample, and the error says where
    # groups come from
    code, _, stderr = _learn(folder, tmp_path / "n.json", capsys, "--group-column",
                             "cell_type")
    assert code == 1
    assert "'kidney' is no sample id or group" in stderr
    assert "--groups FILE" in stderr and "'cell_type'" in stderr
    assert a.level_["labels"] == 8


def test_group_options_refused_on_a_uci_folder(tmp_path, capsys):
    d = tmp_path / "uci"
    d.mkdir()
    pd.DataFrame({"sequence_id": ["a"], "min_log_lambda": [-np.inf], "max_log_lambda":
                  [np.inf], "fp": [0], "fn": [0], "possible_fp": [0], "possible_fn": [0],
                  "errors": [0], "labels": [0]}).to_csv(d / "evaluation.csv", index=False)
    code, _, stderr = _learn(d, tmp_path / "m.json", capsys, "--group-column", "g")
    assert code == 1 and "apply to a folder of coverage and peak labels" in stderr


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_number_of_labeled_sequences_learns(tmp_path, capsys, n):
    folder = _folder(tmp_path, [f"s{i}" for i in range(n)],
                     labels=LABELS.replace(" kidney", ""))
    code, stdout, stderr = _learn(folder, tmp_path / "m.json", capsys)
    assert code == 0, stderr
    assert "penlearn learn: learned" in stdout


@pytest.mark.parametrize("n", [2, 4])
def test_the_python_call_said_learns_the_same_model(tmp_path, capsys, n):
    # issue 48 item 6: the command passes the shipped prior (few labels: shifted; <= 100
    # sequences: a candidate of auto), the finite columns, targets and scaling rows; the
    # Python line it says gives the very same model
    folder = _folder(tmp_path, [f"s{i}" for i in range(n)], labels=LABELS.replace(" kidney", ""))
    code, _, stderr = _learn(folder, tmp_path / "m.json", capsys)
    assert code == 0, stderr
    line = next(ln for ln in stderr.splitlines() if "the same model in Python: " in ln)
    scope = {}
    exec(line.split("the same model in Python: ", 1)[1], scope)
    a, b = PenaltyModel.load(tmp_path / "m.json"), scope["model"]
    assert "prior=pl.shipped_model().model" in line
    assert a.coef_.to_dict() == b.coef_.to_dict() and a.intercept_ == b.intercept_
    assert a.describe() == b.describe()
    assert "the shipped zero-label penalty model" in a.describe()


def test_learn_prints_no_raw_numpy_warning(tmp_path, capsys):
    # issue 48 item 7: cross-validation folds holding only noPeaks labels have no AUC;
    # it was computed as 0/0 (NumPy's "invalid value encountered in divide", once per
    # fold and candidate on the console)
    import warnings

    n = 24  # more than 20: cross-validated (fewer: the prior shifted, no CV)
    folder = _folder(tmp_path, [f"s{i}" for i in range(n)], labels="")
    rows = []
    for i in range(n):
        rows.append((f"s{i}", "chr1", 0, 100, "noPeaks"))
        if i < 2:
            rows += [(f"s{i}", "chr1", 140, 160, "peakStart"), (f"s{i}", "chr1", 240, 260,
                                                                 "peakEnd")]
    (folder / "labels.txt").unlink()
    pd.DataFrame(rows, columns=["sample_id", "chrom", "chromStart", "chromEnd", "annotation"]
                 ).to_csv(folder / "labels.csv", index=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code, _, stderr = _learn(folder, tmp_path / "m.json", capsys)
    assert code == 0, stderr
    assert [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)] == []
    assert "RuntimeWarning" not in stderr and "invalid value" not in stderr
    assert PenaltyModel.load(tmp_path / "m.json").choice_["folds"] == 3
