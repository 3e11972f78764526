"""Issue 52 item 1: how the zero-label learner chooses its slope, leave one set out over the
17 UCI ChIP-seq sets.

The learner (:mod:`penlearn.peaks.pretrained.fit`) fits log λ = c + b·(2·log.sd −
log.mean), c of fewest label errors by an exact sweep for each b, every set weighing the
same. Its training errors are a step function of b; this script measures, for each held-out
set, the slope chosen as the first b of fewest errors averaged over b ± w (w = 0: the
plain minimum; the shipped learner takes ``SLOPE_SMOOTH``) on the 0.01 grid, and the issue-36
learner's coarse-then-fine search (0.1 on [-0.5, 2], then 0.01 around the best), with test
label errors at the level of all the other sets (``all``) and at the set's mark level
(``mark``: a narrow-mark set at the level of the other narrow sets at that slope).

    python benchmarks/slope_smooth.py [--data-dir ../shared/data] [--widths 0,0.02,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pretrained import load  # noqa: E402

from penlearn.peaks.pretrained import fit as F  # noqa: E402


def coarse_then_fine(table: pd.DataFrame) -> int:
    """The issue-36 search: the first minimum on the 0.1 grid, then on 0.01 within ±0.1."""
    b = table["slope"].to_numpy()
    e = table["errors_pct"].to_numpy()
    coarse = np.flatnonzero(np.isclose(b * 10, np.round(b * 10)))
    b0 = b[coarse[int(np.argmin(e[coarse]))]]
    fine = np.flatnonzero(np.abs(b - b0) <= 0.1 + 1e-9)
    return int(fine[int(np.argmin(e[fine]))])


def folds(X, ev, g):
    """Per held-out set: the slope tables of the other sets and of the other narrow sets,
    and the test errors at any (b, c)."""
    narrow = np.array([F.mark_class(s) == "narrow" for s in g.to_numpy()])
    for s in pd.unique(g):
        test = X.index[g.to_numpy() == s]
        train = X.index[g.to_numpy() != s]
        same = X.index[(g.to_numpy() != s) & narrow]
        A = X.loc[train, list(F.FEATURES)].to_numpy(float)
        d = np.clip(X.loc[test, list(F.FEATURES)].to_numpy(float), A.min(0), A.max(0)
                    ) @ F.DIRECTION
        yield (s, F.slope_errors(X.loc[train], ev, g.loc[train]),
               F.slope_errors(X.loc[same], ev, g.loc[same]),
               lambda b, c, test=test, d=d: F.label_errors_pct(
                   ev, pd.Series(c + b * d, index=test)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    ap.add_argument("--widths", default="0,0.01,0.02,0.03,0.04,0.05,0.06,0.08,0.1,0.15")
    args = ap.parse_args(argv)
    widths = [float(w) for w in args.widths.split(",")]
    t0 = time.process_time()
    X, ev, g = load(args.data_dir)
    X = X.loc[:, list(F.FEATURES)]
    rules = {"coarse 0.1 then 0.01 (issue 36)": coarse_then_fine}
    rules.update({f"b ± {w:.2f}" + (" (shipped)" if w == F.SLOPE_SMOOTH else ""):
                  (lambda t, w=w: F.smoothed_slope(t["slope"].to_numpy(),
                                                   t["errors_pct"].to_numpy(), w))
                  for w in widths})
    rows = {r: {} for r in rules}
    for s, table, narrow_table, test_errors in folds(X, ev, g):
        for r, choose in rules.items():
            i = choose(table)
            b, c = table["slope"].iloc[i], table["intercept"].iloc[i]
            narrow_level = narrow_table["intercept"].iloc[i]
            level = narrow_level if F.mark_class(s) == "narrow" else c
            rows[r][s] = (test_errors(b, c), test_errors(b, level), b,
                          test_errors(b, narrow_level))
        print(f"  {s} ({time.process_time() - t0:.0f} CPU s)", file=sys.stderr, flush=True)
    print("| slope rule | LOSO all sets (%) | LOSO mark level (%) | slopes (min-max) | "
          "broad sets at their level / at the narrow level (%) |")
    print("|---|---|---|---|---|")
    broad = [F.mark_class(s) != "narrow" for s in rows[next(iter(rows))]]
    for r, per_set in rows.items():
        a = np.array(list(per_set.values()))
        print(f"| {r} | {a[:, 0].mean():.2f} | {a[:, 1].mean():.2f} | "
              f"{a[:, 2].min():.2f}-{a[:, 2].max():.2f} | {a[broad, 1].mean():.2f} / "
              f"{a[broad, 3].mean():.2f} |")
    shipped = next(r for r in rows if "(shipped)" in r)
    old = next(iter(rows))
    print("\n| held-out set | mark | all sets, issue 36 | all sets, shipped | mark level, "
          "issue 36 | mark level, shipped |")
    print("|---|---|---|---|---|---|")
    for s in rows[old]:
        o, n = rows[old][s], rows[shipped][s]
        print(f"| {s} | {F.mark_class(s)} | {o[0]:.2f} | {n[0]:.2f} | {o[1]:.2f} | "
              f"{n[1]:.2f} |")
    print(f"\n{time.process_time() - t0:.0f} CPU s")


if __name__ == "__main__":
    main()
