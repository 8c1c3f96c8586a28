"""The public read-only view of a fitted profit tree (layer 2, structure).

:class:`FittedTreeView` is what readers outside :mod:`dtdecide.tree` -- ``export``,
``assess``, the command line -- read from a fitted tree, in the way scikit-learn's readers
use ``tree_``: the frozen node arrays, the inputs' names and categories, the target's
levels, the decision matrix, whether cases decide for themselves, and the per-node figures
every view shows (posteriors or mean and standard deviation, the node's decision and the
expected profit of every decision in the user's sign, hand-set decisions). A fitted
estimator builds it with ``get_tree_view()``; nothing in it refers back to the estimator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._caserule import node_inputs
from ._confidence import leaf_margin
from ._nodeview import node_statistics

__all__ = ["DECISION_PALETTE", "FittedTreeView", "tree_view_of"]

#: Colour-blind friendly qualitative palette (Okabe-Ito), one colour per decision in the
#: matrix's order; the HTML view and the matplotlib plot colour alike with it.
DECISION_PALETTE = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#999999",
)


@dataclass(frozen=True)
class FittedTreeView:
    """Read-only view of a fitted profit tree: all that readers of the tree need.

    Returned by ``ProfitTreeClassifier.get_tree_view()`` and
    ``ProfitTreeRegressor.get_tree_view()``. Arrays are the fitted tree's own (do not
    write to them).

    Parameters
    ----------
    tree : TreeStructure
        The frozen node arrays (``estimator.tree_``): children, parent, depth, split
        feature, threshold, categorical membership, missing-value direction, training
        counts and sums, and the decision statistics of every node.
    feature_names : tuple of str
        Input names, in column order.
    is_categorical : ndarray of bool
        Whether each input is categorical.
    categories : tuple
        Per input: None (numeric) or the array of its training category labels.
    missing_seen : ndarray of bool or None
        Whether training data had missing values in each input.
    classes : ndarray or None
        Target levels of a classifier; None for an interval target.
    target_name : str
        Name of the target.
    decision_matrix : DecisionMatrix or None
        The fitted decision matrix.
    decisions : tuple of str or None
        Decision names, in the matrix's order.
    case_rule : bool
        Whether every case decides for itself from its leaf's posteriors (or prediction)
        and its own costs (``decision_rule="case"``).
    posteriors : ndarray of shape (n_nodes, n_classes) or None
        Node posteriors of a classifier (prior-adjusted with priors).
    mean, sd : ndarray of shape (n_nodes,) or None
        Node mean and standard deviation of an interval target.
    node_decision : ndarray of int or None
        Index of every node's decision (as a leaf).
    node_expected : ndarray of shape (n_nodes, n_decisions) or None
        Expected profit per case of every decision at every node, in the user's sign
        (expected losses for a loss matrix).
    sign : float
        ``-1.0`` for a loss matrix, else ``1.0``.
    overrides : dict
        Leaves whose decision was set by hand: node -> the tree's own decision index.

    See Also
    --------
    dtdecide.export.leaf_table : The leaf table, read through this view.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]] * 5)
    >>> y = np.array(["no", "no", "yes", "yes"] * 5)
    >>> m = DecisionMatrix([[0, -1], [0, 9]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
    >>> view = ProfitTreeClassifier(decision_matrix=m, max_depth=1).fit(X, y).get_tree_view()
    >>> view.tree.n_leaves, view.decisions, view.node_decision.tolist()
    (2, ('ignore', 'mail'), [1, 0, 1])
    """

    tree: object
    feature_names: tuple
    is_categorical: np.ndarray
    categories: tuple
    missing_seen: object
    classes: object
    target_name: str
    decision_matrix: object
    decisions: object
    case_rule: bool
    posteriors: object = None
    mean: object = None
    sd: object = None
    node_decision: object = None
    node_expected: object = None
    sign: float = 1.0
    overrides: dict = field(default_factory=dict)

    #: one colour per decision (see :data:`DECISION_PALETTE`)
    decision_palette = DECISION_PALETTE

    @property
    def is_classifier(self):
        """Whether the target is categorical (the tree has ``classes``)."""
        return self.classes is not None

    @property
    def has_decisions(self):
        """Whether every node has a decision (a matrix with stored statistics)."""
        return self.node_decision is not None

    def node_inputs(self, values):
        """What a case decides from at every node, empty nodes filled from their parent.

        Parameters
        ----------
        values : ndarray of shape (n_nodes, n_levels) or (n_nodes,)
            Node posteriors or predictions, NaN for nodes without training weight.

        Returns
        -------
        ndarray
            A copy in which a node with a NaN entry takes its nearest non-empty
            ancestor's values (the case rule's inputs of every node).
        """
        return node_inputs(values, self.tree.parent, self.tree.depth)

    @staticmethod
    def leaf_margin(node_expected, node_decision):
        """Expected profit of each node's decision minus the best other decision's.

        Parameters
        ----------
        node_expected : ndarray of shape (n_nodes, n_decisions)
            Expected profit of every decision, in profit orientation.
        node_decision : ndarray of int of shape (n_nodes,)
            The decision of every node.

        Returns
        -------
        ndarray of shape (n_nodes,)
            The margins (NaN with fewer than two decisions).
        """
        return leaf_margin(node_expected, node_decision)


def tree_view_of(est):
    """The :class:`FittedTreeView` of a fitted profit tree ``est`` (read from its fitted
    attributes; ``est`` must have ``tree_``)."""
    tree = est.tree_
    names = tuple(str(n) for n in est.feature_names_in_)
    is_cat = np.asarray(getattr(est, "is_categorical_", np.zeros(len(names), dtype=bool)),
                        dtype=bool)
    cats = tuple(getattr(est, "categories_", None) or [None] * len(names))
    seen = getattr(est, "has_missing_in_fit_", None)
    classes = getattr(est, "classes_", None)
    decisions = getattr(est, "decisions_", None)
    nodes = node_statistics(est)
    case_rule = getattr(est, "_case_rule", None)
    return FittedTreeView(
        tree=tree,
        feature_names=names,
        is_categorical=is_cat,
        categories=cats,
        missing_seen=None if seen is None else np.asarray(seen, dtype=bool),
        classes=None if classes is None else np.asarray(classes),
        target_name=str(getattr(est, "target_name_", None) or "target"),
        decision_matrix=getattr(est, "decision_matrix_", None),
        decisions=None if decisions is None else tuple(str(d) for d in decisions),
        case_rule=bool(case_rule()) if callable(case_rule) else False,
        posteriors=nodes.posteriors,
        mean=nodes.mean,
        sd=nodes.sd,
        node_decision=nodes.node_decision,
        node_expected=nodes.node_expected,
        sign=nodes.sign,
        overrides=nodes.overrides,
    )
