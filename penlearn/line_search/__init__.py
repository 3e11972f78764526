"""The exact AUM/AUC line search of Fowler & Hocking (2024) and the grid baseline.

"Efficient line search for optimizing Area Under the ROC Curve in gradient descent":
along a descent direction every breakpoint is a threshold line in the step size, AUM is
piecewise linear and AUC piecewise constant between intersections of adjacent lines.

Modules
-------
kernel      the sweep kernel: state after one sort, O(1) updates per swap, exact clusters
search      drivers and public API (sequential, batched, bracketing), result paths
batched     vectorised batches of independent swaps (count-limited searches)
blocks      brackets of events handled with vectorised updates (first-min, count rules)
first_min   sub-quadratic first-minimum search for monotone error functions
skip        exact first-minimum search for any error functions: certified skips
nth_event   the n-th event (the "linear" rule's last) from two sorts, and a slope bound
grid        the grid-of-step-sizes baseline
step        the step of each gradient-descent variant and the matching stop rule
"""

from penlearn.line_search._common import breakpoint_lines
from penlearn.line_search.first_min import FirstMinResult, first_min_monotone
from penlearn.line_search.grid import GRID_STEP_SIZES, grid_search
from penlearn.line_search.result import LineSearchResult
from penlearn.line_search.search import (
    aum_path,
    line_search,
    line_search_linear,
    line_search_lines,
)
from penlearn.line_search.step import STEP_VARIANTS, choose_step, descent_should_stop

__all__ = [
    "GRID_STEP_SIZES",
    "FirstMinResult",
    "LineSearchResult",
    "STEP_VARIANTS",
    "aum_path",
    "breakpoint_lines",
    "choose_step",
    "descent_should_stop",
    "first_min_monotone",
    "grid_search",
    "line_search",
    "line_search_linear",
    "line_search_lines",
]
