"""The notebooks: generated from notebooks/build_notebooks.py, stored without outputs, and
each one executes from top to bottom (nbclient, a python3 kernel of this very Python) on the
real data without a single error.

The notebooks compute every number they show with penlearn, and check several of them
against brute force or the reference tables in their own cells (``assert``), so a run
that completes is a real check.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

import nbclient
import nbformat
import pytest
from conftest import DATA, REPO, need

NB_DIR = REPO / "notebooks"
NOTEBOOKS = {
    "line_search_explained.ipynb": ["neuroblastoma/profiles.csv.gz"],
    "neuroblastoma_pipeline.ipynb": ["neuroblastoma/profiles.csv.gz"],
    "chipseq_penalty_learning.ipynb": ["H3K4me3_TDH_immune"],
    "chipseq_from_coverage.ipynb": ["chipseq_raw/H3K36me3_TDH_other_chunk1/coverage.csv.gz"],
    "tune_ruptures.ipynb": [],  # simulated signals only
}
TIMEOUT = 300  # seconds per cell
# Notebooks written as jupytext percent scripts (notebooks/NAME.py) paired with NAME.ipynb,
# stored without outputs; the script is the source (``jupytext --sync notebooks/NAME.py``).
PAIRED = {"joint_peaks": ["chipseq_raw/H3K36me3_TDH_other_chunk1/coverage.csv.gz"]}


def _generator():
    spec = importlib.util.spec_from_file_location("build_notebooks", NB_DIR / "build_notebooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_notebooks_are_generated_and_stored_without_outputs():
    gen = _generator()
    assert sorted(gen.NOTEBOOKS) == sorted(NOTEBOOKS)
    for name in NOTEBOOKS:
        stored = nbformat.read(NB_DIR / name, as_version=4)
        nbformat.validate(stored)
        for cell in stored.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [], f"{name}: a code cell is stored with outputs"
                assert cell.execution_count is None, f"{name}: stored with execution counts"
        built = gen.build(name, gen.NOTEBOOKS[name])
        # same cells (type, source) and kernel as the generator makes them
        assert [(c.cell_type, c.source) for c in built.cells] == [
            (c.cell_type, c.source) for c in stored.cells
        ], f"{name} differs from notebooks/build_notebooks.py: run it to regenerate"
        assert stored.metadata["kernelspec"]["name"] == "python3"


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
@pytest.mark.parametrize("name", list(NOTEBOOKS) + [f"{n}.py" for n in PAIRED])
def test_notebook_executes(name, tmp_path, monkeypatch):
    for rel in NOTEBOOKS[name] if name in NOTEBOOKS else PAIRED[name[:-3]]:
        need(DATA / rel)
    # the kernel inherits the environment: the same data folder as the tests
    monkeypatch.setenv("PENLEARN_DATA", str(DATA))
    if name.endswith(".py"):  # a paired notebook: its percent script is the source
        import jupytext  # the test extra holds it
        nb = jupytext.read(NB_DIR / name)
    else:
        nb = nbformat.read(NB_DIR / name, as_version=4)
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
    print(f"{name}: executed in {seconds:.1f} s")


@pytest.mark.parametrize("name", list(PAIRED))
def test_paired_notebook_in_sync_and_stored_without_outputs(name):
    import jupytext  # the test extra holds it
    stored = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(stored)
    assert all(c.outputs == [] and c.execution_count is None
               for c in stored.cells if c.cell_type == "code"), f"{name}.ipynb has outputs"
    script = jupytext.read(NB_DIR / f"{name}.py")
    assert [(c.cell_type, c.source) for c in script.cells] == [
        (c.cell_type, c.source) for c in stored.cells
    ], f"{name}.ipynb differs from {name}.py: run `jupytext --sync notebooks/{name}.py`"
