"""One BLAS thread while learning: the vectors are long enough to start OpenBLAS's
threads and far too short to pay for them.

The line searches and AUM take dot products over the breakpoints (about 10^4 on the 17
ChIP-seq sets pooled). OpenBLAS splits a dot product of that length over its threads; on
a busy 2-core machine one such call was measured at 21 ms wall / 8 ms CPU against 8 µs
with one thread (``benchmarks/RESULTS.md``, "fit_speed"). The work of a fit is sequential
anyway: no learner gains from BLAS threads.
"""

from __future__ import annotations

import contextlib


def one_blas_thread():
    """A context manager limiting BLAS to one thread (threadpoolctl, a scikit-learn
    dependency; no-op without it).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float(np.dot(np.ones(20000), np.ones(20000)))
    20000.0
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn brings it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
