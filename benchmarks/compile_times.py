"""CPU and wall seconds of the first compilation of each family of numba kernels (an
empty numba cache), beside the estimate the announcement prints
(``penlearn._numba_cache.COMPILE_SECONDS`` at the load of the moment, ``compile_eta``)::

    python benchmarks/compile_times.py

One family at a time, each in a fresh process with a fresh ``NUMBA_CACHE_DIR``; the
CPU seconds are the compiling process's (``time.process_time``, after its imports).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

WARM = {
    "coverage reader": "from penlearn.peaks.formats.coverage import _warm_parsers as w; "
                       "go = lambda: w()",
    "PeakSeg": "from penlearn.peaks.peakseg._store import warm as w; "
               "go = lambda: w(say=False)",
    "segmentation": "from penlearn.changepoint._fp_segment import warm as w; "
                    "go = lambda: w(say=False)",
    "joint peak": "from penlearn.peaks.joint.solver import warm as w; "
                  "go = lambda: w(say=False)",
}

CHILD = r'''
import json, os, sys, time
{imports}
from penlearn._numba_cache import COMPILE_SECONDS, compile_eta
load = os.getloadavg()[0]
c0, t0 = time.process_time(), time.perf_counter()
go()
print(json.dumps({{"cpu": time.process_time() - c0, "wall": time.perf_counter() - t0,
                  "load": load, "constant": COMPILE_SECONDS[{name!r}],
                  "eta": compile_eta(COMPILE_SECONDS[{name!r}], load)}}))
'''


def main() -> None:
    rows = []
    for name, imports in WARM.items():
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            out = subprocess.run([sys.executable, "-c", CHILD.format(imports=imports,
                                                                     name=name)],
                                 env=env, capture_output=True, text=True, check=True)
        rows.append((name, json.loads(out.stdout.strip().splitlines()[-1])))
    print("| kernels | compile CPU (s) | wall (s) | load | COMPILE_SECONDS | estimate said (s) |")
    print("|---|---|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['cpu']:.1f} | {r['wall']:.1f} | {r['load']:.1f} | "
              f"{r['constant']:.0f} | {r['eta']:.0f} |")


if __name__ == "__main__":
    main()
