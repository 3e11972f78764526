"""The order in which ``--dist loadfile`` hands out the tests (tests/_xdist_schedule.py)."""

from __future__ import annotations

from collections import OrderedDict

import _xdist_schedule as sched
from conftest import REPO


def test_listed_units_name_existing_files():
    """A renamed or deleted test file would silently lose its place in the order."""
    for unit in [*sched.PER_TEST, *sched.COSTS]:
        assert (REPO / unit.split("::", 1)[0]).is_file(), unit


def test_per_test_files_are_split_and_the_costliest_unit_goes_first(monkeypatch):
    s = sched.LongestFirst.__new__(sched.LongestFirst)  # no xdist session: only the queue
    nb = f"{sched.NOTEBOOK}[joint_peaks]"
    assert s._split_scope(nb) == nb
    assert s._split_scope("tests/core/test_checks.py::test_x[1]") == "tests/core/test_checks.py"
    s.workqueue = OrderedDict([("tests/a.py", {f"t{i}": False for i in range(100)}),
                               (nb, {nb: False}),
                               ("tests/test_docs.py", {"d": False})])
    handed = []
    monkeypatch.setattr(sched.LoadFileScheduling, "_assign_work_unit",
                        lambda self, node: handed.append(self.workqueue.popitem(last=False)[0]))
    for _ in range(3):
        s._assign_work_unit(None)
    # test_docs (listed: 120 s), a notebook (listed: 60 s), 100 tests of an unlisted file (30 s)
    assert handed == ["tests/test_docs.py", nb, "tests/a.py"]
    assert sched.unit_cost("tests/a.py", 100) == 100 * sched.SECONDS_PER_TEST


def test_two_tiers_the_readme_deselects_slow_and_ci_runs_it_after(pytestconfig):
    """Tier 1 (the README's command) deselects the `slow` tests through pyproject's
    addopts, never skips them; .ci/run runs them right after it with -m slow, the command
    the README names."""
    args = pytestconfig.getini("addopts")
    assert args[args.index("-m") + 1] == "not slow"
    assert any(m.startswith("slow: tier 2") for m in pytestconfig.getini("markers"))
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    readme_line = ci.index("# --- end README test command ---") - 1
    tier2 = "python -m pytest -q -n auto --dist loadfile -m slow"
    after = [ln for ln in ci[readme_line + 1:] if ln and not ln.startswith("#")]
    assert after[0].startswith("[ $? -eq 0 ]") and after[1] == tier2
    assert f"`{tier2}`" in " ".join((REPO / "README.md").read_text().split())
