"""Compiled (Numba) kernels of the decision layer: the per-case decision step of
:func:`dtdecide.decide` (:func:`decide_rows`) and the level codes of an integer target
(:func:`run_codes`).

The decision step sits here, at the bottom of the package's layers, so that
:func:`dtdecide.decide` (``n_jobs``) and a profit tree's case rule
(``dtdecide.tree._structure._caserule.decide_cases``, which imports it from here) run
the same loop.

The twin of :func:`dtdecide.decide`'s additive chunk kernel (``_decide_chunks_additive``
in :mod:`dtdecide.decision._engine`), which stays the reference: a case of node ``v``
(its own row of posteriors for the engine, its leaf for a tree) with decision cost
columns ``c`` takes the first decision of largest ``A(i, d) = node_at[d, v] - c(i, d)
node_s[v]``. The parts that do not depend on the case's cost columns, ``node_at`` (the
posteriors times the matrix, every nonzero constant cost times ``node_s`` subtracted) and
``node_s`` (the posteriors' sum), are computed by the caller with the NumPy products of
the chunk kernel; the per-case arithmetic is the chunk kernel's, operation for operation
(a product, then a difference; no fused multiply-add), so the two give the same
decisions and figures bit for bit. One pass over a range of rows writes every output;
nothing of size (n, n_decisions) is built.

Compiled with ``nogil=True``: the callers cut the rows into ranges of whole chunks and
run them on threads; the only sum over cases (the misclassified frequency, counted here
for a tree) is kept per chunk and added by the caller in chunk order, so no output
depends on the number of threads.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np

__all__ = ["decide_rows", "run_codes", "run_codes_on_threads"]


@numba.njit(nogil=True, cache=True, error_model="numpy")
def decide_rows(leaf, direct, node_at, node_s, node_class, const, var_j, var_cols, dvar_j,
                dvar_cols, check_nan, base, best_const, use_best_const, target, has_y,
                weight, weighted, count_wrong, revenue, has_costs, use_thr, thr, d_out,
                e_out, ic_out, c_out, b_out, roi_out, miss_out, t_out, keep_t, wrong,
                chunk, lo, hi, post_t, scan_post, wrong_out):
    """Decisions and figures of rows ``lo:hi`` (twin of ``_decide_chunks_additive``).

    Parameters
    ----------
    leaf : int (n,)
        Each case's node (a tree's leaf); not read when ``direct``.
    direct : bool
        Row ``i`` is its own node ``i`` (the engine: one column of ``node_at`` per case).
    node_at : float64 (D, n_nodes)
        Per decision and node, the expected consequence without the cost columns
        (``sum_t post[v, t] base[t, d]`` minus every nonzero constant cost times
        ``node_s``: constant costs act per node).
    node_s : float64 (n_nodes,)
        Per node, the sum of its posteriors.
    node_class : int (n_nodes,)
        Per node, its first most probable level (read when ``count_wrong``).
    const : float64 (D,)
        Each decision's constant cost (0 without one, or for a cost variable).
    var_j, var_cols : intp (k,), float64 (k, n)
        The decisions with a cost column and the actual cost columns (investment,
        computed and best profit).
    dvar_j, dvar_cols : intp (k2,), float64 (k2, n)
        The same for the costs the cases decide with (the actual ones again when no
        ``decision_costs`` are given).
    check_nan : bool
        Whether a cost column (of either kind) holds a NaN: such a case is missing.
    base, best_const, use_best_const
        The matrix's consequences (T, D) without costs; per level, the best of the
        decisions whose cost is constant (when there is one).
    target, has_y
        Level codes of the cases (read when ``has_y``).
    weight, weighted, count_wrong
        Case frequencies (read when ``weighted``); whether the misclassified frequency
        is summed into ``wrong`` (with ``has_y``).
    revenue : bool
        Whether the investment ``ic_out`` is wanted (a revenue matrix).
    has_costs : bool
        Whether the matrix has costs (the computed profit is then net of ``ic``).
    use_thr, thr
        The implicit do-nothing decision (code ``D``) of a case whose expected profit is
        below ``thr`` (profit orientation): its expected, computed profit and
        investment are 0, and every best profit is at least 0.
    d_out, e_out, ic_out, c_out, b_out, roi_out, miss_out
        Outputs at rows ``lo:hi``: decision code (-1 missing), expected, investment,
        computed and best profit, ROI (written when ``revenue`` and ``has_y``), and
        the missing flag; ``ic_out`` only when ``revenue``, ``c_out``/``b_out`` only
        when ``has_y``.
    t_out, keep_t
        The level codes are copied there when ``keep_t``.
    wrong : float64 (n_chunks,)
        Per chunk of ``chunk`` rows, the frequency of its cases whose most probable
        level is not their target (added to when ``count_wrong``).
    chunk, lo, hi : int
        ``lo`` is a multiple of ``chunk``.
    post_t, scan_post, wrong_out
        With ``scan_post`` (the engine): the rows' posteriors level by level
        ``(T, n)``, read for the checks the engine makes of them and for each row's
        first most probable level; ``wrong_out[i]`` is set when it is not the row's
        target (with ``has_y``).

    Returns
    -------
    tuple of float
        With ``scan_post``: the smallest and largest ``node_s`` of the rows (NaN when one
        is NaN) and their smallest posterior (the chunk kernel's checks: every row sums to 1 within the
        tolerance and no posterior is negative); else ``(1.0, 1.0, 0.0)``.
    """
    s_min = 1.0
    s_max = 1.0
    p_min = 0.0
    if scan_post:
        s_min = np.inf
        s_max = -np.inf
        p_min = np.inf
        n_lev = post_t.shape[0]
        nan = False
        for i in range(lo, hi):
            x = node_s[i]
            nan = nan | (x != x)
            s_min = min(s_min, x)
            s_max = max(s_max, x)
            top = post_t[0, i]
            p_min = min(p_min, top)
            cls = 0
            for t in range(1, n_lev):
                p = post_t[t, i]
                p_min = min(p_min, p)
                up = p > top  # the first maximum, as np.argmax
                cls = t if up else cls
                top = p if up else top
            if has_y:
                wrong_out[i] = cls != target[i]
        if nan:  # a NaN posterior fails the check
            s_max = np.nan
    n_dec = const.shape[0]
    k = var_j.shape[0]
    k2 = dvar_j.shape[0]
    # each decision's row in the cost columns (-1: none; a decision has one cost)
    vcol = np.full(n_dec, -1, dtype=np.intp)
    dcol = np.full(n_dec, -1, dtype=np.intp)
    for kk in range(k):
        vcol[var_j[kk]] = kk
    for kk in range(k2):
        dcol[dvar_j[kk]] = kk
    for i in range(lo, hi):
        v = i if direct else leaf[i]
        s = node_s[v]
        # first maximum over the decisions, the chunk kernel's passes in one; the
        # comparisons pick values (no branch on the data). A decision without a cost
        # column subtracts nothing (x - 0.0 is x, bit for bit).
        best = 0
        e = node_at[0, v]
        if dcol[0] >= 0:
            e = e - dvar_cols[dcol[0], i] * s
        for d in range(1, n_dec):
            a = node_at[d, v]
            if dcol[d] >= 0:
                a = a - dvar_cols[dcol[d], i] * s
            up = a > e
            best = d if up else best
            e = a if up else e
        miss = False
        if check_nan:
            for kk in range(k):
                miss = miss | np.isnan(var_cols[kk, i])
            for kk in range(k2):
                miss = miss | np.isnan(dvar_cols[kk, i])
        ic = 0.0
        if revenue:
            # the chunk kernel adds mask * column for every column: the chosen one's
            # value, and 0 (or NaN: then the case is missing) for the others
            ic = const[best]
            if k == 1:
                ic = ic + (1.0 if best == var_j[0] else 0.0) * var_cols[0, i]
            else:
                for kk in range(k):
                    on = 1.0 if var_j[kk] == best else 0.0
                    ic = ic + on * var_cols[kk, i]
        c = 0.0
        b = 0.0
        if has_y:
            t = target[i]
            if keep_t:
                t_out[i] = t
            c = base[t, best]
            if has_costs:
                c = c - ic
            first = True
            if use_best_const:
                b = best_const[t]
                first = False
            for kk in range(k):
                x = base[t, var_j[kk]] - var_cols[kk, i]
                if first:
                    b = x
                    first = False
                else:  # np.maximum(b, x): NaN stays NaN, signed zeros too
                    b = b if (b > x or b != b) else x
            if count_wrong:
                wrong[i // chunk] += (weight[i] if weighted else 1.0) * (node_class[v] != t)
        if miss:
            best = -1
            e = np.nan
            ic = np.nan
            c = np.nan
            b = np.nan
        if use_thr:
            skip = e < thr  # NaN compares False: a missing case stays missing
            best = n_dec if skip else best
            e = 0.0 if skip else e
            ic = 0.0 if skip else ic
            c = 0.0 if skip else c
            b = b if (b > 0.0 or b != b) else 0.0  # np.maximum(b, 0.0)
        d_out[i] = best
        e_out[i] = e
        miss_out[i] = miss
        if revenue:
            ic_out[i] = ic
        if has_y:
            c_out[i] = c
            b_out[i] = b
            if revenue:
                # roi(): C / IC for a positive investment; the sign of C (0: NaN) for
                # zero or less; NaN for a missing one (division by zero gives inf or NaN
                # under NumPy's error model)
                q = c / ic
                r = c * np.inf if ic <= 0.0 else np.nan
                roi_out[i] = q if ic > 0.0 else r
    return s_min, s_max, p_min


@numba.njit(nogil=True, cache=True)
def run_codes(values, lo, hi, ascending, out):
    """The int8 codes of integer ``values`` among the consecutive levels ``lo..hi``
    (``ascending``: level ``lo + k`` has code ``k``; else ``hi - k`` has), in one pass;
    False as soon as a value lies outside ``lo..hi`` (``out`` then partly written).

    Twin of the NumPy steps of ``_LevelLookup`` in :mod:`dtdecide.decision._kernels`
    (a range check with ``min`` and ``max``, a cast to int8 and one int8 subtraction):
    the same codes.
    """
    for i in range(values.shape[0]):
        v = values[i]
        if v < lo or v > hi:
            return False
        out[i] = v - lo if ascending else hi - v
    return True


#: Fewest values per task of :func:`run_codes_on_threads`.
CODES_TASK_MIN = 1 << 18


def run_codes_on_threads(values, lo, hi, ascending, out):
    """:func:`run_codes` in contiguous ranges of values on the threads of the pool the
    calling thread has open (:func:`dtdecide._parallel.open_pool`: a fit's threads),
    at one pass on the calling thread otherwise. Each value's code depends on the
    value alone, so the codes are the same for any split; True when every range was
    within ``lo..hi``."""
    from .._parallel import open_pool

    pool = open_pool()
    n = values.shape[0]
    if pool is None or n < 2 * CODES_TASK_MIN:
        return run_codes(values, lo, hi, ascending, out)
    step = max(CODES_TASK_MIN, -(-n // (2 * pool.n_threads)))
    starts = list(range(0, n, step))
    return all(pool.map_groups(
        lambda a: run_codes(values[a:a + step], lo, hi, ascending, out[a:a + step]), starts))
