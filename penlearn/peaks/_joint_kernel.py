"""numba kernels of the exact joint peak model (:mod:`penlearn.peaks.joint`).

One window, S samples on a common grid of positions ``pos`` (0 = window start, ``pos[-1]``
= N bases); ``cy[s, i]`` is sample s's count summed over bases ``[0, pos[i])``. A peak
``[a, b)`` = ``[pos[i], pos[j])`` splits each sample into three segments; the Poisson loss
of a segment with W bases and count sum Y at its best mean Y / W is
``f(W, Y) = Y − Y log(Y / W)`` (0 when Y = 0), PeakSeg's loss without the log y! term
(Hocking et al. 2020, JMLR). The up-down constraint (inside mean >= both outside means,
non-strict as in PeakSeg) makes the best 3-segment loss of one sample the smallest loss
among the *feasible* ones of: the free 3-mean fit, the fit with segments 1-2 pooled, with
segments 2-3 pooled, and the flat fit (the constrained optimum is the free optimum of its
own active set, which is feasible, and every feasible pooled fit is a feasible model).
Its *decrease* is flat loss − that loss (>= 0). The best model with k units (samples,
or groups of samples that are up together) up at a given peak takes the k largest unit
decreases (Hocking & Bourque 2015, arXiv:1506.01286, define the model; the top-k form
of its optimum is ours).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def seg_loss(W, Y):
    """Best Poisson loss of one segment of W bases and count sum Y."""
    if Y <= 0.0:
        return 0.0
    return Y - Y * math.log(Y / W)


@numba.njit(cache=True)
def constrained_loss(W1, Y1, W2, Y2, W3, Y3):
    """Best loss of one sample with segments (W1, Y1), (W2, Y2), (W3, Y3), inside mean
    >= both outside means (non-strict)."""
    # m2 >= m1  <=>  Y2 W1 >= Y1 W2 (no division; exact on integer-valued floats)
    up1 = Y2 * W1 >= Y1 * W2
    up3 = Y2 * W3 >= Y3 * W2
    if up1 and up3:
        return seg_loss(W1, Y1) + seg_loss(W2, Y2) + seg_loss(W3, Y3)
    best = seg_loss(W1 + W2 + W3, Y1 + Y2 + Y3)
    # segments 1-2 pooled (one change down at b): feasible when pooled mean >= m3
    if (Y1 + Y2) * W3 >= Y3 * (W1 + W2):
        v = seg_loss(W1 + W2, Y1 + Y2) + seg_loss(W3, Y3)
        if v < best:
            best = v
    # segments 2-3 pooled (one change up at a): feasible when pooled mean >= m1
    if (Y2 + Y3) * W1 >= Y1 * (W2 + W3):
        v = seg_loss(W1, Y1) + seg_loss(W2 + W3, Y2 + Y3)
        if v < best:
            best = v
    return best


@numba.njit(cache=True)
def unit_decreases(pos, cy, tot, flat, unit, n_units, i, j, out):
    """Fill ``out[u]`` with unit u's loss decrease for the peak ``[pos[i], pos[j])``."""
    N = pos[pos.shape[0] - 1]
    a = pos[i]
    b = pos[j]
    for u in range(n_units):
        out[u] = 0.0
    for s in range(cy.shape[0]):
        y1 = cy[s, i]
        y2 = cy[s, j] - y1
        y3 = tot[s] - cy[s, j]
        d = flat[s] - constrained_loss(a, y1, b - a, y2, N - b, y3)
        if d < 0.0:  # rounding: the flat fit is always feasible
            d = 0.0
        out[unit[s]] += d


@numba.njit(cache=True)
def _sort_desc(x):
    """Insertion sort, largest first (units are few)."""
    n = x.shape[0]
    for p in range(1, n):
        v = x[p]
        q = p - 1
        while q >= 0 and x[q] < v:
            x[q + 1] = x[q]
            q -= 1
        x[q + 1] = v


@numba.njit(cache=True)
def update_best(dec, best, best_i, best_j, i, j):
    """Sort ``dec`` (in place) and keep, for each k, the largest top-k sum seen."""
    _sort_desc(dec)
    acc = 0.0
    for k in range(dec.shape[0]):
        acc += dec[k]
        if acc > best[k + 1]:
            best[k + 1] = acc
            best_i[k + 1] = i
            best_j[k + 1] = j


@numba.njit(cache=True)
def scan_all(pos, cy, tot, flat, unit, n_units, best, best_i, best_j):
    """Every peak ``[pos[i], pos[j])`` with 1 <= pos[i] < pos[j] <= N − 1."""
    N = pos[pos.shape[0] - 1]
    dec = np.empty(n_units)
    for i in range(pos.shape[0]):
        if pos[i] < 1.0:
            continue
        for j in range(i + 1, pos.shape[0]):
            if pos[j] > N - 1.0:
                break
            unit_decreases(pos, cy, tot, flat, unit, n_units, i, j, dec)
            update_best(dec, best, best_i, best_j, i, j)
