"""How ``pytest -n auto --dist loadfile`` hands the test files to its workers.

pytest-xdist's ``loadfile`` sends whole files (each module-scoped fixture is computed once)
in the order of their number of tests, and a worker keeps what it was given: a long file
that starts last leaves the other worker idle until it ends. :class:`LongestFirst` (used
by ``tests/conftest.py`` for ``--dist loadfile`` only) changes two things and nothing that
a test sees:

- the order: the unit that costs most (rough CPU seconds listed in :data:`COSTS`; an
  unlisted file counts :data:`SECONDS_PER_TEST` per test) is handed out first, so that
  the short files fill the end (longest processing time first);
- the units: the tests of the files in :data:`PER_TEST` (whose tests share no fixture
  wider than a function) are units of their own, so that e.g. two long notebooks run on
  two workers at once.

Every test still runs exactly once, in its own worker process, with the same fixtures.
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

#: files whose every test is a unit of its own (no module- or class-scoped fixtures)
PER_TEST = ("tests/test_notebooks.py", "tests/peaks/test_peak_evaluation.py")

#: rough CPU seconds of the long units (prefix of a test id: a file, or a test of a
#: PER_TEST file), of both tiers (the README's command, tier 1, and ``-m slow``, tier 2):
#: from ``--durations=0`` of a whole run (benchmarks/RESULTS.md, "suite time (issue 48)"),
#: the wall seconds at load ~12 divided by ~5; only their order matters.
NOTEBOOK = "tests/test_notebooks.py::test_notebook_executes_and_shows_its_figures"
COSTS = {
    # tier 2
    "tests/peaks/test_peak_evaluation.py::test_h3k36me3_chunk1_end_to_end": 260,
    "tests/peaks/test_peak_evaluation.py::test_default_table_is_exact": 150,
    f"{NOTEBOOK}[": 60,  # chipseq_from_coverage reads chunk1's error functions (above)
    "tests/peaks/test_reliability.py": 45,  # a cold compile into a read-only mount
    "tests/core/test_compile_message.py": 40,  # the first demo, cold compiles
    "tests/peaks/test_peakseg_model.py": 35,
    # tier 1 (and the rest of tier 2)
    "tests/test_docs.py": 120,
    "tests/cli/test_peaks_outputs.py": 50,
    "tests/cli/test_adversarial_cli.py": 45,
    "tests/cli/test_cli.py": 40,  # the demo (shared with test_learn_models, test_browser)
    "tests/tune/test_tune_extrapolation.py": 35,
    "tests/tune/test_tune_estimator.py": 30,
    "tests/learn/test_few_labels.py": 30,
    "tests/cli/test_learn_models.py": 30,
    "tests/cli/test_resume.py": 30,
    "tests/peaks/test_joint_bruteforce.py": 20,
    "tests/peaks/test_joint_cut_modes.py": 20,
}

#: the cost of a test of an unlisted file
SECONDS_PER_TEST = 0.3


def unit_cost(unit: str, n_tests: int) -> float:
    """The expected seconds of a unit of work: the longest listed prefix, else by count.

    >>> unit_cost("tests/no_such_file.py", 10)
    3.0
    """
    listed = [p for p in COSTS if unit.startswith(p)]
    if listed:
        return COSTS[max(listed, key=len)]
    return SECONDS_PER_TEST * n_tests


class LongestFirst(LoadFileScheduling):
    """``--dist loadfile`` with the costliest unit first and :data:`PER_TEST` files split."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return nodeid if path in PER_TEST else path

    def _assign_work_unit(self, node) -> None:
        costliest = max(self.workqueue,
                        key=lambda unit: unit_cost(unit, len(self.workqueue[unit])))
        self.workqueue.move_to_end(costliest, last=False)
        super()._assign_work_unit(node)
