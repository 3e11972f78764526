"""The notebooks: jupytext percent scripts paired with ``.ipynb`` files, each executed.

Each notebook of ``notebooks/`` is written as a reviewable Python script in jupytext's
percent format (``notebooks/NAME.py``) paired with ``NAME.ipynb`` (stored without
outputs); ``jupytext --sync notebooks/NAME.py`` updates the notebook after an edit.

- the pair is in sync (same cells, in order) and the notebook is stored without outputs;
- every notebook executes from top to bottom (nbclient, a python3 kernel of this very
  Python) on the real data without a single error;
- every cell that draws a figure shows an image (a figure that is made but never shown,
  e.g. one not attached to pyplot whose cell ends with ``;``, fails).

The notebooks compute every number they show with penlearn, and check several of them
against brute force or the reference tables in their own cells (``assert``), so a run
that completes is a real check.
"""

from __future__ import annotations

import ast
import json
import sys
import time
from pathlib import Path

import jupytext
import nbclient
import nbformat
import pytest
from conftest import DATA, REPO, error_functions_cache, error_functions_once, need

import penlearn as pl

NB_DIR = REPO / "notebooks"
# The data each notebook reads (skipped with a reason when absent; CI requires them).
DATA_NEEDS = {
    "line_search_explained": ["neuroblastoma/profiles.csv.gz"],
    "neuroblastoma_pipeline": ["neuroblastoma/profiles.csv.gz"],
    "chipseq_penalty_learning": ["H3K4me3_TDH_immune"],
    "chipseq_from_coverage": ["chipseq_raw/H3K36me3_TDH_other_chunk1/coverage.csv.gz"],
    "tune_ruptures": [],  # simulated signals only
    "joint_peaks": ["chipseq_raw/H3K36me3_TDH_other_chunk1/coverage.csv.gz"],
    "chipseq_learning_pays": ["chipseq_raw/H3K36me3_TDH_other_chunk1/coverage.csv.gz"],
}
TIMEOUT = 300  # seconds per cell


def _chunk1_error_functions() -> None:
    folder = DATA / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
    error_functions_once(pl.read_coverage(folder / "coverage.csv.gz"),
                         pl.read_peak_labels(folder / "labels.csv"))


# What a notebook computes that a test computes too: done once per test run (the kernel
# reads it from the run's cache, $PENLEARN_CACHE_DIR, as _setup.CACHE says).
COMPUTED_ONCE = {
    "chipseq_from_coverage": _chunk1_error_functions,  # test_h3k36me3_chunk1_end_to_end's
}


def _is_script(path: Path) -> bool:
    head = path.read_text(encoding="utf-8")[:600]
    return head.startswith("# ---\n# jupyter:") and "format_name: percent" in head


SCRIPTS = sorted(p for p in NB_DIR.glob("*.py") if _is_script(p))
NAMES = [p.stem for p in SCRIPTS]


def test_every_notebook_has_its_script():
    assert {"chipseq_from_coverage", "tune_ruptures"} <= set(NAMES)
    stems = sorted(p.stem for p in NB_DIR.glob("*.ipynb"))
    assert stems == NAMES, "each notebooks/NAME.ipynb is paired with a percent script NAME.py"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_in_sync_with_its_script_and_stored_without_outputs(name):
    stored = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(stored)
    for cell in stored.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name}.ipynb: a code cell is stored with outputs"
            assert cell.execution_count is None, f"{name}.ipynb: stored with execution counts"
    script = jupytext.read(NB_DIR / f"{name}.py")
    assert [(c.cell_type, c.source) for c in script.cells] == [
        (c.cell_type, c.source) for c in stored.cells
    ], f"{name}.ipynb differs from {name}.py: run `jupytext --sync notebooks/{name}.py`"
    assert stored.metadata["kernelspec"]["name"] == "python3"
    assert stored.metadata.get("jupytext", {}).get("formats") == "ipynb,py:percent", (
        f"{name}.ipynb is not paired: run `jupytext --set-formats ipynb,py:percent "
        f"notebooks/{name}.py`")


# --- which cells draw a figure --------------------------------------------------------

FIGURE_MAKERS = {"subplots", "figure", "subplot_mosaic"}  # plt.<these>(...)


def _call_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _draws(tree: ast.AST, drawing_functions: set[str]) -> bool:
    """True when ``tree`` calls a figure maker, a ``plot_*`` function or a drawing helper."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name and (name in FIGURE_MAKERS or name.startswith("plot_")
                         or name in drawing_functions):
                return True
    return False


def _python(source: str) -> ast.Module:
    """A cell's source as Python (IPython magics and shell lines dropped)."""
    return ast.parse("\n".join(line for line in source.splitlines()
                               if not line.lstrip().startswith(("%", "!"))))


def plotting_cells(nb) -> list[int]:
    """Indices of the code cells that draw a figure when run (outside function bodies).

    A function defined in an earlier cell that draws (``def browser(...): fig, ax =
    plt.subplots()``) makes the cells that call it drawing cells too.
    """
    drawing_functions: set[str] = set()
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tree = _python(cell.source)
        top = ast.Module(body=[], type_ignores=[])
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef):
                if _draws(stmt, drawing_functions):
                    drawing_functions.add(stmt.name)
            else:
                top.body.append(stmt)
        if _draws(top, drawing_functions):
            found.append(i)
    return found


def test_plotting_cells_are_found():
    """The detector behind the image check finds drawing cells, and only those."""
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%matplotlib inline\nimport matplotlib.pyplot as plt"),
        nbformat.v4.new_code_cell("def draw(x):\n    fig, ax = plt.subplots()\n    return fig"),
        nbformat.v4.new_code_cell("fig = draw(1)"),
        nbformat.v4.new_code_cell("display(penlearn.plotting.plot_roc(r))"),
        nbformat.v4.new_code_cell("x = sorted([3, 1])\nx"),
        nbformat.v4.new_markdown_cell("plt.subplots()"),
    ])
    assert plotting_cells(nb) == [2, 3]
    for name in NAMES:  # every notebook draws something
        assert plotting_cells(jupytext.read(NB_DIR / f"{name}.py")), name


def _kernel_manager(tmp_path: Path):
    """A python3 kernel that runs *this* interpreter (the venv where penlearn is installed)."""
    import ipykernel  # noqa: F401  (the kernel below runs it: it must be in this venv)
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    kdir = tmp_path / "kernels" / "python3"
    kdir.mkdir(parents=True)
    (kdir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (penlearn tests)",
        "language": "python",
    }))
    ksm = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")], ensure_native_kernel=False)
    return KernelManager(kernel_name="python3", kernel_spec_manager=ksm)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes_and_shows_its_figures(name, tmp_path, monkeypatch):
    for rel in DATA_NEEDS.get(name, []):
        need(DATA / rel)
    # the kernel inherits the environment: the same data folder as the tests
    monkeypatch.setenv("PENLEARN_DATA", str(DATA))
    if name in COMPUTED_ONCE:
        COMPUTED_ONCE[name]()
        monkeypatch.setenv("PENLEARN_CACHE_DIR", str(error_functions_cache()))
    nb = jupytext.read(NB_DIR / f"{name}.py")  # the script is the source (in sync, above)
    client = nbclient.NotebookClient(
        nb,
        km=_kernel_manager(tmp_path),
        timeout=TIMEOUT,
        resources={"metadata": {"path": str(NB_DIR)}},
    )
    start = time.perf_counter()
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{name} failed:\n{exc}")
    seconds = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, f"{name}: error outputs {errors}"
    ran = [c for c in nb.cells if c.cell_type == "code"]
    assert ran and all(c.execution_count is not None for c in ran), f"{name}: cells not run"
    blank = [i for i in plotting_cells(nb)
             if not any("image/png" in o.get("data", {}) for o in nb.cells[i].outputs)]
    assert not blank, (f"{name}: cells that draw a figure but show no image: "
                       + "; ".join(nb.cells[i].source.splitlines()[-1] for i in blank))
    print(f"{name}: executed in {seconds:.1f} s")
