"""Every path a command writes is checked like ``--out``, before any work: the parts
folder ``OUT.penlearn-parts`` (never followed through a symbolic link, never a folder of
other files, its manifest read with bounds), ``--cache-dir``, the staging names of
atomic writes (within NAME_MAX for any valid output name) and the hub's assembly folder.
A refusal is one line naming the option or folder; no input or foreign folder changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import one_line_exit

from penlearn.atomic_files import (
    NAME_MAX,
    check_added_folder,
    check_file_name,
    check_output,
    check_outputs_apart,
    remove_tree,
    stage_prefix,
    staged_dir,
    staged_file,
    write_text_atomic,
)
from penlearn.cli.main import main


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (hashlib.sha1(p.read_bytes()).hexdigest()
                                         if p.is_file() else "dir")
            for p in sorted(Path(folder).rglob("*"))}


@pytest.fixture
def coverage(tmp_path):
    p = tmp_path / "in" / "s1.bedGraph"
    p.parent.mkdir()
    p.write_text("".join(f"chr1\t{10 * i}\t{10 * i + 10}\t{9 if 20 <= i < 30 else 1}\n"
                         for i in range(60)))
    return p


def _peaks(*args):
    return main(["peaks", *map(str, args), "--penalty", "5", "-q"])


# ------------------------------------------------------------------ the parts folder

def _victim(tmp_path) -> Path:
    v = tmp_path / "victim"
    v.mkdir()
    (v / "manifest.json").write_text('{"mine": true}\n')
    (v / "notes.txt").write_text("precious\n")
    return v


@pytest.mark.parametrize("target", ["folder", "file", "dangling", "self"])
def test_a_symlinked_parts_folder_is_refused_and_its_target_untouched(
        tmp_path, capsys, coverage, target):
    out = tmp_path / "peaks.bed"
    link = tmp_path / "peaks.bed.penlearn-parts"
    victim = _victim(tmp_path)
    before = _snapshot(victim)
    dest = {"folder": victim, "file": victim / "notes.txt", "dangling": tmp_path / "none",
            "self": link}[target]
    link.symlink_to(dest)
    for extra in ([], ["--no-resume"]):
        one_line_exit(capsys, _peaks(coverage, "--out", out, *extra), "parts folder",
                      "symbolic link")
        assert link.is_symlink() and _snapshot(victim) == before and not out.exists()


def test_a_parts_folder_of_other_files_is_refused_and_kept(tmp_path, capsys, coverage):
    out = tmp_path / "peaks.bed"
    parts = tmp_path / "peaks.bed.penlearn-parts"
    parts.mkdir()
    (parts / "thesis.tex").write_text("years of work\n")
    (parts / "sub").mkdir()
    before = _snapshot(parts)
    for extra in ([], ["--no-resume"]):
        one_line_exit(capsys, _peaks(coverage, "--out", out, *extra), "thesis.tex",
                      "not a parts folder")
        assert _snapshot(parts) == before and not out.exists()


def test_a_file_named_as_the_parts_folder_is_refused(tmp_path, capsys, coverage):
    out = tmp_path / "peaks.bed"
    (tmp_path / "peaks.bed.penlearn-parts").write_text("x")
    one_line_exit(capsys, _peaks(coverage, "--out", out), "parts folder", "not a folder")
    assert (tmp_path / "peaks.bed.penlearn-parts").read_text() == "x"


@pytest.mark.parametrize("manifest", [
    "[" * 200_000 + "]" * 200_000,           # nested beyond the recursion limit
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    "not json",
    "[1, 2]",
    '{"inputs": 3}',
    b"\xff\xfe\x00",
])
def test_an_unreadable_manifest_is_one_line_exit_1(tmp_path, capsys, coverage, manifest):
    out = tmp_path / "peaks.bed"
    parts = tmp_path / "peaks.bed.penlearn-parts"
    parts.mkdir()
    m = parts / "manifest.json"
    m.write_bytes(manifest if isinstance(manifest, bytes) else manifest.encode())
    one_line_exit(capsys, _peaks(coverage, "--out", out), "manifest.json", "--no-resume")
    assert not out.exists()
    assert _peaks(coverage, "--out", out, "--no-resume") == 0  # discarded, then a new run
    assert out.exists() and not parts.exists()


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_manifest_that_is_no_regular_file_is_refused_without_reading(
        tmp_path, capsys, coverage, kind):
    out = tmp_path / "peaks.bed"
    parts = tmp_path / "peaks.bed.penlearn-parts"
    parts.mkdir()
    m = parts / "manifest.json"
    if kind == "symlink":
        m.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(m)
    else:
        m.mkdir()
    one_line_exit(capsys, _peaks(coverage, "--out", out), "manifest.json")


def test_the_parts_folder_is_removed_after_a_run_and_a_symlink_never_followed(tmp_path):
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "a").write_text("a")
    link = tmp_path / "link"
    link.symlink_to(keep)
    remove_tree(link)
    assert not link.is_symlink() and (keep / "a").read_text() == "a"
    remove_tree(tmp_path / "missing")  # nothing to do
    f = tmp_path / "f"
    f.write_text("x")
    remove_tree(f)
    assert not f.exists()


def test_a_resumed_run_with_a_parts_folder_of_parts_only(tmp_path, coverage):
    out = tmp_path / "peaks.bed"
    assert _peaks(coverage, "--out", out) == 0
    first = out.read_text()
    parts = tmp_path / "peaks.bed.penlearn-parts"
    parts.mkdir()
    (parts / ".manifest.json.abc123.tmp").write_text("{")  # a killed write's leftover
    assert _peaks(coverage, "--out", out, "--force") == 0
    assert out.read_text() == first and not parts.exists()


# ------------------------------------------------------------------ staging names

@pytest.mark.parametrize("n", [200, 240, 250, NAME_MAX])
def test_a_long_valid_output_name_is_written(tmp_path, capsys, coverage, n):
    name = "p" * (n - 4) + ".bed"
    out = tmp_path / name
    assert _peaks(coverage, "--out", out) == 0, capsys.readouterr().err
    assert out.read_text().count("\n") >= 1
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert len(stage_prefix(out).encode()) + 18 <= NAME_MAX


def test_a_long_output_name_with_means_beside_it(tmp_path, capsys, coverage):
    out = tmp_path / ("q" * 251 + ".bed")
    assert _peaks(coverage, "--out", out, "--means", "bedGraph") == 0, capsys.readouterr().err
    means = [p for p in tmp_path.iterdir() if p.name.endswith(".bedGraph")]
    assert out.exists() and len(means) == 1 and means[0].read_text().count("\n") >= 3


@pytest.mark.parametrize("name", ["é" * 127 + "x", "x" * 255, "a.b" * 85])
def test_every_atomic_writer_stages_a_long_name(tmp_path, name):
    write_text_atomic(tmp_path / name, "a")
    with staged_file(tmp_path / name) as tmp:
        tmp.write_text("b")
    assert (tmp_path / name).read_text() == "b"
    (tmp_path / name).unlink()
    for replace in (False, True, True):  # True twice: the second swaps an existing folder
        with staged_dir(tmp_path / name, replace=replace) as tmp:
            (tmp / "f").write_text(str(replace))
    assert (tmp_path / name / "f").read_text() == "True"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("out", ["x" * 256, "y" * 300 + "/peaks.bed", "é" * 128])
def test_a_name_too_long_is_refused_before_any_work(tmp_path, capsys, coverage, out):
    code = _peaks(coverage, "--out", tmp_path / out)
    one_line_exit(capsys, code, "--out", "bytes long")


def test_staged_dir_replacing_a_symlinked_folder_removes_the_link_only(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("k")
    out = tmp_path / "out"
    out.symlink_to(target)
    with staged_dir(out, replace=True) as tmp:
        (tmp / "new").write_text("n")
    assert out.is_dir() and not out.is_symlink() and (out / "new").exists()
    assert (target / "keep").read_text() == "k"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "target"]


# ------------------------------------------------------------------ --cache-dir

@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "labels.bed").write_text("chr1\t0\t100\tpeaks\n")
    (d / "s1.bedGraph").write_text("chr1\t0\t100\t1\n")
    return d


def _learn(folder, out, cache, *extra):
    return main(["learn", str(folder), "--out", str(out), "--cache-dir", str(cache), "-q",
                 *extra])


def test_cache_dir_inside_an_input_folder_is_refused(tmp_path, capsys, folder):
    before = _snapshot(folder)
    for cache in (folder / "cache", folder, folder / "a" / "b"):
        one_line_exit(capsys, _learn(folder, tmp_path / "m.json", cache), "--cache-dir",
                      "input")
        assert _snapshot(folder) == before
    link = tmp_path / "c"
    link.symlink_to(folder)  # into the input through a symlink
    one_line_exit(capsys, _learn(folder, tmp_path / "m.json", link), "--cache-dir", "input")
    assert _snapshot(folder) == before and not (tmp_path / "m.json").exists()


def test_cache_dir_a_file_or_the_output_is_refused_before_any_work(tmp_path, capsys, folder):
    f = tmp_path / "file"
    f.write_text("x")
    one_line_exit(capsys, _learn(folder, tmp_path / "m.json", f), "--cache-dir",
                  "not a folder")
    assert f.read_text() == "x"
    m = tmp_path / "m.json"
    one_line_exit(capsys, _learn(folder, m, m), "--cache-dir", "--out", "same path")
    one_line_exit(capsys, _learn(folder, m, m / "cache"), "--cache-dir", "inside --out")
    one_line_exit(capsys, _learn(folder, m, ""), "--cache-dir", "empty")
    one_line_exit(capsys, _learn(folder, m, tmp_path / ("c" * 300)), "--cache-dir",
                  "bytes long")
    assert not m.exists()


def test_checkers_directly():
    check_outputs_apart({"--out": "a/m.json", "--cache-dir": "a"}, folders=["--cache-dir"])
    with pytest.raises(ValueError, match="--out a/m.json is inside --cache-dir a"):
        check_outputs_apart({"--out": "a/m.json", "--cache-dir": "a"})
    check_outputs_apart({"--out": None, "--cache-dir": "a"})
    with pytest.raises(ValueError, match="--cache-dir"):
        check_added_folder("/dev/null", "--cache-dir")
    with pytest.raises(ValueError, match="the parts folder"):
        check_output(Path("z" * 300), directory=True, option="the parts folder")


# ------------------------------------------------------------------ hub --genome

@pytest.mark.parametrize("genome, needle", [
    (".", "'.' and '..'"), ("..", "'.' and '..'"), ("h" * 300, "bytes long"),
    ("a/b", "path separator"), ("", "empty"), ("hg 19", "UCSC assembly"),
    ("../../etc", "path separator")])
def test_hub_genome_is_checked_before_any_work(tmp_path, capsys, coverage, genome, needle):
    pytest.importorskip("pybigtools", reason="pybigtools (extra penlearn[hub]) not installed")
    peaks = tmp_path / "p.bed"
    peaks.write_text("chr1\t200\t300\n")
    code = main(["hub", str(coverage), str(peaks), "--genome", genome, "--out",
                 str(tmp_path / "hub"), "-q"])
    one_line_exit(capsys, code, "--genome", needle)
    assert not (tmp_path / "hub").exists()


def test_check_file_name_refuses_non_names():
    for bad in (".", "..", "", " ", "a/b", "a\0b", "x" * 256):
        with pytest.raises(ValueError, match="--genome"):
            check_file_name(bad, "--genome")
    check_file_name("x" * 255, "--genome")
