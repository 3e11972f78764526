"""``penlearn callpeak`` one chromosome at a time: bounded memory, ``--jobs`` across
chromosomes, a progress line per chromosome.

The reads of the treatment and of the control are kept as compact arrays
(:mod:`penlearn.peaks.formats.read_arrays`: 5 bytes a single-end read; without a
control, 2 between the passes: :mod:`~penlearn.peaks.formats.fragment_starts`); the rest
— the fragment pileup as run-length arrays, the control's PeakSeg model and the
treatment's background, the windows, their features and penalties (the same zero-label
or learned penalty function, per window), the treatment's PeakSeg solves and the peak
columns — is made for one chromosome, used and dropped (:func:`call_chromosome`). Only
what is genome-wide is computed before: the fragment size, the read totals, the
control's genome-wide mean ``λ_bg``; and after: the peaks' UCSC scores and q-values
(over all peaks of the sample). The peaks equal those of the whole-genome tables
(``tests/cli/test_callpeak_stream.py``).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from penlearn._executor import run_tasks
from penlearn.atomic_files import staged_file
from penlearn.cli._phases import PhaseClock, _Progress, _return_freed_memory
from penlearn.cli._stream_calls import _candidates, _population, genome_columns
from penlearn.peaks.formats.bed import bedgraph_bytes, merge_equal_runs
from penlearn.peaks.formats.fragment_starts import FragmentStarts, packable, packed_pileup
from penlearn.peaks.formats.peak_columns import (
    genome_level,
    least_kept_log10p,
    significant,
)
from penlearn.peaks.formats.read_arrays import ReadArrays, chrom_pileup, weighted_fragments
from penlearn.peaks.peakseg.broad import TRIM_LEVEL_SHIFTS, predict_broad
from penlearn.peaks.peakseg.broad_control import above_control
from penlearn.peaks.peakseg.calls import peak_calls
from penlearn.peaks.peakseg.controls import (
    CONTROL_BIN,
    binned_segments,
    control_background,
    mark_control_peaks,
    segment_levels,
    typical_levels,
)

__all__ = ["call_chromosome", "call_genome", "control_genome_mean"]


def control_genome_mean(treat: ReadArrays, ctrl: ReadArrays, extsize, shift: int,
                        sizes: dict | None) -> tuple[float, float]:
    """The control's and the treatment's genome-wide mean coverage (as
    :func:`~penlearn.peaks.peakseg.controls.control_mean`): their fragments' bases over
    the lengths of the chromosomes covered by either (the header's length, else the last
    covered base), without a pileup.

    Examples
    --------
    >>> r = ReadArrays(True, {"chr1": (np.array([0], np.int32), np.array([10], np.int32),
    ...                                None)}, {"chr1": 40})
    >>> control_genome_mean(r, r, None, 0, {"chr1": 40})
    (0.25, 0.25)
    """
    from penlearn.peaks.formats._pileup_kernel import fragment_extent

    area, length = [0.0, 0.0], 0
    for c in dict.fromkeys([*treat.chroms, *ctrl.chroms]):
        last = 0
        for k, reads in enumerate((ctrl, treat)):
            if c not in reads.chroms:
                continue
            a, b, w = reads.chroms[c]
            if w is None and (reads.paired or (extsize is not None and extsize >= 1)):
                # (the same integer sums, without the fragments' int64 arrays)
                size = reads.sizes.get(c) if reads.sizes else None
                bases, end, n = fragment_extent(a, b, reads.paired, extsize, shift, size)
                if n:
                    last = max(last, end)
                    area[k] += float(bases)
                continue
            s, e, w = weighted_fragments(reads, c, extsize, shift)
            if len(s):
                last = max(last, int(e.max()))
                area[k] += float(((e - s) if w is None else (e - s) * w).sum())
        if last:
            length += int(sizes.get(c, last)) if sizes else last
    if area[0] <= 0:
        raise ValueError("the control has no reads: it cannot be a background")
    return area[0] / float(length), area[1] / float(length)


def _frame(chrom: str, runs) -> pd.DataFrame:
    s, e, n = runs
    # one category: 1 byte a row, and no pass over the rows where the ids are checked
    name = pd.Categorical.from_codes(np.zeros(len(s), np.int8), [chrom])
    return pd.DataFrame({"chrom": name, "chromStart": s.astype(np.int64, copy=False),
                         "chromEnd": e.astype(np.int64, copy=False),
                         "count": n.astype(np.int64, copy=False)}, copy=False)


def _quiet(_msg: str) -> None:
    return None


def _empty_segments() -> pd.DataFrame:
    return pd.DataFrame({"sample_id": pd.Series([], dtype=object),
                         "chrom": pd.Series([], dtype=object),
                         "chromStart": pd.Series([], dtype=np.int64),
                         "chromEnd": pd.Series([], dtype=np.int64),
                         "mean": pd.Series([], dtype=float),
                         "status": pd.Series([], dtype=object)})


def control_chromosome(chrom: str, treat: ReadArrays, ctrl: ReadArrays, opts: dict
                       ) -> dict:
    """Pass 1 of a chromosome with a control: the control's PeakSeg segments (its model
    at its own penalty) and :func:`~penlearn.peaks.peakseg.controls.segment_levels`' bases,
    control and treatment means of each (for the genome-wide typical levels).
    Returns ``segments``, ``levels`` (bases, control means, treatment means), ``level``
    (:func:`chrom_level`'s, of the same treatment pileup), ``phases`` and ``warnings``."""
    from penlearn.cli._common import _Reporter
    from penlearn.cli.peaks import _log_lambda  # the commands' layer

    _return_freed_memory()
    clock = PhaseClock()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with clock("pileup"):
            control_cov = _frame(chrom, chrom_pileup(ctrl, chrom, opts["d"], opts["shift"]))
        with clock("control model"):
            c_segs = _empty_segments()
            if len(control_cov):
                control_cov["sample_id"] = pd.Categorical.from_codes(  # 1 byte a row
                    np.zeros(len(control_cov), np.int8), ["control"])
                log_lambda, windows = _log_lambda(opts["penalty_args"], control_cov,
                                                  _Reporter(True), opts["sizes"], "controls",
                                                  filtered=False)  # the model's own λ
                c_segs = binned_segments(control_cov, log_lambda, windows, CONTROL_BIN)
        del control_cov
        with clock("pileup"):  # (after the control's model: less memory at once)
            runs = chrom_pileup(treat, chrom, opts["d"], opts["shift"])
            level = _level_of(runs)  # (chrom_level's: this pileup made once)
            treat_cov = _frame(chrom, runs)
            del runs
        with clock("background"):
            parts = segment_levels(treat_cov, c_segs)
            levels = tuple(np.concatenate([p[k] for p in parts]) if parts else np.zeros(0)
                           for k in (3, 2, 4, 5))
            levels = (levels[0] - levels[1], levels[2], levels[3])
    del treat_cov, parts
    _return_freed_memory(trim=True)
    return {"segments": c_segs, "levels": levels, "level": level, "phases": clock.times,
            "warnings": [(w.category, str(w.message)) for w in caught]}


def call_chromosome(chrom: str, treat: ReadArrays | FragmentStarts, ctrl: ReadArrays | None,
                    opts: dict, c_segs: pd.DataFrame | None = None) -> dict:
    """The peaks of one chromosome (``treat`` / ``ctrl`` hold that chromosome's reads,
    or ``treat`` its fragments' starts, :func:`_first_pass`; ``c_segs`` the control's
    segments there, from :func:`control_chromosome`).

    ``opts``: ``d`` (fragment size), ``shift``, ``penalty_args`` (the command's
    arguments), ``rule`` (the control rule), ``levels`` (the genome-wide ``(c₀, t₀)``),
    ``sizes``, ``control_scale``, ``bdg_dir`` (None: no bedGraph pieces), ``broad`` and
    ``finer`` (``--broad``: :func:`~penlearn.peaks.peakseg.broad.predict_broad`). Returns
    ``calls`` (the peak rows before the genome-wide columns, with ``summit``, ``pileup``
    and ``control_up``: the control is up there, filter rule; only those that may pass
    ``-q`` / ``-p``, :func:`_candidates`), ``population`` (every call's ``mean`` and
    ``pValue`` and the kept ones' rows, for the genome-wide columns), ``area`` and ``bases`` of
    the treatment's pileup, ``phases`` (:class:`PhaseClock` times) and ``warnings``
    (``(category, message)``).
    """
    from penlearn.cli._common import _Reporter
    from penlearn.cli.peaks import _log_lambda  # the commands' layer

    _return_freed_memory()
    clock = PhaseClock()
    args = opts["penalty_args"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with clock("pileup"):  # (the reads, or their fragments' starts: _first_pass)
            treat_cov = _frame(chrom, treat.pileup() if isinstance(treat, FragmentStarts)
                               else chrom_pileup(treat, chrom, opts["d"], opts["shift"]))
        with clock("features"):  # (before the control's tables: less memory at once)
            log_lambda, windows = _log_lambda(args, treat_cov, _Reporter(True),
                                              opts["sizes"])
            # the windows' filled rows, freed, are ~60 MB of glibc's heap at chr1 (small
            # blocks): given back before the solves, not under them (issue 55)
            _return_freed_memory(trim=True)
        cov, control_cov, lam = treat_cov, None, None
        if ctrl is not None:
            with clock("pileup"):
                control_cov = _frame(chrom, chrom_pileup(ctrl, chrom, opts["d"],
                                                         opts["shift"]))
        candidates = _with_floor(opts.get("candidates"), treat_cov, control_cov,
                                 opts.get("control_scale"))
        if ctrl is not None:
            if opts["rule"] == "background" or opts.get("bdg_dir"):
                with clock("background"):  # (-B: the control's level under either rule)
                    lam = control_background(treat_cov, control_cov, c_segs,
                                             chrom_sizes=opts["sizes"],
                                             levels=opts["levels"])
                if opts["rule"] == "background":
                    cov = lam
        # the pileups the solve does not read are made again after it, not held then
        again = ctrl is not None and control_cov is not None
        if again:
            treat_cov = treat_cov if cov is treat_cov else None
            control_cov = None
        with clock("solve"):
            if opts.get("broad"):  # each broad domain one call
                segs = predict_broad(cov, log_penalty=log_lambda, windows=windows,
                                     finer=opts.get("finer"), penalty_of=lambda rows: (
                                         _log_lambda(args, rows, _Reporter(True),
                                                     opts["sizes"])[0]))
            else:
                segs = _window_segments(cov, log_lambda, windows, candidates)
            candidates = None
            # (its text columns as categories while the calls are made: ~20 MB less for
            # chr1's 280,000 segments; the calls' columns made text again below)
            segs, seg_text = _as_categories(segs)
        if again:
            with clock("pileup"):
                treat_cov, control_cov = _pileups_again(chrom, treat, ctrl, opts, treat_cov)
        if opts.get("bdg_dir") and lam is not None:
            with clock("write"):
                np.save(Path(opts["bdg_dir"]) / f"{chrom}.lambda.npy", np.stack([
                    lam["chromStart"].to_numpy(float), lam["chromEnd"].to_numpy(float),
                    lam["background"].to_numpy(float)]))
        cov = lam = None  # (the background's rows: not needed by the calls)
        with clock("calls"):
            scale = {} if control_cov is None else {
                "control": control_cov, "control_scale": opts["control_scale"]}
            calls = peak_calls(segs, treat_cov, genome_level=opts["genome_level"],
                               level_shifts=TRIM_LEVEL_SHIFTS or not opts.get("broad"),
                               screen=_screen(opts), **scale)
            calls = _as_text(calls, {c: t for c, t in seg_text.items() if c in calls})
            if opts.get("broad") and control_cov is not None:  # not up in the control
                calls = calls[above_control(calls, treat_cov, control_cov)].reset_index(
                    drop=True)
            # dropped after the genome-wide scores and q-values (which count them)
            calls["control_up"] = False
            if control_cov is not None and opts["rule"] == "filter":
                calls["control_up"] = mark_control_peaks(
                    calls, c_segs[c_segs["status"] == "peak"])["control_up"].to_numpy()
            summit = calls["chromStart"].to_numpy(np.int64) + calls["summit"].to_numpy(
                np.int64)
            calls["pileup"] = _pileup_at(treat_cov, summit)
            calls = calls.drop(columns=["score", "qValue"])  # over all peaks: rescore
            calls, population = _candidates(calls, opts)
            calls, text = _as_categories(calls)  # (held to the end of the genome)
        if opts.get("bdg_dir"):
            with clock("write"):
                np.save(Path(opts["bdg_dir"]) / f"{chrom}.treat.npy", treat_cov[
                    ["chromStart", "chromEnd", "count"]].to_numpy(np.int64).T)
    # (in place: no Series nor product the size of the chromosome's rows at the end)
    bases = np.subtract(treat_cov["chromEnd"].to_numpy(), treat_cov["chromStart"].to_numpy())
    width = float(bases.sum())
    area = float(np.multiply(bases, treat_cov["count"].to_numpy(), out=bases).sum())
    del treat_cov, control_cov, cov, segs, lam
    _return_freed_memory(trim=True)
    return {"calls": calls, "text": text, "population": population, "area": area,
            "bases": width, "phases": clock.times,
            "warnings": [(w.category, str(w.message)) for w in caught]}


def _as_categories(calls: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """``calls`` with its text columns (``chrom``, ``sequence_id``: ~70 bytes a row as
    strings) as categories while every chromosome's are held (1 byte a row), and their
    dtypes for :func:`_as_text`.

    Examples
    --------
    >>> c, text = _as_categories(pd.DataFrame({"chrom": ["chr1", "chr1"], "x": [1, 2]}))
    >>> str(c["chrom"].dtype), _as_text(c, text)["chrom"].tolist()
    ('category', ['chr1', 'chr1'])
    """
    text = {c: calls[c].dtype for c in calls.columns
            if calls[c].dtype == object or isinstance(calls[c].dtype, pd.StringDtype)}
    return calls.astype({c: "category" for c in text}), text


def _as_text(calls: pd.DataFrame, text: dict) -> pd.DataFrame:
    """:func:`_as_categories`' columns back to their dtypes (the same values)."""
    return calls.astype(text) if text else calls


def _pileups_again(chrom: str, treat: ReadArrays, ctrl: ReadArrays, opts: dict,
                   treat_cov: pd.DataFrame | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`call_chromosome`'s treatment (unless ``treat_cov`` is kept) and control
    pileups made again after the solve (the same rows: less memory at its peak, where
    the background's rows, the solver's and the window's are held)."""
    if treat_cov is None:
        treat_cov = _frame(chrom, chrom_pileup(treat, chrom, opts["d"], opts["shift"]))
    return treat_cov, _frame(chrom, chrom_pileup(ctrl, chrom, opts["d"], opts["shift"]))


def _screen(opts: dict) -> float | None:
    """The least ``pValue`` a peak needs to pass ``-q`` / ``-p``
    (:func:`~penlearn.peaks.formats.peak_columns.least_kept_log10p`): the candidates
    surely below it get no summit nor local λ (``peak_calls(..., screen=)``); the
    peaks written are the same. ``opts["screen"] = False``: every candidate's columns."""
    if not opts.get("screen", True):
        return None
    return least_kept_log10p(qvalue=opts.get("qvalue"), pvalue=opts.get("pvalue"))


def _window_segments(cov: pd.DataFrame, log_lambda, windows,
                     candidates: dict | None = None) -> pd.DataFrame:
    """``predict_peaks(cov, log_penalty=log_lambda, windows=windows, segments=True)``
    with one window's rows copied at a time (not every window's before the first solve:
    a whole chromosome's rows less at the peak of memory); with ``candidates``
    (:func:`_candidate_options`), each window solved on its candidate stretches only
    (:func:`~penlearn.peaks.peakseg.candidates.candidate_segments`), background between.

    Examples
    --------
    >>> cov = pd.DataFrame({"chrom": "chr1", "chromStart": range(0, 60, 10),
    ...                     "chromEnd": range(10, 70, 10), "count": [1, 2, 30, 28, 2, 1]})
    >>> _window_segments(cov, np.log(20.0), None)["status"].tolist()
    ['background', 'peak', 'background']
    """
    from penlearn.peaks.peakseg._flanks import uncovered_segments
    from penlearn.peaks.peakseg.evaluation import _solve_window, _windows_of, _with_ids
    from penlearn.peaks.peakseg.penalty import log_penalty_of

    log_lambda = log_penalty_of(log_penalty=log_lambda)
    out = []
    for name, sid, gw in _windows_of(cov, windows):
        if isinstance(log_lambda, pd.Series):
            if name not in log_lambda.index:
                raise ValueError(f"log_penalty has no value for window {name!r}")
            value = float(log_lambda.loc[name])
        else:
            value = float(log_lambda)
        if np.isnan(value):
            raise ValueError(f"log_lambda of window {name!r} is NaN")
        if candidates is None:
            out.append(_with_ids(_solve_window(gw, value, name, segments=True), value,
                                 name, sid))
        else:
            from penlearn.peaks.peakseg.candidates import candidate_segments
            from penlearn.peaks.peakseg.solver import _Data

            # (the solver's columns, the window's frame dropped: only its starts are
            # kept, by them; issue 55)
            data, gw = _Data.from_coverage(gw), None
            seg = candidate_segments(data, value, **candidates)
            data = None
            if len(seg):
                out.append(_with_ids(seg, value, name, sid))
        del gw
        _return_freed_memory(trim=True)  # (the window's freed heap: not under the next)
    if not out and candidates is None:
        raise ValueError("coverage has no rows")
    if not out:  # (no candidate stretch in any window: background throughout)
        empty = _empty_segments().assign(sequence_id=pd.Series([], dtype=object),
                                          log_lambda=pd.Series([], dtype=float))
        return uncovered_segments(empty if "sample_id" in cov.columns else
                                  empty.drop(columns="sample_id"), cov)
    return uncovered_segments(pd.concat(out, ignore_index=True), cov)


def _candidate_options(opts: dict, level: tuple, histograms: list) -> dict | None:
    """The :func:`~penlearn.peaks.peakseg.candidates.candidate_segments` options of
    every window of the genome (``opts["solve"]``: ``"candidates"``, the default, else
    None: every row solved), from the genome's ``level`` and its rows' count
    ``histograms``: the bound on a passing call's p-value under ``-p`` or ``-q`` (None
    without a cutoff, or with ``--broad``: every row solved)."""
    from penlearn.peaks.peakseg.candidates import cutoff_bound

    if opts.get("solve", "candidates") != "candidates" or opts.get("broad"):
        return None
    total, bases, d = level
    if not bases > 0 or not total > 0:
        return None
    if opts.get("pvalue") is not None:
        log10_p = math.log10(opts["pvalue"])
    elif opts.get("qvalue") is not None:
        hist = np.sum([np.asarray(h, float) for h in histograms], axis=0)
        log10_p = cutoff_bound(hist, total / bases, 4 * bases / d, opts["qvalue"])
    else:
        return None
    return {"level": total / bases, "fragment": d, "log10_p": log10_p}


def _with_floor(candidates: dict | None, treat_cov: pd.DataFrame,
                control_cov: pd.DataFrame | None, control_scale) -> dict | None:
    """``candidates`` (:func:`_candidate_options`) with the chromosome's bound on the
    local λ of its calls' tests (:func:`~penlearn.peaks.peakseg.candidates.local_floor`:
    the control's windows times its scale, else the treatment's own; seeds where the
    local λ is high are not seeds)."""
    if candidates is None:
        return None
    from penlearn.peaks.formats.peak_columns import CONTROL_WINDOWS, OWN_WINDOWS
    from penlearn.peaks.peakseg.candidates import local_floor

    own = control_cov is None
    cov = treat_cov if own else control_cov
    runs = (cov["chromStart"].to_numpy(np.int64), cov["chromEnd"].to_numpy(np.int64),
            cov["count"].to_numpy())  # (views: no copies)
    if own:  # (the treatment's rows are held anyway: each window's bins from them)
        return {**candidates, "floor_runs": (runs, OWN_WINDOWS, 1.0)}
    return {**candidates, "floor": local_floor(runs, CONTROL_WINDOWS, control_scale)}


def _pileup_at(cov: pd.DataFrame, pos: np.ndarray) -> np.ndarray:
    s, e = cov["chromStart"].to_numpy(), cov["chromEnd"].to_numpy()
    k = np.searchsorted(s, pos, side="right") - 1
    kk = np.maximum(k, 0)
    inside = (k >= 0) & (pos < e[kk]) if len(s) else np.zeros(len(pos), bool)
    return np.where(inside, cov["count"].to_numpy()[kk] if len(s) else 0, 0).astype(np.int64)


def _part(reads: ReadArrays | None, chrom: str) -> ReadArrays | None:
    """The reads of one chromosome (what a worker is sent)."""
    if reads is None:
        return None
    part = {chrom: reads.chroms[chrom]} if chrom in reads.chroms else {}
    return ReadArrays(reads.paired, part, reads.sizes)


def _emit_warnings(caught: list) -> None:
    """Each kind of warning once: the first chromosome's message, and how many more
    chromosomes gave one like it."""
    kinds: dict = {}
    for cat, msg in caught:
        kinds.setdefault((cat, msg[:40]), []).append(msg)
    for (cat, _), msgs in kinds.items():
        more = len(msgs) - 1
        warnings.warn(msgs[0] + (f" (and as much on {more} more chromosome(s))" if more
                                 else ""), cat, stacklevel=3)


def chrom_level(chrom: str, treat: ReadArrays, d, shift: int) -> tuple:
    """:func:`~penlearn.peaks.formats.peak_columns.genome_level`'s ``(total, bases,
    depth)`` of one chromosome's fragment pileup, and its rows' counts
    (:func:`~penlearn.peaks.peakseg.candidates.count_histogram`)."""
    return _level_of(chrom_pileup(treat, chrom, d, shift))


def _level_of(runs) -> tuple:
    from penlearn.peaks.peakseg.candidates import count_histogram

    return (*genome_level(runs), count_histogram(runs[2]))


def _first_pass(kind: str, *args):
    """A task of :func:`call_genome`'s first batch: ``"level"`` (:func:`chrom_level`),
    ``"packed"`` (its level and its fragments' starts packed for the second pileup,
    :func:`~penlearn.peaks.formats.fragment_starts.packed_pileup`: 2 bytes a read held
    between the passes, not 5; no second sort) or ``"control"``
    (:func:`control_chromosome`)."""
    if kind == "packed":
        chrom, reads, d, shift = args
        five, reverse, _ = reads.chroms[chrom]
        runs, starts = packed_pileup(five, reverse, d, shift, (reads.sizes or {}).get(chrom))
        return _level_of(runs), starts
    return (chrom_level if kind == "level" else control_chromosome)(*args)



def _levels(results: dict, fallbacks: tuple[float, float]) -> tuple[float, float]:
    """The genome-wide ``(c₀, t₀)`` from every chromosome's pass-1 levels."""
    b, c, t = (np.concatenate([r["levels"][k] for r in results.values()]) for k in range(3))
    return typical_levels([(None, None, np.zeros(len(b)), b, c, t)], *fallbacks)


def call_genome(treat: ReadArrays, ctrl: ReadArrays | None, opts: dict, report,
                clock: PhaseClock, executor=None) -> tuple[pd.DataFrame, int, dict]:
    """Every chromosome of the treatment through :func:`call_chromosome` (in
    ``executor``'s workers when given, the largest first; else here, the largest last,
    each chromosome's reads dropped from ``treat`` and ``ctrl`` once it is done), after
    :func:`control_chromosome` on each when there is a control (the control's models and
    the genome-wide typical levels of the background); the peaks in the treatment's
    chromosome order with the genome-wide columns, ``-q`` / ``-p`` applied; (peaks,
    dropped, bedGraph info). ``opts["fallbacks"]``: the control's and the treatment's
    genome-wide means (:func:`control_genome_mean`)."""
    chroms = list(treat.chroms)
    sizes = {c: (treat.sizes or {}).get(c) or int(
        treat.chroms[c][1].max() if treat.paired else treat.chroms[c][0].max()) + 1
        for c in chroms}
    # the sample's level of the summits' tests (total, bases, rises) over the genome, by
    # chromosome: in the control's pass (one batch of tasks on the workers) or alone
    by_size = sorted(chroms, key=lambda c: -sizes[c])
    # (without a control, whose pass makes the treatment's pileup itself)
    kind = "packed" if ctrl is None and packable(treat, opts["d"]) else "level"
    tasks = {(kind, c): ((c, _part(treat, c), opts["d"], opts["shift"]), {})
             for c in by_size}
    first, levels, packed = {}, {}, {}
    with contextlib.ExitStack() as stack:
        if ctrl is not None:
            report("the control's model, chromosome by chromosome")
            progress = stack.enter_context(_Progress(report, sizes, "control"))
            # (each control task gives its chromosome's level too)
            tasks = {("control", c): ((c, _part(treat, c), _part(ctrl, c), opts), {})
                     for c in by_size}

        def first_pass(key, res):
            if key[0] == "packed":
                levels[key[1]], packed[key[1]] = res
                return
            if key[0] == "level":
                levels[key[1]] = res
                return
            first[key[1]] = res
            levels[key[1]] = res["level"]
            clock.merge(res["phases"])
            progress.chromosome(key[1], int((res["segments"]["status"] == "peak").sum()))
        run_tasks(executor, _first_pass, {k: ((k[0], *a), kw) for k, (a, kw) in
                                          tasks.items()}, first_pass)
        del tasks  # (it holds every chromosome's reads: dropped one by one below)
    if packed:  # (the reads now held as their fragments' starts)
        treat.chroms.clear()
    total = bases = rises = 0.0
    for c in chroms:  # in the chromosomes' order: the same sums as one pass
        t_, b_, d_, _ = levels[c]
        total, bases, rises = total + t_, bases + b_, rises + (t_ / d_ if t_ else 0.0)
    level = (total, bases, total / rises if rises > 0 else 1.0)
    opts = {**opts, "genome_level": level,
            "candidates": _candidate_options(opts, level, [levels[c][3] for c in chroms])}
    if ctrl is not None:
        # in one order whatever the order the workers finished in (the largest first)
        opts = {**opts, "levels": _levels({c: first[c] for c in by_size},
                                          opts["fallbacks"])}
        report("the treatment's model, chromosome by chromosome")
    results: dict = {}
    with _Progress(report, sizes) as progress:
        def finish(c, res):
            results[c] = res
            clock.merge(res["phases"])
            progress.chromosome(c, len(res["calls"]))

        def segments_of(c):
            return first[c]["segments"] if c in first else None
        if executor is None:
            # the largest chromosome last, each one's reads dropped once it is done:
            # the largest tables meet the fewest reads still held
            for c in sorted(chroms, key=lambda c: sizes[c]):
                res = call_chromosome(c, packed.pop(c) if packed else _part(treat, c),
                                      _part(ctrl, c), opts, segments_of(c))
                for reads in (treat, ctrl):
                    if reads is not None:
                        reads.chroms.pop(c, None)
                finish(c, res)
        else:
            tasks = {c: ((c, packed.pop(c) if packed else _part(treat, c), _part(ctrl, c),
                          opts, segments_of(c)), {})
                     for c in sorted(chroms, key=lambda c: -sizes[c])}  # largest first
            run_tasks(executor, call_chromosome, tasks, finish)
    caught = [w for c in chroms for w in (*first.get(c, {}).get("warnings", []),
                                          *results[c]["warnings"])]
    _emit_warnings(caught)
    parts = [_as_text(results[c]["calls"], results[c]["text"]) for c in chroms
             if len(results[c]["calls"])]
    calls = pd.concat(parts, ignore_index=True) if parts else _as_text(
        results[chroms[0]]["calls"], results[chroms[0]]["text"])
    del parts
    summit = calls.pop("summit").to_numpy(np.int64)
    keep = calls[["pileup", "control_up"]]
    calls = genome_columns(  # over all peaks, those dropped by _candidates too
        calls.drop(columns=["pileup", "control_up"]),
        _population(results, chroms, len(calls)),
        4 * level[1] / level[2] if level[1] > 0 else 1.0)
    calls["summit"] = summit
    calls[["pileup", "control_up"]] = keep.to_numpy()
    calls = significant(calls, qvalue=opts.get("qvalue"), pvalue=opts.get("pvalue"))
    up = calls["control_up"].to_numpy(bool)
    pileup = calls["pileup"].to_numpy(np.int64)[~up]
    calls = calls[~up].drop(columns=["pileup", "control_up"]).reset_index(drop=True)
    info = {"area": sum(r["area"] for r in results.values()),
            "bases": sum(r["bases"] for r in results.values()), "pileup": pileup,
            "chroms": chroms}
    return calls, int(up.sum()), info


def write_bedgraphs(bdg_dir: Path, chroms: list, files: dict, info: dict, scale: float
                    ) -> None:
    """``-B``: the treatment's pileup and the control's λ bedGraphs from the pieces of
    :func:`call_chromosome`, chromosome after chromosome into a staged file, renamed (the
    lines of :func:`~penlearn.peaks.formats.bed.bedgraph_bytes`, in chunks), touching
    rows of one value merged (:func:`~penlearn.peaks.formats.bed.merge_equal_runs`: the
    λ is constant over many of the treatment's rows, and MACS3 writes it so)."""
    mean = info["area"] / info["bases"]
    for key in ("treat", "lambda"):
        if key not in files:
            continue
        with staged_file(Path(files[key])) as tmp, open(tmp, "wb") as fh:
            for c in chroms:
                s, e, v = np.load(bdg_dir / f"{c}.{key}.npy")
                v = v * mean if key == "lambda" else v
                if scale != 1.0:
                    v = (v * scale).round(5)
                s, e, v = merge_equal_runs(s, e, v)  # (λ: one row where it is constant)
                for chunk in bedgraph_bytes(c, s, e, v):
                    fh.write(chunk)
