"""Run ``penlearn`` with the narrow rule's shift δ set (``benchmarks/narrow_rule.py``'s
sweep): ``python benchmarks/_rule_runner.py DELTA callpeak ...``. Only the narrow mark's
``ZeroLabelModel.shift`` changes; everything else is the command as shipped."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from penlearn.peaks.pretrained import zero_label  # noqa: E402

DELTA = float(sys.argv[1])
_init = zero_label.ZeroLabelModel.__init__


def _init_with_delta(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    if self.mark == "narrow" and self.qvalue is not None:
        self.shift = DELTA


zero_label.ZeroLabelModel.__init__ = _init_with_delta

if __name__ == "__main__":
    from penlearn.cli.main import main

    sys.exit(main(sys.argv[2:]))
