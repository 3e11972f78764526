"""Issue 52 item 1, the labels' turf: does a window-size or depth term help the zero-label
penalty? Leave one set out over the 17 UCI ChIP-seq sets of the shipped learner's form
(:mod:`penlearn.peaks.pretrained.fit`) with one more term g·z:

    log λ = c + b·(2·log.sd − log.mean) + g·z,   z in {none, log.bases, log.data, log.mean}

(``log.bases``, ``log.data``: the window's size in bases and in coverage rows, the log(n)
of the oracle penalties of Cleynen & Lebarbier 2014; ``log.mean``: the depth direction,
g = −b makes λ depth-free), b and g on grids, c by the exact sweep, every set weighing the
same; test errors at the all-sets level and at the mark's level (narrow sets: the narrow
level of the other narrow sets).

    python benchmarks/penalty_terms.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from penlearn.datasets.pretrain import chipseq_sets  # noqa: E402
from penlearn.datasets.uci import load_uci  # noqa: E402
from penlearn.peaks.pretrained import fit as F  # noqa: E402

B_GRID = np.round(np.arange(0.5, 0.91, 0.04), 4)
G_GRID = {"log.bases": np.round(np.arange(-0.6, 0.61, 0.1), 3),
          "log.data": np.round(np.arange(-0.6, 0.61, 0.1), 3),
          "log.mean": np.round(np.arange(-0.8, 0.41, 0.1), 3)}


def load(root: Path):
    X, evs, groups = [], [], []
    for name in chipseq_sets(root):
        ds = load_uci(root / name)
        ev = ds.evaluation
        ids = ds.inputs.index.intersection(pd.Index(ev["sequence_id"].unique()))
        X.append(ds.inputs.loc[ids])
        evs.append(ev[ev["sequence_id"].isin(ids)])
        groups.append(pd.Series(name, index=ids))
    return pd.concat(X), pd.concat(evs, ignore_index=True), pd.concat(groups)


def loso(X, ev, g, extra):
    disp = 2 * X["log.sd"] - X["log.mean"]
    labels = ev.groupby("sequence_id", sort=False)["labels"].first().reindex(X.index)

    def weights(ids):
        gg = g.reindex(ids).to_numpy()
        return 1.0 / pd.Series(labels.reindex(ids).to_numpy(float)).groupby(gg).transform(
            "sum").to_numpy()

    cols = ["log.sd", "log.mean"] + ([extra] if extra not in (None, "log.mean") else [])
    narrow = np.array([F.mark_class(s) == "narrow" for s in g.to_numpy()])
    rows = {}
    for s in pd.unique(g):
        tr, te = X.index[g.to_numpy() != s], X.index[g.to_numpy() == s]
        e2, seq = F._sorted_rows(ev, pd.Index(tr))
        sweep = F._Sweep(e2, seq, weights(tr))
        d = disp.loc[tr].to_numpy()
        z = 0.0 if extra is None else X.loc[tr, extra].to_numpy(float)
        best = None
        for b in B_GRID:
            for gm in (G_GRID[extra] if extra else [0.0]):
                c, e = sweep.best(b * d + gm * z)
                if best is None or e < best[3] - 1e-12:
                    best = (b, gm, c, e)
        b, gm, c, _ = best
        A = X.loc[te, cols].clip(X.loc[tr, cols].min(), X.loc[tr, cols].max(), axis=1)
        off = (b * (2 * A["log.sd"] - A["log.mean"]) + (gm * A[extra] if extra else 0.0)
               ).to_numpy()
        level = c
        same = X.index[(g.to_numpy() != s) & narrow]
        if F.mark_class(s) == "narrow":
            zs = 0.0 if extra is None else X.loc[same, extra].to_numpy(float)
            level, _ = F.min_error_intercept(
                ev, pd.Series(b * disp.loc[same].to_numpy() + gm * zs, index=same),
                pd.Series(weights(same), index=same))
        rows[s] = {"all_sets": F.label_errors_pct(ev, pd.Series(c + off, index=te)),
                   "mark": F.label_errors_pct(ev, pd.Series(level + off, index=te)),
                   "b": b, "g": gm}
    return pd.DataFrame.from_dict(rows, orient="index")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    args = ap.parse_args(argv)
    X, ev, g = load(Path(args.data_dir))
    print("| term z | LOSO all sets (%) | LOSO mark level (%) | median b | median g | CPU s |")
    print("|---|---|---|---|---|---|")
    for extra in (None, "log.bases", "log.data", "log.mean"):
        t0 = time.process_time()
        t = loso(X, ev, g, extra)
        print(f"| {extra or 'none (shipped form)'} | {t['all_sets'].mean():.2f} | "
              f"{t['mark'].mean():.2f} | {t['b'].median():.2f} | {t['g'].median():.2f} | "
              f"{time.process_time() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
