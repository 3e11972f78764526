"""The labeling page: ``penlearn label`` and :func:`label_page`.

A loopback web server with a random token shows the coverage of one window at a time in
igv.js (vendored: ``static/igv.min.js``, its MIT license beside it, refreshed by
``vendor_igv.sh``); a region selected on the ruler and a key make a label, written
atomically to the labels file; the penalty is re-learned and the peaks redrawn at once.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pandas as pd

__all__ = ["LabelPage", "label_page"]


class LabelPage:
    """A running labeling page (from :func:`label_page`): ``url`` (a new one-time link at
    every read), ``headers`` (for a script driving its HTTP API), ``stop()``, and an
    IFrame in Jupyter.

    Examples
    --------
    >>> LabelPage.__name__
    'LabelPage'
    """

    def __init__(self, server):
        self.server = server

    @property
    def url(self) -> str:
        """A new link to the page: its address with a one-time token (a browser tab
        trades it for the page's secret; a second use is refused)."""
        return self.server.link()

    @property
    def address(self) -> str:
        """The page's address, without a token."""
        return self.server.address

    @property
    def headers(self) -> dict[str, str]:
        """The header a script sends with every request of the page's HTTP API
        (docs/how-to/label-page.md)."""
        from penlearn.label.server import TOKEN_HEADER
        return {TOKEN_HEADER: self.server.secret}

    @property
    def state(self):
        """The page's :class:`~penlearn.label.state.LabelState` (labels, model)."""
        return self.server.state

    def stop(self) -> None:
        """Stop the server (the labels file holds every label made)."""
        self.server.stop()

    def _repr_html_(self) -> str:
        import html
        return (f'<iframe src="{html.escape(self.url)}" width="100%" height="800" '
                f'style="border:1px solid #ccc"></iframe>')

    def __repr__(self) -> str:
        return f"LabelPage({self.address}; .url gives a link)"


def label_page(coverage, labels: str | os.PathLike, *, model=None,
               model_out: str | os.PathLike | None = None,
               window_bases: int | None = None, max_peaks: int | None = None,
               host: str = "127.0.0.1", port: int = 0, mark: str = "narrow") -> LabelPage:
    """Start the labeling page of ``coverage`` in a background thread.

    Parameters
    ----------
    coverage : DataFrame or path
        Coverage (``sample_id, chrom, chromStart, chromEnd, count``) or what
        :func:`penlearn.read_coverage` reads (a file or a folder of samples).
    labels : path
        The labels file: read if it exists (the page resumes), rewritten atomically on
        every change (``sample_id, chrom, chromStart, chromEnd, annotation``).
    model : PenaltyModel or path, optional
        The model before any label (default: the shipped zero-label model).
    model_out : path, optional
        Where the page's "Save model" writes the learned model.
    window_bases, max_peaks : int, optional
        Longest window shown (default
        :data:`~penlearn.peaks.label_windows.DEFAULT_WINDOW_BASES`) and the bound of each
        window's path of peak models (default
        :data:`~penlearn.peaks.peakseg.evaluation.DEFAULT_MAX_PEAKS`).
    host, port : str, int
        Where to listen (default: loopback, any free port).
    mark : {"narrow", "broad"}
        The level of the shipped zero-label model (:func:`penlearn.shipped_model`),
        as ``penlearn peaks`` (``"broad"``: its ``--broad``).

    Returns
    -------
    LabelPage
        ``.url`` (a new one-time link at every read), ``.stop()``; shown as an IFrame
        in Jupyter.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> cov = pd.DataFrame({"sample_id": "a", "chrom": "chr1", "chromStart": [0, 100],
    ...                     "chromEnd": [100, 200], "count": [1, 9]})
    >>> page = label_page(cov, pathlib.Path(tempfile.mkdtemp()) / "labels.csv")
    >>> page.url.startswith("http://127.0.0.1:")
    True
    >>> page.stop()
    """
    from penlearn.label.labels_file import check_labels_path
    from penlearn.label.server import LabelServer
    from penlearn.label.state import LabelState
    from penlearn.learn import PenaltyModel
    from penlearn.peaks.formats.coverage import read_coverage
    from penlearn.peaks.label_windows import DEFAULT_WINDOW_BASES
    from penlearn.peaks.peakseg.evaluation import DEFAULT_MAX_PEAKS

    check_labels_path(labels)  # (a read-only file, a pipe, a link loop: before any work)
    if model_out is not None:  # the command's checks of --out, before any work
        from penlearn.atomic_files import check_output
        inputs = [labels] + ([model] if isinstance(model, (str, os.PathLike)) else [])
        if isinstance(coverage, (str, os.PathLike)):
            inputs.append(coverage)
        elif isinstance(coverage, (list, tuple)):
            inputs += [c for c in coverage if isinstance(c, (str, os.PathLike))]
        check_output(Path(model_out), directory=False, force=True, inputs=inputs,
                     option="model_out")
    if not isinstance(coverage, pd.DataFrame):
        coverage = read_coverage(coverage)
    if model is not None and not isinstance(model, PenaltyModel):
        model = PenaltyModel.load(model, task="peaks")
    if host not in ("127.0.0.1", "localhost", "::1"):
        warnings.warn(f"the labeling page listens on {host}: anyone who can reach it and "
                      "has the URL's token can read the coverage and change the labels",
                      UserWarning, stacklevel=2)
    state = LabelState(coverage, labels, model=model, model_out=model_out, mark=mark,
                       window_bases=DEFAULT_WINDOW_BASES if window_bases is None
                       else window_bases,
                       max_peaks=DEFAULT_MAX_PEAKS if max_peaks is None else max_peaks)
    server = LabelServer(state, host=host, port=port, start_window=state.resume_window())
    return LabelPage(server.start())
