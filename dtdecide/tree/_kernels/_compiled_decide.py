"""Compiled (Numba) kernel of the case rule's per-case decision step in ``decide()``.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

The twin of :func:`dtdecide.decide`'s additive chunk kernel (``_decide_chunks_additive``
in :mod:`dtdecide.decision._engine`) on the posteriors of the cases' leaves, which stays
the reference: a case of leaf ``v`` with cost columns ``c`` takes the first decision of
largest ``A(i, d) = node_a[v, d] - cost(i, d) node_s[v]``. The per-node parts
``node_a`` (the leaf's posteriors times the matrix) and ``node_s`` (their sum) are
computed by the caller with the NumPy products the chunk kernel uses per case, and the
per-case arithmetic is the chunk kernel's, operation for operation (a product, then a
difference; no fused multiply-add), so the two give the same decisions and figures.
One pass over a range of rows writes every output; nothing of size (n, n_decisions) is
built, and no posterior row is gathered per case.

Compiled with ``nogil=True``: the caller cuts the rows into ranges on whole chunks and
runs them on the threads of :mod:`dtdecide.tree._kernels._parallel`; the only sum over
cases (the misclassified frequency) is kept per chunk and added by the caller in chunk
order, so no output depends on the number of threads.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np

__all__ = ["case_decide_rows"]


@numba.njit(nogil=True, cache=True)
def case_decide_rows(leaf, node_a, node_s, node_class, const, var_j, var_cols, check_nan,
                     base, best_const, use_best_const, target, has_y, weight, weighted,
                     revenue, has_costs, d_out, e_out, ic_out, c_out, b_out, roi_out, miss_out,
                     t_out, keep_t, wrong, chunk, lo, hi):
    """Decisions and figures of rows ``lo:hi`` (twin of ``_decide_chunks_additive``).

    Parameters
    ----------
    leaf : int (n,)
        Each case's leaf (a node id).
    node_a : float64 (n_nodes, D)
        Per node and decision, the expected consequence without case costs
        (``sum_t post[v, t] base[t, d]`` minus every nonzero constant cost times
        ``node_s``: constant costs act per node).
    node_s : float64 (n_nodes,)
        Per node, the sum of its posteriors.
    node_class : int (n_nodes,)
        Per node, its first most probable level (misclassification).
    const : float64 (D,)
        Each decision's constant cost (0 without one, or for a cost variable).
    var_j, var_cols : intp (k,), float64 (k, n)
        The decisions with a cost column and those columns.
    check_nan : bool
        Whether a cost column holds a NaN: such a case is missing.
    base, best_const, use_best_const
        The matrix's consequences (T, D) without costs; per level, the best of the
        decisions whose cost is constant (when there is one).
    target, has_y
        Level codes of the cases (read when ``has_y``).
    weight, weighted
        Case frequencies (read when ``weighted``).
    revenue : bool
        Whether the investment ``ic_out`` is wanted (a revenue matrix).
    has_costs : bool
        Whether the matrix has costs (the computed profit is then net of ``ic``).
    d_out, e_out, ic_out, c_out, b_out, roi_out, miss_out
        Outputs at rows ``lo:hi``: decision code (-1 missing), expected, investment,
        computed and best profit, ROI (written when ``revenue`` and ``has_y``), and
        the missing flag; ``ic_out`` only when ``revenue``, ``c_out``/``b_out`` only
        when ``has_y``.
    t_out, keep_t
        The level codes are copied there when ``keep_t``.
    wrong : float64 (n_chunks,)
        Per chunk of ``chunk`` rows, the frequency of its cases whose most probable
        level is not their target (added to; when ``has_y``).
    chunk, lo, hi : int
        ``lo`` is a multiple of ``chunk``.
    """
    n_dec = const.shape[0]
    k = var_j.shape[0]
    for i in range(lo, hi):
        v = leaf[i]
        s = node_s[v]
        # first maximum over the decisions, the chunk kernel's passes in one
        best = 0
        e = node_a[v, 0]
        for kk in range(k):
            if var_j[kk] == 0:
                e = e - var_cols[kk, i] * s
        for d in range(1, n_dec):
            a = node_a[v, d]
            for kk in range(k):
                if var_j[kk] == d:
                    a = a - var_cols[kk, i] * s
            if a > e:
                best = d
                e = a
        miss = False
        if check_nan:
            for kk in range(k):
                if np.isnan(var_cols[kk, i]):
                    miss = True
        ic = 0.0
        if revenue:
            ic = const[best]
            for kk in range(k):
                on = 1.0 if var_j[kk] == best else 0.0
                ic = ic + on * var_cols[kk, i]
        if has_y:
            t = target[i]
            if keep_t:
                t_out[i] = t
            c = base[t, best]
            if has_costs:
                c = c - ic
            b = 0.0
            first = True
            if use_best_const:
                b = best_const[t]
                first = False
            for kk in range(k):
                x = base[t, var_j[kk]] - var_cols[kk, i]
                if first:
                    b = x
                    first = False
                elif not b >= x:  # np.maximum: NaN stays NaN
                    if not np.isnan(b):
                        b = x
            if node_class[v] != t:
                wrong[i // chunk] += weight[i] if weighted else 1.0
        if miss:
            best = -1
            e = np.nan
            ic = np.nan
            if has_y:
                c = np.nan
                b = np.nan
        d_out[i] = best
        e_out[i] = e
        miss_out[i] = miss
        if revenue:
            ic_out[i] = ic
        if has_y:
            c_out[i] = c
            b_out[i] = b
            if revenue:
                # roi(): C / IC for a positive investment, else the sign of C
                if ic > 0:
                    r = c / ic
                elif ic <= 0:
                    if c > 0:
                        r = np.inf
                    elif c < 0:
                        r = -np.inf
                    else:
                        r = np.nan
                else:
                    r = np.nan
                roi_out[i] = r
