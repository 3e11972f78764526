"""Next-probe rules of the bracketing first-min search (:mod:`.first_min`).

AUM along a descent direction is piecewise linear in the step size (Fowler & Hocking
2024, eqs. 5-6); for monotone error functions it is convex, so a bracket of its first
minimum can be narrowed from AUM and its slope at both ends.
"""

from __future__ import annotations

import math


class Cutting:
    """Next probe from AUM and slope at both ends of a bracket (convex piecewise-linear AUM).

    Smooth regime (the slope changes between any two probes): the minimiser of the cubic
    interpolating AUM and slope at both ends (Nocedal & Wright 2006, eq. 3.59). Staircase
    regime (a probe returns the slope of the end it replaces, up to rounding: AUM is
    exactly linear on that side up to the next slope change): the kink is where that
    line meets a quadratic model of the other side (slope and curvature from its last
    two probes), alternating with the plain tangent intersection, which is never before
    the first kink nor after the last one (cutting-plane step; exact with one kink left).
    For the level predicate AUM < c: Newton's step from lo (exact on a linear piece,
    never past the root of a convex decreasing AUM). Safeguards: log-bisection on wide
    brackets, bisection when the smooth steps stall, probes just inside an end when the
    estimate sits on it.
    """

    def __init__(self, lo, lo_v, hi, hi_v, level=None):
        self.lo, self.lo_v, self.hi, self.hi_v = lo, lo_v, hi, hi_v
        self.prev_lo = self.prev_hi = None  # the previous (step, (aum, slope)) of each end
        self.level = level
        self.slow = 0
        self.width = hi - lo
        self.stair = None  # "lo" / "hi": the end whose slope stayed the same
        self.model_step = False
        self.tangent_next = False
        self.tangent = None
        self.ready = False
        self.n_stair = 0

    def _kink(self) -> float:
        lo, hi = self.lo, self.hi
        (a0, d0), (a1, d1) = self.lo_v, self.hi_v
        beta = d1 - d0
        if self.tangent_next or self.stair is None:
            self.model_step = False
            self.tangent = (a1 - a0 + d0 * lo - d1 * hi) / (d0 - d1)
            return self.tangent
        self.model_step = True
        x = self._power_law()
        if x is not None:
            return x
        if self.stair == "lo" and self.prev_hi is not None:
            ph, (_, dph) = self.prev_hi
            c = (dph - d1) / (ph - hi)
            gamma = a1 - a0 - d0 * (hi - lo)
            disc = beta * beta - 2 * c * gamma
            if c > 0 and gamma >= 0:
                return hi - 2 * gamma / (beta + math.sqrt(max(disc, 0.0)))
        if self.stair == "hi" and self.prev_lo is not None:
            pl, (_, dpl) = self.prev_lo
            c = (d0 - dpl) / (lo - pl)
            gamma = a0 - a1 + d1 * (hi - lo)
            disc = beta * beta - 2 * c * gamma
            if c > 0 and gamma >= 0:
                return lo + 2 * gamma / (beta + math.sqrt(max(disc, 0.0)))
        return (a1 - a0 + d0 * lo - d1 * hi) / (d0 - d1)

    def _power_law(self):
        """Kink from a power law γ(u) = k·u^q of the gap between AUM and the stair line.

        u is the distance to the kink on the non-linear side; the last two probes there
        give q = Δx / Δ(γ/γ') and then u = q·γ/γ' (exact for a pure power law).
        """
        (a0, d0), (a1, d1) = self.lo_v, self.hi_v
        if self.stair == "lo" and self.prev_hi is not None:
            x1, x2 = self.hi, self.prev_hi[0]
            (b2, e2) = self.prev_hi[1]
            g1, g2 = d1 - d0, e2 - d0
            c1, c2 = a1 - a0 - d0 * (x1 - self.lo), b2 - a0 - d0 * (x2 - self.lo)
            sign = -1.0
        elif self.stair == "hi" and self.prev_lo is not None:
            x1, x2 = self.lo, self.prev_lo[0]
            (b2, e2) = self.prev_lo[1]
            g1, g2 = d1 - d0, d1 - e2
            c1, c2 = a0 - a1 + d1 * (self.hi - x1), b2 - a1 + d1 * (self.hi - x2)
            sign = 1.0
        else:
            return None
        if not (g1 > 0 and g2 > 0 and c1 > 0 and c2 > 0):
            return None
        den = c2 / g2 - c1 / g1
        if not den > 0:
            return None
        q = abs(x2 - x1) / den
        if not 1.0 < q <= 3.0:
            return None
        x = x1 + sign * q * c1 / g1
        return x if self.lo < x < self.hi else None

    def next(self) -> float:
        lo, hi = self.lo, self.hi
        self.tangent = None
        if lo > 0 and hi / lo > 8:
            return math.sqrt(lo * hi)
        mid = lo + (hi - lo) / 2
        (a0, d0), (a1, d1) = self.lo_v, self.hi_v
        if self.level is not None:
            x = lo + (self.level - a0) / d0 if d0 < 0 else mid
        elif self.stair is not None or not (d0 < 0 < d1):
            self.n_stair += 1
            if self.n_stair > 40 and self.n_stair % 2:
                return mid
            x = self._kink() if d1 > d0 else mid
        else:
            if self.slow >= 2:
                self.slow = 0
                return mid
            t1 = d0 + d1 - 3 * (a0 - a1) / (lo - hi)
            t2 = math.sqrt(t1 * t1 - d0 * d1)
            x = hi - (hi - lo) * (d1 + t2 - t1) / (d1 - d0 + 2 * t2)
        if not math.isfinite(x):
            return mid
        eps = 1e-9 * hi
        if x <= lo + eps:
            x = lo + min(eps, (hi - lo) / 2)
        elif x >= hi - eps:
            x = hi - min(eps, (hi - lo) / 2)
        return x if lo < x < hi else mid

    def update(self, x, v, is_hi: bool):
        old = self.hi_v if is_hi else self.lo_v
        same = abs(v[1] - old[1]) <= 1e-9 * max(abs(v[1]), abs(old[1]))
        if same:  # the same slope again (up to rounding): linear on that side
            self.stair = "hi" if is_hi else "lo"
        # a model step that overshot onto the linear side: take a tangent step next
        self.tangent_next = self.model_step and same
        # a tangent step that stayed on lo's line right at the predicted kink: the kink is
        # the next slope change after lo, a sweep from lo reaches it in a few events
        self.ready = (
            not is_hi and same and self.tangent is not None and x >= self.tangent - 1e-9 * x
        )
        self.model_step = False
        if is_hi:
            self.prev_hi = (self.hi, self.hi_v)
            self.hi, self.hi_v = x, v
        else:
            self.prev_lo = (self.lo, self.lo_v)
            self.lo, self.lo_v = x, v
        width = self.hi - self.lo
        self.slow = self.slow + 1 if width > self.width / 2 else 0
        self.width = width


class Pred:
    """Predicate ``key(aum, slope) >= -tol`` (``> tol`` when ``strict``)."""

    level = None  # for "AUM < level" predicates: the level

    def __init__(self, key, strict=False, tol=0.0):
        self.key, self.strict, self.tol = key, strict, tol

    def __call__(self, aum, slope):
        v = self.key(aum, slope)
        return v > self.tol if self.strict else v >= -self.tol
