"""How long the labeling page's "Next" takes (``penlearn propose``'s rule on the page's
exact paths and sketches, :mod:`penlearn.label.proposals`).

Cases: chipseq_raw/H3K36me3_TDH_other_chunk1 (8 samples, windows of 34,100 bases as the
browser test: 10 windows) and 8 samples x 1 Mb (chipseq_raw/deltarod_PeakSegDisk's
chr1:14,000,000-15,000,000 taken 8 times, as ``benchmarks/label_round_trip.py``) in the
page's default 200 kb windows; and a big input: 8 samples x deltarod's 3.4 Mb of chr1 in
1 Mb windows (about 30,000 rows per sample and window). Paths bounded at 10 peaks (the
browser test's).

- ``cold``: the first window shown and Next pressed at once (its paths still being
  computed, nothing sketched ahead): the press solves up to ``SKETCH_ROWS`` rows itself;
- ``ready``: the first press once the path worker has sketched ahead (a user looking at
  the first window for that long);
- ``after a label``: each later press right after a label in the window in view (the
  likely shifts moved: new points to solve), the background learner waited for, not
  the sketches;
- ``ahead``: the path worker's sketching after the first window (wall, until done).

Wall and CPU seconds of the process (all threads: the path worker's solves meanwhile
count) per press.

    python benchmarks/label_next.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from penlearn.datasets.locate import data_folder
from penlearn.label.state import LabelState
from penlearn.peaks.formats.coverage import read_coverage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from label_round_trip import eight_samples  # noqa: E402

DATA = data_folder() / "chipseq_raw"


def _cases():
    chunk = read_coverage(DATA / "H3K36me3_TDH_other_chunk1")
    yield "chunk1, 8 samples, 34.1 kb windows", chunk, 34_100
    yield "8 samples x 1 Mb, 200 kb windows", eight_samples(), 200_000
    whole = read_coverage(DATA / "deltarod_PeakSegDisk/coverage.bedGraph.gz")
    whole = pd.concat([whole.assign(sample_id=f"s{k}") for k in range(8)], ignore_index=True)
    yield "8 samples x 3.4 Mb, 1 Mb windows", whole, 1_000_000


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _label(st: LabelState, window: int) -> None:
    w = st.windows.iloc[window]
    a, n = int(w["chromStart"]), int(w["chromEnd"] - w["chromStart"])
    st.add_label(str(w["chrom"]), a + n // 3, a + n // 3 + n // 20, "noPeaks", st.samples)
    st.wait_learning()


def _run(name: str, cov: pd.DataFrame, window_bases: int) -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        st = LabelState(cov, Path(tmp) / "cold.csv", window_bases=window_bases, max_peaks=10)
        st.view(0)
        nxt, wall, cpu = _timed(lambda: st.next_window(0))
        rows.append(f"| {name} | cold first press | {wall:.2f} | {cpu:.2f} |")
        st.next.wait()
        st.close()
        st = LabelState(cov, Path(tmp) / "ready.csv", window_bases=window_bases, max_peaks=10)
        st.view(0)
        _, wall, cpu = _timed(lambda: ([st.path(s, 0) for s in st.samples],
                                       st.next.wait()))
        rows.append(f"| {name} | paths of window 1, then sketching ahead ({len(st.windows)} "
                    f"windows) | {wall:.2f} | {cpu:.2f} |")
        nxt, wall, cpu = _timed(lambda: st.next_window(0))
        rows.append(f"| {name} | first press, sketched ahead | {wall:.2f} | {cpu:.2f} |")
        walls, cpus = [], []
        while nxt.window is not None:
            st.view(nxt.window)
            _label(st, nxt.window)
            nxt, wall, cpu = _timed(lambda w=nxt.window: st.next_window(w))
            walls.append(wall)
            cpus.append(cpu)
        rows.append(f"| {name} | {len(walls)} later presses, each right after a label: "
                    f"median (max) | {statistics.median(walls):.2f} ({max(walls):.2f}) | "
                    f"{statistics.median(cpus):.2f} ({max(cpus):.2f}) |")
        st.close()
    return rows


def main() -> int:
    out = ["| case | press | wall (s) | CPU (s) |", "|---|---|---|---|"]
    for name, cov, bases in _cases():
        out += _run(name, cov, bases)
    print("\n".join(out))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
