"""Progress bars (issue 54 item 4): none where stderr cannot redraw them (a log file, a
pipe), so a redirected log holds no ``\\r`` lines; a terminal and PENLEARN_PROGRESS=1
still get them."""

from __future__ import annotations

import os
import subprocess
import sys

from penlearn._progress import shows_bars, tqdm


class _Tty:
    def isatty(self):
        return True

    def write(self, text):
        pass

    def flush(self):
        pass


def test_a_bar_shows_only_where_it_can_redraw(monkeypatch, tmp_path):
    monkeypatch.delenv("PENLEARN_PROGRESS", raising=False)
    log = tmp_path / "log"
    with open(log, "w") as f:
        assert not shows_bars(f)
        with tqdm(total=3, file=f) as bar:
            bar.update(3)
    assert log.read_text() == ""
    assert shows_bars(_Tty())
    monkeypatch.setenv("PENLEARN_PROGRESS", "1")
    assert shows_bars(open(log))  # noqa: SIM115 (asked for)


def test_a_redirected_command_log_has_no_carriage_returns(tmp_path):
    """``penlearn segment`` on a redirected stderr: its lines, no bar's redraws."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    seqs = pd.DataFrame({"sequence_id": np.repeat(["a", "b"], 200),
                         "position": np.tile(np.arange(200), 2),
                         "value": rng.normal(size=400)})
    path = tmp_path / "sequences.csv"
    seqs.to_csv(path, index=False)
    log = tmp_path / "stderr.log"
    env = {k: v for k, v in os.environ.items() if k != "PENLEARN_PROGRESS"}
    with open(log, "w") as err:
        proc = subprocess.run([sys.executable, "-m", "penlearn.cli", "segment", str(path),
                               "--max-segments", "3", "--out", str(tmp_path / "out")], stderr=err,
                              stdout=subprocess.PIPE, text=True, env=env, timeout=600)
    text = log.read_text()
    assert proc.returncode == 0, text
    assert "\r" not in text
