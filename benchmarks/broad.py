"""Issue 52 item 5, the labels' turf of ``--broad``: label errors on the labeled broad-mark
coverage of ``../shared/data/chipseq_raw/H3K36me3_TDH_other_chunk1`` (8 samples, 48
labels) for the rule of :mod:`penlearn.peaks.peakseg.broad` and its alternatives.

Rows: the model at the shipped broad level (``--broad`` before issue 52) and at that
level + δ, each as the model reports it and linked (``link_peaks``); then ``--broad``'s
rule (``broad_segments``: the broad level's calls plus the linked domains of the finer
model at broad + δ) for each δ; last, ``--broad`` as it ships (``predict_broad`` with
the finer level at the narrow level, −0.88, lowered where the coverage without the
finer model's narrow calls wants a lower penalty: ``despiked``).

    python benchmarks/broad.py [--data-dir ../shared/data] [--deltas=-0.72,-1.22,-1.72]

The simulated turf is ``python benchmarks/sensitivity.py --broad`` (and without
``--broad`` for the narrow mode); both are recorded in ``benchmarks/RESULTS.md``
("sensitivity, --broad").
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from penlearn.peaks.peakseg.broad import (  # noqa: E402
    TRIM_LEVEL_SHIFTS,
    broad_segments,
    link_peaks,
    predict_broad,
)
from penlearn.peaks.peakseg.calls import peak_calls  # noqa: E402
from penlearn.peaks.peakseg.evaluation import predict_peaks  # noqa: E402
from penlearn.peaks.peakseg.labels import peak_label_errors  # noqa: E402
from penlearn.peaks.pretrained import default_log_lambda, mark_offset  # noqa: E402


def _row(name: str, segs: pd.DataFrame, cov: pd.DataFrame, labels: pd.DataFrame,
         level_shifts: bool = True) -> str:
    calls = peak_calls(segs, cov, level_shifts=level_shifts)
    e = peak_label_errors(calls, labels)
    t = e.totals
    return (f"| {name} | {len(calls)} | {e.errors} of {len(labels)} | {int(t['fp'].sum())} "
            f"| {int(t['fn'].sum())} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    ap.add_argument("--deltas", default="-0.88,-1.38,-1.88")
    args = ap.parse_args(argv)
    k36 = Path(args.data_dir) / "chipseq_raw" / "H3K36me3_TDH_other_chunk1"
    cov = pd.read_csv(k36 / "coverage.csv.gz")
    labels = pd.read_csv(k36 / "labels.csv")
    t0 = time.process_time()
    print("| model | peaks | label errors | fp | fn |")
    print("|---|---|---|---|---|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the short-window notice
        windows, ll = default_log_lambda(cov, mark="broad")
        broad = predict_peaks(cov, log_penalty=ll, windows=windows, segments=True)
        print(_row("broad level (--broad before)", broad, cov, labels))
        print(_row("broad level, linked", link_peaks(broad), cov, labels))
        for d in (float(x) for x in args.deltas.split(",")):
            fine = predict_peaks(cov, log_penalty=ll + d, windows=windows, segments=True)
            print(_row(f"broad {d:+g}", fine, cov, labels))
            print(_row(f"broad {d:+g}, linked", link_peaks(fine), cov, labels))
            print(_row(f"--broad's rule, finer model at broad {d:+g}",
                       broad_segments(broad, fine), cov, labels), flush=True)
        finer = mark_offset(mark="narrow") - mark_offset(mark="broad")
        shipped = predict_broad(cov, log_penalty=ll, windows=windows, finer=finer,
                                penalty_of=lambda rows: default_log_lambda(
                                    rows, windows=windows, mark="broad")[1])
        print(_row(f"--broad as shipped (finer level {finer:+.2f}, despiked; no "
                   "level-shift trim)", shipped, cov, labels, level_shifts=TRIM_LEVEL_SHIFTS))
    print(f"\n{time.process_time() - t0:.1f} CPU s")


if __name__ == "__main__":
    main()
