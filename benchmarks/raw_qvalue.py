"""Issue 52 item 1, the labels' turf of the lowered penalty filtered by the q-value: label
errors on the labeled raw coverages of ``../shared/data/chipseq_raw`` (Mono27ac, a narrow
mark, 6 labels; H3K36me3_TDH_other_chunk1, a broad one, 48 labels) at the shipped
zero-label log λ plus δ, with and without the peaks of q-value > 0.05 dropped
(``penlearn peaks --qvalue 0.05``'s rule).

    python benchmarks/raw_qvalue.py [--data-dir ../shared/data] [--deltas 0,-1,-2,-3]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from penlearn.peaks.formats.coverage import read_bedgraph  # noqa: E402
from penlearn.peaks.formats.peak_columns import significant  # noqa: E402
from penlearn.peaks.peakseg.calls import peak_calls  # noqa: E402
from penlearn.peaks.peakseg.evaluation import predict_peaks  # noqa: E402
from penlearn.peaks.peakseg.labels import peak_label_errors  # noqa: E402
from penlearn.peaks.pretrained import default_log_lambda  # noqa: E402


def _sets(raw: Path) -> dict:
    mono = raw / "Mono27ac"
    k36 = raw / "H3K36me3_TDH_other_chunk1"
    return {"Mono27ac": (read_bedgraph(mono / "coverage.bedGraph.gz").assign(sample_id="s"),
                         pd.read_csv(mono / "labels.csv").assign(sample_id="s"), "narrow"),
            "H3K36me3_TDH_other_chunk1": (pd.read_csv(k36 / "coverage.csv.gz"),
                                          pd.read_csv(k36 / "labels.csv"), "broad")}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    ap.add_argument("--deltas", default="0,-1,-2,-3")
    args = ap.parse_args(argv)
    print("| set | mark | δ | peaks | label errors | peaks, q <= 0.05 | label errors, q <= 0.05 |")
    print("|---|---|---|---|---|---|---|")
    for name, (cov, labels, mark) in _sets(Path(args.data_dir) / "chipseq_raw").items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the short-window notice
            windows, ll = default_log_lambda(cov, mark=mark)
            for d in (float(x) for x in args.deltas.split(",")):
                segs = predict_peaks(cov, log_penalty=ll + d, windows=windows, segments=True)
                calls = peak_calls(segs, cov)
                kept = significant(calls, qvalue=0.05)
                e, eq = peak_label_errors(calls, labels), peak_label_errors(kept, labels)
                n = len(labels)
                print(f"| {name} | {mark} | {d:+g} | {len(calls)} | {e.errors} of {n} | "
                      f"{len(kept)} | {eq.errors} of {n} |", flush=True)


if __name__ == "__main__":
    main()
