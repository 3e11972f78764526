"""The documentation: the mkdocs site builds in strict mode, every docstring example runs.

- ``mkdocs build --strict`` (the site of ``docs/`` with the API reference generated from the
  docstrings by mkdocstrings), run as documented (no ``--quiet``), must succeed without a
  single warning; the API page shows the options of ``learn_penalty`` / ``PenaltyModel``
  with their run-time defaults; and no Sphinx role
  (``:func:`...```) may show raw in its pages;
- the ``Examples`` of every module of the package run as doctests (the equivalent of
  ``pytest --doctest-modules penlearn``) and must all pass;
- every public name of ``penlearn.__all__`` has a numpydoc docstring with an ``Examples``
  section holding at least one example.
"""

from __future__ import annotations

import ast
import dataclasses
import doctest
import html
import importlib
import importlib.util
import inspect
import io
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import penlearn
from penlearn.learn.options import LearnOptions

REPO = Path(__file__).resolve().parents[1]
MODULES = sorted(m.name for m in pkgutil.walk_packages(penlearn.__path__, "penlearn.")
                 if not m.name.endswith("__main__"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    """The site built by ``mkdocs build --strict`` exactly as the docs say (no --quiet)."""
    site = tmp_path_factory.mktemp("docs") / "site"
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=REPO, capture_output=True, text=True, env=env, timeout=900,
    )
    return proc, site


def test_mkdocs_build_strict(built_site):
    proc, site = built_site
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    # not one warning, shown or hidden (the build is run without --quiet, as documented)
    assert "WARNING" not in proc.stderr + proc.stdout, proc.stderr
    # the API reference really holds the generated docs of the public functions
    api = "".join(p.read_text(encoding="utf-8") for p in (site / "api").rglob("*.html"))
    missing = [n for n, _ in _public_objects() if n not in api]
    assert not missing, f"public functions/classes absent from the API reference: {missing}"
    # the docstrings' Sphinx roles are rendered (docs/_ext/sphinx_roles.py), never shown raw
    raw = sorted(set(RAW_ROLE.findall(api)))
    assert not raw, f"{len(raw)} raw Sphinx roles in the built API pages, e.g. {raw[:5]}"
    assert api.count('class="autorefs autorefs-internal"') > 100  # they became links


def _rendered_signature(page: str, name: str) -> dict[str, object]:
    """Parameter → default (``inspect.Parameter.empty`` if none) of ``name(`` on a page."""
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    start = text.index(f"{name}(\n")
    body = text[start + len(name) + 1: text.index("\n)", start)]
    out: dict[str, object] = {}
    for line in body.splitlines():
        item = line.strip().rstrip(",")
        if not item or item in ("*", "/"):
            continue
        key, _, default = item.partition("=")
        out[key] = ast.literal_eval(default) if default else inspect.Parameter.empty
    return out


@pytest.mark.parametrize("name", ["learn_penalty", "PenaltyModel"])
def test_api_page_signature_is_the_runtime_signature(built_site, name):
    """The options built at run time from ``LearnOptions`` (``with_options``) are shown
    with their defaults on the API page (docs/_ext/learn_options.py), none as required."""
    proc, site = built_site
    assert proc.returncode == 0, proc.stderr
    page = (site / "api" / "learn" / "index.html").read_text(encoding="utf-8")
    shown = _rendered_signature(page, name)
    runtime = {p.name: p.default for p in inspect.signature(getattr(penlearn, name))
               .parameters.values()}
    assert shown == runtime
    options = {f.name: f.default for f in dataclasses.fields(LearnOptions)}
    assert {k: shown[k] for k in options} == options


RAW_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|data|obj|exc):(?:`|<code>)[^`<]*")


def _sphinx_roles_module():
    path = REPO / "docs" / "_ext" / "sphinx_roles.py"
    spec = importlib.util.spec_from_file_location("sphinx_roles", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sphinx_roles_become_autorefs_or_code():
    roles = _sphinx_roles_module()
    known = {"penlearn.aum.aum": "penlearn.aum.aum", "penlearn.line_search.blocks": "x.blocks"}
    text = ("See :func:`~penlearn.aum.aum`, :mod:`penlearn.line_search.blocks`, "
            ":py:class:`the model <penlearn.aum.aum>`, :mod:`tempfile` and :func:`aum()`.")
    out = roles.convert_roles(text, known.get)
    assert out == (
        'See <autoref identifier="penlearn.aum.aum" optional>`aum`</autoref>, '
        '<autoref identifier="x.blocks" optional>`penlearn.line_search.blocks`</autoref>, '
        '<autoref identifier="penlearn.aum.aum" optional>`the model`</autoref>, '
        "`tempfile` and `aum()`."
    )


@pytest.mark.parametrize("module", MODULES)
def test_doctests(module, monkeypatch, tmp_path):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
    for test in finder.find(mod, module):
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {module}:\n{out.getvalue()}"


def _public_objects():
    for name in penlearn.__all__:
        obj = getattr(penlearn, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            yield name, obj


@pytest.mark.parametrize("name", [n for n, _ in _public_objects()])
def test_public_name_has_numpydoc_example(name):
    obj = getattr(penlearn, name)
    doc = inspect.getdoc(obj)
    assert doc, f"penlearn.{name} has no docstring"
    assert doc.splitlines()[0].strip(), f"penlearn.{name}: the docstring needs a summary line"
    assert "\nExamples\n--------\n" in doc, f"penlearn.{name} has no numpydoc Examples section"
    examples = doc.split("\nExamples\n--------\n", 1)[1]
    assert ">>> " in examples, f"penlearn.{name}: the Examples section has no runnable example"
    # the example is found by doctest in the module that defines it (so it runs above)
    module = importlib.import_module(obj.__module__)
    found = doctest.DocTestFinder().find(module, obj.__module__)
    assert any(t.examples and t.name.endswith(f".{obj.__name__}") for t in found), (
        f"the example of penlearn.{name} is not collected as a doctest of {obj.__module__}"
    )


DOC_PAGES = sorted(p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md"))


def _python_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of a markdown page (```py blocks are shown, not run)."""
    blocks, cur = [], None
    for line in text.splitlines():
        if cur is None and line.strip() == "```python":
            cur = []
        elif cur is not None and line.strip() == "```":
            blocks.append("\n".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


@pytest.mark.parametrize("page", DOC_PAGES)
def test_docs_page_code_runs(page, monkeypatch, tmp_path, capsys):
    """Each page's ```python blocks run ALONE (a fresh namespace and folder each: a
    reader copies one block), without error."""
    blocks = _python_blocks((REPO / "docs" / page).read_text(encoding="utf-8"))
    if not blocks:
        return
    monkeypatch.setenv("MPLBACKEND", "Agg")
    for i, code in enumerate(blocks):
        folder = tmp_path / f"block{i + 1}"
        folder.mkdir()
        monkeypatch.chdir(folder)
        try:
            exec(compile(code, f"docs/{page} (block {i + 1})", "exec"),
                 {"__name__": "__docs__"})
        except Exception as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"docs/{page}, python block {i + 1} failed alone: {exc!r}\n{code}")


def _shown_blocks(text: str) -> list[str]:
    """The ```py fenced blocks of a markdown page: shown, not run (they read the user's
    files), yet each must stand alone: its imports and names its own."""
    return _fenced(text, "py")


def test_docs_shown_blocks_define_every_name_they_use(tmp_path):
    """Every ```py and ```python block of the docs and the README, alone: no undefined
    name (ruff's F821; issue 54: "In Python, with labels" used ``pl`` it never imported)."""
    files = []
    for page in [*(REPO / "docs").rglob("*.md"), REPO / "README.md"]:
        text = page.read_text(encoding="utf-8")
        for i, code in enumerate(_shown_blocks(text) + _python_blocks(text)):
            name = re.sub(r"\W", "_", page.relative_to(REPO).as_posix())
            path = tmp_path / f"{name}__block{i + 1}.py"
            path.write_text(code + "\n", encoding="utf-8")
            files.append(path)
    assert files
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated",
                           "--select", "F821", "--output-format", "concise",
                           *map(str, files)], capture_output=True, text=True)
    assert proc.returncode == 0, f"doc blocks that do not stand alone:\n{proc.stdout}"


def test_getting_started_example_prints_a_finite_aum(monkeypatch, tmp_path, capsys):
    """The Python example of getting-started.md prints its AUC and a finite AUM."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    blocks = _python_blocks((REPO / "docs" / "getting-started.md").read_text(encoding="utf-8"))
    printing = [b for b in blocks if "roc.aum" in b]
    assert len(printing) == 1
    exec(compile(printing[0], "docs/getting-started.md", "exec"), {"__name__": "__docs__"})
    out = capsys.readouterr().out
    match = re.search(r"AUC (\S+), AUM (\S+)", out)
    assert match, out
    auc, aum = float(match[1]), float(match[2])
    assert 0.5 < auc <= 1 and 0 < aum < float("inf"), out


def test_design_citations_point_into_docs_design():
    """Code, tests, notebooks and docs cite the design as ``docs/design.md §N`` and every
    cited section exists there; nothing cites a document outside the repository."""
    design = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", design, flags=re.M))
    assert sections >= {str(n) for n in range(1, 9)}
    files = [p for d in ("penlearn", "tests", "notebooks", "docs", "benchmarks")
             for p in (REPO / d).rglob("*") if p.suffix in {".py", ".md"}]
    files.append(REPO / "README.md")
    cited, stale = set(), []
    for path in files:
        text = path.read_text(encoding="utf-8")
        cited |= {(path.name, n) for n in re.findall(r"design\.md,? §(\d+)", text)}
        stale += [f"{path.relative_to(REPO)}: {m}" for m in re.findall(r"SPEC §\d+", text)]
    assert not stale, stale
    assert cited, "no citation of docs/design.md found"
    missing = sorted((f, n) for f, n in cited if n not in sections)
    assert not missing, f"citations of sections absent from docs/design.md: {missing}"


def _fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_readme_first_screen():
    """The README's two commands (the test one identical to .ci/run's), the genomics path
    in at most 15 command lines, links that resolve, and its claims as issue 39 wants."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    blocks = _fenced(readme, "bash")
    assert len(blocks) >= 3
    demo, tests, genomics = (b.strip() for b in blocks[:3])
    assert demo.endswith("penlearn demo") and "pip install" in demo
    ci_line = ci.split("# --- README test command (keep identical to README.md) ---\n")[1]
    assert tests == ci_line.splitlines()[0]
    commands = [ln for ln in genomics.splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(commands) <= 15
    used = {ln.split()[1] for ln in commands}
    assert {"peaks", "learn", "errors", "joint", "hub"} <= used
    assert "penlearn peaks coverage.bedGraph.gz --out peaks/" in commands  # no labels
    # every claim true: the default model, what is pure Python + NumPy
    assert 'model="auto"' in readme and "by default AUM gradient boosting" not in readme
    assert "line search is pure Python + NumPy" in readme and "numba" in readme
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (REPO / link).exists(), link
    assert len(readme.split()) < 800


def test_the_documented_notebook_commands_run(tmp_path):
    """docs/how-to/notebooks.md's two commands work with the test extra alone (issue 39:
    ``jupytext --execute`` needed nbconvert, which the extra does not install)."""
    page = (REPO / "docs" / "how-to" / "notebooks.md").read_text(encoding="utf-8")
    block = next(b for b in _fenced(page, "bash") if "jupytext --sync" in b)
    (tmp_path / "notebooks").mkdir()
    script = tmp_path / "notebooks" / "NAME.py"
    script.write_text("# %%\nprint(6 * 7)\n")
    bindir = Path(sys.executable).parent
    subprocess.run([str(bindir / "jupytext"), "--set-formats", "ipynb,py:percent",
                    str(script)], check=True, capture_output=True, timeout=120)
    for line in block.splitlines():
        command = line.split("#", 1)[0].split()
        exe = bindir / command[0]
        proc = subprocess.run([str(exe) if exe.exists() else command[0], *command[1:]],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (line, proc.stderr[-2000:])
    import json

    nb = json.loads((tmp_path / "notebooks" / "NAME.ipynb").read_text())
    assert nb["cells"][0]["outputs"][0]["text"] == ["42\n"]
