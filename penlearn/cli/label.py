"""The command ``label``: the labeling page in the browser (:mod:`penlearn.label`).

``penlearn label COVERAGE... --labels labels.csv`` serves the page on 127.0.0.1, prints a
link (with a one-time token) and opens the browser on another one through a private
file (as Jupyter does: the token is never on the browser's command line, seen by
``ps``); it serves until Ctrl-C, which ends it at once. Every label is written to
``--labels`` at once (atomically), so stopping the command, or killing it, loses
nothing; the same command later resumes.
"""

from __future__ import annotations

import html
import os
import shutil
import signal
import sys
import tempfile
import threading
import webbrowser
from pathlib import Path

from penlearn.atomic_files import check_output
from penlearn.cli._common import (
    _load_model,
    _Reporter,
    non_negative_int,
    plural,
    positive_int,
)
from penlearn.label.labels_file import check_labels_path, hold_labels_lock
from penlearn.label.server import LabelServer, check_listen
from penlearn.label.state import LabelState
from penlearn.peaks.formats.chrom_sizes import coverage_chrom_sizes
from penlearn.peaks.formats.coverage import coverage_files, read_coverage
from penlearn.peaks.label_windows import DEFAULT_WINDOW_BASES
from penlearn.peaks.peakseg._store import warm
from penlearn.peaks.peakseg.evaluation import DEFAULT_MAX_PEAKS
from penlearn.peaks.pretrained import ZeroLabelModel

__all__ = ["cmd_label", "register"]


def _check_labels_path(labels: Path, coverage: list[str]) -> None:
    """The labels file is written: a writable file (:func:`~penlearn.label.state.
    check_labels_path`), not a coverage file."""
    check_labels_path(labels)
    inputs = []
    for c in coverage:
        p = Path(c)
        inputs += [f for _, f in coverage_files(p)] if p.is_dir() else [p]
    for p in inputs:
        if p.resolve() == labels.resolve():
            raise ValueError(f"--labels {labels} is a coverage input: give another file")


def _browser_file(url: str) -> Path:
    """A file only this user can read (0600, in a 0700 folder) that sends the browser on
    to ``url``: the browser's command line names the file, never the token."""
    folder = Path(tempfile.mkdtemp(prefix="penlearn-label-"))
    page = folder / "open.html"
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    link = html.escape(url, quote=True)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" '
                 f'content="0;url={link}"><title>penlearn label</title>'
                 f'<p><a href="{link}">open the labeling page</a></p>\n')
    return page


def _serve(server, state, labels: Path, opened: Path | None) -> None:
    """Serve until Ctrl-C, then end at once: a second Ctrl-C is ignored (no traceback),
    and the computations in flight are not waited for (every label is on disk); the
    browser's file (``opened``) is removed."""
    main = threading.current_thread() is threading.main_thread()

    def interrupted(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    if main:
        signal.signal(signal.SIGINT, interrupted)
    stopped = False
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        stopped = True
        print("penlearn label: stopped; every label is in " + str(labels), file=sys.stderr,
              flush=True)
    finally:
        server.server_close()
        state.close()
        if opened is not None:
            shutil.rmtree(opened.parent, ignore_errors=True)
    if stopped and main:
        # the paths being computed would hold the interpreter's exit (its thread pools
        # are joined) for as long as they run: end now, between two writes of the file
        hold_labels_lock(state.labels_path, timeout=1.0)
        sys.stdout.flush()
        os._exit(0)


def cmd_label(args) -> int:
    labels = Path(args.labels)
    _check_labels_path(labels, args.coverage)
    out = None if args.out is None else Path(args.out)
    if out is not None:
        check_output(out, directory=False, force=args.force,
                     inputs=[*args.coverage, labels, args.model])
    report = _Reporter(args.quiet)
    model = None if args.model is None else _load_model(args.model, task="peaks")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"penlearn label: warning: listening on {args.host}: anyone who reaches this "
              "address and has the URL's token can read the coverage and change the labels",
              file=sys.stderr)
    check_listen(args.host, args.port)  # a port in use: said before the work
    warm(say=not args.quiet)  # compiled before the page asks for peaks
    paths = args.coverage[0] if len(args.coverage) == 1 else list(args.coverage)
    coverage = read_coverage(paths, progress=not args.quiet)
    mark = "broad" if args.broad else "narrow"
    if model is None:
        report.notice(f"penlearn label: no --model: using {ZeroLabelModel(mark).notice()}")
    report(f"windows of at most {args.window_size:,} bases, peaks of the "
           f"{'given' if model is not None else 'shipped zero-label'} model")
    state = LabelState(coverage, labels, model=model, model_out=out, mark=mark,
                       window_bases=args.window_size, max_peaks=args.max_peaks,
                       chrom_sizes=coverage_chrom_sizes(paths))  # (headers: as peaks)
    if len(state.labels):
        report(f"resuming: {len(state.labels)} labels in {labels}")
    server = LabelServer(state, host=args.host, port=args.port,
                         start_window=state.resume_window())
    state.prepare(server.start_window)
    print(f"penlearn label: {plural(len(state.samples), 'sample')}, "
          f"{plural(len(state.windows), 'window')}; "
          f"labels are saved to {labels}"
          + (f", the model to {out}" if out is not None else "")
          + "\npenlearn label: open this link (it opens the page once; Ctrl-C stops the "
          f"server):\n    {server.link()}", flush=True)
    opened = None
    if not args.no_browser:
        opened = _browser_file(server.link())
        threading.Thread(target=webbrowser.open, args=(opened.as_uri(),),
                         daemon=True).start()
    _serve(server, state, labels, opened)
    return 0


def register(add) -> None:
    """``penlearn label``: its subparser (``add(name, help, handler)``) and arguments."""
    p = add("label", "label peaks in the browser: a local page shows one window of the "
            "coverage at a time in igv.js; select a region on the ruler (shift-drag) and "
            "press n (noPeaks), s (peakStart), e (peakEnd) or p (peaks); each label is "
            "saved to --labels, the penalty re-learned and the peaks redrawn at once",
            cmd_label, force_help="replace an existing --out model file")
    p.add_argument("coverage", nargs="+", metavar="COVERAGE",
                   help="bedGraph / bigWig / BAM files (one per sample), a coverage.csv "
                   "with sample_id, or a folder of them (as penlearn peaks)")
    p.add_argument("--labels", required=True, metavar="LABELS.csv",
                   help="the labels file: read if it exists (the page resumes), written "
                   "atomically after every change (sample_id, chrom, chromStart, chromEnd, "
                   "annotation: what penlearn learn and penlearn errors read)")
    p.add_argument("--model", default=None, metavar="MODEL.json",
                   help="the model before any label (default: the shipped zero-label "
                   "model); the prior of every refit when it is a linear model (else the "
                   "shipped model, the prior penlearn learn uses)")
    p.add_argument("--broad", action="store_true",
                   help="a broad mark (H3K36me3, H3K27me3, H3K9me3, H3K4me1): the shipped "
                   "model's level of broad marks, as penlearn peaks --broad (default: "
                   "narrow marks, as penlearn peaks)")
    p.add_argument("--out", default=None, metavar="MODEL.json",
                   help="where the page's 'Save model' button writes the learned model "
                   "(what penlearn learn writes; without --out the button is off)")
    p.add_argument("--window-size", type=positive_int, default=DEFAULT_WINDOW_BASES,
                   metavar="BASES",
                   help="longest window shown at a time (default: %(default)s)")
    p.add_argument("--max-peaks", type=non_negative_int, default=DEFAULT_MAX_PEAKS,
                   metavar="K",
                   help="bound of each window's path of peak models, computed once per "
                   "window shown (default: %(default)s, as penlearn learn)")
    p.add_argument("--port", type=non_negative_int, default=0,
                   help="port to listen on (default: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: %(default)s, this machine only; "
                   "another address is warned about)")
    p.add_argument("--no-browser", action="store_true",
                   help="print a link only (it opens the page once), do not open a browser")
