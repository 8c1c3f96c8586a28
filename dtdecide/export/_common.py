"""Shared reading of a fitted tree for every exporter.

Every exporter (leaf table, rules, SQL, plots, DOT) reads a fitted estimator through
:func:`tree_view`, which checks the fitted attributes of the contract once and collects
what the exporters need: the frozen node arrays, feature names and categories, class
labels or the interval flag, the decision matrix and the per-node outputs (posteriors or
predicted value, decision, expected profit in the user's sign).

Leaf conditions are derived here too, as exact sets: for each input on the path from the
root, a numeric interval ``lo < x <= hi`` or a set of training categories, plus whether
missing values (and, for categorical inputs, categories unseen in training) belong to the
node. The rules, the leaf table and the plots all print these same sets.
"""

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Condition", "TreeView", "format_label", "format_number", "refuse_tree_holder",
           "tree_view"]


@dataclass
class Condition:
    """The part of a node's rule that concerns one input.

    Numeric inputs: ``lo < x <= hi`` (either bound may be infinite), categorical inputs:
    ``x in categories``; ``has_missing`` tells whether missing values (and unseen
    categories, for categorical inputs) reach the node.
    """

    feature: int
    name: str
    is_categorical: bool
    lo: float = -math.inf
    hi: float = math.inf
    categories: tuple = ()
    has_missing: bool = True
    # whether the training data had missing values in this input: rules mention
    # "is missing" only then (missing values still follow the same branch)
    missing_seen: bool = True

    def copy(self):
        return Condition(
            self.feature,
            self.name,
            self.is_categorical,
            self.lo,
            self.hi,
            tuple(self.categories),
            self.has_missing,
            self.missing_seen,
        )


def format_number(value, precision=None):
    """Text of a number: shortest round-trip ``repr`` or ``precision`` significant digits."""
    value = float(value)
    if precision is None:
        text = repr(value)
        if text.endswith(".0"):
            text = text[:-2]
        return text
    return format(value, f".{int(precision)}g")


def format_label(label):
    """Text of a category label for rules: strings quoted, numbers as they are."""
    if isinstance(label, (bool, np.bool_)):
        return str(bool(label))
    if isinstance(label, (int, np.integer)):
        return str(int(label))
    if isinstance(label, (float, np.floating)):
        return format_number(label)
    return repr(str(label))


@dataclass
class TreeView:
    """Everything an exporter reads from a fitted estimator (internal)."""

    estimator: object
    tree: object
    feature_names: list
    is_categorical: np.ndarray
    categories: list
    is_classifier: bool
    classes: object
    matrix: object
    decisions: object
    target_name: str
    # per node, user's sign
    posteriors: object = None  # (n_nodes, n_classes) or None
    mean: object = None  # (n_nodes,) interval target
    sd: object = None
    node_decision: object = None  # intp (n_nodes,) or None
    node_expected: object = None  # (n_nodes, D) user's sign or None
    # leaves whose decision was set by hand: node -> the tree's own decision index
    overrides: dict = field(default_factory=dict)
    # whether every case decides for itself (decision_rule="case")
    case_rule: bool = False
    # per input: whether training data had missing values (None: unknown)
    missing_seen: object = None
    # the estimator's public FittedTreeView this view was read from
    fitted: object = None
    _paths: dict = field(default_factory=dict)

    @property
    def has_decisions(self):
        return self.node_decision is not None

    @property
    def sign(self):
        """+1 when the user reads profits, -1 for a loss matrix."""
        if self.matrix is not None and getattr(self.matrix, "kind", "profit") == "loss":
            return -1.0
        return 1.0

    @property
    def ep_name(self):
        return "EL" if self.sign < 0 else "EP"

    @property
    def is_leaf(self):
        return np.asarray(self.tree.children_left) < 0

    @property
    def leaves(self):
        return np.flatnonzero(self.is_leaf)

    def given_up(self, node):
        """Expected profit per case an overridden leaf gives up (0 when not overridden).

        For a loss matrix, the expected loss per case the override adds.
        """
        node = int(node)
        if node not in self.overrides:
            return 0.0
        own, chosen = self.overrides[node], int(self.node_decision[node])
        return float(self.sign * (self.node_expected[node, own] - self.node_expected[node, chosen]))

    def decision_label(self, node):
        return self.decisions[int(self.node_decision[node])]

    def conditions(self, node, start=0):
        """Merged conditions on the path from ``start`` (the root by default) to ``node``.

        Returns a dict feature index -> :class:`Condition`, in the order the inputs are
        first met on the path.
        """
        node, start = int(node), int(start)
        if start == 0 and node in self._paths:
            return self._paths[node]
        tree = self.tree
        path = []  # (parent, child) pairs from node up to start
        child = node
        while child != start:
            parent = int(tree.parent[child])
            if parent < 0:
                raise ValueError(f"node {start} is not an ancestor of node {node}")
            path.append((parent, child))
            child = parent
        conds = {}
        for parent, child in reversed(path):
            self._merge_split(conds, parent, int(tree.children_left[parent]) == child)
        if start == 0:
            self._paths[node] = conds
        return conds

    def _merge_split(self, conds, parent, went_left):
        """Narrow ``conds`` by the branch ``went_left`` of the split at ``parent``."""
        tree = self.tree
        j = int(tree.feature[parent])
        missing_left = bool(tree.missing_left[parent])
        if j not in conds:
            is_cat = bool(self.is_categorical[j])
            seen = self.missing_seen
            conds[j] = Condition(
                j,
                self.feature_names[j],
                is_cat,
                categories=tuple(self.categories[j]) if is_cat else (),
                missing_seen=True if seen is None else bool(seen[j]),
            )
        c = conds[j]
        c.has_missing = c.has_missing and (missing_left == went_left)
        if c.is_categorical:
            row = np.asarray(tree.cat_left[parent])
            known = set(c.categories)
            keep = []
            for code, label in enumerate(self.categories[j]):
                # codes beyond the table's width were never seen: they follow missing
                goes_left = bool(row[code]) if code < row.shape[0] else missing_left
                if goes_left == went_left and label in known:
                    keep.append(label)
            c.categories = tuple(keep)
        else:
            thr = float(tree.threshold[parent])
            if went_left:
                c.hi = min(c.hi, thr)
            else:
                c.lo = max(c.lo, thr)

    def split_text(self, node, precision=None):
        """Text of the left-branch condition of an internal node (for plots)."""
        tree = self.tree
        j = int(tree.feature[node])
        name = self.feature_names[j]
        if self.is_categorical[j]:
            row = np.asarray(tree.cat_left[node])
            cats = self.categories[j]
            miss = bool(tree.missing_left[node])
            left = [
                format_label(lab)
                for code, lab in enumerate(cats)
                if (bool(row[code]) if code < row.shape[0] else miss)
            ]
            text = f"{name} in {{{', '.join(left)}}}"
        else:
            text = f"{name} <= {format_number(tree.threshold[node], precision)}"
        return text


def refuse_tree_holder(obj, name):
    """Refuse a fitted model that holds a profit tree without being one (a fitted
    :class:`~dtdecide.policy.PolicyTree`), with a message naming the tree to pass."""
    if getattr(obj, "profit_tree_", None) is not None:
        raise TypeError(
            f"{name} must be a fitted ProfitTreeClassifier or ProfitTreeRegressor; a fitted "
            f"{type(obj).__name__} exports and scores through the profit tree it holds: "
            "pass its profit_tree_ (e.g. to_sql(policy.profit_tree_))"
        )


def tree_view(estimator):
    """Check that ``estimator`` is a fitted dtdecide tree and read what exporters need.

    Raises
    ------
    TypeError
        When ``estimator`` is not a tree estimator (a fitted policy tree: the message
        names its ``profit_tree_``).
    ValueError
        When it is not fitted yet.
    """
    if isinstance(estimator, TreeView):
        return estimator
    if not hasattr(estimator, "fit") or not hasattr(type(estimator), "apply"):
        raise TypeError(
            "estimator must be a fitted ProfitTreeClassifier or ProfitTreeRegressor; "
            f"got {type(estimator).__name__}"
        )
    refuse_tree_holder(estimator, "estimator")
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        raise ValueError(
            f"estimator must be fitted before export; this {type(estimator).__name__} "
            "has no tree_ (call fit first)"
        )
    if not hasattr(estimator, "get_tree_view"):
        raise TypeError(
            "estimator must be a fitted ProfitTreeClassifier or ProfitTreeRegressor; "
            f"got {type(estimator).__name__}"
        )
    fitted = estimator.get_tree_view()
    return TreeView(
        estimator=estimator,
        tree=fitted.tree,
        feature_names=list(fitted.feature_names),
        is_categorical=fitted.is_categorical,
        categories=list(fitted.categories),
        is_classifier=fitted.is_classifier,
        classes=fitted.classes,
        matrix=fitted.decision_matrix,
        decisions=fitted.decisions,
        target_name=fitted.target_name,
        posteriors=fitted.posteriors,
        mean=fitted.mean,
        sd=fitted.sd,
        node_decision=fitted.node_decision,
        node_expected=fitted.node_expected if fitted.node_decision is not None else None,
        overrides=fitted.overrides if fitted.node_decision is not None else {},
        case_rule=fitted.case_rule,
        missing_seen=fitted.missing_seen,
        fitted=fitted,
    )
