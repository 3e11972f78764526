"""Fit time of ``learn_penalty`` on the 17 ChIP-seq sets pooled (about 5,000 sequences).

One command::

    python benchmarks/fit_speed.py [--data-dir DIR] [--ref main] [--learners boosting linear auto]

Each fit runs in a fresh process (``learn_penalty(X, evaluation, model=...)`` on the
sequences of every ChIP-seq set of ``_sets.CHIPSEQ``, the 26 features finite on every set,
defaults otherwise) and reports its wall and CPU seconds (``time.process_time``: the
machine may be shared, CPU seconds are steadier than wall seconds there), the chosen model
and the training AUC. The one-time import of scikit-learn (boosting's trees; 1–3 s CPU,
once per process) is timed apart, before the fit, and printed with each result. With
``--ref REF`` the same fit also runs on the code of git
revision ``REF`` (exported to a temporary folder), alternating with this tree's code, so
the two are measured side by side under the same load; the table gives the ratio. With
``--pretrain``, ``penlearn pretrain DATA_DIR --out MODEL`` is timed too (when the command
exists). Results go to RESULTS.md (``--write``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# PENLEARN_DATA, else the first shared/data beside an ancestor of the repository
DEFAULT_DATA = Path(os.environ.get("PENLEARN_DATA") or next(
    (a / "shared" / "data" for a in HERE.parents if (a / "shared" / "data").is_dir()),
    HERE.parent.parent / "shared" / "data"))

# the fit, in a fresh process whose PYTHONPATH is the code under test
_CHILD = r"""
import json, sys, time, warnings
import numpy as np, pandas as pd
from penlearn.datasets import load_uci
from penlearn.roc import roc_change
data, model, sets = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
fs, evs = [], []
for s in sets:
    ds = load_uci(f"{data}/{s}")
    fs.append(ds.inputs); evs.append(ds.evaluation)
X = pd.concat(fs)
X = X.loc[:, np.isfinite(X.to_numpy(float)).all(axis=0)]
ev = pd.concat(evs, ignore_index=True)
import penlearn
warnings.simplefilter("ignore")
i0, j0 = time.perf_counter(), time.process_time()
import sklearn.tree  # noqa: F401  boosting's one import, once per process: timed apart
imp_wall, imp_cpu = time.perf_counter() - i0, time.process_time() - j0
w0, c0 = time.perf_counter(), time.process_time()
m = penlearn.learn_penalty(X, ev, model=model, progress=False)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
auc = float(roc_change(ev, m.predict(X)).auc)
chosen = m.level_.get("model", model) if isinstance(getattr(m, "level_", None), dict) else model
print(json.dumps({"wall": wall, "cpu": cpu, "auc": auc, "chosen": chosen,
                  "import_wall": imp_wall, "import_cpu": imp_cpu,
                  "n": int(len(X)), "p": int(X.shape[1])}))
"""


def export_ref(ref: str, into: Path) -> Path:
    """The tracked files of git revision ``ref`` of this repository, in ``into``."""
    repo = HERE.parent
    archive = subprocess.run(["git", "-C", str(repo), "archive", ref], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_fit(code: Path, data: Path, model: str, sets: list[str]) -> dict:
    """One fit in a fresh process with ``code`` first on the path (see ``_CHILD``; ``-P``:
    not the working directory, which would put this tree's code before ``--ref``'s)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    out = subprocess.run([sys.executable, "-P", "-c", _CHILD, str(data), model, ",".join(sets)],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{model} fit failed: {out.stderr.strip()[-1500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_pretrain(code: Path, data: Path) -> dict | None:
    """Wall/CPU seconds of ``penlearn pretrain DATA --out MODEL`` (None: no such command)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-P", "-c", "import penlearn.cli as c, sys; sys.exit(c.main())",
                "pretrain", str(data), "--out", str(Path(tmp) / "model.json")]
        t0 = time.perf_counter()
        before = os.times()
        out = subprocess.run(argv, env=env, capture_output=True, text=True)
        after = os.times()
    if out.returncode:
        return None
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return {"wall": time.perf_counter() - t0, "cpu": cpu}


def main(argv=None) -> int:
    sys.path.insert(0, str(HERE))
    from _sets import CHIPSEQ
    from results_file import markdown_table, write_section

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--ref", default=None, help="also time this git revision, side by side")
    ap.add_argument("--learners", nargs="+", default=["boosting", "linear", "auto"])
    ap.add_argument("--sets", nargs="+", default=CHIPSEQ)
    ap.add_argument("--pretrain", action="store_true")
    ap.add_argument("--write", action="store_true", help="write the RESULTS.md section")
    a = ap.parse_args(argv)
    load0 = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        codes = [("this tree", HERE.parent)]
        if a.ref:
            codes.insert(0, (a.ref, export_ref(a.ref, Path(tmp))))
        for model in a.learners:
            row = {"learner": model}
            for name, code in codes:
                r = run_fit(code, a.data_dir, model, a.sets)
                row[f"{name} cpu s"] = round(r["cpu"], 1)
                row[f"{name} wall s"] = round(r["wall"], 1)
                row[f"{name} AUC"] = round(r["auc"], 4)
                if model == "auto":
                    row[f"{name} chose"] = r["chosen"]
                print(name, model, r, flush=True)
            if a.ref:
                row["cpu ratio"] = round(row[f"{a.ref} cpu s"] / row["this tree cpu s"], 2)
            rows.append(row)
        if a.pretrain:
            row = {"learner": "penlearn pretrain"}
            for name, code in codes:
                r = run_pretrain(code, a.data_dir)
                row[f"{name} cpu s"] = round(r["cpu"], 1) if r else "n/a"
                row[f"{name} wall s"] = round(r["wall"], 1) if r else "n/a"
            rows.append(row)
    load1 = os.getloadavg()
    lines = markdown_table(rows)
    print("\n".join(lines))
    if a.write:
        head = [
            "## fit_speed",
            "",
            f"`python benchmarks/fit_speed.py{' --ref ' + a.ref if a.ref else ''}` — "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()} "
            f"({os.cpu_count()} cores, {platform.processor() or platform.machine()}), "
            f"load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end. The machine "
            "is shared by 8 helpers working at the same time: wall seconds are inflated by "
            "the load; CPU seconds are steadier, and the ratio compares runs side by side "
            "(alternating, same load).",
            "",
            f"{len(a.sets)} ChIP-seq sets pooled, one fresh process per fit, defaults.",
            "",
        ]
        write_section("## fit_speed", "\n".join(head + lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
