"""Editing a fitted tree by hand: override a leaf's decision, prune a node, split a leaf.

Layer 3 (algorithms) of :mod:`dtdecide.tree` (``_algorithms``); see the architecture page.

The estimators' edit methods (:mod:`dtdecide.tree._estimator._editing`) call the
functions here. Each public edit returns a new fitted estimator (the original is unchanged) and appends
a JSON-serialisable record to ``edits_``, which ``fit(..., edits=...)`` replays on a
refit. Each record carries a ``fingerprint`` of the node it edits, taken before the edit
(:func:`node_fingerprint`: the split conditions from the root down to the node and the
node's training case count); a replay checks it, so that a record is never applied to
whatever node happens to have its id in a tree grown otherwise. An edit *re-bases* the copy on its edited tree: the edited ``tree_`` becomes the
estimator's reference tree (``_full_tree_``) with the decision statistics of its nodes,
so that re-deciding (pruning studies, ``_redecide``) starts from the edited tree.

Decision overrides are kept in ``decision_overrides_`` (node id of the reference tree,
which is ``tree_`` right after an edit -> decision index) and applied by ``_redecide`` whenever the tree is re-decided with its
own matrix and priors; every reader of ``tree_.node_decision`` (``decide``, the leaf
table, rules, SQL, plots, the HTML view) therefore follows them.
"""

from __future__ import annotations

import copy
import math
import numbers
import os
import sys
import warnings

import numpy as np
import pandas as pd

from .._structure._nodeview import natural_decisions
from .._structure._tree import match_subtree_nodes

__all__ = ["apply_overrides", "node_fingerprint", "replay_edits"]

_OPS = ("set_decision", "prune_node", "split", "regrow")
_KEYS = {
    "set_decision": {"node", "decision"},
    "prune_node": {"node"},
    "split": {"node", "feature", "threshold", "categories", "missing"},
    "regrow": {"node", "params"},
}
_NEEDS_ROWS = ("split", "regrow")
_FINGERPRINT = "fingerprint"


# ------------------------------------------------------------------ helpers
def _check_fitted(est, what):
    if getattr(est, "tree_", None) is None:
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(
            f"This {type(est).__name__} instance is not fitted yet: {what} needs a fitted "
            "tree (it has no tree_); call fit first"
        )


def _check_node(est, node, name="node"):
    """``node`` as an int id of ``tree_``; ValueError naming it otherwise."""
    n_nodes = est.tree_.n_nodes
    if isinstance(node, (bool, np.bool_)) or not isinstance(node, (numbers.Integral,)):
        raise TypeError(f"{name} must be an int node id (as in apply()); got {node!r}")
    node = int(node)
    if not 0 <= node < n_nodes:
        raise ValueError(
            f"{name}={node} is not a node of this tree: node ids run from 0 to {n_nodes - 1}"
        )
    return node


def _rebase(est, structure):
    """Make ``structure`` (a subtree of ``_full_tree_``) the estimator's reference tree.

    The decision statistics and the overrides (keyed by reference node ids) follow the
    nodes to their ids in ``structure``; overrides of removed nodes are dropped.
    """
    nodes = match_subtree_nodes(est._full_tree_, structure)
    stats = getattr(est, "_decision_stats_", None)
    if stats is not None:
        est._decision_stats_ = stats.take(nodes)
    case = getattr(est, "_case_stats_", None)
    if case is not None:  # decision_rule="case": the nodes' case-rule training profit
        est._case_stats_ = {**case, "profit": case["profit"][nodes]}
    overrides = getattr(est, "decision_overrides_", None) or {}
    est.decision_overrides_ = {
        new: overrides[int(ref)] for new, ref in enumerate(nodes) if int(ref) in overrides
    }
    est._full_tree_ = structure
    est.tree_ = structure


def apply_overrides(fields, overrides, nodes):
    """``fields`` (from ``node_decisions``) with the overridden decisions put in.

    ``overrides`` maps node ids of the reference tree to decision indices; ``nodes``
    gives the reference id of every node of the structure being re-decided.
    """
    if not overrides:
        return fields
    decision = np.array(fields["node_decision"], copy=True)
    for i, ref in enumerate(np.asarray(nodes)):
        d = overrides.get(int(ref))
        if d is not None:
            decision[i] = d
    return {**fields, "node_decision": decision}


def _to_json_label(value):
    """A label as a plain JSON value (numpy scalars unwrapped)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


# ---------------------------------------------------------------- fingerprints
def _condition(est, tree, node):
    """The split of internal ``node`` as a JSON record (as a ``split`` record gives it)."""
    j = int(tree.feature[node])
    step = {"feature": str(est.feature_names_in_[j])}
    if bool(tree.is_categorical[node]):
        labels = list(est.categories_[j])
        codes = np.flatnonzero(np.asarray(tree.cat_left[node])[: len(labels)])
        # str: any label is JSON text, and the same labels give the same text
        step.update(threshold=None, categories=[str(labels[c]) for c in codes])
    else:
        step.update(threshold=float(tree.threshold[node]), categories=None)
    step["missing"] = "left" if bool(tree.missing_left[node]) else "right"
    return step


def node_fingerprint(est, node):
    """What identifies ``node`` of ``est.tree_`` beyond its id, as a JSON-serialisable dict.

    ``path``: the split of every node from the root down to ``node``'s parent (``feature``,
    ``threshold`` or ``categories`` that go left, where ``missing`` values go) and the
    ``side`` the path takes; ``n``: the node's training case count (``n_node_samples``).
    A tree grown again from the same rows with the same settings gives the same
    fingerprint; a tree grown from other rows or with other settings almost always gives
    another one at a node of the same id, through its path or its count.
    """
    tree = est.tree_
    path = []
    child = int(node)
    while int(tree.parent[child]) >= 0:
        parent = int(tree.parent[child])
        step = _condition(est, tree, parent)
        step["side"] = "left" if int(tree.children_left[parent]) == child else "right"
        path.append(step)
        child = parent
    return {"path": path[::-1], "n": int(tree.n_node_samples[node])}


def _describe_step(step):
    if not isinstance(step, dict):
        return repr(step)
    if step.get("categories") is not None:
        test = f"{step.get('feature')} in {step.get('categories')!r}"
    else:
        test = f"{step.get('feature')} <= {step.get('threshold')!r}"
    return f"{test} ({step.get('side')} side; missing {step.get('missing')})"


def _same_step(recorded, found):
    if not isinstance(recorded, dict):
        return False
    for key in ("feature", "side", "missing"):
        if recorded.get(key) != found[key]:
            return False
    if found["categories"] is not None:
        cats = recorded.get("categories")
        return (recorded.get("threshold") is None and isinstance(cats, list)
                and sorted(map(str, cats)) == sorted(found["categories"]))
    thr = recorded.get("threshold")
    if recorded.get("categories") is not None or isinstance(thr, bool) or not isinstance(
            thr, numbers.Real):
        return False
    # the same tree gives the same float; text round trips may drop the last digit
    return math.isclose(float(thr), found["threshold"], rel_tol=1e-12, abs_tol=1e-300)


def _fingerprint_mismatch(recorded, est, node):
    """Why ``recorded`` (a record's fingerprint) is not that of ``node``; None when it is."""
    if not isinstance(recorded, dict) or not isinstance(recorded.get("path"), list):
        raise ValueError(
            "its fingerprint must be a dict with a 'path' list and a count 'n' (as edits_ "
            f"records it); got {recorded!r}"
        )
    found = node_fingerprint(est, node)
    path, now = recorded["path"], found["path"]
    for depth, (a, b) in enumerate(zip(path, now)):
        if not _same_step(a, b):
            return (f"the split at depth {depth} on its path from the root was "
                    f"{_describe_step(a)} when the edit was made and is "
                    f"{_describe_step(b)} in this tree")
    if len(path) != len(now):
        return (f"it lay at depth {len(path)} when the edit was made and lies at depth "
                f"{len(now)} in this tree")
    n = recorded.get("n")
    if n is not None and n != found["n"]:
        return (f"it held {n!r} training cases when the edit was made and holds "
                f"{found['n']} in this tree")
    return None


def _check_record_node(est, i, op, record):
    """Refuse record ``i`` when its node's fingerprint differs from the one recorded."""
    node = _check_node(est, record["node"])
    why = _fingerprint_mismatch(record[_FINGERPRINT], est, node)
    if why is not None:
        raise ValueError(
            f"edits[{i}] ({op}) was recorded on another tree: node {node} is not the node "
            f"it edited ({why}). The tree was grown from other rows or with other settings "
            "than the one edited; refit with the data and parameters of the edited tree, or "
            "make the edit again on this tree"
        )


# --------------------------------------------------------------- edits in place
def _set_decision(est, leaf, decision):
    _check_fitted(est, "set_decision")
    if getattr(est, "decisions_", None) is None or est.tree_.node_decision is None:
        raise ValueError(
            "set_decision needs a tree fitted with a decision_matrix; this one has none"
        )
    if est._case_rule():
        raise ValueError(
            'set_decision overrides a leaf\'s one decision; under decision_rule="case" each '
            "case decides from its own costs, so a leaf has no single decision to override "
            '(refit with decision_rule="leaf")'
        )
    leaf = _check_node(est, leaf, "leaf")
    if est.tree_.children_left[leaf] >= 0:
        raise ValueError(
            f"leaf={leaf} is not a leaf (it splits into nodes "
            f"{int(est.tree_.children_left[leaf])} and {int(est.tree_.children_right[leaf])}); "
            f"set_decision overrides leaf decisions: prune_node({leaf}) first"
        )
    decisions = [str(d) for d in est.decisions_]
    if str(decision) not in decisions:
        raise ValueError(
            f"decision={decision!r} is not a decision of the matrix; expected one of "
            f"{decisions!r}"
        )
    d = decisions.index(str(decision))
    fingerprint = node_fingerprint(est, leaf)
    _rebase(est, est.tree_)
    overrides = dict(est.decision_overrides_)
    overrides[leaf] = d
    natural = int(natural_decisions(est)[leaf])
    if natural == d:  # back to the tree's own choice: no override left
        del overrides[leaf]
    est.decision_overrides_ = overrides
    est.tree_ = est._full_tree_ = est._redecide(est.tree_)
    return {"op": "set_decision", "node": leaf, "decision": decisions[d],
            _FINGERPRINT: fingerprint}


def _prune_node(est, node):
    _check_fitted(est, "prune_node")
    node = _check_node(est, node)
    tree = est.tree_
    if tree.children_left[node] < 0:
        raise ValueError(f"node={node} is already a leaf: there is nothing below it to prune")
    fingerprint = node_fingerprint(est, node)
    mask = np.zeros(tree.n_nodes, dtype=bool)
    mask[node] = True
    _rebase(est, tree)
    sub = tree.subtree(mask)
    _rebase(est, sub)
    if getattr(est, "_decision_stats_", None) is not None:
        est.tree_ = est._redecide(sub)
        est._full_tree_ = est.tree_
    return {"op": "prune_node", "node": node, _FINGERPRINT: fingerprint}


def _training_arrays(est, X, y, costs, sample_weight, what="split"):
    """The training rows as ``fit`` saw them, checked against the fitted tree."""
    from ...decision._validation import (
        check_1d,
        check_same_index,
        check_sample_weight,
        reference_index,
    )
    from .._structure._encode import encode

    _check_fitted(est, what)
    if getattr(est, "honest_rows_", None) is not None:
        raise ValueError(
            f"{what}: this tree's node figures were estimated on rows held out of growing "
            f"(honest_fraction={est.honest_fraction!r}); editing it from the training rows "
            "would mix the two: refit with honest_fraction=None to edit"
        )
    if X is None or y is None:
        raise ValueError(
            f"{what} needs the training rows: pass X and y (and costs, sample_weight) as "
            "given to fit; the tree keeps no data"
        )
    matrix = est.decision_matrix_
    index = reference_index(X)
    check_same_index(y, index, "y")
    X_in, resolve_costs, cost_columns, _ = est._split_costs(X, costs, matrix)
    X_codes = encode(X_in, est._encoding, estimator_name=type(est).__name__)
    n = X_codes.shape[0]
    y_arr = check_1d(y, "y")
    if y_arr.shape[0] != n:
        raise ValueError(f"X and y have inconsistent numbers of samples: {n} and {y_arr.shape[0]}")
    F = check_sample_weight(sample_weight, n, index=index, positive_sum=True)
    if F is None:
        F = np.ones(n, dtype=np.float64)
    probe = copy.copy(est)  # _prepare_target records classes on the estimator
    target = probe._prepare_target(y, y_arr, matrix, F)
    cons = None
    if matrix is not None:
        cons = matrix.resolve(resolve_costs, n_samples=n)
        if cons.has_missing.any():
            raise ValueError("costs: some training cases have a missing cost")
    return {"X": X_codes, "target": target, "F": F, "cons": cons,
            "cost_columns": cost_columns, "classes": getattr(probe, "classes_", None)}


def _node_values(est, node_of_row, data, n_nodes, parent, depth):
    """Per-node ``value`` sums (classes: weighted counts; regression: [W, S1, S2])."""
    from .._structure import _leaf

    F, target = data["F"], data["target"]
    if getattr(est, "classes_", None) is not None:
        rows = np.zeros((F.shape[0], len(est.classes_)))
        rows[np.arange(F.shape[0]), target] = F
    else:
        y = np.asarray(target, dtype=np.float64)
        rows = np.column_stack([F, F * y, F * y * y])
    sums = _leaf.leaf_sums(node_of_row, rows, n_nodes)
    return _leaf.propagate_up(sums, parent, depth)


def _check_training_rows(est, data, what):
    """Leaf of every training row; refuses rows other than those the tree was fitted on
    (the fitted node counts and class sums / target sums must agree)."""
    from .._structure import _leaf

    tree = est.tree_
    node_of_row = tree.apply(data["X"])
    if data["classes"] is not None and not np.array_equal(data["classes"], est.classes_):
        raise ValueError(f"y has other classes than at fit: {what} needs the training rows")
    value = _node_values(est, node_of_row, data, tree.n_nodes, tree.parent, tree.depth)
    counts = np.bincount(node_of_row, minlength=tree.n_nodes)
    counts = _leaf.propagate_up(counts.astype(np.float64), tree.parent, tree.depth)
    if not (np.array_equal(counts, tree.n_node_samples)
            and np.allclose(value, tree.value, rtol=1e-9, atol=1e-9)):
        raise ValueError(
            "X, y (and sample_weight) are not the rows this tree was fitted on: its node "
            f"counts differ; {what} needs the training rows"
        )
    return node_of_row


def _node_impurity(est, data, node_of_row, nodes, value):
    """Impurity of ``nodes`` under the tree's growing criterion, as the grower stores it.

    ``value`` holds the nodes' value sums. Under ``criterion="profit"`` the impurity is
    the node's money impurity ``W`` per unit of training frequency, from the cases'
    money channels (:class:`~dtdecide.tree._kernels._profit.ProfitCriterion`); otherwise the
    criterion's impurity of the (class-weighted) value sums.
    """
    from .._kernels._criteria import impurity
    from .._kernels._profit import DEFAULT_PROFIT_METHOD, ProfitCriterion, growth_consequences

    matrix, F, target = est.decision_matrix_, data["F"], data["target"]
    loss_matrix = est._loss_matrix(matrix, data["cons"], F)
    cw = getattr(est, "split_class_weight_", None)
    if est._grows_on_money(loss_matrix):
        method = getattr(est, "_profit_method", DEFAULT_PROFIT_METHOD)
        crit = ProfitCriterion(matrix.n_decisions, method)
        weight = F if cw is None else F * cw[np.asarray(target, dtype=np.intp)]
        codes, amounts = crit.row_channels(growth_consequences(data["cons"], target, method),
                                           weight)
        D = crit.n_decisions
        slot = np.full(est.tree_.n_nodes + len(nodes) + 1, -1, dtype=np.intp)
        slot[nodes] = np.arange(len(nodes))
        k = slot[node_of_row]
        inside = k >= 0
        sums = np.zeros((len(nodes), crit.n_channels))
        for g in range(crit.n_groups):
            cell = k[inside] * crit.n_channels + g * D + codes[inside]
            sums += np.bincount(cell, weights=amounts[g][inside],
                                minlength=sums.size).reshape(sums.shape)
        W = crit.weighted_impurity(sums)
        freq = value.sum(axis=1) if est._is_classifier else value[:, 0]
        return np.divide(W, freq, out=np.zeros_like(W), where=freq > 0)
    sums = value if cw is None else value * cw
    return impurity(sums, est._growing_criterion(loss_matrix), loss_matrix)


def _install(est, fields, node_of_row, data, impurity, *, value=None, drop_override=None):
    """Make the structure ``fields`` (split fields of every node) the estimator's tree.

    The node counts, weights and value sums come from the training rows (``node_of_row``:
    the leaf of every row in the new structure), the decision statistics too; the
    override of ``drop_override`` (a node that stopped being a leaf) is dropped.
    """
    from .._structure import _leaf
    from .._structure._tree import TreeStructure

    parent, depth = fields["parent"], fields["depth"]
    n_total = parent.shape[0]
    if value is None:
        value = _node_values(est, node_of_row, data, n_total, parent, depth)
    counts = _leaf.propagate_up(
        np.bincount(node_of_row, minlength=n_total).astype(np.float64), parent, depth)
    weight = _leaf.propagate_up(
        np.bincount(node_of_row, weights=data["F"], minlength=n_total), parent, depth)
    new = TreeStructure(
        **fields,
        n_node_samples=counts.astype(est.tree_.n_node_samples.dtype),
        weighted_n_node_samples=weight,
        value=value,
        impurity=impurity,
    )
    est.decision_overrides_ = {k: v for k, v in est.decision_overrides_.items()
                               if k != drop_override}
    est._full_tree_ = est.tree_ = new
    if est.decision_matrix_ is not None:
        m = est.decision_matrix_
        est._decision_stats_ = _leaf.compute_decision_stats(
            node_of_row, parent, depth, cons=data["cons"], sample_weight=data["F"],
            t_idx=None if m.is_interval else data["target"],
            y=data["target"] if m.is_interval else None,
            rows=m.rows, decisions=m.decisions, cost_columns=data["cost_columns"],
        )
        est.tree_ = est._full_tree_ = est._redecide(new)
        if getattr(est, "_case_stats_", None) is not None:
            est._case_stats_ = est._case_rule_stats(est.tree_, node_of_row, data["cons"],
                                                    data["target"], data["F"])
    return new


def _split(est, node, feature, threshold=None, categories=None, missing=None, *, data):
    """Split leaf ``node`` in place (``data``: the training arrays)."""
    _check_fitted(est, "split")
    node = _check_node(est, node)
    _rebase(est, est.tree_)
    tree = est.tree_
    if tree.children_left[node] >= 0:
        raise ValueError(
            f"node={node} is not a leaf: split splits leaves (prune_node({node}) first)"
        )
    names = [str(f) for f in est.feature_names_in_]
    if isinstance(feature, (numbers.Integral,)) and not isinstance(feature, bool):
        if not 0 <= int(feature) < len(names):
            raise ValueError(f"feature={feature} is not an input index (0..{len(names) - 1})")
        j = int(feature)
    elif str(feature) in names:
        j = names.index(str(feature))
    else:
        raise ValueError(f"feature={feature!r} is not an input of this tree; inputs: {names!r}")
    if missing not in (None, "left", "right"):
        raise ValueError(f"missing must be 'left', 'right' or None; got {missing!r}")
    node_of_row = _check_training_rows(est, data, "split")
    rows = np.flatnonzero(node_of_row == node)
    x = data["X"][rows, j]
    is_cat = bool(est.is_categorical_[j])
    # a row of split_candidates passes NaN for the threshold of a categorical split
    if is_cat and isinstance(threshold, numbers.Real) and np.isnan(threshold):
        threshold = None
    width = tree.cat_left.shape[1]
    cat_row = np.zeros(width, dtype=bool)
    if is_cat:
        if threshold is not None or categories is None:
            raise ValueError(
                f"feature {names[j]!r} is categorical: give categories (the labels that go "
                "left), not threshold"
            )
        labels = list(est.categories_[j])
        given = list(categories) if not isinstance(categories, str) else [categories]
        unknown = [c for c in given if c not in labels]
        if unknown:
            raise ValueError(
                f"categories {unknown!r} are not categories of {names[j]!r} seen in "
                f"training; known: {labels!r}"
            )
        codes = sorted({labels.index(c) for c in given})
        cat_row[codes] = True
        with np.errstate(invalid="ignore"):
            cond = np.isin(x, codes)
        thr = np.nan
        record = {"threshold": None, "categories": [_to_json_label(labels[c]) for c in codes]}
    else:
        if categories is not None or threshold is None:
            raise ValueError(
                f"feature {names[j]!r} is numeric: give threshold (x <= threshold goes "
                "left), not categories"
            )
        if isinstance(threshold, (bool, np.bool_)) or not isinstance(
                threshold, (numbers.Real, np.floating, np.integer)):
            raise TypeError(
                f"threshold must be a number (x <= threshold goes left); got {threshold!r}"
            )
        thr = float(threshold)
        seen = x[~np.isnan(x)]
        if seen.size == 0 or not (seen.min() <= thr < seen.max()):
            rng = "no value" if seen.size == 0 else f"[{seen.min():g}, {seen.max():g}]"
            raise ValueError(
                f"threshold={threshold!r} is outside the range of {names[j]!r} at node "
                f"{node} ({rng}): one child would get no non-missing case"
            )
        with np.errstate(invalid="ignore"):
            cond = x <= thr
        record = {"threshold": thr, "categories": None}
    known = ~np.isnan(x)
    F = data["F"][rows]
    if missing is None:  # the side with more training weight
        missing_left = bool(F[known & cond].sum() >= F[known & ~cond].sum())
    else:
        missing_left = missing == "left"
    go_left = np.where(known, cond, missing_left)
    if go_left.all() or not go_left.any():
        raise ValueError(f"this split of node {node} sends every training case to one side")
    record["missing"] = "left" if missing_left else "right"
    fingerprint = node_fingerprint(est, node)
    # the grown structure: two new leaves appended (children keep larger ids)
    n = tree.n_nodes
    left_id, right_id = n, n + 1

    def grow(name, fill, at_node=None):
        arr = np.asarray(getattr(tree, name))
        extra = np.repeat(np.asarray(fill, dtype=arr.dtype).reshape((1,) + arr.shape[1:]), 2, 0) \
            if np.ndim(fill) else np.full((2,) + arr.shape[1:], fill, dtype=arr.dtype)
        out = np.concatenate([arr, extra])
        if at_node is not None:
            out[node] = at_node
        return out

    fields = {
        "children_left": grow("children_left", -1, left_id),
        "children_right": grow("children_right", -1, right_id),
        "parent": grow("parent", node),
        "depth": grow("depth", tree.depth[node] + 1),
        "feature": grow("feature", -1, j),
        "threshold": grow("threshold", np.nan, thr),
        "is_categorical": grow("is_categorical", False, is_cat),
        "cat_left": grow("cat_left", False, cat_row),
        "missing_left": grow("missing_left", False, missing_left),
    }
    new_rows = node_of_row.copy()
    new_rows[rows] = np.where(go_left, left_id, right_id)
    n_total = n + 2
    value = _node_values(est, new_rows, data, n_total, fields["parent"], fields["depth"])
    imp = np.concatenate([
        np.asarray(tree.impurity),
        _node_impurity(est, data, new_rows, np.array([left_id, right_id]), value[n:]),
    ])
    _install(est, fields, new_rows, data, imp, value=value, drop_override=node)
    return {"op": "split", "node": node, "feature": names[j], **record,
            _FINGERPRINT: fingerprint}


# ------------------------------------------------------------------ regrow
_REGROW_PARAMS = ("criterion", "max_depth", "min_samples_leaf", "min_samples_split",
                  "min_impurity_decrease", "max_leaf_nodes", "max_bins")


def _search_weight(setup):
    """Per-row weight of the split search's total (``min_impurity_decrease`` is relative
    to the sum of it over the training rows, as the grower's ``total_weight``)."""
    from .._kernels._profit import ProfitCriterion

    F, cw = setup["sample_weight"], setup["class_weight"]
    w = F if cw is None else F * cw[np.asarray(setup["y"], dtype=np.intp)]
    q = setup["case_profit"]
    if q is not None:
        _, amounts = ProfitCriterion(q.shape[1], setup["profit_method"]).row_channels(q, w)
        return amounts[0]
    return w


def _regrow_estimator(est, params):
    """A copy of ``est`` with the regrow ``params`` set and checked as ``fit`` checks."""
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of parameter settings; got {params!r}")
    unknown = sorted(set(params) - set(_REGROW_PARAMS))
    if unknown:
        raise ValueError(
            f"regrow cannot change {unknown!r} below a node; it takes {list(_REGROW_PARAMS)!r}"
        )
    grower = copy.copy(est)
    grower.set_params(**params)
    try:
        grower._validate_params()
    except ValueError as exc:
        raise ValueError(f"regrow: {exc}") from None
    if grower.criterion == "profit":
        m = est.decision_matrix_
        if m is None or m.n_decisions < 2:
            raise ValueError(
                'regrow: criterion="profit" grows on the money of the decisions and needs a '
                "tree fitted with a decision_matrix of at least 2 decisions"
            )
        if getattr(est, "split_weights", None) is not None:
            raise ValueError(
                f'regrow: criterion="profit" does not combine with this tree\'s '
                f"split_weights={est.split_weights!r}"
            )
    return grower


def _regrow(est, node, params, *, data):
    """Replace the subtree below ``node`` by one grown with ``params``, in place."""
    from ._grower import grow_tree

    _check_fitted(est, "regrow")
    node = _check_node(est, node)
    grower = _regrow_estimator(est, params)
    node_of_row = _check_training_rows(est, data, "regrow")
    fingerprint = node_fingerprint(est, node)
    _rebase(est, est.tree_)
    tree = est.tree_
    depth = int(tree.depth[node])
    max_depth = grower.max_depth
    if max_depth is not None and max_depth <= depth:
        raise ValueError(
            f"max_depth={max_depth} leaves no level below node {node}, which lies at depth "
            f"{depth} (max_depth counts from the root); use max_depth > {depth}, or "
            "prune_node to make the node a leaf"
        )
    if tree.children_left[node] >= 0:  # drop what hangs below the node (its id stays)
        mask = np.zeros(tree.n_nodes, dtype=bool)
        mask[node] = True
        _rebase(est, tree.subtree(mask))
        tree = est.tree_
        node_of_row = tree.apply(data["X"])
    rows = _reaching(tree, node_of_row, node)
    setup = _grow_setup(grower, data)
    total = _search_weight(setup)
    node_total = float(total[rows].sum())
    scale = float(total.sum()) / node_total if node_total > 0 else 1.0
    q = setup["case_profit"]
    sub = grow_tree(
        setup["X_binned"][rows], setup["binner"], y=np.asarray(setup["y"])[rows],
        n_classes=setup["n_classes"], sample_weight=data["F"][rows],
        criterion=setup["criterion"], loss_matrix=setup["loss_matrix"],
        class_weight=setup["class_weight"],
        max_depth=None if max_depth is None else max_depth - depth,
        min_samples_leaf=grower.min_samples_leaf, min_samples_split=grower.min_samples_split,
        min_impurity_decrease=grower.min_impurity_decrease * scale,
        max_leaf_nodes=grower.max_leaf_nodes,
        case_profit=None if q is None else q[rows], profit_method=setup["profit_method"],
        check_input=False,
    )
    # graft: the grown root is the node, its other nodes get the next free ids
    n, k = tree.n_nodes, sub.n_nodes
    ids = np.concatenate([[node], n + np.arange(k - 1)]).astype(np.intp)

    def mapped(child):
        child = np.asarray(child)
        return np.where(child >= 0, ids[np.maximum(child, 0)], -1)

    width = max(tree.cat_left.shape[1], sub.cat_left.shape[1])

    def pad(cat):
        out = np.zeros((cat.shape[0], width), dtype=bool)
        out[:, : cat.shape[1]] = cat
        return out

    fields = {}
    for name in ("children_left", "children_right", "parent", "depth", "feature",
                 "threshold", "is_categorical", "cat_left", "missing_left"):
        old = np.asarray(getattr(tree, name))
        new = np.asarray(getattr(sub, name))
        if name in ("children_left", "children_right", "parent"):
            new = mapped(new)
        elif name == "depth":
            new = new + depth
        elif name == "cat_left":
            old, new = pad(old), pad(new)
        out = np.concatenate([old, new[1:]]).astype(old.dtype)
        if name != "parent" and name != "depth":
            out[node] = new[0]
        fields[name] = out
    from .._structure._tree import TreeStructure

    routed = TreeStructure(
        **fields, n_node_samples=np.zeros(n + k - 1, dtype=tree.n_node_samples.dtype),
        weighted_n_node_samples=np.zeros(n + k - 1), value=np.zeros((n + k - 1,) + tree.value.shape[1:]),
        impurity=np.zeros(n + k - 1),
    ).apply(data["X"])
    # the node's impurity too: its split was made under the regrow's criterion
    impurity = np.concatenate([np.asarray(tree.impurity), np.asarray(sub.impurity)[1:]])
    impurity[node] = sub.impurity[0]
    new = _install(est, fields, routed, data, impurity,
                   drop_override=node if k > 1 else None)
    if not np.array_equal(new.n_node_samples[ids], sub.n_node_samples):  # pragma: no cover
        raise RuntimeError("regrow: the grafted subtree routes the training rows otherwise")
    return {"op": "regrow", "node": node,
            "params": {k: _to_json_label(v) for k, v in params.items()},
            _FINGERPRINT: fingerprint}


# ------------------------------------------------------------------ candidates
def _grow_setup(est, data):
    """The binned training rows and the split search of ``fit``, as ``_grow`` sets them.

    Returns the keyword arguments of :func:`~dtdecide.tree._algorithms._grower.grow_tree` that fix
    the split search (binned matrix, binner, target, weights, criterion and its inputs).
    """
    from sklearn.utils import check_random_state

    from .._kernels._binning import Binner
    from .._kernels._profit import DEFAULT_PROFIT_METHOD, growth_consequences

    # the binning of fit: the same seed drawn from random_state, the same weights
    seed = check_random_state(est.random_state).randint(np.iinfo(np.int32).max)
    binner = Binner(max_bins=est.max_bins, random_state=seed)
    X_binned = binner.fit_transform(data["X"], est.is_categorical_, data["F"],
                                    check_input=False)
    matrix, cons, target, F = est.decision_matrix_, data["cons"], data["target"], data["F"]
    loss_matrix = est._loss_matrix(matrix, cons, F)
    case_profit = None
    if est._grows_on_money(loss_matrix):
        case_profit = growth_consequences(
            cons, target, getattr(est, "_profit_method", DEFAULT_PROFIT_METHOD))
    return dict(
        X_binned=X_binned, binner=binner, y=target,
        n_classes=len(est.classes_) if est._is_classifier else None,
        sample_weight=F,
        criterion="profit" if case_profit is not None else est._growing_criterion(loss_matrix),
        loss_matrix=loss_matrix, case_profit=case_profit,
        profit_method=getattr(est, "_profit_method", DEFAULT_PROFIT_METHOD),
        class_weight=getattr(est, "split_class_weight_", None),
    )


def _reaching(tree, node_of_row, node):
    """Rows whose leaf lies in the subtree of ``node`` (children have larger ids)."""
    inside = np.zeros(tree.n_nodes, dtype=bool)
    inside[node] = True
    for v in range(node + 1, tree.n_nodes):
        p = tree.parent[v]
        if p >= 0 and inside[p]:
            inside[v] = True
    return np.flatnonzero(inside[node_of_row])


def _stack_stats(parts):
    """Node statistics of several computations, one after another (rows kept)."""
    from .._structure._leaf import DecisionStats

    first = parts[0]
    fields = {}
    for name, value in first.__dict__.items():
        if isinstance(value, np.ndarray) and name != "rows":
            fields[name] = np.concatenate([getattr(p, name) for p in parts])
        else:
            fields[name] = value
    return DecisionStats(**fields)


def _child_profits(est, data, rows, go_left, base, node):
    """Decisions, expected profits and training profit of the node and both children.

    ``base`` holds the statistics of [root, node]; the children's are computed from
    their rows. Returns (decision (3,), expected (3, D), total profit (3,)) for
    [node, left, right], in profit orientation; the total is the profit under the leaf
    rule, or under the case rule for a tree with ``decision_rule="case"`` (posteriors
    smoothed as the tree's: the node's own, the children's toward it).
    """
    from .._structure import _leaf

    m = est.decision_matrix_
    child = np.where(go_left, 0, 1)
    sub = data["cons"].take(rows)
    kids = _leaf.compute_decision_stats(
        child, np.array([-1, -1]), np.array([0, 0]), cons=sub, sample_weight=data["F"][rows],
        t_idx=None if m.is_interval else data["target"][rows],
        y=data["target"][rows] if m.is_interval else None, rows=m.rows,
        decisions=m.decisions,
        cost_columns={k: np.asarray(v)[rows] for k, v in data["cost_columns"].items()},
    )
    stats = _stack_stats([base, kids])  # [root, node, left, right]
    fields = _leaf.node_decisions(stats, m, priors=m.priors)
    dec = np.asarray(fields["node_decision"])[1:]
    exp = np.asarray(fields["node_expected"])[1:]
    if est._case_rule():
        # each case decides from the node's posteriors (prediction) and its own costs
        from .._structure._caserule import case_node_sums

        if m.is_interval:
            with np.errstate(invalid="ignore", divide="ignore"):
                node_in = stats.y_sum[1:] / stats.weight[1:]
        else:
            priors = None if m.priors is None else np.asarray(m.priors, dtype=np.float64)
            node_in = _leaf.node_posteriors(stats.class_weight, priors)[1:]
            smoothing = float(getattr(est, "posterior_smoothing_", 0.0))
            if smoothing > 0:
                node_in[0] = est.node_posteriors_[node]
                n_kids = np.asarray(stats.class_weight, dtype=np.float64)[2:].sum(axis=1)
                node_in[1:] = _leaf.smooth_posteriors(
                    node_in, np.concatenate([[0.0], n_kids]), np.array([-1, 0, 0]),
                    np.array([0, 1, 1]), smoothing)[1:]
        S = case_node_sums(np.array([-1, 0, 0]), child + 1, node_in, sub,
                           sub.q_actual(data["target"][rows]), data["F"][rows])
        total = S[:, 0]
    else:
        ps = np.asarray(fields["profit_sum"])[1:]
        if ps.ndim == 3:
            total = ps[np.arange(3), :, dec].sum(axis=1)
        else:
            total = ps[np.arange(3), dec]
    return dec, exp, total


def _split_candidates(est, node, data, n, by):
    from .._structure import _leaf
    from ._grower import node_split_candidates

    tree = est.tree_
    node = _check_node(est, node)
    if n is not None and (isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1):
        raise ValueError(f"n must be a positive int or None (all); got {n!r}")
    if by not in ("criterion", "profit"):
        raise ValueError(f"by must be 'criterion' or 'profit'; got {by!r}")
    matrix = est.decision_matrix_
    has_profit = matrix is not None
    if by == "profit" and not has_profit:
        raise ValueError("by='profit' needs a tree fitted with a decision_matrix; this one has none")
    node_of_row = _check_training_rows(est, data, "split_candidates")
    rows = _reaching(tree, node_of_row, node)
    setup = _grow_setup(est, data)
    X_binned, binner = setup["X_binned"], setup["binner"]
    common = dict(y=setup["y"], n_classes=setup["n_classes"], sample_weight=data["F"],
                  min_samples_leaf=est.min_samples_leaf, check_input=False)
    grower = node_split_candidates(
        X_binned, binner, rows, criterion=setup["criterion"],
        loss_matrix=setup["loss_matrix"], class_weight=setup["class_weight"],
        case_profit=setup["case_profit"], profit_method=setup["profit_method"], **common)
    found = [grower.best]
    if has_profit and matrix.n_decisions >= 2:
        # the split of each input that adds the most realised training profit when each
        # child takes its best decision: the "profit" method of criterion="profit"
        money = node_split_candidates(
            X_binned, binner, rows, criterion="profit",
            case_profit=data["cons"].q_actual(data["target"]), profit_method="profit",
            **common)
        found.append(money.best)
    seen = {}
    B = int(binner.n_bins_total_)
    for res in found:
        for i in np.flatnonzero(res.feature >= 0):
            f = int(res.feature[i])
            # one row per partition of the node's rows, whichever side is called left
            # (the missing side counts only where the node has missing values); the
            # grower's version comes first
            present = np.bincount(X_binned[rows, f], minlength=B) > 0
            side = res.go_left[i][present]
            key = (f, min(side.tobytes(), (~side).tobytes()))
            seen.setdefault(key, (int(res.feature[i]), res.go_left[i],
                                  int(res.bin_threshold[i]), bool(res.is_categorical[i])))
    names = [str(f) for f in est.feature_names_in_]
    cols = {k: [] for k in ("feature", "threshold", "categories", "missing", "n_left",
                            "n_right", "weight_left", "weight_right")}
    cand = list(seen.values())
    if not cand:  # no valid split (too few rows for min_samples_leaf): the same columns
        names_ = list(cols)
        if has_profit:
            word = "EL" if matrix.kind == "loss" else "EP"
            names_ += ["decision_left", "decision_right", f"{word}_left", f"{word}_right"]
        names_ += ["criterion_gain"] + (["profit_gain"] if has_profit else [])
        return pd.DataFrame({k: [] for k in names_})
    feats = np.array([c[0] for c in cand], dtype=np.intp)
    tables = np.stack([c[1] for c in cand])
    crit_gain = grower.gains(feats, tables)
    F = data["F"][rows]
    extra = {}
    if has_profit:
        base = _leaf.compute_decision_stats(
            np.zeros(data["F"].shape[0], dtype=np.intp), np.array([-1]), np.array([0]),
            cons=data["cons"], sample_weight=data["F"],
            t_idx=None if matrix.is_interval else data["target"],
            y=data["target"] if matrix.is_interval else None, rows=matrix.rows,
            decisions=matrix.decisions, cost_columns=data["cost_columns"])
        node_stats = _leaf.compute_decision_stats(
            np.zeros(rows.shape[0], dtype=np.intp), np.array([-1]), np.array([0]),
            cons=data["cons"].take(rows), sample_weight=F,
            t_idx=None if matrix.is_interval else data["target"][rows],
            y=data["target"][rows] if matrix.is_interval else None, rows=matrix.rows,
            decisions=matrix.decisions,
            cost_columns={k: np.asarray(v)[rows] for k, v in data["cost_columns"].items()})
        base = _stack_stats([base, node_stats])
        sign = -1.0 if matrix.kind == "loss" else 1.0
        word = "EL" if sign < 0 else "EP"
        decisions = list(est.decisions_)
        for k in ("decision_left", "decision_right", f"{word}_left", f"{word}_right",
                  "profit_gain"):
            extra[k] = []
    for f, table, pos, is_cat in cand:
        go_left = table[X_binned[rows, f]]
        if is_cat:
            labels = est.categories_[f]
            left = [_to_json_label(labels[c]) for c in range(len(labels)) if table[c]]
            cols["threshold"].append(np.nan)
            cols["categories"].append(left)
        else:
            cols["threshold"].append(float(setup["binner"].bin_thresholds_[f][pos]))
            cols["categories"].append(None)
        cols["feature"].append(names[f])
        cols["missing"].append("left" if table[-1] else "right")
        cols["n_left"].append(int(go_left.sum()))
        cols["n_right"].append(int((~go_left).sum()))
        cols["weight_left"].append(float(F[go_left].sum()))
        cols["weight_right"].append(float(F[~go_left].sum()))
        if has_profit:
            dec, exp, total = _child_profits(est, data, rows, go_left, base, node)
            extra["decision_left"].append(decisions[dec[1]])
            extra["decision_right"].append(decisions[dec[2]])
            extra[f"{word}_left"].append(sign * float(exp[1, dec[1]]))
            extra[f"{word}_right"].append(sign * float(exp[2, dec[2]]))
            extra["profit_gain"].append(float(total[1] + total[2] - total[0]))
    out = pd.DataFrame({**cols, **{k: v for k, v in extra.items() if k != "profit_gain"}})
    out["criterion_gain"] = crit_gain
    if has_profit:
        out["profit_gain"] = extra["profit_gain"]
    keys = ["criterion_gain", "profit_gain"] if has_profit else ["criterion_gain"]
    if by == "profit":
        keys = keys[::-1]
    out = out.sort_values(keys, ascending=False, kind="stable").reset_index(drop=True)
    return out if n is None else out.head(n)


def _caller_level():
    """``stacklevel`` of the first frame outside dtdecide, seen from the caller."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    package += os.sep
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def replay_edits(est, edits, data=None):
    """Apply the records of ``edits`` (as in ``edits_``) in order to ``est``, in place.

    ``data``: the training arrays (as :func:`_training_arrays` returns), needed by splits.
    Each record's ``fingerprint`` must match the node of ``est`` it names (ValueError
    naming the record otherwise); records without one (written before fingerprints
    existed) are replayed by node id alone, with a warning.
    """
    if edits is None:
        return est
    if isinstance(edits, (str, bytes)) or not hasattr(edits, "__iter__"):
        raise TypeError(f"edits must be a list of edit records (as in edits_); got {edits!r}")
    edits = list(edits)
    for i, record in enumerate(edits):
        if not isinstance(record, dict) or "op" not in record:
            raise ValueError(
                f"edits[{i}] must be a dict with an 'op' key (as in edits_); got {record!r}"
            )
        op = record["op"]
        if op not in _OPS:
            raise ValueError(f"edits[{i}]: unknown op {op!r}; expected one of {_OPS}")
        expected = _KEYS[op]
        keys = set(record) - {"op", _FINGERPRINT}
        if keys != expected:
            raise ValueError(
                f"edits[{i}] ({op}) must have the keys {sorted(expected)} (and "
                f"{_FINGERPRINT!r}); got {sorted(set(record) - {'op'})}"
            )
        if op in _NEEDS_ROWS and data is None:
            raise ValueError(f"edits[{i}] ({op}) needs the training rows: replay it in fit")
    unchecked = [f"edits[{i}] ({r['op']})" for i, r in enumerate(edits)
                 if _FINGERPRINT not in r]
    if unchecked:
        warnings.warn(
            f"{', '.join(unchecked)} carry no fingerprint of the node they edit (records "
            "made before edits_ kept fingerprints hold only the node id): they are replayed by node "
            "id alone, and cannot be checked to edit the same node as when they were made. "
            "The replayed tree's edits_ carries fingerprints: keep those records instead",
            UserWarning, stacklevel=_caller_level(),
        )
    for i, record in enumerate(edits):
        op = record["op"]
        args = {k: v for k, v in record.items() if k not in ("op", _FINGERPRINT)}
        try:
            if _FINGERPRINT in record:
                _check_record_node(est, i, op, record)
            if op == "set_decision":
                done = _set_decision(est, args["node"], args["decision"])
            elif op == "prune_node":
                done = _prune_node(est, args["node"])
            elif op == "regrow":
                done = _regrow(est, args["node"], args["params"], data=data)
            else:
                done = _split(est, data=data, **args)
        except (TypeError, ValueError) as exc:
            if str(exc).startswith(f"edits[{i}] "):
                raise
            raise type(exc)(f"edits[{i}] ({op}) cannot be replayed: {exc}") from None
        est.edits_.append(done)
    return est
