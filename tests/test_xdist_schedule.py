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
