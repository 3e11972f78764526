"""Batched driver of the sweep kernel: leading single swaps applied in vectorised batches.

For count-limited searches on many lines (Fowler & Hocking 2024, Section 4: ``"linear"``,
``"all"`` or an event count) the events that cannot interact are applied with NumPy in
one go, with the same arithmetic as the kernel's single swap (Theorems 1-2), and the
sequential kernel (:func:`~penlearn.line_search.kernel.sweep`) takes over at the first tie.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from penlearn.line_search._common import TIE_RTOL
from penlearn.line_search.kernel import State

#: Below this many lines the batched engine is not worth its NumPy overhead.
BATCH_MIN_LINES = 4096


# Long by design: one vectorised pass per batch whose steps share many arrays; splitting
# would pass a dozen arrays between helpers on every batch.
def batch_sweep(st: State, limit):
    """Process leading single-swap events in vectorised batches (count-limited sweeps).

    Events are taken in increasing step size from a candidate pool (every adjacent pair
    whose intersection is below a threshold ``T``, refilled by ``argpartition``). A batch
    is the longest time-ordered prefix of candidates that (i) are at least 3 positions
    apart, so that their swaps touch disjoint gaps and every new neighbour pair is final;
    (ii) have no tie: no other intersection within the event's tie window; (iii) create
    no intersection at or before the batch's last event. Such a prefix is exactly what
    the sequential engine does one event at a time, with the same floating-point
    operations (Theorems 1-2 per swap, sequential cumulative sums), so the path is
    bit-identical. The first event that fails (a tie, a near-tie, or an intersection
    created inside the batch) ends the batched phase: the state is handed back to the
    sequential engine (valid queue entries only; the push log keeps ``q_size`` exact).

    Returns (records like those of :func:`~penlearn.line_search.kernel.sweep`, done) where
    ``done`` is True when the limit was reached or no intersection is left.
    """
    B = st.B
    ic, sl, fpd, fnd, FP, FN, M = st.np
    LN = np.column_stack((ic, sl, fpd, fnd))  # one gather per line set
    G = np.column_stack((FP, FN, M))  # one gather per gap set
    order = np.arange(B)
    d_sl = sl[:-1] - sl[1:]
    xs = np.full(B - 1, np.inf)
    cross = np.flatnonzero(d_sl > 0)
    xs[cross] = (ic[cross + 1] - ic[cross]) / d_sl[cross]
    rt = TIE_RTOL
    K = max(256, 4 * math.isqrt(B))
    slope, S = st.slope, st.auc_after
    rec = {"steps": [], "slopes": [], "dss": [], "npush": []}
    pushes_all = []
    n_pushed = len(st.pushed)
    n_ev = 0
    cand = np.empty(0, np.int64)
    touched = np.zeros(B - 1, bool)
    T = -math.inf
    done = False
    inf = math.inf
    while True:
        if n_ev >= limit:
            done = True
            break
        v = xs[cand]
        keep = v < T
        cand, v = cand[keep], v[keep]
        if cand.size == 0 or not (v.min() + v.min() * rt < T):
            fin = np.flatnonzero(xs < inf)
            if fin.size == 0:
                done = True
                break
            if fin.size <= K:
                cand, T = fin, inf
            else:
                part = np.argpartition(xs[fin], K)
                T = float(xs[fin[part[K]]])
                cand = fin[part[:K]]
            v = xs[cand]
        o = np.argsort(v, kind="stable")
        ev, e = cand[o], v[o]
        xh = e + e * rt
        na = int(np.count_nonzero(xh < T))
        # (ii) ties: the next candidate inside this event's window, or this one inside the
        # previous event's window
        tie = np.zeros(len(e), bool)
        tie[:-1] = e[1:] <= xh[:-1]
        tie[1:] |= tie[:-1]
        L = min(na, limit - n_ev)
        bad = np.flatnonzero(tie[:L])
        if bad.size:
            L = int(bad[0])
        # (i) positions at least 3 apart (the later event of the first close pair ends it)
        if L > 1:
            P0 = ev[:L]
            byp = np.argsort(P0)
            sp = P0[byp]
            c1 = np.flatnonzero(sp[1:] - sp[:-1] <= 2)
            if c1.size:
                L = min(L, int(np.maximum(byp[c1], byp[c1 + 1]).min()))
            c2 = np.flatnonzero(sp[2:] - sp[:-2] <= 2)
            if c2.size:
                L = min(L, int(np.maximum(byp[c2], byp[c2 + 2]).min()))
        if L == 0:
            break
        P = ev[:L]
        a = order[P]
        b = order[P + 1]
        LA, LB = LN[a], LN[b]
        LC = LN[order[np.maximum(P - 1, 0)]]
        LD = LN[order[np.minimum(P + 2, B - 1)]]
        sla, slb, slc, sld = LA[:, 1], LB[:, 1], LC[:, 1], LD[:, 1]
        hasL = P >= 1
        crossL = hasL & (slc > slb)
        hasR = P + 2 < B
        crossR = hasR & (sla > sld)
        with np.errstate(divide="ignore", invalid="ignore"):
            yl = np.where(crossL, (LB[:, 0] - LC[:, 0]) / (slc - slb), inf)
            yr = np.where(crossR, (LD[:, 0] - LA[:, 0]) / (sla - sld), inf)
        # (iii) no new intersection at or before the end of the prefix
        pm = np.minimum.accumulate(np.minimum(yl, yr))
        ok = pm > xh[:L]
        if not ok.all():
            L = int(np.argmin(ok))
            if L == 0:
                break
            P, a, b, LA, LB, sla, slb = P[:L], a[:L], b[:L], LA[:L], LB[:L], sla[:L], slb[:L]
            crossL, crossR, yl, yr = crossL[:L], crossR[:L], yl[:L], yr[:L]
            hasL, hasR = hasL[:L], hasR[:L]
        g = P + 1
        f0, n0, m0 = G[P].T
        f2, n2, m2 = G[g + 1].T
        m1o = G[g, 2]
        fb, nb = LB[:, 2], LB[:, 3]
        f1 = f0 + fb
        n1 = n0 + nb
        m1 = np.where(f1 < n1, f1, n1)
        dslope = (sla - slb) * (m1o + m1 - m0 - m2)
        ds = (fb - LA[:, 2]) * (n2 - n0) - (nb - LA[:, 3]) * (f2 - f0)
        G[g] = np.column_stack((f1, n1, m1))
        order[P], order[g] = b, a
        xs[P] = inf
        xs[P[hasL] - 1] = yl[hasL]
        xs[g[hasR]] = yr[hasR]
        sl_run = np.cumsum(np.concatenate(([slope], dslope)))[1:]
        s_run = np.cumsum(np.concatenate(([S], ds)))
        slope, S = float(sl_run[-1]), float(s_run[-1])
        both = np.column_stack((crossL, crossR))
        ys = np.column_stack((yl, yr))[both]
        pushes_all.append(ys)
        rec["npush"].append(n_pushed + np.cumsum(both.sum(axis=1)))
        n_pushed += len(ys)
        rec["steps"].append(e[:L])
        rec["slopes"].append(sl_run)
        rec["dss"].append(ds)
        n_ev += L
        # next pool: the untouched rest (still sorted) and the new pairs below T
        touched[P] = True
        touched[P[hasL] - 1] = True
        touched[g[hasR]] = True
        rest = ev[L:]
        rest = rest[~touched[rest]]
        new = np.concatenate((P[hasL] - 1, g[hasR]))
        touched[new] = False
        touched[P] = False
        new = new[xs[new] < T]
        cand = np.concatenate((rest, new))
    if not done:
        # hand the state over to the sequential engine (valid queue entries only)
        st.listify(order, G[:, 0], G[:, 1], G[:, 2])
        fin = np.flatnonzero(xs < inf)
        st.heap = list(zip(xs[fin].tolist(), order[fin].tolist(), order[fin + 1].tolist()))
        heapq.heapify(st.heap)
    if done:
        st.log_extra.extend(pushes_all)
    else:
        st.pushed = np.concatenate([np.asarray(st.pushed, dtype=float), *pushes_all]).tolist()
    st.slope, st.auc_after = slope, S
    if n_ev:
        st.step = float(rec["steps"][-1][-1])
        last_ds = float(rec["dss"][-1][-1])
        st.auc = S - last_ds + 0.5 * last_ds
    cat = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in rec.items()}
    rows = (cat["steps"], cat["slopes"], cat["dss"], cat["npush"], {})
    return rows, done

