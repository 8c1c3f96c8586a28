"""The per-case decision rule of profit trees (``decision_rule="case"``).

Layer 2 (structure) of :mod:`dtdecide.tree` (``_structure``); see the architecture page.

Under the leaf rule (the default, design notes section 3) every leaf takes one decision,
chosen from its training cases' averaged costs. Under the case rule every case decides
for itself: from its leaf's posteriors (prior-adjusted as the leaf rule does; an
interval target uses the leaf's prediction) and its *own* costs, by minimum expected
loss, exactly as :func:`dtdecide.decide` does with those posteriors.

Pruning and subtree selection must assess the rule that will be used. A node's risk as a
leaf is then minus the sum, over the cases that reach it, of the profit each case earns
with its own best decision from the node's posteriors. The best decision of a case
differs from node to node along its path, so the sums are computed here from the cases:
every (case, node on its path) pair is visited once, one vectorised step per level of
the path (:func:`path_steps`), and summed into the node with ``np.bincount``.

Pure array code: no pandas, no estimator.
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import NODE_DTYPE, STAT_DTYPE
from ..._jit import use_compiled
from ...decision._kernels import decide_arrays

__all__ = ["node_inputs", "path_steps", "case_node_sums", "decide_cases"]


def node_inputs(node_values, parent, depth):
    """What a case decides from at every node, empty nodes filled from their parent.

    Parameters
    ----------
    node_values : ndarray of shape (n_nodes, n_levels) or (n_nodes,)
        Node posteriors (categorical target) or predictions (interval target); NaN
        rows for nodes without training weight.
    parent, depth : ndarray of int, shape (n_nodes,)

    Returns
    -------
    ndarray
        A copy where a node with a NaN entry takes its parent's values (top-down, so a
        chain of empty nodes takes the nearest non-empty ancestor's), as the leaf rule
        gives such a node its parent's decision.

    Examples
    --------
    >>> import numpy as np
    >>> post = np.array([[0.5, 0.5], [np.nan, np.nan], [0.2, 0.8]])
    >>> node_inputs(post, np.array([-1, 0, 0]), np.array([0, 1, 1])).tolist()
    [[0.5, 0.5], [0.5, 0.5], [0.2, 0.8]]
    """
    out = np.array(node_values, dtype=STAT_DTYPE, copy=True)
    flat = out.reshape(out.shape[0], -1)
    empty = np.isnan(flat).any(axis=1)
    if not empty.any():
        return out
    for d in range(1, int(np.max(depth, initial=0)) + 1):
        ids = np.flatnonzero((depth == d) & empty)
        flat[ids] = flat[parent[ids]]
    return out


def path_steps(parent, leaf):
    """Every (case, node on its path) pair, one vectorised step per level.

    Yields ``(rows, nodes)``: at step ``k`` the cases whose leaf lies at least ``k``
    levels deep, and the node ``k`` levels above each one's leaf (step 0 gives the
    leaves). Each pair occurs exactly once.

    Examples
    --------
    >>> import numpy as np
    >>> parent = np.array([-1, 0, 0, 1, 1])
    >>> [(r.tolist(), v.tolist()) for r, v in path_steps(parent, np.array([3, 2]))]
    [([0, 1], [3, 2]), ([0, 1], [1, 0]), ([0], [0])]
    """
    parent = np.asarray(parent, dtype=NODE_DTYPE)
    nodes = np.asarray(leaf, dtype=NODE_DTYPE)
    rows = np.arange(nodes.shape[0])
    while rows.size:
        yield rows, nodes
        up = parent[nodes]
        keep = up >= 0
        rows = rows[keep]
        nodes = up[keep]


def case_decisions(node_in, nodes, cons):
    """Each case's own best decision from the inputs of its node (first max on ties).

    ``cons`` are the cases' consequences (``matrix.resolve``) in the order of
    ``nodes``. Cases with a missing cost get ``-1``.
    """
    A = cons.expected(node_in[nodes])
    d, _ = decide_arrays(A)
    if cons.has_missing.any():
        d[cons.has_missing] = -1
    return d


# Cases per chunk of the compiled case-rule sums (see case_node_sums' n_jobs).
CASE_SUM_CHUNK = 1 << 16


def case_node_sums(parent, leaf, node_in, cons, q, weight, *, group=None, n_groups=1,
                   squares=False, n_jobs=1, target=None):
    """Per node: the weighted profit of its cases under their own best decisions.

    ``S[v, g] = sum_{i reaches v, group(i) = g} weight(i) q(i, d_i(v))`` where
    ``d_i(v)`` is case ``i``'s best decision from node ``v``'s inputs and its own costs.

    Parameters
    ----------
    parent : ndarray of int, shape (n_nodes,)
    leaf : ndarray of int, shape (n_samples,)
        Leaf of every case.
    node_in : ndarray of shape (n_nodes, n_levels) or (n_nodes,)
        From :func:`node_inputs`.
    cons : Consequences
        The cases' consequences (decided with).
    q : ndarray of shape (n_samples, n_decisions) or None
        The profit each decision earns each case (``cons.q_actual(target)``); None with
        ``target``: computed chunk by chunk (on the threads of the compiled kernel).
    weight : ndarray of shape (n_samples,)
        Case weights; cases with a missing cost must have weight 0.
    group : ndarray of int, shape (n_samples,), optional
        A group code per case (e.g. its level) for a per-group breakdown.
    n_groups : int
    squares : bool
        Also return the sums of ``weight(i) q(i, d_i(v))**2``.
    target : ndarray of shape (n_samples,), optional
        The cases' targets, when ``q`` is None.
    n_jobs : int, default=1
        Threads for the compiled kernel. Above ``CASE_SUM_CHUNK`` cases the compiled
        sums are taken per chunk of that many cases and the chunks' sums added in chunk
        order, whatever the number of threads: the same sums for every ``n_jobs`` (equal
        to the NumPy twin's within a relative 1e-12; bit for bit on one chunk).

    Returns
    -------
    S : ndarray of shape (n_nodes, n_groups)
    S2 : ndarray of shape (n_nodes, n_groups), only with ``squares=True``
    """
    n_nodes = np.asarray(parent).shape[0]
    size = n_nodes * n_groups
    if use_compiled(len(leaf)) and not cons.is_interval and cons.case_q is None:
        return _compiled_case_node_sums(parent, leaf, node_in, cons, q, weight, group,
                                        n_groups, squares, n_jobs, target)
    S = np.zeros(size, dtype=STAT_DTYPE)
    S2 = np.zeros(size, dtype=STAT_DTYPE) if squares else None
    missing = bool(cons.has_missing.any())
    if missing:  # cases with a missing cost count with weight 0
        ok = ~cons.has_missing
        if q is not None:
            q = np.where(ok[:, None], q, 0.0)
        weight = np.where(ok, weight, 0.0)
    if q is None:
        q = cons.q_actual(target)
        if missing:
            q = np.where(ok[:, None], q, 0.0)
    for rows, nodes in path_steps(parent, leaf):
        d = case_decisions(node_in, nodes, cons.take(rows))
        d = np.maximum(d, 0)  # missing cases: weight 0
        val = q[rows, d]
        key = nodes if group is None else nodes * n_groups + group[rows]
        w = weight[rows]
        S += np.bincount(key, weights=w * val, minlength=size)
        if squares:
            S2 += np.bincount(key, weights=w * val * val, minlength=size)
    S = S.reshape(n_nodes, n_groups)
    if squares:
        return S, S2.reshape(n_nodes, n_groups)
    return S


def _read_only(a, dtype, small=None):
    """``a`` as the compiled case-rule kernel takes it: contiguous, of ``dtype`` (or
    ``small`` where ``a`` is already of that type) and read-only (a view), so that
    every caller's arrays give the kernel the same types (one compilation)."""
    a = np.asarray(a)
    if small is None or a.dtype != small:
        a = a.astype(dtype, copy=False)
    a = np.ascontiguousarray(a).view()
    a.flags.writeable = False
    return a


def _codes(a, n_codes):
    """Integer codes in ``[0, n_codes)`` for the kernel: ``int8`` where they fit."""
    return _read_only(a, np.int8 if n_codes <= 127 else np.int64)


def _kernel_costs(cons, n):
    """``(costs, by_case, col_of, const, use_costs)`` of :func:`_compiled.case_node_sums`:
    the cost columns of ``cons`` as they are (one column: a view; several: stacked), or
    its (cases x decisions) cost array."""
    D = cons.base.shape[1]
    if cons.cost_columns is not None:
        const, col_of, columns = cons.cost_columns
        columns = [np.asarray(c, dtype=STAT_DTYPE) for c in columns]
        costs = (columns[0].reshape(1, n) if len(columns) == 1 else np.stack(columns)
                 ) if columns else np.zeros((1, 1))
        return (_read_only(costs, STAT_DTYPE), False, np.asarray(col_of, dtype=np.intp),
                np.asarray(const, dtype=STAT_DTYPE), True)
    none = _read_only(np.zeros((1, 1)), STAT_DTYPE)
    if cons.case_costs is None:
        return none, False, np.full(D, -1, dtype=np.intp), np.zeros(D), False
    costs = np.asarray(cons.case_costs, dtype=STAT_DTYPE)
    if costs.strides[0] == 0:  # a broadcast row of constants
        return none, False, np.full(D, -1, dtype=np.intp), np.array(costs[0]), True
    return _read_only(costs, STAT_DTYPE), True, np.arange(D, dtype=np.intp), np.zeros(D), True


def _compiled_case_node_sums(parent, leaf, node_in, cons, q, weight, group, n_groups,
                             squares, n_jobs, target):
    """:func:`case_node_sums` by the compiled kernel: fixed chunks of
    ``CASE_SUM_CHUNK`` cases, each thread one kernel call over its chunks (no case-sized
    copies, no NumPy per chunk), the chunks' sums added in chunk order."""
    from ..._parallel import thread_pool
    from .._kernels import _compiled

    n_nodes = np.asarray(parent).shape[0]
    size = n_nodes * n_groups
    # the small arrays as writeable copies, the case-sized ones as read-only views
    parent = np.array(parent, dtype=NODE_DTYPE)
    node_in = np.array(np.asarray(node_in, dtype=STAT_DTYPE).reshape(n_nodes, -1))
    base = np.array(cons.base, dtype=STAT_DTYPE)
    leaf = _read_only(leaf, np.int32 if n_nodes < 2**31 else np.int64)
    n = leaf.shape[0]
    costs, by_case, col_of, const, use_costs = _kernel_costs(cons, n)
    # a missing cost (NaN) is found by the kernel itself in the case's costs, where
    # cons.has_missing finds it: such a case counts with weight and profit 0
    if q is not None:
        q = _read_only(q, STAT_DTYPE)
        t = _codes(np.zeros(0), base.shape[0])
    else:
        q = _read_only(np.zeros((0, base.shape[1])), STAT_DTYPE)
        t = _codes(target, base.shape[0])
    weight = np.asarray(weight, dtype=STAT_DTYPE)
    if weight.ndim == 1 and n > 0 and weight.strides[0] == 0:  # one weight for every case
        weight = weight[:1]
    weight = _read_only(weight, STAT_DTYPE)
    group = _codes(np.zeros(0) if group is None else group, n_groups)
    bounds = np.append(np.arange(0, n, CASE_SUM_CHUNK), n).astype(np.intp)
    if bounds.size == 1:
        bounds = np.zeros(2, dtype=np.intp)
    n_chunks = bounds.size - 1
    parts = np.zeros((n_chunks, size), dtype=STAT_DTYPE)
    parts2 = np.zeros((n_chunks if squares else 0, size), dtype=STAT_DTYPE)

    def run(chunks):
        _compiled.case_node_sums(parent, leaf, node_in, base, costs, by_case, col_of, const,
                                 use_costs, q, t, weight, group, n_groups,
                                 squares, bounds, int(chunks[0]), int(chunks[-1]) + 1,
                                 parts, parts2)

    n_threads = min(int(n_jobs), n_chunks)
    # contiguous ranges of chunks, a few per thread (a late thread's share is taken by
    # the others); one kernel call each
    groups = [g for g in np.array_split(np.arange(n_chunks), min(n_chunks, 4 * n_threads))
              if g.size] if n_threads > 1 else [np.arange(n_chunks)]
    with thread_pool(n_threads) as pool:
        if pool is None:
            for g in groups:
                run(g)
        else:
            pool.map_groups(run, groups)
    S = np.zeros(size, dtype=STAT_DTYPE)
    S2 = np.zeros(size, dtype=STAT_DTYPE) if squares else None
    for c in range(n_chunks):  # chunk order: the same sums for every n_jobs
        S += parts[c]
        if squares:
            S2 += parts2[c]
    S = S.reshape(n_nodes, n_groups)
    return (S, S2.reshape(n_nodes, n_groups)) if squares else S


def decide_cases(leaf, node_in, plan, *, revenue, target=None, weight=None,
                 keep_target=False, chunk=1 << 15, n_jobs=1):
    """The case rule's per-case decision step with the compiled kernel, on threads.

    The compiled twin of :func:`dtdecide.decide` on the posteriors ``node_in[leaf]``
    of the cases' leaves with a categorical matrix of additive costs (its chunk kernel
    ``_decide_chunks_additive`` stays the reference): each case's first best decision
    from its leaf's posteriors and its own costs, the expected profit, investment,
    computed and best profit, ROI and missing flags. The posteriors' parts that do not
    depend on the case (their products with the matrix and sums) are computed once per
    node with the chunk kernel's NumPy products; the rest runs in
    :func:`~dtdecide.decision._compiled.decide_rows` over contiguous
    ranges of whole chunks of rows, one per thread, writing into the outputs in place.

    Parameters
    ----------
    leaf : ndarray of int, shape (n_samples,)
        Each case's leaf.
    node_in : ndarray of shape (n_nodes, n_levels)
        Valid posteriors of every node (:func:`node_inputs`).
    plan : dtdecide.decision._engine._AdditivePlan
        The matrix split into its constant consequences and the cases' cost columns.
    revenue : bool
        Whether the matrix is of kind ``"revenue"`` (investment and ROI).
    target : ndarray of int, shape (n_samples,), optional
        Level codes of the actual target (computed and best profit, ROI, the
        misclassified frequency).
    weight : ndarray of shape (n_samples,), optional
        Case frequencies (for the misclassified frequency).
    keep_target : bool, default=False
        Also return the level codes (``code_dtype(n_levels)``; the priors' summary).
    chunk : int, default=32768
        Rows per chunk of the misclassified sums (the engine's chunk), added in chunk
        order: the result does not depend on ``n_jobs``.
    n_jobs : int, default=1
        Threads.

    Returns
    -------
    dict
        ``decision`` (``code_dtype(n_decisions)``; -1 missing), ``expected``,
        ``investment`` (None unless ``revenue``), ``computed``, ``best`` and ``roi``
        (None without ``target``; ``roi`` also None unless ``revenue``), ``missing``,
        ``target`` (codes or None) and ``misclassified`` (None without ``target``).
    """
    from ..._dtypes import code_dtype
    from ..._parallel import thread_pool
    from ...decision import _compiled as _compiled_decide

    leaf = np.ascontiguousarray(leaf, dtype=NODE_DTYPE)
    n = leaf.shape[0]
    T, D = plan.n_levels, plan.n_decisions
    node_in = np.ascontiguousarray(node_in, dtype=STAT_DTYPE).reshape(-1, T)
    # per node, as the chunk kernel computes them per case: s = post . 1, A^T = base^T
    # post^T, constant costs subtracted (s * cost, then the difference)
    node_s = np.dot(node_in, plan.ones)
    AT = np.dot(plan.base_t, np.ascontiguousarray(node_in.T))
    if plan.has_costs:
        for j in plan.const_idx:
            if plan.const[j] != 0.0:
                AT[j] = AT[j] - np.multiply(node_s, plan.const[j])
    node_class = np.argmax(node_in, axis=1).astype(NODE_DTYPE)
    var_j = np.array([j for j, _, _ in plan.var], dtype=np.intp)
    cols = [np.ascontiguousarray(col, dtype=STAT_DTYPE) for _, col, _ in plan.var]
    if not cols:
        var_cols = np.zeros((0, n), dtype=STAT_DTYPE)
    elif len(cols) == 1:
        var_cols = cols[0][None, :]
    else:
        var_cols = np.stack(cols)
    has_y = target is not None
    t_dtype = code_dtype(T)
    t = (np.ascontiguousarray(target, dtype=t_dtype) if has_y
         else np.zeros(0, dtype=t_dtype))
    weighted = weight is not None
    w = np.ascontiguousarray(weight, dtype=STAT_DTYPE) if weighted else np.zeros(0)
    none = np.zeros(0, dtype=STAT_DTYPE)
    d_out = np.empty(n, dtype=code_dtype(D))
    e_out = np.empty(n, dtype=STAT_DTYPE)
    ic_out = np.empty(n, dtype=STAT_DTYPE) if revenue else None
    c_out = np.empty(n, dtype=STAT_DTYPE) if has_y else None
    b_out = np.empty(n, dtype=STAT_DTYPE) if has_y else None
    roi_out = np.empty(n, dtype=STAT_DTYPE) if has_y and revenue else None
    miss = np.empty(n, dtype=bool)
    keep = has_y and keep_target
    t_out = np.empty(n, dtype=t_dtype) if keep else np.zeros(0, dtype=t_dtype)
    n_chunks = max(1, -(-n // chunk))
    wrong = np.zeros(n_chunks, dtype=STAT_DTYPE)
    best_const = plan.best_const if plan.best_const is not None else np.zeros(T)

    def run(bounds):
        _compiled_decide.decide_rows(
            leaf=leaf, direct=False, node_at=AT, node_s=node_s, node_class=node_class,
            const=plan.const, var_j=var_j, var_cols=var_cols, dvar_j=var_j,
            dvar_cols=var_cols, check_nan=plan.any_nan,
            base=np.ascontiguousarray(plan.base_t.T), best_const=best_const,
            use_best_const=plan.best_const is not None, target=t, has_y=has_y, weight=w,
            weighted=weighted, count_wrong=True, revenue=revenue, has_costs=plan.has_costs,
            use_thr=False, thr=0.0, d_out=d_out, e_out=e_out,
            ic_out=none if ic_out is None else ic_out,
            c_out=none if c_out is None else c_out, b_out=none if b_out is None else b_out,
            roi_out=none if roi_out is None else roi_out, miss_out=miss, t_out=t_out,
            keep_t=keep, wrong=wrong, chunk=chunk, lo=bounds[0], hi=bounds[1],
            post_t=np.zeros((0, 0)), scan_post=False, wrong_out=np.zeros(0, dtype=bool))

    # contiguous ranges of whole chunks, one per thread
    n_threads = max(1, min(int(n_jobs), n_chunks))
    cuts = np.linspace(0, n_chunks, n_threads + 1).astype(np.intp) * chunk
    cuts[-1] = n
    ranges = [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    with thread_pool(len(ranges)) as pool:
        if pool is None:
            for r in ranges:
                run(r)
        else:
            pool.map_groups(run, ranges)
    misclassified = None
    if has_y:
        misclassified = 0.0
        for x in wrong:  # chunk order, as the chunk kernel adds them
            misclassified += float(x)
    return {"decision": d_out, "expected": e_out, "investment": ic_out, "computed": c_out,
            "best": b_out, "roi": roi_out, "missing": miss,
            "target": t_out if keep else None, "misclassified": misclassified}
