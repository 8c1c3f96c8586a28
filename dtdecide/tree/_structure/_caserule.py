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

__all__ = ["node_inputs", "path_steps", "case_node_sums"]


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
    S = np.zeros(size, dtype=STAT_DTYPE)
    S2 = np.zeros(size, dtype=STAT_DTYPE) if squares else None
    missing = bool(cons.has_missing.any())
    if missing:  # cases with a missing cost count with weight 0
        ok = ~cons.has_missing
        if q is not None:
            q = np.where(ok[:, None], q, 0.0)
        weight = np.where(ok, weight, 0.0)
    compiled = use_compiled(len(leaf)) and not cons.is_interval and cons.case_q is None
    if q is None and not compiled:
        q = cons.q_actual(target)
        if missing:
            q = np.where(ok[:, None], q, 0.0)
    if compiled:
        from .._kernels import _compiled
        from .._kernels._parallel import thread_pool

        use_costs = cons.case_costs is not None
        parent = np.asarray(parent, dtype=NODE_DTYPE)
        node_in = np.ascontiguousarray(np.asarray(node_in, dtype=STAT_DTYPE).reshape(n_nodes, -1))
        base = np.ascontiguousarray(cons.base, dtype=STAT_DTYPE)
        costs = (np.ascontiguousarray(cons.case_costs, dtype=STAT_DTYPE) if use_costs
                 else np.zeros((1, 1)))
        if q is not None:
            q = np.ascontiguousarray(q, dtype=STAT_DTYPE)

        def q_of(rows):  # the chunk's consequences (computed there when q is None)
            if q is not None:
                return q[rows]
            q_c = cons.take(rows).q_actual(target[rows])
            if missing:
                q_c = np.where(ok[rows, None], q_c, 0.0)
            return np.ascontiguousarray(q_c, dtype=STAT_DTYPE)

        # leaves, groups and weights are cast chunk by chunk on the threads (a leaf array
        # of int32, int8 level codes, a broadcast weight of 1: no case-sized copies)
        leaf = np.asarray(leaf)
        weight = np.asarray(weight, dtype=STAT_DTYPE)
        no_group = np.zeros(0, dtype=NODE_DTYPE)  # an empty group array: every case in group 0
        group = None if group is None else np.asarray(group)
        n = leaf.shape[0]
        starts = list(range(0, n, CASE_SUM_CHUNK)) or [0]
        parts = np.zeros((len(starts), 2 if squares else 1, size), dtype=STAT_DTYPE)

        def run(chunks):
            for c in chunks:
                rows = slice(starts[c], min(starts[c] + CASE_SUM_CHUNK, n))
                _compiled.case_node_sums(
                    parent, np.ascontiguousarray(leaf[rows], dtype=NODE_DTYPE), node_in, base,
                    costs[rows] if use_costs else costs, use_costs, q_of(rows),
                    np.ascontiguousarray(weight[rows]),
                    no_group if group is None else np.ascontiguousarray(group[rows],
                                                                        dtype=NODE_DTYPE),
                    n_groups, squares, parts[c, 0], parts[c, 1] if squares else np.zeros(1),
                )

        n_threads = min(int(n_jobs), len(starts))
        groups = [list(range(len(starts)))[k::n_threads] for k in range(n_threads)]
        with thread_pool(n_threads) as pool:
            if pool is None:
                run(groups[0])
            else:
                pool.map_groups(run, groups)
        for c in range(len(starts)):  # chunk order: the same sums for every n_jobs
            S += parts[c, 0]
            if squares:
                S2 += parts[c, 1]
        S = S.reshape(n_nodes, n_groups)
        return (S, S2.reshape(n_nodes, n_groups)) if squares else S
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
