"""Issue 52 item 1: the narrow rule's shift δ on the whole sensitivity suite.

For each δ, ``benchmarks/sensitivity.py`` (same options) with ``penlearn callpeak`` at its
defaults but the narrow rule's δ set to that value (``benchmarks/_rule_runner.py``: the
shipped ``ZeroLabelModel.shift`` replaced, the q-value cutoff of the file kept)::

    python benchmarks/narrow_rule.py --deltas=-1.5,-2,-2.5,-3 [sensitivity.py options]

Rows as sensitivity.py's (``--json`` / ``--null`` as there), the tool named
``penlearn δ=D``; each δ's rows also go to ``FILE.D.json`` with ``--json FILE``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import sensitivity as S  # noqa: E402

_commands = S.commands


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    deltas = ["-2"]
    for a in list(argv):
        if a.startswith("--deltas="):
            deltas = a.split("=", 1)[1].split(",")
            argv.remove(a)
    out = None
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
    for d in deltas:
        def commands(tool, *a, _d=d):
            cmd = _commands(tool, *a)
            if tool == "penlearn":
                assert cmd[1:3] == ["-m", "penlearn.cli"]
                cmd = [cmd[0], str(HERE / "_rule_runner.py"), _d] + cmd[3:]
            return cmd
        S.commands = commands
        sub = list(argv)
        if out:
            sub[sub.index("--json") + 1] = f"{out}.{d}.json"
        print(f"\n### δ = {d}\n", flush=True)
        S.main(sub)
        if out:
            rows = json.loads(Path(f"{out}.{d}.json").read_text())
            for r in rows:
                if r["tool"].startswith("penlearn"):
                    r["tool"] = r["tool"].replace("penlearn", f"penlearn δ={d}", 1)
            Path(f"{out}.{d}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
