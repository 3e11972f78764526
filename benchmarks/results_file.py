"""Shared by the benchmark scripts: replace one ``## <name>`` section of RESULTS.md.

The file is rewritten atomically (temporary file, then rename); the other sections are
kept as they are.
"""

from __future__ import annotations

from pathlib import Path

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
