"""Pruning a fitted estimator: the estimator-taking face of the tree-level pruning
(layer 5, estimator).

:func:`node_risk`, :func:`pruning_path`, :func:`prune_estimator` and
:func:`apply_ccp_alpha` read a fitted estimator's ``tree_``, decision matrix, classes and,
under the case rule, its case-rule node profits, and hand them to the functions on node
arrays of :mod:`dtdecide.tree._algorithms._pruning` (``tree_node_risk``,
``tree_pruning_path``, ``prune_tree``).
"""

import copy

import numpy as np
from sklearn.base import is_classifier

from .._algorithms._pruning import (
    _materialise,
    _resolve_measure,
    _select_index,
    check_pruning_sequence,
    level_weights,
    prune_tree,
    tree_node_risk,
    tree_pruning_path,
)

__all__ = ["apply_ccp_alpha", "node_risk", "prune_estimator", "pruning_path"]


# ---------------------------------------------------------------------------- risks
def _decision_matrix(estimator):
    return getattr(estimator, "decision_matrix_", None)


def _case_rule(estimator):
    """Whether the estimator decides case by case (``decision_rule="case"``); False for
    an object that is not a profit tree."""
    case_rule = getattr(estimator, "_case_rule", None)
    return bool(case_rule()) if callable(case_rule) else False


def _tree_inputs(estimator, tree, measure):
    """The keyword arguments of :func:`tree_node_risk` for a fitted estimator's ``tree``.

    Under the case rule the nodes' case-rule training profits (statistics the estimator
    computed at fit) are passed as ``case_profit`` when the measure is the decision's.
    """
    matrix = _decision_matrix(estimator)
    classes = getattr(estimator, "classes_", None)
    classifier = _is_classifier(estimator)
    case_profit = None
    if _case_rule(estimator) and _resolve_measure(tree, matrix, classifier, measure) in (
        "profit", "loss"
    ):
        case_profit = estimator._case_node_profit(tree)
    return dict(matrix=matrix, classes=classes, classifier=classifier, measure=measure,
                case_profit=case_profit)


def _is_classifier(estimator):
    if getattr(estimator, "classes_", None) is not None:
        return True
    try:
        return is_classifier(estimator)
    except AttributeError:  # not a scikit-learn estimator
        return False


def _training_level_weights(estimator, tree):
    """:func:`level_weights` of an estimator's matrix and classes."""
    return level_weights(tree, _decision_matrix(estimator), getattr(estimator, "classes_", None))


def node_risk(estimator, tree=None, *, measure=None):
    """Risk of every node of a fitted tree as if it were a leaf.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
        Supplies the decision matrix, its priors and ``classes_``.
    tree : TreeStructure, optional
        The node arrays; ``estimator.tree_`` by default.
    measure : {None, "decision", "misclassification", "ase"}, default=None
        None picks ``"decision"`` when the estimator has a decision matrix with at least
        two decisions, otherwise ``"misclassification"`` (classifier) or ``"ase"``
        (regressor).

    Returns
    -------
    risk : ndarray of shape (n_nodes,)
        ``-`` training profit under the node's own decision (prior-adjusted), weighted
        misclassified count, or sum of squared errors. Lower is better.
    measure : str
        ``"profit"``, ``"loss"``, ``"misclassification"`` or ``"ase"``.

    Examples
    --------
    >>> from dtdecide.tree._estimator._pruning import _example_estimator, node_risk
    >>> est = _example_estimator()  # a fitted two-leaf classifier, no decision matrix
    >>> risk, measure = node_risk(est)
    >>> risk.tolist(), measure
    ([4.0, 1.0, 1.0], 'misclassification')
    """
    tree = estimator.tree_ if tree is None else tree
    return tree_node_risk(tree, **_tree_inputs(estimator, tree, measure))


# -------------------------------------------------------------------- public API
def _check_fitted_tree(estimator):
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet: it has no tree_; "
            "call fit first"
        )
    return tree


def pruning_path(estimator, *, measure=None, pruning_sequence="rule"):
    """Weakest-link pruning path of a fitted profit tree, without refitting.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
    measure : {None, "decision", "misclassification", "ase"}, default=None
        Risk that drives the pruning. None uses the decision matrix (average profit)
        when it has at least two decisions, otherwise misclassification (classifier) or
        average squared error (regressor).
    pruning_sequence : {"rule", "leaf"}, default="rule"
        The order in which the splits are removed. ``"rule"`` follows the training
        measure of the tree's own decision rule: under ``decision_rule="case"`` each
        case's profit under its own best decision. ``"leaf"`` follows the nodes' leaf
        decisions (each node's one best decision from its averaged costs, what the leaf
        rule would earn; rpart prunes by its leaf classes' risk the same way), while
        ``train_total`` and ``train_average`` stay the case rule's. For a tree that
        decides per leaf, and for the misclassification and squared-error measures,
        the two are the same sequence.

    Returns
    -------
    sklearn.utils.Bunch
        One entry per subtree of the nested sequence, from the full tree (index 0) to the
        root alone:

        - ``ccp_alphas``: non-decreasing alphas (units: total training profit, or total
          misclassified weight / squared error, per leaf removed);
        - ``n_leaves``: number of leaves;
        - ``train_total``, ``train_average``: training measure of the subtree (total and
          per unit of frequency), in the user's orientation (a loss matrix gives losses);
        - ``measure``: ``"profit"``, ``"loss"``, ``"misclassification"`` or ``"ase"``;
        - ``higher_is_better``: True only for profit;
        - ``collapse_step`` (per node): first subtree in which the node is a leaf;
        - ``node_risk`` (per node: the risk that ordered the sequence) and
          ``n_subtrees``.

    Examples
    --------
    >>> from dtdecide.tree._estimator._pruning import _example_estimator, pruning_path
    >>> est = _example_estimator()  # a fitted two-leaf classifier, no decision matrix
    >>> path = pruning_path(est)
    >>> path.ccp_alphas.tolist(), path.n_leaves.tolist(), path.train_average.tolist()
    ([0.0, 2.0], [2, 1], [0.2, 0.4])
    """
    check_pruning_sequence(pruning_sequence)
    tree = _check_fitted_tree(estimator)
    return tree_pruning_path(tree, **_tree_inputs(estimator, tree, measure),
                             pruning_sequence=pruning_sequence)


def prune_estimator(estimator, *, ccp_alpha=None, n_leaves=None, subtree_index=None,
                    measure=None, pruning_sequence="rule"):
    """A pruned copy of a fitted profit tree, without refitting.

    Exactly one of ``ccp_alpha``, ``n_leaves`` or ``subtree_index`` picks a subtree of
    the weakest-link sequence of :func:`pruning_path`. The leaves of the copy keep the
    decision each node already stores for itself as a leaf (``node_decision``, computed
    from the node's own training statistics), so no data is needed.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
    ccp_alpha : float, optional
        Smallest subtree whose alpha is at most ``ccp_alpha``. ``0`` removes exactly the
        splits that add no training profit.
    n_leaves : int, optional
        Largest subtree with at most ``n_leaves`` leaves.
    subtree_index : int, optional
        Position in the sequence (0 = the full tree, -1 = the root alone).
    measure : {None, "decision", "misclassification", "ase"}, default=None
        Risk driving the sequence, as in :func:`pruning_path`.
    pruning_sequence : {"rule", "leaf"}, default="rule"
        The order of the sequence, as in :func:`pruning_path`.

    Returns
    -------
    estimator
        A deep copy whose ``tree_`` is the chosen subtree; ``ccp_alpha`` (when the
        estimator has that parameter) is set to the subtree's alpha (with
        ``pruning_sequence="rule"`` only) and
        ``pruning_subtree_index_`` records the position.

    Examples
    --------
    >>> from dtdecide.tree._estimator._pruning import _example_estimator, prune_estimator
    >>> est = _example_estimator()  # a fitted two-leaf classifier, no decision matrix
    >>> prune_estimator(est, n_leaves=1).tree_.n_leaves, est.tree_.n_leaves
    (1, 2)
    """
    tree = _check_fitted_tree(estimator)
    path = pruning_path(estimator, measure=measure, pruning_sequence=pruning_sequence)
    k = _select_index(path, ccp_alpha=ccp_alpha, n_leaves=n_leaves, subtree_index=subtree_index)
    pruned = copy.deepcopy(estimator)
    pruned.tree_ = _materialise(tree, path, k)
    if "ccp_alpha" in getattr(pruned, "__dict__", {}) and pruning_sequence == "rule":
        # an alpha of the leaf sequence would prune a refit along the rule's sequence
        pruned.ccp_alpha = float(path.ccp_alphas[k])
    pruned.pruning_subtree_index_ = k
    return pruned


def apply_ccp_alpha(estimator, ccp_alpha, *, measure=None):
    """The estimator's tree pruned at ``ccp_alpha`` (called at the end of ``fit``).

    Parameters
    ----------
    estimator : estimator with a fitted ``tree_``
    ccp_alpha : float or None
        None returns ``estimator.tree_`` unchanged. ``0`` removes the splits that change
        no training profit (and hence, with profit-maximising leaf decisions, no
        decision); larger values prune more.
    measure : {None, "decision", "misclassification", "ase"}, default=None

    Returns
    -------
    TreeStructure

    Examples
    --------
    >>> from dtdecide.tree._estimator._pruning import _example_estimator, apply_ccp_alpha
    >>> est = _example_estimator()  # a fitted two-leaf classifier, no decision matrix
    >>> apply_ccp_alpha(est, 1.0).n_leaves, apply_ccp_alpha(est, 2.0).n_leaves
    (2, 1)
    """
    tree = _check_fitted_tree(estimator)
    if ccp_alpha is None:
        return tree
    return prune_tree(tree, ccp_alpha, **_tree_inputs(estimator, tree, measure))


def _example_estimator():
    """The stub the examples of this module prune: a fitted classifier (classes 0 and 1,
    no decision matrix) whose tree splits a root of 10 cases (6 and 4) into a leaf of
    5 and 1 and a leaf of 1 and 3."""
    from .._structure._tree import TreeStructure

    class Stub:
        classes_ = np.array([0, 1])
        decision_matrix_ = None

    est = Stub()
    est.tree_ = TreeStructure.from_arrays(
        children_left=[1, -1, -1], children_right=[2, -1, -1], feature=[0, -1, -1],
        threshold=[0.5, np.nan, np.nan], n_node_samples=[10, 6, 4],
        value=[[6, 4], [5, 1], [1, 3]], impurity=[0.48, 0.28, 0.38])
    return est
