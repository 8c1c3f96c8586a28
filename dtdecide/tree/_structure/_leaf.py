"""Decision statistics of tree nodes: one decision per leaf (design notes section 3).

Layer 2 (structure) of :mod:`dtdecide.tree` (``_structure``); see the architecture page.

Pure array code, no pandas and no estimator. The estimator calls
:func:`compute_decision_stats` once after growing (training rows -> their leaves), then
:func:`node_decisions` to turn those statistics into the contract's decision fields
(``cost_sum``, ``profit_sum``, ``node_decision``, ``node_expected``) for the fitted
matrix, or for another matrix / other priors later (what-if analysis, pruning).

How sums are built
------------------
Every statistic is a frequency-weighted sum over training rows, so it is computed for
the leaves with ``np.bincount`` over the rows' leaf ids and then added from children
into parents, one vectorised step per depth level (children always sit one level below
their parent). A node therefore holds exactly the sums of its training rows, which is
what pruning needs when it turns an internal node into a leaf.

What is stored, and why
-----------------------
* categorical target, additive consequences: per node and class, the weight and the sum
  of every cost variable. Any matrix with the same levels whose costs are constants or
  cost variables seen at fit can then be re-decided exactly, since
  ``sum_{j in node, T(j)=t} F(j) Q(j,t,d) = n_t base(t,d) - sum_{j, T(j)=t} F(j) Cost(j,d)``.
* interval target, additive: per node the weight, ``sum F y`` (the leaf prediction is the
  leaf mean), the sum of each cost variable and ``sum F h_k(Y)`` for every knot's hat
  (interpolation) basis function ``h_k`` -- interpolation is linear in the matrix values,
  so the training profit of any matrix with the same knots is ``sum_k H_k base(k,d) -
  cost_sum(d)``.
* case-specific consequence arrays: the per-node sums of ``F(j) Q(j,t,d)`` by class
  (categorical) or of ``F(j) Q(j,k,d)`` by knot (interval). These can be re-decided with
  new priors, but not with a new matrix.
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import STAT_DTYPE
from ..._jit import use_compiled
from ...decision._kernels import _segments, decide_arrays, interpolate_knots

__all__ = [
    "DecisionStats",
    "compute_decision_stats",
    "leaf_sums",
    "level_sums",
    "node_decisions",
    "node_posteriors",
    "propagate_up",
    "smooth_posteriors",
    "smoothed_node_decisions",
]


# --------------------------------------------------------------------- sum kernels
def leaf_sums(node_of_row, values, n_nodes):
    """Sum ``values`` (rows first) into ``n_nodes`` bins given each row's node.

    Parameters
    ----------
    node_of_row : ndarray of int, shape (n_samples,)
    values : ndarray, shape (n_samples,) or (n_samples, ...)
    n_nodes : int

    Returns
    -------
    ndarray of shape (n_nodes,) + values.shape[1:]

    Examples
    --------
    >>> import numpy as np
    >>> leaf_sums(np.array([1, 2, 1]), np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), 3)
    array([[0., 0.],
           [6., 8.],
           [3., 4.]])
    """
    node_of_row = np.asarray(node_of_row, dtype=np.intp)
    values = np.asarray(values, dtype=STAT_DTYPE)
    tail = values.shape[1:]
    flat = values.reshape(values.shape[0], -1)
    out = np.empty((n_nodes, flat.shape[1]), dtype=STAT_DTYPE)
    for k in range(flat.shape[1]):  # few columns (levels x decisions); rows vectorised
        out[:, k] = np.bincount(node_of_row, weights=flat[:, k], minlength=n_nodes)
    return out.reshape((n_nodes, *tail))


def propagate_up(sums, parent, depth):
    """Add every node's sums into its ancestors (in place) and return ``sums``.

    Only the leaves may hold non-zero sums on entry; afterwards every node holds the
    sum over the leaves below it. One vectorised step per depth level, deepest first.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0.0, 0.0, 2.0, 3.0, 4.0])
    >>> propagate_up(s, np.array([-1, 0, 0, 1, 1]), np.array([0, 1, 1, 2, 2])).tolist()
    [9.0, 7.0, 2.0, 3.0, 4.0]
    """
    parent = np.asarray(parent)
    depth = np.asarray(depth)
    for d in range(int(depth.max(initial=0)), 0, -1):
        ids = np.flatnonzero(depth == d)
        np.add.at(sums, parent[ids], sums[ids])
    return sums


def _node_sums(node_of_row, values, parent, depth):
    return propagate_up(leaf_sums(node_of_row, values, parent.shape[0]), parent, depth)


def _hat_basis_sums(node_of_row, y, weight, knots, n_nodes):
    """``H[node, k] = sum_{j in node} F(j) h_k(Y(j))`` for the interpolation basis."""
    seg, w = _segments(knots, np.asarray(y, dtype=STAT_DTYPE))
    n_knots = knots.shape[0]
    idx_left = node_of_row * n_knots + seg
    size = n_nodes * n_knots
    out = np.bincount(idx_left, weights=weight * (1.0 - w), minlength=size)
    out += np.bincount(idx_left + 1, weights=weight * w, minlength=size)
    return out.reshape(n_nodes, n_knots)


# --------------------------------------------------------------------- statistics
class DecisionStats:
    """Per-node training sums from which node decisions are computed.

    Built by :func:`compute_decision_stats`; all arrays are indexed by the node ids of
    the tree they were computed on (the full, unpruned tree of the estimator).

    Attributes
    ----------
    is_interval, is_case_specific : bool
    weight : ndarray (n_nodes,)
        Sum of training frequencies.
    class_weight : ndarray (n_nodes, n_levels) or None
        Categorical: frequency of each level.
    y_sum : ndarray (n_nodes,) or None
        Interval: ``sum F y``.
    cost_variables : tuple of str
        Names of the cost variables whose sums are stored.
    cost_var_sums : ndarray or None
        Categorical: (n_nodes, n_levels, n_cost_variables); interval:
        (n_nodes, n_cost_variables).
    hat_sums : ndarray (n_nodes, n_knots) or None
        Interval, additive: sums of the knots' hat basis functions of ``Y``.
    q_sums : ndarray or None
        Case-specific: categorical (n_nodes, n_levels, n_decisions) sums of ``F Q(j,t,d)``
        over the node's cases of level ``t``; interval (n_nodes, n_knots, n_decisions)
        sums of ``F Q(j,k,d)``.
    profit_actual : ndarray (n_nodes, n_decisions) or None
        Interval, case-specific: ``sum F L(j, Y(j), d)``.
    rows : ndarray
        The levels or knots of the matrix used at fit.
    decisions : tuple of str
        Its decisions.
    """

    def __init__(self, **fields):
        defaults = dict(
            is_interval=False, is_case_specific=False, weight=None, class_weight=None,
            y_sum=None, cost_variables=(), cost_var_sums=None, hat_sums=None,
            q_sums=None, profit_actual=None, rows=None, decisions=(),
        )
        unknown = set(fields) - set(defaults)
        if unknown:
            raise TypeError(f"DecisionStats got unknown fields {sorted(unknown)}")
        defaults.update(fields)
        self.__dict__.update(defaults)

    @property
    def n_nodes(self):
        """Number of nodes the sums cover."""
        return int(self.weight.shape[0])

    def take(self, nodes):
        """Statistics of a subset of nodes (in the given order)."""
        out = {}
        for name, value in self.__dict__.items():
            if isinstance(value, np.ndarray) and name != "rows":
                out[name] = value[nodes]
            else:
                out[name] = value
        return DecisionStats(**out)


def compute_decision_stats(node_of_row, parent, depth, *, cons, sample_weight,
                           t_idx=None, y=None, rows=None, decisions=(), cost_columns=None,
                           n_jobs=1):
    """Per-node decision statistics from the training rows.

    Parameters
    ----------
    node_of_row : ndarray of int, shape (n_samples,)
        Leaf id of every training row.
    parent, depth : ndarray of int, shape (n_nodes,)
        Tree shape (``TreeStructure.parent`` / ``.depth``).
    cons : Consequences
        The training consequences (``DecisionMatrix.resolve``).
    sample_weight : ndarray of float, shape (n_samples,)
        Frequencies.
    t_idx : ndarray of int, shape (n_samples,), optional
        Level code of each row (categorical target).
    y : ndarray of float, shape (n_samples,), optional
        Actual values (interval target).
    rows : ndarray
        Levels or knots of the matrix.
    decisions : tuple of str
        Decision names.
    cost_columns : dict of str to ndarray (n_samples,), optional
        The training values of every cost variable (additive matrices).
    n_jobs : int, default=1
        Threads of the compiled sums of a categorical target (:func:`level_sums`); the
        statistics do not depend on it.

    Returns
    -------
    DecisionStats
    """
    parent = np.asarray(parent)
    depth = np.asarray(depth)
    n_nodes = parent.shape[0]
    F = np.asarray(sample_weight, dtype=STAT_DTYPE)
    cost_columns = {} if cost_columns is None else dict(cost_columns)
    cost_vars = tuple(cost_columns)
    n = np.shape(node_of_row)[0]
    if len(cost_vars) == 1:  # (n, 1) without a copy where the column is float64 already
        var_columns = np.asarray(cost_columns[cost_vars[0]], dtype=STAT_DTYPE).reshape(n, 1)
    else:
        var_columns = np.zeros((n, len(cost_vars)), dtype=STAT_DTYPE)
        for k, name in enumerate(cost_vars):
            var_columns[:, k] = np.asarray(cost_columns[name], dtype=STAT_DTYPE)
    if cons.is_interval:
        node_of_row = np.asarray(node_of_row, dtype=np.intp)
        weight = _node_sums(node_of_row, F, parent, depth)
        y = np.asarray(y, dtype=STAT_DTYPE)
        knots = np.asarray(cons.knots, dtype=STAT_DTYPE)
        fields = dict(
            is_interval=True,
            weight=weight,
            y_sum=_node_sums(node_of_row, F * y, parent, depth),
            rows=knots,
            decisions=tuple(decisions),
        )
        if cons.case_q is not None:
            fields["is_case_specific"] = True
            fields["q_sums"] = _node_sums(
                node_of_row, F[:, None, None] * cons.case_q, parent, depth
            )
            fields["profit_actual"] = _node_sums(
                node_of_row, F[:, None] * cons.q_actual(y), parent, depth
            )
        else:
            fields["hat_sums"] = propagate_up(
                _hat_basis_sums(node_of_row, y, F, knots, n_nodes), parent, depth
            )
            fields["cost_variables"] = cost_vars
            fields["cost_var_sums"] = _node_sums(
                node_of_row, F[:, None] * var_columns, parent, depth
            )
        return DecisionStats(**fields)

    t_idx = np.asarray(t_idx)
    n_levels = cons.base.shape[0]
    if cons.case_q is not None:
        # Q(j, T(j), d) of every case: the sums by level of its own consequences
        columns = cons.case_q[np.arange(t_idx.shape[0]), t_idx]  # (n, D)
    else:
        columns = var_columns
    weight, sums = level_sums(node_of_row, t_idx, F, columns, n_nodes, n_levels,
                              n_jobs=n_jobs)
    weight = propagate_up(weight, parent, depth)
    sums = propagate_up(sums, parent, depth)
    fields = dict(
        weight=weight,
        class_weight=np.ascontiguousarray(sums[:, :, 0]),
        rows=rows,
        decisions=tuple(decisions),
    )
    if cons.case_q is not None:
        fields["is_case_specific"] = True
        fields["q_sums"] = np.ascontiguousarray(sums[:, :, 1:])
    else:
        fields["cost_variables"] = cost_vars
        fields["cost_var_sums"] = np.ascontiguousarray(sums[:, :, 1:])
    return DecisionStats(**fields)


#: Rows of a chunk of the compiled :func:`level_sums` (the chunks' sums are added in
#: chunk order, whatever the number of threads).
LEVEL_SUM_CHUNK = 1 << 16


def level_sums(node_of_row, level, sample_weight, columns, n_nodes, n_levels, *, n_jobs=1,
               pool=None):
    """Per leaf: the weight, and per (leaf, level) the weight and the weighted columns.

    ``weight[v] = sum_{i in v} F(i)`` and ``sums[v, t] = [sum F(i), sum F(i) c_1(i),
    ...]`` over the rows ``i`` of leaf ``v`` whose level is ``t`` (the node statistics
    of a categorical target, before :func:`propagate_up`).

    The NumPy twin (the reference) is one ``np.bincount`` per sum, each adding the rows
    in row order. The compiled kernel (:mod:`~dtdecide.tree._kernels._compiled_sums`,
    when :func:`dtdecide._jit.use_compiled` says so) makes every sum in one pass, per
    chunk of ``LEVEL_SUM_CHUNK`` rows or more (more when the chunks' buffers would
    outgrow a float per row) on ``n_jobs`` threads, and adds the chunks' sums in chunk
    order: the same sums for every ``n_jobs``, equal to the twin's within a relative
    ``1e-12`` (bit for bit on one chunk, and always for whole-number weights).

    Parameters
    ----------
    node_of_row : ndarray of int, shape (n_samples,)
    level : ndarray of int, shape (n_samples,)
        Level codes in ``[0, n_levels)``.
    sample_weight : ndarray of float, shape (n_samples,)
    columns : ndarray of float, shape (n_samples, k)
    n_nodes, n_levels : int
    n_jobs : int, default=1
        Threads of the compiled kernel.
    pool : ThreadPool or None
        Threads already open (:mod:`dtdecide.tree._kernels._parallel`), used instead of
        ``n_jobs`` new ones.

    Returns
    -------
    weight : ndarray of shape (n_nodes,)
    sums : ndarray of shape (n_nodes, n_levels, 1 + k)

    Examples
    --------
    >>> import numpy as np
    >>> w, s = level_sums(np.array([1, 1, 0]), np.array([0, 1, 1]), np.ones(3),
    ...                   np.array([[2.0], [3.0], [4.0]]), 2, 2)
    >>> w.tolist(), s[1].tolist()
    ([1.0, 2.0], [[1.0, 2.0], [1.0, 3.0]])
    """
    n = np.shape(node_of_row)[0]
    columns = np.asarray(columns, dtype=STAT_DTYPE).reshape(n, -1)
    k = columns.shape[1]
    F = np.asarray(sample_weight, dtype=STAT_DTYPE)
    if n_levels < 127 and use_compiled(n):
        return _compiled_level_sums(node_of_row, level, F, columns, n_nodes, n_levels,
                                    n_jobs, pool)
    node_of_row = np.asarray(node_of_row, dtype=np.intp)
    weight = leaf_sums(node_of_row, F, n_nodes)
    # one key per row: the sums of a one-hot expansion by level, in the same row order,
    # without its (rows x levels [x columns]) arrays
    key = node_of_row * n_levels + np.asarray(level)
    size = n_nodes * n_levels
    sums = np.empty((size, 1 + k), dtype=STAT_DTYPE)
    sums[:, 0] = np.bincount(key, weights=F, minlength=size)
    for j in range(k):  # one column of weights at a time
        sums[:, 1 + j] = np.bincount(key, weights=F * columns[:, j], minlength=size)
    return weight, sums.reshape(n_nodes, n_levels, 1 + k)


def _compiled_level_sums(node_of_row, level, F, columns, n_nodes, n_levels, n_jobs, pool):
    """:func:`level_sums` by the compiled kernel, per chunk of rows on the threads."""
    from ..._parallel import thread_pool
    from .._kernels import _compiled_sums
    from .._kernels._parallel import feature_groups

    n = columns.shape[0]
    k = columns.shape[1]
    node_of_row = np.ascontiguousarray(node_of_row, dtype=np.int32)
    level = np.ascontiguousarray(level, dtype=np.int8)
    columns = np.ascontiguousarray(columns)
    unit = F.ndim == 1 and F.size > 0 and F.strides[0] == 0 and F[0] == 1.0
    F = np.ones(1, dtype=STAT_DTYPE) if unit else np.ascontiguousarray(F)
    # chunks of LEVEL_SUM_CHUNK rows, fewer and longer when their buffers would hold more
    # numbers than there are rows (a deep tree on few rows); fixed by the data, never
    # by the threads
    cells = n_nodes * (1 + n_levels * (1 + k))
    max_chunks = max(1, n // max(cells, 1))
    size = max(LEVEL_SUM_CHUNK, -(-n // max_chunks))
    bounds = np.append(np.arange(0, n, size), n).astype(np.intp)
    n_chunks = max(bounds.size - 1, 1)
    if bounds.size == 1:
        bounds = np.zeros(2, dtype=np.intp)
    weight = np.zeros((n_chunks, n_nodes), dtype=STAT_DTYPE)
    sums = np.zeros((n_chunks, n_nodes * n_levels, 1 + k), dtype=STAT_DTYPE)

    def run(chunks):
        _compiled_sums.node_level_sums(node_of_row, level, F, unit, columns, bounds,
                                       int(chunks[0]), int(chunks[-1]) + 1, n_levels,
                                       weight, sums)

    if pool is not None:
        pool.map_groups(run, feature_groups(np.ones(n_chunks), pool.n_threads))
    else:
        n_threads = min(int(n_jobs), n_chunks)
        with thread_pool(n_threads) as new_pool:
            groups = feature_groups(np.ones(n_chunks), n_threads)
            if new_pool is None:
                for g in groups:
                    run(g)
            else:
                new_pool.map_groups(run, groups)
    total_w, total = weight[0], sums[0]
    for c in range(1, n_chunks):  # in chunk order
        total_w += weight[c]
        total += sums[c]
    return total_w, total.reshape(n_nodes, n_levels, 1 + k)


# --------------------------------------------------------------------- decisions
def node_posteriors(class_weight, priors=None):
    """Posterior of every level at every node, prior-adjusted when ``priors`` is given.

    Without priors: the frequency-weighted level proportions of the node. With priors
    ``pi``: ``p_t pi_t / rho_t`` renormalised, where ``rho`` are the level proportions
    at the root (node 0, the training proportions). Levels absent from training get
    posterior 0. A node without positive adjusted mass falls back to its plain
    proportions; a node without any weight gets NaN.

    Examples
    --------
    >>> import numpy as np
    >>> cw = np.array([[6.0, 2.0], [4.0, 1.0], [2.0, 1.0]])
    >>> node_posteriors(cw).round(3).tolist()
    [[0.75, 0.25], [0.8, 0.2], [0.667, 0.333]]
    >>> node_posteriors(cw, priors=np.array([0.5, 0.5])).round(3).tolist()
    [[0.5, 0.5], [0.571, 0.429], [0.4, 0.6]]
    """
    class_weight = np.asarray(class_weight, dtype=STAT_DTYPE)
    total = class_weight.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        plain = class_weight / total
    if priors is None:
        return plain
    rho = class_weight[0] / class_weight[0].sum()
    ratio = np.divide(priors, rho, out=np.zeros_like(rho), where=rho > 0)
    adj = class_weight * ratio
    adj_total = adj.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        post = adj / adj_total
    no_mass = adj_total[:, 0] <= 0
    post[no_mass] = plain[no_mass]
    return post


def smooth_posteriors(post, weight, parent, depth, m):
    """m-estimate smoothing of node posteriors toward their parents, top-down.

    ``s(root) = p(root)`` and, for every other node ``v`` with parent ``u``,
    ``s(v) = (n(v) p(v) + m s(u)) / (n(v) + m)``: a node's own shares count with its
    training weight ``n(v)``, its parent's smoothed posterior with ``m`` cases, so a
    leaf of a few cases is pulled toward what its ancestors know and a large leaf keeps
    its own shares. A node depends only on its ancestors, so a pruned subtree's leaves
    have the same smoothed posteriors as the same nodes of the full tree. A node without
    weight (NaN posterior) takes its parent's.

    Parameters
    ----------
    post : ndarray of shape (n_nodes, n_levels)
        Posteriors of every node (:func:`node_posteriors`).
    weight : ndarray of shape (n_nodes,)
        Training weight of every node (``weighted_n_node_samples``).
    parent, depth : ndarray of int, shape (n_nodes,)
    m : float
        Weight of the parent's posterior, in cases (``>= 0``; 0 returns ``post``).

    Returns
    -------
    ndarray of shape (n_nodes, n_levels)

    Examples
    --------
    >>> import numpy as np
    >>> post = np.array([[0.5, 0.5], [0.0, 1.0], [0.8, 0.2]])
    >>> weight = np.array([20.0, 2.0, 18.0])
    >>> parent, depth = np.array([-1, 0, 0]), np.array([0, 1, 1])
    >>> smooth_posteriors(post, weight, parent, depth, 2.0).round(3).tolist()
    [[0.5, 0.5], [0.25, 0.75], [0.77, 0.23]]
    """
    post = np.asarray(post, dtype=STAT_DTYPE)
    if m == 0:
        return post
    out = post.copy()
    weight = np.nan_to_num(np.asarray(weight, dtype=STAT_DTYPE))
    depth = np.asarray(depth)
    for d in range(1, int(np.max(depth, initial=0)) + 1):
        ids = np.flatnonzero(depth == d)
        up = out[np.asarray(parent)[ids]]
        own = out[ids]
        own = np.where(np.isnan(own), up, own)
        n = weight[ids][:, None]
        out[ids] = (n * own + m * up) / (n + m)
    return out


def fill_nan_from_parent(post, parent, depth):
    """Rows of ``post`` that are NaN (nodes without weight) take their parent's, top-down.

    Examples
    --------
    >>> import numpy as np
    >>> post = np.array([[0.5, 0.5], [np.nan, np.nan], [np.nan, np.nan], [0.2, 0.8]])
    >>> fill_nan_from_parent(post, np.array([-1, 0, 1, 0]), np.array([0, 1, 2, 1])).tolist()
    [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.2, 0.8]]
    """
    out = np.array(post, dtype=STAT_DTYPE)
    depth = np.asarray(depth)
    for d in range(1, int(np.max(depth, initial=0)) + 1):
        ids = np.flatnonzero(depth == d)
        empty = ids[np.isnan(out[ids]).any(axis=1)]
        out[empty] = out[np.asarray(parent)[empty]]
    return out


def _decision_costs_categorical(stats, matrix):
    """Per node, level and decision: ``sum_{j in node, T(j)=t} F(j) Cost(j, d)``."""
    n_nodes, n_levels = stats.class_weight.shape
    out = np.zeros((n_nodes, n_levels, matrix.n_decisions), dtype=STAT_DTYPE)
    for j, d in enumerate(matrix.decisions):
        c = matrix.costs.get(d)
        if c is None:
            continue
        if isinstance(c, str):
            out[:, :, j] = stats.cost_var_sums[:, :, _variable_index(stats, c)]
        else:
            out[:, :, j] = float(c) * stats.class_weight
    return out


def _decision_costs_interval(stats, matrix):
    out = np.zeros((stats.n_nodes, matrix.n_decisions), dtype=STAT_DTYPE)
    for j, d in enumerate(matrix.decisions):
        c = matrix.costs.get(d)
        if c is None:
            continue
        if isinstance(c, str):
            out[:, j] = stats.cost_var_sums[:, _variable_index(stats, c)]
        else:
            out[:, j] = float(c) * stats.weight
    return out


def _variable_index(stats, name):
    try:
        return stats.cost_variables.index(name)
    except ValueError:
        raise ValueError(
            f"matrix uses the cost variable {name!r}, which the tree did not see at fit "
            f"(known cost variables: {list(stats.cost_variables)!r}); re-deciding with it "
            "needs the training data: refit the tree"
        ) from None


def _same_rows(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.all(a == b))


def node_decisions(stats, matrix, *, priors=None):
    """Decision fields of every node for ``matrix`` (and optionally other priors).

    Parameters
    ----------
    stats : DecisionStats
    matrix : DecisionMatrix
        The fit matrix or another one with the same levels (same knots for an interval
        target), whose costs are constants or cost variables seen at fit.
        Case-specific statistics can only be re-decided with the fit matrix (other
        priors are fine).
    priors : ndarray of shape (n_levels,) or None
        Priors for the posteriors (already validated); None uses no adjustment.

    Returns
    -------
    dict
        ``cost_sum`` (n_nodes, D), ``profit_sum`` (n_nodes, T, D) or (n_nodes, D),
        ``node_decision`` (n_nodes,) and ``node_expected`` (n_nodes, D), all in profit
        orientation.
    """
    if stats.is_interval != matrix.is_interval:
        raise ValueError(
            "matrix must be an interval (knots) matrix for a regression tree and a "
            "categorical (levels) matrix for a classification tree"
        )
    if not _same_rows(stats.rows, matrix.rows):
        what = "knots" if stats.is_interval else "levels"
        raise ValueError(
            f"matrix must have the same {what} as the decision matrix used at fit "
            f"({np.asarray(stats.rows).tolist()!r}); got {np.asarray(matrix.rows).tolist()!r}. "
            "Re-deciding with other rows needs the training data: refit the tree"
        )
    if stats.is_case_specific or matrix.is_case_specific:
        if not (stats.is_case_specific and matrix.is_case_specific
                and tuple(matrix.decisions) == tuple(stats.decisions)):
            raise ValueError(
                "matrix: a tree fitted with case-specific consequences can only be "
                "re-decided with the same case-specific matrix (other priors are fine); "
                "other consequences need the per-case data: refit the tree"
            )
    if stats.is_interval:
        return _interval_decisions(stats, matrix)
    return _categorical_decisions(stats, matrix, priors)


def _smooth_toward_parent(values, weight, parent, depth, m):
    """m-estimate of per-node averages toward the parent's smoothed average, top-down.

    ``values`` (n_nodes, ...) are averages over a node's cases (NaN where it has
    none) and ``weight`` their weights, of a shape that broadcasts to ``values``:
    ``s(v) = (w(v) a(v) + m s(parent)) / (w(v) + m)``; the root keeps its own (0 where
    it has none).
    """
    out = np.array(values, dtype=STAT_DTYPE)
    weight = np.nan_to_num(np.asarray(weight, dtype=STAT_DTYPE))
    out[0] = np.nan_to_num(out[0])
    for d in range(1, int(np.max(depth, initial=0)) + 1):
        ids = np.flatnonzero(depth == d)
        up = out[parent[ids]]
        own = np.where(np.isnan(out[ids]), up, out[ids])
        w = np.broadcast_to(weight[ids], own.shape)
        out[ids] = (w * own + m * up) / (w + m)
    return out


def smoothed_node_decisions(stats, matrix, *, priors, parent, depth, m):
    """:func:`node_decisions` of a categorical target from smoothed leaf estimates.

    The leaf rule's decision of a node comes from its posteriors and its cases' average
    consequences; with ``m > 0`` both are pulled toward the parent's smoothed values
    with the weight of ``m`` cases (:func:`smooth_posteriors` for the posteriors; each
    level's average consequence, or each decision's average cost, weighted by the
    node's cases of that level, or all its cases). ``node_expected`` and
    ``node_decision`` use the smoothed estimates; ``profit_sum`` and ``cost_sum`` stay
    the node's own sums (what pruning and the reports count). ``stats`` covers the full
    tree (``parent`` / ``depth`` its shape); ``m = 0`` is :func:`node_decisions`.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.decision import DecisionMatrix
    >>> m = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    >>> costs = np.array([[1.0, 9, 0, 0]] * 2 + [[1.0, 9, 0, 0]] * 2)
    >>> cons = m.resolve(costs, n_samples=4)
    >>> stats = compute_decision_stats(np.array([1, 1, 1, 2]), np.array([-1, 0, 0]),
    ...     np.array([0, 1, 1]), cons=cons, sample_weight=np.ones(4),
    ...     t_idx=np.array([0, 0, 1, 0]), rows=m.rows, decisions=m.decisions)
    >>> parent, depth = np.array([-1, 0, 0]), np.array([0, 1, 1])
    >>> raw = node_decisions(stats, m)
    >>> smooth = smoothed_node_decisions(stats, m, priors=None, parent=parent,
    ...                                  depth=depth, m=4.0)
    >>> raw["node_decision"].tolist(), smooth["node_decision"].tolist()
    ([0, 0, 1], [0, 0, 0])
    """
    if m <= 0 or stats.is_interval:
        return node_decisions(stats, matrix, priors=priors)
    fields = node_decisions(stats, matrix, priors=priors)  # checks, raw sums
    parent, depth = np.asarray(parent), np.asarray(depth)
    cw = stats.class_weight
    W = stats.weight
    post = smooth_posteriors(node_posteriors(cw, priors), W, parent, depth, m)
    with np.errstate(invalid="ignore", divide="ignore"):
        if stats.is_case_specific:
            qbar = np.where(cw[:, :, None] > 0, stats.q_sums / cw[:, :, None], np.nan)
            qbar = _smooth_toward_parent(qbar, cw[:, :, None], parent, depth, m)
            expected = np.einsum("nt,ntd->nd", post, qbar)
        else:
            base = np.asarray(matrix.profit_values, dtype=STAT_DTYPE)
            avg_cost = np.where(W[:, None] > 0, fields["cost_sum"] / W[:, None], np.nan)
            avg_cost = _smooth_toward_parent(avg_cost, W[:, None], parent, depth, m)
            expected = post @ base - avg_cost
    return _finish(stats, fields["cost_sum"], fields["profit_sum"], expected)


def _categorical_decisions(stats, matrix, priors):
    cw = stats.class_weight
    W = stats.weight
    post = node_posteriors(cw, priors)
    D = matrix.n_decisions
    if stats.is_case_specific:
        profit_sum = stats.q_sums.copy()
        cost_sum = np.zeros((cw.shape[0], D), dtype=STAT_DTYPE)
        with np.errstate(invalid="ignore", divide="ignore"):
            qbar = np.where(cw[:, :, None] > 0, profit_sum / cw[:, :, None], 0.0)
        expected = np.einsum("nt,ntd->nd", post, qbar)
    else:
        base = np.asarray(matrix.profit_values, dtype=STAT_DTYPE)
        cost_class = _decision_costs_categorical(stats, matrix)
        cost_sum = cost_class.sum(axis=1)
        profit_sum = cw[:, :, None] * base[None, :, :] - cost_class
        with np.errstate(invalid="ignore", divide="ignore"):
            avg_cost = cost_sum / W[:, None]
        expected = post @ base - avg_cost
    return _finish(stats, cost_sum, profit_sum, expected)


def _interval_decisions(stats, matrix):
    W = stats.weight
    with np.errstate(invalid="ignore", divide="ignore"):
        pred = stats.y_sum / W
    knots = np.asarray(matrix.knots, dtype=STAT_DTYPE)
    if stats.is_case_specific:
        seg, w = _segments(knots, np.where(np.isnan(pred), knots[0], pred))
        nodes = np.arange(stats.n_nodes)
        qs = stats.q_sums
        interp = qs[nodes, seg] * (1.0 - w[:, None]) + qs[nodes, seg + 1] * w[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = interp / W[:, None]
        profit_sum = stats.profit_actual.copy()
        cost_sum = np.zeros_like(profit_sum)
    else:
        base = np.asarray(matrix.profit_values, dtype=STAT_DTYPE)
        cost_sum = _decision_costs_interval(stats, matrix)
        profit_sum = stats.hat_sums @ base - cost_sum
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = interpolate_knots(knots, base, pred) - cost_sum / W[:, None]
    return _finish(stats, cost_sum, profit_sum, expected)


def _finish(stats, cost_sum, profit_sum, expected):
    decision, _ = decide_arrays(expected)
    return dict(
        cost_sum=cost_sum,
        profit_sum=profit_sum,
        node_decision=decision,
        node_expected=expected,
    )


def fill_empty_from_parent(fields, parent, depth, weight):
    """Nodes without training weight inherit their parent's decision fields.

    A leaf can hold rows whose frequencies are all zero; its posterior is undefined, so
    it takes the decision (and expected profits) of its parent.
    """
    empty = ~(weight > 0)
    if not empty.any():
        return fields
    dec = fields["node_decision"].copy()
    exp = fields["node_expected"].copy()
    for d in range(1, int(depth.max(initial=0)) + 1):
        ids = np.flatnonzero((depth == d) & empty)
        dec[ids] = dec[parent[ids]]
        exp[ids] = exp[parent[ids]]
    out = dict(fields)
    out["node_decision"] = dec
    out["node_expected"] = exp
    return out
