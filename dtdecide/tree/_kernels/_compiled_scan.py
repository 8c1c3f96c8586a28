"""Compiled (Numba) split scans: the twin of the NumPy scan of :mod:`._splitter`.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

:func:`scan_features` (which calls the compiled scan of the criterion's family, so that a
fit compiles only that one) scans every node of a level for a group of features and writes,
per (feature, node), the best split's gain, position, missing side and (categorical
features) which category order won -- what ``scan_feature`` of
:func:`~dtdecide.tree._kernels._splitter.find_best_splits` returns, for every criterion
of :mod:`._criteria` (``gini``, ``entropy``, ``generalized_gini`` up to 6 classes,
``variance``) and every method of :mod:`._profit`. The loops repeat the twin's
arithmetic operation for operation, in the same order: cumulative sums over the bins in
scan order, the same formulas per candidate (Gini's and the variance's shortcut, the
others as ``W(parent) - W(left) - W(right)``), the twin's validity tests (row counts or
weights of each child), the first maximum of the gains (NumPy's ``argmax``, a NaN first),
missing values tried right, then left where the node has some, taken left only when
strictly better. Gains are therefore equal bit for bit, except under ``entropy`` with
non-integer sums: the twin's ``log2`` is NumPy's (SIMD), this one's the C library's
(NumPy's own for integers, from a table the caller passes), and the two differ in the
last bit for a few arguments, so such gains agree to about ``1e-15`` of the node's
weight.

Categorical features are scanned in orders the caller computes with the twin's own
NumPy code (``_splitter._category_orders``), so ties between categories sort the same.

Every kernel is compiled with ``nogil=True``: the caller runs :func:`scan_features` on
the threads of :mod:`._parallel`, one group of features each, writing disjoint rows of
the outputs; the result does not depend on the groups. Importing this module imports
Numba; :mod:`._splitter` imports it only when :func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np

__all__ = ["CRITERION_CODES", "PROFIT_CODES", "scan_features"]

# float division by zero gives inf/NaN as in NumPy (the twin masks those candidates)
_jit = numba.njit(nogil=True, cache=True, error_model="numpy")
# inlined into its callers by Numba: the entropy scan ran 1.5x slower calling it per candidate
_jit_inline = numba.njit(nogil=True, cache=True, error_model="numpy", inline="always")

GINI, ENTROPY, GENERALIZED_GINI, VARIANCE = 0, 1, 2, 3
COST_GINI, REGRET_GINI, PROFIT, PROFIT_GINI = 4, 5, 6, 7
#: criterion name -> code
CRITERION_CODES = {"gini": GINI, "entropy": ENTROPY, "generalized_gini": GENERALIZED_GINI,
                   "variance": VARIANCE}
#: profit method -> code
PROFIT_CODES = {"cost_gini": COST_GINI, "cost_gini_money": COST_GINI,
                "regret_gini": REGRET_GINI, "profit": PROFIT, "profit_gini": PROFIT_GINI}

# how the twin counts a child's rows (``counts_are_weights`` and ``counts``)
COUNTS_ARE_WEIGHTS = 0  # unit weights, no class weight: the channel sums of the bins
ROW_COUNTS = 1  # explicit row counts per bin
RAW_WEIGHTS = 2  # no counts, class weights: the raw channel sums, cumulated in their dtype


@_jit
def _csum(s, lo, hi):
    """``channel_sum`` of ``s[lo:hi]``: explicit adds in channel order."""
    out = s[lo]
    for c in range(lo + 1, hi):
        out += s[c]
    return out


@_jit
def _max0(x):
    """``np.maximum(x, 0.0)`` (a NaN stays)."""
    if x >= 0.0 or np.isnan(x):
        return x
    return 0.0


@_jit
def _xlog2x(a, log2_table):
    """``a * log2(a)`` (0 unless ``a > 0``) with NumPy's ``log2`` of the integers below
    ``log2_table.size`` (``log2_table[k] = np.log2(k)``), the C library's elsewhere."""
    if a > 0:
        if a < log2_table.shape[0]:
            k = int(a)
            if k == a:
                return a * log2_table[k]
        return a * np.log2(a)
    return 0.0


@_jit
def _val(L, s, P, right, c):
    """Channel ``c`` of the left sums ``L[s]``, or of the right ones ``P - L[s]``."""
    if right:
        return P[c] - L[s, c]
    return L[s, c]


@_jit
def _vsum(L, s, P, right, lo, hi):
    """``channel_sum`` of channels ``lo:hi`` of :func:`_val`."""
    out = _val(L, s, P, right, lo)
    for c in range(lo + 1, hi):
        out += _val(L, s, P, right, c)
    return out


@_jit
def _gini_at(L, s, P, right, D):
    """``_gini`` of the first ``D`` channels (0 when their sum is not positive)."""
    N = _vsum(L, s, P, right, 0, D)
    v = _val(L, s, P, right, 0)
    sq = v * v
    for c in range(1, D):
        v = _val(L, s, P, right, c)
        sq += v * v
    if N > 0:
        return N - sq / N
    return 0.0


@_jit
def _regret_at(L, s, P, right, d, D, g0, has_r):
    """``R(d)`` of :class:`~._profit.ProfitCriterion` (``g0``: the first R group)."""
    if has_r:
        return _vsum(L, s, P, right, (g0 + d) * D, (g0 + d + 1) * D)
    return _val(L, s, P, right, D - 1 - d)  # two decisions: R = A reversed


# ---------------------------------------------------------------- W of one child
# One function per criterion family, so that a fit compiles only its own (see
# :func:`scan_features`); each is ``weighted_impurity`` of :mod:`._criteria` (or
# ``ProfitCriterion.weighted_impurity``) of the sums :func:`_val`, operation for operation.


@_jit
def _w_gini(P, D):
    """Gini's ``W`` of the first ``D`` of the parent's sums ``P`` (``gini``: all of them;
    ``cost_gini``: the cases' best decisions); the scans need no child's ``W`` from it."""
    N = _csum(P, 0, D)
    sq = P[0] * P[0]
    for c in range(1, D):
        sq += P[c] * P[c]
    if N > 0:
        sq = sq / N
    out = _max0(N - sq)
    return out if N > 0 else 0.0


@_jit_inline
def _w_entropy(L, s, P, right, log2_table):
    """Entropy's ``W`` of the sums :func:`_val` (a child's, or the parent's: ``L[s]`` is
    ``P`` and ``right`` False)."""
    C = L.shape[1]
    N = _vsum(L, s, P, right, 0, C)
    out = _xlog2x(N, log2_table)
    for c in range(C):
        out -= _xlog2x(_val(L, s, P, right, c), log2_table)
    out = _max0(out)
    return out if N > 0 else 0.0


@_jit
def _w_generalized_gini(L, s, P, right, loss):
    C = L.shape[1]
    N = _vsum(L, s, P, right, 0, C)
    quad = 0.0
    for t in range(C):
        for d in range(C):
            if loss[t, d] != 0:
                quad += loss[t, d] * (_val(L, s, P, right, t) * _val(L, s, P, right, d))
    if N > 0:
        quad = quad / N
    out = _max0(quad)
    return out if N > 0 else 0.0


@_jit
def _w_profit(L, s, P, right, crit, D, has_m, has_r, tie_break):
    """The other profit methods (``crit`` ``REGRET_GINI``, ``PROFIT`` or ``PROFIT_GINI``)."""
    g0 = 2 if has_m else 1
    if crit == REGRET_GINI:
        NM = _vsum(L, s, P, right, D, 2 * D)
        quad = _regret_at(L, s, P, right, 0, D, g0, has_r) * _val(L, s, P, right, D)
        for d in range(1, D):
            quad += _regret_at(L, s, P, right, d, D, g0, has_r) * _val(L, s, P, right, D + d)
        out = quad / NM if NM > 0 else 0.0
    else:  # profit, profit_gini: the smallest regret (a NaN wins, as in np.min)
        out = _regret_at(L, s, P, right, 0, D, g0, has_r)
        for d in range(1, D):
            if np.isnan(out):
                break
            r = _regret_at(L, s, P, right, d, D, g0, has_r)
            if r < out or np.isnan(r):
                out = r
        if crit == PROFIT_GINI:
            out = out + tie_break * _gini_at(L, s, P, right, D)
    return _max0(out)


@_jit
def _first_max(g, s, best, pos, seen_nan):
    """One step of ``np.argmax``: the first maximum, or the first NaN."""
    if s == 0 or (not seen_nan and (g > best or np.isnan(g))):
        return g, s, np.isnan(g)
    return best, pos, seen_nan


# ------------------------------------------------- best prefix of one scan order
# ``(gain, pos)``: the first best of the candidates ``L[:n]`` (left sums; -inf where not
# ``ok``) under ``split_gain`` of the twin, one function per criterion family, all with
# the arguments ``(L, n, ok, parent, params)``: ``parent[0]`` the parent's sums ``P``
# (:func:`_prepare`'s ``buf[2]``) and ``params`` the family's own tuple (see
# :func:`scan_features`).


@_jit
def _best_gini(L, n, ok, parent, params):
    """The parent's N cancels against N_left + N_right (``params`` empty)."""
    C = L.shape[1]
    P = parent[0]
    Wp = _w_gini(P, C)
    NP = _csum(P, 0, C)
    best, pos, seen_nan = -np.inf, 0, False
    for s in range(n):
        g = -np.inf
        if ok[s]:
            NL = L[s, 0]
            for c in range(1, C):
                NL += L[s, c]
            QL = L[s, 0] * L[s, 0]
            r = P[0] - L[s, 0]
            QR = r * r
            for c in range(1, C):
                QL += L[s, c] * L[s, c]
                r = P[c] - L[s, c]
                QR += r * r
            g = QL / NL
            g += QR / (NP - NL)
            g += Wp - NP
        best, pos, seen_nan = _first_max(g, s, best, pos, seen_nan)
    return best, pos


@_jit
def _best_variance(L, n, ok, parent, params):
    """The S2 terms cancel (``params`` empty)."""
    best, pos, seen_nan = -np.inf, 0, False
    WP, SP = parent[0, 0], parent[0, 1]
    sub = SP * SP / WP if WP > 0 else 0.0
    for s in range(n):
        g = -np.inf
        if ok[s]:
            WL, SL = L[s, 0], L[s, 1]
            WR, SR = WP - WL, SP - SL
            g = SL * SL / WL + SR * SR / WR
            g -= sub
        best, pos, seen_nan = _first_max(g, s, best, pos, seen_nan)
    return best, pos


@_jit
def _best_entropy(L, n, ok, parent, params):
    """``params``: ``(log2_table,)`` (see :func:`_xlog2x`)."""
    log2_table = params[0]
    P = parent[0]
    Wp = _w_entropy(parent, 0, P, False, log2_table)
    best, pos, seen_nan = -np.inf, 0, False
    for s in range(n):
        g = -np.inf
        if ok[s]:
            g = Wp - _w_entropy(L, s, P, False, log2_table)
            g -= _w_entropy(L, s, P, True, log2_table)
        best, pos, seen_nan = _first_max(g, s, best, pos, seen_nan)
    return best, pos


@_jit
def _best_generalized_gini(L, n, ok, parent, params):
    """``params``: ``(loss,)``, the loss matrix."""
    loss = params[0]
    C = L.shape[1]
    P = parent[0]
    Wp = _w_generalized_gini(parent, 0, P, False, loss)
    best, pos, seen_nan = -np.inf, 0, False
    # the loss matrix's non-zero entries, in the twin's order (t, then d)
    n_pairs = 0
    pt = np.empty(C * C, dtype=np.intp)
    pd = np.empty(C * C, dtype=np.intp)
    for t in range(C):
        for d in range(C):
            if loss[t, d] != 0:
                pt[n_pairs], pd[n_pairs] = t, d
                n_pairs += 1
    v = np.empty(C)
    for s in range(n):
        g = -np.inf
        if ok[s]:
            g = Wp
            for right in (False, True):
                for c in range(C):
                    v[c] = _val(L, s, P, right, c)
                N = _csum(v, 0, C)
                quad = 0.0
                for q in range(n_pairs):
                    quad += loss[pt[q], pd[q]] * (v[pt[q]] * v[pd[q]])
                W = 0.0
                if N > 0:
                    W = _max0(quad / N)
                g -= W
        best, pos, seen_nan = _first_max(g, s, best, pos, seen_nan)
    return best, pos


@_jit
def _best_cost_gini(L, n, ok, parent, params):
    """``W(parent) - W(left) - W(right)``, each child's Gini of the first ``D`` channels
    (``_gini_at``'s operations, read directly); ``params``: ``(D,)``."""
    D = params[0]
    P = parent[0]
    Wp = _w_gini(P, D)
    best, pos, seen_nan = -np.inf, 0, False
    for s in range(n):
        g = -np.inf
        if ok[s]:
            v = L[s, 0]
            r = P[0] - v
            NL, NR, QL, QR = v, r, v * v, r * r
            for c in range(1, D):
                v = L[s, c]
                r = P[c] - v
                NL += v
                NR += r
                QL += v * v
                QR += r * r
            WL = NL - QL / NL if NL > 0 else 0.0
            WR = NR - QR / NR if NR > 0 else 0.0
            g = Wp - _max0(WL)
            g -= _max0(WR)
        best, pos, seen_nan = _first_max(g, s, best, pos, seen_nan)
    return best, pos


@_jit
def _best_profit(L, n, ok, parent, params):
    """``W(parent) - W(left) - W(parent - left)`` of :func:`_w_profit`; ``params``:
    ``(crit, D, has_m, has_r, tie_break)``."""
    crit, D, has_m, has_r, tie_break = params
    P = parent[0]
    Wp = _w_profit(parent, 0, P, False, crit, D, has_m, has_r, tie_break)
    best, pos, seen_nan = -np.inf, 0, False
    for s in range(n):
        g = -np.inf
        if ok[s]:
            g = Wp - _w_profit(L, s, P, False, crit, D, has_m, has_r, tie_break)
            g -= _w_profit(L, s, P, True, crit, D, has_m, has_r, tie_break)
        best, pos, seen_nan = _first_max(g, s, best, pos, seen_nan)
    return best, pos


# ---------------------------------------------------- sums and valid candidates


@_jit
def _raw_count(hist, i, cell, is_clf):
    """Weight of a cell in the histogram's own dtype (``_channel_weight`` of raw sums)."""
    v = hist[i, cell, 0]
    if is_clf:
        for c in range(1, hist.shape[2]):
            v += hist[i, cell, c]
    return v


@_jit
def _weight(L, s, is_clf):
    """``_channel_weight`` of the float64 sums ``L[s]``."""
    out = L[s, 0]
    if is_clf:
        for c in range(1, L.shape[1]):
            out += L[s, c]
    return out


@_jit_inline
def _mapped(hist, i, cell, cmap, c):
    """``sum_t hist[i, cell, t] * cmap[t, c]``, the products added in level order (channel
    ``c`` of the twin's :func:`~dtdecide.tree._kernels._histogram.map_channels`).
    Inlined into :func:`_prepare` by Numba: called per cell, it took 40% of the profit
    scan (2M x 20, depth 10: 0.078 s, 0.047 s inlined; Gini's 0.040 s)."""
    out = np.float64(hist[i, cell, 0]) * cmap[0, c]
    for t in range(1, hist.shape[2]):
        out += np.float64(hist[i, cell, t]) * cmap[t, c]
    return out


@_jit
def _prepare(hist, counts, mode, cw, use_cw, cmap, use_map, is_clf, msl, i, lo, cells, n,
             mcell, zero_raw, buf, ok, raw):
    """The sums and valid candidates of the cells ``lo + cells[:n]`` of node ``i`` in
    this order (the twin's ``_scan`` before its gains), for every criterion.

    Writes ``buf[0][:n]`` the cumulative (class-weighted, or mapped: :func:`_mapped`)
    sums with missing values right, ``buf[1][:n]`` those with missing values left,
    ``buf[2][0]`` the parent's sums ``P``, ``ok[0]``/``ok[1]`` the valid candidates of
    each side. Returns whether the node has missing values here (then the left side is
    to be tried).
    """
    cum, cum_l, vec = buf[0], buf[1], buf[2]  # vec rows: P, Hm
    C = cum.shape[1]  # the criterion's sums (the histogram's channels unless mapped)
    P, Hm = vec[0], vec[1]
    ok_r, ok_l = ok[0], ok[1]
    # cumulative (class-weighted or mapped) sums in scan order, as np.cumsum adds them
    # (the branch outside the loops: the plain loop stays as fast as it was)
    if use_map:
        # the raw weights of RAW_WEIGHTS (below) cumulated in the same pass, in the
        # histogram's dtype and the same order: ``raw[s]`` is the twin's ``acc_r`` after s
        acc_r = zero_raw
        for s in range(n):
            cell = lo + cells[s]
            for c in range(C):  # the cell's sums, then cumulated
                v = _mapped(hist, i, cell, cmap, c)
                cum[s, c] = cum[s - 1, c] + v if s > 0 else v
            if mode == RAW_WEIGHTS:
                acc_r = acc_r + _raw_count(hist, i, cell, is_clf)
                raw[s] = acc_r
        for c in range(C):
            Hm[c] = _mapped(hist, i, mcell, cmap, c)
    else:
        for s in range(n):
            cell = lo + cells[s]
            for c in range(C):
                v = np.float64(hist[i, cell, c])
                if use_cw:
                    v = v * cw[c]
                cum[s, c] = cum[s - 1, c] + v if s > 0 else v
        for c in range(C):
            v = np.float64(hist[i, mcell, c])
            Hm[c] = v * cw[c] if use_cw else v
    for c in range(C):
        P[c] = cum[n - 1, c] + Hm[c]
    # each child's rows (or weight) as the twin counts them, in its dtypes
    cm_r = _raw_count(hist, i, mcell, is_clf)
    if mode == COUNTS_ARE_WEIGHTS:
        has_missing = cm_r > 0
        cm = np.float64(cm_r)
        Pc = _weight(cum, n - 1, is_clf) + cm
        for s in range(n):
            Lc = _weight(cum, s, is_clf)
            ok_r[s] = Lc >= msl and Pc - Lc >= msl
            if has_missing:
                Lc = Lc + cm
                ok_l[s] = Lc >= msl and Pc - Lc >= msl
    elif mode == ROW_COUNTS:
        cm_i = counts[i, mcell]
        has_missing = cm_i > 0
        acc = 0
        for s in range(n):
            acc += counts[i, lo + cells[s]]
        Pc_i = acc + cm_i
        acc = 0
        for s in range(n):
            acc += counts[i, lo + cells[s]]
            ok_r[s] = acc >= msl and Pc_i - acc >= msl
            if has_missing:
                Lc_i = acc + cm_i
                ok_l[s] = Lc_i >= msl and Pc_i - Lc_i >= msl
    elif use_map:  # RAW_WEIGHTS, cumulated above
        has_missing = cm_r > 0
        Pc_r = raw[n - 1] + cm_r
        for s in range(n):
            acc_r = raw[s]
            ok_r[s] = acc_r >= msl and Pc_r - acc_r >= msl
            if has_missing:
                Lc_r = acc_r + cm_r
                ok_l[s] = Lc_r >= msl and Pc_r - Lc_r >= msl
    else:  # RAW_WEIGHTS: cumulated in the histogram's dtype
        has_missing = cm_r > 0
        acc_r = zero_raw
        for s in range(n):
            acc_r = acc_r + _raw_count(hist, i, lo + cells[s], is_clf)
        Pc_r = acc_r + cm_r
        acc_r = zero_raw
        for s in range(n):
            acc_r = acc_r + _raw_count(hist, i, lo + cells[s], is_clf)
            ok_r[s] = acc_r >= msl and Pc_r - acc_r >= msl
            if has_missing:
                Lc_r = acc_r + cm_r
                ok_l[s] = Lc_r >= msl and Pc_r - Lc_r >= msl
    if has_missing:
        for s in range(n):
            for c in range(C):
                cum_l[s, c] = cum[s, c] + Hm[c]
    if mode != COUNTS_ARE_WEIGHTS:  # weights may be zero: both children need some
        wP = _csum(P, 0, C) if is_clf else P[0]
        for s in range(n):
            wl = _weight(cum, s, is_clf)
            ok_r[s] = ok_r[s] and wl > 0 and wP - wl > 0
            if has_missing:
                wl = _weight(cum_l, s, is_clf)
                ok_l[s] = ok_l[s] and wl > 0 and wP - wl > 0
    return has_missing


@_jit
def _order(j, i, k, offsets, widths, orders, key_lo, n_keys, n_scan, natural):
    """``(lo, cells, n, mcell)``: scan order ``k`` of feature ``j`` at node ``i`` (a
    numeric feature is one order, its bins')."""
    lo = offsets[j]
    w = widths[j]
    if n_keys[j] == 0:
        return lo, natural, w - 1, lo + w - 1
    return lo, orders[key_lo[j] + k, i], n_scan[j], lo + w - 1


# ---------------------------------------------------------------- the scan loops
# One skeleton for every family: the loops over features, nodes, scan orders and missing
# sides, around the family's ``_best_*``. :func:`_family_scan` compiles one copy per
# family (``family`` is a constant of the closure, so Numba prunes the other families'
# branches before typing them and a fit compiles only its own); a closure over a
# constant, unlike one over a jitted function or a function passed as an argument, is
# found again in Numba's on-disk cache by the next process.


def _family_scan(family):
    """The compiled scan of one criterion family (:data:`GINI`, :data:`VARIANCE`,
    :data:`ENTROPY`, :data:`GENERALIZED_GINI`, :data:`COST_GINI` or :data:`PROFIT` for
    every other profit method).

    Arguments as in :func:`scan_features`, with the buffers of :func:`_prepare` (``buf``,
    ``ok``), the histogram dtype's zero, ``natural`` (the numeric features' order,
    ``arange`` of the widest feature) and the family's ``params`` made by the caller.
    Missing values are tried right, then left, taken left only when strictly better; a
    later category order is kept only when strictly better, so an invalid or NaN best
    ends as -inf, which never wins (as in the twin).
    """

    @_jit
    def scan(hist, counts, mode, cw, use_cw, cmap, use_map, is_clf, msl, features, offsets,
             widths, orders, key_lo, n_keys, n_scan, buf, ok, raw, zero_raw, natural,
             params, out_gain, out_pos, out_ml, out_key):
        for j in features:
            for i in range(hist.shape[0]):
                g, pos, ml, key = -np.inf, 0, False, -1
                for k in range(max(n_keys[j], 1)):
                    lo, cells, n, mcell = _order(j, i, k, offsets, widths, orders, key_lo,
                                                 n_keys, n_scan, natural)
                    sides = 1 + _prepare(hist, counts, mode, cw, use_cw, cmap, use_map,
                                         is_clf, msl, i, lo, cells, n, mcell, zero_raw, buf,
                                         ok, raw)
                    g_k, pos_k, ml_k = -np.inf, 0, False
                    for side in range(sides):
                        if family == GINI:
                            g_s, p_s = _best_gini(buf[side], n, ok[side], buf[2], params)
                        elif family == VARIANCE:
                            g_s, p_s = _best_variance(buf[side], n, ok[side], buf[2], params)
                        elif family == ENTROPY:
                            g_s, p_s = _best_entropy(buf[side], n, ok[side], buf[2], params)
                        elif family == GENERALIZED_GINI:
                            g_s, p_s = _best_generalized_gini(buf[side], n, ok[side], buf[2],
                                                              params)
                        elif family == COST_GINI:
                            g_s, p_s = _best_cost_gini(buf[side], n, ok[side], buf[2], params)
                        else:
                            g_s, p_s = _best_profit(buf[side], n, ok[side], buf[2], params)
                        if side == 0:
                            g_k, pos_k = g_s, p_s
                        elif g_s > g_k:
                            g_k, pos_k, ml_k = g_s, p_s, True
                    if g_k > g:
                        g, pos, ml, key = g_k, pos_k, ml_k, (k if n_keys[j] else -1)
                out_gain[j, i], out_pos[j, i], out_ml[j, i], out_key[j, i] = g, pos, ml, key

    return scan


#: criterion family -> its compiled scan (compiled on its first call)
_SCANS = {family: _family_scan(family)
          for family in (GINI, VARIANCE, ENTROPY, GENERALIZED_GINI, COST_GINI, PROFIT)}


def scan_features(hist, counts, mode, cw, use_cw, is_clf, crit, loss, D, has_m, has_r,
                  tie_break, msl, features, offsets, widths, orders, key_lo, n_keys,
                  n_scan, log2_table, out_gain, out_pos, out_ml, out_key, cmap=None):
    """Best split of every node for each feature of ``features`` (twin of
    ``scan_feature`` in :func:`~dtdecide.tree._kernels._splitter.find_best_splits`).

    ``hist`` (m, n_cells, C) raw sums, ``counts`` (m, n_cells) row counts (read when
    ``mode`` is ``ROW_COUNTS``); ``cw`` the class weights (when ``use_cw``); ``crit`` a
    code of :data:`CRITERION_CODES` or :data:`PROFIT_CODES` with the profit criterion's
    ``D``, ``has_m``, ``has_r`` and ``tie_break``; ``loss`` the generalized Gini's
    matrix; ``msl`` ``min_samples_leaf``; ``log2_table`` NumPy's ``log2`` of the first
    integers (entropy; see :func:`_xlog2x`). Feature ``j`` has cells ``offsets[j] ..
    offsets[j] + widths[j] - 1``, its missing bin last. A numeric feature (``n_keys[j]
    == 0``) is scanned in bin order; a categorical one in each of its ``n_keys[j]``
    orders ``orders[key_lo[j] + k, i, :n_scan[j]]`` (positions among its non-missing
    bins), keeping a later order only when strictly better. Writes row ``j`` of
    ``out_gain``, ``out_pos``, ``out_ml`` and ``out_key`` (the winning order, -1 for a
    numeric feature; gain ``-inf`` where no split is valid). ``cmap`` (n_levels,
    n_sums), when given, maps each cell's channels (``hist`` then holds per-level
    counts) to the criterion's sums (:func:`_mapped`; ``cw`` is not read).

    A Python function: it calls the compiled scan of ``crit``'s family (Gini, entropy,
    generalized Gini, variance, ``cost_gini``, the other profit methods), so that Numba
    compiles only the scans that run (one kernel for every criterion took about 10 s of
    CPU to compile).
    """
    width = int(widths.max())
    use_map = cmap is not None
    cmap = np.zeros((1, 1)) if cmap is None else cmap
    buf = np.empty((3, max(width, 2), cmap.shape[1] if use_map else hist.shape[2]))
    ok = np.empty((2, width), dtype=np.bool_)
    raw = np.empty(width if use_map else 1, dtype=hist.dtype)
    common = (hist, counts, mode, cw, use_cw, cmap, use_map, is_clf, msl, features, offsets,
              widths, orders, key_lo, n_keys, n_scan, buf, ok, raw, hist.dtype.type(0),
              np.arange(width))
    if crit in (GINI, VARIANCE):
        family, params = crit, ()
    elif crit == ENTROPY:
        family, params = crit, (log2_table,)
    elif crit == GENERALIZED_GINI:
        family, params = crit, (loss,)
    elif crit == COST_GINI:  # the profit criterion's default
        family, params = crit, (D,)
    else:
        family, params = PROFIT, (crit, D, has_m, has_r, tie_break)
    _SCANS[family](*common, params, out_gain, out_pos, out_ml, out_key)


@_jit
def profit_row_channels(q, weight, has_m, has_r, codes, out):
    """Per-case histogram contributions of the profit criterion (twin of
    :meth:`~dtdecide.tree._kernels._profit.ProfitCriterion.row_channels`).

    ``q`` (n, D) finite consequences, ``weight`` (n,); writes ``codes`` (n,) the first
    best decision of each case and ``out`` (n_groups, n): ``w (best - min)``, then
    ``w`` (``has_m``), then ``w (best - q[:, d])`` per decision (``has_r``). Returns
    False, writing nothing more, at the first case with a non-finite consequence.
    """
    n, D = q.shape
    for i in range(n):
        for d in range(D):
            if not np.isfinite(q[i, d]):
                return False
    for i in range(n):
        b = 0
        best = q[i, 0]
        low = q[i, 0]
        for d in range(1, D):
            v = q[i, d]
            if v > best:
                best, b = v, d
            if v < low:
                low = v
        codes[i] = b
        w = weight[i]
        out[0, i] = w * (best - low)
        g = 1
        if has_m:
            out[g, i] = w
            g += 1
        if has_r:
            for d in range(D):
                out[g + d, i] = w * (best - q[i, d])
    return True
