"""Weakest-link (cost-complexity) pruning driven by training profit.

Layer 3 (algorithms) of :mod:`dtdecide.tree` (``_algorithms``); see the architecture page.

A node's *risk* is minus the training profit it would earn as a leaf under its own
decision (``node_decision``), prior-adjusted when the decision matrix carries priors.
Under the case rule (``decision_rule="case"``) it is minus the training profit of the
node's cases each under its own best decision from the node's posteriors and its own
costs (sums the estimator computed at fit, see :mod:`._caserule`).
Without a decision matrix, or with fewer than two decisions, the risk falls back to the
weighted number of misclassified cases (classifiers) or the sum of squared errors
(regressors). Nothing here refits a tree: everything is computed from the statistics that
:class:`~dtdecide.tree._structure._tree.TreeStructure` stores for every node.

The nested subtree sequence is encoded by one integer per node, ``collapse_step``: the
index of the first subtree in which the node is a leaf (``0`` for the leaves of the full
tree). Internal nodes that disappear inside a larger collapse get the step of that
collapse, so ``collapse_step`` never decreases from a child to its parent, and node ``v``
is a leaf of subtree ``k`` exactly when
``collapse_step[v] <= k < collapse_step[parent[v]]`` (``n_subtrees`` for the root).
Per-subtree sums of any per-node quantity are then a difference array over these
intervals (:func:`sum_over_subtrees`), which is how training and validation measures of
every subtree are computed without a Python loop over subtrees or rows.

Under the case rule the sequence may instead follow the nodes' *leaf decisions*
(``pruning_sequence="leaf"``): the weakest links are those of the risk each node would
have under the leaf rule (its one best decision from its averaged costs, as rpart prunes
by the risk of its leaf classes), while the training measure of every subtree stays the
case rule's. The two sequences differ where a split changes how the cases decide
without changing the nodes' own decisions, or the other way round.
"""

import heapq
import numbers

import numpy as np
from sklearn.utils import Bunch

__all__ = [
    "PRUNING_SEQUENCES",
    "check_pruning_sequence",
    "prune_tree",
    "tree_node_risk",
    "tree_pruning_path",
    "level_weights",
    "weakest_link_sequence",
    "leaf_intervals",
    "sum_over_subtrees",
    "subtree_index_for_alpha",
    "keep_as_leaf_mask",
]

#: the orders a tree can be pruned in (``pruning_sequence``)
PRUNING_SEQUENCES = ("rule", "leaf")

# Relative tolerance when comparing risks: two sums of the same float64 numbers in a
# different order may differ by a few ulps of the largest term, never by 1e-9 of it.
_RISK_RTOL = 1e-9

_MEASURE_ALIASES = {
    None: None,
    "decision": "decision",
    "profit": "decision",
    "loss": "decision",
    "misclassification": "misclassification",
    "ase": "ase",
}


def _resolve_measure(tree, matrix, classifier, measure):
    """Return one of "profit", "loss", "misclassification", "ase"."""
    if measure not in _MEASURE_ALIASES:
        raise ValueError(
            "measure must be None, 'decision', 'misclassification' or 'ase'; "
            f"got {measure!r}"
        )
    measure = _MEASURE_ALIASES[measure]
    has_decisions = (
        matrix is not None
        and getattr(matrix, "n_decisions", 0) >= 2
        and tree.node_decision is not None
        and tree.profit_sum is not None
    )
    if measure is None:
        if has_decisions:
            measure = "decision"
        else:
            measure = "misclassification" if classifier else "ase"
    if measure == "decision":
        if not has_decisions:
            raise ValueError(
                "measure='decision' needs a fitted decision matrix with at least two "
                "decisions and stored decision statistics; this tree has none"
            )
        return "loss" if getattr(matrix, "kind", "profit") == "loss" else "profit"
    if measure == "misclassification" and not classifier:
        raise ValueError("measure='misclassification' needs a classifier; use 'ase'")
    return measure


def level_weights(tree, matrix, classes):
    """Paw(t) per matrix level from the root's class frequencies, or None (no priors).

    Levels of the matrix that never occur in training get weight 0 (their profit sums
    are 0 anyway). Returns ``(paw, is_missing)`` where ``is_missing`` tells that a level
    with a positive prior has no training case (summaries are then NaN).
    """
    priors = getattr(matrix, "priors", None)
    if priors is None or tree.profit_sum is None or tree.profit_sum.ndim != 3:
        return None, False
    priors = np.asarray(priors, dtype=np.float64)
    priors = priors / priors.sum()
    freq = _level_frequencies(classes, tree.value[0], matrix.levels)
    total = float(tree.weighted_n_node_samples[0])
    paw = np.divide(priors * total, freq, out=np.zeros_like(priors), where=freq > 0)
    return paw, bool(np.any((priors > 0) & (freq <= 0)))


def _level_frequencies(classes, class_counts, levels):
    """Map per-class counts (order of ``classes``) onto matrix levels."""
    levels = list(levels)
    if classes is None:
        if len(class_counts) != len(levels):
            raise ValueError("cannot map the tree's classes onto the matrix levels")
        return np.asarray(class_counts, dtype=np.float64)
    position = {_key(c): i for i, c in enumerate(np.asarray(classes).tolist())}
    out = np.zeros(len(levels))
    for j, level in enumerate(levels):
        i = position.get(_key(level))
        if i is not None:
            out[j] = class_counts[i]
    return out


def _key(value):
    if isinstance(value, np.generic):
        value = value.item()
    return value


def tree_node_risk(tree, *, matrix=None, classes=None, classifier=None, measure=None,
                   case_profit=None):
    """:func:`node_risk` from the node arrays and statistics alone.

    Parameters
    ----------
    tree : TreeStructure
        Node arrays with their decision statistics (``profit_sum``, ``node_decision``).
    matrix : DecisionMatrix or None
        The fitted matrix (its kind, levels and priors).
    classes : ndarray or None
        The classifier's classes (the columns of ``tree.value``).
    classifier : bool, default=None
        Whether ``value`` holds class counts; by default ``classes is not None``.
    measure : {None, "decision", "misclassification", "ase"}, default=None
    case_profit : ndarray of shape (n_nodes,) or (n_nodes, n_levels), default=None
        Under the case rule (``decision_rule="case"``): every node's training profit
        with each of its cases under its own best decision (by level for a classifier);
        used instead of ``profit_sum`` and ``node_decision`` by the decision measure.

    Returns
    -------
    risk : ndarray of shape (n_nodes,)
    measure : str
    """
    if classifier is None:
        classifier = classes is not None
    kind = _resolve_measure(tree, matrix, classifier, measure)
    nodes = np.arange(tree.n_nodes)
    if kind in ("profit", "loss") and case_profit is not None:
        # each training case under its own best decision from the node's posteriors
        profit = np.asarray(case_profit, dtype=np.float64)
        if profit.ndim == 2:
            paw, _ = level_weights(tree, matrix, classes)
            profit = profit @ paw if paw is not None else profit.sum(axis=1)
        risk = -profit
    elif kind in ("profit", "loss"):
        profit_sum = np.asarray(tree.profit_sum, dtype=np.float64)
        decision = np.asarray(tree.node_decision, dtype=np.intp)
        if profit_sum.ndim == 3:
            paw, _ = level_weights(tree, matrix, classes)
            if paw is not None:
                profit = np.einsum("ntd,t->nd", profit_sum, paw)
            else:
                profit = profit_sum.sum(axis=1)
        else:
            profit = profit_sum
        risk = -profit[nodes, decision]
    elif kind == "misclassification":
        value = np.asarray(tree.value, dtype=np.float64)
        risk = value.sum(axis=1) - value.max(axis=1)
    else:  # ase
        value = np.asarray(tree.value, dtype=np.float64)
        if value.shape[1] != 3 or classifier:
            # classifier: Brier-type squared error of the node posteriors, summed over
            # classes and divided by the number of classes (see _study for validation)
            w = value.sum(axis=1)
            p = np.divide(value, w[:, None], out=np.zeros_like(value), where=w[:, None] > 0)
            risk = (w - (value * p).sum(axis=1)) / value.shape[1]
            risk = np.maximum(risk, 0.0)
        else:
            sw, swy, swyy = value[:, 0], value[:, 1], value[:, 2]
            mean_sq = np.divide(swy**2, sw, out=np.zeros_like(sw), where=sw > 0)
            risk = np.maximum(swyy - mean_sq, 0.0)
    if not np.all(np.isfinite(risk)):
        raise ValueError(
            "node statistics give a non-finite risk; check the decision statistics "
            "(profit_sum) of the fitted tree"
        )
    return risk, kind


# -------------------------------------------------------------------- weakest link
def weakest_link_sequence(children_left, children_right, risk):
    """Nested subtree sequence of exact weakest-link pruning.

    At each step the internal node(s) with the smallest
    ``g(v) = (R(v) - R(T_v)) / (|T_v| - 1)`` are collapsed, where ``R(T_v)`` is the risk
    of the current leaves below ``v``. Nodes whose ``g`` ties with the minimum (within a
    relative tolerance of ``1e-9`` of the largest risk) are collapsed in the same step,
    including ancestors that reach the same ``g`` once a descendant is collapsed, so each
    step has its own alpha. Subtree 0 is always the full tree with alpha 0; a negative
    ``g`` (a split that loses training profit) is clipped to the previous alpha, so the
    alphas never decrease.

    Parameters
    ----------
    children_left, children_right : array-like of int, shape (n_nodes,)
        Child ids, ``-1`` for leaves; children have larger ids than their parents.
    risk : array-like of float, shape (n_nodes,)
        Risk of each node as a leaf.

    Returns
    -------
    Bunch
        ``ccp_alphas`` (n_subtrees,), ``n_leaves`` (n_subtrees,), ``total_risk``
        (n_subtrees,) and ``collapse_step`` (n_nodes,) as described in the module notes.

    Examples
    --------
    >>> from dtdecide.tree._algorithms._pruning import weakest_link_sequence
    >>> seq = weakest_link_sequence([1, 3, -1, -1, -1], [2, 4, -1, -1, -1],
    ...                             [10.0, 4.0, 3.0, 1.0, 1.0])
    >>> seq.ccp_alphas.tolist(), seq.n_leaves.tolist(), seq.total_risk.tolist()
    ([0.0, 2.0, 3.0], [3, 2, 1], [5.0, 7.0, 10.0])
    >>> seq.collapse_step.tolist()
    [2, 1, 0, 0, 0]
    """
    left = np.asarray(children_left, dtype=np.intp).tolist()
    right = np.asarray(children_right, dtype=np.intp).tolist()
    R = np.asarray(risk, dtype=np.float64).tolist()
    n = len(left)
    if not (len(right) == n == len(R)) or n == 0:
        raise ValueError("children_left, children_right and risk must have the same length")
    parent = [-1] * n
    for v in range(n):
        if left[v] >= 0:
            parent[left[v]] = v
            parent[right[v]] = v
    tol = _RISK_RTOL * max(max(abs(r) for r in R), 1e-300)

    S = list(R)  # risk of the current leaves below each node
    L = [1] * n  # number of current leaves below each node
    for v in range(n - 1, -1, -1):
        if left[v] >= 0:
            S[v] = S[left[v]] + S[right[v]]
            L[v] = L[left[v]] + L[right[v]]
    is_leaf = [lv < 0 for lv in left]  # current leaves (collapsed nodes included)
    gone = [False] * n  # removed inside a collapse
    # Heap keys are lower bounds of the current g: collapsing a descendant at alpha
    # never lowers the g of an ancestor whose g is at least alpha (its numerator loses
    # alpha per leaf removed, less than its average). A popped key is re-checked and
    # pushed back with the current g when it was stale, so an ancestor costs one
    # addition per collapse below it instead of one heap push.
    heap = [((R[v] - S[v]) / (L[v] - 1), v) for v in range(n) if not is_leaf[v]]
    heapq.heapify(heap)

    collapse_step = [0] * n
    alphas = [0.0]
    n_leaves = [L[0]]
    totals = [S[0]]
    step = 0
    while not is_leaf[0]:
        g, v = heap[0]
        if gone[v] or is_leaf[v]:
            heapq.heappop(heap)
            continue
        current = (R[v] - S[v]) / (L[v] - 1)
        if current > g:  # stale key
            heapq.heapreplace(heap, (current, v))
            continue
        step += 1
        alpha = max(current, alphas[-1])
        while heap:
            g, v = heap[0]
            if gone[v] or is_leaf[v]:
                heapq.heappop(heap)
                continue
            if R[v] - S[v] > alpha * (L[v] - 1) + tol:
                current = (R[v] - S[v]) / (L[v] - 1)
                if current > g:
                    heapq.heapreplace(heap, (current, v))
                    continue
                break
            heapq.heappop(heap)
            # collapse v: mark what disappears below it
            stack = [left[v], right[v]]
            while stack:
                u = stack.pop()
                if is_leaf[u]:
                    continue
                gone[u] = True
                is_leaf[u] = True
                collapse_step[u] = step
                stack.append(left[u])
                stack.append(right[u])
            is_leaf[v] = True
            collapse_step[v] = step
            d_risk = R[v] - S[v]
            d_leaves = 1 - L[v]
            S[v] = R[v]
            L[v] = 1
            u = parent[v]
            while u >= 0:
                S[u] += d_risk
                L[u] += d_leaves
                u = parent[u]
        alphas.append(alpha)
        n_leaves.append(L[0])
        totals.append(S[0])
    return Bunch(
        ccp_alphas=np.asarray(alphas, dtype=np.float64),
        n_leaves=np.asarray(n_leaves, dtype=np.intp),
        total_risk=np.asarray(totals, dtype=np.float64),
        collapse_step=np.asarray(collapse_step, dtype=np.intp),
    )


def leaf_intervals(collapse_step, parent, n_subtrees):
    """Subtree range ``[start, stop)`` in which each node is a leaf.

    Parameters
    ----------
    collapse_step : ndarray of int, shape (n_nodes,)
    parent : ndarray of int, shape (n_nodes,)
    n_subtrees : int

    Returns
    -------
    start, stop : ndarray of int, shape (n_nodes,)
        Empty (``start == stop``) for nodes that are never leaves.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._algorithms._pruning import leaf_intervals
    >>> start, stop = leaf_intervals(np.array([2, 1, 0, 0, 0]),
    ...                              np.array([-1, 0, 0, 1, 1]), 3)
    >>> start.tolist(), stop.tolist()
    ([2, 1, 0, 0, 0], [3, 2, 2, 1, 1])
    """
    collapse_step = np.asarray(collapse_step, dtype=np.intp)
    parent = np.asarray(parent, dtype=np.intp)
    stop = np.where(parent >= 0, collapse_step[np.maximum(parent, 0)], n_subtrees)
    return collapse_step, stop


def sum_over_subtrees(node_values, start, stop, n_subtrees):
    """Sum a per-node quantity over the leaves of every subtree of the sequence.

    ``out[k] = sum of node_values[v] over the nodes v with start[v] <= k < stop[v]``,
    computed with one difference array (no loop over subtrees).

    Parameters
    ----------
    node_values : ndarray of shape (n_nodes,) or (n_nodes, m)
    start, stop : ndarray of int, shape (n_nodes,)
        From :func:`leaf_intervals`.
    n_subtrees : int

    Returns
    -------
    ndarray of shape (n_subtrees,) or (n_subtrees, m)

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._algorithms._pruning import sum_over_subtrees
    >>> sum_over_subtrees(np.array([10.0, 4.0, 3.0, 1.0, 1.0]),
    ...                   np.array([2, 1, 0, 0, 0]), np.array([3, 2, 2, 1, 1]), 3).tolist()
    [5.0, 7.0, 10.0]
    """
    values = np.asarray(node_values, dtype=np.float64)
    squeeze = values.ndim == 1
    if squeeze:
        values = values[:, None]
    keep = stop > start
    diff = np.zeros((n_subtrees + 1, values.shape[1]))
    np.add.at(diff, start[keep], values[keep])
    np.subtract.at(diff, stop[keep], values[keep])
    out = np.cumsum(diff[:-1], axis=0)
    return out[:, 0] if squeeze else out


def keep_as_leaf_mask(collapse_step, subtree_index):
    """Nodes to turn into leaves to obtain subtree ``subtree_index`` of the sequence.

    Examples
    --------
    >>> from dtdecide.tree._algorithms._pruning import keep_as_leaf_mask
    >>> keep_as_leaf_mask([2, 1, 0, 0, 0], 1).tolist()
    [False, True, True, True, True]
    """
    return np.asarray(collapse_step) <= subtree_index


def subtree_index_for_alpha(ccp_alphas, ccp_alpha):
    """Index of the smallest subtree of the sequence whose alpha is at most ``ccp_alpha``.

    Alphas equal to ``ccp_alpha`` up to a relative ``1e-9`` count as reached, so a split
    whose weakest-link alpha is exactly ``ccp_alpha`` is pruned.

    Examples
    --------
    >>> from dtdecide.tree._algorithms._pruning import subtree_index_for_alpha
    >>> subtree_index_for_alpha([0.0, 0.0, 2.0, 3.0], 0.0)
    1
    >>> subtree_index_for_alpha([0.0, 0.0, 2.0, 3.0], 2.5)
    2
    """
    alphas = np.asarray(ccp_alphas, dtype=np.float64)
    slack = _RISK_RTOL * max(abs(float(ccp_alpha)), float(np.abs(alphas).max(initial=0.0)))
    return int(np.searchsorted(alphas, ccp_alpha + slack, side="right") - 1)


def check_pruning_sequence(pruning_sequence):
    """``pruning_sequence`` validated: one of :data:`PRUNING_SEQUENCES`.

    Examples
    --------
    >>> from dtdecide.tree._algorithms._pruning import check_pruning_sequence
    >>> check_pruning_sequence("leaf")
    'leaf'
    """
    if not isinstance(pruning_sequence, str) or pruning_sequence not in PRUNING_SEQUENCES:
        raise ValueError(
            f"pruning_sequence must be one of {PRUNING_SEQUENCES}; got {pruning_sequence!r}"
        )
    return pruning_sequence


def tree_pruning_path(tree, *, matrix=None, classes=None, classifier=None, measure=None,
                      case_profit=None, pruning_sequence="rule"):
    """:func:`pruning_path` from the node arrays and statistics alone.

    Parameters
    ----------
    tree, matrix, classes, classifier, measure, case_profit
        As in :func:`tree_node_risk`.
    pruning_sequence : {"rule", "leaf"}, default="rule"
        ``"rule"``: the weakest-link sequence of the risk of :func:`tree_node_risk`
        (under the case rule, from ``case_profit``). ``"leaf"``: with ``case_profit``
        and the decision measure, the sequence of the nodes' leaf decisions (the risk
        without ``case_profit``: each node's own decision from its averaged costs),
        while ``train_total`` and ``train_average`` stay the case rule's training
        measure of each subtree and ``node_risk`` is the risk that ordered the
        sequence. Without ``case_profit`` the two are the same.

    Returns
    -------
    Bunch
        As :func:`pruning_path`.

    Examples
    --------
    A root whose two leaves each keep the root's decision (node risks 10, 4 and 5 under
    the leaf rule: the split gains 1 per leaf removed) while their cases, deciding each
    with its own costs, gain 6 by the split (case-rule risks 10, 2 and 2):

    >>> import numpy as np
    >>> from dtdecide.tree._structure._tree import TreeStructure
    >>> from dtdecide.tree._algorithms._pruning import tree_pruning_path
    >>> tree = TreeStructure.from_arrays(
    ...     children_left=[1, -1, -1], children_right=[2, -1, -1], feature=[0, -1, -1],
    ...     threshold=[0.5, np.nan, np.nan], n_node_samples=[10, 5, 5],
    ...     value=[[5, 5], [2, 3], [3, 2]], impurity=[0.5, 0.48, 0.48],
    ...     profit_sum=[[-10.0, -20.0], [-4.0, -9.0], [-5.0, -9.0]],
    ...     node_decision=[0, 0, 0], node_expected=[[-1.0, -2.0], [-0.8, -1.8], [-1.0, -1.8]])
    >>> class Matrix:
    ...     n_decisions, kind, priors = 2, "profit", None
    >>> case = np.array([-10.0, -2.0, -2.0])
    >>> rule = tree_pruning_path(tree, matrix=Matrix(), classifier=True, case_profit=case)
    >>> leaf = tree_pruning_path(tree, matrix=Matrix(), classifier=True, case_profit=case,
    ...                          pruning_sequence="leaf")
    >>> rule.ccp_alphas.tolist(), leaf.ccp_alphas.tolist()
    ([0.0, 6.0], [0.0, 1.0])
    >>> leaf.train_total.tolist()
    [-4.0, -10.0]
    """
    check_pruning_sequence(pruning_sequence)
    if classifier is None:
        classifier = classes is not None
    risk, kind = tree_node_risk(tree, matrix=matrix, classes=classes, classifier=classifier,
                                measure=measure, case_profit=case_profit)
    order = risk
    if pruning_sequence == "leaf" and case_profit is not None and kind in ("profit", "loss"):
        order, _ = tree_node_risk(tree, matrix=matrix, classes=classes,
                                  classifier=classifier, measure=measure)
    seq = weakest_link_sequence(tree.children_left, tree.children_right, order)
    total_risk = seq.total_risk
    if order is not risk:
        # the case rule's training measure of every subtree of the leaf sequence
        start, stop = leaf_intervals(seq.collapse_step, tree.parent, len(seq.ccp_alphas))
        total_risk = sum_over_subtrees(risk, start, stop, len(seq.ccp_alphas))
    total = -total_risk if kind == "profit" else total_risk.copy()
    weight = float(tree.weighted_n_node_samples[0])
    if kind in ("profit", "loss"):
        _, missing = level_weights(tree, matrix, classes)
        if missing:
            total = np.full_like(total, np.nan)
    average = total / weight if weight > 0 else np.full_like(total, np.nan)
    return Bunch(
        ccp_alphas=seq.ccp_alphas,
        n_leaves=seq.n_leaves,
        train_total=total,
        train_average=average,
        measure=kind,
        higher_is_better=kind == "profit",
        collapse_step=seq.collapse_step,
        node_risk=order,
        n_subtrees=int(seq.ccp_alphas.shape[0]),
    )


def _check_alpha(ccp_alpha, name="ccp_alpha"):
    if isinstance(ccp_alpha, bool) or not isinstance(ccp_alpha, numbers.Real):
        raise TypeError(f"{name} must be a non-negative real number; got {ccp_alpha!r}")
    if not np.isfinite(ccp_alpha) or ccp_alpha < 0:
        raise ValueError(f"{name} must be a non-negative finite number; got {ccp_alpha!r}")
    return float(ccp_alpha)


def _select_index(path, *, ccp_alpha=None, n_leaves=None, subtree_index=None):
    given = [x is not None for x in (ccp_alpha, n_leaves, subtree_index)]
    if sum(given) != 1:
        raise ValueError(
            "give exactly one of ccp_alpha, n_leaves or subtree_index; got "
            f"ccp_alpha={ccp_alpha!r}, n_leaves={n_leaves!r}, subtree_index={subtree_index!r}"
        )
    if ccp_alpha is not None:
        return subtree_index_for_alpha(path.ccp_alphas, _check_alpha(ccp_alpha))
    if n_leaves is not None:
        if isinstance(n_leaves, bool) or not isinstance(n_leaves, numbers.Integral):
            raise TypeError(f"n_leaves must be a positive integer; got {n_leaves!r}")
        if n_leaves < 1:
            raise ValueError(f"n_leaves must be at least 1; got {n_leaves}")
        # n_leaves is non-increasing along the sequence: the largest subtree with at
        # most n_leaves leaves is the first one that fits
        return int(np.flatnonzero(path.n_leaves <= n_leaves)[0])
    if isinstance(subtree_index, bool) or not isinstance(subtree_index, numbers.Integral):
        raise TypeError(f"subtree_index must be an integer; got {subtree_index!r}")
    k = int(subtree_index)
    # no Python-style negative indices: -1 would silently pick the root (the last subtree)
    if not 0 <= k < path.n_subtrees:
        raise ValueError(
            f"subtree_index must be in [0, {path.n_subtrees}) (0 is the full tree, "
            f"{path.n_subtrees - 1} the root alone; negative positions are not accepted); "
            f"got {subtree_index}"
        )
    return k


def _materialise(tree, path, k):
    return tree.subtree(keep_as_leaf_mask(path.collapse_step, k))


def prune_tree(tree, ccp_alpha, *, matrix=None, classes=None, classifier=None, measure=None,
               case_profit=None):
    """:func:`apply_ccp_alpha` on the node arrays and statistics alone.

    Parameters
    ----------
    tree : TreeStructure
    ccp_alpha : float or None
        None returns ``tree`` unchanged.
    matrix, classes, classifier, measure, case_profit
        As in :func:`tree_node_risk`.

    Returns
    -------
    TreeStructure
    """
    if ccp_alpha is None:
        return tree
    alpha = _check_alpha(ccp_alpha)
    path = tree_pruning_path(tree, matrix=matrix, classes=classes, classifier=classifier,
                             measure=measure, case_profit=case_profit)
    k = subtree_index_for_alpha(path.ccp_alphas, alpha)
    return _materialise(tree, path, k)
