"""A handful of labels: random windows against proposed ones, leave one set out.

For each of the 17 UCI ChIP-seq sets (Hocking et al. 2017) held out in turn, the prior is
the zero-label model learned on the other 16 (``penlearn pretrain --exclude SET``,
:mod:`penlearn.peaks.pretrained.fit`). A user of the held-out set labels k windows
(sequences), k = 1, 3, 5, 10, 20, and refits with ``learn_penalty(features, evaluation,
prior=M)`` on those k windows' rows (its defaults); test: every other window of the set,
% of its labels wrong. The k windows are

- ``random``: drawn at random (``--draws`` draws, mean);
- ``proposed``: :func:`penlearn.propose_windows` one at a time, as the labeling page's
  "Next" would (propose one, reveal its labels, refit, propose the next);
- ``batch``: one batch of k (``propose_windows(data, k)`` from no label, nothing
  revealed between its windows: ``penlearn propose --n k``), k in :data:`BATCHES`; and
  from labels: the first 5 proposed one at a time, then a batch of 5 (``then_batch_10``)
  or 5 random windows (``then_random_10``, ``--draws`` draws).

Beside them: ``zero_label`` (the prior, no label), ``in_set`` (``learn_penalty()`` on the
set's own folds, every label of the other folds: RESULTS "all_sets, issue 32", not
recomputed, as ``pretrained.py``), ``oracle_shift`` (the prior shifted by the shift of
fewest test errors). ``--switch K,...`` also fits the learned models of ``model="auto"``
(the prior in the constant's place) on the first K proposed windows, to place the switch
from the shift to them. Seconds: per proposal, per refit, and a proposal of 10 windows
among 10^5 (the 17 sets' paths repeated).

    python benchmarks/few_labels.py --data-dir ../shared/data [--draws 20] [--write]
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
from types import SimpleNamespace

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from pretrained import IN_SET, _prior_model, load  # noqa: E402
from results_file import markdown_table, write_section  # noqa: E402

from penlearn import propose_windows  # noqa: E402
from penlearn.learn import learn_penalty, level_shift  # noqa: E402
from penlearn.learn.propose import PATH_COLUMNS, propose_from_paths  # noqa: E402
from penlearn.peaks.pretrained.fit import label_errors_pct  # noqa: E402

KS = (1, 3, 5, 10, 20)
BATCHES = (5, 10)
FIGURE = Path(__file__).resolve().parent.parent / "docs" / "img" / "few_labels.png"


def _refit(X, ev, prior, lab):
    t0 = time.process_time()
    m = learn_penalty(X.loc[lab], ev[ev["sequence_id"].isin(lab)], prior=prior,
                      progress=False)
    return m, time.process_time() - t0


def _test_pct(model, X, ev, test) -> float:
    return label_errors_pct(ev, pd.Series(model.predict(X.loc[test]), index=test))


def one_set(X, ev, groups, s, draws: int, switch=()):
    ids = groups.index[groups.to_numpy() == s]
    train = groups.index[groups.to_numpy() != s]
    prior = _prior_model(X, ev, groups, train, s)
    feats = X.loc[ids]
    finite = feats.columns[np.isfinite(feats.to_numpy(float)).all(axis=0)]
    feats = feats.loc[:, finite]
    ev_s = ev[ev["sequence_id"].isin(ids)]
    base = pd.Series(prior.predict(feats), index=ids)
    row = {"held_out": s, "windows": len(ids),
           "zero_label": label_errors_pct(ev_s, base), "in_set": IN_SET.get(s, np.nan)}
    grid = level_shift.shift_grid()
    tot = level_shift.errors_on_grid(ev_s, base, grid)
    row["oracle_shift"] = 100.0 * tot.min() / ev_s.groupby("sequence_id")["labels"].first().sum()
    refit_s = []
    rng = np.random.default_rng(0)
    for k in KS:
        errs = []
        for _ in range(draws):
            lab = list(rng.choice(ids, size=k, replace=False))
            m, sec = _refit(feats, ev_s, prior, lab)
            refit_s.append(sec)
            errs.append(_test_pct(m, feats, ev_s, ids.difference(lab)))
        row[f"random_{k}"] = float(np.mean(errs))
    data = SimpleNamespace(inputs=feats, evaluation=ev_s, name=s)
    lab, prop_s = [], []
    for k in range(1, max((*KS, *switch)) + 1):
        t0 = time.process_time()
        nxt = propose_windows(data, 1, labeled=lab, model=prior)
        prop_s.append(time.process_time() - t0)
        lab.append(nxt["sequence_id"].iloc[0])
        if k in KS:
            m, sec = _refit(feats, ev_s, prior, lab)
            refit_s.append(sec)
            row[f"proposed_{k}"] = _test_pct(m, feats, ev_s, ids.difference(lab))
        if k in switch and k < len(ids) - 5:  # a test set left
            keep = level_shift.SHIFT_MAX_SEQUENCES
            try:
                level_shift.SHIFT_MAX_SEQUENCES = 0  # the learned candidates of auto
                t0 = time.process_time()
                m, _ = _refit(feats, ev_s, prior, lab)
                row[f"auto_{k}_s"] = time.process_time() - t0
                row[f"auto_{k}"] = _test_pct(m, feats, ev_s, ids.difference(lab))
                row[f"auto_{k}_model"] = (getattr(m, "level_", None) or {}).get(
                    "choice", {}).get("chosen", "?")
                level_shift.SHIFT_MAX_SEQUENCES = 10 ** 9  # the shift alone
                m, _ = _refit(feats, ev_s, prior, lab)
                row[f"shift_{k}"] = _test_pct(m, feats, ev_s, ids.difference(lab))
            finally:
                level_shift.SHIFT_MAX_SEQUENCES = keep
    first = lab[:5]  # the first 5 proposed one at a time
    for k in BATCHES:  # one batch of k, as a user of penlearn propose --n k
        lab = list(propose_windows(data, k, model=prior)["sequence_id"])
        m, _ = _refit(feats, ev_s, prior, lab)
        row[f"batch_{k}"] = _test_pct(m, feats, ev_s, ids.difference(lab))
    # from labels: after the first 5 one at a time, a batch of 5 more or 5 random more
    lab = first + list(propose_windows(data, 5, labeled=first, model=prior)["sequence_id"])
    m, _ = _refit(feats, ev_s, prior, lab)
    row["then_batch_10"] = _test_pct(m, feats, ev_s, ids.difference(lab))
    errs = []
    for _ in range(draws):
        lab = first + list(rng.choice(ids.difference(first), size=5, replace=False))
        m, _ = _refit(feats, ev_s, prior, lab)
        errs.append(_test_pct(m, feats, ev_s, ids.difference(lab)))
    row["then_random_10"] = float(np.mean(errs))
    row["proposal_s"] = float(np.mean(prop_s))
    row["refit_s"] = float(np.mean(refit_s))
    row["refit_max_s"] = float(np.max(refit_s))
    return row


def scale_timing(X, ev, groups, copies: int = 21) -> tuple[int, float]:
    """CPU seconds of one proposal of 10 windows among the 17 sets' windows repeated
    ``copies`` times (4,960 × 21 = 104,160), no label."""
    prior = _prior_model(X, ev, groups, groups.index, "none")
    base = pd.Series(prior.predict(X), index=X.index)
    paths = ev.loc[:, list(PATH_COLUMNS)]
    big_p = pd.concat([paths.assign(sequence_id=paths["sequence_id"] + f"#{c}")
                       for c in range(copies)], ignore_index=True)
    big_b = pd.concat([base.rename(lambda i, c=c: f"{i}#{c}") for c in range(copies)])
    t0 = time.process_time()
    propose_from_paths(big_p, big_b, 10)
    return len(big_b), time.process_time() - t0


def figure(table: pd.DataFrame, path: Path) -> None:
    from matplotlib.figure import Figure

    mean = table.loc["mean of sets"]
    fig = Figure(figsize=(6.4, 3.8))
    ax = fig.add_subplot()
    ax.plot(KS, [mean[f"random_{k}"] for k in KS], "o-", color="0.5",
            label="random windows")
    ax.plot(KS, [mean[f"proposed_{k}"] for k in KS], "o-", color="C0",
            label="proposed windows (penlearn propose)")
    for col, style, text in (("zero_label", ":", "no label (shipped model)"),
                             ("in_set", "--", "every label of the set (in-set learning)"),
                             ("oracle_shift", "-.", "best shift (chosen on the test labels)")):
        ax.axhline(mean[col], color="k", linestyle=style, linewidth=1, label=text)
    ax.set_xscale("log")
    ax.set_xticks(KS, [str(k) for k in KS])
    ax.set_xlabel("labeled windows k")
    ax.set_ylabel("% of test labels wrong (mean of 17 sets)")
    ax.set_title("Leave one set out: which windows to label", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data"))
    ap.add_argument("--draws", type=int, default=20, help="random draws per (set, k)")
    ap.add_argument("--sets", default=None, help="comma-separated set names (default all)")
    ap.add_argument("--switch", default="", help="k's at which to also fit auto's learned "
                    "models on the proposed windows, e.g. 20,40")
    ap.add_argument("--csv", default=None, help="write the per-set rows here")
    ap.add_argument("--write", action="store_true",
                    help="write RESULTS.md's section and docs/img/few_labels.png")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    start = datetime.now(timezone.utc)
    load0 = os.getloadavg()
    print(f"{start:%Y-%m-%d %H:%M} UTC; {platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}; load average "
          f"{' '.join(f'{x:.1f}' for x in load0)}", flush=True)
    cpu0 = time.process_time()
    X, ev, groups = load(args.data_dir)
    sets = args.sets.split(",") if args.sets else list(pd.unique(groups))
    switch = tuple(int(k) for k in args.switch.split(",") if k)
    rows = []
    for s in sets:
        rows.append(one_set(X, ev, groups, s, args.draws, switch))
        r = rows[-1]
        print(f"  {s}: zero {r['zero_label']:.1f}; random "
              + " ".join(f"{r[f'random_{k}']:.1f}" for k in KS) + "; proposed "
              + " ".join(f"{r[f'proposed_{k}']:.1f}" for k in KS) + "; batch "
              + " ".join(f"{r[f'batch_{k}']:.1f}" for k in BATCHES), flush=True)
    t = pd.DataFrame(rows).set_index("held_out")
    num = t.select_dtypes("number")
    t.loc["mean of sets"] = num.mean()
    t.loc["mean of sets", "windows"] = num["windows"].sum()
    n_big, big_s = scale_timing(X, ev, groups)
    cols = ["windows", "zero_label", *[f"{w}_{k}" for k in KS for w in ("random", "proposed")],
            *[f"batch_{k}" for k in BATCHES], "in_set", "oracle_shift"]
    out = [{"held_out": i, **{c: (int(r[c]) if c == "windows" else float(r[c]))
                              for c in cols}} for i, r in t.iterrows()]
    wins = {k: int((t[f"proposed_{k}"].iloc[:-1] <= t[f"random_{k}"].iloc[:-1]).sum())
            for k in KS}
    mean = t.loc["mean of sets"]
    curve = [{"k": str(k), "random": float(mean[f"random_{k}"]),
              "proposed": float(mean[f"proposed_{k}"]), "sets proposed <= random": wins[k]}
             for k in KS]
    batch = [{"n": str(k), "random n windows": float(mean[f"random_{k}"]),
              "one batch of n (--n n)": float(mean[f"batch_{k}"]),
              "one at a time (n times --n 1)": float(mean[f"proposed_{k}"]),
              "sets batch <= random": int((t[f"batch_{k}"].iloc[:-1]
                                           <= t[f"random_{k}"].iloc[:-1]).sum())}
             for k in BATCHES]
    batch.append({"n": "5 after 5 one at a time", "random n windows":
                  float(mean["then_random_10"]), "one batch of n (--n n)":
                  float(mean["then_batch_10"]), "one at a time (n times --n 1)":
                  float(mean["proposed_10"]), "sets batch <= random":
                  int((t["then_batch_10"].iloc[:-1] <= t["then_random_10"].iloc[:-1]).sum())})
    sw = [{"k": k, "shift (proposed)": float(mean[f"shift_{k}"]),
           "auto (proposed)": float(mean[f"auto_{k}"]),
           "sets": int(t[f"auto_{k}"].iloc[:-1].notna().sum()),
           "auto better on": int((t[f"auto_{k}"] < t[f"shift_{k}"]).iloc[:-1].sum()),
           "auto CPU s": float(mean[f"auto_{k}_s"]),
           "auto chose": ", ".join(f"{m} {c}" for m, c in
                                   t[f"auto_{k}_model"].iloc[:-1].dropna().value_counts()
                                   .items())}
          for k in switch]
    cpu = time.process_time() - cpu0
    lines = [
        "## few_labels (issue 44: the windows worth labeling)", "",
        f"- Command: `python benchmarks/few_labels.py --data-dir ../shared/data --draws "
        f"{args.draws}{' --switch ' + args.switch if switch else ''} --write`; "
        f"{start:%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; load average {load0[0]:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end; {cpu:.0f} s CPU in all.",
        f"- Seconds (CPU): a proposal (one window, a set's windows) {mean['proposal_s']:.3f} "
        f"mean; a refit (`learn_penalty(prior=M)`, k <= 20) {mean['refit_s']:.4f} mean, "
        f"{t['refit_max_s'].max():.3f} max; a proposal of 10 windows among {n_big:,} "
        f"windows: {big_s:.2f} s.", "",
        "Mean of the 17 held-out sets, % of test labels wrong:", "",
        *markdown_table(curve), "",
        "A batch (n windows proposed at once, none revealed between them: `penlearn "
        "propose --n n`; from no label, and after the first 5 proposed one at a time) "
        "against n random windows and n proposed one at a time:", "",
        *markdown_table(batch), "",
        f"zero-label {mean['zero_label']:.2f}, in-set learning {mean['in_set']:.2f}, "
        f"oracle shift {mean['oracle_shift']:.2f}.", "",
    ]
    if sw:
        lines += ["Switch points (the same proposed windows):", "", *markdown_table(sw), ""]
    lines += ["Per set:", "", *markdown_table(out)]
    text = "\n".join(lines)
    print(text)
    if args.csv:
        t.to_csv(args.csv)
    if args.write:
        write_section(lines[0], text)
        figure(t, FIGURE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
