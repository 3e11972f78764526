"""The model-path cache of ``penlearn learn`` / ``report`` under hostile conditions: a
read-only or unwritable cache folder, a cache "folder" that is a file, truncated, garbage or
empty cache files, coverage changed after caching. The model learned is always the one
learned without a cache."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest
from _hostile import ERROR, check_cases, peak_folder, run_cli


def _coef(path: Path) -> list:
    return json.loads(path.read_text())["coef"]


def _cache_cases(tmp: Path):
    folder = peak_folder(tmp / "cached")
    ref = tmp / "ref.json"
    run_cli(["learn", folder, "--out", ref, "--no-cache", "-q"])
    ro = tmp / "ro-cache"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)

    def learn(out, cache_dir, env=None):
        old = os.environ.get("PENLEARN_CACHE_DIR")
        if env is not None:
            os.environ["PENLEARN_CACHE_DIR"] = str(env)
        try:
            extra = ["--cache-dir", cache_dir] if cache_dir else []
            run_cli(["learn", folder, "--out", out, "-q", *extra])
        finally:
            if env is not None:
                if old is None:
                    os.environ.pop("PENLEARN_CACHE_DIR")
                else:
                    os.environ["PENLEARN_CACHE_DIR"] = old
        return _coef(out)

    same = lambda c: c == _coef(ref)  # noqa: E731
    yield ("learn PENLEARN_CACHE_DIR read-only",
           lambda: learn(tmp / "c1.json", None, env=ro), same)
    yield ("learn --cache-dir read-only", lambda: learn(tmp / "c2.json", ro), same)
    # as root a read-only mode is not enforced: /proc refuses every new folder, even root's
    yield ("learn PENLEARN_CACHE_DIR unwritable (/proc)",
           lambda: learn(tmp / "c2p.json", None, env="/proc/penlearn-cache"), same)
    cdir = tmp / "cache"
    yield "learn cache store", lambda: learn(tmp / "c3.json", cdir), same
    yield "learn cache hit", lambda: learn(tmp / "c4.json", cdir), same

    def tamper(how):
        def run():
            files = [p for p in cdir.rglob("*") if p.is_file()]
            if not files:
                raise RuntimeError("no cache file was written")
            for p in files:
                data = p.read_bytes()
                p.write_bytes(data[: len(data) // 3] if how == "truncate"
                              else b"" if how == "empty" else b"\x00garbage" * 50)
            return learn(tmp / f"c-{how}.json", cdir)
        return run

    for how in ("truncate", "garbage", "empty"):
        yield f"learn cache file {how}", tamper(how), same

    def changed():
        learn(tmp / "c5.json", cdir)
        cov = pd.read_csv(folder / "coverage.csv")
        cov.loc[cov["sample_id"] == "s1", "count"] = 3  # s1 loses its peak
        cov.to_csv(folder / "coverage.csv", index=False)
        run_cli(["learn", folder, "--out", tmp / "c6-ref.json", "--no-cache", "-q"])
        return learn(tmp / "c6.json", cdir) == _coef(tmp / "c6-ref.json")

    yield "learn cache after changed coverage", changed, lambda ok: ok is True
    yield ("learn --cache-dir a file",  # an input file, inside the input: refused
           lambda: learn(tmp / "c7.json", folder / "labels.csv"), ERROR)


@pytest.mark.slow  # 12 learn runs on a small coverage folder
def test_learn_cache_never_changes_the_model(tmp_path):
    check_cases(_cache_cases(tmp_path), at_least=10)
