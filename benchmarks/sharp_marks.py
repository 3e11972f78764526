"""Sharp marks without labels (issue 46 item 5): the shipped model's level by mark.

Three tables:

1. On the labeled windows of the 17 UCI ChIP-seq sets (the shipped model's own training
   windows), the label errors, false positives and false negatives at the level of all
   sets (``--broad``) and at the narrow level (the default): at the all-sets level the
   narrow-mark sets lose mostly peaks (FN ≫ FP).
2. Short windows: for chunks whose samples are in a UCI set, each window's log λ minus
   its sample's genome-scale one (the median over its training windows); the H3K4me3
   chunks of PGP and TDH_other set ``SHORT_WINDOW_SHIFT`` (their pooled median), XJ
   chunk 1 checks it.
3. On unlabeled raw coverage of several samples over one region (``chipseq_raw``: the
   H3K4me3 chunks, an H3K27ac and an H3K36me3 one), peaks and samples with a peak at
   the narrow level, the all-sets level, each sample's log λ of its own genome-scale
   training windows (XJ chunk 1 only: its samples are in H3K4me3_XJ_immune), the pooled
   constant of the 17 sets and λ = 1000.

    python benchmarks/sharp_marks.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import results_file  # noqa: E402

from penlearn.datasets.pretrain import chipseq_sets  # noqa: E402
from penlearn.datasets.uci import load_uci  # noqa: E402
from penlearn.peaks.peakseg.evaluation import predict_peaks  # noqa: E402
from penlearn.peaks.peakseg.features import coverage_features  # noqa: E402
from penlearn.peaks.pretrained import (  # noqa: E402
    SHORT_WINDOW_SHIFT,
    default_log_lambda,
    default_windows,
    mark_offset,
    predict_log_lambda,
)
from penlearn.peaks.pretrained.fit import mark_class  # noqa: E402
from penlearn.roc import best_constant_log_lambda  # noqa: E402

#: Chunks whose samples are in a UCI set: the set (for their genome-scale windows).
SAME_SAMPLES = {"H3K4me3_XJ_immune_chunk1": "H3K4me3_XJ_immune",
                "peaksegjoint/H3K4me3.PGP.immune.chunk2": "H3K4me3_PGP_immune",
                "peaksegjoint/H3K4me3.TDH.other.chunk8": "H3K4me3_TDH_other",
                "H3K36me3_TDH_other_chunk1": "H3K36me3_TDH_other",
                "peaksegjoint/H3K36me3.AM.immune.chunk21": "H3K36me3_AM_immune"}
#: The chunks that set SHORT_WINDOW_SHIFT (XJ chunk 1 is left out to check it).
CALIBRATION = ("peaksegjoint/H3K4me3.PGP.immune.chunk2", "peaksegjoint/H3K4me3.TDH.other.chunk8")
CHUNKS = ("H3K4me3_XJ_immune_chunk1", "peaksegjoint/H3K4me3.PGP.immune.chunk2",
          "peaksegjoint/H3K4me3.TDH.other.chunk8", "peaksegjoint/H3K27ac.TDH.MMM4",
          "H3K36me3_TDH_other_chunk1")


def training_errors(root: Path) -> pd.DataFrame:
    rows = []
    for s in chipseq_sets(root):
        ds = load_uci(root / s)
        ev = ds.evaluation
        X = ds.inputs.loc[ds.inputs.index.intersection(ev["sequence_id"].unique())]
        row = {"set": s, "mark": mark_class(s)}
        for mark in ("broad", "narrow"):
            ll = predict_log_lambda(X, mark=mark)
            p = ll.reindex(ev["sequence_id"]).to_numpy()
            at = ev[(ev["min_log_lambda"].to_numpy() <= p) & (p < ev["max_log_lambda"])]
            labels = ev.groupby("sequence_id")["labels"].first().sum()
            tag = "all_sets" if mark == "broad" else "narrow"
            row[f"{tag}_err_pct"] = 100.0 * at["errors"].sum() / labels
            row[f"{tag}_fp"], row[f"{tag}_fn"] = int(at["fp"].sum()), int(at["fn"].sum())
        rows.append(row)
    return pd.DataFrame(rows).set_index("set")


def _chunk(root: Path, name: str) -> pd.DataFrame | None:
    path = root / "chipseq_raw" / name / "coverage.csv.gz"
    if not path.exists():
        return None
    cov = pd.read_csv(path)
    if "chrom" not in cov.columns:
        cov["chrom"] = "chrUnknown"
    return cov[["sample_id", "chrom", "chromStart", "chromEnd", "count"]]


def _genome_log_lambda(root: Path, name: str) -> pd.Series:
    """Each sample's median log λ (all-sets level) over its labeled training windows."""
    X = load_uci(root / name).inputs
    ll = predict_log_lambda(X, mark="broad")
    return ll.groupby(ll.index.str.split("/").str[3]).median()


def short_window_excess(root: Path) -> pd.DataFrame:
    """Per chunk: its windows' log λ minus their samples' genome-scale log λ (both at the
    all-sets level, no short-window shift)."""
    rows = []
    for name, uci in SAME_SAMPLES.items():
        cov = _chunk(root, name)
        if cov is None:
            continue
        windows = default_windows(cov)
        ll = predict_log_lambda(coverage_features(cov, windows), mark="broad")
        excess = ll.to_numpy() - _genome_log_lambda(root, uci).reindex(
            windows["sample_id"]).to_numpy()
        rows.append({"coverage": name.split("/")[-1], "mark": mark_class(uci),
                     "samples": len(excess), "window_bases": int(
                         (windows["chromEnd"] - windows["chromStart"]).median()),
                     "excess_median": float(np.nanmedian(excess)),
                     "excess_mean": float(np.nanmean(excess)),
                     "calibrates_shift": name in CALIBRATION})
    return pd.DataFrame(rows)


def chunk_peaks(root: Path, pooled: float) -> pd.DataFrame:
    rows = []
    genome = _genome_log_lambda(root, "H3K4me3_XJ_immune") + mark_offset()
    for name in CHUNKS:
        cov = _chunk(root, name)
        if cov is None:
            continue
        windows, default = default_log_lambda(cov, mark="narrow")
        everything = predict_log_lambda(coverage_features(cov, windows), mark="broad")
        levels = {"narrow (the default)": default,
                  "narrow, no short-window shift": everything + mark_offset(),
                  "all sets (--broad; before)": everything,
                  "pooled constant": pooled, "λ = 1000": float(np.log(1000.0))}
        if name == CHUNKS[0]:
            levels["narrow, each sample's genome-scale log λ"] = pd.Series(
                genome.reindex(windows["sample_id"]).to_numpy(), index=everything.index)
        for level, ll in levels.items():
            t0 = time.perf_counter()
            peaks = predict_peaks(cov, log_penalty=ll, windows=windows)
            rows.append({"coverage": name.split("/")[-1], "samples": cov["sample_id"].nunique(),
                         "level": level, "peaks": len(peaks),
                         "samples_with_peaks": peaks["sample_id"].nunique(),
                         "seconds": time.perf_counter() - t0})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    args = ap.parse_args(argv)
    root = Path(args.data_dir)
    warnings.simplefilter("ignore")
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}; load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    t = training_errors(root)
    print("\n".join(results_file.markdown_table(t.reset_index().to_dict("records"))))
    evs = pd.concat([load_uci(root / s).evaluation for s in chipseq_sets(root)])
    pooled = float(best_constant_log_lambda(evs))
    print(f"\npooled constant of the 17 sets: log λ = {pooled:.3f}\n")
    excess = short_window_excess(root)
    print("\n".join(results_file.markdown_table(excess.to_dict("records"))))
    cal = []
    for name in CALIBRATION:
        cov = _chunk(root, name)
        windows = default_windows(cov)
        ll = predict_log_lambda(coverage_features(cov, windows), mark="broad")
        cal.append(ll.to_numpy() - _genome_log_lambda(root, SAME_SAMPLES[name]).reindex(
            windows["sample_id"]).to_numpy())
    shift = -round(float(np.median(np.concatenate(cal))), 2)
    print(f"\nshort-window shift from the calibration chunks: {shift} (shipped: "
          f"SHORT_WINDOW_SHIFT = {SHORT_WINDOW_SHIFT})\n")
    print("\n".join(results_file.markdown_table(chunk_peaks(root, pooled).to_dict("records"))))
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
