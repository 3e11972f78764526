"""The commands' output shape (issue 48, items 9 and 10): pages drawn whole, no curve for
a model without steps, short console lines, one figure said one way everywhere."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
from conftest import REPO

from penlearn.cli._common import plural
from penlearn.cli.demo import learned_line
from penlearn.datasets import simulate
from penlearn.learn import PenaltyModel
from penlearn.peaks.pretrained import load_pretrained
from penlearn.report import roc_change_report
from penlearn.report.joint_page import matrix_figure


def test_joint_page_title_is_whole_with_few_peaks():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    mat = pd.DataFrame({"chrom": ["chr1"], "chromStart": [10], "chromEnd": [20],
                        "a": [1], "b": [0]})
    res = SimpleNamespace(matrix=lambda kind: mat, samples=["a", "b"],
                          groups={"a": "a", "b": "b"})
    fig = matrix_figure(res)
    FigureCanvasAgg(fig).draw()
    box = fig.axes[0].title.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1


def test_report_of_a_model_without_steps_draws_no_learning_curve(tmp_path):
    from penlearn.changepoint.evaluation import error_functions
    from penlearn.changepoint.segmentation import segment_sequences

    data = simulate(6, seed=3, n_points=(60, 80))
    models, changes = segment_sequences(data.sequences, 4, progress=False)
    ev = error_functions(models, changes, data.labels)
    ids = pd.unique(ev["sequence_id"])
    model = PenaltyModel()  # a shifted prior's history: step 0 only, AUM / AUC 0
    model.coef_ = pd.Series([0.0], index=["x"])
    model.intercept_ = 1.0
    model.history_ = pd.DataFrame({"step": [0], "subtrain_aum": [0.0], "subtrain_auc": [0.0]})
    out = roc_change_report(ev, pd.Series(np.ones(len(ids)), index=ids), tmp_path / "r.html",
                            model=model)
    page = Path(out).read_text()
    assert "learning-curves-figure" not in page
    assert "took no gradient-descent step" in page


def test_console_lines_are_short_and_plural_right():
    m = PenaltyModel()
    m.coef_ = pd.Series([0.5, 0.0], index=["x", "y"])
    m.intercept_ = 1.0
    m.level_ = {"model": "boosting"}
    assert len(learned_line(m, "penlearn-demo/report.html").split()) <= 12
    assert plural(1, "sequence") == "1 sequence" and plural(2, "sample") == "2 samples"


def test_readme_says_what_the_cli_says():
    readme = (REPO / "README.md").read_text()
    prov = load_pretrained().provenance
    mean = prov.get("marks", prov)["leave_one_set_out"]["mean"]  # what the CLI prints
    assert f"{mean:.1f} % of labels wrong" in load_pretrained().note()
    assert f"mislabels {mean:.1f} %" in readme  # one figure, one rounding
    one_level = prov["leave_one_set_out"]["mean"]
    if "marks" in prov:
        assert f"{one_level:.1f} % with one level" in readme
    # hints to install an extra are quoted (square brackets are shell globs)
    for root in (REPO / "penlearn", REPO / "docs"):
        for path in root.rglob("*.[pm][yd]"):
            bad = re.findall(r"pip install (?:-e )?penlearn\[", path.read_text())
            assert not bad, f"{path}: unquoted pip install penlearn[...]"
    at = readme.index("mkdocs build")  # the docs need the test extra, and say so
    assert '".[test]"' in readme[at:at + 200]
