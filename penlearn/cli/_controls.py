"""Control samples of the ``peaks`` command (and ``joint``, ``learn``): which control is
each treatment's, and the coverage the model then sees (:mod:`penlearn.peaks.peakseg.controls`).

A treatment's control is named in one of three ways:

* ``--control FILE...``: one coverage file shared by every treatment sample, or one per
  treatment sample (in the order of the samples), or ``SAMPLE=FILE`` pairs;
* ``--control-sheet SHEET``: a CSV / TSV with columns ``sample_id, control``, where
  ``control`` is a sample id of the coverage itself or a coverage file;
* a ``control`` column of a coverage table (``coverage.csv``): for each sample, the
  sample id of its control in the same table.

Control samples named by id are taken out of the treatments (no peaks of their own are
written).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from penlearn._checks import id_list
from penlearn.cli._common import _parse_named, read_sheet
from penlearn.peaks.formats.coverage import read_coverage
from penlearn.peaks.peakseg.controls import (
    CONTROL_RULES,
    control_background,
    control_of,
    mark_control_peaks,
)

__all__ = ["Controlled", "add_control_arguments", "apply_controls", "check_shared_chroms",
           "drop_control_peaks", "split_controls"]


def add_control_arguments(p) -> None:
    """``--control``, ``--control-sheet``, ``--control-rule``."""
    p.add_argument("--control", nargs="+", default=None, metavar="CONTROL",
                   help="control (input) coverage: bedGraph / bigWig / BAM; one shared by "
                   "every sample, one per sample (in their order) or SAMPLE=FILE pairs")
    p.add_argument("--control-sheet", default=None, metavar="SHEET",
                   help="CSV / TSV with columns sample_id, control (a sample id of the "
                   "coverage or a coverage file): each sample's control (a 'control' "
                   "column of coverage.csv does the same)")
    p.add_argument("--control-rule", choices=CONTROL_RULES, default="background",
                   help="background: the control is the background of the Poisson model "
                   "(peaks are folds over it; the measured default, see docs/chipseq.md); "
                   "filter: the control is segmented too and a peak where it is up is "
                   "dropped (PeakSegPipeline's rule) (default: %(default)s)")


def _sheet(path) -> dict:
    """``--control-sheet``: {sample: control}, one row per sample, no empty cell."""
    table = read_sheet(path, ["sample_id", "control"], "--control-sheet")
    if table.empty:  # (no pair: every sample would be called without a control, unsaid)
        raise ValueError(f"--control-sheet {path} has a header but no row: give one row "
                         "per sample (sample_id, control)")
    for col in ("sample_id", "control"):
        empty = table[col].isna() | (table[col].fillna("").str.len() == 0)
        if empty.any():
            i = int(empty.to_numpy().argmax())
            who = "" if col == "sample_id" else f" (sample {table['sample_id'].iloc[i]!r})"
            raise ValueError(f"--control-sheet {path}: data row {i + 1}{who} has an empty "
                             f"{col!r} cell (a sample without a control: leave its row out)")
    dup = table["sample_id"].duplicated(keep=False)
    if dup.any():
        s = table["sample_id"][dup].iloc[0]
        rows = table.index[table["sample_id"] == s].to_numpy() + 1
        raise ValueError(f"--control-sheet {path}: sample {s!r} has {len(rows)} rows (data "
                         f"rows {', '.join(map(str, rows))}): give each sample one control")
    return dict(zip(table["sample_id"], table["control"]))


def _named(coverage: pd.DataFrame, args) -> dict | None:
    """{treatment sample id: control (a sample id of ``coverage`` or a file)}."""
    samples = [str(s) for s in pd.unique(coverage["sample_id"])]
    given = [x is not None for x in (args.control, args.control_sheet)] + [
        "control" in coverage.columns]
    if sum(given) > 1:
        raise ValueError("name the controls once: --control, --control-sheet or a "
                         "'control' column of the coverage table")
    if args.control_sheet is not None:
        return _sheet(args.control_sheet)
    if "control" in coverage.columns:
        pairs = coverage[["sample_id", "control"]].drop_duplicates().dropna()
        pairs = pairs[pairs["control"].astype(str).str.len() > 0]
        if pairs["sample_id"].duplicated().any():
            s = pairs["sample_id"][pairs["sample_id"].duplicated()].iloc[0]
            raise ValueError(f"coverage column 'control': sample {s!r} names two controls")
        return dict(zip(pairs["sample_id"].astype(str), pairs["control"].astype(str)))
    if args.control is None:
        return None
    named = [_parse_named(c, "--control") for c in args.control]
    if all(n is not None for n, _ in named):
        return {n: f for n, f in named}
    if any(n is not None for n, _ in named):
        raise ValueError("--control: give all as SAMPLE=FILE or none")
    return control_of(samples, [f for _, f in named])


def split_controls(coverage: pd.DataFrame, args
                   ) -> tuple[pd.DataFrame, pd.DataFrame | None, dict]:
    """(treatment coverage, control coverage with ``sample_id`` or None, {treatment:
    control id}): the controls named by the options or the ``control`` column, read
    (files) or taken out of the coverage (sample ids)."""
    single = "sample_id" not in coverage.columns
    cov = coverage.assign(sample_id="") if single else coverage
    pairs = _named(cov, args)
    if not pairs:
        return coverage, None, {}
    ids = {str(s) for s in pd.unique(cov["sample_id"])}
    files = {c for c in pairs.values() if c not in ids}
    missing = [f for f in files if not Path(f).exists()]
    if missing:
        raise ValueError(f"control {missing[0]!r} is neither a sample of the coverage nor "
                         "a file")
    extra = read_coverage({f: f for f in sorted(files)}) if files else None
    named = set(pairs.values()) & ids
    ctrl = pd.concat([cov[cov["sample_id"].astype(str).isin(named)],
                      *([] if extra is None else [extra])], ignore_index=True)
    ctrl = ctrl[["sample_id", "chrom", "chromStart", "chromEnd", "count"]]
    treat = cov[~cov["sample_id"].astype(str).isin(named)]
    treat = treat.drop(columns=[c for c in ("control",) if c in treat.columns])
    treated = [str(s) for s in pd.unique(treat["sample_id"])]
    unknown = sorted(set(pairs) - set(treated))
    if unknown:
        raise ValueError(f"control named for sample {unknown[0]!r}, which is not a "
                         "treatment sample of the coverage")
    alone = [s for s in treated if s not in pairs]
    if alone:
        warnings.warn(f"{id_list(alone, 'sample(s)')} called without a control (no control "
                      "named for them)", UserWarning, stacklevel=2)
    t_chroms = treat.groupby(treat["sample_id"].astype(str), sort=False)["chrom"].unique()
    c_chroms = ctrl.groupby(ctrl["sample_id"].astype(str), sort=False)["chrom"].unique()
    for sid, c in pairs.items():
        if c in c_chroms.index:
            check_shared_chroms(t_chroms[sid], c_chroms[c],
                                f"control {c!r}" + (f" of sample {sid!r}" if sid else ""))
    return (treat.drop(columns="sample_id") if single else treat), ctrl, pairs


def check_shared_chroms(treatment, control, what: str) -> None:
    """A control sharing no chromosome name with its treatment (``1`` vs ``chr1``: another
    naming or genome build) would change nothing: a ``ValueError`` naming ``what`` and
    both sets of names.

    Examples
    --------
    >>> check_shared_chroms(["chr1", "chr2"], ["1", "2"], "--control c.bedGraph")
    Traceback (most recent call last):
    ...
    ValueError: --control c.bedGraph: the control shares no chromosome name with the \
treatment (treatment: chr1, chr2; control: 1, 2): name them alike (e.g. 'chr1' in both)
    """
    t = [str(c) for c in dict.fromkeys(treatment)]
    c = [str(x) for x in dict.fromkeys(control)]
    if t and c and not set(t) & set(c):
        raise ValueError(f"{what}: the control shares no chromosome name with the treatment "
                         f"(treatment: {_names(t)}; control: {_names(c)}): name them alike "
                         f"(e.g. {t[0]!r} in both)")


def _names(names: list[str], limit: int = 5) -> str:
    more = f", ... ({len(names)} in all)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


class Controlled(NamedTuple):
    """What :func:`apply_controls` gives: ``coverage`` for the peak models (with the
    ``background`` column under that rule), ``plain`` the treatments' coverage as read
    (for the features: the penalty is predicted from the treatment's own rows),
    ``segments`` the controls' PeakSeg segments (None: no control), ``pairs``
    {treatment: control id}, ``summits`` {treatment: (its control's coverage, the
    control's scale: treatment / control coverage summed)} for the summits of treatment
    − scaled control (narrowPeak column 10)."""

    coverage: pd.DataFrame
    plain: pd.DataFrame
    segments: pd.DataFrame | None
    pairs: dict
    summits: dict | None = None


def _summit_controls(treat: pd.DataFrame, ctrl: pd.DataFrame, pairs: dict) -> dict:
    """{treatment id: (its control's rows, treatment area / control area)}."""
    def area(t):
        return float(((t["chromEnd"] - t["chromStart"]) * t["count"]).sum())

    out = {}
    for sid, t in treat.groupby("sample_id", sort=False):
        c = pairs.get(str(sid))
        if c is None:
            continue
        mine = ctrl[ctrl["sample_id"].astype(str) == c].drop(columns="sample_id")
        a = area(mine)
        out[str(sid)] = (mine, area(t) / a if a > 0 else 0.0)
    return out


def apply_controls(coverage: pd.DataFrame, args, report, segment,
                   chrom_sizes: dict | None = None) -> Controlled:
    """The coverage of the peak models, the treatments' own, the controls' segments and
    the pairs (:class:`Controlled`).

    The controls are segmented by ``segment`` (a coverage table with ``sample_id`` →
    its PeakSeg segments, at the penalty the treatments get). With ``--control-rule
    background`` the treatment coverage gets its control's ``background`` column; with
    ``filter`` it is unchanged and the caller drops peaks (:func:`drop_control_peaks`).
    No control named: the coverage unchanged.
    """
    treat, ctrl, pairs = split_controls(coverage, args)
    if not pairs:
        return Controlled(coverage, coverage, None, {})
    plain = treat
    single = "sample_id" not in treat.columns
    if single:
        treat = treat.assign(sample_id="")
    report(f"controls: {len(set(pairs.values()))} for {len(pairs)} sample(s), rule "
           f"{args.control_rule}: their peak models first")
    segs = segment(ctrl)
    summits = _summit_controls(treat, ctrl, pairs)
    if args.control_rule == "background":
        parts = []
        for sid, t in treat.groupby("sample_id", sort=False):
            c = pairs.get(str(sid))
            if c is None:
                parts.append(t)
                continue
            mine = ctrl["sample_id"].astype(str) == c
            b = control_background(t, ctrl[mine], segs[segs["sample_id"].astype(str) == c],
                                   chrom_sizes=chrom_sizes)
            parts.append(b.assign(sample_id=sid))
        treat = pd.concat(parts, ignore_index=True)
        if "background" in treat:
            treat["background"] = treat["background"].fillna(1.0)
    if single:
        treat = treat.drop(columns="sample_id")
    return Controlled(treat, plain, segs, pairs, summits)


def drop_control_peaks(segs: pd.DataFrame, control_peaks: pd.DataFrame, pairs: dict
                       ) -> tuple[pd.DataFrame, int]:
    """The ``filter`` rule: segments of the treatments with the peaks where the control is
    up turned to background (``control_up`` marks them); (segments, peaks dropped)."""
    has_sid = "sample_id" in segs.columns
    segs = segs.assign(control_up=False)
    is_peak = (segs["status"] == "peak").to_numpy()
    sids = segs["sample_id"].astype(str) if has_sid else pd.Series("", index=segs.index)
    for sid, ctrl in pairs.items():
        rows = is_peak & (sids == str(sid)).to_numpy()
        if not rows.any():
            continue
        mine = control_peaks[(control_peaks["sample_id"].astype(str) == str(ctrl))
                             & (control_peaks["status"] == "peak")]
        up = mark_control_peaks(segs.loc[rows], mine)["control_up"].to_numpy()
        segs.loc[segs.index[rows], "control_up"] = up
    dropped = int(segs["control_up"].sum())
    segs.loc[segs["control_up"].to_numpy(), "status"] = "background"
    return segs, dropped
