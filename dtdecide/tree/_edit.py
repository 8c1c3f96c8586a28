"""Editing a fitted tree by hand: override a leaf's decision, prune a node.

Each public edit returns a new fitted estimator (the original is unchanged) and appends
a JSON-serialisable record to ``edits_``, which ``fit(..., edits=...)`` replays on a
refit. An edit *re-bases* the copy on its edited tree: the edited ``tree_`` becomes the
estimator's reference tree (``_full_tree_``) with the decision statistics of its nodes,
so that re-deciding (pruning studies, ``_redecide``) starts from the edited tree.

Decision overrides are kept in ``decision_overrides_`` (node id of the reference tree,
which is ``tree_`` right after an edit -> decision index) and applied by ``_redecide`` whenever the tree is re-decided with its
own matrix and priors; every reader of ``tree_.node_decision`` (``decide``, the leaf
table, rules, SQL, plots, the HTML view) therefore follows them.
"""

from __future__ import annotations

import copy
import numbers

import numpy as np

__all__ = ["EditMixin", "apply_overrides", "natural_decisions", "replay_edits"]

_OPS = ("set_decision", "prune_node")


# ------------------------------------------------------------------ helpers
def _check_fitted(est, what):
    if getattr(est, "tree_", None) is None:
        raise ValueError(
            f"{what} needs a fitted tree; this {type(est).__name__} has no tree_ (call fit first)"
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
    from ._classes import _match_nodes

    nodes = _match_nodes(est._full_tree_, structure)
    stats = getattr(est, "_decision_stats_", None)
    if stats is not None:
        est._decision_stats_ = stats.take(nodes)
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


def natural_decisions(est):
    """The decision of every node of ``tree_`` without the overrides (intp array)."""
    if not getattr(est, "decision_overrides_", None):
        return np.asarray(est.tree_.node_decision, dtype=np.intp)
    return np.asarray(est._redecide(est.tree_, overrides=False).node_decision, dtype=np.intp)


def _to_json_label(value):
    """A label as a plain JSON value (numpy scalars unwrapped)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


# --------------------------------------------------------------- edits in place
def _set_decision(est, leaf, decision):
    _check_fitted(est, "set_decision")
    if getattr(est, "decisions_", None) is None or est.tree_.node_decision is None:
        raise ValueError(
            "set_decision needs a tree fitted with a decision_matrix; this one has none"
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
    _rebase(est, est.tree_)
    overrides = dict(est.decision_overrides_)
    overrides[leaf] = d
    natural = int(natural_decisions(est)[leaf])
    if natural == d:  # back to the tree's own choice: no override left
        del overrides[leaf]
    est.decision_overrides_ = overrides
    est.tree_ = est._full_tree_ = est._redecide(est.tree_)
    return {"op": "set_decision", "node": leaf, "decision": decisions[d]}


def _prune_node(est, node):
    _check_fitted(est, "prune_node")
    node = _check_node(est, node)
    tree = est.tree_
    if tree.children_left[node] < 0:
        raise ValueError(f"node={node} is already a leaf: there is nothing below it to prune")
    mask = np.zeros(tree.n_nodes, dtype=bool)
    mask[node] = True
    _rebase(est, tree)
    sub = tree.subtree(mask)
    _rebase(est, sub)
    if getattr(est, "_decision_stats_", None) is not None:
        est.tree_ = est._redecide(sub)
        est._full_tree_ = est.tree_
    return {"op": "prune_node", "node": node}


def replay_edits(est, edits):
    """Apply the records of ``edits`` (as in ``edits_``) in order to ``est``, in place."""
    if edits is None:
        return est
    if isinstance(edits, (str, bytes)) or not hasattr(edits, "__iter__"):
        raise TypeError(f"edits must be a list of edit records (as in edits_); got {edits!r}")
    for i, record in enumerate(list(edits)):
        if not isinstance(record, dict) or "op" not in record:
            raise ValueError(
                f"edits[{i}] must be a dict with an 'op' key (as in edits_); got {record!r}"
            )
        op = record["op"]
        if op not in _OPS:
            raise ValueError(f"edits[{i}]: unknown op {op!r}; expected one of {_OPS}")
        args = {k: v for k, v in record.items() if k != "op"}
        expected = {"set_decision": {"node", "decision"}, "prune_node": {"node"}}[op]
        if set(args) != expected:
            raise ValueError(
                f"edits[{i}] ({op}) must have the keys {sorted(expected)}; got {sorted(args)}"
            )
        try:
            if op == "set_decision":
                done = _set_decision(est, args["node"], args["decision"])
            else:
                done = _prune_node(est, args["node"])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"edits[{i}] ({op}) cannot be replayed: {exc}") from None
        est.edits_.append(done)
    return est


class EditMixin:
    """Hand edits of a fitted tree (each returns a new fitted estimator)."""

    def set_decision(self, leaf, decision):
        """Override the decision of a leaf.

        The leaf keeps its cases and statistics; only its decision changes. The leaf
        table, the rules, the plots and the HTML view mark it as an override with the
        expected profit per case it gives up (the tree's own decision minus the chosen
        one); ``decide`` and the SQL score code use the chosen decision.

        Parameters
        ----------
        leaf : int
            Node id of a leaf (as returned by ``apply``).
        decision : str
            One of the decisions of the matrix. The tree's own decision removes the
            override.

        Returns
        -------
        estimator
            A new fitted estimator; this one is unchanged. Its ``edits_`` ends with
            ``{"op": "set_decision", "node": leaf, "decision": decision}``.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> edited = tree.set_decision(1, "call")
        >>> edited.decide(X).cases["D_target"].tolist()[:4], edited.edits_
        (['call', 'call', 'call', 'call'], [{'op': 'set_decision', 'node': 1, 'decision': 'call'}])
        >>> tree.decide(X).cases["D_target"].tolist()[:4]
        ['skip', 'skip', 'skip', 'skip']
        """
        new = copy.deepcopy(self)
        new.edits_ = list(getattr(self, "edits_", []))
        new.decision_overrides_ = dict(getattr(self, "decision_overrides_", {}))
        new.edits_.append(_set_decision(new, leaf, decision))
        return new

    def prune_node(self, node):
        """Make an internal node a leaf (drop everything below it).

        The node takes the decision that maximises its expected profit from its own
        training statistics. Node ids are renumbered afterwards (children still have
        larger ids than their parents); later edits use the new ids.

        Parameters
        ----------
        node : int
            Node id of an internal node.

        Returns
        -------
        estimator
            A new fitted estimator; this one is unchanged. Its ``edits_`` ends with
            ``{"op": "prune_node", "node": node}``.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> tree.get_n_leaves(), tree.prune_node(2).get_n_leaves()
        (3, 2)
        >>> tree.prune_node(2).apply(X).tolist()
        [1, 1, 1, 1, 2, 2, 2, 2]
        """
        new = copy.deepcopy(self)
        new.edits_ = list(getattr(self, "edits_", []))
        new.decision_overrides_ = dict(getattr(self, "decision_overrides_", {}))
        new.edits_.append(_prune_node(new, node))
        return new
