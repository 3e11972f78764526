"""Shared by the benchmark scripts: replace one ``## <name>`` section of RESULTS.md.

The file is rewritten atomically (temporary file, then rename); the other sections are
kept as they are.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from penlearn.atomic_files import write_text_atomic

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(section: str, text: str, path: Path = RESULTS) -> None:
    """Replace (or append) the section whose heading line is ``section``."""
    old = path.read_text() if path.exists() else "# Benchmark results\n"
    start = old.find(section + "\n")
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n"
    else:
        nxt = old.find("\n## ", start + len(section))
        new = old[:start] + text.rstrip("\n") + "\n" + (old[nxt:] if nxt >= 0 else "")
    write_text_atomic(path, new)


def markdown_table(rows) -> list[str]:
    """Lines of a markdown table of ``rows`` (dicts, one per row): floats with 2 decimals,
    integers with thousands separators."""
    table = pd.DataFrame(rows)
    md = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    for r in table.itertuples(index=False):
        md.append("| " + " | ".join(
            f"{v:.2f}" if isinstance(v, float) else f"{v:,}"
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            else str(v) for v in r) + " |")
    return md
